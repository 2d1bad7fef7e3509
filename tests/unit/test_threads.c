/* test_threads.c - what libpai(3) says about threads holds: threads may
 * call libpai at once, each with its own handles; a parsed pai_job is
 * read-only and may be shared; the first client and the first SSH handle
 * of a process, which open libcurl and libssh2, may come from several
 * threads at once. Run also under ThreadSanitizer (make tsan-test). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4
#define ROUNDS	 20

static char *text;
static size_t text_len;

static void load_example(void)
{
	const char *top = getenv("PAI_SRCDIR");
	char path[4096];
	int sys_errno = 0;

	if (text)
		return;
	snprintf(path, sizeof(path), "%s/examples/tensorflow-distributed.json",
		 top ? top : ".");
	assert_int_equal(pai_file_read(&text, &text_len, &sys_errno, path),
			 PAI_OK);
}

static char *dump(const json_t *j)
{
	return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
}

/* Each thread parses the text with its own diags, ROUNDS times; every
 * result must equal the one the main thread got. */
struct parse_arg {
	const char *want;
	int bad;
};

static void *parse_many(void *p)
{
	struct parse_arg *a = p;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		pai_diags *d = NULL;
		pai_job *job = NULL;
		char *got;

		if (pai_diags_new(&d) != PAI_OK ||
		    pai_job_parse(&job, d, "t.json", text, text_len, NULL) !=
			PAI_OK) {
			a->bad++;
		} else {
			got = dump(pai_job_config(job));
			a->bad += !got || strcmp(got, a->want) != 0;
			free(got);
		}
		pai_job_free(job);
		pai_diags_free(d);
	}
	return NULL;
}

static void test_parse_in_parallel(void **state)
{
	struct parse_arg args[NTHREADS];
	pthread_t t[NTHREADS];
	pai_diags *d = NULL;
	pai_job *job = NULL;
	char *want;
	int i;

	(void)state;
	load_example();
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "t.json", text, text_len, NULL),
			 PAI_OK);
	want = dump(pai_job_config(job));
	assert_non_null(want);
	for (i = 0; i < NTHREADS; i++) {
		args[i].want = want;
		args[i].bad = 0;
		assert_int_equal(
		    pthread_create(&t[i], NULL, parse_many, &args[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(args[i].bad, 0);
	}
	free(want);
	pai_job_free(job);
	pai_diags_free(d);
}

/* One job shared by every thread: each expands every task ROUNDS times
 * and must get the environment the main thread got. */
struct expand_arg {
	const pai_job *job;
	char **want; /* per task, in order: command and variable count */
	int bad;
};

static char *env_summary(const pai_job *job, size_t r, size_t i)
{
	pai_env *env = NULL;
	char *s = NULL;
	size_t k, n = 0, cap;

	if (pai_expand_task(&env, job, r, i, NULL) != PAI_OK)
		return NULL;
	cap = strlen(pai_env_command(env)) + 32;
	for (k = 0; k < pai_env_count(env); k++)
		cap += strlen(pai_env_name(env, k)) +
		       strlen(pai_env_value(env, k)) + 2;
	s = malloc(cap);
	if (s) {
		n += (size_t)snprintf(s, cap, "%s\n", pai_env_command(env));
		for (k = 0; k < pai_env_count(env); k++)
			n += (size_t)snprintf(s + n, cap - n, "%s=%s\n",
					      pai_env_name(env, k),
					      pai_env_value(env, k));
	}
	pai_env_free(env);
	return s;
}

static void *expand_many(void *p)
{
	struct expand_arg *a = p;
	size_t r, i, k;
	int round;

	for (round = 0; round < ROUNDS; round++) {
		k = 0;
		for (r = 0; r < pai_job_role_count(a->job); r++) {
			pai_role ro;

			if (pai_job_role(&ro, a->job, r) != PAI_OK) {
				a->bad++;
				continue;
			}
			for (i = 0; i < (size_t)ro.task_number; i++, k++) {
				char *got = env_summary(a->job, r, i);

				a->bad += !got || strcmp(got, a->want[k]) != 0;
				free(got);
			}
		}
	}
	return NULL;
}

static void test_shared_job(void **state)
{
	struct expand_arg args[NTHREADS];
	pthread_t t[NTHREADS];
	pai_diags *d = NULL;
	pai_job *job = NULL;
	char *want[64];
	size_t r, i, k = 0;
	int n;

	(void)state;
	load_example();
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "t.json", text, text_len, NULL),
			 PAI_OK);
	for (r = 0; r < pai_job_role_count(job); r++) {
		pai_role ro;

		assert_int_equal(pai_job_role(&ro, job, r), PAI_OK);
		for (i = 0; i < (size_t)ro.task_number; i++) {
			assert_true(k < 64);
			want[k] = env_summary(job, r, i);
			assert_non_null(want[k]);
			k++;
		}
	}
	assert_true(k >= 2); /* several roles and tasks to tell apart */
	for (n = 0; n < NTHREADS; n++) {
		args[n].job = job;
		args[n].want = want;
		args[n].bad = 0;
		assert_int_equal(
		    pthread_create(&t[n], NULL, expand_many, &args[n]), 0);
	}
	for (n = 0; n < NTHREADS; n++) {
		assert_int_equal(pthread_join(t[n], NULL), 0);
		assert_int_equal(args[n].bad, 0);
	}
	while (k)
		free(want[--k]);
	pai_job_free(job);
	pai_diags_free(d);
}

/* The first clients and SSH handles of the process, from every thread at
 * once: libcurl and libssh2 are opened once, and each thread's client
 * works (here: finds nobody at the socket). */
static pthread_barrier_t start;

static void *first_handles(void *p)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_ssh_options so = PAI_SSH_OPTIONS_INIT;
	pai_client *c = NULL;
	pai_job_info *info = NULL;
	pai_ssh *s = NULL;
	int *bad = p, err;

	o.uri = "http://localhost";
	o.unix_socket = "/nonexistent/paictl-test.sock";
	o.max_retries = 0;
	so.host = "127.0.0.1";
	so.user = "u";
	so.key_file = "/nonexistent/key";
	so.known_hosts = "/nonexistent/known_hosts";
	pthread_barrier_wait(&start);
	err = pai_client_new(&c, &o);
	if (err == PAI_OK)
		err = pai_job_get(&info, c, "u", "j");
	*bad += err != PAI_EUNREACHABLE;
	*bad += pai_ssh_new(&s, &so) != PAI_OK;
	pai_ssh_free(s);
	pai_job_info_free(info);
	pai_client_free(c);
	return NULL;
}

static void test_first_handles(void **state)
{
	pthread_t t[NTHREADS];
	int bad[NTHREADS] = {0}, i;

	(void)state;
	assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(
		    pthread_create(&t[i], NULL, first_handles, &bad[i]), 0);
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(bad[i], 0);
	}
	pthread_barrier_destroy(&start);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    /* first, while libcurl and libssh2 are not open yet */
	    cmocka_unit_test(test_first_handles),
	    cmocka_unit_test(test_parse_in_parallel),
	    cmocka_unit_test(test_shared_job),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	free(text);
	return rc;
}
