/* kube_status.c - what an error answer says (§2.3): a Status when the
 * body is JSON, and otherwise what the text can tell: the apiserver's
 * plain "404 page not found" for a group or version it does not serve
 * (a CRD not installed), 429's plain text, a proxy's HTML page. Branch
 * on code, then reason; show message. */
#include "kube.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The longest message kept: a Status can quote a whole object. */
#define MAX_MESSAGE 1000

void pai__kube_status_release(pai__kube_status *st)
{
	size_t i;

	if (!st)
		return;
	free(st->status);
	free(st->reason);
	free(st->message);
	free(st->name);
	free(st->kind);
	free(st->group);
	for (i = 0; i < st->ncauses; i++) {
		free(st->causes[i].reason);
		free(st->causes[i].field);
		free(st->causes[i].message);
	}
	free(st->causes);
	memset(st, 0, sizeof(*st));
}

/* text[0..n) as one line: control characters escaped, cut at
 * MAX_MESSAGE bytes (on a character's start) with "...". */
static char *one_line(const char *text, size_t n)
{
	char *cut, *line;
	size_t k = n;

	if (k > MAX_MESSAGE) {
		k = MAX_MESSAGE;
		while (k > 0 && ((unsigned char)text[k] & 0xc0) == 0x80)
			k--;
	}
	if (!(cut = malloc(k + 4)))
		return NULL;
	memcpy(cut, text, k);
	strcpy(cut + k, k < n ? "..." : "");
	line = pai__escape_controls(cut);
	free(cut);
	return line;
}

static int dup_member(char **out, const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!json_is_string(v))
		return PAI_OK;
	*out = one_line(json_string_value(v), json_string_length(v));
	return *out ? PAI_OK : PAI_ENOMEM;
}

static int read_causes(pai__kube_status *st, const json_t *causes)
{
	size_t i, n = json_array_size(causes);
	const json_t *c;

	if (n == 0)
		return PAI_OK;
	if (!(st->causes = calloc(n, sizeof(*st->causes))))
		return PAI_ENOMEM;
	for (i = 0; i < n; i++) {
		c = json_array_get(causes, i);
		if (!json_is_object(c))
			continue;
		if (dup_member(&st->causes[st->ncauses].reason, c, "reason") ||
		    dup_member(&st->causes[st->ncauses].field, c, "field") ||
		    dup_member(&st->causes[st->ncauses].message, c,
			       "message")) {
			st->ncauses++; /* what was filled is freed */
			return PAI_ENOMEM;
		}
		st->ncauses++;
	}
	return PAI_OK;
}

static int read_details(pai__kube_status *st, const json_t *d)
{
	const json_t *ra = json_object_get(d, "retryAfterSeconds");

	if (!json_is_object(d))
		return PAI_OK;
	if (json_is_integer(ra) && json_integer_value(ra) > 0 &&
	    json_integer_value(ra) < 86400)
		st->retry_after = (long)json_integer_value(ra);
	if (dup_member(&st->name, d, "name") ||
	    dup_member(&st->kind, d, "kind") ||
	    dup_member(&st->group, d, "group"))
		return PAI_ENOMEM;
	return read_causes(st, json_object_get(d, "causes"));
}

static int fill(pai__kube_status *st, const json_t *obj)
{
	const json_t *code = json_object_get(obj, "code");
	int ret;

	if (json_is_integer(code) && json_integer_value(code) >= 100 &&
	    json_integer_value(code) <= 599)
		st->code = (long)json_integer_value(code);
	if ((ret = dup_member(&st->status, obj, "status")) ||
	    (ret = dup_member(&st->reason, obj, "reason")) ||
	    (ret = dup_member(&st->message, obj, "message")) ||
	    (ret = read_details(st, json_object_get(obj, "details"))))
		return ret;
	if (!st->message && !(st->message = strdup("")))
		return PAI_ENOMEM;
	return PAI_OK;
}

int pai__kube_status_from_json(pai__kube_status *st, const json_t *obj,
			       long http_status)
{
	int ret;

	memset(st, 0, sizeof(*st));
	st->code = http_status;
	st->body = PAI__KB_STATUS;
	st->retry_after = -1;
	if ((ret = fill(st, obj)))
		pai__kube_status_release(st);
	return ret;
}

/* ---- bodies that are not a Status --------------------------------------- */

