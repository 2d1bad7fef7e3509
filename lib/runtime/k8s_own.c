/* k8s_own.c - the variables a kind's controller sets in the pods itself
 * (a PyTorchJob's MASTER_ADDR and RANK, Volcano's VC_TASK_INDEX...), as
 * its row in k8s_kinds.c says them: their names, which a command may
 * use as if the job set them, and their values in each pod, which
 * pai_k8s_expand_task() shows beside the pod's own. */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

/* The task count of role r. */
static long long tasks_of(const pai_job *job, size_t r)
{
	pai_role ro;

	return pai_job_role(&ro, job, r) ? 0 : ro.task_number;
}

/* The role whose task is task, or -1. */
static long role_of_task(const struct pai__k8s *k, const char *task)
{
	size_t r;

	for (r = 0; r < k->nroles; r++)
		if (strcmp(k->roles[r].task, task) == 0)
			return (long)r;
	return -1;
}

/* A task name's character as a variable names the task: upper case,
 * '-' as '_' (Volcano's svc plugin). */
static char key_char(char c)
{
	if (c == '-')
		return '_';
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* Whether s[0..n) is task as a variable names it. */
static int task_key_is(const char *s, size_t n, const char *task)
{
	size_t j;

	if (strlen(task) != n)
		return 0;
	for (j = 0; j < n; j++)
		if (s[j] != key_char(task[j]))
			return 0;
	return 1;
}

/* The role of k that v's per-task name `name` is about, or -1. */
static long per_task_role(const struct pai__k8s *k,
			  const struct pai__k8s_own *v, const char *name)
{
	size_t n = strlen(name), a = strlen(v->name), b = strlen(v->after);
	size_t r;

	if (n <= a + b || strncmp(name, v->name, a) ||
	    strcmp(name + n - b, v->after))
		return -1;
	for (r = 0; r < k->nroles; r++)
		if (task_key_is(name + a, n - a - b, k->roles[r].task))
			return (long)r;
	return -1;
}

/* The role v is about: its `of`'s (-1: the job has none, v is not set),
 * or for a variable about no role, nroles. */
static long about(const struct pai__k8s *k, const struct pai__k8s_own *v)
{
	return v->of ? role_of_task(k, v->of) : (long)k->nroles;
}

const struct pai__k8s_own *pai__k8s_own_env(const struct pai__k8s *k,
					    const char *name)
{
	const struct pai__k8s_own *v;

	for (v = k->kind->own_env; v && v->name; v++) {
		if (v->per_task
			? per_task_role(k, v, name) >= 0
			: strcmp(name, v->name) == 0 && about(k, v) >= 0)
			return v;
	}
	return NULL;
}

/* v's name about role r (new), or NULL when out of memory. */
static char *own_name(const struct pai__k8s *k, const struct pai__k8s_own *v,
		      size_t r)
{
	pai__buf b = PAI__BUF_INIT;
	const char *t;

	pai__buf_puts(&b, v->name);
	for (t = v->per_task ? k->roles[r].task : ""; *t; t++)
		pai__buf_putc(&b, key_char(*t));
	if (v->per_task)
		pai__buf_puts(&b, v->after);
	return pai__buf_detach(&b);
}

/* The names of kind's row whatever the job's roles: those about no
 * role, and those about a task of the kind (the conversion refuses a
 * job whose roles are not its tasks, and says so). */
static int row_names(pai_env *names, const struct pai__k8s_kind *kind)
{
	const struct pai__k8s_own *v;

	for (v = kind->own_env; v && v->name; v++)
		if (!v->per_task &&
		    pai__env_add_once(names, v->name, strlen(v->name)) < 0)
			return PAI_ENOMEM;
	return PAI_OK;
}

/* The names k's controller sets in the job's pods. */
static int job_names(pai_env *names, const struct pai__k8s *k)
{
	const struct pai__k8s_own *v;
	size_t r;
	int err = PAI_OK;

	for (v = k->kind->own_env; !err && v && v->name; v++) {
		if (!v->per_task && about(k, v) < 0)
			continue;
		for (r = 0; !err && r < (v->per_task ? k->nroles : 1); r++) {
			char *n = own_name(k, v, r);

			if (!n || pai__env_add_once(names, n, strlen(n)) < 0)
				err = PAI_ENOMEM;
			free(n);
		}
	}
	return err;
}

int pai__k8s_own_names(pai_env **out, const pai_job *job, pai_k8s_kind kind)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	const struct pai__k8s_kind *row = pai__k8s_kind_of(kind);
	struct pai__k8s k;
	pai_env *names;
	int err;

	*out = NULL;
	if (!row || !row->own_env)
		return PAI_OK;
	if (!(names = pai__env_new()))
		return PAI_ENOMEM;
	o.kind = kind;
	err = pai__k8s_init(&k, job, &o);
	if (!err)
		err = job_names(names, &k);
	else if (err != PAI_ENOMEM)
		err = row_names(names, row); /* roles that are no tasks */
	pai__k8s_release(&k);
	if (err) {
		pai_env_free(names);
		return err;
	}
	*out = names;
	return PAI_OK;
}

