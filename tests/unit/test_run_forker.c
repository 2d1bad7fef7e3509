/* test_run_forker.c - the local cluster's forker (server/run_forker.c):
 * a task's struct run_spawn, flattened, sent with its descriptors to the
 * forker process, which forks the monitor as its parent's child.
 *
 * The forker here is real: started by srv_forker_start from this
 * process, which is then the monitors' parent. The monitor is this
 * file's run_monitor_main: it compares what it was given with what was
 * sent, field by field, and exits with the number of the first that
 * differs. Around the message's limit (FORKER_MAX_MSG): a spawn of
 * exactly that size is forked by the forker, one byte more falls back
 * to the server; a message cut anywhere or with a string not ended is
 * refused whole; 3 descriptors with a request taken, 4 refused and
 * closed; a forker gone or a descriptor named by its number
 * leaves the fork to the server; never two monitors for one task. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The unit itself, internal to server/: compiled in here, its wait for
 * an answer short */
#define FORKER_WAIT_MS 300
#include "../../server/run_forker.c"
#include "../../server/fdio.c"

/* util.c's, which writes to stderr: what the forker's half said */
static int said;
static char last_said[256];

void srv_log(struct srv *s, const char *fmt, ...)
{
	va_list ap;

	(void)s;
	va_start(ap, fmt);
	vsnprintf(last_said, sizeof(last_said), fmt, ap);
	va_end(ap);
	said++;
}

static char *argv_[] = {"/bin/bash", "-c", "echo hi", NULL};
static char *stop_[] = {"podman", "stop", NULL};
static char *empty_[] = {NULL};
static char *sshd_[] = {"/usr/sbin/sshd", "-i", "-e", "-f", "cfg", NULL};
static char big_env[FORKER_MAX_MSG + 16];
static char *envp_[] = {"A=1", big_env, "B=", NULL};
static size_t env_len; /* big_env's length: the tests set it */

/* The spawn every test sends (descriptors aside), made the same in the
 * monitor to compare with. */
