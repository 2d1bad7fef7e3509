/* client.c - the REST client as callers see it: jobs, tasks and logs.
 * What an API version's paths and JSON look like is api_v1.c's; how
 * bytes travel is http.c's. */
#include "api.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ---- the handle ------------------------------------------------------- */

static void free_secret(char *s)
{
	if (s)
		memset(s, 0, strlen(s));
	free(s);
}

static int dup_opt(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -1;
}

/* A token goes into a header line: no control characters, no spaces. */
static int valid_token(const char *t)
{
	for (; t && *t; t++)
		if ((unsigned char)*t <= ' ' || *t == 0x7f)
			return 0;
	return 1;
}

int pai_client_new(pai_client **out, const pai_client_options *opts)
{
	pai_client *c = NULL;
	const char *uri;
	size_t n;
	int err = PAI_OK;

	if (out)
		*out = NULL;
	if (!out || !opts || opts->version != PAI_CLIENT_OPTIONS_VERSION)
		return PAI_EINVAL;
	uri = opts->uri		  ? opts->uri
	      : opts->unix_socket ? "http://localhost"
				  : NULL;
	if (!uri ||
	    (strncasecmp(uri, "http://", 7) != 0 &&
	     strncasecmp(uri, "https://", 8) != 0) ||
	    !valid_token(opts->token))
		return PAI_EINVAL;
	/* libcurl is opened by the first client (lib/dl.h) */
	if (pai__curl_load())
		return PAI_ELIBRARY;
	if (!(c = calloc(1, sizeof(*c))))
		return PAI_ENOMEM;
	if (dup_opt(&c->uri, uri) < 0 ||
	    dup_opt(&c->unix_socket, opts->unix_socket) < 0 ||
	    dup_opt(&c->token, opts->token) < 0 ||
	    dup_opt(&c->ca_file, opts->ca_file) < 0) {
		err = PAI_ENOMEM;
		goto out;
	}
	n = strlen(c->uri);
	while (n && c->uri[n - 1] == '/')
		c->uri[--n] = '\0';
	if ((err = pai__url_split(c->uri, &c->scheme, &c->host, &c->port)))
		goto out;
	c->insecure = opts->insecure;
	c->connect_timeout_ms =
	    opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 10000;
	c->stall_timeout_s =
	    opts->stall_timeout_s > 0 ? opts->stall_timeout_s : 30;
	c->max_retries = opts->max_retries >= 0 ? opts->max_retries : 4;
	c->retry_max_ms = opts->retry_max_ms > 0 ? opts->retry_max_ms : 60000;
	c->trace = opts->trace;
	c->trace_data = opts->trace_data;
	c->interrupt = opts->interrupt;
	c->rng = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^
		 (uint64_t)(uintptr_t)c;
	if (!c->rng)
		c->rng = 1;
	if (!(c->curl = curl_easy_init())) {
		err = PAI_ENOMEM;
		goto out;
	}
	*out = c;
	c = NULL;
out:
	pai_client_free(c);
	return err;
}

void pai_client_free(pai_client *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->uri);
	free(c->scheme);
	free(c->host);
	free(c->unix_socket);
	free_secret(c->token);
	free(c->ca_file);
	pai__error_release(&c->err);
	free(c->html_log_origin);
	free(c);
}

int pai_client_set_token(pai_client *c, const char *token)
{
	char *t = NULL;

	if (!c || !valid_token(token))
		return PAI_EINVAL;
	if (token && !(t = strdup(token)))
		return PAI_ENOMEM;
	free_secret(c->token);
	c->token = t;
	return PAI_OK;
}

/* ---- the last error ---------------------------------------------------- */

long pai_client_http_status(const pai_client *c)
{
	return c ? c->err.status : 0;
}

const char *pai_client_error_code(const pai_client *c)
{
	return c ? c->err.code : NULL;
}

const char *pai_client_error(const pai_client *c)
{
	return c ? c->err.msg : NULL;
}

/* ---- calls ------------------------------------------------------------- */

