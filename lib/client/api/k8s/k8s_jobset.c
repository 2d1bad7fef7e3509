/* k8s_jobset.c - what the kinds that run as a JobSet's Jobs share
 * (engine_jobset.c's JobSet, engine_trainjob.c's TrainJob, whose
 * runtime makes one): the phase from the end conditions and the Jobs'
 * counts, the selector of the JobSet's pods, and a pod's replicated Job
 * and the Job controller's completion index. */
#include "k8s_api.h"

#include <stdint.h>
#include <string.h>

#define RJOB  "jobset.sigs.k8s.io/replicatedjob-name"
#define INDEX "batch.kubernetes.io/job-completion-index"

/* The sum of key over the status's array list: the API's counts are
 * int32s, and a larger one is none (no sum can overflow then). */
static long long count(json_t *job, const char *list, const char *key)
{
	json_t *st = json_object_get(json_object_get(job, "status"), list), *r;
	long long sum = 0, n;
	size_t i;

	json_array_foreach(st, i, r)
	{
		if (pai__json_integer(json_object_get(r, key), &n) && n > 0 &&
		    n <= INT32_MAX)
			sum += n;
	}
	return sum;
}

const char *pai__k8s_jobs_phase(json_t *job, const char **since,
				const char *complete, const char *list)
{
	const char *ends[] = {complete, "Failed"};
	json_t *spec = json_object_get(job, "spec"), *cond;
	size_t i;

	for (i = 0; i < 2; i++)
		if ((cond = pai__k8s_condition(job, ends[i]))) {
			if (since)
				*since =
				    pai__json_str(cond, "lastTransitionTime");
			return i ? "Failed" : "Completed";
		}
	/* suspended: its Jobs' pods deleted, which takes a moment */
	if ((cond = pai__k8s_condition(job, "Suspended")) && since)
		*since = pai__json_str(cond, "lastTransitionTime");
	if (json_is_true(json_object_get(spec, "suspend")))
		return cond && count(job, list, "active") == 0 ? "Suspended"
							       : "Suspending";
	if (count(job, list, "ready") + count(job, list, "succeeded") > 0)
		return "Running";
	return json_object_get(job, "status") ? "Pending" : NULL;
}

void pai__k8s_jobset_selector(pai__buf *q, const char *name)
{
	pai__buf_put_escaped(q, "jobset.sigs.k8s.io/jobset-name=");
	pai__buf_put_escaped(q, name);
}

int pai__k8s_jobset_pod_task(json_t *pod, pai__buf *task, long *index)
{
	json_t *meta = json_object_get(pod, "metadata");
	const char *rjob = pai__json_str(json_object_get(meta, "labels"), RJOB);

	if (!rjob ||
	    !pai__k8s_number(
		pai__json_str(json_object_get(meta, "annotations"), INDEX),
		index))
		return 0;
	pai__buf_puts(task, rjob);
	return 1;
}
