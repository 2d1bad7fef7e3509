/* engine_pytorchjob.c - Kubeflow's PyTorchJob (kubeflow.org/v1, as
 * training-operator v1.9.0 writes it): its phase the condition it holds
 * true last (Created, Running, Restarting, Succeeded, Failed,
 * Suspended), its roles the replica specs (Master, Worker: their pods'
 * replica-type is the type in lower case), its pods those of its name
 * that it owns, each with the operator's replica type and index. Stopped,
 * it is suspended (runPolicy.suspend, which the operator has since
 * v1.7); where its CRD has not that field the API server drops it, and
 * the job is deleted instead, as a PaddleJob is. */
#include "k8s_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *run_policy(json_t *job)
{
	return json_object_get(json_object_get(job, "spec"), "runPolicy");
}

static struct pai__k8s_spec_role *roles(json_t *job, size_t *n)
{
	return pai__k8s_replica_roles(
	    json_object_get(json_object_get(job, "spec"), "pytorchReplicaSpecs"),
	    n);
}

static void selector(pai__buf *q, const char *name)
{
	pai__k8s_operator_selector(q, "pytorchjob-controller", name);
}

static int pod_task(json_t *pod, pai__buf *task, long *index)
{
	return pai__k8s_replica_pod(pod, "training.kubeflow.org/replica-type",
				    NULL, task, index);
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	json_t *got = NULL;
	int err;

	(void)name;
	err = pai__k8s_suspend(&got, c, job, 1);
	/* the field dropped: a CRD (an operator) older than suspend */
	if (!err && !json_is_true(json_object_get(run_policy(got), "suspend")))
		err = pai__k8s_stop_by_delete(c, job);
	json_decref(got);
	return err;
}

static long long retries(json_t *job)
{
	(void)job; /* its pods restart, never the job */
	return 0;
}

const struct pai__k8s_engine pai__k8s_pytorchjob_engine = {
    .id = PAI_K8S_PYTORCHJOB,
    .phase = pai__k8s_operator_phase,
    .roles = roles,
    .selector = selector,
    .pod_task = pod_task,
    .owns = pai__k8s_owned_by,
    .stop = stop,
    .queue = pai__k8s_operator_queue,
    .retries = retries,
};