static int check_names(pai_client *c, const char *user, const char *name)
{
	if (!user || !*user || (name && !*name))
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a job needs a user and a name");
	return PAI_OK;
}

int pai_cluster_info(json_t **out, pai_client *c)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->cluster_info(out, api, c);
}

int pai_login(char **token, pai_client *c, const char *user,
	      const char *password, long expiration_s)
{
	const struct pai__api *api;
	int err;

	if (token)
		*token = NULL;
	if (!token || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if (!user || !*user || !password)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a login needs a user and a password");
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->login(token, api, c, user, password,
					 expiration_s);
}

int pai_job_ref_parse(char **user, char **name, const char *ref,
		      const char *default_user)
{
	const char *tilde;
	char *u = NULL, *n = NULL;
	int err = PAI_OK;

	if (user)
		*user = NULL;
	if (name)
		*name = NULL;
	if (!user || !name || !ref)
		return PAI_EINVAL;
	tilde = strchr(ref, '~');
	if (tilde) {
		if (tilde == ref || !tilde[1])
			return PAI_EINVAL;
		u = strndup(ref, (size_t)(tilde - ref));
		n = strdup(tilde + 1);
		if (!u || !n) {
			err = PAI_ENOMEM;
			goto out;
		}
	} else {
		if (!*ref)
			return PAI_EINVAL;
		if (default_user && !*default_user)
			return PAI_EINVAL;
		if ((default_user && !(u = strdup(default_user))) ||
		    !(n = strdup(ref))) {
			err = PAI_ENOMEM;
			goto out;
		}
	}
	*user = u;
	*name = n;
	u = n = NULL;
out:
	free(u);
	free(n);
	return err;
}

/* ---- jobs -------------------------------------------------------------- */

int pai_job_get(pai_job_info **out, pai_client *c, const char *user,
		const char *name)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = check_names(c, user, name ? name : "")))
		return err;
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->job_get(out, api, c, user, name);
}

int pai_jobs_list(pai_job_list **out, pai_client *c, const char *user)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->jobs_list(out, api, c,
					     user && *user ? user : NULL);
}

int pai_job_get_config(char **text, size_t *len, pai_client *c,
		       const char *user, const char *name)
{
	const struct pai__api *api;
	size_t n = 0;
	int err;

	if (text)
		*text = NULL;
	if (len)
		*len = 0;
	if (!text || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = check_names(c, user, name ? name : "")))
		return err;
	err = pai__client_api(c, &api);
	if (err == PAI_OK)
		err = api->job_config(text, &n, api, c, user, name);
	if (len)
		*len = n;
	return err;
}

int pai_job_stop(pai_client *c, const char *user, const char *name)
{
	const struct pai__api *api;
	int err;

	if (!c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = check_names(c, user, name ? name : "")))
		return err;
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->job_stop(api, c, user, name);
}

int pai_job_get_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		    const char *name)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = check_names(c, user, name ? name : "")))
		return err;
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->job_ssh(out, api, c, user, name);
}

int pai_task_log_url(char **url, pai_client *c, const pai_job_info *job,
		     const pai_task_info *task, const char *stream, int tail)
{
	const struct pai__api *api;
	int err;

	if (url)
		*url = NULL;
	if (!url || !c || !job || !task || !stream ||
	    (strcmp(stream, "stdout") != 0 && strcmp(stream, "stderr") != 0 &&
	     strcmp(stream, "all") != 0))
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->task_log_url(url, api, c, job, task, stream,
						 tail);
}

/* ---- logs -------------------------------------------------------------- */

static int is_html(const pai__response *rs)
{
	/* an empty body has no data at all: no arithmetic on NULL */
	const char *p = rs->body.data ? rs->body.data : "";
	const char *end = p + rs->body.len;

	if (rs->content_type)
		return strncasecmp(rs->content_type, "text/html", 9) == 0;
	while (p < end && isspace((unsigned char)*p))
		p++;
	return (end - p >= 9 && strncasecmp(p, "<!DOCTYPE", 9) == 0) ||
	       (end - p >= 5 && strncasecmp(p, "<html", 5) == 0);
}

