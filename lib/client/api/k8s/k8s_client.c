/* k8s_client.c - a client for a Kubernetes cluster: the kubeconfig read
 * once (kube_config.c), the credential asked for at each exchange
 * (kube_cred.c: token files re-read, plugins run when their token
 * expires or a 401 says it is stale), and what each exchange gets of
 * both, through http.h's struct pai__wire: TLS (kube_curl.c) and the
 * header lines; and how a failed answer reads, whatever carried it (a
 * Status's message and reason, §2.3; a group not served named as such).
 * Nothing of them reaches a trace: the Authorization line is masked
 * there (trace.c), certificates never leave libcurl. */
#include "k8s_api.h"

#include "sys/dl_curl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pai__k8s_client *pai__k8s_of(pai_client *c)
{
	return c->wire_data;
}

/* The credential's failure (a plugin that failed, a token file gone)
 * as the client's detail. */
static int cred_failed(pai_client *c, int err, const pai__kube_err *e)
{
	return pai__client_fail(c, err, 0, NULL, "kubeconfig credentials: %s",
				e->msg[0] ? e->msg : pai_strerror(err));
}

/* TLS and proxy on h (CONNECT_TO for tls-server-name in
 * conn->connect_to), and the headers (Authorization, impersonation,
 * Accept) appended to conn->hdrs; conn->generation the credential's.
 * Called one lane at a time (http.h: the credential's state is shared). */
static int wire_prepare(void *data, pai_client *c, CURL *h, pai__conn *conn)
{
	struct pai__k8s_client *k = data;
	pai__kube_auth auth;
	pai__kube_err e;
	int err;

	e.msg[0] = '\0';
	if ((err = pai__kube_cred_get(k->cred, &auth, &e)))
		return cred_failed(c, err, &e);
	if ((err = pai__kube_curl_setup(h, &conn->connect_to, k->cfg, &auth,
					&e)))
		return pai__client_fail(c, err, 0, NULL, "%s",
					e.msg[0] ? e.msg : pai_strerror(err));
	if ((err = pai__kube_headers(&conn->hdrs, k->cfg, &auth)))
		return err == PAI_EINVAL
			   ? pai__client_fail(c, PAI_EAUTH, 0, NULL,
					      "kubeconfig credentials: a "
					      "header value holds a control "
					      "character")
			   : pai__client_oom(c);
	conn->generation = auth.generation;
	return pai__conn_header(c, conn, "Accept: application/json");
}

static int wire_unauthorized(void *data, unsigned long gen)
{
	struct pai__k8s_client *k = data;

	return pai__kube_cred_unauthorized(k->cred, gen);
}

/* "G/V" of a path or URL's "/apis/G/V/...", for the message of a group
 * not served. */
static void group_of(char *out, size_t len, const char *where)
{
	const char *p = strstr(where, "/apis/"), *e;

	p = p ? p + 6 : "";
	e = strchr(p, '/');
	e = e ? strchr(e + 1, '/') : NULL;
	snprintf(out, len, "%.*s", (int)(e ? e - p : (long)strcspn(p, "?")), p);
}

int pai__k8s_judge(pai_client *c, const char *method, const char *where,
		   const pai__response *rs, pai__kube_status *st)
{
	char group[128];
	int err;

	if (pai__kube_status_parse(
		st, rs->status, rs->content_type,
		rs->body.data ? rs->body.data : "", rs->body.len,
		rs->retry_after_ms > 0
		    ? (long)((rs->retry_after_ms + 999) / 1000)
		    : -1))
		return pai__client_oom(c);
	err = pai__kube_status_error(st);
	if (st->body == PAI__KB_NOT_FOUND) {
		group_of(group, sizeof(group), where);
		return pai__client_fail(c, err, rs->status, "NotServed",
					"the API server does not serve %s: is "
					"its CRD installed?",
					*group ? group : where);
	}
	if (st->message && *st->message)
		return pai__client_fail(c, err, rs->status, st->reason, "%s",
					st->message);
	return pai__client_fail(c, err, rs->status, st->reason,
				"%s %s: HTTP %ld", method, where, rs->status);
}

static int wire_judge(void *data, pai_client *c, const pai__request *rq,
		      const pai__response *rs)
{
	pai__kube_status st;
	int err;

	(void)data;
	memset(&st, 0, sizeof(st));
	err = pai__k8s_judge(c, rq->method, rq->url, rs, &st);
	pai__kube_status_release(&st);
	return err;
}

static void wire_free(void *data)
{
	struct pai__k8s_client *k = data;

	if (!k)
		return;
	pai__kube_cred_free(k->cred);
	pai__kube_config_free(k->cfg);
	free(k->queue);
	free(k->fs_uri);
	free(k->runtime);
	free(k);
}

