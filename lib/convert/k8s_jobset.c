/* k8s_jobset.c - a job as a JobSet (jobset.x-k8s.io/v1alpha2, as
 * kubernetes-sigs/jobset v0.8.2 runs it): a replicated Job per role
 * (replicas 1, an Indexed Job of taskNumber pods that fails at its first
 * failed pod: backoffLimit 0), stable names through the JobSet's
 * headless Service, the retries its failurePolicy's maxRestarts (the
 * whole JobSet is made again), the roles whose tasks must all succeed
 * its successPolicy; Kueue's queue as the queue-name label. */
#include "convert.h"

#define KUEUE_QUEUE "kueue.x-k8s.io/queue-name"

static void check(struct pai__k8s_conv *c)
{
	pai_role ro;
	size_t r;

	if (c->unlimited)
		pai__k8s_say_retry(c, "unlimited retries (a negative count) "
				      "cannot be said: a JobSet's "
				      "failurePolicy.maxRestarts is a number");
	for (r = 0; r < c->k.nroles; r++)
		if (!pai_job_role(&ro, c->k.job, r) && ro.min_succeeded >= 0 &&
		    ro.min_succeeded < ro.task_number)
			pai__k8s_sayf_role(
			    c, r, pai__k8s_completion_key(c, 0),
			    PAI_SEVERITY_WARNING, PAI__RULE_K8S_MIN_SUCCEEDED,
			    "a JobSet counts a role as succeeded when its Job "
			    "did, all its tasks: role '%s' succeeds when all "
			    "%lld of its tasks did, not %lld",
			    ro.name, ro.task_number, ro.min_succeeded);
}

/* All roles' Jobs must succeed, or (Any) one of the roles that succeed
 * when theirs did (OpenPAI: the job succeeds when a role reaches its
 * minimum). */
static json_t *success_policy(struct pai__k8s_conv *c)
{
	json_t *targets = json_array();
	pai_role ro;
	size_t r;

	for (r = 0; targets && r < c->k.nroles; r++)
		if (!pai_job_role(&ro, c->k.job, r) && ro.min_succeeded >= 0)
			json_array_append_new(targets,
					      json_string(c->k.roles[r].task));
	if (json_array_size(targets))
		return json_pack("{s:s,s:o}", "operator", "Any",
				 "targetReplicatedJobs", targets);
	json_decref(targets);
	return json_pack("{s:s}", "operator", "All");
}

static json_t *replicated_job(struct pai__k8s_conv *c, size_t r)
{
	json_t *t = pai__k8s_pod_template(c, r);
	json_int_t n = (json_int_t)pai__k8s_tasks(c->k.job, r);

	return t ? json_pack("{s:s,s:i,s:{s:{s:I,s:I,s:s,s:i,s:o}}}", "name",
			     c->k.roles[r].task, "replicas", 1, "template",
			     "spec", "parallelism", n, "completions", n,
			     "completionMode", "Indexed", "backoffLimit", 0,
			     "template", t)
		 : NULL;
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *rjobs = json_array(), *meta = pai__k8s_meta(c, c->k.name);
	size_t r;

	for (r = 0; rjobs && r < c->k.nroles; r++) {
		json_t *j = replicated_job(c, r);

		if (!j || json_array_append_new(rjobs, j))
			json_decref(rjobs), rjobs = NULL;
	}
	if (!rjobs || !meta) {
		json_decref(rjobs);
		json_decref(meta);
		return NULL;
	}
	if (c->k.o.queue)
		json_object_set_new(json_object_get(meta, "labels"),
				    KUEUE_QUEUE, json_string(c->k.o.queue));
	return json_pack(
	    "{s:s,s:s,s:o,s:{s:{s:I},s:o,s:{s:b,s:b},s:o}}", "apiVersion",
	    c->k.kind->api_version, "kind", c->k.kind->kind, "metadata", meta,
	    "spec", "failurePolicy", "maxRestarts", (json_int_t)c->retry,
	    "successPolicy", success_policy(c), "network", "enableDNSHostnames",
	    1, "publishNotReadyAddresses", 1, "replicatedJobs", rjobs);
}

const struct pai__k8s_writer pai__k8s_jobset = {
    .id = PAI_K8S_JOBSET,
    .title = "a JobSet",
    .task_word = "replicated job",
    .role_rule = PAI__RULE_K8S_NAME,
    .restart = "Never",
    .no_queue = "the job goes to no queue, not to its virtual cluster "
		"(give --queue NAME for a Kueue LocalQueue of the namespace)",
    .check = check,
    .object = object,
};
