/* test_expand.c - the server's substitution in the directories, every
 * variable of every task's environment, commands expanded as bash would,
 * and the warnings for references that no task will have. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "alloc_fail.h"
#include "pai.h"
#include "testutil.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The distributed TensorFlow example of the job-config documentation
 * (seeds/001), comments and all. */
static const char tf_job[] =
    "{\n"
    "  \"jobName\": \"tensorflow-distributed-jobguid\",\n"
    "  // customized tensorflow docker image\n"
    "  \"image\": \"your_docker_registry/pai.run.tensorflow\",\n"
    "  \"dataDir\": "
    "\"$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/data\",\n"
    "  \"outputDir\": "
    "\"$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/output\",\n"
    "  \"codeDir\": "
    "\"$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/code\",\n"
    "  \"virtualCluster\": \"your_virtual_cluster\",\n"
    "  \"taskRoles\": [\n"
    "    {\n"
    "      \"name\": \"ps_server\",\n"
    "      // use 2 ps servers in this job\n"
    "      \"taskNumber\": 2,\n"
    "      \"cpuNumber\": 2,\n"
    "      \"memoryMB\": 8192,\n"
    "      \"gpuNumber\": 0,\n"
    "      \"portList\": [\n"
    "        { \"label\": \"http\", \"beginAt\": 0, \"portNumber\": 1 },\n"
    "        { \"label\": \"ssh\", \"beginAt\": 0, \"portNumber\": 1 }\n"
    "      ],\n"
    "      \"command\": \"pip --quiet install scipy && python "
    "code/tf_cnn_benchmarks.py --local_parameter_device=cpu "
    "--batch_size=$batch_size --model=$job_model "
    "--variable_update=parameter_server --data_dir=$PAI_DATA_DIR "
    "--data_name=cifar10 --train_dir=$PAI_OUTPUT_DIR "
    "--ps_hosts=$PAI_TASK_ROLE_ps_server_HOST_LIST "
    "--worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=ps "
    "--task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"worker\",\n"
    "      \"taskNumber\": 2,\n"
    "      \"cpuNumber\": 2,\n"
    "      \"memoryMB\": 16384,\n"
    "      \"gpuNumber\": 4,\n"
    "      \"portList\": [\n"
    "        { \"label\": \"http\", \"beginAt\": 0, \"portNumber\": 1 },\n"
    "        { \"label\": \"ssh\", \"beginAt\": 0, \"portNumber\": 1 }\n"
    "      ],\n"
    "      \"command\": \"pip --quiet install scipy && python "
    "code/tf_cnn_benchmarks.py --local_parameter_device=cpu "
    "--batch_size=$batch_size --model=$job_model "
    "--variable_update=parameter_server --data_dir=$PAI_DATA_DIR "
    "--data_name=cifar10 --train_dir=$PAI_OUTPUT_DIR "
    "--ps_hosts=$PAI_TASK_ROLE_ps_server_HOST_LIST "
    "--worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=worker "
    "--task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX\",\n"
    "      // kill the entire job when 2 worker tasks completed\n"
    "      \"minSucceededTaskCount\": 2\n"
    "    }\n"
    "  ],\n"
    "  \"retryCount\": 0,\n"
    "  \"jobEnvs\": {\n"
    "    \"batch_size\": 32,\n"
    "    \"job_model\": \"resnet20\"\n"
    "  }\n"
    "}\n";

#define TF_DIR "/path/tensorflow-distributed-jobguid"
#define TF_CMD_HEAD_USER(fs)                                                   \
	"pip --quiet install scipy && python code/tf_cnn_benchmarks.py "       \
	"--local_parameter_device=cpu --batch_size=32 --model=resnet20 "       \
	"--variable_update=parameter_server --data_dir=" fs TF_DIR             \
	"/data --data_name=cifar10 --train_dir=" fs TF_DIR "/output "
#define TF_CMD_HEAD TF_CMD_HEAD_USER("hdfs://nn:9000")

/* Every variable of a task of the example, in the documented order. */
static const char *const tf_names[] = {
    "PAI_JOB_NAME",
    "PAI_USER_NAME",
    "PAI_USERNAME",
    "PAI_DEFAULT_FS_URI",
    "PAI_DATA_DIR",
    "PAI_OUTPUT_DIR",
    "PAI_CODE_DIR",
    "PAI_JOB_VC_NAME",
    "PAI_JOB_TASK_COUNT",
    "PAI_TASKS_NUM",
    "PAI_JOB_TASK_ROLE_COUNT",
    "PAI_TASK_ROLE_COUNT",
    "PAI_TASK_ROLES_NUM",
    "PAI_JOB_TASK_ROLE_LIST",
    "PAI_TASK_ROLE_LIST",
    "PAI_WORK_DIR",
    "PAI_CURRENT_TASK_ROLE_NAME",
    "PAI_TASK_ROLE_NAME",
    "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX",
    "PAI_TASK_INDEX",
    "PAI_TASK_ROLE_INDEX",
    "PAI_CURRENT_TASK_ROLE_TASK_COUNT",
    "PAI_TASK_ROLE_NUM",
    "PAI_CURRENT_TASK_ROLE_CPU_COUNT",
    "PAI_TASK_CPU_NUM",
    "PAI_CURRENT_TASK_ROLE_MEM_MB",
    "PAI_TASK_MEM_MB",
    "PAI_CURRENT_TASK_ROLE_SHM_MB",
    "PAI_CURRENT_TASK_ROLE_GPU_COUNT",
    "PAI_TASK_GPU_NUM",
    "PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT",
    "PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT",
    "PAI_RESOURCE",
    "PAI_CONTAINER_ID",
    "PAI_CONTAINER_HOST_IP",
    "PAI_CURRENT_CONTAINER_IP",
    "PAI_CONTAINER_HOST_PORT",
    "PAI_CURRENT_CONTAINER_PORT",
    "PAI_CONTAINER_SSH_PORT",
    "PAI_CONTAINER_HOST_PORT_LIST",
    "PAI_CONTAINER_HOST_http_PORT_LIST",
    "PAI_CONTAINER_HOST_ssh_PORT_LIST",
    "PAI_TASK_ROLE_TASK_COUNT_ps_server",
    "PAI_MIN_FAILED_TASK_COUNT_ps_server",
    "PAI_MIN_SUCCEEDED_TASK_COUNT_ps_server",
    "PAI_TASK_ROLE_ps_server_HOST_LIST",
    "PAI_TASK_ROLE_TASK_COUNT_worker",
    "PAI_MIN_FAILED_TASK_COUNT_worker",
    "PAI_MIN_SUCCEEDED_TASK_COUNT_worker",
    "PAI_TASK_ROLE_worker_HOST_LIST",
    "PAI_HOST_IP_ps_server_0",
    "PAI_PORT_LIST_ps_server_0_http",
    "PAI_ps_server_0_http_PORT",
    "PAI_PORT_LIST_ps_server_0_ssh",
    "PAI_ps_server_0_ssh_PORT",
    "PAI_HOST_IP_ps_server_1",
    "PAI_PORT_LIST_ps_server_1_http",
    "PAI_ps_server_1_http_PORT",
    "PAI_PORT_LIST_ps_server_1_ssh",
    "PAI_ps_server_1_ssh_PORT",
    "PAI_HOST_IP_worker_0",
    "PAI_PORT_LIST_worker_0_http",
    "PAI_worker_0_http_PORT",
    "PAI_PORT_LIST_worker_0_ssh",
    "PAI_worker_0_ssh_PORT",
    "PAI_HOST_IP_worker_1",
    "PAI_PORT_LIST_worker_1_http",
    "PAI_worker_1_http_PORT",
    "PAI_PORT_LIST_worker_1_ssh",
    "PAI_worker_1_ssh_PORT",
    "batch_size",
    "job_model",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ------------------------------------------------------------ */

static pai_job *parse_ok(const char *text, pai_diags **dp)
{
	pai_diags *d = NULL;
	pai_job *job = NULL;
	size_t i;
	int err;

	assert_int_equal(pai_diags_new(&d), PAI_OK);
	err = pai_job_parse(&job, d, "t.json", text, strlen(text), NULL);
	if (err != PAI_OK || !job) {
		for (i = 0; i < pai_diags_count(d); i++)
			print_error("%s:%u:%u: %s [%s]\n", "t.json",
				    pai_diags_get(d, i)->line,
				    pai_diags_get(d, i)->column,
				    pai_diags_get(d, i)->message,
				    pai_diags_get(d, i)->rule);
		fail_msg("the config does not parse");
	}
	if (dp)
		*dp = d;
	else
		pai_diags_free(d);
	return job;
}

static bool is_ref_rule(const char *rule)
{
	return strcmp(rule, "unknown-pai-variable") == 0 ||
	       strcmp(rule, "unknown-variable") == 0;
}

/* The diagnostics of the reference check, in order. */
static size_t ref_diags(const pai_diags *d, const pai_diag **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < pai_diags_count(d); i++) {
		const pai_diag *g = pai_diags_get(d, i);

		if (!is_ref_rule(g->rule))
			continue;
		if (n < max)
			out[n] = g;
		n++;
	}
	return n;
}

