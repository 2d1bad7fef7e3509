/* test_log_sync.c - the group commit of records.log (server/log_sync.c):
 * a record is on disk when srv_log_sync returns PAI_OK (a sync that
 * began after it was written succeeded); writers that come while a sync
 * runs share the next one, never two syncs at once; a failed sync fails
 * every record it was to cover, and only those, even after a later sync
 * succeeded; a closed log fails. fdatasync is this file's own: it
 * counts, notes what was appended when it began, can fail or be held,
 * and takes a disk's 2 ms before the real one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../server/log_sync.c"

static struct srv *the_srv;
static atomic_int syncs, in_flight, most_in_flight;
/* the appends that a sync which succeeded had seen begin before it */
static unsigned long long on_disk;
static pthread_mutex_t on_disk_lock = PTHREAD_MUTEX_INITIALIZER;
/* failing: 0 never, 1 always, 2 the next one; held: the next sync
 * waits for release after posting entered */
static atomic_int failing, held;
static sem_t entered, release;

static unsigned long long appended_now(void)
{
	unsigned long long n;

	pthread_mutex_lock(&the_srv->save_lock);
	n = the_srv->rec_seq;
	pthread_mutex_unlock(&the_srv->save_lock);
	return n;
}

int fdatasync(int fd)
{
	struct timespec disk = {0, 2 * 1000 * 1000}; /* a virtio disk's 2 ms */
	int now = atomic_fetch_add(&in_flight, 1) + 1, r;
	unsigned long long seen = appended_now();

	if (now > atomic_load(&most_in_flight))
		atomic_store(&most_in_flight, now);
	atomic_fetch_add(&syncs, 1);
	if (atomic_exchange(&held, 0)) {
		sem_post(&entered);
		sem_wait(&release);
	}
	nanosleep(&disk, NULL);
	r = (int)syscall(SYS_fdatasync, fd);
	if (atomic_load(&failing) == 1 ||
	    (atomic_load(&failing) == 2 && atomic_exchange(&failing, 0))) {
		errno = EIO;
		r = -1;
	}
	if (r == 0) {
		pthread_mutex_lock(&on_disk_lock);
		if (seen > on_disk)
			on_disk = seen;
		pthread_mutex_unlock(&on_disk_lock);
	}
	atomic_fetch_sub(&in_flight, 1);
	return r;
}

static bool is_on_disk(unsigned long long seq)
{
	bool yes;

	pthread_mutex_lock(&on_disk_lock);
	yes = seq <= on_disk;
	pthread_mutex_unlock(&on_disk_lock);
	return yes;
}

static char path[] = "/tmp/paictl-log-sync-XXXXXX";

static int setup(void **state)
{
	struct srv *s = calloc(1, sizeof(*s));
	int fd = mkstemp(path);

	assert_non_null(s);
	assert_true(fd >= 0);
	s->rec_fd = fd;
	pthread_mutex_init(&s->save_lock, NULL);
	srv_log_sync_init(s);
	atomic_store(&syncs, 0);
	atomic_store(&most_in_flight, 0);
	atomic_store(&failing, 0);
	atomic_store(&held, 0);
	on_disk = 0;
	sem_init(&entered, 0, 0);
	sem_init(&release, 0, 0);
	the_srv = s;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct srv *s = *state;

	if (s->rec_fd >= 0)
		close(s->rec_fd);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	srv_log_sync_free(s);
	pthread_mutex_destroy(&s->save_lock);
	sem_destroy(&entered);
	sem_destroy(&release);
	free(s);
	return 0;
}

/* what rec_append does: a line written, numbered, under save_lock; 0
 * when the write failed (no cmocka assert: threads call it) */
static unsigned long long append(struct srv *s, const char *line)
{
	unsigned long long seq = 0;

	pthread_mutex_lock(&s->save_lock);
	if (write(s->rec_fd, line, strlen(line)) == (ssize_t)strlen(line))
		seq = ++s->rec_seq;
	pthread_mutex_unlock(&s->save_lock);
	return seq;
}

static void test_one_record(void **state)
{
	struct srv *s = *state;
	unsigned long long seq = append(s, "{\"a\":1}\n");

	assert_true(seq == 1);
	assert_int_equal(srv_log_sync(s, seq), PAI_OK);
	assert_int_equal(atomic_load(&syncs), 1);
	assert_true(is_on_disk(seq));
	/* on disk already: no second sync */
	assert_int_equal(srv_log_sync(s, seq), PAI_OK);
	assert_int_equal(atomic_load(&syncs), 1);
	assert_false(s->rec_compact);
}

