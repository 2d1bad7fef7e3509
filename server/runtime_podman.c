/* runtime_podman.c - the podman runtime: each task in its job's image,
 * `podman run` (argv only, no shell) with the host's network, the
 * task's $PAI_* and jobEnvs, its command by bash (or sh) inside, its
 * working directory, its CPU and memory as limits where the cgroups
 * allow them. Stopping asks podman to signal the container (SIGTERM,
 * then SIGKILL); a task that did not end by itself has its container
 * removed. What this machine needs is found once, at the start: the
 * OCI runtime that works with its cgroups, the limits it lets podman
 * set, an init that passes SIGTERM on. */
#include "runtime_podman.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

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

/* crun refuses cgroups in hybrid mode (v1 controllers beside a v2
 * `unified` tree); runc runs there. */
static bool cgroups_hybrid(void)
{
	struct statfs a, b;

	return statfs("/sys/fs/cgroup", &a) == 0 &&
	       (uint64_t)a.f_type == TMPFS_MAGIC &&
	       statfs("/sys/fs/cgroup/unified", &b) == 0 &&
	       (uint64_t)b.f_type == CGROUP2_SUPER_MAGIC;
}

/* Whether podman can limit CPU and memory: as root, with the cgroup
 * controllers mounted (v1) or enabled at the root (v2); rootless
 * podman needs delegation this probe does not check, so no limits. */
static void probe_cgroups(struct podman *p)
{
	struct statfs f;
	char buf[512] = "";
	FILE *c;

	if (geteuid() != 0 || statfs("/sys/fs/cgroup", &f) < 0)
		return;
	if ((uint64_t)f.f_type != CGROUP2_SUPER_MAGIC) {
		p->cpus = access("/sys/fs/cgroup/cpu", F_OK) == 0;
		p->memory = access("/sys/fs/cgroup/memory", F_OK) == 0;
		return;
	}
	if ((c = fopen("/sys/fs/cgroup/cgroup.controllers", "re"))) {
		if (!fgets(buf, sizeof(buf), c))
			buf[0] = '\0';
		fclose(c);
	}
	p->cpus = strstr(buf, "cpu ") || strstr(buf, "cpu\n");
	p->memory = strstr(buf, "memory") != NULL;
}

/* Whether a CDI spec (the NVIDIA Container Toolkit's, say) in dir
 * declares the kind nvidia.com/gpu. */
