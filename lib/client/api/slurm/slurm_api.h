/* slurm_api.h - the Slurm module (api_slurm.c, its table) and its parts,
 * one idea each:
 *
 *   slurm_client.c  the client: the profile's facts, the JWT (a file
 *                   read again for every request) and the user, as
 *                   headers on each exchange (http.h's struct pai__wire)
 *   slurm_state.c   the slurmrestd version spoken, kept between runs
 *   slurm_shapes.c  the plugin versions paictl speaks (a table), and
 *                   adapters between their JSON shapes and the one the
 *                   rest reads (v0.0.38's); no transport
 *   slurm_rest.c    requests to slurmrestd: the plugin version the
 *                   server serves, JSON answers, and its shapes of
 *                   errors (and a bad token's 500 or 511) judged
 *   slurm_submit.c  a submission: the name checked, the ports chosen,
 *                   the batch job posted; lost answers found by the
 *                   submission's id in the job's comment
 *   slurm_acct.c    finished jobs from accounting (slurmdbd), where
 *                   slurmrestd serves it
 *   slurm_jobs.c    Slurm's jobs as paictl's: the comment read, states
 *                   mapped, the user's jobs of a name found
 *   slurm_status.c  a job's status JSON (the shape OpenPAI's APIs send,
 *                   status.h): the job, its tasks from their records in
 *                   the job's directory; lists
 *   slurm_files.c   the job's directory: its records, and logs read
 *                   here or over SFTP
 *   slurm_cmd_out.c what sbatch, squeue and sacct print on a login node,
 *                   read strictly; no transport
 *   slurm_ssh.c     the login node's wire (ssh://): the module's requests
 *                   answered by those commands on one SSH connection
 *   slurm_ssh_submit.c  a submission there: the script over SFTP, sbatch
 *
 * The reference: shared/reference/slurm.md. Not installed, not for
 * cli/. */
#ifndef PAI_SLURM_API_H
#define PAI_SLURM_API_H

#include "client/api/module.h"
#include "client/api/status.h"
#include "client/config_slurm.h"

#include <pthread.h>

/* ---- the client (slurm_client.c) ------------------------------------ */

/* A Slurm client's state: pai_client.wire_data. */
struct pai__slurm_client {
	pai_slurm_cluster s; /* its strings those of prof and user */
	struct pai__slurm_prof prof;
	char *user;
	/* the plugin version spoken: the row of the newest paictl knows
	 * that the server serves; NULL until found. path_version: the
	 * version in the paths ("v0.0.42"; a newer one the server serves
	 * when it serves none paictl knows, spoken as the newest known) */
	const struct pai__slurm_version *version;
	char path_version[16];
	int tentative; /* version a hint not answered yet */
	int no_dbd; /* /slurmdb/ answered 404: no accounting */
	/* the login node's squeue and sacct refused --json (a Slurm before
	 * 21.08): their --format columns from then on (slurm_ssh.c) */
	int no_json;
	/* SFTP for the job's directory elsewhere (pai_client_set_sftp) */
	pai_ssh_options sftp;
	char *sftp_user, *sftp_key, *sftp_known;
	int sftp_down; /* a record's read failed so: not asked again */
	/* The jobs Slurm knew when last listed (slurm_jobs.c), with what
	 * this client submitted since and the submissions under way (not
	 * posted yet: "pending", job_id 0): its submissions' name checks
	 * and port ranges, without listing every job for each. The lanes
	 * of a batch share them under known_lock; one lists while the
	 * others wait (listing, known_cv), as does a submission for one
	 * of its name under way. */
	json_t *known;	     /* an array of Slurm's jobs, or NULL */
	long long known_at;  /* when listed (pai__now_ms) */
	long long known_max; /* the highest job id in it */
	pthread_mutex_t known_lock;
	pthread_cond_t known_cv;
	int listing;
	int claims; /* of submissions under way, in known */
	/* submissions over the login node's one connection: one at a time
	 * (its SSH session is not for two threads) */
	pthread_mutex_t serial;
	/* the token given (pai_client_options.token), for want of a file */
	char *jwt;
	/* the login node's wire (slurm_ssh.c): the wire's calls, and its
	 * host from ssh://user@host:port, connected when first needed */
	const struct pai__slurm_ops *ops;
	char *login_host, *login_user;
	long login_port;
	pai_ssh *login;
	/* where the version spoken is kept between runs (slurm_state.c):
	 * "<state_dir>/slurm/<profile>.openapi"; NULL: nowhere */
	char *state_path;
	/* the token of the exchange under way, wiped by finish */
	char *token;
	/* the expiry its payload named (seconds since 1970), 0: none;
	 * what a refusal says of an expired token */
	long long token_exp;
};

