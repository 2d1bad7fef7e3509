/* k8s_status.c - a job's object, its pods and, where a task cannot
 * start, its events, as paictl's status JSON: the shape OpenPAI's
 * APIs send ({name, jobStatus, taskRoles: {role: {taskStatuses}}},
 * read by status.c), so that every command and `-o json` see the same
 * on every cluster, with what only Kubernetes tells besides (pod, node,
 * pod phase, reason, restarts; a "kubernetes" member for the objects).
 * Tasks come from the object's spec, so a task whose pod is not there
 * (yet, or any more) is still shown; roles by the names the user wrote
 * (the template's paictl/task-role annotation). What differs between
 * the kinds (phase, roles, which pods) is their engines' (k8s_kinds.c). */
#include "k8s_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a pod's state ---------------------------------------------------- */

static pai_state pod_state(json_t *pod, pai_state job)
{
	const char *phase =
	    pai__json_str(json_object_get(pod, "status"), "phase");
	json_t *meta = json_object_get(pod, "metadata");
	pai_state s;

	if (!pod) /* never made, or deleted with the job's end */
		return pai_state_is_final(job) || job == PAI_STATE_STOPPING
			   ? PAI_STATE_STOPPED
			   : PAI_STATE_WAITING;
	s = phase && strcmp(phase, "Pending") == 0     ? PAI_STATE_WAITING
	    : phase && strcmp(phase, "Running") == 0   ? PAI_STATE_RUNNING
	    : phase && strcmp(phase, "Succeeded") == 0 ? PAI_STATE_SUCCEEDED
	    : phase && strcmp(phase, "Failed") == 0    ? PAI_STATE_FAILED
						       : PAI_STATE_UNKNOWN;
	/* being deleted: killed by a stop (or a restart), not failing */
	if (pai__json_str(meta, "deletionTimestamp"))
		return pai_state_is_final(s) ? PAI_STATE_STOPPED
					     : PAI_STATE_STOPPING;
	return s;
}

/* ---- a pod's container: reason, exit code, restarts --------------------- */

/* The first container's status (paictl's pods have one). */
static json_t *container(json_t *pod)
{
	json_t *st = json_object_get(pod, "status");

	return json_array_get(json_object_get(st, "containerStatuses"), 0);
}

/* "reason: message", or the reason alone. */
static void put_reason(pai__buf *b, json_t *o)
{
	const char *r = pai__json_str(o, "reason"),
		   *m = pai__json_str(o, "message");

	if (!r || !*r)
		return;
	pai__buf_puts(b, r);
	if (m && *m)
		pai__buf_printf(b, ": %s", m);
}

/* Why the pod is not running as it should: the container's waiting or
 * terminated reason (what a terminated one ended with, for a
 * CrashLoopBackOff), the pod's own (Evicted), or the scheduler's
 * (PodScheduled False: Unschedulable). Into b; nothing when all is
 * well. */
static void pod_reason(pai__buf *b, json_t *pod)
{
	json_t *cs = container(pod), *state = json_object_get(cs, "state");
	json_t *w = json_object_get(state, "waiting");
	json_t *t = json_object_get(state, "terminated");
	json_t *last = json_object_get(json_object_get(cs, "lastState"),
				       "terminated"),
	       *cond;
	const char *tr = pai__json_str(t, "reason");
	size_t i;

	if (w) {
		put_reason(b, w);
		if (last && pai__json_str(last, "reason"))
			pai__buf_printf(b, " (last run: %s)",
					pai__json_str(last, "reason"));
	} else if (t && tr && strcmp(tr, "Completed") != 0)
		put_reason(b, t);
	if (b->len)
		return;
	put_reason(b, json_object_get(pod, "status"));
	json_array_foreach(
	    json_object_get(json_object_get(pod, "status"), "conditions"), i,
	    cond)
	{
		const char *type = pai__json_str(cond, "type");

		if (!b->len && type && strcmp(type, "PodScheduled") == 0 &&
		    pai__json_str(cond, "status") &&
		    strcmp(pai__json_str(cond, "status"), "False") == 0)
			put_reason(b, cond);
	}
}

