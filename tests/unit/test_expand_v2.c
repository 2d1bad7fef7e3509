/* test_expand_v2.c - a protocol-v2 task's environment and command as an
 * OpenPAI v1.8.0 cluster gives them, and the warnings for references
 * nothing will define. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pai_job *parse_sched(const char *yaml, pai_diags **diags,
			    pai_scheduler sched)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_job *job = NULL;
	int err;

	o.format = PAI_FORMAT_V2;
	o.scheduler = sched;
	assert_int_equal(pai_diags_new(diags), PAI_OK);
	err = pai_job_parse(&job, *diags, "job.yaml", yaml, strlen(yaml), &o);
	if (err) {
		size_t i;

		for (i = 0; i < pai_diags_count(*diags); i++)
			fprintf(stderr, "%u:%u %s\n",
				pai_diags_get(*diags, i)->line,
				pai_diags_get(*diags, i)->column,
				pai_diags_get(*diags, i)->message);
	}
	assert_int_equal(err, PAI_OK);
	return job;
}

static pai_job *parse(const char *yaml, pai_diags **diags)
{
	return parse_sched(yaml, diags, PAI_SCHEDULER_DEFAULT);
}

static pai_env *expand(const pai_job *job, size_t r, size_t i,
		       const pai_placement *pl)
{
	pai_expand_options eo = PAI_EXPAND_OPTIONS_INIT;
	pai_env *env = NULL;

	eo.user = "alice";
	eo.placement = pl;
	assert_int_equal(pai_expand_task(&env, job, r, i, &eo), PAI_OK);
	return env;
}

#define assert_var(env, name, value)                                           \
	do {                                                                   \
		const char *v_ = pai_env_get((env), (name));                   \
		if (!v_)                                                       \
			fail_msg("%s is not set", (name));                     \
		assert_string_equal(v_, (value));                              \
	} while (0)

#define assert_no_var(env, name) assert_null(pai_env_get((env), (name)))

static const char dist[] =
    "protocolVersion: 2\n"
    "name: dist\n"
    "type: job\n"
    "prerequisites:\n"
    "  - {name: img, type: dockerimage, uri: ubuntu}\n"
    "taskRoles:\n"
    "  ps_server:\n"
    "    instances: 2\n"
    "    dockerImage: img\n"
    "    completion: {minSucceededInstances: 1}\n"
    "    resourcePerInstance: {cpu: 2, memoryMB: 8192, gpu: 0}\n"
    "    commands: [echo ps]\n"
    "  Worker:\n"
    "    instances: 3\n"
    "    dockerImage: img\n"
    "    extraContainerOptions: {shmMB: 64}\n"
    "    completion: {minFailedInstances: 2}\n"
    "    resourcePerInstance: {cpu: 4, memoryMB: 16384, gpu: 2,"
    " ports: {tb: 2}}\n"
    "    commands:\n"
    "      - echo $PAI_TASK_ROLE_psserver_HOST_LIST $PAI_TASK_INDEX\n";

static void test_job_level(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(dist, &diags);
	pai_env *env = expand(job, 1, 2, NULL);

	(void)state;
	assert_var(env, "PAI_FRAMEWORK_NAME", "3a2fc59da03c68c40a7379a996467d44");
	assert_var(env, "PAI_JOB_NAME", "alice~dist");
	assert_var(env, "PAI_USER_NAME", "alice");
	assert_var(env, "PAI_USERNAME", "alice");
	assert_var(env, "PAI_DEFAULT_FS_URI", "");
	assert_var(env, "PAI_VIRTUAL_CLUSTER", "default");
	assert_var(env, "PAI_TASK_ROLE_COUNT", "2");
	assert_var(env, "PAI_TASK_ROLES_NUM", "2");
	assert_var(env, "PAI_JOB_TASK_ROLE_COUNT", "2");
	assert_var(env, "PAI_TASK_ROLE_LIST", "ps_server,Worker");
	assert_var(env, "PAI_JOB_TASK_ROLE_LIST", "ps_server,Worker");
	assert_var(env, "PAI_TASKS_NUM", "5");
	assert_var(env, "PAI_JOB_TASK_COUNT", "5");
	/* per role, by the role's own name */
	assert_var(env, "PAI_TASK_ROLE_TASK_COUNT_ps_server", "2");
	assert_var(env, "PAI_TASK_ROLE_TASK_COUNT_Worker", "3");
	/* shmMB as given, 0 (not 512) when absent */
	assert_var(env, "PAI_RESOURCE_ps_server", "0,2,8192,0");
	assert_var(env, "PAI_RESOURCE_Worker", "2,4,16384,64");
	assert_var(env, "PAI_MIN_FAILED_TASK_COUNT_ps_server", "1");
	assert_var(env, "PAI_MIN_SUCCEEDED_TASK_COUNT_ps_server", "1");
	assert_var(env, "PAI_MIN_FAILED_TASK_COUNT_Worker", "2");
	assert_var(env, "PAI_MIN_SUCCEEDED_TASK_COUNT_Worker", "3");
	/* v0.x's names are gone */
	assert_no_var(env, "PAI_DATA_DIR");
	assert_no_var(env, "PAI_JOB_VC_NAME");
	assert_no_var(env, "PAI_CONTAINER_ID");
	assert_no_var(env, "PAI_RESOURCE");
	assert_no_var(env, "PAI_CURRENT_TASK_ROLE_CPU_COUNT");
	assert_no_var(env, "PAI_TASK_ROLE_NAME");
	/* the framework controller's */
	assert_var(env, "FC_FRAMEWORK_NAMESPACE", "default");
	assert_var(env, "FC_TASKROLE_NAME", "worker");
	assert_var(env, "FC_TASK_INDEX", "2");
	assert_var(env, "FC_POD_NAME", "3a2fc59da03c68c40a7379a996467d44-worker-2");
	assert_var(env, "FC_POD_UID", "<container-id:Worker-2>");
	/* the first variable is the first the container gets */
	assert_string_equal(pai_env_name(env, 0), "FC_FRAMEWORK_NAMESPACE");
	assert_string_equal(pai_env_name(env, pai_env_count(env) - 1),
			    "PAI_TASK_ROLE_INSTANCES");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

