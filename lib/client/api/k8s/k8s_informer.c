/* k8s_informer.c - the one list-and-watch loop (k8s_informer.h), as
 * client-go's reflector: a list, then a watch from its resourceVersion
 * on a multi handle beside the caller's other streams (§3), each object
 * handed over as it changes. A watch asks for timeoutSeconds and
 * bookmarks; one still open well past its time is dropped (a frozen
 * connection). A watch that ends is opened again from the last version
 * seen, after a backoff (hold.c: from under a second to 30 s, with
 * jitter, reset by one that lived); a gone version (410, an ERROR
 * event) lists again; a server that cannot be reached is tried again
 * the same way, for a while. Nothing is polled. */
#include "k8s_informer.h"

#include <stdlib.h>
#include <string.h>

struct pai__k8s_informer {
	pai_client *c;
	enum pai__k8s_res res;
	char *query; /* "labelSelector=..." or "fieldSelector=..." */
	void (*on_event)(void *data, int type, json_t *obj);
	void *data;
	char *rv;
	pai__kube_watch *split;
	pai__stream *s;
	json_t *known;	    /* name -> the object as last seen */
	int relist;	    /* the version is gone: list again */
	int news;	    /* the stream gave an event */
	long long lost;	    /* since when the server cannot be reached */
	int lost_err;	    /* ... and why: the error, its detail */
	pai__error lost_why;
	pai__backoff *bo, own_bo;
};

int pai__k8s_informer_new(pai__k8s_informer **out, pai_client *c,
			  enum pai__k8s_res res, const char *query,
			  void (*on_event)(void *, int, json_t *), void *data,
			  pai__backoff *backoff)
{
	pai__k8s_informer *inf = calloc(1, sizeof(*inf));

	*out = NULL;
	if (!inf || !(inf->query = strdup(query))) {
		free(inf);
		return pai__client_oom(c);
	}
	inf->c = c;
	inf->res = res;
	inf->on_event = on_event;
	inf->data = data;
	inf->bo = backoff ? backoff : &inf->own_bo;
	inf->relist = 1;
	if (!(inf->known = json_object())) {
		pai__k8s_informer_free(inf, NULL);
		return pai__client_oom(c);
	}
	*out = inf;
	return PAI_OK;
}

static int set_rv(pai__k8s_informer *inf, const char *rv)
{
	char *copy = rv ? strdup(rv) : NULL;

	if (rv && !copy)
		return PAI_ENOMEM;
	free(inf->rv);
	inf->rv = copy;
	return PAI_OK;
}

int pai__k8s_informer_from(pai__k8s_informer *inf, const char *rv,
			   json_t *obj)
{
	const char *name =
	    pai__json_str(json_object_get(obj, "metadata"), "name");

	if (set_rv(inf, rv) ||
	    (name && json_object_set(inf->known, name, obj)))
		return pai__client_oom(inf->c);
	inf->relist = 0;
	return PAI_OK;
}

/* An object handed over, and kept as known (gone when DELETED). */
static void tell(pai__k8s_informer *inf, int type, json_t *obj)
{
	const char *name =
	    pai__json_str(json_object_get(obj, "metadata"), "name");

	if (name && type == PAI__KW_DELETED)
		json_object_del(inf->known, name);
	else if (name)
		json_object_set(inf->known, name, obj);
	inf->on_event(inf->data, type, obj);
}

/* GET the collection: every object as ADDED, the known ones it no
 * longer holds as DELETED (they went while no watch was open, as
 * client-go's store replaces its view), and the list's version. */