/* The state of client c (made by pai_client_new_slurm()). */
struct pai__slurm_client *pai__slurm_of(pai_client *c);

/* ---- what a client learned, kept between runs (slurm_state.c) ------- */

/* c's slurmrestd version kept under state_dir for profile name: the
 * one kept there last time (under a day old) spoken first, and the
 * one spoken kept when the client is freed. Best effort: PAI_OK, or
 * PAI_ENOMEM. */
int pai__slurm_state_keep(pai_client *c, const char *state_dir,
			  const char *name);
/* The version spoken written where pai__slurm_state_keep() said, when it
 * is new there or about to expire; from wire_free. */
void pai__slurm_state_save(struct pai__slurm_client *s);

/* ---- versions and shapes (slurm_shapes.c) --------------------------- */

/* What a version's shapes are, beyond those read by their shape. */
#define PAI__SLURM_ENV_LIST 1u /* a job's environment ["K=V", ...] */
#define PAI__SLURM_DBD 2u      /* /slurmdb/<version>/ where accounting is */

struct pai__slurm_version {
	const char *name; /* "v0.0.42" */
	unsigned shapes;  /* PAI__SLURM_* */
};

/* Row i of the versions paictl speaks, newest first; NULL past them. */
const struct pai__slurm_version *pai__slurm_version_at(size_t i);
/* "v0.0.N" as N; -1 for another name. */
long pai__slurm_version_number(const char *v);
/* A number plain or {set, infinite, number} into *n: 1; 0 when it is
 * not set, infinite or no number. */
int pai__slurm_number(json_t *v, long long *n);
/* An exit code, a raw wait status or {status, return_code, signal}, as
 * the raw wait status; -1 when it says none. */
long long pai__slurm_wait_status(json_t *v);
/* A job of any version's answer (slurmrestd's, squeue's) in the shape
 * paictl reads, v0.0.38's, in place: numbers plain (null: none),
 * job_state a string, exit_code a wait status, comment a string.
 * PAI_EPROTOCOL for a job that is no object, PAI_ENOMEM. */
int pai__slurm_job_read(json_t *j);
/* The "jobs" of an answer, each read so: *jobs borrowed from answer.
 * PAI_EPROTOCOL without such a list. */
int pai__slurm_jobs_read(json_t *answer, json_t **jobs);
/* A job of accounting's (slurmdbd's answer, sacct --json: {job_id,
 * name, user, state {current, reason}, exit_code, time {submission,
 * start, end}, het {job_id, job_offset}, comment {job}, ...}) as a new
 * job of the shape paictl reads (pai__slurm_job_read()'s), with
 * "accounting": true. PAI_EPROTOCOL for one without a job id. */
int pai__slurm_acct_job_read(json_t **out, json_t *a);
/* The "jobs" of accounting's answer so: *jobs a new array (records of
 * another shape left out). PAI_EPROTOCOL without such a list. */
int pai__slurm_acct_jobs_read(json_t *answer, json_t **jobs);
/* A submission's body (pai__slurm_job_body()'s) as version v takes it,
 * in place: PAI_OK or PAI_ENOMEM. */
int pai__slurm_body_write(json_t *body, const struct pai__slurm_version *v);

/* ---- requests (slurm_rest.c) ---------------------------------------- */

