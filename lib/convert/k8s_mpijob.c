/* k8s_mpijob.c - a job as the MPI Operator's MPIJob (kubeflow.org/
 * v2beta1, as mpi-operator v0.8.0 runs it): a launcher role of one task
 * and a worker role, the replica specs Launcher and Worker; the slots
 * per worker its GPUs (or 1). The operator's hostfile (/etc/mpi), ssh
 * Secret and OMPI_MCA_* are its own: paictl writes none of them. The
 * launcher decides the job (its Job never retried: backoffLimit 0),
 * what still runs then stopped (cleanPodPolicy Running); Volcano's gang
 * scheduling through runPolicy.schedulingPolicy. */
#include "convert.h"

static void check(struct pai__k8s_conv *c)
{
	if (c->unlimited || c->retry > 0)
		pai__k8s_say_retry(c, "an MPIJob's launcher decides it, never "
				      "run again here: the retry count must "
				      "be 0 (or convert --to jobset or "
				      "volcano)");
	if (c->k.clash_a < 0)
		pai__k8s_head_roles(c, "launcher");
}

/* The worker's GPUs, else 1: the processes mpirun starts on each. */
static json_int_t slots(struct pai__k8s_conv *c)
{
	long w = pai__k8s_role_of(c, "worker");
	pai_role ro;

	if (w < 0 || pai_job_role(&ro, c->k.job, (size_t)w) ||
	    ro.gpu_number < 1)
		return 1;
	return (json_int_t)ro.gpu_number;
}

static json_t *object(struct pai__k8s_conv *c)
{
	json_t *run = json_pack("{s:s,s:i}", "cleanPodPolicy", "Running",
				"backoffLimit", 0);

	if (run && pai__k8s_gang_policy(c, run))
		return json_decref(run), NULL;
	return json_pack("{s:s,s:s,s:o,s:{s:I,s:o,s:o}}", "apiVersion",
			 c->k.kind->api_version, "kind", c->k.kind->kind,
			 "metadata", pai__k8s_meta(c, c->k.name), "spec",
			 "slotsPerWorker", slots(c), "runPolicy", run,
			 "mpiReplicaSpecs",
			 pai__k8s_replica_specs(c, "launcher", "Launcher"));
}

const struct pai__k8s_writer pai__k8s_mpijob = {
    .id = PAI_K8S_MPIJOB,
    .title = "an MPIJob",
    .task_word = "replica type",
    .role_rule = PAI__RULE_K8S_MPIJOB_ROLE,
    .container = NULL, /* the task's: launcher, worker */
    .restart = NULL,   /* the replica spec's, which the operator sets */
    .no_queue = "the job goes to the queue 'default', not to its virtual "
		"cluster (give --queue NAME for a Volcano queue that exists)",
    .own_env_msg = "dropped: the MPI Operator sets this variable in the "
		   "pods itself (K_MPI_JOB_ROLE, OMPI_MCA_*...), and its "
		   "value is the one the pods see",
    .check = check,
    .object = object,
};