/* exitCode of the container's last end, or -1. */
static long pod_exit(json_t *pod)
{
	json_t *cs = container(pod), *st = json_object_get(cs, "state");
	json_t *t = json_object_get(st, "terminated");
	long long n;

	if (!t)
		t = json_object_get(json_object_get(cs, "lastState"),
				    "terminated");
	return t && pai__json_integer(json_object_get(t, "exitCode"), &n)
		   ? (long)n
		   : -1;
}

/* ---- the job's tasks, from its spec ------------------------------------ */

/* One role as the spec has it. */
struct role {
	char task[96];	  /* the name its pods carry */
	const char *name; /* as the user wrote it (or task) */
	long replicas;
	json_t *ports; /* label -> "p1,p2" (new) */
};

/* "tb:6006,6007;http:10000" (paictl/ports) as {"tb": "6006,6007",
 * "http": "10000"}: new, NULL only when out of memory. */
static json_t *port_map(const char *s)
{
	json_t *o = json_object();

	while (o && s && *s) {
		const char *colon = strchr(s, ':'), *end = strchr(s, ';');
		char *label, *ports;

		if (!end)
			end = s + strlen(s);
		if (!colon || colon > end)
			break; /* not ours: no ports shown */
		label = strndup(s, (size_t)(colon - s));
		ports = strndup(colon + 1, (size_t)(end - colon - 1));
		if (!label || !ports ||
		    json_object_set_new(o, label, json_string(ports)))
			json_decref(o), o = NULL;
		free(label);
		free(ports);
		s = *end ? end + 1 : end;
	}
	return o;
}

/* A role's name and ports (its template's paictl annotations). */
static void role_from(struct role *r, const struct pai__k8s_spec_role *sr)
{
	json_t *ann = json_object_get(json_object_get(sr->tmpl, "metadata"),
				      "annotations");
	const char *name = pai__json_str(ann, "paictl/task-role");

	snprintf(r->task, sizeof(r->task), "%s", sr->task);
	r->name = name && *name ? name : r->task;
	r->replicas = sr->count;
	r->ports = port_map(pai__json_str(ann, "paictl/ports"));
}

/* Roles and tasks within what paictl reads (a server's counts are
 * checked before they are summed or allocated for): PAI_OK, or
 * PAI_EPROTOCOL with the detail. */
static int check_counts(pai_client *c, const struct pai__k8s_spec_role *sr,
			size_t n)
{
	size_t i;
	long tasks = 0;

	if (!sr && n > PAI__K8S_ROLES_MAX)
		return pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
					"the job names more than %d roles",
					PAI__K8S_ROLES_MAX);
	for (i = 0; sr && i < n; i++) {
		if (sr[i].count > PAI__K8S_TASKS_MAX - tasks)
			return pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
						"the job names more than %d "
						"tasks",
						PAI__K8S_TASKS_MAX);
		tasks += sr[i].count;
	}
	return PAI_OK;
}

/* The roles of job (*out, *n of them, new array; free their ports):
 * PAI_OK, PAI_ENOMEM, or PAI_EPROTOCOL for more than paictl reads. */
static int roles_of(struct role **out, pai_client *c, json_t *job, size_t *n)
{
	struct pai__k8s_spec_role *sr = pai__k8s_engine(c)->roles(job, n);
	struct role *r = NULL;
	size_t i;
	int err = check_counts(c, sr, *n);

	*out = NULL;
	if (!err && !(r = sr ? calloc(*n + 1, sizeof(*r)) : NULL))
		err = PAI_ENOMEM;
	for (i = 0; r && i < *n; i++)
		role_from(&r[i], &sr[i]);
	free(sr);
	if (err)
		*n = 0;
	*out = r;
	return err;
}

static void roles_free(struct role *r, size_t n)
{
	size_t i;

	for (i = 0; r && i < n; i++)
		json_decref(r[i].ports);
	free(r);
}

/* ---- reading: pods and events ------------------------------------------- */

/* The job's pods by their key (new object; pai__k8s_pod_key()): those
 * its engine's selector finds and says are the job's own (not an older
 * job's of that name, nor a run's before a restart), the newer of two
 * of one key. */
