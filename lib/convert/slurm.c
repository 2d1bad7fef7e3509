/* slurm.c - a job as one Slurm batch job: the body of slurmrestd's
 * POST .../job/submit (reference/slurm.md). One component when every
 * role asks for the same resources, else a heterogeneous job of one
 * component per role, so that Slurm gives each role what it asks for.
 * The batch script is slurm_batch.sh (which says what it does), compiled
 * in by the build; here its marks are filled in: the job's names and
 * directory, the components' nodes, the roles, and each task's $PAI_*
 * environment (runtime/slurm_task.c, the nodes' addresses put in for
 * the marks there). */
#include "convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULE_ENV_NAME "slurm-env-name"
#define RULE_IMAGE    "slurm-image"
#define RULE_UTF8     "slurm-utf8"

/* [A-Za-z_][A-Za-z0-9_]*: what bash can export */
static int shell_name(const char *s)
{
	if (!pai__is_name_char((unsigned char)*s) || (*s >= '0' && *s <= '9'))
		return 0;
	while (*++s)
		if (!pai__is_name_char((unsigned char)*s))
			return 0;
	return 1;
}

/* The literal piece in lit quoted onto b, and lit emptied. */
static void flush(pai__buf *b, pai__buf *lit)
{
	if (!lit->len)
		return;
	pai__shell_quote(b, lit->data);
	lit->len = 0;
}

/* A value as bash reads it back: literal pieces quoted, the marks of t
 * as the batch script's ${H[rank]} and $SLURM_JOB_ID. */
static void put_value(pai__buf *b, const struct pai__slurm_tasks *t,
		      const char *v)
{
	pai__buf lit = PAI__BUF_INIT;
	enum pai__slurm_mark kind;
	size_t n, rank;

	if (!*v)
		pai__buf_puts(b, "''");
	while (*v) {
		n = *v == '\x01' ? pai__slurm_mark(t, v, &kind, &rank) : 0;
		if (!n) {
			pai__buf_putc(&lit, *v++);
			continue;
		}
		flush(b, &lit);
		if (kind == PAI__SLURM_MARK_JOB)
			pai__buf_puts(b, "\"$SLURM_JOB_ID\"");
		else
			pai__buf_printf(b, "\"${H[%zu]}\"", rank);
		v += n;
	}
	flush(b, &lit);
	if (lit.oom)
		b->oom = 1;
	pai__buf_release(&lit);
}

/* Where the diagnostics of a submission point: the file, no place. */
static pai__src source_named(const char *name)
{
	pai__src src;

	memset(&src, 0, sizeof(src));
	src.name = name ? name : "<config>";
	return src;
}

/* "export NAME=value" lines for the variables of env (names checked). */
static int put_exports(pai__buf *b, pai_diags *diags,
		       const struct pai__slurm_tasks *t, json_t *env,
		       const char *indent)
{
	pai__src src = source_named(t->source);
	const char *name;
	json_t *v;

	json_object_foreach(env, name, v)
	{
		if (!shell_name(name))
			return pai__diag_add(diags, &src, PAI__NO_OFFSET,
					     PAI_SEVERITY_ERROR, "jobEnvs",
					     RULE_ENV_NAME,
					     "'%s' is no name a shell can "
					     "export to a Slurm task",
					     name)
				   ? PAI_ENOMEM
				   : PAI_EINVALID;
		pai__buf_printf(b, "%sexport %s=", indent, name);
		put_value(b, t, json_string_value(v));
		pai__buf_putc(b, '\n');
	}
	return PAI_OK;
}