static const char *ip_of(void *data, size_t r, size_t i)
{
	static char buf[32];

	(void)data;
	snprintf(buf, sizeof(buf), "10.0.%zu.%zu", r, i);
	return buf;
}

static unsigned port_of(void *data, size_t r, size_t i, size_t k, size_t n)
{
	(void)data;
	return (unsigned)(20000 + r * 1000 + i * 100 + k * 10 + n);
}

static void test_task_level(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(dist, &diags);
	pai_placement pl = {NULL, ip_of, NULL, NULL, port_of};
	pai_env *env = expand(job, 1, 1, NULL), *placed;

	(void)state;
	assert_var(env, "PAI_CURRENT_TASK_ROLE_NAME", "Worker");
	assert_var(env, "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "1");
	assert_var(env, "PAI_TASK_INDEX", "1");
	assert_var(env, "PAI_WORK_DIR", "<work-dir:Worker-1>");
	/* the runtime's names use convertName(): psserver, worker */
	assert_var(env, "PAI_HOST_IP_psserver_1", "<ip:ps_server-1>");
	assert_no_var(env, "PAI_HOST_IP_ps_server_1");
	assert_var(env, "PAI_PORT_LIST_worker_2_tb",
		   "<port:Worker-2:tb#0>,<port:Worker-2:tb#1>");
	assert_var(env, "PAI_worker_0_ssh_PORT", "<port:Worker-0:ssh>");
	assert_var(env, "PAI_TASK_ROLE_psserver_HOST_LIST",
		   "<ip:ps_server-0>:<port:ps_server-0:http>,"
		   "<ip:ps_server-1>:<port:ps_server-1:http>");
	assert_var(env, "PAI_CURRENT_CONTAINER_IP", "<ip:Worker-1>");
	assert_var(env, "PAI_CONTAINER_HOST_IP", "<ip:Worker-1>");
	assert_var(env, "PAI_CURRENT_CONTAINER_PORT", "<port:Worker-1:http>");
	assert_var(env, "PAI_CONTAINER_HOST_PORT", "<port:Worker-1:http>");
	assert_var(env, "PAI_CONTAINER_SSH_PORT", "<port:Worker-1:ssh>");
	assert_var(env, "PAI_CONTAINER_HOST_tb_PORT_LIST",
		   "<port:Worker-1:tb#0>,<port:Worker-1:tb#1>");
	/* every label followed by ';', the last one too */
	assert_var(env, "PAI_CONTAINER_HOST_PORT_LIST",
		   "tb:<port:Worker-1:tb#0>,<port:Worker-1:tb#1>;"
		   "ssh:<port:Worker-1:ssh>;http:<port:Worker-1:http>;");
	assert_var(env, "PAI_TASK_ROLE_INSTANCES",
		   "psserver:0,psserver:1,worker:0,worker:1,worker:2");
	assert_string_equal(pai_env_command(env),
			    "echo <ip:ps_server-0>:<port:ps_server-0:http>,"
			    "<ip:ps_server-1>:<port:ps_server-1:http> 1");
	/* ports: label index k in resourcePerInstance order, ssh, http */
	placed = expand(job, 1, 1, &pl);
	assert_var(placed, "PAI_CONTAINER_HOST_PORT_LIST",
		   "tb:21100,21101;ssh:21110;http:21120;");
	assert_var(placed, "PAI_TASK_ROLE_psserver_HOST_LIST",
		   "10.0.0.0:20010,10.0.0.1:20110");
	assert_var(placed, "PAI_HOST_IP_worker_2", "10.0.1.2");
	pai_env_free(placed);
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

static void test_gpu_envs(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(dist, &diags);
	pai_env *env = expand(job, 0, 0, NULL);

	(void)state;
	/* default scheduler: only a CPU role gets "none" */
	assert_var(env, "NVIDIA_VISIBLE_DEVICES", "none");
	assert_no_var(env, "HIVED_VISIBLE_DEVICES");
	pai_env_free(env);
	env = expand(job, 1, 0, NULL);
	assert_no_var(env, "NVIDIA_VISIBLE_DEVICES");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

static const char rendered[] =
    "protocolVersion: 2\n"
    "name: render\n"
    "type: job\n"
    "parameters:\n"
    "  lr: 0.5\n"
    "  big: 1e21\n"
    "  steps: [10, 20]\n"
    "  nested: {a: {b: deep}}\n"
    "  flag: false\n"
    "  word: hello\n"
    "prerequisites:\n"
    "  - {name: img, type: dockerimage, uri: ubuntu}\n"
    "  - {name: code, type: script, uri: 'https://x/code.git'}\n"
    "  - {name: ds, type: data, uri: [hdfs://a, hdfs://b]}\n"
    "  - {name: out, type: output, uri: hdfs://out}\n"
    "defaults: {virtualCluster: vc1}\n"
    "taskRoles:\n"
    "  trainer:\n"
    "    dockerImage: img\n"
    "    script: code\n"
    "    data: ds\n"
    "    output: out\n"
    "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
    "    commands:\n"
    "      - '  echo <% $parameters.lr %> <% $parameters.big %>  '\n"
    "      - echo <% $parameters.steps[1] %> <% $parameters.steps %>"
    " <% $parameters.steps.length %> <% $parameters.word.length %>\n"
    "      - echo <% $parameters.nested.a.b %> <% $parameters.nested %>"
    " <% $parameters.flag %>\n"
    "      - echo <% $script.uri %> <% $data.uri %> <% $output.uri %>"
    " <% $data.uri[0] %> <% $script.name %>\n"
    "      - echo <% $parameters.nope %> <%$secrets.pw%> <% $x %>\n"
    "      - echo $PAI_VIRTUAL_CLUSTER '$PAI_USER_NAME' ${PAI_TASK_INDEX}\n";

static void test_render(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(rendered, &diags);
	pai_env *env = expand(job, 0, 0, NULL);

	(void)state;
	assert_string_equal(
	    pai_env_command(env),
	    "echo 0.5 1e+21\n"
	    "echo 20 10,20 2 5\n"
	    "echo deep [object Object] false\n"
	    "echo https://x/code.git hdfs://a,hdfs://b hdfs://out hdfs://a "
	    "code\n"
	    /* without secrets the runtime leaves the tags as they are */
	    "echo <% $parameters.nope %> <% $secrets.pw %> <% $x %>\n"
	    "echo vc1 '$PAI_USER_NAME' 0");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

static const char secret_job[] =
    "protocolVersion: 2\n"
    "name: sec\n"
    "type: job\n"
    "parameters: {p: 1}\n"
    "secrets:\n"
    "  pw: hunter2\n"
    "  keys: [k0, k1]\n"
    "prerequisites:\n"
    "  - {name: img, type: dockerimage, uri: ubuntu}\n"
    "taskRoles:\n"
    "  a:\n"
    "    dockerImage: img\n"
    "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
    "    commands:\n"
    "      - login <% $secrets.pw %> <% $secrets.keys[1] %> <% $p %>\n"
    "      - echo <% $secrets.none %>x <% $parameters.p %>\n";

static void test_secrets_masked(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(secret_job, &diags);
	pai_env *env = expand(job, 0, 0, NULL);
	size_t i;

	(void)state;
	/* masked; what neither pass resolves is "" with secrets */
	assert_string_equal(
	    pai_env_command(env),
	    "login <secret:$secrets.pw> <secret:$secrets.keys.1> \n"
	    "echo x 1");
	for (i = 0; i < pai_env_count(env); i++)
		assert_null(strstr(pai_env_value(env, i), "hunter2"));
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

static const char deploy_job[] =
    "protocolVersion: 2\n"
    "name: dep\n"
    "type: job\n"
    "parameters: {n: 3}\n"
    "prerequisites:\n"
    "  - {name: img, type: dockerimage, uri: ubuntu}\n"
    "deployments:\n"
    "  - name: other\n"
    "    taskRoles:\n"
    "      a: {preCommands: [echo other]}\n"
    "  - name: prod\n"
    "    taskRoles:\n"
    "      a:\n"
    "        preCommands: ['  export N=<% $parameters.n %>  ', cd /w]\n"
    "        postCommands: [echo $N done]\n"
    "defaults: {deployment: prod}\n"
    "taskRoles:\n"
    "  a:\n"
    "    dockerImage: img\n"
    "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
    "    commands: [run $N]\n"
    "  b:\n"
    "    dockerImage: img\n"
    "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
    "    commands: [only b]\n";

static void test_deployment(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(deploy_job, &diags);
	pai_env *env = expand(job, 0, 0, NULL);

	(void)state;
	assert_string_equal(pai_env_command(env),
			    "export N=3\ncd /w\nrun $N\necho $N done");
	/* N is assigned by a preCommand: no warning */
	assert_int_equal(pai_diags_count(diags), 0);
	pai_env_free(env);
	env = expand(job, 1, 0, NULL);
	assert_string_equal(pai_env_command(env), "only b");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

static const pai_diag *find_diag(const pai_diags *d, const char *needle)
{
	size_t i;

	for (i = 0; i < pai_diags_count(d); i++)
		if (strstr(pai_diags_get(d, i)->message, needle))
			return pai_diags_get(d, i);
	return NULL;
}

static const char warn_job[] =
    "protocolVersion: 2\n"
    "name: warn\n"
    "type: job\n"
    "parameters: {lr: 1}\n"
    "prerequisites:\n"
    "  - {name: img, type: dockerimage, uri: ubuntu}\n"
    "taskRoles:\n"
    "  ps_server:\n"
    "    instances: 2\n"
    "    dockerImage: img\n"
    "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0,"
    " ports: {grpc: 1}}\n"
    "    commands:\n"
    "      - echo <% $parameters.lr %> <% $parameters.nope %> "
    "$PAI_HOST_IP_psserver_1\n"
    "      - \"echo $PAI_TASK_ROLE_ps_server_HOST_LIST "
    "$PAI_HOST_IP_psserver_2\"\n"
    "  worker:\n"
    "    dockerImage: img\n"
    "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
    "    commands:\n"
    "      - |\n"
    "        echo $PAI_DATA_DIR $PAI_JOB_VC_NAME\n"
    "        echo $PAI_CONTAINER_HOST_grpc_PORT_LIST $MYVAR ${OPT:-x} $HOME\n"
    "        X=1; echo $X $PAI_TASK_ROLE_wroker_HOST_LIST\n";

static void test_warnings(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(warn_job, &diags);
	const pai_diag *d;

	(void)state;
	d = find_diag(diags, "$parameters.nope");
	assert_non_null(d);
	assert_int_equal(d->severity, PAI_SEVERITY_WARNING);
	assert_string_equal(d->rule, "unknown-template-reference");
	assert_string_equal(d->path, "taskRoles.ps_server.commands[0]");
	assert_int_equal(d->line, 13);
	assert_int_equal(d->column, 35);
	assert_null(find_diag(diags, "$parameters.lr"));
	assert_null(find_diag(diags, "PAI_HOST_IP_psserver_1 "));
	/* the role's own name where v1.x's runtime uses convertName() */
	d = find_diag(diags, "$PAI_TASK_ROLE_ps_server_HOST_LIST");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "'psserver'"));
	assert_int_equal(d->line, 14);
	assert_int_equal(d->column, 15);
	d = find_diag(diags, "$PAI_HOST_IP_psserver_2");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "indexes 0 to 1"));
	/* a block scalar: found by searching */
	d = find_diag(diags, "$PAI_DATA_DIR");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "v0.x"));
	assert_int_equal(d->line, 20);
	assert_int_equal(d->column, 14);
	d = find_diag(diags, "$PAI_JOB_VC_NAME");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "$PAI_VIRTUAL_CLUSTER"));
	d = find_diag(diags, "$PAI_CONTAINER_HOST_grpc_PORT_LIST");
	assert_non_null(d);
	assert_non_null(
	    strstr(d->message, "only the tasks of role 'ps_server'"));
	d = find_diag(diags, "$MYVAR");
	assert_non_null(d);
	assert_string_equal(d->rule, "unknown-variable");
	assert_int_equal(d->line, 21);
	d = find_diag(diags, "$PAI_TASK_ROLE_wroker_HOST_LIST");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "did you mean "
					   "$PAI_TASK_ROLE_worker_HOST_LIST?"));
	assert_null(find_diag(diags, "$OPT"));
	assert_null(find_diag(diags, "$HOME"));
	assert_null(find_diag(diags, "$X "));
	assert_int_equal(pai_diags_count(diags), 8);
	pai_job_free(job);
	pai_diags_free(diags);
}

