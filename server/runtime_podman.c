/* runtime_podman.c - the podman runtime: each task in its job's image,
 * `podman run` (argv only, no shell) with the host's network, the
 * task's $PAI_* and jobEnvs, its command by bash (or sh) inside, its
 * working directory, its CPU and memory as limits where the cgroups
 * allow them. Stopping asks podman to signal the container (SIGTERM,
 * then SIGKILL); a task that did not end by itself has its container
 * removed. What this machine needs is found once, at the start
 * (podman_probe.c). */
#include "runtime_podman.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **podman_argv(const struct podman *p, const char *const *v, size_t n)
{
	const char **all = calloc(n + 3, sizeof(*all));
	char **out;
	size_t k = 0, i;

	if (!all)
		return NULL;
	all[k++] = p->exe;
	if (p->oci) {
		all[k++] = "--runtime";
		all[k++] = p->oci;
	}
	for (i = 0; i < n; i++)
		all[k++] = v[i];
	out = rt_strv(all, k);
	free(all);
	return out;
}

char *podman_cidfile(const struct srv_job *j, const struct srv_task *t)
{
	char *dir = srv_task_dir(j, t),
	     *path = dir ? srv_printf("%s/container.id", dir) : NULL;

	free(dir);
	return path;
}

char *podman_name(const struct srv *s, const struct srv_job *j,
		  const struct srv_task *t)
{
	char *n = srv_printf("paictl-%s-%s-%d-%s-%zu", podman_of(s)->id,
			     j->key, j->attempt, j->roles[t->role].name,
			     t->index);
	char *c;

	/* podman's names: [a-zA-Z0-9][a-zA-Z0-9_.-]* */
	for (c = n; c && *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
		      *c == '-'))
			*c = '_';
	return n;
}
/* env, then what of podman's own environment env does not set. */
static char **podman_envp(const struct podman *p, char *const *env)
{
	const char **v;
	char **out;
	size_t n = 0, i, k;

	for (i = 0; env[i]; i++)
		;
	for (k = 0; p->env[k]; k++)
		;
	if (!(v = calloc(i + k + 1, sizeof(*v))))
		return NULL;
	for (i = 0; env[i]; i++)
		v[n++] = env[i];
	for (k = 0; p->env[k]; k++) {
		size_t len = strcspn(p->env[k], "=") + 1;

		for (i = 0; env[i] && strncmp(env[i], p->env[k], len) != 0; i++)
			;
		if (!env[i])
			v[n++] = p->env[k];
	}
	out = rt_strv(v, n);
	free(v);
	return out;
}

/* podman found and answering, and what this machine lets it do
 * (podman_probe.c). */
static int podman_open(struct srv *s, char *why, size_t whylen)
{
	struct podman *p = podman_probe(s, why, whylen);

	s->rt_data = p;
	return p ? 0 : -1;
}

static void podman_close(struct srv *s)
{
	podman_free(podman_of(s));
	s->rt_data = NULL;
}

/* A growable argv, for `podman run`'s many options. */
struct args {
	const char **v;
	size_t n, cap;
	char *own[80]; /* strings made here, freed with the vector */
	size_t nown;
	bool oom;
};

