/* k8s_names.c - what a pod of a converted job is called and which ports
 * it has (pai__k8s_init()), the placement k8s_pod.c expands the job's
 * runtime with. The naming rule is reference/kubernetes.md's: lower
 * case, each run of other characters one '-', a letter first for the job
 * (a DNS-1035 label), and short enough that the longest pod name fits
 * 63 characters, a short hash keeping two shortened names apart. */
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

		/* the single task's pod: <job>-<task>-xxxxx */
		if (pai__k8s_single(k, r))
			need = 1 + strlen(k->roles[r].task) +
			       strlen(k->kind->infix) + PAI__K8S_JOB_SUFFIX;

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

int pai__k8s_single(const struct pai__k8s *k, size_t r)
{
	return k->kind->single && strcmp(k->roles[r].task, k->kind->single) == 0;
}

/* The name of pod i of role r without what its controller adds, onto b:
 * <prefix>-<i>, or the single task's Job's name. */
static void pod_base(pai__buf *b, const struct pai__k8s *k, size_t r, size_t i)
{
	if (pai__k8s_single(k, r))
		pai__buf_puts(b, k->roles[r].prefix);
	else
		pai__buf_printf(b, "%s-%zu", k->roles[r].prefix, i);
}

const char *pai__k8s_host(struct pai__k8s *k, size_t r, size_t i)
{
	pai__buf *b = &k->scratch;

	b->len = 0;
	pod_base(b, k, r, i);
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
	pod_base(&k->scratch, k, r, i);
	for (n = 0; n < (pai__k8s_single(k, r) ? PAI__K8S_JOB_SUFFIX
					       : k->kind->suffix);
	     n++)
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

size_t pai__k8s_options_size(unsigned v)
{
	switch (v) {
	case 1: return offsetof(pai_k8s_options, fs_uri);
	case 2: return offsetof(pai_k8s_options, runtime);
	case PAI_K8S_OPTIONS_VERSION: return sizeof(pai_k8s_options);
	}
	return 0;
}

int pai__k8s_init(struct pai__k8s *k, const pai_job *job,
		  const pai_k8s_options *o)
{
	size_t r;
	int err;

	memset(k, 0, sizeof(*k));
	k->job = job;
	/* an older caller's struct ends before the newer fields */
	memcpy(&k->o, o, pai__k8s_options_size(o->version));
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
