/* test_slurm.c - the Slurm backend's parts that need no cluster: a
 * task's environment (pai_slurm_expand_task() and the batch job's body),
 * the profile's settings, the client's arguments, what paictl reads of
 * Slurm's jobs (comments, states, exit codes) and the token's header in
 * a trace; every allocation failure of the body. tests/slurm/ runs all
 * of it against a real Slurm. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "alloc_fail.h"
#include "client/api/slurm/slurm_api.h"
#include "client/trace.h"
#include "convert/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char two_roles[] =
    "{\"jobName\": \"two\", \"image\": \"debian\",\n"
    " \"jobEnvs\": {\"LR\": \"0.1 $x 'q'\"},\n"
    " \"taskRoles\": [\n"
    "  {\"name\": \"ps\", \"taskNumber\": 2, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0, \"command\": \"echo ps\"},\n"
    "  {\"name\": \"worker\", \"taskNumber\": 1, \"cpuNumber\": 2,\n"
    "   \"memoryMB\": 1024, \"gpuNumber\": 1, \"command\": \"train\"}]}\n";

static pai_job *parse(const char *text)
{
	pai_diags *d = NULL;
	pai_job *job = NULL;

	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "job.json", text, strlen(text),
				       NULL),
			 PAI_OK);
	pai_diags_free(d);
	return job;
}

static void test_expand_target(void **state)
{
	pai_job *job = parse(two_roles);
	pai_env *env = NULL;

	(void)state;
	assert_int_equal(
	    pai_slurm_expand_task(&env, job, 1, 0, "alice", "/scratch/w"),
	    PAI_OK);
	assert_string_equal(pai_env_get(env, "PAI_WORK_DIR"),
			    "/scratch/w/two/<submission>/worker-0");
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_HOST_IP"),
			    "<ip:worker-0>");
	assert_string_equal(pai_env_get(env, "PAI_USER_NAME"), "alice");
	assert_string_equal(pai_env_get(env, "LR"), "0.1 $x 'q'");
	/* no HDFS on Slurm */
	assert_null(pai_env_get(env, "PAI_DEFAULT_FS_URI"));
	pai_env_free(env);
	assert_int_equal(pai_slurm_expand_task(&env, job, 1, 1, NULL, NULL),
			 PAI_EINVAL);
	assert_null(env);
	assert_int_equal(pai_slurm_expand_task(&env, NULL, 0, 0, NULL, NULL),
			 PAI_EINVAL);
	pai_job_free(job);
}

/* The body of job with the options every test here gives. */
/* The body of job submitted as user. */
static int body_as(json_t **out, pai_diags *d, const pai_job *job,
		   const char *user)
{
	struct pai__slurm_submit o;

	memset(&o, 0, sizeof(o));
	o.user = user;
	o.name = "two";
	o.subid = "20261128-000000-abcdef";
	o.workdir = "/scratch/w";
	o.jobdir = "/scratch/w/two/20261128-000000-abcdef";
	o.comment = "paictl:1 sub=x";
	o.roles = "ps*2,worker*1";
	o.port_base = 20000;
	o.mark = "\x01" "abcd";
	o.source = "job.json";
	return pai__slurm_job_body(out, d, job, &o);
}

static int body(json_t **out, pai_diags *d, const pai_job *job)
{
	return body_as(out, d, job, "alice");
}

static void test_body(void **state)
{
	pai_job *job = parse(two_roles);
	pai_diags *d = NULL;
	json_t *b = NULL, *jobs, *env;
	const char *script;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(body(&b, d, job), PAI_OK);
	/* the roles differ: a heterogeneous job, one component per role */
	jobs = json_object_get(b, "jobs");
	assert_int_equal(json_array_size(jobs), 2);
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(jobs, 1), "cpus_per_task")),
			 2);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(jobs, 1), "gpus_per_task")),
			    "1");
	env = json_object_get(json_array_get(jobs, 0), "environment");
	assert_string_equal(json_string_value(json_object_get(
				env, "SLURM_NTASKS_HET_GROUP_1")),
			    "1");
	script = json_string_value(json_object_get(b, "script"));
	/* the marks as the batch script's addresses; the values quoted */
	assert_non_null(strstr(script, "export PAI_TASK_ROLE_ps_HOST_LIST="
				       "\"${H[0]}\":20000,\"${H[1]}\":20002\n"));
	assert_non_null(strstr(script, "export LR='0.1 $x '\\''q'\\'''\n"));
	assert_non_null(strstr(script, "--het-group=0,1"));
	assert_null(strchr(script, '\x01'));
	json_decref(b);
	pai_diags_free(d);
	pai_job_free(job);
}

