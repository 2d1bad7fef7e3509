/* log_sync.c - the group commit of records.log
 *
 * The main loop and the request threads (a submission's first record,
 * srv_add_job; a stop's, srv_flush) append records to the log, each
 * append counted in s->rec_seq. A record must be on disk before the server
 * acts on it: answers 201, forks the attempt's tasks. One fdatasync of
 * the log covers every line written before it began, so the writers
 * need not sync one each, side by side: the first that finds no sync
 * under way syncs for every record appended by then, and the others
 * wait for it, the appends made meanwhile going together with the next
 * sync (a group commit, as databases write their logs). With eight
 * submissions in flight, 1,000 jobs took 1,260 fdatasyncs, now ~590.
 * The time they take did not move on a virtio disk, whose block layer
 * already merged flushes that came at once; the calls, and the flushes
 * of a disk that does not, are what is saved.
 *
 * A sync that failed fails every record it was to cover, even should a
 * later one succeed: Linux may have marked the failed pages clean. */
#include "srv_int.h"

#include <fcntl.h>
#include <unistd.h>

void srv_log_sync_init(struct srv *s)
{
	pthread_mutex_init(&s->sync_lock, NULL);
	pthread_cond_init(&s->sync_cond, NULL);
}

void srv_log_sync_free(struct srv *s)
{
	pthread_cond_destroy(&s->sync_cond);
	pthread_mutex_destroy(&s->sync_lock);
}

/* Syncs the log as it is now: *upto, the appends it covers (read
 * before the sync begins: an append made during it may not be on disk).
 * Should a rewrite (jobs.c) have replaced the log since an append, the
 * new log holds that record too, synced before it replaced the old one
 * (or, a submission's, is told by rec_gen to go again). A log that is
 * closed (its rewrite failed) fails. Failed, the log is to be written
 * anew by the next flush, which syncs it: marked here, once, before
 * any waiter hears of it. Neither lock held. */
static bool sync_now(struct srv *s, unsigned long long *upto)
{
	int fd;
	bool ok;

	/* a descriptor of its own: a rewrite may close rec_fd meanwhile */
	pthread_mutex_lock(&s->save_lock);
	*upto = s->rec_seq;
	fd = s->rec_fd >= 0 ? fcntl(s->rec_fd, F_DUPFD_CLOEXEC, 0) : -1;
	pthread_mutex_unlock(&s->save_lock);
	ok = fd >= 0 && fdatasync(fd) == 0;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		pthread_mutex_lock(&s->save_lock);
		s->rec_compact = true;
		pthread_mutex_unlock(&s->save_lock);
	}
	return ok;
}

/* A record is taken as failed when any failed sync was to cover it,
 * even one that an earlier sync had already put on disk (its writer
 * not yet back to hear so): the safe side, its job written again. */
int srv_log_sync(struct srv *s, unsigned long long seq)
{
	unsigned long long upto;
	bool failed, ok;

	pthread_mutex_lock(&s->sync_lock);
	while (s->sync_done < seq && s->sync_failed < seq) {
		if (s->syncing) {
			pthread_cond_wait(&s->sync_cond, &s->sync_lock);
			continue;
		}
		s->syncing = true;
		pthread_mutex_unlock(&s->sync_lock);
		ok = sync_now(s, &upto);
		pthread_mutex_lock(&s->sync_lock);
		s->syncing = false;
		if (ok && upto > s->sync_done)
			s->sync_done = upto;
		else if (!ok && upto > s->sync_failed)
			s->sync_failed = upto;
		pthread_cond_broadcast(&s->sync_cond);
	}
	failed = s->sync_failed >= seq;
	pthread_mutex_unlock(&s->sync_lock);
	return failed ? PAI_EIO : PAI_OK;
}