/* A minimal valid job with one role "main" of `tasks` tasks; extra is
 * JSON text spliced into the top-level object (or ""). */
static char *job_text(const char *command, unsigned tasks, const char *extra)
{
	json_t *cmd = json_string(command);
	char *q = json_dumps(cmd, JSON_ENCODE_ANY), *out;
	size_t n;

	assert_non_null(q);
	n = strlen(q) + strlen(extra) + 512;
	out = malloc(n);
	assert_non_null(out);
	snprintf(out, n,
		 "{\"jobName\": \"t\", \"image\": \"img\", %s%s"
		 "\"taskRoles\": [{\"name\": \"main\", \"taskNumber\": %u, "
		 "\"cpuNumber\": 1, \"memoryMB\": 1024, \"gpuNumber\": 0, "
		 "\"command\": %s}]}",
		 extra, *extra ? ", " : "", tasks, q);
	free(q);
	json_decref(cmd);
	return out;
}

static pai_env *expand(const pai_job *job, size_t r, size_t i,
		       const pai_expand_options *o)
{
	pai_env *env = (pai_env *)&env; /* must come back NULL or set */

	assert_int_equal(pai_expand_task(&env, job, r, i, o), PAI_OK);
	assert_non_null(env);
	return env;
}

#define assert_env(env, name, value)                                           \
	do {                                                                   \
		const char *v_ = pai_env_get((env), (name));                   \
		if (!v_)                                                       \
			fail_msg("%s is not set", (name));                     \
		if (strcmp(v_, (value)) != 0)                                  \
			fail_msg("%s is '%s', not '%s'", (name), v_, (value)); \
	} while (0)

/* The command of "main" expanded with jobEnvs A="a" and B="b b". */
static char *expand_cmd(const char *command)
{
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	char *text = job_text(command, 1,
			      "\"jobEnvs\": {\"A\": \"a\", "
			      "\"B\": \"b b\"}");
	pai_job *job = parse_ok(text, NULL);
	pai_env *env;
	char *out;

	o.user = "alice";
	env = expand(job, 0, 0, &o);
	out = strdup(pai_env_command(env));
	assert_non_null(out);
	pai_env_free(env);
	pai_job_free(job);
	free(text);
	return out;
}

/* ---- directories -------------------------------------------------------- */

static void test_dirs_substitution(void **state)
{
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_dirs *d = (pai_dirs *)&d;
	pai_job *job;
	char *text;

	(void)state;
	text = job_text(
	    "true", 1,
	    "\"authFile\": \"$PAI_DEFAULT_FS_URI/a/$PAI_DEFAULT_FS_URI\", "
	    "\"dataDir\": \"$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/"
	    "$PAI_USERNAME/$PAI_JOB_NAME/$PAI_USERNAMEX/"
	    "$PAI_USER_NAME_2/$PAI_JOB_NAMES/$PAI_JOB_NAME.x\", "
	    "\"codeDir\": \"hdfs://h/$PAI_USERNAME-$PAI_JOB_NAME"
	    "$PAI_TASK_INDEX\"");
	job = parse_ok(text, NULL);
	o.user = "alice";
	o.fs_uri = "hdfs://nn:9000";
	assert_int_equal(pai_expand_dirs(&d, job, &o), PAI_OK);
	/* the server replaces only the first $PAI_DEFAULT_FS_URI */
	assert_string_equal(pai_dirs_auth_file(d),
			    "hdfs://nn:9000/a/$PAI_DEFAULT_FS_URI");
	/* names followed by a word character are not the server's names */
	assert_string_equal(pai_dirs_data_dir(d),
			    "hdfs://nn:9000/alice/alice/t/$PAI_USERNAMEX/"
			    "$PAI_USER_NAME_2/$PAI_JOB_NAMES/t.x");
	/* nothing but those four names is substituted */
	assert_string_equal(pai_dirs_code_dir(d),
			    "hdfs://h/alice-t$PAI_TASK_INDEX");
	/* no outputDir: the server's default */
	assert_string_equal(pai_dirs_output_dir(d),
			    "hdfs://nn:9000/Output/alice/t");
	pai_dirs_free(d);

	/* unknown user and URI: placeholders */
	assert_int_equal(pai_expand_dirs(&d, job, NULL), PAI_OK);
	assert_string_equal(pai_dirs_output_dir(d), "<default-fs>/Output/<user>/t");
	assert_string_equal(pai_dirs_data_dir(d),
			    "<default-fs>/<user>/<user>/t/$PAI_USERNAMEX/"
			    "$PAI_USER_NAME_2/$PAI_JOB_NAMES/t.x");
	pai_dirs_free(d);
	pai_job_free(job);
	free(text);

	/* an empty outputDir gets the default too; an absent authFile is "" */
	text = job_text("true", 1, "\"outputDir\": \"\"");
	job = parse_ok(text, NULL);
	o.user = "bob";
	assert_int_equal(pai_expand_dirs(&d, job, &o), PAI_OK);
	assert_string_equal(pai_dirs_output_dir(d),
			    "hdfs://nn:9000/Output/bob/t");
	assert_string_equal(pai_dirs_auth_file(d), "");
	assert_string_equal(pai_dirs_data_dir(d), "");
	pai_dirs_free(d);
	pai_job_free(job);
	free(text);
}

/* ---- the environment ---------------------------------------------------- */

static void test_tf_names_in_order(void **state)
{
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_job *job = parse_ok(tf_job, NULL);
	size_t r, i, k;

	(void)state;
	o.user = "alice";
	o.fs_uri = "hdfs://nn:9000";
	for (r = 0; r < 2; r++) {
		for (i = 0; i < 2; i++) {
			pai_env *env = expand(job, r, i, &o);

			assert_int_equal(pai_env_count(env), NELEM(tf_names));
			for (k = 0; k < NELEM(tf_names); k++)
				assert_string_equal(pai_env_name(env, k),
						    tf_names[k]);
			assert_null(pai_env_name(env, k));
			assert_null(pai_env_value(env, k));
			assert_null(pai_env_get(env, "PAI_NOT_A_VARIABLE"));
			pai_env_free(env);
		}
	}
	pai_job_free(job);
}

/* Every variable of every task, with placeholders for what only the
 * cluster knows. */
