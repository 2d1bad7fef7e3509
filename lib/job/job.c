/* job.c - the job model both formats build (job_v1.c, job_v2.c): roles
 * with the cluster's defaults, their ports, and the accessors of pai.h */
#include "job.h"

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

int pai__role_add_port(struct pai__role *r, const char *label,
		       long long begin_at, long long number, int implicit)
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

void pai_job_free(pai_job *job)
{
	size_t i;

	if (!job)
		return;
	for (i = 0; job->roles && i < job->nroles; i++) {
		free(job->roles[i].ports);
		free(job->roles[i].own_name);
		free(job->roles[i].own_command);
		free(job->roles[i].own_labels);
		json_decref(job->roles[i].command_v);
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