static int pods_of(json_t **out, pai_client *c, json_t *job)
{
	const struct pai__k8s_engine *e = pai__k8s_engine(c);
	const char *name =
	    pai__json_str(json_object_get(job, "metadata"), "name");
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT, key = PAI__BUF_INIT;
	json_t *list = NULL, *p;
	size_t i;
	int err;

	*out = json_object();
	pai__buf_puts(&q, "?labelSelector=");
	e->selector(&q, name ? name : "");
	pai__k8s_path(&path, c, PAI__K8S_PODS, NULL, q.data);
	err = !*out || q.oom || path.oom ? pai__client_oom(c)
					 : pai__k8s_get(&list, c, path.data);
	json_array_foreach(json_object_get(list, "items"), i, p)
	{
		key.len = 0;
		if (err || !e->owns(job, p) || !pai__k8s_pod_key(&key, c, p))
			continue;
		if (key.oom ||
		    json_object_set(
			*out, key.data,
			pai__k8s_newer_pod(json_object_get(*out, key.data), p)))
			err = pai__client_oom(c);
	}
	json_decref(list);
	pai__buf_release(&q);
	pai__buf_release(&path);
	pai__buf_release(&key);
	return err;
}

/* The message of the latest Warning event about object `name`, into b
 * (nothing when none: events expire, §5). Errors are not the status's:
 * the status is shown without the reason; the read's error is returned
 * only to say that events are not to be read again. */
static int last_warning(pai__buf *b, pai_client *c, const char *name)
{
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT;
	pai__error saved = {0, NULL, NULL};
	json_t *list = NULL, *ev, *best = NULL;
	size_t i;
	int err;

	pai__buf_puts(&q, "?fieldSelector=");
	pai__buf_put_escaped(&q, "type=Warning,involvedObject.name=");
	pai__buf_put_escaped(&q, name);
	pai__k8s_path(&path, c, PAI__K8S_EVENTS, NULL, q.data);
	pai__client_save_error(c, &saved);
	err =
	    q.oom || path.oom ? PAI_ENOMEM : pai__k8s_get(&list, c, path.data);
	pai__client_restore_error(c, &saved);
	json_array_foreach(json_object_get(list, "items"), i, ev)
	{
		const char *t = pai__json_str(ev, "lastTimestamp");
		const char *bt = pai__json_str(best, "lastTimestamp");

		/* RFC 3339 in UTC: the text orders as the time */
		if (!best || (t && bt && strcmp(t, bt) >= 0))
			best = ev;
	}
	put_reason(b, best);
	json_decref(list);
	pai__buf_release(&q);
	pai__buf_release(&path);
	return err;
}

/* ---- the status JSON ----------------------------------------------------- */

/* What building one status needs. */
struct build {
	pai_client *c;
	json_t *job, *pods;
	pai_state state;
	const char *name; /* the job's Kubernetes name */
	json_t *failed;	  /* the first failed task's JSON (borrowed) */
	char *why;	  /* why the job cannot go on (new) */
	int no_events;	  /* a read of events failed: none again (a
			   * reason per pod is not worth a timeout each) */
};

/* The events' reason a pod (or, with no pod, the job: its PodGroup) is
 * waiting, when the pod itself says nothing. */
static void waiting_reason(struct build *bd, pai__buf *b, json_t *pod,
			   const char *pod_name)
{
	const char *uid =
	    pai__json_str(json_object_get(bd->job, "metadata"), "uid");
	char pg[320];

	if (bd->no_events)
		return;
	if (pod) {
		bd->no_events = last_warning(b, bd->c, pod_name) != PAI_OK;
		return;
	}
	if (bd->why) { /* the job's, read once */
		pai__buf_puts(b, bd->why);
		return;
	}
	snprintf(pg, sizeof(pg), "%s-%s", bd->name, uid ? uid : "");
	bd->no_events = last_warning(b, bd->c, pg) != PAI_OK;
	if (!b->len && !bd->no_events)
		bd->no_events = last_warning(b, bd->c, bd->name) != PAI_OK;
	bd->why = strdup(b->data ? b->data : "");
}

/* The container's reason and exit code into t. */
static int task_result(struct build *bd, json_t *t, json_t *pod,
		       const char *pod_name, pai_state s)
{
	pai__buf b = PAI__BUF_INIT;
	long code = pod_exit(pod);
	int err = 0;

	pod_reason(&b, pod);
	if (!b.len && s == PAI_STATE_WAITING && !pai_state_is_final(bd->state))
		waiting_reason(bd, &b, pod, pod_name);
	if (b.len)
		err |= json_object_set_new(t, "containerExitDiagnostics",
					   json_string(b.data));
	if (code >= 0 && (s == PAI_STATE_SUCCEEDED || s == PAI_STATE_FAILED))
		err |= json_object_set_new(t, "containerExitCode",
					   json_integer(code));
	if (s == PAI_STATE_FAILED && !bd->failed)
		bd->failed = t;
	pai__buf_release(&b);
	return err || b.oom ? PAI_ENOMEM : PAI_OK;
}

