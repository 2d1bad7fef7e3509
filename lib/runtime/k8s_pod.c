/* k8s_pod.c - what a pod of a converted job is called, which ports it
 * has, and the environment it sees: pai_expand_task() with a placement
 * of DNS names and fixed ports, less what Kubernetes cannot give. The
 * naming rule is reference/kubernetes.md's: lower case, each run of
 * other characters one '-', a letter first for the job (a DNS-1035
 * label), and short enough that the longest pod name fits 63
 * characters, a short hash keeping two shortened names apart. */
#include "runtime.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX      63
#define TASK_MAX       30
#define FREE_PORT_BASE 10000

static unsigned fnv(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* s lower-cased, each run of characters outside [a-z0-9] one '-',
 * without '-' at either end; "" when nothing is left. */
static char *derive(const char *s)
{
	char *d = malloc(strlen(s) + 1), *p = d;
	int dash = 0;

	if (!d)
		return NULL;
	for (; *s; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && p > d)
				*p++ = '-';
			*p++ = c;
			dash = 0;
		} else {
			dash = 1;
		}
	}
	*p = '\0';
	return d;
}

/* d (from derive()) cut to max characters with "-<hash of orig>" at
 * its end when longer, or when empty: `empty` and the hash. */
static char *fit(char *d, size_t max, const char *orig, const char *empty)
{
	char tail[16], *r;
	size_t keep;

	if (!d) /* derive() out of memory */
		return NULL;
	if (*d && strlen(d) <= max)
		return d;
	snprintf(tail, sizeof(tail), "-%05x", fnv(orig) & 0xfffff);
	if (!*d) {
		free(d);
		r = malloc(strlen(empty) + sizeof(tail));
		if (r)
			sprintf(r, "%s%s", empty, tail);
		return r;
	}
	keep = max > strlen(tail) ? max - strlen(tail) : 1;
	d[keep] = '\0';
	while (keep > 1 && d[keep - 1] == '-')
		d[--keep] = '\0';
	r = malloc(keep + sizeof(tail));
	if (r)
		sprintf(r, "%s%s", d, tail);
	free(d);
	return r;
}

static size_t digits(long long n)
{
	size_t d = 1;

	for (; n >= 10; n /= 10)
		d++;
	return d;
}

static pai_role role_of(const pai_job *job, size_t r)
{
	pai_role ro;

	memset(&ro, 0, sizeof(ro));
	pai_job_role(&ro, job, r);
	return ro;
}

/* A role's task among the kind's (a PaddleJob's ps, worker, heter):
 * its name derived, which must be one of them; a job's only role is the
 * kind's lone task whatever its name. */
static int fixed_task(struct pai__k8s *k, size_t r)
{
	const struct pai__k8s_kind *kind = k->kind;
	char *d;
	size_t t;

	if (k->nroles == 1 && kind->lone) {
		k->roles[r].task = strdup(kind->lone);
		return k->roles[r].task ? PAI_OK : PAI_ENOMEM;
	}
	if (!(d = derive(role_of(k->job, r).name)))
		return PAI_ENOMEM;
	for (t = 0; kind->tasks[t]; t++)
		if (strcmp(d, kind->tasks[t]) == 0) {
			k->roles[r].task = d;
			return PAI_OK;
		}
	free(d);
	k->clash_a = (long)r;
	k->clash_b = -1;
	return PAI_EINVALID;
}

static int task_names(struct pai__k8s *k)
{
	size_t r, s;
	int err;

	for (r = 0; r < k->nroles; r++) {
		const char *n = role_of(k->job, r).name;

		if (k->kind->tasks) {
			if ((err = fixed_task(k, r)))
				return err;
		} else if (!(k->roles[r].task =
				 fit(derive(n), TASK_MAX, n, "role"))) {
			return PAI_ENOMEM;
		}
		for (s = 0; s < r; s++)
			if (strcmp(k->roles[s].task, k->roles[r].task) == 0) {
				k->clash_a = (long)s;
				k->clash_b = (long)r;
				return PAI_EINVALID;
			}
	}
	return PAI_OK;
}

/* The job's name: a DNS-1035 label leaving room for the longest pod's
 * "-<task><infix>-<index>" and the suffix its controller adds. */
