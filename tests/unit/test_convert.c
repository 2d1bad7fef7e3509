/* test_convert.c - pai_job_convert(): v1 JSON to protocol-v2 YAML with
 * OpenPAI's converter's mapping, comments kept, quoting js-yaml cannot
 * misread, every refusal with its place, and v2 back to v1. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "convert/convert.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char base[] =
    "{\n"
    "  // the job\n"
    "  \"jobName\": \"hello\",\n"
    "  \"image\": \"debian:stable\",\n"
    "  \"retryCount\": 2,\n"
    "  \"virtualCluster\": \"vc1\",\n"
    "  \"taskRoles\": [\n"
    "    {\n"
    "      \"name\": \"main\",\n"
    "      /* four\n       * tasks */\n"
    "      \"taskNumber\": 4,\n"
    "      \"cpuNumber\": 1, \"memoryMB\": 1024, \"gpuNumber\": 0,\n"
    "      \"minSucceededTaskCount\": 2,\n"
    "      \"command\": \"echo hi\"\n"
    "    }\n"
    "  ]\n"
    "}\n";

static const char base_v2[] =
    "protocolVersion: '2'\n"
    "# the job\n"
    "name: hello\n"
    "type: job\n"
    "jobRetryCount: 2\n"
    "prerequisites:\n"
    "  - name: default\n"
    "    type: dockerimage\n"
    "    uri: debian:stable\n"
    "taskRoles:\n"
    "  main:\n"
    "    # four\n"
    "    # tasks\n"
    "    instances: 4\n"
    "    completion:\n"
    "      minFailedInstances: 1\n"
    "      minSucceededInstances: 2\n"
    "    dockerImage: default\n"
    "    extraContainerOptions:\n"
    "      shmMB: 64\n"
    "    resourcePerInstance:\n"
    "      cpu: 1\n"
    "      memoryMB: 1024\n"
    "      gpu: 0\n"
    "    commands:\n"
    "      - echo hi\n"
    "defaults:\n"
    "  virtualCluster: vc1\n";

/* Converts text; returns the result (or NULL) and the error in *err. */
static char *conv(const char *text, pai_format to, int *err,
		  pai_diags **diags)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	char *out = NULL;

	assert_int_equal(pai_diags_new(diags), PAI_OK);
	*err = pai_job_convert(&out, NULL, *diags, "job.json", text,
			       strlen(text), &o, to);
	return out;
}

/* The first diagnostic with rule, or NULL. */
static const pai_diag *find_rule(const pai_diags *d, const char *rule)
{
	size_t i;

	for (i = 0; i < pai_diags_count(d); i++)
		if (!strcmp(pai_diags_get(d, i)->rule, rule))
			return pai_diags_get(d, i);
	return NULL;
}

/* base with `from` replaced by `to`. */
static char *edit(const char *from, const char *to)
{
	const char *p = strstr(base, from);
	size_t n;
	char *s;

	assert_non_null(p);
	n = strlen(base) - strlen(from) + strlen(to) + 1;
	s = malloc(n);
	assert_non_null(s);
	snprintf(s, n, "%.*s%s%s", (int)(p - base), base, to, p + strlen(from));
	return s;
}

static void test_basic_mapping(void **state)
{
	pai_diags *d;
	int err;
	char *out = conv(base, PAI_FORMAT_V2, &err, &d);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_string_equal(out, base_v2);
	assert_int_equal(pai_diags_count(d), 0);
	free(out);
	pai_diags_free(d);
}

