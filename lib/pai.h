/*
 * pai.h - libpai, the library behind paictl: job configs, validation,
 * expansion of the runtime environment, and (later) the cluster clients.
 *
 * This is libpai's only public header. libpai never prints, never exits
 * and never aborts: every function returns PAI_OK (0) or a negative
 * pai_error, and keeps the detail on the handle it was given.
 *
 * Conventions: outputs come first and are set to NULL on entry; every
 * _free accepts NULL; strings returned as `const char *` are borrowed
 * from the handle that returned them, and every `json_t *` says whether
 * the reference is new or borrowed.
 */
#ifndef PAI_H
#define PAI_H

#include <stddef.h>
#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libpai.so exports what this header declares and nothing else: the
 * library is built with -fvisibility=hidden (and lib/libpai.map). */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

#define PAI_VERSION "0.1.0"

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/**
 * Error codes. Append only: a code, once published, keeps its number.
 */
typedef enum pai_error {
	PAI_OK = 0,
	PAI_ERROR = -1,	    /**< failure not covered by another code */
	PAI_ENOMEM = -2,    /**< out of memory */
	PAI_EINVAL = -3,    /**< a caller passed an invalid argument */
	PAI_ENOTFOUND = -4, /**< no such file, directory entry or object */
	PAI_EIO = -5,	    /**< reading or writing failed */
	PAI_EACCES = -6,    /**< permission denied */
	PAI_ESYNTAX = -7,   /**< a job config is not well-formed JSON or YAML */
	PAI_EINVALID = -8,  /**< a job config breaks a validation rule */
	PAI_EISDIR = -9,    /**< a directory where a file was expected */
	PAI_ETOOBIG = -10,  /**< input larger than the library accepts */
	PAI_EAUTH = -11,    /**< not authenticated: no token, or it expired (401) */
	PAI_EFORBIDDEN = -12,   /**< authenticated, but not allowed (403) */
	PAI_ECONFLICT = -13,    /**< the job exists already (409) */
	PAI_EUNREACHABLE = -14, /**< no answer: refused, no such host, timed out */
	PAI_ETIMEOUT = -15,     /**< a wait ran out of time */
	PAI_EHTTP = -16,        /**< any other HTTP error status */
	PAI_EPROTOCOL = -17,    /**< a response not shaped as the API documents */
	PAI_EINTR = -18,        /**< interrupted by the caller (Ctrl-C) */
	PAI_ETLS = -19,         /**< the server's certificate was not trusted */
	PAI_EHOSTKEY = -20, /**< an SSH host key differs from the recorded one */
	PAI_ELIBRARY = -21, /**< libcurl or libssh2, which libpai opens when
			     * first needed, cannot be loaded */
	PAI_ENOTSUP = -22   /**< the cluster has no such operation (OpenPAI:
			     * no notice of a job's change; Kubernetes: no
			     * login, no SSH keys) */
} pai_error;

/** A short English description of @p err; never NULL, static storage. */
const char *pai_strerror(int err);

/**
 * "Did you mean": the one of the @p n @p names nearest to @p word, as
 * libpai's diagnostics suggest a field's name (a case-insensitive edit
 * distance of at most a third of the word's length plus one, and 3; the
 * first of equals); NULL when none is that near. Borrowed from
 * @p names.
 */
const char *pai_suggest(const char *word, const char *const *names,
			size_t n);

/**
 * Reads a whole file into memory. @p path "-" is not special here: the
 * caller reads standard input itself and passes the bytes to
 * pai_job_parse(). On failure returns PAI_ENOTFOUND (ENOENT, ENOTDIR),
 * PAI_EISDIR, PAI_EACCES or PAI_EIO and sets *sys_errno (if not NULL)
 * to the errno that caused it.
 *
 * @param out  new buffer, NUL-terminated; caller frees with free()
 * @param len  bytes read, not counting the terminating NUL
 */
int pai_file_read(char **out, size_t *len, int *sys_errno, const char *path);

/**
 * pai_file_read() with a bound: PAI_ETOOBIG, with *sys_errno 0 and *out
 * NULL, when @p path holds more than @p max bytes. A regular file is
 * refused from its size without being read; anything else (a pipe, a
 * device, a file that grows) is read no further than byte max + 1.
 * pai_file_read() is this with a @p max of SIZE_MAX.
 */
int pai_file_read_max(char **out, size_t *len, int *sys_errno, const char *path,
		      size_t max);

/**
 * pai_file_read_max() of an open descriptor, read from where it stands
 * to its end (standard input: a pipe, a terminal, a socket, which
 * /dev/stdin cannot always reopen). @p fd stays open; the caller
 * closes it.
 */
int pai_fd_read_max(char **out, size_t *len, int *sys_errno, int fd,
		    size_t max);

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

typedef enum pai_severity {
	PAI_SEVERITY_ERROR = 0,
	PAI_SEVERITY_WARNING = 1
} pai_severity;

/**
 * One problem found in a job config. Every string is borrowed from the
 * pai_diags that holds it and valid until pai_diags_free().
 */
typedef struct pai_diag {
	pai_severity severity;
	const char *file;    /**< the name given to pai_job_parse() */
	unsigned line;	     /**< 1-based; 0 when the problem has no place */
	unsigned column;     /**< 1-based, in characters (code points) */
	const char *path;    /**< JSON path, e.g. "taskRoles[1].memoryMB"; "" is
				the top level */
	const char *rule;    /**< stable rule id, e.g. "min-memory" */
	const char *message; /**< what was expected and what was found */
	/**
	 * The source line of the problem, clipped to at most ~160 characters
	 * around it, without its newline; NULL when line is 0.
	 */
	const char *excerpt;
	/** 1-based column of the problem within @c excerpt (for a caret). */
	unsigned excerpt_column;
} pai_diag;

/** An ordered list of diagnostics, possibly from several files. */
typedef struct pai_diags pai_diags;

/** Creates an empty list; caller frees with pai_diags_free(). */
int pai_diags_new(pai_diags **out);
void pai_diags_free(pai_diags *diags);
size_t pai_diags_count(const pai_diags *diags);
/** Borrowed; valid until pai_diags_free(). NULL when @p i is out of range. */
const pai_diag *pai_diags_get(const pai_diags *diags, size_t i);
size_t pai_diags_errors(const pai_diags *diags);
size_t pai_diags_warnings(const pai_diags *diags);
/**
 * The list as a JSON array of objects {file, line, column, path,
 * severity ("error"|"warning"), rule, message}. New reference; NULL only
 * when out of memory.
 */
json_t *pai_diags_to_json(const pai_diags *diags);

/* ------------------------------------------------------------------ */
/* Job configs                                                         */
/* ------------------------------------------------------------------ */

/** Which cluster's rules a config is validated against. */
typedef enum pai_dialect {
	PAI_DIALECT_OPENPAI = 0, /**< Microsoft OpenPAI v0.x (the default) */
	PAI_DIALECT_SCM =
	    1 /**< the SCM fork: storageGB, and its web form's "tmp" */
} pai_dialect;

/** Parses "openpai" or "scm"; PAI_EINVAL for anything else. */
int pai_dialect_from_name(pai_dialect *out, const char *name);
/** "openpai" or "scm"; static storage. */
const char *pai_dialect_name(pai_dialect dialect);

/** The two formats of a job config. */
typedef enum pai_format {
	PAI_FORMAT_AUTO = 0, /**< decide from the content and the file name */
	PAI_FORMAT_V1 = 1,   /**< OpenPAI v0.x JSON (jobName, taskRoles[]) */
	PAI_FORMAT_V2 = 2    /**< protocol-v2 YAML (OpenPAI >= 1.0) */
} pai_format;

/** Parses "v1", "v2" or "auto"; PAI_EINVAL for anything else. */
int pai_format_from_name(pai_format *out, const char *name);
/** "v1", "v2" or "auto"; static storage. */
const char *pai_format_name(pai_format format);

/**
 * The format a config is in, judged from its content and its file name
 * as pai_job_parse() does with PAI_FORMAT_AUTO: a top-level
 * protocolVersion key, or a text that is not JSON (YAML), or a name
 * ending in .yaml or .yml, is protocol v2; anything else v1.
 */
pai_format pai_format_detect(const char *name, const char *text, size_t len);

/**
 * Reads a config as data, without judging it: JSON (comments allowed) or
 * YAML as js-yaml reads it, by @p format (PAI_FORMAT_AUTO: as
 * pai_format_detect() says). For leaving the checks to the cluster
 * (submit --no-validate). *out is a new reference; PAI_ESYNTAX after
 * adding a diagnostic, PAI_ENOMEM.
 */
int pai_config_read(json_t **out, pai_diags *diags, const char *name,
		    const char *text, size_t len, pai_format format);

/** The scheduler of an OpenPAI v1.x cluster: some protocol-v2 rules
 * depend on it. */
typedef enum pai_scheduler {
	PAI_SCHEDULER_HIVED = 0,  /**< HiveD, v1.8.0's default */
	PAI_SCHEDULER_DEFAULT = 1 /**< Kubernetes' default scheduler */
} pai_scheduler;

/** Parses "hived" or "default"; PAI_EINVAL for anything else. */
int pai_scheduler_from_name(pai_scheduler *out, const char *name);
/** "hived" or "default"; static storage. */
const char *pai_scheduler_name(pai_scheduler scheduler);