/* Where the pod's log is: its container's name, and containerLog, which
 * names the run (the pod's uid and restarts): a run that is new has a
 * new log (`paictl logs -f` starts it over). */
static int pod_log(json_t *t, json_t *pod, long long restarts)
{
	json_t *spec = json_object_get(pod, "spec");
	const char *ctr = pai__json_str(
	    json_array_get(json_object_get(spec, "containers"), 0), "name");
	const char *uid =
	    pai__json_str(json_object_get(pod, "metadata"), "uid");

	return (ctr &&
		json_object_set_new(t, "containerName", json_string(ctr))) ||
	       json_object_set_new(
		   t, "containerLog",
		   json_sprintf("%s/%lld", uid ? uid : "-", restarts));
}

/* The pod of task index of role r, and its name: the pod's, or the one
 * it will have (a name its controller completes, "-" and a few letters
 * more: the part it says). */
static json_t *task_pod(struct build *bd, const struct role *r, long index,
			char *name, size_t len)
{
	const struct pai__k8s_kind *k =
	    pai__k8s_kind_of(pai__k8s_of(bd->c)->o.kind);
	pai__buf key = PAI__BUF_INIT;
	json_t *pod;

	pai__k8s_task_key(&key, r->task, index);
	pod = key.oom ? NULL : json_object_get(bd->pods, key.data);
	pai__buf_release(&key);
	if (pai__json_str(json_object_get(pod, "metadata"), "name"))
		snprintf(
		    name, len, "%s",
		    pai__json_str(json_object_get(pod, "metadata"), "name"));
	else
		snprintf(name, len, "%s-%s%s-%ld", bd->name, r->task,
			 k ? k->infix : "", index);
	return pod;
}

/* Task index of role r as paictl shows it. */
static json_t *task_json(struct build *bd, const struct role *r, long index)
{
	char pod_name[512];
	json_t *pod, *st, *cs, *t;
	long long restarts = 0;
	pai_state s;

	pod = task_pod(bd, r, index, pod_name, sizeof(pod_name));
	st = json_object_get(pod, "status");
	cs = container(pod);
	s = pod_state(pod, bd->state);
	pai__json_integer(json_object_get(cs, "restartCount"), &restarts);
	t = json_pack("{s:I,s:s,s:s?,s:s?,s:s?,s:s?,s:s?,s:O,s:I}", "taskIndex",
		      (json_int_t)index, "taskState", pai_state_name(s),
		      "containerId", pod ? pod_name : NULL, "podName", pod_name,
		      "containerIp", pai__json_str(st, "podIP"),
		      "containerNodeName",
		      pai__json_str(json_object_get(pod, "spec"), "nodeName"),
		      "podPhase", pai__json_str(st, "phase"), "containerPorts",
		      r->ports, "retries", (json_int_t)restarts);
	if (t && (task_result(bd, t, pod, pod_name, s) ||
		  (pod && pod_log(t, pod, restarts)))) {
		json_decref(t);
		t = NULL;
	}
	return t;
}

/* The roles' statuses into roles, and each role's task into tasks (by
 * the role's name: what `logs -f` finds its pods by). */
static int add_roles(struct build *bd, json_t *roles, json_t *tasks)
{
	struct role *r;
	size_t n = 0, i;
	long k;
	int err = PAI_OK;

	if ((err = roles_of(&r, bd->c, bd->job, &n)))
		return err;
	for (i = 0; !err && i < n; i++) {
		json_t *ts = json_array();

		for (k = 0; ts && k < r[i].replicas; k++)
			if (json_array_append_new(ts, task_json(bd, &r[i], k)))
				json_decref(ts), ts = NULL;
		if (!ts ||
		    json_object_set_new(
			roles, r[i].name,
			json_pack("{s:{s:s},s:o}", "taskRoleStatus", "name",
				  r[i].name, "taskStatuses", ts)) ||
		    json_object_set_new(tasks, r[i].name,
					json_string(r[i].task)))
			err = PAI_ENOMEM;
	}
	roles_free(r, n);
	return err;
}

