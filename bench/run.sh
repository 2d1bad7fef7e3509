#!/bin/sh
# bench/run.sh - `paictl validate FILE` against `jq empty FILE`, whole
# processes: wall time and peak memory, on generated configs with 2,000
# task roles (plain, and with every command reading other roles' host
# lists and its own ports), a 50 MB config with one huge command, and
# every example.
#
# usage: sh bench/run.sh        (make bench sets PAICTL)
#
# Environment: PAICTL (default build/paictl), BENCH_DIR (default
# build/bench), BENCH_RUNS (most timed runs per command, default 10).
# The targets are paictl no slower than jq on every file, and a peak
# resident set at most twice jq's; the verdicts say so, and the exit
# status is 0 either way (timings on a shared machine are noisy): only
# missing tools or a failed generator make it fail.
#
# jq does not read comments: it gets a copy with them blanked out, the
# same size. Times come from hyperfine when it is installed (else the
# mean of a loop timed with date), peak RSS from GNU time's %M (else
# from python3's getrusage).

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
out=${BENCH_DIR:-$top/build/bench}
runs=${BENCH_RUNS:-10}

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
command -v jq >/dev/null 2>&1 || die "jq is needed (Debian package jq)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to generate inputs"

if command -v hyperfine >/dev/null 2>&1; then
	timer=hyperfine
else
	timer=loop
	echo "note: hyperfine not installed: times are the mean of $runs runs timed with date"
fi
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	rss=gnutime
else
	rss=python
	echo "note: GNU time not installed (Debian package time): peak RSS from python3's getrusage"
fi

mkdir -p "$out/jq" || die "cannot create $out"
gen() {
	python3 "$top/bench/gen_large.py" "$@" || die "gen_large.py $* failed"
}
# generated once, and again when the generator changes
stale() {
	[ ! -f "$1" ] || [ -n "$(find "$top/bench/gen_large.py" -newer "$1")" ]
}
stale "$out/roles-2000.json" && gen roles "$out/roles-2000.json" 2000
stale "$out/hostlists-2000.json" &&
	gen hostlists "$out/hostlists-2000.json" 2000
stale "$out/command-50mb.json" && gen command "$out/command-50mb.json" 50

set -- "$out/roles-2000.json" "$out/hostlists-2000.json" \
	"$out/command-50mb.json"