static int job_name(struct pai__k8s *k)
{
	const char *orig = k->job->name ? k->job->name : "job";
	size_t r, room = 0, max;
	char *d = derive(orig);

	if (!d)
		return PAI_ENOMEM;
	for (r = 0; r < k->nroles; r++) {
		pai_role ro = role_of(k->job, r);
		size_t need =
		    2 + strlen(k->roles[r].task) + strlen(k->kind->infix) +
		    digits(ro.task_number > 0 ? ro.task_number - 1 : 0) +
		    k->kind->suffix;

		if (need > room)
			room = need;
	}
	max = LABEL_MAX > room + 8 ? LABEL_MAX - room : 8;
	if (*d >= '0' && *d <= '9') {
		char *p = malloc(strlen(d) + 3);

		if (p)
			sprintf(p, "j-%s", d);
		free(d);
		if (!(d = p))
			return PAI_ENOMEM;
	}
	k->name = fit(d, max, orig, "job");
	return k->name ? PAI_OK : PAI_ENOMEM;
}

static int overlaps(unsigned a, long long n, unsigned b, long long m)
{
	return a < b + m && b < a + n;
}

/* Whether [p, p+n) is free in role r: not one of the labels before k,
 * not a fixed label's, not PADDLE_PORT's range (2379 or 36000, + 20)
 * nor the PyTorchJob operator's MASTER_PORT (23456). */
static int port_free(const struct pai__k8s *k, size_t r, size_t nk, unsigned p,
		     long long n)
{
	size_t j, np = role_of(k->job, r).port_count;
	pai_port q;

	if (p + n > 65536 || overlaps(p, n, 2379, 20) ||
	    overlaps(p, n, 36000, 20) || overlaps(p, n, 23456, 1))
		return 0;
	for (j = 0; j < np; j++) {
		if (j == nk || pai_job_port(&q, k->job, r, j))
			continue;
		if (j < nk || q.begin_at > 0) {
			unsigned b =
			    j < nk ? k->roles[r].port[j] : (unsigned)q.begin_at;

			if (b && overlaps(p, n, b, q.port_number))
				return 0;
		}
	}
	return 1;
}

/* Each label's ports: beginAt onwards when fixed, else the first free
 * run from FREE_PORT_BASE; the same in every pod of the role. */
static int role_ports(struct pai__k8s *k, size_t r)
{
	struct pai__k8s_role *kr = &k->roles[r];
	size_t j, n = role_of(k->job, r).port_count;
	pai_port q;

	kr->nports = n;
	kr->port = calloc(n ? n : 1, sizeof(*kr->port));
	if (!kr->port)
		return PAI_ENOMEM;
	for (j = 0; j < n; j++) {
		unsigned p = FREE_PORT_BASE;

		if (pai_job_port(&q, k->job, r, j))
			return PAI_ERROR;
		if (q.begin_at > 0 && q.begin_at < 65536) {
			kr->port[j] = (unsigned)q.begin_at;
			continue;
		}
		while (p < 65536 && !port_free(k, r, j, p, q.port_number))
			p++;
		kr->port[j] = p < 65536 ? p : 0;
	}
	return PAI_OK;
}

const char *pai__k8s_host(struct pai__k8s *k, size_t r, size_t i)
{
	pai__buf *b = &k->scratch;

	b->len = 0;
	pai__buf_printf(b, "%s-%zu", k->roles[r].prefix, i);
	if (k->kind->subdomain)
		pai__buf_printf(b, ".%s", k->name);
	return b->oom ? NULL : b->data;
}

static const char *pl_ip(void *data, size_t r, size_t i)
{
	return pai__k8s_host(data, r, i);
}

/* The pod's name; what its controller adds to it ("-" and random
 * letters) shown as '?'s. */
static const char *pl_pod(void *data, size_t r, size_t i)
{
	struct pai__k8s *k = data;
	size_t n;

	k->scratch.len = 0;
	pai__buf_printf(&k->scratch, "%s-%zu", k->roles[r].prefix, i);
	for (n = 0; n < k->kind->suffix; n++)
		pai__buf_putc(&k->scratch, n ? '?' : '-');
	return k->scratch.oom ? NULL : k->scratch.data;
}

static unsigned pl_port(void *data, size_t r, size_t i, size_t j, size_t n)
{
	struct pai__k8s *k = data;

	(void)i;
	if (j >= k->roles[r].nports || !k->roles[r].port[j])
		return 0;
	return k->roles[r].port[j] + (unsigned)n;
}