/* env (a pai_env) as a JSON object name -> value; NULL out of memory. */
static json_t *env_json(const pai_env *env)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < pai_env_count(env); i++)
		if (json_object_set_new(o, pai_env_name(env, i),
					json_string(pai_env_value(env, i)))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* 1 when s is UTF-8 throughout (NULL: nothing to check). */
static int utf8(const char *s)
{
	size_t k, n = s ? strlen(s) : 0;

	for (; n; s += k, n -= k)
		if (!(k = pai__utf8_len((const unsigned char *)s, n)))
			return 0;
	return 1;
}

/* What the profile and cluster give a submission (the user name, the
 * directories, the partition...) goes to slurmrestd as JSON, the user
 * name and directories in the tasks' variables too: one that is not
 * UTF-8 is an error in diags (PAI_EINVALID), said before anything is
 * made of it (json_pack would fail, and that read as out of memory). */
static int options_utf8(pai_diags *diags, const struct pai__slurm_submit *o)
{
	const char *const what[] = {
	    "user name",     "job name", "working directory",
	    "job directory", "comment",	 "partition",
	    "account",	     "qos",	 "image"};
	const char *const v[] = {o->user,    o->name,	 o->workdir,
				 o->jobdir,  o->comment, o->partition,
				 o->account, o->qos,	 o->image};
	pai__src src = source_named(o->source);
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!utf8(v[i]))
			return pai__diag_add(diags, &src, PAI__NO_OFFSET,
					     PAI_SEVERITY_ERROR, NULL,
					     RULE_UTF8,
					     "the %s is not UTF-8: a Slurm job "
					     "is sent as JSON, which cannot "
					     "carry it",
					     what[i])
				   ? PAI_ENOMEM
				   : PAI_EINVALID;
	return PAI_OK;
}

/* ---- the script ---------------------------------------------------------- */

/* The batch script: lib/convert/slurm_batch.sh as the build compiled it
 * in (lib/convert/embed.sh), whose marks @NAME@ are filled in here. */
extern const char pai__slurm_batch_sh[];

/* What the marks are filled in from. */
struct script {
	const pai_job *job;
	const struct pai__slurm_submit *o;
	struct pai__slurm_tasks *t;
	pai_diags *diags;
	size_t ncomp; /* the job's components */
};

static int put_job_name(pai__buf *b, const struct script *x)
{
	pai__shell_quote(b, pai_job_name(x->job));
	return PAI_OK;
}

static int put_submission(pai__buf *b, const struct script *x)
{
	pai__buf_puts(b, x->o->subid);
	return PAI_OK;
}

static int put_job_dir(pai__buf *b, const struct script *x)
{
	pai__shell_quote(b, x->o->jobdir);
	return PAI_OK;
}

static int put_role_list(pai__buf *b, const struct script *x)
{
	pai__buf_puts(b, x->o->roles);
	return PAI_OK;
}

/* Each component's nodes: their addresses in A, one per task in H. */
static int put_hosts(pai__buf *b, const struct script *x)
{
	size_t g;

	for (g = 0; g < x->ncomp; g++) {
		char sfx[40] = "";

		if (x->ncomp > 1)
			snprintf(sfx, sizeof(sfx), "_HET_GROUP_%zu", g);
		pai__buf_printf(b,
				"\taddrs \"$SLURM_JOB_NODELIST%s\"\n"
				"\tH+=$(hosts \"$SLURM_JOB_NODELIST%s\" "
				"\"$SLURM_TASKS_PER_NODE%s\")\n",
				sfx, sfx, sfx);
	}
	return PAI_OK;
}

/* srun's options beyond the script's: every component, the image. */
static int put_srun_options(pai__buf *b, const struct script *x)
{
	size_t g;

	if (x->ncomp > 1) {
		pai__buf_puts(b, " --het-group=0");
		for (g = 1; g < x->ncomp; g++)
			pai__buf_printf(b, ",%zu", g);
	}
	if (x->o->image) {
		pai__buf_puts(b, " --container-image=");
		pai__shell_quote(b, x->o->image);
		pai__buf_puts(b, " --container-mounts=\"$D:$D\"");
	}
	return PAI_OK;
}