typedef struct pai_job_options {
	unsigned version; /**< PAI_JOB_OPTIONS_VERSION (1, 2 or 3) */
	pai_dialect dialect; /**< v1 configs only */
	/* since version 2: */
	pai_format format;	 /**< PAI_FORMAT_AUTO: detect */
	pai_scheduler scheduler; /**< v2 configs only */
	/* since version 3: */
	/**
	 * The Kubernetes kind whose pods the tasks are, a pai_k8s_kind (0:
	 * none, the cluster's own runtime only): the variables its
	 * controller sets in the pods itself (a PyTorchJob's MASTER_ADDR,
	 * RANK...; see pai_k8s_expand_task()) count as defined where the
	 * commands' references are checked. pai_job_to_k8s() sets it from
	 * its own options.
	 */
	int k8s_kind;
} pai_job_options;

#define PAI_JOB_OPTIONS_VERSION 3
#define PAI_JOB_OPTIONS_INIT                                                   \
	{                                                                      \
		PAI_JOB_OPTIONS_VERSION, PAI_DIALECT_OPENPAI,                  \
		    PAI_FORMAT_AUTO, PAI_SCHEDULER_HIVED, 0                    \
	}

/** A parsed, valid job config. */
typedef struct pai_job pai_job;

/**
 * Parses a job config (JSON with // and block comments) and checks it
 * against every rule of its dialect, appending every problem found to
 * @p diags in source order. @p name is the file name the diagnostics
 * carry ("<stdin>" for standard input).
 *
 * Returns PAI_OK and sets *out when the config has no errors (it may
 * have warnings); PAI_ESYNTAX when the text is not well-formed JSON and
 * PAI_EINVALID when it breaks a rule (*out stays NULL in both cases and
 * the reasons are in @p diags); PAI_ENOMEM; PAI_EINVAL for a NULL
 * argument, an options version this library does not know or a
 * k8s_kind that is none.
 *
 * @param out  caller frees with pai_job_free()
 * @param text need not be NUL-terminated; not retained
 */
int pai_job_parse(pai_job **out, pai_diags *diags, const char *name,
		  const char *text, size_t len, const pai_job_options *opts);

/**
 * The verdict of pai_job_parse() alone: the same return value and the
 * same diagnostics, without the job. A config's task roles are read one
 * at a time, so that a config of thousands of them is never whole in
 * memory: what `paictl validate` needs.
 *
 * @param text need not be NUL-terminated; not retained
 */
int pai_job_check(pai_diags *diags, const char *name, const char *text,
		  size_t len, const pai_job_options *opts);

void pai_job_free(pai_job *job);

/** The job's name. Borrowed; valid until pai_job_free(). */
const char *pai_job_name(const pai_job *job);

/** The dialect the job was validated with. */
pai_dialect pai_job_dialect(const pai_job *job);

/** The job's format: PAI_FORMAT_V1 or PAI_FORMAT_V2, never AUTO. */
pai_format pai_job_format(const pai_job *job);

/**
 * The config as it is submitted: comments stripped, numeric strings and
 * integral reals turned into integers, and dialect-only leftovers (the
 * SCM web form's "tmp") removed. Key order is the file's. For a
 * protocol-v2 job: the YAML document as the server loads it, as JSON
 * (a date or binary value is an empty object, as JSON can say no more).
 * Borrowed reference; valid until pai_job_free(). Callers must not
 * modify it.
 */
json_t *pai_job_config(const pai_job *job);

/** Number of task roles (at least 1). */
size_t pai_job_role_count(const pai_job *job);

/** One task role, with the cluster's defaults filled in. */
typedef struct pai_role {
	const char *name; /**< borrowed from the job */
	long long task_number;
	long long cpu_number;
	long long memory_mb;
	long long shm_mb; /**< 64 when not given */
	long long gpu_number;
	long long min_failed;	 /**< -1 means null; 1 when not given */
	long long min_succeeded; /**< -1 means null (the default) */
	const char *command;	 /**< borrowed from the job */
	size_t port_count; /**< entries in the role's effective port list */
} pai_role;

/**
 * Fills @p out with task role @p i (0-based, in file order). PAI_EINVAL
 * when @p i is out of range.
 */
int pai_job_role(pai_role *out, const pai_job *job, size_t i);

/** Index of the role named @p name, or -1. */
long pai_job_role_index(const pai_job *job, const char *name);

/** One entry of a role's effective port list. */
typedef struct pai_port {
	const char *label;  /**< borrowed from the job */
	long long begin_at; /**< 0: any free port */
	long long
	    port_number; /**< how many ports of this label each task gets */
	int implicit;	 /**< 1 when added by the cluster, not in the config */
} pai_port;

/**
 * Port @p k of role @p role's effective port list: the config's
 * portList in order, then an `http` and an `ssh` port (one each, any
 * free port) when the role does not list those labels itself, as the
 * cluster allocates them for the host lists and SSH.
 */
int pai_job_port(pai_port *out, const pai_job *job, size_t role, size_t k);

/**
 * Converts the job config @p text to the format @p to: PAI_FORMAT_V2
 * gives protocol-v2 YAML with the mapping OpenPAI's own converter uses
 * (comments of a v1 config kept where YAML can hold them), PAI_FORMAT_V1
 * a v0.x JSON config. The config is parsed and validated first as
 * pai_job_parse() does with @p opts. Returns PAI_ESYNTAX or PAI_EINVALID
 * when the config is not valid, or when it uses something the target
 * format cannot express (each construct named in @p diags with its
 * place and a rule id); *out is then NULL. What is written always
 * validates in its format.
 *
 * @param out  new, NUL-terminated; caller frees with free()
 * @param len  bytes of *out, not counting the NUL (may be NULL)
 */
int pai_job_convert(char **out, size_t *len, pai_diags *diags,
		    const char *name, const char *text, size_t text_len,
		    const pai_job_options *opts, pai_format to);

/* ------------------------------------------------------------------ */
/* Expansion: each task's runtime environment and command              */
/* ------------------------------------------------------------------ */

/**
 * Where each task was placed. Every callback may be NULL, and may return
 * NULL (or 0 for a port) for "not known yet": the expansion then shows a
 * readable placeholder such as "<ip:worker-1>" or "<port:worker-1:ssh>".
 * Roles and ports are numbered as in pai_job_role() and pai_job_port().
 */
typedef struct pai_placement {
	void *data;
	const char *(*ip)(void *data, size_t role, size_t index);
	const char *(*container_id)(void *data, size_t role, size_t index);
	const char *(*work_dir)(void *data, size_t role, size_t index);
	/** The @p n-th port (0-based) of port label @p k of a task. */
	unsigned (*port)(void *data, size_t role, size_t index, size_t k,
			 size_t n);
} pai_placement;

typedef struct pai_expand_options {
	unsigned version;   /**< PAI_EXPAND_OPTIONS_VERSION */
	const char *user;   /**< the submitting user; NULL: "<user>" */
	const char *fs_uri; /**< the cluster's HDFS URI; NULL: "<default-fs>" */
	const pai_placement
	    *placement; /**< NULL: everything placed is a placeholder */
} pai_expand_options;

#define PAI_EXPAND_OPTIONS_VERSION 1
#define PAI_EXPAND_OPTIONS_INIT                                                \
	{                                                                      \
		PAI_EXPAND_OPTIONS_VERSION, NULL, NULL, NULL                   \
	}

/** The directories after the server's submit-time substitution. */
typedef struct pai_dirs pai_dirs;

/**
 * Substitutes $PAI_DEFAULT_FS_URI, $PAI_JOB_NAME, $PAI_USER_NAME and
 * $PAI_USERNAME in authFile, dataDir, outputDir and codeDir, and gives
 * an empty outputDir its default, exactly as the server does on submit.
 * Caller frees with pai_dirs_free().
 */
int pai_expand_dirs(pai_dirs **out, const pai_job *job,
		    const pai_expand_options *opts);
void pai_dirs_free(pai_dirs *dirs);
/** Borrowed; "" when the config has none. Valid until pai_dirs_free(). */
const char *pai_dirs_auth_file(const pai_dirs *dirs);
const char *pai_dirs_data_dir(const pai_dirs *dirs);
const char *pai_dirs_output_dir(const pai_dirs *dirs);
const char *pai_dirs_code_dir(const pai_dirs *dirs);

/** One task's environment, in a stable order, and its command. */
typedef struct pai_env pai_env;

/**
 * Builds the full runtime environment of task @p index of role @p role:
 * every variable and alias of the cluster's table, jobEnvs last (values
 * literal, as strings), and the role's command with every variable that
 * the environment defines substituted the way bash would see it (not
 * inside single quotes, not after a backslash). PAI_EINVAL when @p role
 * or @p index is out of range. Caller frees with pai_env_free().
 */
int pai_expand_task(pai_env **out, const pai_job *job, size_t role,
		    size_t index, const pai_expand_options *opts);
void pai_env_free(pai_env *env);
size_t pai_env_count(const pai_env *env);
/** Borrowed; valid until pai_env_free(). NULL when @p i is out of range. */
const char *pai_env_name(const pai_env *env, size_t i);
const char *pai_env_value(const pai_env *env, size_t i);
/** The value of @p name, or NULL. Borrowed. */
const char *pai_env_get(const pai_env *env, const char *name);
/** The expanded command. Borrowed; valid until pai_env_free(). */
const char *pai_env_command(const pai_env *env);
/**
 * 1 when variable @p i of @p env is one that a Kubernetes kind's own
 * controller sets in the pod itself, neither the job nor the runtime
 * (pai_k8s_expand_task(): a PyTorchJob's MASTER_ADDR and RANK, Volcano's
 * VC_TASK_INDEX...); 0 otherwise, and when @p i is out of range.
 */
int pai_env_by_controller(const pai_env *env, size_t i);

/**
 * The command a task of role @p role runs, as the cluster hands it to
 * bash: a v0.x role's command as written; for protocol v2, OpenPAI
 * v1.x's entrypoint (the default deployment's preCommands, commands and
 * postCommands, templates rendered) with the job's secrets in place,
 * where pai_env_command() shows them masked. *out new (caller frees).
 */
