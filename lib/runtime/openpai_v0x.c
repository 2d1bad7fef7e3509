/* openpai_v0x.c - the OpenPAI v0.x runtime: what a v0.x cluster makes of
 * a v1 JSON config's tasks (each task's environment and command), and
 * warnings about references in commands that no task will have.
 *
 * One generator (the gen_* functions) names every variable of the
 * cluster's table (reference/cluster-behaviour.md). expand_task() runs
 * it with values; check_references() runs the very same code for names
 * only, so the two cannot disagree about which variables exist.
 *
 * The order of a task's environment, stable (and documented for users
 * of paictl expand):
 *   1. job-level:    PAI_JOB_NAME, PAI_USER_NAME, PAI_USERNAME,
 *                    PAI_DEFAULT_FS_URI, PAI_DATA_DIR, PAI_OUTPUT_DIR,
 *                    PAI_CODE_DIR, PAI_JOB_VC_NAME, the job's task and
 *                    role counts and its role list;
 *   2. current task: PAI_WORK_DIR, role name, index, resources, min
 *                    counts, PAI_RESOURCE, container id, IP and ports;
 *   3. per role:     task count, min counts, host list, role by role;
 *   4. per task:     PAI_HOST_IP_<role>_<i>, then for each port label
 *                    PAI_PORT_LIST_<role>_<i>_<label> and
 *                    PAI_<role>_<i>_<label>_PORT, task by task;
 *   5. jobEnvs, in the file's order.
 * Each alias follows its primary name. A name defined twice keeps the
 * later value, in the later place: the cluster exports jobEnvs after its
 * own variables, so a jobEnvs key named like a PAI_ variable wins, as a
 * second `export` would.
 *
 * What only the cluster knows shows as a placeholder: <user>, <default-fs>,
 * <ip:worker-1>, <container-id:worker-1>, <work-dir:worker-1>, and
 * <port:worker-1:ssh>, or <port:worker-1:tb#2> for port 2 of a label
 * with several ports. */
#include "runtime.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reference warnings per command: more would drown the rest, and each
 * costs a walk over the command's source line. */
#define MAX_REF_WARNINGS 16

/* Longest name worth matching against task families or suggesting a
 * spelling for; longer ones are no typo of a cluster variable. */
#define MAX_SUGGEST_NAME 64

/* Edit-distance cells that suggestions may cost in one check of a job,
 * so that a job of thousands of roles still parses quickly. */
#define SUGGEST_BUDGET ((size_t)20 * 1000 * 1000)

/* Runs of digits in a name tried as the index of a per-task variable. */
#define MAX_INDEX_TRIES 32

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The value of n decimal digits; callers keep n at most 18. */
static long long digits_value(const char *s, size_t n)
{
	long long v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* ---- jobEnvs values as strings ------------------------------------------ */

static void put_json_string(pai__buf *b, const char *s, size_t n)
{
	size_t i;

	pai__buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': pai__buf_puts(b, "\\\""); break;
		case '\\': pai__buf_puts(b, "\\\\"); break;
		case '\b': pai__buf_puts(b, "\\b"); break;
		case '\f': pai__buf_puts(b, "\\f"); break;
		case '\n': pai__buf_puts(b, "\\n"); break;
		case '\r': pai__buf_puts(b, "\\r"); break;
		case '\t': pai__buf_puts(b, "\\t"); break;
		default:
			if (c < 0x20)
				pai__buf_printf(b, "\\u%04x", c);
			else
				pai__buf_putc(b, (char)c);
		}
	}
	pai__buf_putc(b, '"');
}

/* A jobEnvs value as the string the task sees: strings verbatim (no
 * substitution: "$" stays), numbers as JSON text, null as "", objects
 * and arrays as compact JSON. jansson limits nesting, which bounds the
 * recursion. */
static void put_env_value(pai__buf *b, json_t *v, bool top)
{
	const char *key;
	void *it;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		if (top)
			pai__buf_put(b, json_string_value(v),
				     json_string_length(v));
		else
			put_json_string(b, json_string_value(v),
					json_string_length(v));
		break;
	case JSON_INTEGER:
		pai__buf_printf(b, "%" JSON_INTEGER_FORMAT,
				json_integer_value(v));
		break;
	case JSON_REAL: pai__put_js_number(b, json_real_value(v)); break;
	case JSON_TRUE: pai__buf_puts(b, "true"); break;
	case JSON_FALSE: pai__buf_puts(b, "false"); break;
	case JSON_NULL:
		if (!top)
			pai__buf_puts(b, "null");
		break;
	case JSON_OBJECT:
		pai__buf_putc(b, '{');
		for (it = json_object_iter(v); it;
		     it = json_object_iter_next(v, it)) {
			key = json_object_iter_key(it);
			if (it != json_object_iter(v))
				pai__buf_putc(b, ',');
			put_json_string(b, key, strlen(key));
			pai__buf_putc(b, ':');
			put_env_value(b, json_object_iter_value(it), false);
		}
		pai__buf_putc(b, '}');
		break;
	case JSON_ARRAY:
		pai__buf_putc(b, '[');
		for (i = 0; i < json_array_size(v); i++) {
			if (i)
				pai__buf_putc(b, ',');
			put_env_value(b, json_array_get(v, i), false);
		}
		pai__buf_putc(b, ']');
		break;
	}
}

/* ---- the job, read defensively ------------------------------------------ */

/* The generator also runs inside pai_job_parse(), on whatever the
 * validator let through, so it never trusts a field to be there. */
static pai_role role_at(const pai_job *job, size_t r)
{
	pai_role x;

	memset(&x, 0, sizeof(x));
	pai_job_role(&x, job, r);
	if (!x.name)
		x.name = "";
	if (!x.command)
		x.command = "";
	return x;
}

static pai_port port_at(const pai_job *job, size_t r, size_t k)
{
	pai_port p;

	memset(&p, 0, sizeof(p));
	pai_job_port(&p, job, r, k);
	if (!p.label)
		p.label = "";
	return p;
}

static size_t tasks_of(const pai_role *ro)
{
	return ro->task_number > 0 ? (size_t)ro->task_number : 0;
}

static long long ports_of(const pai_port *p)
{
	return p->port_number > 0 ? p->port_number : 0;
}

