/* batch.c - many submissions, several in flight (pai_submit_batch()):
 * each is submit.c's pai_submit_ex(), on a lane of the client (a handle
 * of its own sharing the client's holds, token and module state,
 * http.h) in a thread of its own, so that a cluster's latency is paid
 * once per few jobs. Every API module gets it, since it is the
 * submission as the module makes it, once it says its state is safe in
 * lanes (struct pai__api.lanes); until then its batches go one by one.
 * The caller is told of each in the order given, in its own thread,
 * with the client's detail that submission's. */
#include "api.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { WAITING, RUNNING, DONE };

struct slot {
	int state;
	int err, recovered;
	pai__error detail; /* the lane's, when it failed */
};

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
};

/* The next submission to begin (under b->m): its index, or n. */
static size_t take(struct batch *b)
{
	size_t i = b->n;

	if (b->again < b->n) {
		i = b->again;
		b->again = b->n;
	} else if (!b->stop && b->next < b->n && b->next < b->told + b->k)
		/* a window: no more begun than can be told of soon, so
		 * that a STOP leaves few behind it */
		i = b->next++;
	if (i < b->n)
		b->slots[i].state = RUNNING;
	return i;
}

struct lane {
	struct batch *b;
	pai_client *c;
	pthread_t th;
	int started;
};

/* A lane's thread: submissions, one after the other, until the batch
 * is over. */
static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct batch *b = l->b;
	size_t i;
	int err, rec;

	pthread_mutex_lock(&b->m);
	while (!b->over) {
		if ((i = take(b)) == b->n) {
			pthread_cond_wait(&b->cv, &b->m);
			continue;
		}
		pthread_mutex_unlock(&b->m);
		rec = 0;
		err = pai_submit_ex(l->c, b->user, b->configs[i],
				    b->opts ? b->opts[i] : NULL, &rec);
		pthread_mutex_lock(&b->m);
		b->slots[i].err = err;
		b->slots[i].recovered = rec;
		pai__client_save_error(l->c, &b->slots[i].detail);
		b->slots[i].state = DONE;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->m);
	return NULL;
}

/* Waits until submission i is done, or will not begin (stopped): 1
 * when it is done. */
static int wait_for(struct batch *b, size_t i)
{
	int done;

	pthread_mutex_lock(&b->m);
	while (b->slots[i].state != DONE &&
	       !(b->slots[i].state == WAITING && b->stop))
		pthread_cond_wait(&b->cv, &b->m);
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

/* The lanes of b, k of them, started: how many could be (0: none). */
static size_t start_lanes(struct batch *b, struct lane *lanes, size_t k)
{
	size_t i, up = 0;

	for (i = 0; i < k; i++) {
		lanes[i].b = b;
		if (pai__client_lane(&lanes[i].c, b->c))
			break;
		if (pthread_create(&lanes[i].th, NULL, lane_main, &lanes[i])) {
			pai_client_free(lanes[i].c);
			lanes[i].c = NULL;
			break;
		}
		lanes[i].started = 1;
		up++;
	}
	return up;
}

static void end_lanes(struct lane *lanes, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (lanes[i].started) {
			pthread_join(lanes[i].th, NULL);
			pai_client_free(lanes[i].c);
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
	if (start_lanes(&b, lanes, k) == 0)
		err = one_by_one(&b, bo);
	else
		report(&b, bo);
	end_lanes(lanes, k);
	for (i = 0; i < n; i++)
		pai__error_release(&b.slots[i].detail);
	pthread_cond_destroy(&b.cv);
	pthread_mutex_destroy(&b.m);
	free(b.slots);
	return err;
}
