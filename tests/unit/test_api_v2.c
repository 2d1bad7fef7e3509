/* test_api_v2.c - the client on OpenPAI v1.x's v2 API, against scripted
 * answers shaped as openpai-v1x-behaviour.md says the v1.8.0 rest-server
 * gives them: detection, login refusals, the submission's refusals and
 * what is (not) looked up after them, the status and its framework role
 * names, log locations on the gateway's origin, SSH from the status. The
 * command-level cases against the fake cluster (tests/cli/fake-v1x-*)
 * cover the whole flows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_openpai.h"
#include "pai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the fake answers next, and what it saw. */
struct script {
	int status;
	const char *type;
	const char *body;
	int posts, gets;
	char last_path[2048], last_type[128], last_body[4096];
};

static void handler(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;

	if (strcmp(rq->method, "POST") == 0)
		s->posts++;
	else
		s->gets++;
	snprintf(s->last_path, sizeof(s->last_path), "%s", rq->path);
	if (!fake_header(rq, "Content-Type", s->last_type,
			 sizeof(s->last_type)))
		s->last_type[0] = '\0';
	snprintf(s->last_body, sizeof(s->last_body), "%s",
		 rq->body ? rq->body : "");
	fake_reply_set(rp, s->status, s->type, "%s", s->body);
}

static fake_server *start(struct script *s)
{
	fake_server *f = NULL;

	assert_int_equal(fake_start(&f, "127.0.0.1", handler, s), 0);
	return f;
}

static pai_client *client(fake_server *f, pai_api api)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	char uri[96];

	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u/rest-server",
		 fake_port(f));
	o.uri = uri;
	o.token = "tok";
	o.max_retries = 0;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_client_set_api(c, api), PAI_OK);
	return c;
}

static pai_api detect(const char *body, int status)
{
	struct script s = {status, "application/json", body, 0, 0, "", "", ""};
	fake_server *f = start(&s);
	pai_client *c = client(f, PAI_API_AUTO);
	pai_api api = PAI_API_AUTO;

	assert_int_equal(pai_api_detect(&api, c), PAI_OK);
	assert_string_equal(s.last_path, "/rest-server/api/v2/info");
	pai_client_free(c);
	fake_stop(f);
	return api;
}

static void test_detection(void **state)
{
	(void)state;
	assert_int_equal(detect("{\"name\":\"PAI RESTful API\",\"version\":"
				"\"v1.8.0\",\"launcherType\":\"k8s\","
				"\"authnMethod\":\"basic\"}",
				200),
			 PAI_API_V2);
	/* a v0.x cluster has no such route */
	assert_int_equal(detect("{\"code\":\"NotFoundError\"}", 404),
			 PAI_API_V1);
	/* the local cluster answers as v1.x does, and names itself in a
	 * member of its own; before, its launcherType was "paictl" */
	assert_int_equal(detect("{\"name\":\"PAI RESTful API\",\"version\":"
				"\"v1.8.0\",\"launcherType\":\"k8s\","
				"\"authnMethod\":\"basic\",\"paictl\":{"
				"\"version\":\"0.1.0\",\"extensions\":["
				"\"wait\"]}}",
				200),
			 PAI_API_DUAL);
	assert_int_equal(detect("{\"launcherType\":\"paictl\"}", 200),
			 PAI_API_DUAL);
	/* k8s, but not a v1.x version: not the v2 API we know */
	assert_int_equal(detect("{\"launcherType\":\"k8s\",\"version\":"
				"\"v0.14.0\"}",
				200),
			 PAI_API_V1);
}

