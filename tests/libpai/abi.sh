#!/bin/sh
# tests/libpai/abi.sh RECORD LIBSO - the built libpai.so against its ABI
# record (lib/libpai.abi, written by `make abi` with abigail-tools'
# abidw). A change (a function or type changed or gone) fails until it
# is made on purpose: with a new soname, or a new record. Added
# functions pass, with a reminder to record them.
set -u
record=$1
lib=$2
if ! command -v abidiff >/dev/null 2>&1; then
	echo "abi: abidiff not installed (Debian package abigail-tools): FAILED"
	exit 1
fi
# The public header alone, so that the layout of a type it only names
# (opaque: struct pai_client, pai_job_info...) is libpai's business; and
# abi.suppr for options structs grown at their end with a new version.
here=$(cd "$(dirname "$0")" && pwd)
pub=$(mktemp -d) || exit 1
trap 'rm -rf "$pub"' EXIT
cp "$(dirname "$record")/pai.h" "$pub/" || exit 1
diff_abi() {
	abidiff --suppressions "$here/abi.suppr" --headers-dir1 "$pub" \
		--headers-dir2 "$pub" "$@"
}
# Any change but an added function fails: abidiff says 4 for a changed
# type or parameter, 8 for a removed symbol, 1 or 2 for its own errors.
out=$(diff_abi --no-added-syms "$record" "$lib" 2>&1)
st=$?
if [ $st -ne 0 ]; then
	printf '%s\n' "$out"
	echo "abi: $lib breaks the ABI recorded in $record (abidiff exit $st): bump the soname, or run 'make abi' if the change is meant"
	exit 1
fi
if ! diff_abi "$record" "$lib" >/dev/null 2>&1; then
	echo "abi: functions were added; run 'make abi' to record them"
fi
echo "abi: $(basename "$lib") keeps the ABI recorded in $record"
