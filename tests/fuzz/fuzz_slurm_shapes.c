/* fuzz_slurm_shapes.c - libFuzzer target for the readers of every
 * slurmrestd version's JSON shapes (lib/client/api/slurm/slurm_shapes.c),
 * which know no transport: slurmctld's jobs (GET jobs, GET job/ID,
 * squeue --json) of v0.0.36 to v0.0.45, accounting's (GET /slurmdb/jobs,
 * sacct --json), and a submission's body written for each version. The
 * seeds are what real Slurm 22.05, 24.11 and 26.05 answered
 * (reference/slurm-next/answers/). Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the reader ('j' slurmctld's, 'a' accounting's,
 * anything else a body written for every version), the rest is JSON.
 * Beyond "no crash, no leak, no undefined behaviour": what is read has
 * the shape paictl reads (a state a string, numbers plain, exit codes
 * wait statuses), and a body's environments are lists of "K=V" exactly
 * where the version wants them. */
#include "check.h"
#include "client/api/slurm/slurm_api.h"

#include <stdint.h>
#include <string.h>

/* No member of j is still a {set, infinite, number}; job_state and
 * exit_code as paictl reads them. */
static void check_job(json_t *j)
{
	json_t *v, *st = json_object_get(j, "job_state");
	const char *k;

	json_object_foreach(j, k, v)
	{
		CHECK(!(json_is_object(v) && json_object_get(v, "set") &&
			json_object_get(v, "number")));
	}
	CHECK(!json_is_array(st));
	CHECK(!json_is_object(json_object_get(j, "comment")));
	v = json_object_get(j, "exit_code");
	CHECK(!json_is_object(v));
	CHECK(!json_is_integer(v) || pai__slurm_exit(v) >= -1);
}

static void slurmctld(json_t *o)
{
	json_t *jobs = NULL, *j;
	size_t i;
	int err = pai__slurm_jobs_read(o, &jobs);

	CHECK(err == PAI_OK || err == PAI_EPROTOCOL || err == PAI_ENOMEM);
	if (err == PAI_OK)
		json_array_foreach(jobs, i, j)
		{
			check_job(j);
		}
}

static void accounting(json_t *o)
{
	json_t *jobs = NULL, *j;
	size_t i;
	int err = pai__slurm_acct_jobs_read(o, &jobs);

	CHECK(err == PAI_OK || err == PAI_EPROTOCOL || err == PAI_ENOMEM);
	json_array_foreach(jobs, i, j)
	{
		CHECK(json_is_integer(json_object_get(j, "job_id")));
		CHECK(json_is_true(json_object_get(j, "accounting")));
		check_job(j);
	}
	json_decref(jobs);
}

/* Each component's environment: a list of "K=V" strings where the
 * version wants one, as it was otherwise. */
static void check_env(json_t *comp, json_t *before, unsigned shapes)
{
	json_t *env = json_object_get(comp, "environment"), *v;
	json_t *was = json_object_get(before, "environment");
	size_t i;

	if (!json_is_object(was) || !(shapes & PAI__SLURM_ENV_LIST)) {
		CHECK(json_equal(env, was) || (!env && !was));
		return;
	}
	CHECK(json_is_array(env) && json_array_size(env) == json_object_size(was));
	json_array_foreach(env, i, v)
	{
		CHECK(json_is_string(v) && strchr(json_string_value(v), '='));
	}
}

static void body(json_t *o)
{
	const struct pai__slurm_version *v;
	json_t *b, *c;
	size_t i, k;

	for (i = 0; (v = pai__slurm_version_at(i)); i++) {
		CHECK(pai__slurm_version_number(v->name) > 0);
		if (!(b = json_deep_copy(o)))
			return;
		if (pai__slurm_body_write(b, v) == PAI_OK) {
			check_env(json_object_get(b, "job"),
				  json_object_get(o, "job"), v->shapes);
			json_array_foreach(json_object_get(b, "jobs"), k, c)
			{
				check_env(c,
					  json_array_get(
					      json_object_get(o, "jobs"), k),
					  v->shapes);
			}
		}
		json_decref(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *o;

	if (size < 1)
		return 0;
	o = json_loadb((const char *)data + 1, size - 1, 0, NULL);
	if (!o)
		return 0;
	if (data[0] == 'j')
		slurmctld(o);
	else if (data[0] == 'a')
		accounting(o);
	else if (json_is_object(o))
		body(o);
	json_decref(o);
	return 0;
}