static void test_login_refusals(void **state)
{
	struct script s = {400, "application/json",
			   "{\"code\":\"InvalidParametersError\",\"message\":"
			   "\"child \\\"password\\\" fails\"}",
			   0, 0, "", "", ""};
	fake_server *f = start(&s);
	pai_client *c = client(f, PAI_API_V2);
	char *tok = NULL;

	(void)state;
	/* a password Joi refuses is a failed login too */
	assert_int_equal(pai_login(&tok, c, "alice", "short", 0), PAI_EAUTH);
	assert_null(tok);
	assert_string_equal(s.last_path, "/rest-server/api/v2/authn/basic/"
					 "login");
	assert_non_null(strstr(pai_client_error(c), "password"));
	s.body = "{\"code\":\"IncorrectPasswordError\",\"message\":\"no\"}";
	assert_int_equal(pai_login(&tok, c, "alice", "wrongpw", 0), PAI_EAUTH);
	assert_string_equal(pai_client_error_code(c), "IncorrectPasswordError");
	s.status = 200;
	s.body = "{\"user\":\"alice\",\"token\":\"a.b.c\",\"admin\":false}";
	assert_int_equal(pai_login(&tok, c, "alice", "secret123", 0), PAI_OK);
	assert_string_equal(tok, "a.b.c");
	free(tok);
	pai_client_free(c);
	fake_stop(f);
}

static int submit(struct script *s, int *recovered)
{
	fake_server *f = start(s);
	pai_client *c = client(f, PAI_API_V2);
	json_t *cfg = json_pack("{s:i,s:s,s:s,s:{}}", "protocolVersion", 2,
				"name", "job", "type", "job", "taskRoles");
	int err = pai_submit_ex(c, "alice", cfg, NULL, recovered);

	json_decref(cfg);
	pai_client_free(c);
	fake_stop(f);
	return err;
}

static void test_submission_refusals(void **state)
{
	struct script s = {202, "application/json",
			   "{\"status\":202,\"message\":\"Update job job for "
			   "user alice successfully.\"}",
			   0, 0, "", "", ""};
	int rec = -1;

	(void)state;
	assert_int_equal(submit(&s, &rec), PAI_OK);
	assert_int_equal(rec, 0);
	assert_string_equal(s.last_type, "text/yaml");
	assert_string_equal(s.last_path, "/rest-server/api/v2/jobs");
	assert_non_null(strstr(s.last_body, "protocolVersion: 2\n"));
	/* ajv's list, for people */
	s.status = 400;
	s.body = "{\"code\":\"InvalidProtocolError\",\"message\":\"[{\\\""
		 "keyword\\\":\\\"pattern\\\",\\\"dataPath\\\":\\\".name\\\","
		 "\\\"message\\\":\\\"should match pattern\\\"}]\"}";
	s.posts = s.gets = 0;
	assert_int_equal(submit(&s, &rec), PAI_EINVALID);
	assert_int_equal(s.posts, 1);
	assert_int_equal(s.gets, 0);
	/* js-yaml's exception: a 500 without a code, before anything is
	 * stored: refused, never looked up as a lost answer */
	s.status = 500;
	s.body = "{\"message\":\"bad indentation of a mapping entry at line "
		 "3, column 5:\"}";
	s.posts = s.gets = 0;
	assert_int_equal(submit(&s, &rec), PAI_EINVALID);
	assert_int_equal(s.posts, 1);
	assert_int_equal(s.gets, 0);
	/* an unknown virtual cluster is 403 on v1.8 */
	s.status = 403;
	s.body = "{\"code\":\"ForbiddenUserError\",\"message\":\"User alice is "
		 "not allowed to do operation in x\"}";
	assert_int_equal(submit(&s, &rec), PAI_EFORBIDDEN);
	s.status = 413;
	s.body = "{\"message\":\"request entity too large\"}";
	assert_int_equal(submit(&s, &rec), PAI_ETOOBIG);
}

static const char status_body[] =
    "{\"debugId\":\"x\",\"name\":\"job\",\"tags\":[],\"jobStatus\":{"
    "\"username\":\"alice\",\"state\":\"STOPPING\",\"appExitCode\":-210,"
    "\"virtualCluster\":\"default\"},\"taskRoles\":{\"psserver\":{"
    "\"taskRoleStatus\":{\"name\":\"psserver\"},\"taskStatuses\":[{"
    "\"taskIndex\":0,\"taskState\":\"RUNNING\",\"containerId\":\"pod-1\","
    "\"containerIp\":\"10.0.0.5\",\"containerPorts\":{\"ssh\":\"23456\","
    "\"http\":\"1,2\"},\"containerLog\":\"/api/v2/jobs/alice~job/attempts/0/"
    "taskRoles/psserver/taskIndex/0/attempts/0/logs\"}]}}}";

