/* test_tree.c - the local cluster's task cgroups (server/tree.c), on the
 * machine's real cgroup v2, under this test's own cgroup (skipped, with
 * a line, where none can be made). A gone monitor's cgroup is found by
 * its pid and start time: the record of a monitor whose pid another one
 * has now (pids are reused) never reaches the other's processes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The unit itself, internal to server/, and server/util.c for its
 * srv_printf: compiled in here. */
#include "../../server/tree.c"
#include "../../server/util.c"
#include "testutil.h"

static char *base;

/* Whether pid is listed in the cgroup dir. */
static bool in_cgroup(const char *dir, pid_t pid)
{
	char path[600], line[32];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = atol(line) == (long)pid;
	fclose(f);
	return found;
}

/* Waits up to 5 s for pid to leave the cgroup dir (or the dir to go). */
static bool left_cgroup(const char *dir, pid_t pid)
{
	int i;

	for (i = 0; i < 500 && in_cgroup(dir, pid); i++)
		usleep(10000);
	return !in_cgroup(dir, pid);
}

/* A monitor as run_monitor.c makes one: its cgroup (named after its pid
 * and start), a task in it that waits; the cgroup's path and the task's
 * pid come back on fd. It exits when its task has gone. */
static void monitor(int fd)
{
	struct srv_tree t;
	pid_t task;
	char c;
	int p[2];

	memset(&t, 0, sizeof(t)); /* all of t.dir is written to fd */
	srv_tree_init(&t, base, test_proc_stat(getpid(), 22), NULL);
	if (!t.dir[0] || pipe(p) < 0)
		_exit(1);
	task = fork();
	if (task == 0) {
		srv_tree_enter(&t);
		if (write(p[1], "x", 1) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	if (task < 0 || read(p[0], &c, 1) != 1)
		_exit(1);
	if (write(fd, &task, sizeof(task)) < 0 ||
	    write(fd, t.dir, sizeof(t.dir)) < 0)
		_exit(1);
	waitpid(task, NULL, 0);
	_exit(0);
}

static int setup(void **state)
{
	(void)state;
	base = srv_tree_base();
	if (!base)
		fprintf(stderr, "test_tree: no cgroup v2 can be made here: "
				"its tests are skipped\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(base);
	return 0;
}

/* The record of a monitor that had this pid before (another start
 * time): forgetting it leaves this monitor's task alone; forgetting
 * this monitor ends its task and removes its cgroup. */
static void test_forget_pid_reused(void **state)
{
	char dir[sizeof(((struct srv_tree *)0)->dir)];
	unsigned long long start;
	pid_t mon, task;
	int p[2];

	(void)state;
	if (!base)
		skip();
	assert_int_equal(pipe(p), 0);
	mon = fork();
	assert_true(mon >= 0);
	if (mon == 0)
		monitor(p[1]);
	close(p[1]);
	assert_int_equal(read(p[0], &task, sizeof(task)), sizeof(task));
	assert_int_equal(read(p[0], dir, sizeof(dir)), sizeof(dir));
	close(p[0]);
	start = test_proc_stat(mon, 22);
	assert_true(start > 0);
	assert_true(in_cgroup(dir, task));

	srv_tree_forget(base, mon, start - 1, NULL);
	srv_tree_forget(base, mon, start + 1, NULL);
	usleep(100000);
	assert_true(in_cgroup(dir, task));
	assert_int_equal(kill(task, 0), 0);

	srv_tree_forget(base, mon, start, NULL);
	assert_true(left_cgroup(dir, task));
	assert_int_equal(waitpid(mon, NULL, 0), mon);
	srv_tree_forget(base, mon, start, NULL); /* gone: nothing */
	assert_int_not_equal(access(dir, F_OK), 0);
}

/* A cgroup of a monitor before the start time was in its name
 * ("paictl-task-PID") is still found by its pid. */
static void test_forget_earlier_name(void **state)
{
	char *dir, c;
	pid_t task;
	int p[2], i;

	(void)state;
	if (!base)
		skip();
	/* a pid no process has (above any pid_max) */
	dir = srv_printf("%s/paictl-task-%ld", base, 99999999L);
	assert_non_null(dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(pipe(p), 0);
	task = fork();
	assert_true(task >= 0);
	if (task == 0) {
		struct srv_tree t;

		memset(&t, 0, sizeof(t));
		snprintf(t.dir, sizeof(t.dir), "%s", dir);
		srv_tree_enter(&t);
		if (write(p[1], "x", 1) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	close(p[1]);
	assert_true(in_cgroup(dir, task));
	srv_tree_forget(base, 99999999, 12345, NULL);
	assert_int_equal(waitpid(task, NULL, 0), task);
	for (i = 0; i < 100 && access(dir, F_OK) == 0; i++) {
		rmdir(dir);
		usleep(10000);
	}
	assert_int_not_equal(access(dir, F_OK), 0);
	free(dir);
}

/* A child of a thread other than the main one: it forks, on a pipe's
 * byte, a process that says so and waits. */
static void *thread_forks(void *arg)
{
	int *p = arg;
	pid_t c = fork();

	if (c == 0) {
		if (write(p[1], "c", 1) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	return NULL;
}

/* The tree of a monitor with no cgroup: a child, its grandchild in a
 * session of its own, and a process forked by a second thread of the
 * child are all found and killed; a zombie child is not counted, nor
 * anything once they have gone. The descendants are found from the
 * kernel's lists of children (a scan of every process of the machine
 * before), so this runs with many other processes about. */
static void test_signal_descendants(void **state)
{
	struct srv_tree t;
	pid_t child, zombie;
	char c;
	int p[2], i;

	(void)state;
	memset(&t, 0, sizeof(t)); /* no cgroup, no SIGTERM sent yet */
	assert_int_equal(pipe(p), 0);
	zombie = fork();
	assert_true(zombie >= 0);
	if (zombie == 0)
		_exit(0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pthread_t th;

		if (fork() == 0) {
			setsid();
			if (write(p[1], "g", 1) < 0)
				_exit(1);
			pause();
			_exit(0);
		}
		if (pthread_create(&th, NULL, thread_forks, p) != 0)
			_exit(1);
		pause();
		_exit(0);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	close(p[1]);
	/* the zombie is one */
	for (i = 0; i < 500 && !dead(zombie); i++)
		usleep(10000);
	assert_true(dead(zombie));

	assert_int_equal(srv_tree_signal(&t, SIGKILL), 3);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(waitpid(zombie, NULL, 0), zombie);
	for (i = 0; i < 500 && srv_tree_signal(&t, 0) > 0; i++)
		usleep(10000);
	assert_int_equal(srv_tree_signal(&t, 0), 0);
}

/* t as srv_tree_init(base, given) leaves it, run in a child: it makes
 * its caller a subreaper, which this process's other tests are not. */
static void init_in_child(struct srv_tree *t, const char *base,
			  const char *given)
{
	pid_t c;
	int p[2], st;

	assert_int_equal(pipe(p), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		memset(t, 0, sizeof(*t));
		srv_tree_init(t, base, test_proc_stat(getpid(), 22), given);
		_exit(write(p[1], t, sizeof(*t)) == sizeof(*t) ? 0 : 1);
	}
	close(p[1]);
	assert_int_equal(read(p[0], t, sizeof(*t)), sizeof(*t));
	close(p[0]);
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The server's cgroup is taken when its path fits t->dir with its NUL
 * (511 bytes); at 512 it is not: the monitor makes its own under base,
 * or has none without one. */
static void test_given_bound(void **state)
{
	char given[sizeof(((struct srv_tree *)0)->dir) + 1];
	struct srv_tree t;
	size_t n;

	(void)state;
	memset(given, 'g', sizeof(given));
	memcpy(given, "/tmp/", 5);
	given[sizeof(t.dir) - 1] = '\0';
	assert_int_equal(strlen(given), 511);
	init_in_child(&t, NULL, given);
	assert_true(t.pooled);
	assert_string_equal(t.dir, given);

	given[sizeof(t.dir) - 1] = 'g';
	given[sizeof(t.dir)] = '\0';
	assert_int_equal(strlen(given), 512);
	init_in_child(&t, NULL, given);
	assert_false(t.pooled);
	assert_string_equal(t.dir, "");
	if (!base)
		return;
	init_in_child(&t, base, given);
	assert_false(t.pooled);
	n = strlen(base);
	assert_memory_equal(t.dir, base, n);
	assert_true(strncmp(t.dir + n, "/paictl-task-", 13) == 0);
	assert_int_equal(rmdir(t.dir), 0);
}

/* The pids a list of n bytes holds, read by add_listed from a pipe:
 * head, then count pids of five digits from 10000 on, then tail. */
static size_t listed(const char *head, int count, const char *tail, size_t n)
{
	char list[CHILDREN_MAX + 64];
	size_t len, got = 0;
	int p[2], i;

	len = (size_t)snprintf(list, sizeof(list), "%s", head);
	for (i = 0; i < count; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%d ",
					10000 + i);
	len += (size_t)snprintf(list + len, sizeof(list) - len, "%s", tail);
	assert_int_equal(len, n);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], list, len), (ssize_t)len);
	close(p[1]);
	add_listed(p[0], 0, &got);
	close(p[0]);
	return got;
}

/* Whether found[0..n] holds pid. */
static bool is_found(size_t n, pid_t pid)
{
	size_t k;

	for (k = 0; k < n && found[k] != pid; k++)
		;
	return k < n;
}

/* A thread's list of children of CHILDREN_MAX bytes is read whole; one
 * byte longer, the pid the limit cuts is left out (never the part of it
 * read: another process's), unless the limit falls just after it; a
 * number longer than a pid is none. */
static void test_children_list_bounds(void **state)
{
	size_t n;

	(void)state;
	/* 3 + 682 * 6 bytes: every pid, the last one's blank the last byte */
	n = listed("12 ", 682, "", CHILDREN_MAX);
	assert_int_equal(n, 683);
	assert_true(is_found(n, 12) && is_found(n, 10681));
	/* 4 + 681 * 6 + 6: the limit falls inside 123456 */
	n = listed("123 ", 681, "123456", CHILDREN_MAX + 1);
	assert_int_equal(n, 682);
	assert_true(is_found(n, 10680));
	assert_false(is_found(n, 12345) || is_found(n, 123456));
	/* 4 + 681 * 6 + 6: the limit falls on the blank after 12345 */
	n = listed("123 ", 681, "12345 ", CHILDREN_MAX + 1);
	assert_int_equal(n, 683);
	assert_true(is_found(n, 12345));
	/* with no blank after the last pid of a list that ends: found */
	n = listed("", 0, "4194304 99999999999999999999 7", 30);
	assert_int_equal(n, 2);
	assert_true(is_found(n, 4194304) && is_found(n, 7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forget_pid_reused),
	    cmocka_unit_test(test_forget_earlier_name),
	    cmocka_unit_test(test_signal_descendants),
	    cmocka_unit_test(test_children_list_bounds),
	    cmocka_unit_test(test_given_bound),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
