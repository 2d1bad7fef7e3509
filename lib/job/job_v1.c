/* job_v1.c - the v0.x JSON format: JSON with comments read with its
 * places, OpenPAI v0.x's rules (validate.c), and the typed view of the
 * config as it is submitted */
#include "job.h"

#include <stdlib.h>
#include <string.h>

static long long int_or(json_t *v, long long dflt)
{
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_null(v))
		return -1;
	return dflt;
}

/* Comments blanked, jansson (or the fast path) with every value's
 * place. */
static int read_v1(json_t **root, pai__pos *pos, pai__src *src,
		   pai_diags *diags, const char *name, const char *text,
		   size_t len)
{
	return pai__src_read(root, pos, src, diags, name, text, len);
}

/* Whether member (".name") begins path q, as a whole member. */
static bool member_of(const char *q, const char *member)
{
	size_t n = strlen(member);

	return strncmp(q, member, n) == 0 &&
	       (q[n] == '\0' || q[n] == '.' || q[n] == '[');
}

/* Whether an error at path leaves alone what build() and the reference
 * check read: the job's name and jobEnvs, the task roles' list, and
 * each role's name, command, taskNumber and portList. */
static bool elsewhere(const char *path)
{
	static const char *const read[] = {".name", ".command", ".taskNumber",
					    ".portList", NULL};
	const char *q;
	size_t i;

	if (!*path || member_of(path, "jobName") ||
	    member_of(path, "jobEnvs") || strcmp(path, "taskRoles") == 0)
		return false;
	if (strncmp(path, "taskRoles[", 10) != 0)
		return true;
	q = strchr(path, ']');
	if (!q || !*++q)
		return false;
	for (i = 0; read[i]; i++)
		if (member_of(q, read[i]))
			return false;
	return true;
}

/* The rules of the dialect; the config as submitted is root, normalized
 * in place. With errors, the config still goes to build() and the
 * reference check when they are all elsewhere. */
static int validate_v1(json_t **config, pai_diags *diags, pai__src *src,
		       const pai__pos *pos, json_t *root,
		       const pai_job_options *opts)
{
	size_t i, from = pai_diags_count(diags);
	int err = pai__validate(config, diags, src, pos, root, opts->dialect);

	for (i = from; err == PAI_EINVALID && *config &&
		       i < pai_diags_count(diags);
	     i++) {
		const pai_diag *d = pai_diags_get(diags, i);

		if (d->severity == PAI_SEVERITY_ERROR && !elsewhere(d->path)) {
			json_decref(*config);
			*config = NULL;
		}
	}
	if (err && err != PAI_EINVALID) {
		json_decref(*config);
		*config = NULL;
	}
	return err;
}

/* What build() reads of a role and of a port. */
enum {
	RK_NAME,
	RK_COMMAND,
	RK_TASKS,
	RK_CPU,
	RK_MEM,
	RK_SHM,
	RK_GPU,
	RK_MINFAILED,
	RK_MINSUCCEEDED,
	RK_PORTS,
	RK_COUNT
};
static const char *const role_keys[RK_COUNT + 1] = {"name",
						    "command",
						    "taskNumber",
						    "cpuNumber",
						    "memoryMB",
						    "shmMB",
						    "gpuNumber",
						    "minFailedTaskCount",
						    "minSucceededTaskCount",
						    "portList",
						    NULL};
enum { PK_LABEL, PK_BEGIN, PK_NUMBER, PK_COUNT };
static const char *const port_keys[PK_COUNT + 1] = {"label", "beginAt",
						    "portNumber", NULL};

/* The members of obj named keys[i] into v[i] (NULL: absent, or obj is
 * no object): one pass over its members, not a hash lookup for each
 * key (2,000 roles asked ten times each showed in the profile). */
static void members_of(json_t *obj, const char *const *keys, json_t **v)
{
	const char *key;
	json_t *m;
	size_t i;

	for (i = 0; keys[i]; i++)
		v[i] = NULL;
	json_object_foreach(obj, key, m)
	{
		for (i = 0; keys[i]; i++)
			if (keys[i][0] == key[0] && strcmp(keys[i], key) == 0) {
				v[i] = m;
				break;
			}
	}
}

/* Reads the typed view of an already validated, normalized config. */
static int build(pai_job **out, json_t *config, const pai_job_options *opts)
{
	pai_job *job = calloc(1, sizeof(*job));
	json_t *roles, *tr, *p, *rv[RK_COUNT], *pv[PK_COUNT];
	size_t i, k;

	*out = NULL;
	if (!job)
		goto oom;
	job->format = PAI_FORMAT_V1;
	job->dialect = opts->dialect;
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
		members_of(tr, role_keys, rv);
		r->r.name = json_string_value(rv[RK_NAME]);
		r->r.command = json_string_value(rv[RK_COMMAND]);
		r->r.task_number = int_or(rv[RK_TASKS], 1);
		r->r.cpu_number = int_or(rv[RK_CPU], 1);
		r->r.memory_mb = int_or(rv[RK_MEM], 100);
		r->r.shm_mb = int_or(rv[RK_SHM], 64);
		r->r.gpu_number = int_or(rv[RK_GPU], 0);
		r->r.min_failed = int_or(rv[RK_MINFAILED], 1);
		r->r.min_succeeded = int_or(rv[RK_MINSUCCEEDED], -1);
		json_array_foreach(rv[RK_PORTS], k, p)
		{
			members_of(p, port_keys, pv);
			if (pai__role_add_port(
				r, json_string_value(pv[PK_LABEL]),
				int_or(pv[PK_BEGIN], 0),
				int_or(pv[PK_NUMBER], 1), 0) < 0)
				goto oom;
		}
		/* The cluster gives every task an http port (the host lists
		 * use it) and an ssh port, whether the role asks or not. */
		if (!pai__role_has_port(r, "http") &&
		    pai__role_add_port(r, "http", 0, 1, 1) < 0)
			goto oom;
		if (!pai__role_has_port(r, "ssh") &&
		    pai__role_add_port(r, "ssh", 0, 1, 1) < 0)
			goto oom;
		r->r.port_count = r->nports;
	}
	*out = job;
	return PAI_OK;
oom:
	pai_job_free(job);
	return PAI_ENOMEM;
}

const struct pai__job_format pai__job_format_v1 = {
    .read = read_v1,
    .validate = validate_v1,
    .build = build,
};
