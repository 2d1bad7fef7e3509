/* k8s_kinds.c - the kinds of Kubernetes object a job becomes
 * (pai_k8s_kind), a row each: the object's API, what its pods are
 * called, and how a pod knows its index, as the controllers make them
 * (reference/kubernetes.md). The layers above keep rows of their own
 * for what they do with a kind (lib/convert: the objects written;
 * lib/client/api/k8s: states, pods, stop), each found once by its id. */
#include "runtime.h"

#include <string.h>

static const char *const paddle_tasks[] = {"ps", "worker", "heter", NULL};
static const char *const pytorch_tasks[] = {"master", "worker", NULL};
/* Volcano's env plugin (env.go) appends each pod's index twice, its svc
 * plugin (svc.go; its ConfigMap <job>-svc by configMapKeyRef) each task's
 * host names and their count; the order of the plugins varies. */
static const struct pai__k8s_own volcano_env[] = {
    {.name = "VK_TASK_INDEX", .value = PAI__K8S_OWN_INDEX},
    {.name = "VC_TASK_INDEX", .value = PAI__K8S_OWN_INDEX},
    {.name = "VC_",
     .after = "_HOSTS",
     .value = PAI__K8S_OWN_HOSTS,
     .text = "",
     .per_task = 1},
    {.name = "VC_",
     .after = "_NUM",
     .value = PAI__K8S_OWN_COUNT,
     .per_task = 1},
    {.name = NULL}};

/* The Paddle operator (paddlejob_helper.go constructPod) appends these to
 * the first container; with intranet Service, as paictl writes, the pod's
 * "IP" is its name. The rest come by envFrom from its ConfigMap
 * (constructConfigMap), under the container's own: endpoints at
 * PADDLE_PORT 2379, PaddleCloud's. */
static const char *const paddle_roles[] = {"PSERVER", "TRAINER", "HETER"};
static const struct pai__k8s_own paddle_env[] = {
    {.name = "POD_IP", .value = PAI__K8S_OWN_HOST},
    {.name = "PADDLE_TRAINER_ID", .value = PAI__K8S_OWN_INDEX},
    {.name = "TRAINING_ROLE",
     .value = PAI__K8S_OWN_BY_TASK,
     .by_task = paddle_roles},
    {.name = "PADDLE_TRAINING_ROLE",
     .value = PAI__K8S_OWN_BY_TASK,
     .by_task = paddle_roles},
    {.name = "PADDLE_PSERVERS_IP_PORT_LIST",
     .value = PAI__K8S_OWN_HOSTS,
     .text = ":2379",
     .of = "ps",
     .job_wins = 1},
    {.name = "PADDLE_TRAINER_ENDPOINTS",
     .value = PAI__K8S_OWN_HOSTS,
     .text = ":2379",
     .of = "worker",
     .job_wins = 1},
    {.name = "PADDLE_TRAINERS",
     .value = PAI__K8S_OWN_HOSTS,
     .text = "",
     .of = "worker",
     .job_wins = 1},
    {.name = "PADDLE_TRAINERS_NUM",
     .value = PAI__K8S_OWN_COUNT,
     .of = "worker",
     .job_wins = 1},
    {.name = "PADDLE_HETER_ENDPOINTS",
     .value = PAI__K8S_OWN_HOSTS,
     .text = ":2379",
     .of = "heter",
     .job_wins = 1},
    {.name = "PADDLE_PORT",
     .value = PAI__K8S_OWN_TEXT,
     .text = "2379",
     .job_wins = 1},
    {.name = "TRAINER_PORTS_NUM",
     .value = PAI__K8S_OWN_TEXT,
     .text = "20",
     .job_wins = 1},
    {.name = NULL}};

/* The Job controller gives every container of an Indexed Job's pods its
 * index (a fieldRef on the completion-index annotation), unless the
 * container has that variable; JobSet itself adds none. */
static const struct pai__k8s_own jobset_env[] = {
    {.name = "JOB_COMPLETION_INDEX",
     .value = PAI__K8S_OWN_INDEX,
     .job_wins = 1},
    {.name = NULL}};

/* What training-operator v1.9.0 appends to every container of a
 * PyTorchJob (pytorch/envvar.go setPodEnv, master.go) without an
 * elasticPolicy, as paictl writes them: for a job with a Master, its
 * port and its pod's name (the Service of that name), the world size
 * and the pod's rank; PET_NPROC_PER_NODE as the defaulting leaves
 * nprocPerNode, "auto" (paictl sets none), which also makes the world
 * size the pod count. MASTER_PORT is the master's "pytorch" container's
 * port named pytorchjob-port: paictl names its ports p<port>, so it is
 * the one the defaulting adds, 23456. */