static void test_status_ssh_and_logs(void **state)
{
	struct script s = {200, "application/json", status_body,
			   0,	0,		    "",
			   "",	""};
	fake_server *f = start(&s);
	pai_client *c = client(f, PAI_API_V2);
	pai_job_info *info = NULL;
	pai_ssh_info *ssh = NULL;
	const pai_task_info *t;
	char *url = NULL, expect[256];
	long k;

	(void)state;
	assert_int_equal(pai_job_get(&info, c, "alice", "job"), PAI_OK);
	assert_string_equal(s.last_path, "/rest-server/api/v2/jobs/alice~job");
	assert_int_equal(pai_job_info_state(info), PAI_STATE_STOPPING);
	assert_false(pai_state_is_final(pai_job_info_state(info)));
	/* the role as written finds the framework name, and as reported */
	k = pai_job_info_find_task(info, "ps_server", 0);
	assert_int_equal(k, 0);
	assert_int_equal(pai_job_info_find_task(info, "psserver", 0), 0);
	assert_int_equal(pai_job_info_find_task(info, "ps_server", 1), -1);
	assert_int_equal(pai_job_info_find_task(info, "worker", 0), -1);
	t = pai_job_info_task(info, (size_t)k);
	assert_string_equal(
	    json_string_value(json_object_get(t->ports, "http")), "1,2");
	/* SSH from the status: v1.x has no ssh info route */
	assert_int_equal(pai_job_get_ssh(&ssh, c, "alice", "job"), PAI_OK);
	assert_int_equal(pai_ssh_info_count(ssh), 1);
	assert_string_equal(pai_ssh_info_get(ssh, 0)->ip, "10.0.0.5");
	assert_int_equal(pai_ssh_info_get(ssh, 0)->port, 23456);
	assert_null(pai_ssh_info_key_url(ssh));
	/* locations: a path on the gateway, resolved against its origin */
	s.body = "{\"locations\":[{\"name\":\"stdout\",\"uri\":\"/log-manager/"
		 "10.0.0.5:9103/api/v1/logs/user-stdout?token=T\"}]}";
	assert_int_equal(pai_task_log_url(&url, c, info, t, "stdout", 1),
			 PAI_OK);
	assert_string_equal(s.last_path,
			    "/rest-server/api/v2/jobs/alice~job/attempts/0/"
			    "taskRoles/psserver/taskIndex/0/attempts/0/logs?"
			    "tail-mode=true");
	snprintf(expect, sizeof(expect),
		 "http://127.0.0.1:%u/log-manager/10.0.0.5:9103/api/v1/logs/"
		 "user-stdout?token=T",
		 fake_port(f));
	assert_string_equal(url, expect);
	free(url);
	/* a task not started: no log yet */
	s.status = 404;
	s.body = "{\"code\":\"NoTaskLogError\",\"message\":\"Log of task is "
		 "not found.\"}";
	assert_int_equal(pai_task_log_url(&url, c, info, t, "stderr", 0),
			 PAI_ENOTFOUND);
	assert_null(url);
	/* a v0.x route on a v1.x cluster: the wrong API, not "no job" */
	s.body = "{\"code\":\"NoApiError\",\"message\":\"API /api/v2/jobs/x "
		 "is not found.\"}";
	pai_job_info_free(info);
	info = NULL;
	assert_int_equal(pai_job_get(&info, c, "alice", "job"), PAI_EPROTOCOL);
	assert_non_null(strstr(pai_client_error(c), "--api"));
	pai_ssh_info_free(ssh);
	pai_client_free(c);
	fake_stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detection),
	    cmocka_unit_test(test_login_refusals),
	    cmocka_unit_test(test_submission_refusals),
	    cmocka_unit_test(test_status_ssh_and_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
