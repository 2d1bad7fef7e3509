/* k8s_kinds.c - the kinds of job object a Kubernetes profile runs, each
 * an engine (engine_*.c; the client's found once by k8s_engines.c when
 * it is made); what every kind shares of reading one: its phase as
 * paictl's state (the table of §8 and the issues' phases), and the key
 * that ties a pod to its task (its task and index, as its controller
 * marks them). */
#include "k8s_api.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const struct pai__k8s_engine *pai__k8s_engine(pai_client *c)
{
	/* pai_client_new_k8s() took only a kind that has one */
	return pai__k8s_of(c)->engine;
}

/* ---- states ----------------------------------------------------------- */

static pai_state phase_state(const char *phase)
{
	static const struct {
		const char *phase;
		pai_state state;
	} map[] = {
	    {"Pending", PAI_STATE_WAITING},
	    {"Starting", PAI_STATE_WAITING}, /* PaddleJob: pods held */
	    {"Running", PAI_STATE_RUNNING},
	    {"Restarting", PAI_STATE_RUNNING},
	    {"Completing", PAI_STATE_RUNNING},
	    {"Terminating", PAI_STATE_RUNNING},
	    {"Scaling", PAI_STATE_RUNNING},
	    {"Completed", PAI_STATE_SUCCEEDED},
	    {"Succeed", PAI_STATE_SUCCEEDED},
	    {"Failed", PAI_STATE_FAILED},
	    {"Terminated", PAI_STATE_FAILED},
	    {"Aborting", PAI_STATE_STOPPING},
	    {"Aborted", PAI_STATE_STOPPED},
	    {"Created", PAI_STATE_WAITING},	/* PyTorchJob */
	    {"Succeeded", PAI_STATE_SUCCEEDED}, /* PyTorchJob */
	    {"Suspending", PAI_STATE_STOPPING}, /* paictl stopped it */
	    {"Suspended", PAI_STATE_STOPPED},
	};
	size_t i;

	/* a new job has no status until its controller writes one */
	if (!phase || !*phase)
		return PAI_STATE_WAITING;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(phase, map[i].phase) == 0)
			return map[i].state;
	return PAI_STATE_UNKNOWN;
}

const char *pai__k8s_job_phase(pai_client *c, json_t *job, const char **since)
{
	if (since)
		*since = NULL;
	return pai__k8s_engine(c)->phase(job, since);
}

pai_state pai__k8s_job_state(pai_client *c, json_t *job)
{
	const char *phase = pai__k8s_job_phase(c, job, NULL);
	pai_state s = phase_state(phase);
	json_t *meta = json_object_get(job, "metadata");

	/* deleted (a PaddleJob stopped), the operator not yet done */
	if (pai__json_str(meta, "deletionTimestamp") && !pai_state_is_final(s))
		return PAI_STATE_STOPPING;
	/* suspended by another than a stop: held (Kueue's, until it
	 * admits the job) */
	if (phase && strncmp(phase, "Suspend", 7) == 0 &&
	    !pai__json_str(json_object_get(meta, "annotations"),
			   PAI__K8S_STOPPED))
		return PAI_STATE_WAITING;
	return s;
}

/* ---- pods ------------------------------------------------------------- */

void pai__k8s_task_key(pai__buf *b, const char *task, long index)
{
	pai__buf_printf(b, "%s%c%ld", task, PAI__K8S_KEY_SEP, index);
}

int pai__k8s_pod_key(pai__buf *b, pai_client *c, json_t *pod)
{
	long index;

	if (!pai__k8s_engine(c)->pod_task(pod, b, &index))
		return 0;
	pai__buf_printf(b, "%c%ld", PAI__K8S_KEY_SEP, index);
	return 1;
}

void pai__k8s_spec_role(struct pai__k8s_spec_role *r, const char *task,
			json_t *spec, long dflt)
{
	long long k;

	r->task = task;
	r->count =
	    pai__json_integer(json_object_get(spec, "replicas"), &k) && k > 0
		? (long)k
		: dflt;
	r->tmpl = json_object_get(spec, "template");
}

struct pai__k8s_spec_role *pai__k8s_replica_roles(json_t *specs, size_t *n)
{
	struct pai__k8s_spec_role *r =
	    calloc(json_object_size(specs) + 1, sizeof(*r));
	const char *type;
	json_t *t;
	size_t i;

	*n = 0;
	json_object_foreach(specs, type, t)
	{
		if (!r)
			break;
		/* the operators' replica-type label: the type in lower case */
		for (i = 0; type[i] && i + 1 < sizeof(r[*n].own); i++)
			r[*n].own[i] = (char)tolower((unsigned char)type[i]);
		/* one replica: the operators' default */
		pai__k8s_spec_role(&r[*n], r[*n].own, t, 1);
		(*n)++;
	}
	return r;
}

int pai__k8s_made_after(json_t *job, json_t *pod)
{
	const char *made = pai__json_str(json_object_get(job, "metadata"),
					 "creationTimestamp");
	const char *pod_made = pai__json_str(json_object_get(pod, "metadata"),
					     "creationTimestamp");

	/* RFC 3339 in UTC: the text orders as the time */
	return !made || !pod_made || strcmp(pod_made, made) >= 0;
}

