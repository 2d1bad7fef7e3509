/* internal.h - shared by libpai's own files; not installed, not for cli/ */
#ifndef PAI_INTERNAL_H
#define PAI_INTERNAL_H

#include "pai.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PAI__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PAI__PRINTF(f, a)
#endif

/* ---- growable byte buffer ------------------------------------------ */

/* A failed allocation sets oom and turns later writes into no-ops, so a
 * caller checks once, at the end. data is always NUL-terminated when
 * len > 0 and oom is 0. */
typedef struct pai__buf {
	char *data;
	size_t len;
	size_t cap;
	int oom;
} pai__buf;

#define PAI__BUF_INIT                                                          \
	{                                                                      \
		NULL, 0, 0, 0                                                  \
	}

void pai__buf_put(pai__buf *b, const char *s, size_t n);
void pai__buf_puts(pai__buf *b, const char *s);
void pai__buf_putc(pai__buf *b, char c);
void pai__buf_printf(pai__buf *b, const char *fmt, ...) PAI__PRINTF(2, 3);
void pai__buf_vprintf(pai__buf *b, const char *fmt, va_list ap);
/* The contents as a new NUL-terminated string ("" when empty), or NULL
 * when an allocation failed; the buffer is left empty either way. */
char *pai__buf_detach(pai__buf *b);
void pai__buf_release(pai__buf *b);

/* s with every control character written as a JSON escape (\n, \u001b):
 * messages quote what a file holds, and a string such as
 * "\u001b]0;x\u0007" must not reach a terminal as it is. A new string,
 * or NULL when out of memory. */
char *pai__escape_controls(const char *s);

/* ---- memory in blocks (arena.c) ------------------------------------- */

/* Memory handed out in blocks and freed all at once: a position tree of
 * 50,000 nodes costs a few allocations, not 50,000. */
struct pai__arena;
void *pai__arena_alloc(struct pai__arena **arena, size_t n);
void pai__arena_free(struct pai__arena *arena);

/* ---- UTF-8 and hex digits (utf8.c) ------------------------------------ */

/* Length of the valid UTF-8 character at s (at most n bytes, n > 0), or
 * 0: overlong forms, surrogates and code points past U+10FFFF are not. */
size_t pai__utf8_len(const unsigned char *s, size_t n);
/* The value of hex digit c, or -1. */
int pai__hexval(int c);
/* Code point cp (at most U+10FFFF) as UTF-8 into out (4 bytes of room):
 * the bytes written. */
size_t pai__utf8_encode(char *out, unsigned long cp);

/* ---- source text and the position index ---------------------------- */

/* The text of one config, comments blanked out (every byte keeps its
 * offset, so every line and column stays where it was). */
typedef struct pai__src {
	const char *name; /* file name for diagnostics (borrowed) */
	const char *orig; /* the text as given, for excerpts (borrowed) */
	char *text;	  /* orig itself, until jansson has to parse it
			   * (pai__src_parse): then an owned copy,
			   * NUL-terminated, comments blanked */
	int owned;	  /* text is a copy to free */
	int comments;	  /* a byte order mark or comments, which the copy
			   * for jansson blanks out */
	struct pai__span {
		size_t start, end; /* [start, end): a comment or the BOM */
	} * cmts;
	size_t ncmts, capcmts;
	/* Long string values, cut out of the text jansson parses (jtext) and
	 * decoded from orig after parsing: see pai__big_string in source.c. */
	struct pai__big {
		size_t open;  /* offset of the opening quote in text */
		size_t close; /* offset of the closing quote in text */
		size_t jopen; /* the opening quote's offset in jtext */
	} * bigs;
	size_t nbigs, capbigs;
	char *jtext; /* text with long strings cut to "" (owned), or NULL */
	size_t jlen;
	size_t len;
	size_t *lines; /* offsets of line starts, built on first use */
	size_t nlines;
	size_t *chars; /* code points before each PAI__CHARS_STEP bytes of
			* orig, built when a column is wanted on a long line */
	struct pai__arena *arena; /* the position tree's, when the fast
				   * parser built it */
} pai__src;

