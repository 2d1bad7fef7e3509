/* k8s_pytorchjob.c - a job as Kubeflow's PyTorchJob (kubeflow.org/v1,
 * as training-operator v1.9.0 runs it): a master role of one task and a
 * worker role, the replica specs Master and Worker, their container
 * "pytorch" (the operator's name for the one it gives MASTER_ADDR,
 * MASTER_PORT, WORLD_SIZE, RANK). Never restarted (restartPolicy Never:
 * a failed pod fails the job); it succeeds when its master did, what
 * still runs then stopped (cleanPodPolicy Running); Volcano's gang
 * scheduling through runPolicy.schedulingPolicy. */
#include "convert.h"

#include <string.h>

/* The role whose task is task, or -1. */
static long role_of(const struct pai__k8s_conv *c, const char *task)
{
	size_t r;

	for (r = 0; r < c->k.nroles; r++)
		if (strcmp(c->k.roles[r].task, task) == 0)
			return (long)r;
	return -1;
}

static void roles(struct pai__k8s_conv *c)
{
	long m = role_of(c, "master"), w = role_of(c, "worker");
	pai_role ro;

	if (m < 0 || w < 0)
		pai__k8s_say_top(c, "taskRoles", PAI_SEVERITY_ERROR,
				 PAI__RULE_K8S_PYTORCH_ROLE,
				 m < 0 ? "a PyTorchJob has a master role of "
					 "one task and a worker role: the "
					 "master is missing"
				       : "a PyTorchJob has a master role of "
					 "one task and a worker role: the "
					 "worker is missing");
	if (m >= 0 && !pai_job_role(&ro, c->k.job, (size_t)m) &&
	    ro.task_number != 1)
		pai__k8s_sayf_role(c, (size_t)m, "taskNumber",
				   PAI_SEVERITY_ERROR,
				   PAI__RULE_K8S_PYTORCH_ROLE,
				   "a PyTorchJob's master is one task, not "
				   "%lld (more go into the worker role)",
				   ro.task_number);
	if (w >= 0 && !pai_job_role(&ro, c->k.job, (size_t)w) &&
	    ro.min_succeeded >= 0)
		pai__k8s_say_role(c, (size_t)w, pai__k8s_completion_key(c, 0),
				  PAI_SEVERITY_WARNING,
				  PAI__RULE_K8S_MIN_SUCCEEDED,
				  "a PyTorchJob succeeds when its master did, "
				  "whatever its workers: their minimum "
				  "succeeded tasks is not counted");
}

static void check(struct pai__k8s_conv *c)
{
	if (c->unlimited || c->retry > 0)
		pai__k8s_say_retry(c, "a PyTorchJob restarts a failed pod in "
				      "place, never the whole job: the retry "
				      "count must be 0 (or convert --to "
				      "jobset or volcano)");
	if (c->k.clash_a < 0)
		roles(c);
}

/* Master and Worker: the operator's replica types. */
static json_t *replica_specs(struct pai__k8s_conv *c)
{
	json_t *specs = json_object();
	size_t r;

	for (r = 0; specs && r < c->k.nroles; r++) {
		const char *task = c->k.roles[r].task;
		json_t *t = pai__k8s_pod_template(c, r);

		if (!t ||
		    json_object_set_new(
			specs, task[0] == 'm' ? "Master" : "Worker",
			json_pack("{s:I,s:s,s:o}", "replicas",
				  (json_int_t)pai__k8s_tasks(c->k.job, r),
				  "restartPolicy", "Never", "template", t)))
			json_decref(specs), specs = NULL;
	}
	return specs;
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *run = json_pack("{s:s}", "cleanPodPolicy", "Running");

	if (run && pai__k8s_gang_policy(c, run))
		return json_decref(run), NULL;
	return json_pack(
	    "{s:s,s:s,s:o,s:{s:o,s:o}}", "apiVersion", c->k.kind->api_version,
	    "kind", c->k.kind->kind, "metadata", pai__k8s_meta(c, c->k.name),
	    "spec", "runPolicy", run, "pytorchReplicaSpecs", replica_specs(c));
}

const struct pai__k8s_writer pai__k8s_pytorchjob = {
    .id = PAI_K8S_PYTORCHJOB,
    .title = "a PyTorchJob",
    .task_word = "replica type",
    .role_rule = PAI__RULE_K8S_PYTORCH_ROLE,
    .container = "pytorch",
    .restart = NULL, /* the replica spec's, which the operator sets */
    /* a headless Service per pod of the pytorch container's ports */
    .port_names = 1,
    .no_queue = "the job goes to the queue 'default', not to its virtual "
		"cluster (give --queue NAME for a Volcano queue that exists)",
    .own_env_msg = "dropped: the PyTorchJob operator sets this variable "
		   "in every pod itself (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, "
		   "RANK...), and its value is the one the pods see",
    .check = check,
    .object = object,
};
