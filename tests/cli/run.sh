#!/bin/sh
# tests/cli/run.sh - command-level tests: run paictl, compare exactly.
#
# usage: sh tests/cli/run.sh [CASE.t...]      (default: tests/cli/*.t)
#
# Environment:
#   PAICTL          the binary under test (default: build/paictl)
#   PAICTL_WRAPPER  a command to run it under, e.g.
#                   "valgrind -q --leak-check=full --error-exitcode=99"
#   KEEP=1          keep each case's directory and say where it is
#   PAI_FAKE_V1X    the fake OpenPAI v1.x cluster (default: beside
#                   $PAICTL, tests/fake-v1x), on PATH as `fake-v1x`
#
# One case is one file NAME.t. Before the first section come header
# lines:
#
#   # what the case checks          (comments and blank lines are ignored)
#   run: paictl validate job.json   the command: one line of sh, run in a
#                                   fresh empty directory, with `paictl`
#                                   on PATH standing for $PAICTL
#   exit: 3                         expected exit status (default 0)
#   timeout: 20                     seconds before the case fails as hung
#                                   (default 10)
#   copy: examples/job.json         a file of the repository, copied into
#                                   the directory before the run under its
#                                   own name (as many copy: lines as needed)
#
# then sections, each running up to the next line that starts with "=== ":
#
#   === file PATH   a file created before the run, holding exactly the
#                   section's lines (PATH is relative, no "..")
#   === setup       sh (set -e) run in that directory before the command:
#                   make binary, huge or nested inputs here with printf,
#                   head and tr, rather than commit them
#   === stdin       the command's standard input (default: empty)
#   === stdout      its expected standard output, exactly (default: empty)
#   === stderr      its expected standard error, exactly (default: empty)
#   === teardown    sh run in that directory after the command, whatever
#                   happened (even a timeout): stop the jobs a case left
#                   running here; its output and status are ignored
#
# Every line of a section ends with a newline, so a section cannot hold a
# file without a final newline, nor a line starting with "=== ": make
# those in setup. An empty section is an empty file. The case passes when
# stdout, stderr and the exit status all match. The environment is
# LC_ALL=C, TZ=UTC and a HOME of its own inside the case's directory;
# PAICTL_* and XDG_* variables from outside are unset, so that a case
# never reaches the user's clusters, profiles or tokens, and
# PAICTL_SERVE_RUNTIME=process: local clusters run tasks as processes,
# podman installed or not (tests/podman runs them in images).
#
# Local clusters: a case may start one in setup (`paictl serve
# --background --no-ssh` keeps it under $HOME/.local/state/paictl/local,
# where the built-in profile `local` finds it) or let paictl start it.
# After the teardown, every server whose server.json lies in the case's
# directory gets SIGTERM; the run waits for them all at its end (SIGKILL
# after 5 s). Tasks still running are the teardown's to stop.
#
# Example (tests/cli/validate-missing.t):
#
#   # a file that is not there: exit 4, and the reason
#   run: paictl validate nope.json
#   exit: 4
#   === stderr
#   paictl: validate: cannot read 'nope.json': No such file or directory

here=$(cd "$(dirname "$0")" && pwd)
: "${PAICTL:=$here/../../build/paictl}"
case $PAICTL in
/*) ;;
*) PAICTL=$(pwd)/$PAICTL ;;
esac
export PAICTL
PAICTL_WRAPPER=${PAICTL_WRAPPER-}
export PAICTL_WRAPPER
# tests/fake/fake_v1x.c, built beside paictl (make cli-test builds it)
: "${PAI_FAKE_V1X:=$(dirname "$PAICTL")/tests/fake-v1x}"
export PAI_FAKE_V1X

if [ ! -x "$PAICTL" ]; then
	echo "cli: $PAICTL is not an executable; run make first" >&2
	exit 2
fi
if command -v timeout >/dev/null 2>&1; then
	have_timeout=1
else
	have_timeout=0
fi

if [ $# -eq 0 ]; then
	set -- "$here"/*.t
fi

passed=0
failed=0
failures=

# the case's environment is its own (see above)
for v in $(env | sed -n 's/^\(PAICTL_[A-Za-z0-9_]*\|XDG_[A-Za-z0-9_]*\)=.*/\1/p'); do
	[ "$v" = PAICTL_WRAPPER ] || unset "$v"