static void test_tf_every_variable(void **state)
{
	static const struct {
		const char *role, *cpu, *mem, *gpu, *min_ok, *resource;
	} roles[] = {
	    {"ps_server", "2", "8192", "0", "", "0,2,8192,64"},
	    {"worker", "2", "16384", "4", "2", "4,2,16384,64"},
	};
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_job *job = parse_ok(tf_job, NULL);
	char want[1024], name[128];
	size_t r, i, rr, ii;

	(void)state;
	o.user = "alice";
	o.fs_uri = "hdfs://nn:9000";
	for (r = 0; r < 2; r++) {
		for (i = 0; i < 2; i++) {
			pai_env *env = expand(job, r, i, &o);
			const char *rn = roles[r].role;

			assert_env(env, "PAI_JOB_NAME",
				   "tensorflow-distributed-jobguid");
			assert_env(env, "PAI_USER_NAME", "alice");
			assert_env(env, "PAI_USERNAME", "alice");
			assert_env(env, "PAI_DEFAULT_FS_URI", "hdfs://nn:9000");
			assert_env(env, "PAI_DATA_DIR",
				   "hdfs://nn:9000" TF_DIR "/data");
			assert_env(env, "PAI_OUTPUT_DIR",
				   "hdfs://nn:9000" TF_DIR "/output");
			assert_env(env, "PAI_CODE_DIR",
				   "hdfs://nn:9000" TF_DIR "/code");
			assert_env(env, "PAI_JOB_VC_NAME",
				   "your_virtual_cluster");
			assert_env(env, "PAI_JOB_TASK_COUNT", "4");
			assert_env(env, "PAI_TASKS_NUM", "4");
			assert_env(env, "PAI_JOB_TASK_ROLE_COUNT", "2");
			assert_env(env, "PAI_TASK_ROLE_COUNT", "2");
			assert_env(env, "PAI_TASK_ROLES_NUM", "2");
			assert_env(env, "PAI_JOB_TASK_ROLE_LIST",
				   "ps_server,worker");
			assert_env(env, "PAI_TASK_ROLE_LIST",
				   "ps_server,worker");

			snprintf(want, sizeof(want), "<work-dir:%s-%zu>", rn,
				 i);
			assert_env(env, "PAI_WORK_DIR", want);
			assert_env(env, "PAI_CURRENT_TASK_ROLE_NAME", rn);
			assert_env(env, "PAI_TASK_ROLE_NAME", rn);
			snprintf(want, sizeof(want), "%zu", i);
			assert_env(env,
				   "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX",
				   want);
			assert_env(env, "PAI_TASK_INDEX", want);
			assert_env(env, "PAI_TASK_ROLE_INDEX", want);
			assert_env(env, "PAI_CURRENT_TASK_ROLE_TASK_COUNT",
				   "2");
			assert_env(env, "PAI_TASK_ROLE_NUM", "2");
			assert_env(env, "PAI_CURRENT_TASK_ROLE_CPU_COUNT",
				   roles[r].cpu);
			assert_env(env, "PAI_TASK_CPU_NUM", roles[r].cpu);
			assert_env(env, "PAI_CURRENT_TASK_ROLE_MEM_MB",
				   roles[r].mem);
			assert_env(env, "PAI_TASK_MEM_MB", roles[r].mem);
			assert_env(env, "PAI_CURRENT_TASK_ROLE_SHM_MB", "64");
			assert_env(env, "PAI_CURRENT_TASK_ROLE_GPU_COUNT",
				   roles[r].gpu);
			assert_env(env, "PAI_TASK_GPU_NUM", roles[r].gpu);
			assert_env(
			    env, "PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT",
			    "1");
			assert_env(
			    env,
			    "PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT",
			    roles[r].min_ok);
			assert_env(env, "PAI_RESOURCE", roles[r].resource);
			snprintf(want, sizeof(want), "<container-id:%s-%zu>",
				 rn, i);
			assert_env(env, "PAI_CONTAINER_ID", want);
			snprintf(want, sizeof(want), "<ip:%s-%zu>", rn, i);
			assert_env(env, "PAI_CONTAINER_HOST_IP", want);
			assert_env(env, "PAI_CURRENT_CONTAINER_IP", want);
			snprintf(want, sizeof(want), "<port:%s-%zu:http>", rn,
				 i);
			assert_env(env, "PAI_CONTAINER_HOST_PORT", want);
			assert_env(env, "PAI_CURRENT_CONTAINER_PORT", want);
			assert_env(env, "PAI_CONTAINER_HOST_http_PORT_LIST",
				   want);
			snprintf(want, sizeof(want), "<port:%s-%zu:ssh>", rn,
				 i);
			assert_env(env, "PAI_CONTAINER_SSH_PORT", want);
			assert_env(env, "PAI_CONTAINER_HOST_ssh_PORT_LIST",
				   want);
			snprintf(
			    want, sizeof(want),
			    "http:<port:%s-%zu:http>;ssh:<port:%s-%zu:ssh>", rn,
			    i, rn, i);
			assert_env(env, "PAI_CONTAINER_HOST_PORT_LIST", want);

			assert_env(env, "PAI_TASK_ROLE_TASK_COUNT_ps_server",
				   "2");
			assert_env(env, "PAI_MIN_FAILED_TASK_COUNT_ps_server",
				   "1");
			assert_env(
			    env, "PAI_MIN_SUCCEEDED_TASK_COUNT_ps_server", "");
			assert_env(env, "PAI_TASK_ROLE_TASK_COUNT_worker", "2");
			assert_env(env, "PAI_MIN_FAILED_TASK_COUNT_worker",
				   "1");
			assert_env(env, "PAI_MIN_SUCCEEDED_TASK_COUNT_worker",
				   "2");
			assert_env(env, "PAI_TASK_ROLE_ps_server_HOST_LIST",
				   "<ip:ps_server-0>:<port:ps_server-0:http>,"
				   "<ip:ps_server-1>:<port:ps_server-1:http>");
			assert_env(env, "PAI_TASK_ROLE_worker_HOST_LIST",
				   "<ip:worker-0>:<port:worker-0:http>,"
				   "<ip:worker-1>:<port:worker-1:http>");
			/* every task sees every task's IP and ports */
			for (rr = 0; rr < 2; rr++) {
				const char *n2 = roles[rr].role;

				for (ii = 0; ii < 2; ii++) {
					snprintf(name, sizeof(name),
						 "PAI_HOST_IP_%s_%zu", n2, ii);
					snprintf(want, sizeof(want),
						 "<ip:%s-%zu>", n2, ii);
					assert_env(env, name, want);
					snprintf(want, sizeof(want),
						 "<port:%s-%zu:http>", n2, ii);
					snprintf(name, sizeof(name),
						 "PAI_PORT_LIST_%s_%zu_http",
						 n2, ii);
					assert_env(env, name, want);
					snprintf(name, sizeof(name),
						 "PAI_%s_%zu_http_PORT", n2,
						 ii);
					assert_env(env, name, want);
					snprintf(want, sizeof(want),
						 "<port:%s-%zu:ssh>", n2, ii);
					snprintf(name, sizeof(name),
						 "PAI_PORT_LIST_%s_%zu_ssh", n2,
						 ii);
					assert_env(env, name, want);
					snprintf(name, sizeof(name),
						 "PAI_%s_%zu_ssh_PORT", n2, ii);
					assert_env(env, name, want);
				}
			}
			assert_env(env, "batch_size", "32");
			assert_env(env, "job_model", "resnet20");

			snprintf(
			    want, sizeof(want),
			    TF_CMD_HEAD
			    "--ps_hosts=<ip:ps_server-0>:<port:ps_server-0:"
			    "http>,<ip:ps_server-1>:<port:ps_server-1:http>"
			    " --worker_hosts=<ip:worker-0>:<port:worker-0:"
			    "http>,<ip:worker-1>:<port:worker-1:http> "
			    "--job_name=%s --task_index=%zu",
			    r ? "worker" : "ps", i);
			assert_string_equal(pai_env_command(env), want);
			pai_env_free(env);
		}
	}
	pai_job_free(job);
}

