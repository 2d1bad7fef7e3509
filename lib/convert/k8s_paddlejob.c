/* k8s_paddlejob.c - a job as a PaddleJob (batch.paddlepaddle.org/v1, as
 * PaddleCloud's operator runs it; reference/kubernetes.md): the replica
 * types ps, worker and heter by the roles' names, intranet Services for
 * stable names, pods kept after the end (cleanPodPolicy Never). It fails
 * at its first failed pod and succeeds when every pod did, never
 * retried; Volcano's gang scheduling through schedulingPolicy. */
#include "convert.h"

#include <string.h>

static void check(struct pai__k8s_conv *c)
{
	int ps = 0, worker = 0;
	pai_role ro;
	size_t r;

	if (c->unlimited || c->retry > 0)
		pai__k8s_say_retry(c, "a PaddleJob never retries a failed job: "
				      "the retry count must be 0 (or convert "
				      "--to volcano)");
	for (r = 0; r < c->k.nroles; r++) {
		ps |= strcmp(c->k.roles[r].task, "ps") == 0;
		worker |= strcmp(c->k.roles[r].task, "worker") == 0;
		/* one role that succeeds when all its tasks did: every pod */
		if (!pai_job_role(&ro, c->k.job, r) && ro.min_succeeded >= 0 &&
		    !(c->k.nroles == 1 && ro.min_succeeded == ro.task_number))
			pai__k8s_say_role(
			    c, r, pai__k8s_completion_key(c, 0),
			    PAI_SEVERITY_ERROR, PAI__RULE_K8S_MIN_SUCCEEDED,
			    "a PaddleJob succeeds only when every pod of "
			    "every role did: the minimum succeeded tasks must "
			    "be null (or, in a job of one role, its task "
			    "number)");
	}
	if (ps && !worker)
		pai__k8s_say_top(c, "taskRoles", PAI_SEVERITY_ERROR,
				 PAI__RULE_K8S_PADDLE_ROLE,
				 "a PaddleJob with ps needs a worker role too");
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *spec = json_pack("{s:s,s:s}", "cleanPodPolicy", "Never",
				 "intranet", "Service");
	size_t r;

	for (r = 0; spec && r < c->k.nroles; r++) {
		json_t *t = pai__k8s_pod_template(c, r);

		if (!t || json_object_set_new(
			      spec, c->k.roles[r].task,
			      json_pack("{s:I,s:o}", "replicas",
					(json_int_t)pai__k8s_tasks(c->k.job, r),
					"template", t)))
			return json_decref(spec), NULL;
	}
	if (spec && pai__k8s_gang_policy(c, spec))
		return json_decref(spec), NULL;
	return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion",
			 c->k.kind->api_version, "kind", c->k.kind->kind,
			 "metadata", pai__k8s_meta(c, c->k.name), "spec", spec);
}

const struct pai__k8s_writer pai__k8s_paddlejob = {
    .id = PAI_K8S_PADDLEJOB,
    .title = "a PaddleJob",
    .task_word = "replica type",
    .role_rule = PAI__RULE_K8S_PADDLE_ROLE,
    .restart = "Never",
    .no_queue = "the job goes to the queue 'default', not to its virtual "
		"cluster (give --queue NAME for a Volcano queue that exists)",
    .own_env_msg = "dropped: the Paddle operator sets this variable in "
		   "every pod itself (POD_IP, PADDLE_TRAINER_ID, "
		   "TRAINING_ROLE, PADDLE_TRAINING_ROLE), and its value is "
		   "the one the pods see",
    .check = check,
    .object = object,
};