static bool cdi_dir_has_gpus(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool yes = false;

	while (d && !yes && (e = readdir(d))) {
		char *path = e->d_name[0] == '.' ? NULL
			     : srv_printf("%s/%s", dir, e->d_name);
		char *text = NULL;
		size_t len;

		/* a spec is a few kB: a bigger file is not one */
		if (path && pai_file_read_max(&text, &len, NULL, path,
					      1 << 20) == PAI_OK)
			yes = strstr(text, "nvidia.com/gpu") != NULL;
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	return yes;
}

static long long pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long long v = 0;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* podman asks for 1048576 open files and processes, which a machine
 * that does not give the server CAP_SYS_RESOURCE refuses: the task gets
 * the server's own limits, processes no more than the kernel has pids
 * (podman's own limit). Unlimited: podman's default does. */
static void probe_ulimits(struct podman *p)
{
	static const struct {
		int res;
		const char *name;
	} lim[2] = {{RLIMIT_NOFILE, "nofile"}, {RLIMIT_NPROC, "nproc"}};
	long long pm = pid_max();
	int i;

	for (i = 0; i < 2; i++) {
		struct rlimit r;
		unsigned long long cur, max;

		p->ulimit[i][0] = '\0';
		if (getrlimit(lim[i].res, &r) < 0 || r.rlim_max == RLIM_INFINITY)
			continue;
		cur = r.rlim_cur, max = r.rlim_max;
		if (lim[i].res == RLIMIT_NPROC && pm > 0) {
			if (max > (unsigned long long)pm)
				max = (unsigned long long)pm;
			if (cur > max)
				cur = max;
		}
		snprintf(p->ulimit[i], sizeof(p->ulimit[i]), "%s=%llu:%llu",
			 lim[i].name, cur, max);
	}
}

static void state_id(struct podman *p, const char *state_dir)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *c;

	for (c = (const unsigned char *)state_dir; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	snprintf(p->id, sizeof(p->id), "%08llx",
		 (unsigned long long)(h >> 32));
}

/* What podman reads of the server's environment, besides the few
 * variables every task has (PATH, HOME...): a NULL-terminated copy. */
static char **own_env(void)
{
	static const char *const names[] = {
	    "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	    "DBUS_SESSION_BUS_ADDRESS", "CONTAINERS_CONF",
	    "CONTAINERS_REGISTRIES_CONF", "CONTAINERS_STORAGE_CONF",
	    "REGISTRY_AUTH_FILE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	    "http_proxy", "https_proxy", "no_proxy"};
	const char *v[sizeof(names) / sizeof(names[0])];
	char **out;
	size_t i, n = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (getenv(names[i]) &&
		    !(v[n++] = srv_printf("%s=%s", names[i], getenv(names[i])))) {
			n--;
			break;
		}
	out = i == sizeof(names) / sizeof(names[0]) ? rt_strv(v, n) : NULL;
	while (n > 0)
		free((char *)v[--n]);
	return out;
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

static void podman_free(struct podman *p)
{
	if (!p)
		return;
	free(p->exe);
	free(p->oci);
	free(p->init);
	rt_strv_free(p->env);
	free(p);
}

/* podman found and answering, and what this machine lets it do. */
static int podman_open(struct srv *s, char *why, size_t whylen)
{
	struct podman *p = calloc(1, sizeof(*p));
	char out[64], *argv[4];

	if (!p || !(p->exe = rt_find_in_path("podman"))) {
		snprintf(why, whylen, "%s",
			 p ? "install podman to run them in it" : "out of memory");
		podman_free(p);
		return -1;
	}
	argv[0] = p->exe;
	argv[1] = "version";
	argv[2] = "--format={{.Client.Version}}";
	argv[3] = NULL;
	if (rt_run(s, argv, out, sizeof(out), 15000) != 0) {
		snprintf(why, whylen,
			 "'%s version' fails: podman would run them in it",
			 p->exe);
		podman_free(p);
		return -1;
	}
	out[strcspn(out, "\n")] = '\0';
	if (cgroups_hybrid() && !(p->oci = rt_find_in_path("runc"))) {
		snprintf(why, whylen,
			 "install runc for podman to run them in it: crun "
			 "cannot run in this machine's hybrid cgroups");
		podman_free(p);
		return -1;
	}
	p->init = access("/usr/libexec/podman/catatonit", X_OK) == 0
		      ? strdup("/usr/libexec/podman/catatonit")
		      : rt_find_in_path("catatonit");
	probe_cgroups(p);
	probe_ulimits(p);
	p->cdi_gpus = cdi_dir_has_gpus("/etc/cdi") ||
		      cdi_dir_has_gpus("/var/run/cdi");
	p->short_names = podman_searches_short_names();
	if (!(p->env = own_env())) {
		snprintf(why, whylen, "out of memory");
		podman_free(p);
		return -1;
	}
	state_id(p, s->state_dir);
	s->rt_data = p;
	srv_log(s,
		"tasks run in their image with podman %s; what this machine "
		"needs: %s%s%s%s%s%s%s; SIGTERM through --init: %s; CPU and "
		"memory limits: %s",
		out, p->oci ? "--runtime " : "", p->oci ? p->oci : "",
		p->ulimit[0][0] ? " --ulimit " : "", p->ulimit[0],
		p->ulimit[1][0] ? " --ulimit " : "", p->ulimit[1],
		p->oci || p->ulimit[0][0] || p->ulimit[1][0] ? "" : "nothing",
		p->init ? p->init : "no (install catatonit)",
		p->cpus && p->memory ? "yes"
		: p->cpus	     ? "CPU only"
		: p->memory	     ? "memory only"
				     : "no");
	return 0;
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
