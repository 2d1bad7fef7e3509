/* k8s_pytorchjob.c - a job as Kubeflow's PyTorchJob (kubeflow.org/v1,
 * as training-operator v1.9.0 runs it): a master role of one task and a
 * worker role, the replica specs Master and Worker, their container
 * "pytorch" (the operator's name for the one it gives MASTER_ADDR,
 * MASTER_PORT, WORLD_SIZE, RANK). Never restarted (restartPolicy Never:
 * a failed pod fails the job); it succeeds when its master did, what
 * still runs then stopped (cleanPodPolicy Running); Volcano's gang
 * scheduling through runPolicy.schedulingPolicy. */
#include "convert.h"

static void check(struct pai__k8s_conv *c)
{
	if (c->unlimited || c->retry > 0)
		pai__k8s_say_retry(c, "a PyTorchJob restarts a failed pod in "
				      "place, never the whole job: the retry "
				      "count must be 0 (or convert --to "
				      "jobset or volcano)");
	if (c->k.clash_a < 0)
		pai__k8s_head_roles(c, "master");
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *run = json_pack("{s:s}", "cleanPodPolicy", "Running");

	if (run && pai__k8s_gang_policy(c, run))
		return json_decref(run), NULL;
	return json_pack(
	    "{s:s,s:s,s:o,s:{s:o,s:o}}", "apiVersion", c->k.kind->api_version,
	    "kind", c->k.kind->kind, "metadata", pai__k8s_meta(c, c->k.name),
	    "spec", "runPolicy", run, "pytorchReplicaSpecs",
	    pai__k8s_replica_specs(c, "master", "Master"));
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