/* The roles as tally reads them. */
static int put_policy(pai__buf *b, const struct script *x)
{
	const char *arr[] = {"RN", "RC", "MF", "MS"};
	size_t r, k;
	pai_role ro;

	for (k = 0; k < 4; k++) {
		pai__buf_printf(b, "\t%s=(", arr[k]);
		for (r = 0; r < pai_job_role_count(x->job); r++) {
			pai_job_role(&ro, x->job, r);
			if (r)
				pai__buf_putc(b, ' ');
			if (k == 0)
				pai__shell_quote(b, ro.name);
			else
				pai__buf_printf(b, "%lld",
						k == 1	 ? ro.task_number
						: k == 2 ? ro.min_failed
							 : ro.min_succeeded);
		}
		pai__buf_puts(b, ")\n");
	}
	return PAI_OK;
}

/* retryCount (v1) or jobRetryCount (v2): how many times a failed
 * attempt is run again; 0 without. */
static int put_retries(pai__buf *b, const struct script *x)
{
	json_t *cfg = pai_job_config(x->job);
	json_t *n = json_object_get(cfg, "retryCount");

	if (!n) /* protocol v2 */
		n = json_object_get(cfg, "jobRetryCount");
	pai__buf_printf(b, "%lld",
			json_is_integer(n) && json_integer_value(n) > 0
			    ? (long long)json_integer_value(n)
			    : 0);
	return PAI_OK;
}

/* A task: its role and index from its rank, its command in C. */
static int put_roles(pai__buf *b, const struct script *x)
{
	const struct pai__slurm_tasks *t = x->t;
	size_t r;
	char *cmd = NULL;
	pai_role ro;
	int err;

	for (r = 0; r < t->nroles; r++) {
		if (pai_job_role(&ro, t->job, r))
			return PAI_ERROR;
		if ((err = pai_job_role_entrypoint(&cmd, t->job, r)))
			return err;
		pai__buf_printf(b, "%s [ $r -lt %zu ]; then R=",
				r ? "elif" : "if",
				t->first[r] + (size_t)ro.task_number);
		pai__shell_quote(b, ro.name);
		pai__buf_printf(b, " I=$((r - %zu)) C=", t->first[r]);
		pai__shell_quote(b, cmd);
		pai__buf_putc(b, '\n');
		free(cmd);
		cmd = NULL;
	}
	return PAI_OK;
}

/* Each task's own variables, by rank; then those all tasks share,
 * which a jobEnv that redefines a task's own is among. */
static int put_env(pai__buf *b, const struct script *x)
{
	struct pai__slurm_tasks *t = x->t;
	json_t *shared = NULL, *own;
	pai_env *env = NULL;
	size_t r, i;
	pai_role ro;
	int err = PAI_OK;

	pai__buf_puts(b, "case $r in\n");
	for (r = 0; !err && r < t->nroles; r++) {
		pai_job_role(&ro, t->job, r);
		for (i = 0; !err && i < (size_t)ro.task_number; i++) {
			if ((err = pai__slurm_task_env(&env, t, r, i, 1)))
				break;
			own = env_json(env);
			pai_env_free(env);
			if (!own)
				return PAI_ENOMEM;
			pai__buf_printf(b, "%zu)\n", t->first[r] + i);
			err = put_exports(b, x->diags, t, own, "\t");
			pai__buf_puts(b, "\t;;\n");
			json_decref(own);
		}
	}
	pai__buf_puts(b, "esac\n");
	if (!err && !(err = pai__slurm_shared_env(&shared, t)))
		err = put_exports(b, x->diags, t, shared, "");
	json_decref(shared);
	return err;
}

/* The script's marks: in a line, "@NAME@" stands for its text; a line
 * that ends in "# @NAME@" stands for the lines its filler writes. */