static void arg(struct args *a, const char *s)
{
	if (a->n + 1 >= a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		const char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	if (!s)
		a->oom = true;
	else
		a->v[a->n++] = s;
}

/* An argument made with srv_printf, kept until args_free. */
static void arg_own(struct args *a, char *s)
{
	if (!s || a->nown == sizeof(a->own) / sizeof(a->own[0])) {
		free(s);
		a->oom = true;
		return;
	}
	a->own[a->nown++] = s;
	arg(a, s);
}

static void args_free(struct args *a)
{
	while (a->nown > 0)
		free(a->own[--a->nown]);
	free(a->v);
}

/* The script the container's sh runs: the task's command ($1) by bash
 * where the image has it, as OpenPAI's runtime does, else by sh. */
static const char wrap[] =
    "if command -v bash >/dev/null 2>&1; then exec bash -c \"$1\"; fi; "
    "exec sh -c \"$1\"";

/* The task's GPUs through CDI: those it holds under --capacity, else
 * all of them when its role asks for any. */
static void gpu_options(struct args *a, const struct srv *s,
			const struct srv_role *r, const struct srv_task *t)
{
	int g;

	if (!podman_of(s)->cdi_gpus || r->gpu <= 0)
		return;
	if (!s->capped) {
		arg(a, "--device");
		arg(a, "nvidia.com/gpu=all");
		return;
	}
	for (g = 0; g < 64; g++)
		if (t->gpus & (1ULL << g)) {
			arg(a, "--device");
			arg_own(a, srv_printf("nvidia.com/gpu=%d", g));
		}
}

/* `podman run`'s options for the machine and the task's resources. */
static void run_options(struct args *a, const struct podman *p,
			const struct srv_role *r)
{
	int i;

	if (p->init) {
		arg(a, "--init");
		arg(a, "--init-path");
		arg(a, p->init);
	}
	for (i = 0; i < 2; i++)
		if (p->ulimit[i][0]) {
			arg(a, "--ulimit");
			arg(a, p->ulimit[i]);
		}
	if (p->cpus && r->cpu > 0) {
		arg(a, "--cpus");
		arg_own(a, srv_printf("%lld", r->cpu));
	}
	if (p->memory && r->memory_mb > 0) {
		arg(a, "--memory");
		arg_own(a, srv_printf("%lldm", r->memory_mb));
	}
}

/* What tells the monitor that the container is made (--cidfile), its
 * pull's progress file, and the pull's time: NULL, or why not. */
static const char *start_watch(const struct srv *s, const struct srv_job *j,
			       const struct srv_task *t, struct rt_task *rt)
{
	int pull_s = s->opt.pull_timeout_s > 0 ? s->opt.pull_timeout_s : 1800;
	char *dir = srv_task_dir(j, t);

	rt->started = podman_cidfile(j, t);
	rt->prep = dir ? srv_printf("%s/preparing", dir) : NULL;
	rt->start_ms = (long)pull_s * 1000;
	rt->start_why = srv_printf("Error: the task's image was not there "
				   "after %d s of podman's pull (paictl serve "
				   "--pull-timeout)\n",
				   pull_s);
	free(dir);
	return rt->started && rt->prep && rt->start_why ? NULL
							: "out of memory";
}

/* `podman run` of the task in image, as container name. */
static void run_args(struct args *a, const struct srv *s,
		     const struct rt_task_in *in, const char *name,
		     const char *image, const struct rt_task *rt)
{
	const struct podman *p = podman_of(s);
	const struct srv_role *r = &in->j->roles[in->t->role];
	size_t i;

	arg(a, "run");
	arg(a, "--rm");
	arg(a, "--name");
	arg(a, name);
	arg(a, "--label");
	arg_own(a, srv_printf("%s=%s", PODMAN_LABEL, p->id));
	arg(a, "--network=host");
	arg(a, "--pull=missing");
	/* conmon stays in the task's cgroup, which paictl watches, and
	 * not moved into podman's own in every cgroup v1 hierarchy (a
	 * migration each, tens of ms on a start); the task's output goes
	 * straight to the monitor's pipes, not also through conmon into a
	 * log file of the container's that would hold all of it again */
	arg(a, "--cgroups=no-conmon");
	if (p->passthrough)
		arg(a, "--log-driver=passthrough");
	/* written once the container is made: its image is here */
	arg(a, "--cidfile");
	arg(a, rt->started);
	if (rt->keep_fd >= 0) {
		arg(a, "--authfile");
		arg_own(a, srv_printf("/proc/self/fd/%d", rt->keep_fd));
	}
	run_options(a, p, r);
	gpu_options(a, s, r, in->t);
	/* the working directory, where $PAI_WORK_DIR says, the host's */
	arg(a, "--volume");
	arg_own(a, srv_printf("%s:%s", in->work, in->work));
	arg(a, "--workdir");
	arg(a, in->work);
	/* names only: podman takes each value from its own environment
	 * (the monitor's envp), so no value shows in a process list */
	for (i = 0; i < pai_env_count(in->env); i++) {
		arg(a, "--env");
		arg(a, pai_env_name(in->env, i));
	}
	if (s->capped) {
		arg(a, "--env");
		arg(a, "CUDA_VISIBLE_DEVICES");
	}
	arg(a, "--entrypoint=/bin/sh");
	arg(a, image);
	arg(a, "-c");
	arg(a, wrap);
	arg(a, "sh");
	arg(a, in->cmd);
}

/* How the monitor stops container name (SIGTERM, SIGKILL) and removes
 * it after a task that did not exit by itself: false on no memory. */
static bool stop_args(const struct podman *p, const char *name,
		      struct rt_task *rt)
{
	const char *term[] = {"kill", "--signal", "TERM", name};
	const char *kill[] = {"kill", "--signal", "KILL", name};
	const char *end[] = {"rm", "--force", "--time", "0", "--ignore", name};

	rt->stop[0] = podman_argv(p, term, 4);
	rt->stop[1] = podman_argv(p, kill, 4);
	rt->end = podman_argv(p, end, 6);
	return rt->stop[0] && rt->stop[1] && rt->end;
}

static const char *podman_task(struct srv *s, const struct rt_task_in *in,
			       struct rt_task *rt)
{
	const struct podman *p = podman_of(s);
	char *name = podman_name(s, in->j, in->t),
	     *image = podman_image(p, in->j->pj, in->t->role);
	struct args a = {0};
	const char *why = start_watch(s, in->j, in->t, rt);

	if (!why && (!image || !name))
		why = image ? "out of memory" : "the job names no image";
	if (!why && (rt->keep_fd = podman_auth_fd(in->j->pj, in->t->role)) == -2) {
		rt->keep_fd = -1;
		why = "cannot pass the image's registry credentials to podman";
	}
	if (!why) {
		run_args(&a, s, in, name, image, rt);
		rt->prog = p->exe;
		rt->argv = a.oom ? NULL : podman_argv(p, a.v, a.n);
		rt->envp = podman_envp(p, in->envp);
		if (!rt->argv || !rt->envp || !stop_args(p, name, rt))
			why = "out of memory";
	}
	args_free(&a);
	free(name);
	free(image);
	return why;
}

/* The login lands in the task's container: `podman exec` into it, in
 * its working directory, with a terminal when the client asked for
 * one. The container and podman come as variables of the session, so
 * that the command holds no value, only references. */
static char *podman_ssh_options(struct srv *s, const struct srv_job *j,
				const struct srv_task *t)
{
	static const char cmd[] =
	    "exec \"$PAICTL_PODMAN\" exec -i ${SSH_TTY:+-t} "
	    "-w \"$PAI_WORK_DIR\" \"$PAICTL_CONTAINER\" /bin/sh -c "
	    "'if [ -n \"$1\" ]; then "
	    "if command -v bash >/dev/null 2>&1; then exec bash -c \"$1\"; "
	    "fi; exec sh -c \"$1\"; fi; "
	    "if command -v bash >/dev/null 2>&1; then exec bash -l; fi; "
	    "exec sh -l' sh \"$SSH_ORIGINAL_COMMAND\"";
	const struct podman *p = podman_of(s);
	char *name = podman_name(s, j, t), *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || !name) {
		if (f)
			fclose(f);
		free(buf);
		free(name);
		return NULL;
	}
	fputs("environment=\"PAICTL_PODMAN=", f);
	srv_ssh_put_quoted(f, p->exe);
	fputs("\",environment=\"PAICTL_CONTAINER=", f);
	srv_ssh_put_quoted(f, name);
	fputs("\",command=\"", f);
	srv_ssh_put_quoted(f, cmd);
	fputs("\" ", f);
	free(name);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

const struct srv_runtime rt_podman = {
    .name = "podman",
    .open = podman_open,
    .close = podman_close,
    .task = podman_task,
    .ended = podman_ended,
    .sweep = podman_sweep,
    .ssh_options = podman_ssh_options,
    .not_in_image = NULL,
};
