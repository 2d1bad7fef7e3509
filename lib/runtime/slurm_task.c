/* slurm_task.c - the environment of a job's tasks on Slurm: the job's own
 * runtime (pai_expand_task()) with a placement of its own. Slurm places
 * the tasks when the job starts, so a task's IP is a mark that the batch
 * script replaces by the address of its node; ports are chosen when the
 * job is submitted, a slot each for every port of every task, so that
 * no two tasks of the job take one port, wherever Slurm puts them; the
 * working directory is the task's directory in the job's. What Slurm
 * cannot give (an HDFS, OpenPAI v1.x's framework ids, GPU indices that
 * Slurm's own CUDA_VISIBLE_DEVICES says) is left out. */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pai_role role_of(const pai_job *job, size_t r)
{
	pai_role ro;

	memset(&ro, 0, sizeof(ro));
	pai_job_role(&ro, job, r);
	return ro;
}

size_t pai__slurm_task_count(const struct pai__slurm_tasks *t)
{
	pai_role last;

	if (!t->nroles)
		return 0;
	last = role_of(t->job, t->nroles - 1);
	return t->first[t->nroles - 1] +
	       (size_t)(last.task_number > 0 ? last.task_number : 0);
}

/* Slot of port n of label k in a task of role r: the slots of the
 * labels before it that have no fixed beginAt; -1 for a fixed one. */
static long long label_slot(const pai_job *job, size_t r, size_t k, size_t n)
{
	long long off = 0;
	pai_port p;
	size_t j;

	for (j = 0; j < k; j++)
		if (!pai_job_port(&p, job, r, j) && p.begin_at <= 0)
			off += p.port_number;
	if (pai_job_port(&p, job, r, k) || p.begin_at > 0)
		return -1;
	return off + (long long)n;
}

static unsigned pl_port(void *data, size_t r, size_t i, size_t k, size_t n)
{
	struct pai__slurm_tasks *t = data;
	long long slot = label_slot(t->job, r, k, n);
	unsigned long long p;

	if (!t->port_base || slot < 0)
		return 0; /* a placeholder, or beginAt as the runtime says */
	p = t->port_base + t->ports0[r] + i * (unsigned long long)t->per_task[r] +
	    (unsigned long long)slot;
	return p < 65536 ? (unsigned)p : 0;
}

/* The mark of kind for task rank (rank unused for the job's id). */
static const char *put_mark(struct pai__slurm_tasks *t, char kind,
			    size_t rank)
{
	t->scratch.len = 0;
	if (kind == PAI__SLURM_MARK_JOB)
		pai__buf_printf(&t->scratch, "%s%c\x01", t->mark, kind);
	else
		pai__buf_printf(&t->scratch, "%s%c%zu\x01", t->mark, kind, rank);
	return t->scratch.oom ? NULL : t->scratch.data;
}

static const char *pl_ip(void *data, size_t r, size_t i)
{
	struct pai__slurm_tasks *t = data;

	return t->mark ? put_mark(t, PAI__SLURM_MARK_HOST, t->first[r] + i)
		       : NULL;
}

/* <Slurm job id>.<rank>: the task as `scontrol` and `sacct` know it */
static const char *pl_container(void *data, size_t r, size_t i)
{
	struct pai__slurm_tasks *t = data;

	if (!t->mark || !put_mark(t, PAI__SLURM_MARK_JOB, 0))
		return NULL;
	pai__buf_printf(&t->scratch, ".%zu", t->first[r] + i);
	return t->scratch.oom ? NULL : t->scratch.data;
}

static const char *pl_dir(void *data, size_t r, size_t i)
{
	struct pai__slurm_tasks *t = data;

	t->scratch.len = 0;
	pai__buf_printf(&t->scratch, "%s/%s-%zu",
			t->jobdir ? t->jobdir : "<job-dir>",
			role_of(t->job, r).name, i);
	return t->scratch.oom ? NULL : t->scratch.data;
}

size_t pai__slurm_mark(const struct pai__slurm_tasks *t, const char *s,
		       enum pai__slurm_mark *kind, size_t *rank)
{
	size_t m = t->mark ? strlen(t->mark) : 0, n;
	char *end;

	if (!m || strncmp(s, t->mark, m) != 0)
		return 0;
	*kind = (enum pai__slurm_mark)s[m];
	*rank = 0;
	if (s[m] == PAI__SLURM_MARK_JOB)
		return s[m + 1] == '\x01' ? m + 2 : 0;
	if (s[m] != PAI__SLURM_MARK_HOST || s[m + 1] < '0' || s[m + 1] > '9')
		return 0;
	*rank = (size_t)strtoull(s + m + 1, &end, 10);
	n = (size_t)(end - s);
	return *end == '\x01' ? n + 1 : 0;
}

