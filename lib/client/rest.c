/* rest.c - the request plumbing every API module shares (see rest.h):
 * an answer judged by its status, the server's error mapped to libpai's
 * codes, JSON and text answers. */
#include "rest.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- errors ------------------------------------------------------------ */

static const char *reason_phrase(long status)
{
	switch (status) {
	case 300: return "Multiple Choices";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 407: return "Proxy Authentication Required";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 411: return "Length Required";
	case 413: return "Payload Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 416: return "Range Not Satisfiable";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	}
	return NULL;
}

static int error_for(long status, const char *code)
{
	if (status == 401)
		return PAI_EAUTH;
	if (status == 403)
		return PAI_EFORBIDDEN;
	if (status == 404)
		return PAI_ENOTFOUND;
	if (status == 409)
		return PAI_ECONFLICT;
	if (status == 400 && code) {
		if (strcmp(code, "NoVirtualClusterError") == 0)
			return PAI_ENOTFOUND;
		/* the token endpoint's answers to a bad login */
		if (strcmp(code, "NoUserError") == 0 ||
		    strcmp(code, "IncorrectPasswordError") == 0 ||
		    strcmp(code, "IncorrectPassworkError") == 0)
			return PAI_EAUTH;
	}
	return PAI_EHTTP;
}

int pai__status_error(pai_client *c, const pai__request *rq,
		      const pai__response *rs)
{
	json_t *o = NULL;
	const char *code = NULL, *msg = NULL, *phrase;
	char *host = NULL;
	int err;

	if (rs->status >= 200 && rs->status < 300)
		return PAI_OK;
	/* {code, message} from the API; anything else (a proxy's HTML
	 * page, an empty body) is summed up, never shown */
	if (rs->body.len &&
	    (!rs->content_type ||
	     strncasecmp(rs->content_type, "text/html", 9) != 0))
		o = json_loadb(rs->body.data, rs->body.len, 0, NULL);
	if (json_is_object(o)) {
		code = json_string_value(json_object_get(o, "code"));
		msg = json_string_value(json_object_get(o, "message"));
		if (code && !*code)
			code = NULL;
		if (msg && !*msg)
			msg = NULL;
	}
	err = error_for(rs->status, code);
	if (rs->status == 404 && code && strcmp(code, "NoApiError") == 0) {
		/* no such route: the cluster speaks another API version */
		pai__client_fail(c, PAI_EPROTOCOL, rs->status, code,
				 "%s (the cluster speaks another version of "
				 "the API: see 'paictl cluster add --api')",
				 msg ? msg : code);
		json_decref(o);
		return PAI_EPROTOCOL;
	}
	if (msg || code)
		pai__client_fail(c, err, rs->status, code, "%s",
				 msg ? msg : code);
	else {
		host = pai__url_host(rq->url);
		phrase = reason_phrase(rs->status);
		/* a redirect here is most often http:// given for https:// */
		pai__client_fail(
		    c, err, rs->status, NULL, "HTTP %ld%s%s from %s%s%s%s",
		    rs->status, phrase ? " " : "", phrase ? phrase : "",
		    host ? host : rq->url, rs->location ? " (to " : "",
		    rs->location ? rs->location : "", rs->location ? ")" : "");
	}
	free(host);
	json_decref(o);
	return err;
}

int pai__response_json(json_t **out, pai_client *c, const pai__request *rq,
		       const pai__response *rs)
{
	const char *text = rs->body.data ? rs->body.data : "";
	json_error_t e;
	int err = pai__json_loadb(out, &e, text, rs->body.len, 0);

	if (err == PAI_OK)
		return PAI_OK;
	if (err == PAI_ENOMEM)
		return pai__client_fail(c, PAI_ENOMEM, 0, NULL,
					"out of memory");
	return pai__client_fail(c, PAI_EPROTOCOL, rs->status, NULL,
				"%s %s: the answer is not JSON (%s)",
				rq->method, rq->url, e.text);
}

/* ---- exchanges ------------------------------------------------------- */

void pai__submit_rq_release(pai__submit_rq *rq)
{
	free(rq->url);
	free(rq->body);
	memset(rq, 0, sizeof(*rq));
}

char *pai__url(pai_client *c, const char *path)
{
	pai__buf b = PAI__BUF_INIT;

	pai__buf_printf(&b, "%s%s", c->uri, path);
	return pai__buf_detach(&b);
}

int pai__judge(pai_client *c, const pai__request *rq, const pai__response *rs)
{
	if (rs->status >= 200 && rs->status < 300)
		return PAI_OK;
	if (c->wire && c->wire->judge)
		return c->wire->judge(c->wire_data, c, rq, rs);
	return pai__status_error(c, rq, rs);
}

int pai__exchange(pai_client *c, const pai__request *rq, pai__response *rs)
{
	int err = pai__http(c, rq, rs);

	return err ? err : pai__judge(c, rq, rs);
}

int pai__get_json_etag(json_t **out, char **etag, pai_client *c,
		       const char *url)
{
	pai__request rq = {"GET", url, NULL, 0, NULL, NULL, 1, 0, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	int err;

	*out = NULL;
	if (etag)
		*etag = NULL;
	err = pai__exchange(c, &rq, &rs);
	if (err == PAI_OK)
		err = pai__response_json(out, c, &rq, &rs);
	if (err == PAI_OK && etag) {
		*etag = rs.etag;
		rs.etag = NULL;
	}
	pai__response_release(&rs);
	return err;
}

int pai__get_json(json_t **out, pai_client *c, const char *url)
{
	return pai__get_json_etag(out, NULL, c, url);
}

int pai__get_object(json_t **out, pai_client *c, const char *url)
{
	int err = pai__get_json(out, c, url);

	if (err == PAI_OK && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
				       "GET %s: expected a JSON object", url);
	}
	return err;
}

int pai__get_text(char **text, size_t *len, pai_client *c, const char *url)
{
	pai__request rq = {"GET", url, NULL, 0, NULL, NULL, 1, 0, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	int err;

	*text = NULL;
	*len = 0;
	err = pai__exchange(c, &rq, &rs);
	if (err == PAI_OK) {
		*len = rs.body.len;
		if (!(*text = pai__buf_detach(&rs.body)))
			err = pai__client_oom(c);
	}
	pai__response_release(&rs);
	return err;
}
