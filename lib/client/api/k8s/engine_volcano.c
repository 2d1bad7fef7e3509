/* engine_volcano.c - a Volcano Job (§8): its phase is
 * status.state.phase, its roles spec.tasks, its pods those labelled
 * volcano.sh/job-name that it owns, each with its task and index in
 * Volcano's labels; stopped as `vcctl job suspend` does it, by a Command
 * the job controller carries out (Aborting, then Aborted: STOPPED). */
#include "k8s_api.h"

#include <stdlib.h>
#include <string.h>

static const char *phase(json_t *job, const char **since)
{
	json_t *st = json_object_get(json_object_get(job, "status"), "state");

	if (since)
		*since = pai__json_str(st, "lastTransitionTime");
	return pai__json_str(st, "phase");
}

static struct pai__k8s_spec_role *roles(json_t *job, size_t *n)
{
	json_t *tasks = json_object_get(json_object_get(job, "spec"), "tasks");
	struct pai__k8s_spec_role *r =
	    calloc(json_array_size(tasks) + 1, sizeof(*r));
	json_t *t;
	size_t i;

	*n = 0;
	json_array_foreach(tasks, i, t)
	{
		if (r && pai__json_str(t, "name"))
			pai__k8s_spec_role(&r[(*n)++], pai__json_str(t, "name"),
					   t, 0);
	}
	return r;
}

static void selector(pai__buf *q, const char *name)
{
	pai__kube_put_escaped(q, "volcano.sh/job-name=");
	pai__kube_put_escaped(q, name);
}

static int pod_task(json_t *pod, pai__buf *task, long *index)
{
	json_t *l = json_object_get(json_object_get(pod, "metadata"), "labels");
	const char *t = pai__json_str(l, "volcano.sh/task-spec");

	if (!t ||
	    !pai__k8s_number(pai__json_str(l, "volcano.sh/task-index"), index))
		return 0;
	pai__buf_puts(task, t);
	return 1;
}

/* The Command of `vcctl job suspend` (§8), which leaves the job to be
 * seen as Aborted (STOPPED). */
static int abort_job(pai_client *c, json_t *job)
{
	json_t *meta = json_object_get(job, "metadata"), *ref, *cmd;
	const char *name = pai__json_str(meta, "name");
	pai__buf path = PAI__BUF_INIT, gen = PAI__BUF_INIT;
	pai__k8s_rq rq = {"POST", NULL, NULL, NULL, 0};
	int err;

	pai__buf_printf(&gen, "%s-abortjob-", name ? name : "");
	pai__k8s_path(&path, c, PAI__K8S_COMMANDS, NULL, NULL);
	ref = json_pack("{s:s,s:s,s:s?,s:s?,s:b,s:b}", "apiVersion",
			pai__k8s_job_api(c), "kind", pai__k8s_job_kind(c),
			"name", name, "uid", pai__json_str(meta, "uid"),
			"controller", 1, "blockOwnerDeletion", 1);
	cmd = json_pack("{s:s,s:s,s:{s:s?,s:[O]},s:s,s:O}", "apiVersion",
			"bus.volcano.sh/v1alpha1", "kind", "Command",
			"metadata", "generateName", gen.data, "ownerReferences",
			ref, "action", "AbortJob", "target", ref);
	rq.path = path.data;
	rq.body = cmd;
	err = !cmd || path.oom ? pai__client_oom(c)
			       : pai__k8s_call(NULL, c, &rq, NULL);
	json_decref(ref);
	json_decref(cmd);
	pai__buf_release(&path);
	pai__buf_release(&gen);
	return err;
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	const char *ph = phase(job, NULL);

	/* Volcano ignores AbortJob while restarting (§8) */
	if (ph && strcmp(ph, "Restarting") == 0)
		return pai__client_fail(c, PAI_ECONFLICT, 0, "Restarting",
					"job '%s' is restarting, and Volcano "
					"aborts a job only while it is pending "
					"or running: try again in a moment",
					name);
	return abort_job(c, job);
}

static const char *queue(json_t *job)
{
	return pai__json_str(json_object_get(job, "spec"), "queue");
}

static long long retries(json_t *job)
{
	long long n = 0;

	pai__json_integer(
	    json_object_get(json_object_get(job, "status"), "retryCount"), &n);
	return n;
}

const struct pai__k8s_engine pai__k8s_volcano_engine = {
    .id = PAI_K8S_VOLCANO,
    .phase = phase,
    .roles = roles,
    .selector = selector,
    .pod_task = pod_task,
    .owns = pai__k8s_owned_by,
    .stop = stop,
    .queue = queue,
    .retries = retries,
};
