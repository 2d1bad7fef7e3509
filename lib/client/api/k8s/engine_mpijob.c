/* engine_mpijob.c - the MPI Operator's MPIJob (kubeflow.org/v2beta1, as
 * mpi-operator v0.8.0 writes it): its phase the condition it holds true
 * last (Created, Running, Restarting, Succeeded, Failed, Suspended: the
 * launcher's Job decides the end, the workers' exits do not), its roles
 * the replica specs (Launcher, Worker), its pods those of its name:
 * workers <job>-worker-<i> with their replica index, the launcher Job's
 * one pod with none (index 0). Stopped, it is suspended
 * (runPolicy.suspend: workers deleted, the launcher Job suspended). */
#include "k8s_api.h"

static struct pai__k8s_spec_role *roles(json_t *job, size_t *n)
{
	return pai__k8s_replica_roles(
	    json_object_get(json_object_get(job, "spec"), "mpiReplicaSpecs"),
	    n);
}

static void selector(pai__buf *q, const char *name)
{
	pai__k8s_operator_selector(q, "mpi-operator", name);
}

/* The launcher's pod has no replica index: it is the one. */
static int pod_task(json_t *pod, pai__buf *task, long *index)
{
	return pai__k8s_replica_pod(pod, "training.kubeflow.org/job-role",
				    "launcher", task, index);
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	(void)name;
	return pai__k8s_suspend(NULL, c, job, 1);
}

static long long retries(json_t *job)
{
	(void)job; /* the launcher decides; nothing runs it again */
	return 0;
}

const struct pai__k8s_engine pai__k8s_mpijob_engine = {
    .id = PAI_K8S_MPIJOB,
    .phase = pai__k8s_operator_phase,
    .roles = roles,
    .selector = selector,
    .pod_task = pod_task,
    .owns = pai__k8s_made_after,
    .stop = stop,
    .queue = pai__k8s_operator_queue,
    .retries = retries,
};
