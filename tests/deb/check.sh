#!/bin/sh
# tests/deb/check.sh - the Debian packages as their users get them.
#
# usage: sh tests/deb/check.sh   (make deb-test; needs `make test-deps`)
#
# Builds paictl, libpai0 and libpai-dev with `make deb` (dpkg-buildpackage
# on a copy of this tree; the build fails when debian/libpai0.symbols is
# not what libpai.so.0 exports), then checks:
# - each package has its files in Debian's places, every man page of man/
#   in the package of its section, and libpai0 nothing but the library;
# - every library that a packaged binary opens with dlopen (its soname is
#   a string in the binary) is a Depends of that package, by the name of
#   the package that owns the soname here: dpkg-shlibdeps cannot see them;
# - the packages, unpacked into a throwaway root (dpkg -x), work there:
#   `paictl --version` says the package's version, `paictl validate` on
#   the examples, a job on the local cluster (paictl serve: libmicrohttpd,
#   libcurl), `man -l` on a page of each section;
# - examples/libpai/validate.c builds against the unpacked libpai-dev
#   with pkg-config alone (shared and static), runs with the unpacked
#   libpai0, and dpkg-shlibdeps makes it depend on libpai0 through the
#   symbols file;
# - lintian on the .changes reports no error (its warnings are shown).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$top" || exit 1
start=$(date +%s)
MAKE=${MAKE:-make}
CC=${CC:-cc}
deb_dir=$top/build/deb
work=$(mktemp -d "${TMPDIR:-/tmp}/deb-test.XXXXXX") || exit 1
root=$work/root
paictl=$root/usr/bin/paictl
cleanup() {
	[ -x "$paictl" ] && "$paictl" serve --state-dir "$work/state" --stop \
		>/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# no user's profile, token or local cluster
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state-home"
unset PAICTL_CLUSTER PAICTL_URI PAICTL_USER PAICTL_TOKEN PAICTL_CONFIG

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	printf 'deb: FAILED: %s\n' "$*"
}
check() { # check WHAT COMMAND...: passes when COMMAND exits 0
	what=$1
	shift
	if "$@"; then pass; else fail "$what"; fi
}
contains() { printf '%s' "$1" | grep -q -- "$2"; } # contains TEXT REGEX
no_libpai() { ! objdump -p "$1" | grep -q 'NEEDED.*libpai'; } # no_libpai ELF

for tool in dpkg-buildpackage dh lintian man; do
	command -v $tool >/dev/null ||
		{ echo "deb: no $tool: run make test-deps"; exit 1; }
done

version=$(sed -n 's/^#define PAI_VERSION "\(.*\)"/\1/p' lib/pai.h)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=$root/usr/lib/$ma

# The build, with the make that runs this test out of the way: its
# command-line variables (BUILD=, CFLAGS=) are not the package's.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE --no-print-directory deb \
	>"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log"
	echo "deb: FAILED: make deb (the end of its output above)"
	exit 1
fi
pass

debs=
for p in paictl libpai0 libpai-dev; do
	deb=$deb_dir/${p}_${version}_$arch.deb
	if [ -f "$deb" ]; then
		debs="$debs $deb"
		dpkg -x "$deb" "$root" || fail "dpkg -x $deb"
		dpkg -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' \
			>"$work/$p.list"
	else
		fail "no $deb"
		: >"$work/$p.list"
	fi
done
[ -n "$debs" ] || exit 1

# has PKG PATH: PKG's package lists PATH
has() { grep -qx "$2" "$work/$1.list" || { echo "deb: $1 lacks $2"; false; }; }

for f in usr/bin/paictl usr/share/bash-completion/completions/paictl \
	usr/share/zsh/vendor-completions/_paictl \
	usr/share/fish/vendor_completions.d/paictl.fish; do
	check "paictl's files" has paictl "$f"
done
for f in usr/include/pai.h "usr/lib/$ma/libpai.so" "usr/lib/$ma/libpai.a" \
	"usr/lib/$ma/pkgconfig/pai.pc"; do
	check "libpai-dev's files" has libpai-dev "$f"
