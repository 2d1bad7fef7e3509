/* fuzz_slurm_api.c - libFuzzer target for what the Slurm module
 * (lib/client/api/slurm/) reads from slurmrestd through the shared
 * plumbing: jobs (one, heterogeneous, forgotten), their comments and
 * states read into a status, lists, nodes, the answers of a submission
 * (its job id, errors of both shapes, lost answers), of a stop and of a
 * ping; 401s in plain text, 404s of a plugin not served and /openapi's
 * paths, a bad token's 500 (22.05) or 511 (23.02 on); the answers of
 * every version since (states as lists, {set, infinite, number},
 * accounting's jobs). Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the call, then the server's answers
 * (transport.h). Beyond "no crash, no leak, no undefined behaviour":
 * results that are pai.h's codes, one-line details, and a status every
 * accessor can walk. */
#include "transport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char workdir[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(workdir, sizeof(workdir), "/tmp/paictl-fuzz-slurm-XXXXXX");
	if (!mkdtemp(workdir))
		abort();
	return 0;
}

static void submit(pai_client *c)
{
	fuzz_submit(
	    c, "{\"jobName\":\"job1\",\"image\":\"ubuntu\",\"taskRoles\":"
	       "[{\"name\":\"ps\",\"taskNumber\":1,\"cpuNumber\":1,"
	       "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"},"
	       "{\"name\":\"worker\",\"taskNumber\":2,\"cpuNumber\":2,"
	       "\"memoryMB\":1024,\"gpuNumber\":0,\"command\":\"true\"}]}");
}

static void ssh_info(pai_client *c)
{
	pai_ssh_info *s = NULL;
	char *line = NULL;
	size_t i;

	fuzz_check_result(c, pai_job_get_ssh(&s, c, "alice", "job1"));
	for (i = 0; s && i < pai_ssh_info_count(s); i++) {
		CHECK(pai_ssh_info_command(&line, s, i, "echo $HOME") ==
		      PAI_OK);
		CHECK(line != NULL);
		free(line);
		line = NULL;
	}
	pai_ssh_info_free(s);
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
	case 1: fuzz_get_job(c, "stderr"); break;
	case 2: fuzz_list_jobs(c, op & 16); break;
	case 3: submit(c); break;
	case 4: fuzz_check_result(c, pai_job_stop(c, "alice", "job1")); break;
	case 5:
		fuzz_check_result(
		    c, pai_job_get_config(&text, &len, c, "alice", "job1"));
		CHECK(!text || strlen(text) <= len);
		break;
	case 6: ssh_info(c); break;
	default:
		CHECK(pai_login(&text, c, "alice", "pw", 0) == PAI_ENOTSUP);
		break;
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_wire wire;
	pai_client *c;

	if (size < 1)
		return 0;
	c = fuzz_slurm_client(&wire, (const char *)data + 1, size - 1, workdir);
	if (!c)
		return 0;
	call(c, data[0]);
	pai_client_free(c);
	return 0;
}
