/* web_login.c - how a browser signs in to the local cluster's pages
 * (web_int.h): the one-time secret of a `paictl web` link, traded for a
 * session; the session's cookie. A session (auth.c) is a token in a
 * cookie with a key beside it that the page holds and sends in a
 * header: a link's for the user who runs the server, as its Unix socket
 * serves them, a login form's for the account it named. */
#include "web_int.h"

#include <stdio.h>
#include <string.h>

/* The links handed out and not used: a ring, under the server's lock.
 * More at once than a person opens. */
#define LINKS 16

static struct link {
	char secret[65];
	long long expires;
} links[LINKS];
static size_t next_link;

int h_link_new(char *out)
{
	struct link *k = &links[next_link++ % LINKS];

	if (srv_random_hex(k->secret, 32) < 0) {
		k->secret[0] = '\0';
		return -1;
	}
	k->expires = srv_now_ms() + WEB_LINK_MS;
	memcpy(out, k->secret, sizeof(k->secret));
	return 0;
}

bool h_link_take(const char *secret)
{
	long long now = srv_now_ms();
	size_t i;

	for (i = 0; secret && i < LINKS; i++)
		if (links[i].secret[0] &&
		    h_same_secret(links[i].secret, secret)) {
			bool ok = links[i].expires > now;

			/* good once, in time or not */
			explicit_bzero(&links[i], sizeof(links[i]));
			return ok;
		}
	return false;
}

void h_session_cookie(const struct listener *l, struct MHD_Response *r,
		      const char *token)
{
	char v[200];

	/* gone from the browser when the session ends on the server, and
	 * no use without its key (h_find_token) */
	if (token)
		snprintf(v, sizeof(v),
			 "%s=%s; HttpOnly; SameSite=Strict; Path=/; Max-Age=%d",
			 l->cookie, token, WEB_SESSION_S);
	else
		snprintf(v, sizeof(v),
			 "%s=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0",
			 l->cookie);
	MHD_add_response_header(r, "Set-Cookie", v);
	explicit_bzero(v, sizeof(v));
}

int h_session_owner(struct srv *s, struct srv_token *tok)
{
	if (!s->owner)
		return -1;
	/* all the Unix socket may do: every user's jobs */
	return h_add_session(s, s->owner, true, tok);
}
