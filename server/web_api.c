/* web_api.c - the routes only the local cluster's pages use, beside the
 * REST APIs they call for everything else (web_int.h):
 *
 *   GET  /web/api/session   who is signed in (401: how to sign in)
 *   POST /web/api/login     a login form's account: a session
 *   POST /web/api/logout    the session forgotten
 *   POST /web/api/validate  a config judged as `paictl validate` judges
 *                           it (?name=FILE), every diagnostic with its
 *                           source line
 *   GET  /web/api/config/USER/NAME
 *                           a job's config as it was submitted
 *   POST /web/api/link      on the Unix socket only: the pages' listener
 *                           started if need be, and a login link
 */
#include "web_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A reply with the pages' headers; and, with cookie, l's session
 * cookie set to *token (NULL: cleared). Steals o. */
static enum MHD_Result reply(struct listener *l, struct MHD_Connection *c,
			     unsigned status, json_t *o, bool cookie,
			     const char *token)
{
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	struct MHD_Response *r;
	enum MHD_Result res;

	json_decref(o);
	if (!text)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(text), text,
					    MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"application/json; charset=utf-8");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	h_web_headers(r);
	if (cookie)
		h_session_cookie(l, r, token);
	res = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return res;
}

/* How one signs in here: a login form where there are accounts, else
 * the link `paictl web` prints. */
static const char *login_kind(const struct srv *s)
{
	return s->nusers ? "password" : "link";
}

static enum MHD_Result session(struct listener *l, struct MHD_Connection *c)
{
	const struct srv_token *t;
	json_t *o;

	pthread_mutex_lock(&l->s->lock);
	t = h_find_token(l, c);
	o = t ? json_pack("{s:s,s:b,s:s,s:s}", "user", t->user, "admin",
			  t->admin, "login", login_kind(l->s), "version",
			  PAI_VERSION)
	      : json_pack("{s:s,s:s,s:s}", "code", "UnauthorizedUserError",
			  "message", "not signed in", "login",
			  login_kind(l->s));
	pthread_mutex_unlock(&l->s->lock);
	return reply(l, c, t ? 200 : 401, o, false, NULL);
}

static enum MHD_Result login(struct listener *l, struct MHD_Connection *c,
			     struct req *rq)
{
	const struct srv_user *u;
	struct srv_token tok;
	enum MHD_Result res = MHD_NO;
	long long secs;
	json_t *o;

	if (!(u = h_login(l, c, rq, &secs, &res)))
		return res;
	if (h_add_session(l->s, u->name, u->admin, &tok) < 0)
		return h_reply_error(c, 500, "UnknownError",
				     "cannot make a session");
	/* the key for the page alone: what it sends in WEB_KEY_HEADER */
	o = json_pack("{s:s,s:b,s:s}", "user", u->name, "admin", u->admin,
		      "key", tok.key);
	res = reply(l, c, 200, o, true, tok.token);
	explicit_bzero(&tok, sizeof(tok));
	return res;
}

static enum MHD_Result logout(struct listener *l, struct MHD_Connection *c)
{
	const struct srv_token *t;

	pthread_mutex_lock(&l->s->lock);
	t = h_find_token(l, c);
	if (t && t->session)
		h_drop_token(l->s, t);
	pthread_mutex_unlock(&l->s->lock);
	return reply(l, c, 200, json_object(), true, NULL);
}

/* d as JSON: pai_diags_to_json()'s members and the source line with the
 * caret's column, for the page to show as `paictl validate` does. */
static json_t *diag_json(const pai_diag *d)
{
	json_t *o = json_pack(
	    "{s:s,s:i,s:i,s:s,s:s,s:s,s:s}", "file", d->file, "line",
	    (int)d->line, "column", (int)d->column, "severity",
	    d->severity == PAI_SEVERITY_ERROR ? "error" : "warning", "path",
	    d->path, "rule", d->rule, "message", d->message);

	if (o && d->excerpt) {
		json_object_set_new(o, "excerpt", json_string(d->excerpt));
		json_object_set_new(o, "excerpt_column",
				    json_integer(d->excerpt_column));
	}
	return o;
}

