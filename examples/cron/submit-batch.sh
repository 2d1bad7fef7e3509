#!/bin/sh
# submit-batch.sh - submit every job config in a directory and wait for
# them, from cron. See README.md next to this file.
#
# usage: submit-batch.sh DIR
#
# Each DIR/*.json is submitted with `paictl submit --unique --wait`, one
# after the other, so every run gets jobs of its own (name-SUFFIX). A
# lock (flock) keeps runs from overlapping: a run that finds the previous
# one still going logs that and leaves. Everything goes to the log with a
# timestamp; problems are also printed on stderr, which cron mails.
#
# Environment:
#   PAICTL             the paictl to run (default: paictl on PATH)
#   SUBMIT_BATCH_LOG   the log file (default: DIR/submit-batch.log)
#   SUBMIT_BATCH_LOCK  the lock file (default: DIR/.submit-batch.lock)
#   and paictl's own: PAICTL_CLUSTER, PAICTL_TOKEN, ...
#
# Exit status: 0 every job succeeded (or another run holds the lock);
# otherwise the most serious paictl status met: 5 authentication (the run
# stops: the others would fail alike), 6 cluster unreachable (the run
# stops; the next one tries again), 3 an invalid config (skipped), 9 a
# job ended FAILED or STOPPED, or any other status paictl gave.

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: submit-batch.sh DIR" >&2
	exit 2
fi
dir=${1%/}
paictl=${PAICTL:-paictl}
log=${SUBMIT_BATCH_LOG:-$dir/submit-batch.log}
lock=${SUBMIT_BATCH_LOCK:-$dir/.submit-batch.lock}

now() { date '+%Y-%m-%d %H:%M:%S'; }
# note MESSAGE: to the log only
note() { printf '%s %s\n' "$(now)" "$*" >>"$log"; }
# alert MESSAGE: to the log and to stderr (cron mails it)
alert() {
	note "$*"
	printf 'submit-batch: %s\n' "$*" >&2
}

# The lock lives as long as descriptor 9, that is this whole run.
exec 9>>"$lock" || exit 1
if ! flock -n 9; then
	note "another run holds $lock: nothing done"
	exit 0
fi

out=$(mktemp "${TMPDIR:-/tmp}/submit-batch.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
trap 'exit 130' INT TERM

status=0
# keep the most serious status: 5 > 6 > 3 > 9 > others
worse() {
	for s in 5 6 3 9; do
		[ "$status" = "$s" ] && return
		[ "$1" = "$s" ] && { status=$1; return; }
	done
	[ "$status" = 0 ] && status=$1
}

note "run started: $dir"
n=0
for f in "$dir"/*.json; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	# stdout: the job's name; stderr: why it failed (-q: no progress)
	"$paictl" submit -q --unique --wait "$f" >"$out" 2>&1
	st=$?
	# the first line is the name when the job was submitted
	awk -v p="$(now) $f: " '{ print p $0 }' "$out" >>"$log"
	case $st in
	0) note "$f: ok" ;;
	3)
		alert "$f: invalid config, skipped (paictl validate '$f' says why)"
		worse 3
		;;
	5)
		alert "$f: authentication or permission refused: log in again (paictl login); run stopped"
		worse 5
		break
		;;
	6)
		alert "$f: cluster unreachable: the next run tries again; run stopped"
		worse 6
		break
		;;
	9)
		name=$(head -n 1 "$out")
		alert "$f: job '$name' ended FAILED or STOPPED (paictl logs '$name')"
		worse 9
		;;
	*)
		alert "$f: paictl submit exited with $st: $(tail -n 1 "$out")"
		worse "$st"
		;;
	esac
done
note "run ended: $n config(s), exit $status"
exit "$status"