#define PAI__CHARS_STEP 4096

#define PAI__NO_OFFSET ((size_t)-1)

/* String values longer than this many bytes take the fast path of
 * source.c (65536; tests/fuzz lowers it to compare both paths). */
extern size_t pai__big_string;

/* What a YAML node was before it became JSON (yaml.c). js-yaml gives
 * some values JSON has no word for; they are kept as the nearest JSON
 * value and marked here, so that type checks can judge them as the
 * server's JavaScript does. JSON nodes are always PAI__YK_PLAIN. */
enum pai__ykind {
	PAI__YK_PLAIN = 0,
	PAI__YK_DATE,	   /* a timestamp: a JS Date, kept as {} */
	PAI__YK_BINARY,	   /* !!binary: a Buffer, kept as {} */
	PAI__YK_NONFINITE  /* .inf, -.inf, .nan: kept as a JSON real (0.0);
			    * the text at off says which */
};

/* Where one JSON value stands in the source. Objects' children carry the
 * decoded member key and its offset; arrays' children are in order. */
typedef struct pai__pos {
	size_t off;	/* first byte of the value */
	size_t key_off; /* object members: the key's opening quote (YAML: the
			 * key's first byte); else off */
	char *key;	/* object members: decoded key (owned); else NULL */
	size_t nchild;
	struct pai__pos *child;
	unsigned char ykind; /* enum pai__ykind */
	unsigned char arena; /* the root of a tree whose nodes and keys are
			      * in its source's arena (json_fast.c): freed
			      * with it, at once */
} pai__pos;

/* Checks what jansson would report less precisely (NUL bytes, invalid
 * UTF-8, unterminated comments) and finds the comments and long strings,
 * without copying the text (the caller keeps it until the release).
 * Returns PAI_OK, PAI_ENOMEM, or PAI_ESYNTAX after adding a diagnostic. */
int pai__src_init(pai__src *src, pai_diags *diags, const char *name,
		  const char *text, size_t len);
void pai__src_release(pai__src *src);
/* 1-based line and column (in code points) of byte offset off; line 0
 * when off is past the end or memory ran out. Costs no walk over the
 * line, however long: a minified config is one line, and each of its
 * diagnostics asks. */
void pai__src_linecol(pai__src *src, size_t off, unsigned *line,
		      unsigned *column);
/* Where 1-based line `line` starts, and ends (its '\n', or the end of
 * the text). Only for a line that pai__src_linecol() returned. */
void pai__src_line_span(const pai__src *src, unsigned line, size_t *start,
			size_t *end);
/* The byte offset of a 1-based line and column (clamped to the text). */
size_t pai__src_offset(pai__src *src, unsigned line, unsigned column);
/* Source offset of the decoded character at index `idx` of the JSON
 * string literal whose opening quote is at `quote_off`. */
size_t pai__src_string_offset(const pai__src *src, size_t quote_off,
			      size_t idx);

/* Parses src->text with jansson (rejecting duplicate keys) and builds
 * the position tree. PAI_ESYNTAX after adding a diagnostic, PAI_ENOMEM. */
int pai__src_parse(json_t **root, pai__pos *pos, pai__src *src,
		   pai_diags *diags);

/* The fast path of pai__src_parse() (json_fast.c): text[0..len) parsed
 * into *root and *pos in one pass when it is JSON that jansson takes
 * with the same result (with comments: once blanked out); PAI_OK, 1 when
 * it gives up (anything unusual, every error: jansson then parses and
 * says what is wrong), PAI_ENOMEM. pai__json_fast false turns it off
 * (tests compare both ways). */
extern bool pai__json_fast;
int pai__json_fast_parse(json_t **root, pai__pos *pos,
			 struct pai__arena **arena, const char *text,
			 size_t len, bool comments);

/* ---- protocol-v2 YAML (yaml.c) -------------------------------------- */