static long long total_tasks(const pai_job *job)
{
	size_t r, n = pai_job_role_count(job);
	long long sum = 0;

	for (r = 0; r < n; r++) {
		pai_role ro = role_at(job, r);
		long long t = ro.task_number > 0 ? ro.task_number : 0;

		sum = t > LLONG_MAX - sum ? LLONG_MAX : sum + t;
	}
	return sum;
}

static long label_index(const pai_job *job, size_t r, const char *label)
{
	pai_role ro = role_at(job, r);
	size_t k;

	for (k = 0; k < ro.port_count; k++)
		if (strcmp(port_at(job, r, k).label, label) == 0)
			return (long)k;
	return -1;
}

/* ---- the generator ------------------------------------------------------ */

struct gen {
	const pai_job *job;
	json_t *config;
	const char *user, *fs_uri;
	const pai_placement *pl; /* may be NULL */
	const pai_dirs *dirs;	 /* NULL when names only */
	bool values;		 /* false: names only, values are not built */
	pai_env *env;		 /* where the variables go */
	pai_env *families;	 /* names only: the per-task name families */
	pai__buf name, val;	 /* the variable being built */
	int err;
};

/* Defines the variable built in g->name and g->val, and empties both. */
static void emit(struct gen *g)
{
	char *name = pai__buf_detach(&g->name), *value = NULL;

	if (g->values)
		value = pai__buf_detach(&g->val);
	else
		pai__buf_release(&g->val);
	if (!g->err && name && (value || !g->values)) {
		if (pai__env_set(g->env, name, value, 0) < 0)
			g->err = PAI_ENOMEM;
		return;
	}
	if (!g->err)
		g->err = PAI_ENOMEM;
	free(name);
	free(value);
}

static void var(struct gen *g, const char *name, const char *value)
{
	pai__buf_puts(&g->name, name);
	if (g->values)
		pai__buf_puts(&g->val, value ? value : "");
	emit(g);
}

/* Defines name and its aliases (either may be NULL) with the value built
 * in g->val. */
static void var_built(struct gen *g, const char *name, const char *alias1,
		      const char *alias2)
{
	char *v = NULL;

	if (g->values && !(v = pai__buf_detach(&g->val)))
		g->err = PAI_ENOMEM;
	pai__buf_release(&g->val);
	var(g, name, v);
	if (alias1)
		var(g, alias1, v);
	if (alias2)
		var(g, alias2, v);
	free(v);
}

/* minFailedTaskCount and minSucceededTaskCount: null is "". */
static void put_count(pai__buf *b, long long n)
{
	if (n >= 0)
		pai__buf_printf(b, "%lld", n);
}

enum placed { PLACED_IP, PLACED_CONTAINER_ID, PLACED_WORK_DIR };

/* What the placement says, or a placeholder such as <ip:worker-1>. */
static void put_placed(struct gen *g, pai__buf *b, enum placed what, size_t r,
		       size_t i)
{
	static const char *const kind[] = {"ip", "container-id", "work-dir"};
	const char *(*fn)(void *, size_t, size_t) = NULL;
	const char *v = NULL;

	if (g->pl)
		fn = what == PLACED_IP		   ? g->pl->ip
		     : what == PLACED_CONTAINER_ID ? g->pl->container_id
						   : g->pl->work_dir;
	if (fn)
		v = fn(g->pl->data, r, i);
	if (v && *v)
		pai__buf_puts(b, v);
	else
		pai__buf_printf(b, "<%s:%s-%zu>", kind[what],
				role_at(g->job, r).name, i);
}

/* Port n of label k of task i of role r: the placement's; else, for a
 * label with a fixed beginAt, beginAt + n, as the launcher allocates a
 * fixed range; else <port:worker-1:ssh>, or <port:worker-1:tb#2> for a
 * label with several ports. */
static void put_port(struct gen *g, pai__buf *b, size_t r, size_t i, size_t k,
		     long long n)
{
	pai_port p = port_at(g->job, r, k);
	unsigned v = 0;

	if (g->pl && g->pl->port)
		v = g->pl->port(g->pl->data, r, i, k, (size_t)n);
	if (v)
		pai__buf_printf(b, "%u", v);
	else if (p.begin_at > 0 && p.begin_at <= LLONG_MAX - n)
		pai__buf_printf(b, "%lld", p.begin_at + n);
	else if (p.port_number > 1)
		pai__buf_printf(b, "<port:%s-%zu:%s#%lld>",
				role_at(g->job, r).name, i, p.label, n);
	else
		pai__buf_printf(b, "<port:%s-%zu:%s>", role_at(g->job, r).name,
				i, p.label);
}

static void put_ports(struct gen *g, pai__buf *b, size_t r, size_t i, size_t k)
{
	pai_port p = port_at(g->job, r, k);
	long long n;

	for (n = 0; n < ports_of(&p); n++) {
		if (n)
			pai__buf_putc(b, ',');
		put_port(g, b, r, i, k, n);
	}
}

/* The first port of a label: PAI_CONTAINER_HOST_PORT and the host lists
 * use the first http port, PAI_CONTAINER_SSH_PORT the first ssh port. */
static void put_first_port(struct gen *g, pai__buf *b, size_t r, size_t i,
			   const char *label)
{
	long k = label_index(g->job, r, label);
	pai_port p;

	if (k < 0)
		return;
	p = port_at(g->job, r, (size_t)k);
	if (ports_of(&p) > 0)
		put_port(g, b, r, i, (size_t)k, 0);
}

static void gen_job(struct gen *g)
{
	const char *vc =
	    json_string_value(json_object_get(g->config, "virtualCluster"));
	const char *name = pai_job_name(g->job);
	size_t r, nroles = pai_job_role_count(g->job);

	var(g, "PAI_JOB_NAME", name);
	var(g, "PAI_USER_NAME", g->user);
	var(g, "PAI_USERNAME", g->user);
	var(g, "PAI_DEFAULT_FS_URI", g->fs_uri);
	var(g, "PAI_DATA_DIR", pai_dirs_data_dir(g->dirs));
	var(g, "PAI_OUTPUT_DIR", pai_dirs_output_dir(g->dirs));
	var(g, "PAI_CODE_DIR", pai_dirs_code_dir(g->dirs));
	var(g, "PAI_JOB_VC_NAME", vc && *vc ? vc : "default");
	pai__buf_printf(&g->val, "%lld", total_tasks(g->job));
	var_built(g, "PAI_JOB_TASK_COUNT", "PAI_TASKS_NUM", NULL);
	pai__buf_printf(&g->val, "%zu", nroles);
	var_built(g, "PAI_JOB_TASK_ROLE_COUNT", "PAI_TASK_ROLE_COUNT",
		  "PAI_TASK_ROLES_NUM");
	for (r = 0; g->values && r < nroles; r++) {
		if (r)
			pai__buf_putc(&g->val, ',');
		pai__buf_puts(&g->val, role_at(g->job, r).name);
	}
	var_built(g, "PAI_JOB_TASK_ROLE_LIST", "PAI_TASK_ROLE_LIST", NULL);
}

