/* fuzz_slurm_cmd_out.c - libFuzzer target for the readers of what Slurm's
 * commands print on a login node (lib/client/api/slurm/slurm_cmd_out.c):
 * `sbatch --parsable`, `squeue --json`, `sacct --json`, and the
 * delimited columns of `squeue --format` and `sacct --parsable2`. The
 * seeds are what Slurm 24.11's commands printed (tests/slurm/next/).
 * Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the reader ('p' sbatch, 'q' squeue --json, 'a'
 * sacct --json, 'f' squeue --format, 'g' sacct's columns), the rest is
 * the output. Beyond "no crash, no leak, no undefined behaviour": an id
 * read is positive and its cluster a plain name; a job read has a
 * positive job id where the columns gave one, and a line refused is
 * named; the columns as --json's answer (the fallback of a Slurm before
 * 21.08) read back to as many jobs. */
#include "check.h"
#include "client/api/slurm/slurm_api.h"

#include <stdint.h>
#include <string.h>

static void parsable(const char *s, size_t n)
{
	char cluster[64];
	long long id = -5;
	int err = pai__slurm_parsable_read(&id, cluster, sizeof(cluster), s, n);

	CHECK(err == PAI_OK || err == PAI_EPROTOCOL);
	CHECK(err ? id == 0 : id > 0);
	CHECK(strlen(cluster) < sizeof(cluster));
	CHECK(err || !memchr(s, ' ', n));
}

static void json(const char *s, size_t n, int acct)
{
	json_t *jobs = NULL, *j;
	size_t i;
	int err = pai__slurm_cmd_json(&jobs, s, n, acct);

	CHECK(err == PAI_OK || err == PAI_EPROTOCOL || err == PAI_ENOMEM);
	CHECK(!err == (jobs != NULL));
	json_array_foreach(jobs, i, j)
	{
		CHECK(json_is_object(j));
		CHECK(!json_is_array(json_object_get(j, "job_state")));
		CHECK(!json_is_object(json_object_get(j, "exit_code")));
	}
	json_decref(jobs);
}

/* The same lines as --json's answer: refused alike, else its jobs read
 * back (accounting's shape for sacct) as many as the lines gave. */
static void answer(const char *s, size_t n, int acct, int err, json_t *jobs)
{
	json_t *a = NULL, *back = NULL;
	size_t bad = 99;
	int e = pai__slurm_fmt_answer(&a, &bad, s, n, acct);

	if (e == PAI_ENOMEM || err == PAI_ENOMEM) {
		json_decref(a);
		return;
	}
	CHECK(e == err && !e == (a != NULL));
	if (!e && acct && !pai__slurm_acct_jobs_read(a, &back)) {
		CHECK(json_array_size(back) == json_array_size(jobs));
		json_decref(back);
	} else if (!e && !acct) /* back borrowed from a */
		CHECK(!pai__slurm_jobs_read(a, &back) &&
		      json_array_size(back) == json_array_size(jobs));
	json_decref(a);
}

static void columns(const char *s, size_t n, int acct)
{
	json_t *jobs = NULL, *j;
	size_t i, bad = 99;
	int err = pai__slurm_fmt_read(&jobs, &bad, s, n, acct);
	long long id;

	CHECK(err == PAI_OK || err == PAI_EPROTOCOL || err == PAI_ENOMEM);
	CHECK(err != PAI_EPROTOCOL || bad >= 1);
	CHECK(err == PAI_EPROTOCOL || bad == 0);
	json_array_foreach(jobs, i, j)
	{
		CHECK(pai__json_integer(json_object_get(j, "job_id"), &id) &&
		      id > 0);
		CHECK(json_is_string(json_object_get(j, "job_state")));
	}
	answer(s, n, acct, err, jobs);
	json_decref(jobs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;

	if (size < 1)
		return 0;
	switch (data[0]) {
	case 'p': parsable(s, size - 1); break;
	case 'q':
	case 'a': json(s, size - 1, data[0] == 'a'); break;
	case 'f':
	case 'g': columns(s, size - 1, data[0] == 'g'); break;
	}
	return 0;
}
