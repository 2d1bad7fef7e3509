/* job_v2.c - the protocol-v2 YAML format: load the YAML, validate it as
 * the v1.8.0 rest-server does (validate_v2.c), and read it into the same
 * roles, resources and ports as a v0.x config */
#include "job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A JSON number as JavaScript sees it, truncated to a whole number; dflt
 * when absent, not a number, or falsy (0), as the server's `x || dflt`. */
static long long num_or(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!json_is_number(v))
		return dflt;
	d = json_number_value(v);
	if (d == 0 || !isfinite(d) || fabs(d) > 9e18)
		return dflt;
	return (long long)d;
}

/* completion.minFailedInstances / minSucceededInstances: the server
 * takes a truthy value, else its default (given here as `dflt`). */
static long long completion_of(json_t *role, const char *key, long long dflt)
{
	return num_or(json_object_get(role, "completion"), key, dflt);
}

/* A role's ports: resourcePerInstance.ports (label -> how many) in the
 * file's order, then ssh and http when the role has none of its own, as
 * the server adds them (generateTaskRole in models/v2/job/k8s.js). */
static int role_ports(struct pai__role *r)
{
	json_t *ports = json_object_get(
	    json_object_get(r->spec, "resourcePerInstance"), "ports");
	const char *label;
	json_t *v;

	if (json_is_object(ports)) {
		json_object_foreach(ports, label, v)
		{
			if (pai__role_add_port(r, label, 0,
					       num_or(ports, label, 0), 0) < 0)
				return -1;
		}
	}
	if (!pai__role_has_port(r, "ssh") &&
	    pai__role_add_port(r, "ssh", 0, 1, 1) < 0)
		return -1;
	if (!pai__role_has_port(r, "http") &&
	    pai__role_add_port(r, "http", 0, 1, 1) < 0)
		return -1;
	r->r.port_count = r->nports;
	return 0;
}

/* The role's commands as one text, one command a line. */
static char *join_commands(json_t *role)
{
	pai__buf b = PAI__BUF_INIT;
	json_t *cmd;
	size_t i;

	json_array_foreach(json_object_get(role, "commands"), i, cmd)
	{
		if (i)
			pai__buf_putc(&b, '\n');
		pai__buf_puts(
		    &b, json_string_value(cmd) ? json_string_value(cmd) : "");
	}
	return pai__buf_detach(&b);
}

static int build_role(struct pai__role *r, const char *name, json_t *spec)
{
	json_t *res = json_object_get(spec, "resourcePerInstance");
	json_t *extra = json_object_get(spec, "extraContainerOptions");

	r->spec = spec;
	r->own_name = strdup(name);
	r->own_command = join_commands(spec);
	if (!r->own_name || !r->own_command)
		return -1;
	r->r.name = r->own_name;
	r->r.command = r->own_command;
	r->r.task_number = num_or(spec, "instances", 1);
	r->r.cpu_number = num_or(res, "cpu", 0);
	r->r.memory_mb = num_or(res, "memoryMB", 0);
	r->r.gpu_number = num_or(res, "gpu", 0);
	r->r.shm_mb = num_or(extra, "shmMB", 512);
	r->r.min_failed = completion_of(spec, "minFailedInstances", 1);
	r->r.min_succeeded = completion_of(spec, "minSucceededInstances", -1);
	return role_ports(r);
}

/* Reads the typed view of a loaded document the server accepts. The
 * roles are taskRoles' members in order; a list of roles (which the
 * server also takes) names them "0", "1"... */
static int build(pai_job **out, json_t *root, const pai_job_options *opts)
{
	json_t *roles = json_object_get(root, "taskRoles"), *spec;
	pai_job *job = calloc(1, sizeof(*job));
	const char *key;
	char num[32];
	size_t i = 0;

	*out = NULL;
	if (!job)
		return PAI_ENOMEM;
	job->format = PAI_FORMAT_V2;
	job->dialect = PAI_DIALECT_OPENPAI;
	job->scheduler = opts->scheduler;
	job->config = json_incref(root);
	job->name = json_string_value(json_object_get(root, "name"));
	job->nroles = json_is_array(roles) ? json_array_size(roles)
					   : json_object_size(roles);
	job->roles = calloc(job->nroles ? job->nroles : 1, sizeof(*job->roles));
	if (!job->roles)
		goto oom;
	if (json_is_array(roles)) {
		json_array_foreach(roles, i, spec)
		{
			snprintf(num, sizeof(num), "%zu", i);
			if (build_role(&job->roles[i], num, spec) < 0)
				goto oom;
		}
	} else {
		json_object_foreach(roles, key, spec)
		{
			if (build_role(&job->roles[i++], key, spec) < 0)
				goto oom;
		}
	}
	*out = job;
	return PAI_OK;
oom:
	pai_job_free(job);
	return PAI_ENOMEM;
}

/* The rest-server refuses a body over its limit before reading it. */
static int check_size(pai_diags *diags, pai__src *src, size_t len)
{
	if (len <= PAI__V2_MAX_BODY)
		return PAI_OK;
	if (pai__diag_add(diags, src, PAI__NO_OFFSET, PAI_SEVERITY_ERROR, "",
			  "body-too-large",
			  "the file is %zu bytes; an OpenPAI v1.x cluster "
			  "refuses a job over %d bytes (100 KiB) with 413",
			  len, PAI__V2_MAX_BODY))
		return PAI_ENOMEM;
	return PAI_EINVALID;
}

/* The YAML as js-yaml loads it, with every value's place; the
 * rest-server's size limit first. */
static int read_v2(json_t **root, pai__pos *pos, pai__src *src,
		   pai_diags *diags, const char *name, const char *text,
		   size_t len)
{
	int err = pai__src_init_yaml(src, diags, name, text, len);

	if (!err)
		err = check_size(diags, src, len);
	return err ? err : pai__yaml_parse(root, pos, src, diags);
}

/* Every step of the server's check; the model is built from the loaded
 * document itself (what did parse of it when it has errors). */
static int validate_v2(json_t **config, pai_diags *diags, pai__src *src,
		       const pai__pos *pos, json_t *root,
		       const pai_job_options *opts)
{
	return pai__validate_v2(config, diags, src, pos, root,
				opts->scheduler);
}

const struct pai__job_format pai__job_format_v2 = {
    .read = read_v2,
    .validate = validate_v2,
    .build = build,
};