static int list(pai__k8s_informer *inf)
{
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT;
	json_t *l = NULL, *o, *items, *gone;
	const char *name;
	size_t i;
	int err;

	pai__buf_printf(&q, "?%s", inf->query);
	pai__k8s_path(&path, inf->c, inf->res, NULL, q.data);
	err = q.oom || path.oom ? pai__client_oom(inf->c)
				: pai__k8s_get(&l, inf->c, path.data);
	pai__buf_release(&q);
	pai__buf_release(&path);
	if (err)
		return err;
	items = json_object_get(l, "items");
	if (!(gone = json_copy(inf->known)))
		err = pai__client_oom(inf->c);
	json_array_foreach(items, i, o)
	{
		name = pai__json_str(json_object_get(o, "metadata"), "name");
		if (name && gone)
			json_object_del(gone, name);
	}
	json_object_foreach(gone, name, o)
	{
		tell(inf, PAI__KW_DELETED, o);
	}
	json_decref(gone);
	json_array_foreach(items, i, o)
	{
		tell(inf, PAI__KW_ADDED, o);
	}
	if (!err && set_rv(inf, pai__json_str(json_object_get(l, "metadata"),
					      "resourceVersion")))
		err = pai__client_oom(inf->c);
	json_decref(l);
	inf->relist = 0;
	return err;
}

static int on_data(void *data, const char *p, size_t n)
{
	pai__k8s_informer *inf = data;
	pai__kube_event ev;
	pai__kube_err e;
	int r;

	if (pai__kube_watch_feed(inf->split, p, n, &e))
		return 1;
	while ((r = pai__kube_watch_next(inf->split, &ev, &e)) == 1) {
		inf->news = 1;
		if (ev.type == PAI__KW_ERROR)
			inf->relist = 1;
		else if (ev.resource_version &&
			 set_rv(inf, ev.resource_version))
			r = -1;
		if (ev.type != PAI__KW_ERROR && ev.type != PAI__KW_BOOKMARK)
			tell(inf, ev.type, ev.object);
		pai__kube_event_release(&ev);
		if (inf->relist || r < 0)
			break;
	}
	/* a broken stream, or a list to read again: watch anew */
	return r < 0 || inf->relist;
}

/* The watch from the version seen, added to m. */
static int watch(pai__k8s_informer *inf, CURLM *m)
{
	pai__stream_opts so = {
	    (PAI__K8S_WATCH_S + PAI__K8S_WATCH_GRACE_S) * 1000L, 0, on_data,
	    inf};
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT;
	char *url = NULL;
	int err;

	pai__kube_watch_free(inf->split);
	inf->split = NULL;
	inf->news = 0;
	pai__buf_printf(&q,
			"?%s&watch=1&allowWatchBookmarks=true"
			"&timeoutSeconds=%d&resourceVersion=",
			inf->query, PAI__K8S_WATCH_S);
	pai__buf_put_escaped(&q, inf->rv ? inf->rv : "");
	pai__k8s_path(&path, inf->c, inf->res, NULL, q.data);
	if (q.oom || path.oom || pai__kube_watch_new(&inf->split, 0))
		err = pai__client_oom(inf->c);
	else if (!(url = pai__url(inf->c, path.data)))
		err = pai__client_oom(inf->c);
	else
		err = pai__stream_new(&inf->s, inf->c, url, &so);
	pai__buf_release(&q);
	pai__buf_release(&path);
	free(url);
	if (!err && curl_multi_add_handle(m, pai__stream_handle(inf->s)))
		err = pai__client_oom(inf->c);
	if (!err)
		pai__backoff_opened(inf->bo);
	return err;
}

int pai__k8s_informer_start(pai__k8s_informer *inf, CURLM *m)
{
	int err = inf->relist ? list(inf) : PAI_OK;

	return err ? err : watch(inf, m);
}

static void drop_stream(pai__k8s_informer *inf, CURLM *m)
{
	if (!inf->s)
		return;
	curl_multi_remove_handle(m, pai__stream_handle(inf->s));
	pai__stream_free(inf->s);
	inf->s = NULL;
}

/* A failure worth trying again for a while: the server unreachable,
 * busy or rate limiting (its Retry-After is held for the next try). */