int pai_job_role_entrypoint(char **out, const pai_job *job, size_t role);

/* ------------------------------------------------------------------ */
/* Kubernetes: the job as a Volcano Job or a PaddleJob                 */
/* ------------------------------------------------------------------ */

typedef enum pai_k8s_kind {
	PAI_K8S_VOLCANO = 1,   /**< batch.volcano.sh/v1alpha1 Job */
	PAI_K8S_PADDLEJOB = 2, /**< batch.paddlepaddle.org/v1 PaddleJob */
	PAI_K8S_JOBSET = 3,    /**< jobset.x-k8s.io/v1alpha2 JobSet */
	PAI_K8S_PYTORCHJOB = 4, /**< kubeflow.org/v1 PyTorchJob */
	PAI_K8S_TRAINJOB = 5, /**< trainer.kubeflow.org/v1alpha1 TrainJob */
	PAI_K8S_MPIJOB = 6    /**< kubeflow.org/v2beta1 MPIJob */
} pai_k8s_kind;

/** Parses "volcano", "paddlejob", "jobset", "pytorchjob", "trainjob" or
 * "mpijob"; PAI_EINVAL for anything else. */
int pai_k8s_kind_from_name(pai_k8s_kind *out, const char *name);
/** "volcano", "paddlejob", "jobset", "pytorchjob", "trainjob" or "mpijob" (how --to, --engine
 * and profiles name the kind); "unknown" for no kind; static storage. */
const char *pai_k8s_kind_name(pai_k8s_kind kind);

typedef enum pai_k8s_scheduler {
	PAI_K8S_SCHED_VOLCANO = 0, /**< gang scheduling by Volcano */
	PAI_K8S_SCHED_DEFAULT = 1  /**< Kubernetes' default scheduler */
} pai_k8s_scheduler;

typedef struct pai_k8s_options {
	unsigned version; /**< PAI_K8S_OPTIONS_VERSION */
	pai_k8s_kind kind;
	const char *ns;	   /**< metadata.namespace, or NULL: none written */
	const char *queue; /**< the Volcano queue, or NULL: "default" */
	pai_k8s_scheduler scheduler;
	const char *user; /**< for $PAI_USER_NAME; NULL: not defined */
	/**
	 * Version 2: the cluster's default file system ($PAI_DEFAULT_FS_URI,
	 * and the HDFS directories under it), e.g. "hdfs://nn:9000"; NULL:
	 * none, and a command that reads those variables is refused.
	 */
	const char *fs_uri;
	/**
	 * Version 3: a TrainJob's runtime (spec.runtimeRef.name); NULL:
	 * "torch-distributed". runtime_namespaced: 1 for a TrainingRuntime
	 * of the job's namespace, 0 for a ClusterTrainingRuntime.
	 */
	const char *runtime;
	int runtime_namespaced;
} pai_k8s_options;

#define PAI_K8S_OPTIONS_VERSION 3
#define PAI_K8S_OPTIONS_INIT                                                   \
	{                                                                      \
		PAI_K8S_OPTIONS_VERSION, PAI_K8S_VOLCANO, NULL, NULL,          \
		    PAI_K8S_SCHED_VOLCANO, NULL, NULL, NULL, 0                 \
	}

/**
 * Converts the job config @p text (either format, parsed and validated
 * as pai_job_parse() does with @p jopts) to Kubernetes objects as one
 * YAML stream: a ConfigMap with the $PAI_* variables every pod shares,
 * then the Volcano Job or PaddleJob. Each pod gets the environment
 * OpenPAI's runtime would give its task, with the pods' DNS names in
 * place of IPs, and runs the command byte for byte through `bash -c`.
 * Names Kubernetes cannot take are derived (a warning with rule
 * "k8s-name" says so). What Kubernetes cannot express is an error in
 * @p diags (rules "k8s-*", PAI_EINVALID, *out NULL), or a warning where
 * the result is close.
 *
 * @param out  new, NUL-terminated; caller frees with free()
 * @param len  bytes of *out (may be NULL)
 */
int pai_job_to_k8s(char **out, size_t *len, pai_diags *diags,
		   const char *name, const char *text, size_t text_len,
		   const pai_job_options *jopts, const pai_k8s_options *opts);

/**
 * The environment and command of task @p index of role @p role as the
 * pod that pai_job_to_k8s() writes sees them: the pod's DNS name stands
 * for its IP, the working directory is a placeholder, and what
 * Kubernetes cannot give ($PAI_DEFAULT_FS_URI and the dirs on it, the
 * v1.x framework's ids) is absent. After the pod's own come the
 * variables the kind's controller sets in it (pai_env_by_controller()
 * says which), as it would set them: a PyTorchJob's MASTER_ADDR,
 * MASTER_PORT, WORLD_SIZE, RANK and PET_*, Volcano's VC_TASK_INDEX and
 * VC_<TASK>_HOSTS..., a PaddleJob's PADDLE_*, an Indexed Job's
 * JOB_COMPLETION_INDEX; the command sees them too. It does not check
 * that the job can be converted; pai_job_to_k8s() does. Caller frees
 * with pai_env_free().
 */
int pai_k8s_expand_task(pai_env **out, const pai_job *job, size_t role,
			size_t index, const pai_k8s_options *opts);


/* ------------------------------------------------------------------ */
/* Clusters: the REST client                                           */
/* ------------------------------------------------------------------ */

/*
 * The client speaks in jobs, tasks and logs; which API version's paths
 * and JSON shapes carry them is the library's business: one module per
 * API behind the same functions (lib/client/api/: OpenPAI v0.x's v1
 * REST API, v1.x's v2 API, the local cluster, Kubernetes).
 */

/** A connection to one cluster; not thread-safe (one per thread). */
typedef struct pai_client pai_client;

typedef struct pai_client_options {
	unsigned version; /**< PAI_CLIENT_OPTIONS_VERSION */
	/**
	 * The REST server's base URI, e.g. "https://pai.example.com/rest-server"
	 * ("/api/v1/..." is appended). With unix_socket, the URI gives only the
	 * Host and path prefix, e.g. "http://localhost".
	 */
	const char *uri;
	const char *unix_socket; /**< HTTP over this Unix socket, or NULL */
	const char *token;       /**< bearer token, or NULL */
	const char *ca_file;     /**< PEM bundle to trust, or NULL: the system's */
	int insecure;            /**< 1: do not verify TLS certificates */
	long connect_timeout_ms; /**< 0: 10,000 */
	long stall_timeout_s;    /**< a transfer idle this long fails; 0: 30 */
	int max_retries;         /**< retries of a safe request; -1: 4 */
	/**
	 * All retries of one call within this; and the longest wait a
	 * server may ask for (a 429's or 503's Retry-After) that a call
	 * waits out: one asking longer fails at once, PAI_EHTTP with the
	 * status kept. 0: 60,000.
	 */
	long retry_max_ms;
	/** Called with each request and response line (secrets masked). */
	void (*trace)(void *data, const char *line);
	void *trace_data;
	/** Transfers stop with PAI_EINTR once *interrupt is non-zero. */
	volatile int *interrupt;
} pai_client_options;

#define PAI_CLIENT_OPTIONS_VERSION 1
#define PAI_CLIENT_OPTIONS_INIT                                              \
	{ PAI_CLIENT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 0, 0, 0, -1, 0, \
	  NULL, NULL, NULL }

/**
 * Caller frees with pai_client_free(). The options' strings are copied.
 * The first client opens libcurl: PAI_ELIBRARY when it cannot.
 */
int pai_client_new(pai_client **out, const pai_client_options *opts);

/** Which REST API a cluster speaks. */
typedef enum pai_api {
	PAI_API_AUTO = 0, /**< not known yet: pai_api_detect() finds it */
	PAI_API_V1 = 1,   /**< OpenPAI v0.x: /api/v1, JSON configs */
	PAI_API_V2 = 2,   /**< OpenPAI v1.x: /api/v2, protocol-v2 YAML */
	/**
	 * Both, for every job: paictl's local cluster. Calls go through
	 * /api/v1, which takes protocol-v2 configs as they are and runs
	 * them as a v1.x cluster would; /api/v2 answers too.
	 */
	PAI_API_DUAL = 3,
	/**
	 * A Kubernetes API server, jobs as Volcano Jobs or PaddleJobs:
	 * only a client made by pai_client_new_k8s() speaks it.
	 */
	PAI_API_K8S = 4,
	/**
	 * A Slurm cluster's slurmrestd, each job a Slurm batch job: only a
	 * client made by pai_client_new_slurm() speaks it.
	 */
	PAI_API_SLURM = 5
} pai_api;

/** Parses "auto", "v1", "v2", "dual", "k8s" or "slurm"; PAI_EINVAL for
 * anything else. */
int pai_api_from_name(pai_api *out, const char *name);
/** "auto", "v1", "v2", "dual", "k8s" or "slurm"; static storage. */
const char *pai_api_name(pai_api api);

/**
 * Asks the cluster which API it speaks: GET <base>/api/v2/info. An
 * answer with launcherType "k8s" and a version "v1.*" is PAI_API_V2;
 * launcherType "paictl" (the local cluster) PAI_API_DUAL; a 404 (a v0.x
 * cluster has no such route) or any other answer PAI_API_V1. Errors:
 * unreachable, TLS, and the like, as every call.
 */
int pai_api_detect(pai_api *out, pai_client *c);
/** The API the client's calls use (PAI_API_AUTO: as PAI_API_V1). */
int pai_client_set_api(pai_client *c, pai_api api);
pai_api pai_client_api(const pai_client *c);
void pai_client_free(pai_client *c);
/** Replaces the bearer token (NULL: none); copied. */
int pai_client_set_token(pai_client *c, const char *token);