static void test_body_refused(void **state)
{
	static const char bad[] =
	    "{\"jobName\": \"j\", \"image\": \"x\", \"jobEnvs\": {\"a-b\": 1},"
	    " \"taskRoles\": [{\"name\": \"a\", \"taskNumber\": 1, "
	    "\"cpuNumber\": 1, \"memoryMB\": 100, \"gpuNumber\": 0, "
	    "\"command\": \"true\"}]}";
	pai_job *job = parse(bad);
	pai_diags *d = NULL;
	json_t *b = NULL;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(body(&b, d, job), PAI_EINVALID);
	assert_null(b);
	assert_string_equal(pai_diags_get(d, 0)->rule, "slurm-env-name");
	assert_string_equal(pai_diags_get(d, 0)->file, "job.json");
	pai_diags_free(d);
	pai_job_free(job);
}

/* A value that is not UTF-8 (here the user name, PAI_USER_NAME's value
 * in every task) cannot go to slurmrestd as JSON: said as what it is,
 * not as out of memory. */
static void test_body_not_utf8(void **state)
{
	pai_job *job = parse(two_roles);
	pai_diags *d = NULL;
	json_t *b = NULL;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(body_as(&b, d, job, "al\xffice"), PAI_EINVALID);
	assert_null(b);
	assert_string_equal(pai_diags_get(d, 0)->rule, "slurm-utf8");
	assert_string_equal(pai_diags_get(d, 0)->message,
			    "the user name is not UTF-8: a Slurm job is sent "
			    "as JSON, which cannot carry it");
	pai_diags_free(d);
	pai_job_free(job);
}

static void test_body_out_of_memory(void **state)
{
	pai_job *job = parse(two_roles);
	pai_diags *d = NULL;
	json_t *b, *want = NULL;
	long n;
	int err, failed;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(body(&want, d, job), PAI_OK);
	for (n = 0;; n++) {
		b = NULL;
		alloc_fail_begin(n, 1);
		err = body(&b, d, job);
		failed = alloc_fail_end();
		if (err == PAI_OK)
			assert_true(json_equal(b, want));
		else if (err != PAI_ENOMEM || b)
			fail_msg("allocation %ld: error %d", n, err);
		json_decref(b);
		if (!failed)
			break;
	}
	json_decref(want);
	pai_diags_free(d);
	pai_job_free(job);
}

/* A profile's name is at most 64 bytes: what ssh-config's login block
 * ("paictl-NAME-login", 77 bytes at most) and every other alias made of
 * it count on. */
static void test_profile_name_limit(void **state)
{
	char name[66];
	pai_profile p = {name, "ssh://bob@login.test", "bob",
			 PAI_DIALECT_OPENPAI, NULL, 0, PAI_API_SLURM};
	pai_config *cfg = NULL;

	(void)state;
	memset(name, 'a', 64);
	name[64] = '\0';
	assert_int_equal(pai_config_load(&cfg, NULL, "/nonexistent/config"),
			 PAI_OK);
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	name[64] = 'a';
	name[65] = '\0';
	assert_int_equal(pai_config_set(cfg, &p), PAI_EINVAL);
	pai_config_free(cfg);
}

static void test_profiles(void **state)
{
	char dir[] = "/tmp/paictl-test-slurm-XXXXXX", path[256];
	pai_profile p = {"hpc", "https://slurm.test:6820", "bob",
			 PAI_DIALECT_OPENPAI, NULL, 0, PAI_API_SLURM};
	pai_slurm_cluster s = PAI_SLURM_CLUSTER_INIT, got;
	pai_config *cfg = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/config.json", dir);
	assert_int_equal(pai_config_load(&cfg, NULL, path), PAI_OK);
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	s.workdir = "relative";
	assert_int_equal(pai_config_set_slurm(cfg, "hpc", &s), PAI_EINVAL);
	s.workdir = "/scratch/bob";
	s.partition = "gpu,cpu";
	assert_int_equal(pai_config_set_slurm(cfg, "hpc", &s), PAI_EINVAL);
	s.partition = "gpu";
	s.ssh_port = 2222;
	s.pyxis = 1;
	assert_int_equal(pai_config_set_slurm(cfg, "hpc", &s), PAI_OK);
	assert_int_equal(pai_config_save(cfg, path), PAI_OK);
	pai_config_free(cfg);
	assert_int_equal(pai_config_load(&cfg, NULL, path), PAI_OK);
	assert_int_equal(pai_config_slurm(&got, cfg, "hpc"), PAI_OK);
	assert_string_equal(got.workdir, "/scratch/bob");
	assert_string_equal(got.partition, "gpu");
	assert_int_equal(got.ssh_port, 2222);
	assert_true(got.pyxis && !got.vc_partition && !got.token_file);
	assert_int_equal(pai_config_find(cfg, "hpc")->api, PAI_API_SLURM);
	assert_int_equal(pai_config_slurm(&got, cfg, "nope"), PAI_ENOTFOUND);
	pai_config_free(cfg);
	unlink(path);
	rmdir(dir);
}

