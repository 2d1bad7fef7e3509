/* run_spawn.c - starting a task: its directories' paths, environment
 * and command, its sshd's files and ssh port made ready in the server,
 * then its monitor forked (run_monitor.c); and the sshd files of tasks
 * already running when their job's key pair comes later */
#include "run_int.h"
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The task's first `ssh` port, or 0. */
static unsigned ssh_port(const struct srv_job *j, const struct srv_task *t)
{
	unsigned port;

	srv_ssh_port(j, t, &port);
	return port;
}

static char **build_envp(struct srv *s, const pai_env *env,
			 const struct srv_task *t)
{
	size_t n = pai_env_count(env), i, k = 0;
	char **v = calloc(n + s->nbase_env + 2, sizeof(*v));

	if (!v)
		return NULL;
	if (s->capped) {
		/* the GPUs this task holds, and no others */
		char ids[256];
		size_t len = 0;
		int g;

		ids[0] = '\0';
		for (g = 0; g < 64; g++)
			if (t->gpus & (1ULL << g))
				len += (size_t)snprintf(
				    ids + len, sizeof(ids) - len, "%s%d",
				    len ? "," : "", g);
		if (!(v[k++] = srv_printf("CUDA_VISIBLE_DEVICES=%s", ids)))
			goto fail;
	}
	for (i = 0; i < s->nbase_env; i++)
		if (srv_env_inherits(env, s->base_env[i]) &&
		    !(v[k++] = strdup(s->base_env[i])))
			goto fail;
	for (i = 0; i < n; i++)
		if (!(v[k++] = srv_printf("%s=%s", pai_env_name(env, i),
					  pai_env_value(env, i))))
			goto fail;
	return v;
fail:
	for (i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* What run_spawn_task makes for one task's monitor (sp points into it). */
struct spawn_buf {
	struct run_spawn sp;
	struct rt_task rt; /* the task's program, from its runtime */
	pai_env *env;
	char *dir, *adir, *paths[4], *cmd;
	char *sshd_argv[6];
	char *sshd_cfg, *sshd_log;
	char *cg_dir; /* its cgroup, from the server's pool */
};

static void spawn_buf_init(struct spawn_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->sp.fd_ssh = -1;
	b->sp.fd_keep = -1;
	b->rt.keep_fd = -1;
	b->sshd_argv[1] = "-i";
	b->sshd_argv[2] = "-e";
	b->sshd_argv[3] = "-f";
}

static void spawn_buf_release(struct spawn_buf *b)
{
	int i;

	if (b->sp.fd_ssh >= 0)
		close(b->sp.fd_ssh);
	if (b->sp.envp != b->rt.envp)
		free_strv(b->sp.envp);
	rt_task_free(&b->rt);
	free(b->cmd);
	pai_env_free(b->env);
	for (i = 0; i < 4; i++)
		free(b->paths[i]);
	free(b->sshd_cfg);
	free(b->sshd_log);
	free(b->adir);
	free(b->dir);
	free(b->cg_dir);
}

/* What runs the task, from its runtime (runtime.h): NULL, or why the
 * task cannot start. */
static const char *runtime_task(struct srv *s, const struct srv_job *j,
				const struct srv_task *t, struct spawn_buf *b)
{
	struct rt_task_in in = {.j = j,
				.t = t,
				.cmd = b->cmd,
				.env = b->env,
				.envp = b->sp.envp,
				.work = b->sp.work};
	const char *why = s->rt->task(s, &in, &b->rt);

	b->sp.prog = b->rt.prog;
	if (b->rt.envp) {
		free_strv(b->sp.envp);
		b->sp.envp = b->rt.envp;
	}
	b->sp.argv = b->rt.argv;
	b->sp.stop[0] = b->rt.stop[0];
	b->sp.stop[1] = b->rt.stop[1];
	b->sp.end = b->rt.end;
	b->sp.fd_keep = b->rt.keep_fd;
	b->sp.started_path = b->rt.started;
	b->sp.start_why = b->rt.start_why;
	b->sp.start_ms = b->rt.start_ms;
	b->sp.prep_path = b->rt.prep;
	/* a string of the runtime's, not of in */
	/* cppcheck-suppress returnDanglingLifetime */
	return why;
}

/* The task's files, environment and command, in b; NULL, or why the
 * task cannot start. */
static const char *prepare_task(struct srv *s, struct srv_job *j,
				struct srv_task *t, struct run_place *pl,
				const pai_expand_options *eo,
				struct spawn_buf *b)
{
	const char *why;
	int i;

	b->dir = srv_task_dir(j, t);
	b->adir = srv_attempt_dir(j);
	if (!b->dir || !b->adir)
		return "out of memory";
	b->paths[0] = srv_printf("%s/user.pai.stdout", b->dir);
	b->paths[1] = srv_printf("%s/user.pai.stderr", b->dir);
	b->paths[2] = srv_printf("%s/user.pai.all", b->dir);
	b->paths[3] = srv_printf("%s/status", b->dir);
	for (i = 0; i < 4; i++)
		if (!b->paths[i])
			return "out of memory";
	/* a v2 job runs its entrypoint, templates and secrets rendered */
	if (pai_expand_task(&b->env, j->pj, t->role, t->index, eo) != PAI_OK ||
	    pai_job_role_entrypoint(&b->cmd, j->pj, t->role) != PAI_OK)
		return "cannot build the task's environment";
	b->sp.envp = build_envp(s, b->env, t);
	if (!b->sp.envp)
		return "out of memory";
	b->sp.work = pl->work[t - j->tasks];
	if ((why = runtime_task(s, j, t, b)))
		return why;
	b->sp.dirs[0] = b->adir;
	b->sp.dirs[1] = b->dir;
	b->sp.dirs[2] = b->sp.work;
	for (i = 0; i < 3; i++)
		b->sp.log_path[i] = b->paths[i];
	b->sp.status_path = b->paths[3];
	return NULL;
}

/* The task's sshd: the monitor holds the ssh port from the start; its
 * sshd files come with the job's key pair (srv_ssh_enable). */
static void prepare_sshd(struct srv *s, struct srv_job *j, struct srv_task *t,
			 struct spawn_buf *b)
{
	unsigned port = ssh_port(j, t);

	b->sshd_cfg = srv_printf("%s/sshd_config", b->dir);
	b->sshd_log = srv_printf("%s/sshd.log", b->dir);
	t->ssh_files =
	    j->ssh && port && srv_ssh_task_files(s, j, t, port, b->env) == 0;
	if (port && b->sshd_cfg && b->sshd_log && (!j->ssh || t->ssh_files) &&
	    (b->sp.fd_ssh = run_listen_on(port)) >= 0) {
		b->sshd_argv[0] = (char *)s->sshd;
		b->sshd_argv[4] = b->sshd_cfg;
		b->sp.sshd = s->sshd;
		b->sp.sshd_argv = b->sshd_argv;
		b->sp.sshd_log = b->sshd_log;
	} else if (port)
		srv_log(s,
			"'%s': %s-%zu: no sshd (cannot write its "
			"files or listen on its port)",
			j->key, j->roles[t->role].name, t->index);
}

/* Starts one task; on failure marks it FAILED with the reason. */
void run_spawn_task(struct srv *s, struct srv_job *j, struct srv_task *t,
		    struct run_place *pl, const pai_expand_options *eo)
{
	struct spawn_buf b;
	const char *why;
	pid_t mon;

	spawn_buf_init(&b);
	why = prepare_task(s, j, t, pl, eo, &b);
	if (!why) {
		if (s->sshd && !j->no_ssh)
			prepare_sshd(s, j, t, &b);
		b.sp.fd_null = s->null_fd;
		b.sp.tree_base = s->tree_base;
		t->cg_slot = srv_pool_take(s, &b.cg_dir);
		b.sp.tree_dir = b.cg_dir;
		b.sp.grace_ms = s->opt.grace_ms;
		b.sp.server = getpid();
		mon = run_forker_spawn(s, &b.sp);
		if (mon == RUN_FORKER_NONE && (mon = fork()) == 0)
			run_monitor_main(&b.sp);
		if (mon < 0) {
			why = "cannot fork";
			srv_pool_give_back(s, t->cg_slot);
			t->cg_slot = 0;
		} else {
			t->monitor = mon;
			t->mon_start = run_proc_start(mon, NULL);
			t->adopted = false;
			t->state = ST_RUNNING;
			t->started = srv_now_ms();
		}
	}
	if (why) {
		srv_log(s, "'%s': %s-%zu: %s", j->key, j->roles[t->role].name,
			t->index, why);
		t->state = ST_FAILED;
		t->exit_code = -1;
		t->completed = srv_now_ms();
		srv_task_set_diag(t, why);
	}
	spawn_buf_release(&b);
}

/* Lets j's running tasks accept ssh logins: makes the key pair if it
 * is not there yet and writes the sshd files of each running task that
 * lacks them (tasks started later get theirs when they start). Lock
 * held. */
int srv_ssh_enable(struct srv *s, struct srv_job *j)
{
	pai_expand_options eo;
	pai_placement pm;
	struct run_place pl;
	size_t i;
	int ret = 0;

	if (!j->ssh) {
		if (srv_ssh_job_keys(s, j) < 0)
			return -1;
		srv_wake(s); /* the record says so */
	}
	if (j->state != ST_RUNNING || !j->pj)
		return 0;
	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i].state == ST_RUNNING &&
		    j->tasks[i].monitor > 0 && !j->tasks[i].ssh_files &&
		    ssh_port(j, &j->tasks[i]))
			break;
	if (i == j->ntasks)
		return 0;
	memset(&pl, 0, sizeof(pl));
	if (run_place_init(&pl, s, j, &pm, &eo) < 0)
		ret = -1;
	for (i = 0; ret == 0 && i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];
		unsigned port = ssh_port(j, t);
		pai_env *env = NULL;

		/* a task not started yet gets them when it starts */
		if (t->state != ST_RUNNING || t->monitor <= 0 ||
		    t->ssh_files || !port)
			continue;
		if (pai_expand_task(&env, j->pj, t->role, t->index, &eo) ==
			PAI_OK &&
		    srv_ssh_task_files(s, j, t, port, env) == 0)
			t->ssh_files = true;
		else {
			srv_log(s, "'%s': %s-%zu: cannot write its sshd files",
				j->key, j->roles[t->role].name, t->index);
			ret = -1; /* asked again, tried again */
		}
		pai_env_free(env);
	}
	run_place_free(&pl);
	return ret;
}
