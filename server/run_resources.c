/* run_resources.c - what a job asks of this machine: under --capacity,
 * the CPUs, memory and GPUs it holds while it runs (srv_schedule admits
 * jobs first in, first out); without it, the requests the machine cannot
 * meet, noted in the job's warnings with the fact that its tasks run
 * here and not in its image */
#include "run_int.h"
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_job_request(const struct srv_job *j, long long *cpus,
		     long long *mem, long long *gpus)
{
	size_t r;

	*cpus = *mem = *gpus = 0;
	for (r = 0; r < j->nroles; r++) {
		*cpus += j->roles[r].cpu * j->roles[r].task_number;
		*mem += j->roles[r].memory_mb * j->roles[r].task_number;
		*gpus += j->roles[r].gpu * j->roles[r].task_number;
	}
}

static int popcount(unsigned long long v)
{
	return __builtin_popcountll(v);
}

/* Without --capacity every job runs: the requests this machine cannot
 * meet, in res ("" for none). */
static void note_resources(struct srv *s, struct srv_job *j, char *res,
			   size_t len)
{
	long long cpus, mem, gpus;
	char *buf = res;
	int n = 0;

	run_job_request(j, &cpus, &mem, &gpus);
	if (cpus > s->host_cpus)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%lld CPUs (this machine has %lld)",
			      n ? ", " : "", cpus, s->host_cpus);
	if (mem > s->host_mem_mb && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%lld MB of memory (this machine has %lld)",
			      n ? ", " : "", mem, s->host_mem_mb);
	if (gpus > s->host_gpus && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "%s%lld GPU%s (this machine has %lld)", n ? ", " : "",
			 gpus, gpus == 1 ? "" : "s", s->host_gpus);
}

/* The image the job's tasks would run in: a v0.x config's "image", or
 * protocol v2's first dockerimage prerequisite; NULL when none. */
static const char *image_of(const pai_job *pj)
{
	json_t *cfg = pai_job_config(pj), *p;
	const char *type;
	size_t i;

	if (json_is_string(json_object_get(cfg, "image")))
		return json_string_value(json_object_get(cfg, "image"));
	json_array_foreach(json_object_get(cfg, "prerequisites"), i, p)
	{
		type = json_string_value(json_object_get(p, "type"));
		if (type && strcmp(type, "dockerimage") == 0 &&
		    json_is_string(json_object_get(p, "uri")))
			return json_string_value(json_object_get(p, "uri"));
	}
	return NULL;
}

/* What this machine does not give the job, a note a line in
 * j->warnings (its status's localWarnings; paictl submit says them):
 * that its tasks run here, not in its image, and, without --capacity,
 * the requests the machine cannot meet. Once per job, at its
 * submission (or its first scheduling, for a job of an older server). */
void srv_note_job(struct srv *s, struct srv_job *j)
{
	/* a runtime that runs the image has nothing to say of it */
	const char *hint = s->rt->not_in_image ? s->rt->not_in_image(s) : NULL;
	const char *image = j->pj && hint ? image_of(j->pj) : NULL;
	char res[512] = "";

	if (j->warnings || !j->pj)
		return;
	if (!s->capped)
		note_resources(s, j, res, sizeof(res));
	j->warnings =
	    srv_printf("%s%s%s%s%s%s", *res ? "the job asks for " : "", res,
		       *res ? "; the local cluster runs it anyway" : "",
		       *res && image ? "\n" : "",
		       image ? "its tasks run on this machine as " : "",
		       image ? (s->owner ? s->owner : "this user") : "");
	if (j->warnings && image) {
		char *all = srv_printf("%s, not in the image '%s' (%s): a "
				       "command such as 'apt install' runs "
				       "for real",
				       j->warnings, image, hint);

		free(j->warnings);
		j->warnings = all;
	}
	if (j->warnings && !*j->warnings) {
		free(j->warnings);
		j->warnings = NULL;
	}
	if (j->warnings)
		srv_log(s, "'%s': %s", j->key, j->warnings);
}

/* --capacity: 1 when the whole request fits now (and is taken), 0 when
 * it must wait, -1 when it can never fit. */
int run_admit(struct srv *s, struct srv_job *j)
{
	long long cpus, mem, gpus;
	size_t i;
	int g;

	run_job_request(j, &cpus, &mem, &gpus);
	if (cpus > s->cap_cpus || mem > s->cap_mem_mb || gpus > s->cap_gpus)
		return -1;
	if (s->used_cpus + cpus > s->cap_cpus ||
	    s->used_mem_mb + mem > s->cap_mem_mb ||
	    popcount(s->gpu_used) + gpus > s->cap_gpus)
		return 0;
	s->used_cpus += cpus;
	s->used_mem_mb += mem;
	for (i = 0; i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];
		long long want = j->roles[t->role].gpu;

		t->gpus = 0;
		for (g = 0; g < 64 && want > 0; g++)
			if (!(s->gpu_used & (1ULL << g))) {
				s->gpu_used |= 1ULL << g;
				t->gpus |= 1ULL << g;
				want--;
			}
	}
	j->holds = true;
	return 1;
}

void run_release(struct srv *s, struct srv_job *j)
{
	long long cpus, mem, gpus;
	size_t i;

	if (!j->holds)
		return;
	run_job_request(j, &cpus, &mem, &gpus);
	s->used_cpus -= cpus;
	s->used_mem_mb -= mem;
	/* tasks keep their masks: the status shows what they had */
	for (i = 0; i < j->ntasks; i++)
		s->gpu_used &= ~j->tasks[i].gpus;
	j->holds = false;
}

/* After a restart: a running job holds what it held. */
void run_rehold(struct srv *s, struct srv_job *j)
{
	long long cpus, mem, gpus;
	size_t i;

	if (!s->capped || !j->holds)
		return;
	run_job_request(j, &cpus, &mem, &gpus);
	s->used_cpus += cpus;
	s->used_mem_mb += mem;
	for (i = 0; i < j->ntasks; i++)
		s->gpu_used |= j->tasks[i].gpus;
}
