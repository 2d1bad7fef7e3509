/* fuzz_k8s_api.c - libFuzzer target for what the Kubernetes module
 * (lib/client/api/k8s/api_k8s.c and its k8s_*.c) reads from an API server
 * through the shared plumbing: Volcano Jobs, PaddleJobs, JobSets and
 * PyTorchJobs, their pods and events read into a status (the JobSet's
 * runs, the operators' conditions), lists of jobs, the answers and Status
 * bodies of a submission (AlreadyExists, Invalid with causes, lost
 * answers), of a stop and of the version; the log location of each task.
 * The streams (watch, follow, exec) are kube_wire's. Built and run by
 * `make fuzz`.
 *
 * Input: byte 0 picks the call, byte 1 the engine (0 Volcano Job, 1
 * PaddleJob, 2 JobSet, 3 PyTorchJob, modulo 4), then the server's answers
 * (transport.h). Beyond "no crash,
 * no leak, no undefined behaviour": results that are pai.h's codes,
 * one-line details, and a status every accessor can walk. */
#include "transport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char kubeconfig[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/paictl-fuzz-k8s-XXXXXX";
	FILE *f;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	snprintf(kubeconfig, sizeof(kubeconfig), "%s/config", dir);
	f = fopen(kubeconfig, "w");
	if (!f)
		abort();
	fprintf(f,
		"apiVersion: v1\nkind: Config\n"
		"clusters: [{name: c, cluster: {server: %s}}]\n"
		"users: [{name: u, user: {token: t}}]\n"
		"contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		"current-context: x\n",
		FUZZ_BASE);
	fclose(f);
	return 0;
}

static void walk_job(pai_client *c, const pai_job_info *info)
{
	size_t i, n = pai_job_info_task_count(info);

	CHECK(pai_state_name(pai_job_info_state(info)) != NULL);
	CHECK(json_is_object(pai_job_info_json(info)));
	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);
		char *url = NULL;

		CHECK(t && t->role && json_is_object(t->ports));
		CHECK(json_is_object(pai_job_info_task_json(info, i)));
		CHECK(pai_job_info_find_task(info, t->role, t->index) >= 0);
		fuzz_check_result(
		    c, pai_task_log_url(&url, c, info, t,
					i & 1 ? "previous" : "stdout", 0));
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

static void list_jobs(pai_client *c, int all)
{
	pai_job_list *list = NULL;
	size_t i;
	int err = pai_jobs_list(&list, c, all ? NULL : "alice");

	fuzz_check_result(c, err);
	CHECK(!err == !!list);
	for (i = 0; list && i < pai_job_list_count(list); i++)
		CHECK(pai_state_name(pai_job_info_state(
			  pai_job_list_get(list, i))) != NULL);
	pai_job_list_free(list);
}

static void submit(pai_client *c)
{
	static const char *v1 =
	    "{\"jobName\":\"Job_1\",\"image\":\"ubuntu\",\"taskRoles\":"
	    "[{\"name\":\"ps\",\"taskNumber\":1,\"cpuNumber\":1,"
	    "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"},"
	    "{\"name\":\"worker\",\"taskNumber\":2,\"cpuNumber\":1,"
	    "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"}]}";
	pai_submit_options so = PAI_SUBMIT_OPTIONS_INIT;
	json_t *config = json_loads(v1, 0, NULL);
	pai_diags *diags = NULL;
	int recovered = 0;

	if (!config || pai_diags_new(&diags)) {
		json_decref(config);
		return;
	}
	so.diags = diags;
	fuzz_check_result(c,
			  pai_submit_ex(c, "alice", config, &so, &recovered));
	pai_diags_free(diags);
	json_decref(config);
}

static void call(pai_client *c, unsigned op)
{
	json_t *j = NULL;
	char *text = NULL;
	size_t len = 0;

	switch (op % 8) {
	case 0:
		fuzz_check_result(c, pai_cluster_info(&j, c));
		json_decref(j);
		break;
	case 1: get_job(c); break;
	case 2: list_jobs(c, op & 16); break;
	case 3: submit(c); break;
	case 4: fuzz_check_result(c, pai_job_stop(c, "alice", "job1")); break;
	case 5:
		fuzz_check_result(
		    c, pai_job_get_config(&text, &len, c, "alice", "job1"));
		CHECK(!text || strlen(text) <= len);
		break;
	case 6:
		CHECK(pai_login(&text, c, "alice", "pw", 0) == PAI_ENOTSUP);
		break;
	default: get_job(c); break;
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_wire wire;
	pai_client *c;

	if (size < 2)
		return 0;
	c = fuzz_k8s_client(&wire, (const char *)data + 2, size - 2, kubeconfig,
			    (pai_k8s_kind)(data[1] % 4 + 1));
	if (!c)
		return 0;
	call(c, data[0]);
	pai_client_free(c);
	return 0;
}
