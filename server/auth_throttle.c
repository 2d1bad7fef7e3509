/* auth_throttle.c - wrong passwords slowed down, for the login routes
 * (auth.c): after THROTTLE_FREE failures of one account from one
 * address, each try must wait, 1 s after the first failure beyond them
 * and twice as long after each next one, up to THROTTLE_MAX_MS; an
 * early try gets 429 with Retry-After. The right password gets in once
 * the wait is over and clears the count: a stranger slows the owner
 * down, never locks them out for long. The table is bounded; a full
 * one gives up the entry least recently used whose wait is over.
 * Under the server's lock. */
#include "http_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define THROTTLE_SLOTS	256
#define THROTTLE_FREE	5
#define THROTTLE_MAX_MS (15LL * 60 * 1000)

static struct slot {
	char who[192]; /* "ADDRESS ACCOUNT", cut to fit */
	unsigned fails;
	long long until, last; /* ms */
} slots[THROTTLE_SLOTS];

/* "ADDRESS ACCOUNT" for c's peer and user, in out[192]. */
static void who_of(char *out, struct MHD_Connection *c, const char *user)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char addr[INET6_ADDRSTRLEN] = "local";

	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  addr, sizeof(addr));
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)sa)->sin6_addr, addr,
			  sizeof(addr));
	snprintf(out, sizeof(slots[0].who), "%s %s", addr, user);
}

/* The slot of who, or NULL. */
static struct slot *find(const char *who)
{
	size_t i;

	for (i = 0; i < THROTTLE_SLOTS; i++)
		if (slots[i].fails && strcmp(slots[i].who, who) == 0)
			return &slots[i];
	return NULL;
}

/* A slot for who: a free one, else the least recently used whose wait
 * is over, else the one whose wait ends first. */
static struct slot *make(const char *who, long long now)
{
	struct slot *best = NULL;
	size_t i;

	for (i = 0; i < THROTTLE_SLOTS; i++) {
		struct slot *t = &slots[i];

		if (!t->fails) {
			best = t;
			break;
		}
		if (!best ||
		    (t->until <= now &&
		     (best->until > now || t->last < best->last)) ||
		    (t->until > now && best->until > now &&
		     t->until < best->until))
			best = t;
	}
	memset(best, 0, sizeof(*best));
	snprintf(best->who, sizeof(best->who), "%s", who);
	return best;
}

long long h_throttle_wait(struct srv *s, struct MHD_Connection *c,
			  const char *user)
{
	char who[sizeof(slots[0].who)];
	long long now = srv_now_ms(), wait = 0;
	struct slot *t;

	who_of(who, c, user);
	pthread_mutex_lock(&s->lock);
	if ((t = find(who)) && t->until > now)
		wait = t->until - now;
	pthread_mutex_unlock(&s->lock);
	return wait;
}

void h_throttle_note(struct srv *s, struct MHD_Connection *c, const char *user,
		     bool right)
{
	char who[sizeof(slots[0].who)];
	long long now = srv_now_ms(), wait;
	struct slot *t;

	who_of(who, c, user);
	pthread_mutex_lock(&s->lock);
	t = find(who);
	if (right) {
		if (t)
			memset(t, 0, sizeof(*t));
	} else {
		if (!t)
			t = make(who, now);
		t->last = now;
		if (++t->fails > THROTTLE_FREE) {
			unsigned over = t->fails - THROTTLE_FREE - 1;

			wait = over >= 20 ? THROTTLE_MAX_MS : 1000LL << over;
			if (wait > THROTTLE_MAX_MS)
				wait = THROTTLE_MAX_MS;
			t->until = now + wait;
		}
	}
	pthread_mutex_unlock(&s->lock);
}

enum MHD_Result h_reply_throttled(struct MHD_Connection *c, long long wait)
{
	char secs[24];

	snprintf(secs, sizeof(secs), "%lld", (wait + 999) / 1000);
	return h_reply_header(
	    c, 429,
	    json_pack("{s:s,s:s++}", "code", "TooManyRequestsError", "message",
		      "too many wrong passwords: try again in ", secs, " s"),
	    "Retry-After", secs);
}
