/* engine_trainjob.c - Kubeflow Trainer v2's TrainJob (trainer.kubeflow.
 * org/v1alpha1, as Trainer v2.3.0 writes it): its phase from its
 * conditions (Complete, Failed, Suspended; a running one has none) and
 * jobsStatus (Jobs, not pods), its one role the trainer (numNodes
 * nodes; the role's name and ports in the TrainJob's paictl
 * annotations), its pods those of the JobSet named as it (the runtime's
 * trainer step "node": <job>-node-0-<i>-xxxxx), each with the Job
 * controller's completion index. Stopped, it is suspended
 * (spec.suspend), STOPPED once its pods are gone. Before a submission,
 * its runtime must be there: a missing one is only an event and a retry
 * on the controller's side. */
#include "k8s_api.h"

#include <stdlib.h>
#include <string.h>

#define TRAINER_API "/apis/trainer.kubeflow.org/v1alpha1"

/* Its end: Complete, not Completed */
static const char *phase(json_t *job, const char **since)
{
	return pai__k8s_jobs_phase(job, since, "Complete", "jobsStatus");
}

/* One role: the trainer's nodes, its name on the TrainJob itself. */
static struct pai__k8s_spec_role *roles(json_t *job, size_t *n)
{
	json_t *tr = json_object_get(json_object_get(job, "spec"), "trainer");
	struct pai__k8s_spec_role *r = calloc(2, sizeof(*r));
	long long k;

	*n = 0;
	if (!r)
		return NULL;
	r->task = "node";
	r->count = pai__json_integer(json_object_get(tr, "numNodes"), &k) &&
			   k > 0 && k < (1LL << 31)
		       ? (long)k
		       : 1;
	r->tmpl = job; /* its metadata's annotations: paictl's */
	*n = 1;
	return r;
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	(void)name;
	return pai__k8s_suspend(NULL, c, job, 0);
}

static long long retries(json_t *job)
{
	(void)job; /* its runtime's JobSet restarts, not counted here */
	return 0;
}

/* The profile's runtime is there: a TrainJob on a missing one would
 * wait for ever, with only a warning event to say why. */
static int ready(pai_client *c)
{
	const pai_k8s_options *o = &pai__k8s_of(c)->o;
	const char *name = o->runtime ? o->runtime : "torch-distributed";
	const char *kind = o->runtime_namespaced ? "TrainingRuntime"
						 : "ClusterTrainingRuntime";
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_rq rq = {"GET", NULL, NULL, NULL, 1};
	pai__k8s_ans ans;
	int err;

	pai__buf_puts(&path, TRAINER_API);
	if (o->runtime_namespaced) {
		pai__buf_puts(&path, "/namespaces/");
		pai__buf_put_escaped(&path, o->ns);
	}
	pai__buf_puts(&path, o->runtime_namespaced
				 ? "/trainingruntimes/"
				 : "/clustertrainingruntimes/");
	pai__buf_put_escaped(&path, name);
	if (path.oom) {
		pai__buf_release(&path);
		return pai__client_oom(c);
	}
	rq.path = path.data;
	err = pai__k8s_call(NULL, c, &rq, &ans);
	pai__buf_release(&path);
	if (err && ans.http == 404)
		err = pai__client_fail(
		    c, PAI_EINVALID, 404, NULL,
		    "the %s '%s' is not there%s%s: a TrainJob runs on a "
		    "runtime the cluster has (kubectl get %s; cluster add "
		    "--runtime NAME%s)",
		    kind, name, o->runtime_namespaced ? " in namespace " : "",
		    o->runtime_namespaced ? o->ns : "",
		    o->runtime_namespaced ? "trainingruntimes"
					  : "clustertrainingruntimes",
		    o->runtime_namespaced ? " --runtime-namespaced" : "");
	/* not allowed to look (403): the controller will say */
	else if (err && ans.http == 403)
		err = PAI_OK, pai__client_reset_error(c);
	pai__k8s_ans_release(&ans);
	return err;
}

const struct pai__k8s_engine pai__k8s_trainjob_engine = {
    .id = PAI_K8S_TRAINJOB,
    .phase = phase,
    .roles = roles,
    .selector = pai__k8s_jobset_selector,
    .pod_task = pai__k8s_jobset_pod_task,
    .owns = pai__k8s_made_after,
    .stop = stop,
    .queue = pai__k8s_kueue_queue,
    .retries = retries,
    .ready = ready,
};