static void test_client_args(void **state)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_slurm_cluster s = PAI_SLURM_CLUSTER_INIT;
	pai_client *c = NULL;
	char *detail = NULL;

	(void)state;
	o.uri = "http://slurm.test:6820";
	assert_int_equal(pai_client_new_slurm(&c, &detail, &o, &s),
			 PAI_EINVAL);
	assert_non_null(detail);
	free(detail);
	s.user = "alice";
	assert_int_equal(pai_client_new_slurm(&c, NULL, &o, &s), PAI_OK);
	assert_int_equal(pai_client_api(c), PAI_API_SLURM);
	assert_int_equal(pai_client_poll_ms(c), 1800);
	assert_int_equal(pai_client_set_api(c, PAI_API_V1), PAI_EINVAL);
	pai_client_free(c);
	o.uri = "ftp://slurm.test";
	assert_int_equal(pai_client_new_slurm(&c, NULL, &o, &s), PAI_EINVAL);
	assert_null(c);
}

static void test_jobs(void **state)
{
	json_t *j = json_pack(
	    "{s:s,s:i}", "comment",
	    "paictl:1 sub=20261128-1 ports=20000-20006 roles=ps*2,worker*1",
	    "exit_code", 9 << 8);
	json_t *comps = json_pack("[{s:s},{s:s,s:s}]", "job_state", "COMPLETED",
				  "job_state", "PENDING", "state_reason",
				  "Resources");
	struct pai__slurm_note n;
	const char *why;

	(void)state;
	assert_int_equal(pai__slurm_note(&n, j), 1);
	assert_string_equal(n.sub, "20261128-1");
	assert_string_equal(n.roles, "ps*2,worker*1");
	assert_true(n.lo == 20000 && n.hi == 20006);
	assert_int_equal(pai__slurm_exit(json_object_get(j, "exit_code")), 9);
	json_object_set_new(j, "exit_code", json_integer(15));
	assert_int_equal(pai__slurm_exit(json_object_get(j, "exit_code")),
			 128 + 15);
	json_object_set_new(j, "comment", json_string("somebody's job"));
	assert_int_equal(pai__slurm_note(&n, j), 0);
	/* a component waiting makes the job wait, with its reason */
	assert_int_equal(pai__slurm_state(comps, &why), PAI_STATE_WAITING);
	assert_string_equal(why, "Resources");
	json_decref(j);
	json_decref(comps);
}

/* A task's log read on from where the last read ended, and read from
 * its start once replaced by a shorter one (a rotation). */
static void test_log_read(void **state)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_slurm_cluster s = PAI_SLURM_CLUSTER_INIT;
	char dir[] = "/tmp/paictl-test-slog-XXXXXX", path[256], url[300];
	pai_client *c = NULL;
	char *data = NULL;
	size_t len = 0;
	long long next = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/stdout", dir);
	snprintf(url, sizeof(url), "file://%s", path);
	o.uri = "http://slurm.test:6820";
	s.user = "alice";
	assert_int_equal(pai_client_new_slurm(&c, NULL, &o, &s), PAI_OK);
	f = fopen(path, "w");
	fputs("one\ntwo\n", f);
	fclose(f);
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 0), PAI_OK);
	assert_string_equal(data, "one\ntwo\n");
	free(data);
	f = fopen(path, "a");
	fputs("three\n", f);
	fclose(f);
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, next),
			 PAI_OK);
	assert_string_equal(data, "three\n");
	assert_int_equal(next, 14);
	free(data);
	f = fopen(path, "w"); /* rotated: a new, shorter file */
	fputs("four\n", f);
	fclose(f);
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, next),
			 PAI_OK);
	assert_string_equal(data, "four\n");
	assert_int_equal(next, 5);
	free(data);
	unlink(path);
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 0),
			 PAI_ENOTFOUND);
	pai_client_free(c);
	rmdir(dir);
}

/* A working directory of blanks, quotes, '%' and $(): the task's URL
 * carries it percent-encoded, and the log read through it is the file
 * there; a URL's path decoded byte for byte, a bad escape or an escaped
 * NUL refused. */