static const struct pai__k8s_own pytorch_env[] = {
    {.name = "PYTHONUNBUFFERED", .value = PAI__K8S_OWN_TEXT, .text = "1"},
    {.name = "MASTER_PORT",
     .value = PAI__K8S_OWN_TEXT,
     .text = "23456",
     .of = "master"},
    {.name = "PET_MASTER_PORT",
     .value = PAI__K8S_OWN_TEXT,
     .text = "23456",
     .of = "master"},
    {.name = "MASTER_ADDR", .value = PAI__K8S_OWN_FIRST, .of = "master"},
    {.name = "PET_MASTER_ADDR", .value = PAI__K8S_OWN_FIRST, .of = "master"},
    {.name = "WORLD_SIZE", .value = PAI__K8S_OWN_PODS, .of = "master"},
    {.name = "RANK", .value = PAI__K8S_OWN_RANK, .of = "master"},
    {.name = "PET_NODE_RANK", .value = PAI__K8S_OWN_RANK, .of = "master"},
    {.name = "PET_NPROC_PER_NODE", .value = PAI__K8S_OWN_TEXT, .text = "auto"},
    {.name = "PET_NNODES", .value = PAI__K8S_OWN_PODS},
    {.name = NULL}};

/* What Kubeflow Trainer v2.3.0's torch plugin (torch.go
 * EnforceMLPolicy) appends to the trainer's container "node" of a
 * TrainJob, after the trainer env, then the Job controller's index:
 * the node count, torchrun's processes per node (numProcPerNode unset:
 * "auto", which it turns into the CPUs where no GPU is asked), the
 * node's rank (the completion index), and node 0's name and port. */
static const char *const trainjob_tasks[] = {"node", NULL};
static const struct pai__k8s_own trainjob_env[] = {
    {.name = "PET_NNODES", .value = PAI__K8S_OWN_PODS},
    {.name = "PET_NPROC_PER_NODE", .value = PAI__K8S_OWN_NPROC},
    {.name = "PET_NODE_RANK", .value = PAI__K8S_OWN_INDEX},
    {.name = "PET_MASTER_ADDR", .value = PAI__K8S_OWN_FIRST, .of = "node"},
    {.name = "PET_MASTER_PORT", .value = PAI__K8S_OWN_TEXT, .text = "29500"},
    {.name = "JOB_COMPLETION_INDEX",
     .value = PAI__K8S_OWN_INDEX,
     .job_wins = 1},
    {.name = NULL}};

/* What the MPI Operator v0.8.0 (mpi_job_controller.go newWorker,
 * newLauncherPodTemplate) appends to the first container: every pod its
 * role; the launcher OpenMPI's settings (the hostfile it mounts at
 * /etc/mpi, the slots per worker: paictl's slotsPerWorker, the worker's
 * GPUs or 1) and no GPUs of its own. */
static const char *const mpijob_tasks[] = {"launcher", "worker", NULL};
static const char *const mpijob_roles[] = {"launcher", "worker"};
static const struct pai__k8s_own mpijob_env[] = {
    {.name = "K_MPI_JOB_ROLE",
     .value = PAI__K8S_OWN_BY_TASK,
     .by_task = mpijob_roles},
    {.name = "OMPI_MCA_orte_keep_fqdn_hostnames",
     .value = PAI__K8S_OWN_TEXT,
     .text = "true",
     .only = "launcher"},
    {.name = "OMPI_MCA_orte_default_hostfile",
     .value = PAI__K8S_OWN_TEXT,
     .text = "/etc/mpi/hostfile",
     .only = "launcher"},
    {.name = "OMPI_MCA_plm_rsh_args",
     .value = PAI__K8S_OWN_TEXT,
     .text = "-o ConnectionAttempts=10",
     .only = "launcher"},
    {.name = "OMPI_MCA_orte_set_default_slots",
     .value = PAI__K8S_OWN_SLOTS,
     .of = "worker",
     .only = "launcher"},
    {.name = "NVIDIA_VISIBLE_DEVICES",
     .value = PAI__K8S_OWN_TEXT,
     .text = "",
     .only = "launcher"},
    {.name = "NVIDIA_DRIVER_CAPABILITIES",
     .value = PAI__K8S_OWN_TEXT,
     .text = "",
     .only = "launcher"},
    {.name = NULL}};