static enum MHD_Result validate(struct listener *l, struct MHD_Connection *c,
				struct req *rq)
{
	const char *name =
	    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "name");
	const char *text = rq->body ? rq->body : "";
	pai_diags *diags = NULL;
	pai_job *pj = NULL;
	json_t *o, *a;
	size_t i;
	int err;

	if (!name || !*name)
		name = "<pasted>";
	if (pai_diags_new(&diags) != PAI_OK)
		return MHD_NO;
	err = pai_job_parse(&pj, diags, name, text, rq->len, NULL);
	a = json_array();
	for (i = 0; a && i < pai_diags_count(diags); i++)
		json_array_append_new(a, diag_json(pai_diags_get(diags, i)));
	o = json_pack("{s:s,s:o,s:i,s:i,s:o}", "format",
		      pai_format_name(pai_format_detect(name, text, rq->len)),
		      "jobName",
		      pj ? json_string(pai_job_name(pj)) : json_null(), "errors",
		      (int)pai_diags_errors(diags), "warnings",
		      (int)pai_diags_warnings(diags), "diagnostics",
		      a ? a : json_array());
	pai_job_free(pj);
	pai_diags_free(diags);
	if (err && err != PAI_ESYNTAX && err != PAI_EINVALID) {
		json_decref(o);
		return h_reply_error(c, 500, "UnknownError", "%s",
				     pai_strerror(err));
	}
	return reply(l, c, 200, o, false, NULL);
}

/* "USER/NAME": the job's config, the bytes it was submitted as (v1's
 * route re-serialises JSON, as OpenPAI v0.17 does). */
static enum MHD_Result config(struct listener *l, struct MHD_Connection *c,
			      const char *ref)
{
	char *user = strdup(ref), *name = user ? strchr(user, '/') : NULL;
	char *path = NULL, *text = NULL;
	struct srv_job *j = NULL;
	size_t len = 0;

	if (name)
		*name++ = '\0';
	pthread_mutex_lock(&l->s->lock);
	if (name && srv_safe_name(user) && srv_safe_name(name))
		j = srv_find_job(l->s, user, name);
	if (j)
		path = srv_printf("%s/config.json", j->dir);
	pthread_mutex_unlock(&l->s->lock);
	free(user);
	if (!path || pai_file_read(&text, &len, NULL, path) != PAI_OK) {
		free(path);
		return h_reply_error(c, 404, "NoJobConfigError",
				     "no config of job %s", ref);
	}
	free(path);
	return h_reply_raw(c, 200, "text/plain; charset=utf-8", text, len);
}

/* The pages' listener, started if it does not run, and a login link:
 * for `paictl web`, which is the owner (the socket's directory is the
 * owner's alone). */
static enum MHD_Result make_link(struct listener *l, struct MHD_Connection *c)
{
	struct srv *s = l->s;
	char err[256], secret[65], url[sizeof(s->web_url)];
	enum MHD_Result res;
	unsigned port;
	int st;

	/* the links are kept under the server's lock */
	pthread_mutex_lock(&s->lock);
	st = h_link_new(secret);
	pthread_mutex_unlock(&s->lock);
	if (st < 0)
		return h_reply_error(c, 500, "UnknownError",
				     "cannot make a secret");
	if (s->open_web(s, &port, err, sizeof(err)) < 0) {
		explicit_bzero(secret, sizeof(secret));
		return h_reply_error(c, 500, "UnknownError", "%s", err);
	}
	pthread_mutex_lock(&s->lock);
	snprintf(url, sizeof(url), "%s", s->web_url);
	pthread_mutex_unlock(&s->lock);
	res = h_reply_json(c, 200,
			   json_pack("{s:s,s:s,s:i}", "url", url, "token",
				     secret, "expiresInSeconds",
				     WEB_LINK_MS / 1000));
	explicit_bzero(secret, sizeof(secret));
	return res;
}

enum MHD_Result h_web_api(struct listener *l, struct MHD_Connection *c,
			  const char *name, const char *method,
			  struct req *rq)
{
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	bool post = strcmp(method, "POST") == 0;

	if (strcmp(name, "link") == 0 && !l->tcp)
		return post ? make_link(l, c)
			    : h_reply_error(c, 405, "MethodNotAllowedError",
					    "POST %s", name);
	if (!l->tcp)
		return h_reply_error(c, 404, "NotFoundError",
				     "the pages are served over TCP: see "
				     "'paictl web'");
	if (strcmp(name, "session") == 0 && get)
		return session(l, c);
	if (strcmp(name, "login") == 0 && post)
		return login(l, c, rq);
	if (strcmp(name, "logout") == 0 && post)
		return logout(l, c);
	/* the rest for those signed in, on either listener */
	if (!h_web_signed_in(l, c))
		return h_reply_error(c, 401, "UnauthorizedUserError",
				     "sign in first");
	if (strncmp(name, "config/", 7) == 0 && get)
		return config(l, c, name + 7);
	if (strcmp(name, "validate") == 0 && post)
		return validate(l, c, rq);
	return h_reply_error(c, 404, "NotFoundError", "no such route: %s %s",
			     method, name);
}