static const struct mark {
	const char *name;
	int (*put)(pai__buf *b, const struct script *x);
} marks[] = {
    {"JOB_NAME", put_job_name},	  {"SUBMISSION", put_submission},
    {"JOB_DIR", put_job_dir},	  {"ROLES", put_role_list},
    {"HOSTS", put_hosts},	  {"SRUN_OPTIONS", put_srun_options},
    {"POLICY", put_policy},	  {"RETRIES", put_retries},
    {"TASK_ROLES", put_roles},	  {"TASK_ENV", put_env},
};

/* The mark at p ("@NAME@" of a name in marks), its length in *len;
 * NULL for none ("${@:2}", "[@]"). */
static const struct mark *mark_at(const char *p, size_t *len)
{
	size_t n = strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"), i;

	if (*p != '@' || !n || p[n + 1] != '@')
		return NULL;
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strlen(marks[i].name) == n &&
		    strncmp(marks[i].name, p + 1, n) == 0) {
			*len = n + 2;
			return &marks[i];
		}
	return NULL;
}

/* The line at p (len bytes, its '\n' included) filled in onto b. */
static int put_line(pai__buf *b, const struct script *x, const char *p,
		    size_t len)
{
	size_t n = len - (len && p[len - 1] == '\n'), k = 0, m;
	const char *tail;
	const struct mark *mk;
	int err;

	/* a whole line's mark: "... # @NAME@" */
	for (tail = p + n; tail > p && tail[-1] != '#'; tail--)
		;
	if (tail > p && tail[0] == ' ' && (mk = mark_at(tail + 1, &m)) &&
	    tail + 1 + m == p + n)
		return mk->put(b, x);
	while (k < len) {
		if (p[k] == '@' && (mk = mark_at(p + k, &m))) {
			if ((err = mk->put(b, x)))
				return err;
			k += m;
		} else
			pai__buf_putc(b, p[k++]);
	}
	return PAI_OK;
}

/* The whole script, its marks filled in. */
static int put_script(pai__buf *b, const struct script *x)
{
	const char *p = pai__slurm_batch_sh;
	size_t len;
	int err;

	for (; *p; p += len) {
		len = strcspn(p, "\n");
		len += p[len] == '\n';
		if ((err = put_line(b, x, p, len)))
			return err;
	}
	return b->oom ? PAI_ENOMEM : PAI_OK;
}

/* ---- the submission -------------------------------------------------- */

/* 1 when every role asks for the same cpus, memory and GPUs. */
static int roles_alike(const pai_job *job)
{
	pai_role a, r;
	size_t i;

	if (pai_job_role(&a, job, 0))
		return 0;
	for (i = 1; i < pai_job_role_count(job); i++)
		if (pai_job_role(&r, job, i) || r.cpu_number != a.cpu_number ||
		    r.memory_mb != a.memory_mb || r.gpu_number != a.gpu_number)
			return 0;
	return 1;
}

