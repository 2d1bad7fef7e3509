/* fuzz_response.c - libFuzzer target for everything libpai reads from a
 * cluster's REST API, v1 (OpenPAI v0.x) and v2 (v1.x): cluster info and
 * API detection, login tokens, job status and lists, stored configs,
 * STOP answers, SSH info, log locations, and the error bodies of each
 * (JSON {code, message}, HTML pages from proxies, anything else), and
 * the local cluster's long-poll on a job.
 * Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the call, byte 1 the API (v1, v2, or detected),
 * then the server's answers (transport.h). Beyond "no crash, no leak,
 * no undefined behaviour", it checks the promises of pai.h: a result
 * that is one of its codes, a one-line printable error detail, and on
 * success an answer every accessor can walk. */
#include "transport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void walk_job(pai_client *c, const pai_job_info *info)
{
	size_t i, n = pai_job_info_task_count(info);
	int has_exit;

	CHECK(pai_state_name(pai_job_info_state(info)) != NULL);
	(void)pai_job_info_exit_code(info, &has_exit);
	CHECK(pai_job_info_json(info) != NULL);
	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);
		char *url = NULL;

		CHECK(t && json_is_object(t->ports));
		CHECK(pai_job_info_find_task(info, t->role, t->index) >= 0);
		/* v2: asks the log manager where the log is */
		fuzz_check_result(c, pai_task_log_url(&url, c, info, t,
						      "stdout", i & 1));
		free(url);
	}
}

static void get_job(pai_client *c)
{
	pai_job_info *info = NULL;
	int err = pai_job_get(&info, c, "alice", "job1");

	fuzz_check_result(c, err);
	CHECK(!err == !!info);
	if (info)
		walk_job(c, info);
	pai_job_info_free(info);
}

/* The status, then the status once it changed: the local cluster's
 * info and its long-poll's answers (elsewhere PAI_ENOTSUP, nothing
 * asked). */
static void get_changed(pai_client *c)
{
	pai_job_info *last = NULL, *info = NULL;
	int err = pai_job_get(&last, c, "alice", "job1");

	fuzz_check_result(c, err);
	if (err)
		return;
	err = pai_job_get_changed(&info, c, "alice", "job1", last, -1);
	fuzz_check_result(c, err);
	CHECK(!err == !!info);
	if (info)
		walk_job(c, info);
	pai_job_info_free(info);
	pai_job_info_free(last);
}

static void list_jobs(pai_client *c, int all)
{
	pai_job_list *list = NULL;
	size_t i;
	int err = pai_jobs_list(&list, c, all ? NULL : "alice");

	fuzz_check_result(c, err);
	CHECK(!err == !!list);
	for (i = 0; list && i < pai_job_list_count(list); i++) {
		const pai_job_info *j = pai_job_list_get(list, i);

		CHECK(j && pai_state_name(pai_job_info_state(j)));
	}
	pai_job_list_free(list);
}

static void get_ssh(pai_client *c)
{
	pai_ssh_info *info = NULL;
	size_t i;
	int err = pai_job_get_ssh(&info, c, "alice", "job1");

	fuzz_check_result(c, err);
	CHECK(!err == !!info);
	for (i = 0; info && i < pai_ssh_info_count(info); i++)
		CHECK(pai_ssh_info_get(info, i) != NULL);
	pai_ssh_info_free(info);
}

static void submit(pai_client *c, int v2)
{
	static const char *v1 =
	    "{\"jobName\":\"job1\",\"image\":\"ubuntu\",\"taskRoles\":"
	    "[{\"name\":\"main\",\"taskNumber\":1,\"cpuNumber\":1,"
	    "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"}]}";
	static const char *proto =
	    "{\"protocolVersion\":2,\"name\":\"job1\",\"type\":\"job\","
	    "\"prerequisites\":[{\"type\":\"dockerimage\",\"name\":\"i\","
	    "\"uri\":\"ubuntu\"}],\"taskRoles\":{\"main\":{\"instances\":1,"
	    "\"dockerImage\":\"i\",\"resourcePerInstance\":{\"cpu\":1,"
	    "\"memoryMB\":1024,\"gpu\":0},\"commands\":[\"true\"]}}}";
	json_t *config = json_loads(v2 ? proto : v1, 0, NULL);
	int recovered = 0;

	if (!config)
		return;
	fuzz_check_result(c, pai_submit(c, "alice", config, &recovered));
	json_decref(config);
}

static void call(pai_client *c, unsigned op, int v2)
{
	json_t *j = NULL;
	char *text = NULL;
	size_t len = 0;
	pai_api api;

	switch (op % 10) {
	case 0:
		fuzz_check_result(c, pai_cluster_info(&j, c));
		json_decref(j);
		break;
	case 1:
		fuzz_check_result(c, pai_login(&text, c, "alice", "secret1",
					       3600));
		CHECK(!text || !strchr(text, '\n'));
		break;
	case 2:
		if (op & 32)
			get_changed(c);
		else
			get_job(c);
		break;
	case 3: list_jobs(c, op & 16); break;
	case 4:
		fuzz_check_result(c, pai_job_get_config(&text, &len, c,
							"alice", "job1"));
		CHECK(!text || strlen(text) <= len);
		break;
	case 5: fuzz_check_result(c, pai_job_stop(c, "alice", "job1")); break;
	case 6: get_ssh(c); break;
	case 7: submit(c, v2); break;
	case 8: fuzz_check_result(c, pai_api_detect(&api, c)); break;
	default:
		fuzz_check_result(c, pai_download(&text, &len, c,
						  FUZZ_BASE "/key"));
		break;
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const pai_api apis[] = {PAI_API_V1, PAI_API_V2, PAI_API_AUTO,
				       PAI_API_DUAL};
	fuzz_wire wire;
	pai_client *c;
	pai_api api;

	if (size < 2)
		return 0;
	c = fuzz_client(&wire, (const char *)data + 2, size - 2);
	if (!c)
		return 0;
	api = apis[data[1] % 4];
	CHECK(pai_client_set_api(c, api) == PAI_OK);
	call(c, data[0], api == PAI_API_V2);
	pai_client_free(c);
	return 0;
}
