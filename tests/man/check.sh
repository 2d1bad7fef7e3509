#!/bin/sh
# tests/man/check.sh - the man pages agree with the program.
#
# usage: PAICTL=build/paictl sh tests/man/check.sh   (from the source tree)
#
# For every command that 'paictl --help' lists: each option that
# 'paictl CMD --help' prints (short and long name) is an item of the OPTIONS
# of man/paictl-CMD.1 or of the GLOBAL OPTIONS of man/paictl.1, and each
# item of man/paictl-CMD.1's OPTIONS is in that --help; the old spellings
# its last line names are the items of the page's COMPATIBILITY: the
# options tables drive --help, so this is what keeps the pages from
# drifting. Also: every
# rule id of lib/ is in paictl-job(5) and the other way round; every
# page is clean for 'mandoc -Tlint -Wwarning', paictl(1) lists every
# command and renders, and the examples on the pages that need no cluster
# (validate and expand on examples/) run and exit 0.

PAICTL=${PAICTL:-build/paictl}
case $PAICTL in /*) ;; *) PAICTL=$PWD/$PAICTL ;; esac
srcdir=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$srcdir" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# no user's profile, token or local cluster can change what --help says
export XDG_CONFIG_HOME="$tmp/config" XDG_STATE_HOME="$tmp/state"
unset PAICTL_CLUSTER PAICTL_URI PAICTL_USER PAICTL_TOKEN PAICTL_CONFIG

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	printf 'FAIL: %s\n' "$*"
}

# "SHORT LONG" per option of a --help text ("-" for no short name)
help_opts() {
	sed -n -e 's/^  *-\([A-Za-z0-9]\), --\([a-z][a-z0-9-]*\).*/\1 \2/p' \
		-e 's/^  *--\([a-z][a-z0-9-]*\).*/- \1/p' | sort -u
}

# "SHORT LONG" per old spelling on the "Old spellings, still accepted:"
# line of a --help text: "-r/--role (ROLE), --fs-uri (--default-fs)"
old_opts() {
	sed -n 's/^Old spellings, still accepted: //p' | tr ',' '\n' |
		sed -n -e 's/^ *-\([A-Za-z0-9]\)\/--\([a-z][a-z0-9-]*\) .*/\1 \2/p' \
			-e 's/^ *--\([a-z][a-z0-9-]*\) .*/- \1/p' | sort -u
}

# "SHORT LONG" lines as "-d/--dialect --strict"
names() {
	awk '{ printf "%s%s--%s", (NR > 1 ? " " : ""), ($1 == "-" ? "" : "-" $1 "/"), $2 }'
}

# "SHORT LONG" per '.It Fl' item of section $2 of page $1
man_opts() {
	awk -v sec="$2" '
	/^\.Sh / { insec = ($0 == ".Sh " sec); next }
	insec && /^\.It Fl / {
		short = "-"; long = ""
		for (i = 2; i < NF; i++) {
			if ($i != "Fl")
				continue
			t = $(i + 1)
			if (t ~ /^\\-/)
				long = substr(t, 3)
			else if (short == "-")
				short = t
		}
		if (long != "")
			print short, long
	}' "$1" | sort -u
}

# listed CMD: paictl(1) lists the command among its COMMANDS
listed() {
	if awk -v c="$1" '/^\.Sh / { on = ($0 == ".Sh COMMANDS") }
		on && $1 == ".It" && $2 == "Cm" && $3 == c { f = 1 }
		END { exit !f }' man/paictl.1; then
		pass
	else
		fail "$1: not among the COMMANDS of paictl.1"
	fi
}

