#!/bin/sh
# tests/lint/batch_marks.sh - the marks of the Slurm batch script
# (lib/convert/slurm_batch.sh: @NAME@, a line's or a whole line's) are
# the ones lib/convert/slurm.c fills in (its marks[] table), and every
# one of those is used: a mark misspelt on either side would otherwise
# reach the cluster as its own text, in a script that runs.
#
# usage: sh tests/lint/batch_marks.sh [SCRIPT [SOURCE]]
set -eu
script=${1:-lib/convert/slurm_batch.sh}
source=${2:-lib/convert/slurm.c}

# the script as it is embedded: its own "##" lines left out
in_script=$(grep -v '^[[:space:]]*##' "$script" | grep -o '@[A-Z_]*@' |
	tr -d @ | sort -u)
in_source=$(sed -n '/^} marks\[\] = {/,/^};/p' "$source" |
	grep -o '{"[A-Z_]*"' | tr -d '{"' | sort -u)
if [ -z "$in_script" ] || [ -z "$in_source" ]; then
	echo "batch_marks: no marks found in $script or $source" >&2
	exit 1
fi
if [ "$in_script" != "$in_source" ]; then
	echo "batch_marks: $script and $source differ in their marks:" >&2
	printf '%s\n' "$in_script" >"${TMPDIR:-/tmp}/batch_marks.$$.a"
	printf '%s\n' "$in_source" >"${TMPDIR:-/tmp}/batch_marks.$$.b"
	diff "${TMPDIR:-/tmp}/batch_marks.$$.a" \
		"${TMPDIR:-/tmp}/batch_marks.$$.b" >&2 || true
	rm -f "${TMPDIR:-/tmp}/batch_marks.$$.a" \
		"${TMPDIR:-/tmp}/batch_marks.$$.b"
	exit 1
fi
echo "batch_marks: $(echo "$in_script" | wc -l) marks, the same in both"