/* The current task's own: where it runs, its role, index, resources and
 * counts. */
static void gen_current_task(struct gen *g, size_t r, size_t i)
{
	pai_role ro = role_at(g->job, r);

	if (g->values)
		put_placed(g, &g->val, PLACED_WORK_DIR, r, i);
	var_built(g, "PAI_WORK_DIR", NULL, NULL);
	var(g, "PAI_CURRENT_TASK_ROLE_NAME", ro.name);
	var(g, "PAI_TASK_ROLE_NAME", ro.name);
	pai__buf_printf(&g->val, "%zu", i);
	var_built(g, "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX",
		  "PAI_TASK_INDEX", "PAI_TASK_ROLE_INDEX");
	pai__buf_printf(&g->val, "%lld", ro.task_number);
	var_built(g, "PAI_CURRENT_TASK_ROLE_TASK_COUNT", "PAI_TASK_ROLE_NUM",
		  NULL);
	pai__buf_printf(&g->val, "%lld", ro.cpu_number);
	var_built(g, "PAI_CURRENT_TASK_ROLE_CPU_COUNT", "PAI_TASK_CPU_NUM",
		  NULL);
	pai__buf_printf(&g->val, "%lld", ro.memory_mb);
	var_built(g, "PAI_CURRENT_TASK_ROLE_MEM_MB", "PAI_TASK_MEM_MB", NULL);
	pai__buf_printf(&g->val, "%lld", ro.shm_mb);
	var_built(g, "PAI_CURRENT_TASK_ROLE_SHM_MB", NULL, NULL);
	pai__buf_printf(&g->val, "%lld", ro.gpu_number);
	var_built(g, "PAI_CURRENT_TASK_ROLE_GPU_COUNT", "PAI_TASK_GPU_NUM",
		  NULL);
	put_count(&g->val, ro.min_failed);
	var_built(g, "PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT", NULL, NULL);
	put_count(&g->val, ro.min_succeeded);
	var_built(g, "PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT", NULL,
		  NULL);
	pai__buf_printf(&g->val, "%lld,%lld,%lld,%lld", ro.gpu_number,
			ro.cpu_number, ro.memory_mb, ro.shm_mb);
	var_built(g, "PAI_RESOURCE", NULL, NULL);
}

/* The current task's container: its id, IP and ports. */
static void gen_current_container(struct gen *g, size_t r, size_t i)
{
	pai_role ro = role_at(g->job, r);
	size_t k;

	if (g->values)
		put_placed(g, &g->val, PLACED_CONTAINER_ID, r, i);
	var_built(g, "PAI_CONTAINER_ID", NULL, NULL);
	if (g->values)
		put_placed(g, &g->val, PLACED_IP, r, i);
	var_built(g, "PAI_CONTAINER_HOST_IP", "PAI_CURRENT_CONTAINER_IP", NULL);
	if (g->values)
		put_first_port(g, &g->val, r, i, "http");
	var_built(g, "PAI_CONTAINER_HOST_PORT", "PAI_CURRENT_CONTAINER_PORT",
		  NULL);
	if (g->values)
		put_first_port(g, &g->val, r, i, "ssh");
	var_built(g, "PAI_CONTAINER_SSH_PORT", NULL, NULL);
	for (k = 0; g->values && k < ro.port_count; k++) {
		if (k)
			pai__buf_putc(&g->val, ';');
		pai__buf_printf(&g->val, "%s:", port_at(g->job, r, k).label);
		put_ports(g, &g->val, r, i, k);
	}
	var_built(g, "PAI_CONTAINER_HOST_PORT_LIST", NULL, NULL);
	for (k = 0; k < ro.port_count; k++) {
		pai__buf_printf(&g->name, "PAI_CONTAINER_HOST_%s_PORT_LIST",
				port_at(g->job, r, k).label);
		if (g->values)
			put_ports(g, &g->val, r, i, k);
		emit(g);
	}
}

static void gen_current(struct gen *g, size_t r, size_t i)
{
	gen_current_task(g, r, i);
	gen_current_container(g, r, i);
}

/* Role r's names that every task has: its counts and its host list. */
static void gen_role(struct gen *g, size_t r)
{
	pai_role ro = role_at(g->job, r);
	size_t i;

	pai__buf_puts(&g->name, "PAI_TASK_ROLE_TASK_COUNT_");
	pai__buf_puts(&g->name, ro.name);
	pai__buf_printf(&g->val, "%lld", ro.task_number);
	emit(g);
	pai__buf_puts(&g->name, "PAI_MIN_FAILED_TASK_COUNT_");
	pai__buf_puts(&g->name, ro.name);
	put_count(&g->val, ro.min_failed);
	emit(g);
	pai__buf_puts(&g->name, "PAI_MIN_SUCCEEDED_TASK_COUNT_");
	pai__buf_puts(&g->name, ro.name);
	put_count(&g->val, ro.min_succeeded);
	emit(g);
	pai__buf_puts(&g->name, "PAI_TASK_ROLE_");
	pai__buf_puts(&g->name, ro.name);
	pai__buf_puts(&g->name, "_HOST_LIST");
	for (i = 0; g->values && i < tasks_of(&ro); i++) {
		if (i)
			pai__buf_putc(&g->val, ',');
		put_placed(g, &g->val, PLACED_IP, r, i);
		pai__buf_putc(&g->val, ':');
		put_first_port(g, &g->val, r, i, "http");
	}
	emit(g);
}

static void gen_roles(struct gen *g)
{
	size_t r, nroles = pai_job_role_count(g->job);

	for (r = 0; r < nroles; r++)
		gen_role(g, r);
}

/* The per-task variables, which every task exposes to every other, are
 * named <prefix><index><suffix>. Expansion spells them out task by task;
 * the reference check keeps each family whole (prefix "\n" suffix, with
 * the task count and the role's name), as taskNumber may be far too
 * large to spell out. */
enum task_var { TV_HOST_IP, TV_PORT_LIST, TV_PORT };