static int transient(pai_client *c, int err)
{
	long st = pai_client_http_status(c);

	return err == PAI_EUNREACHABLE ||
	       (err == PAI_EHTTP && (st == 429 || st >= 500));
}

/* A transient failure (err, the client's detail): PAI_OK while the
 * server has been lost for less than PAI__K8S_GIVE_UP_MS (the failure
 * kept, for pai__k8s_informer_failing), else err. */
static int lost(pai__k8s_informer *inf, int err)
{
	if (!inf->lost)
		inf->lost = pai__now_ms();
	if (pai__now_ms() - inf->lost >= PAI__K8S_GIVE_UP_MS)
		return err;
	inf->lost_err = err;
	pai__client_save_error(inf->c, &inf->lost_why);
	return PAI_OK;
}

int pai__k8s_informer_failing(pai__k8s_informer *inf)
{
	if (!inf->lost || !inf->lost_err)
		return PAI_OK;
	pai__client_restore_error(inf->c, &inf->lost_why);
	return inf->lost_err;
}

int pai__k8s_informer_done(pai__k8s_informer *inf, CURLM *m, CURL *h, int cc,
			   int *err)
{
	int again = 0;

	if (!inf->s || pai__stream_handle(inf->s) != h)
		return 0;
	curl_multi_remove_handle(m, h);
	*err = pai__stream_done(inf->s, cc, &again);
	if (!*err && again) {
		if (curl_multi_add_handle(m, h))
			*err = pai__client_oom(inf->c);
		return 1;
	}
	/* a version gone (a 410 answer instead of events): list again */
	if (*err && pai__stream_status(inf->s) == 410) {
		inf->relist = 1;
		*err = PAI_OK;
	}
	if (*err && transient(inf->c, *err))
		*err = lost(inf, *err);
	else if (!*err)
		inf->lost = 0;
	pai__backoff_ended(inf->c, inf->bo, inf->news);
	pai__stream_free(inf->s);
	inf->s = NULL;
	return 1;
}

long long pai__k8s_informer_due(const pai__k8s_informer *inf)
{
	long long held;

	if (inf->s)
		return -1;
	held = pai__held_ms(inf->c);
	return held > pai__backoff_left(inf->bo) ? held
						  : pai__backoff_left(inf->bo);
}

int pai__k8s_informer_tick(pai__k8s_informer *inf, CURLM *m)
{
	int err;

	if (inf->s || pai__k8s_informer_due(inf) > 0)
		return PAI_OK;
	err = inf->relist ? list(inf) : PAI_OK;
	if (err && transient(inf->c, err) && !(err = lost(inf, err))) {
		pai__backoff_opened(inf->bo);
		pai__backoff_ended(inf->c, inf->bo, 0);
		return PAI_OK;
	}
	return err ? err : watch(inf, m);
}

void pai__k8s_informer_free(pai__k8s_informer *inf, CURLM *m)
{
	if (!inf)
		return;
	drop_stream(inf, m);
	pai__error_release(&inf->lost_why);
	json_decref(inf->known);
	pai__kube_watch_free(inf->split);
	free(inf->rv);
	free(inf->query);
	free(inf);
}

int pai__k8s_round(pai_client *c, CURLM *m, long long ms,
		   int (*done)(void *data, CURL *h, int cc), void *data)
{
	CURLMsg *msg;
	int running, left, err = PAI_OK;

	curl_multi_perform(m, &running);
	while (!err && (msg = curl_multi_info_read(m, &left)))
		if (msg->msg == CURLMSG_DONE)
			err = done(data, msg->easy_handle,
				   (int)msg->data.result);
	if (!err && c->interrupt && *c->interrupt)
		err = pai__client_fail(c, PAI_EINTR, 0, NULL, "interrupted");
	if (!err && ms > 0)
		curl_multi_poll(m, NULL, 0, (int)(ms > 200 ? 200 : ms), NULL);
	return err;
}
