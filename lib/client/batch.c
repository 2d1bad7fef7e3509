/* batch.c - many submissions, several in flight (pai_submit_batch()):
 * each is submit.c's pai_submit_ex(), on a lane of the client (a handle
 * of its own sharing the client's holds, token and module state,
 * http.h) in a thread of its own, so that a cluster's latency is paid
 * once per few jobs. How many lanes work at once is lanes.c's call,
 * from one up while it pays and down when the server is overloaded:
 * lane i works while i < that number, so that one lane is always the
 * same connection, and a lane's thread starts when it is first let
 * work. Every API module gets it, since it is the submission as the
 * module makes it, once it says its state is safe in lanes (struct
 * pai__api.lanes); until then its batches go one by one. The caller is
 * told of each in the order given, in its own thread, with the
 * client's detail that submission's. */
#include "api.h"
#include "lanes.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WAITING, RUNNING, DONE };

struct slot {
	int state;
	int err, recovered;
	unsigned long long seq; /* pai__lanes_begin()'s, when it began */
	pai__error detail;	/* the lane's, when it failed */
};

struct lane;

struct batch {
	pai_client *c;
	const char *user;
	json_t *const *configs;
	const pai_submit_options *const *opts;
	size_t n;
	pthread_mutex_t m;
	pthread_cond_t cv;
	struct slot *slots;
	size_t next;  /* the next to begin */
	size_t told;  /* the next to be told */
	size_t k;     /* in flight at most, and begun ahead of told */
	size_t again; /* one to send again first; n: none */
	int stop;     /* begin no more */
	int over;     /* every one told: the lanes end */
	pai__lanes ctl;	    /* how many lanes work now (ctl.now) */
	struct lane *lanes; /* room for ctl.max */
	size_t started;	    /* lanes with a thread: the first ones */
};

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The next submission for lane `lane` to begin (under b->m): its index,
 * or n (none, or the lane rests). */
static size_t take(struct batch *b, size_t lane)
{
	size_t i = b->n;

	if (lane >= b->ctl.now)
		return b->n;
	if (b->again < b->n) {
		i = b->again;
		b->again = b->n;
	} else if (!b->stop && b->next < b->n && b->next < b->told + b->k)
		/* a window: no more begun than can be told of soon, so
		 * that a STOP leaves few behind it */
		i = b->next++;
	if (i < b->n) {
		b->slots[i].state = RUNNING;
		b->slots[i].seq = pai__lanes_begin(&b->ctl);
	}
	return i;
}

struct lane {
	struct batch *b;
	size_t idx;
	pai_client *c;
	pthread_t th;
};

/* Submission i, done on lane l (under b->m): told to the controller,
 * and a change of lanes said in the trace. */
static void measured(struct batch *b, struct lane *l, size_t i,
		     int overloaded)
{
	unsigned was = b->ctl.now;
	char note[96];

	if (!pai__lanes_done(&b->ctl, b->slots[i].seq, overloaded, now_us()))
		return;
	snprintf(note, sizeof(note), "* batch: %u submissions at once, not %u%s",
		 b->ctl.now, was, overloaded ? " (the server is overloaded)" : "");
	pai__trace(l->c, note);
}

/* The end of the wait a server last named (Retry-After), shared by the
 * client and its lanes: when it moves during a submission, the server
 * said it is overloaded, to this lane or another. */
static long long hold_mark(pai_client *c)
{
	long long v;

	pai__lock(c);
	v = c->sh->not_before_ms;
	pai__unlock(c);
	return v;
}

/* A lane's thread: submissions, one after the other, until the batch
 * is over. */
static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct batch *b = l->b;
	size_t i;
	unsigned long overloads;
	long long mark;
	int err, rec, held, over;

	pthread_mutex_lock(&b->m);
	while (!b->over) {
		if ((i = take(b, l->idx)) == b->n) {
			pthread_cond_wait(&b->cv, &b->m);
			continue;
		}
		pthread_mutex_unlock(&b->m);
		rec = 0;
		overloads = l->c->overloads;
		mark = hold_mark(l->c);
		held = pai__held_ms(l->c) > 0;
		err = pai_submit_ex(l->c, b->user, b->configs[i],
				    b->opts ? b->opts[i] : NULL, &rec);
		over = l->c->overloads != overloads ||
		       hold_mark(l->c) != mark;
		pthread_mutex_lock(&b->m);
		b->slots[i].err = err;
		b->slots[i].recovered = rec;
		pai__client_save_error(l->c, &b->slots[i].detail);
		b->slots[i].state = DONE;
		/* one that waited out a hold begun before it measures the
		 * server's wait, not its speed */
		if (over || !held)
			measured(b, l, i, over);
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->m);
	return NULL;
}

/* Lane idx's client and thread (under b->m, or before any lane runs):
 * 0, or -1 when either cannot be had. */
static int start_lane(struct batch *b, size_t idx)
{
	struct lane *l = &b->lanes[idx];

	l->b = b;
	l->idx = idx;
	if (pai__client_lane(&l->c, b->c))
		return -1;
	if (pthread_create(&l->th, NULL, lane_main, l)) {
		pai_client_free(l->c);
		l->c = NULL;
		return -1;
	}
	b->started++;
	return 0;
}

