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
 * it is then.
 *
 * The same for the list of jobs (GET /api/v1/jobs: its ETag changes
 * when a job comes, goes or changes), and for a task's log: a GET of
 * it with ?wait=MS and "Range: bytes=N-" is held while the log has no
 * byte past N and the task runs; inotify on the log (or, before its
 * first byte, its directory) wakes the main loop when it is written.
 * The web pages (server/web/) follow jobs and logs so. */
#include "http_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>

/* The longest a request is held, and how many are at once: each holds
 * a connection (libmicrohttpd takes 512). */
#define WAIT_MAX_MS 30000
#define MAX_HELD    256

enum { W_JOB, W_LIST, W_LOG };

struct srv_waiter {
	struct MHD_Connection *c;
	struct req *rq;
	int kind;
	char key[300]; /* the job's user~name (W_JOB, W_LOG) */
	char since[32]; /* an ETag (W_JOB, W_LIST) */
	long long deadline; /* srv_now_ms() */
	/* W_LOG: the log, the size it had, its task, its inotify watch */
	char *path;
	long long size;
	size_t task;
	long attempt;
	int wd;
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

void h_list_etag(struct srv *s, char *out, size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	char etag[32];
	size_t i, k;

	fnv(&h, (long long)s->njobs);
	for (i = 0; i < s->njobs; i++) {
		for (k = 0; s->jobs[i]->key[k]; k++)
			fnv(&h, (unsigned char)s->jobs[i]->key[k]);
		h_job_etag(s->jobs[i], etag, sizeof(etag));
		for (k = 0; etag[k]; k++)
			fnv(&h, (unsigned char)etag[k]);
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

/* A new waiter for c, held until ms from now: NULL when there is no
 * room (the request is answered at once then). */
static struct srv_waiter *add_waiter(struct srv *s, struct MHD_Connection *c,
				     struct req *rq, int kind, long ms)
{
	struct srv_waiter *w;

	if (s->nwaiters >= MAX_HELD)
		return NULL;
	if (s->nwaiters == s->capwaiters) {
		size_t cap = s->capwaiters ? 2 * s->capwaiters : 16;

		if (!(w = realloc(s->waiters, cap * sizeof(*w))))
			return NULL;
		s->waiters = w;
		s->capwaiters = cap;
	}
	w = &s->waiters[s->nwaiters++];
	memset(w, 0, sizeof(*w));
	w->c = c;
	w->rq = rq;
	w->kind = kind;
	w->wd = -1;
	w->deadline = srv_now_ms() + ms;
	return w;
}

/* Holds w's request: its connection suspended until srv_wake_waiters()
 * resumes it. Returns 1, for the hold functions. */
static int hold(struct srv *s, struct srv_waiter *w)
{
	w->rq->held = true;
	s->held_out++; /* until answered: http.c's completed() */
	/* under the lock, as every resume is: none can come before this */
	MHD_suspend_connection(w->c);
	srv_wake(s); /* its deadline is the main loop's to keep */
	return 1;
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
	if (strcmp(etag, since) != 0 ||
	    !(w = add_waiter(s, c, rq, W_JOB, ms)))
		return 0;
	snprintf(w->key, sizeof(w->key), "%s", j->key);
	snprintf(w->since, sizeof(w->since), "%s", since);
	return hold(s, w);
}

int h_wait_hold_list(struct srv *s, struct MHD_Connection *c, struct req *rq)
{
	const char *since =
	    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
	char etag[32];
	struct srv_waiter *w;
	long ms;

	if (rq->woken || !since || !(ms = wait_ms(c)))
		return 0;
	h_list_etag(s, etag, sizeof(etag));
	if (strcmp(etag, since) != 0 ||
	    !(w = add_waiter(s, c, rq, W_LIST, ms)))
		return 0;
	snprintf(w->since, sizeof(w->since), "%s", since);
	return hold(s, w);
}

/* The size of the file at path; 0 when there is none (yet). */
static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* N of a Range "bytes=N-", or -1. */
static long long range_from(struct MHD_Connection *c)
{
	const char *r = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range");
	char *end;
	long long n;

	if (!r || strncmp(r, "bytes=", 6) != 0 || r[6] < '0' || r[6] > '9')
		return -1;
	n = strtoll(r + 6, &end, 10);
	return *end == '-' && !end[1] ? n : -1;
}

/* Whether task of j, in attempt, may still write to its log. */
static bool writing(const struct srv_job *j, size_t task, long attempt)
{
	return !ended(j) && j->attempt == attempt && task < j->ntasks &&
	       (j->tasks[task].state == ST_WAITING ||
		j->tasks[task].state == ST_RUNNING);
}

/* An inotify watch on the log at path, or on its directory while it has
 * none: -1 when there can be none (the wait then ends at its time). */
static int watch_log(struct srv *s, const char *path)
{
	char *dir;
	int wd;

	if (s->inotify_fd < 0)
		s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->inotify_fd < 0)
		return -1;
	wd = inotify_add_watch(s->inotify_fd, path, IN_MODIFY);
	if (wd >= 0 || !(dir = strdup(path)) || !strrchr(dir, '/'))
		return wd;
	*strrchr(dir, '/') = '\0';
	wd = inotify_add_watch(s->inotify_fd, dir, IN_CREATE | IN_MODIFY);
	free(dir);
	return wd;
}

int h_wait_hold_log(struct srv *s, struct MHD_Connection *c, struct req *rq,
		    const struct srv_job *j, size_t task, long attempt,
		    const char *path)
{
	long long from = range_from(c);
	struct srv_waiter *w;
	long ms;

	if (rq->woken || from < 0 || !(ms = wait_ms(c)) ||
	    !writing(j, task, attempt) || file_size(path) > from)
		return 0;
	if (!(w = add_waiter(s, c, rq, W_LOG, ms)))
		return 0;
	if (!(w->path = strdup(path))) {
		s->nwaiters--;
		return 0;
	}
	snprintf(w->key, sizeof(w->key), "%s", j->key);
	w->size = from;
	w->task = task;
	w->attempt = attempt;
	w->wd = watch_log(s, path);
	return hold(s, w);
}

/* The job of waiter w, or NULL when it has gone. */
static struct srv_job *job_of(struct srv *s, const struct srv_waiter *w)
{
	const char *tilde = strchr(w->key, '~');
	char user[256];

	if (!tilde || (size_t)(tilde - w->key) >= sizeof(user))
		return NULL;
	memcpy(user, w->key, (size_t)(tilde - w->key));
	user[tilde - w->key] = '\0';
	return srv_find_job(s, user, tilde + 1);
}

/* 1 when waiter w is to be answered now. list[32]: the list's ETag,
 * made for the first list waiter of a pass ("" until then). */
static bool due(struct srv *s, const struct srv_waiter *w, long long now,
		char *list)
{
	struct srv_job *j;
	char etag[32];

	if (now >= w->deadline)
		return true;
	if (w->kind == W_LIST) {
		if (!*list)
			h_list_etag(s, list, 32);
		return strcmp(list, w->since) != 0;
	}
	j = job_of(s, w);
	if (w->kind == W_LOG)
		return !j || !writing(j, w->task, w->attempt) ||
		       file_size(w->path) > w->size;
	if (!j || ended(j))
		return true;
	h_job_etag(j, etag, sizeof(etag));
	return strcmp(etag, w->since) != 0;
}

/* Lets waiter i go: its watch too, unless another waiter shares it. */
static void drop_waiter(struct srv *s, size_t i)
{
	struct srv_waiter *w = &s->waiters[i];
	size_t k;

	for (k = 0; w->wd >= 0 && k < s->nwaiters; k++)
		if (k != i && s->waiters[k].wd == w->wd)
			break;
	if (w->wd >= 0 && k == s->nwaiters)
		inotify_rm_watch(s->inotify_fd, w->wd);
	free(w->path);
	*w = s->waiters[--s->nwaiters];
}

long srv_wake_waiters(struct srv *s, bool all)
{
	long long now = srv_now_ms(), next = -1;
	char list[32] = "";
	size_t i = 0;

	while (i < s->nwaiters) {
		struct srv_waiter *w = &s->waiters[i];

		if (!all && !due(s, w, now, list)) {
			if (next < 0 || w->deadline - now < next)
				next = w->deadline - now;
			i++;
			continue;
		}
		/* the handler runs again and answers: rq->woken */
		w->rq->woken = true;
		MHD_resume_connection(w->c);
		drop_waiter(s, i);
	}
	return next < 0 ? -1 : (long)next;
}