/**
 * Told before a request waits because the cluster asked for it: a 429
 * or a 503 whose Retry-After (seconds or an HTTP date) names a time no
 * request of @p c goes out before, in the call that got it and in the
 * calls after (a loop's next round too). @p status is 429 or 503,
 * @p wait_ms how long the wait is. Called from within the call that
 * waits, once per wait.
 */
typedef void (*pai_retry_after_fn)(void *data, long status, long long wait_ms);
/** Sets the callback (NULL: none) and the data it is given. */
int pai_client_set_retry_after_callback(pai_client *c, pai_retry_after_fn fn,
					void *data);

/**
 * Told, in one line, what a user who asked for more (-v) hears of how
 * the client talks to the cluster: e.g. that a Slurm cluster's
 * slurmrestd serves an OpenAPI version newer than libpai knows and which
 * one is spoken instead. Once per fact per client.
 */
typedef void (*pai_notice_fn)(void *data, const char *line);
/** Sets the callback (NULL: none) and the data it is given. */
int pai_client_set_notice_callback(pai_client *c, pai_notice_fn fn,
				   void *data);

/**
 * Why the last call failed: the HTTP status (0 when no response came),
 * the server's error code (e.g. "NoJobError"; NULL when it sent none)
 * and one line for people: the server's message, or e.g. "HTTP 502 Bad
 * Gateway from proxy.example.com" for a proxy's HTML page. Borrowed;
 * valid until the next call on @p c.
 */
long pai_client_http_status(const pai_client *c);
const char *pai_client_error_code(const pai_client *c);
const char *pai_client_error(const pai_client *c);

/** The cluster's own description (GET /api/v1). New reference. */
int pai_cluster_info(json_t **out, pai_client *c);

/**
 * Logs in with a password; *token is new (caller frees with free()).
 * PAI_EAUTH for an unknown user or a wrong password. Never retried.
 */
int pai_login(char **token, pai_client *c, const char *user,
	      const char *password, long expiration_s);

/**
 * Splits "name" or "user~name" into *user (default_user when the
 * reference names none) and *name; both new, caller frees. PAI_EINVAL for
 * an empty part.
 */
int pai_job_ref_parse(char **user, char **name, const char *ref,
		      const char *default_user);

/**
 * Submits @p config (as pai_job_config() gives it) as @p user's job.
 * A submission is never sent twice, unless the server refused it before
 * doing anything (a 429). When the response is lost, or is an error
 * although the job may have been created (a known OpenPAI behaviour),
 * the job is read instead: if the server says it was submitted while
 * the request was out (by the server's clock, its Date header) and its
 * stored config is the one sent, the call succeeds with *recovered = 1.
 * PAI_ECONFLICT when a job of that name exists already, not ours (from
 * before, or with another config); the first failure when there is no
 * such job (nothing was made: submitting again is safe); the first
 * failure too, its detail saying so, when whether the job was made
 * cannot be told (reading it back failed as well).
 */
int pai_submit(pai_client *c, const char *user, json_t *config,
	       int *recovered);

/** Job and task states, as the cluster reports them. */
typedef enum pai_state {
	PAI_STATE_UNKNOWN = 0,
	PAI_STATE_WAITING,
	PAI_STATE_RUNNING,
	PAI_STATE_SUCCEEDED,
	PAI_STATE_FAILED,
	PAI_STATE_STOPPED,
	/** OpenPAI v1.x: a STOP was asked and the tasks are ending; not final */
	PAI_STATE_STOPPING
} pai_state;

/** "WAITING" ...; static storage. */
const char *pai_state_name(pai_state state);
/** Parses a state name (any case); PAI_EINVAL for anything else. */
int pai_state_from_name(pai_state *out, const char *name);
/** 1 for SUCCEEDED, FAILED and STOPPED. */
int pai_state_is_final(pai_state state);

/** One task, as the job's status gives it. Strings borrowed, may be NULL. */
typedef struct pai_task_info {
	const char *role;
	long index;
	pai_state state;
	const char *container_id;
	const char *ip;
	/** label -> "port[,port...]": borrowed JSON object, never NULL */
	json_t *ports;
	const char *log_url; /**< prefix: append "user.pai.stdout" etc. */
	int has_exit_code;
	int exit_code;
} pai_task_info;

/** A job's status, or one entry of a job list (then without tasks). */
typedef struct pai_job_info pai_job_info;

/** What pai_submit_ex() does besides sending the config. */
typedef struct pai_submit_options {
	unsigned version; /**< PAI_SUBMIT_OPTIONS_VERSION */
	/**
	 * An OpenSSH public key ("ssh-ed25519 AAAA... comment") that a job
	 * submitted through the v2 API gets in its ssh runtime plugin
	 * (extras.com.microsoft.pai.runtimeplugin, userssh), unless the
	 * config has an ssh plugin already. NULL: none. Ignored on v1.
	 */
	const char *ssh_public_key;
	/**
	 * Where the conversion of the config to the cluster's format puts
	 * its warnings (and, on PAI_EINVALID, its errors). NULL: nowhere.
	 */
	pai_diags *diags;
	const char *source_name; /**< the name those diagnostics carry */
	pai_dialect dialect;	 /**< a v0.x config's rules, to convert it */
} pai_submit_options;

#define PAI_SUBMIT_OPTIONS_VERSION 1
#define PAI_SUBMIT_OPTIONS_INIT                                                \
	{                                                                      \
		PAI_SUBMIT_OPTIONS_VERSION, NULL, NULL, NULL,                  \
		    PAI_DIALECT_OPENPAI                                        \
	}

/**
 * pai_submit() with options. @p config is a v0.x config or a protocol-v2
 * one (as JSON, with protocolVersion): a cluster of the other API gets
 * it converted first (pai_job_convert()'s rules; PAI_EINVALID when it
 * cannot be), a v2 cluster as YAML (text/yaml).
 */
int pai_submit_ex(pai_client *c, const char *user, json_t *config,
		  const pai_submit_options *opts, int *recovered);

/**
 * The request pai_submit_ex() would send first, for a dry run: *method,
 * *url, *content_type and *body are new strings (caller frees), *body
 * holding *body_len bytes. Sends nothing.
 */
int pai_submit_request(char **method, char **url, char **content_type,
		       char **body, size_t *body_len, pai_client *c,
		       const char *user, json_t *config,
		       const pai_submit_options *opts);

/** What pai_submitted_fn returns. */
enum {
	PAI_BATCH_GO = 0,   /**< go on */
	PAI_BATCH_STOP = 1, /**< start no more (those under way are told) */
	/**
	 * Send this one again: for a failure that made nothing (a 401,
	 * after the caller renewed the credential, pai_client_set_token()).
	 */
	PAI_BATCH_AGAIN = 2
};

/**
 * Told of each submission of a batch once it is done, in the order
 * given (pai_submit_batch()), in the calling thread: @p i its index,
 * @p err and @p recovered as pai_submit_ex() gives them, and the
 * client's detail (pai_client_error() and its siblings) that
 * submission's, valid during the call. Returns PAI_BATCH_GO,
 * PAI_BATCH_STOP or PAI_BATCH_AGAIN.
 */
typedef int (*pai_submitted_fn)(void *data, size_t i, int err, int recovered);

/** What pai_submit_batch() does besides sending the configs. */
typedef struct pai_batch_options {
	unsigned version; /**< PAI_BATCH_OPTIONS_VERSION */
	/** Submissions under way at once at most, each on a connection of
	 * its own: from one, more while that raises the throughput, fewer
	 * when the server says it is overloaded (429, 503, a timeout);
	 * 0: PAI_BATCH_IN_FLIGHT; at most PAI_BATCH_IN_FLIGHT_MAX. */
	unsigned in_flight;
	pai_submitted_fn done; /**< NULL: told nothing */
	void *data;
} pai_batch_options;

#define PAI_BATCH_OPTIONS_VERSION 1
#define PAI_BATCH_OPTIONS_INIT                                                 \
	{                                                                      \
		PAI_BATCH_OPTIONS_VERSION, 0, NULL, NULL                       \
	}
#define PAI_BATCH_IN_FLIGHT	8
#define PAI_BATCH_IN_FLIGHT_MAX 16

/**
 * Submits the @p n configs as pai_submit_ex() submits each (@p opts[i]
 * its options; @p opts or an entry NULL: the defaults), several at a
 * time: the cluster's latency is paid once per few jobs, not once per
 * job. Each submission is the one of pai_submit_ex(), never sent twice;
 * a server's Retry-After holds them all. Each is told to @p bo's done,
 * in the order given, as soon as it and those before it are done. The
 * client must not be used by the caller meanwhile (but in done). The
 * API module's own state is shared by the submissions under way, one
 * at a time where it changes (a credential renewed). PAI_OK once every
 * submission begun has been told (their own results are done's, a
 * cluster that cannot be reached too), or PAI_EINVAL or PAI_ENOMEM
 * before any is sent.
 */
int pai_submit_batch(pai_client *c, const char *user, json_t *const *configs,
		     const pai_submit_options *const *opts, size_t n,
		     const pai_batch_options *bo);

/**
 * A config's job name: jobName (v0.x) or name (protocol v2). Borrowed;
 * NULL when it has none.
 */
const char *pai_job_config_name(json_t *config);
/** Renames the job in @p config (jobName or name). */
int pai_job_config_rename(json_t *config, const char *name);
/**
 * Sets a job-wide variable: jobEnvs (v0.x) or parameters (protocol v2),
 * the value a literal string.
 */
int pai_job_config_set_env(json_t *config, const char *key,
			   const char *value);