/* The largest body the v1.8.0 rest-server takes (body-parser's 100kb). */
#define PAI__V2_MAX_BODY 102400

/* pai__src_init() for YAML: no comment blanking (YAML has its own), a
 * leading BOM dropped as the server does, NUL bytes and invalid UTF-8
 * refused with their place. PAI_OK, PAI_ENOMEM, or PAI_ESYNTAX after
 * adding a diagnostic. */
int pai__src_init_yaml(pai__src *src, pai_diags *diags, const char *name,
		       const char *text, size_t len);

/* Loads src->text (from pai__src_init_yaml) as js-yaml 3.13.1's safeLoad
 * does (DEFAULT_SAFE_SCHEMA): scalars resolved as js-yaml resolves them,
 * one document only, duplicate keys refused, anchors, aliases and merge
 * keys followed, with bounds against alias bombs and deep nesting. The
 * result is JSON (see enum pai__ykind for what JSON cannot hold) with
 * keys in JavaScript's property order, and its position tree. An empty
 * or comment-only document gives *root = json_null(). PAI_ESYNTAX after
 * adding a diagnostic, PAI_ENOMEM. */
int pai__yaml_parse(json_t **root, pai__pos *pos, pai__src *src,
		    pai_diags *diags);

/* pai__yaml_parse()'s bounds: nesting levels, and nodes with every alias
 * and merge expanded (a billion-laughs file stops at this many). */
extern const size_t pai__yaml_max_depth;
extern const size_t pai__yaml_max_nodes;

void pai__pos_release(pai__pos *pos);
/* The member `key` of an object node, or NULL. */
const pai__pos *pai__pos_member(const pai__pos *obj, const char *key);
/* Element i of an array node, or NULL. */
const pai__pos *pai__pos_index(const pai__pos *arr, size_t i);

/* A number as JavaScript's String(x) writes it (js.c). */
void pai__put_js_number(pai__buf *b, double x);

/* ---- diagnostics ---------------------------------------------------- */

/* Adds a diagnostic at byte offset off (PAI__NO_OFFSET: no place).
 * path is copied. Returns PAI_OK or PAI_ENOMEM. */
int pai__diag_add(pai_diags *diags, pai__src *src, size_t off,
		  pai_severity severity, const char *path, const char *rule,
		  const char *fmt, ...) PAI__PRINTF(7, 8);

/* Sorts the diagnostics from index start on by line and column, keeping
 * the order of those at the same place. */
void pai__diags_sort_from(pai_diags *diags, size_t start);

/* Appends to b the path of member `key` of the value at `parent`:
 * parent.key, or parent["odd key"] when key is not an identifier. */
void pai__path_member(pai__buf *b, const char *parent, const char *key);

/* ---- validation and the job model ----------------------------------- */

/* Checks root against every rule of the dialect, adding diagnostics.
 * On PAI_OK sets *normalized (new reference) to the config as it is
 * submitted; on PAI_EINVALID (some error found) leaves it NULL. */
int pai__validate(json_t **normalized, pai_diags *diags, pai__src *src,
		  const pai__pos *pos, json_t *root, pai_dialect dialect);

/* "Did you mean" for a misspelt field name (suggest.c): offer each known
 * name with pai__closest_add(); pai__closest_name() is then the nearest
 * by case-insensitive Levenshtein distance (the first of equals), or NULL
 * when even that is more than min(3, strlen(key) / 3 + 1) edits away. */
typedef struct pai__closest {
	const char *key; /* borrowed, as are the names offered */
	const char *best;
	size_t dist;
} pai__closest;
#define PAI__CLOSEST_INIT(key)                                                 \
	{                                                                      \
		(key), NULL, (size_t)-1                                        \
	}
void pai__closest_add(pai__closest *cl, const char *name);
const char *pai__closest_name(const pai__closest *cl);
/* Optimal string alignment distance (suggest.c), or max + 1 when over
 * max: how far a misspelt variable name is from a known one. */
size_t pai__edit_distance(const char *a, size_t n, const char *b, size_t m,
			  size_t max);


