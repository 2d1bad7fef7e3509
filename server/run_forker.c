/* run_forker.c - the process that forks the tasks' monitors.
 *
 * A monitor forked from the server itself cost the server a copy of its
 * page tables and, until the monitor exec'd nothing and exited, a copy
 * of every page the server's threads wrote meanwhile; the monitor's end
 * then unmapped it all again. With a thousand jobs stored that was the
 * largest cost of a task after the task itself (issue 39's profile).
 * The forker is forked once at the start, before the jobs are loaded and
 * the threads start, while the server is small. The server sends it each
 * task's struct run_spawn, flattened, with its descriptors (SCM_RIGHTS);
 * the forker forks the monitor with CLONE_PARENT, which makes the monitor
 * the server's child as before: reaped by the server (SIGCHLD), its
 * getppid() the server (run_monitor.c). The forker answers with the
 * monitor's pid, and ends when the server does (its socket closed, or
 * PR_SET_PDEATHSIG). Where it does not answer, the server forks the
 * monitor itself (run_spawn.c).
 *
 * The forker is single-threaded: malloc is safe in it, and so in the
 * monitor it forks, which keeps run_monitor.c's rule all the same. */
#include "run_int.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A flattened run_spawn above this (its environment is bounded by the
 * kernel's execve limit long before) is forked by the server itself. */
#define FORKER_MAX_MSG (8u << 20)
/* How long the server waits for the forker's answer */
#ifndef FORKER_WAIT_MS
#define FORKER_WAIT_MS 10000
#endif
#define NIL UINT32_MAX /* a NULL string or vector */

/* The pointers of struct run_spawn, in the order they are sent. */
static const size_t str_at[] = {
    offsetof(struct run_spawn, prog),
    offsetof(struct run_spawn, started_path),
    offsetof(struct run_spawn, start_why),
    offsetof(struct run_spawn, prep_path),
    offsetof(struct run_spawn, dirs[0]),
    offsetof(struct run_spawn, dirs[1]),
    offsetof(struct run_spawn, dirs[2]),
    offsetof(struct run_spawn, work),
    offsetof(struct run_spawn, status_path),
    offsetof(struct run_spawn, log_path[0]),
    offsetof(struct run_spawn, log_path[1]),
    offsetof(struct run_spawn, log_path[2]),
    offsetof(struct run_spawn, sshd),
    offsetof(struct run_spawn, sshd_log),
    offsetof(struct run_spawn, tree_base),
    offsetof(struct run_spawn, tree_dir),
};
static const size_t strv_at[] = {
    offsetof(struct run_spawn, argv),	 offsetof(struct run_spawn, envp),
    offsetof(struct run_spawn, stop[0]), offsetof(struct run_spawn, stop[1]),
    offsetof(struct run_spawn, end),	 offsetof(struct run_spawn, sshd_argv),
};
#define NSTR  (sizeof(str_at) / sizeof(str_at[0]))
#define NSTRV (sizeof(strv_at) / sizeof(strv_at[0]))

#define STR_FIELD(sp, i)  (*(const char **)((char *)(sp) + str_at[i]))
#define STRV_FIELD(sp, i) (*(char ***)((char *)(sp) + strv_at[i]))

/* ---- flattening: the struct's bytes, then each string as a u32
 * length (NIL for NULL) and its bytes with their NUL, each vector as a
 * u32 count (NIL for NULL) and its strings ---------------------------- */

struct flat {
	char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct flat *f, const void *p, size_t n)
{
	if (f->failed)
		return;
	if (n > FORKER_MAX_MSG - f->len) {
		f->failed = true;
		return;
	}
	if (f->len + n > f->cap) {
		size_t cap = f->cap ? f->cap : 4096;
		char *np;

		while (cap < f->len + n)
			cap *= 2;
		if (!(np = realloc(f->p, cap))) {
			f->failed = true;
			return;
		}
		f->p = np;
		f->cap = cap;
	}
	memcpy(f->p + f->len, p, n);
	f->len += n;
}

static void put_u32(struct flat *f, uint32_t v)
{
	put(f, &v, sizeof(v));
}

static void put_str(struct flat *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (s && n >= NIL) {
		f->failed = true;
		return;
	}
	put_u32(f, s ? (uint32_t)n : NIL);
	if (s)
		put(f, s, n + 1);
}

static void flatten(struct flat *f, const struct run_spawn *sp)
{
	size_t i, n;

	put(f, sp, sizeof(*sp));
	for (i = 0; i < NSTR; i++)
		put_str(f, STR_FIELD(sp, i));
	for (i = 0; i < NSTRV; i++) {
		char **v = STRV_FIELD(sp, i);

		for (n = 0; v && v[n]; n++)
			;
		put_u32(f, v ? (uint32_t)n : NIL);
		for (n = 0; v && v[n]; n++)
			put_str(f, v[n]);
	}
}

/* ---- reading it back, in the forker: the strings stay in the buffer;
 * vectors are allocated (freed by free_vectors) ----------------------- */