int pai__slurm_tasks_init(struct pai__slurm_tasks *t, const pai_job *job)
{
	size_t r, k, rank = 0;
	unsigned long long slot = 0;

	memset(t, 0, sizeof(*t));
	t->job = job;
	t->nroles = pai_job_role_count(job);
	t->first = calloc(t->nroles + 1, sizeof(*t->first));
	t->ports0 = calloc(t->nroles + 1, sizeof(*t->ports0));
	t->per_task = calloc(t->nroles + 1, sizeof(*t->per_task));
	if (!t->first || !t->ports0 || !t->per_task)
		return PAI_ENOMEM;
	for (r = 0; r < t->nroles; r++) {
		pai_role ro = role_of(job, r);
		unsigned long long per = 0, n = ro.task_number > 0
						    ? (unsigned long long)
							  ro.task_number
						    : 0;
		pai_port p;

		for (k = 0; k < ro.port_count; k++)
			if (!pai_job_port(&p, job, r, k) && p.begin_at <= 0 &&
			    p.port_number > 0)
				per += (unsigned long long)p.port_number;
		if (per > 65535 || n > 65535)
			return PAI_ETOOBIG; /* no range holds them */
		t->first[r] = rank;
		t->ports0[r] = slot;
		t->per_task[r] = (unsigned)per;
		rank += (size_t)n;
		slot += per * n;
	}
	t->nports = slot;
	t->pl.data = t;
	t->pl.ip = pl_ip;
	t->pl.container_id = pl_container;
	t->pl.work_dir = pl_dir;
	t->pl.port = pl_port;
	return PAI_OK;
}

void pai__slurm_tasks_release(struct pai__slurm_tasks *t)
{
	free(t->first);
	free(t->ports0);
	free(t->per_task);
	pai__buf_release(&t->scratch);
	memset(t, 0, sizeof(*t));
}

/* What only OpenPAI has: the placeholders pai_expand_task() writes for
 * the HDFS URI and the v1.x framework's ids and GPU indices. */
static int unknown_here(const char *v)
{
	static const char *const marks[] = {
	    "<default-fs>",	 "<md5:",	    "<framework-",
	    "<configmap-uid>",	 "<task-role-uid:", "<task-uid:",
	    "<task-attempt-id:", "<gpus:",	    NULL};
	size_t m;

	for (m = 0; marks[m]; m++)
		if (strstr(v, marks[m]))
			return 1;
	return 0;
}

/* name=value into to, unless Slurm cannot give it (a jobEnv always:
 * pai__k8s_is_job_env() tells them, for any runtime). */
static int keep(pai_env *to, const pai_job *job, const char *n, const char *v)
{
	char *nn, *vv;

	if (!pai__k8s_is_job_env(job, n) && unknown_here(v))
		return PAI_OK;
	nn = strdup(n);
	vv = strdup(v);
	if (!nn || !vv) {
		free(nn);
		free(vv);
		return PAI_ENOMEM;
	}
	return pai__env_set(to, nn, vv, 0);
}

int pai__slurm_task_env(pai_env **out, struct pai__slurm_tasks *t, size_t r,
			size_t i, int current)
{
	pai_expand_options eo = PAI_EXPAND_OPTIONS_INIT;
	pai_env *all = NULL, *env = pai__env_new();
	size_t j, n;
	char *cmd;
	int err;

	*out = NULL;
	eo.user = t->user;
	eo.placement = &t->pl;
	if (!env)
		err = PAI_ENOMEM;
	else if (current)
		err = pai__expand_current(&all, t->job, r, i, &eo);
	else
		err = pai_expand_task(&all, t->job, r, i, &eo);
	n = pai_env_count(all);
	for (j = 0; !err && j < n; j++)
		err = keep(env, t->job, pai_env_name(all, j),
			   pai_env_value(all, j));
	if (!err) {
		cmd = strdup(pai_env_command(all) ? pai_env_command(all) : "");
		err = cmd ? pai__env_set_command(env, cmd) : PAI_ENOMEM;
	}
	pai_env_free(all);
	if (!err && t->scratch.oom)
		err = PAI_ENOMEM; /* a placement answer was lost */
	if (err) {
		pai_env_free(env);
		return err;
	}
	*out = env;
	return PAI_OK;
}

/* The first task's variables, less its own (pai__env_shared()). */
int pai__slurm_shared_env(json_t **shared, struct pai__slurm_tasks *t)
{
	pai_env *all = NULL, *own = NULL;
	int err = pai__slurm_task_env(&all, t, 0, 0, 0);

	*shared = NULL;
	if (!err)
		err = pai__slurm_task_env(&own, t, 0, 0, 1);
	if (!err)
		err = pai__env_shared(shared, t->job, all, own);
	pai_env_free(all);
	pai_env_free(own);
	return err;
}

int pai_slurm_expand_task(pai_env **out, const pai_job *job, size_t role,
			  size_t index, const char *user, const char *workdir)
{
	struct pai__slurm_tasks t;
	char *dir = NULL;
	int err;

	if (out)
		*out = NULL;
	if (!out || !job)
		return PAI_EINVAL;
	if ((err = pai__slurm_tasks_init(&t, job)))
		goto out;
	t.user = user;
	if (asprintf(&dir, "%s/%s/<submission>", workdir ? workdir : "<workdir>",
		     pai_job_name(job)) < 0) {
		dir = NULL;
		err = PAI_ENOMEM;
		goto out;
	}
	t.jobdir = dir;
	err = pai__slurm_task_env(out, &t, role, index, 0);
out:
	pai__slurm_tasks_release(&t);
	free(dir);
	return err;
}