/**
 * The status of @p user's job @p name. PAI_ENOTFOUND (NoJobError).
 * Caller frees with pai_job_info_free().
 */
int pai_job_get(pai_job_info **out, pai_client *c, const char *user,
		const char *name);
void pai_job_info_free(pai_job_info *info);
/* Accessors; strings borrowed until pai_job_info_free(), may be NULL. */
const char *pai_job_info_name(const pai_job_info *info);
const char *pai_job_info_user(const pai_job_info *info);
const char *pai_job_info_vc(const pai_job_info *info);
pai_state pai_job_info_state(const pai_job_info *info);
/** The cluster's raw state (e.g. the launcher's frameworkState). */
const char *pai_job_info_substate(const pai_job_info *info);
/** Milliseconds since the epoch; 0 when not known (yet). */
long long pai_job_info_created_ms(const pai_job_info *info);
long long pai_job_info_completed_ms(const pai_job_info *info);
long pai_job_info_retries(const pai_job_info *info);
/** Exit code of the job's application; has_exit is 0 when unknown. */
int pai_job_info_exit_code(const pai_job_info *info, int *has_exit);
size_t pai_job_info_task_count(const pai_job_info *info);
/** Tasks by role (in the server's order), then index. */
const pai_task_info *pai_job_info_task(const pai_job_info *info, size_t i);
/** The server's JSON as received. Borrowed reference. */
json_t *pai_job_info_json(const pai_job_info *info);
/**
 * The position of task @p index of role @p role, as pai_job_info_task()
 * numbers them, or -1. The role as the user wrote it in the config: a
 * v1.x cluster reports roles by their framework names (lower-case
 * letters and digits only, "ps_server" as "psserver"), and either name
 * finds the task there.
 */
long pai_job_info_find_task(const pai_job_info *info, const char *role,
			    long index);
/**
 * The name OpenPAI v1.x reports role @p role by, its framework name: the
 * role's ASCII letters and digits, lower-cased ("ps_server" is
 * "psserver"). New string (caller frees); NULL when out of memory.
 */
char *pai_role_framework_name(const char *role);
/** 1 when @p role (as the user wrote it) names the role @p reported. */
int pai_job_info_role_is(const pai_job_info *info, const char *reported,
			 const char *role);

/** A list of jobs, newest first as the server sends them. */
typedef struct pai_job_list pai_job_list;

/** Jobs of @p user, or of everyone when NULL. Free with pai_job_list_free(). */
int pai_jobs_list(pai_job_list **out, pai_client *c, const char *user);
/**
 * pai_jobs_list() looking back to @p since_ms (milliseconds since 1970;
 * 0: as pai_jobs_list()): a cluster that keeps ended jobs apart (Slurm's
 * accounting, which pai_jobs_list() reads for the last 30 days) reads
 * them from that time on. Jobs created before it may be listed too:
 * the caller keeps those of pai_job_info_created_ms() >= since_ms.
 */
int pai_jobs_list_since(pai_job_list **out, pai_client *c, const char *user,
			long long since_ms);
void pai_job_list_free(pai_job_list *list);
size_t pai_job_list_count(const pai_job_list *list);
/** Borrowed; valid until pai_job_list_free(). */
const pai_job_info *pai_job_list_get(const pai_job_list *list, size_t i);
/** The server's JSON array as received. Borrowed reference. */
json_t *pai_job_list_json(const pai_job_list *list);

/** The config as submitted (the server's text). *text new, NUL-terminated. */
int pai_job_get_config(char **text, size_t *len, pai_client *c,
		       const char *user, const char *name);

/** Asks the cluster to stop the job (idempotent; retried when safe). */
int pai_job_stop(pai_client *c, const char *user, const char *name);
/**
 * 1 when the last pai_job_stop() on @p c stopped its job by deleting it
 * (on Kubernetes, a kind that cannot be stopped otherwise: a PaddleJob),
 * and the job's pods and their logs go with it; else 0.
 */
int pai_job_stop_deleted(const pai_client *c);

/**
 * Deletes @p user's job @p name, which has ended, so that its name can
 * be used again: on paictl's local cluster its record, files and logs;
 * on OpenPAI v0.x its framework (DELETE /api/v1/user/USER/jobs/NAME);
 * on Kubernetes its Volcano Job or PaddleJob, the ConfigMap going with
 * it by its ownerReference. PAI_ECONFLICT when the job has not ended
 * (stop it first); PAI_ENOTFOUND; PAI_ENOTSUP where the cluster has no
 * way to delete a job (OpenPAI v1.x), the detail saying so.
 */
int pai_job_delete(pai_client *c, const char *user, const char *name);

/**
 * The status of @p user's job @p name once it has changed after @p last
 * (a status of the same job: its state, or a task's), waiting at most
 * @p timeout_ms (< 0: no limit); when the time runs out first, the
 * status as it is then. The cluster says when the job changes, within
 * milliseconds, and nothing is polled: paictl's local cluster holds the
 * request until then (it says so in GET /api/v2/info, which the first
 * call may ask); a Kubernetes cluster is watched (the Job, from the
 * resourceVersion of @p last; resumed when cut, read again when too
 * old), and a job deleted before it ended is reported STOPPED, once,
 * then PAI_ENOTFOUND. A job that has ended answers at once. PAI_ENOTSUP
 * where the cluster cannot say (OpenPAI): ask again with pai_job_get()
 * instead, at a pace of your own. Caller frees *out.
 */
int pai_job_get_changed(pai_job_info **out, pai_client *c, const char *user,
			const char *name, const pai_job_info *last,
			long timeout_ms);

/** SSH access to a job's containers. */
typedef struct pai_ssh_info pai_ssh_info;
typedef struct pai_ssh_container {
	const char *id; /**< container id, as in pai_task_info */
	const char *ip;
	long port;
} pai_ssh_container;

/** PAI_ENOTFOUND for NoJobError and NoJobSshInfoError. */
int pai_job_get_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		    const char *name);
void pai_ssh_info_free(pai_ssh_info *info);
size_t pai_ssh_info_count(const pai_ssh_info *info);
const pai_ssh_container *pai_ssh_info_get(const pai_ssh_info *info,
					  size_t i);
/** keyPair.privateKeyDirectDownloadLink; borrowed, may be NULL. */
const char *pai_ssh_info_key_url(const pai_ssh_info *info);
/** keyPair.privateKeyFileName; borrowed, may be NULL. */
const char *pai_ssh_info_key_name(const pai_ssh_info *info);
/** The server's JSON as received. Borrowed reference. */
json_t *pai_ssh_info_json(const pai_ssh_info *info);

/**
 * Reads a task's log from byte @p offset of its text to its current end:
 * an HTTP Range request where the server honours it, else the whole log
 * with the first @p offset bytes dropped. YARN's HTML pages give the
 * text inside <pre>, entities decoded. *data new (caller frees; NUL-
 * terminated), *len its bytes, *next the offset to ask for next time.
 */
int pai_log_read(char **data, size_t *len, long long *next, pai_client *c,
		 const char *url, long long offset);

/**
 * The URL of one of a task's logs, @p stream "stdout", "stderr" or
 * "all", for pai_log_read(): on v0.x the task's log prefix and the
 * file; on v1.x a location the cluster's log-manager gives, which holds
 * a token good for about two minutes: when reading it fails with
 * PAI_EFORBIDDEN, ask again and go on from the same offset. With
 * @p tail, v1.x gives only the last 16 KiB (tail-mode). *url new.
 * PAI_ENOTFOUND when the task has no log (yet). On Kubernetes the pod's
 * log holds standard output and error as one stream: "stdout" and "all"
 * give it, "stderr" is PAI_ENOTSUP; @p stream "previous" gives the log
 * of the container's run before its last restart (PAI_ENOTSUP where the
 * cluster keeps none apart, OpenPAI).
 */
int pai_task_log_url(char **url, pai_client *c, const pai_job_info *job,
		     const pai_task_info *task, const char *stream, int tail);

/**
 * Downloads @p url into memory, following redirects (WebHDFS answers
 * with one to a data node); the bearer token is sent only to the
 * client's own host. *data new (caller frees), *len its bytes. The
 * body is taken for a secret (a job's private key): a trace shows its
 * size alone.
 */
int pai_download(char **data, size_t *len, pai_client *c, const char *url);

/* ------------------------------------------------------------------ */
/* Kubernetes clusters, and what only some clusters can do             */
/* ------------------------------------------------------------------ */

/**
 * A Kubernetes cluster as a profile describes it: where its API server
 * and credentials are (a kubeconfig's context), and what a job becomes
 * there (the facts pai_job_to_k8s() takes). Strings NULL when not set.
 */
typedef struct pai_k8s_cluster {
	unsigned version; /**< PAI_K8S_CLUSTER_VERSION */
	/**
	 * The kubeconfig file, alone; NULL: the files of $KUBECONFIG, else
	 * ~/.kube/config, else the pod's service account (in-cluster).
	 */
	const char *kubeconfig;
	const char *context; /**< NULL: the kubeconfig's current-context */
	const char *ns;	     /**< NULL: the context's namespace, or "default" */
	pai_k8s_kind kind;   /**< Volcano Jobs or PaddleJobs */
	const char *queue;   /**< the Volcano queue; NULL: "default" */
	pai_k8s_scheduler scheduler;
	const char *fs_uri; /**< the default file system (pai_k8s_options) */
	/** Version 2: a TrainJob's runtime, as pai_k8s_options says it */
	const char *runtime;
	int runtime_namespaced;
} pai_k8s_cluster;

#define PAI_K8S_CLUSTER_VERSION 2
#define PAI_K8S_CLUSTER_INIT                                                   \
	{                                                                      \
		PAI_K8S_CLUSTER_VERSION, NULL, NULL, NULL, PAI_K8S_VOLCANO,    \
		    NULL, PAI_K8S_SCHED_VOLCANO, NULL, NULL, 0                 \
	}

