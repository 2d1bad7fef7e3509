/* run_monitor.c - a task's monitor: the process that the server forks
 * for each task and never execs. It starts the task, copies the task's
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
 * this file is the monitor's half of tree.c, under the same rule. */
#include "run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SESSIONS 32
#define LOG_FLAGS (O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC)

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static size_t fmt_int(char *buf, long v)
{
	char tmp[24];
	size_t n = 0, i = 0;

	if (v < 0) {
		buf[i++] = '-';
		v = -v;
	}
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		buf[i++] = tmp[--n];
	return i;
}

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

static void reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
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

/* The longest line part a stream keeps back from user.pai.all. */
#define PART_MAX 4096

/* A monitor's state: the task, its outputs, its sshd sessions. */
struct monitor {
	const struct run_spawn *sp;
	int sfd;     /* SIGTERM and SIGINT, to pass on to the task */
	int status;  /* the status file, or -1 */
	int logs[3]; /* user.pai.stdout, .stderr, .all: -1 until written */
	/* each stream's line begun and not ended, kept from
	 * user.pai.all until its newline, so that the other stream's
	 * lines never land inside it */
	char part[2][PART_MAX];
	size_t plen[2];
	pid_t pid;   /* the task; -1 when it could not start */
	int st;	     /* its wait status */
	bool exited;
	long drain_until; /* once it exited: its output read until then */
	pid_t sess[MAX_SESSIONS];
	int nsess;
	struct srv_tree tree; /* every process the task started */
};

/* The monitor's own session, descriptors and signals; the task's
 * directories and its status file. */
static void monitor_init(struct monitor *m, const struct run_spawn *sp)
{
	int keep[2] = {sp->fd_null, sp->fd_ssh}, i;
	sigset_t mask;

	m->sp = sp;
	m->logs[0] = m->logs[1] = m->logs[2] = -1;
	m->plen[0] = m->plen[1] = 0;
	m->pid = -1;
	m->st = 0;
	m->exited = false;
	m->drain_until = 0;
	m->nsess = 0;
	setsid();
	srv_tree_init(&m->tree, sp->tree_base);
	dup2(sp->fd_null, 0);
	dup2(sp->fd_null, 1);
	dup2(sp->fd_null, 2);
	close_others(keep, 2);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigdelset(&mask, SIGCHLD);
	m->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	/* made here, not in the server: the server forks the next task
	 * meanwhile, and answers requests */
	for (i = 0; i < 3; i++)
		if (mkdir(sp->dirs[i], 0700) < 0 && errno != EEXIST)
			_exit(MONITOR_NO_DIR);
	m->status = open(sp->status_path,
			 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* Forks the task, `bash -c COMMAND` in its own process group, its
 * stdout and stderr into pipes whose reading ends go to *out and *err.
 * m->pid stays -1 when it could not start. */
static void start_task(struct monitor *m, int *out, int *err)
{
	static const char nobash[] = "paictl serve: cannot run bash\n";
	static const char nodir[] = "paictl serve: cannot enter the task's "
				    "working directory\n";
	const struct run_spawn *sp = m->sp;
	int po[2] = {-1, -1}, pe[2] = {-1, -1};

	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
		return;
	m->pid = fork();
	if (m->pid == 0) {
		setpgid(0, 0);
		srv_tree_enter(&m->tree);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		reset_signals();
		if (chdir(sp->work) < 0) {
			write_all(2, nodir, sizeof(nodir) - 1);
			_exit(127);
		}
		execve(sp->bash, sp->argv, sp->envp);
		write_all(2, nobash, sizeof(nobash) - 1);
		_exit(127);
	}
	if (m->pid > 0)
		setpgid(m->pid, m->pid);
	close(po[1]);
	close(pe[1]);
	*out = po[0];
	*err = pe[0];
}

/* status, line 1, "task-pid monitor-pid monitor-start": how a restarted
 * server finds this monitor again (the record is not rewritten for
 * it) */
static void write_pids(const struct monitor *m)
{
	char line[64];
	size_t n;

	if (m->status < 0)
		return;
	n = fmt_int(line, m->pid);
	line[n++] = ' ';
	n += fmt_int(line + n, getpid());
	line[n++] = ' ';
	n += fmt_int(line + n, (long)self_start());
	line[n++] = '\n';
	write_all(m->status, line, n);
}

/* Stream i's bytes into user.pai.all a line at a time: what ends with
 * a newline goes now, after the part kept before; the rest is kept
 * (written as it is once PART_MAX is reached, or the stream ends). */
static void to_all(struct monitor *m, int i, const char *p, size_t n)
{
	size_t last = n;

	while (last > 0 && p[last - 1] != '\n')
		last--;
	if (last > 0 || m->plen[i] + n > PART_MAX) {
		write_all(m->logs[2], m->part[i], m->plen[i]);
		m->plen[i] = 0;
		if (last == 0)
			last = n;
		write_all(m->logs[2], p, last);
	}
	memcpy(m->part[i] + m->plen[i], p + last, n - last);
	m->plen[i] += n - last;
}

/* Copies what the task wrote to pfd[0] (stdout) and pfd[1] (stderr)
 * into its logs; a stream that ended is closed (its fd set to -1), the
 * last line it began written out. */
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
			write_all(m->logs[2], m->part[i], m->plen[i]);
			m->plen[i] = 0;
			continue;
		}
		/* a log file appears with its first byte: most tasks write
		 * nothing to one stream or both */
		if (m->logs[i] < 0)
			m->logs[i] = open(m->sp->log_path[i], LOG_FLAGS, 0600);
		if (m->logs[2] < 0)
			m->logs[2] = open(m->sp->log_path[2], LOG_FLAGS, 0600);
		write_all(m->logs[i], buf, (size_t)got);
		to_all(m, i, buf, (size_t)got);
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
		sig = si.ssi_signo == SIGINT ? SIGKILL : SIGTERM;
		kill(-m->pid, sig);
		srv_tree_signal(&m->tree, sig);
	}
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
			reset_signals();
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

