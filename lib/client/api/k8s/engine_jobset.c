/* engine_jobset.c - a JobSet (jobset.x-k8s.io/v1alpha2, as
 * kubernetes-sigs/jobset v0.8.2's controller writes it): its phase from
 * its conditions (Completed, Failed, Suspended) and replicatedJobsStatus,
 * its roles its replicated Jobs, its pods those labelled with its name,
 * of its current run (the restart-attempt label: a restart makes every
 * Job again), each with its replicated Job and the Job controller's
 * completion index. Stopped, it is suspended (spec.suspend), so that it
 * stays to be seen, STOPPED once its pods are gone. */
#include "k8s_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPLICAS "jobset.sigs.k8s.io/replicatedjob-replicas"
#define JOB_IDX	 "jobset.sigs.k8s.io/job-index"
#define ATTEMPT	 "jobset.sigs.k8s.io/restart-attempt"

static const char *phase(json_t *job, const char **since)
{
	return pai__k8s_jobs_phase(job, since, "Completed",
				   "replicatedJobsStatus");
}

/* A replicated Job's Jobs (its replicas, at least 1). */
static long long jobs_of(json_t *rj)
{
	long long reps;

	return pai__json_integer(json_object_get(rj, "replicas"), &reps) &&
		       reps > 1
		   ? reps
		   : 1;
}

/* The roles of rjobs: each value, and the sum, checked against the
 * maximum before the sum is made (a server's count could wrap it). */
static size_t roles_count(json_t *rjobs)
{
	size_t i, total = 0;
	json_t *rj;

	json_array_foreach(rjobs, i, rj)
	{
		long long reps = jobs_of(rj);

		if (reps > PAI__K8S_ROLES_MAX ||
		    (size_t)reps > PAI__K8S_ROLES_MAX - total)
			return PAI__K8S_ROLES_MAX + 1;
		total += (size_t)reps;
	}
	return total;
}

/* A replicated Job of several Jobs is a role per Job: <name>-<index>. */
static struct pai__k8s_spec_role *roles(json_t *job, size_t *n)
{
	json_t *rjobs =
	    json_object_get(json_object_get(job, "spec"), "replicatedJobs");
	struct pai__k8s_spec_role *r = NULL;
	size_t i, total = roles_count(rjobs), k;
	json_t *rj;
	long long reps, pods;

	*n = 0;
	if (total > PAI__K8S_ROLES_MAX) {
		*n = total;
		return NULL;
	}
	if (!(r = calloc(total + 1, sizeof(*r))))
		return NULL;
	json_array_foreach(rjobs, i, rj)
	{
		json_t *js =
		    json_object_get(json_object_get(rj, "template"), "spec");
		const char *name = pai__json_str(rj, "name");

		if (!name)
			continue;
		reps = jobs_of(rj);
		if (!pai__json_integer(json_object_get(js, "completions"),
				       &pods) &&
		    !pai__json_integer(json_object_get(js, "parallelism"),
				       &pods))
			pods = 1;
		for (k = 0; k < (size_t)reps; k++, (*n)++) {
			r[*n].task = name;
			if (reps > 1) {
				snprintf(r[*n].own, sizeof(r[*n].own), "%s-%zu",
					 name, k);
				r[*n].task = r[*n].own;
			}
			r[*n].count = pods <= 0 ? 0
				      : pods > PAI__K8S_TASKS_MAX
					  ? PAI__K8S_TASKS_MAX + 1
					  : (long)pods;
			r[*n].tmpl = json_object_get(js, "template");
		}
	}
	return r;
}

/* Its replicated Job's Job: <name>-<index> where it makes several. */
static int pod_task(json_t *pod, pai__buf *task, long *index)
{
	json_t *l = json_object_get(json_object_get(pod, "metadata"), "labels");
	long reps = 1, job = 0;

	if (!pai__k8s_jobset_pod_task(pod, task, index))
		return 0;
	pai__k8s_number(pai__json_str(l, REPLICAS), &reps);
	pai__k8s_number(pai__json_str(l, JOB_IDX), &job);
	if (reps > 1)
		pai__buf_printf(task, "-%ld", job);
	return 1;
}

static long long retries(json_t *job)
{
	long long n = 0;

	pai__json_integer(
	    json_object_get(json_object_get(job, "status"), "restarts"), &n);
	return n;
}

/* Its pods are its Jobs' (owned by them): of this run of the JobSet,
 * and not made before it (a JobSet of that name deleted, its pods not
 * yet). */
static int owns(json_t *job, json_t *pod)
{
	json_t *l = json_object_get(json_object_get(pod, "metadata"), "labels");
	long attempt;

	return pai__k8s_number(pai__json_str(l, ATTEMPT), &attempt) &&
	       attempt == retries(job) && pai__k8s_made_after(job, pod);
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	(void)name;
	return pai__k8s_suspend(NULL, c, job, 0);
}

const struct pai__k8s_engine pai__k8s_jobset_engine = {
    .id = PAI_K8S_JOBSET,
    .phase = phase,
    .roles = roles,
    .selector = pai__k8s_jobset_selector,
    .pod_task = pod_task,
    .owns = owns,
    .stop = stop,
    .queue = pai__k8s_kueue_queue,
    .retries = retries,
};
