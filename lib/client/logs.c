/* logs.c - reading by URL what a cluster serves as files: a task's log
 * from where the caller got to (Range), YARN's HTML log pages as their
 * text, and downloads that follow redirects without the token. Over
 * rest.h; the URLs come from the API modules (pai_task_log_url()). */
#include "api.h"
#include "text/text.h" /* pai__utf8_encode */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- YARN's log pages ------------------------------------------------- */

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

/* The character of the entity at s (an '&' before e) appended to out;
 * returns the byte after the entity, or NULL when s starts none known
 * (the '&' is then text). */
static const char *put_entity(pai__buf *out, const char *s, const char *e)
{
	static const struct {
		const char *name;
		char ch;
	} named[] = {{"lt", '<'},   {"gt", '>'},    {"amp", '&'},
		     {"quot", '"'}, {"apos", '\''}, {"nbsp", ' '}};
	const char *semi =
	    memchr(s, ';', (size_t)(e - s) > 12 ? 12 : (size_t)(e - s));
	size_t i, n;

	if (!semi)
		return NULL;
	if (s[1] == '#') {
		unsigned long cp;
		char *q, u[4];

		if (s[2] == 'x' || s[2] == 'X')
			cp = strtoul(s + 3, &q, 16);
		else
			cp = strtoul(s + 2, &q, 10);
		if (q != semi || q <= s + 2 || cp == 0 || cp > 0x10FFFF ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return NULL;
		pai__buf_put(out, u, pai__utf8_encode(u, cp));
		return semi + 1;
	}
	n = (size_t)(semi - s - 1);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (n == strlen(named[i].name) &&
		    strncmp(s + 1, named[i].name, n) == 0) {
			pai__buf_putc(out, named[i].ch);
			return semi + 1;
		}
	return NULL;
}

/* The text inside a YARN log page's <pre> elements, entities decoded;
 * "" when it has none (no log yet). */
static void html_log_text(pai__buf *out, const char *p, size_t len)
{
	const char *end = p + len, *s, *e, *after;

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
			if (*s == '&' && (after = put_entity(out, s, e)))
				s = after;
			else
				pai__buf_putc(out, *s++);
		}
		p = e;
	}
}

/* ---- one read of a log ------------------------------------------------ */

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
		return pai__client_oom(c);
	if (n)
		memcpy(d, p, n);
	d[n] = '\0';
	*data = d;
	*len = n;
	return PAI_OK;
}

/* One pai_log_read(): its request, the answer, and what is known of the
 * URL's origin. */
struct log_read {
	pai_client *c;
	const char *url;
	long long offset;
	pai__request rq;
	pai__response rs;
	char range[64];
	char *origin;	 /* url's */
	int html_origin; /* the origin serves logs as HTML pages */
	pai__buf text;	 /* such a page's text */
};

/* GET the log from the offset on; *nothing when the server says there
 * is nothing past it (416). */
static int log_get(struct log_read *r, int *nothing)
{
	pai_client *c = r->c;
	int err;

	*nothing = 0;
	/* an HTML page's offsets are in its decoded text: fetch it whole */
	r->html_origin =
	    c->html_log_origin && strcmp(c->html_log_origin, r->origin) == 0;
	if (r->offset > 0 && !r->html_origin) {
		snprintf(r->range, sizeof(r->range), "bytes=%lld-", r->offset);
		r->rq.range = r->range;
	}
	if ((err = pai__http(c, &r->rq, &r->rs)))
		return err;
	if (r->rs.status == 416 && r->rq.range) {
		*nothing = 1;
		return PAI_OK;
	}
	return pai__status_error(c, &r->rq, &r->rs);
}

/* An HTML page's text, from its start: its origin is noted as one that
 * serves pages, and the page fetched again whole when a part came. */
