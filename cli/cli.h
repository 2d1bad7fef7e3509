/* cli.h - the paictl front end: its context and command table, the
 * helpers the commands share, from the ground up (messages and exit
 * statuses: error.h), and the commands */
#ifndef CLI_H
#define CLI_H

#include "pai.h"

#include <stdbool.h>
#include <stdio.h>

/* One option of a command. The same table drives getopt_long, --help
 * and the shell completions. An old spelling (CLI_OLD) has no help:
 * still accepted, so that scripts do not break, it is named on one line
 * at the end of --help and under COMPATIBILITY in the command's page,
 * and never offered by the completions. */
typedef struct cli_opt {
	const char *name;    /* long name, without "--" */
	int key;	     /* short letter, or a value >= 256 */
	const char *argname; /* NULL: takes no argument */
	/* completions for the argument, "a|b", or NULL; for an old
	 * spelling, what it stands for ("--out", "ROLE") */
	const char *values;
	const char *help; /* NULL: an old spelling */
} cli_opt;

/* An old spelling of an option or operand: its name, short letter or
 * key, argument, and what it stands for. */
#define CLI_OLD(name, key, argname, stands_for)                                \
	{                                                                      \
		name, key, argname, stands_for, NULL                           \
	}
#define cli_opt_old(o) (!(o)->help)

typedef enum { CLI_OUT_TEXT = 0, CLI_OUT_JSON = 1 } cli_output;

struct cli_cmd;

/* What every command may use: the global options, as given (flags win
 * over the environment, which wins over the profile: see cli_connect). */
typedef struct cli_ctx {
	const char *cmd; /* the command's name, for messages */
	const struct cli_cmd *command;
	/* the command table (main.c), ended by a zeroed entry: for the
	 * commands that name other commands (__complete) */
	const struct cli_cmd *commands;
	cli_output output;
	int quiet;
	int verbose;            /* -v: more; -vv: HTTP requests, secrets masked */
	const char *cluster;    /* -c, --cluster NAME */
	const char *uri;        /* --uri URL */
	const char *user;       /* -u, --user NAME */
	const char *token_file; /* --token-file FILE */
	const char *config;     /* --config FILE */
	const char *cacert;     /* --cacert FILE */
	int insecure;           /* --insecure */
	int color;	/* --color: CLI_COLOR_AUTO, _ALWAYS or _NEVER */
	int completing; /* __complete: never start the local cluster, give up
			   fast */
	int strict_host_keys; /* logs --strict-host-keys: for Slurm's SFTP */
} cli_ctx;

typedef struct cli_cmd {
	const char *name;
	int (*fn)(cli_ctx *ctx, int argc, char **argv);
	const cli_opt *opts; /* terminated by a zeroed entry */
	const char *args;    /* synopsis of the operands, e.g. "FILE..." */
	const char *summary;
} cli_cmd;

#define CLI_OPT_END                                                            \
	{                                                                      \
		NULL, 0, NULL, NULL, NULL                                      \
	}

/* ---- color.c: whether to colour, and with what ------------------------ */

