#!/bin/sh
# tests/libpai/abi.sh RECORD LIBSO - the built libpai.so against its ABI
# record (lib/libpai.abi, written by `make abi` with abigail-tools'
# abidw). A change (a function or type changed or gone) fails until it
# is made on purpose: with a new soname, or a new record. Added
# functions pass, with a reminder to record them; so do new members of
# the structs a program only ever holds by pointer (abi.supp).
set -u
record=$1
lib=$2
if ! command -v abidiff >/dev/null 2>&1; then
	echo "abi: abidiff not installed (Debian package abigail-tools): FAILED"
	exit 1
fi
# The opaque structs pai.h declares ("typedef struct x x;" and no
# body) may change inside: abi.supp names them, and must name exactly
# them.
supp=$(dirname "$0")/abi.supp
header=$(dirname "$0")/../../lib/pai.h
opaque=$(sed -n 's/^typedef struct \(pai_[a-z_]*\) \1;$/\1/p' "$header" | sort)
listed=$(sed -n 's/^ *name_regexp = ^(\(.*\))\$$/\1/p' "$supp" | tr '|' '\n' | sort)
if [ "$opaque" != "$listed" ]; then
	echo "abi: $supp names other structs than pai.h declares opaque:"
	echo "  pai.h: $(echo $opaque)"
	echo "  supp:  $(echo $listed)"
	exit 1
fi
# Any other change but an added function fails: abidiff says 4 for a
# changed type or parameter, 8 for a removed symbol, 1 or 2 for its own
# errors.
out=$(abidiff --no-added-syms --suppressions "$supp" "$record" "$lib" 2>&1)
st=$?
if [ $st -ne 0 ]; then
	printf '%s\n' "$out"
	echo "abi: $lib breaks the ABI recorded in $record (abidiff exit $st): bump the soname, or run 'make abi' if the change is meant"
	exit 1
fi
if ! abidiff --suppressions "$supp" "$record" "$lib" >/dev/null 2>&1; then
	echo "abi: functions were added; run 'make abi' to record them"
fi
echo "abi: $(basename "$lib") keeps the ABI recorded in $record"
