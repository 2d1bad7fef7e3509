/* k8s_volcano.c - a job as a Volcano Job (batch.volcano.sh/v1alpha1,
 * reference/kubernetes.md): a task per role, the svc plugin for the
 * pods' names and the env plugin for their index; a failed pod restarts
 * the job (RestartJob, maxRetry = retryCount + 1), a role whose tasks
 * all succeeded completes it (CompleteJob), one role's smaller minimum
 * is minSuccess; gang scheduling by Volcano, or the default scheduler. */
#include "convert.h"

static void check(struct pai__k8s_conv *c)
{
	pai_role ro;
	size_t r;

	if (c->unlimited)
		pai__k8s_say_retry(c, "unlimited retries (a negative count) "
				      "cannot be said: a Volcano Job's "
				      "maxRetry is a number");
	for (r = 0; c->k.nroles > 1 && r < c->k.nroles; r++)
		if (!pai_job_role(&ro, c->k.job, r) && ro.min_succeeded >= 0 &&
		    ro.min_succeeded < ro.task_number)
			pai__k8s_say_role(
			    c, r, pai__k8s_completion_key(c, 0),
			    PAI_SEVERITY_ERROR, PAI__RULE_K8S_MIN_SUCCEEDED,
			    "a Volcano Job ends after some of its pods "
			    "succeeded (minSuccess) only counting the pods of "
			    "all roles; below the task number it needs a job "
			    "of one role");
}

static json_t *task(struct pai__k8s_conv *c, size_t r)
{
	pai_role ro;
	json_t *pol, *t = pai__k8s_pod_template(c, r);

	if (!t || pai_job_role(&ro, c->k.job, r))
		return json_decref(t), NULL;
	pol = json_pack("[{s:s,s:s},{s:s,s:s}]", "event", "PodFailed", "action",
			"RestartJob", "event", "PodEvicted", "action",
			"RestartJob");
	if (pol && ro.min_succeeded == ro.task_number)
		json_array_append_new(pol, json_pack("{s:s,s:s}", "event",
						     "TaskCompleted", "action",
						     "CompleteJob"));
	return json_pack("{s:s,s:I,s:o,s:o}", "name", c->k.roles[r].task,
			 "replicas", (json_int_t)ro.task_number, "policies",
			 pol, "template", t);
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *tasks = json_array(), *spec;
	pai_role ro;
	size_t r;

	for (r = 0; tasks && r < c->k.nroles; r++) {
		json_t *t = task(c, r);

		if (!t || json_array_append_new(tasks, t))
			return json_decref(tasks), NULL;
	}
	spec = json_pack(
	    "{s:s,s:I,s:I,s:s,s:{s:[s],s:[]},s:o}", "schedulerName",
	    c->k.o.scheduler == PAI_K8S_SCHED_DEFAULT ? "default-scheduler"
						      : "volcano",
	    "minAvailable", (json_int_t)c->total, "maxRetry",
	    (json_int_t)(c->retry + 1), "queue",
	    c->k.o.queue ? c->k.o.queue : "default", "plugins", "svc",
	    "--publish-not-ready-addresses", "env", "tasks", tasks);
	if (spec && c->k.nroles == 1 && !pai_job_role(&ro, c->k.job, 0) &&
	    ro.min_succeeded > 0 && ro.min_succeeded < ro.task_number)
		json_object_set_new(spec, "minSuccess",
				    json_integer(ro.min_succeeded));
	return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion",
			 c->k.kind->api_version, "kind", c->k.kind->kind,
			 "metadata", pai__k8s_meta(c, c->k.name), "spec", spec);
}

const struct pai__k8s_writer pai__k8s_volcano = {
    .id = PAI_K8S_VOLCANO,
    .title = "a Volcano Job",
    .task_word = "task",
    .role_rule = PAI__RULE_K8S_NAME,
    .restart = "Never",
    .no_queue = "the job goes to the queue 'default', not to its virtual "
		"cluster (give --queue NAME for a Volcano queue that exists)",
    .own_env_msg = "dropped: Volcano's env and svc plugins set this "
		   "variable in every pod themselves (VC_TASK_INDEX, "
		   "VK_TASK_INDEX, VC_<TASK>_HOSTS, VC_<TASK>_NUM), and their "
		   "value is the one the pods see",
    .check = check,
    .object = object,
};
