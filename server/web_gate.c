/* web_gate.c - what a request that a browser may have sent must show
 * before any route of a TCP listener answers it (web_int.h): its Host
 * (against DNS rebinding), its Origin when it would change something
 * on a session's cookie (against CSRF), and on paictl web's listener a
 * session (a cookie and its key: auth.c) or a token. It runs on a
 * request's first call, before any of its body is read (http.c).
 * Also which paths are the pages', and the headers every answer of
 * theirs carries: a Content-Security-Policy of default-src 'self' with
 * no inline script, and Trusted Types, so that nothing a job wrote can
 * become HTML. */
#include "web_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* innerHTML and its kin throw under require-trusted-types-for: the
 * pages build everything from text (server/web/ui.js). */
#define CSP                                                                    \
	"default-src 'self'; object-src 'none'; base-uri 'none'; "            \
	"form-action 'self'; frame-ancestors 'none'; "                         \
	"require-trusted-types-for 'script'; trusted-types 'none'"

bool h_web_url(const char *url)
{
	return strcmp(url, "/") == 0 || strcmp(url, "/submit") == 0 ||
	       strncmp(url, "/job/", 5) == 0 || strncmp(url, "/web/", 5) == 0;
}

void h_web_headers(struct MHD_Response *r)
{
	MHD_add_response_header(r, "Content-Security-Policy", CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Cross-Origin-Opener-Policy", "same-origin");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy",
				"same-origin");
}

/* Whether host ("127.0.0.1:8080") names listener l. A loopback
 * listener is reached by its address or as localhost; one on another
 * address may have any name, and a browser with no session there. */
static bool host_ok(const struct listener *l, const char *host)
{
	char own[96];

	if (!l->web && !l->loopback)
		return true;
	snprintf(own, sizeof(own), "%s:%u", l->addr, l->port);
	if (strcmp(host, own) == 0)
		return true;
	snprintf(own, sizeof(own), "localhost:%u", l->port);
	return strcasecmp(host, own) == 0;
}

static bool safe_method(const char *method)
{
	return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 ||
	       strcmp(method, "OPTIONS") == 0;
}

/* Whether a request that changes something comes from the pages
 * themselves: its Origin (http or https) is the Host it was sent to;
 * or, from a client that sends no Origin, it has WEB_HEADER, which a
 * cross-site form cannot send, nor a cross-site script without a CORS
 * preflight that is never granted. */
static bool same_origin(struct MHD_Connection *c, const char *host)
{
	const char *origin =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");

	if (!origin)
		return MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						   WEB_HEADER) != NULL;
	/* https too: behind a proxy that ends TLS and passes Host on */
	if (strncmp(origin, "http://", 7) == 0)
		origin += 7;
	else if (strncmp(origin, "https://", 8) == 0)
		origin += 8;
	else
		return false;
	return host && strcasecmp(origin, host) == 0;
}

/* What needs no session on paictl web's listener: the pages (which say
 * how to sign in), their files, and the routes that sign in. */
static bool open_url(const char *url)
{
	return strcmp(url, "/web/api/session") == 0 ||
	       strcmp(url, "/web/api/login") == 0 ||
	       (h_web_url(url) && strncmp(url, "/web/api/", 9) != 0);
}

bool h_web_signed_in(const struct listener *l, struct MHD_Connection *c)
{
	bool in;

	pthread_mutex_lock(&l->s->lock);
	in = h_find_token(l, c) != NULL;
	pthread_mutex_unlock(&l->s->lock);
	return in;
}

int h_web_gate(struct listener *l, struct MHD_Connection *c,
	       const char *method, const char *url, enum MHD_Result *res)
{
	const char *host;
	bool cookie;

	if (!l->tcp)
		return 0;
	host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	cookie =
	    !MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization") &&
	    MHD_lookup_connection_value(c, MHD_COOKIE_KIND, l->cookie);
	if (host && !host_ok(l, host)) {
		*res = h_reply_error(c, 403, "ForbiddenHostError",
				     "Host '%s' is not this server's (%s:%u "
				     "or localhost:%u)",
				     host, l->addr, l->port, l->port);
		return -1;
	}
	if (!safe_method(method) &&
	    (cookie || strncmp(url, "/web/api/", 9) == 0) &&
	    !same_origin(c, host)) {
		*res = h_reply_error(c, 403, "ForbiddenOriginError",
				     "a change from a page needs the page's "
				     "own Origin, or the %s header",
				     WEB_HEADER);
		return -1;
	}
	if (l->web && !open_url(url) && !h_web_signed_in(l, c)) {
		*res = h_reply_error(c, 401, "UnauthorizedUserError",
				     "sign in first: run 'paictl web' for a "
				     "link that does");
		return -1;
	}
	return 0;
}