/* "type/subtype" of a Content-Type, parameters aside, case ignored. */
static int media_is(const char *ct, const char *type)
{
	size_t n = strlen(type);

	return ct && strncasecmp(ct, type, n) == 0 &&
	       (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* A page's <title>, else a word for what it is. */
static char *html_message(const char *body, size_t len)
{
	const char *t = memmem(body, len, "<title>", 7), *e;

	if (!t)
		t = memmem(body, len, "<TITLE>", 7);
	e = t ? memmem(t + 7, len - (size_t)(t + 7 - body), "</", 2) : NULL;
	if (t && e && e - (t + 7) > 0)
		return one_line(t + 7, (size_t)(e - (t + 7)));
	return strdup("an HTML page");
}

/* The first non-empty line, trimmed. */
static char *text_message(const char *body, size_t len)
{
	const char *s = body, *end = body + len, *e;

	while (s < end && isspace((unsigned char)*s))
		s++;
	e = memchr(s, '\n', (size_t)(end - s));
	if (!e)
		e = end;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	return one_line(s, (size_t)(e - s));
}

static int looks_html(const char *ct, const char *body, size_t len)
{
	while (len > 0 && isspace((unsigned char)*body)) {
		body++;
		len--;
	}
	return media_is(ct, "text/html") ||
	       (len >= 5 &&
		(strncasecmp(body, "<html", 5) == 0 ||
		 (len >= 9 && strncasecmp(body, "<!doctype", 9) == 0)));
}

static int not_status(pai__kube_status *st, const char *ct, const char *body,
		      size_t len)
{
	static const char page404[] = "404 page not found";
	char *msg;

	if (looks_html(ct, body, len)) {
		st->body = PAI__KB_HTML;
		msg = html_message(body, len);
	} else {
		msg = text_message(body, len);
		st->body = PAI__KB_TEXT;
		if (msg && st->code == 404 && strcmp(msg, page404) == 0)
			st->body = PAI__KB_NOT_FOUND;
	}
	st->message = msg;
	return msg ? PAI_OK : PAI_ENOMEM;
}

/* JSON only for application/json (§2.3); a JSON body that is not a
 * Status is kept as such, one that does not parse read as text. */
static int json_body(pai__kube_status *st, const char *body, size_t len,
		     int *done)
{
	json_error_t jerr;
	json_t *j = json_loadb(body, len, 0, &jerr);
	const char *kind = json_string_value(json_object_get(j, "kind"));
	int ret = PAI_OK;

	*done = 1;
	if (!j && json_error_code(&jerr) == json_error_out_of_memory)
		return PAI_ENOMEM;
	if (json_is_object(j) && (!kind || strcmp(kind, "Status") == 0) &&
	    (json_object_get(j, "status") || json_object_get(j, "code")))
		ret = fill(st, j);
	else if (j) {
		st->body = PAI__KB_JSON;
		ret = (st->message = strdup("")) ? PAI_OK : PAI_ENOMEM;
	} else
		*done = 0;
	json_decref(j);
	return ret;
}

int pai__kube_status_parse(pai__kube_status *st, long http_status,
			   const char *content_type, const char *body,
			   size_t len, long retry_after_header)
{
	int ret, done = 0;

	memset(st, 0, sizeof(*st));
	st->code = st->http = http_status;
	st->retry_after = retry_after_header >= 0 ? retry_after_header : -1;
	if (len == 0) {
		st->body = PAI__KB_EMPTY;
		return (st->message = strdup("")) ? PAI_OK : PAI_ENOMEM;
	}
	if (media_is(content_type, "application/json")) {
		st->body = PAI__KB_STATUS;
		if ((ret = json_body(st, body, len, &done)) || done)
			goto out;
	}
	ret = not_status(st, content_type, body, len);
out:
	if (ret)
		pai__kube_status_release(st);
	return ret;
}

int pai__kube_status_error(const pai__kube_status *st)
{
	long code = st->code;

	if (st->http >= 300 && code < 300)
		code = st->http;
	switch (code) {
	case 401: return PAI_EAUTH;
	case 403: return PAI_EFORBIDDEN;
	case 404: return PAI_ENOTFOUND;
	case 409: return PAI_ECONFLICT;
	case 422: return PAI_EINVALID;
	default: return code >= 200 && code < 300 ? PAI_OK : PAI_EHTTP;
	}
}

char *pai__kube_status_causes(const pai__kube_status *st)
{
	pai__buf b = PAI__BUF_INIT;
	const pai__kube_cause *c;
	size_t i;

	for (i = 0; i < st->ncauses; i++) {
		c = &st->causes[i];
		if (c->field && *c->field)
			pai__buf_printf(&b, "%s: ", c->field);
		pai__buf_printf(&b, "%s\n",
				c->message  ? c->message
				: c->reason ? c->reason
					    : "(no message)");
	}
	if (b.len == 0)
		return NULL;
	return pai__buf_detach(&b);
}