static const char *find_ci(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	for (; end - p >= (ptrdiff_t)n; p++)
		if (strncasecmp(p, s, n) == 0)
			return p;
	return NULL;
}

static void put_utf8(pai__buf *b, unsigned long cp)
{
	char u[4];

	if (cp < 0x80) {
		u[0] = (char)cp;
		pai__buf_put(b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		pai__buf_put(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		pai__buf_put(b, u, 3);
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		pai__buf_put(b, u, 4);
	}
}

/* The text inside a YARN log page's <pre> elements, entities decoded;
 * "" when it has none (no log yet). */
static void html_log_text(pai__buf *out, const char *p, size_t len)
{
	static const struct {
		const char *name;
		char ch;
	} named[] = {{"lt", '<'},   {"gt", '>'},    {"amp", '&'},
		     {"quot", '"'}, {"apos", '\''}, {"nbsp", ' '}};
	const char *end = p + len, *s, *e;
	size_t i;

	while ((s = find_ci(p, end, "<pre"))) {
		s += 4;
		if (s < end && *s != '>' && !isspace((unsigned char)*s)) {
			p = s; /* <preview> or the like */
			continue;
		}
		while (s < end && *s != '>')
			s++;
		if (s == end)
			return;
		s++;
		e = find_ci(s, end, "</pre");
		if (!e)
			e = end;
		while (s < e) {
			const char *semi;

			if (*s != '&') {
				pai__buf_putc(out, *s++);
				continue;
			}
			semi =
			    memchr(s, ';',
				   (size_t)(e - s) > 12 ? 12 : (size_t)(e - s));
			if (semi && s[1] == '#') {
				unsigned long cp;
				char *q;

				if (s[2] == 'x' || s[2] == 'X')
					cp = strtoul(s + 3, &q, 16);
				else
					cp = strtoul(s + 2, &q, 10);
				if (q == semi && q > s + 2 && cp > 0 &&
				    cp <= 0x10FFFF &&
				    !(cp >= 0xD800 && cp <= 0xDFFF)) {
					put_utf8(out, cp);
					s = semi + 1;
					continue;
				}
			} else if (semi) {
				for (i = 0;
				     i < sizeof(named) / sizeof(named[0]); i++)
					if ((size_t)(semi - s - 1) ==
						strlen(named[i].name) &&
					    strncmp(s + 1, named[i].name,
						    (size_t)(semi - s - 1)) ==
						0)
						break;
				if (i < sizeof(named) / sizeof(named[0])) {
					pai__buf_putc(out, named[i].ch);
					s = semi + 1;
					continue;
				}
			}
			pai__buf_putc(out, *s++);
		}
		p = e;
	}
}

/* "bytes A-B/N": A, or -1 */
static long long range_start(const char *cr)
{
	char *end;
	long long a;

	if (!cr || strncasecmp(cr, "bytes ", 6) != 0)
		return -1;
	a = strtoll(cr + 6, &end, 10);
	return end != cr + 6 && *end == '-' && a >= 0 ? a : -1;
}

static int copy_out(char **data, size_t *len, pai_client *c, const char *p,
		    size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		return pai__client_fail(c, PAI_ENOMEM, 0, NULL,
					"out of memory");
	if (n)
		memcpy(d, p, n);
	d[n] = '\0';
	*data = d;
	*len = n;
	return PAI_OK;
}

int pai_log_read(char **data, size_t *len, long long *next, pai_client *c,
		 const char *url, long long offset)
{
	pai__request rq = {"GET", url, NULL, 0, NULL, NULL, 1};
	pai__response rs = PAI__RESPONSE_INIT;
	pai__buf text = PAI__BUF_INIT;
	char range[64], *origin = NULL;
	const char *p;
	size_t n = 0;
	long long start;
	int err, html_origin;

	if (data)
		*data = NULL;
	if (len)
		*len = 0;
	if (next)
		*next = offset;
	if (!data || !len || !next || !c || !url || offset < 0)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__url_origin(&origin, url)) == PAI_EINVAL)
		return pai__client_fail(c, err, 0, NULL,
					"cannot use the log URL '%s'", url);
	if (err)
		return pai__client_fail(c, err, 0, NULL, "out of memory");
	/* an HTML page's offsets are in its decoded text: fetch it whole */
	html_origin =
	    c->html_log_origin && strcmp(c->html_log_origin, origin) == 0;
	if (offset > 0 && !html_origin) {
		snprintf(range, sizeof(range), "bytes=%lld-", offset);
		rq.range = range;
	}
	err = pai__http(c, &rq, &rs);
	if (err)
		goto out;
	if (rs.status == 416 && rq.range) {
		err = copy_out(data, len, c, "", 0); /* nothing new */
		goto out;
	}
	if ((err = pai__status_error(c, &rq, &rs)))
		goto out;
	if (is_html(&rs)) {
		if (!html_origin) {
			free(c->html_log_origin);
			c->html_log_origin = origin;
			origin = NULL;
		}
		if (rq.range) { /* a part of a page is no use */
			rq.range = NULL;
			if ((err = pai__http(c, &rq, &rs)) ||
			    (err = pai__status_error(c, &rq, &rs)))
				goto out;
		}
		html_log_text(&text, rs.body.data ? rs.body.data : "",
			      rs.body.len);
		if (text.oom) {
			err = pai__client_fail(c, PAI_ENOMEM, 0, NULL,
					       "out of memory");
			goto out;
		}
		p = text.data;
		n = text.len;
		start = 0;
	} else {
		p = rs.body.data;
		n = rs.body.len;
		start = 0;
		if (rs.status == 206) {
			start = range_start(rs.content_range);
			if (start < 0)
				start = offset;
			if (start > offset) {
				err = pai__client_fail(
				    c, PAI_EPROTOCOL, rs.status, NULL,
				    "GET %s: asked for bytes from %lld, got "
				    "from %lld",
				    url, offset, start);
				goto out;
			}
		}
	}
	/* drop what the caller has: all of it when the server ignored
	 * Range, the overlap when it answered from earlier on */
	if ((unsigned long long)(offset - start) >= n) {
		err = copy_out(data, len, c, "", 0);
		goto out;
	}
	p += offset - start;
	n -= (size_t)(offset - start);
	if ((err = copy_out(data, len, c, p, n)))
		goto out;
	*next = offset + (long long)n;
out:
	free(origin);
	pai__buf_release(&text);
	pai__response_release(&rs);
	return err;
}

