#!/bin/sh
# tests/libpai/run.sh STAGE - libpai as a program outside this tree uses
# it: the examples of examples/libpai/ are built against the library
# installed into STAGE (make install DESTDIR=STAGE PREFIX=/usr), found
# through `pkg-config --cflags --libs pai` alone, then run: validate on
# a valid and a broken config, submit against a local cluster started
# here (paictl serve), waiting for the job to succeed.
#
# Environment: PAICTL (the paictl under test), CC, CFLAGS, LDFLAGS (the
# build's own: a sanitizer build's library needs its runtime).
set -u
stage=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
CC=${CC:-cc}
failed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/libpai-test.XXXXXX") || exit 1
trap '"$PAICTL" serve --state-dir "$work/state" --stop >/dev/null 2>&1; rm -rf "$work"' EXIT

fail() {
	echo "libpai: FAILED: $*"
	failed=$((failed + 1))
}

libdir=$(ls -d "$stage"/usr/lib/*/pkgconfig "$stage"/usr/lib/pkgconfig 2>/dev/null | head -n 1)
[ -f "$libdir/pai.pc" ] || { echo "libpai: no pai.pc under $stage"; exit 1; }
# the staged tree as if it were /, and the system's .pc files for jansson
export PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_LIBDIR=$libdir:$(pkg-config --variable pc_path pkg-config)
flags=$(pkg-config --cflags --libs pai) || { echo "libpai: pkg-config pai failed"; exit 1; }
for ex in validate submit; do
	# shellcheck disable=SC2086 # flags are words on purpose
	$CC -Wall -Wextra -Werror ${CFLAGS:-} ${LDFLAGS:-} \
		-o "$work/$ex" "$top/examples/libpai/$ex.c" $flags ||
		fail "examples/libpai/$ex.c does not build against the installed library"
done
export LD_LIBRARY_PATH="${libdir%/pkgconfig}"

# validate: a valid config, then a broken one (its JSON names the rule)
out=$("$work/validate" "$top/examples/jupyter.json")
[ $? -eq 0 ] && [ "$(printf '%s' "$out" | tr -d ' \n')" = "[]" ] ||
	fail "validate of examples/jupyter.json: $out"
printf '{"jobName": "x", "image": "i", "taskRoles": []}\n' >"$work/bad.json"
out=$("$work/validate" "$work/bad.json")
st=$?
[ $st -eq 3 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d and d[0]["rule"] == "min-task-roles" and d[0]["line"] == 1, d' ||
	fail "validate of a config with no task roles: exit $st, $out"

# submit and wait, on a local cluster's socket
"$PAICTL" serve --state-dir "$work/state" --background --no-ssh >/dev/null ||
	fail "paictl serve did not start"
cat >"$work/job.json" <<'JOB'
{"jobName": "libpai-example", "image": "debian",
 "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1,
   "memoryMB": 100, "gpuNumber": 0, "command": "echo hello from libpai"}]}
JOB
out=$(timeout 60 "$work/submit" "unix:$work/state/api.sock" alice "$work/job.json")
st=$?
[ $st -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "libpai-example SUCCEEDED" ] ||
	fail "submit and wait: exit $st, output: $out"
log=$(cat "$work"/state/jobs/alice~libpai-example/attempt-0/main-0/stdout 2>/dev/null ||
	"$PAICTL" --uri "unix:$work/state/api.sock" -u alice logs libpai-example 2>&1)
case $log in
*"hello from libpai"*) ;;
*) fail "the job's output: $log" ;;
esac

if [ $failed -gt 0 ]; then
	echo "libpai: $failed failed"
	exit 1
fi
echo "libpai: examples built with pkg-config against the installed library: validate and submit ok"
