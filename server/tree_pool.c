/* tree_pool.c - the cgroups the server gives its tasks, kept for the
 * next ones. Making a cgroup and removing it (kernfs files, a css_set
 * made and freed) cost more than the task `true` itself: a monitor
 * that ended well leaves its cgroup empty, and the server, once it has
 * reaped it, gives the cgroup to the next task. One that is not empty
 * (its monitor was killed) is emptied and removed, as before.
 *
 * Each is "<tree_base>/paictl-task-<server pid>-<server start>-<k>":
 * the start-up sweep (tree.c) removes the empty ones of a server that is
 * gone; a monitor names its cgroup in its status, so that a server that
 * adopts it after a restart removes the cgroup when it ends. Main
 * thread only, as the monitors' start and end are. */
#include "run_int.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* The most empty cgroups kept: more tasks than this at once make and
 * remove the cgroups of the rest. */
#define POOL_MAX 256u

int srv_pool_init(struct srv *s)
{
	s->pool_free = NULL;
	s->pool_nfree = 0;
	s->pool_next = 0;
	s->pool_prefix = NULL;
	if (!s->tree_base)
		return 0;
	s->pool_free = malloc(POOL_MAX * sizeof(*s->pool_free));
	s->pool_prefix = srv_printf("%s/paictl-task-%ld-%llu-", s->tree_base,
				    (long)getpid(),
				    run_proc_start(getpid(), NULL));
	if (!s->pool_free || !s->pool_prefix) {
		srv_pool_free(s);
		return -1;
	}
	return 0;
}

static char *slot_dir(const struct srv *s, unsigned k)
{
	return srv_printf("%s%u", s->pool_prefix, k);
}

unsigned srv_pool_take(struct srv *s, char **dir)
{
	unsigned k;
	bool made;

	*dir = NULL;
	if (!s->pool_prefix)
		return 0;
	made = s->pool_nfree == 0;
	k = made ? s->pool_next++ : s->pool_free[--s->pool_nfree];
	if (!(*dir = slot_dir(s, k)))
		goto none;
	if (!made)
		return k + 1;
	/* as the monitor makes its own: the cgroup must take the task */
	if (srv_tree_make(*dir))
		return k + 1;
none:
	free(*dir);
	*dir = NULL;
	return 0;
}

void srv_pool_give_back(struct srv *s, unsigned slot)
{
	char *dir;

	if (!slot || !s->pool_prefix || !(dir = slot_dir(s, slot - 1)))
		return;
	if (s->pool_nfree < POOL_MAX && !srv_tree_populated(dir))
		s->pool_free[s->pool_nfree++] = slot - 1;
	else
		srv_tree_remove(dir);
	free(dir);
}

void srv_pool_free(struct srv *s)
{
	char *dir;

	while (s->pool_prefix && s->pool_nfree > 0)
		if ((dir = slot_dir(s, s->pool_free[--s->pool_nfree]))) {
			rmdir(dir);
			free(dir);
		}
	free(s->pool_free);
	free(s->pool_prefix);
	s->pool_free = NULL;
	s->pool_prefix = NULL;
	s->pool_nfree = 0;
}