static int log_html(struct log_read *r, const char **p, size_t *n)
{
	pai_client *c = r->c;
	int err;

	if (!r->html_origin) {
		free(c->html_log_origin);
		c->html_log_origin = r->origin;
		r->origin = NULL;
	}
	if (r->rq.range) { /* a part of a page is no use */
		r->rq.range = NULL;
		if ((err = pai__exchange(c, &r->rq, &r->rs)))
			return err;
	}
	html_log_text(&r->text, r->rs.body.data ? r->rs.body.data : "",
		      r->rs.body.len);
	if (r->text.oom)
		return pai__client_oom(c);
	*p = r->text.data;
	*n = r->text.len;
	return PAI_OK;
}

/* Where the answer's body starts in the log: 0, or a 206's first byte,
 * which must not be past the offset asked for. */
static int log_start(struct log_read *r, long long *start)
{
	*start = 0;
	if (r->rs.status != 206)
		return PAI_OK;
	*start = range_start(r->rs.content_range);
	if (*start < 0)
		*start = r->offset;
	if (*start > r->offset)
		return pai__client_fail(r->c, PAI_EPROTOCOL, r->rs.status, NULL,
					"GET %s: asked for bytes from %lld, "
					"got from %lld",
					r->url, r->offset, *start);
	return PAI_OK;
}

/* A log over HTTP (Range, YARN's pages): what the modules' URLs are. */
static int http_log_read(char **data, size_t *len, long long *next,
			 pai_client *c, const char *url, long long offset);

int pai_log_read(char **data, size_t *len, long long *next, pai_client *c,
		 const char *url, long long offset)
{
	const struct pai__api *api;

	if (data)
		*data = NULL;
	if (len)
		*len = 0;
	if (next)
		*next = offset;
	if (!data || !len || !next || !c || !url || offset < 0)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	/* a module whose logs are no HTTP reads them itself (Slurm) */
	if (c->api != PAI_API_AUTO && !pai__client_api(c, &api) &&
	    api->log_read)
		return api->log_read(data, len, next, api, c, url, offset);
	return http_log_read(data, len, next, c, url, offset);
}

static int http_log_read(char **data, size_t *len, long long *next,
			 pai_client *c, const char *url, long long offset)
{
	struct log_read r = {.c = c,
			     .url = url,
			     .offset = offset,
			     .rq = {"GET", url, NULL, 0, NULL, NULL, 1, 0, 0},
			     .rs = PAI__RESPONSE_INIT,
			     .text = PAI__BUF_INIT};
	const char *p = NULL;
	size_t n = 0;
	long long start = 0;
	int err, nothing = 0;

	/* the arguments checked, the outputs set, by pai_log_read() */
	if ((err = pai__url_origin(&r.origin, url)) == PAI_EINVAL)
		return pai__client_fail(c, err, 0, NULL,
					"cannot use the log URL '%s'", url);
	if (err)
		return pai__client_oom(c);
	err = log_get(&r, &nothing);
	if (err == PAI_OK && !nothing && is_html(&r.rs))
		err = log_html(&r, &p, &n);
	else if (err == PAI_OK && !nothing) {
		p = r.rs.body.data;
		n = r.rs.body.len;
		err = log_start(&r, &start);
	}
	/* drop what the caller has: all of it when the server ignored
	 * Range, the overlap when it answered from earlier on */
	if (err == PAI_OK && !nothing &&
	    (unsigned long long)(offset - start) < n) {
		p += offset - start;
		n -= (size_t)(offset - start);
		if (!(err = copy_out(data, len, c, p, n)))
			*next = offset + (long long)n;
	} else if (err == PAI_OK)
		err = copy_out(data, len, c, "", 0);
	free(r.origin);
	pai__buf_release(&r.text);
	pai__response_release(&r.rs);
	return err;
}

/* ---- downloads ----------------------------------------------------------- */

int pai_download(char **data, size_t *len, pai_client *c, const char *url)
{
	/* what it downloads is a job's private key: never traced */
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1, 0, 1};
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
		return pai__client_oom(c);
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
		err = pai__client_oom(c);
		if (len)
			*len = 0;
	}
out:
	pai__response_release(&rs);
	free(cur);
	return err;
}
