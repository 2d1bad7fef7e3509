/* engine_jobset.c - a JobSet (jobset.x-k8s.io/v1alpha2, as
 * kubernetes-sigs/jobset v0.8.2's controller writes it): its phase from
 * its conditions (Completed, Failed, Suspended) and replicatedJobsStatus,
 * its roles its replicated Jobs, its pods those labelled with its name,
 * of its current run (the restart-attempt label: a restart makes every
 * Job again), each with its replicated Job and the Job controller's
 * completion index. Stopped, it is suspended (spec.suspend), so that it
 * stays to be seen, STOPPED once its pods are gone. */
#include "k8s_api.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RJOB	 "jobset.sigs.k8s.io/replicatedjob-name"
#define REPLICAS "jobset.sigs.k8s.io/replicatedjob-replicas"
#define JOB_IDX	 "jobset.sigs.k8s.io/job-index"
#define ATTEMPT	 "jobset.sigs.k8s.io/restart-attempt"
#define INDEX	 "batch.kubernetes.io/job-completion-index"

/* The sum of key over replicatedJobsStatus. */
static long long count(json_t *job, const char *key)
{
	json_t *st = json_object_get(json_object_get(job, "status"),
				     "replicatedJobsStatus"),
	       *r;
	long long sum = 0, n;
	size_t i;

	json_array_foreach(st, i, r)
	{
		/* saturated: a server's counts could overflow the sum */
		if (pai__json_integer(json_object_get(r, key), &n) && n > 0)
			sum = n > LLONG_MAX - sum ? LLONG_MAX : sum + n;
	}
	return sum;
}

static const char *phase(json_t *job, const char **since)
{
	static const char *const ends[] = {"Completed", "Failed"};
	json_t *spec = json_object_get(job, "spec"), *cond;
	size_t i;

	for (i = 0; i < 2; i++)
		if ((cond = pai__k8s_condition(job, ends[i]))) {
			if (since)
				*since =
				    pai__json_str(cond, "lastTransitionTime");
			return ends[i];
		}
	/* suspended: its Jobs' pods deleted, which takes a moment */
	if ((cond = pai__k8s_condition(job, "Suspended")) && since)
		*since = pai__json_str(cond, "lastTransitionTime");
	if (json_is_true(json_object_get(spec, "suspend")))
		return cond && count(job, "active") == 0 ? "Suspended"
							 : "Suspending";
	if (count(job, "ready") + count(job, "succeeded") > 0)
		return "Running";
	return json_object_get(job, "status") ? "Pending" : NULL;
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

static void selector(pai__buf *q, const char *name)
{
	pai__buf_put_escaped(q, "jobset.sigs.k8s.io/jobset-name=");
	pai__buf_put_escaped(q, name);
}

static int pod_task(json_t *pod, pai__buf *task, long *index)
{
	json_t *meta = json_object_get(pod, "metadata");
	json_t *l = json_object_get(meta, "labels");
	const char *rjob = pai__json_str(l, RJOB);
	long reps = 1, job = 0;

	if (!rjob ||
	    !pai__k8s_number(
		pai__json_str(json_object_get(meta, "annotations"), INDEX),
		index))
		return 0;
	pai__k8s_number(pai__json_str(l, REPLICAS), &reps);
	pai__k8s_number(pai__json_str(l, JOB_IDX), &job);
	pai__buf_puts(task, rjob);
	if (reps > 1)
		pai__buf_printf(task, "-%ld", job);
	return 1;
}

/* Its pods are its Jobs' (owned by them): of this run of the JobSet,
 * and not made before it (a JobSet of that name deleted, its pods not
 * yet). */
static int owns(json_t *job, json_t *pod)
{
	json_t *pm = json_object_get(pod, "metadata");
	const char *made = pai__json_str(json_object_get(job, "metadata"),
					 "creationTimestamp");
	const char *pod_made = pai__json_str(pm, "creationTimestamp");
	long long restarts = 0;
	long attempt;

	pai__json_integer(
	    json_object_get(json_object_get(job, "status"), "restarts"),
	    &restarts);
	if (!pai__k8s_number(
		pai__json_str(json_object_get(pm, "labels"), ATTEMPT),
		&attempt) ||
	    attempt != restarts)
		return 0;
	return !made || !pod_made || strcmp(pod_made, made) >= 0;
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	json_t *patch =
		   json_pack("{s:{s:{s:s}},s:{s:b}}", "metadata", "annotations",
			     PAI__K8S_STOPPED, "true", "spec", "suspend", 1),
	       *got = NULL;
	int err;

	(void)name;
	err = patch ? pai__k8s_patch_job(&got, c, job, patch)
		    : pai__client_oom(c);
	json_decref(patch);
	json_decref(got);
	return err;
}

static const char *queue(json_t *job)
{
	return pai__json_str(
	    json_object_get(json_object_get(job, "metadata"), "labels"),
	    "kueue.x-k8s.io/queue-name");
}

static long long retries(json_t *job)
{
	long long n = 0;

	pai__json_integer(
	    json_object_get(json_object_get(job, "status"), "restarts"), &n);
	return n;
}

const struct pai__k8s_engine pai__k8s_jobset_engine = {
    .id = PAI_K8S_JOBSET,
    .phase = phase,
    .roles = roles,
    .selector = selector,
    .pod_task = pod_task,
    .owns = owns,
    .stop = stop,
    .queue = queue,
    .retries = retries,
};