static void test_secret_warnings(void **state)
{
	pai_diags *diags;
	pai_job *job = parse(secret_job, &diags);
	const pai_diag *d;

	(void)state;
	d = find_diag(diags, "$secrets.none");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "secrets have no such entry"));
	d = find_diag(diags, "'<% $p %>'");
	assert_non_null(d);
	assert_non_null(strstr(d->message, "empty string"));
	assert_null(find_diag(diags, "$secrets.pw"));
	assert_null(find_diag(diags, "hunter2"));
	pai_job_free(job);
	pai_diags_free(diags);
}

static void test_hived(void **state)
{
	pai_diags *diags;
	pai_job *job = parse_sched(dist, &diags, PAI_SCHEDULER_DEFAULT);
	pai_env *env;

	(void)state;
	pai_job_free(job);
	pai_diags_free(diags);
	/* HiveD needs hivedPodSpec-free jobs too; skip when refused */
	{
		pai_job_options o = PAI_JOB_OPTIONS_INIT;

		o.format = PAI_FORMAT_V2;
		o.scheduler = PAI_SCHEDULER_HIVED;
		assert_int_equal(pai_diags_new(&diags), PAI_OK);
		if (pai_job_parse(&job, diags, "job.yaml", dist, strlen(dist),
				  &o) != PAI_OK) {
			pai_diags_free(diags);
			skip();
		}
	}
	env = expand(job, 0, 0, NULL);
	assert_var(env, "NVIDIA_VISIBLE_DEVICES", "none");
	assert_var(env, "HIVED_VISIBLE_DEVICES", "none");
	pai_env_free(env);
	env = expand(job, 1, 0, NULL);
	assert_var(env, "NVIDIA_VISIBLE_DEVICES", "<gpus:Worker-0>");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(diags);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job_level),
	    cmocka_unit_test(test_task_level),
	    cmocka_unit_test(test_gpu_envs),
	    cmocka_unit_test(test_render),
	    cmocka_unit_test(test_secrets_masked),
	    cmocka_unit_test(test_deployment),
	    cmocka_unit_test(test_warnings),
	    cmocka_unit_test(test_secret_warnings),
	    cmocka_unit_test(test_hived),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