/* --color: when to colour */
enum { CLI_COLOR_AUTO = 0, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

/* 1 when what goes to f may be coloured: --color=always, or by default
 * (auto) when f is a terminal, $NO_COLOR is unset or empty and $TERM is
 * not "dumb"; --color=never: 0. The last --color given counts (a global
 * option, so that the diagnostics printers need no cli_ctx). */
int cli_color(FILE *f);
/* SGR sequences: on for the word of a severity ("error", "warning") or a
 * job state's name ("FAILED"), "" for the others; CLI_SGR_OFF after. */
const char *cli_sgr(const char *word);
#define CLI_SGR_OFF "\033[0m"
/* Sets what --color said: CLI_COLOR_AUTO, _ALWAYS or _NEVER. */
void cli_color_set(int when);

/* ---- output.c: results on stdout ------------------------------------ */

/* Prints o (stolen) on stdout, indented, and a newline; -1 when o is
 * NULL (out of memory) or writing failed. */
int cli_print_json(json_t *o);

/* Prints a table: the first row is the header; columns padded to their
 * widest cell, two spaces apart. */
void cli_table_print(FILE *f, size_t ncols, size_t nrows,
		     const char *const *cells);
/* "2024-05-01 12:00:00" in local time, "-" for 0. */
void cli_format_time(char *buf, size_t len, long long ms);

/* ---- html.c: text in a page paictl writes ----------------------------- */

/* s with &, <, > and " as HTML's character references, in out (size
 * bytes, at least 1): 0, or -1 when it does not fit whole (what was
 * written wiped: never a link cut short). */
int cli_html_escape(char *out, size_t size, const char *s);

/* ---- options.c: one table per command drives parsing and --help ----- */

/* Keys of the global options that have no short letter. */
enum {
	CLI_OPT_URI = 1000,
	CLI_OPT_TOKEN_FILE,
	CLI_OPT_CONFIG,
	CLI_OPT_CACERT,
	CLI_OPT_INSECURE,
	CLI_OPT_COLOR
};

/* The global options: accepted before the command and after it. */
extern const cli_opt cli_global_opts[];

/* Parses argv against ctx->command->opts (options and operands may mix, as in
 * GNU tools; "--" ends options). For each option calls on_opt(key, arg,
 * data), which returns 0 or an exit status. Handles -o, -q and --help
 * itself. On success returns -1 and sets *first to the index of the
 * first operand (they are moved to the end of argv); otherwise returns
 * the exit status (EXIT_OK after --help). */
int cli_parse(cli_ctx *ctx, int argc, char **argv,
	      int (*on_opt)(cli_ctx *ctx, int key, const char *arg, void *data),
	      void *data, int *first);

void cli_help(FILE *f, const cli_cmd *cmd);

/* Parses the global options before the command (`paictl -c prod submit
 * job.json`) and shifts them out of argv, keeping argv[0]. Returns -1 to
 * go on, CLI_HELP_ASKED after --help (the caller lists the commands), or
 * the exit status of a usage error. */
int cli_parse_leading(cli_ctx *ctx, int *argc, char ***argv);
#define CLI_HELP_ASKED (-2)

/* The command of commands (ended by a zeroed entry) called name, or
 * NULL. */
const cli_cmd *cli_find_command(const cli_cmd *commands, const char *name);

/* ---- job_file.c: what the commands that read a job config share ---- */

/* Keys of the options every command that reads a job config takes. */
enum { CLI_OPT_FORMAT = 1100, CLI_OPT_SCHEDULER };

/* --scheduler NAME: the cluster's scheduler, one name in every command
 * and profile. */
typedef enum {
	CLI_SCHED_NONE = 0, /* not given */
	CLI_SCHED_HIVED,    /* OpenPAI v1.x's HiveD: its protocol-v2 rules */
	CLI_SCHED_VOLCANO,  /* Kubernetes: Volcano's gang scheduling */
	CLI_SCHED_DEFAULT   /* Kubernetes' default scheduler */
} cli_sched;

/* Parses "hived", "volcano" or "default": 0, or -1 for anything else. */
int cli_sched_from_name(cli_sched *out, const char *name);

/* Those options' table entries: --dialect (-d), --format, --scheduler. */
#define CLI_JOB_OPTS                                                           \
	{"dialect", 'd', "NAME", "openpai|scm",                                \
	 "v1 configs: the cluster's rules, openpai or scm (default: the "     \
	 "cluster's)"},                                                        \
	    {"format", CLI_OPT_FORMAT, "FORMAT", "auto|v1|v2",                 \
	     "v1 (JSON), v2 (protocol YAML) or auto (the default)"},          \
	{                                                                      \
		"scheduler", CLI_OPT_SCHEDULER, "NAME",                        \
		    "hived|volcano|default",                                   \
		    "the cluster's scheduler: hived (OpenPAI's, whose v2 "     \
		    "rules apply by default), volcano or default (Kubernetes)" \
	}

/* What a job config is judged, expanded and converted by: the facts of
 * the cluster it is for. The options say some (given); cli_job_facts()
 * takes the rest from the chosen cluster's profile, the same way in
 * every command. */
typedef struct cli_facts {
	pai_job_options job; /* dialect, format, the v2 rules' scheduler */
	/* a Kubernetes target (kind, namespace, queue, scheduler); its
	 * fs_uri is the default file system for every target */
	pai_k8s_options k8s;
	cli_sched sched; /* --scheduler */
	unsigned given;	 /* CLI_GIVEN_*: what the options said */
	int target;	 /* k8s.kind is the target: given, or the engine of
			    a Kubernetes cluster's profile (job.k8s_kind
			    then says it too) */
} cli_facts;

enum {
	CLI_GIVEN_DIALECT = 1,
	CLI_GIVEN_KIND = 2,
	CLI_GIVEN_NS = 4,
	CLI_GIVEN_QUEUE = 8,
	CLI_GIVEN_SCHED = 16,
	CLI_GIVEN_FS = 32
};

#define CLI_FACTS_INIT                                                         \
	{                                                                      \
		PAI_JOB_OPTIONS_INIT, PAI_K8S_OPTIONS_INIT, CLI_SCHED_NONE, 0, \
		    0                                                          \
	}

/* Handles one of CLI_JOB_OPTS into *f: 0 when done, EXIT_USAGE (after a
 * message) for a bad value, -1 when key is not one of them. */
int cli_job_opt(cli_ctx *ctx, int key, const char *arg, cli_facts *f);
/* A Kubernetes target named (convert --to, expand --target): 0, or -1
 * when kind is no Kubernetes kind (pai_k8s_kind_from_name). */
int cli_k8s_target(cli_facts *f, const char *kind);
/* Another target named (convert --to v2, expand --target slurm): none
 * of Kubernetes, whatever the profile's engine. */
void cli_no_k8s_target(cli_facts *f);

struct cli_conn;
/* What the options did not say of *f, from the chosen cluster's profile
 * (-c, $PAICTL_CLUSTER, 'cluster use'; nothing sent, no token read):
 * its dialect and user (k8s.user: --user, $PAICTL_USER, the profile's,
 * $USER, else NULL); a Kubernetes cluster's engine (as the target),
 * namespace, queue, scheduler and default file system. Strings borrowed from
 * *conn (caller frees it). 0, or the exit status after saying why. */
int cli_job_facts(cli_ctx *ctx, cli_facts *f, struct cli_conn **conn);
/* The same from a cluster resolved already (cli_resolve); a Kubernetes
 * client made from conn afterwards takes --scheduler too. */
void cli_facts_take(cli_facts *f, struct cli_conn *conn);

/* Reads FILE, or standard input for "-"; on failure prints why and
 * returns the exit status (EXIT_NOTFOUND for a file that is missing,
 * unreadable or a directory; EXIT_INVALID for one over the 64 MiB a job
 * config may have). */
int cli_read_input(const cli_ctx *ctx, const char *path, char **out,
		   size_t *len);

/* Prints diagnostics like a compiler, with the source line and a caret. */
void cli_print_diags(FILE *f, const pai_diags *diags, size_t from);
/* One of them. */
void cli_print_diag(FILE *f, const pai_diag *d);

/* ---- paths.c: paictl's files --------------------------------------- */

/* getenv(name), or NULL where it is unset or empty. */
const char *cli_env(const char *name);
/* Files: the profiles ($PAICTL_CONFIG, $XDG_CONFIG_HOME/paictl/
 * config.json) and paictl's state directory ($XDG_STATE_HOME/paictl).
 * New strings (caller frees); NULL when there is no HOME either. */
char *cli_config_path(const cli_ctx *ctx);
char *cli_state_dir(void);
/* mkdir -p with mode 0700 for the directories that are created. */
int cli_mkdirs(const char *path);
/* Loads the profiles; prints why on failure and returns the status. */
int cli_load_config(const cli_ctx *ctx, pai_config **out, char **path);

/* ---- signals.c: Ctrl-C, and the clock the loops measure by --------- */

/* Set by Ctrl-C once cli_connect() installed its handler. */
extern volatile int cli_interrupt;
/* Sleeps ms milliseconds; returns 1 when Ctrl-C interrupted it. */
int cli_sleep_ms(long ms);
/* Milliseconds on a monotonic clock. */
long long cli_now_ms(void);

/* ---- connect.c: which cluster, as whom, over what ------------------- */

/* Over the files it is made from: the choice of cluster and user and
 * cli_conn_free() (profile.c), the token (token_source.c), the local
 * cluster (local_cluster.c), how SSH logs in (connect_ssh.c); what they
 * share and no command needs: connect_int.h. */

/* Where the token came from (what to say when it is refused). */
typedef enum {
	CLI_TOKEN_NONE = 0,
	CLI_TOKEN_FILE,	     /* --token-file */
	CLI_TOKEN_ENV,	     /* $PAICTL_TOKEN */
	CLI_TOKEN_STORED,    /* paictl login */
	CLI_TOKEN_LOGIN,     /* logged in just now with $PAICTL_PASSWORD */
	/* the cluster's engine reads its own (a kubeconfig, a JWT, SSH
	 * keys: pai_config_own_credentials()); libpai's detail says */
	CLI_TOKEN_ENGINE
} cli_token_source;

/* A resolved cluster (flag > environment > profile > built-in default)
 * and, once cli_connect() ran, a client for it. */
typedef struct cli_conn {
	pai_client *client; /* NULL until cli_connect() */
	char *cluster;	    /* profile name, e.g. "local"; for messages */
	char *user;
	char *uri;    /* REST base URI ("http://localhost" over a socket) */
	char *socket; /* Unix socket, or NULL */
	char *token;  /* NULL: none */
	cli_token_source token_source;
	char *token_file;
	pai_dialect dialect;
	char *ca_file;
	int insecure;
	char *login_cmd; /* how to log in here, for messages */
	int local;    /* the built-in local cluster: started on demand */
	int relogged; /* logged in again after a 401 (once at most) */
	pai_api api;  /* as the profile says; AUTO: the client finds it */
	/* the profile's api is to be recorded once found (cli_conn_free) */
	char *save_api_in;
	/* the profiles, when c is one of them (NULL: a URI alone, or the
	 * built-in local cluster): the client is opened from it */
	pai_config *cfg;
	/* its engine reads its own credential: no token; --token-file
	 * passed on; credentials says where it comes from (static, from
	 * pai_config_own_credentials()) */
	int own_credentials;
	const char *credentials;
	/* a stop deleted the job (a PaddleJob): cli_wait_job() takes its
	 * being gone for STOPPED */
	int deleted;
	/* user is the password database's: no option, environment or
	 * profile named one */
	int user_guessed;
} cli_conn;

/* Resolves the cluster, user and token without any network traffic.
 * Prints why on failure and returns the exit status; 0 on success
 * (caller frees *out with cli_conn_free()). */
int cli_resolve(cli_ctx *ctx, cli_conn **out);
/* The same but the token: what the profile says, for the commands that
 * send nothing (cli_job_facts). */
int cli_resolve_profile(cli_ctx *ctx, cli_conn **out);
/* Creates the client (starting the local cluster when it does not
 * answer), installs the Ctrl-C handler. Prints why on failure and
 * returns the exit status; 0 on success. */
int cli_connect(cli_ctx *ctx, cli_conn *conn);
/* The client alone, for what sends nothing (submit --dry-run): the
 * local cluster is not started. */
int cli_connect_offline(cli_ctx *ctx, cli_conn *conn);
/* cli_resolve() and cli_connect(). */
int cli_open(cli_ctx *ctx, cli_conn **out);
void cli_conn_free(cli_conn *conn);

/* For the commands that take one JOB operand (argv[first]): checks there
 * is exactly one, connects, and splits it into *user and *name. Returns 0
 * or an exit status after saying why; *conn may be set either way (the
 * caller frees it, and *user and *name, with cli_conn_free() and free()). */
int cli_open_job(cli_ctx *ctx, int argc, char **argv, int first,
		 cli_conn **conn, char **user, char **name);
/* Splits JOB into user and name (the connection's user by default);
 * prints why on failure and returns EXIT_USAGE. */
int cli_job_ref(const cli_ctx *ctx, const cli_conn *conn, const char *ref,
		char **user, char **name);

/* ---- fail.c: a call on the cluster failed --------------------------- */

/* After a call on conn->client failed with err: 1 when it is worth
 * calling again because paictl just logged in with $PAICTL_PASSWORD
 * (after a 401, once per run), else 0. */
int cli_relogin(cli_ctx *ctx, cli_conn *conn, int err);

/* Prints "paictl: CMD: WHAT: <the cluster's reason>" (and how to log in
 * again after a 401) and returns the exit status for err. */
int cli_fail(const cli_ctx *ctx, const cli_conn *conn, int err,
	     const char *what, ...) __attribute__((format(printf, 4, 5)));

/* ---- task_ref.c: a job's task named ROLE [INDEX] (logs, ssh) ------- */

/* The job ref (its status info) has no task role, or no task
 * role-index (index >= 0): says which, listing the job's roles as
 * expand does a config's, and returns status. */
int cli_no_task(const cli_ctx *ctx, int status, const char *ref,
		const pai_job_info *info, const char *role, long index);

/* ---- pace.c: the budget of every loop that asks a cluster again ------ */

/*
 * wait, submit --wait and stop --wait (wait.c), logs -f (cmd_logs.c),
 * and the live line on a terminal that shows their progress, which is
 * redrawn from what the loop has, never asked for:
 *  - at most one round a second (CLI_PACE_MIN_MS), however much news;
 *  - a round without news waits half as long again as the last, up to
 *    the loop's most (logs -f: 5 s, wait: 10 s), news brings it back
 *    to a second; up to a tenth more, so that scripts started together
 *    part;
 *  - where the cluster tells of a job's change itself
 *    (pai_job_get_changed(): the local cluster), the pause is spent
 *    waiting for one, which ends it at once; such rounds come no closer
 *    than CLI_PACE_PUSH_MS;
 *  - a time the cluster named (a 429's or 503's Retry-After) holds
 *    every request: libpai keeps it, across calls and so across rounds;
 *  - what the cluster streams (Kubernetes' watches and log streams,
 *    which libpai holds within one call) keeps the same budget there:
 *    a stream is opened again no sooner than a second after it was
 *    last, and after one that brought nothing, as client-go's reflector
 *    backs off (0.8 s doubling to 30 s, jittered; lib/client/hold.c).
 */
#define CLI_PACE_MIN_MS	 1000
#define CLI_PACE_PUSH_MS 50

typedef struct cli_pace {
	long pause, max; /* ms: the pause after a round without news */
	long long round; /* when the last round began (cli_now_ms) */
	unsigned seed;	 /* the jitter's */
} cli_pace;

/* A loop whose pause grows to max_ms without news. */
void cli_pace_start(cli_pace *p, long max_ms);
/* A round begins now. */
void cli_pace_begin(cli_pace *p);
/* After a round with news or without: ms from now until the next round
 * may begin; the pause grows for the next time when there was none. */
long cli_pace_next(cli_pace *p, int news);
/* Where the cluster tells of changes: ms from now until the next wait
 * for one may begin. */
long cli_pace_push_left(const cli_pace *p);

/* ---- wait.c: waiting for a job to end, for the job commands -------- */

/* Waits for a job to end within the budget of pace.c (polling: about
 * 1 s, growing to 10 s; where the cluster tells of changes, a request
 * it holds until the job changes) and, unless -q, showing its progress
 * on stderr: one live line on a terminal, timestamped lines otherwise.
 * timeout_s < 0: none. Returns 0 with *final set once the job ended, or
 * an exit status after printing why (EXIT_TIMEOUT when the time ran
 * out). *info (if not NULL) gets the last status; caller frees. */
int cli_wait_job(cli_ctx *ctx, cli_conn *conn, const char *user,
		 const char *name, double timeout_s, pai_state *final,
		 pai_job_info **info);
/* --timeout SECONDS, as wait, submit --wait and stop --wait take it:
 * 0, or EXIT_USAGE after saying why. */
int cli_timeout_opt(cli_ctx *ctx, const char *arg, double *timeout_s);

/* ---- ssh_access.c: into the tasks, for ssh, ssh-config and ssh-key -- */

/* How cli_ssh_key_fetch() treats a file there already: a different key
 * is refused (FETCH) or replaced (REPLACE: ssh-key --force); REUSE
 * takes whatever key is there, with no download. */
enum { CLI_KEY_FETCH, CLI_KEY_REUSE, CLI_KEY_REPLACE };
/* The job's private key saved 0400 at file, or by default under the
 * state directory (keys/<cluster>/<user>~<job>), as how says. *path
 * new (caller frees); *existed 1 when the key was there already. Prints
 * why on failure and returns the exit status. */
int cli_ssh_key_fetch(cli_ctx *ctx, cli_conn *conn, const pai_ssh_info *ssh,
		      const char *user, const char *name, const char *ref,
		      const char *file, int how, char **path, int *existed);
/* How paictl ssh and ssh-config log in to a job's tasks. */
typedef struct cli_identity {
	char *key;   /* private key file, or NULL (the agent's keys only) */
	int agent;   /* try the ssh-agent's keys ($SSH_AUTH_SOCK) too */
	int own;     /* the user's own key: the job has none (OpenPAI v1.x) */
	int existed; /* the job's key was saved by an earlier run */
} cli_identity;

/* The user's own private key as OpenSSH looks for it (~/.ssh/id_ed25519,
 * id_ecdsa, id_rsa); new string, or NULL when there is none. */
char *cli_own_key(void);
struct cli_conn;
/* The key this machine logs in to conn's cluster with: the one its
 * profile names (cluster add --identity), else cli_own_key()'s; new
 * string, or NULL when there is none. */
char *cli_conn_key(const struct cli_conn *conn);
/* -i FILE; else the job's key (cli_ssh_key_fetch, reused); else, where
 * the cluster has no job keys, the user's own (~/.ssh/id_ed25519,
 * id_ecdsa, id_rsa as OpenSSH orders them) and the ssh-agent. Prints
 * why on failure and returns the exit status; free id->key. */
int cli_ssh_identity(cli_ctx *ctx, cli_conn *conn, const pai_ssh_info *ssh,
		     const char *user, const char *name, const char *ref,
		     const char *identity, cli_identity *id);
/* The user the cluster's containers take (root, or for the local
 * cluster the user running it); static storage. */
const char *cli_ssh_user(const cli_conn *conn);
/* The task that runs in container id, or NULL. */
const pai_task_info *cli_task_of(const pai_job_info *info, const char *id);
/* s quoted for sh when it needs it; new string, NULL when out of memory. */
char *cli_sh_quote(const char *s);
/* The known_hosts file of conn's cluster:
 * <state>/known_hosts/<cluster>; new string, or NULL (no HOME). */
char *cli_known_hosts_path(const cli_conn *conn);
/* The name a container's host key is recorded under: its id, like
 * OpenSSH's HostKeyAlias; NULL when the id holds characters a
 * known_hosts file cannot (then "[ip]:port"). */
const char *cli_ssh_host_alias(const char *id);

/* ---- cluster_add.c: what `cluster add` makes ------------------------- */

/* The keys of add --slurm's options, and their table entries (in
 * cli_cluster_opts, after the others). */
enum {
	CLI_OPT_SLURM_FIRST = 1200,
	CLI_OPT_PARTITION,
	CLI_OPT_ACCOUNT,
	CLI_OPT_QOS,
	CLI_OPT_WORKDIR,
	CLI_OPT_SSH_HOST,
	CLI_OPT_SSH_PORT,
	CLI_OPT_PYXIS,
	CLI_OPT_VC_PARTITION,
	CLI_OPT_IDENTITY
};
#define CLI_CLUSTER_SLURM_OPTS                                                 \
	{"slurm", CLI_OPT_SLURM_FIRST, "URL", NULL,                            \
	 "add: a Slurm cluster, by its login node (ssh://[user@]host[:port]) " \
	 "or its slurmrestd's URL (no URI operand)"},                          \
	    {"partition", CLI_OPT_PARTITION, "P", NULL,                        \
	     "add --slurm: the jobs' partition (default: the cluster's)"},     \
	    {"account", CLI_OPT_ACCOUNT, "A", NULL,                            \
	     "add --slurm: the account jobs are charged to"},                  \
	    {"qos", CLI_OPT_QOS, "Q", NULL, "add --slurm: the jobs' QOS"},     \
	    {"workdir", CLI_OPT_WORKDIR, "DIR", NULL,                          \
	     "add --slurm: where job directories go; every node must see "     \
	     "it (a shared file system)"},                                     \
	    {"ssh-host", CLI_OPT_SSH_HOST, "HOST", NULL,                       \
	     "add --slurm: a login node whose SFTP reads the job "            \
	     "directories from elsewhere"},                                    \
	    {"ssh-port", CLI_OPT_SSH_PORT, "N", NULL,                          \
	     "add --slurm: the SSH port of the nodes and --ssh-host "          \
	     "(default 22)"},                                                  \
	    {"pyxis", CLI_OPT_PYXIS, NULL, NULL,                               \
	     "add --slurm: the site has Pyxis: tasks run in the job's image"}, \
	    {"vc-partition", CLI_OPT_VC_PARTITION, NULL, NULL,                 \
	     "add --slurm: a config's virtualCluster names the partition"},    \
	{                                                                      \
		"identity", CLI_OPT_IDENTITY, "FILE", NULL,                    \
		    "add --slurm ssh://: the private key that logs in to the " \
		    "login node (default: paictl's, ssh-agent's)"              \
	}

/* What add --slurm's options said. */
typedef struct cli_slurm_add {
	const char *url; /* --slurm */
	pai_slurm_cluster s;
	int given;    /* an option but --slurm was */
	char *abs[2]; /* relative files made absolute (cli_cluster_add's) */
} cli_slurm_add;

/* One of add --slurm's options into *a: 0, EXIT_USAGE after saying
 * why, or -1 when key is not one. */
int cli_cluster_slurm_opt(cli_ctx *ctx, cli_slurm_add *a, int key,
			  const char *arg);
/* add's operands (nargs; -1: an add without --slurm, whose options
 * then must not be given): 0 or the usage status after saying why. */
int cli_cluster_slurm_check(const cli_ctx *ctx, const cli_slurm_add *a,
			    int nargs);
/* cluster add NAME --slurm URL: the profile p (its user, CA, insecure
 * as given) and a's settings; the global --token-file as the profile's.
 * Relative files made absolute in a->abs (caller frees). */
int cli_cluster_slurm_add(const cli_ctx *ctx, pai_config *cfg, pai_profile *p,
			  cli_slurm_add *a, const char *name);
/* The profile just saved, opened as any command opens it and checked as
 * far as its engine can (pai_client_probe(): a login node logged in
 * to, its Slurm's version said). 0, or the exit status after saying
 * why. */
int cli_cluster_probe(const cli_ctx *ctx, const char *name);

/* ---- the commands: one file each, cmd_<name>.c ------------------------ */

int cmd_validate(cli_ctx *ctx, int argc, char **argv);
int cmd_expand(cli_ctx *ctx, int argc, char **argv);
int cmd_convert(cli_ctx *ctx, int argc, char **argv);

extern const cli_opt cli_validate_opts[];
extern const cli_opt cli_expand_opts[];
extern const cli_opt cli_convert_opts[];
int cmd_serve(cli_ctx *ctx, int argc, char **argv);
extern const cli_opt cli_serve_opts[];
int cmd_web(cli_ctx *ctx, int argc, char **argv);
extern const cli_opt cli_web_opts[];
int cmd_cluster(cli_ctx *ctx, int argc, char **argv);
int cmd_login(cli_ctx *ctx, int argc, char **argv);
int cmd_submit(cli_ctx *ctx, int argc, char **argv);
int cmd_list(cli_ctx *ctx, int argc, char **argv);
int cmd_status(cli_ctx *ctx, int argc, char **argv);
int cmd_wait(cli_ctx *ctx, int argc, char **argv);
int cmd_stop(cli_ctx *ctx, int argc, char **argv);
int cmd_delete(cli_ctx *ctx, int argc, char **argv);
int cmd_logs(cli_ctx *ctx, int argc, char **argv);
int cmd_ssh_key(cli_ctx *ctx, int argc, char **argv);
extern const cli_opt cli_cluster_opts[];
extern const cli_opt cli_login_opts[];
extern const cli_opt cli_submit_opts[];
extern const cli_opt cli_list_opts[];
extern const cli_opt cli_status_opts[];
extern const cli_opt cli_wait_opts[];
extern const cli_opt cli_stop_opts[];
extern const cli_opt cli_delete_opts[];
extern const cli_opt cli_logs_opts[];
extern const cli_opt cli_ssh_key_opts[];
int cmd_ssh(cli_ctx *ctx, int argc, char **argv);
int cmd_ssh_config(cli_ctx *ctx, int argc, char **argv);
extern const cli_opt cli_ssh_opts[];
extern const cli_opt cli_ssh_config_opts[];
/* paictl __complete WORDS...: hidden, for the shell completions. */
int cmd_complete(cli_ctx *ctx, int argc, char **argv);

#endif /* CLI_H */
