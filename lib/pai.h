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
	PAI_ESYNTAX = -7,   /**< a job config is not well-formed JSON */
	PAI_EINVALID = -8,  /**< a job config breaks a validation rule */
	PAI_EISDIR = -9,    /**< a directory where a file was expected */
	PAI_ETOOBIG = -10   /**< input larger than the library accepts */
} pai_error;

/** A short English description of @p err; never NULL, static storage. */
const char *pai_strerror(int err);

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

typedef struct pai_job_options {
	unsigned version; /**< PAI_JOB_OPTIONS_VERSION */
	pai_dialect dialect;
} pai_job_options;

#define PAI_JOB_OPTIONS_VERSION 1
#define PAI_JOB_OPTIONS_INIT                                                   \
	{                                                                      \
		PAI_JOB_OPTIONS_VERSION, PAI_DIALECT_OPENPAI                   \
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
 * argument or an options version this library does not know.
 *
 * @param out  caller frees with pai_job_free()
 * @param text need not be NUL-terminated; not retained
 */
int pai_job_parse(pai_job **out, pai_diags *diags, const char *name,
		  const char *text, size_t len, const pai_job_options *opts);

void pai_job_free(pai_job *job);

/** The job's name. Borrowed; valid until pai_job_free(). */
const char *pai_job_name(const pai_job *job);

/** The dialect the job was validated with. */
pai_dialect pai_job_dialect(const pai_job *job);

/**
 * The config as it is submitted: comments stripped, numeric strings and
 * integral reals turned into integers, and dialect-only leftovers (the
 * SCM web form's "tmp") removed. Key order is the file's. Borrowed
 * reference; valid until pai_job_free(). Callers must not modify it.
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
	const char *fs_uri; /**< the cluster's HDFS URI; NULL: "<fs-uri>" */
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

#ifdef __cplusplus
}
#endif

#endif /* PAI_H */
