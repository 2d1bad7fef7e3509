/* auth.c - who asks the local cluster's REST APIs: bearer tokens, what
 * a caller may do, and the login routes (http_int.h) */
#include "http_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool h_same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	/* as long as b, whatever a is; a's bytes over and over */
	for (i = 0; la && i < lb; i++)
		d |= (unsigned char)(a[i % la] ^ b[i]);
	return d == 0 && la;
}

bool h_token_alive(const struct srv_token *t, long long now)
{
	return t->expires > now &&
	       (!t->session || now - t->used < WEB_IDLE_MS);
}

/* The live token that is secret, or NULL; every one looked at, in a
 * time that does not tell which matched. Under the lock. */
static struct srv_token *token_of(struct srv *s, const char *secret)
{
	struct srv_token *found = NULL;
	long long now = srv_now_ms();
	size_t i;

	for (i = 0; i < s->ntokens; i++)
		if (h_same_secret(s->tokens[i].token, secret) &&
		    h_token_alive(&s->tokens[i], now))
			found = &s->tokens[i];
	return found;
}

/* The session whose cookie the request has, its key not looked at:
 * only to tell the pages' 401 from their 200. Under the lock. */
const struct srv_token *h_find_cookie(const struct listener *l,
				      struct MHD_Connection *c)
{
	const char *v = l->cookie[0] ? MHD_lookup_connection_value(
					   c, MHD_COOKIE_KIND, l->cookie)
				     : NULL;
	const struct srv_token *t = v ? token_of(l->s, v) : NULL;

	return t && t->session ? t : NULL;
}

const struct srv_token *h_find_token(const struct listener *l,
				     struct MHD_Connection *c)
{
	const char *h =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	const char *key = NULL;
	struct srv_token *t;
	bool cookie = false;

	if (!h && l->cookie[0]) {
		/* the web pages' session: a token in a cookie, which a
		 * browser sends to every port of the host, and its key in
		 * a header, which only the pages send */
		h = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, l->cookie);
		key = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						  WEB_KEY_HEADER);
		cookie = true;
	} else if (!h || strncasecmp(h, "Bearer ", 7) != 0)
		return NULL;
	else
		h += 7;
	while (h && *h == ' ')
		h++;
	if (!h || !*h || !(t = token_of(l->s, h)))
		return NULL;
	/* a session is no bearer token: its cookie is what another port
	 * may have been sent */
	if (t->session != cookie ||
	    (cookie && !(key && h_same_secret(t->key, key))))
		return NULL;
	if (t->session)
		t->used = srv_now_ms();
	return t;
}

/* 0 when the caller may act as user (NULL: anyone); else replies. */
int h_authorize(struct listener *l, struct MHD_Connection *c, const char *user,
		enum MHD_Result *res)
{
	const struct srv_token *t;
	char who[256] = "";
	int ok;

	if (!l->tcp)
		return 0;
	/* tokens are added by either listener's thread */
	pthread_mutex_lock(&l->s->lock);
	t = h_find_token(l, c);
	ok = !t							 ? 0
	     : (!user || t->admin || strcmp(t->user, user) == 0) ? 1
								 : -1;
	if (t)
		snprintf(who, sizeof(who), "%s", t->user);
	pthread_mutex_unlock(&l->s->lock);
	if (ok == 0) {
		*res =
		    h_reply_error(c, 401, "UnauthorizedUserError",
				  "Guest is not allowed to do this operation.");
		return -1;
	}
	if (ok < 0) {
		*res = h_reply_error(c, 403, "ForbiddenUserError",
				     "User %s is not allowed to do this "
				     "operation on jobs of %s.",
				     who, user);
		return -1;
	}
	return 0;
}

/* The value of key in an application/x-www-form-urlencoded body; new. */
char *h_form_value(const char *body, size_t len, const char *key)
{
	size_t klen = strlen(key), i = 0;

	while (i < len) {
		size_t end = i;

		while (end < len && body[end] != '&')
			end++;
		if (end - i > klen && strncmp(body + i, key, klen) == 0 &&
		    body[i + klen] == '=')
			return h_form_decode(body + i + klen + 1,
					     end - i - klen - 1);
		i = end + 1;
	}
	return NULL;
}

