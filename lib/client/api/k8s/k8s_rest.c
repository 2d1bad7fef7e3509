/* k8s_rest.c - requests to the API server (§2): the paths of the
 * namespace's collections, JSON bodies, and a failure judged by the
 * client's wire (k8s_client.c: a Status's message and reason become the
 * client's detail), its Status kept for the caller (422's causes,
 * AlreadyExists). Retries (429, 5xx, Retry-After) and the 401 renewal
 * are http.c's. */
#include "k8s_api.h"

#include "convert/convert.h"
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

#define BUS "/apis/bus.volcano.sh/v1alpha1"

const char *pai__k8s_job_api(pai_client *c)
{
	return pai__k8s_kind_of(pai__k8s_of(c)->o.kind)->api_version;
}

const char *pai__k8s_job_kind(pai_client *c)
{
	return pai__k8s_kind_of(pai__k8s_of(c)->o.kind)->kind;
}

/* pai__k8s_path(), the jobs being of kind. */
static void path_of(pai__buf *b, pai_client *c, pai_k8s_kind kind,
		    enum pai__k8s_res res, const char *name, const char *tail)
{
	const struct pai__k8s_kind *k = pai__k8s_kind_of(kind);

	if (!k) { /* no such kind: nothing can be asked of it */
		b->oom = 1;
		return;
	}
	switch (res) {
	case PAI__K8S_JOBS:
		pai__buf_printf(b, "/apis/%s", k->api_version);
		break;
	case PAI__K8S_COMMANDS: pai__buf_puts(b, BUS); break;
	default: pai__buf_puts(b, "/api/v1"); break;
	}
	pai__buf_puts(b, "/namespaces/");
	pai__buf_put_escaped(b, pai__k8s_of(c)->o.ns);
	switch (res) {
	case PAI__K8S_JOBS: pai__buf_printf(b, "/%s", k->plural); break;
	case PAI__K8S_CONFIGMAPS: pai__buf_puts(b, "/configmaps"); break;
	case PAI__K8S_PODS: pai__buf_puts(b, "/pods"); break;
	case PAI__K8S_EVENTS: pai__buf_puts(b, "/events"); break;
	case PAI__K8S_COMMANDS: pai__buf_puts(b, "/commands"); break;
	}
	if (name) {
		pai__buf_putc(b, '/');
		pai__buf_put_escaped(b, name);
	}
	if (tail)
		pai__buf_puts(b, tail);
}

void pai__k8s_path(pai__buf *b, pai_client *c, enum pai__k8s_res res,
		   const char *name, const char *tail)
{
	path_of(b, c, pai__k8s_of(c)->o.kind, res, name, tail);
}

void pai__k8s_job_path(pai__buf *b, pai_client *c, pai_k8s_kind kind,
		       const char *name)
{
	path_of(b, c, kind, PAI__K8S_JOBS, name, NULL);
}

void pai__k8s_ans_release(pai__k8s_ans *ans)
{
	if (ans)
		pai__kube_status_release(&ans->st);
}

/* The 2xx body as JSON into *out (when out). */
static int body_json(json_t **out, pai_client *c, const pai__k8s_rq *rq,
		     const pai__response *rs)
{
	json_error_t je;

	if (!out || rs->body.len == 0)
		return PAI_OK;
	*out = json_loadb(rs->body.data, rs->body.len, 0, &je);
	if (*out)
		return PAI_OK;
	if (json_error_code(&je) == json_error_out_of_memory)
		return pai__client_oom(c);
	return pai__client_fail(c, PAI_EPROTOCOL, rs->status, NULL,
				"%s %s: the answer is not JSON (%s)",
				rq->method, rq->path, je.text);
}

/* 1 when rq, not safe, may still go on a reused connection: a second
 * copy of it, which libcurl may send by itself when that connection
 * dies before any answer, does no harm the module cannot tell. A create
 * of a named object is such (refused, 409 AlreadyExists, and
 * k8s_submit.c reads the object back by its submission id); not a
 * generateName create, nor a PUT (a second one meets 409 Conflict
 * though the first was carried out). A merge patch or a delete is safe
 * (rq->safe): it goes on a reused connection without this. */
static int reusable(const pai__k8s_rq *rq)
{
	json_t *meta = json_object_get(rq->body, "metadata");

	return strcmp(rq->method, "POST") == 0 &&
	       pai__json_str(meta, "name") &&
	       !json_object_get(meta, "generateName");
}

