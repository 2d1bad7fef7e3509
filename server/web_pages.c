/* web_pages.c - the local cluster's pages and their files (web_int.h):
 * one page (server/web/index.html) for every path a person visits, its
 * scripts and styles, all compiled in, each sent with the headers that
 * keep a browser to them (web_gate.c's h_web_headers). A visit with a
 * login link's secret (?token=) trades it for a session and comes back
 * without it. */
#include "web_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct web_asset *asset(const char *name)
{
	const struct web_asset *a;

	for (a = web_assets; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

/* An answer from static bytes, with the pages' headers. */
static enum MHD_Result send_static(struct MHD_Connection *c, unsigned status,
				   const struct web_asset *a,
				   const char *cache, const char *etag)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    a->len, (void *)a->data, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result res;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
	MHD_add_response_header(r, "Cache-Control", cache);
	if (etag)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
	h_web_headers(r);
	res = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return res;
}

/* /web/NAME: a file of the pages, revalidated by its ETag (its bytes'
 * FNV-1a hash), as it changes with the binary. */
static enum MHD_Result send_asset(struct MHD_Connection *c, const char *name)
{
	const struct web_asset *a = asset(name);
	const char *inm;
	unsigned long long h = 0xcbf29ce484222325ULL;
	char etag[32];
	size_t i;

	if (!a || strcmp(name, "index.html") == 0)
		return h_reply_error(c, 404, "NotFoundError", "no such file");
	for (i = 0; i < a->len; i++)
		h = (h ^ a->data[i]) * 0x100000001b3ULL;
	snprintf(etag, sizeof(etag), "\"%016llx\"", h);
	inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	if (inm && strcmp(inm, etag) == 0) {
		struct web_asset none = {a->name, a->type, a->data, 0};

		return send_static(c, 304, &none, "no-cache", etag);
	}
	return send_static(c, 200, a, "no-cache", etag);
}

/* url as a Location: percent-encoded, every byte but letters, digits,
 * "-._~" and '/', as it came (MHD decoded it); then "#key=" and key. */
static void location(char *out, size_t len, const char *url, const char *key)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *url && n + 4 < len - 72; url++) {
		unsigned char ch = (unsigned char)*url;

		if (isalnum(ch) || strchr("-._~/", ch)) {
			out[n++] = (char)ch;
			continue;
		}
		out[n++] = '%';
		out[n++] = hex[ch >> 4];
		out[n++] = hex[ch & 15];
	}
	snprintf(out + n, len - n, "#key=%s", key);
}

/* A visit with a login link's secret: a session, and the same page
 * again without the secret (303), so that it stays in no history. An
 * unknown, used or late secret: the page, 401, which says so. */
static enum MHD_Result trade_link(struct listener *l, struct MHD_Connection *c,
				  const char *url, const char *secret)
{
	struct MHD_Response *r;
	struct srv_token tok;
	enum MHD_Result res;
	char where[3 * 2048 + 80];
	bool ok;

	pthread_mutex_lock(&l->s->lock);
	ok = l->web && h_link_take(secret);
	pthread_mutex_unlock(&l->s->lock);
	if (!ok || h_session_owner(l->s, &tok) < 0)
		return send_static(c, 401, asset("index.html"), "no-store",
				   NULL);
	r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	h_session_cookie(l, r, tok.token);
	/* the session's key for the page, in a fragment: never sent to a
	 * server, and the page takes it out of the address */
	location(where, sizeof(where), url, tok.key);
	explicit_bzero(&tok, sizeof(tok));
	MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, where);
	explicit_bzero(where, sizeof(where));
	MHD_add_response_header(r, "Cache-Control", "no-store");
	h_web_headers(r);
	res = MHD_queue_response(c, 303, r);
	MHD_destroy_response(r);
	return res;
}

/* "/", "/submit", "/job/USER/NAME": the one page, which draws what the
 * path names; 401 (the same page, which asks to sign in) without a
 * session. */
static enum MHD_Result page(struct listener *l, struct MHD_Connection *c,
			    const char *url)
{
	const char *secret =
	    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");

	bool in;

	if (secret)
		return trade_link(l, c, url, secret);
	/* the page holds nothing: the session's key is asked of what it
	 * fetches, which a visit cannot send */
	pthread_mutex_lock(&l->s->lock);
	in = h_find_cookie(l, c) != NULL;
	pthread_mutex_unlock(&l->s->lock);
	return send_static(c, in ? 200 : 401, asset("index.html"), "no-store",
			   NULL);
}

enum MHD_Result h_web_route(struct listener *l, struct MHD_Connection *c,
			    const char *url, const char *method,
			    struct req *rq)
{
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;

	if (strncmp(url, "/web/api/", 9) == 0)
		return h_web_api(l, c, url + 9, method, rq);
	/* a browser cannot reach the Unix socket */
	if (!l->tcp)
		return h_reply_error(c, 404, "NotFoundError",
				     "the pages are served over TCP: see "
				     "'paictl web'");
	if (!get)
		return h_reply_error(c, 405, "MethodNotAllowedError",
				     "%s is not allowed on %s", method, url);
	if (strncmp(url, "/web/", 5) == 0)
		return send_asset(c, url + 5);
	return page(l, c, url);
}
