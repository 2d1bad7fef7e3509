/* srv_int.h - the local cluster's internals, shared by the files of server/
 * only */
#ifndef SRV_INT_H
#define SRV_INT_H

#include "pai.h"
#include "server.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define SRV_MAX_BODY (4u * 1024 * 1024)

/* Job and task states, as the API spells them (srv_state_name). */
enum {
	ST_WAITING,
	ST_RUNNING,
	ST_SUCCEEDED,
	ST_FAILED,
	ST_STOPPED,
	ST_UNKNOWN
};

struct srv_role {
	char *name;
	long long task_number, cpu, memory_mb, gpu;
	long long min_failed, min_succeeded; /* -1: null */
	size_t nlabels;
	char **labels;
	unsigned *counts; /* ports of each label per task */
	size_t nports;	  /* sum of counts */
};

struct srv_task {
	size_t role, index;
	int state;
	int exit_code;	 /* -1: none yet */
	unsigned *ports; /* role's nports entries, label order */
	pid_t monitor;	 /* 0: none */
	unsigned long long
	    mon_start;		 /* recognises the monitor after a restart */
	bool adopted;		 /* monitor started by an earlier server */
	bool ssh_files;		 /* its sshd files are written */
	unsigned cg_slot; /* its cgroup from the pool, number + 1; 0: none */
	unsigned long long gpus; /* GPUs held under --capacity, a bitmask */
	long long started, completed;
	char *diag;
};

struct srv_job {
	char *user, *name, *key; /* key: user~name, the framework name */
	char *dir;
	char *vc;
	int state;
	bool stop;	   /* STOP requested */
	bool launching;	   /* attempt begun, tasks to start (srv_launch) */
	bool launch_recorded; /* ...and its RUNNING record is on disk */
	bool deciding;	   /* outcome known, remaining tasks being stopped */
	bool deleted;	   /* out of the table, freed once no record is
			    * being written (srv_flush): next_dead */
	struct srv_job *next_dead;
	int outcome;	   /* the decided state while deciding */
	long long kill_at; /* SIGKILL the remaining tasks then; 0: none */
	long long created, launched, completed;
	int retries, retry_count, attempt;
	int exit_code;
	char *trigger_role;
	long trigger_index;
	char *diag;
	size_t nroles;
	struct srv_role *roles;
	size_t ntasks;
	struct srv_task *tasks; /* by role, then index */
	pai_job *pj;		/* while the job can still run */
	bool holds;		/* holds --capacity resources */
	bool ssh;		/* has its key pair (made on first request) */
	bool no_ssh;		/* making the key pair failed */
	char *warnings;		/* requests this machine cannot meet */
	bool dirty;		/* record to be written */
	bool legacy;		/* its record is a job.json (earlier layout) */
	long long rec_len;	/* its last record's size in records.log
				 * (with rec_live: under lock) */
	bool cfg_pending;	/* config.json not synced: its records carry
				 * the config (jobs.c) */
};

struct srv_user {
	char *name, *password;
	bool admin;
};

struct srv_token {
	char token[65];
	char *user;
	bool admin;
	long long expires; /* ms */
	/* a web page's session (web_login.c): good only as its cookie and
	 * with its key beside it, in a header no other port's page can
	 * send; and only until idle for WEB_IDLE_MS since its last use */
	bool session;
	char key[65];
	long long used; /* ms */
};

struct srv_waiter;
struct srv_runtime;