static void test_dirs_envs_ports(void **state)
{
	char *in = edit("\"retryCount\": 2,",
			"\"retryCount\": 2, \"dataDir\": \"hdfs://nn/d\", "
			"\"codeDir\": \"hdfs://nn/c\", \"jobEnvs\": {\"A\": "
			"\"yes\", \"B\": \"it's <%x%>\", \"C\": 010, \"D\": "
			"\"1:20\", \"E\": \"~\", \"F\": \"a: b\", \"G\": "
			"\"*x\", \"H\": true, \"I\": \"\"},");
	char *in2, *out;
	pai_diags *d;
	int err;

	(void)state;
	in2 = strdup(in);
	free(in);
	/* 010 is not JSON: make it a number */
	memcpy(strstr(in2, "010"), " 10", 3);
	out = conv(in2, PAI_FORMAT_V2, &err, &d);
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(out, "  - name: default\n    type: data\n"
				    "    uri:\n      - hdfs://nn/d\n"));
	assert_non_null(strstr(out, "    type: script\n    uri: hdfs://nn/c\n"));
	assert_null(strstr(out, "type: output"));
	assert_non_null(strstr(out, "parameters:\n  A: 'yes'\n"
				    "  B: it's <%x%>\n  C: 10\n"
				    "  D: '1:20'\n  E: '~'\n  F: 'a: b'\n"
				    "  G: '*x'\n  H: true\n  I: ''\n"));
	assert_non_null(strstr(out, "    data: default\n    script: default\n"));
	assert_non_null(strstr(
	    out, "          - export PAI_DATA_DIR=<% $data.uri[0] %>\n"
		 "          - export PAI_CODE_DIR=<% $script.uri %>\n"
		 "          - export A=yes\n"
		 "          - export B='it'\\''s <''%x%>'\n"
		 "          - export C=10\n"
		 "          - export D=1:20\n"
		 "          - export E='~'\n"
		 "          - 'export F=''a: b'''\n"
		 "          - export G='*x'\n"
		 "          - export H=true\n"
		 "          - export I=''\n"));
	assert_non_null(strstr(out, "  deployment: default\n"));
	free(out);
	free(in2);
	pai_diags_free(d);
}

static void test_completion_null(void **state)
{
	char *in = edit("\"minSucceededTaskCount\": 2,",
			"\"minFailedTaskCount\": null, "
			"\"minSucceededTaskCount\": null,");
	pai_diags *d;
	int err;
	char *out = conv(in, PAI_FORMAT_V2, &err, &d);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(out, "    # minFailedTaskCount null: failed "
				    "tasks never fail the job (-1)\n"
				    "    completion:\n"
				    "      minFailedInstances: -1\n"
				    "      minSucceededInstances: null\n"));
	free(out);
	free(in);
	pai_diags_free(d);
}

static void test_multiline_command(void **state)
{
	char *in = edit("\"echo hi\"", "\"set -e\\necho 'yes'\\n\"");
	pai_diags *d;
	int err;
	char *out = conv(in, PAI_FORMAT_V2, &err, &d);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(out, "    commands:\n      - |\n"
				    "        set -e\n        echo 'yes'\n"));
	free(out);
	free(in);
	pai_diags_free(d);
}

struct refusal {
	const char *from, *to, *rule;
	unsigned line, column;
	int error;
};

