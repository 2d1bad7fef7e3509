/* k8s_watch.c - waiting for a job to change (pai_job_get_changed()): a
 * watch on the Job alone (fieldSelector metadata.name, §3) from the
 * resourceVersion of the status the caller has, so that nothing is
 * polled and the change is known as the server stores it. A watch the
 * server ends (timeoutSeconds, a proxy) is opened again from the last
 * version seen; one that is too old (410, an ERROR event) reads the Job
 * again and goes on from there. A MODIFIED Job (its phase, or the counts
 * of its pods, which Volcano's controller keeps) is read with its pods
 * into a new status; a DELETED one ends the wait: STOPPED, once. */
#include "k8s_stream.h"

#include "sys/dl_curl.h"

#include <stdlib.h>
#include <string.h>

/* The longest watch asked for: the server ends it then, and a dead
 * connection is noticed (§3). */
#define WATCH_MAX_S 300

/* One wait. */
struct wait {
	pai_client *c;
	const char *name; /* the Job's Kubernetes name */
	char *rv;	  /* the last version seen */
	pai__kube_watch *split;
	json_t *changed; /* the Job as the event gave it (new) */
	int deleted;	 /* ... and it was DELETED */
	int expired;	 /* ERROR 410: read the Job again */
	int err;	 /* a failure inside the stream's callback */
	pai__kube_err kerr;
};


static void set_rv(struct wait *w, const char *rv)
{
	char *copy;

	if (!rv || (w->rv && strcmp(rv, w->rv) == 0))
		return;
	if (!(copy = strdup(rv))) {
		w->err = PAI_ENOMEM;
		return;
	}
	free(w->rv);
	w->rv = copy;
}

/* One event: 1 when it ends the wait. */
static int on_event(struct wait *w, pai__kube_event *ev)
{
	switch (ev->type) {
	case PAI__KW_BOOKMARK: set_rv(w, ev->resource_version); return 0;
	case PAI__KW_ERROR:
		/* 410 and whatever else: read the Job again (§3) */
		w->expired = 1;
		return 1;
	case PAI__KW_DELETED: w->deleted = 1; /* fall through */
	default:
		/* ADDED after a gap, MODIFIED: a change, if a new version */
		if (!ev->resource_version ||
		    (w->rv && strcmp(ev->resource_version, w->rv) == 0))
			return 0;
		set_rv(w, ev->resource_version);
		w->changed = json_incref(ev->object);
		return 1;
	}
}

/* The stream's bytes: events split and looked at; non-zero stops. */
static int on_data(void *data, const char *p, size_t n)
{
	struct wait *w = data;
	pai__kube_event ev;
	int r, done = 0;

	if ((r = pai__kube_watch_feed(w->split, p, n, &w->kerr))) {
		w->err = r;
		return 1;
	}
	while (!done &&
	       (r = pai__kube_watch_next(w->split, &ev, &w->kerr)) == 1) {
		done = on_event(w, &ev);
		pai__kube_event_release(&ev);
	}
	if (r < 0)
		w->err = r == PAI_ENOMEM ? r : PAI_OK; /* re-watch, §3 */
	return done || r < 0 || w->err;
}

/* The watch's path from w->rv, for at most secs seconds. */
static void watch_path(pai__buf *b, struct wait *w, long secs)
{
	pai__buf q = PAI__BUF_INIT;

	pai__buf_puts(&q, "?fieldSelector=");
	pai__kube_put_escaped(&q, "metadata.name=");
	pai__kube_put_escaped(&q, w->name);
	pai__buf_puts(&q, "&watch=1&allowWatchBookmarks=true&resourceVersion=");
	pai__kube_put_escaped(&q, w->rv ? w->rv : "");
	pai__buf_printf(&q, "&timeoutSeconds=%ld", secs);
	pai__k8s_path(b, w->c, PAI__K8S_JOBS, NULL, q.oom ? "" : q.data);
	if (q.oom)
		b->oom = 1;
	pai__buf_release(&q);
}

/* One watch, until an event that ends the wait, the server's end of it,
 * or ms milliseconds. */