struct srv {
	srv_options opt;
	char *state_dir, *jobs_dir, *sock_path;
	pthread_mutex_t lock;
	/* orders record writes (srv_flush, rec_submit); rec_fd and
	 * rec_seq under it for log_sync.c */
	pthread_mutex_t save_lock;
	struct srv_job **jobs;
	size_t njobs, capjobs;
	char **pending; /* job keys being stored by srv_add_job */
	size_t npending;
	/* records.log (jobs.c): rec_fd, rec_size, rec_compact under
	 * save_lock; rec_live under lock */
	char *rec_path;
	int rec_fd;
	long long rec_size, rec_live; /* bytes, and bytes still current */
	bool rec_compact;	      /* to be written anew */
	/* the group commit of records.log (log_sync.c): rec_seq, the
	 * appends made, under save_lock; the appends on disk (done), the
	 * ones a failed sync was to cover, and whether one runs, under
	 * sync_lock, which sync_cond's waiters hold */
	unsigned long long rec_seq;
	pthread_mutex_t sync_lock;
	pthread_cond_t sync_cond;
	unsigned long long sync_done, sync_failed;
	bool syncing;
	/* srv_flush calls writing with the lock let go, and the jobs
	 * deleted meanwhile, which their records still point to; under
	 * lock */
	int flushing;
	struct srv_job *dead;
	/* until then (ms), an earlier server's task whose status names
	 * no monitor yet is waited for (run_recover.c) */
	long long adopt_until;
	unsigned long rec_gen;	      /* rewrites begun (lock and
				       * save_lock) */
	char *unloaded;		      /* records read and not loaded */
	size_t unloaded_len;
	struct srv_user *users;
	size_t nusers;
	struct srv_token *tokens;
	size_t ntokens;
	struct MHD_Daemon *unix_d, *tcp_d;
	unsigned tcp_port;
	char tcp_addr[64];
	/* the web pages' own listener on a loopback address of theirs
	 * (paictl web: http.c), started on the first request for a login
	 * link, and its URL; under lock */
	struct MHD_Daemon *web_d;
	unsigned web_port;
	char web_url[96];
	/* starts that listener if it does not run and says where it is
	 * (server.json too): 0 with *port, or -1 with err. srv.c, which
	 * owns the listeners, sets it; the pages' API (web_api.c), below
	 * it, calls it. Not under lock. */
	int (*open_web)(struct srv *s, unsigned *port, char *err,
			size_t errlen);
	/* inotify, for the long-poll on a task's log (wait.c); -1: none */
	int inotify_fd;
	int wake[2];
	int sigfd;
	int lock_fd;
	int null_fd;
	/* the monitors' forker (run_forker.c): its socket and pid, -1 and
	 * 0 when there is none */
	int forker_fd;
	pid_t forker_pid;
	const char *bash;
	/* what runs tasks (runtime.h), chosen once at the start */
	const struct srv_runtime *rt;
	void *rt_data; /* the runtime's own */
	const char *sshd, *keygen; /* NULL: no ssh for tasks */
	char *tree_base;	   /* srv_tree_base(), or NULL */
	/* empty cgroups under tree_base for the next tasks (tree_pool.c):
	 * "<tree_base>/paictl-task-<pid>-<start>-" and a number each */
	char *pool_prefix;
	unsigned *pool_free;
	size_t pool_nfree;
	unsigned pool_next;
	/* the user the server runs as (its Unix socket's, the web link's),
	 * looked up once before any thread: NULL when unknown */
	char *owner;
	char *host_key;
	char **base_env;
	size_t nbase_env;
	unsigned char port_used[65536 / 8];
	long long host_cpus, host_mem_mb, host_gpus;
	bool capped; /* --capacity: FIFO admission */
	long long cap_cpus, cap_mem_mb, cap_gpus, used_cpus, used_mem_mb;
	unsigned long long gpu_used;
	/* requests held by the long-poll (wait.c), under lock */
	struct srv_waiter *waiters;
	size_t nwaiters, capwaiters;
	size_t held_out; /* requests held and not yet answered */
};