static void test_refusals_and_warnings(void **state)
{
	static const struct refusal cases[] = {
	    {"\"hello\"", "\"hel.lo\"", PAI__RULE_NO_V2, 3, 14, 1},
	    {"\"main\"", "\"ma.in\"", PAI__RULE_NO_V2, 9, 15, 1},
	    {"\"echo hi\"", "\"echo <% x %>\"", PAI__RULE_TEMPLATE, 15, 24, 1},
	    {"\"retryCount\": 2", "\"retryCount\": -1", PAI__RULE_RETRY, 5,
	     17, 0},
	    {"\"retryCount\": 2", "\"retryCount\": 0, \"authFile\": \"hdfs://a\"",
	     PAI__RULE_AUTH_FILE, 5, 32, 0},
	    {"\"retryCount\": 2", "\"gpuType\": \"k80\"", PAI__RULE_DROPPED, 5,
	     14, 0},
	    {"\"gpuNumber\": 0,",
	     "\"gpuNumber\": 0, \"portList\": [{\"label\": \"web\", "
	     "\"beginAt\": 8080, \"portNumber\": 1}],",
	     PAI__RULE_BEGIN_AT, 13, 98, 0},
	    {"\"gpuNumber\": 0,",
	     "\"gpuNumber\": 0, \"portList\": [{\"label\": \"w.b\", "
	     "\"beginAt\": 0, \"portNumber\": 1}],",
	     PAI__RULE_NO_V2, 13, 80, 1},
	    {"\"retryCount\": 2", "\"jobEnvs\": {\"a.b\": 1}",
	     PAI__RULE_ENV_NAME, 5, 22, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *in = edit(cases[i].from, cases[i].to), *out;
		const pai_diag *dg;
		pai_diags *d;
		int err;

		out = conv(in, PAI_FORMAT_V2, &err, &d);
		dg = find_rule(d, cases[i].rule);
		if (!dg)
			print_message("case %zu: no %s\n", i, cases[i].rule);
		assert_non_null(dg);
		assert_int_equal(err, cases[i].error ? PAI_EINVALID : PAI_OK);
		assert_int_equal(dg->severity, cases[i].error
						   ? PAI_SEVERITY_ERROR
						   : PAI_SEVERITY_WARNING);
		if (dg->line != cases[i].line || dg->column != cases[i].column)
			print_message("case %zu: %u:%u %s\n", i, dg->line,
				      dg->column, dg->excerpt);
		assert_int_equal(dg->line, cases[i].line);
		assert_int_equal(dg->column, cases[i].column);
		assert_true(cases[i].error ? out == NULL : out != NULL);
		free(out);
		free(in);
		pai_diags_free(d);
	}
}

static void test_invalid_input(void **state)
{
	pai_diags *d;
	int err;
	char *out = conv("{\"jobName\": 1}", PAI_FORMAT_V2, &err, &d);

	(void)state;
	assert_int_equal(err, PAI_EINVALID);
	assert_null(out);
	pai_diags_free(d);
	out = conv(base, PAI_FORMAT_AUTO, &err, &d);
	assert_int_equal(err, PAI_EINVAL);
	pai_diags_free(d);
}

/* ---- v2 -> v1, on loaded documents (no YAML loader needed) ---------- */

static const char v2doc[] =
    "{\"protocolVersion\": 2, \"name\": \"j\", \"type\": \"job\","
    " \"jobRetryCount\": 1,"
    " \"parameters\": {\"LR\": 0.5, \"N\": \"x y\"},"
    " \"prerequisites\": [{\"name\": \"img\", \"type\": \"dockerimage\","
    "   \"uri\": \"ubuntu\"}, {\"name\": \"d\", \"type\": \"data\","
    "   \"uri\": [\"hdfs://d\"]}],"
    " \"taskRoles\": {\"w\": {\"instances\": 2, \"dockerImage\": \"img\","
    "   \"data\": \"d\", \"resourcePerInstance\": {\"cpu\": 1,"
    "   \"memoryMB\": 1000, \"gpu\": 0, \"ports\": {\"web\": 2}},"
    "   \"completion\": {\"minFailedInstances\": -1},"
    "   \"commands\": [\" run <% $parameters.LR %> \","
    "                  \"cat <% $data.uri[0] %> <% $secrets.x %>\"]}},"
    " \"deployments\": [{\"name\": \"dep\", \"taskRoles\": {\"w\":"
    "   {\"preCommands\": [\"export N='x y'\","
    "    \"export PAI_DATA_DIR=<% $data.uri[0] %>\"]}}}],"
    " \"defaults\": {\"deployment\": \"dep\", \"virtualCluster\": \"vc\"},"
    " \"extras\": {\"gangAllocation\": true}}";

static json_t *v2_to_v1(const char *doc, pai_diags **d, int *err)
{
	json_t *root = json_loads(doc, 0, NULL), *v1 = NULL;

	assert_non_null(root);
	assert_int_equal(pai_diags_new(d), PAI_OK);
	*err = pai__v2_to_v1_json(&v1, *d, NULL, NULL, root);
	json_decref(root);
	return v1;
}

static void test_v2_to_v1(void **state)
{
	pai_diags *d;
	int err;
	json_t *v1 = v2_to_v1(v2doc, &d, &err);
	char *s;

	(void)state;
	assert_int_equal(err, PAI_OK);
	s = json_dumps(v1, JSON_COMPACT);
	assert_string_equal(
	    s, "{\"jobName\":\"j\",\"image\":\"ubuntu\",\"dataDir\":"
	       "\"hdfs://d\",\"virtualCluster\":\"vc\",\"retryCount\":1,"
	       "\"jobEnvs\":{\"LR\":0.5,\"N\":\"x y\"},\"taskRoles\":[{"
	       "\"name\":\"w\",\"taskNumber\":2,\"cpuNumber\":1,"
	       "\"memoryMB\":1000,\"gpuNumber\":0,\"shmMB\":512,"
	       "\"portList\":[{\"label\":\"web\",\"beginAt\":0,"
	       "\"portNumber\":2}],\"command\":\"run 0.5\\ncat hdfs://d <% "
	       "$secrets.x %>\",\"minFailedTaskCount\":null,"
	       "\"minSucceededTaskCount\":null}],\"extras\":{"
	       "\"gangAllocation\":true}}");
	free(s);
	json_decref(v1);
	pai_diags_free(d);
}

static void test_v2_to_v1_refusals(void **state)
{
	static const char *const edits[][2] = {
	    {"\"jobRetryCount\": 1,", "\"secrets\": {\"a\": \"b\"},"},
	    {"\"uri\": \"ubuntu\"}", "\"uri\": \"u\", \"auth\": {}}"},
	    {"\"gangAllocation\": true",
	     "\"com.microsoft.pai.runtimeplugin\": [{\"plugin\": \"ssh\"},"
	     " {\"plugin\": \"tensorboard\"}]"},
	    {"\"gangAllocation\": true", "\"hivedScheduler\": {}"},
	    {"\"instances\": 2,", "\"instances\": 2, \"taskRetryCount\": 1,"},
	    {"\"cpu\": 1,", "\"cpu\": 0,"},
	    {"\"uri\": [\"hdfs://d\"]", "\"uri\": [\"a\", \"b\"]"},
	    {"\"commands\": [", "\"prerequisites\": [\"d\"], \"commands\": ["},
	    {"<% $parameters.LR %>", "<%#a%>x<%/a%>"},
	    {"{\"minFailedInstances\": -1}", "{\"minFailedInstances\": 3}"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		const char *p = strstr(v2doc, edits[i][0]);
		char buf[4096];
		pai_diags *d;
		json_t *v1;
		int err;

		assert_non_null(p);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - v2doc), v2doc,
			 edits[i][1], p + strlen(edits[i][0]));
		v1 = v2_to_v1(buf, &d, &err);
		if (err != PAI_EINVALID)
			print_message("edit %zu not refused\n", i);
		assert_int_equal(err, PAI_EINVALID);
		assert_null(v1);
		assert_non_null(find_rule(d, PAI__RULE_NO_V1));
		pai_diags_free(d);
	}
}

