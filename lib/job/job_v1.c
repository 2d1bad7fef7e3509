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

/* Whether what build() and the reference check read of a config with
 * the diagnostics from `from` on parsed: no error but elsewhere. */
static bool usable(pai_diags *diags, size_t from)
{
	size_t i;

	for (i = from; i < pai_diags_count(diags); i++) {
		const pai_diag *d = pai_diags_get(diags, i);

		if (d->severity == PAI_SEVERITY_ERROR && !elsewhere(d->path))
			return false;
	}
	return true;
}

/* The rules of the dialect; the config as submitted is root, normalized
 * in place. With errors, the config still goes to build() and the
 * reference check when they are all elsewhere. */
static int validate_v1(json_t **config, pai_diags *diags, pai__src *src,
		       const pai__pos *pos, json_t *root,
		       const pai_job_options *opts)
{
	size_t from = pai_diags_count(diags);
	int err =
	    pai__validate(config, diags, src, pos, root, opts->dialect, NULL);

	if (err && (err != PAI_EINVALID || !usable(diags, from))) {
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

/* What build_role() borrowed from a role that is dropped after: its
 * command's value kept, copies of its name and port labels. -1: out of
 * memory. */
static int own_strings(struct pai__role *r, json_t *command)
{
	size_t k, n = 0;
	char *o;

	if (r->r.name && !(r->own_name = strdup(r->r.name)))
		return -1;
	r->r.name = r->own_name;
	r->command_v = json_incref(command);
	for (k = 0; k < r->nports; k++)
		n += r->ports[k].label ? strlen(r->ports[k].label) + 1 : 0;
	if (!n || !(o = r->own_labels = malloc(n)))
		return n ? -1 : 0;
	for (k = 0; k < r->nports; k++) {
		if (!r->ports[k].label)
			continue;
		n = strlen(r->ports[k].label) + 1;
		memcpy(o, r->ports[k].label, n);
		r->ports[k].label = o;
		o += n;
	}
	return 0;
}

/* Role r's typed view of tr (any value: an element of a normalized
 * config's taskRoles), its strings copied when own (tr is dropped
 * after), else borrowed. -1: out of memory. */
static int build_role(struct pai__role *r, json_t *tr, bool own)
{
	json_t *p, *rv[RK_COUNT], *pv[PK_COUNT];
	size_t k;

	r->spec = own ? NULL : tr;
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
		const char *label;

		members_of(p, port_keys, pv);
		/* a port with no label is in no config that is built but
		 * in the lean check's, which drops such a job after */
		label = json_string_value(pv[PK_LABEL]);
		if (pai__role_add_port(r, label ? label : "",
				       int_or(pv[PK_BEGIN], 0),
				       int_or(pv[PK_NUMBER], 1), 0) < 0)
			return -1;
	}
	if (own && own_strings(r, rv[RK_COMMAND]) < 0)
		return -1;
	/* The cluster gives every task an http port (the host lists use
	 * it) and an ssh port, whether the role asks or not. */
	if (!pai__role_has_port(r, "http") &&
	    pai__role_add_port(r, "http", 0, 1, 1) < 0)
		return -1;
	if (!pai__role_has_port(r, "ssh") &&
	    pai__role_add_port(r, "ssh", 0, 1, 1) < 0)
		return -1;
	r->r.port_count = r->nports;
	return 0;
}

/* A job of nroles roles, none built yet, over config (a new reference
 * is taken); NULL when out of memory. */
static pai_job *new_job(json_t *config, size_t nroles,
			const pai_job_options *opts)
{
	pai_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->format = PAI_FORMAT_V1;
	job->dialect = opts->dialect;
	job->config = json_incref(config);
	job->name = json_string_value(json_object_get(config, "jobName"));
	job->nroles = nroles;
	job->roles = calloc(nroles ? nroles : 1, sizeof(*job->roles));
	if (!job->roles) {
		pai_job_free(job);
		return NULL;
	}
	return job;
}

/* Reads the typed view of an already validated, normalized config. */
static int build(pai_job **out, json_t *config, const pai_job_options *opts)
{
	json_t *roles = json_object_get(config, "taskRoles"), *tr;
	pai_job *job = new_job(config, json_array_size(roles), opts);
	size_t i;

	*out = NULL;
	if (!job)
		return PAI_ENOMEM;
	json_array_foreach(roles, i, tr)
	{
		if (build_role(&job->roles[i], tr, false) < 0) {
			pai_job_free(job);
			return PAI_ENOMEM;
		}
	}
	*out = job;
	return PAI_OK;
}

/* ---- the verdict alone, a role at a time ------------------------------- */

struct lean {
	const pai__src *src;
	pai_job *job;
};

static int lean_get(void *data, size_t i, const pai__pos *at, json_t **role)
{
	const struct lean *l = data;
	int err;

	(void)i;
	err = pai__json_fast_value(role, l->src->text, l->src->len, at);
	/* 1 (given up) cannot be: the whole text parsed */
	return err == 1 ? PAI_ERROR : err;
}

static int lean_put(void *data, size_t i, json_t *role)
{
	const struct lean *l = data;

	return i < l->job->nroles &&
		       build_role(&l->job->roles[i], role, true) < 0
		   ? PAI_ENOMEM
		   : PAI_OK;
}

/* The roles in root's taskRoles, which the lean parse left out: as many
 * as its place has children when it is an array. */
static size_t lean_roles(json_t *root, const pai__pos *pos)
{
	if (!json_is_array(json_object_get(root, "taskRoles")))
		return 0;
	return pai__pos_member(pos, "taskRoles")->nchild;
}

static int check_v1(pai_job **out, pai__pos *pos, pai__src *src,
		    pai_diags *diags, const char *name, const char *text,
		    size_t len, const pai_job_options *opts)
{
	size_t from = pai_diags_count(diags);
	json_t *root = NULL, *config = NULL;
	struct lean l = {src, NULL};
	struct pai__v1_roles roles = {lean_get, lean_put, &l};
	int err;

	*out = NULL;
	if ((err = pai__src_read_lean(&root, pos, src, name, text, len)))
		return err;
	l.job = new_job(root, lean_roles(root, pos), opts);
	err = !l.job ? PAI_ENOMEM
		     : pai__validate(&config, diags, src, pos, root,
				     opts->dialect, &roles);
	if (config && (!err || (err == PAI_EINVALID && usable(diags, from)))) {
		*out = l.job;
		l.job = NULL;
	}
	pai_job_free(l.job);
	json_decref(config);
	json_decref(root);
	return err;
}

const struct pai__job_format pai__job_format_v1 = {
    .read = read_v1,
    .validate = validate_v1,
    .build = build,
    .check = check_v1,
};