/* "/slurm/<version>/<path>" of the newest version paictl knows that the
 * server serves (found once: the newest known first, /openapi when the
 * server has it not). *url new. */
int pai__slurm_url(char **url, pai_client *c, const char *path);
/* The version spoken: the one found, or (before any request) the
 * newest paictl knows. */
const struct pai__slurm_version *pai__slurm_speaks(pai_client *c);
/* A request to slurmrestd: path under /slurm/<version>/, body JSON or
 * NULL. A 2xx's JSON in *out (new; may be NULL). Otherwise the detail
 * says what slurmrestd said (either shape of its errors), and the error
 * is the one it maps to: 2017 (no such job) PAI_ENOTFOUND, a bad or
 * expired token PAI_EAUTH, a refusal of the request PAI_EINVAL with
 * the status kept. *maybe (may be NULL): no answer came, or a 5xx, to a
 * request that went out. */
int pai__slurm_call(json_t **out, pai_client *c, const char *method,
		    const char *path, json_t *body, int safe, int *maybe);

/* GET /slurmdb/<version>/<path>: the JSON in *out (new). PAI_ENOTSUP
 * where there is no accounting (a version before v0.0.39, slurmrestd
 * without slurmdbd's plugin); else as pai__slurm_call(). */
int pai__slurm_db_get(json_t **out, pai_client *c, const char *path);

/* ---- Slurm's jobs (slurm_jobs.c) ------------------------------------ */

/* What a paictl job's comment says (its strings point into the job). */
struct pai__slurm_note {
	char sub[64];		 /* the submission's id */
	unsigned lo, hi;	 /* its port range: [lo, hi) */
	char roles[1024];	 /* "name*n,name*n" */
};

/* The comment of job j as paictl wrote it: 1, or 0 when it is not one. */
int pai__slurm_note(struct pai__slurm_note *n, json_t *j);
/* The comment paictl writes; new. */
char *pai__slurm_note_text(const char *sub, unsigned lo, unsigned hi,
			   const char *roles);
/* All of Slurm's jobs (GET jobs): *out the array (new). */
int pai__slurm_jobs(json_t **out, pai_client *c);
/* The jobs Slurm knew at most max_age_ms ago (listed again when older;
 * while one lane lists, the others wait for its list), with the
 * client's own submissions since and those under way: *out borrowed,
 * with known_lock held until pai__slurm_known_unlock() (no request in
 * between); on failure not held. */
int pai__slurm_known_lock(json_t **out, pai_client *c, long max_age_ms);
void pai__slurm_known_unlock(pai_client *c);
/* Under known_lock: waits until another submission settles
 * (pai__slurm_known_settle()); *out the jobs known then, borrowed. */
void pai__slurm_known_wait(json_t **out, pai_client *c);
/* A submission under way, j (a new reference, stolen: "name",
 * "user_name", "comment" with its id and ports), among the jobs known
 * (under known_lock): others see its name and ports taken. */
void pai__slurm_known_claim(pai_client *c, json_t *j);
/* The submission sub under way no more: its claim dropped, and made,
 * its jobs (an array stolen, or NULL) known; those waiting told. */
void pai__slurm_known_settle(pai_client *c, const char *sub, json_t *made);
/* 1 for a submission's claim (under way, not posted yet). */
int pai__slurm_pending(json_t *j);
/* What the client knows of job id (< the id of a job it just made):
 * every job after the highest it knew and before id read (GET job/ID),
 * or, past a few, all listed again. */
int pai__slurm_catch_up(pai_client *c, long long id);
/* user's jobs named name in jobs, each a job of paictl's (its first
 * component): a new array, newest first. */
json_t *pai__slurm_named(json_t *jobs, const char *user, const char *name);
/* The components of the heterogeneous job whose leader is lead (or lead
 * alone): a new array. */
json_t *pai__slurm_components(json_t *jobs, json_t *lead);
/* paictl's state of a job's components; *why (borrowed) the reason of
 * a job that waits or failed, or NULL. */
