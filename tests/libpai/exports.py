#!/usr/bin/env python3
"""exports.py LIBSO PAI_H - libpai.so exports exactly the functions pai.h
declares: each exported symbol is declared there, each declared function
is exported, all at version LIBPAI_0, and the soname is libpai.so.<major>.
Exit 1 with the differences otherwise."""
import re
import subprocess
import sys


def declared(header):
    text = open(header, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)  # macros, INIT lists
    # a function's name is followed by its parameter list; a member or
    # parameter that points to a function is written (*name)(...)
    return set(m.group(1) for m in
               re.finditer(r"(?<![(*\w])\**\s*\b(pai_\w+)\s*\(", text))


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", lib],
                         check=True, capture_output=True, text=True).stdout
    names, versions = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] == "A":
            continue
        name, _, version = parts[2].partition("@")
        names.add(name)
        versions.add(version.lstrip("@"))
    return names, versions


def soname(lib):
    out = subprocess.run(["objdump", "-p", lib], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"SONAME\s+(\S+)", out)
    return m.group(1) if m else None


def main(lib, header):
    decl = declared(header)
    names, versions = exported(lib)
    bad = 0
    for n in sorted(names - decl):
        print("exported but not declared in pai.h: %s" % n)
        bad += 1
    for n in sorted(decl - names):
        print("declared in pai.h but not exported: %s" % n)
        bad += 1
    if versions != {"LIBPAI_0"}:
        print("symbol versions: %s (want LIBPAI_0 only)" % sorted(versions))
        bad += 1
    so = soname(lib)
    if not so or not re.fullmatch(r"libpai\.so\.\d+", so):
        print("soname: %s (want libpai.so.<major>)" % so)
        bad += 1
    print("libpai exports: %d functions of pai.h, soname %s, %s" %
          (len(names & decl), so, "ok" if not bad else "%d problems" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
