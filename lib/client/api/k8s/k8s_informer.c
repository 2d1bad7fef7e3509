/* k8s_informer.c - a collection kept in view while logs are followed
 * (k8s_follow.c): listed once, then watched from the list's
 * resourceVersion on a multi handle beside the log streams (§3), each
 * object handed over as it changes. A watch the server ends is opened
 * again from the last version seen; a gone version (410, an ERROR
 * event) lists again. As client-go's informers, with the handler called
 * for the listed objects too. */
#include "k8s_stream.h"

#include "sys/dl_curl.h"

#include <stdlib.h>
#include <string.h>

#define WATCH_S 300

struct pai__k8s_informer {
	pai_client *c;
	enum pai__k8s_res res;
	char *query; /* "labelSelector=..." or "fieldSelector=..." */
	void (*on_event)(void *data, int type, json_t *obj);
	void *data;
	char *rv;
	pai__kube_watch *split;
	pai__k8s_stream *s;
	int relist; /* the version is gone: list again */
};

int pai__k8s_informer_new(pai__k8s_informer **out, pai_client *c,
			  enum pai__k8s_res res, const char *query,
			  void (*on_event)(void *, int, json_t *), void *data)
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

/* GET the collection: every object as ADDED, and the list's version. */
static int list(pai__k8s_informer *inf)
{
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT;
	json_t *l = NULL, *o;
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
	json_array_foreach(json_object_get(l, "items"), i, o)
	{
		inf->on_event(inf->data, PAI__KW_ADDED, o);
	}
	err = set_rv(inf, pai__json_str(json_object_get(l, "metadata"),
					"resourceVersion"));
	json_decref(l);
	inf->relist = 0;
	return err ? pai__client_oom(inf->c) : PAI_OK;
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
		if (ev.type == PAI__KW_ERROR)
			inf->relist = 1;
		else if (ev.resource_version &&
			 set_rv(inf, ev.resource_version))
			r = -1;
		if (ev.type != PAI__KW_ERROR && ev.type != PAI__KW_BOOKMARK)
			inf->on_event(inf->data, ev.type, ev.object);
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
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT;
	int err;

	pai__kube_watch_free(inf->split);
	inf->split = NULL;
	pai__buf_printf(&q,
			"?%s&watch=1&allowWatchBookmarks=true"
			"&timeoutSeconds=%d&resourceVersion=",
			inf->query, WATCH_S);
	pai__kube_put_escaped(&q, inf->rv ? inf->rv : "");
	pai__k8s_path(&path, inf->c, inf->res, NULL, q.data);
	if (q.oom || path.oom || pai__kube_watch_new(&inf->split, 0))
		err = pai__client_oom(inf->c);
	else
		err = pai__k8s_stream_new(&inf->s, inf->c, path.data,
					  (WATCH_S + 30) * 1000L, on_data, inf);
	pai__buf_release(&q);
	pai__buf_release(&path);
	if (!err && curl_multi_add_handle(m, pai__k8s_stream_handle(inf->s)))
		err = pai__client_oom(inf->c);
	return err;
}

int pai__k8s_informer_start(pai__k8s_informer *inf, CURLM *m)
{
	int err = list(inf);

	return err ? err : watch(inf, m);
}

static void drop_stream(pai__k8s_informer *inf, CURLM *m)
{
	if (!inf->s)
		return;
	curl_multi_remove_handle(m, pai__k8s_stream_handle(inf->s));
	pai__k8s_stream_free(inf->s);
	inf->s = NULL;
}

int pai__k8s_informer_done(pai__k8s_informer *inf, CURLM *m, CURL *h, int cc,
			   int *err)
{
	int again = 0;

	if (!inf->s || pai__k8s_stream_handle(inf->s) != h)
		return 0;
	curl_multi_remove_handle(m, h);
	*err = pai__k8s_stream_done(inf->s, cc, &again);
	if (!*err && again) {
		if (curl_multi_add_handle(m, h))
			*err = pai__client_oom(inf->c);
		return 1;
	}
	/* a version gone (a 410 answer instead of events): list again */
	if (*err && inf->s->code == 410) {
		inf->relist = 1;
		*err = PAI_OK;
	}
	pai__k8s_stream_free(inf->s);
	inf->s = NULL;
	if (!*err && inf->relist)
		*err = list(inf);
	if (!*err)
		*err = watch(inf, m);
	return 1;
}

void pai__k8s_informer_free(pai__k8s_informer *inf, CURLM *m)
{
	if (!inf)
		return;
	drop_stream(inf, m);
	pai__kube_watch_free(inf->split);
	free(inf->rv);
	free(inf->query);
	free(inf);
}
