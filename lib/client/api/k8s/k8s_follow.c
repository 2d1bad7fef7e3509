/* k8s_follow.c - `paictl logs -f` on Kubernetes: one follow=true stream
 * per pod (§6), all on one multi handle with two informers beside them
 * (k8s_informer.c): the job's pods, so that a log is opened when its
 * container has started and is known finished when its pod is, and the
 * Job, so that the following ends with the job. Nothing is polled. A
 * stream that ends while its container still runs (a connection cut;
 * in 1.20 the API server ends such a stream cleanly) is opened again
 * from the last line's second (sinceTime), and kube_watch.c's log
 * splitter drops what was printed already: no line twice, none lost.
 * Lines come with timestamps=true and go out without them. */
#include "k8s_stream.h"

#include "sys/dl_curl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A log that ended at once, with nothing new, is opened again no sooner
 * than the pod changes or this much later: its container is ending, and
 * its pod's status is on the way. */
#define REOPEN_MS 1000
/* A log whose pod has ended is read whole by one request; asked again
 * (a cut, an error) at most this many times. */
#define OVER_TRIES 5

struct follow;

/* One task's log. */
struct flog {
	struct follow *f;
	size_t i;  /* the caller's index */
	char *key; /* its pod's key (pai__k8s_pod_key()) */
	char *uid; /* of the pod whose log this is */
	pai__kube_log *log;
	pai__k8s_stream *s;
	int tailed;	      /* the first request asked for the tail */
	int news;	      /* the current stream gave lines */
	int done;	      /* its container has ended for good */
	int opened_over;      /* the stream was opened after the pod ended */
	int over_tries;	      /* requests since the pod was seen ended */
	long long not_before; /* no new request before (ms) */
};