/* ---- the job model (job.c) ------------------------------------------ */

struct pai__role {
	pai_role r;
	size_t nports;
	pai_port *ports;
	json_t *spec; /* the role's object in job->config (borrowed) */
	char *own_name;	   /* v2: r.name, owned (a key, or "0" for a list) */
	char *own_command; /* v2: r.command, the commands joined, owned */
};

struct pai_job {
	pai_format format; /* V1 or V2 */
	pai_dialect dialect;
	pai_scheduler scheduler;
	json_t *config; /* v1: normalized; v2: the loaded document */
	const char *name;
	size_t nroles;
	struct pai__role *roles; /* in the file's order */
};

/* One job config format: how its text becomes the model. pai_job_parse()
 * (runtime/job_parse.c) runs read, validate and build in turn, each
 * only when the one before succeeded; opts is complete (version 2). */
struct pai__job_format {
	/* The text as JSON, with every value's place. src is initialised
	 * even when this fails: the caller releases src and pos. */
	int (*read)(json_t **root, pai__pos *pos, pai__src *src,
		    pai_diags *diags, const char *name, const char *text,
		    size_t len);
	/* Every rule of the format, each problem added to diags; on PAI_OK
	 * *config (a new reference) is what build() reads. */
	int (*validate)(json_t **config, pai_diags *diags, pai__src *src,
			const pai__pos *pos, json_t *root,
			const pai_job_options *opts);
	/* The typed view of a valid config. */
	int (*build)(pai_job **out, json_t *config,
		     const pai_job_options *opts);
};

extern const struct pai__job_format pai__job_format_v1; /* job_v1.c */
extern const struct pai__job_format pai__job_format_v2; /* job_v2.c */

static inline const struct pai__job_format *pai__job_format_of(pai_format f)
{
	return f == PAI_FORMAT_V2 ? &pai__job_format_v2 : &pai__job_format_v1;
}

/* Appends a port to a role's list (job.c); -1 when out of memory. */
int pai__role_add_port(struct pai__role *r, const char *label,
		       long long begin_at, long long number, int implicit);
bool pai__role_has_port(const struct pai__role *r, const char *label);

/* ---- protocol v2: validation, templates, expansion -------------------- */

/* Checks a loaded protocol-v2 document as the v1.8.0 rest-server does on
 * POST /api/v2/jobs (reference/protocol-v2-rules.md, every step), adding
 * every problem to diags. PAI_OK when the server would accept it,
 * PAI_EINVALID when it would refuse it (or crash on it), PAI_ENOMEM. */
int pai__validate_v2(pai_diags *diags, pai__src *src, const pai__pos *pos,
		     json_t *root, pai_scheduler scheduler);


/* Mustache 2.3.2 with the tags "<%" "%>", as the rest-server parses and
 * renders a role's commands (template.c). */
typedef struct pai__tmpl_error {
	size_t off;	 /* byte offset in the text where mustache throws */
	const char *why; /* static: "unclosed tag", "unclosed section 'x'"... */
} pai__tmpl_error;

/* 0 when mustache.parse(text, ["<%", "%>"]) succeeds; -1 with *err set
 * when it throws. */
int pai__tmpl_check(const char *text, size_t len, pai__tmpl_error *err);

/* Looks a tag's name up (e.g. "$parameters.lr"); appends its value to
 * out and returns 1, or returns 0 when nothing defines it. */
typedef int (*pai__tmpl_lookup)(void *data, const char *name, size_t n,
				pai__buf *out);

/* Renders text as the rest-server does for a role's entrypoint: text
 * tokens as they are, each name tag by lookup(), and a tag that nothing
 * defines left as "<% name %>". Returns 0, or -1 when the text does not
 * parse (see pai__tmpl_check). */
int pai__tmpl_render(pai__buf *out, const char *text, size_t len,
		     pai__tmpl_lookup lookup, void *data);



/* ---- the runtimes (runtimes.c) --------------------------------------- */

