/* test_slurm_shapes.c - the versions paictl speaks to slurmrestd and
 * the readers of their shapes (lib/client/api/slurm/slurm_shapes.c), on
 * what real Slurm 22.05, 24.11 and 26.05 answered (the fuzz target's
 * seeds, tests/fuzz/seeds/slurm_shapes/: one byte for the reader, then
 * the answer as reference/slurm-next/answers/ has it). tests/slurm/ runs
 * the same against the real servers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "client/api/slurm/slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A seed's answer (after its first byte), parsed. */
static json_t *answer(const char *name)
{
	const char *top = getenv("PAI_SRCDIR");
	char path[1024];
	json_error_t e;
	json_t *o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fuzz/seeds/slurm_shapes/%s",
		 top ? top : ".", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_true(fgetc(f) != EOF);
	o = json_loadf(f, 0, &e);
	fclose(f);
	assert_non_null(o);
	return o;
}

static void test_versions(void **state)
{
	const struct pai__slurm_version *v, *prev = NULL;
	size_t i;

	(void)state;
	assert_string_equal(pai__slurm_version_at(0)->name, "v0.0.45");
	for (i = 0; (v = pai__slurm_version_at(i)); i++) {
		long n = pai__slurm_version_number(v->name);

		if (prev)
			assert_true(n < pai__slurm_version_number(prev->name));
		/* data_parser's versions (23.02 on) take a list and have
		 * accounting; 22.05's an object */
		assert_int_equal(!!(v->shapes & PAI__SLURM_ENV_LIST), n >= 39);
		assert_int_equal(!!(v->shapes & PAI__SLURM_DBD), n >= 39);
		prev = v;
	}
	assert_string_equal(prev->name, "v0.0.36");
	assert_int_equal(pai__slurm_version_number("v0.0.46"), 46);
	assert_int_equal(pai__slurm_version_number("v0.0.x"), -1);
	assert_int_equal(pai__slurm_version_number("dbv0.0.42"), -1);
	assert_int_equal(pai__slurm_version_number("v0.0.42x"), -1);
}

/* The one job of a seed, read: its state, exit status and end. */
static void one_job(const char *seed, const char *want_state, int want_exit,
		    int ended)
{
	json_t *o = answer(seed), *jobs = NULL, *j;
	long long n = 0;

	assert_int_equal(pai__slurm_jobs_read(o, &jobs), PAI_OK);
	j = json_array_get(jobs, 0);
	assert_string_equal(json_string_value(json_object_get(j, "job_state")),
			    want_state);
	assert_int_equal(pai__slurm_exit(json_object_get(j, "exit_code")),
			 want_exit);
	assert_true(pai__json_integer(json_object_get(j, "submit_time"), &n));
	assert_true(n > 1700000000);
	assert_int_equal(pai__json_integer(json_object_get(j, "het_job_offset"),
					   &n),
			 1);
	assert_int_equal(n, 0);
	/* no limit asked: either "infinite" (null) or 365 days */
	assert_true(json_is_null(json_object_get(j, "time_limit")) ||
		    json_integer_value(json_object_get(j, "time_limit")) ==
			525600);
	if (ended)
		assert_true(json_is_integer(json_object_get(j, "end_time")));
	assert_true(json_is_string(json_object_get(j, "comment")));
	json_decref(o);
}

static void test_jobs_each_version(void **state)
{
	static const char *const rel[] = {"24.11.5-v0.0.42", "26.05.5-v0.0.43",
					  "26.05.5-v0.0.44", "26.05.5-v0.0.45"};
	char s[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(s, sizeof(s), "%s-job_running", rel[i]);
		one_job(s, "RUNNING", 0, 0); /* no exit yet: SUCCESS, 0 */
		snprintf(s, sizeof(s), "%s-job_completed", rel[i]);
		one_job(s, "COMPLETED", 0, 1);
		snprintf(s, sizeof(s), "%s-job_failed", rel[i]);
		one_job(s, "FAILED", 3, 1);
		/* cancelled: SIGNALED, TERM */
		snprintf(s, sizeof(s), "%s-job_cancelled", rel[i]);
		one_job(s, "CANCELLED", 128 + 15, 1);
	}
}

static void test_jobs_22_05(void **state)
{
	json_t *o = answer("22.05.3-v0.0.38-job_failed"), *jobs = NULL, *j;

	(void)state;
	assert_int_equal(pai__slurm_jobs_read(o, &jobs), PAI_OK);
	j = json_array_get(jobs, 0);
	assert_string_equal(json_string_value(json_object_get(j, "job_state")),
			    "FAILED");
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")),
			 768);
	json_decref(o);
	o = json_pack("{s:i}", "jobs", 3);
	assert_int_equal(pai__slurm_jobs_read(o, &jobs), PAI_EPROTOCOL);
	json_decref(o);
	o = json_pack("{s:[i]}", "jobs", 3);
	assert_int_equal(pai__slurm_jobs_read(o, &jobs), PAI_EPROTOCOL);
	json_decref(o);
}