int pai_download(char **data, size_t *len, pai_client *c, const char *url)
{
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1};
	pai__response rs = PAI__RESPONSE_INIT;
	char *cur = NULL;
	int err = PAI_OK, hops;

	if (data)
		*data = NULL;
	if (len)
		*len = 0;
	if (!data || !c || !url)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if (!(cur = strdup(url)))
		return pai__client_fail(c, PAI_ENOMEM, 0, NULL,
					"out of memory");
	/* WebHDFS answers with a redirect to a data node; the token goes
	 * only to the client's own origin (see perform() in http.c) */
	for (hops = 0;; hops++) {
		rq.url = cur;
		if ((err = pai__http(c, &rq, &rs)))
			goto out;
		if (rs.status >= 300 && rs.status < 400 && rs.location &&
		    rs.status != 304) {
			if (hops == 10) {
				err = pai__client_fail(c, PAI_EPROTOCOL,
						       rs.status, NULL,
						       "GET %s: more than 10 "
						       "redirects",
						       url);
				goto out;
			}
			free(cur);
			cur = rs.location;
			rs.location = NULL;
			continue;
		}
		break;
	}
	if ((err = pai__status_error(c, &rq, &rs)))
		goto out;
	if (len)
		*len = rs.body.len;
	if (!(*data = pai__buf_detach(&rs.body))) {
		err = pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
		if (len)
			*len = 0;
	}
out:
	pai__response_release(&rs);
	free(cur);
	return err;
}