/* Until the task's outputs end (or, once it exited, a little longer):
 * its output copied, signals passed on, ssh connections served. */
static void watch_task(struct monitor *m, int out, int err)
{
	struct pollfd pfd[4];

	pfd[0].fd = out;
	pfd[1].fd = err;
	pfd[2].fd = m->sfd;
	pfd[3].fd = m->sp->sshd ? m->sp->fd_ssh : -1;
	pfd[0].events = pfd[1].events = pfd[2].events = pfd[3].events = POLLIN;
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		int r = poll(pfd, 4, 100);

		if (r > 0)
			copy_output(m, pfd);
		if (r > 0 && m->sfd >= 0 && pfd[2].revents)
			pass_signals(m);
		if (r > 0 && pfd[3].fd >= 0 && pfd[3].revents)
			accept_ssh(m, pfd[3].fd);
		reap_children(m);
		if (m->exited && mono_ms() > m->drain_until)
			break;
	}
	/* a stream still open (held by what the task left): its last
	 * line as it is */
	write_all(m->logs[2], m->part[0], m->plen[0]);
	write_all(m->logs[2], m->part[1], m->plen[1]);
	if (!m->exited) {
		while (waitpid(m->pid, &m->st, 0) < 0 && errno == EINTR)
			;
		kill(-m->pid, SIGKILL);
	}
}

/* Ends what is left of the task and its ssh sessions, writes its exit
 * status and exits. */
static __attribute__((noreturn)) void monitor_exit(struct monitor *m)
{
	char line[64];
	size_t n;
	int i, code;

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
	n = fmt_int(line, code);
	line[n++] = ' ';
	n += fmt_int(line + n,
		     m->pid > 0 && WIFSIGNALED(m->st) ? WTERMSIG(m->st) : 0);
	line[n++] = '\n';
	/* Logs are not synced: a killed server loses no page cache. The
	 * exit status is the record of the task: status, line 2, one
	 * write, synced; a reader takes it only whole (run_read_status). */
	if (m->status >= 0) {
		if (m->pid <= 0) { /* no line 1 yet */
			static const char none[] = "0 0 0\n";

			write_all(m->status, none, sizeof(none) - 1);
		}
		write_all(m->status, line, n);
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
