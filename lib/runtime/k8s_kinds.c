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
/* what the PyTorchJob operator sets in every container (its envvar.go,
 * master.go): never a job's */
static const char *const pytorch_env[] = {"PYTHONUNBUFFERED",
					  "MASTER_PORT",
					  "PET_MASTER_PORT",
					  "MASTER_ADDR",
					  "PET_MASTER_ADDR",
					  "WORLD_SIZE",
					  "RANK",
					  "PET_NODE_RANK",
					  "PET_NPROC_PER_NODE",
					  "PET_NNODES",
					  NULL};

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

int pai__k8s_own_env(const struct pai__k8s_kind *kind, const char *name)
{
	size_t i;

	for (i = 0; kind->own_env && kind->own_env[i]; i++)
		if (strcmp(name, kind->own_env[i]) == 0)
			return 1;
	return 0;
}
