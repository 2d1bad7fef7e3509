#!/bin/sh
# bench/k8s.sh - `paictl convert --to volcano|paddlejob` of large jobs,
# next to `paictl validate` of the same file: wall time (hyperfine, or the
# mean of BENCH_RUNS runs timed with date) and peak memory (GNU time).
#
# usage: sh bench/k8s.sh        (make bench sets PAICTL)
#
# Inputs, from bench/gen_large.py roles: 400 task roles (converts: the
# objects stay under the API server's limits) and 2,000 task roles (the
# issue's size: converted in full, then refused with k8s-too-large, as its
# ConfigMap and Job exceed what Kubernetes stores; the time is the whole
# conversion). Prints a table; the exit status is 0 unless something
# cannot run (timings on a shared machine are noisy).

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
out=${BENCH_DIR:-$top/build/bench}/k8s
runs=${BENCH_RUNS:-10}

die() {
	echo "bench k8s: $*" >&2
	exit 1
}
[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to generate inputs"
mkdir -p "$out" || die "cannot create $out"

# MEAN in milliseconds of the command line $1 (split on blanks)
time_ms() {
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N -i --warmup 1 --min-runs 3 --max-runs "$runs" \
			--export-json "$out/hf.json" "$1" >/dev/null 2>&1 || return 1
		python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["mean"] * 1000))' "$out/hf.json"
		return
	fi
	a=$(date +%s%N)
	i=0
	while [ "$i" -lt "$runs" ]; do
		# shellcheck disable=SC2086 # split on purpose
		$1 >/dev/null 2>&1
		i=$((i + 1))
	done
	b=$(date +%s%N)
	echo $(((b - a) / runs / 1000)) | awk '{ printf "%.2f\n", $1 / 1000 }'
}

# peak resident set in kB of the command line $1
peak_kb() {
	# shellcheck disable=SC2086
	/usr/bin/time -f %M $1 2>&1 >/dev/null | tail -n 1
}

printf '%-16s %-28s %10s %10s %s\n' input command ms peak-kB exit
for n in 400 2000; do
	f=$out/roles-$n.json
	[ -f "$f" ] || python3 "$top/bench/gen_large.py" roles "$f" "$n" >/dev/null ||
		die "gen_large.py failed"
	for cmd in "validate" "convert --to volcano" "convert --to paddlejob"; do
		line="$PAICTL $cmd $f"
		# shellcheck disable=SC2086
		$line >/dev/null 2>&1
		st=$?
		printf '%-16s %-28s %10s %10s %s\n' "$n roles" "$cmd" \
			"$(time_ms "$line")" "$(peak_kb "$line")" "$st"
	done
done
echo "(exit 3 for paddlejob: its roles are not ps/worker/heter; for 2,000 roles:"
echo " k8s-too-large, after the whole conversion)"