struct affix {
	enum task_var kind;
	size_t k; /* the port label's index */
	char *pre, *suf;
};

static void affixes_free(struct affix *a, size_t n)
{
	size_t j;

	for (j = 0; a && j < n; j++) {
		free(a[j].pre);
		free(a[j].suf);
	}
	free(a);
}

static int role_affixes(struct affix **out, size_t *nout, const pai_job *job,
			size_t r)
{
	pai_role ro = role_at(job, r);
	struct affix *a = NULL;
	size_t n = 1 + 2 * ro.port_count, j, k;
	pai__buf pre = PAI__BUF_INIT, suf = PAI__BUF_INIT;
	int err = PAI_ENOMEM;

	*out = NULL;
	*nout = 0;
	a = calloc(n, sizeof(*a));
	if (!a)
		goto out;
	for (j = 0; j < n; j++) {
		const char *label;

		k = j ? (j - 1) / 2 : 0;
		label = port_at(job, r, k).label;
		a[j].kind = j == 0  ? TV_HOST_IP
			    : j % 2 ? TV_PORT_LIST
				    : TV_PORT;
		a[j].k = k;
		switch (a[j].kind) {
		case TV_HOST_IP:
			pai__buf_puts(&pre, "PAI_HOST_IP_");
			pai__buf_puts(&pre, ro.name);
			pai__buf_putc(&pre, '_');
			break;
		case TV_PORT_LIST:
			pai__buf_puts(&pre, "PAI_PORT_LIST_");
			pai__buf_puts(&pre, ro.name);
			pai__buf_putc(&pre, '_');
			pai__buf_putc(&suf, '_');
			pai__buf_puts(&suf, label);
			break;
		case TV_PORT:
			pai__buf_puts(&pre, "PAI_");
			pai__buf_puts(&pre, ro.name);
			pai__buf_putc(&pre, '_');
			pai__buf_putc(&suf, '_');
			pai__buf_puts(&suf, label);
			pai__buf_puts(&suf, "_PORT");
			break;
		}
		a[j].pre = pai__buf_detach(&pre);
		a[j].suf = pai__buf_detach(&suf);
		if (!a[j].pre || !a[j].suf)
			goto out;
	}
	*out = a;
	*nout = n;
	a = NULL;
	err = PAI_OK;
out:
	affixes_free(a, n);
	pai__buf_release(&pre);
	pai__buf_release(&suf);
	return err;
}

/* The per-task names of role r's tasks: spelled out with their values,
 * or (names only) as families. */
static void gen_role_tasks(struct gen *g, size_t r)
{
	pai_role ro = role_at(g->job, r);
	size_t i, j, n;
	struct affix *a;

	if (role_affixes(&a, &n, g->job, r)) {
		g->err = PAI_ENOMEM;
		return;
	}
	for (j = 0; !g->values && j < n; j++) {
		char *key, *rn;

		pai__buf_puts(&g->name, a[j].pre);
		pai__buf_putc(&g->name, '\n');
		pai__buf_puts(&g->name, a[j].suf);
		key = pai__buf_detach(&g->name);
		rn = strdup(ro.name);
		if (!key || !rn) {
			free(key);
			free(rn);
			g->err = PAI_ENOMEM;
		} else if (pai__env_set(g->families, key, rn,
					(long long)tasks_of(&ro)) < 0) {
			g->err = PAI_ENOMEM;
		}
	}
	for (i = 0; g->values && i < tasks_of(&ro); i++) {
		for (j = 0; j < n; j++) {
			pai__buf_printf(&g->name, "%s%zu%s", a[j].pre, i,
					a[j].suf);
			if (a[j].kind == TV_HOST_IP)
				put_placed(g, &g->val, PLACED_IP, r, i);
			else
				put_ports(g, &g->val, r, i, a[j].k);
			emit(g);
		}
	}
	affixes_free(a, n);
}

static void gen_tasks(struct gen *g)
{
	size_t r, nroles = pai_job_role_count(g->job);

	for (r = 0; r < nroles && !g->err; r++)
		gen_role_tasks(g, r);
}

static void gen_job_envs(struct gen *g)
{
	json_t *envs = json_object_get(g->config, "jobEnvs");
	void *it;

	for (it = json_object_iter(envs); it;
	     it = json_object_iter_next(envs, it)) {
		pai__buf_puts(&g->name, json_object_iter_key(it));
		if (g->values)
			put_env_value(&g->val, json_object_iter_value(it),
				      true);
		emit(g);
	}
}

static void gen_init(struct gen *g, const pai_job *job,
		     const pai_expand_options *opts, bool values)
{
	memset(g, 0, sizeof(*g));
	g->job = job;
	g->config = pai_job_config(job);
	g->user = pai__opt_user(opts);
	g->fs_uri = pai__opt_fs_uri(opts);
	g->pl = opts ? opts->placement : NULL;
	g->values = values;
}

static void gen_release(struct gen *g)
{
	pai__buf_release(&g->name);
	pai__buf_release(&g->val);
}

/* The whole environment of task (role, index) and its command. */
static int expand_task(pai_env **out, const pai_job *job, size_t role,
		       size_t index, const pai_expand_options *opts)
{
	pai_role ro = role_at(job, role);
	pai_dirs *dirs = NULL;
	pai_env *env = NULL;
	struct gen g;
	int err;

	*out = NULL;
	gen_init(&g, job, opts, true);
	err = pai_expand_dirs(&dirs, job, opts);
	if (err)
		goto out;
	err = PAI_ENOMEM;
	env = pai__env_new();
	if (!env)
		goto out;
	g.dirs = dirs;
	g.env = env;
	gen_job(&g);
	gen_current(&g, role, index);
	gen_roles(&g);
	gen_tasks(&g);
	gen_job_envs(&g);
	if (g.err)
		goto out;
	err = pai__env_finish(env, ro.command);
	if (err)
		goto out;
	*out = env;
	env = NULL;
out:
	gen_release(&g);
	pai_env_free(env);
	pai_dirs_free(dirs);
	return err;
}

/* Only the variables about task (role, index) itself, gen_current()'s:
 * what differs between the tasks of a job; the rest (the job's, every
 * role's and every task's) is the same in all of them. No command. */