struct follow {
	pai_client *c;
	const pai_follow_options *o;
	CURLM *m;
	struct flog *t;
	size_t n;
	json_t *pods; /* by key, as last seen; a deleted one absent */
	pai__k8s_informer *pod_inf, *job_inf;
	int job_final;
	int stop; /* on_line said stop */
	int err;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static json_t *ctr_status(json_t *pod)
{
	json_t *st = json_object_get(pod, "status");

	return json_array_get(json_object_get(st, "containerStatuses"), 0);
}

/* A pod that has ended: its containers will not run again. */
static int pod_over(json_t *pod)
{
	const char *ph = pai__json_str(json_object_get(pod, "status"), "phase");

	return !pod || (ph && (strcmp(ph, "Succeeded") == 0 ||
			       strcmp(ph, "Failed") == 0));
}

/* A container that has a log to read: running, or ended. */
static int has_log(json_t *pod)
{
	json_t *state = json_object_get(ctr_status(pod), "state");

	return json_object_get(state, "running") ||
	       json_object_get(state, "terminated");
}

/* ---- lines ------------------------------------------------------------ */

static void emit(struct follow *f, struct flog *t)
{
	pai__kube_log_line line;

	while (!f->stop && pai__kube_log_next(t->log, &line) == 1) {
		t->news = 1;
		if (f->o->on_line(f->o->data, t->i, line.text, line.len,
				  line.newline))
			f->stop = 1;
	}
}

static int on_log(void *data, const char *p, size_t n)
{
	struct flog *t = data;

	if (pai__kube_log_feed(t->log, p, n) != PAI_OK) {
		t->f->err = PAI_ENOMEM;
		return 1;
	}
	emit(t->f, t);
	return t->f->stop;
}

/* ---- opening a log ------------------------------------------------------ */

/* The request: follow, timestamps, the tail the first time, else from
 * the last printed second. */
static void log_path(pai__buf *b, struct follow *f, struct flog *t, json_t *pod)
{
	json_t *spec = json_object_get(pod, "spec");
	const char *ctr = pai__json_str(
	    json_array_get(json_object_get(spec, "containers"), 0), "name");
	const char *name =
	    pai__json_str(json_object_get(pod, "metadata"), "name");
	char since[32];

	pai__k8s_path(b, f->c, PAI__K8S_PODS, name ? name : "",
		      "/log?follow=true&timestamps=true");
	if (ctr) {
		pai__buf_puts(b, "&container=");
		pai__kube_put_escaped(b, ctr);
	}
	if (pai__kube_log_since(t->log, since)) {
		pai__buf_puts(b, "&sinceTime=");
		pai__kube_put_escaped(b, since);
	} else if (!t->tailed && f->o->tail >= 0)
		pai__buf_printf(b, "&tailLines=%ld", f->o->tail);
	t->tailed = 1;
}

static int open_log(struct follow *f, struct flog *t, json_t *pod)
{
	pai__buf path = PAI__BUF_INIT;
	int err;

	log_path(&path, f, t, pod);
	err = path.oom
		  ? pai__client_oom(f->c)
		  : pai__k8s_stream_new(&t->s, f->c, path.data, 0, on_log, t);
	pai__buf_release(&path);
	if (!err && curl_multi_add_handle(f->m, pai__k8s_stream_handle(t->s))) {
		pai__k8s_stream_free(t->s);
		t->s = NULL;
		err = pai__client_oom(f->c);
	}
	t->news = 0;
	t->opened_over = pod_over(pod);
	t->over_tries += t->opened_over;
	return err;
}

/* A new pod under t's name (a job restarted): its log from the start. */
static int new_run(struct follow *f, struct flog *t, const char *uid)
{
	char *copy = strdup(uid);

	if (!copy)
		return pai__client_oom(f->c);
	free(t->uid);
	t->uid = copy;
	pai__kube_log_free(t->log);
	t->log = NULL;
	t->done = 0;
	t->over_tries = 0;
	t->tailed = 1; /* a new run is read whole */
	return pai__kube_log_new(&t->log, 1, 0) ? pai__client_oom(f->c)
						: PAI_OK;
}

/* Opens t's log when its pod's container has one and none is open. */
static int maybe_open(struct follow *f, struct flog *t)
{
	json_t *pod = json_object_get(f->pods, t->key);
	const char *uid =
	    pai__json_str(json_object_get(pod, "metadata"), "uid");
	int err;

	if (t->s || !pod || !uid || now_ms() < t->not_before)
		return PAI_OK;
	if ((!t->uid || strcmp(uid, t->uid) != 0) && (err = new_run(f, t, uid)))
		return err;
	if (t->done || !has_log(pod))
		return PAI_OK;
	return open_log(f, t, pod);
}

/* ---- the end of a stream ---------------------------------------------------
 */

static void finished(struct follow *f, struct flog *t)
{
	pai__kube_log_end(t->log);
	emit(f, t);
	t->done = 1;
	if (f->o->on_end)
		f->o->on_end(f->o->data, t->i);
}

/* t's stream ended (its transfer's CURLcode cc): the log complete, or
 * to be opened again from where it was. */
static int log_ended(struct follow *f, struct flog *t, int cc)
{
	json_t *pod = json_object_get(f->pods, t->key);
	const char *uid =
	    pai__json_str(json_object_get(pod, "metadata"), "uid");
	int again = 0, err;

	curl_multi_remove_handle(f->m, pai__k8s_stream_handle(t->s));
	err = pai__k8s_stream_done(t->s, cc, &again);
	if (!err && again)
		return curl_multi_add_handle(f->m, pai__k8s_stream_handle(t->s))
			   ? pai__client_oom(f->c)
			   : PAI_OK;
	pai__k8s_stream_free(t->s);
	t->s = NULL;
	emit(f, t);
	if (err == PAI_EAUTH || err == PAI_EFORBIDDEN || err == PAI_EINTR)
		return err;
	if (!uid || strcmp(uid, t->uid) != 0 || err == PAI_ENOTFOUND) {
		finished(f, t); /* the pod is gone */
		return PAI_OK;
	}
	/* complete only when read whole after the pod ended: a stream of
	 * a running container may have been cut before its last lines */
	if (pod_over(pod) && t->opened_over && !err && cc == CURLE_OK) {
		finished(f, t);
		return PAI_OK;
	}
	if (t->over_tries >= OVER_TRIES)
		return err ? err
			   : pai__client_fail(
				 f->c, PAI_EUNREACHABLE, 0, NULL,
				 "the log of pod %s was cut %d "
				 "times after its end",
				 pai__json_str(json_object_get(pod, "metadata"),
					       "name"),
				 OVER_TRIES);
	/* cut, not ready yet, or ended before its pod was known to: again,
	 * from the last line's second */
	pai__kube_log_resume(t->log);
	if (!t->news || err)
		t->not_before = now_ms() + REOPEN_MS;
	return PAI_OK;
}

/* ---- the informers' events -------------------------------------------------
 */

/* A pod by its key; deleted, only when it is the one kept (a newer one
 * of its task may be there already). */
static void on_pod(void *data, int type, json_t *pod)
{
	struct follow *f = data;
	const char *uid =
	    pai__json_str(json_object_get(pod, "metadata"), "uid");
	pai__buf key = PAI__BUF_INIT;
	const char *kept_uid;
	json_t *kept;
	size_t i;

	if (!pai__k8s_pod_key(&key, f->c, pod) || key.oom || !uid) {
		if (key.oom)
			f->err = PAI_ENOMEM;
		pai__buf_release(&key);
		return;
	}
	kept = json_object_get(f->pods, key.data);
	if (type != PAI__KW_DELETED)
		pod = pai__k8s_newer_pod(kept, pod);
	kept_uid = pai__json_str(json_object_get(kept, "metadata"), "uid");
	if (type == PAI__KW_DELETED && kept_uid && strcmp(uid, kept_uid) == 0)
		json_object_del(f->pods, key.data);
	else if (type != PAI__KW_DELETED &&
		 json_object_set(f->pods, key.data, pod))
		f->err = PAI_ENOMEM;
	for (i = 0; i < f->n; i++)
		if (strcmp(f->t[i].key, key.data) == 0)
			f->t[i].not_before = 0; /* news: look again */
	pai__buf_release(&key);
}

static void on_job(void *data, int type, json_t *job)
{
	struct follow *f = data;

	f->job_final = type == PAI__KW_DELETED ||
		       pai_state_is_final(pai__k8s_job_state(f->c, job));
}

/* ---- the loop
 * ---------------------------------------------------------------- */

/* A transfer of the multi handle ended. */
static int transfer_done(struct follow *f, CURL *h, int cc)
{
	size_t i;
	int err = PAI_OK;

	if (pai__k8s_informer_done(f->pod_inf, f->m, h, cc, &err) ||
	    pai__k8s_informer_done(f->job_inf, f->m, h, cc, &err))
		return err;
	for (i = 0; i < f->n; i++)
		if (f->t[i].s && pai__k8s_stream_handle(f->t[i].s) == h)
			return log_ended(f, &f->t[i], cc);
	return PAI_OK;
}

/* 1 when every log ended and so did the job: a task that never ran
 * (no pod, or one whose container never started) has no log to wait
 * for then. */
static int all_done(struct follow *f)
{
	size_t i;

	if (!f->job_final)
		return 0;
	for (i = 0; i < f->n; i++) {
		json_t *pod = json_object_get(f->pods, f->t[i].key);

		if (!f->t[i].done && (f->t[i].s || (pod && has_log(pod))))
			return 0;
	}
	return 1;
}

static int run(struct follow *f)
{
	CURLMsg *msg;
	int running, left, err = PAI_OK;
	size_t i;

	while (!err && !all_done(f)) {
		for (i = 0; !err && i < f->n; i++)
			err = maybe_open(f, &f->t[i]);
		if (err)
			break;
		curl_multi_perform(f->m, &running);
		while (!err && (msg = curl_multi_info_read(f->m, &left)))
			if (msg->msg == CURLMSG_DONE)
				err = transfer_done(f, msg->easy_handle,
						    (int)msg->data.result);
		if (!err && f->err)
			err = pai__client_oom(f->c);
		if (!err && (f->stop || (f->c->interrupt && *f->c->interrupt)))
			err = pai__client_fail(f->c, PAI_EINTR, 0, NULL,
					       "interrupted");
		if (!err && !all_done(f))
			curl_multi_poll(f->m, NULL, 0, 200, NULL);
	}
	return err;
}

/* The pods' and the Job's informers: their lists read, their watches
 * added. */
static int watch_job(struct follow *f, const pai_job_info *job)
{
	json_t *meta = pai__k8s_info_meta(job);
	const char *name = pai__json_str(meta, "name");
	pai__buf q = PAI__BUF_INIT;
	int err;

	if (!name)
		return pai__client_fail(f->c, PAI_EINVAL, 0, NULL,
					"not a Kubernetes job's status");
	pai__buf_puts(&q, "labelSelector=");
	pai__k8s_engine(f->c)->selector(&q, name);
	err = q.oom ? pai__client_oom(f->c)
		    : pai__k8s_informer_new(&f->pod_inf, f->c, PAI__K8S_PODS,
					    q.data, on_pod, f);
	pai__buf_release(&q);
	pai__buf_puts(&q, "fieldSelector=");
	pai__kube_put_escaped(&q, "metadata.name=");
	pai__kube_put_escaped(&q, name);
	if (!err)
		err = q.oom ? pai__client_oom(f->c)
			    : pai__k8s_informer_new(&f->job_inf, f->c,
						    PAI__K8S_JOBS, q.data,
						    on_job, f);
	pai__buf_release(&q);
	if (!err)
		err = pai__k8s_informer_start(f->pod_inf, f->m);
	if (!err)
		err = pai__k8s_informer_start(f->job_inf, f->m);
	return err;
}

/* Each task's key (its pod's, whether the pod is there yet or not, and
 * whatever its controller calls it: the task its status says its role
 * is) and splitter. */
static int tasks_of(struct follow *f, const pai_job_info *job,
		    const pai_task_info *const *tasks)
{
	json_t *map = json_object_get(pai__k8s_info_meta(job), "tasks");
	size_t i;

	for (i = 0; i < f->n; i++) {
		const char *role = tasks[i]->role ? tasks[i]->role : "";
		const char *task = pai__json_str(map, role);
		pai__buf key = PAI__BUF_INIT;

		pai__k8s_task_key(&key, task ? task : role, tasks[i]->index);
		f->t[i].f = f;
		f->t[i].i = i;
		f->t[i].key = pai__buf_detach(&key);
		if (!f->t[i].key || pai__kube_log_new(&f->t[i].log, 1, 0))
			return pai__client_oom(f->c);
	}
	return PAI_OK;
}

static void release(struct follow *f)
{
	size_t i;

	for (i = 0; f->t && i < f->n; i++) {
		if (f->t[i].s) {
			curl_multi_remove_handle(
			    f->m, pai__k8s_stream_handle(f->t[i].s));
			pai__k8s_stream_free(f->t[i].s);
		}
		pai__kube_log_free(f->t[i].log);
		free(f->t[i].key);
		free(f->t[i].uid);
	}
	free(f->t);
	pai__k8s_informer_free(f->pod_inf, f->m);
	pai__k8s_informer_free(f->job_inf, f->m);
	if (f->m)
		curl_multi_cleanup(f->m);
	json_decref(f->pods);
}

int pai__k8s_logs_follow(const struct pai__api *api, pai_client *c,
			 const pai_job_info *job,
			 const pai_task_info *const *tasks, size_t n,
			 const pai_follow_options *o)
{
	struct follow f;
	int err;

	(void)api;
	memset(&f, 0, sizeof(f));
	f.c = c;
	f.o = o;
	f.n = n;
	if (!(f.t = calloc(n ? n : 1, sizeof(*f.t))) ||
	    !(f.pods = json_object()) || !(f.m = curl_multi_init()))
		err = pai__client_oom(c);
	else if (!(err = tasks_of(&f, job, tasks)) &&
		 !(err = watch_job(&f, job)))
		err = run(&f);
	release(&f);
	return err;
}