static void test_aliases_equal_primaries(void **state)
{
	static const char *const pairs[][2] = {
	    {"PAI_USERNAME", "PAI_USER_NAME"},
	    {"PAI_TASK_ROLE_NAME", "PAI_CURRENT_TASK_ROLE_NAME"},
	    {"PAI_TASK_INDEX", "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"},
	    {"PAI_TASK_ROLE_INDEX", "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"},
	    {"PAI_TASK_ROLE_NUM", "PAI_CURRENT_TASK_ROLE_TASK_COUNT"},
	    {"PAI_TASK_CPU_NUM", "PAI_CURRENT_TASK_ROLE_CPU_COUNT"},
	    {"PAI_TASK_MEM_MB", "PAI_CURRENT_TASK_ROLE_MEM_MB"},
	    {"PAI_TASK_GPU_NUM", "PAI_CURRENT_TASK_ROLE_GPU_COUNT"},
	    {"PAI_TASKS_NUM", "PAI_JOB_TASK_COUNT"},
	    {"PAI_TASK_ROLE_COUNT", "PAI_JOB_TASK_ROLE_COUNT"},
	    {"PAI_TASK_ROLES_NUM", "PAI_JOB_TASK_ROLE_COUNT"},
	    {"PAI_TASK_ROLE_LIST", "PAI_JOB_TASK_ROLE_LIST"},
	    {"PAI_CURRENT_CONTAINER_IP", "PAI_CONTAINER_HOST_IP"},
	    {"PAI_CURRENT_CONTAINER_PORT", "PAI_CONTAINER_HOST_PORT"},
	};
	pai_job *job = parse_ok(tf_job, NULL);
	size_t r, i, k;

	(void)state;
	for (r = 0; r < 2; r++) {
		for (i = 0; i < 2; i++) {
			pai_env *env = expand(job, r, i, NULL);

			for (k = 0; k < NELEM(pairs); k++) {
				const char *a = pai_env_get(env, pairs[k][0]);
				const char *b = pai_env_get(env, pairs[k][1]);

				assert_non_null(a);
				assert_non_null(b);
				assert_string_equal(a, b);
			}
			/* defaults: placeholders for the user and the URI */
			assert_env(env, "PAI_USER_NAME", "<user>");
			assert_env(env, "PAI_DEFAULT_FS_URI", "<default-fs>");
			assert_env(env, "PAI_DATA_DIR",
				   "<default-fs>" TF_DIR "/data");
			pai_env_free(env);
		}
	}
	pai_job_free(job);
}

/* ---- placement ---------------------------------------------------------- */

struct where {
	char ip[2][2][32], id[2][2][32];
	unsigned calls;
};

static const char *pl_ip(void *data, size_t r, size_t i)
{
	struct where *w = data;

	w->calls++;
	return w->ip[r][i];
}

static const char *pl_id(void *data, size_t r, size_t i)
{
	struct where *w = data;

	return r == 1 && i == 1 ? NULL : w->id[r][i]; /* not placed yet */
}

static const char *pl_work(void *data, size_t r, size_t i)
{
	(void)data;
	(void)i;
	return r == 0 ? "/work/ps" : ""; /* "" counts as unknown */
}

/* 3RIKN: role, index, label, port; the worker-1 ssh port is unknown */
static unsigned pl_port(void *data, size_t r, size_t i, size_t k, size_t n)
{
	(void)data;
	if (r == 1 && i == 1 && k == 1)
		return 0;
	return (unsigned)(30000 + r * 1000 + i * 100 + k * 10 + n);
}

static void test_placement(void **state)
{
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_placement pl = {NULL, pl_ip, pl_id, pl_work, pl_port};
	struct where w;
	pai_job *job = parse_ok(tf_job, NULL);
	pai_env *env;
	size_t r, i;

	(void)state;
	memset(&w, 0, sizeof(w));
	for (r = 0; r < 2; r++)
		for (i = 0; i < 2; i++) {
			snprintf(w.ip[r][i], sizeof(w.ip[r][i]), "10.0.%zu.%zu",
				 r, i + 1);
			snprintf(w.id[r][i], sizeof(w.id[r][i]),
				 "container_%zu_%zu", r, i);
		}
	w.ip[0][1][0] = '\0'; /* ps_server-1 not placed: "" is unknown */
	pl.data = &w;
	o.placement = &pl;
	o.user = "alice";

	env = expand(job, 1, 0, &o);
	assert_true(w.calls > 0);
	assert_env(env, "PAI_CONTAINER_HOST_IP", "10.0.1.1");
	assert_env(env, "PAI_CONTAINER_ID", "container_1_0");
	assert_env(env, "PAI_WORK_DIR", "<work-dir:worker-0>");
	assert_env(env, "PAI_CONTAINER_HOST_PORT", "31000");
	assert_env(env, "PAI_CONTAINER_SSH_PORT", "31010");
	assert_env(env, "PAI_CONTAINER_HOST_PORT_LIST", "http:31000;ssh:31010");
	assert_env(env, "PAI_TASK_ROLE_ps_server_HOST_LIST",
		   "10.0.0.1:30000,<ip:ps_server-1>:30100");
	assert_env(env, "PAI_TASK_ROLE_worker_HOST_LIST",
		   "10.0.1.1:31000,10.0.1.2:31100");
	assert_env(env, "PAI_HOST_IP_ps_server_1", "<ip:ps_server-1>");
	assert_env(env, "PAI_ps_server_1_ssh_PORT", "30110");
	assert_env(env, "PAI_PORT_LIST_worker_1_http", "31100");
	assert_env(env, "PAI_worker_1_ssh_PORT", "<port:worker-1:ssh>");
	assert_string_equal(
	    pai_env_command(env),
	    TF_CMD_HEAD_USER(
		"<default-fs>") "--ps_hosts=10.0.0.1:30000,<ip:ps_server-1>:30100"
			    " --worker_hosts=10.0.1.1:31000,10.0.1.2:31100 "
			    "--job_name=worker --task_index=0");
	pai_env_free(env);

	env = expand(job, 1, 1, &o);
	assert_env(env, "PAI_CONTAINER_ID", "<container-id:worker-1>");
	assert_env(env, "PAI_CONTAINER_SSH_PORT", "<port:worker-1:ssh>");
	assert_env(env, "PAI_CONTAINER_HOST_PORT_LIST",
		   "http:31100;ssh:<port:worker-1:ssh>");
	pai_env_free(env);

	env = expand(job, 0, 0, &o);
	assert_env(env, "PAI_WORK_DIR", "/work/ps");
	pai_env_free(env);
	pai_job_free(job);
}

/* Labels with several ports, fixed ports, and the implicit http and ssh
 * ports of a role that lists neither. */
