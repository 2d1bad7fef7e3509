#!/bin/sh
# run.sh DIR TARGET... - runs each libFuzzer target DIR/fuzz_TARGET for
# $FUZZ_SECONDS (default 60) from its seeds, with its dictionary
# (tests/fuzz/TARGET.dict). The corpus grows in DIR/corpus/TARGET; a
# crash, leak, timeout or sanitizer report is kept as
# DIR/crashes/TARGET-* with the fuzzer's log beside it. Every target
# runs, after replaying the inputs that once broke it
# (tests/fuzz/regress/TARGET/); the exit status is 1 when any of them
# found something.
set -u
dir=$1
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared/corpus
secs=${FUZZ_SECONDS:-60}
failed=

# The job configs of the examples and the corpus, as fuzz_job takes them
# (a first byte for the dialect) and as fuzz_yaml does.
seed_configs() {
	mkdir -p "$dir/seeds/job" "$dir/seeds/yaml"
	for f in "$top"/examples/*.json "$shared"/openpai-examples/*.json; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .json)
		{ printf o; cat "$f"; } > "$dir/seeds/job/o-$b"
		{ printf s; cat "$f"; } > "$dir/seeds/job/s-$b"
	done
	for f in "$top"/examples/*.yaml "$shared"/openpai-v2-examples/*.y*ml; do
		[ -f "$f" ] && cp "$f" "$dir/seeds/yaml/"
	done
}

# One target: its regressions replayed, then $secs s of fuzzing; what it
# says on stdout, and DIR/crashes/TARGET.failed when it found something.
fuzz_one() {
	t=$1
	rm -f "$dir/crashes/$t.failed"
	mkdir -p "$dir/corpus/$t" "$dir/seeds/$t"
	[ -d "$top/tests/fuzz/seeds/$t" ] &&
		cp "$top"/tests/fuzz/seeds/"$t"/* "$dir/seeds/$t/" 2>/dev/null
	log=$dir/crashes/$t.log
	# first what it found before (tests/fuzz/regress/TARGET/), each a
	# bug fixed since
	if ls "$top"/tests/fuzz/regress/"$t"/* >/dev/null 2>&1 &&
		! UBSAN_OPTIONS=print_stacktrace=1 "$dir/fuzz_$t" \
			"$top"/tests/fuzz/regress/"$t"/* > "$log" 2>&1; then
		echo "fuzz_$t FAILED on an input of tests/fuzz/regress/$t:"
		grep -A40 -E '^==[0-9]+==ERROR|check failed|runtime error' \
			"$log" | head -60
		: > "$dir/crashes/$t.failed"
		return
	fi
	echo "fuzz_$t: $secs s"
	UBSAN_OPTIONS=print_stacktrace=1 "$dir/fuzz_$t" \
		-max_total_time="$secs" -max_len=16384 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-dict="$top/tests/fuzz/$t.dict" \
		-artifact_prefix="$dir/crashes/$t-" \
		"$dir/corpus/$t" "$dir/seeds/$t" > "$log" 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" |
		sed "s/^/  /"
	if [ $rc -ne 0 ]; then
		echo "fuzz_$t FAILED (exit $rc); the fuzzer's report:"
		grep -A40 -E '^==[0-9]+==ERROR|check failed|runtime error|SUMMARY' \
			"$log" | head -60
		ls "$dir"/crashes/"$t"-* 2>/dev/null
		: > "$dir/crashes/$t.failed"
	fi
}

seed_configs
mkdir -p "$dir/crashes"
# as many targets at once as the machine has CPUs (FUZZ_JOBS): libFuzzer
# runs on one, and each target still gets its $secs s
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for t in "$@"; do
	fuzz_one "$t" > "$dir/crashes/$t.out" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for t in "$@"; do
	cat "$dir/crashes/$t.out"
	[ -f "$dir/crashes/$t.failed" ] && failed="$failed $t"
done
if [ -n "$failed" ]; then
	echo "fuzzing found problems in:$failed (inputs kept in $dir/crashes)"
	exit 1
fi
echo "fuzzing: no crash, leak or sanitizer report in $*"