static void make_spawn(struct run_spawn *sp)
{
	memset(sp, 0, sizeof(*sp));
	memset(big_env, 'v', env_len);
	memcpy(big_env, "BIG=", env_len < 4 ? env_len : 4);
	big_env[env_len] = '\0';
	sp->prog = "/bin/bash";
	sp->argv = argv_;
	sp->envp = envp_;
	sp->stop[0] = stop_;
	sp->stop[1] = NULL;
	sp->end = empty_;
	sp->started_path = NULL;
	sp->start_why = "the image was not pulled";
	sp->start_ms = (long)env_len; /* for the monitor to make the same */
	sp->prep_path = "";
	sp->dirs[0] = "/s/jobs/u~j/attempt-0";
	sp->dirs[1] = "/s/jobs/u~j/attempt-0/main-0";
	sp->dirs[2] = "/s/jobs/u~j/attempt-0/main-0/work";
	sp->work = sp->dirs[2];
	sp->status_path = "/s/jobs/u~j/attempt-0/main-0/status";
	sp->log_path[0] = "o";
	sp->log_path[1] = "e";
	sp->log_path[2] = "a";
	sp->sshd = "/usr/sbin/sshd";
	sp->sshd_log = "sshd.log";
	sp->sshd_argv = sshd_;
	sp->tree_base = NULL;
	sp->grace_ms = 1500;
	sp->server = 4242;
	sp->fd_keep = -1;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_strv(char **a, char **b)
{
	size_t i;

	if (!a || !b)
		return a == b;
	for (i = 0; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return !a[i] && !b[i];
}

/* The monitor: exit status 0 when sp is what was sent, else the number
 * of the first field that differs (descriptors: 40 and up). */
void run_monitor_main(const struct run_spawn *sp)
{
	struct run_spawn want;
	struct stat st;
	size_t i;

	env_len = (size_t)sp->start_ms;
	make_spawn(&want);
	for (i = 0; i < NSTR; i++)
		if (!same_str(STR_FIELD(sp, i), STR_FIELD(&want, i)))
			_exit((int)(1 + i));
	for (i = 0; i < NSTRV; i++)
		if (!same_strv(STRV_FIELD(sp, i), STRV_FIELD(&want, i)))
			_exit((int)(20 + i));
	if (sp->start_ms != want.start_ms || sp->grace_ms != want.grace_ms ||
	    sp->server != want.server)
		_exit(30);
	if (fstat(sp->fd_null, &st) < 0 || !S_ISCHR(st.st_mode))
		_exit(40);
	if (fstat(sp->fd_ssh, &st) < 0 || !S_ISSOCK(st.st_mode))
		_exit(41);
	if (sp->fd_keep != -1)
		_exit(42);
	_exit(0);
}

struct fixture {
	struct srv s;
	int sv[2]; /* a socket pair: the task's ssh listener stands in */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->s.forker_fd = -1;
	f->s.null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(f->s.null_fd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, f->sv), 0);
	assert_int_equal(srv_forker_start(&f->s), 0);
	assert_true(f->s.forker_pid > 0);
	env_len = 10;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	pid_t pid = f->s.forker_pid;

	srv_forker_stop(&f->s);
	if (pid > 0) /* it ends when its socket closes */
		assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(f->s.null_fd);
	close(f->sv[0]);
	close(f->sv[1]);
	free(f);
	return 0;
}

/* The spawn, with the fixture's descriptors. */
static void fixture_spawn(const struct fixture *f, struct run_spawn *sp)
{
	make_spawn(sp);
	sp->fd_null = f->s.null_fd;
	sp->fd_ssh = f->sv[0];
}

/* Spawns through the forker and waits for the monitor: its exit code. */
static int spawn_and_wait(struct fixture *f, pid_t *pid)
{
	struct run_spawn sp;
	int st;

	fixture_spawn(f, &sp);
	*pid = run_forker_spawn(&f->s, &sp);
	if (*pid <= 0)
		return -1;
	/* the forker's child, yet this process's: CLONE_PARENT */
	assert_int_equal(waitpid(*pid, &st, 0), *pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static size_t flat_size(void)
{
	struct run_spawn sp;
	struct flat fl = {NULL, 0, 0, false};

	make_spawn(&sp);
	flatten(&fl, &sp);
	free(fl.p);
	return fl.failed ? 0 : fl.len;
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	pid_t pid;

	assert_int_equal(spawn_and_wait(f, &pid), 0);
	assert_true(pid != f->s.forker_pid);
	/* and again: the forker serves one request after another */
	env_len = 300000; /* more than the socket holds at once */
	assert_int_equal(spawn_and_wait(f, &pid), 0);
}

/* A spawn of FORKER_MAX_MSG bytes goes; one byte more is the server's
 * to fork, and the forker serves the next. */
static void test_limit(void **state)
{
	struct fixture *f = *state;
	struct run_spawn sp;
	size_t base;
	pid_t pid;

	env_len = 10;
	base = flat_size();
	assert_true(base > 0);
	env_len = 10 + (FORKER_MAX_MSG - base);
	assert_int_equal(flat_size(), FORKER_MAX_MSG);
	assert_int_equal(spawn_and_wait(f, &pid), 0);
	env_len++;
	assert_int_equal(flat_size(), 0);
	fixture_spawn(f, &sp);
	assert_int_equal(run_forker_spawn(&f->s, &sp), RUN_FORKER_NONE);
	assert_true(f->s.forker_fd >= 0); /* nothing was sent */
	env_len = 10;
	assert_int_equal(spawn_and_wait(f, &pid), 0);
}

/* Every cut of a good message, and a string without its NUL, refused. */
static void test_malformed(void **state)
{
	struct flat fl = {NULL, 0, 0, false};
	struct run_spawn sp, got;
	char *copy;
	size_t cut, at;

	(void)state;
	env_len = 10;
	make_spawn(&sp);
	flatten(&fl, &sp);
	assert_false(fl.failed);
	copy = malloc(fl.len);
	assert_non_null(copy);
	for (cut = 0; cut < fl.len; cut++) {
		memcpy(copy, fl.p, fl.len);
		memset(&got, 0, sizeof(got));
		assert_false(unflatten(&got, copy, cut));
		free_vectors(&got);
	}
	memcpy(copy, fl.p, fl.len);
	assert_true(unflatten(&got, copy, fl.len));
	free_vectors(&got);
	/* prog's NUL (just after the struct, its u32 length, 9 bytes) */
	at = sizeof(sp) + sizeof(uint32_t) + strlen(sp.prog);
	memcpy(copy, fl.p, fl.len);
	assert_int_equal(copy[at], '\0');
	copy[at] = 'x';
	assert_false(unflatten(&got, copy, fl.len));
	free_vectors(&got);
	/* a vector that says it has more strings than there are bytes */
	memcpy(copy, fl.p, fl.len);
	at = sizeof(sp);
	for (cut = 0; cut < NSTR; cut++) {
		const char *str = STR_FIELD(&sp, cut);

		at += sizeof(uint32_t) + (str ? strlen(str) + 1 : 0);
	}
	memcpy(copy + at, &(uint32_t){0x7fffffff}, sizeof(uint32_t));
	assert_false(unflatten(&got, copy, fl.len));
	free_vectors(&got);
	/* the count of argv, right: 3 */
	{
		uint32_t n;

		memcpy(&n, fl.p + at, sizeof(n));
		assert_int_equal(n, 3);
	}
	free(copy);
	free(fl.p);
}

/* A descriptor the task names by number (fd_keep), and a forker gone:
 * the server forks. */
static void test_server_forks(void **state)
{
	struct fixture *f = *state;
	struct run_spawn sp;
	pid_t forker = f->s.forker_pid;
	int st;

	fixture_spawn(f, &sp);
	sp.fd_keep = f->sv[1];
	assert_int_equal(run_forker_spawn(&f->s, &sp), RUN_FORKER_NONE);
	assert_int_equal(f->s.forker_pid, forker);

	sp.fd_keep = -1;
	assert_int_equal(kill(forker, SIGKILL), 0);
	assert_int_equal(waitpid(forker, &st, 0), forker);
	assert_true(run_forker_reaped(&f->s, forker));
	assert_int_equal(f->s.forker_fd, -1);
	assert_int_equal(run_forker_spawn(&f->s, &sp), RUN_FORKER_NONE);
	assert_false(run_forker_reaped(&f->s, forker));
}

/* The forker gone: the request cannot be sent, nothing was forked, and
 * the server forks. */
static void test_forker_gone(void **state)
{
	struct fixture *f = *state;
	struct run_spawn sp;
	pid_t forker = f->s.forker_pid;

	fixture_spawn(f, &sp);
	assert_int_equal(kill(forker, SIGKILL), 0);
	assert_int_equal(waitpid(forker, NULL, 0), forker);
	said = 0;
	assert_int_equal(run_forker_spawn(&f->s, &sp), RUN_FORKER_NONE);
	assert_int_equal(f->s.forker_fd, -1);
	assert_int_equal(f->s.forker_pid, 0);
	/* said when met here, before the server reaped it; not again
	 * when it does */
	assert_int_equal(said, 1);
	assert_non_null(strstr(last_said, "forker ended"));
	assert_false(run_forker_reaped(&f->s, forker));
	assert_int_equal(said, 1);
}

/* The forker took the request and does not answer (stopped): after
 * FORKER_WAIT_MS it is killed, and the task fails (-1): the server does
 * not fork a second monitor for it; none was forked. */
static void test_forker_silent(void **state)
{
	struct fixture *f = *state;
	struct run_spawn sp;
	pid_t forker = f->s.forker_pid;

	fixture_spawn(f, &sp);
	assert_int_equal(kill(forker, SIGSTOP), 0);
	said = 0;
	assert_int_equal(run_forker_spawn(&f->s, &sp), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_int_equal(f->s.forker_fd, -1);
	assert_int_equal(said, 1);
	assert_non_null(strstr(last_said, "forker ended"));
	assert_int_equal(waitpid(forker, NULL, 0), forker);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no monitor */
	assert_int_equal(errno, ECHILD);
}

/* A header with k descriptors (dups of /dev/null) on sock. */
static void send_fds(int sock, int k)
{
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct header h = {0, 0};
	struct iovec iov = {&h, sizeof(h)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	int fds[8], i;

	memset(&u, 0, sizeof(u));
	for (i = 0; i < k; i++)
		assert_true((fds[i] = open("/dev/null", O_RDONLY)) >= 0);
	msg.msg_control = u.buf;
	msg.msg_controllen = CMSG_SPACE((size_t)k * sizeof(int));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)k * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)k * sizeof(int));
	assert_int_equal(sendmsg(sock, &msg, 0), (ssize_t)sizeof(h));
	for (i = 0; i < k; i++)
		close(fds[i]);
}

/* How many descriptors this process has open. */
static int open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* A request brings at most 3 descriptors: 3 are taken, and of 4 none
 * (all closed, the request refused). */
static void test_descriptor_bound(void **state)
{
	struct header h;
	int sv[2], fds[3], before, i;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	before = open_fds();
	send_fds(sv[0], 3);
	assert_int_equal(recv_header(sv[1], &h, fds), 3);
	assert_int_equal(open_fds(), before + 3);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	send_fds(sv[0], 4);
	assert_int_equal(recv_header(sv[1], &h, fds), -1);
	assert_int_equal(open_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_descriptor_bound),
	    cmocka_unit_test_setup_teardown(test_server_forks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_forker_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_forker_silent, setup,
					    teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