/* One component: tasks of role ro's resources (ntasks of them). */
static json_t *component(const pai_role *ro, long long ntasks,
			 const struct pai__slurm_submit *o)
{
	long long cpus = ro->cpu_number > 0 ? ro->cpu_number : 1;
	json_t *c = json_pack(
	    "{s:s,s:s,s:{s:s},s:s,s:s,s:I,s:I,s:I}", "name", o->name,
	    "current_working_directory", o->workdir, "environment", "PATH",
	    "/usr/local/bin:/usr/bin:/bin", "standard_output", "/dev/null",
	    "comment", o->comment, "tasks", ntasks, "cpus_per_task", cpus,
	    "memory_per_cpu", (ro->memory_mb + cpus - 1) / cpus);
	char gpus[32];

	if (!c)
		return NULL;
	snprintf(gpus, sizeof(gpus), "%lld", ro->gpu_number);
	if ((o->partition &&
	     json_object_set_new(c, "partition", json_string(o->partition))) ||
	    (o->account &&
	     json_object_set_new(c, "account", json_string(o->account))) ||
	    (o->qos && json_object_set_new(c, "qos", json_string(o->qos))) ||
	    (ro->gpu_number > 0 &&
	     json_object_set_new(c, "gpus_per_task", json_string(gpus)))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* The job's components: one, or one per role; *n how many. */
static json_t *components(const struct pai__slurm_tasks *t,
			  const struct pai__slurm_submit *o, size_t *n)
{
	json_t *list = json_array(), *env;
	size_t r;
	pai_role ro;
	char key[64], val[32];

	*n = roles_alike(t->job) ? 1 : t->nroles;
	for (r = 0; list && r < *n; r++) {
		pai_job_role(&ro, t->job, r);
		if (json_array_append_new(
			list, component(&ro,
					*n == 1 ? (long long)pai__slurm_task_count(t)
						: ro.task_number,
					o))) {
			json_decref(list);
			return NULL;
		}
	}
	/* srun --het-group in the first component needs the size of each
	 * (sbatch sets these itself) */
	env = json_object_get(json_array_get(list, 0), "environment");
	for (r = 0; list && *n > 1 && r < *n; r++) {
		pai_job_role(&ro, t->job, r);
		snprintf(key, sizeof(key), "SLURM_NTASKS_HET_GROUP_%zu", r);
		snprintf(val, sizeof(val), "%lld", ro.task_number);
		if (json_object_set_new(env, key, json_string(val))) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

int pai__slurm_job_body(json_t **out, pai_diags *diags, const pai_job *job,
			const struct pai__slurm_submit *o)
{
	struct pai__slurm_tasks t;
	pai__buf script = PAI__BUF_INIT;
	json_t *comps = NULL;
	struct script x;
	size_t n = 0;
	int err;

	*out = NULL;
	if ((err = options_utf8(diags, o)))
		return err;
	if ((err = pai__slurm_tasks_init(&t, job)))
		goto out;
	t.user = o->user;
	t.jobdir = o->jobdir;
	t.port_base = o->port_base;
	t.mark = o->mark;
	t.source = o->source;
	if (!(comps = components(&t, o, &n))) {
		err = PAI_ENOMEM;
		goto out;
	}
	x = (struct script){job, o, &t, diags, n};
	if ((err = put_script(&script, &x)))
		goto out;
	*out = n == 1 ? json_pack("{s:s%,s:O}", "script", script.data,
				  script.len, "job", json_array_get(comps, 0))
		      : json_pack("{s:s%,s:O}", "script", script.data,
				  script.len, "jobs", comps);
	err = *out ? PAI_OK : PAI_ENOMEM;
out:
	json_decref(comps);
	pai__buf_release(&script);
	pai__slurm_tasks_release(&t);
	return err;
}

/* A protocol-v2 config's image: its first dockerimage prerequisite's. */
static const char *v2_image(json_t *cfg)
{
	json_t *pre = json_object_get(cfg, "prerequisites"), *p;
	size_t i;

	json_array_foreach(pre, i, p)
	{
		const char *type = json_string_value(json_object_get(p, "type"));

		if (type && strcmp(type, "dockerimage") == 0)
			return json_string_value(json_object_get(p, "uri"));
	}
	return NULL;
}

int pai__slurm_image_warning(pai_diags *diags, const char *source,
			     const pai_job *job, int pyxis, const char **image)
{
	pai__src src = source_named(source);
	json_t *cfg = pai_job_config(job);
	const char *img = json_string_value(json_object_get(cfg, "image"));

	*image = NULL;
	if (!img) /* protocol v2: the first docker image prerequisite's */
		img = v2_image(cfg);
	if (!img || !*img)
		return PAI_OK;
	if (pyxis) {
		*image = img;
		return PAI_OK;
	}
	return pai__diag_add(diags, &src, PAI__NO_OFFSET, PAI_SEVERITY_WARNING,
			     "image", RULE_IMAGE,
			     "the image '%s' is not used: the tasks run on the "
			     "nodes as they are (a profile with --pyxis runs "
			     "them in it)",
			     img)
		   ? PAI_ENOMEM
		   : PAI_OK;
}