done
for page in man/*.[0-9]; do
	n=${page##*.}
	case $n in 3) p=libpai-dev ;; *) p=paictl ;; esac
	check "man pages" has $p "usr/share/man/man$n/${page#man/}.gz"
done
# libpai0: the library and its soname link, and Debian's two documents
others=$(grep -v -x -e "usr/lib/$ma/libpai\.so\.0" \
	-e "usr/lib/$ma/libpai\.so\.$version" -e '.*/' \
	-e 'usr/share/doc/libpai0/\(copyright\|changelog\.gz\)' -e '' \
	"$work/libpai0.list")
check "libpai0 has only libpai.so.0 and $version, and more: $others" \
	test -z "$others"
for f in "usr/lib/$ma/libpai.so.0" "usr/lib/$ma/libpai.so.$version"; do
	check "libpai0's library" has libpai0 "$f"
done

# dlopen: each package whose binary names a soname of the build's
# libcurl, libssh2 or libmicrohttpd (the Makefile's way to find it)
# depends on the package that owns that soname here. Which binary names
# which is what debian/control's comment says: a change is told too.
for lib in libcurl libssh2 libmicrohttpd; do
	so=$(pkg-config --variable=libdir $lib)/$lib.so
	soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
	owner=$(dpkg -S "$(dirname "$so")/$soname" 2>/dev/null | sed 's/:.*//')
	if [ -z "$soname" ] || [ -z "$owner" ]; then
		fail "no package owns $lib's soname (${soname:-none})"
		continue
	fi
	for p in paictl libpai0; do
		case $p in
		paictl) bin=$paictl ;;
		libpai0) bin=$libdir/libpai.so.$version ;;
		esac
		case $p/$lib in
		libpai0/libmicrohttpd) expected= ;;
		*) expected=1 ;;
		esac
		if ! grep -q -a -F "$soname" "$bin"; then
			[ -z "$expected" ] && pass ||
				fail "$p no longer opens $soname: debian/control says it does"
			continue
		fi
		[ -n "$expected" ] ||
			fail "$p opens $soname: debian/control does not say so"
		depends=$(dpkg-deb -f "$deb_dir/${p}_${version}_$arch.deb" Depends |
			tr -d ' ' | tr ',' '\n' | sed 's/(.*//')
		if printf '%s\n' "$depends" | grep -qx "$owner"; then
			pass
		else
			fail "$p opens $soname (package $owner) but does not depend on" \
				"it: $(printf '%s' "$depends" | tr '\n' ' ')"
		fi
	done
done
# paictl has libpai inside it (libpai.a): not libpai0
check "paictl links libpai statically" \
	no_libpai "$paictl"

# the symbols file: current for the library packaged (the package build
# checks it too), and in the package
check "debian/libpai0.symbols is current" \
	sh debian/gen-symbols --check "$libdir/libpai.so.$version"
mkdir -p "$work/libpai0"
dpkg-deb -e "$deb_dir/libpai0_${version}_$arch.deb" "$work/libpai0/DEBIAN"
check "libpai0's symbols file is debian/libpai0.symbols" \
	cmp -s "$work/libpai0/DEBIAN/symbols" debian/libpai0.symbols

# the installed program, with no file of this tree but its examples
out=$("$paictl" --version 2>&1)
check "paictl --version: $out" test "$out" = "paictl $version"
for ex in examples/hello-distributed.json examples/hello-distributed.yaml; do
	out=$("$paictl" validate "$ex" 2>&1)
	check "paictl validate $ex: $out" test $? -eq 0
done
# the local cluster: libmicrohttpd in the server, libcurl in the client
if "$paictl" serve --state-dir "$work/state" --background --no-ssh \
	>"$work/serve.out" 2>&1; then
	out=$(timeout 60 "$paictl" --uri "unix:$work/state/api.sock" -u alice \
		submit --wait examples/hello-distributed.json 2>&1)
	check "paictl submit --wait on the local cluster: $out" test $? -eq 0
