#!/bin/sh
# tests/js/run.sh - a client nobody here wrote: OpenPAI's own JavaScript
# SDK, @microsoft/openpai-js-sdk 0.1.5 from the npm registry (installed
# once into build/js), drives a local cluster this script starts on
# 127.0.0.1: its v1 client (tests/js/v1.js) and its v2 client
# (tests/js/v2.js), through every call they make of a real server.
# Skipped, with a line that says so, only where Node.js is missing.
#
# Environment: PAICTL (the paictl under test), JS_DIR (default build/js).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
dir=${JS_DIR:-$top/build/js}
sdk=@microsoft/openpai-js-sdk@0.1.5

if ! command -v node >/dev/null 2>&1; then
	echo "js: skipped: node is not installed (Debian package nodejs)"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "js: FAILED: npm is not installed (Debian package npm)"
	exit 1
fi
if [ ! -f "$dir/node_modules/@microsoft/openpai-js-sdk/package.json" ]; then
	mkdir -p "$dir" || exit 1
	if ! npm install --prefix "$dir" --no-audit --no-fund --no-save \
		"$sdk" >"$dir/npm.log" 2>&1; then
		echo "js: FAILED: npm install $sdk (log: $dir/npm.log)"
		tail -n 5 "$dir/npm.log"
		exit 1
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/paictl-js.XXXXXX") || exit 1
trap '"$PAICTL" serve --state-dir "$work/state" --stop >/dev/null 2>&1; rm -rf "$work"' EXIT
printf 'alice:s3cret-pw\n' >"$work/users" && chmod 600 "$work/users"
port=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
if ! "$PAICTL" serve --state-dir "$work/state" --listen "127.0.0.1:$port" \
	--users "$work/users" --background >/dev/null; then
	echo "js: FAILED: paictl serve did not start"
	exit 1
fi
failed=0
for client in v1 v2; do
	NODE_PATH="$dir/node_modules" timeout 180 node "$top/tests/js/$client.js" \
		"http://127.0.0.1:$port" alice s3cret-pw || failed=$((failed + 1))
done
if [ $failed -gt 0 ]; then
	echo "js: $failed of OpenPAI's JavaScript clients failed"
	exit 1
fi
echo "js: $sdk, v1 and v2 clients: every call ok"