/* A login's fields, from a JSON or a form body. */
struct creds {
	char *user, *pass;
	long long secs; /* the token's life */
};

static int read_creds(struct creds *cr, const struct req *rq)
{
	char *exp = NULL;
	json_t *body, *e;

	memset(cr, 0, sizeof(*cr));
	cr->secs = 7 * 24 * 3600;
	if (rq->len && rq->body[0] == '{') {
		body = json_loadb(rq->body, rq->len, 0, NULL);
		if (!json_is_object(body)) {
			json_decref(body);
			return -1;
		}
		if (json_is_string(json_object_get(body, "username")))
			cr->user = strdup(json_string_value(
			    json_object_get(body, "username")));
		if (json_is_string(json_object_get(body, "password")))
			cr->pass = strdup(json_string_value(
			    json_object_get(body, "password")));
		e = json_object_get(body, "expiration");
		if (json_is_integer(e))
			cr->secs = json_integer_value(e);
		else if (json_is_string(e))
			exp = strdup(json_string_value(e));
		json_decref(body);
	} else if (rq->len) {
		cr->user = h_form_value(rq->body, rq->len, "username");
		cr->pass = h_form_value(rq->body, rq->len, "password");
		exp = h_form_value(rq->body, rq->len, "expiration");
	}
	if (exp)
		cr->secs = strtoll(exp, NULL, 10);
	if (cr->secs <= 0 || cr->secs > 10LL * 365 * 24 * 3600)
		cr->secs = 7 * 24 * 3600;
	free(exp);
	return 0;
}

/* The account named user, or NULL. */
static const struct srv_user *user_of(const struct srv *s, const char *user)
{
	size_t i;

	for (i = 0; i < s->nusers; i++)
		if (strcmp(s->users[i].name, user) == 0)
			return &s->users[i];
	return NULL;
}

/* The user whose password cr gives, or NULL after replying: 400 as the
 * real servers answer, 429 while wrong passwords of that account from
 * that address are throttled (auth_throttle.c). */
static const struct srv_user *check_creds(struct srv *s,
					  struct MHD_Connection *c,
					  const struct creds *cr,
					  enum MHD_Result *res)
{
	const struct srv_user *u;
	long long wait;

	if (!cr->user || !cr->pass) {
		*res = h_reply_error(c, 400, "InvalidParametersError",
				     "username and password are required");
		return NULL;
	}
	if (strlen(cr->pass) < 6) {
		/* Joi's rule on the login routes of v0.17 and v1.x alike,
		 * checked before any user is looked up */
		*res = h_reply_error(c, 400, "InvalidParametersError",
				     "child \"password\" fails because "
				     "[\"password\" length must be at least 6 "
				     "characters long]");
		return NULL;
	}
	if ((wait = h_throttle_wait(s, c, cr->user)) > 0) {
		*res = h_reply_throttled(c, wait);
		return NULL;
	}
	u = user_of(s, cr->user);
	if (u && h_same_secret(u->password, cr->pass)) {
		h_throttle_note(s, c, cr->user, true);
		return u;
	}
	h_throttle_note(s, c, cr->user, false);
	if (u)
		/* v0.17 and v1.x alike; the v1 document's
		 * "IncorrectPassworkError" is its typo */
		*res = h_reply_error(c, 400, "IncorrectPasswordError",
				     "Password is incorrect.");
	else
		*res = h_reply_error(c, 400, "NoUserError",
				     "User %s is not found.", cr->user);
	return NULL;
}

/* Token i forgotten: its user freed, the last one moved into its place,
 * and the place the last one left wiped, so that no copy of a token
 * outlives it. The lock is held. */
static void forget_token(struct srv *s, size_t i)
{
	free(s->tokens[i].user);
	s->tokens[i] = s->tokens[--s->ntokens];
	explicit_bzero(&s->tokens[s->ntokens], sizeof(s->tokens[0]));
}

/* Room for one more token: a new array, the old one wiped before it is
 * freed (realloc would free it as it is). 0 or -1. The lock is held. */