int pai__k8s_init(struct pai__k8s *k, const pai_job *job,
		  const pai_k8s_options *o)
{
	size_t r;
	int err;

	memset(k, 0, sizeof(*k));
	k->job = job;
	/* a version 1 caller's struct ends before fs_uri */
	memcpy(&k->o, o,
	       o->version == 1 ? offsetof(pai_k8s_options, fs_uri)
			       : sizeof(k->o));
	k->o.version = PAI_K8S_OPTIONS_VERSION;
	k->clash_a = k->clash_b = -1;
	if (!(k->kind = pai__k8s_kind_of(o->kind)))
		return PAI_EINVAL;
	k->nroles = pai_job_role_count(job);
	k->roles = calloc(k->nroles ? k->nroles : 1, sizeof(*k->roles));
	if (!k->roles)
		return PAI_ENOMEM;
	k->pl.data = k;
	k->pl.ip = pl_ip;
	k->pl.container_id = pl_pod;
	k->pl.port = pl_port;
	if ((err = task_names(k)) || (err = job_name(k)))
		return err;
	for (r = 0; r < k->nroles; r++) {
		struct pai__k8s_role *kr = &k->roles[r];

		kr->prefix = malloc(strlen(k->name) + strlen(kr->task) +
				    strlen(k->kind->infix) + 2);
		if (!kr->prefix)
			return PAI_ENOMEM;
		sprintf(kr->prefix, "%s-%s%s", k->name, kr->task,
			k->kind->infix);
		if ((err = role_ports(k, r)))
			return err;
	}
	return PAI_OK;
}

void pai__k8s_release(struct pai__k8s *k)
{
	size_t r;

	for (r = 0; k->roles && r < k->nroles; r++) {
		free(k->roles[r].task);
		free(k->roles[r].prefix);
		free(k->roles[r].port);
	}
	free(k->roles);
	free(k->name);
	pai__buf_release(&k->scratch);
	memset(k, 0, sizeof(*k));
}

static int in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

static int same(const char *a, const char *b)
{
	return b && strcmp(a, b) == 0;
}

enum pai__k8s_var pai__k8s_var_kind(const struct pai__k8s *k, size_t r,
				    size_t i, const char *name,
				    const char *value)
{
	static const char *const index[] = {
	    "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "PAI_TASK_INDEX",
	    "PAI_TASK_ROLE_INDEX", NULL};
	static const char *const ip[] = {"PAI_CONTAINER_HOST_IP",
					 "PAI_CURRENT_CONTAINER_IP", NULL};
	struct pai__k8s *kk = (struct pai__k8s *)k;
	char num[32];

	snprintf(num, sizeof(num), "%zu", i);
	if (in_list(name, index) && strcmp(value, num) == 0)
		return PAI__K8S_INDEX;
	/* out of memory, pl_pod() and pai__k8s_host() say NULL and leave
	 * k->scratch.oom set for the caller to see */
	if (strcmp(name, "PAI_CONTAINER_ID") == 0 &&
	    same(value, pl_pod(kk, r, i)))
		return PAI__K8S_POD_NAME;
	if (in_list(name, ip) && same(value, pai__k8s_host(kk, r, i)))
		return PAI__K8S_POD_IP;
	if (strcmp(name, "PAI_WORK_DIR") == 0 &&
	    strncmp(value, "<work-dir:", 10) == 0)
		return PAI__K8S_WORK_DIR;
	return PAI__K8S_STATIC;
}

/* What only OpenPAI knows: the placeholders pai_expand_task() writes for
 * the HDFS URI, an unknown user and the v1.x framework's ids. */
static int unknown_here(const char *v)
{
	static const char *const marks[] = {
	    "<default-fs>",	       "<user>",
	    "<md5:",	       "<framework-",
	    "<configmap-uid>", "<task-role-uid:",
	    "<task-uid:",      "<task-attempt-id:",
	    "<gpus:",	       NULL};
	size_t m;

	for (m = 0; marks[m]; m++)
		if (strstr(v, marks[m]))
			return 1;
	return 0;
}

int pai__k8s_is_job_env(const pai_job *job, const char *name)
{
	json_t *envs = json_object_get(pai_job_config(job), "jobEnvs");

	return pai_job_format(job) == PAI_FORMAT_V1 &&
	       json_object_get(envs, name) != NULL;
}

/* n=v into the pod's environment, unless a pod on Kubernetes does not
 * get it (into dropped, if a PAI_ variable), or the controller sets it
 * itself (the job's value would not count). */
static int keep(pai_env *to, json_t *dropped, const struct pai__k8s *k,
		const char *n, const char *v)
{
	const struct pai__k8s_own *own = pai__k8s_own_env(k, n);

	if (own && !own->job_wins)
		return PAI_OK;
	if (!pai__k8s_is_job_env(k->job, n) &&
	    (strncmp(n, "PAI_", 4) || unknown_here(v)))
		return strncmp(n, "PAI_", 4) == 0 && dropped &&
			       json_object_set_new(dropped, n, json_string(v))
			   ? PAI_ENOMEM
			   : PAI_OK;
	return pai__env_put(to, n, v, false);
}

/* The runtime's environment of pod i of role r (or with `current` only
 * its variables that differ between tasks), placed as the pods are. */