/* The job's times: created, and completed once it ended. */
static int job_times(struct build *bd, json_t *js)
{
	json_t *meta = json_object_get(bd->job, "metadata");
	json_t *st = json_object_get(bd->job, "status");
	const char *done = pai__json_str(st, "completionTime"), *since;
	const char *made = pai__json_str(meta, "creationTimestamp");
	int err = 0;

	pai__k8s_job_phase(bd->c, bd->job, &since);
	if (!done)
		done = since;
	if (made)
		err |=
		    json_object_set_new(js, "createdTime", json_string(made));
	if (pai_state_is_final(bd->state) && done)
		err |=
		    json_object_set_new(js, "completedTime", json_string(done));
	return err;
}

/* Why it ended (or waits): the first failed task's exit, else what its
 * tasks wait for. */
static int job_result(struct build *bd, json_t *js)
{
	json_t *f = bd->failed;
	long long code = 0;
	int err = 0;

	if (f &&
	    pai__json_integer(json_object_get(f, "containerExitCode"), &code)) {
		err |=
		    json_object_set_new(js, "appExitCode", json_integer(code));
		err |= json_object_set_new(
		    js, "appExitDiagnostics",
		    json_sprintf(
			"%s: %s", pai__json_str(f, "podName"),
			pai__json_str(f, "containerExitDiagnostics")
			    ? pai__json_str(f, "containerExitDiagnostics")
			    : "failed"));
	} else if (bd->state == PAI_STATE_SUCCEEDED)
		err |= json_object_set_new(js, "appExitCode", json_integer(0));
	else if (bd->why && *bd->why)
		err |= json_object_set_new(js, "appExitDiagnostics",
					   json_string(bd->why));
	return err;
}

/* The "kubernetes" member: the objects behind the status. */
static json_t *k8s_member(pai_client *c, json_t *job)
{
	json_t *meta = json_object_get(job, "metadata");
	const char *phase = pai__k8s_job_phase(c, job, NULL);

	return json_pack("{s:s,s:s,s:s?,s:s?,s:s?,s:s?,s:s?}", "apiVersion",
			 pai__k8s_job_api(c), "kind", pai__k8s_job_kind(c),
			 "namespace", pai__json_str(meta, "namespace"), "name",
			 pai__json_str(meta, "name"), "uid",
			 pai__json_str(meta, "uid"), "resourceVersion",
			 pai__json_str(meta, "resourceVersion"), "phase",
			 phase);
}

/* The jobStatus of job (the fields a list entry has too). */
static json_t *job_status(pai_client *c, json_t *job, pai_state state)
{
	const struct pai__k8s_engine *e = pai__k8s_engine(c);
	json_t *meta = json_object_get(job, "metadata");
	json_t *ann = json_object_get(meta, "annotations");
	const char *queue = e->queue(job);
	const char *phase = pai__k8s_job_phase(c, job, NULL);

	return json_pack("{s:s?,s:s,s:s,s:s,s:I}", "username",
			 pai__json_str(ann, "paictl/user"), "state",
			 pai_state_name(state), "subState", phase ? phase : "",
			 "virtualCluster", queue ? queue : "default", "retries",
			 (json_int_t)e->retries(job));
}

/* The name paictl shows: the one the user gave, which Kubernetes may
 * have had to change. */
static const char *shown_name(json_t *job)
{
	json_t *meta = json_object_get(job, "metadata");
	const char *orig = pai__json_str(json_object_get(meta, "annotations"),
					 "paictl/job-name");

	return orig && *orig ? orig : pai__json_str(meta, "name");
}

static int status_json(json_t **out, struct build *bd)
{
	json_t *js = job_status(bd->c, bd->job, bd->state);
	json_t *roles = json_object(), *tasks = json_object();
	json_t *member = k8s_member(bd->c, bd->job);
	int err;

	*out = NULL;
	err = !js || !roles || !tasks || !member ? PAI_ENOMEM
						 : add_roles(bd, roles, tasks);
	/* add_roles' PAI_EPROTOCOL (too many) as it is */
	if (!err &&
	    (job_times(bd, js) || job_result(bd, js) ||
	     json_object_set(member, "tasks", tasks) ||
	     !(*out = json_pack("{s:s?,s:O,s:O,s:O}", "name",
				shown_name(bd->job), "jobStatus", js,
				"taskRoles", roles, "kubernetes", member))))
		err = PAI_ENOMEM;
	json_decref(js);
	json_decref(roles);
	json_decref(tasks);
	json_decref(member);
	return err;
}

