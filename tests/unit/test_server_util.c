/* test_server_util.c - the local cluster's small helpers (server/util.c):
 * which of the server's variables a task inherits, in its process and in
 * its ssh sessions alike (srv_env_inherits): those its own variables
 * leave, whatever the length of their names (a copy of the name into
 * 256 bytes once left out the longer ones; both sides of that size). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The unit itself, internal to server/: compiled in here. */
#include "../../server/util.c"

/* The variables of the one task of a job whose jobEnvs sets LANG and
 * the names 'A' * 255 and 'A' * 256. */
static pai_env *task_env(void)
{
	char text[1024], a255[256], a256[257];
	pai_job *job = NULL;
	pai_env *env = NULL;

	memset(a255, 'A', 255);
	a255[255] = '\0';
	memset(a256, 'A', 256);
	a256[256] = '\0';
	snprintf(text, sizeof(text),
		 "{\"jobName\":\"j\",\"image\":\"debian\",\"taskRoles\":"
		 "[{\"name\":\"main\",\"taskNumber\":1,\"cpuNumber\":1,"
		 "\"memoryMB\":100,\"gpuNumber\":0,\"command\":\"true\"}],"
		 "\"jobEnvs\":{\"LANG\":\"C\",\"%s\":\"x\",\"%s\":\"y\"}}",
		 a255, a256);
	assert_int_equal(
	    pai_job_parse(&job, NULL, "t.json", text, strlen(text), NULL),
	    PAI_OK);
	assert_int_equal(pai_expand_task(&env, job, 0, 0, NULL), PAI_OK);
	pai_job_free(job);
	return env;
}

/* "NAME=value" for a name of len times c. */
static char *entry(char c, size_t len)
{
	char *e = malloc(len + 7);

	assert_non_null(e);
	memset(e, c, len);
	memcpy(e + len, "=value", 7);
	return e;
}

/* A name the task sets is its own, one it does not set is the
 * server's: at 255 and 256 bytes as at 4; a name that only begins
 * another, or that another begins, is another. */
static void test_env_inherits(void **state)
{
	pai_env *env = task_env();
	size_t len;

	(void)state;
	assert_string_equal(pai_env_get(env, "LANG"), "C");
	assert_false(srv_env_inherits(env, "LANG=C.UTF-8"));
	assert_true(srv_env_inherits(env, "PATH=/usr/bin:/bin"));
	assert_true(srv_env_inherits(env, "LAN=x"));
	assert_true(srv_env_inherits(env, "LANGUAGE=x"));
	for (len = 255; len <= 256; len++) {
		char *own = entry('A', len), *other = entry('B', len);

		assert_false(srv_env_inherits(env, own));
		assert_true(srv_env_inherits(env, other));
		free(own);
		free(other);
	}
	/* 'A' * 254 and * 257: prefixes of the task's, and the other way */
	for (len = 254; len <= 257; len += 3) {
		char *e = entry('A', len);

		assert_true(srv_env_inherits(env, e));
		free(e);
	}
	/* no variable at all: nothing to inherit */
	assert_false(srv_env_inherits(env, "LANG"));
	assert_true(srv_env_inherits(NULL, "LANG=C"));
	pai_env_free(env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_env_inherits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
