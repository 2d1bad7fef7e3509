/* test_run_status.c - what the server reads of a monitor's `status`
 * (server/run_status.c): line 1 with and without the cgroup the server
 * gave, that name's bound on both sides, and what is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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

/* "1 2 3 paictl-task-" and digits up to len bytes of name, then "\n" */
static int with_name_of(size_t len, struct run_status *st)
{
	char text[256] = "1 2 3 paictl-task-";
	size_t n = strlen(text);

	while (n - 6 < len)
		text[n++] = '7';
	text[n++] = '\n';
	text[n] = '\0';
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