/* The DNS name of pod i of role r onto b. */
static void host(pai__buf *b, struct pai__k8s *k, size_t r, size_t i)
{
	const char *h = pai__k8s_host(k, r, i);

	if (h)
		pai__buf_puts(b, h);
	else
		b->oom = 1;
}

/* What the controller gives v, about role a, in pod i of role r (new),
 * or NULL when out of memory. */
static char *own_value(struct pai__k8s *k, const struct pai__k8s_own *v,
		       size_t a, size_t r, size_t i)
{
	pai__buf b = PAI__BUF_INIT;
	long long pods = 0;
	pai_role ro;
	size_t q;

	switch (v->value) {
	case PAI__K8S_OWN_TEXT: pai__buf_puts(&b, v->text); break;
	case PAI__K8S_OWN_INDEX: pai__buf_printf(&b, "%zu", i); break;
	case PAI__K8S_OWN_RANK: pai__buf_printf(&b, "%zu", i + (r != a)); break;
	case PAI__K8S_OWN_PODS:
		for (q = 0; q < k->nroles; q++)
			pods += tasks_of(k->job, q);
		pai__buf_printf(&b, "%lld", pods);
		break;
	case PAI__K8S_OWN_HOST: host(&b, k, r, i); break;
	case PAI__K8S_OWN_FIRST: host(&b, k, a, 0); break;
	case PAI__K8S_OWN_HOSTS:
		for (q = 0; (long long)q < tasks_of(k->job, a); q++) {
			if (q)
				pai__buf_putc(&b, ',');
			host(&b, k, a, q);
			pai__buf_puts(&b, v->text ? v->text : "");
		}
		break;
	case PAI__K8S_OWN_COUNT:
		pai__buf_printf(&b, "%lld", tasks_of(k->job, a));
		break;
	case PAI__K8S_OWN_NPROC:
		if (pai_job_role(&ro, k->job, r))
			b.oom = 1;
		else if (ro.gpu_number > 0)
			pai__buf_puts(&b, "auto");
		else
			pai__buf_printf(&b, "%lld",
					ro.cpu_number > 1 ? ro.cpu_number : 1);
		break;
	case PAI__K8S_OWN_SLOTS:
		if (pai_job_role(&ro, k->job, a))
			b.oom = 1;
		else
			pai__buf_printf(&b, "%lld",
					ro.gpu_number > 0 ? ro.gpu_number : 1);
		break;
	case PAI__K8S_OWN_BY_TASK:
		for (q = 0; k->kind->tasks && k->kind->tasks[q]; q++)
			if (strcmp(k->kind->tasks[q], k->roles[r].task) == 0)
				pai__buf_puts(&b, v->by_task[q]);
		break;
	}
	return pai__buf_detach(&b);
}

/* v about role a, in pod i of role r: into env, marked as the
 * controller's, and into all; unless the job's own wins there. */
static int put(pai_env *env, pai_env *all, struct pai__k8s *k,
	       const struct pai__k8s_own *v, size_t a, size_t r, size_t i)
{
	char *n = own_name(k, v, a), *x = n ? own_value(k, v, a, r, i) : NULL;
	int err = n && x ? PAI_OK : PAI_ENOMEM;
	/* where the job's own wins, the controller leaves it */
	bool leave = !err && v->job_wins && pai__env_has(env, n, strlen(n));

	if (!err && !leave)
		err = pai__env_put(env, n, x, true);
	if (!err && !leave)
		err = pai__env_put(all, n, x, false);
	free(n);
	free(x);
	return err;
}

int pai__k8s_own_vars(pai_env *env, pai_env *all, struct pai__k8s *k, size_t r,
		      size_t i)
{
	const struct pai__k8s_own *v = k->kind->own_env, *w;
	size_t q;
	int err = PAI_OK;

	while (!err && v && v->name) {
		long a = about(k, v);

		if (!v->per_task) {
			if (a >= 0 &&
			    (!v->only || strcmp(v->only, k->roles[r].task) == 0))
				err = put(env, all, k, v, (size_t)a, r, i);
			v++;
			continue;
		}
		/* a run of per-task variables: task by task (Volcano's
		 * VC_<TASK>_HOSTS then VC_<TASK>_NUM for each) */
		for (q = 0; !err && q < k->nroles; q++)
			for (w = v; !err && w->name && w->per_task; w++)
				err = put(env, all, k, w, q, r, i);
		while (v->name && v->per_task)
			v++;
	}
	return err;
}