static int watch_once(struct wait *w, long long ms)
{
	long secs = ms / 1000 + 1;
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_stream *s = NULL;
	int err;

	if (secs > WATCH_MAX_S)
		secs = WATCH_MAX_S;
	watch_path(&path, w, secs);
	pai__kube_watch_free(w->split);
	w->split = NULL;
	if (path.oom || pai__kube_watch_new(&w->split, 0)) {
		pai__buf_release(&path);
		return pai__client_oom(w->c);
	}
	/* the server's timeoutSeconds ends it; this, a dead connection */
	err = pai__k8s_stream_new(&s, w->c, path.data, ms + 10000, on_data, w);
	if (!err)
		err = pai__k8s_stream_run(s);
	if (!err && w->err)
		err = w->err == PAI_ENOMEM
			  ? pai__client_oom(w->c)
			  : pai__client_fail(w->c, w->err, 0, NULL, "%s",
					     w->kerr.msg);
	/* a gone version (a Status with 410 instead of events) */
	if (err && s && s->code == 410) {
		w->expired = 1;
		err = PAI_OK;
	}
	pai__k8s_stream_free(s);
	pai__buf_release(&path);
	return err;
}

/* The status of the Job, read now (after a 410, or at the deadline). */
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

/* The Job the watch gave, as a status: into *out when it shows a change
 * from last (1), else kept in *seen, the newest version (0). */
static int look_at(pai_job_info **out, pai_job_info **seen, struct wait *w,
		   const pai_job_info *last)
{
	pai_job_info *info = NULL;
	int err = pai__k8s_status(&info, w->c, w->changed);

	json_decref(w->changed);
	w->changed = NULL;
	if (err)
		return err;
	pai_job_info_free(*seen);
	*seen = NULL;
	if (!same_states(info, last)) {
		*out = info;
		return 1;
	}
	*seen = info;
	return 0;
}

/* Watches until a change or the deadline (-1: none); at the deadline
 * with no change, last as it is (no request: the watch says it holds),
 * or the newest version seen. A Job's status written with nothing new
 * to show (its conditions, Volcano's bookkeeping) is not a change: the
 * caller, told of it, would ask again at once. */
static int wait_loop(pai_job_info **out, struct wait *w, long long deadline,
		     const pai_job_info *last)
{
	pai_job_info *seen = NULL;
	int err;

	for (;;) {
		long long left =
		    deadline < 0 ? WATCH_MAX_S * 1000LL : deadline - pai__now_ms();

		if (left <= 0) {
			if (!seen)
				return unchanged(out, w->c, last);
			*out = seen;
			return PAI_OK;
		}
		if ((err = watch_once(w, left)))
			break;
		if (w->changed && w->deleted) {
			err = deleted_status(out, w->c, w->changed);
			break;
		}
		if (w->changed && (err = look_at(out, &seen, w, last))) {
			err = err < 0 ? err : PAI_OK;
			break;
		}
		if (w->expired) {
			err = read_now(out, w->c, w->name);
			break;
		}
		/* the server ended the watch, or nothing new to show: again
		 * from the last version */
	}
	pai_job_info_free(seen);
	return err;
}

int pai__k8s_job_changed(pai_job_info **out, const struct pai__api *api,
			 pai_client *c, const char *user, const char *name,
			 const pai_job_info *last, long timeout_ms)
{
	json_t *meta = last ? pai__k8s_info_meta(last) : NULL;
	struct wait w;
	int err;

	(void)api;
	(void)user;
	/* nothing to wait for: no status to start from, or an end */
	if (!meta || !last->version || pai_state_is_final(last->state))
		return read_now(out, c, name);
	memset(&w, 0, sizeof(w));
	w.c = c;
	w.name = pai__json_str(meta, "name");
	set_rv(&w, last->version);
	if (!w.name || !w.rv)
		err = w.err ? pai__client_oom(c) : read_now(out, c, name);
	else
		err = wait_loop(
		    out, &w, timeout_ms < 0 ? -1 : pai__now_ms() + timeout_ms, last);
	pai__kube_watch_free(w.split);
	json_decref(w.changed);
	free(w.rv);
	return err;
}
