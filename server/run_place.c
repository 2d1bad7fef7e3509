/* run_place.c - where the tasks of a job's attempt are, as
 * pai_expand_task asks: their address (127.0.0.1), container ids,
 * working directories and ports, for the environment of each task */
#include "run_int.h"

#include <stdlib.h>
#include <string.h>

static struct srv_task *task_at(struct srv_job *j, size_t role, size_t index)
{
	size_t r, off = 0;

	if (role >= j->nroles || index >= (size_t)j->roles[role].task_number)
		return NULL;
	for (r = 0; r < role; r++)
		off += (size_t)j->roles[r].task_number;
	return &j->tasks[off + index];
}

static const char *pl_ip(void *d, size_t role, size_t index)
{
	(void)d;
	(void)role;
	(void)index;
	return "127.0.0.1";
}

static const char *pl_id(void *d, size_t role, size_t index)
{
	struct run_place *p = d;
	struct srv_task *t = task_at(p->j, role, index);

	return t ? p->ids[t - p->j->tasks] : NULL;
}

static const char *pl_work(void *d, size_t role, size_t index)
{
	struct run_place *p = d;
	struct srv_task *t = task_at(p->j, role, index);

	return t ? p->work[t - p->j->tasks] : NULL;
}

static unsigned pl_port(void *d, size_t role, size_t index, size_t k, size_t n)
{
	struct run_place *p = d;
	struct srv_task *t = task_at(p->j, role, index);
	const struct srv_role *r;
	size_t i, off = 0;

	if (!t)
		return 0;
	r = &p->j->roles[role];
	if (k >= r->nlabels || n >= r->counts[k])
		return 0;
	for (i = 0; i < k; i++)
		off += r->counts[i];
	return t->ports[off + n];
}

void run_place_free(struct run_place *pl)
{
	size_t i;

	for (i = 0; pl->ids && i < pl->j->ntasks; i++)
		free(pl->ids[i]);
	for (i = 0; pl->work && i < pl->j->ntasks; i++)
		free(pl->work[i]);
	free(pl->ids);
	free(pl->work);
	free(pl->fs);
	pl->ids = pl->work = NULL;
	pl->fs = NULL;
}

/* Where the tasks of j's current attempt are, for pai_expand_task:
 * their ids and directories (ports are the tasks' own). */
int run_place_init(struct run_place *pl, struct srv *s, struct srv_job *j,
		   pai_placement *pm, pai_expand_options *eo)
{
	size_t i;

	memset(pl, 0, sizeof(*pl));
	pl->s = s;
	pl->j = j;
	pl->ids = calloc(j->ntasks + 1, sizeof(*pl->ids));
	pl->work = calloc(j->ntasks + 1, sizeof(*pl->work));
	pl->fs = srv_printf("file://%s/fs", s->state_dir);
	if (!pl->ids || !pl->work || !pl->fs)
		return -1;
	for (i = 0; i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];
		char *d = srv_task_dir(j, t);

		pl->ids[i] = srv_container_id(j, t);
		pl->work[i] = d ? srv_printf("%s/work", d) : NULL;
		free(d);
		if (!pl->ids[i] || !pl->work[i])
			return -1;
	}
	pm->data = pl;
	pm->ip = pl_ip;
	pm->container_id = pl_id;
	pm->work_dir = pl_work;
	pm->port = pl_port;
	*eo = (pai_expand_options)PAI_EXPAND_OPTIONS_INIT;
	eo->user = j->user;
	eo->fs_uri = pl->fs;
	eo->placement = pm;
	return 0;
}