static void test_url_path(void **state)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_slurm_cluster s = PAI_SLURM_CLUSTER_INIT;
	char dir[] = "/tmp/paictl-test-surl-XXXXXX", tdir[256], path[300];
	const char *odd = "/a b'c\"d$(x)%41#?\t";
	pai_client *c = NULL;
	char *url, *p = NULL, *data = NULL;
	size_t len = 0;
	long long next = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(tdir, sizeof(tdir), "%s%s", dir, odd);
	assert_int_equal(mkdir(tdir, 0700), 0);
	snprintf(path, sizeof(path), "%s/stdout", tdir);
	f = fopen(path, "w");
	fputs("here\n", f);
	fclose(f);
	o.uri = "http://slurm.test:6820";
	s.user = "alice";
	assert_int_equal(pai_client_new_slurm(&c, NULL, &o, &s), PAI_OK);
	url = pai__slurm_task_url(c, tdir);
	assert_non_null(url);
	assert_non_null(strstr(url, "/a%20b%27c%22d%24%28x%29%2541%23%3F%09/"));
	assert_null(strpbrk(url + 7, " '\"$()#?\t"));
	snprintf(path, sizeof(path), "%sstdout", url);
	assert_int_equal(pai_log_read(&data, &len, &next, c, path, 0), PAI_OK);
	assert_string_equal(data, "here\n");
	free(data);
	free(url);
	assert_int_equal(pai__slurm_url_path(&p, "/x%2F%20y%7e%C3%A9"), PAI_OK);
	assert_string_equal(p, "/x/ y~\xc3\xa9");
	free(p);
	assert_int_equal(pai__slurm_url_path(&p, "/x%2"), PAI_EINVAL);
	assert_null(p);
	assert_int_equal(pai__slurm_url_path(&p, "/x%g0"), PAI_EINVAL);
	assert_int_equal(pai__slurm_url_path(&p, "/x%00y"), PAI_EINVAL);
	assert_int_equal(pai__slurm_url_path(&p, "%"), PAI_EINVAL);
	assert_int_equal(pai__slurm_url_path(&p, ""), PAI_OK);
	assert_string_equal(p, "");
	free(p);
	assert_int_equal(pai_log_read(&data, &len, &next, c,
				     "file:///tmp/x%0", 0),
			 PAI_EINVAL);
	pai_client_free(c);
	snprintf(path, sizeof(path), "%s/stdout", tdir);
	unlink(path);
	rmdir(tdir);
	rmdir(dir);
}

static void trace_line(void *data, const char *line)
{
	strncat(data, line, 255 - strlen(data));
}

/* A task's record (KEY=VALUE lines its batch script wrote): a line of
 * 4095 bytes is read, one of 4096 or more is left out whole (it was read
 * cut short before: its first 4095 bytes as the value), and a file longer
 * than a record (64 KiB) is none. */
static void test_record_lines(void **state)
{
	char dir[] = "/tmp/paictl-test-srec-XXXXXX", path[256];
	json_t *o;
	size_t i;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rec", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("a=1\nfits=", f);
	for (i = 0; i < 4095 - 5; i++)
		fputc('v', f);
	fputs("\nlong=", f);
	for (i = 0; i < 4096 - 5 - 3; i++)
		fputc('w', f);
	fputs("z=9\nb=2\n", f);
	fclose(f);
	o = pai__slurm_record(dir, "rec");
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "a")), "1");
	assert_string_equal(json_string_value(json_object_get(o, "b")), "2");
	assert_int_equal(strlen(json_string_value(json_object_get(o, "fits"))),
			 4095 - 5);
	assert_null(json_object_get(o, "long"));
	assert_int_equal(json_object_size(o), 3);
	json_decref(o);
	/* 64 KiB is a record, one byte more is not */
	for (i = 0; i < 2; i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("c=3\n", f);
		for (size_t k = 4; k < ((size_t)64 << 10) + i; k++)
			fputc(k % 64 ? 'x' : '\n', f);
		fclose(f);
		o = pai__slurm_record(dir, "rec");
		if (i == 0) {
			assert_non_null(o);
			assert_string_equal(
			    json_string_value(json_object_get(o, "c")), "3");
		} else
			assert_null(o);
		json_decref(o);
	}
	unlink(path);
	rmdir(dir);
}

static void test_trace_masks_token(void **state)
{
	static const char hdrs[] = "X-SLURM-USER-NAME: alice\r\n"
				   "X-SLURM-USER-TOKEN: eyJhbGciOi.e30.sig\r\n";
	char out[256] = "";

	(void)state;
	pai__trace_lines(trace_line, out, "> ", hdrs, strlen(hdrs));
	assert_non_null(strstr(out, "X-SLURM-USER-TOKEN: ***"));
	assert_null(strstr(out, "eyJ"));
	assert_non_null(strstr(out, "X-SLURM-USER-NAME: alice"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profile_name_limit),
	    cmocka_unit_test(test_expand_target),
	    cmocka_unit_test(test_body),
	    cmocka_unit_test(test_body_refused),
	    cmocka_unit_test(test_body_not_utf8),
	    cmocka_unit_test(test_body_out_of_memory),
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_client_args),
	    cmocka_unit_test(test_jobs),
	    cmocka_unit_test(test_log_read),
	    cmocka_unit_test(test_record_lines),
	    cmocka_unit_test(test_url_path),
	    cmocka_unit_test(test_trace_masks_token),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
