/* test_run_status.c - what the server reads of a monitor's `status`
 * (server/run_status.c): line 1 with and without the cgroup the server
 * gave, that name's bound on both sides, and what is refused; and line
 * 1 as the monitor writes it, held to the same bound and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../server/run_status.c"
#include "../../server/util.c"

/* jobs.c's, which only srv_task_preparing calls: not under test */
char *srv_task_dir(const struct srv_job *j, const struct srv_task *t)
{
	(void)j;
	(void)t;
	return NULL;
}

static char dir[] = "/tmp/paictl-status-XXXXXX";

/* status holding text, read back: what run_read_status got */
static int read_back(const char *text, struct run_status *st)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return run_read_status(dir, st);
}

/* A cgroup name of len bytes (12 <= len < cap, name's size):
 * "paictl-task-", then 7s */
static void name_of(char *name, size_t cap, size_t len)
{
	assert_true(len >= 12 && len < cap);
	memset(name, '7', len);
	memcpy(name, "paictl-task-", 12);
	name[len] = '\0';
}

/* "1 2 3 " and a name of len bytes (name_of), then "\n" */
static int with_name_of(size_t len, struct run_status *st)
{
	char name[128], text[256];

	name_of(name, sizeof(name), len);
	snprintf(text, sizeof(text), "1 2 3 %s\n", name);
	return read_back(text, st);
}

static void test_line1(void **state)
{
	struct run_status st;

	(void)state;
	assert_int_equal(read_back("10 20 30\n0 0\n", &st),
			 STATUS_PID | STATUS_EXIT);
	assert_int_equal(st.pg, 10);
	assert_int_equal(st.mon, 20);
	assert_int_equal(st.start, 30);
	assert_string_equal(st.cgroup, "");
	assert_int_equal(read_back("10 20 30 paictl-task-1-2-3\n", &st),
			 STATUS_PID);
	assert_string_equal(st.cgroup, "paictl-task-1-2-3");
}

static void test_name_bound(void **state)
{
	struct run_status st;

	(void)state;
	/* 79 bytes fit st.cgroup[80] with its NUL; 80 do not */
	assert_int_equal(with_name_of(79, &st), STATUS_PID);
	assert_int_equal(strlen(st.cgroup), 79);
	assert_int_equal(with_name_of(80, &st), 0);
	assert_string_equal(st.cgroup, "");
}

/* Line 1 as the monitor writes it (run_status_line1), NUL-terminated
 * into text: its length */
static size_t written(char *text, long pid, long mon, unsigned long long start,
		      const char *cgroup)
{
	size_t n = run_status_line1(text, RUN_STATUS_LINE1_MAX, pid, mon, start,
				    cgroup);

	assert_true(n > 0 && n <= RUN_STATUS_LINE1_MAX);
	text[n] = '\0';
	return n;
}

/* The writer holds the name to the reader's bound: 79 bytes written and
 * read back; 80, or none, left out, the line still read */
static void test_line1_written(void **state)
{
	char text[RUN_STATUS_LINE1_MAX + 1], name[81], want[128];
	struct run_status st;

	(void)state;
	name_of(name, sizeof(name), 79);
	written(text, 10, 20, 30, name);
	snprintf(want, sizeof(want), "10 20 30 %s\n", name);
	assert_string_equal(text, want);
	assert_int_equal(read_back(text, &st), STATUS_PID);
	assert_int_equal(st.pg, 10);
	assert_int_equal(st.mon, 20);
	assert_int_equal(st.start, 30);
	assert_string_equal(st.cgroup, name);

	name_of(name, sizeof(name), 80);
	assert_int_equal(written(text, 10, 20, 30, name), 9);
	assert_string_equal(text, "10 20 30\n");
	assert_int_equal(read_back(text, &st), STATUS_PID);
	assert_string_equal(st.cgroup, "");

	written(text, 10, 20, 30, NULL);
	assert_string_equal(text, "10 20 30\n");
	written(text, 10, 20, 30, "");
	assert_string_equal(text, "10 20 30\n");
	assert_int_equal(read_back(text, &st), STATUS_PID);
	assert_int_equal(st.mon, 20);
	assert_string_equal(st.cgroup, "");
}

/* The longest line (20-byte numbers, a 79-byte name) is exactly
 * RUN_STATUS_LINE1_MAX and read back; a byte less room writes none */
