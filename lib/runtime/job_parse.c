/* job_parse.c - pai_job_parse(): a job config read, validated and
 * modelled by its format's row (job/), then its commands checked against
 * the runtime that will run them (this folder's table). It stands here,
 * above both, because that last step needs what only the runtimes know:
 * the job model and its parsers never call up into them. */
#include "runtime.h"

#include <string.h>

/* The commands of job checked against the runtime, and for pods, what
 * their controller sets besides. */
static int check_refs(pai_diags *diags, pai__src *src, const pai__pos *pos,
		      const pai_job *job, const pai_job_options *o)
{
	pai_env *given = NULL;
	int e = pai__k8s_own_names(&given, job, (pai_k8s_kind)o->k8s_kind);

	if (!e)
		e = pai__runtime_of(job)->check_references(diags, src, pos,
							   job, given);
	pai_env_free(given);
	return e;
}

/* The job built from config and its commands checked: err (PAI_EINVALID
 * for a config with errors, whose job is then dropped) unless this
 * fails worse. */
static int checked(pai_job **job, int err, pai_diags *diags, pai__src *src,
		   const pai__pos *pos, json_t *config,
		   const struct pai__job_format *fmt, const pai_job_options *o)
{
	int e = fmt->build(job, config, o);

	if (!e)
		e = check_refs(diags, src, pos, *job, o);
	if (err || e) {
		pai_job_free(*job);
		*job = NULL;
	}
	return e == PAI_ENOMEM || !err ? e : err;
}

static int parse(pai_job **out, pai_diags *diags, const char *name,
		 const char *text, size_t len, const pai_job_options *o)
{
	const struct pai__job_format *fmt = pai__job_format_of(o->format);
	size_t start = pai_diags_count(diags);
	json_t *root = NULL, *config = NULL;
	pai_job *job = NULL;
	pai__src src;
	pai__pos pos;
	int err;

	memset(&src, 0, sizeof(src));
	memset(&pos, 0, sizeof(pos));
	err = fmt->read(&root, &pos, &src, diags, name, text, len);
	if (!err)
		err = fmt->validate(&config, diags, &src, &pos, root, o);
	/* an invalid config's references are checked too, on what did
	 * parse: every problem at once */
	if (config && (!err || err == PAI_EINVALID))
		err = checked(&job, err, diags, &src, &pos, config, fmt, o);
	if (!err) {
		*out = job;
		job = NULL;
	}
	pai__diags_sort_from(diags, start);
	pai_job_free(job);
	json_decref(config);
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	return err;
}

/* parse()'s verdict by the format's check(), which never holds the
 * whole config: 1 when it cannot tell. */
static int check_lean(pai_diags *diags, const char *name, const char *text,
		      size_t len, const pai_job_options *o)
{
	const struct pai__job_format *fmt = pai__job_format_of(o->format);
	size_t start = pai_diags_count(diags);
	pai_job *job = NULL;
	pai__src src;
	pai__pos pos;
	int err, e;

	if (!fmt->check)
		return 1;
	memset(&src, 0, sizeof(src));
	memset(&pos, 0, sizeof(pos));
	err = fmt->check(&job, &pos, &src, diags, name, text, len, o);
	if (job && (!err || err == PAI_EINVALID)) {
		e = check_refs(diags, &src, &pos, job, o);
		err = e == PAI_ENOMEM || !err ? e : err;
	}
	pai__diags_sort_from(diags, start);
	pai_job_free(job);
	pai__pos_release(&pos);
	pai__src_release(&src);
	return err;
}

int pai__job_options(pai_job_options *o, const pai_job_options *opts)
{
	pai_job_options dflt = PAI_JOB_OPTIONS_INIT;

	*o = dflt;
	if (!opts)
		return PAI_OK;
	/* a caller of an older version knows only its version's members */
	if (opts->version < 1 || opts->version > PAI_JOB_OPTIONS_VERSION)
		return PAI_EINVAL;
	o->dialect = opts->dialect;
	if (opts->version >= 2) {
		o->format = opts->format;
		o->scheduler = opts->scheduler;
	}
	if (opts->version >= 3)
		o->k8s_kind = opts->k8s_kind;
	if (o->k8s_kind && !pai__k8s_kind_of((pai_k8s_kind)o->k8s_kind))
		return PAI_EINVAL;
	return PAI_OK;
}

/* What pai_job_parse() and pai_job_check() take, made whole: the options
 * as this version reads them, a name and text for NULL ones, the format
 * detected. PAI_OK or PAI_EINVAL. */
static int job_args(pai_job_options *o, const char **name, const char **text,
		    size_t len, const pai_job_options *opts)
{
	if ((!*text && len) || pai__job_options(o, opts))
		return PAI_EINVAL;
	if (!*name)
		*name = "<config>";
	if (!*text)
		*text = "";
	if (o->format == PAI_FORMAT_AUTO)
		o->format = pai_format_detect(*name, *text, len);
	return PAI_OK;
}

int pai_job_parse(pai_job **out, pai_diags *diags, const char *name,
		  const char *text, size_t len, const pai_job_options *opts)
{
	pai_job_options o;

	if (out)
		*out = NULL;
	if (!out || job_args(&o, &name, &text, len, opts))
		return PAI_EINVAL;
	return parse(out, diags, name, text, len, &o);
}

int pai_job_check(pai_diags *diags, const char *name, const char *text,
		  size_t len, const pai_job_options *opts)
{
	pai_job_options o;
	pai_job *job = NULL;
	int err;

	if (job_args(&o, &name, &text, len, opts))
		return PAI_EINVAL;
	err = check_lean(diags, name, text, len, &o);
	if (err != 1)
		return err;
	err = parse(&job, diags, name, text, len, &o);
	pai_job_free(job);
	return err;
}
