# bench/lib.sh - what the cluster benchmarks share (sourced; they set
# $out, a directory of their own, and $runs)

# MEAN in milliseconds of the command line $1 (split on blanks)
time_ms() {
	hyperfine -N -i --warmup 2 --min-runs "$runs" --max-runs "$runs" \
		--export-json "$out/hf.json" "$1" >/dev/null 2>&1 || return 1
	python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.1f ± %.1f" % (r["mean"] * 1000, r["stddev"] * 1000))' "$out/hf.json"
}

# wall milliseconds of the command line $1, run once
once_ms() {
	a=$(date +%s%N)
	sh -c "$1" >/dev/null 2>"$out/once.err" || {
		cat "$out/once.err" >&2
		return 1
	}
	b=$(date +%s%N)
	echo $(((b - a) / 1000000))
}