static const struct pai__k8s_kind kinds[] = {
    {
	.id = PAI_K8S_VOLCANO,
	.name = "volcano",
	.api_version = "batch.volcano.sh/v1alpha1",
	.kind = "Job",
	.plural = "jobs",
	/* the svc plugin's headless Service, named after the job */
	.infix = "",
	.subdomain = 1,
	.index_ref = "metadata.labels['volcano.sh/task-index']",
	.own_env = volcano_env,
    },
    {
	.id = PAI_K8S_PADDLEJOB,
	.name = "paddlejob",
	.api_version = "batch.paddlepaddle.org/v1",
	.kind = "PaddleJob",
	.plural = "paddlejobs",
	.tasks = paddle_tasks,
	.lone = "worker",
	/* intranet Service: a headless Service per pod, named like it */
	.infix = "",
	/* appended to the template's env: a line of bash reads it */
	.index_var = "PADDLE_TRAINER_ID",
	.own_env = paddle_env,
    },
    {
	.id = PAI_K8S_JOBSET,
	.name = "jobset",
	.api_version = "jobset.x-k8s.io/v1alpha2",
	.kind = "JobSet",
	.plural = "jobsets",
	/* a replicated Job per role (<jobset>-<task>-0), an Indexed Job's
	 * pods <job>-<index>-xxxxx with the hostname <job>-<index>, under
	 * the JobSet's headless Service (subdomain <jobset>) */
	.infix = "-0",
	.subdomain = 1,
	.suffix = 6,
	/* the Job controller's, which its JOB_COMPLETION_INDEX reads */
	.index_ref =
	    "metadata.annotations['batch.kubernetes.io/job-completion-index']",
	.own_env = jobset_env,
    },
    {
	.id = PAI_K8S_PYTORCHJOB,
	.name = "pytorchjob",
	.api_version = "kubeflow.org/v1",
	.kind = "PyTorchJob",
	.plural = "pytorchjobs",
	.tasks = pytorch_tasks,
	/* <job>-<master|worker>-<i>, a headless Service per pod so named */
	.infix = "",
	.index_ref = "metadata.labels['training.kubeflow.org/replica-index']",
	.own_env = pytorch_env,
    },
    {
	.id = PAI_K8S_TRAINJOB,
	.name = "trainjob",
	.api_version = "trainer.kubeflow.org/v1alpha1",
	.kind = "TrainJob",
	.plural = "trainjobs",
	/* the runtime's trainer step, "node" in torch-distributed: one
	 * role, whatever its name */
	.tasks = trainjob_tasks,
	.lone = "node",
	/* a JobSet named as the TrainJob: its pods as a JobSet's */
	.infix = "-0",
	.subdomain = 1,
	.suffix = 6,
	.index_ref =
	    "metadata.annotations['batch.kubernetes.io/job-completion-index']",
	.own_env = trainjob_env,
    },
    {
	.id = PAI_K8S_MPIJOB,
	.name = "mpijob",
	.api_version = "kubeflow.org/v2beta1",
	.kind = "MPIJob",
	.plural = "mpijobs",
	.tasks = mpijob_tasks,
	/* workers <job>-worker-<i>, the launcher Job <job>-launcher's pod,
	 * under the headless Service <job> */
	.infix = "",
	.subdomain = 1,
	.single = "launcher",
	.index_ref = "metadata.labels['training.kubeflow.org/replica-index']",
	.own_env = mpijob_env,
    },
};

const struct pai__k8s_kind *pai__k8s_kind_at(size_t i)
{
	return i < sizeof(kinds) / sizeof(kinds[0]) ? &kinds[i] : NULL;
}

const struct pai__k8s_kind *pai__k8s_kind_of(pai_k8s_kind id)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].id == id)
			return &kinds[i];
	return NULL;
}

int pai_k8s_kind_from_name(pai_k8s_kind *out, const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(name, kinds[i].name) == 0) {
			if (out)
				*out = kinds[i].id;
			return PAI_OK;
		}
	return PAI_EINVAL;
}

const char *pai_k8s_kind_name(pai_k8s_kind kind)
{
	const struct pai__k8s_kind *k = pai__k8s_kind_of(kind);

	return k ? k->name : "unknown";
}