pai_state pai__slurm_state(json_t *comps, const char **why);
/* exit_code (a raw wait status) as an exit status: 128 + the signal for
 * one that killed; -1 when it says none. */
int pai__slurm_exit(json_t *v);

/* ---- accounting (slurm_acct.c) ------------------------------------- */

/* user's jobs of name (NULL: of every name) that accounting has from
 * since_s on (seconds since 1970; 0: the last 30 days) and that are
 * paictl's (its comment, or the profile's working directory), read as
 * slurmctld's: *out a new array. PAI_ENOTSUP where there is no
 * accounting. */
int pai__slurm_acct_jobs(json_t **out, pai_client *c, const char *user,
			 const char *name, long long since_s);

/* ---- the job's directory (slurm_files.c) ---------------------------- */

/* <workdir>/<name>/<sub>; new. */
char *pai__slurm_jobdir(pai_client *c, const char *name, const char *sub);
/* 1 when this machine sees the directory dir. */
int pai__slurm_seen(const char *dir);
/* A record (KEY=VALUE lines) dir/file as an object of strings; NULL
 * when there is none (or out of memory). */
json_t *pai__slurm_record(const char *dir, const char *file);
/* The same where this machine sees dir, else on the wire's own
 * connection where it has one (the login node's), else over SFTP from
 * the profile's SSH host where the client has SSH access
 * (pai_client_set_sftp()); NULL where it cannot be read. */
json_t *pai__slurm_record_at(pai_client *c, const char *dir, const char *file);
/* The newest submission of user's job name in its directory: *sub new
 * (NULL: none). */
int pai__slurm_latest(char **sub, pai_client *c, const char *name);
/* Where a task's files are read: "file://<dir>/" here (or where no SSH
 * host is named: a read then says the directory is not here), else
 * "sftp://host:port<dir>/", dir percent-encoded (every byte but '/' and
 * RFC 3986's unreserved); new, or NULL out of memory. */
char *pai__slurm_task_url(pai_client *c, const char *taskdir);
/* A URL's percent-encoded path p as the file's path: *out new.
 * PAI_EINVAL for a '%' not followed by two hex digits, or "%00";
 * PAI_ENOMEM. */
int pai__slurm_url_path(char **out, const char *p);
/* module.h's log_read. */
int pai__slurm_log_read(char **data, size_t *len, long long *next,
			const struct pai__api *api, pai_client *c,
			const char *url, long long offset);

/* ---- the login node's commands' output (slurm_cmd_out.c) ------------ */

/* The most a command's output may be, and a --format field. */
#define PAI__SLURM_OUT_MAX (32u << 20)
#define PAI__SLURM_FIELD_MAX 4096
/* What splits --format's columns: a byte no name or comment holds */
#define PAI__SLURM_DELIM '\x1f'
#define PAI__SLURM_DELIM_S "\x1f"

/* `sbatch --parsable`'s output: "ID" or "ID;CLUSTER", one newline at
 * most, nothing else. *id (> 0) and cluster (size bytes; "" for none):
 * PAI_OK, else PAI_EPROTOCOL (*id 0). */
int pai__slurm_parsable_read(long long *id, char *cluster, size_t size,
			     const char *out, size_t len);
/* `squeue --json` (acct 0) or `sacct --json` (1) as a new array of jobs
 * of the shape paictl reads (slurm_shapes.c's). PAI_EPROTOCOL for
 * output that is no such JSON, PAI_ENOMEM. */
int pai__slurm_cmd_json(json_t **jobs, const char *out, size_t len, int acct);
/* The columns asked of squeue (`--noheader --format=SPEC`, split by
 * PAI__SLURM_DELIM) or of sacct (`--noheader --parsable2
 * --delimiter=DELIM --format=SPEC`); new, NULL out of memory. */
char *pai__slurm_fmt_spec(int acct);
/* Their output as a new array of jobs (sacct's steps left out).
 * PAI_EPROTOCOL with *bad_line the first line (from 1) with another
 * count of columns or a field not of its kind or too long. */
