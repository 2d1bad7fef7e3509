/* run_monitor.c - a task's monitor: the server's child, forked for
 * each task (by the server's forker, run_forker.c, or the server) and
 * never exec'd. It starts the task, copies the task's
 * output into its logs, passes signals on to it, serves its ssh logins,
 * and writes its pids and then its exit status to `status`, where the
 * server reads them.
 *
 * All of this file runs after fork in the child of a threaded server:
 * only async-signal-safe calls live here (POSIX's list, and Linux
 * system calls such as pipe2, signalfd, accept4 and close_range). No
 * malloc, no stdio, no locale, nothing that could wait for a lock that
 * another thread of the server held at the fork. What the monitor
 * needs is made before the fork (struct run_spawn); what it calls outside
 * this file is the monitor's half of tree.c and the log copy of
 * run_logs.c, under the same rule. */
#include "run_int.h"
#include "run_logs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SESSIONS 32
/* A SIGKILL left to the runtime's stop command (podman kill): the
 * task's processes killed here if it has not ended by then. */
#define FORCE_MS 5000
#define LOG_FLAGS (O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC)

/* Closes every descriptor above 2 but those in keep (sorted here). */
static void close_others(int *keep, int n)
{
	unsigned lo = 3;
	int i, k;

	for (i = 1; i < n; i++)
		for (k = i; k > 0 && keep[k - 1] > keep[k]; k--) {
			int x = keep[k];

			keep[k] = keep[k - 1];
			keep[k - 1] = x;
		}
	for (i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < lo)
			continue;
		if ((unsigned)keep[i] > lo)
			close_range(lo, (unsigned)keep[i] - 1, 0);
		lo = (unsigned)keep[i] + 1;
	}
	close_range(lo, ~0U, 0);
}

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* This process's start time (field 22 of /proc/self/stat), read with
 * async-signal-safe calls only; 0 when unknown. */
static unsigned long long self_start(void)
{
	char buf[1024], *p = NULL;
	unsigned long long v = 0;
	ssize_t n, i;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (i = n - 1; i >= 0 && !p; i--)
		if (buf[i] == ')')
			p = buf + i + 2;
	if (!p)
		return 0;
	buf[n] = '\0';
	for (field = 3; field < 22 && *p; p++)
		if (*p == ' ')
			field++;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	return v;
}

/* A monitor's state: the task, its outputs, its sshd sessions. */
struct monitor {
	const struct run_spawn *sp;
	int sfd;     /* SIGTERM and SIGINT, to pass on to the task; SIGCHLD */
	int status;  /* the status file, or -1 */
	int logs[3]; /* user.pai.stdout, .stderr, .all: -1 until written */
	struct run_logs copy; /* what goes to them (run_logs.c) */
	pid_t pid;   /* the task; -1 when it could not start */
	int st;	     /* its wait status */
	bool exited;
	long drain_until; /* once it exited: its output read until then */
	pid_t stopper[2]; /* the runtime's stop for SIGTERM, SIGKILL: 0 none */
	long start_by;	  /* started_path must exist by then (0: it does) */
	long force_at;	  /* SIGKILL the task then, its runtime's stop
			   * having failed; 0: none */
	pid_t sess[MAX_SESSIONS];
	int nsess;
	struct srv_tree tree; /* every process the task started */
	unsigned long long start; /* the monitor's (/proc/self/stat) */
};

/* run_logs' writes, to the log files. */
static void write_log(void *ctx, int log, int from, const char *p, size_t n)
{
	struct monitor *m = ctx;

	(void)from;
	srv_write_all(m->logs[log], p, n);
}

/* The monitor's own session, descriptors and signals; the task's
 * directories and its status file. */
