/* engine_paddlejob.c - a PaddleJob (§8): its phase is status.phase, its
 * roles the replica types ps, worker and heter of its spec, its pods
 * those labelled paddle-res-type that it owns, each named
 * <job>-<type>-<index>. It has no abort: stopped, it is deleted (the
 * operator deletes its pods). */
#include "k8s_api.h"

#include <stdlib.h>
#include <string.h>

static const char *phase(json_t *job, const char **since)
{
	json_t *st = json_object_get(job, "status");

	if (since)
		*since = pai__json_str(st, "completionTime");
	return pai__json_str(st, "phase");
}

static struct pai__k8s_spec_role *roles(json_t *job, size_t *n)
{
	static const char *const types[] = {"ps", "worker", "heter"};
	json_t *spec = json_object_get(job, "spec"), *t;
	struct pai__k8s_spec_role *r = calloc(3, sizeof(*r));
	size_t i;

	*n = 0;
	for (i = 0; r && i < 3; i++)
		if ((t = json_object_get(spec, types[i])))
			pai__k8s_spec_role(&r[(*n)++], types[i], t, 0);
	return r;
}

/* Its pods have no label of the job: the operator's own label, then
 * their owner (owns()). */
static void selector(pai__buf *q, const char *name)
{
	(void)name;
	pai__buf_puts(q, "paddle-res-type");
}

static int pod_task(json_t *pod, pai__buf *task, long *index)
{
	json_t *meta = json_object_get(pod, "metadata");
	const char *name = pai__json_str(meta, "name");
	const char *dash = name ? strrchr(name, '-') : NULL;
	const char *t =
	    pai__json_str(json_object_get(meta, "labels"), "paddle-res-type");

	if (!t || !dash || !pai__k8s_number(dash + 1, index))
		return 0;
	pai__buf_puts(task, t);
	return 1;
}

static int stop(pai_client *c, json_t *job, const char *name)
{
	(void)name;
	return pai__k8s_stop_by_delete(c, job);
}

static const char *queue(json_t *job)
{
	return pai__json_str(
	    json_object_get(json_object_get(job, "spec"), "schedulingPolicy"),
	    "queue");
}

static long long retries(json_t *job)
{
	(void)job; /* never retried */
	return 0;
}

const struct pai__k8s_engine pai__k8s_paddlejob_engine = {
    .id = PAI_K8S_PADDLEJOB,
    .phase = phase,
    .roles = roles,
    .selector = selector,
    .pod_task = pod_task,
    .owns = pai__k8s_owned_by,
    .stop = stop,
    .queue = queue,
    .retries = retries,
};