const char *pai__k8s_operator_phase(json_t *job, const char **since)
{
	static const char *const order[] = {"Failed",	 "Succeeded",
					    "Suspended", "Restarting",
					    "Running",	 "Created"};
	json_t *run = json_object_get(json_object_get(job, "spec"),
				      "runPolicy"),
	       *cond = NULL;
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if ((cond = pai__k8s_condition(job, order[i])))
			break;
	if (cond && since)
		*since = pai__json_str(cond, "lastTransitionTime");
	/* asked to suspend, the operator not yet done */
	if (json_is_true(json_object_get(run, "suspend")) && (!cond || i > 2))
		return "Suspending";
	return cond ? order[i] : NULL;
}

void pai__k8s_operator_selector(pai__buf *q, const char *operator_name,
				const char *name)
{
	pai__buf_put_escaped(q, "training.kubeflow.org/operator-name=");
	pai__buf_put_escaped(q, operator_name);
	pai__buf_put_escaped(q, ",training.kubeflow.org/job-name=");
	pai__buf_put_escaped(q, name);
}

int pai__k8s_replica_pod(json_t *pod, const char *role_label,
			 const char *indexless, pai__buf *task, long *index)
{
	json_t *l = json_object_get(json_object_get(pod, "metadata"), "labels");
	const char *role = pai__json_str(l, role_label);
	const char *idx =
	    pai__json_str(l, "training.kubeflow.org/replica-index");

	if (!role)
		return 0;
	if (!idx && indexless && strcmp(role, indexless) == 0)
		*index = 0;
	else if (!pai__k8s_number(idx, index))
		return 0;
	pai__buf_puts(task, role);
	return 1;
}

const char *pai__k8s_operator_queue(json_t *job)
{
	json_t *run = json_object_get(json_object_get(job, "spec"),
				      "runPolicy");

	return pai__json_str(json_object_get(run, "schedulingPolicy"),
			     "queue");
}

const char *pai__k8s_kueue_queue(json_t *job)
{
	return pai__json_str(
	    json_object_get(json_object_get(job, "metadata"), "labels"),
	    "kueue.x-k8s.io/queue-name");
}

int pai__k8s_suspend(json_t **got, pai_client *c, json_t *job,
		     int run_policy)
{
	json_t *patch = run_policy
			    ? json_pack("{s:{s:{s:s}},s:{s:{s:b}}}",
					"metadata", "annotations",
					PAI__K8S_STOPPED, "true", "spec",
					"runPolicy", "suspend", 1)
			    : json_pack("{s:{s:{s:s}},s:{s:b}}", "metadata",
					"annotations", PAI__K8S_STOPPED,
					"true", "spec", "suspend", 1),
	       *stored = NULL;
	int err;

	err = patch ? pai__k8s_patch_job(&stored, c, job, patch)
		    : pai__client_oom(c);
	json_decref(patch);
	if (got)
		*got = stored;
	else
		json_decref(stored);
	return err;
}

int pai__k8s_ready(pai_client *c)
{
	const struct pai__k8s_engine *e = pai__k8s_engine(c);

	return e->ready ? e->ready(c) : PAI_OK;
}

json_t *pai__k8s_condition(json_t *job, const char *type)
{
	json_t *st = json_object_get(job, "status"), *cond;
	size_t i;

	json_array_foreach(json_object_get(st, "conditions"), i, cond)
	{
		const char *t = pai__json_str(cond, "type");
		const char *s = pai__json_str(cond, "status");

		if (t && s && strcmp(t, type) == 0 && strcmp(s, "True") == 0)
			return cond;
	}
	return NULL;
}

json_t *pai__k8s_newer_pod(json_t *a, json_t *b)
{
	const char *ta =
	    pai__json_str(json_object_get(a, "metadata"), "creationTimestamp");
	const char *tb =
	    pai__json_str(json_object_get(b, "metadata"), "creationTimestamp");

	/* RFC 3339 in UTC: the text orders as the time; a tie, the later
	 * word */
	if (!a || (tb && (!ta || strcmp(tb, ta) >= 0)))
		return b;
	return a;
}

int pai__k8s_owned_by(json_t *job, json_t *obj)
{
	const char *uid =
	    pai__json_str(json_object_get(job, "metadata"), "uid");
	json_t *ref;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(obj, "metadata"),
					   "ownerReferences"),
			   i, ref)
	{
		const char *ru = pai__json_str(ref, "uid");

		if (uid && ru && strcmp(ru, uid) == 0)
			return 1;
	}
	return 0;
}

int pai__k8s_number(const char *s, long *out)
{
	char *end;
	long n;

	if (!s || !(*s >= '0' && *s <= '9') || strlen(s) > 9)
		return 0;
	n = strtol(s, &end, 10);
	if (*end)
		return 0;
	*out = n;
	return 1;
}