commands=$("$PAICTL" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
if [ -z "$commands" ]; then
	fail "no commands in 'paictl --help'"
fi

man_opts man/paictl.1 "GLOBAL OPTIONS" >"$tmp/global"
[ -s "$tmp/global" ] || fail "paictl.1: no GLOBAL OPTIONS items"
: >"$tmp/all-help"

for cmd in $commands; do
	# help and version are paictl(1)'s own: listed among its COMMANDS
	case $cmd in help | version)
		listed "$cmd"
		continue
	esac
	page=man/paictl-$cmd.1
	if [ ! -f "$page" ]; then
		fail "$cmd: no $page"
		continue
	fi
	if ! "$PAICTL" "$cmd" --help >"$tmp/help" 2>&1; then
		fail "$cmd: 'paictl $cmd --help' failed"
		continue
	fi
	# 'paictl help CMD' is the same text, so it agrees with the pages too
	if "$PAICTL" help "$cmd" 2>&1 | cmp -s - "$tmp/help"; then
		pass
	else
		fail "$cmd: 'paictl help $cmd' differs from 'paictl $cmd --help'"
	fi
	help_opts <"$tmp/help" >"$tmp/h"
	cat "$tmp/h" >>"$tmp/all-help"
	man_opts "$page" OPTIONS >"$tmp/m"
	sort -u "$tmp/m" "$tmp/global" >"$tmp/documented"

	# in --help, not on the pages
	missing=$(comm -23 "$tmp/h" "$tmp/documented" | names)
	if [ -n "$missing" ]; then
		fail "$cmd: in --help but not in $page OPTIONS nor paictl.1 GLOBAL OPTIONS:" $missing
	else
		pass
	fi
	# on the command's page, not in --help
	extra=$(comm -13 "$tmp/h" "$tmp/m" | names)
	if [ -n "$extra" ]; then
		fail "$cmd: in $page OPTIONS but not in 'paictl $cmd --help':" $extra
	else
		pass
	fi
	# the SYNOPSIS shows each option of its own
	awk '/^Options:/ { on = 1; next } /^Global options/ { on = 0 } on' \
		"$tmp/help" | help_opts >"$tmp/own"
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$page" >"$tmp/syn"
	while read -r short long; do
		if grep -qE "Fl (\\\\-$long|$short)( |\$)" "$tmp/syn"; then
			pass
		else
			fail "$cmd: --$long not in $page SYNOPSIS"
		fi
	done <"$tmp/own"
	# its old spellings (the last line of --help) are the items of
	# its page's COMPATIBILITY, and the other way round
	old_opts <"$tmp/help" >"$tmp/ho"
	man_opts "$page" COMPATIBILITY >"$tmp/mo"
	if cmp -s "$tmp/ho" "$tmp/mo"; then
		pass
	else
		fail "$cmd: old spellings in --help:" $(names <"$tmp/ho") \
			"but in $page COMPATIBILITY:" $(names <"$tmp/mo")
	fi
	listed "$cmd"
done

# each global option of paictl(1) is one that some command accepts
sort -u "$tmp/all-help" -o "$tmp/all-help"
extra=$(comm -13 "$tmp/all-help" "$tmp/global" | names)
if [ -n "$extra" ]; then
	fail "paictl.1 GLOBAL OPTIONS not in any --help:" $extra
else
	pass
fi