/* The status's version (module.h's job_changed): the Job's
 * resourceVersion, which a watch starts from. */
static int set_version(pai_job_info *info, json_t *job)
{
	const char *rv =
	    pai__json_str(json_object_get(job, "metadata"), "resourceVersion");

	if (rv && !(info->version = strdup(rv)))
		return PAI_ENOMEM;
	return PAI_OK;
}

int pai__k8s_status(pai_job_info **out, pai_client *c, json_t *job)
{
	struct build bd;
	json_t *doc = NULL;
	pai_job_info *info = NULL;
	int err;

	*out = NULL;
	memset(&bd, 0, sizeof(bd));
	bd.c = c;
	bd.job = job;
	bd.state = pai__k8s_job_state(c, job);
	bd.name = pai__json_str(json_object_get(job, "metadata"), "name");
	if (!bd.name)
		return pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
					"the job's object has no name");
	if ((err = pods_of(&bd.pods, c, job)))
		goto out;
	if ((err = status_json(&doc, &bd)) ||
	    !(info = calloc(1, sizeof(*info))) ||
	    (err = pai__status_parse(info, doc)) ||
	    (err = set_version(info, job))) {
		err = err == PAI_EPROTOCOL ? err : pai__client_oom(c);
		goto out;
	}
	*out = info;
	info = NULL;
out:
	pai_job_info_free(info);
	json_decref(doc);
	json_decref(bd.pods);
	free(bd.why);
	return err;
}

int pai__k8s_job_get(pai_job_info **out, const struct pai__api *api,
		     pai_client *c, const char *user, const char *name)
{
	json_t *job = NULL;
	int err;

	(void)api;
	(void)user; /* jobs are the namespace's, whoever submitted them */
	if ((err = pai__k8s_find_job(&job, c, name)))
		return err;
	err = pai__k8s_status(out, c, job);
	json_decref(job);
	return err;
}

json_t *pai__k8s_info_meta(const pai_job_info *info)
{
	return json_object_get(pai_job_info_json(info), "kubernetes");
}

/* ---- lists ----------------------------------------------------------------
 */

/* One list entry: the job's fields, its pods unread. */
static json_t *list_entry(pai_client *c, json_t *job)
{
	struct build bd;
	json_t *js;

	memset(&bd, 0, sizeof(bd));
	bd.c = c;
	bd.job = job;
	bd.state = pai__k8s_job_state(c, job);
	js = job_status(c, job, bd.state);
	if (js &&
	    (job_times(&bd, js) ||
	     (shown_name(job) &&
	      json_object_set_new(js, "name", json_string(shown_name(job)))) ||
	     json_object_set_new(js, "kubernetes", k8s_member(c, job)))) {
		json_decref(js);
		js = NULL;
	}
	return js;
}

int pai__k8s_jobs_list(pai_job_list **out, const struct pai__api *api,
		       pai_client *c, const char *user)
{
	pai__buf path = PAI__BUF_INIT;
	json_t *list = NULL, *a = NULL, *job;
	size_t i;
	int err;

	(void)api;
	/* a user: the jobs paictl made here; everyone (--all): every job */
	pai__k8s_path(&path, c, PAI__K8S_JOBS, NULL,
		      user ? "?labelSelector=app.kubernetes.io%2Fmanaged-by%3D"
			     "paictl"
			   : NULL);
	err = path.oom ? pai__client_oom(c) : pai__k8s_get(&list, c, path.data);
	if (!err && !(a = json_array()))
		err = pai__client_oom(c);
	json_array_foreach(json_object_get(list, "items"), i, job)
	{
		if (!err && json_array_append_new(a, list_entry(c, job)))
			err = pai__client_oom(c);
	}
	if (!err)
		err = pai__status_list(out, c, path.data, json_incref(a));
	json_decref(a);
	json_decref(list);
	pai__buf_release(&path);
	return err;
}
