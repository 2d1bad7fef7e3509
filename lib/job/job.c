/* job.c - the job model: parse, validate, and read a job config */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int pai_dialect_from_name(pai_dialect *out, const char *name)
{
	if (!out || !name)
		return PAI_EINVAL;
	if (strcmp(name, "openpai") == 0)
		*out = PAI_DIALECT_OPENPAI;
	else if (strcmp(name, "scm") == 0)
		*out = PAI_DIALECT_SCM;
	else
		return PAI_EINVAL;
	return PAI_OK;
}

const char *pai_dialect_name(pai_dialect dialect)
{
	return dialect == PAI_DIALECT_SCM ? "scm" : "openpai";
}

static long long int_or(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_null(v))
		return -1;
	return dflt;
}

int pai__role_add_port(struct pai__role *r, const char *label, long long begin_at,
		    long long number, int implicit)
{
	pai_port *v = realloc(r->ports, (r->nports + 1) * sizeof(*v));

	if (!v)
		return -1;
	r->ports = v;
	v[r->nports].label = label;
	v[r->nports].begin_at = begin_at;
	v[r->nports].port_number = number;
	v[r->nports].implicit = implicit;
	r->nports++;
	return 0;
}

bool pai__role_has_port(const struct pai__role *r, const char *label)
{
	size_t i;

	for (i = 0; i < r->nports; i++)
		if (strcmp(r->ports[i].label, label) == 0)
			return true;
	return false;
}

/* Reads the typed view of an already validated, normalized config. */
static int build(pai_job **out, json_t *config, pai_dialect dialect)
{
	pai_job *job = calloc(1, sizeof(*job));
	json_t *roles, *tr, *pl, *p;
	size_t i, k;

	*out = NULL;
	if (!job)
		goto oom;
	job->format = PAI_FORMAT_V1;
	job->dialect = dialect;
	job->config = json_incref(config);
	job->name = json_string_value(json_object_get(config, "jobName"));
	roles = json_object_get(config, "taskRoles");
	job->nroles = json_array_size(roles);
	job->roles = calloc(job->nroles ? job->nroles : 1, sizeof(*job->roles));
	if (!job->roles)
		goto oom;
	json_array_foreach(roles, i, tr)
	{
		struct pai__role *r = &job->roles[i];

		r->spec = tr;
		r->r.name = json_string_value(json_object_get(tr, "name"));
		r->r.command =
		    json_string_value(json_object_get(tr, "command"));
		r->r.task_number = int_or(tr, "taskNumber", 1);
		r->r.cpu_number = int_or(tr, "cpuNumber", 1);
		r->r.memory_mb = int_or(tr, "memoryMB", 100);
		r->r.shm_mb = int_or(tr, "shmMB", 64);
		r->r.gpu_number = int_or(tr, "gpuNumber", 0);
		r->r.min_failed = int_or(tr, "minFailedTaskCount", 1);
		r->r.min_succeeded = int_or(tr, "minSucceededTaskCount", -1);
		pl = json_object_get(tr, "portList");
		json_array_foreach(pl, k, p)
		{
			if (pai__role_add_port(
				r,
				json_string_value(json_object_get(p, "label")),
				int_or(p, "beginAt", 0),
				int_or(p, "portNumber", 1), 0) < 0)
				goto oom;
		}
		/* The cluster gives every task an http port (the host lists
		 * use it) and an ssh port, whether the role asks or not. */
		if (!pai__role_has_port(r, "http") && pai__role_add_port(r, "http", 0, 1, 1) < 0)
			goto oom;
		if (!pai__role_has_port(r, "ssh") && pai__role_add_port(r, "ssh", 0, 1, 1) < 0)
			goto oom;
		r->r.port_count = r->nports;
	}
	*out = job;
	return PAI_OK;
oom:
	pai_job_free(job);
	return PAI_ENOMEM;
}

/* A v0.x JSON config: comments blanked, jansson, the v1 rules. */
static int parse_v1(pai_job **out, pai_diags *diags, const char *name,
		    const char *text, size_t len, const pai_job_options *opts)
{
	pai__src src;
	pai__pos pos;
	json_t *root = NULL, *norm = NULL;
	pai_job *job = NULL;
	size_t start = pai_diags_count(diags);
	int err;

	memset(&pos, 0, sizeof(pos));
	err = pai__src_init(&src, diags, name, text, len);
	if (err)
		goto out;
	err = pai__src_parse(&root, &pos, &src, diags);
	if (err)
		goto out;
	err = pai__validate(&norm, diags, &src, &pos, root, opts->dialect);
	if (err)
		goto out;
	err = build(&job, norm, opts->dialect);
	if (err)
		goto out;
	err = pai__check_references(diags, &src, &pos, job);
	if (err)
		goto out;
	*out = job;
	job = NULL;
out:
	pai__diags_sort_from(diags, start);
	pai_job_free(job);
	json_decref(norm);
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	return err;
}

int pai_job_parse(pai_job **out, pai_diags *diags, const char *name,
		  const char *text, size_t len, const pai_job_options *opts)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;

	if (out)
		*out = NULL;
	if (!out || (!text && len))
		return PAI_EINVAL;
	if (opts) {
		/* version 1 callers know only the dialect */
		if (opts->version == 1)
			o.dialect = opts->dialect;
		else if (opts->version == PAI_JOB_OPTIONS_VERSION)
			o = *opts;
		else
			return PAI_EINVAL;
	}
	if (!name)
		name = "<config>";
	if (!text)
		text = "";
	if (o.format == PAI_FORMAT_AUTO)
		o.format = pai_format_detect(name, text, len);
	if (o.format == PAI_FORMAT_V2)
		return pai__job_parse_v2(out, diags, name, text, len, &o);
	return parse_v1(out, diags, name, text, len, &o);
}

void pai_job_free(pai_job *job)
{
	size_t i;

	if (!job)
		return;
	for (i = 0; job->roles && i < job->nroles; i++) {
		free(job->roles[i].ports);
		free(job->roles[i].own_name);
		free(job->roles[i].own_command);
	}
	free(job->roles);
	json_decref(job->config);
	free(job);
}

const char *pai_job_name(const pai_job *job)
{
	return job ? job->name : NULL;
}

pai_dialect pai_job_dialect(const pai_job *job)
{
	return job ? job->dialect : PAI_DIALECT_OPENPAI;
}

pai_format pai_job_format(const pai_job *job)
{
	return job ? job->format : PAI_FORMAT_V1;
}

json_t *pai_job_config(const pai_job *job)
{
	return job ? job->config : NULL;
}

size_t pai_job_role_count(const pai_job *job)
{
	return job ? job->nroles : 0;
}

int pai_job_role(pai_role *out, const pai_job *job, size_t i)
{
	if (!out || !job || i >= job->nroles)
		return PAI_EINVAL;
	*out = job->roles[i].r;
	return PAI_OK;
}

long pai_job_role_index(const pai_job *job, const char *name)
{
	size_t i;

	for (i = 0; job && name && i < job->nroles; i++)
		if (strcmp(job->roles[i].r.name, name) == 0)
			return (long)i;
	return -1;
}

int pai_job_port(pai_port *out, const pai_job *job, size_t role, size_t k)
{
	if (!out || !job || role >= job->nroles || k >= job->roles[role].nports)
		return PAI_EINVAL;
	*out = job->roles[role].ports[k];
	return PAI_OK;
}