static int expand_current(pai_env **out, const pai_job *job, size_t role,
			  size_t index, const pai_expand_options *opts)
{
	pai_env *env;
	struct gen g;

	*out = NULL;
	if (!(env = pai__env_new()))
		return PAI_ENOMEM;
	gen_init(&g, job, opts, true);
	g.env = env;
	gen_current(&g, role, index);
	gen_release(&g);
	if (g.err || pai__env_compact(env) < 0) {
		pai_env_free(env);
		return g.err ? g.err : PAI_ENOMEM;
	}
	*out = env;
	return PAI_OK;
}

/* A v0.x role's command as written: the runtime hands it to bash as it
 * is. */
static int entrypoint(char **out, const pai_job *job, size_t role)
{
	*out = strdup(role_at(job, role).command);
	return *out ? PAI_OK : PAI_ENOMEM;
}

/* ---- references no task will have --------------------------------------- */

/* What the tasks of one role have: shared holds what every task has
 * (job-level, per-role, jobEnvs), families the per-task names, current
 * the current-task names of the role being checked, and any_current
 * those of every role, with the first role that has each (a port label
 * gives only its own role's tasks a PAI_CONTAINER_HOST_<label>_...). */
struct known {
	const pai_job *job;
	struct gen *gen;
	pai_env *shared, *families, *current;
	size_t current_role;  /* whose names current holds; SIZE_MAX: none */
	bool full;	      /* shared and families include the per-role
			       * and per-task names (built on first miss) */
	int err;	      /* PAI_ENOMEM once building them failed */
	pai_env *any_current; /* every role's current-task names: role index;
			       * built only when a hint needs it */
	pai_env *roles;	      /* role names (count: the index), to find the
			       * roles a per-role name spells */
	bool *role_done;      /* roles whose names shared and families hold */
	pai__buf key;	      /* scratch */
	size_t budget;	      /* edit-distance cells left for suggestions */
	const pai_env *given; /* names the tasks get from where they run */
};

/* The family that name belongs to, trying each run of digits as the
 * index, or NULL. *in_range says whether the role has that index. */
static const struct var *family_of(struct known *kn, const char *name, size_t n,
				   bool *in_range)
{
	const struct var *found = NULL;
	size_t i, j, runs = 0;

	*in_range = false;
	for (i = 0; i < n; i = j + 1) {
		const struct var *v;
		long long idx;

		j = i;
		if (!is_digit((unsigned char)name[i]))
			continue;
		while (j < n && is_digit((unsigned char)name[j]))
			j++;
		/* each try costs the length of the name: a bound keeps an
		 * absurd name of many digits from costing its square */
		if (++runs > MAX_INDEX_TRIES)
			break;
		/* indexes are written without leading zeros */
		if ((name[i] == '0' && j - i > 1) || j - i > 18)
			continue;
		idx = digits_value(name + i, j - i);
		pai__buf_release(&kn->key);
		pai__buf_put(&kn->key, name, i);
		pai__buf_putc(&kn->key, '\n');
		pai__buf_put(&kn->key, name + j, n - j);
		if (kn->key.oom) {
			kn->err = PAI_ENOMEM;
			return NULL;
		}
		v = pai__env_find(kn->families, kn->key.data, kn->key.len);
		if (v && idx < v->count) {
			*in_range = true;
			return v;
		}
		if (v && !found)
			found = v;
	}
	return found;
}

/* Adds every role's per-role and per-task names to shared and families,
 * in their order (a suggestion's search goes over them in it; a role
 * added before by add_roles_in() is added again, its first entries left
 * dead). They are most of the names of a large job, and commands mostly
 * use job-level, current-task and jobEnvs names and a few roles': so
 * only a suggestion needs them all. */
static int ensure_full(struct known *kn)
{
	if (kn->full || kn->err)
		return kn->err;
	kn->gen->env = kn->shared;
	kn->gen->families = kn->families;
	gen_roles(kn->gen);
	gen_tasks(kn->gen);
	kn->full = true;
	kn->err = kn->gen->err;
	return kn->err;
}

