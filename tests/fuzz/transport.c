/* transport.c - see transport.h. */
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next answer, [*s, *e), or 0 when there is none. */
static int next_answer(fuzz_wire *w, const char **s, const char **e)
{
	const char *sep;

	if (w->p >= w->end)
		return 0;
	sep = memchr(w->p, 0x1e, (size_t)(w->end - w->p));
	*s = w->p;
	*e = sep ? sep : w->end;
	w->p = sep ? sep + 1 : w->end;
	return 1;
}

/* A Location header as libcurl reports it: absolute. */
static int set_location(pai__response *rs, const char *v, size_t n)
{
	n = strnlen(v, n); /* a URL libcurl reports has no NUL in it */
	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n && (v[n - 1] == '\r' || v[n - 1] == ' '))
		n--;
	free(rs->location);
	rs->location = NULL;
	if (!n) /* libcurl reports no redirect URL for an empty one */
		return PAI_OK;
	if (memchr(v, ':', n) == NULL || *v == '/') {
		/* relative: resolved against the base, roughly */
		if (asprintf(&rs->location, "%s%s%.*s", FUZZ_BASE,
			     *v == '/' ? "" : "/", (int)n, v) < 0)
			rs->location = NULL;
	} else {
		rs->location = strndup(v, n);
	}
	return rs->location ? PAI_OK : PAI_ENOMEM;
}

/* Status line, headers, blank line, body: as perform() fills rs. */
static int read_answer(pai_client *c, pai__response *rs, const char *p,
		       const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	char code[4] = "";
	long status;

	memcpy(code, p, end - p < 3 ? (size_t)(end - p) : 3);
	status = strtol(code, NULL, 10);
	rs->status = status >= 100 && status <= 599 ? status : 200;
	p = nl ? nl + 1 : end;
	while (p < end) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
		if (n == 1 || (n == 2 && p[0] == '\r')) {
			p += n;
			break;
		}
		if (n > 9 && strncasecmp(p, "Location:", 9) == 0) {
			if (set_location(rs, p + 9, n - 9 - (nl != NULL)))
				goto oom;
		} else {
			pai__response_header(rs, p, n);
		}
		p += n;
	}
	if (p < end)
		pai__buf_put(&rs->body, p, (size_t)(end - p));
	if (rs->body.oom)
		goto oom;
	return PAI_OK;
oom:
	return pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
}

static int answer(void *data, pai_client *c, const pai__request *rq,
		  pai__response *rs)
{
	fuzz_wire *w = data;
	const char *s, *e;

	/* libpai never asks for a URL it did not build or get told */
	CHECK(rq->url && rq->url[0] && rq->method);
	rs->sent = 1;
	if (!next_answer(w, &s, &e)) {
		w->unanswered++;
		return pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
					"pai.test: no more answers");
	}
	return read_answer(c, rs, s, e);
}

/* c, its answers read from data (len bytes) by wire. */
static pai_client *on_wire(pai_client *c, fuzz_wire *wire, const char *data,
			   size_t len)
{
	wire->p = data;
	wire->end = data + len;
	wire->unanswered = 0;
	c->transport = answer;
	c->transport_data = wire;
	return c;
}

pai_client *fuzz_client(fuzz_wire *wire, const char *data, size_t len)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;

	o.uri = FUZZ_BASE;
	o.token = "t";
	o.max_retries = 0;
	/* a Retry-After holds the next request: never longer than this */
	o.retry_max_ms = 1;
	if (pai_client_new(&c, &o))
		return NULL;
	return on_wire(c, wire, data, len);
}

pai_client *fuzz_k8s_client(fuzz_wire *wire, const char *data, size_t len,
			    const char *kubeconfig, pai_k8s_kind kind)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_k8s_cluster k = PAI_K8S_CLUSTER_INIT;
	pai_client *c = NULL;

	o.max_retries = 0;
	k.kubeconfig = kubeconfig;
	k.kind = kind;
	k.ns = "team-a";
	if (pai_client_new_k8s(&c, NULL, &o, &k))
		return NULL;
	return on_wire(c, wire, data, len);
}

pai_client *fuzz_slurm_client(fuzz_wire *wire, const char *data, size_t len,
			      const char *workdir)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_slurm_cluster s = PAI_SLURM_CLUSTER_INIT;
	pai_client *c = NULL;

	o.uri = FUZZ_BASE;
	o.token = "t";
	o.max_retries = 0;
	o.retry_max_ms = 1;
	s.workdir = workdir;
	s.user = "alice";
	if (pai_client_new_slurm(&c, NULL, &o, &s))
		return NULL;
	return on_wire(c, wire, data, len);
}

void fuzz_check_result(pai_client *c, int err)
{
	const char *msg = pai_client_error(c);
	fuzz_wire *w = c->transport_data;

	/* no request loops on its own once the answers ran out */
	CHECK(w->unanswered <= FUZZ_MAX_UNANSWERED);
	w->unanswered = 0;

	/* no PAI_ELIBRARY here */
	CHECK(err <= 0 && err >= PAI_ENOTSUP && err != PAI_ELIBRARY);
	CHECK(pai_strerror(err) != NULL);
	if (err == PAI_OK || !msg)
		return;
	for (; *msg; msg++)
		CHECK((unsigned char)*msg >= 0x20 && *msg != 0x7f);
}

/* ---- calls the API modules' targets share ----------------------------- */

/* Every accessor of a status, and each task's log URL. */
static void walk_job(pai_client *c, const pai_job_info *info,
		     const char *odd_stream)
{
	size_t i, n = pai_job_info_task_count(info);

	CHECK(pai_state_name(pai_job_info_state(info)) != NULL);
	CHECK(json_is_object(pai_job_info_json(info)));
	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);
		char *url = NULL;

		CHECK(t && t->role && json_is_object(t->ports));
		CHECK(json_is_object(pai_job_info_task_json(info, i)));
		CHECK(pai_job_info_find_task(info, t->role, t->index) >= 0);
		fuzz_check_result(
		    c, pai_task_log_url(&url, c, info, t,
					i & 1 ? odd_stream : "stdout", 0));
		free(url);
	}
}

void fuzz_get_job(pai_client *c, const char *odd_stream)
{
	pai_job_info *info = NULL;
	int err = pai_job_get(&info, c, "alice", "job1");

	fuzz_check_result(c, err);
	CHECK(!err == !!info);
	if (info)
		walk_job(c, info, odd_stream);
	pai_job_info_free(info);
}

void fuzz_list_jobs(pai_client *c, int all)
{
	pai_job_list *list = NULL;
	size_t i;
	int err = pai_jobs_list(&list, c, all ? NULL : "alice");

	fuzz_check_result(c, err);
	CHECK(!err == !!list);
	for (i = 0; list && i < pai_job_list_count(list); i++)
		CHECK(pai_state_name(pai_job_info_state(
			  pai_job_list_get(list, i))) != NULL);
	pai_job_list_free(list);
}

void fuzz_submit(pai_client *c, const char *v1)
{
	pai_submit_options so = PAI_SUBMIT_OPTIONS_INIT;
	json_t *config = json_loads(v1, 0, NULL);
	pai_diags *diags = NULL;
	int recovered = 0;

	if (!config || pai_diags_new(&diags)) {
		json_decref(config);
		return;
	}
	so.diags = diags;
	fuzz_check_result(c,
			  pai_submit_ex(c, "alice", config, &so, &recovered));
	pai_diags_free(diags);
	json_decref(config);
}