/* What a cluster makes of a job's tasks. runtimes.c picks the row by the
 * job's format and checks the arguments first: role and index are in
 * range, and the job is small enough to expand. */
struct pai__runtime {
	/* The whole environment of task (role, index), and its command. */
	int (*expand_task)(pai_env **out, const pai_job *job, size_t role,
			   size_t index, const pai_expand_options *opts);
	/* Only the variables that differ between the tasks of the job:
	 * those of the task itself. No command. */
	int (*expand_current)(pai_env **out, const pai_job *job, size_t role,
			      size_t index, const pai_expand_options *opts);
	/* The command the role's tasks hand to bash (pai.h). */
	int (*entrypoint)(char **out, const pai_job *job, size_t role);
	/* Warnings about references in a valid job's commands that its
	 * tasks will not have, each at its place in src. */
	int (*check_references)(pai_diags *diags, pai__src *src,
				const pai__pos *pos, const pai_job *job);
};

extern const struct pai__runtime pai__runtime_v0x; /* openpai_v0x.c */
extern const struct pai__runtime pai__runtime_v1x; /* openpai_v1x.c */

/* The runtime of job's cluster: OpenPAI v0.x for a v1 config, v1.x for a
 * protocol-v2 one. */
const struct pai__runtime *pai__runtime_of(const pai_job *job);

/* The job's runtime's expand_current. */
int pai__expand_current(pai_env **out, const pai_job *job, size_t role,
			size_t index, const pai_expand_options *opts);

/* ---- Kubernetes pods (k8s_pod.c) ------------------------------------- */

/* The pods of a job converted for Kubernetes: the job's own runtime with
 * a placement of DNS names and fixed ports, less what Kubernetes cannot
 * give. */

/* Where each role's pods are and what they are called. */
struct pai__k8s_role {
	char *task;	/* the Volcano task name, or ps|worker|heter */
	char *prefix;	/* pod i is prefix-i */
	unsigned *port; /* the first port of each of the role's labels */
	size_t nports;
};

struct pai__k8s {
	const pai_job *job;
	pai_k8s_options o;
	char *name; /* metadata.name of the job */
	struct pai__k8s_role *roles;
	size_t nroles;
	pai__buf scratch; /* the placement's last answer */
	pai_placement pl;
	/* what pai__k8s_init() found wrong: two roles under one name */
	long clash_a, clash_b;
};

/* Derives the names and ports for job. PAI_EINVALID when two roles
 * derive the same name (clash_a, clash_b), or a PaddleJob role is not
 * ps, worker or heter (clash_a that role, clash_b -1). */
int pai__k8s_init(struct pai__k8s *k, const pai_job *job,
		  const pai_k8s_options *o);
void pai__k8s_release(struct pai__k8s *k);

/* How a variable of a pod's environment gets its value. */
enum pai__k8s_var {
	PAI__K8S_STATIC,   /* the same in every pod of the role */
	PAI__K8S_INDEX,	   /* the pod's index */
	PAI__K8S_POD_NAME, /* the pod's name */
	PAI__K8S_POD_IP,   /* the pod's IP (its DNS name stands in) */
	PAI__K8S_WORK_DIR  /* the container's working directory */
};
enum pai__k8s_var pai__k8s_var_kind(const struct pai__k8s *k, size_t r,
				    size_t i, const char *name,
				    const char *value);

/* The environment of pod i of role r (see pai_k8s_expand_task()), or
 * with `current` only its variables that differ between tasks
 * (pai__expand_current()); with *dropped (may be NULL) the names the
 * expansion had that a pod on Kubernetes does not get (a new object:
 * name -> value). */
int pai__k8s_pod_env(pai_env **out, json_t **dropped, struct pai__k8s *k,
		     size_t r, size_t i, int current);

/* The DNS name of pod i of role r, into k->scratch. */
const char *pai__k8s_host(struct pai__k8s *k, size_t r, size_t i);

/* Whether name is one of the job's jobEnvs (v1 configs only): a pod gets
 * those as they are. */
int pai__k8s_is_job_env(const pai_job *job, const char *name);