/**
 * A client for the Kubernetes cluster @p k, whose API is PAI_API_K8S:
 * the kubeconfig is read now (several files merged, certificates and
 * keys in files or inline, tokens, token files read again as they
 * rotate, exec credential plugins, the in-cluster service account), the
 * credential when the first request needs it. From @p opts only the
 * timeouts, retries, trace and interrupt count: the kubeconfig says
 * where and how to connect. No credential ever reaches the trace or an
 * error. Caller frees with pai_client_free(). On failure *detail (if
 * not NULL) gets a new one-line reason (caller frees): PAI_ENOTFOUND
 * (no kubeconfig; no such file or context), PAI_ESYNTAX ("FILE:LINE:
 * ..."), PAI_EINVAL (what client-go refuses too, or bad arguments),
 * PAI_EACCES, PAI_EIO, PAI_ENOMEM, PAI_ELIBRARY.
 */
int pai_client_new_k8s(pai_client **out, char **detail,
		       const pai_client_options *opts,
		       const pai_k8s_cluster *k);

/**
 * Task @p i of a job's status (as pai_job_info_task() numbers them) as
 * the status JSON has it, with what the cluster tells of it besides
 * pai_task_info's fields (on Kubernetes: podName, containerNodeName,
 * podPhase, the container's reason, restarts). Borrowed reference,
 * valid until pai_job_info_free(); NULL when @p i is out of range.
 */
json_t *pai_job_info_task_json(const pai_job_info *info, size_t i);

/** What pai_logs_follow() does with each task's log. */
typedef struct pai_follow_options {
	unsigned version; /**< PAI_FOLLOW_OPTIONS_VERSION */
	long tail;	  /**< only the last @c tail lines so far; -1: all */
	/**
	 * Each line of task @p i (an index into the tasks given), without
	 * its newline; @p newline 0 for the end of a log that has none.
	 * Called in the order each task wrote its lines; lines of
	 * different tasks interleave as they come. A non-zero return stops
	 * the following (pai_logs_follow() returns PAI_EINTR).
	 */
	int (*on_line)(void *data, size_t i, const char *line, size_t len,
		       int newline);
	/** Task @p i's log has ended: its container finished. May be NULL. */
	void (*on_end)(void *data, size_t i);
	/**
	 * Something the caller should know that is no failure (a log cut
	 * and resumed, a task that cannot start: its reason). May be NULL.
	 */
	void (*on_note)(void *data, size_t i, const char *note);
	void *data;
} pai_follow_options;

#define PAI_FOLLOW_OPTIONS_VERSION 1
#define PAI_FOLLOW_OPTIONS_INIT                                                \
	{                                                                      \
		PAI_FOLLOW_OPTIONS_VERSION, -1, NULL, NULL, NULL, NULL         \
	}

/**
 * Follows the logs of @p n tasks of @p job as the cluster streams them
 * (Kubernetes: one follow request per pod, resumed after a dropped
 * connection from the last line's time, nothing printed twice or lost),
 * until every task's container has ended and @p job ended, or the
 * client's interrupt. Tasks that have not started are waited for.
 * PAI_OK when all logs ended; PAI_EINTR; PAI_ENOTSUP where the cluster
 * has no log streams (OpenPAI: read with pai_log_read()); the errors of
 * any call.
 */
int pai_logs_follow(pai_client *c, const pai_job_info *job,
		    const pai_task_info *const *tasks, size_t n,
		    const pai_follow_options *o);

/** How pai_task_exec() runs a command in a task's container. */
typedef struct pai_exec_options {
	unsigned version; /**< PAI_EXEC_OPTIONS_VERSION */
	/** A command line for the container's sh; NULL: a login shell. */
	const char *command;
	int tty; /**< a terminal (standard error merged into it) */
	unsigned cols, rows;
	/**
	 * Local descriptors, as in pai_ssh_run_options. in_fd -1: none. A
	 * cluster that cannot close a command's input (Kubernetes before
	 * 1.30) stops reading in_fd at its end.
	 */
	int in_fd, out_fd, err_fd;
	/** As in pai_ssh_run_options: "~." escapes and the like. */
	int (*on_input)(void *data, char *buf, size_t *len);
	volatile int *resized;
	int (*window_size)(void *data, unsigned *cols, unsigned *rows);
	void *data;
} pai_exec_options;

#define PAI_EXEC_OPTIONS_VERSION 1
#define PAI_EXEC_OPTIONS_INIT                                                  \
	{                                                                      \
		PAI_EXEC_OPTIONS_VERSION, NULL, 0, 80, 24, 0, 1, 2, NULL,      \
		    NULL, NULL, NULL                                           \
	}

/**
 * Runs a command (or a shell) in @p task's container through the
 * cluster's own exec (Kubernetes: the API server's, over WebSocket),
 * streaming its I/O until it ends: *exit_status is its exit status, -1
 * when on_input closed the session. PAI_ENOTSUP where the cluster has
 * no exec (OpenPAI: use SSH, pai_ssh_new()); PAI_ERROR when the command
 * could not be run (the detail says why); PAI_EUNREACHABLE when the
 * connection was lost before the status came; PAI_EIO, PAI_EINTR, and
 * the errors of any call.
 */
int pai_task_exec(int *exit_status, pai_client *c, const pai_job_info *job,
		  const pai_task_info *task, const pai_exec_options *o);

/* ------------------------------------------------------------------ */
/* SSH sessions (libssh2)                                              */
/* ------------------------------------------------------------------ */

/** One SSH connection to a task's container. */
typedef struct pai_ssh pai_ssh;

typedef struct pai_ssh_options {
	unsigned version; /**< PAI_SSH_OPTIONS_VERSION */
	const char *host; /**< IP address or name */
	long port;
	const char *user;
	const char *key_file; /**< private key; its public half is derived */
	/**
	 * known_hosts file (OpenSSH format), created when missing. Required:
	 * host keys are always checked.
	 */
	const char *known_hosts;
	/**
	 * The name the host key is recorded under, like OpenSSH's
	 * HostKeyAlias: a container id, so that every container is trusted
	 * on first use on its own. NULL: "[host]:port".
	 */
	const char *host_key_alias;
	/**
	 * Replace a recorded key that differs instead of failing (a
	 * container made again). accept_new is its old spelling: it never
	 * meant OpenSSH's StrictHostKeyChecking=accept-new, which is what
	 * paictl does anyway (a new host's key learned, a changed refused).
	 */
	union {
		int replace_changed_key;
		int accept_new;
	};
	/** For the TCP connection and every step up to the session; 0: 10 s. */
	long timeout_ms;
	/** pai_ssh_connect and pai_ssh_run stop with PAI_EINTR once non-zero. */
	volatile int *interrupt;
	/**
	 * Version 2: try the keys of the ssh-agent at $SSH_AUTH_SOCK first,
	 * then key_file (which may then be NULL).
	 */
	int use_agent;
	/**
	 * Version 3: refuse a host whose key known_hosts does not hold
	 * (OpenSSH's StrictHostKeyChecking=yes) instead of learning it.
	 */
	int strict_host_keys;
	/**
	 * Version 3: told when a new host's key was learned (recorded in
	 * known_hosts), as OpenSSH says "Permanently added ...": the name
	 * it is recorded under and its type ("ssh-ed25519"). NULL: not
	 * told. pai_client_set_sftp()'s reads call it; pai_ssh_connect()
	 * tells it by pai_ssh_hostkey_status() instead.
	 */
	void (*learned)(void *data, const char *name, const char *key_type,
			const char *known_hosts);
	void *learned_data;
} pai_ssh_options;

#define PAI_SSH_OPTIONS_VERSION 3
#define PAI_SSH_OPTIONS_INIT                                                   \
	{                                                                      \
		PAI_SSH_OPTIONS_VERSION, NULL, 22, NULL, NULL, NULL, NULL, {0}, \
		    0, NULL, 0, 0, NULL, NULL                                  \
	}

/** What pai_ssh_connect found of the server's host key. */
typedef enum pai_ssh_hostkey {
	PAI_SSH_HOSTKEY_MATCH = 0, /**< recorded and the same */
	PAI_SSH_HOSTKEY_NEW = 1,   /**< first contact: recorded now */
	PAI_SSH_HOSTKEY_REPLACED = 2 /**< differed; replaced (replace_changed_key) */
} pai_ssh_hostkey;

/**
 * A handle, not connected yet; the options' strings are copied. Caller
 * frees with pai_ssh_free(). PAI_EINVAL without host, user, key_file or
 * known_hosts. The first handle opens libssh2: PAI_ELIBRARY when it
 * cannot.
 */
int pai_ssh_new(pai_ssh **out, const pai_ssh_options *opts);
void pai_ssh_free(pai_ssh *s);

/**
 * Connects, checks the host key against known_hosts, and logs in with
 * the key. PAI_EUNREACHABLE (refused, no route, timed out, or the SSH
 * handshake failed), PAI_EHOSTKEY (the key differs from the one recorded;
 * the detail names file:line), PAI_EAUTH (the key was refused),
 * PAI_EACCES (the key file cannot be read), PAI_EINTR.
 */
int pai_ssh_connect(pai_ssh *s);
/** After pai_ssh_connect(): what happened to the host key. */
pai_ssh_hostkey pai_ssh_hostkey_status(const pai_ssh *s);
/** The server's host key as "ssh-ed25519 SHA256:..."; borrowed, or NULL. */
const char *pai_ssh_hostkey_fingerprint(const pai_ssh *s);

