/* k8s_watch.c - waiting for a job to change (pai_job_get_changed()):
 * the Job alone (fieldSelector metadata.name, §3) kept in view by the
 * module's list-and-watch loop (k8s_informer.c), from the
 * resourceVersion of the status the caller has, so that nothing is
 * polled and the change is known as the server stores it. The
 * informer opens a watch the server ends (timeoutSeconds, a proxy)
 * again from the last version seen, after a backoff that the waits of
 * one client share; one that is too old (410, an ERROR event) lists
 * the Job again, which counts as news of it. A Job seen (its phase, or
 * the counts of its pods, which Volcano's controller keeps) is read
 * with its pods into a new status; a DELETED one ends the wait:
 * STOPPED, once. */
#include "k8s_informer.h"

#include <stdlib.h>
#include <string.h>

/* One wait. */
struct wait {
	pai_client *c;
	json_t *job; /* the Job as the last event gave it (new), or NULL */
	int deleted; /* ... and it was DELETED */
};

/* The informer's events: the Job kept, to be looked at between rounds
 * (no request goes out from within a transfer's callback). */
static void on_event(void *data, int type, json_t *obj)
{
	struct wait *w = data;

	if (w->deleted)
		return; /* a Job gone stays gone for this wait */
	json_decref(w->job);
	w->job = json_incref(obj);
	w->deleted = type == PAI__KW_DELETED;
}

/* The status of the Job, read now. */
static int read_now(pai_job_info **out, pai_client *c, const char *name)
{
	return pai__k8s_job_get(out, NULL, c, NULL, name);
}

/* A DELETED job's last status, as an end: STOPPED unless it ended. */
static int deleted_status(pai_job_info **out, pai_client *c, json_t *job)
{
	json_t *js;
	int err = pai__k8s_status(out, c, job);

	if (err || pai_state_is_final((*out)->state))
		return err;
	(*out)->state = PAI_STATE_STOPPED;
	js = json_object_get(pai_job_info_json(*out), "jobStatus");
	/* no string of the info points at the state's */
	json_object_set_new(js, "state", json_string("STOPPED"));
	return PAI_OK;
}

/* A copy of last: the job's status, when the watch saw no change. */
static int unchanged(pai_job_info **out, pai_client *c,
		     const pai_job_info *last)
{
	pai_job_info *info = calloc(1, sizeof(*info));
	int err;

	*out = NULL;
	if (!info)
		return pai__client_oom(c);
	/* the JSON is shared, read-only: the copy takes a reference */
	if ((err = pai__status_parse(info, pai_job_info_json(last))) ||
	    (last->version && !(info->version = strdup(last->version)) &&
	     (err = PAI_ENOMEM))) {
		pai_job_info_free(info);
		return err == PAI_ENOMEM ? pai__client_oom(c) : err;
	}
	*out = info;
	return PAI_OK;
}

/* 1 when a and b show the same: the job's state, and each task's. */
static int same_states(const pai_job_info *a, const pai_job_info *b)
{
	size_t i, n = pai_job_info_task_count(a);

	if (a->state != b->state || n != pai_job_info_task_count(b))
		return 0;
	for (i = 0; i < n; i++) {
		const pai_task_info *ta = pai_job_info_task(a, i);
		const pai_task_info *tb = pai_job_info_task(b, i);

		if (!ta || !tb || ta->state != tb->state)
			return 0;
	}
	return 1;
}

/* The Job the informer gave, as a status: into *out when it shows a
 * change from last, or it was deleted (1), else kept in *seen, the
 * newest version (0). A Job whose version is last's is no news. */
static int look_at(pai_job_info **out, pai_job_info **seen, struct wait *w,
		   const pai_job_info *last)
{
	pai_job_info *info = NULL;
	json_t *job = w->job;
	const char *rv = pai__json_str(json_object_get(job, "metadata"),
				       "resourceVersion");
	int err;

	w->job = NULL;
	if (w->deleted && !json_object_get(job, "spec"))
		/* gone while no watch was open: no last state to show */
		err = read_now(out, w->c, pai__json_str(json_object_get(
						  job, "metadata"),
					      "name"));
	else if (w->deleted)
		err = deleted_status(out, w->c, job);
	else if (rv && last->version && strcmp(rv, last->version) == 0)
		err = PAI_OK;
	else if (!(err = pai__k8s_status(&info, w->c, job))) {
		pai_job_info_free(*seen);
		*seen = NULL;
		if (!same_states(info, last))
			*out = info;
		else
			*seen = info;
	}
	json_decref(job);
	if (err)
		return err;
	return *out ? 1 : 0;
}