/* ---- what every runtime reads of pai_expand_options ------------------ */

/* The user, or a placeholder for the one the cluster will know. */
static inline const char *pai__opt_user(const pai_expand_options *o)
{
	return o && o->user && *o->user ? o->user : "<user>";
}

/* The cluster's HDFS URI, or a placeholder. */
static inline const char *pai__opt_fs_uri(const pai_expand_options *o)
{
	return o && o->fs_uri && *o->fs_uri ? o->fs_uri : "<fs-uri>";
}

/* ---- a task's environment (env.c) ------------------------------------ */

/* One variable. In a names-only set, value is NULL or what the name
 * stands for, and count a number that goes with it. */
struct pai__var {
	char *name;
	char *value;	 /* names only: NULL, or a task family's role */
	long long count; /* a task family's task count, or a role index */
	bool dead;	 /* replaced by a later definition */
};

struct pai__slot {
	size_t i;    /* index into v plus 1; 0: empty */
	size_t hash; /* compared first: probing then rarely touches v */
};

/* An ordered table with a hash index of its live entries. */
struct pai_env {
	struct pai__var *v;
	size_t n, cap;
	struct pai__slot *slot; /* open addressing, linear probing */
	size_t nslot;		/* a power of two, at least twice n */
	char *command;
};

/* An empty table (free with pai_env_free()), or NULL. */
pai_env *pai__env_new(void);
/* Defines name, taking ownership of name and value (freed on failure):
 * a later definition replaces an earlier one and takes its own place.
 * PAI_OK or PAI_ENOMEM. */
int pai__env_set(pai_env *env, char *name, char *value, long long count);
/* The live entry of name[0..n), or NULL. */
const struct pai__var *pai__env_find(const pai_env *env, const char *name,
				     size_t n);
static inline bool pai__env_has(const pai_env *env, const char *name,
				size_t n)
{
	return pai__env_find(env, name, n) != NULL;
}
/* Adds name[0..n) to a names-only set: 1 when new, 0 when already
 * there, PAI_ENOMEM. */
int pai__env_add_once(pai_env *env, const char *name, size_t n);
/* Drops replaced entries, so that the table lists each name once. */
int pai__env_compact(pai_env *env);
/* Compacts env and sets its command to `command` as it is (taking
 * ownership; freed on failure). */
int pai__env_set_command(pai_env *env, char *command);

/* ---- commands as bash reads them (bash.c) ----------------------------- */

/* Compacts env and sets its command to `command` with every $NAME and
 * ${NAME} that env defines substituted, as bash reads it. */
int pai__env_finish(pai_env *env, const char *command);
/* The shell's own and the usual login and image variables, sorted, which
 * a task may rely on without the job defining them. */
extern const char *const pai__shell_vars[];
extern const size_t pai__nshell_vars;
bool pai__is_shell_var(const char *name, size_t n);
/* One distinct checkable $reference of a command (first use), borrowed
 * from the command text. */
struct pai__cmd_ref {
	size_t at, len; /* the '$' and the name's length */
	const char *name;
};
/* The references of cmd[0..len) bash would expand without a default, in
 * order (caller frees *refs), adding the names the command assigns to
 * `assigned`. */
int pai__command_refs(struct pai__cmd_ref **refs, size_t *nrefs,
		      pai_env *assigned, const char *cmd, size_t len);

/* The libpai error code for a system errno (error.c). */
int pai__from_errno(int e);

/* A bash variable name character test: [A-Za-z0-9_]. */
static inline bool pai__is_name_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* ---- protocol-v2 names and config edits (job_edit.c) ---------------- */

/* OpenPAI v1.x's framework name of a role (convertName() of the
 * rest-server's models/v2/utils/name.js): its ASCII letters and digits,
 * lower-cased. New string, NULL when out of memory. */
char *pai__v2_role_name(const char *role);

/* 1 when config is a protocol-v2 document (has protocolVersion). */
int pai__config_is_v2(json_t *config);

#endif /* PAI_INTERNAL_H */