struct reader {
	char *p;
	size_t left;
};

static bool get_u32(struct reader *r, uint32_t *v)
{
	if (r->left < sizeof(*v))
		return false;
	memcpy(v, r->p, sizeof(*v));
	r->p += sizeof(*v);
	r->left -= sizeof(*v);
	return true;
}

static bool get_str(struct reader *r, char **s)
{
	uint32_t n;

	if (!get_u32(r, &n))
		return false;
	if (n == NIL) {
		*s = NULL;
		return true;
	}
	if ((size_t)n >= r->left || r->p[n] != '\0')
		return false;
	*s = r->p;
	r->p += (size_t)n + 1;
	r->left -= (size_t)n + 1;
	return true;
}

static void free_vectors(struct run_spawn *sp)
{
	size_t i;

	for (i = 0; i < NSTRV; i++) {
		free(STRV_FIELD(sp, i));
		STRV_FIELD(sp, i) = NULL;
	}
}

static bool get_vector(struct reader *r, char ***out)
{
	uint32_t n, k;
	char **v;

	if (!get_u32(r, &n))
		return false;
	if (n == NIL)
		return true;
	/* each string takes 5 bytes at least */
	if (n > r->left / 5 || !(v = calloc((size_t)n + 1, sizeof(*v))))
		return false;
	*out = v;
	for (k = 0; k < n; k++)
		if (!get_str(r, &v[k]))
			return false;
	return true;
}

/* sp from buf (len bytes): true, or false for a malformed message. */
static bool unflatten(struct run_spawn *sp, char *buf, size_t len)
{
	struct reader r;
	size_t i;

	if (len < sizeof(*sp))
		return false;
	r.p = buf + sizeof(*sp);
	r.left = len - sizeof(*sp);
	memcpy(sp, buf, sizeof(*sp));
	for (i = 0; i < NSTRV; i++)
		STRV_FIELD(sp, i) = NULL;
	for (i = 0; i < NSTR; i++) {
		char *s;

		if (!get_str(&r, &s))
			return false;
		STR_FIELD(sp, i) = s;
	}
	for (i = 0; i < NSTRV; i++)
		if (!get_vector(&r, &STRV_FIELD(sp, i)))
			return false;
	return r.left == 0 && sp->prog && sp->argv && sp->envp &&
	       sp->status_path;
}

/* ---- the messages: a header (length, and which of fd_null, fd_ssh,
 * fd_keep come with it), then the flattened struct; the answer a pid
 * and an errno ------------------------------------------------------- */

struct header {
	uint32_t len;
	uint32_t fds; /* bit i: the i-th of fd_null, fd_ssh, fd_keep sent */
};

struct answer {
	int32_t pid; /* the monitor's, or -1 */
	int32_t err;
};

/* The descriptors of struct run_spawn, in the order of struct header's
 * bits. */
static const size_t fd_at[] = {
    offsetof(struct run_spawn, fd_null),
    offsetof(struct run_spawn, fd_ssh),
    offsetof(struct run_spawn, fd_keep),
};
#define FD_FIELD(sp, i) (*(int *)((char *)(sp) + fd_at[i]))

/* The header with the descriptors that go with it (at most 3). */
static bool send_header(int fd, const struct header *h, const int *fds,
			int nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {(void *)h, sizeof(*h)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	ssize_t w;

	memset(&u, 0, sizeof(u));
	if (nfds > 0) {
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	do
		w = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof(*h);
}

/* The header and the descriptors that came with it: their count, or -1
 * (the server gone, or a message this forker cannot take). */
static int recv_header(int fd, struct header *h, int fds[3])
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {h, sizeof(*h)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	ssize_t r;
	size_t i, count;
	int n = 0, f;
	bool extra = false;

	do
		r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	for (c = r > 0 ? CMSG_FIRSTHDR(&msg) : NULL; c;
	     c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++) {
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(f));
			if (n < 3)
				fds[n++] = f;
			else { /* more than a request has: none taken */
				close(f);
				extra = true;
			}
		}
	}
	/* a short header comes whole with the next read */
	if (r > 0 && r < (ssize_t)sizeof(*h) &&
	    !srv_read_all(fd, (char *)h + r, sizeof(*h) - (size_t)r))
		r = 0;
	if (r <= 0 || extra || (msg.msg_flags & MSG_CTRUNC)) {
		while (n > 0)
			close(fds[--n]);
		return -1;
	}
	return n;
}

/* A fork whose child is the forker's parent's: the server's. The raw
 * system call, as glibc's fork() takes no flags; the child runs
 * run_monitor_main, which keeps to system calls and
 * async-signal-safe functions (glibc's cached thread id in it is the
 * forker's, which none of them reads). */
static pid_t fork_for_server(void)
{
	return (pid_t)syscall(SYS_clone,
			      (unsigned long)(CLONE_PARENT | SIGCHLD), NULL,
			      NULL, NULL, 0UL);
}

/* The signals whose action is not the default in the forker, and so
 * in its monitors: all a task's child has to set back (sig_set). */