static int grow_tokens(struct srv *s)
{
	struct srv_token *v = malloc((s->ntokens + 1) * sizeof(*v));

	if (!v)
		return -1;
	if (s->ntokens) {
		memcpy(v, s->tokens, s->ntokens * sizeof(*v));
		explicit_bzero(s->tokens, s->ntokens * sizeof(*v));
	}
	free(s->tokens);
	s->tokens = v;
	return 0;
}

/* Keeps tok, expired ones forgotten. 0 or -1. Takes the lock. */
static int keep_token(struct srv *s, struct srv_token *tok)
{
	long long now = srv_now_ms();
	size_t i;
	int ret;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->ntokens;)
		if (!h_token_alive(&s->tokens[i], now))
			forget_token(s, i);
		else
			i++;
	if ((ret = grow_tokens(s)) == 0)
		s->tokens[s->ntokens++] = *tok;
	pthread_mutex_unlock(&s->lock);
	if (ret < 0) {
		free(tok->user);
		explicit_bzero(tok, sizeof(*tok));
	}
	return ret;
}

/* A new token (and with session, its key) for user in tok. 0 or -1. */
static int new_token(struct srv_token *tok, const char *user, bool admin,
		     long long secs, bool session)
{
	memset(tok, 0, sizeof(*tok));
	if (srv_random_hex(tok->token, 32) < 0 ||
	    (session && srv_random_hex(tok->key, 32) < 0) ||
	    !(tok->user = strdup(user))) {
		explicit_bzero(tok, sizeof(*tok));
		return -1;
	}
	tok->admin = admin;
	tok->session = session;
	tok->used = srv_now_ms();
	tok->expires = tok->used + secs * 1000;
	return 0;
}

int h_add_token(struct srv *s, const char *user, bool admin, long long secs,
		struct srv_token *tok)
{
	if (new_token(tok, user, admin, secs, false) < 0)
		return -1;
	return keep_token(s, tok);
}

int h_add_session(struct srv *s, const char *user, bool admin,
		  struct srv_token *tok)
{
	if (new_token(tok, user, admin, WEB_SESSION_S, true) < 0)
		return -1;
	return keep_token(s, tok);
}

void h_drop_token(struct srv *s, const struct srv_token *t)
{
	size_t i;

	for (i = 0; i < s->ntokens; i++)
		if (&s->tokens[i] == t) {
			forget_token(s, i);
			return;
		}
}

const struct srv_user *h_login(struct listener *l, struct MHD_Connection *c,
			       const struct req *rq, long long *secs,
			       enum MHD_Result *res)
{
	const struct srv_user *u = NULL;
	struct creds cr;

	if (read_creds(&cr, rq) < 0)
		*res = h_reply_error(c, 400, "InvalidParametersError",
				     "the body is not a JSON object");
	else
		u = check_creds(l->s, c, &cr, res);
	*secs = cr.secs;
	free(cr.user);
	srv_free_secret(cr.pass);
	return u;
}

enum MHD_Result h_post_token(struct listener *l, struct MHD_Connection *c,
			     struct req *rq)
{
	const struct srv_user *u;
	struct srv_token tok;
	enum MHD_Result res = MHD_NO;
	long long secs;

	u = h_login(l, c, rq, &secs, &res);
	if (!u)
		return res;
	if (h_add_token(l->s, u->name, u->admin, secs, &tok) < 0)
		return h_reply_error(c, 500, "UnknownError",
				     "cannot make a token");
	res = h_reply_json(c, 200,
			   json_pack("{s:s,s:s,s:b}", "token", tok.token,
				     "user", u->name, "admin", u->admin));
	explicit_bzero(tok.token, sizeof(tok.token));
	return res;
}

/* The caller (see http_int.h). */
char *h_v2_caller(struct listener *l, struct MHD_Connection *c,
		  enum MHD_Result *res)
{
	const struct srv_token *t;
	char *who = NULL;

	pthread_mutex_lock(&l->s->lock);
	t = h_find_token(l, c);
	if (t)
		who = strdup(t->user);
	pthread_mutex_unlock(&l->s->lock);
	if (who || t)
		return who;
	if (!l->tcp && l->s->owner)
		return strdup(l->s->owner);
	*res = h_reply_error(
	    c, 401, "UnauthorizedUserError", "%s",
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization")
		? "Your token is invalid."
		: "Guest is not allowed to do this operation.");
	return NULL;
}