done
PAICTL_SERVE_RUNTIME=process
export PAICTL_SERVE_RUNTIME

# stop_servers DIR: SIGTERM to every local cluster started under DIR; its
# pid goes to $servers, for reap_servers once all cases ran (a server
# takes a moment to shut down: no case waits for another's)
servers=
stop_servers() {
	for info in $(find "$1" -name server.json 2>/dev/null); do
		pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$info")
		[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null &&
			servers="$servers $pid"
	done
}

# reap_servers: waits for them, SIGKILL after 5 s
reap_servers() {
	i=0
	for pid in $servers; do
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -KILL "$pid" 2>/dev/null
	done
}

# secrets_traced CMD DIR: for a case that traces (-vv), the files of
# its output and directory that hold a secret: a private key, or a
# password the cases log in with (fake-v1x's, trace-no-secrets'). The
# keys paictl saves are in its HOME, which is not looked at.
secrets_traced() {
	case $1 in
	*-vv*) ;;
	*) return 0 ;;
	esac
	grep -rlE -e 'PRIVATE KEY-----|secret123|pw-s3cret-9' \
		"$2/stdout" "$2/stderr" "$2/run" 2>/dev/null |
		sed "s|^$2/||" | tr '\n' ' '
}

# split CASE DIR: the header into DIR/exp/{run,exit,timeout,copy}, sections
# into DIR/exp/{setup,stdin,stdout,stderr} and DIR/run/PATH. Prints an
# error and fails when the case file is malformed.
split() {
	awk -v dir="$2" '
	function fail(msg) {
		printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
		bad = 1
		exit 1
	}
	function open_section(path) {
		if (out != "")
			close(out)
		out = path
		printf "" > out
	}
	BEGIN { out = ""; in_header = 1; bad = 0 }
	/^=== / {
		in_header = 0
		n = split(substr($0, 5), w, " ")
		if (w[1] == "file") {
			if (n != 2 || w[2] ~ /^\// || w[2] ~ /(^|\/)\.\.(\/|$)/)
				fail("bad file section: " $0)
			p = w[2]
			if (p ~ /\//) {
				d = p
				sub(/\/[^\/]*$/, "", d)
				system("mkdir -p \"" dir "/run/" d "\"")
			}
			open_section(dir "/run/" p)
		} else if (n == 1 && (w[1] == "setup" || w[1] == "stdin" ||
				      w[1] == "stdout" || w[1] == "stderr" ||
				      w[1] == "teardown")) {
			if (seen[w[1]]++)
				fail("second " w[1] " section")
			open_section(dir "/exp/" w[1])
		} else {
			fail("unknown section: " $0)
		}
		next
	}
	in_header {
		if ($0 ~ /^[ \t]*(#|$)/)
			next
		if (match($0, /^copy:[ \t]*/)) {
			val = substr($0, RLENGTH + 1)
			if (val ~ /^\// || val ~ /(^|\/)\.\.(\/|$)/ || val == "")
				fail("bad copy line: " $0)
			print val >> (dir "/exp/copy")
			next
		}
		if (match($0, /^(run|exit|timeout):[ \t]*/)) {
			key = substr($0, 1, index($0, ":") - 1)
			if (hdr[key]++)
				fail("second " key " line")
			val = substr($0, RLENGTH + 1)
			if (key != "run" && val !~ /^[0-9]+$/)
				fail(key " must be a number: " val)
			print val > (dir "/exp/" key)
			close(dir "/exp/" key)
			next
		}
		fail("not a header line (run:, exit:, timeout:, #): " $0)
	}
	{ print > out }
	END {
		if (bad)
			exit 1
		if (!hdr["run"])
			fail("no run: line")
	}' "$1"
}

# show LABEL EXPECTED ACTUAL: what differs, briefly (lines are cut, as a
# case may print a 100,000-character line).
show() {
	echo "    $1 differs (--- expected, +++ actual):"
	diff -u "$2" "$3" | sed -n '3,42p' | cut -c1-200 | sed 's/^/    /'
}

for t in "$@"; do
	name=$(basename "$t" .t)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/paictl-cli.XXXXXX") || exit 2
	mkdir "$dir/exp" "$dir/run" "$dir/bin" "$dir/home"
	# shellcheck disable=SC2016 # expanded when the wrapper runs
	printf '#!/bin/sh\nexec $PAICTL_WRAPPER "$PAICTL" "$@"\n' \
		>"$dir/bin/paictl"
	chmod +x "$dir/bin/paictl"
	# the fake OpenPAI v1.x cluster, for the cases that need one
	if [ -x "$PAI_FAKE_V1X" ]; then
		ln -s "$PAI_FAKE_V1X" "$dir/bin/fake-v1x"
	fi
	why=
	if ! split "$t" "$dir" 2>"$dir/split.err"; then
		why="malformed case file: $(cat "$dir/split.err")"
	fi
	for f in stdin stdout stderr; do
		[ -f "$dir/exp/$f" ] || : >"$dir/exp/$f"
	done
	if [ -z "$why" ] && [ -f "$dir/exp/copy" ]; then
		while IFS= read -r src; do
			cp "$here/../../$src" "$dir/run/" 2>"$dir/copy.err" ||
				why="copy failed: $(cat "$dir/copy.err")"
		done <"$dir/exp/copy"
	fi
	want_exit=0
	[ -f "$dir/exp/exit" ] && want_exit=$(cat "$dir/exp/exit")
	limit=10
	[ -f "$dir/exp/timeout" ] && limit=$(cat "$dir/exp/timeout")

	if [ -z "$why" ] && [ -f "$dir/exp/setup" ]; then
		if ! (cd "$dir/run" && PATH="$dir/bin:$PATH" HOME="$dir/home" \
			LC_ALL=C TZ=UTC sh -e "$dir/exp/setup") \
			>"$dir/setup.out" 2>&1; then
			why="setup failed:
$(sed 's/^/    /' "$dir/setup.out")"
		fi
	fi
	if [ -z "$why" ]; then
		cmd=$(cat "$dir/exp/run")
		if [ "$have_timeout" = 1 ]; then
			(cd "$dir/run" && PATH="$dir/bin:$PATH" HOME="$dir/home" \
				LC_ALL=C TZ=UTC exec timeout -k 2 "$limit" \
				sh -c "$cmd") \
				<"$dir/exp/stdin" >"$dir/stdout" 2>"$dir/stderr"
		else
			(cd "$dir/run" && PATH="$dir/bin:$PATH" HOME="$dir/home" \
				LC_ALL=C TZ=UTC exec sh -c "$cmd") \
				<"$dir/exp/stdin" >"$dir/stdout" 2>"$dir/stderr"
		fi
		st=$?
		if [ "$have_timeout" = 1 ] && [ "$st" -eq 124 ] &&
			[ "$want_exit" -ne 124 ]; then
			why="timed out after ${limit}s"
		elif [ "$st" -gt 128 ] && [ "$want_exit" -le 128 ]; then
			why="killed by signal $((st - 128)) (exit $st)"
		elif [ "$st" -ne "$want_exit" ]; then
			why="exit $st, expected $want_exit"
		fi
		cmp -s "$dir/exp/stdout" "$dir/stdout" || why="${why:+$why; }stdout differs"
		cmp -s "$dir/exp/stderr" "$dir/stderr" || why="${why:+$why; }stderr differs"
		leaks=$(secrets_traced "$cmd" "$dir")
		[ -z "$leaks" ] || why="${why:+$why; }a -vv trace shows a secret: $leaks"
	fi
	if [ -f "$dir/exp/teardown" ]; then
		if [ "$have_timeout" = 1 ]; then
			td="timeout -k 2 30 sh"
		else
			td=sh
		fi
		(cd "$dir/run" && PATH="$dir/bin:$PATH" HOME="$dir/home" \
			LC_ALL=C TZ=UTC $td "$dir/exp/teardown") \
			>"$dir/teardown.out" 2>&1 </dev/null
	fi
	stop_servers "$dir"

	if [ -z "$why" ]; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		echo "FAIL $name: $why"
		if [ -f "$dir/stdout" ]; then
			cmp -s "$dir/exp/stdout" "$dir/stdout" ||
				show stdout "$dir/exp/stdout" "$dir/stdout"
			cmp -s "$dir/exp/stderr" "$dir/stderr" ||
				show stderr "$dir/exp/stderr" "$dir/stderr"
		fi
	fi
	if [ "${KEEP:-}" = 1 ]; then
		echo "    kept in $dir"
	else
		rm -rf "$dir"
	fi
done

reap_servers
[ "$failed" -eq 0 ] || echo "failed:$failures"
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