static void test_numbers_and_exits(void **state)
{
	json_t *v;
	long long n = 0;

	(void)state;
	v = json_pack("{s:b,s:b,s:I}", "set", 1, "infinite", 0, "number",
		      (json_int_t)42);
	assert_int_equal(pai__slurm_number(v, &n), 1);
	assert_int_equal(n, 42);
	json_decref(v);
	v = json_pack("{s:b,s:b,s:i}", "set", 0, "infinite", 1, "number", 0);
	assert_int_equal(pai__slurm_number(v, &n), 0);
	json_decref(v);
	v = json_pack("{s:b,s:b,s:i}", "set", 1, "infinite", 1, "number", 7);
	assert_int_equal(pai__slurm_number(v, &n), 0);
	json_decref(v);
	/* a return code out of a byte, a signal out of range: none */
	v = json_pack("{s:{s:b,s:i},s:{s:{s:b,s:i}}}", "return_code", "set", 1,
		      "number", 300, "signal", "id", "set", 1, "number", 200);
	assert_int_equal(pai__slurm_wait_status(v), -1);
	json_decref(v);
	v = json_pack("{s:{s:b,s:i},s:{s:{s:b,s:i}}}", "return_code", "set", 1,
		      "number", 2, "signal", "id", "set", 1, "number", 9);
	assert_int_equal(pai__slurm_wait_status(v), 9);
	json_decref(v);
	v = json_integer(512);
	assert_int_equal(pai__slurm_wait_status(v), 512);
	json_decref(v);
}

static void test_accounting(void **state)
{
	static const struct {
		const char *seed, *state;
		int exit;
	} cases[] = {{"24.11.5-v0.0.42-slurmdb_job", "COMPLETED", 0},
		     {"24.11.5-v0.0.42-slurmdb_job_failed", "FAILED", 3},
		     {"26.05.5-v0.0.43-slurmdb_job", "COMPLETED", 0},
		     {"26.05.5-v0.0.44-slurmdb_job", "COMPLETED", 0},
		     {"26.05.5-v0.0.45-slurmdb_job", "COMPLETED", 0},
		     {"26.05.5-v0.0.45-slurmdb_job_failed", "FAILED", 3}};
	json_t *o, *jobs, *j;
	long long n;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = answer(cases[i].seed);
		jobs = NULL;
		assert_int_equal(pai__slurm_acct_jobs_read(o, &jobs), PAI_OK);
		j = json_array_get(jobs, 0);
		assert_non_null(j);
		assert_string_equal(
		    json_string_value(json_object_get(j, "job_state")),
		    cases[i].state);
		assert_int_equal(pai__slurm_exit(json_object_get(j,
								 "exit_code")),
				 cases[i].exit);
		assert_string_equal(
		    json_string_value(json_object_get(j, "user_name")), "root");
		assert_true(pai__json_integer(json_object_get(j, "end_time"),
					      &n) &&
			    n > 1700000000);
		assert_int_equal(
		    json_integer_value(json_object_get(j, "het_job_offset")),
		    0);
		assert_true(json_is_true(json_object_get(j, "accounting")));
		json_decref(jobs);
		json_decref(o);
	}
	/* a comment of accounting's shape in a job: its job's words */
	o = json_pack("{s:[{s:i,s:{s:s}}]}", "jobs", "job_id", 1, "comment",
		      "administrator", "x");
	assert_int_equal(pai__slurm_jobs_read(o, &jobs), PAI_OK);
	assert_true(json_is_null(
	    json_object_get(json_array_get(jobs, 0), "comment")));
	json_decref(o);
	/* sacct --json: the same shape, several jobs */
	o = answer("24.11.5-v0.0.42-sacct");
	assert_int_equal(pai__slurm_acct_jobs_read(o, &jobs), PAI_OK);
	assert_true(json_array_size(jobs) >= 3);
	json_decref(jobs);
	json_decref(o);
}

static void test_body(void **state)
{
	json_t *o = answer("body-het"), *b = json_deep_copy(o), *env;

	(void)state;
	/* 22.05: as it is */
	assert_int_equal(pai__slurm_body_write(b, pai__slurm_version_at(7)),
			 PAI_OK);
	assert_string_equal(pai__slurm_version_at(7)->name, "v0.0.38");
	assert_true(json_equal(o, b));
	/* 23.02 on: lists of K=V in every component */
	assert_int_equal(pai__slurm_body_write(b, pai__slurm_version_at(0)),
			 PAI_OK);
	env = json_object_get(json_array_get(json_object_get(b, "jobs"), 0),
			      "environment");
	assert_int_equal(json_array_size(env), 2);
	assert_true((!strcmp(json_string_value(json_array_get(env, 0)),
			     "PATH=/bin") &&
		     !strcmp(json_string_value(json_array_get(env, 1)),
			     "A=b=c")) ||
		    (!strcmp(json_string_value(json_array_get(env, 0)),
			     "A=b=c") &&
		     !strcmp(json_string_value(json_array_get(env, 1)),
			     "PATH=/bin")));
	env = json_object_get(json_array_get(json_object_get(b, "jobs"), 1),
			      "environment");
	assert_string_equal(json_string_value(json_array_get(env, 0)), "X=1");
	json_decref(b);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_versions),
	    cmocka_unit_test(test_jobs_each_version),
	    cmocka_unit_test(test_jobs_22_05),
	    cmocka_unit_test(test_numbers_and_exits),
	    cmocka_unit_test(test_accounting),
	    cmocka_unit_test(test_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