typedef struct pai_ssh_run_options {
	unsigned version; /**< PAI_SSH_RUN_OPTIONS_VERSION */
	/** Run by the remote user's shell, as given; NULL: a login shell. */
	const char *command;
	int pty; /**< ask for a terminal */
	const char *term; /**< TERM for the terminal; NULL: "xterm" */
	unsigned cols, rows;
	/**
	 * Local descriptors. in_fd -1: no input (EOF sent at once). Input is
	 * forwarded until EOF, then EOF is sent. Output is written in full;
	 * err_fd -1 with a pty: merged by the terminal anyway.
	 */
	int in_fd, out_fd, err_fd;
	/**
	 * Called on each block read from in_fd before it is sent; may change
	 * it and its length *len, which may grow by one byte (buf has room).
	 * A non-zero return closes the session (e.g. "~.").
	 */
	int (*on_input)(void *data, char *buf, size_t *len);
	/**
	 * When *resized is non-zero it is reset, window_size() is called and
	 * the new size sent (set it from a SIGWINCH handler).
	 */
	volatile int *resized;
	int (*window_size)(void *data, unsigned *cols, unsigned *rows);
	void *data; /**< passed to the callbacks */
} pai_ssh_run_options;

#define PAI_SSH_RUN_OPTIONS_VERSION 1
#define PAI_SSH_RUN_OPTIONS_INIT                                               \
	{                                                                      \
		PAI_SSH_RUN_OPTIONS_VERSION, NULL, 0, NULL, 80, 24, 0, 1, 2,   \
		    NULL, NULL, NULL, NULL                                     \
	}

/**
 * Runs one session on a connected handle and streams its I/O until the
 * remote side closes it. *exit_status gets the remote command's exit
 * status; when a signal killed it, 128 + its number where known (the
 * name is in pai_ssh_exit_signal()). PAI_EIO when a local descriptor
 * failed, PAI_EUNREACHABLE when the connection was lost, PAI_EINTR.
 * A session closed by on_input gives PAI_OK and *exit_status -1. After
 * any outcome but a command that ended (PAI_OK, *exit_status >= 0), the
 * connection is cut without waiting for the remote command: only
 * pai_ssh_free() is left.
 */
int pai_ssh_run(pai_ssh *s, const pai_ssh_run_options *opts,
		int *exit_status);
/** The signal that ended the remote command ("TERM"); borrowed, or NULL. */
const char *pai_ssh_exit_signal(const pai_ssh *s);

/**
 * One line on the last failure, e.g. "connect to 127.0.0.1:2222: Connection
 * refused" or "host key for 'c-1' differs from the one at
 * /path/known_hosts:3"; borrowed, valid until the next call; "" if none.
 */
const char *pai_ssh_detail(const pai_ssh *s);

/**
 * Connects @p s, made for a node of @p c's cluster (its address and port
 * as pai_job_get_ssh() gives them), the way that cluster's nodes are
 * reached: directly, as pai_ssh_connect() does, or through the SSH
 * connection @p c keeps to a host that sees them (a Slurm cluster's
 * login node, ssh://), as OpenSSH's ProxyJump: a direct-tcpip channel on
 * that one connection to the node's address as that host sees it,
 * carried by a thread of libpai's until pai_ssh_free(@p s). Host keys
 * are checked at both hops: the login node's as @p c checks it, the
 * node's against @p s's known_hosts. Until then @p c is not to be used
 * (its connection is the tunnel's), and it is freed after @p s. Errors
 * as pai_ssh_connect()'s, and those of reaching the login node;
 * pai_ssh_detail(@p s) says which.
 */
int pai_client_ssh_connect(pai_client *c, pai_ssh *s);

/* ------------------------------------------------------------------ */
/* Slurm clusters                                                      */
/* ------------------------------------------------------------------ */

/**
 * A Slurm cluster as a profile describes it, beside its slurmrestd URL
 * (pai_profile.uri): where the jobs' directories are and what a job is
 * submitted with. Strings NULL when not set.
 */
typedef struct pai_slurm_cluster {
	unsigned version; /**< PAI_SLURM_CLUSTER_VERSION */
	/**
	 * A file holding the JWT (what `scontrol token` prints, with or
	 * without "SLURM_JWT="), read again before every request, as tokens
	 * are re-issued; refused when others may read it. NULL: the
	 * client's token (pai_client_options.token).
	 */
	const char *token_file;
	const char *partition; /**< NULL: the cluster's default */
	const char *account;   /**< NULL: the user's default */
	const char *qos;       /**< NULL: the association's default */
	/**
	 * An absolute directory every node sees (a shared file system):
	 * each job's directory goes under it (its script, each task's
	 * output, error and exit record). Required to submit.
	 */
	const char *workdir;
	/** Where the job directories are read over SFTP when this machine
	 * does not see them; NULL: none. */
	const char *ssh_host;
	long ssh_port; /**< the nodes' and ssh_host's SSH port; 0: 22 */
	int pyxis;     /**< the site has Pyxis: images as --container-image */
	/** A config's virtualCluster names the partition (else ignored). */
	int vc_partition;
	/** The user requests are made as (X-SLURM-USER-NAME); NULL: the
	 * client's caller must give one (not kept in profiles). */
	const char *user;
	/**
	 * Version 2: the private key that logs in to the login node
	 * (ssh://), in place of the SSH options' key_file; NULL: theirs.
	 * Read only as far as the caller's version: a version 1 caller's
	 * struct ends before it.
	 */
	const char *identity_file;
} pai_slurm_cluster;

#define PAI_SLURM_CLUSTER_VERSION 2
#define PAI_SLURM_CLUSTER_INIT                                                 \
	{                                                                      \
		PAI_SLURM_CLUSTER_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, \
		    0, 0, 0, NULL, NULL                                        \
	}

/**
 * A client for the Slurm cluster whose slurmrestd is at @p opts->uri,
 * as @p s->user (required), whose API is PAI_API_SLURM. The JWT is
 * @p s->token_file's (read again for each request) or, without one,
 * @p opts->token. The newest plugin version paictl knows that the
 * server serves is found on the first call (/openapi). Neither the
 * token nor the key of any SSH connection reaches the trace. Caller
 * frees with pai_client_free(). On failure *detail (if not NULL) gets a
 * new one-line reason (caller frees): PAI_EINVAL, PAI_ENOMEM,
 * PAI_ELIBRARY.
 */
int pai_client_new_slurm(pai_client **out, char **detail,
			 const pai_client_options *opts,
			 const pai_slurm_cluster *s);

/**
 * Where a client reads files of the cluster's own over SFTP (a Slurm
 * job's directory that this machine does not see): @p o's host, port,
 * user, key_file, use_agent, known_hosts (required: host keys are
 * always checked: a new host's learned, unless strict_host_keys, and a
 * changed one refused, unless replace_changed_key), learned and
 * learned_data (version 3), copied. PAI_EINVAL without known_hosts.
 */
int pai_client_set_sftp(pai_client *c, const pai_ssh_options *o);

/**
 * The slurmrestd OpenAPI plugin version a Slurm client speaks
 * ("v0.0.42"), once the server answered it; NULL before, or for another
 * kind of client. Borrowed. A caller that keeps it between runs gives it
 * back with pai_client_set_slurm_openapi(), sparing the server's OpenAPI
 * document (over a megabyte, made for each request) every run.
 */
const char *pai_client_slurm_openapi(const pai_client *c);
/**
 * The version the server served last time ("v0.0.N"), to speak first: a
 * server that no longer serves it (a 404) is asked again which it does.
 * PAI_EINVAL for another kind of client, another name, or a version
 * older than libpai speaks.
 */
int pai_client_set_slurm_openapi(pai_client *c, const char *version);

/**
 * The longest pause a loop that asks for a job's status again should
 * take on this cluster so that a job's end is noticed promptly, where
 * the cluster pushes nothing but answers such a question cheaply
 * (Slurm: 1800 ms, each a conditional request); 0 where the caller's
 * own pace serves.
 */
long pai_client_poll_ms(const pai_client *c);

/**
 * The environment and command of task @p index of role @p role as a
 * Slurm batch job that paictl submits gives it: the job's runtime with
 * the node's address standing for the task's IP ("<host:worker-1>"
 * until placed), ports chosen at submission ("<port:worker-1:http>"),
 * and the task's directory under @p workdir (NULL: "<workdir>") as its
 * working directory. @p user NULL: "<user>". Caller frees with
 * pai_env_free().
 */
int pai_slurm_expand_task(pai_env **out, const pai_job *job, size_t role,
			  size_t index, const char *user,
			  const char *workdir);

/**
 * The remote command line that runs @p command (NULL: a login shell)
 * in container @p i of @p info as the task there sees it: on Slurm in
 * the task's directory with its $PAI_* environment; elsewhere
 * @p command as it is. *out new (caller frees); NULL for a login shell
 * where nothing needs setting up.
 */
int pai_ssh_info_command(char **out, const pai_ssh_info *info, size_t i,
			 const char *command);
/** The user a cluster's nodes take for SSH (Slurm: the job's user);
 * NULL: the cluster's default (root). Borrowed. */
const char *pai_ssh_info_user(const pai_ssh_info *info);

/* ------------------------------------------------------------------ */
/* Profiles and credentials                                            */
/* ------------------------------------------------------------------ */

/** The clusters paictl knows ($XDG_CONFIG_HOME/paictl/config.json). */
typedef struct pai_config pai_config;

typedef struct pai_profile {
	const char *name;
	/** REST base URI; NULL for a Kubernetes cluster (PAI_API_K8S) */
	const char *uri;
	const char *user;    /**< may be NULL */
	pai_dialect dialect;
	const char *ca_file; /**< may be NULL */
	int insecure;
	pai_api api; /**< PAI_API_AUTO until found (pai_api_detect()) */
} pai_profile;