/* The informer on its multi handle, for pai__k8s_round(). */
struct loop {
	pai__k8s_informer *inf;
	CURLM *m;
};

static int transfer_done(void *data, CURL *h, int cc)
{
	struct loop *l = data;
	int err = PAI_OK;

	pai__k8s_informer_done(l->inf, l->m, h, cc, &err);
	return err;
}

/* Rounds of the informer until a change, an end, or the deadline (-1:
 * none); at the deadline with no change, last as it is (no request:
 * the watch says it holds), or the newest version seen. A Job's status
 * written with nothing new to show (its conditions, Volcano's
 * bookkeeping) is not a change: the caller, told of it, would ask
 * again at once. */
static int wait_loop(pai_job_info **out, struct wait *w, CURLM *m,
		     pai__k8s_informer *inf, long long deadline,
		     const pai_job_info *last)
{
	pai_job_info *seen = NULL;
	struct loop l = {inf, m};
	long long left, due;
	int err;

	for (;;) {
		left = deadline < 0 ? 1000 : deadline - pai__now_ms();
		/* the deadline with no watch that works: the caller is told
		 * why, rather than that nothing changed */
		if (left <= 0 && (err = pai__k8s_informer_failing(inf)))
			break;
		if (left <= 0) {
			if (!seen)
				return unchanged(out, w->c, last);
			*out = seen;
			return PAI_OK;
		}
		due = pai__k8s_informer_due(inf);
		if ((err = pai__k8s_informer_tick(inf, m)) ||
		    (err = pai__k8s_round(w->c, m,
					  due >= 0 && due < left ? due : left,
					  transfer_done, &l)))
			break;
		if (w->job && (err = look_at(out, &seen, w, last)))
			break;
	}
	pai_job_info_free(seen);
	return err < 0 ? err : PAI_OK;
}

/* The informer of the Job name from last's version, on m. */
static int start(pai__k8s_informer **inf, CURLM *m, struct wait *w,
		 const char *name, const pai_job_info *last)
{
	pai__buf q = PAI__BUF_INIT;
	json_t *stub = json_pack("{s:{s:s}}", "metadata", "name", name);
	int err;

	pai__buf_puts(&q, "fieldSelector=");
	pai__buf_put_escaped(&q, "metadata.name=");
	pai__buf_put_escaped(&q, name);
	err = q.oom ? pai__client_oom(w->c)
		    : pai__k8s_informer_new(inf, w->c, PAI__K8S_JOBS, q.data,
					    on_event, w,
					    &pai__k8s_of(w->c)->wait_backoff);
	pai__buf_release(&q);
	/* the Job as a name only: what a list tells gone, if it is */
	if (!err && !stub)
		err = pai__client_oom(w->c);
	if (!err &&
	    !(err = pai__k8s_informer_from(*inf, last->version, stub)))
		err = pai__k8s_informer_tick(*inf, m);
	json_decref(stub);
	return err;
}

int pai__k8s_job_changed(pai_job_info **out, const struct pai__api *api,
			 pai_client *c, const char *user, const char *name,
			 const pai_job_info *last, long timeout_ms)
{
	json_t *meta = last ? pai__k8s_info_meta(last) : NULL;
	const char *kname = pai__json_str(meta, "name");
	pai__k8s_informer *inf = NULL;
	struct wait w;
	CURLM *m = NULL;
	int err;

	(void)api;
	(void)user;
	/* nothing to wait for: no status to start from, or an end */
	if (!meta || !kname || !last->version ||
	    pai_state_is_final(last->state))
		return read_now(out, c, name);
	memset(&w, 0, sizeof(w));
	w.c = c;
	if (!(m = curl_multi_init()))
		err = pai__client_oom(c);
	else if (!(err = start(&inf, m, &w, kname, last)))
		err = wait_loop(out, &w, m, inf,
				timeout_ms < 0 ? -1 : pai__now_ms() + timeout_ms,
				last);
	pai__k8s_informer_free(inf, m);
	if (m)
		curl_multi_cleanup(m);
	json_decref(w.job);
	return err;
}