static void test_ports(void **state)
{
	static const char text[] =
	    "{\"jobName\": \"p\", \"image\": \"i\", \"taskRoles\": [\n"
	    " {\"name\": \"a\", \"taskNumber\": 2, \"cpuNumber\": 1,"
	    " \"memoryMB\": 512, \"shmMB\": 128, \"gpuNumber\": 1,"
	    " \"minFailedTaskCount\": null, \"minSucceededTaskCount\": 1,"
	    " \"portList\": [{\"label\": \"tb\", \"beginAt\": 0,"
	    " \"portNumber\": 3}, {\"label\": \"fixed\", \"beginAt\": 8000,"
	    " \"portNumber\": 2}],"
	    " \"command\": \"echo $PAI_CONTAINER_HOST_tb_PORT_LIST"
	    " $PAI_a_1_fixed_PORT\"},\n"
	    " {\"name\": \"b\", \"taskNumber\": 1, \"cpuNumber\": 3,"
	    " \"memoryMB\": 100, \"gpuNumber\": 0, \"command\": \"true\"}"
	    "]}";
	pai_job *job = parse_ok(text, NULL);
	pai_env *env;

	(void)state;
	env = expand(job, 0, 1, NULL);
	assert_env(env, "PAI_CONTAINER_HOST_PORT_LIST",
		   "tb:<port:a-1:tb#0>,<port:a-1:tb#1>,<port:a-1:tb#2>;"
		   "fixed:8000,8001;http:<port:a-1:http>;ssh:<port:a-1:ssh>");
	assert_env(env, "PAI_CONTAINER_HOST_tb_PORT_LIST",
		   "<port:a-1:tb#0>,<port:a-1:tb#1>,<port:a-1:tb#2>");
	assert_env(env, "PAI_CONTAINER_HOST_fixed_PORT_LIST", "8000,8001");
	assert_env(env, "PAI_a_0_fixed_PORT", "8000,8001");
	assert_env(env, "PAI_PORT_LIST_a_0_tb",
		   "<port:a-0:tb#0>,<port:a-0:tb#1>,<port:a-0:tb#2>");
	assert_env(env, "PAI_CONTAINER_HOST_PORT", "<port:a-1:http>");
	assert_env(env, "PAI_RESOURCE", "1,1,512,128");
	assert_env(env, "PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT", "");
	assert_env(env, "PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT", "1");
	assert_env(env, "PAI_MIN_FAILED_TASK_COUNT_a", "");
	assert_env(env, "PAI_MIN_SUCCEEDED_TASK_COUNT_b", "");
	assert_env(env, "PAI_TASK_ROLE_b_HOST_LIST",
		   "<ip:b-0>:<port:b-0:http>");
	assert_env(env, "PAI_b_0_ssh_PORT", "<port:b-0:ssh>");
	assert_env(env, "PAI_JOB_VC_NAME", "default");
	assert_env(env, "PAI_JOB_TASK_COUNT", "3");
	assert_null(pai_env_get(env, "PAI_CONTAINER_HOST_x_PORT_LIST"));
	/* role b has no tb label: the current task's lists are the role's */
	assert_string_equal(pai_env_command(env),
			    "echo <port:a-1:tb#0>,<port:a-1:tb#1>,"
			    "<port:a-1:tb#2> 8000,8001");
	pai_env_free(env);
	env = expand(job, 1, 0, NULL);
	assert_null(pai_env_get(env, "PAI_CONTAINER_HOST_tb_PORT_LIST"));
	assert_env(env, "PAI_CONTAINER_HOST_PORT_LIST",
		   "http:<port:b-0:http>;ssh:<port:b-0:ssh>");
	assert_env(env, "PAI_RESOURCE", "0,3,100,64");
	pai_env_free(env);
	pai_job_free(job);
}

/* ---- jobEnvs ------------------------------------------------------------ */

static void test_job_envs(void **state)
{
	char *text = job_text(
	    "echo $PAI_JOB_NAME $s $n. ${PAI_USER_NAME}", 1,
	    "\"virtualCluster\": \"\", \"jobEnvs\": {\"batch_size\": 32, "
	    "\"lr\": 1.5, \"tenth\": 0.1, \"tiny\": 1e-7, \"small\": "
	    "0.000001, \"big\": 1e21, \"large\": 1.2345678901234568e20, "
	    "\"four\": 4.0, \"neg\": -2, \"t\": true, \"f\": false, "
	    "\"n\": null, \"s\": \"$PAI_JOB_NAME and ${X}\", "
	    "\"o\": {\"a\": [1, \"x\\\"y\", null, 2.5, {}]}, "
	    "\"PAI_JOB_NAME\": \"override\"}");
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_job *job = parse_ok(text, NULL);
	pai_env *env;
	size_t i, seen = 0, n;

	(void)state;
	o.user = "u";
	env = expand(job, 0, 0, &o);
	assert_env(env, "batch_size", "32");
	assert_env(env, "lr", "1.5");
	assert_env(env, "tenth", "0.1");
	assert_env(env, "tiny", "1e-7");
	assert_env(env, "small", "0.000001");
	assert_env(env, "big", "1e+21");
	assert_env(env, "large", "123456789012345680000");
	assert_env(env, "four", "4");
	assert_env(env, "neg", "-2");
	assert_env(env, "t", "true");
	assert_env(env, "f", "false");
	assert_env(env, "n", "");
	/* no substitution in jobEnvs: "$" stays */
	assert_env(env, "s", "$PAI_JOB_NAME and ${X}");
	assert_env(env, "o", "{\"a\":[1,\"x\\\"y\",null,2.5,{}]}");
	assert_env(env, "PAI_JOB_VC_NAME", "default");
	/* the key named like a cluster variable wins, once, in jobEnvs */
	assert_env(env, "PAI_JOB_NAME", "override");
	n = pai_env_count(env);
	for (i = 0; i < n; i++)
		seen += strcmp(pai_env_name(env, i), "PAI_JOB_NAME") == 0;
	assert_int_equal(seen, 1);
	assert_string_equal(pai_env_name(env, n - 1), "PAI_JOB_NAME");
	assert_string_equal(pai_env_name(env, n - 2), "o");
	assert_string_equal(pai_env_name(env, 0), "PAI_USER_NAME");
	/* substituted values are not expanded again, as in bash */
	assert_string_equal(pai_env_command(env),
			    "echo override $PAI_JOB_NAME and ${X} . u");
	pai_env_free(env);
	pai_job_free(job);
	free(text);
}

/* ---- commands ----------------------------------------------------------- */