static int runtime_env(pai_env **all, struct pai__k8s *k, size_t r, size_t i,
		       int current)
{
	pai_expand_options eo = PAI_EXPAND_OPTIONS_INIT;

	eo.user = k->o.user;
	/* a default file system given: its variables are the pods' too */
	eo.fs_uri = k->o.fs_uri;
	eo.placement = &k->pl;
	if (current)
		return pai__expand_current(all, k->job, r, i, &eo);
	return pai_expand_task(all, k->job, r, i, &eo);
}

/* What a pod gets of the runtime's environment all (keep()), and its
 * command. */
static int pod_vars(pai_env **out, json_t *dropped, struct pai__k8s *k,
		    const pai_env *all)
{
	pai_env *env = pai__env_new();
	size_t j, n = pai_env_count(all);
	char *cmd;
	int err = env ? PAI_OK : PAI_ENOMEM;

	for (j = 0; !err && j < n; j++)
		err = keep(env, dropped, k, pai_env_name(all, j),
			   pai_env_value(all, j));
	if (!err) {
		cmd = strdup(pai_env_command(all) ? pai_env_command(all) : "");
		err = cmd ? pai__env_set_command(env, cmd) : PAI_ENOMEM;
	}
	if (!err && k->scratch.oom)
		err = PAI_ENOMEM; /* a placement answer was lost */
	if (err) {
		pai_env_free(env);
		return err;
	}
	*out = env;
	return PAI_OK;
}

int pai__k8s_pod_env(pai_env **out, json_t **dropped, struct pai__k8s *k,
		     size_t r, size_t i, int current)
{
	pai_env *all = NULL;
	int err;

	*out = NULL;
	if (dropped && !(*dropped = json_object()))
		return PAI_ENOMEM;
	err = runtime_env(&all, k, r, i, current);
	if (!err)
		err = pod_vars(out, dropped ? *dropped : NULL, k, all);
	pai_env_free(all);
	if (err && dropped) {
		json_decref(*dropped);
		*dropped = NULL;
	}
	return err;
}

/* env, the pod's environment of pod i of role r, and all, the runtime's,
 * with what the controller sets in the pod itself, and the command with
 * those in it as in all (where a jobEnv of a name the controller sets
 * gave way to the controller's value). */
static int with_own_vars(pai_env *env, pai_env *all, struct pai__k8s *k,
			 size_t r, size_t i)
{
	char *cmd = NULL;
	int err = pai__k8s_own_vars(env, all, k, r, i);

	if (!err)
		err = pai__shown_command(&cmd, k->job, r);
	if (!err)
		err = pai__env_finish(all, cmd);
	free(cmd);
	if (!err) {
		cmd = strdup(pai_env_command(all));
		err = cmd ? pai__env_set_command(env, cmd) : PAI_ENOMEM;
	}
	return err;
}

int pai__env_shared(json_t **shared, const pai_job *job, const pai_env *all,
		    const pai_env *own)
{
	size_t j, n = pai_env_count(all);

	if (!(*shared = json_object()))
		return PAI_ENOMEM;
	for (j = 0; j < n; j++) {
		const char *name = pai_env_name(all, j);
		const char *value = pai_env_value(all, j);

		if (pai_env_get(own, name) && !pai__k8s_is_job_env(job, name))
			continue;
		if (json_object_set_new(*shared, name,
					json_string(value ? value : "")))
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* The variables every pod shares: the first task's, less those about the
 * task itself (pai__expand_current()), which are the same in every task
 * of the job by construction. */
int pai__k8s_shared_env(json_t **shared, json_t **dropped, struct pai__k8s *k)
{
	pai_env *all = NULL, *own = NULL;
	int err = pai__k8s_pod_env(&all, dropped, k, 0, 0, 0);

	if (!err)
		err = pai__k8s_pod_env(&own, NULL, k, 0, 0, 1);
	if (!err)
		err = pai__env_shared(shared, k->job, all, own);
	pai_env_free(all);
	pai_env_free(own);
	return err;
}

int pai_k8s_expand_task(pai_env **out, const pai_job *job, size_t role,
			size_t index, const pai_k8s_options *opts)
{
	pai_env *all = NULL;
	struct pai__k8s k;
	int err;

	if (out)
		*out = NULL;
	if (!out || !job || !opts ||
	    (opts->version != 1 && opts->version != PAI_K8S_OPTIONS_VERSION))
		return PAI_EINVAL;
	err = pai__k8s_init(&k, job, opts);
	if (!err)
		err = runtime_env(&all, &k, role, index, 0);
	if (!err)
		err = pod_vars(out, NULL, &k, all);
	if (!err)
		err = with_own_vars(*out, all, &k, role, index);
	if (err) {
		pai_env_free(*out);
		*out = NULL;
	}
	pai_env_free(all);
	pai__k8s_release(&k);
	return err;
}