static sigset_t not_default;

static void find_not_default(void)
{
	struct sigaction sa;
	int sig;

	sigemptyset(&not_default);
	for (sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_DFL)
			sigaddset(&not_default, sig);
}

/* One request: its monitor forked, or why not. false: stop serving. */
static bool serve_one(int fd)
{
	struct header h = {0, 0};
	struct run_spawn sp;
	struct answer a = {-1, EINVAL};
	int fds[3], nfds, i, k = 0;
	char *buf;

	if ((nfds = recv_header(fd, &h, fds)) < 0)
		return false;
	buf = h.len <= FORKER_MAX_MSG ? malloc(h.len) : NULL;
	if (!buf || !srv_read_all(fd, buf, h.len)) {
		free(buf);
		while (nfds > 0)
			close(fds[--nfds]);
		return false;
	}
	memset(&sp, 0, sizeof(sp));
	if (unflatten(&sp, buf, h.len)) {
		for (i = 0; i < 3; i++)
			FD_FIELD(&sp, i) =
			    (h.fds >> i & 1) && k < nfds ? fds[k++] : -1;
		sp.sig_set = &not_default;
		if (k == nfds && sp.fd_null >= 0) {
			a.pid = fork_for_server();
			if (a.pid == 0)
				run_monitor_main(&sp);
			a.err = a.pid < 0 ? errno : 0;
		}
	}
	free_vectors(&sp);
	free(buf);
	while (nfds > 0)
		close(fds[--nfds]);
	return srv_write_all(fd, &a, sizeof(a));
}

/* The forker, in its process: nothing of the server's kept but its
 * socket (now descriptor 3) and its signal mask, which the monitors
 * inherit as they did from the server. */
__attribute__((noreturn)) static void forker_main(int fd, int null_fd,
						  pid_t server)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != server)
		_exit(0);
	dup2(null_fd, 0);
	dup2(null_fd, 1);
	dup2(null_fd, 2);
	if (fd != 3) {
		dup2(fd, 3);
		fd = 3;
	}
	close_range(4, ~0U, 0);
	find_not_default();
	while (serve_one(fd))
		;
	_exit(0);
}

int srv_forker_start(struct srv *s)
{
	int sv[2];
	pid_t pid, server = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		forker_main(sv[1], s->null_fd, server);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	s->forker_fd = sv[0];
	s->forker_pid = pid;
	return 0;
}

void srv_forker_stop(struct srv *s)
{
	if (s->forker_fd >= 0)
		close(s->forker_fd); /* the forker reads its end, and ends */
	s->forker_fd = -1;
	s->forker_pid = 0;
}

/* The forker is gone or of no use: said once, whichever of its end
 * (reaped) or a request it did not take the server meets first. */
static void forker_lost(struct srv *s)
{
	srv_forker_stop(s);
	srv_log(s, "the monitors' forker ended: the server forks them "
		   "itself");
}

bool run_forker_reaped(struct srv *s, pid_t pid)
{
	if (pid <= 0 || pid != s->forker_pid)
		return false;
	forker_lost(s);
	return true;
}

/* The answer, within FORKER_WAIT_MS: false when none came. */
static bool wait_answer(int fd, struct answer *a)
{
	struct pollfd p = {fd, POLLIN, 0};
	int r;

	do
		r = poll(&p, 1, FORKER_WAIT_MS);
	while (r < 0 && errno == EINTR);
	return r > 0 && srv_read_all(fd, a, sizeof(*a));
}

pid_t run_forker_spawn(struct srv *s, const struct run_spawn *sp)
{
	struct flat f = {NULL, 0, 0, false};
	struct header h = {0, 0};
	struct answer a;
	int fds[3], nfds = 0, i;
	bool sent;

	/* a descriptor the task names by its number (podman's
	 * /proc/self/fd/N) is the server's to pass on: it forks */
	if (s->forker_fd < 0 || sp->fd_keep >= 0 || sp->fd_null < 0)
		return RUN_FORKER_NONE;
	flatten(&f, sp);
	for (i = 0; i < 3; i++)
		if (FD_FIELD(sp, i) >= 0) {
			fds[nfds++] = FD_FIELD(sp, i);
			h.fds |= 1u << i;
		}
	h.len = (uint32_t)f.len;
	sent = !f.failed && send_header(s->forker_fd, &h, fds, nfds) &&
	       srv_write_all(s->forker_fd, f.p, f.len);
	free(f.p);
	if (f.failed)
		return RUN_FORKER_NONE;
	if (!sent) { /* not all of it: the forker forks nothing */
		forker_lost(s);
		return RUN_FORKER_NONE;
	}
	if (!wait_answer(s->forker_fd, &a)) {
		/* it may have forked the monitor: never a second one */
		kill(s->forker_pid, SIGKILL);
		forker_lost(s);
		errno = ETIMEDOUT;
		return -1;
	}
	if (a.pid < 0)
		errno = a.err;
	return a.pid;
}