static const struct pai__wire k8s_wire = {wire_prepare, wire_unauthorized,
					  wire_judge, wire_free};

int pai_job_stop_deleted(const pai_client *c)
{
	return c && c->wire == &k8s_wire &&
	       ((const struct pai__k8s_client *)c->wire_data)->stop_deleted;
}

/* ---- the client ------------------------------------------------------- */

/* *detail = "what: why" (new), and err. */
static int say(char **detail, int err, const char *what, const char *why)
{
	if (detail &&
	    asprintf(detail, "%s%s%s", what, *why ? ": " : "", why) < 0)
		*detail = NULL;
	return err;
}

/* The kubeconfig of k, loaded as client-go loads it, into *st. */
static int load(struct pai__k8s_client *st, char **detail,
		const pai_k8s_cluster *k)
{
	pai__kube_load_opts lo;
	pai__kube_cred_opts co = PAI__KUBE_CRED_OPTS_INIT;
	pai__kube_err e;
	int err;

	memset(&lo, 0, sizeof(lo));
	e.msg[0] = '\0';
	pai__kube_load_opts_env(&lo);
	lo.kubeconfig = k->kubeconfig;
	lo.context = k->context;
	lo.namespace = k->ns;
	if ((err = pai__kube_config_load(&st->cfg, &lo, &e)))
		return say(detail, err, "cannot load the kubeconfig", e.msg);
	/* a plugin may prompt, where there is a terminal to prompt on */
	co.stdin_fd = isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
	if ((err = pai__kube_cred_new(&st->cred, st->cfg, &co)))
		return say(detail, err, "out of memory", "");
	return PAI_OK;
}

static int set_facts(struct pai__k8s_client *st, const pai_k8s_cluster *k)
{
	static const pai_k8s_options init = PAI_K8S_OPTIONS_INIT;

	st->o = init;
	st->o.kind = k->kind;
	st->engine = pai__k8s_engine_of(k->kind);
	st->o.scheduler = k->scheduler;
	st->o.ns = st->cfg->namespace;
	if ((k->queue && !(st->queue = strdup(k->queue))) ||
	    (k->fs_uri && !(st->fs_uri = strdup(k->fs_uri))))
		return PAI_ENOMEM;
	st->o.queue = st->queue;
	st->o.fs_uri = st->fs_uri;
	if (k->version == 1)
		return PAI_OK; /* its struct ends before the runtime */
	if (k->runtime && !(st->runtime = strdup(k->runtime)))
		return PAI_ENOMEM;
	st->o.runtime = st->runtime;
	st->o.runtime_namespaced = k->runtime_namespaced;
	return PAI_OK;
}

static int check(const pai_k8s_cluster *k)
{
	return k && (k->version == 1 || k->version == PAI_K8S_CLUSTER_VERSION) &&
	       pai__k8s_kind_of(k->kind) && pai__k8s_engine_of(k->kind) &&
	       (k->scheduler == PAI_K8S_SCHED_VOLCANO ||
		k->scheduler == PAI_K8S_SCHED_DEFAULT);
}

/* The client on the server's URL (tls-server-name in place of its host,
 * as pai__kube_url() makes every URL: the origin the credential goes
 * to). */
static int new_client(pai_client **out, char **detail,
		      const pai_client_options *opts,
		      struct pai__k8s_client *st)
{
	pai_client_options o = *opts;
	char *uri = NULL;
	int err;

	if ((err = pai__kube_url(&uri, st->cfg, "")))
		return say(detail, err, "cannot use the kubeconfig's server",
			   st->cfg->server);
	o.uri = uri;
	o.unix_socket = o.token = o.ca_file = NULL;
	o.insecure = 0;
	err = pai_client_new(out, &o);
	free(uri);
	if (err)
		return say(detail, err, "cannot make the client",
			   pai_strerror(err));
	return PAI_OK;
}

int pai_client_new_k8s(pai_client **out, char **detail,
		       const pai_client_options *opts, const pai_k8s_cluster *k)
{
	struct pai__k8s_client *st = NULL;
	int err;

	if (out)
		*out = NULL;
	if (detail)
		*detail = NULL;
	if (!out || !opts || opts->version != PAI_CLIENT_OPTIONS_VERSION ||
	    !check(k))
		return PAI_EINVAL;
	if (!(st = calloc(1, sizeof(*st))))
		return PAI_ENOMEM;
	if (!(err = load(st, detail, k)) && (err = set_facts(st, k)))
		say(detail, err, "out of memory", "");
	if (!err)
		err = new_client(out, detail, opts, st);
	if (err) {
		wire_free(st);
		return err;
	}
	(*out)->wire = &k8s_wire;
	(*out)->wire_data = st;
	(*out)->api = PAI_API_K8S;
	return PAI_OK;
}
