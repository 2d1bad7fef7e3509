/* runtime.h - how the local cluster runs a task: a row per runtime
 * (runtime_process.c: a process on this machine, as its user;
 * runtime_podman.c: in the job's image, with podman), chosen once when
 * the server starts (runtime.c) and called through s->rt by the runner
 * and ssh.c. No other file asks which runtime runs. */
#ifndef RUNTIME_H
#define RUNTIME_H

#include "srv_int.h"

/* What a runtime makes of one task, in the server, before its monitor
 * is forked: the monitor runs prog with argv, and, where a row says
 * so, runs stop[0] for a SIGTERM and stop[1] for a SIGKILL instead of
 * signalling the task's processes, and end once the task is over
 * unless it exited by itself. All of it freed by rt_task_free. */
struct rt_task {
	const char *prog;
	char **argv;	/* NULL-terminated, owned */
	char **envp;	/* its environment; NULL: the task's (owned) */
	char **stop[2]; /* NULL: signal the task's process group */
	char **end;	/* NULL: nothing to run after the task */
	int keep_fd;	/* a descriptor the task inherits, or -1 */
	/* run_spawn's started_path and start_why (owned), start_ms */
	char *started, *start_why, *prep;
	long start_ms;
};

void rt_task_free(struct rt_task *rt);

/* What a task needs from its runtime, made by run_spawn.c. */
struct rt_task_in {
	const struct srv_job *j;
	const struct srv_task *t;
	const char *cmd;    /* the role's command (entrypoint) */
	const pai_env *env; /* its $PAI_* and jobEnvs, as expand says */
	char *const *envp;  /* the task's environment: the server's few
			     * variables and env's */
	const char *work;   /* its working directory */
};

struct srv_runtime {
	const char *name;
	/* at the server's start: 0 when this runtime can run tasks here,
	 * else -1 with what to do for it in why ("install podman ...") */
	int (*open)(struct srv *s, char *why, size_t whylen);
	void (*close)(struct srv *s);
	/* rt filled for one task: NULL, or why the task cannot start */
	const char *(*task)(struct srv *s, const struct rt_task_in *in,
			    struct rt_task *rt);
	/* task t ended with code: the runtime's own words about it (a
	 * failed pull, say) into its diagnostics; NULL: none */
	void (*ended)(struct srv *s, struct srv_job *j, struct srv_task *t,
		      int code);
	/* after a restart, once the running tasks are re-adopted: what
	 * an earlier server left running without a task ended; NULL:
	 * nothing to find */
	void (*sweep)(struct srv *s);
	/* the options of the authorized_keys line that lands a task's
	 * ssh login where the task runs, ending with its command="...":
	 * allocated, or NULL (out of memory) */
	char *(*ssh_options)(struct srv *s, const struct srv_job *j,
			     const struct srv_task *t);
	/* NULL when tasks run in the job's image; else the words that
	 * say what would run them there, for the warning that they do
	 * not (srv_note_job) */
	const char *(*not_in_image)(const struct srv *s);
};

extern const struct srv_runtime rt_process, rt_podman;

/* The runtime --runtime names (NULL: podman where it answers, else the
 * process one, which then says what to install), opened: 0, -1 with
 * the reason in err, or -2 for a name no row has. */
int srv_runtime_pick(struct srv *s, const char *name, char *err,
		     size_t errlen);

/* Helpers for the rows (runtime.c). */
/* A NULL-terminated copy of the n strings of v, or NULL. */
char **rt_strv(const char *const *v, size_t n);
void rt_strv_free(char **v);
/* The first executable called name in $PATH (allocated), or NULL. */
char *rt_find_in_path(const char *name);
/* Runs argv (no shell), stdin from /dev/null, its stdout into out (at
 * most outlen - 1 bytes kept, NUL-terminated), stderr dropped, killed
 * after timeout_ms: its exit status, or -1. From the main thread only
 * before the main loop reaps (it waits for its own child). */
int rt_run(struct srv *s, char *const argv[], char *out, size_t outlen,
	   int timeout_ms);

#endif /* RUNTIME_H */
