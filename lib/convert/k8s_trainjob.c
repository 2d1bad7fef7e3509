/* k8s_trainjob.c - a job as Kubeflow Trainer v2's TrainJob
 * (trainer.kubeflow.org/v1alpha1, as Trainer v2.3.0 runs it): the job's
 * one role as spec.trainer (numNodes its tasks, resourcesPerNode its
 * cpu, memory and GPUs, its image, its command through bash -c, its
 * variables in env: a trainer has no envFrom, so no ConfigMap, and no
 * volumes: /dev/shm is the runtime's), on the
 * runtime the profile names (a ClusterTrainingRuntime, by default
 * torch-distributed, or a TrainingRuntime of the namespace), whose
 * trainer step becomes a JobSet's replicated Job "node". What the
 * status shows of the role (its name, its ports) rides on the
 * TrainJob's own annotations; Kueue's queue as the queue-name label. */
#include "convert.h"

#include <string.h>

#define KUEUE_QUEUE   "kueue.x-k8s.io/queue-name"
#define TRAINER_GROUP "trainer.kubeflow.org"
/* The CRD's maxItems of spec.trainer.env: the API server refuses more */
#define TRAINER_ENV_MAX 128

static void check(struct pai__k8s_conv *c)
{
	if (c->unlimited || c->retry > 0)
		pai__k8s_say_retry(c, "a TrainJob is run again as its runtime "
				      "says, never as the config does: the "
				      "retry count must be 0 (or convert --to "
				      "jobset or volcano)");
}

/* The TrainJob's trainer from role 0's pod template t (borrowed). */
static json_t *trainer(struct pai__k8s_conv *c, json_t *t)
{
	json_t *ct = json_array_get(
	    json_object_get(json_object_get(t, "spec"), "containers"), 0);
	json_t *tr = json_pack(
	    "{s:O?,s:O?,s:O?,s:I,s:O?}", "image", json_object_get(ct, "image"),
	    "command", json_object_get(ct, "command"), "args",
	    json_object_get(ct, "args"), "numNodes",
	    (json_int_t)pai__k8s_tasks(c->k.job, 0), "resourcesPerNode",
	    json_object_get(ct, "resources"));

	if (tr && json_object_get(ct, "env"))
		json_object_set(tr, "env", json_object_get(ct, "env"));
	if (json_array_size(json_object_get(ct, "env")) > TRAINER_ENV_MAX)
		pai__k8s_sayf_role(
		    c, 0, "taskNumber", PAI_SEVERITY_ERROR,
		    PAI__RULE_K8S_TOO_LARGE,
		    "a TrainJob's trainer takes at most %d variables, and its "
		    "pods would have %zu (each task's host and ports are "
		    "some): fewer tasks, or convert --to jobset",
		    TRAINER_ENV_MAX,
		    json_array_size(json_object_get(ct, "env")));
	return tr;
}

static json_t *runtime_ref(struct pai__k8s_conv *c)
{
	return json_pack("{s:s,s:s,s:s}", "apiGroup", TRAINER_GROUP, "kind",
			 c->k.o.runtime_namespaced ? "TrainingRuntime"
						   : "ClusterTrainingRuntime",
			 "name",
			 c->k.o.runtime ? c->k.o.runtime : "torch-distributed");
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *t = pai__k8s_pod_template(c, 0), *meta, *ann;

	meta = t ? pai__k8s_meta(c, c->k.name) : NULL;
	if (!meta) {
		json_decref(t);
		return NULL;
	}
	/* paictl/task-role and paictl/ports, which the status reads */
	ann = json_object_get(json_object_get(t, "metadata"), "annotations");
	json_object_update(json_object_get(meta, "annotations"), ann);
	if (c->k.o.queue)
		json_object_set_new(json_object_get(meta, "labels"),
				    KUEUE_QUEUE, json_string(c->k.o.queue));
	ann = json_pack("{s:s,s:s,s:o,s:{s:o,s:o}}", "apiVersion",
			c->k.kind->api_version, "kind", c->k.kind->kind,
			"metadata", meta, "spec", "runtimeRef", runtime_ref(c),
			"trainer", trainer(c, t));
	json_decref(t);
	return ann;
}

const struct pai__k8s_writer pai__k8s_trainjob = {
    .id = PAI_K8S_TRAINJOB,
    .title = "a TrainJob",
    .task_word = "trainer step",
    .role_rule = PAI__RULE_K8S_TRAINJOB_ROLE,
    .container = "node",
    .restart = NULL, /* the runtime's */
    .env_inline = 1,
    .no_queue = "the job goes to no queue, not to its virtual cluster "
		"(give --queue NAME for a Kueue LocalQueue of the namespace)",
    .own_env_msg = "dropped: Kubeflow Trainer's torch plugin sets this "
		   "variable in every node itself (PET_NNODES, "
		   "PET_NODE_RANK, PET_MASTER_ADDR...), and its value is the "
		   "one the pods see",
    .check = check,
    .object = object,
};