/* The lanes the controller lets work, started (under b->m); when one
 * cannot be, the controller counts on those that run. */
static void grow(struct batch *b)
{
	while (b->started < b->ctl.now)
		if (start_lane(b, b->started) < 0) {
			b->ctl.max = b->ctl.now = (unsigned)b->started;
			break;
		}
}

/* Waits until submission i is done, or will not begin (stopped): 1
 * when it is done. */
static int wait_for(struct batch *b, size_t i)
{
	int done;

	pthread_mutex_lock(&b->m);
	for (;;) {
		grow(b); /* the lanes grow as those done tell */
		if (b->slots[i].state == DONE ||
		    (b->slots[i].state == WAITING && b->stop))
			break;
		pthread_cond_wait(&b->cv, &b->m);
	}
	done = b->slots[i].state == DONE;
	pthread_mutex_unlock(&b->m);
	return done;
}

/* What the caller says of submission i, done: the batch told. */
static void told(struct batch *b, size_t i, int r)
{
	pthread_mutex_lock(&b->m);
	if (r == PAI_BATCH_AGAIN) {
		b->slots[i].state = WAITING;
		b->again = i;
	} else
		b->told = i + 1;
	if (r == PAI_BATCH_STOP)
		b->stop = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->m);
}

/* Each submission told, in order, as it is done. */
static void report(struct batch *b, const pai_batch_options *bo)
{
	size_t i;
	int r;

	for (i = 0; i < b->n; i++) {
		if (!wait_for(b, i)) {
			told(b, i, PAI_BATCH_GO); /* stopped before it began */
			continue;
		}
		pai__client_restore_error(b->c, &b->slots[i].detail);
		r = bo && bo->done ? bo->done(bo->data, i, b->slots[i].err,
					      b->slots[i].recovered)
				   : PAI_BATCH_GO;
		told(b, i, r);
		if (r == PAI_BATCH_AGAIN)
			i--; /* told again once it is done again */
	}
	pthread_mutex_lock(&b->m);
	b->over = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->m);
}

static void end_lanes(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->started; i++) {
		pthread_join(b->lanes[i].th, NULL);
		pai_client_free(b->lanes[i].c);
	}
}

/* One by one, in this thread: a batch of one, or no thread to be had. */
static int one_by_one(struct batch *b, const pai_batch_options *bo)
{
	size_t i;
	int err, rec, r;

	for (i = 0; i < b->n; i++) {
		rec = 0;
		err = pai_submit_ex(b->c, b->user, b->configs[i],
				    b->opts ? b->opts[i] : NULL, &rec);
		r = bo && bo->done ? bo->done(bo->data, i, err, rec)
				   : PAI_BATCH_GO;
		if (r == PAI_BATCH_AGAIN)
			i--;
		else if (r == PAI_BATCH_STOP)
			break;
	}
	return PAI_OK;
}

static int check(pai_client *c, json_t *const *configs, size_t n,
		 const pai_batch_options *bo)
{
	size_t i;

	if (!c || (n && !configs) ||
	    (bo && bo->version != PAI_BATCH_OPTIONS_VERSION))
		return PAI_EINVAL;
	for (i = 0; i < n; i++)
		if (!json_is_object(configs[i]))
			return PAI_EINVAL;
	return PAI_OK;
}

int pai_submit_batch(pai_client *c, const char *user, json_t *const *configs,
		     const pai_submit_options *const *opts, size_t n,
		     const pai_batch_options *bo)
{
	const struct pai__api *api;
	struct batch b;
	struct lane lanes[PAI_BATCH_IN_FLIGHT_MAX];
	size_t k = bo && bo->in_flight ? bo->in_flight : PAI_BATCH_IN_FLIGHT, i;
	int err;

	if ((err = check(c, configs, n, bo)))
		return err;
	pai__client_reset_error(c);
	memset(&b, 0, sizeof(b));
	memset(lanes, 0, sizeof(lanes));
	b.c = c;
	b.user = user;
	b.configs = configs;
	b.opts = opts;
	b.n = b.again = n;
	if (k > PAI_BATCH_IN_FLIGHT_MAX)
		k = PAI_BATCH_IN_FLIGHT_MAX;
	if (k > n)
		k = n;
	b.k = k;
	/* the lanes take the client's API as it is: found here, once; a
	 * cluster that cannot be asked is told of as each submission
	 * would tell it */
	if (k <= 1 || pai__client_api(c, &api) || !api->lanes)
		return one_by_one(&b, bo);
	if (!(b.slots = calloc(n, sizeof(*b.slots))))
		return pai__client_oom(c);
	pthread_mutex_init(&b.m, NULL);
	pthread_cond_init(&b.cv, NULL);
	b.lanes = lanes;
	pai__lanes_init(&b.ctl, (unsigned)k, now_us());
	if (start_lane(&b, 0) < 0)
		err = one_by_one(&b, bo);
	else
		report(&b, bo);
	end_lanes(&b);
	for (i = 0; i < n; i++)
		pai__error_release(&b.slots[i].detail);
	pthread_cond_destroy(&b.cv);
	pthread_mutex_destroy(&b.m);
	free(b.slots);
	return err;
}
