/* test_log_sync.c - the group commit of records.log (server/log_sync.c):
 * a record is on disk when srv_log_sync returns PAI_OK; writers that
 * come while a sync runs share the next one, never two syncs at once;
 * a failed sync fails every record it was to cover, even after a later
 * sync succeeded; a closed log fails. fdatasync is this file's own,
 * counting and slowed to a disk's pace, then the real one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../server/log_sync.c"

static atomic_int syncs, in_flight, most_in_flight;

int fdatasync(int fd)
{
	struct timespec disk = {0, 2 * 1000 * 1000}; /* a virtio disk's 2 ms */
	int now = atomic_fetch_add(&in_flight, 1) + 1, r;

	if (now > atomic_load(&most_in_flight))
		atomic_store(&most_in_flight, now);
	atomic_fetch_add(&syncs, 1);
	nanosleep(&disk, NULL);
	r = (int)syscall(SYS_fdatasync, fd);
	atomic_fetch_sub(&in_flight, 1);
	return r;
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
	free(s);
	return 0;
}

/* what rec_append does: a line written, numbered, under save_lock */
static unsigned long long append(struct srv *s, const char *line)
{
	unsigned long long seq;

	pthread_mutex_lock(&s->save_lock);
	assert_int_equal(write(s->rec_fd, line, strlen(line)),
			 (ssize_t)strlen(line));
	seq = ++s->rec_seq;
	pthread_mutex_unlock(&s->save_lock);
	return seq;
}

static void test_one_record(void **state)
{
	struct srv *s = *state;
	unsigned long long seq = append(s, "{\"a\":1}\n");

	assert_int_equal(srv_log_sync(s, seq), PAI_OK);
	assert_int_equal(atomic_load(&syncs), 1);
	assert_true(s->sync_done == seq);
	/* on disk already: no second sync */
	assert_int_equal(srv_log_sync(s, seq), PAI_OK);
	assert_int_equal(atomic_load(&syncs), 1);
	assert_false(s->rec_compact);
}

/* fdatasync of a pipe fails (EINVAL), as a disk's EIO would */
static void test_failed_sync(void **state)
{
	struct srv *s = *state;
	unsigned long long a, b;
	int fds[2], file = s->rec_fd;

	a = append(s, "{\"a\":1}\n");
	assert_int_equal(pipe(fds), 0);
	s->rec_fd = fds[1];
	assert_int_equal(srv_log_sync(s, a), PAI_EIO);
	assert_true(s->rec_compact);
	assert_true(s->sync_failed == a);
	s->rec_fd = file;
	s->rec_compact = false;
	b = append(s, "{\"b\":1}\n");
	assert_int_equal(srv_log_sync(s, b), PAI_OK);
	assert_true(s->sync_done == b);
	/* a's sync failed: a later sync that worked does not vouch for it */
	assert_int_equal(srv_log_sync(s, a), PAI_EIO);
	assert_int_equal(srv_log_sync(s, b), PAI_OK);
	close(fds[0]);
	close(fds[1]);
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

#define WRITERS 8
#define EACH 50

static void *writer(void *arg)
{
	struct srv *s = arg;
	long bad = 0;
	int i;

	for (i = 0; i < EACH; i++)
		bad += srv_log_sync(s, append(s, "{\"job\":\"x\"}\n")) != PAI_OK;
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
	    cmocka_unit_test_setup_teardown(test_writers_share_syncs, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