/* one failed sync covering a and b: both fail, the log is to be written
 * anew; c, appended after, is synced by a sync of its own, and a and b
 * still fail after it */
static void test_failed_sync(void **state)
{
	struct srv *s = *state;
	unsigned long long a, b, c;

	a = append(s, "{\"a\":1}\n");
	b = append(s, "{\"b\":1}\n");
	atomic_store(&failing, 2);
	assert_int_equal(srv_log_sync(s, a), PAI_EIO);
	assert_true(s->rec_compact);
	assert_int_equal(srv_log_sync(s, b), PAI_EIO);
	assert_int_equal(atomic_load(&syncs), 1);
	s->rec_compact = false;
	c = append(s, "{\"c\":1}\n");
	assert_int_equal(srv_log_sync(s, c), PAI_OK);
	assert_int_equal(atomic_load(&syncs), 2);
	assert_true(is_on_disk(c));
	assert_false(s->rec_compact);
	assert_int_equal(srv_log_sync(s, a), PAI_EIO);
	assert_int_equal(srv_log_sync(s, b), PAI_EIO);
	assert_int_equal(atomic_load(&syncs), 2);
}

/* being written anew (rec_fd closed): nothing to sync, so it fails */
static void test_closed_log(void **state)
{
	struct srv *s = *state;
	unsigned long long seq = append(s, "{\"a\":1}\n");

	close(s->rec_fd);
	s->rec_fd = -1;
	assert_int_equal(srv_log_sync(s, seq), PAI_EIO);
	assert_int_equal(atomic_load(&syncs), 0);
	assert_true(s->rec_compact);
}

struct waiter {
	struct srv *s;
	unsigned long long seq;
	int got;
};

static void *wait_main(void *arg)
{
	struct waiter *w = arg;

	w->got = srv_log_sync(w->s, w->seq);
	return NULL;
}

/* a sync that fails while another writer appends and waits: the
 * failure is the first writer's alone; the second's record goes with
 * the next sync, which succeeds */
static void test_failure_is_its_own(void **state)
{
	struct srv *s = *state;
	struct waiter a = {s, 0, -1}, b = {s, 0, -1};
	pthread_t ta, tb;

	a.seq = append(s, "{\"a\":1}\n");
	atomic_store(&held, 1);
	atomic_store(&failing, 2);
	assert_int_equal(pthread_create(&ta, NULL, wait_main, &a), 0);
	sem_wait(&entered); /* a's sync has begun, a alone in it */
	b.seq = append(s, "{\"b\":1}\n");
	assert_int_equal(pthread_create(&tb, NULL, wait_main, &b), 0);
	sem_post(&release);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
	assert_int_equal(a.got, PAI_EIO);
	assert_int_equal(b.got, PAI_OK);
	assert_true(is_on_disk(b.seq));
	assert_int_equal(atomic_load(&syncs), 2);
}

#define WRITERS 8
#define EACH 50

/* each writer's count of records said to be on disk that no successful
 * sync begun after them covered, or not appended or not synced */
static void *writer(void *arg)
{
	struct srv *s = arg;
	unsigned long long seq;
	long bad = 0;
	int i;

	for (i = 0; i < EACH; i++) {
		seq = append(s, "{\"job\":\"x\"}\n");
		bad += !seq || srv_log_sync(s, seq) != PAI_OK ||
		       !is_on_disk(seq);
	}
	return (void *)bad;
}

/* eight writers at once, as eight submissions: each record on disk when
 * its call returns, one sync at a time, and most syncs shared */
static void test_writers_share_syncs(void **state)
{
	struct srv *s = *state;
	pthread_t th[WRITERS];
	void *bad;
	char line[64];
	FILE *f;
	int i, n = 0;

	for (i = 0; i < WRITERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, writer, s), 0);
	for (i = 0; i < WRITERS; i++) {
		assert_int_equal(pthread_join(th[i], &bad), 0);
		assert_null(bad);
	}
	assert_true(s->rec_seq == WRITERS * EACH);
	assert_true(s->sync_done == WRITERS * EACH);
	assert_int_equal(atomic_load(&most_in_flight), 1);
	/* one each would be 400; shared, at least two a sync */
	assert_true(atomic_load(&syncs) <= WRITERS * EACH / 2);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	assert_int_equal(n, WRITERS * EACH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_one_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failed_sync, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_closed_log, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failure_is_its_own, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_writers_share_syncs, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