# each command page is for a command that exists
for page in man/paictl-*.1; do
	cmd=${page#man/paictl-}
	cmd=${cmd%.1}
	if printf '%s\n' $commands | grep -qx -- "$cmd"; then
		pass
	else
		fail "$page: no command '$cmd' in 'paictl --help'"
	fi
done

# mandoc finds nothing to say
for page in man/*.1 man/*.3 man/*.5; do
	if out=$(mandoc -Tlint -Wwarning "$page" 2>&1) && [ -z "$out" ]; then
		pass
	else
		fail "$page: mandoc -Tlint:"
		printf '%s\n' "$out"
	fi
done

# every function of pai.h is in the SYNOPSIS of a section 3 page, and
# every function there is in pai.h
if out=$(python3 - lib/pai.h man/*.3 <<'PY'
import re, sys
sys.path.insert(0, "tests/libpai")
import exports
declared = exports.declared(sys.argv[1])
paged = set()
for page in sys.argv[2:]:
    text = open(page, encoding="utf-8").read()
    syn = text.split(".Sh SYNOPSIS", 1)[-1].split(".Sh ", 1)[0]
    paged |= set(re.findall(r"^\.Fn (pai_\w+)", syn, flags=re.M))
for n in sorted(declared - paged):
    print("%s: in pai.h, on no section 3 page" % n)
for n in sorted(paged - declared):
    print("%s: on a section 3 page, not in pai.h" % n)
PY
) && [ -z "$out" ]; then
	pass
else
	fail "the section 3 pages and pai.h differ:"
	printf '%s\n' "$out"
fi

# paictl-job(5) documents every rule id that lib/ reports, and no other:
# the ids with a '-' in the files that check configs (all of them rule
# ids: both formats' parsers and validators, and conversion; the k8s-*
# ids that convert.h also holds are paictl-convert(1)'s) and the
# expansions' unknown-*; a documented id must be a string in lib/
rule_files=$(ls lib/job/validate.c lib/job/validate_v2*.c lib/text/json.c lib/text/yaml.c \
	lib/job/job_v2.c lib/convert/convert*.[ch] 2>/dev/null)
expand_files=$(ls lib/runtime/openpai_v0x.c lib/runtime/openpai_v1x.c 2>/dev/null)
awk '/^\.It Sy [a-z]/ { print $3 }' man/paictl-job.5 | sort -u >"$tmp/rules-man"
{
	grep -ohE '"[a-z0-9]+(-[a-z0-9]+)+"' $rule_files | grep -v '^"k8s-'
	grep -ohE '"unknown-[a-z-]+"' $expand_files
} | tr -d '"' | sort -u >"$tmp/rules-code"
missing=$(comm -23 "$tmp/rules-code" "$tmp/rules-man")
if [ -n "$missing" ]; then
	fail "rule ids not in man/paictl-job.5:" $missing
else
	pass
fi
for rule in $(cat "$tmp/rules-man"); do
	if grep -q "\"$rule\"" $rule_files $expand_files; then
		pass
	else
		fail "man/paictl-job.5: rule id '$rule' is not in lib/"
	fi
done

# the exit statuses: error.h's, and 130 (Ctrl-C), in paictl(1) and in
# README.md's table
sed -n 's/^[[:space:]]*EXIT_[A-Z_]* = \([0-9][0-9]*\).*/\1/p' cli/error.h |
	sort -n >"$tmp/codes"
echo 130 >>"$tmp/codes"
sed -n '/^\.Sh EXIT STATUS/,/^\.Sh /s/^\.It \([0-9][0-9]*\)$/\1/p' man/paictl.1 \
	>"$tmp/codes-man"
sed -n '/^## Exit statuses/,/^## /s/^| \([0-9][0-9]*\) |.*/\1/p' README.md \
	>"$tmp/codes-readme"
for f in codes-man codes-readme; do
	if cmp -s "$tmp/codes" "$tmp/$f"; then
		pass
	else
		fail "exit statuses in $f:" $(cat "$tmp/$f") "but error.h and 130:" \
			$(cat "$tmp/codes")
	fi
done

# README.md's validate examples print what validate prints, for the
# files of tests/man/readme/
for f in job.json job.yaml; do
	sed -n "/^\\$ paictl validate $f\$/,/^\`\`\`/p" README.md | sed '1d;$d' \
		>"$tmp/readme-out"
	(cd tests/man/readme && "$PAICTL" --color=never validate "$f") \
		>/dev/null 2>"$tmp/real-out"
	if [ -s "$tmp/readme-out" ] && cmp -s "$tmp/readme-out" "$tmp/real-out"; then
		pass
	else
		fail "README.md's 'paictl validate $f' differs from what it prints:"
		diff "$tmp/readme-out" "$tmp/real-out"
	fi
done

# 'man ./man/paictl.1' renders: the name line and the exit statuses
if mandoc -Tascii man/paictl.1 2>/dev/null | col -b >"$tmp/paictl.txt" &&
	grep -q 'paictl - job client' "$tmp/paictl.txt" &&
	grep -q 'EXIT STATUS' "$tmp/paictl.txt" &&
	grep -q 'paictl.py' "$tmp/paictl.txt"; then
	pass
else
	fail "man/paictl.1 does not render with mandoc -Tascii"
fi

# the examples that need no cluster run, from the source tree: one-line
# .Dl ones and the lines of .Bd blocks
grep -h '^\(\.Dl \)\{0,1\}paictl \(validate\|expand\) .*examples/' man/*.1 man/*.5 |
	grep -v '[|<>;&]' | sed 's/^\.Dl //; s/^paictl //' >"$tmp/examples"
while IFS= read -r args; do
	# sh, for the globs in examples/*.json
	if sh -c "\"\$0\" $args" "$PAICTL" \
		>/dev/null 2>"$tmp/err"; then
		pass
	else
		fail "man example 'paictl $args' exited $?:"
		cat "$tmp/err"
	fi
done <"$tmp/examples"
[ -s "$tmp/examples" ] || fail "no runnable examples found on the pages"

echo "man: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