/* Edits v2doc: the first occurrence of `from` becomes `to`. */
static json_t *v2_edited(const char *from, const char *to, pai_diags **d,
			 int *err)
{
	const char *p = strstr(v2doc, from);
	char buf[4096];

	assert_non_null(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - v2doc), v2doc, to,
		 p + strlen(from));
	return v2_to_v1(buf, d, err);
}

/* The default deployment's other pre- and postCommands run around the
 * commands, as in the server's entrypoint; the exports of jobEnvs and
 * dirs are left to the v1 cluster. */
static void test_v2_to_v1_folds_deployment(void **state)
{
	pai_diags *d;
	int err;
	json_t *v1 = v2_edited(
	    "\"export N='x y'\",",
	    "\"export N='x y'\", \" apt-get install <% $parameters.N %>\",",
	    &d, &err);
	json_t *role;

	(void)state;
	assert_int_equal(err, PAI_OK);
	role = json_array_get(json_object_get(v1, "taskRoles"), 0);
	assert_string_equal(
	    json_string_value(json_object_get(role, "command")),
	    "apt-get install x y\nrun 0.5\ncat hdfs://d <% $secrets.x %>");
	json_decref(v1);
	pai_diags_free(d);
	v1 = v2_edited("\"export PAI_DATA_DIR=<% $data.uri[0] %>\"]",
		       "\"export PAI_DATA_DIR=<% $data.uri[0] %>\"],"
		       " \"postCommands\": [\"echo done\"]",
		       &d, &err);
	assert_int_equal(err, PAI_OK);
	role = json_array_get(json_object_get(v1, "taskRoles"), 0);
	assert_string_equal(
	    json_string_value(json_object_get(role, "command")),
	    "run 0.5\ncat hdfs://d <% $secrets.x %>\necho done");
	json_decref(v1);
	pai_diags_free(d);
}

/* An ssh-only runtime plugin list is left out with a warning (a v0.x
 * cluster gives SSH itself), and the v1 extras keep the rest. */
static void test_v2_to_v1_ssh_plugin(void **state)
{
	pai_diags *d;
	int err;
	json_t *v1 = v2_edited(
	    "\"gangAllocation\": true",
	    "\"gangAllocation\": true, \"com.microsoft.pai.runtimeplugin\":"
	    " [{\"plugin\": \"ssh\", \"parameters\": {\"jobssh\": true}}]",
	    &d, &err);
	const pai_diag *w;

	(void)state;
	assert_int_equal(err, PAI_OK);
	w = find_rule(d, PAI__RULE_DROPPED);
	assert_non_null(w);
	assert_int_equal(w->severity, PAI_SEVERITY_WARNING);
	assert_non_null(strstr(w->message, "ssh runtime plugin"));
	assert_null(json_object_get(json_object_get(v1, "extras"),
				    "com.microsoft.pai.runtimeplugin"));
	assert_true(json_is_true(json_object_get(
	    json_object_get(v1, "extras"), "gangAllocation")));
	json_decref(v1);
	pai_diags_free(d);
}