/* util.c */
long long srv_now_ms(void);
void srv_log(struct srv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *srv_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int srv_fsync_dir(const char *path);
int srv_private_dir(const char *path, char *err, size_t errlen);
int srv_rmtree(const char *path);
void srv_remove_temps(const char *dir, const char *prefix);
bool srv_safe_name(const char *s);
const char *srv_state_name(int st);
int srv_state_from_name(const char *name);
int srv_random_hex(char *out, size_t nbytes);
/* A password or token wiped (explicit_bzero, which the compiler keeps),
 * then freed; NULL: nothing. */
void srv_free_secret(char *secret);
/* Whether a task whose own variables are env inherits the server's
 * variable entry ("NAME=VALUE"): where env gives NAME no value. Names
 * of any length: none is copied. */
bool srv_env_inherits(const pai_env *env, const char *entry);
/* Wakes the main loop (srv_run): there is work for it. */
void srv_wake(struct srv *s);

/* srv.c: server.json, for clients (ctl.c): the socket, the URLs */
void srv_write_info(struct srv *s);

/* log_sync.c: records.log's appends up to number seq on disk, synced
 * once for all the appends made by then (a group commit). PAI_OK, or
 * PAI_EIO: the log is to be written anew. No lock held: it takes
 * save_lock, and s->lock would hold requests up for a disk flush. */
void srv_log_sync_init(struct srv *s);
void srv_log_sync_free(struct srv *s);
int srv_log_sync(struct srv *s, unsigned long long seq);

/* jobs.c: the model, its records on disk */
int srv_job_from_pai(struct srv_job **out, const pai_job *pj, const char *user);
void srv_job_free(struct srv_job *j);
/* t's diagnostics: a copy of msg (NULL: none). */
void srv_task_set_diag(struct srv_task *t, const char *msg);
json_t *srv_job_record(const struct srv_job *j);
void srv_flush(struct srv *s);
/* Frees the jobs deleted while records were written (s->dead). Lock
 * held. */
void srv_free_dead(struct srv *s);
/* Reads the jobs of the state directory, oldest first; then
 * srv_resume_jobs. 0, -1 (errno) or -2 (records.log unreadable). */
int srv_load_jobs(struct srv *s);
/* Parses a job's config again, for a job that may still run (marking it
 * FAILED when it cannot). */
void srv_job_reparse(struct srv *s, struct srv_job *j);
struct srv_job *srv_find_job(struct srv *s, const char *user, const char *name);
int srv_add_job(struct srv *s, struct srv_job *j, const char *text, size_t len);
int srv_delete_job(struct srv *s, struct srv_job *j, char **gone);
char *srv_attempt_dir(const struct srv_job *j);
char *srv_task_dir(const struct srv_job *j, const struct srv_task *t);
char *srv_container_id(const struct srv_job *j, const struct srv_task *t);
/* run_status.c: what task t's runtime said last while it prepared the
 * task (podman pulling its image), the line its monitor keeps in the
 * task's `preparing`, into buf; false when there is none. */
bool srv_task_preparing(const struct srv_job *j, const struct srv_task *t,
			char *buf, size_t len);
bool srv_ssh_port(const struct srv_job *j, const struct srv_task *t,
		  unsigned *port);

/* the task runner: run.c, run_*.c (run.c says which file holds what) */
void srv_schedule(struct srv *s);
void srv_reap(struct srv *s);
void srv_poll_adopted(struct srv *s);
void srv_check_deadlines(struct srv *s);
void srv_launch(struct srv *s);
/* The monitors' forker (run_forker.c), started while the server is
 * small and single-threaded: 0, or -1 (the server forks each monitor
 * itself); and let go, to end. */
int srv_forker_start(struct srv *s);
void srv_forker_stop(struct srv *s);
/* What this machine does not give job j, noted in j->warnings once:
 * at its submission (http.c, api_v2.c), before it is added. */
void srv_note_job(struct srv *s, struct srv_job *j);
int srv_stop_job(struct srv *s, struct srv_job *j, const char *why);
int srv_ssh_enable(struct srv *s, struct srv_job *j);
/* After srv_load_jobs: the jobs that may still run get their config
 * again, and the running ones their tasks back (re-adopted). */
void srv_resume_jobs(struct srv *s);
long srv_next_timeout(struct srv *s);

/* fdio.c: all n bytes written, or read (false: an error, or the end
 * of the file first); async-signal-safe */
bool srv_write_all(int fd, const void *p, size_t n);
bool srv_read_all(int fd, void *p, size_t n);

/* tree.c: every process of a task, however it detached */
struct srv_tree {
	char dir[512]; /* the task's cgroup; "": none, descendants only */
	bool asked;    /* SIGTERM sent: never twice */
	bool pooled;   /* the server's (tree_pool.c): left, not removed */
};
/* Where the monitors can make their tasks' cgroups (the server's own
 * cgroup v2, when one can be made there), or NULL. */
char *srv_tree_base(void);
/* In the server: the cgroup of a gone monitor (the one its status
 * names, else the one named after its pid and start time) emptied and
 * removed; the empty ones of gone monitors and servers removed (at
 * start); cgroup dir emptied (SIGKILL) and removed, a second at most. */
void srv_tree_forget(const char *base, pid_t monitor,
		     unsigned long long start, const char *name);
void srv_tree_sweep(const char *base);
void srv_tree_remove(const char *dir);
/* Cgroup dir made, and it takes processes (its cgroup.procs can be
 * written); else not left made. Async-signal-safe. */
bool srv_tree_make(const char *dir);
/* Whether cgroup dir holds a process (its cgroup.events), or cannot be
 * told not to; async-signal-safe. */
bool srv_tree_populated(const char *dir);
/* In the monitor (async-signal-safe, as below): it becomes the child
 * subreaper of what the task starts, and takes the cgroup the server
 * gave (given: tree_pool.c), else makes the task's cgroup under base
 * (NULL: none), named after its pid and start time (the monitor's own,
 * field 22 of /proc/self/stat). */
void srv_tree_init(struct srv_tree *t, const char *base,
		   unsigned long long start, const char *given);
/* In a child of the monitor before it runs anything: into the cgroup. */
void srv_tree_enter(const struct srv_tree *t);
/* sig to every process of the task (the cgroup's, and the monitor's
 * descendants): how many were signalled. SIGTERM goes once: later ones
 * are not sent (0). */
int srv_tree_signal(struct srv_tree *t, int sig);
/* Once the task has ended: what is left of it (ssh sessions, what
 * detached) gets SIGTERM if it has not yet (an ssh session with a
 * terminal then gets SIGHUP as its sshd goes), and grace_ms to end,
 * less if SIGINT (the server's "kill now") comes on sfd (a signalfd,
 * or -1); then all are killed until none is left (a bounded wait), the
 * orphans reaped and the cgroup removed. */
void srv_tree_end(struct srv_tree *t, int grace_ms, int sfd);

/* tree_pool.c, in the server: the cgroups it gives its tasks. Init
 * (tree_base set) 0 or -1; take: an empty cgroup, its number + 1 and
 * its path (new string) in *dir, or 0 (none: the monitor makes its
 * own); give back: once its monitor is gone, kept when empty, else
 * emptied and removed; free: the kept ones removed. */
int srv_pool_init(struct srv *s);
unsigned srv_pool_take(struct srv *s, char **dir);
void srv_pool_give_back(struct srv *s, unsigned slot);
void srv_pool_free(struct srv *s);

/* ssh.c */
int srv_ssh_init(struct srv *s);
int srv_ssh_job_keys(struct srv *s, struct srv_job *j);
char *srv_ssh_key_path(const struct srv_job *j, bool pub);
/* v within an authorized_keys option's "...": its quotes escaped */
void srv_ssh_put_quoted(FILE *f, const char *v);
int srv_ssh_task_files(struct srv *s, struct srv_job *j,
		       const struct srv_task *t, unsigned port,
		       const pai_env *env);

/* wait.c: the long-poll's held requests. Under the lock: resumes those
 * whose job (or list of jobs) changed, ended or went, whose task's log
 * grew, or whose time is up (all: every one); returns the ms until the
 * next one's time, or -1. The main loop wakes on s->inotify_fd too. */
long srv_wake_waiters(struct srv *s, bool all);

/* http.c */
int srv_http_start(struct srv *s, char *err, size_t errlen);
/* Starts the web pages' listener on a loopback address of theirs and a
 * free port unless it runs (s->web_url); under the lock. 0, or -1 with
 * the reason in err. */
int srv_web_listen(struct srv *s, char *err, size_t errlen);
int srv_listen_check(const char *spec, char *err, size_t errlen);
void srv_http_stop(struct srv *s);

#endif /* SRV_INT_H */