else
	fail "paictl serve: $(cat "$work/serve.out")"
fi
# a page of each section, rendered by man-db as a user reads it, with no
# warning from groff
for n in 1 3 5; do
	page=$(ls "$root/usr/share/man/man$n/"*.gz 2>/dev/null | head -n 1)
	[ -n "$page" ] || { fail "no page in section $n"; continue; }
	name=$(basename "$page" ".$n.gz")
	MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l -P cat "$page" \
		>"$work/man.out" 2>"$work/man.err"
	st=$?
	check "man -l $page: exit $st, $(head -c 300 "$work/man.err")" \
		test $st -eq 0 -a ! -s "$work/man.err"
	check "man -l $page: no NAME section naming $name" \
		grep -q "^ *$name " "$work/man.out"
done

# a program of a libpai user, from the unpacked libpai-dev alone
export PKG_CONFIG_SYSROOT_DIR="$root"
export PKG_CONFIG_LIBDIR="$libdir/pkgconfig:$(pkg-config --variable pc_path pkg-config)"
flags=$(pkg-config --cflags --libs pai)
check "pkg-config --cflags --libs pai: $flags" \
	contains "$flags" "-L$libdir"
# shellcheck disable=SC2086 # flags are words on purpose
check "examples/libpai/validate.c builds against libpai-dev" \
	$CC -Wall -Wextra -Werror -o "$work/validate" examples/libpai/validate.c \
	$flags
static=$(pkg-config --static --libs pai | sed "s|-lpai\>|$libdir/libpai.a|")
# shellcheck disable=SC2086
check "examples/libpai/validate.c builds with libpai.a" \
	$CC -Wall -Wextra -Werror -o "$work/validate-static" \
	examples/libpai/validate.c $(pkg-config --cflags pai) $static
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
for v in validate validate-static; do
	[ -x "$work/$v" ] || continue
	out=$(LD_LIBRARY_PATH=$libdir "$work/$v" examples/jupyter.json 2>&1)
	check "$v examples/jupyter.json: $out" \
		test "$(printf '%s' "$out" | tr -d ' \n')" = "[]"
done
if [ -x "$work/validate" ]; then
	# the libpai.so.0 it runs with is the unpacked one
	out=$(LD_LIBRARY_PATH=$libdir ldd "$work/validate" | grep libpai)
	check "validate runs with $libdir's libpai: $out" \
		contains "$out" "=> $libdir/libpai.so.0 "
	# a package of it depends on libpai0, at the version its symbols have
	mkdir -p "$work/user/debian"
	printf 'Source: user\n\nPackage: user\nArchitecture: any\n' \
		>"$work/user/debian/control"
	dpkg -x "$deb_dir/libpai0_${version}_$arch.deb" "$work/libpai0"
	out=$(cd "$work/user" && dpkg-shlibdeps -O -S"$work/libpai0" \
		"$work/validate" 2>&1)
	check "dpkg-shlibdeps of a program using libpai: $out" \
		contains "$out" "libpai0 (>= $version)"
	check "the static one needs no libpai0" \
		no_libpai "$work/validate-static"
fi

# lintian: the packages and the .changes; warnings shown, errors fail
out=$(lintian --fail-on error "$deb_dir"/*.changes 2>&1)
st=$?
out=$(printf '%s\n' "$out" | grep -v '^running with root privileges')
[ -n "$out" ] && printf '%s\n' "$out"
check "lintian: exit $st" test $st -eq 0

secs=$(($(date +%s) - start))
if [ $failed -gt 0 ]; then
	echo "deb: $failed failed, $passed passed (${secs}s)"
	exit 1
fi
echo "deb: $passed checks passed: $(cd "$deb_dir" && ls ./*.deb | sed 's|\./||' |
	tr '\n' ' ')built, unpacked and used; no lintian error (${secs}s)"