static void test_v2_two_images(void **state)
{
	const char *doc =
	    "{\"name\": \"j\", \"prerequisites\": [{\"name\": \"a\", \"type\": "
	    "\"dockerimage\", \"uri\": \"x\"}, {\"name\": \"b\", \"type\": "
	    "\"dockerimage\", \"uri\": \"y\"}], \"taskRoles\": {\"r\": "
	    "{\"dockerImage\": \"a\", \"resourcePerInstance\": {\"cpu\": 1, "
	    "\"memoryMB\": 512, \"gpu\": 0}, \"commands\": [\"a\"]}, \"s\": "
	    "{\"dockerImage\": \"b\", \"resourcePerInstance\": {\"cpu\": 1, "
	    "\"memoryMB\": 1024, \"gpu\": 0}, \"commands\": [\"b\"]}}}";
	pai_diags *d;
	int err;
	json_t *v1 = v2_to_v1(doc, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_EINVALID);
	assert_null(v1);
	assert_non_null(strstr(pai_diags_get(d, 0)->message,
			       "roles 'r' and 's' use different dockerimage"));
	pai_diags_free(d);
}

/* ---- corpora ---------------------------------------------------------- */

/* v2 text `out`, converted from `job`, converts back to v1 with the same
 * roles, counts and resources. */
static void round_trip(const char *path, const pai_job_options *o,
		       const pai_job *job, const char *out, size_t olen)
{
	pai_job *back = NULL;
	pai_diags *d = NULL;
	char *v1 = NULL;
	size_t i;

	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(
	    pai_job_convert(&v1, NULL, d, path, out, olen, o, PAI_FORMAT_V1),
	    PAI_OK);
	assert_int_equal(pai_job_parse(&back, d, path, v1, strlen(v1), o),
			 PAI_OK);
	assert_int_equal(pai_job_role_count(job), pai_job_role_count(back));
	for (i = 0; i < pai_job_role_count(job); i++) {
		pai_role a, b;

		pai_job_role(&a, job, i);
		pai_job_role(&b, back, i);
		assert_string_equal(a.name, b.name);
		assert_int_equal(a.task_number, b.task_number);
		assert_int_equal(a.cpu_number, b.cpu_number);
		assert_int_equal(a.memory_mb, b.memory_mb);
		assert_int_equal(a.gpu_number, b.gpu_number);
		assert_string_equal(a.command, b.command);
	}
	pai_job_free(back);
	pai_diags_free(d);
	free(v1);
}

/* Every valid v1 config of dir converts; with the loader, its output
 * validates (pai_job_convert checks it) and converts back to the same
 * roles, resources and commands. Returns how many converted. */
