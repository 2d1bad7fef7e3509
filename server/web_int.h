/* web_int.h - the local cluster's web pages (paictl web): who may ask
 * and from where (web_gate.c), login links and sessions (web_login.c),
 * the pages and their files (web_pages.c), the routes only the pages
 * use (web_api.c). The pages themselves are server/web/, compiled in
 * (web_assets.c, made by server/web/embed.sh). Internal to server/.
 *
 * A session (auth.c) is a token in an HttpOnly, SameSite=Strict cookie
 * and a key the page holds and sends in WEB_KEY_HEADER: a browser sends
 * the cookie to every port of the host (its name, after the port, keeps
 * two listeners apart, no more), so the cookie alone is nothing, and a
 * session is no bearer token. The pages call the same REST APIs as
 * every client. The listener `paictl web` starts on a loopback address
 * of its own (127.A.B.C at random: http.c), whose cookies a browser
 * sends to no job's server on 127.0.0.1, asks a session or a token of
 * every request (before its body); the one of
 * --listen keeps OpenPAI's rules for its API, and its pages need a
 * session too (a login form, with --users). On both, a Host that is
 * not the listener's is refused (DNS rebinding), and a request that
 * changes something on a session's cookie needs the pages' own Origin
 * or a header a form cannot send (CSRF). */
#ifndef WEB_INT_H
#define WEB_INT_H

#include "http_int.h"

/* One file of server/web/, served as /web/NAME. */
struct web_asset {
	const char *name, *type;
	const unsigned char *data;
	size_t len;
};
/* web_assets.c: every one, ended by a zeroed entry */
extern const struct web_asset web_assets[];

/* The header a page's request carries that a cross-site form cannot. */
#define WEB_HEADER "X-Paictl-Web"
/* How long a login link is good for (a session's: http_int.h). */
#define WEB_LINK_MS  (2 * 60 * 1000)

/* ---- web_gate.c --------------------------------------------------- */

/* Before any route of a TCP listener: refuses (403) another Host, a
 * change on a session without the pages' Origin, and on paictl web's
 * listener (401) any request but for the pages and their files that
 * has neither a session nor a token. 0 to go on; -1 after replying. */
int h_web_gate(struct listener *l, struct MHD_Connection *c,
	       const char *method, const char *url, enum MHD_Result *res);
/* Whether the request has a valid session or token (takes the lock). */
bool h_web_signed_in(const struct listener *l, struct MHD_Connection *c);
/* Whether url is the pages': "/", "/submit", "/job/...", "/web/...". */
bool h_web_url(const char *url);
/* The headers every answer of the pages has: CSP and the like. */
void h_web_headers(struct MHD_Response *r);

/* ---- web_login.c -------------------------------------------------- */

/* A new one-time login secret, good for WEB_LINK_MS, in out[65];
 * under the lock. 0 or -1. */
int h_link_new(char *out);
/* Whether secret is one handed out, unused and in time: then it is
 * used up. Under the lock. */
bool h_link_take(const char *secret);
/* Adds the headers that set (token) or clear (NULL) l's session
 * cookie to r. */
void h_session_cookie(const struct listener *l, struct MHD_Response *r,
		      const char *token);
/* A session for the user running the server (the one whose socket
 * gave the link), in tok; 0 or -1. */
int h_session_owner(struct srv *s, struct srv_token *tok);

/* ---- web_pages.c -------------------------------------------------- */

enum MHD_Result h_web_route(struct listener *l, struct MHD_Connection *c,
			    const char *url, const char *method,
			    struct req *rq);

/* ---- web_api.c ---------------------------------------------------- */

/* /web/api/NAME: session, login, logout, validate; link (on the Unix
 * socket only). */
enum MHD_Result h_web_api(struct listener *l, struct MHD_Connection *c,
			  const char *name, const char *method,
			  struct req *rq);

#endif /* WEB_INT_H */