static void monitor_init(struct monitor *m, const struct run_spawn *sp)
{
	int keep[3] = {sp->fd_null, sp->fd_ssh, sp->fd_keep}, i;
	sigset_t mask;

	m->sp = sp;
	m->logs[0] = m->logs[1] = m->logs[2] = -1;
	run_logs_init(&m->copy, write_log, m);
	m->pid = -1;
	m->st = 0;
	m->exited = false;
	m->drain_until = 0;
	m->force_at = 0;
	m->stopper[0] = m->stopper[1] = 0;
	m->start_by = 0;
	m->nsess = 0;
	setsid();
	m->start = self_start();
	srv_tree_init(&m->tree, sp->tree_base, m->start, sp->tree_dir);
	dup2(sp->fd_null, 0);
	dup2(sp->fd_null, 1);
	dup2(sp->fd_null, 2);
	close_others(keep, 3);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	/* SIGCHLD too: a task whose outputs stay open after it exited
	 * (podman's conmon holds them) is reaped at once, not at the
	 * next poll's timeout */
	m->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	/* made here, not in the server: the server forks the next task
	 * meanwhile, and answers requests */
	for (i = 0; i < 3; i++)
		if (mkdir(sp->dirs[i], 0700) < 0 && errno != EEXIST)
			_exit(MONITOR_NO_DIR);
	m->status = open(sp->status_path,
			 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* What the task's child needs to become the task (task_main). */
struct task_start {
	const struct monitor *m;
	int out, err; /* the writing ends of its stdout and stderr pipes */
};

/* The task's child, in the monitor's memory until it execs (CLONE_VM,
 * CLONE_VFORK: the monitor waits meanwhile), on a stack of its own: its
 * own process group and cgroup, the pipes, default signals, the working
 * directory, the runtime's program. Writes nothing of the monitor's. */
static int task_main(void *arg)
{
	static const char nobash[] = "paictl serve: cannot run the task's "
				     "runtime\n";
	static const char nodir[] = "paictl serve: cannot enter the task's "
				    "working directory\n";
	const struct task_start *ts = arg;
	const struct run_spawn *sp = ts->m->sp;

	setpgid(0, 0);
	srv_tree_enter(&ts->m->tree);
	dup2(ts->out, 1);
	dup2(ts->err, 2);
	run_reset_signals(sp->sig_set);
	if (chdir(sp->work) < 0) {
		srv_write_all(2, nodir, sizeof(nodir) - 1);
		_exit(127);
	}
	if (sp->fd_keep >= 0)
		fcntl(sp->fd_keep, F_SETFD, 0); /* the task's own */
	execve(sp->prog, sp->argv, sp->envp);
	srv_write_all(2, nobash, sizeof(nobash) - 1);
	_exit(127);
}

/* Starts the task (its runtime's program: `bash -c COMMAND`, or `podman
 * run`) in its own process group, its stdout and stderr into pipes whose
 * reading ends go to *out and *err. As posix_spawn does: the child
 * shares the monitor's memory until its execve, which copies no page
 * table (fork did, and every page the monitor wrote next was copied
 * again). Every signal is blocked around it: no handler of the
 * monitor's runs in the child. m->pid stays -1 when it could not start. */
static void start_task(struct monitor *m, int *out, int *err)
{
	/* the monitor's own (a process, and it starts one task); no task
	 * byte reaches it: task_main's largest local is srv_tree_enter's
	 * path (544 bytes), and 64 KiB leaves room for ASan's frames */
	static char stack[64 * 1024] __attribute__((aligned(16)));
	const struct run_spawn *sp = m->sp;
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	struct task_start ts;
	sigset_t all, old;

	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
		return;
	ts.m = m;
	ts.out = po[1];
	ts.err = pe[1];
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	m->pid = clone(task_main, stack + sizeof(stack),
		       CLONE_VM | CLONE_VFORK | SIGCHLD, &ts);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (m->pid > 0)
		setpgid(m->pid, m->pid);
	if (sp->started_path)
		m->start_by = mono_ms() + sp->start_ms;
	close(po[1]);
	close(pe[1]);
	*out = po[0];
	*err = pe[0];
}

/* status, line 1, "task-pid monitor-pid monitor-start", then the name
 * of the cgroup the server gave (it is the server's to keep or remove,
 * also the server's that adopts the monitor after a restart): how a
 * restarted server finds this monitor again (the record is not
 * rewritten for it) */
static void write_pids(const struct monitor *m)
{
	const char *name = m->tree.pooled ? strrchr(m->tree.dir, '/') : NULL;
	char line[RUN_STATUS_LINE1_MAX];
	size_t n;

	if (m->status < 0)
		return;
	/* made in run_status.c, beside its reader, where a test holds
	 * both to the same bound */
	n = run_status_line1(line, sizeof(line), m->pid, getpid(), m->start,
			     name ? name + 1 : NULL);
	srv_write_all(m->status, line, n);
}

/* While the runtime prepares the task (podman pulls its image): the last
 * whole line of these stderr bytes, its progress, into prep_path for
 * the status to show (at most PREP_MAX bytes of it). */
#define PREP_MAX 300
static void tell_progress(const struct monitor *m, const char *p, size_t n)
{
	size_t end = n, start;
	int fd;

	while (end > 0 && (p[end - 1] == '\n' || p[end - 1] == '\r'))
		end--;
	if (end == n) /* no line ends here */
		return;
	for (start = end; start > 0 && p[start - 1] != '\n';)
		start--;
	if (end - start > PREP_MAX)
		end = start + PREP_MAX;
	fd = open(m->sp->prep_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0600);
	if (fd >= 0) {
		srv_write_all(fd, p + start, end - start);
		close(fd);
	}
}

/* Copies what the task wrote to pfd[0] (stdout) and pfd[1] (stderr)
 * into its logs; a stream that ended is closed (its fd set to -1). */
static void copy_output(struct monitor *m, struct pollfd *pfd)
{
	char buf[16384];
	ssize_t got;
	int i;

	for (i = 0; i < 2; i++) {
		if (pfd[i].fd < 0 || !pfd[i].revents)
			continue;
		got = read(pfd[i].fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			close(pfd[i].fd);
			pfd[i].fd = -1;
			run_logs_end(&m->copy, i);
			continue;
		}
		/* a log file appears with its first byte: most tasks write
		 * nothing to one stream or both */
		if (m->logs[i] < 0)
			m->logs[i] = open(m->sp->log_path[i], LOG_FLAGS, 0600);
		if (m->logs[2] < 0)
			m->logs[2] = open(m->sp->log_path[2], LOG_FLAGS, 0600);
		run_logs_copy(&m->copy, i, buf, (size_t)got);
		if (i == 1 && m->start_by && m->sp->prep_path)
			tell_progress(m, buf, (size_t)got);
	}
}

/* The server never signals a task itself: it signals the monitor, which
 * knows the task's processes: its process group, and all it started
 * however they detached, ssh sessions included (tree.c). SIGTERM is
 * passed on as SIGTERM and SIGINT means SIGKILL. Both are blocked in
 * the monitor (inherited from the server), so they wait in the
 * signalfd until the task exists. */
static void pass_signals(struct monitor *m)
{
	struct signalfd_siginfo si;
	int sig;

	while (read(m->sfd, &si, sizeof(si)) == sizeof(si)) {
		int k = si.ssi_signo == SIGINT;

		if (si.ssi_signo == SIGCHLD)
			continue; /* reap_children's */
		/* a runtime that stops its tasks itself (podman kill) */
		if (m->sp->stop[k]) {
			m->stopper[k] = run_helper_start(m->sp, m->sp->stop[k]);
			if (k && !m->force_at)
				m->force_at = mono_ms() + FORCE_MS;
			continue;
		}
		sig = k ? SIGKILL : SIGTERM;
		kill(-m->pid, sig);
		srv_tree_signal(&m->tree, sig);
	}
}

/* A task whose runtime has not started it by its time (podman still
 * pulling an image from a registry that does not answer, say): killed,
 * and why written to its stderr as the runtime writes its errors. */
static void check_start(struct monitor *m)
{
	const char *why = m->sp->start_why;

	if (!m->start_by || m->exited)
		return;
	if (access(m->sp->started_path, F_OK) == 0) {
		m->start_by = 0;
		if (m->sp->prep_path)
			unlink(m->sp->prep_path);
		return;
	}
	if (mono_ms() < m->start_by)
		return;
	m->start_by = 0;
	if (m->logs[1] < 0)
		m->logs[1] = open(m->sp->log_path[1], LOG_FLAGS, 0600);
	if (m->logs[2] < 0)
		m->logs[2] = open(m->sp->log_path[2], LOG_FLAGS, 0600);
	run_logs_copy(&m->copy, 1, why, strlen(why));
	kill(-m->pid, SIGKILL);
	srv_tree_signal(&m->tree, SIGKILL);
}

/* Whether w was the runtime's stop command; if it failed (no container
 * yet: podman still pulls its image), the task's own processes get the
 * signal instead. */
static bool stopper_ended(struct monitor *m, pid_t w, int wst)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (!m->stopper[k] || w != m->stopper[k])
			continue;
		m->stopper[k] = 0;
		if (!(WIFEXITED(wst) && WEXITSTATUS(wst) == 0)) {
			kill(-m->pid, k ? SIGKILL : SIGTERM);
			if (k)
				srv_tree_signal(&m->tree, SIGKILL);
		}
		return true;
	}
	return false;
}