/* The request on the wire: URL, body text. */
static int send_rq(pai_client *c, const pai__k8s_rq *rq, pai__response *rs)
{
	pai__request r = {rq->method, NULL, NULL, 0, NULL, NULL, rq->safe, 0,
			  0};
	char *url = NULL, *body = NULL;
	int err;

	if (!(url = pai__url(c, rq->path)))
		return pai__client_oom(c);
	if (rq->body && !(body = pai__json_dumps(rq->body, JSON_COMPACT))) {
		free(url);
		return pai__client_oom(c);
	}
	r.url = url;
	r.reuse = reusable(rq);
	r.body = body;
	r.body_len = body ? strlen(body) : 0;
	r.content_type = rq->ctype ? rq->ctype : "application/json";
	err = pai__http(c, &r, rs);
	free(url);
	free(body);
	return err;
}

int pai__k8s_call(json_t **out, pai_client *c, const pai__k8s_rq *rq,
		  pai__k8s_ans *ans)
{
	pai__response rs = PAI__RESPONSE_INIT;
	pai__k8s_ans own;
	int err;

	if (out)
		*out = NULL;
	if (!ans)
		ans = &own;
	memset(ans, 0, sizeof(*ans));
	err = send_rq(c, rq, &rs);
	/* libcurl sent it again by itself (its reused connection died
	 * before any answer): a 409 then may be to our own first copy,
	 * which answer is lost, as a lost answer is */
	if (!err && !rq->safe && rs.resent && rs.status == 409)
		err = pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
				       "%s %s: the connection was lost before "
				       "the answer (a copy sent again met "
				       "409)",
				       rq->method, rq->path);
	ans->http = err ? 0 : rs.status;
	ans->maybe = !rq->safe && rs.sent &&
		     ((err && err != PAI_EINTR) || rs.status >= 500);
	if (err == PAI_OK && (rs.status < 200 || rs.status >= 300))
		err = pai__k8s_judge(c, rq->method, rq->path, &rs, &ans->st);
	else if (err == PAI_OK)
		err = body_json(out, c, rq, &rs);
	pai__response_release(&rs);
	if (ans == &own)
		pai__k8s_ans_release(&own);
	return err;
}

int pai__k8s_get(json_t **out, pai_client *c, const char *path)
{
	pai__k8s_rq rq = {"GET", path, NULL, NULL, 1};
	int err = pai__k8s_call(out, c, &rq, NULL);

	if (err == PAI_OK && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
					"GET %s: expected an object", path);
	}
	return err;
}

/* The job labelled paictl/job-name=name (a name Kubernetes had to
 * derive another from), or PAI_ENOTFOUND. */
static int by_label(json_t **out, pai_client *c, const char *name)
{
	pai__buf q = PAI__BUF_INIT, path = PAI__BUF_INIT;
	json_t *list = NULL, *items;
	int err;

	if (!pai__k8s_label_value(name))
		return PAI_ENOTFOUND;
	pai__buf_puts(&q, "?labelSelector=");
	pai__buf_put_escaped(&q, "paictl/job-name=");
	pai__buf_put_escaped(&q, name);
	pai__k8s_path(&path, c, PAI__K8S_JOBS, NULL, q.data);
	err = q.oom || path.oom ? pai__client_oom(c)
				: pai__k8s_get(&list, c, path.data);
	pai__buf_release(&q);
	pai__buf_release(&path);
	items = json_object_get(list, "items");
	if (!err && json_array_size(items) == 1 &&
	    json_is_object(json_array_get(items, 0)))
		*out = json_incref(json_array_get(items, 0));
	else if (!err)
		err = PAI_ENOTFOUND;
	json_decref(list);
	return err;
}

int pai__k8s_find_job(json_t **out, pai_client *c, const char *name)
{
	pai__buf path = PAI__BUF_INIT;
	int err = PAI_ENOTFOUND;

	*out = NULL;
	if (pai__dns_name(name, 253, 1)) {
		pai__k8s_path(&path, c, PAI__K8S_JOBS, name, NULL);
		err = path.oom ? pai__client_oom(c)
			       : pai__k8s_get(out, c, path.data);
		pai__buf_release(&path);
		if (err != PAI_ENOTFOUND ||
		    (c->err_code && strcmp(c->err_code, "NotServed") == 0))
			return err;
	}
	err = by_label(out, c, name);
	if (err == PAI_ENOTFOUND)
		return pai__client_fail(c, err, 404, "NotFound",
					"job '%s' not found in namespace '%s'",
					name, pai__k8s_of(c)->o.ns);
	return err;
}