static void test_line1_longest(void **state)
{
	char text[RUN_STATUS_LINE1_MAX + 1], name[80], want[256], cut[256];
	struct run_status st;

	(void)state;
	name_of(name, sizeof(name), 79);
	assert_int_equal(written(text, LONG_MIN, LONG_MIN, ULLONG_MAX, name),
			 RUN_STATUS_LINE1_MAX);
	snprintf(want, sizeof(want), "%ld %ld %llu %s\n", LONG_MIN, LONG_MIN,
		 ULLONG_MAX, name);
	assert_string_equal(text, want);
	assert_int_equal(read_back(text, &st), STATUS_PID);
	assert_true(st.pg == LONG_MIN && st.mon == LONG_MIN);
	assert_true(st.start == ULLONG_MAX);
	assert_string_equal(st.cgroup, name);

	written(text, LONG_MAX, LONG_MAX, ULLONG_MAX, name);
	snprintf(want, sizeof(want), "%ld %ld %llu %s\n", LONG_MAX, LONG_MAX,
		 ULLONG_MAX, name);
	assert_string_equal(text, want);

	memset(cut, 'x', sizeof(cut));
	assert_int_equal(run_status_line1(cut, RUN_STATUS_LINE1_MAX - 1,
					  LONG_MIN, LONG_MIN, ULLONG_MAX, name),
			 0);
	assert_int_equal(cut[0], 'x');
	assert_int_equal(run_status_line1(cut, 8, 10, 20, 30, NULL), 0);
	assert_int_equal(run_status_line1(cut, 9, 10, 20, 30, NULL), 9);
	assert_memory_equal(cut, "10 20 30\n", 9);
}

/* Line 2 as the monitor writes it (run_status_line2): read back after
 * line 1; the longest (INT_MIN twice) exactly RUN_STATUS_LINE2_MAX, and
 * a byte less room writes none */
static void test_line2_written(void **state)
{
	char text[RUN_STATUS_LINE1_MAX + RUN_STATUS_LINE2_MAX + 1] =
	    "10 20 30\n";
	char want[64], cut[64];
	struct run_status st;
	size_t n = strlen(text);

	(void)state;
	text[n + run_status_line2(text + n, RUN_STATUS_LINE2_MAX, -1, 0)] =
	    '\0';
	assert_string_equal(text + n, "-1 0\n");
	assert_int_equal(read_back(text, &st), STATUS_PID | STATUS_EXIT);
	assert_int_equal(st.code, -1);
	text[n + run_status_line2(text + n, RUN_STATUS_LINE2_MAX, 137, 9)] =
	    '\0';
	assert_int_equal(read_back(text, &st), STATUS_PID | STATUS_EXIT);
	assert_int_equal(st.code, 137);

	assert_int_equal(run_status_line2(text + n, RUN_STATUS_LINE2_MAX,
					  INT_MIN, INT_MIN),
			 RUN_STATUS_LINE2_MAX);
	text[n + RUN_STATUS_LINE2_MAX] = '\0';
	snprintf(want, sizeof(want), "%d %d\n", INT_MIN, INT_MIN);
	assert_string_equal(text + n, want);
	assert_int_equal(read_back(text, &st), STATUS_PID | STATUS_EXIT);
	assert_int_equal(st.code, INT_MIN);
	memset(cut, 'x', sizeof(cut));
	assert_int_equal(run_status_line2(cut, RUN_STATUS_LINE2_MAX - 1,
					  INT_MIN, INT_MIN),
			 0);
	assert_int_equal(cut[0], 'x');
}

static void test_refused(void **state)
{
	static const char *bad[] = {
	    "1 2 3 ../x\n",	       "1 2 3 paictl-task-\n",
	    "1 2 3 paictl-task-1/..\n", "1 2 3 other-1\n",
	    "1 2 3 paictl-task-1 x\n",  "1 2 3 paictl-task-1",
	};
	struct run_status st;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(read_back(bad[i], &st) & STATUS_PID, 0);
		assert_string_equal(st.cgroup, "");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_line1),
	    cmocka_unit_test(test_name_bound),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_line1_written),
	    cmocka_unit_test(test_line1_longest),
	    cmocka_unit_test(test_line2_written),
	};
	int r;

	if (!mkdtemp(dir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	{
		char path[64];

		snprintf(path, sizeof(path), "%s/status", dir);
		unlink(path);
		rmdir(dir);
	}
	return r;
}