static int build_role_set(struct known *kn)
{
	size_t r, nroles = pai_job_role_count(kn->job);

	kn->roles = pai__env_new();
	kn->role_done = calloc(nroles ? nroles : 1, sizeof(*kn->role_done));
	if (!kn->roles || !kn->role_done)
		return PAI_ENOMEM;
	for (r = 0; r < nroles; r++) {
		char *k = strdup(role_at(kn->job, r).name);

		if (!k || pai__env_set(kn->roles, k, NULL, (long long)r) < 0)
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* Adds the per-role and per-task names of every role whose name the
 * name could spell: each part of it that starts after a '_' and ends
 * before one (or at its end), as in PAI_TASK_ROLE_<role>_HOST_LIST. A
 * command mostly names a few roles: 2,000 roles need not cost their
 * 20,000 names. */
static int add_roles_in(struct known *kn, const char *name, size_t n)
{
	size_t a, b;

	for (a = 1; a < n; a++) {
		if (name[a - 1] != '_')
			continue;
		for (b = a + 1; b <= n; b++) {
			const struct var *v;

			if (b < n && name[b] != '_')
				continue;
			v = pai__env_find(kn->roles, name + a, b - a);
			if (!v || kn->role_done[v->count])
				continue;
			kn->role_done[v->count] = true;
			kn->gen->env = kn->shared;
			kn->gen->families = kn->families;
			gen_role(kn->gen, (size_t)v->count);
			gen_role_tasks(kn->gen, (size_t)v->count);
			if (kn->gen->err)
				return kn->err = kn->gen->err;
		}
	}
	return PAI_OK;
}

/* The index of the role named name[0..n), or -1. */
static long role_named(struct known *kn, const char *name, size_t n)
{
	const struct var *v = pai__env_find(kn->roles, name, n);

	return v ? (long)v->count : -1;
}

static bool has_label(const pai_job *job, size_t r, const char *l, size_t n)
{
	size_t k, nports = role_at(job, r).port_count;

	for (k = 0; k < nports; k++) {
		const char *label = port_at(job, r, k).label;

		if (strncmp(label, l, n) == 0 && label[n] == '\0')
			return true;
	}
	return false;
}

/* Whether rest (after PAI_HOST_IP_, PAI_PORT_LIST_ or PAI_) is
 * <role>_<index><tail> for a task that role has, with the tail that
 * kind of name takes: "", _<label> or _<label>_PORT. */
static bool task_name_known(struct known *kn, const char *rest, size_t n,
			    enum task_var kind)
{
	size_t j, k, tries = 0;

	for (j = 1; j + 1 < n; j++) {
		const char *tail;
		size_t tn;
		pai_role ro;
		long r;

		if (rest[j] != '_' || !is_digit((unsigned char)rest[j + 1]))
			continue;
		/* each try costs the length of the name (as in family_of) */
		if (++tries > MAX_INDEX_TRIES)
			break;
		for (k = j + 1; k < n && is_digit((unsigned char)rest[k]); k++)
			;
		/* indexes are written without leading zeros */
		if ((rest[j + 1] == '0' && k - j > 2) || k - j - 1 > 18)
			continue;
		r = role_named(kn, rest, j);
		if (r < 0)
			continue;
		ro = role_at(kn->job, (size_t)r);
		if (digits_value(rest + j + 1, k - j - 1) >=
		    (long long)tasks_of(&ro))
			continue;
		tail = rest + k;
		tn = n - k;
		if (kind == TV_HOST_IP && tn == 0)
			return true;
		if (kind == TV_PORT_LIST && tn > 1 && tail[0] == '_' &&
		    has_label(kn->job, (size_t)r, tail + 1, tn - 1))
			return true;
		if (kind == TV_PORT && tn > 6 && tail[0] == '_' &&
		    memcmp(tail + tn - 5, "_PORT", 5) == 0 &&
		    has_label(kn->job, (size_t)r, tail + 1, tn - 6))
			return true;
	}
	return false;
}

/* Whether name is one of the names gen_role() and gen_role_tasks() give
 * some role, told from its shape, without building them: commands of
 * a large job name many roles' host lists and ports. False may still be
 * known (the tables decide then). */
static bool role_name_known(struct known *kn, const char *name, size_t n)
{
	static const struct {
		const char *pre, *suf;
	} per_role[] = {{"PAI_TASK_ROLE_TASK_COUNT_", ""},
			{"PAI_MIN_FAILED_TASK_COUNT_", ""},
			{"PAI_MIN_SUCCEEDED_TASK_COUNT_", ""},
			{"PAI_TASK_ROLE_", "_HOST_LIST"}};
	size_t i;

	for (i = 0; i < sizeof(per_role) / sizeof(per_role[0]); i++) {
		size_t p = strlen(per_role[i].pre), q = strlen(per_role[i].suf);

		if (n > p + q && memcmp(name, per_role[i].pre, p) == 0 &&
		    memcmp(name + n - q, per_role[i].suf, q) == 0 &&
		    role_named(kn, name + p, n - p - q) >= 0)
			return true;
	}
	if (n > 12 && memcmp(name, "PAI_HOST_IP_", 12) == 0 &&
	    task_name_known(kn, name + 12, n - 12, TV_HOST_IP))
		return true;
	if (n > 14 && memcmp(name, "PAI_PORT_LIST_", 14) == 0 &&
	    task_name_known(kn, name + 14, n - 14, TV_PORT_LIST))
		return true;
	return n > 4 && memcmp(name, "PAI_", 4) == 0 &&
	       task_name_known(kn, name + 4, n - 4, TV_PORT);
}

static bool is_known(struct known *kn, const char *name, size_t n)
{
	bool in_range;

	if (pai__env_find(kn->current, name, n) ||
	    pai__env_find(kn->shared, name, n))
		return true;
	if (!kn->roles && (kn->err = build_role_set(kn)) != PAI_OK)
		return true; /* out of memory: reported by the caller */
	if (role_name_known(kn, name, n))
		return true;
	if (!kn->full) {
		if (add_roles_in(kn, name, n))
			return true; /* out of memory: reported by the caller */
		if (pai__env_find(kn->shared, name, n))
			return true;
	}
	return family_of(kn, name, n, &in_range) && in_range;
}

struct best {
	char *name;
	size_t dist;
};

static void consider(struct known *kn, struct best *b, const char *name,
		     size_t n, const char *cand, size_t m)
{
	size_t d;

	if (kn->budget < n * m) {
		kn->budget = 0;
		return;
	}
	kn->budget -= n * m;
	d = pai__edit_distance(name, n, cand, m, b->dist - 1);
	if (d < b->dist) {
		char *c = strndup(cand, m);

		if (!c) {
			kn->err = PAI_ENOMEM;
			return;
		}
		free(b->name);
		b->name = c;
		b->dist = d;
	}
}

static void consider_table(struct known *kn, struct best *b, const pai_env *e,
			   const char *name, size_t n)
{
	size_t i;

	for (i = 0; e && i < e->n && kn->budget; i++)
		if (!e->v[i].dead)
			consider(kn, b, name, n, e->v[i].name,
				 strlen(e->v[i].name));
}

/* The nearest candidate to form by edit distance, into b. */
static void nearest(struct known *kn, struct best *b, const char *form,
		    size_t n)
{
	pai__buf cand = PAI__BUF_INIT;
	size_t i, j, f;

	consider_table(kn, b, kn->current, form, n);
	consider_table(kn, b, kn->shared, form, n);
	for (f = 0; f < kn->families->n && kn->budget; f++) {
		const struct var *v = &kn->families->v[f];
		const char *nl = strchr(v->name, '\n');

		if (!nl || v->count <= 0)
			continue;
		/* index 0, and each index that the name spells */
		for (i = 0; i <= n; i = j + 1) {
			long long idx;

			j = i;
			if (i < n && !is_digit((unsigned char)form[i]))
				continue;
			while (j < n && is_digit((unsigned char)form[j]))
				j++;
			if (j - i > 9)
				continue;
			idx = digits_value(form + i, j - i);
			if (idx >= v->count || (idx == 0 && i < n))
				continue; /* index 0 comes at i == n */
			pai__buf_release(&cand);
			pai__buf_put(&cand, v->name, (size_t)(nl - v->name));
			pai__buf_printf(&cand, "%lld%s", idx, nl + 1);
			if (cand.oom)
				kn->err = PAI_ENOMEM;
			else
				consider(kn, b, form, n, cand.data, cand.len);
		}
	}
	pai__buf_release(&cand);
	for (i = 0; i < pai__nshell_vars; i++)
		consider(kn, b, form, n, pai__shell_vars[i],
			 strlen(pai__shell_vars[i]));
	for (i = 0; i < pai_env_count(kn->given); i++)
		consider(kn, b, form, n, pai_env_name(kn->given, i),
			 strlen(pai_env_name(kn->given, i)));
}

#define MAX_REWRITES 3

/* A known name close to an unknown one, or NULL. Old clusters named the
 * host lists by role index ($PAI_TASK_ROLE_0_HOST_LIST): the name with
 * an index replaced by that role's name comes first if it exists, and
 * takes part in the edit-distance search otherwise ($AII_TASK_ROLE_0_...
 * is then near $PAI_TASK_ROLE_ps_server_...). Caller frees. */
static char *suggest(struct known *kn, const char *name, size_t n)
{
	size_t nroles = pai_job_role_count(kn->job), i, j, nr = 0;
	struct best b = {NULL, 0};
	pai__buf rw[MAX_REWRITES];
	char *found = NULL;

	if (n > MAX_SUGGEST_NAME)
		return NULL;
	for (i = 0; i < n && nr < MAX_REWRITES && !found; i = j + 1) {
		long long idx;
		pai__buf *c = &rw[nr];

		j = i;
		if (!is_digit((unsigned char)name[i]) || i == 0 ||
		    name[i - 1] != '_')
			continue;
		while (j < n && is_digit((unsigned char)name[j]))
			j++;
		if ((j < n && name[j] != '_') || j - i > 9)
			continue;
		idx = digits_value(name + i, j - i);
		if ((size_t)idx >= nroles)
			continue;
		memset(c, 0, sizeof(*c));
		nr++;
		pai__buf_put(c, name, i);
		pai__buf_puts(c, role_at(kn->job, (size_t)idx).name);
		pai__buf_put(c, name + j, n - j);
		if (c->oom)
			kn->err = PAI_ENOMEM;
		else if (is_known(kn, c->data, c->len))
			found = pai__buf_detach(c);
	}
	/* the search goes over every name, in their order */
	if (!found && ensure_full(kn))
		kn->err = PAI_ENOMEM;
	if (!found && !kn->err) {
		b.dist = n < 4 ? 1 : n < 8 ? 2 : n < 16 ? 3 : 4; /* bound + 1 */
		nearest(kn, &b, name, n);
		for (i = 0; i < nr; i++)
			if (!rw[i].oom && rw[i].len)
				nearest(kn, &b, rw[i].data, rw[i].len);
		found = b.name;
	}
	for (i = 0; i < nr; i++)
		pai__buf_release(&rw[i]);
	return found;
}

/* Adds the names of kn->current not yet in kn->any_current, as role r's. */
static int merge_current(struct known *kn, size_t r)
{
	size_t i;

	for (i = 0; i < kn->current->n; i++) {
		const struct var *v = &kn->current->v[i];
		char *k;

		if (v->dead ||
		    pai__env_find(kn->any_current, v->name, strlen(v->name)))
			continue;
		k = strdup(v->name);
		if (!k ||
		    pai__env_set(kn->any_current, k, NULL, (long long)r) < 0)
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* Whether roles a and b have the same port labels, in the same order:
 * then their tasks have the same current-task names. */
static bool same_labels(const pai_job *job, size_t a, size_t b)
{
	pai_role ra = role_at(job, a), rb = role_at(job, b);
	size_t k;

	if (ra.port_count != rb.port_count)
		return false;
	for (k = 0; k < ra.port_count; k++)
		if (strcmp(port_at(job, a, k).label, port_at(job, b, k).label))
			return false;
	return true;
}

/* The current-task names of role r, in kn->current (kept when the role
 * whose names it holds has the same labels: 2,000 roles alike cost one). */
static int gen_role_current(struct known *kn, struct gen *g, size_t r)
{
	if (kn->current && kn->current_role != SIZE_MAX &&
	    same_labels(kn->job, kn->current_role, r)) {
		kn->current_role = r;
		return PAI_OK;
	}
	kn->current_role = SIZE_MAX;
	pai_env_free(kn->current);
	kn->current = pai__env_new();
	if (!kn->current)
		return PAI_ENOMEM;
	g->env = kn->current;
	gen_current(g, r, 0);
	if (!g->err)
		kn->current_role = r;
	return g->err;
}

/* Every role's current-task names, for hints: which role has a name the
 * checked role lacks. Leaves kn->current as it was, for role r. */
static int build_any_current(struct known *kn, size_t r)
{
	size_t q, nroles = pai_job_role_count(kn->job);
	int err;

	kn->any_current = pai__env_new();
	if (!kn->any_current)
		return PAI_ENOMEM;
	for (q = 0; q < nroles; q++) {
		err = gen_role_current(kn, kn->gen, q);
		if (!err)
			err = merge_current(kn, q);
		if (err)
			return err;
	}
	return gen_role_current(kn, kn->gen, r);
}

/* Why a task of role r lacks name, as a parenthesis for the message, or
 * NULL: the name belongs to another role's tasks, or names a task the
 * role does not have, or is close to a name the task has. Out of memory
 * sets kn->err: a hint cut short could turn into a false one, and the
 * names of role r may have been left half built. */
static char *hint_for(struct known *kn, size_t r, const char *name, size_t n)
{
	const struct var *v;
	pai__buf b = PAI__BUF_INIT;
	bool in_range;
	char *s;

	if (!kn->any_current && build_any_current(kn, r)) {
		kn->err = PAI_ENOMEM;
		return NULL;
	}
	v = pai__env_find(kn->any_current, name, n);

	if (v && (size_t)v->count != r) {
		pai__buf_printf(&b, " (only the tasks of role '%s' have it)",
				role_at(kn->job, (size_t)v->count).name);
		goto out;
	}
	v = family_of(kn, name, n, &in_range);
	if (v && !in_range) {
		if (v->count <= 0)
			pai__buf_printf(&b, " (role '%s' has no tasks)",
					v->value);
		else if (v->count == 1)
			pai__buf_printf(&b, " (role '%s' has 1 task, index 0)",
					v->value);
		else
			pai__buf_printf(&b,
					" (role '%s' has %lld tasks, indexes 0 "
					"to %lld)",
					v->value, v->count, v->count - 1);
		goto out;
	}
	s = suggest(kn, name, n);
	if (!s)
		return NULL;
	pai__buf_printf(&b, " (did you mean $%s?)", s);
	free(s);
out:
	s = pai__buf_detach(&b);
	if (!s)
		kn->err = PAI_ENOMEM;
	return s;
}

/* Whether the tasks of the role being checked lack name: neither the
 * cluster (a pod's controller too) nor jobEnvs define it, the command
 * does not assign it, and it is no shell variable (a PAI_ name always
 * counts). */
static bool unknown_ref(struct known *kn, const pai_env *assigned,
			const char *name, size_t n)
{
	bool pai = n > 4 && strncmp(name, "PAI_", 4) == 0;

	if (pai__env_has(kn->given, name, n) || is_known(kn, name, n))
		return false;
	return !pai__env_has(assigned, name, n) &&
	       (pai || !pai__is_shell_var(name, n));
}

/* Where the references of a command stand in the source: at their '$'
 * when the command is a string literal there, else nowhere. */
struct place {
	bool placed;
	size_t prev_off, prev_idx;
};

static size_t ref_place(struct place *pl, const pai__src *src, size_t at)
{
	size_t off;

	if (!pl->placed)
		return PAI__NO_OFFSET;
	/* pai__src_string_offset() walks from the opening quote; starting it
	 * just before the previous place keeps a command with many warnings
	 * linear. */
	off = pai__src_string_offset(src, pl->prev_off - 1, at - pl->prev_idx);
	pl->prev_off = off;
	pl->prev_idx = at;
	return off;
}

/* The warning about one reference that role r's tasks will not have. */
static int warn_ref(struct known *kn, pai_diags *diags, pai__src *src,
		    const char *path, size_t r, const char *name, size_t n,
		    size_t off)
{
	char *hint = hint_for(kn, r, name, n);
	const char *h = hint ? hint : "";
	int err;

	if (kn->err)
		err = kn->err;
	else if (n > 4 && strncmp(name, "PAI_", 4) == 0)
		err = pai__diag_add(diags, src, off, PAI_SEVERITY_WARNING, path,
				    "unknown-pai-variable",
				    "$%.*s is not in the environment of the "
				    "tasks of role '%s'%s",
				    (int)n, name, role_at(kn->job, r).name, h);
	else
		err = pai__diag_add(diags, src, off, PAI_SEVERITY_WARNING, path,
				    "unknown-variable",
				    "$%.*s is set by neither the cluster, "
				    "jobEnvs nor the command: only the image "
				    "could provide it%s",
				    (int)n, name, h);
	free(hint);
	return err;
}

/* Warns about the references of role r's command that its tasks will not
 * have, each at the place of its first '$' in the source: the first
 * MAX_REF_WARNINGS, then one line for the rest. */
static int check_role(struct known *kn, pai_diags *diags, pai__src *src,
		      const pai__pos *cmd_pos, size_t r)
{
	const char *cmd = role_at(kn->job, r).command;
	struct pai__cmd_ref *refs = NULL;
	pai_env *assigned = pai__env_new();
	struct place pl = {false, 0, 0};
	pai__buf path = PAI__BUF_INIT;
	size_t i, nrefs = 0, warned = 0, more = 0, more_at = 0;
	size_t off, more_off = PAI__NO_OFFSET;
	int err = PAI_ENOMEM;

	if (!assigned)
		goto out;
	err = pai__command_refs(&refs, &nrefs, assigned, cmd, strlen(cmd));
	if (err)
		goto out;
	pl.placed = cmd_pos && cmd_pos->off < src->len &&
		    src->text[cmd_pos->off] == '"';
	if (pl.placed)
		pl.prev_off = cmd_pos->off + 1;
	for (i = 0; i < nrefs; i++) {
		const char *name = refs[i].name;
		size_t n = refs[i].len;
		bool warn = unknown_ref(kn, assigned, name, n);

		if (kn->err) { /* out of memory: "known" says nothing */
			err = kn->err;
			goto out;
		}
		if (!warn || (warned == MAX_REF_WARNINGS && more++))
			continue;
		off = ref_place(&pl, src, refs[i].at);
		if (more) { /* the first one not listed: the summary's place */
			more_off = off;
			more_at = i;
			continue;
		}
		warned++;
		/* the path, once a warning needs it: most commands have none */
		if (!path.len)
			pai__buf_printf(&path, "taskRoles[%zu].command", r);
		if (path.oom) {
			err = PAI_ENOMEM;
			goto out;
		}
		err = warn_ref(kn, diags, src, path.data, r, name, n, off);
		if (err)
			goto out;
	}
	err = !more ? PAI_OK
		    : pai__diag_add(diags, src, more_off, PAI_SEVERITY_WARNING,
				    path.data, "unknown-variable",
				    "%zu more variable%s that no task will "
				    "have, from $%.*s on, not listed",
				    more, more == 1 ? "" : "s",
				    (int)refs[more_at].len, refs[more_at].name);
out:
	pai__buf_release(&path);
	pai_env_free(assigned);
	free(refs);
	return err;
}

static int check_references(pai_diags *diags, pai__src *src,
			    const pai__pos *pos, const pai_job *job,
			    const pai_env *given)
{
	const pai__pos *roles = pai__pos_member(pos, "taskRoles");
	size_t r, nroles = pai_job_role_count(job);
	struct known kn;
	struct gen g;
	int err = PAI_ENOMEM;

	memset(&kn, 0, sizeof(kn));
	gen_init(&g, job, NULL, false);
	for (r = 0; r < nroles; r++)
		if (strchr(role_at(job, r).command, '$'))
			break;
	if (r == nroles)
		return PAI_OK; /* no command references anything */
	kn.job = job;
	kn.given = given;
	kn.gen = &g;
	kn.current_role = SIZE_MAX;
	kn.budget = SUGGEST_BUDGET;
	kn.shared = pai__env_new();
	kn.families = pai__env_new();
	if (!kn.shared || !kn.families)
		goto out;
	g.env = kn.shared;
	g.families = kn.families;
	gen_job(&g);
	gen_job_envs(&g);
	if (g.err)
		goto out;
	for (r = 0; r < nroles; r++) {
		const pai__pos *rp = pai__pos_index(roles, r);

		if (!strchr(role_at(job, r).command, '$'))
			continue;
		err = gen_role_current(&kn, &g, r);
		if (!err)
			err = check_role(&kn, diags, src,
					 pai__pos_member(rp, "command"), r);
		if (!err)
			err = kn.err;
		if (err)
			goto out;
	}
	err = PAI_OK;
out:
	gen_release(&g);
	pai_env_free(kn.shared);
	pai_env_free(kn.families);
	pai_env_free(kn.current);
	pai_env_free(kn.any_current);
	pai_env_free(kn.roles);
	free(kn.role_done);
	pai__buf_release(&kn.key);
	return err;
}

const struct pai__runtime pai__runtime_v0x = {
    .expand_task = expand_task,
    .expand_current = expand_current,
    .entrypoint = entrypoint,
    .shown_command = entrypoint, /* the command as written */
    .check_references = check_references,
};
