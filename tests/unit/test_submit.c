/* test_submit.c - what submit changes in a config of either format, the
 * request it makes for a cluster of either API (converted where the
 * formats differ, the user's key in a v2 job's ssh plugin), role names
 * as v1.x reports them, and the API names and the profile's api member.
 * No network: the client's API is set, never asked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char v1_config[] =
    "{\"jobName\": \"j1\", \"image\": \"debian\", \"jobEnvs\": {\"A\": \"1\"},"
    " \"taskRoles\": [{\"name\": \"ps_server\", \"taskNumber\": 1,"
    " \"cpuNumber\": 1, \"memoryMB\": 100, \"gpuNumber\": 0,"
    " \"command\": \"echo $A\"}]}";

static const char v2_config[] = "protocolVersion: 2\n"
				"name: j2\n"
				"type: job\n"
				"prerequisites:\n"
				"  - name: img\n"
				"    type: dockerimage\n"
				"    uri: debian\n"
				"taskRoles:\n"
				"  worker:\n"
				"    instances: 1\n"
				"    dockerImage: img\n"
				"    resourcePerInstance: {cpu: 1, memoryMB: 100, "
				"gpu: 0}\n"
				"    commands: [\"echo <% $parameters.x %>\"]\n";

static json_t *config_of(const char *name, const char *text)
{
	pai_diags *diags = NULL;
	pai_job *job = NULL;
	json_t *cfg;

	assert_int_equal(pai_diags_new(&diags), PAI_OK);
	assert_int_equal(
	    pai_job_parse(&job, diags, name, text, strlen(text), NULL),
	    PAI_OK);
	cfg = json_deep_copy(pai_job_config(job));
	assert_non_null(cfg);
	pai_job_free(job);
	pai_diags_free(diags);
	return cfg;
}

static pai_client *client(pai_api api)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;

	o.uri = "http://127.0.0.1:9/rest-server";
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_client_set_api(c, api), PAI_OK);
	assert_int_equal(pai_client_api(c), api);
	return c;
}

static void test_edits_in_either_format(void **state)
{
	json_t *v1 = config_of("a.json", v1_config);
	json_t *v2 = config_of("a.yaml", v2_config);

	(void)state;
	assert_string_equal(pai_job_config_name(v1), "j1");
	assert_string_equal(pai_job_config_name(v2), "j2");
	assert_int_equal(pai_job_config_rename(v1, "k1"), PAI_OK);
	assert_int_equal(pai_job_config_rename(v2, "k2"), PAI_OK);
	assert_string_equal(
	    json_string_value(json_object_get(v1, "jobName")), "k1");
	assert_string_equal(json_string_value(json_object_get(v2, "name")),
			    "k2");
	assert_null(json_object_get(v2, "jobName"));
	assert_int_equal(pai_job_config_set_env(v1, "B", "2"), PAI_OK);
	assert_int_equal(pai_job_config_set_env(v2, "x", "hi"), PAI_OK);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(v1, "jobEnvs"), "B")),
			    "2");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(v1, "jobEnvs"), "A")),
			    "1");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(v2, "parameters"), "x")),
			    "hi");
	assert_int_equal(pai_job_config_rename(NULL, "x"), PAI_EINVAL);
	assert_int_equal(pai_job_config_set_env(v1, NULL, "x"), PAI_EINVAL);
	json_decref(v1);
	json_decref(v2);
}

/* A v2 config for a v0.x cluster: converted to JSON, to the v1 route. */
static void test_request_v2_config_to_v1_api(void **state)
{
	pai_submit_options so = PAI_SUBMIT_OPTIONS_INIT;
	pai_client *c = client(PAI_API_V1);
	json_t *cfg = config_of("a.yaml", v2_config), *sent;
	char *method, *url, *ctype, *body;
	size_t len;

	(void)state;
	so.ssh_public_key = "ssh-ed25519 AAAAC3Nza me@host"; /* v1: ignored */
	assert_int_equal(pai_submit_request(&method, &url, &ctype, &body,
					    &len, c, "alice", cfg, &so),
			 PAI_OK);
	assert_string_equal(method, "POST");
	assert_string_equal(url, "http://127.0.0.1:9/rest-server/api/v1/user/"
				 "alice/jobs");
	assert_string_equal(ctype, "application/json");
	sent = json_loadb(body, len, 0, NULL);
	assert_non_null(sent);
	assert_string_equal(
	    json_string_value(json_object_get(sent, "jobName")), "j2");
	assert_null(json_object_get(sent, "protocolVersion"));
	assert_null(strstr(body, "ssh-ed25519"));
	json_decref(sent);
	free(method);
	free(url);
	free(ctype);
	free(body);
	json_decref(cfg);
	pai_client_free(c);
}