static size_t convert_dir(const char *dir, size_t *valid, size_t *back)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	*valid = *back = 0;
	if (!dp)
		return 0;
	while ((de = readdir(dp)) != NULL) {
		pai_job_options o = PAI_JOB_OPTIONS_INIT;
		char path[4096], *text = NULL, *out = NULL;
		pai_job *job = NULL;
		size_t len, olen;
		pai_diags *d;
		int err;

		if (!strstr(de->d_name, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(pai_file_read(&text, &len, NULL, path), 0);
		pai_diags_new(&d);
		if (strstr(de->d_name, "scm"))
			o.dialect = PAI_DIALECT_SCM;
		if (pai_job_parse(&job, d, path, text, len, &o) == PAI_OK) {
			(*valid)++;
			err = pai_job_convert(&out, &olen, d, path, text, len,
					      &o, PAI_FORMAT_V2);
			if (err)
				print_message("%s: %s\n", path,
					      pai_strerror(err));
			assert_int_equal(err, PAI_OK);
			n++;
			round_trip(path, &o, job, out, olen);
			(*back)++;
		}
		pai_job_free(job);
		free(out);
		free(text);
		pai_diags_free(d);
	}
	closedir(dp);
	return n;
}

static void test_corpus(void **state)
{
	const char *dir = test_corpus_dir("PAI_CORPUS", "the v0.x corpus "
							"to v2 and back");
	size_t valid, back, n;

	(void)state;
	if (!dir)
		skip();
	n = convert_dir(dir, &valid, &back);
	print_message("corpus: %zu valid v1 configs, %zu converted to v2, "
		      "%zu back to v1\n",
		      valid, n, back);
	assert_int_equal(n, valid);
	assert_true(valid > 100);
}

static void test_examples(void **state)
{
	const char *src = getenv("PAI_SRCDIR");
	char dir[4096];
	size_t valid, back, n;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/examples", src ? src : ".");
	n = convert_dir(dir, &valid, &back);
	print_message("examples: %zu valid, %zu converted, %zu back\n", valid,
		      n, back);
	assert_int_equal(n, valid);
	assert_true(valid >= 4);
}

/* One valid v2 file: it converts to v1 (or is refused with an error
 * diagnostic naming why), and what v1 gives converts back to v2 with
 * the same roles, counts, resources and rendered commands. Returns 1
 * when it went there and back. */
static int v2_round_trip(const char *path)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_job *job = NULL, *v1job = NULL, *again = NULL;
	char *text = NULL, *v1 = NULL, *v2 = NULL;
	pai_diags *d = NULL;
	size_t len, i;
	int err, ok = 0;

	o.format = PAI_FORMAT_V2;
	o.scheduler = PAI_SCHEDULER_DEFAULT;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_file_read(&text, &len, NULL, path), PAI_OK);
	if (pai_job_parse(&job, d, path, text, len, &o) != PAI_OK)
		goto out; /* not valid: nothing to convert */
	err = pai_job_convert(&v1, NULL, d, path, text, len, &o, PAI_FORMAT_V1);
	if (err) {
		assert_int_equal(err, PAI_EINVALID);
		assert_true(pai_diags_errors(d) > 0);
		goto out;
	}
	o.format = PAI_FORMAT_V1;
	assert_int_equal(pai_job_parse(&v1job, d, path, v1, strlen(v1), &o),
			 PAI_OK);
	assert_int_equal(pai_job_convert(&v2, NULL, d, path, v1, strlen(v1),
					 &o, PAI_FORMAT_V2),
			 PAI_OK);
	o.format = PAI_FORMAT_V2;
	assert_int_equal(pai_job_parse(&again, d, path, v2, strlen(v2), &o),
			 PAI_OK);
	assert_int_equal(pai_job_role_count(job), pai_job_role_count(again));
	for (i = 0; i < pai_job_role_count(job); i++) {
		pai_role a, b;

		pai_job_role(&a, job, i);
		pai_job_role(&b, again, i);
		assert_string_equal(a.name, b.name);
		assert_int_equal(a.task_number, b.task_number);
		assert_int_equal(a.cpu_number, b.cpu_number);
		assert_int_equal(a.memory_mb, b.memory_mb);
		assert_int_equal(a.gpu_number, b.gpu_number);
		assert_int_equal(a.port_count, b.port_count);
	}
	ok = 1;
out:
	pai_job_free(job);
	pai_job_free(v1job);
	pai_job_free(again);
	pai_diags_free(d);
	free(text);
	free(v1);
	free(v2);
	return ok;
}

/* Every file of the v2 corpus that is valid goes to v1 and back, or is
 * refused with a reason; most real jobs can be said in v1. */
static void test_corpus_v2(void **state)
{
	const char *dir = test_corpus_dir("PAI_CORPUS_V2", "the v2 corpus "
							   "to v1 and back");
	size_t n = 0, there_and_back = 0;
	struct dirent *de;
	DIR *dp;

	(void)state;
	if (!dir || !(dp = opendir(dir))) {
		skip();
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		char path[4096];

		if (!strstr(de->d_name, ".yaml") && !strstr(de->d_name, ".yml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n++;
		there_and_back += v2_round_trip(path);
	}
	closedir(dp);
	print_message("v2 corpus: %zu files, %zu went to v1 and back\n", n,
		      there_and_back);
	assert_true(there_and_back > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic_mapping),
	    cmocka_unit_test(test_dirs_envs_ports),
	    cmocka_unit_test(test_completion_null),
	    cmocka_unit_test(test_multiline_command),
	    cmocka_unit_test(test_refusals_and_warnings),
	    cmocka_unit_test(test_invalid_input),
	    cmocka_unit_test(test_v2_to_v1),
	    cmocka_unit_test(test_v2_to_v1_refusals),
	    cmocka_unit_test(test_v2_to_v1_folds_deployment),
	    cmocka_unit_test(test_v2_to_v1_ssh_plugin),
	    cmocka_unit_test(test_v2_two_images),
	    cmocka_unit_test(test_corpus),
	    cmocka_unit_test(test_examples),
	    cmocka_unit_test(test_corpus_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
