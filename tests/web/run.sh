#!/bin/sh
# tests/web/run.sh - paictl web's pages in a real browser: Debian's
# headless Chromium, driven by playwright-core from the npm registry
# (pinned by tests/web/package-lock.json, installed with `npm ci` into
# $WEB_DIR, default build/web), against local clusters the tests start
# on 127.0.0.1 in homes of their own. Node's test runner runs
# tests/web/*.test.js; screenshots stay in $WEB_DIR/screenshots.
#
# Environment: PAICTL (the paictl under test), WEB_DIR, CHROMIUM
# (default /usr/bin/chromium), SERVER_WRAPPER (run each local cluster
# in the foreground under it, e.g. "valgrind --leak-check=full
# --error-exitcode=99": a test then fails when the server's exit status
# is not 0).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
dir=${WEB_DIR:-$top/build/web}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export PAICTL CHROMIUM

for need in node npm; do
	if ! command -v $need >/dev/null 2>&1; then
		echo "web: FAILED: $need is not installed (make test-deps)"
		exit 1
	fi
done
if [ ! -x "$CHROMIUM" ]; then
	echo "web: FAILED: no $CHROMIUM (Debian package chromium: make test-deps)"
	exit 1
fi
mkdir -p "$dir" || exit 1
# again when the lock changed
if ! cmp -s "$top/tests/web/package-lock.json" "$dir/package-lock.json" ||
	[ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
	cp "$top/tests/web/package.json" "$top/tests/web/package-lock.json" "$dir/" &&
		(cd "$dir" && npm ci --no-audit --no-fund >npm.log 2>&1) || {
		echo "web: FAILED: npm ci of tests/web/package-lock.json (log: $dir/npm.log)"
		tail -n 5 "$dir/npm.log"
		exit 1
	}
fi
rm -rf "$dir/screenshots"
cd "$top/tests/web" &&
	NODE_PATH="$dir/node_modules" WEB_SHOTS="$dir/screenshots" \
	timeout 900 node --test security.test.js pages.test.js login.test.js podman.test.js
st=$?
[ $st -eq 0 ] && echo "web: screenshots in $dir/screenshots"
exit $st