/**
 * Loads @p path; a missing file is an empty config (PAI_OK). PAI_EACCES
 * when the file is readable by group or others (like ssh with keys) or
 * not owned by the user; PAI_ESYNTAX for a malformed file. *detail (if
 * not NULL) gets a new one-line reason on failure (caller frees).
 */
int pai_config_load(pai_config **out, char **detail, const char *path);
/** Writes atomically with mode 0600 (temp file, fsync, rename). */
int pai_config_save(const pai_config *cfg, const char *path);
void pai_config_free(pai_config *cfg);
size_t pai_config_count(const pai_config *cfg);
/** Borrowed; valid until the config changes or is freed. */
const pai_profile *pai_config_get(const pai_config *cfg, size_t i);
const pai_profile *pai_config_find(const pai_config *cfg, const char *name);
/** Adds or replaces a profile (copied). PAI_EINVAL for a bad name or URI. */
int pai_config_set(pai_config *cfg, const pai_profile *profile);
int pai_config_remove(pai_config *cfg, const char *name);
/** The profile `paictl cluster use` chose; NULL when none. */
const char *pai_config_current(const pai_config *cfg);
int pai_config_set_current(pai_config *cfg, const char *name);

/**
 * A Kubernetes cluster's profile (api PAI_API_K8S, uri NULL: the
 * kubeconfig says where): pai_config_set() adds it, this sets what
 * pai_k8s_cluster says of it (copied). PAI_ENOTFOUND when there is no
 * such profile, PAI_EINVAL when it is not a Kubernetes one or @p k is
 * not valid (a namespace that is no DNS label, a queue that is no DNS
 * subdomain).
 */
int pai_config_set_k8s(pai_config *cfg, const char *name,
		       const pai_k8s_cluster *k);
/**
 * Fills @p out with what profile @p name says of its Kubernetes cluster
 * (strings borrowed; valid until the config changes or is freed): the
 * fields of version 1, and out->version 1, whatever the caller's
 * version (one built before version 2 has room for no more);
 * pai_config_k8s_runtime() gives the rest. PAI_ENOTFOUND, PAI_EINVAL as
 * pai_config_set_k8s().
 */
int pai_config_k8s(pai_k8s_cluster *out, const pai_config *cfg,
		   const char *name);
/**
 * The TrainJob runtime profile @p name says (*runtime borrowed as
 * pai_config_k8s()'s strings, NULL for the default; *namespaced 1 for a
 * TrainingRuntime): with pai_config_k8s()'s, a version 2
 * pai_k8s_cluster. PAI_ENOTFOUND, PAI_EINVAL as pai_config_k8s().
 */
int pai_config_k8s_runtime(const char **runtime, int *namespaced,
			   const pai_config *cfg, const char *name);

/**
 * A Slurm cluster's profile (api PAI_API_SLURM, uri its slurmrestd):
 * pai_config_set() adds it, this sets what pai_slurm_cluster says of it
 * (copied; its user is not kept). PAI_ENOTFOUND when there is no such
 * profile, PAI_EINVAL when it is not a Slurm one or @p s is not valid (a
 * workdir that is not absolute, a port out of range).
 */
int pai_config_set_slurm(pai_config *cfg, const char *name,
			 const pai_slurm_cluster *s);
/**
 * Fills @p out with what profile @p name says of its Slurm cluster
 * (strings borrowed; valid until the config changes or is freed): the
 * fields of version 1, and out->version 1, whatever the caller's
 * version (one built before version 2 has room for no more);
 * pai_config_slurm_identity() gives the rest.
 */
int pai_config_slurm(pai_slurm_cluster *out, const pai_config *cfg,
		     const char *name);
/**
 * The login node's identity file profile @p name says (*identity
 * borrowed as pai_config_slurm()'s strings, NULL when none): with
 * pai_config_slurm()'s, a version 2 pai_slurm_cluster. PAI_ENOTFOUND,
 * PAI_EINVAL as pai_config_slurm().
 */
int pai_config_slurm_identity(const char **identity, const pai_config *cfg,
			      const char *name);

/* ------------------------------------------------------------------ */
/* A profile's client, whichever engine it names                       */
/* ------------------------------------------------------------------ */

/**
 * What opening a profile's client takes beyond pai_client_options: who
 * the requests are made as, the credential a caller was given for an
 * engine that reads its own, where the client keeps what it learned of
 * the cluster between runs, and how SSH logs in. Strings copied.
 */
typedef struct pai_open_options {
	unsigned version; /**< PAI_OPEN_OPTIONS_VERSION */
	/** The user requests are made as (a Slurm's), or NULL. */
	const char *user;
	/**
	 * A file holding the token, given by the caller, for an engine
	 * that reads its credential itself (pai_config_own_credentials()):
	 * a Slurm's JWT, read again before every request, in place of the
	 * profile's file. An engine that takes none refuses it
	 * (PAI_EINVAL). NULL: the profile's.
	 */
	const char *token_file;
	/**
	 * A directory (made when missing) where the client keeps what it
	 * learned of the cluster between runs: a slurmrestd's OpenAPI
	 * version, for a day. NULL: nothing kept.
	 */
	const char *state_dir;
	/** How SSH logs in: to a login node, and where the cluster's files
	 * are read over SFTP (as pai_client_set_sftp()); NULL: never. */
	const pai_ssh_options *ssh;
	/** The API an OpenPAI-style server is spoken to with, where the
	 * caller knows it (PAI_API_DUAL for paictl's local cluster);
	 * PAI_API_AUTO: the profile's, else found (pai_api_detect()). */
	pai_api api;
} pai_open_options;

#define PAI_OPEN_OPTIONS_VERSION 1
#define PAI_OPEN_OPTIONS_INIT                                                  \
	{ PAI_OPEN_OPTIONS_VERSION, NULL, NULL, NULL, NULL, PAI_API_AUTO }

/**
 * A client for profile @p name of @p cfg, made by the engine the
 * profile names: its kubeconfig (PAI_API_K8S); a Slurm's login node
 * (ssh://) or slurmrestd (https://); else an OpenPAI REST server at its
 * URI, spoken to with the profile's API. @p opts->uri, when set, is
 * where the cluster is instead of the profile's URI (an engine whose
 * profile names no URI refuses one: PAI_EINVAL); its token, CA file and
 * the rest as pai_client_new() takes them. @p cfg or @p name NULL, or
 * no such profile: the cluster at @p opts->uri, as pai_client_new()
 * makes it, with @p oo->api. Nothing is sent. Caller frees with
 * pai_client_free(). On failure *detail (if not NULL) gets a new
 * one-line reason (caller frees): PAI_EINVAL, PAI_EAUTH (no credential
 * at all), PAI_ENOTFOUND, PAI_ESYNTAX, PAI_ENOMEM, PAI_ELIBRARY.
 */
int pai_client_open(pai_client **out, char **detail, const pai_config *cfg,
		    const char *name, const pai_client_options *opts,
		    const pai_open_options *oo);

/**
 * 1 when the engine of profile @p name reads its credential itself (a
 * kubeconfig; a Slurm's JWT file or $SLURM_JWT; SSH keys): its caller
 * gives no token, pai_login() has nothing to do there, and
 * pai_open_options.token_file is the only credential it may be given;
 * *how (if not NULL) then says where it comes from, for people ("its
 * credentials come from the kubeconfig, as kubectl's do"; static). 0
 * (*how NULL) when it takes a bearer token (pai_client_options.token),
 * as an OpenPAI cluster or a URI with no profile does.
 */
int pai_config_own_credentials(const char **how, const pai_config *cfg,
			       const char *name);

/**
 * What adding a cluster checks once its profile is made, as its engine
 * can: a login node logged in to and its Slurm asked for its version;
 * nothing where opening the client checked what there is (a
 * kubeconfig) or nothing is cheap to ask. *said new, one line for
 * people ("Slurm 24.11.1 answered on the login node alice@host:22"),
 * or NULL when nothing was asked. Errors as pai_cluster_info()'s, the
 * detail on @p c.
 */
int pai_client_probe(char **said, pai_client *c);

/**
 * What profile @p name says of its engine's cluster beyond
 * pai_profile's, as JSON (new reference), and under which member a
 * listing shows it (*key static: "kubernetes", "slurm"); NULL (and
 * *key NULL) for an engine with nothing more, or no such profile.
 */
json_t *pai_config_settings(const char **key, const pai_config *cfg,
			    const char *name);

/**
 * Stored tokens, one file per cluster and user under @p dir, mode 0600,
 * written atomically. pai_token_load: PAI_ENOTFOUND when none; PAI_EACCES
 * when the file is readable by others. *token new (caller frees).
 */
int pai_token_load(char **token, const char *dir, const char *cluster,
		   const char *user);
int pai_token_save(const char *dir, const char *cluster, const char *user,
		   const char *token);
int pai_token_remove(const char *dir, const char *cluster, const char *user);

/** pai_file_write_atomic() flags. */
enum {
	PAI_WRITE_EXCLUSIVE = 1,  /**< never replace an existing file */
	PAI_WRITE_NO_DIRSYNC = 2  /**< skip the directory's fsync: the rename
				   * may not survive a power cut (for files
				   * rewritten often, where that is fine) */
};

/**
 * Writes @p len bytes to @p path atomically: a temporary file in the same
 * directory created with @p mode, fsync, rename, fsync of the directory.
 * With PAI_WRITE_EXCLUSIVE in @p flags, an existing file is not replaced
 * (PAI_ECONFLICT).
 */
int pai_file_write_atomic(const char *path, const void *data, size_t len,
			  unsigned mode, unsigned flags);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* PAI_H */