static void test_command_expansion(void **state)
{
	static const char *const cases[][2] = {
	    {"echo $A", "echo a"},
	    {"echo ${A}x $A-$B.", "echo ax a-b b."},
	    {"echo $Ax ${Ax} $UNDEFINED", "echo $Ax ${Ax} $UNDEFINED"},
	    {"echo '$A' '${A}'", "echo '$A' '${A}'"},
	    {"echo \"$A\" \"${A}\"", "echo \"a\" \"a\""},
	    {"echo \"'$A'\"", "echo \"'a'\""},
	    {"echo '\"$A\"' \"$A\"", "echo '\"$A\"' \"a\""},
	    {"echo \\$A \\${A}", "echo \\$A \\${A}"},
	    {"echo \\\\$A", "echo \\\\a"},
	    {"echo \"\\$A\" \"\\\\$A\"", "echo \"\\$A\" \"\\\\a\""},
	    {"echo \"\\a$A\"", "echo \"\\aa\""},
	    {"echo ${A:-x} ${#A} ${A%a} ${A/a/b} ${!A}",
	     "echo ${A:-x} ${#A} ${A%a} ${A/a/b} ${!A}"},
	    {"echo ${X:-$A} ${X:-${A}} $A", "echo ${X:-$A} ${X:-${A}} a"},
	    {"echo $1 $$ $? $# $@ $* $0 $! $- $$A",
	     "echo $1 $$ $? $# $@ $* $0 $! $- $$A"},
	    {"echo $(echo $A) $((1+$A)) $( (echo $A) )",
	     "echo $(echo a) $((1+a)) $( (echo a) )"},
	    {"echo $(echo '$A') \"$(echo '$A' \"$A\")\"",
	     "echo $(echo '$A') \"$(echo '$A' \"a\")\""},
	    {"echo `echo $A '$A'` \"`echo $A`\"",
	     "echo `echo a '$A'` \"`echo a`\""},
	    {"echo $'$A\\'' $A", "echo $'$A\\'' a"},
	    {"echo $\"$A\" \"$'$A'\"", "echo $\"a\" \"$'a'\""},
	    {"echo a # $A\necho $A", "echo a # $A\necho a"},
	    {"echo a#$A", "echo a#a"},
	    {"cat <<EOF\n$A '$A' \"$A\" \\$A ${A}\nEOF\necho $A",
	     "cat <<EOF\na 'a' \"a\" \\$A a\nEOF\necho a"},
	    {"cat <<'EOF' | cat <<EOF2\n$A\nEOF\n$A\nEOF2\n$A",
	     "cat <<'EOF' | cat <<EOF2\n$A\nEOF\na\nEOF2\na"},
	    {"cat <<-\"E\"\n\t$A\n\tE\n$A", "cat <<-\"E\"\n\t$A\n\tE\na"},
	    {"cat <<<$A", "cat <<<a"},
	    {"echo $((1<<$A)) $(( #$A\n))\n$A", "echo $((1<<a)) $(( #a\n))\na"},
	    {"echo $PAI_TASK_INDEX$PAI_JOB_NAME/$PAI_USER_NAME",
	     "echo 0t/alice"},
	    {"x=$A; echo \"${A}\"'${A}'", "x=a; echo \"a\"'${A}'"},
	    {"echo $ a$ \"$\"", "echo $ a$ \"$\""},
	    {"echo '$A", "echo '$A"},
	    {"echo \"$A", "echo \"a"},
	    {"echo ${A", "echo ${A"},
	    {"echo $A\\", "echo a\\"},
	    {"case $A in a) echo $B;; esac", "case a in a) echo b b;; esac"},
	    {"echo é$A€", "echo éa€"},
	};
	size_t k;

	(void)state;
	for (k = 0; k < NELEM(cases); k++) {
		char *got = expand_cmd(cases[k][0]);

		if (strcmp(got, cases[k][1]) != 0)
			fail_msg(
			    "case %zu: expanding [%s]\n got [%s]\nwant [%s]", k,
			    cases[k][0], got, cases[k][1]);
		free(got);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A large command expands, and is checked, in linear time: quadratic work
 * on these 4 MB would take hours, not seconds. */
static void test_large_command(void **state)
{
	static const char unit[] = "$A '$A' ${A} \\$A \"$Bx\" ";
	static const char unit_out[] = "a '$A' a \\$A \"$Bx\" ";
	size_t reps = (4u << 20) / (sizeof(unit) - 1), i, len;
	char *cmd = malloc(reps * (sizeof(unit) - 1) + 64), *want, *p;
	char *got;
	double t0;

	(void)state;
	assert_non_null(cmd);
	for (i = 0, p = cmd; i < reps; i++, p += sizeof(unit) - 1)
		memcpy(p, unit, sizeof(unit) - 1);
	*p = '\0';
	want = malloc(reps * (sizeof(unit_out) - 1) + 1);
	assert_non_null(want);
	for (i = 0, p = want; i < reps; i++, p += sizeof(unit_out) - 1)
		memcpy(p, unit_out, sizeof(unit_out) - 1);
	*p = '\0';
	t0 = now();
	got = expand_cmd(cmd);
	assert_true(now() - t0 < 60);
	len = strlen(got);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(got, want, len);
	free(got);
	free(want);
	free(cmd);
}

/* 100000 distinct unknown names: 16 warnings and one that counts the
 * rest, found fast. */
static void test_many_unknown_names(void **state)
{
	size_t n = 100000, i, cap = n * 12 + 16;
	char *cmd = malloc(cap), *text;
	const pai_diag *w[32];
	pai_diags *d = NULL;
	pai_job *job;
	size_t off = 0;
	double t0;

	(void)state;
	assert_non_null(cmd);
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(cmd + off, cap - off, "$U%zu ", i);
	text = job_text(cmd, 1, "");
	t0 = now();
	job = parse_ok(text, &d);
	assert_true(now() - t0 < 60);
	assert_int_equal(ref_diags(d, w, NELEM(w)), 17);
	assert_string_equal(w[0]->message,
			    "$U0 is set by neither the cluster, jobEnvs nor "
			    "the command: only the image could provide it");
	assert_string_equal(w[15]->message,
			    "$U15 is set by neither the cluster, jobEnvs nor "
			    "the command: only the image could provide it");
	/* the rest, at the first one not listed */
	assert_string_equal(w[16]->message,
			    "99984 more variables that no task will have, from "
			    "$U16 on, not listed");
	assert_int_equal(w[16]->line, 1);
	assert_int_equal(w[16]->column, w[15]->column + 5);
	pai_job_free(job);
	pai_diags_free(d);
	free(text);
	free(cmd);
}

/* ---- the reference check ------------------------------------------------ */

/* 1-based column, in code points, of the first needle on line `line`. */
static unsigned column_of(const char *text, unsigned line, const char *needle)
{
	const char *p = text, *hit;
	unsigned col = 1;

	while (--line)
		p = strchr(p, '\n') + 1;
	hit = strstr(p, needle);
	assert_non_null(hit);
	for (; p < hit; p++)
		if (((unsigned char)*p & 0xC0) != 0x80)
			col++;
	return col;
}

static const char warn_job[] =
    "{\n"
    "  \"jobName\": \"warn\",\n"
    "  \"image\": \"img\",\n"
    "  \"jobEnvs\": {\"batch_size\": 32},\n"
    "  \"taskRoles\": [\n"
    "    {\n"
    "      \"name\": \"worker\", \"taskNumber\": 2, \"cpuNumber\": 1,\n"
    "      \"memoryMB\": 1024, \"gpuNumber\": 0,\n"
    "      \"command\": \"echo $PAI_TASK_ROLE_wroker_HOST_LIST \\u00e9\\t"
    "$batch_sise; x=1; echo $x '$QUOTED' \\\\$ESC ${UNSET:-d} $HOME "
    "é\\n$PAI_TASK_ROLE_0_HOST_LIST $PAI_TASK_ROLE_wroker_HOST_LIST "
    "$PAI_CONTAINER_HOST_tb_PORT_LIST $PAI_ps_1_tb_PORT\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"ps\", \"taskNumber\": 2, \"cpuNumber\": 1,\n"
    "      \"memoryMB\": 1024, \"gpuNumber\": 0,\n"
    "      \"portList\": [{\"label\": \"tb\", \"beginAt\": 0, "
    "\"portNumber\": 1}],\n"
    "      \"command\": \"echo $PAI_CONTAINER_HOST_tb_PORT_LIST "
    "$PAI_ps_2_tb_PORT $PAI_worker_1_http_PORT ${PAI_HOST_IP_ps_01} "
    "$PAI_CONTAINER_HOST_tb_PORT_LST\"\n"
    "    }\n"
    "  ]\n"
    "}\n";

static void test_reference_warnings(void **state)
{
	static const struct {
		unsigned line;
		const char *needle, *rule, *message;
	} want[] = {
	    {9, "$PAI_TASK_ROLE_wroker", "unknown-pai-variable",
	     "$PAI_TASK_ROLE_wroker_HOST_LIST is not in the environment "
	     "of the tasks of role 'worker' (did you mean "
	     "$PAI_TASK_ROLE_worker_HOST_LIST?)"},
	    {9, "$batch_sise", "unknown-variable",
	     "$batch_sise is set by neither the cluster, jobEnvs nor the "
	     "command: only the image could provide it (did you mean "
	     "$batch_size?)"},
	    {9, "$PAI_TASK_ROLE_0", "unknown-pai-variable",
	     "$PAI_TASK_ROLE_0_HOST_LIST is not in the environment of "
	     "the tasks of role 'worker' (did you mean "
	     "$PAI_TASK_ROLE_worker_HOST_LIST?)"},
	    /* the label belongs to the other role's tasks */
	    {9, "$PAI_CONTAINER_HOST_tb", "unknown-pai-variable",
	     "$PAI_CONTAINER_HOST_tb_PORT_LIST is not in the environment "
	     "of the tasks of role 'worker' (only the tasks of role 'ps' "
	     "have it)"},
	    {15, "$PAI_ps_2", "unknown-pai-variable",
	     "$PAI_ps_2_tb_PORT is not in the environment of the tasks "
	     "of role 'ps' (role 'ps' has 2 tasks, indexes 0 to 1)"},
	    /* indexes have no leading zeros */
	    {15, "${PAI_HOST_IP_ps_01}", "unknown-pai-variable",
	     "$PAI_HOST_IP_ps_01 is not in the environment of the tasks "
	     "of role 'ps' (did you mean $PAI_HOST_IP_ps_1?)"},
	    {15, "$PAI_CONTAINER_HOST_tb_PORT_LST", "unknown-pai-variable",
	     "$PAI_CONTAINER_HOST_tb_PORT_LST is not in the environment "
	     "of the tasks of role 'ps' (did you mean "
	     "$PAI_CONTAINER_HOST_tb_PORT_LIST?)"},
	};
	const pai_diag *got[16];
	pai_diags *d = NULL;
	pai_job *job = parse_ok(warn_job, &d);
	size_t k, n;

	(void)state;
	n = ref_diags(d, got, NELEM(got));
	assert_int_equal(n, NELEM(want));
	for (k = 0; k < NELEM(want); k++) {
		assert_int_equal(got[k]->severity, PAI_SEVERITY_WARNING);
		assert_string_equal(got[k]->file, "t.json");
		assert_string_equal(got[k]->rule, want[k].rule);
		assert_string_equal(got[k]->message, want[k].message);
		assert_string_equal(got[k]->path, want[k].line == 9
						      ? "taskRoles[0].command"
						      : "taskRoles[1].command");
		assert_int_equal(got[k]->line, want[k].line);
		assert_int_equal(
		    got[k]->column,
		    column_of(warn_job, want[k].line, want[k].needle));
	}
	pai_diags_free(d);
	pai_job_free(job);
}

/* A name is warned of once per command however often it is used, with
 * a few distinct names (told apart one by one) and with more than
 * bash.c's REFS_LINEAR (told apart by a hash set). */
static void test_reference_warned_once(void **state)
{
	char cmd[2048], envs[1024];
	size_t k, n, c = 0, e = 0;
	const pai_diag *got[8];
	pai_diags *d = NULL;
	pai_job *job;
	char *text;

	(void)state;
	e += (size_t)snprintf(envs + e, sizeof(envs) - e, "\"jobEnvs\": {");
	c += (size_t)snprintf(cmd + c, sizeof(cmd) - c,
			      "echo $NOPE_B ${NOPE_B}");
	for (k = 0; k < 40; k++) {
		e += (size_t)snprintf(envs + e, sizeof(envs) - e,
				      "%s\"V%zu\": \"%zu\"", k ? ", " : "", k,
				      k);
		c += (size_t)snprintf(cmd + c, sizeof(cmd) - c, " $V%zu $V%zu",
				      k, k);
	}
	snprintf(envs + e, sizeof(envs) - e, "}");
	snprintf(cmd + c, sizeof(cmd) - c, " $NOPE_A $NOPE_B $NOPE_A");
	text = job_text(cmd, 1, envs);
	job = parse_ok(text, &d);
	n = ref_diags(d, got, NELEM(got));
	assert_int_equal(n, 2);
	assert_non_null(strstr(got[0]->message, "$NOPE_B "));
	assert_non_null(strstr(got[1]->message, "$NOPE_A "));
	pai_diags_free(d);
	pai_job_free(job);
	free(text);
}

/* What commands set themselves, and what every task has, is no warning. */
static void test_no_false_warnings(void **state)
{
	static const char *const quiet[] = {
	    "for f in a b; do echo $f; done",
	    "while read -r line; do echo \"$line\"; done < x",
	    "read -p 'name: ' a b; echo $a $b",
	    "export P=1 Q; local l; declare -a arr; echo $P $Q $l $arr",
	    "printf -v pv %s x; echo $pv",
	    "N=1 cmd $N; M+=x; echo $M",
	    "for ((i=0; i<3; i++)); do echo $i; done",
	    "echo $HOME $PATH $USER $CUDA_VISIBLE_DEVICES $LC_ALL $RANDOM",
	    "echo '$NOPE' \\$NOPE \"\\$NOPE\" ${NOPE:-x} ${NOPE-x} "
	    "${NOPE:=x} ${NOPE+x} ${NOPE:?x} # $NOPE",
	    "cat <<'E'\n$NOPE\nE",
	    "echo $PAI_TASK_ROLE_main_HOST_LIST $PAI_HOST_IP_main_2 "
	    "$PAI_main_0_ssh_PORT $PAI_PORT_LIST_main_1_http "
	    "$PAI_CONTAINER_HOST_http_PORT_LIST $PAI_TASK_ROLE_INDEX "
	    "$PAI_USERNAME $k $PAI_K",
	    "echo $1 $$ $? ${#} ${@} ${!x*}",
	};
	pai_diags *d = NULL;
	const pai_diag *g[4];
	size_t k;

	(void)state;
	for (k = 0; k < NELEM(quiet); k++) {
		char *text = job_text(quiet[k], 3,
				      "\"jobEnvs\": {\"k\": 1, \"PAI_K\": 2}");
		pai_job *job = parse_ok(text, &d);

		if (ref_diags(d, g, NELEM(g)))
			fail_msg("case %zu [%s]: %s", k, quiet[k],
				 g[0]->message);
		pai_diags_free(d);
		pai_job_free(job);
		free(text);
	}
	/* the same job still warns about what it does not set */
	{
		char *text = job_text("for f in a; do echo $f $g; done", 1, "");
		pai_job *job = parse_ok(text, &d);

		assert_int_equal(ref_diags(d, g, NELEM(g)), 1);
		assert_string_equal(g[0]->message,
				    "$g is set by neither the cluster, jobEnvs "
				    "nor the command: only the image could "
				    "provide it");
		pai_diags_free(d);
		pai_job_free(job);
		free(text);
	}
}

/* Another role's names, told by their shape (role names with '_' and
 * digits, labels with '_', implicit labels): each known one passes, each
 * unknown one warns once, naming itself, as when every name was built. */
static void test_role_names_by_shape(void **state)
{
	static const char *const known[] = {
	    "PAI_TASK_ROLE_a_1_HOST_LIST",  "PAI_TASK_ROLE_TASK_COUNT_b2",
	    "PAI_MIN_FAILED_TASK_COUNT_a_1", "PAI_MIN_SUCCEEDED_TASK_COUNT_a",
	    "PAI_HOST_IP_a_1",		    "PAI_HOST_IP_a_1_0",
	    "PAI_PORT_LIST_a_0_p_1",	    "PAI_a_1_p_1_PORT",
	    "PAI_b2_2_http_PORT",	    "PAI_PORT_LIST_a_1_0_ssh",
	};
	static const char *const unknown[] = {
	    "PAI_HOST_IP_a_2",	      "PAI_HOST_IP_a_1_1",
	    "PAI_PORT_LIST_b2_0_tb",  "PAI_b2_03_ssh_PORT",
	    "PAI_TASK_ROLE_c_HOST_LIST", "PAI_a_0_p_PORT",
	    "PAI_PORT_LIST_a_1_1_ssh",	"PAI_HOST_IP_b2_",
	};
	char cmd[2048], text[4096];
	const pai_diag *got[16];
	pai_diags *d = NULL;
	pai_job *job;
	size_t k, n = 0, i;

	(void)state;
	for (k = 0; k < NELEM(known); k++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "$%s ",
				      known[k]);
	for (k = 0; k < NELEM(unknown); k++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "${%s} ",
				      unknown[k]);
	snprintf(text, sizeof(text),
		 "{\"jobName\": \"t\", \"image\": \"img\", \"taskRoles\": ["
		 "{\"name\": \"a\", \"taskNumber\": 2, \"cpuNumber\": 1, "
		 "\"memoryMB\": 1024, \"gpuNumber\": 0, \"command\": \"%s\", "
		 "\"portList\": [{\"label\": \"p_1\", \"beginAt\": 0, "
		 "\"portNumber\": 1}]},"
		 "{\"name\": \"a_1\", \"taskNumber\": 1, \"cpuNumber\": 1, "
		 "\"memoryMB\": 1024, \"gpuNumber\": 0, \"command\": \"true\"},"
		 "{\"name\": \"b2\", \"taskNumber\": 3, \"cpuNumber\": 1, "
		 "\"memoryMB\": 1024, \"gpuNumber\": 0, \"command\": \"true\"}"
		 "]}",
		 cmd);
	job = parse_ok(text, &d);
	n = ref_diags(d, got, NELEM(got));
	assert_int_equal(n, NELEM(unknown));
	for (k = 0; k < NELEM(unknown); k++) {
		char want[128];

		snprintf(want, sizeof(want), "$%s is not in the environment",
			 unknown[k]);
		for (i = 0; i < n; i++)
			if (strncmp(got[i]->message, want, strlen(want)) == 0)
				break;
		if (i == n)
			fail_msg("no warning for $%s", unknown[k]);
	}
	pai_diags_free(d);
	pai_job_free(job);
}

static void test_seed_example_is_clean(void **state)
{
	pai_diags *d = NULL;
	pai_job *job = parse_ok(tf_job, &d);
	const pai_diag *g[4];

	(void)state;
	assert_int_equal(ref_diags(d, g, NELEM(g)), 0);
	pai_diags_free(d);
	pai_job_free(job);
}

/* A taskNumber far too large to spell out: the check stays fast and
 * exact, and expansion refuses. */
static void test_huge_task_number(void **state)
{
	char *text = job_text("echo $PAI_HOST_IP_main_49999999 "
			      "$PAI_HOST_IP_main_50000000",
			      50000000, "");
	pai_env *env = (pai_env *)&env;
	pai_diags *d = NULL;
	pai_job *job = parse_ok(text, &d);
	const pai_diag *g[4];

	(void)state;
	assert_int_equal(ref_diags(d, g, NELEM(g)), 1);
	assert_string_equal(
	    g[0]->message,
	    "$PAI_HOST_IP_main_50000000 is not in the environment"
	    " of the tasks of role 'main' (role 'main' has "
	    "50000000 tasks, indexes 0 to 49999999)");
	assert_int_equal(pai_expand_task(&env, job, 0, 7, NULL), PAI_ETOOBIG);
	assert_null(env);
	pai_diags_free(d);
	pai_job_free(job);
	free(text);
}

/* Each allocation of an expansion failing in turn: PAI_ENOMEM, or the
 * very environment of a run without failure, and nothing leaked (make
 * check-asan). */
static void test_out_of_memory(void **state)
{
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_job *job = parse_ok(tf_job, NULL);
	pai_env *env0 = NULL, *env;
	pai_dirs *dirs;
	size_t i;
	long n;
	int err, failed;

	(void)state;
	o.user = "alice";
	assert_int_equal(pai_expand_task(&env0, job, 1, 1, &o), PAI_OK);
	for (n = 0;; n++) {
		env = NULL;
		alloc_fail_begin(n, 1);
		err = pai_expand_task(&env, job, 1, 1, &o);
		failed = alloc_fail_end();
		if (err == PAI_ENOMEM) {
			assert_null(env);
		} else {
			assert_int_equal(err, PAI_OK);
			assert_int_equal(pai_env_count(env),
					 pai_env_count(env0));
			for (i = 0; i < pai_env_count(env); i++) {
				assert_string_equal(pai_env_name(env, i),
						    pai_env_name(env0, i));
				assert_string_equal(pai_env_value(env, i),
						    pai_env_value(env0, i));
			}
			assert_string_equal(pai_env_command(env),
					    pai_env_command(env0));
		}
		pai_env_free(env);
		if (!failed)
			break;
	}
	for (n = 0;; n++) {
		dirs = NULL;
		alloc_fail_begin(n, 1);
		err = pai_expand_dirs(&dirs, job, &o);
		failed = alloc_fail_end();
		assert_true(err == PAI_OK ? dirs != NULL
					  : err == PAI_ENOMEM && !dirs);
		pai_dirs_free(dirs);
		if (!failed)
			break;
	}
	pai_env_free(env0);
	pai_job_free(job);
}

static void test_bad_arguments(void **state)
{
	pai_expand_options o = PAI_EXPAND_OPTIONS_INIT;
	pai_job *job = parse_ok(tf_job, NULL);
	pai_env *env = (pai_env *)&env;
	pai_dirs *dirs = (pai_dirs *)&dirs;

	(void)state;
	assert_int_equal(pai_expand_task(&env, job, 2, 0, NULL), PAI_EINVAL);
	assert_null(env);
	env = (pai_env *)&env;
	assert_int_equal(pai_expand_task(&env, job, 1, 2, NULL), PAI_EINVAL);
	assert_null(env);
	assert_int_equal(pai_expand_task(&env, NULL, 0, 0, NULL), PAI_EINVAL);
	assert_int_equal(pai_expand_task(NULL, job, 0, 0, NULL), PAI_EINVAL);
	o.version = 99;
	assert_int_equal(pai_expand_task(&env, job, 0, 0, &o), PAI_EINVAL);
	assert_int_equal(pai_expand_dirs(&dirs, job, &o), PAI_EINVAL);
	assert_null(dirs);
	assert_int_equal(pai_expand_dirs(&dirs, NULL, NULL), PAI_EINVAL);
	assert_int_equal(pai_env_count(NULL), 0);
	assert_null(pai_env_get(NULL, "PAI_JOB_NAME"));
	assert_null(pai_env_command(NULL));
	assert_string_equal(pai_dirs_data_dir(NULL), "");
	pai_env_free(NULL);
	pai_dirs_free(NULL);
	pai_job_free(job);
}

/* ---- the corpus --------------------------------------------------------- */

/* Every config users wrote: the reference check never raises an error,
 * and it finds the old names the corpus is known to use. */
static void test_corpus(void **state)
{
	const char *dir = test_corpus_dir("PAI_CORPUS", "the corpus's "
							"references");
	size_t files = 0, old_host_lists = 0, aii = 0, hadoop = 0, i;
	struct dirent *e;
	DIR *dp;

	(void)state;
	if (!dir || !(dp = opendir(dir)))
		skip();
	while ((e = readdir(dp))) {
		size_t n = strlen(e->d_name), len = 0;
		char path[4096], *text = NULL;
		pai_diags *d = NULL;
		pai_job *job = NULL;

		if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		assert_int_equal(pai_file_read(&text, &len, NULL, path),
				 PAI_OK);
		assert_int_equal(pai_diags_new(&d), PAI_OK);
		pai_job_parse(&job, d, e->d_name, text, len, NULL);
		for (i = 0; i < pai_diags_count(d); i++) {
			const pai_diag *g = pai_diags_get(d, i);

			if (!is_ref_rule(g->rule))
				continue;
			if (g->severity != PAI_SEVERITY_WARNING)
				fail_msg("%s:%u:%u: %s", path, g->line,
					 g->column, g->message);
			assert_true(g->line > 0);
			old_host_lists +=
			    strstr(g->message, "$PAI_TASK_ROLE_0_HOST_LIST") ==
			    g->message;
			aii += strncmp(g->message, "$AII_", 5) == 0;
			hadoop +=
			    strncmp(g->message, "$HADOOP_HDFS_HOME", 17) == 0;
		}
		files++;
		pai_job_free(job);
		pai_diags_free(d);
		free(text);
	}
	closedir(dp);
	assert_true(files > 100);
	assert_true(old_host_lists > 0);
	assert_true(aii > 0);
	assert_true(hadoop > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dirs_substitution),
	    cmocka_unit_test(test_tf_names_in_order),
	    cmocka_unit_test(test_tf_every_variable),
	    cmocka_unit_test(test_aliases_equal_primaries),
	    cmocka_unit_test(test_placement),
	    cmocka_unit_test(test_ports),
	    cmocka_unit_test(test_job_envs),
	    cmocka_unit_test(test_command_expansion),
	    cmocka_unit_test(test_large_command),
	    cmocka_unit_test(test_many_unknown_names),
	    cmocka_unit_test(test_reference_warnings),
	    cmocka_unit_test(test_no_false_warnings),
	    cmocka_unit_test(test_role_names_by_shape),
	    cmocka_unit_test(test_seed_example_is_clean),
	    cmocka_unit_test(test_huge_task_number),
	    cmocka_unit_test(test_out_of_memory),
	    cmocka_unit_test(test_reference_warned_once),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
