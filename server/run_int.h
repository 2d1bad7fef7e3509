/* run_int.h - the local cluster's task runner (run.c, run_*.c): what its
 * files share. Internal to them; the rest of server/ calls the runner
 * through srv_int.h. */
#ifndef RUN_INT_H
#define RUN_INT_H

#include "srv_int.h"

#include <signal.h>

/* ---- ports (run_ports.c) -------------------------------------------- */

void run_port_mark(struct srv *s, unsigned p, bool used);
/* A port free on this machine and not given to another task: from
 * begin_at upwards when the config says so, else any; 0 when none. */
unsigned run_port_take(struct srv *s, long long begin_at);
/* Listens on 127.0.0.1:p, the task's ssh port: the socket, or -1. */
int run_listen_on(unsigned p);
/* t's ports given back, for other tasks to take. */
void run_task_ports_release(struct srv *s, struct srv_job *j,
			    struct srv_task *t);

/* ---- placement (run_place.c) ---------------------------------------- */

struct run_place {
	struct srv *s;
	struct srv_job *j;
	char **ids, **work;
	char *fs;
};

void run_place_free(struct run_place *pl);
/* Where the tasks of j's current attempt are, for pai_expand_task:
 * pm and eo filled to point at pl. 0, or -1 (out of memory: free pl
 * with run_place_free all the same). */
int run_place_init(struct run_place *pl, struct srv *s, struct srv_job *j,
		   pai_placement *pm, pai_expand_options *eo);

/* ---- the monitor (run_monitor.c) ------------------------------------ */

/* What a task's monitor needs, all made before the fork. */
struct run_spawn {
	const char *prog; /* what runs the task (its runtime's: runtime.h) */
	char **argv, **envp;
	char **stop[2]; /* run for SIGTERM, SIGKILL; NULL: signal the task */
	char **end;	/* run after a task that did not exit by itself */
	int fd_keep;	/* a descriptor the task inherits, or -1 */
	/* a file its runtime makes once the task runs (podman's
	 * --cidfile, after the image's pull), or NULL; a task without it
	 * after start_ms is killed, start_why written to its stderr */
	const char *started_path, *start_why;
	long start_ms;
	/* until then, the last line of its stderr (its runtime's progress:
	 * podman's pull) in prep_path, which the status shows */
	const char *prep_path;
	const char *dirs[3]; /* attempt, task and working directories */
	const char *work, *status_path;
	const char *log_path[3]; /* user.pai.stdout, .stderr, .all */
	const char *sshd, *sshd_log; /* sshd: NULL for none */
	char **sshd_argv;
	int fd_null;
	int fd_ssh;	      /* listening on the task's ssh port, or -1 */
	const char *tree_base; /* where its cgroup goes, or NULL */
	const char *tree_dir;  /* the cgroup the server gives it, or NULL */
	int grace_ms; /* SIGTERM to SIGKILL, for what the task leaves too */
	pid_t server; /* the server that forks the monitor (its parent) */
	/* the signals whose action the monitor has not at the default
	 * (the forker's: run_forker.c), or NULL (not known: all) */
	const sigset_t *sig_set;
};

#define MONITOR_NO_DIR 3 /* the monitor's exit status: no directory */

/* A task's monitor, in the child the server forked (async-signal-safe
 * calls only); it exits when the task has ended. */
__attribute__((noreturn)) void run_monitor_main(const struct run_spawn *sp);

/* The monitor's helpers (run_helper.c, async-signal-safe too): argv
 * started with the task's environment, its output dropped: its pid,
 * or -1; and started and waited for, at most ms (then killed). */
pid_t run_helper_start(const struct run_spawn *sp, char *const argv[]);
/* In a child before its execve: the signals of set (NULL: all) back to
 * their default actions, then none blocked. */
void run_reset_signals(const sigset_t *set);
void run_helper_run(const struct run_spawn *sp, char *const argv[], int ms);

/* ---- what a monitor tells (run_status.c) ---------------------------- */


/* What a task's monitor wrote in `status`: line 1 "task-pid
 * monitor-pid monitor-start [cgroup]" once the task started, line 2 "code
 * signal" when it ended; a line counts only whole. A task directory of
 * an earlier version has `pid` and `exit` instead. Returns what was
 * read: STATUS_PID, STATUS_EXIT, both or neither. */
