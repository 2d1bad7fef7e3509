#!/bin/sh
# tests/lint/async_safe.sh - the monitor (server/run_monitor.c) runs
# after fork in the child of a threaded server, so it may call only
# async-signal-safe functions. This reads what its object file calls
# (nm -u) and fails on anything outside the list below: a malloc,
# printf or getenv that slips in is named here, not found as a rare
# deadlock of the local cluster.
#
# usage: sh tests/lint/async_safe.sh build/server/run_monitor.o
set -u
obj=${1:?usage: async_safe.sh OBJECT}

# POSIX's async-signal-safe functions that the monitor uses (strlen since
# POSIX.1-2016), Linux
# system calls of the same kind, the compiler's memcpy/memset and errno,
# the monitor's half of server/tree.c, its helpers' runner
# (server/run_helper.c), the log copy (server/run_logs.c, memcpy
# alone) and whole reads and writes (server/fdio.c), each under the
# same rule and checked too; and lines 1 and 2 of its status
# (server/run_status.c's run_status_line1 and 2: memcpy and strlen alone; the
# rest of that file is the server's, so not checked here)
allowed='__errno_location _exit accept4 access chdir clock_gettime clone close
close_range dup2 execve fcntl fork fsync getpid getppid kill memcpy memset mkdir
nanosleep open pipe2 poll read run_logs_copy run_logs_end run_logs_init
setpgid setsid sigaction sigaddset sigdelset sigemptyset sigfillset
signalfd sigismember sigprocmask srv_read_all srv_tree_end srv_tree_enter srv_tree_init
run_reset_signals run_status_line1 run_status_line2 srv_tree_populated srv_tree_signal srv_write_all strlen strncmp strrchr run_helper_start run_helper_run unlink waitpid write'

[ -f "$obj" ] || {
	echo "async_safe: $obj: no such file (make first)" >&2
	exit 2
}
bad=
for sym in $(nm -u "$obj" | awk '{print $2}'); do
	case " $(echo $allowed) " in
	*" $sym "*) ;;
	*) bad="$bad $sym" ;;
	esac
done
if [ -n "$bad" ]; then
	echo "async_safe: $obj calls what is not async-signal-safe" \
		"after fork:$bad" >&2
	echo "async_safe: make it before the fork (struct run_spawn), or" \
		"add it to tests/lint/async_safe.sh if POSIX lists it" >&2
	exit 1
fi
echo "async_safe: $(nm -u "$obj" | wc -l) calls of $obj, all async-signal-safe"