int pai__slurm_fmt_read(json_t **jobs, size_t *bad_line, const char *out,
			size_t len, int acct);
/* Their output as the answer --json gives, {"jobs": [...]} (new): for
 * squeue the jobs read so, for sacct in accounting's shape, which
 * pai__slurm_acct_jobs_read() reads back to them. Errors as
 * pai__slurm_fmt_read()'s. */
int pai__slurm_fmt_answer(json_t **answer, size_t *bad_line, const char *out,
			  size_t len, int acct);

/* ---- the wires: slurmrestd's (slurm_rest.c), the login node's -------- */

/* What the module asks of a cluster, picked once for the client by its
 * URI (http(s):// slurmrestd, ssh:// a login node): pai__slurm_call()
 * and pai__slurm_db_get() go through it. */
struct pai__slurm_ops {
	const char *name;
	int (*call)(json_t **out, pai_client *c, const char *method,
		    const char *path, json_t *body, int safe, int *maybe);
	int (*db_get)(json_t **out, pai_client *c, const char *path);
	/* A task's file read from offset (module.h's log_read) on the
	 * wire's own connection; NULL: over SFTP by the profile's SSH
	 * host (slurm_files.c). */
	int (*file_read)(char **data, size_t *len, long long *next,
			 pai_client *c, const char *path, long long offset);
};
extern const struct pai__slurm_ops pai__slurm_restd_ops, pai__slurm_ssh_ops;

/* ---- the login node's wire (slurm_ssh.c, slurm_ssh_submit.c) ------- */

struct pai__ssh_out;
/* ssh://[user@]host[:port][/] into *user (NULL: none), *host (new) and
 * *port (22 when not given): PAI_EINVAL for another URI. */
int pai__slurm_login_uri(const char *uri, char **user, char **host,
			 long *port);
/* The login node's connection, kept in the client (made again when it
 * was cut). */
int pai__slurm_ssh_login(pai_ssh **out, pai_client *c);
/* A command (its words quoted) on the login node: *o (released by the
 * caller); *sent (may be NULL) once it may have run. */
int pai__slurm_ssh_run(pai_client *c, const char *cmd, struct pai__ssh_out *o,
		       int *sent);
/* The first line of b (a command's output: hostile bytes) into dst
 * (size bytes), control characters as '?'. */
void pai__slurm_ssh_line(char *dst, size_t size, const pai__buf *b);
/* A command that exited non-zero, as the error its stderr says. */
int pai__slurm_ssh_refused(pai_client *c, const char *what,
			   struct pai__ssh_out *o);
int pai__slurm_ssh_call(json_t **out, pai_client *c, const char *method,
			const char *path, json_t *body, int safe, int *maybe);
int pai__slurm_ssh_db_get(json_t **out, pai_client *c, const char *path);
/* POST job/submit's body by SFTP and sbatch: *out {"job_id": ID}. */
int pai__slurm_ssh_submit(json_t **out, pai_client *c, json_t *body,
			  int *maybe);

/* ---- the operations ------------------------------------------------- */

int pai__slurm_submit(const struct pai__api *api, pai_client *c,
		      const char *user, json_t *config,
		      const pai_submit_options *o, int *recovered);
int pai__slurm_submit_request(pai__submit_rq *rq, const struct pai__api *api,
			      pai_client *c, const char *user, json_t *config);
int pai__slurm_job_get(pai_job_info **out, const struct pai__api *api,
		       pai_client *c, const char *user, const char *name);
int pai__slurm_jobs_list(pai_job_list **out, const struct pai__api *api,
			 pai_client *c, const char *user);
int pai__slurm_jobs_since(pai_job_list **out, const struct pai__api *api,
			  pai_client *c, const char *user, long long since_ms);
/* The status JSON's "slurm" member (borrowed), or NULL. */
json_t *pai__slurm_info_meta(const pai_job_info *info);

#endif /* PAI_SLURM_API_H */
