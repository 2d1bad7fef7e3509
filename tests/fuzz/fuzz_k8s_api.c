/* fuzz_k8s_api.c - libFuzzer target for what the Kubernetes module
 * (lib/client/api/k8s/api_k8s.c and its k8s_*.c) reads from an API server
 * through the shared plumbing: Volcano Jobs, PaddleJobs, JobSets,
 * PyTorchJobs, TrainJobs and MPIJobs, their pods and events read into a status (the JobSet's
 * runs, the operators' conditions), lists of jobs, the answers and Status
 * bodies of a submission (AlreadyExists, Invalid with causes, lost
 * answers), of a stop and of the version; the log location of each task.
 * The streams (watch, follow, exec) are kube_wire's. Built and run by
 * `make fuzz`.
 *
 * Input: byte 0 picks the call, byte 1 the engine (0 Volcano Job, 1
 * PaddleJob, 2 JobSet, 3 PyTorchJob, 4 TrainJob, 5 MPIJob, modulo 6),
 * then the server's answers
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

static void submit(pai_client *c)
{
	fuzz_submit(
	    c, "{\"jobName\":\"Job_1\",\"image\":\"ubuntu\",\"taskRoles\":"
	       "[{\"name\":\"ps\",\"taskNumber\":1,\"cpuNumber\":1,"
	       "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"},"
	       "{\"name\":\"worker\",\"taskNumber\":2,\"cpuNumber\":1,"
	       "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"}]}");
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
	case 1: fuzz_get_job(c, "previous"); break;
	case 2: fuzz_list_jobs(c, op & 16); break;
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
	default: fuzz_get_job(c, "previous"); break;
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
			    (pai_k8s_kind)(data[1] % 6 + 1));
	if (!c)
		return 0;
	call(c, data[0]);
	pai_client_free(c);
	return 0;
}