/* The local cluster (dual): each format goes its own way. */
static void test_request_dual_routes_by_format(void **state)
{
	pai_client *c = client(PAI_API_DUAL);
	json_t *v1 = config_of("a.json", v1_config);
	char *method, *url, *ctype, *body;
	size_t len;

	(void)state;
	assert_int_equal(pai_submit_request(&method, &url, &ctype, &body,
					    &len, c, "alice", v1, NULL),
			 PAI_OK);
	assert_string_equal(url, "http://127.0.0.1:9/rest-server/api/v1/user/"
				 "alice/jobs");
	assert_non_null(strstr(body, "\"jobEnvs\""));
	free(method);
	free(url);
	free(ctype);
	free(body);
	json_decref(v1);
	pai_client_free(c);
}

static void test_request_needs_a_name(void **state)
{
	pai_client *c = client(PAI_API_V1);
	json_t *cfg = json_pack("{s:s}", "image", "x");
	char *method, *url, *ctype, *body;
	size_t len;
	int rec = 7;

	(void)state;
	assert_int_equal(pai_submit_request(&method, &url, &ctype, &body,
					    &len, c, "alice", cfg, NULL),
			 PAI_EINVAL);
	assert_null(url);
	assert_int_equal(pai_submit_ex(c, "alice", cfg, NULL, &rec),
			 PAI_EINVAL);
	assert_int_equal(rec, 0);
	assert_int_equal(pai_submit_ex(c, "", cfg, NULL, NULL), PAI_EINVAL);
	json_decref(cfg);
	pai_client_free(c);
}

static void test_api_names(void **state)
{
	static const char *const names[] = {"auto", "v1", "v2", "dual"};
	pai_api a;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		assert_int_equal(pai_api_from_name(&a, names[i]), PAI_OK);
		assert_int_equal(a, (pai_api)i);
		assert_string_equal(pai_api_name(a), names[i]);
	}
	assert_int_equal(pai_api_from_name(&a, "V2"), PAI_EINVAL);
	assert_int_equal(pai_api_from_name(&a, "v3"), PAI_EINVAL);
	assert_string_equal(pai_api_name((pai_api)42), "auto");
	assert_int_equal(pai_client_set_api(NULL, PAI_API_V1), PAI_EINVAL);
	assert_string_equal(pai_state_name(PAI_STATE_STOPPING), "STOPPING");
	{
		char *fw = pai_role_framework_name("PS_server-2");

		assert_string_equal(fw, "psserver2");
		free(fw);
		assert_null(pai_role_framework_name(NULL));
	}
	assert_false(pai_state_is_final(PAI_STATE_STOPPING));
	{
		pai_state s;

		assert_int_equal(pai_state_from_name(&s, "stopping"), PAI_OK);
		assert_int_equal(s, PAI_STATE_STOPPING);
	}
}

/* The profile's api is written, read back, and refused when odd. */
static void test_profile_api_round_trip(void **state)
{
	pai_profile p = {"prod", "https://pai.example.com/rest-server", NULL,
			 PAI_DIALECT_OPENPAI, NULL, 0, PAI_API_V2};
	char dir[] = "/tmp/paictl-test-submit-XXXXXX", path[128];
	pai_config *cfg = NULL;
	char *detail = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/config.json", dir);
	assert_int_equal(pai_config_load(&cfg, NULL, path), PAI_OK);
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	p.name = "old";
	p.api = PAI_API_AUTO;
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	p.api = (pai_api)9;
	assert_int_equal(pai_config_set(cfg, &p), PAI_EINVAL);
	assert_int_equal(pai_config_save(cfg, path), PAI_OK);
	pai_config_free(cfg);
	assert_int_equal(pai_config_load(&cfg, NULL, path), PAI_OK);
	assert_int_equal(pai_config_find(cfg, "prod")->api, PAI_API_V2);
	assert_int_equal(pai_config_find(cfg, "old")->api, PAI_API_AUTO);
	pai_config_free(cfg);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"clusters\": {\"x\": {\"uri\": \"http://h\", \"api\": "
	      "\"v3\"}}}",
	      f);
	fclose(f);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	assert_non_null(strstr(detail, "api must be"));
	free(detail);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edits_in_either_format),
	    cmocka_unit_test(test_request_v2_config_to_v1_api),
	    cmocka_unit_test(test_request_dual_routes_by_format),
	    cmocka_unit_test(test_request_needs_a_name),
	    cmocka_unit_test(test_api_names),
	    cmocka_unit_test(test_profile_api_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