for f in "$top"/examples/*.json; do
	[ -f "$f" ] && set -- "$@" "$f"
done

# ms MEAN STDDEV: milliseconds of `CMD...` (mean and standard deviation).
time_ms() {
	if [ "$timer" = hyperfine ]; then
		hyperfine -N -i --warmup 1 --min-runs 3 --max-runs "$runs" \
			--export-json "$out/hf.json" "$1" >/dev/null 2>&1 ||
			return 1
		jq -r '.results[0] | "\(.mean * 1000) \(.stddev // 0 | . * 1000)"' \
			"$out/hf.json"
	else
		i=0 all=
		while [ "$i" -lt "$runs" ]; do
			a=$(date +%s%N)
			# shellcheck disable=SC2086 # the command is split on purpose
			$1 >/dev/null 2>&1
			b=$(date +%s%N)
			all="$all $(((b - a) / 1000))"
			i=$((i + 1))
		done
		echo "$all" | awk '{ for (i = 1; i <= NF; i++) { s += $i; q += $i * $i }
			m = s / NF; v = q / NF - m * m
			printf "%.3f %.3f\n", m / 1000, (v > 0 ? sqrt(v) : 0) / 1000 }'
	fi
}

# The CPU time (user + system) of two commands, interleaved by one
# hyperfine: steadier than wall time when other work shares the
# machine, which makes every process wait its turn.
cpu_note() {
	[ "$timer" = hyperfine ] || return 0
	hyperfine -N -i --warmup 2 --runs $((runs * 2)) \
		--export-json "$out/cpu.json" "$1" "$2" >/dev/null 2>&1 || return 0
	jq -r '[.results[] | (.user + .system) * 1000] |
		"CPU time (user + system) of the same two: paictl \(.[0] | floor) ms, jq \(.[1] | floor) ms: \(.[0] / .[1] * 100 | floor / 100)x"' \
		"$out/cpu.json"
}

# "P J": the median milliseconds of two commands timed in turns (P, J,
# P, J, ...; 2 x runs each, after a warm-up of each): the pair shares
# whatever else the machine does at each moment, so their ratio holds
# where two separate timings would each catch different load.
pair_ms() {
	python3 - "$((runs * 2))" "$1" "$2" <<'PY'
import statistics, subprocess, sys, time
n, cmds = int(sys.argv[1]), [sys.argv[2].split(), sys.argv[3].split()]
def once(c):
    t = time.perf_counter()
    subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000
for c in cmds:
    once(c)
ms = [[], []]
for _ in range(n):
    for i, c in enumerate(cmds):
        ms[i].append(once(c))
print("%.3f %.3f" % (statistics.median(ms[0]), statistics.median(ms[1])))
PY
}

# The peak resident set of `CMD...` in KiB: the largest of three runs.
peak_kb() {
	max=0
	for _ in 1 2 3; do
		if [ "$rss" = gnutime ]; then
			# shellcheck disable=SC2086
			k=$(/usr/bin/time -f %M $1 2>&1 >/dev/null | tail -n 1)
		else
			# shellcheck disable=SC2086
			k=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' $1)
		fi
		case $k in
		'' | *[!0-9]*) k=0 ;;
		esac
		[ "$k" -gt "$max" ] && max=$k
	done
	echo "$max"
}

rows=
verdicts=
goal=
ok=0
total=0
for f in "$@"; do
	name=$(basename "$f")
	jqf="$out/jq/$name"
	gen strip "$f" "$jqf"

	# the scm examples need their dialect; use whichever passes
	args=validate
	"$PAICTL" validate "$f" >/dev/null 2>&1
	st=$?
	if [ "$st" -ne 0 ] && "$PAICTL" validate --dialect scm "$f" >/dev/null 2>&1; then
		args="validate --dialect scm"
		st=0
	fi
	jq empty "$jqf" >/dev/null 2>&1
	jst=$?

	pcmd="$PAICTL $args $f"
	jcmd="jq empty $jqf"
	set_p=$(time_ms "$pcmd") || set_p="0 0"
	set_j=$(time_ms "$jcmd") || set_j="0 0"
	pk=$(peak_kb "$pcmd")
	jk=$(peak_kb "$jcmd")
	size=$(wc -c <"$f")

	total=$((total + 1))
	line=$(echo "$name $size $set_p $set_j $pk $jk $st $jst" | awk '{
		printf "%-32s %9.2f %8.2f ± %-6.2f %8.2f ± %-6.2f %8.1f %8.1f %4d %4d",
			$1, $2 / 1048576, $3, $4, $5, $6, $7 / 1024, $8 / 1024, $9, $10 }')
	rows="$rows$line
"
	v=$(echo "$name $set_p $set_j $pk $jk $st" | awk '{
		name = $1; pm = $2; jm = $4; pk = $6; jk = $7; st = $8
		if (st != 0) {
			printf "%s: paictl exited %d (config not valid), not comparable", name, st
			exit
		}
		printf "%s: paictl %.2f ms %s jq %.2f ms (jq/paictl %.2fx); peak %.1f vs %.1f MB (%.2fx): %s",
			name, pm, (pm <= jm ? "<=" : ">"), jm, (pm > 0 ? jm / pm : 0),
			pk / 1024, jk / 1024, (jk > 0 ? pk / jk : 0),
			(pm > jm ? "SLOWER than jq" : pk > 2 * jk ? "MORE than twice jq'"'"'s memory" : "ok") }')
	case $v in
	*": ok") ok=$((ok + 1)) ;;
	esac
	# the figure issue 39 sets a goal for: the 2,000 roles with ports
	# and references, time and peak memory as fractions of jq's
	# (times taken in turns: pair_ms)
	[ "$name" = hostlists-2000.json ] &&
		goal="$(cpu_note "$pcmd" "$jcmd")
bench: $(echo "$(pair_ms "$pcmd" "$jcmd") $pk $jk" | awk '{
			t = ($2 > 0 ? $1 / $2 : 0); m = ($4 > 0 ? $3 / $4 : 0)
			printf "goal: validate of hostlists-2000.json in at most 0.50x jq'"'"'s time and at most its peak memory: %.2fx time (medians of runs in turns: %.1f vs %.1f ms), %.2fx memory (%.1f vs %.1f MB): %s",
				t, $1, $2, m, $3 / 1024, $4 / 1024,
				(t <= 0.5 && m <= 1 ? "met" : t <= 0.5 ? "time met, memory NOT met" : m <= 1 ? "memory met, time NOT met" : "NOT met") }')"
	verdicts="$verdicts$v
"
done

echo
printf '%-32s %9s %17s %17s %8s %8s %4s %4s\n' file MB "paictl ms" "jq ms" \
	"paictl" "jq" "exit" "jq"
printf '%-32s %9s %17s %17s %8s %8s %4s %4s\n' "" "" "(mean ± sd)" \
	"(mean ± sd)" "peak MB" "peak MB" "" "exit"
printf '%s' "$rows"
echo
printf '%s' "$verdicts"
echo "bench: paictl no slower than jq, in at most twice its memory, on $ok of $total files"
[ -n "${goal:-}" ] && echo "bench: $goal"