enum { STATUS_PID = 1, STATUS_EXIT = 2 };

struct run_status {
	long pg, mon;
	unsigned long long start;
	int code;
	/* the server's cgroup the monitor was given (its name under
	 * tree_base), after the start time on line 1; "": none */
	char cgroup[80];
};

int run_read_status(const char *dir, struct run_status *st);
/* The longest line 1: three numbers of 20 bytes at most ("-" and 19
 * digits, or 20 digits) each with a blank after it, then a name
 * shorter than st.cgroup and "\n". */
#define RUN_STATUS_LINE1_MAX (3 * 21 + sizeof(((struct run_status *)0)->cgroup))
/* Line 1 as the monitor writes it, into line (cap bytes, no NUL): its
 * length, 0 when it does not fit cap. cgroup (NULL: none) is left out
 * unless it is 1 to 79 bytes. Async-signal-safe. */
size_t run_status_line1(char *line, size_t cap, long pid, long monitor,
			unsigned long long start, const char *cgroup);
/* The longest line 2: two ints of 11 bytes at most ("-" and 10 digits)
 * each with a blank or "\n" after it. */
#define RUN_STATUS_LINE2_MAX (2 * 12)
/* Line 2, "code signal", as line 1: its length, 0 when it does not fit
 * cap. Async-signal-safe. */
size_t run_status_line2(char *line, size_t cap, int code, int sig);
/* The start time of process pid (field 22 of /proc/PID/stat), its
 * state letter in *state (NULL: not wanted); 0 when it is gone. */
unsigned long long run_proc_start(pid_t pid, char *state);
/* Whether t's monitor is still the process it was (its pid could have
 * been reused since), and not a zombie. */
bool run_monitor_alive(const struct srv_task *t);

/* ---- resources (run_resources.c) ------------------------------------ */

/* The CPUs, MB of memory and GPUs that all j's tasks ask for. */
void run_job_request(const struct srv_job *j, long long *cpus,
		     long long *mem, long long *gpus);
/* --capacity: 1 when the whole request fits now (and is taken), 0 when
 * it must wait, -1 when it can never fit. */
int run_admit(struct srv *s, struct srv_job *j);
/* What j holds given back (none held: nothing). */
void run_release(struct srv *s, struct srv_job *j);
/* After a restart: a running job holds what it held. */
void run_rehold(struct srv *s, struct srv_job *j);

/* ---- the monitors' forker (run_forker.c) ---------------------------- */

/* Whether pid, reaped, was the forker's (which is gone now). */
bool run_forker_reaped(struct srv *s, pid_t pid);
#define RUN_FORKER_NONE (-2)
/* sp's monitor forked by the forker, a child of the server: its pid;
 * -1 with errno when it could not be (none was forked, or the forker
 * did not answer: never two); RUN_FORKER_NONE when the forker forked
 * nothing and cannot (gone, or sp not for it): the server forks. */
pid_t run_forker_spawn(struct srv *s, const struct run_spawn *sp);

/* ---- starting a task (run_spawn.c) ---------------------------------- */

/* Starts task t of j's attempt, placed by pl and eo (run_place_init);
 * on failure marks it FAILED with the reason. */
void run_spawn_task(struct srv *s, struct srv_job *j, struct srv_task *t,
		    struct run_place *pl, const pai_expand_options *eo);

/* ---- the end of tasks and attempts (run_end.c) ---------------------- */

/* How many of j's tasks run. */
size_t run_live_tasks(const struct srv_job *j);
/* SIGTERM or SIGKILL (sig) to every running task of j, through its
 * monitor. */
void run_signal_tasks(struct srv_job *j, int sig);
/* Every task of j's attempt has ended: the job ends, or retries. */
void run_attempt_over(struct srv *s, struct srv_job *j);
/* Applies the roles' completion policy after task t ended. */
void run_evaluate(struct srv *s, struct srv_job *j, struct srv_task *t);
/* Task t's monitor is gone; its status says how the task ended (lost:
 * why it is not known, or NULL). */
void run_task_ended(struct srv *s, struct srv_job *j, struct srv_task *t,
		    const char *lost);

#endif /* RUN_INT_H */