/* sshd in inetd mode: one per connection on the task's ssh port (fd),
 * none idle while nobody logs in. */
static void accept_ssh(struct monitor *m, int fd)
{
	static char *sshd_env[] = {"PATH=/usr/sbin:/usr/bin:/bin", NULL};
	const struct run_spawn *sp = m->sp;
	int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (conn >= 0 && m->nsess < MAX_SESSIONS) {
		int lfd = open(sp->sshd_log,
			       O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		pid_t c = fork();

		if (c == 0) {
			/* a session is the task's: it ends with it */
			srv_tree_enter(&m->tree);
			dup2(conn, 0);
			dup2(conn, 1);
			if (lfd >= 0)
				dup2(lfd, 2);
			run_reset_signals(sp->sig_set);
			execve(sp->sshd, sp->sshd_argv, sshd_env);
			_exit(127);
		}
		if (c > 0)
			m->sess[m->nsess++] = c;
		if (lfd >= 0)
			close(lfd);
	}
	if (conn >= 0)
		close(conn);
}

/* Reaps the ended sshd sessions, and the task once it exits. */
static void reap_children(struct monitor *m)
{
	int i, w, wst;

	while (!m->exited && (w = waitpid(-1, &wst, WNOHANG)) > 0) {
		if (w != m->pid) {
			if (stopper_ended(m, w, wst))
				continue;
			for (i = 0; i < m->nsess; i++)
				if (m->sess[i] == w)
					m->sess[i] = m->sess[--m->nsess];
			continue;
		}
		/* The task is its main process, as in a container: whatever
		 * it left behind goes with it, detached or not; what is not
		 * of its process group (ssh sessions, what detached) gets
		 * SIGTERM first, and srv_tree_end's grace. */
		m->st = wst;
		m->exited = true;
		kill(-m->pid, SIGKILL);
		srv_tree_signal(&m->tree, SIGTERM);
		m->drain_until = mono_ms() + 2000;
	}
}

/* Until the task exits (and, its outputs still open then, a little
 * longer): its output copied, signals passed on, ssh connections
 * served. A task that closed its outputs long before it exits is still
 * stopped and served (both streams' fds -1: poll skips them). */
static void watch_task(struct monitor *m, int out, int err)
{
	struct pollfd pfd[4];

	pfd[0].fd = out;
	pfd[1].fd = err;
	pfd[2].fd = m->sfd;
	pfd[3].fd = m->sp->sshd ? m->sp->fd_ssh : -1;
	pfd[0].events = pfd[1].events = pfd[2].events = pfd[3].events = POLLIN;
	while (!m->exited || ((pfd[0].fd >= 0 || pfd[1].fd >= 0) &&
			      mono_ms() <= m->drain_until)) {
		int r = poll(pfd, 4, 100);

		if (r > 0)
			copy_output(m, pfd);
		if (r > 0 && m->sfd >= 0 && pfd[2].revents)
			pass_signals(m);
		if (r > 0 && pfd[3].fd >= 0 && pfd[3].revents)
			accept_ssh(m, pfd[3].fd);
		reap_children(m);
		check_start(m);
		if (m->force_at && !m->exited && mono_ms() > m->force_at) {
			kill(-m->pid, SIGKILL);
			srv_tree_signal(&m->tree, SIGKILL);
			m->force_at = 0;
		}
	}
	/* a stream still open (held by what the task left): its last
	 * line as it is */
	run_logs_end(&m->copy, 0);
	run_logs_end(&m->copy, 1);
}

/* Ends what is left of the task and its ssh sessions, writes its exit
 * status and exits. */
static __attribute__((noreturn)) void monitor_exit(struct monitor *m)
{
	char line[RUN_STATUS_LINE2_MAX];
	size_t n;
	int i, code;

	/* a task that did not exit by itself (stopped, killed, or its
	 * runtime failing: 125 and up) has what its runtime made removed
	 * (its container) */
	if (m->sp->prep_path)
		unlink(m->sp->prep_path);
	if (m->sp->end && m->pid > 0 &&
	    !(WIFEXITED(m->st) && WEXITSTATUS(m->st) < 125))
		run_helper_run(m->sp, m->sp->end, 20000);
	/* nothing of the task outlives it, ssh sessions included (their
	 * own waits below then find them reaped); what can end cleanly
	 * gets the grace to */
	srv_tree_end(&m->tree, m->sp->grace_ms, m->sfd);
	for (i = 0; i < m->nsess; i++)
		kill(m->sess[i], SIGTERM);
	for (i = 0; i < m->nsess; i++)
		while (waitpid(m->sess[i], NULL, 0) < 0 && errno == EINTR)
			;
	if (m->pid > 0)
		code = WIFEXITED(m->st)	    ? WEXITSTATUS(m->st)
		       : WIFSIGNALED(m->st) ? 128 + WTERMSIG(m->st)
					    : 255;
	else
		code = -1; /* could not start */
	n = run_status_line2(line, sizeof(line), code,
			     m->pid > 0 && WIFSIGNALED(m->st) ? WTERMSIG(m->st)
							      : 0);
	/* Logs are not synced: a killed server loses no page cache. The
	 * exit status is the record of the task: status, line 2, one
	 * write; a reader takes it only whole (run_read_status). The
	 * server that forked this monitor reaps it and puts the status in
	 * the job's record, synced with the records of other jobs (a group
	 * commit); only a monitor whose server is gone (killed, or one that
	 * this monitor outlived: its parent is no longer that server) syncs
	 * the file itself, for the next server to find. */
	if (m->status >= 0) {
		if (m->pid <= 0) { /* no line 1 yet */
			static const char none[] = "0 0 0\n";

			srv_write_all(m->status, none, sizeof(none) - 1);
		}
		srv_write_all(m->status, line, n);
		if (getppid() != m->sp->server)
			fsync(m->status);
		close(m->status);
	}
	_exit(0);
}

/* A task's monitor, in the child the server forked (async-signal-safe
 * calls only). */
__attribute__((noreturn)) void run_monitor_main(const struct run_spawn *sp)
{
	struct monitor m;
	int out = -1, err = -1;

	monitor_init(&m, sp);
	start_task(&m, &out, &err);
	if (m.pid > 0) {
		write_pids(&m);
		watch_task(&m, out, err);
	}
	monitor_exit(&m);
}
