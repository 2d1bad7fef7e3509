/* wait.c - the local cluster's long-poll on a job: "wait", its own
 * extension beside the OpenPAI routes (named in GET /api/v2/info's
 * "paictl" member). A GET of a job's status, on either API, with
 *
 *   ?wait=MS&since=ETAG
 *
 * is answered once the job's ETag (every status answer has one) is no
 * longer ETAG, or the job has ended or gone, or MS (at most 30 s) have
 * passed: the status then, as without the query. Meanwhile the request
 * is held: its connection is suspended (libmicrohttpd's
 * suspend/resume), and the main loop, which runs after every change of
 * a job (a task's exit, a launch, a STOP, a deadline), resumes it.
 * Nothing polls; a change is answered within milliseconds. A server
 * that stops answers what it holds first (http.c), with the status as
 * it is then. */
#include "http_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest a request is held, and how many are at once: each holds
 * a connection (libmicrohttpd takes 512). */
#define WAIT_MAX_MS 30000
#define MAX_HELD    256

struct srv_waiter {
	struct MHD_Connection *c;
	struct req *rq;
	char key[300]; /* the job's user~name */
	char since[32];
	long long deadline; /* srv_now_ms() */
};

static void fnv(unsigned long long *h, long long v)
{
	size_t i;

	for (i = 0; i < sizeof(v); i++) {
		*h ^= (unsigned char)(v >> (8 * i));
		*h *= 0x100000001b3ULL;
	}
}

void h_job_etag(const struct srv_job *j, char *out, size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t k;

	/* what a follower sees change: states (STOPPING is RUNNING with
	 * stop), exit codes, the attempt */
	fnv(&h, j->state);
	fnv(&h, j->stop);
	fnv(&h, j->attempt);
	fnv(&h, j->retry_count);
	fnv(&h, j->exit_code);
	for (k = 0; k < j->ntasks; k++) {
		fnv(&h, j->tasks[k].state);
		fnv(&h, j->tasks[k].exit_code);
	}
	snprintf(out, len, "W/\"%016llx\"", h);
}

static bool ended(const struct srv_job *j)
{
	return j->state == ST_SUCCEEDED || j->state == ST_FAILED ||
	       j->state == ST_STOPPED;
}

/* ?wait's milliseconds, at most WAIT_MAX_MS; 0 for none or nonsense. */
static long wait_ms(struct MHD_Connection *c)
{
	const char *v =
	    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
	char *end;
	long ms;

	if (!v || !*v)
		return 0;
	ms = strtol(v, &end, 10);
	if (*end || ms <= 0)
		return 0;
	return ms < WAIT_MAX_MS ? ms : WAIT_MAX_MS;
}

int h_wait_hold(struct srv *s, struct MHD_Connection *c, struct req *rq,
		const struct srv_job *j)
{
	const char *since =
	    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
	char etag[32];
	struct srv_waiter *w;
	long ms;

	if (rq->woken || !since || ended(j) || !(ms = wait_ms(c)))
		return 0;
	h_job_etag(j, etag, sizeof(etag));
	if (strcmp(etag, since) != 0 || s->nwaiters >= MAX_HELD)
		return 0;
	if (s->nwaiters == s->capwaiters) {
		size_t cap = s->capwaiters ? 2 * s->capwaiters : 16;

		if (!(w = realloc(s->waiters, cap * sizeof(*w))))
			return 0;
		s->waiters = w;
		s->capwaiters = cap;
	}
	w = &s->waiters[s->nwaiters++];
	w->c = c;
	w->rq = rq;
	snprintf(w->key, sizeof(w->key), "%s", j->key);
	snprintf(w->since, sizeof(w->since), "%s", since);
	w->deadline = srv_now_ms() + ms;
	rq->held = true;
	s->held_out++; /* until answered: http.c's completed() */
	/* under the lock, as every resume is: none can come before this */
	MHD_suspend_connection(c);
	srv_wake(s); /* its deadline is the main loop's to keep */
	return 1;
}

/* 1 when waiter w is to be answered now. */
static bool due(struct srv *s, const struct srv_waiter *w, long long now)
{
	const char *tilde = strchr(w->key, '~');
	struct srv_job *j;
	char user[256], etag[32];

	if (now >= w->deadline || !tilde ||
	    (size_t)(tilde - w->key) >= sizeof(user))
		return true;
	memcpy(user, w->key, (size_t)(tilde - w->key));
	user[tilde - w->key] = '\0';
	j = srv_find_job(s, user, tilde + 1);
	if (!j || ended(j))
		return true;
	h_job_etag(j, etag, sizeof(etag));
	return strcmp(etag, w->since) != 0;
}

long srv_wake_waiters(struct srv *s, bool all)
{
	long long now = srv_now_ms(), next = -1;
	size_t i = 0;

	while (i < s->nwaiters) {
		struct srv_waiter *w = &s->waiters[i];

		if (!all && !due(s, w, now)) {
			if (next < 0 || w->deadline - now < next)
				next = w->deadline - now;
			i++;
			continue;
		}
		/* the handler runs again and answers: rq->woken */
		w->rq->woken = true;
		MHD_resume_connection(w->c);
		s->waiters[i] = s->waiters[--s->nwaiters];
	}
	return next < 0 ? -1 : (long)next;
}
