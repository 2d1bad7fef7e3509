/* job.h - the job model both formats parse into (job.c), the formats
 * themselves (job_v1.c for v0.x JSON, job_v2.c for protocol-v2 YAML) with
 * their rules (validate.c, validate_v2*.c), the rest-server's templates
 * (template.c) and its names (job_edit.c). Stands on text/ and sys/:
 * parsing calls validation, and nothing here calls up into the runtimes. */
#ifndef PAI_JOB_H
#define PAI_JOB_H

#include "text/text.h"

/* ---- the model (job.c) and its formats ------------------------------ */

struct pai__role {
	pai_role r;
	size_t nports;
	pai_port *ports;
	json_t *spec;	   /* the role's object in job->config (borrowed) */
	char *own_name;	   /* v2: r.name, owned (a key, or "0" for a list) */
	char *own_command; /* v2: r.command, the commands joined, owned */
	char *own_labels;  /* the ports' labels, when owned (v1, lean) */
	json_t *command_v; /* v1, lean: r.command's value, kept when its
			    * role is dropped (a command can be 50 MB) */
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
	/* Every rule of the format, each problem added to diags. *config
	 * (a new reference) is what build() reads: on PAI_OK, and on
	 * PAI_EINVALID too when what build() and the runtime's reference
	 * check read did parse (the problems are elsewhere), so that those
	 * checks run as well; NULL otherwise. */
	int (*validate)(json_t **config, pai_diags *diags, pai__src *src,
			const pai__pos *pos, json_t *root,
			const pai_job_options *opts);
	/* The typed view of a valid config. */
	int (*build)(pai_job **out, json_t *config,
		     const pai_job_options *opts);
	/* read, validate and build as one, for a caller that wants the
	 * verdict, not the config (pai_job_check()): what validate()
	 * returns, with *job set where build() would run (its config is
	 * not the whole one), or 1, with nothing added to diags, when the
	 * text needs read(). src and pos as read() leaves them. NULL: the
	 * format has no such path. */
	int (*check)(pai_job **job, pai__pos *pos, pai__src *src,
		     pai_diags *diags, const char *name, const char *text,
		     size_t len, const pai_job_options *opts);
};

extern const struct pai__job_format pai__job_format_v1; /* job_v1.c */
extern const struct pai__job_format pai__job_format_v2; /* job_v2.c */

static inline const struct pai__job_format *pai__job_format_of(pai_format f)
{
	return f == PAI_FORMAT_V2 ? &pai__job_format_v2 : &pai__job_format_v1;
}

/* Appends a port to a role's list; -1 when out of memory. */
int pai__role_add_port(struct pai__role *r, const char *label,
		       long long begin_at, long long number, int implicit);
bool pai__role_has_port(const struct pai__role *r, const char *label);

/* ---- OpenPAI v0.x's rules (validate.c) ------------------------------- */

/* Which item first had a name (firsts.c): the duplicate checks. Names
 * are borrowed; a zeroed struct is empty; clear() empties it at once. */
struct pai__firsts {
	struct pai__first {
		const char *name;
		size_t index;
		unsigned gen; /* in use when it is the table's */
	} * slot;
	size_t cap, n; /* cap: a power of two, or 0 */
	unsigned gen;
};
void pai__firsts_clear(struct pai__firsts *f);
void pai__firsts_release(struct pai__firsts *f);
/* Whether name is in f: then *index is its first item's. */
bool pai__firsts_get(const struct pai__firsts *f, const char *name,
		     size_t *index);
/* Adds name (kept as it is when there already). PAI_OK, PAI_ENOMEM. */
int pai__firsts_add(struct pai__firsts *f, const char *name, size_t index);

/* Where the task roles come from when root's taskRoles array is left
 * empty (pai__json_fast_lean()): one at a time, each dropped once
 * checked, so that a config of thousands of roles is never whole in
 * memory. */
struct pai__v1_roles {
	/* *role (a new reference) is role i, at its place at: PAI_OK, or
	 * an error code */
	int (*get)(void *data, size_t i, const pai__pos *at, json_t **role);
	/* role i, checked and normalized (any value: the validator has
	 * reported what is wrong with it), for the caller to keep what it
	 * needs: PAI_OK, PAI_ENOMEM */
	int (*put)(void *data, size_t i, json_t *role);
	void *data;
};

/* Checks root against every rule of the dialect, adding diagnostics.
 * Sets *normalized (new reference) to the config as it is submitted,
 * whatever the result, when root is an object (valid on PAI_OK only),
 * else leaves it NULL. roles: NULL when root holds the task roles. */
int pai__validate(json_t **normalized, pai_diags *diags, pai__src *src,
		  const pai__pos *pos, json_t *root, pai_dialect dialect,
		  const struct pai__v1_roles *roles);

/* ---- protocol v2: the server's rules, templates and names ------------ */

/* The largest body the v1.8.0 rest-server takes (body-parser's 100kb). */
#define PAI__V2_MAX_BODY 102400

/* Checks a loaded protocol-v2 document as the v1.8.0 rest-server does on
 * POST /api/v2/jobs (reference/protocol-v2-rules.md, every step), adding
 * every problem to diags. PAI_OK when the server would accept it,
 * PAI_EINVALID when it would refuse it (or crash on it), PAI_ENOMEM.
 * *checked (new reference, or NULL) is the document the steps after the
 * schema checked: root, or what did parse of it (root without the
 * members the schema refused) on PAI_EINVALID; NULL when they could not
 * run. */
int pai__validate_v2(json_t **checked, pai_diags *diags, pai__src *src,
		     const pai__pos *pos, json_t *root,
		     pai_scheduler scheduler);

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

/* OpenPAI v1.x's framework name of a role (job_edit.c; convertName() of the
 * rest-server's models/v2/utils/name.js): its ASCII letters and digits,
 * lower-cased. New string, NULL when out of memory. */
char *pai__v2_role_name(const char *role);

/* OpenPAI v1.x's name of the framework that runs job `job` of user `user`
 * (encodeName() of the same file): md5("user~job") in hex, or, when that
 * text begins with "unknown", the rest of it as convertName() makes it.
 * New string, NULL when out of memory. */
char *pai__v2_framework_name(const char *user, const char *job);

/* Roles that OpenPAI v1.x cannot tell apart: first[i] is the index of the
 * first of names[0..n) with the same pai__v2_role_name() as names[i] (i
 * itself when none before it has). PAI_OK or PAI_ENOMEM. */
int pai__v2_role_clashes(size_t *first, const char *const *names, size_t n);

/* 1 when config is a protocol-v2 document (has protocolVersion). */
int pai__config_is_v2(json_t *config);

#endif /* PAI_JOB_H */
