/* http.c - the local cluster's REST server on libmicrohttpd: its
 * listeners, the routing of every request to the v1 API (here) or the v2
 * API (api_v2.c), and the v1 API of OpenPAI v0.x; both answer with
 * reply.c and know their callers by auth.c
 *
 * One MHD daemon per listener (the Unix socket, and TCP with --listen),
 * each with its own polling threads; every handler takes the server's
 * lock, so handlers never race with the main loop that runs processes.
 * Over TCP every mutating call needs a bearer token (or a web page's
 * session), and a caller with neither may send a login's body at most;
 * on the Unix socket, whose directory only the owner may enter, none is
 * asked.
 */
#include "http_int.h"
#include "web_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static struct listener unix_l, tcp_l, web_l;

static const char *const log_files[] = {"user.pai.stdout", "user.pai.stderr",
					"user.pai.all"};

/* ---- the list --------------------------------------------------------- */

/* The list, with its ETag; or (?wait=MS&since=ETAG) the list once it
 * changed: wait.c. */
static enum MHD_Result list_jobs(struct srv *s, struct MHD_Connection *c,
				 struct req *rq, const char *user)
{
	json_t *a;
	char etag[32];
	size_t i;

	pthread_mutex_lock(&s->lock);
	if (h_wait_hold_list(s, c, rq)) {
		pthread_mutex_unlock(&s->lock);
		return MHD_YES;
	}
	a = json_array();
	for (i = 0; a && i < s->njobs; i++)
		if (!user || strcmp(s->jobs[i]->user, user) == 0)
			json_array_append_new(a, h_job_summary(s->jobs[i]));
	h_list_etag(s, etag, sizeof(etag));
	pthread_mutex_unlock(&s->lock);
	return h_reply_etag(c, a, etag);
}

/* ---- submission ------------------------------------------------------ */

/* The 400 of a config that does not validate: the first error, and
 * every diagnostic for clients that read them. */
static enum MHD_Result refuse_config(struct MHD_Connection *c,
				     pai_diags *diags)
{
	const pai_diag *d = pai_diags_get(diags, 0);
	char msg[600];
	size_t i;

	for (i = 0; i < pai_diags_count(diags); i++)
		if (pai_diags_get(diags, i)->severity == PAI_SEVERITY_ERROR) {
			d = pai_diags_get(diags, i);
			break;
		}
	if (d)
		snprintf(msg, sizeof(msg),
			 "invalid job config: %zu error%s; first at line %u, "
			 "column %u: %s [%s]",
			 pai_diags_errors(diags),
			 pai_diags_errors(diags) == 1 ? "" : "s", d->line,
			 d->column, d->message, d->rule);
	else
		snprintf(msg, sizeof(msg), "invalid job config");
	return h_reply_json(c, 400,
			    json_pack("{s:s,s:s,s:o}", "code",
				      "InvalidParametersError", "message", msg,
				      "diagnostics",
				      pai_diags_to_json(diags)));
}

/* What the local cluster cannot run, or v0.17 refuses, besides
 * validation: names, a virtual cluster other than "default" (404, as the
 * real server answers, where its document says 400). MHD_YES with
 * *refused set after replying. */
static enum MHD_Result refuse_job(struct MHD_Connection *c,
				  const pai_job *pj, const char *path_name,
				  int *refused)
{
	const char *name = pai_job_name(pj), *vc = json_string_value(
	    json_object_get(pai_job_config(pj), "virtualCluster"));
	pai_role pr;
	size_t r;

	*refused = 1;
	if (!name || !srv_safe_name(name))
		return h_reply_error(c, 400, "InvalidParametersError",
				     "jobName must be letters, digits, '_', "
				     "'-' and '.' (at most 128)");
	if (path_name && strcmp(path_name, name) != 0)
		return h_reply_error(c, 400, "InvalidParametersError",
				     "jobName '%s' in the config differs from "
				     "'%s' in the path",
				     name, path_name);
	for (r = 0; r < pai_job_role_count(pj); r++)
		if (pai_job_role(&pr, pj, r) || !srv_safe_name(pr.name) ||
		    !pr.command)
			return h_reply_error(c, 400, "InvalidParametersError",
					     "task role %zu needs a name of "
					     "letters, digits, '_', '-' or '.' "
					     "and a command",
					     r);
	if (pai_job_format(pj) == PAI_FORMAT_V1 && vc && *vc &&
	    strcmp(vc, "default") != 0)
		return h_reply_error(c, 404, "NoVirtualClusterError",
				     "Virtual cluster %s is not found.", vc);
	*refused = 0;
	return MHD_YES;
}

/* Stores job j (taking it) and answers as v0.17 does: 201 with the job
 * as it now is, built before the job is the runner's (it may end, its
 * config freed, before the answer goes out). */
static enum MHD_Result store_job(struct srv *s, struct MHD_Connection *c,
				 struct srv_job *j, const struct req *rq)
{
	json_t *answer;
	enum MHD_Result res;
	int err;

	srv_note_job(s, j); /* in the answer too */
	answer = h_job_detail(j, h_conn_host(c));
	if (!answer) {
		srv_job_free(j);
		return h_reply_error(c, 500, "UnknownError", "out of memory");
	}
	err = srv_add_job(s, j, rq->body ? rq->body : "", rq->len);
	if (err == 0)
		return h_reply_json(c, 201, answer);
	json_decref(answer);
	if (err == 1)
		res = h_reply_error(c, 409, "ConflictJobError",
				    "Job name %s already exists.", j->name);
	else
		res = h_reply_error(c, 500, "UnknownError",
				    "cannot store the job: %s",
				    strerror(errno));
	srv_job_free(j);
	return res;
}

/* A config sent as a form (OpenPAI's JavaScript SDK does) becomes the
 * JSON the real server's body parser makes of it, in rq: what is
 * validated. 1 then, 0 for another body, -1 after replying. */
static int form_body(struct MHD_Connection *c, struct req *rq,
		     enum MHD_Result *res)
{
	const char *type =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	unsigned status;
	char *json;
	size_t i = 0;

	if (!type || strncasecmp(type, "application/x-www-form-urlencoded",
				 33) != 0)
		return 0;
	/* curl -d sends this type with whatever it sends: a body that is a
	 * JSON object stays one (the real server would refuse it) */
	while (i < rq->len && strchr(" \t\r\n", rq->body[i]))
		i++;
	if (i < rq->len && rq->body[i] == '{')
		return 0;
	json = h_form_to_json(rq->body ? rq->body : "", rq->len, &status);
	if (!json) {
		*res = status == 413 ? h_reply_error(c, 413, "UnknownError",
						     "too many parameters")
				     : h_reply_error(c, 500, "UnknownError",
						     "out of memory");
		return -1;
	}
	free(rq->body);
	rq->body = json;
	rq->len = strlen(json);
	return 1;
}

/* After a form's config has passed: what is stored and served back is
 * the config as validated, its numbers numbers (Joi converts them, and
 * the real server keeps what Joi gives). 0, or -1 when out of memory. */
static int form_config(struct req *rq, const pai_job *pj)
{
	char *json = json_dumps(pai_job_config(pj), JSON_COMPACT);

	if (!json)
		return -1;
	free(rq->body);
	rq->body = json;
	rq->len = strlen(json);
	return 0;
}

enum MHD_Result h_submit(struct listener *l, struct MHD_Connection *c,
			      struct req *rq, const char *user,
			      const char *path_name)
{
	pai_diags *diags = NULL;
	pai_job *pj = NULL;
	struct srv_job *j = NULL;
	enum MHD_Result res;
	int err, refused = 0, form = form_body(c, rq, &res);

	if (form < 0)
		return res;
	if (pai_diags_new(&diags) != PAI_OK)
		return h_reply_error(c, 500, "UnknownError", "out of memory");
	err = pai_job_parse(&pj, diags, "job.json", rq->body ? rq->body : "",
			    rq->len, NULL);
	if (err == PAI_ESYNTAX || err == PAI_EINVALID)
		res = refuse_config(c, diags);
	else if (err)
		res = h_reply_error(c, 500, "UnknownError", "%s",
				    pai_strerror(err));
	else if ((res = refuse_job(c, pj, path_name, &refused)), refused)
		;
	else if (form && form_config(rq, pj) < 0)
		res = h_reply_error(c, 500, "UnknownError", "out of memory");
	else if (srv_job_from_pai(&j, pj, user) < 0)
		res = h_reply_error(c, 400, "InvalidParametersError",
				    "the job cannot run here (at most 1000 "
				    "tasks per role and 100 ports per label)");
	else {
		j->pj = pj;
		pj = NULL;
		res = store_job(l->s, c, j, rq);
	}
	pai_job_free(pj);
	pai_diags_free(diags);
	return res;
}

enum MHD_Result h_execution_type(struct srv *s, struct MHD_Connection *c,
				      struct req *rq, const char *user,
				      const char *name)
{
	json_t *body = rq->len ? json_loadb(rq->body, rq->len, 0, NULL) : NULL;
	const char *v = json_string_value(json_object_get(body, "value"));
	struct srv_job *j;
	enum MHD_Result res;
	char msg[300];

	if (!v || (strcmp(v, "START") != 0 && strcmp(v, "STOP") != 0)) {
		json_decref(body);
		return h_reply_error(c, 400, "InvalidParametersError",
				   "the body must be {\"value\": \"START\"} or "
				   "{\"value\": \"STOP\"}");
	}
	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, name);
	if (!j)
		/* v0.17 passes the launcher's own error on, raw */
		res = h_reply_error(c, 404, "UnknownError",
				    "{\"code\":\"NotFoundException\","
				    "\"message\":\"Framework %s~%s does not "
				    "exist\"}",
				    user, name);
	else {
		if (strcmp(v, "STOP") == 0) {
			srv_stop_job(s, j, "stopped by the user");
			srv_flush(s);
			srv_wake(s);
		}
		snprintf(msg, sizeof(msg), "execute job %s successfully", name);
		res = h_reply_message(c, 202, msg);
	}
	pthread_mutex_unlock(&s->lock);
	json_decref(body);
	return res;
}

/* A JSON config as v0.17 answers it: re-serialised, 2-space indent, not
 * the bytes sent; anything else (a protocol-v2 YAML job) as it came. */
static enum MHD_Result reply_config(struct MHD_Connection *c, char *text,
				    size_t len)
{
	json_t *cfg = json_loadb(text, len, 0, NULL);
	char *out = cfg ? json_dumps(cfg, JSON_INDENT(2)) : NULL;

	json_decref(cfg);
	if (!out)
		return h_reply_raw(c, 200, "text/plain; charset=utf-8", text,
				   len);
	free(text);
	return h_reply_raw(c, 200, "application/json; charset=utf-8", out,
			   strlen(out));
}

static enum MHD_Result get_config(struct srv *s, struct MHD_Connection *c,
				  const char *user, const char *name)
{
	struct srv_job *j;
	char *path = NULL, *text = NULL;
	size_t len = 0;

	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, name);
	if (j)
		path = srv_printf("%s/config.json", j->dir);
	pthread_mutex_unlock(&s->lock);
	if (!j)
		return h_no_job(c, name);
	if (!path || pai_file_read(&text, &len, NULL, path) != PAI_OK) {
		free(path);
		return h_reply_error(c, 404, "NoJobConfigError",
				   "Config of job %s is not found.", name);
	}
	free(path);
	return reply_config(c, text, len);
}

/* ---- ssh ------------------------------------------------------------- */

static json_t *ssh_info(const struct srv_job *j, const char *host)
{
	json_t *cs = json_array();
	unsigned port;
	size_t i;

	for (i = 0; i < j->ntasks; i++) {
		const struct srv_task *t = &j->tasks[i];

		if (t->state == ST_WAITING || !srv_ssh_port(j, t, &port))
			continue;
		json_array_append_new(
		    cs, json_pack("{s:o,s:s,s:o}", "id", h_container_id(j, t),
				  "sshIp", "127.0.0.1", "sshPort",
				  json_sprintf("%u", port)));
	}
	return json_pack(
	    "{s:o,s:{s:o,s:o,s:s,s:o}}", "containers", cs, "keyPair",
	    "folderPath", json_sprintf("%s/ssh", j->dir), "publicKeyFileName",
	    json_sprintf("%s.pub", j->name), "privateKeyFileName", j->name,
	    "privateKeyDirectDownloadLink",
	    json_sprintf("http://%s/api/v1/user/%s/jobs/%s/ssh/key", host,
			 j->user, j->name));
}

static enum MHD_Result ssh_key(struct srv *s, struct MHD_Connection *c,
			       const char *user, const char *name)
{
	struct srv_job *j;
	char *path = NULL, *text = NULL;
	size_t len = 0;
	bool ssh = false;

	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, name);
	if (j) {
		ssh = srv_ssh_enable(s, j) == 0;
		path = srv_ssh_key_path(j, false);
	}
	pthread_mutex_unlock(&s->lock);
	if (!j)
		return h_no_job(c, name);
	if (!ssh || !path || pai_file_read(&text, &len, NULL, path) != PAI_OK) {
		free(path);
		return h_reply_error(c, 404, "NoJobSshInfoError",
				   "SSH info of job %s is not found.", name);
	}
	free(path);
	return h_reply_raw(c, 200, "application/octet-stream", text, len);
}

/* ---- logs ------------------------------------------------------------ */

/* Where task index of role is in j->tasks (by role, then index). */
static size_t task_at(const struct srv_job *j, size_t role, long index)
{
	size_t k;

	for (k = 0; k < j->ntasks; k++)
		if (j->tasks[k].role == role && (long)j->tasks[k].index == index)
			break;
	return k;
}

static enum MHD_Result get_log(struct srv *s, struct MHD_Connection *c,
			       struct req *rq, char **seg, size_t nseg)
{
	/* seg: api v1 local logs KEY ATTEMPT ROLE INDEX FILE */
	struct srv_job *j;
	char *path = NULL, *user = NULL, *tilde, *end;
	long attempt, index;
	int f;
	size_t ri;
	bool starting = false;
	enum MHD_Result res;

	if (nseg != 9)
		return h_log_missing(c, false);
	for (f = 0; f < 3; f++)
		if (strcmp(seg[8], log_files[f]) == 0)
			break;
	user = strdup(seg[4]);
	tilde = user ? strchr(user, '~') : NULL;
	attempt = strtol(seg[5], &end, 10);
	if (f == 3 || !tilde || *end || attempt < 0)
		goto notfound;
	index = strtol(seg[7], &end, 10);
	if (*end || index < 0)
		goto notfound;
	*tilde = '\0';
	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, tilde + 1);
	for (ri = 0; j && !path && ri < j->nroles; ri++)
		if (strcmp(j->roles[ri].name, seg[6]) == 0)
			path = h_log_path(j, attempt, ri, index, log_files[f],
					  &starting);
	/* ?wait=MS with "Range: bytes=N-": once there is more (wait.c) */
	if (path && h_wait_hold_log(s, c, rq, j, task_at(j, ri - 1, index),
				    attempt, path)) {
		pthread_mutex_unlock(&s->lock);
		free(path);
		free(user);
		return MHD_YES;
	}
	pthread_mutex_unlock(&s->lock);
	if (!path)
		goto notfound;
	res = h_serve_log(
	    c, path, starting,
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"),
	    "text/plain; charset=utf-8", false);
	free(path);
	free(user);
	return res;
notfound:
	free(user);
	return h_log_missing(c, false);
}

/* ---- routing ---------------------------------------------------------- */

static size_t split(char *path, char **seg, size_t max)
{
	size_t n = 0;
	char *p = path, *save = NULL;

	while (n < max && (p = strtok_r(p, "/", &save))) {
		seg[n++] = p;
		p = NULL;
	}
	return n;
}

/* One request as the routes see it. */
struct call {
	struct listener *l;
	struct MHD_Connection *c;
	const char *url, *method;
	struct req *rq;
	char **seg;
	size_t n;
	bool get, post, put, del;
};

static enum MHD_Result not_found(const struct call *k)
{
	return h_reply_error(k->c, 404, "NotFoundError", "no such API: %s %s",
			     k->method, k->url);
}

static enum MHD_Result not_allowed(const struct call *k)
{
	return h_reply_error(k->c, 405, "MethodNotAllowedError",
			     "%s is not allowed on %s", k->method, k->url);
}

static enum MHD_Result local_info(struct MHD_Connection *c)
{
	return h_reply_json(
	    c, 200,
	    json_pack("{s:s,s:s,s:s,s:s,s:s}", "name", "PAI RESTfulAPI",
		      "version", "v0.14.0", "launcherType", "k8s",
		      "authnMethod", "basic", "localCluster",
		      "paictl " PAI_VERSION));
}

/* The status, or (?wait=MS&since=ETAG) the status once it changed:
 * wait.c. */
static enum MHD_Result job_status(struct srv *s, struct MHD_Connection *c,
				  struct req *rq, const char *user,
				  const char *name)
{
	struct srv_job *j;
	enum MHD_Result res;

	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, name);
	if (j && h_wait_hold(s, c, rq, j))
		res = MHD_YES;
	else
		res = j ? h_reply_job(c, j, h_job_detail(j, h_conn_host(c)))
			: h_no_job(c, name);
	pthread_mutex_unlock(&s->lock);
	return res;
}

static enum MHD_Result job_ssh(struct srv *s, struct MHD_Connection *c,
			       const char *user, const char *name)
{
	struct srv_job *j;
	enum MHD_Result res;

	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, name);
	res = !j ? h_no_job(c, name)
	      : srv_ssh_enable(s, j) == 0
		  ? h_reply_json(c, 200, ssh_info(j, h_conn_host(c)))
		  : h_reply_error(c, 404, "NoJobSshInfoError",
				  "SSH info of job %s is not found.", name);
	pthread_mutex_unlock(&s->lock);
	return res;
}

/* DELETE of a job, as v0.17 answers it (202); one that has not ended is
 * refused (409): stop it first. */
static enum MHD_Result delete_job(struct srv *s, struct MHD_Connection *c,
				  const char *user, const char *name)
{
	struct srv_job *j;
	enum MHD_Result res;
	char *gone = NULL;

	pthread_mutex_lock(&s->lock);
	j = srv_find_job(s, user, name);
	if (!j)
		res = h_no_job(c, name);
	else if (j->state == ST_WAITING || j->state == ST_RUNNING)
		res = h_reply_error(c, 409, "ConflictJobError",
				    "Job %s is %s: stop it first.", name,
				    srv_state_name(j->state));
	else if (srv_delete_job(s, j, &gone) < 0)
		res = h_reply_error(c, 500, "UnknownError",
				    "cannot delete job %s: %s", name,
				    strerror(errno));
	else
		res = h_reply_json(c, 202,
				   json_pack("{s:s++}", "message",
					     "deleted job ", name,
					     " successfully"));
	pthread_mutex_unlock(&s->lock);
	if (gone)
		srv_rmtree(gone);
	free(gone);
	return res;
}

/* /api/v1/user/:user/jobs[/:job]: the list, submission, status, delete */
static enum MHD_Result user_jobs(const struct call *k)
{
	const char *user = k->seg[3];
	enum MHD_Result res = MHD_NO;

	if (k->n == 5 && k->get)
		return list_jobs(k->l->s, k->c, k->rq, user);
	if (k->n == 5 && k->post)
		return h_authorize(k->l, k->c, user, &res) == 0
			   ? h_submit(k->l, k->c, k->rq, user, NULL)
			   : res;
	if (k->n == 6 && k->put)
		return h_authorize(k->l, k->c, user, &res) == 0
			   ? h_submit(k->l, k->c, k->rq, user, k->seg[5])
			   : res;
	if (k->n == 6 && k->get)
		return job_status(k->l->s, k->c, k->rq, user, k->seg[5]);
	if (k->n == 6 && k->del)
		return h_authorize(k->l, k->c, user, &res) == 0
			   ? delete_job(k->l->s, k->c, user, k->seg[5])
			   : res;
	return not_allowed(k);
}

/* /api/v1/user/:user/jobs/:job/(config|executionType|ssh[/key]) */
static enum MHD_Result job_parts(const struct call *k)
{
	const char *user = k->seg[3], *name = k->seg[5], *part = k->seg[6];
	enum MHD_Result res = MHD_NO;
	bool key = k->n == 8 && strcmp(part, "ssh") == 0 &&
		   strcmp(k->seg[7], "key") == 0;

	if (k->n == 7 && strcmp(part, "config") == 0)
		return k->get ? get_config(k->l->s, k->c, user, name)
			      : not_allowed(k);
	if (k->n == 7 && strcmp(part, "executionType") == 0) {
		if (!k->put)
			return not_allowed(k);
		return h_authorize(k->l, k->c, user, &res) == 0
			   ? h_execution_type(k->l->s, k->c, k->rq, user, name)
			   : res;
	}
	if (k->n == 7 && strcmp(part, "ssh") == 0)
		return k->get ? job_ssh(k->l->s, k->c, user, name)
			      : not_allowed(k);
	if (!key)
		return not_found(k);
	if (!k->get)
		return not_allowed(k);
	/* a secret: over TCP, only for its owner */
	return h_authorize(k->l, k->c, user, &res) == 0
		   ? ssh_key(k->l->s, k->c, user, name)
		   : res;
}

/* /api/v1/jobs/:user~:job: a job by its framework name, as the real
 * server answers it to anyone (OpenPAI's JavaScript SDK asks it, without
 * a token, in getFrameworkInfo). */
static enum MHD_Result framework(const struct call *k)
{
	char *user = strdup(k->seg[3]), *name = user ? strchr(user, '~') : NULL;
	enum MHD_Result res;

	if (!user)
		return h_reply_error(k->c, 500, "UnknownError", "out of memory");
	if (name)
		*name++ = '\0';
	res = name && srv_safe_name(user) && srv_safe_name(name)
		  ? job_status(k->l->s, k->c, k->rq, user, name)
		  : h_no_job(k->c, k->seg[3]);
	free(user);
	return res;
}

/* /api/v1/... */
static enum MHD_Result v1_route(const struct call *k)
{
	char **seg = k->seg;
	size_t n = k->n;

	if (n == 2)
		return k->get ? local_info(k->c) : not_allowed(k);
	if (n == 3 && strcmp(seg[2], "token") == 0)
		return k->post ? h_post_token(k->l, k->c, k->rq)
			       : not_allowed(k);
	if (n == 3 && strcmp(seg[2], "jobs") == 0)
		return k->get ? list_jobs(k->l->s, k->c, k->rq,
					  MHD_lookup_connection_value(
					      k->c, MHD_GET_ARGUMENT_KIND,
					      "username"))
			      : not_allowed(k);
	if (n == 4 && strcmp(seg[2], "jobs") == 0)
		return k->get ? framework(k) : not_allowed(k);
	if (n >= 4 && strcmp(seg[2], "local") == 0 &&
	    strcmp(seg[3], "logs") == 0)
		return k->get ? get_log(k->l->s, k->c, k->rq, seg, n)
			      : not_allowed(k);
	if (n < 5 || strcmp(seg[2], "user") != 0 || strcmp(seg[4], "jobs") != 0)
		return not_found(k);
	if (!srv_safe_name(seg[3]) || (n >= 6 && !srv_safe_name(seg[5])))
		return n == 5 ? h_reply_error(k->c, 400,
					      "InvalidParametersError",
					      "invalid user name '%s'", seg[3])
			      : h_no_job(k->c, seg[5]);
	return n <= 6 ? user_jobs(k) : job_parts(k);
}

static enum MHD_Result route(struct listener *l, struct MHD_Connection *c,
			     const char *url, const char *method,
			     struct req *rq)
{
	char *copy = strdup(url), *seg[16];
	struct call k = {l, c, url, method, rq, seg, 0, false, false, false, false};
	enum MHD_Result res;

	if (!copy)
		return MHD_NO;
	k.n = split(copy, seg, 16);
	k.get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	k.post = strcmp(method, "POST") == 0;
	k.put = strcmp(method, "PUT") == 0;
	k.del = strcmp(method, "DELETE") == 0;
	if (k.n >= 2 && strcmp(seg[0], "api") == 0 && strcmp(seg[1], "v2") == 0)
		res = h_v2_route(l, c, seg, k.n, method, url, rq);
	else if (k.n >= 1 && strcmp(seg[0], "log-manager") == 0)
		res = k.get ? h_log_manager(l, c, seg, k.n) : not_allowed(&k);
	else if (k.n >= 2 && strcmp(seg[0], "api") == 0 &&
		 strcmp(seg[1], "v1") == 0)
		res = v1_route(&k);
	else if (h_web_url(url))
		res = h_web_route(l, c, url, method, rq);
	else
		res = not_found(&k);
	free(copy);
	return res;
}

/* The routes that sign in: a stranger's body goes there alone. */
static bool login_url(const char *url)
{
	return strcmp(url, "/api/v1/token") == 0 ||
	       strcmp(url, "/api/v2/authn/basic/login") == 0 ||
	       strcmp(url, "/web/api/login") == 0;
}

/* The most of a body the caller may send: over TCP, one with no token
 * nor session sends a login's at most; 401 at once for a body it
 * announces beyond that to another route. 0, or -1 after replying. */
static int body_limit(struct listener *l, struct MHD_Connection *c,
		      const char *url, unsigned long long announced,
		      struct req *rq, enum MHD_Result *res)
{
	bool known;

	rq->limit = SRV_MAX_BODY;
	if (!l->tcp)
		return 0;
	pthread_mutex_lock(&l->s->lock);
	known = h_find_token(l, c) != NULL;
	pthread_mutex_unlock(&l->s->lock);
	if (known)
		return 0;
	rq->limit = STRANGER_MAX_BODY;
	if (announced <= STRANGER_MAX_BODY || login_url(url))
		return 0;
	*res = h_reply_error(c, 401, "UnauthorizedUserError",
			     "Guest is not allowed to do this operation.");
	return -1;
}

/* A request's first call, before any of its body is read: its struct
 * req in *con_cls; the web gate (Host, Origin, session: web_gate.c);
 * and a body too large refused, so that no stranger makes the server
 * hold bodies. */
static enum MHD_Result begin_request(struct listener *l,
				     struct MHD_Connection *c, const char *url,
				     const char *method, void **con_cls)
{
	const char *cl = MHD_lookup_connection_value(
	    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	unsigned long long len = cl ? strtoull(cl, NULL, 10) : 0;
	struct req *rq = calloc(1, sizeof(*rq));
	enum MHD_Result res;

	if (!rq)
		return MHD_NO;
	*con_cls = rq;
	if (h_web_gate(l, c, method, url, &res) < 0 ||
	    body_limit(l, c, url, len, rq, &res) < 0)
		return res;
	if (len > rq->limit) {
		const char *ex = MHD_lookup_connection_value(
		    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);

		rq->too_big = true;
		/* Refuse before the body is sent when the client waits for
		 * 100 Continue, or the body is huge. Otherwise read and drop
		 * it: closing on a client still sending would reset the
		 * connection and lose the answer. */
		if ((ex && strcasecmp(ex, "100-continue") == 0) ||
		    len > 16ULL * rq->limit)
			return h_reply_error(
			    c, 413, "RequestEntityTooLargeError",
			    "the request body exceeds %zu bytes", rq->limit);
	}
	return MHD_YES;
}

/* A piece of the body: kept, or dropped once the body is too large. */
static enum MHD_Result take_upload(struct req *rq, const char *upload,
				   size_t *upload_size)
{
	if (!rq->too_big && rq->len + *upload_size > rq->limit) {
		rq->too_big = true;
		free(rq->body);
		rq->body = NULL;
		rq->len = 0;
	}
	if (!rq->too_big) {
		char *b = realloc(rq->body, rq->len + *upload_size + 1);

		if (!b)
			return MHD_NO;
		memcpy(b + rq->len, upload, *upload_size);
		rq->body = b;
		rq->len += *upload_size;
		rq->body[rq->len] = '\0';
	}
	*upload_size = 0;
	return MHD_YES;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	struct listener *l = cls;
	struct req *rq = *con_cls;

	(void)version;
	if (!rq)
		return begin_request(l, c, url, method, con_cls);
	if (*upload_size)
		return take_upload(rq, upload, upload_size);
	if (rq->too_big)
		return h_reply_error(c, 413, "RequestEntityTooLargeError",
				     "the request body exceeds %zu bytes",
				     rq->limit);
	return route(l, c, url, method, rq);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;
	struct srv *s = cls;

	(void)c;
	(void)toe;
	if (rq && rq->held) {
		pthread_mutex_lock(&s->lock);
		s->held_out--;
		pthread_mutex_unlock(&s->lock);
	}
	if (rq) {
		free(rq->body);
		free(rq);
		*con_cls = NULL;
	}
}

/* ---- listeners ---------------------------------------------------- */

static int unix_socket(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen,
			 "socket path '%s' is too long (at most %zu bytes); "
			 "use --socket or a shorter --state-dir",
			 path, sizeof(a.sun_path) - 1);
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	unlink(path); /* stale: we hold the state directory's lock */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    chmod(path, 0600) < 0 || listen(fd, 128) < 0)
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "cannot listen on '%s': %s", path,
		 strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* "IPV4:PORT" into a (and host); 0, or -2 with the reason in err. */
static int parse_listen(struct sockaddr_in *a, char *host, size_t hostlen,
			const char *spec, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char *end;
	long port;

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	if (!colon || (size_t)(colon - spec) >= hostlen)
		goto bad;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535 ||
	    inet_pton(AF_INET, host, &a->sin_addr) != 1)
		goto bad;
	a->sin_port = htons((unsigned short)port);
	return 0;
bad:
	snprintf(err, errlen,
		 "invalid --listen '%s': expected IPV4ADDRESS:PORT, e.g. "
		 "127.0.0.1:9186",
		 spec);
	return -2;
}

int srv_listen_check(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_in a;
	char host[64];

	return parse_listen(&a, host, sizeof(host), spec, err, errlen);
}

/* A listening socket at spec; its address and port in host[64] and
 * *port. The descriptor, -1, or -2 for a spec that is not one. */
static int tcp_socket(const char *spec, char *host, unsigned *port, char *err,
		      size_t errlen)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int fd = -1, one = 1;

	if (parse_listen(&a, host, 64, spec, err, errlen) < 0)
		return -2;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		snprintf(err, errlen, "cannot listen on '%s': %s", spec,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* MHD's own messages (malformed requests and the like) go to our log. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct srv *s = cls;
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	srv_log(s, "http: %s", msg);
}

/* Each listener's threads. A submission waits for its record's sync
 * with no lock held, so submissions that come at once share one flush
 * of the disk (log_sync.c), as long as more than one thread takes them:
 * with one, 1,000 jobs sent 8 at a time waited for 1,000 syncs one after
 * another. 8 threads were no faster than 4 on 2 cores. MHD splits the
 * connection limit among them. */
#define HTTP_THREADS 4u

static struct MHD_Daemon *start_daemon(struct listener *l, int fd)
{
	/* suspend/resume: the long-poll holds requests (wait.c) */
	return MHD_start_daemon(
	    MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
		MHD_ALLOW_SUSPEND_RESUME,
	    0, NULL, NULL, handler, l, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
	    l->s, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED,
	    completed, l->s, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
	    MHD_OPTION_THREAD_POOL_SIZE, HTTP_THREADS, MHD_OPTION_END);
}

/* l's address, for web_gate.c: what a Host header may name, and the
 * name of its session cookie, after the port so that two listeners'
 * cookies do not clash; the name keeps nothing from another port's
 * server, which a browser sends every cookie of the host (the session's
 * key does: auth.c). */
static void set_address(struct listener *l, const char *addr, unsigned port)
{
	struct in_addr a;

	snprintf(l->addr, sizeof(l->addr), "%s", addr);
	l->port = port;
	l->loopback = inet_pton(AF_INET, addr, &a) == 1 &&
		      (ntohl(a.s_addr) >> 24) == 127;
	snprintf(l->cookie, sizeof(l->cookie), "paictl_session_%u", port);
}

int srv_http_start(struct srv *s, char *err, size_t errlen)
{
	int fd;

	if (srv_mhd_load(err, errlen) < 0)
		return -1;
	unix_l.s = tcp_l.s = web_l.s = s;
	unix_l.tcp = false;
	tcp_l.tcp = web_l.tcp = web_l.web = true;
	fd = unix_socket(s->sock_path, err, errlen);
	if (fd < 0)
		return -1;
	s->unix_d = start_daemon(&unix_l, fd);
	if (!s->unix_d) {
		close(fd);
		snprintf(err, errlen, "cannot start the HTTP server");
		return -1;
	}
	if (!s->opt.listen)
		return 0;
	fd = tcp_socket(s->opt.listen, s->tcp_addr, &s->tcp_port, err, errlen);
	if (fd < 0)
		return fd;
	set_address(&tcp_l, s->tcp_addr, s->tcp_port);
	s->tcp_d = start_daemon(&tcp_l, fd);
	if (!s->tcp_d) {
		close(fd);
		snprintf(err, errlen, "cannot start the HTTP server");
		return -1;
	}
	return 0;
}

/* A listening socket for the pages on a loopback address of their own,
 * 127.A.B.C at random (Linux routes all of 127/8 to lo): a browser
 * keeps cookies by host, so the session's goes to no job's server on
 * 127.0.0.1 or localhost, nor on another such address. 127.0.0.1 where
 * that address cannot be had. Its address in addr[64]. */
static int web_socket(struct srv *s, char *addr, char *err, size_t errlen)
{
	char hex[7], spec[32];
	unsigned long r;
	int fd = -1;

	if (srv_random_hex(hex, 3) == 0) {
		r = strtoul(hex, NULL, 16);
		snprintf(spec, sizeof(spec), "127.%lu.%lu.%lu:0", r >> 16,
			 (r >> 8) & 255, (r & 255) % 254 + 1);
		fd = tcp_socket(spec, addr, &s->web_port, err, errlen);
	}
	if (fd < 0)
		fd = tcp_socket("127.0.0.1:0", addr, &s->web_port, err, errlen);
	return fd;
}

int srv_web_listen(struct srv *s, char *err, size_t errlen)
{
	char addr[64];
	int fd;

	if (s->web_d)
		return 0;
	fd = web_socket(s, addr, err, errlen);
	if (fd < 0)
		return -1;
	set_address(&web_l, addr, s->web_port);
	s->web_d = start_daemon(&web_l, fd);
	if (!s->web_d) {
		close(fd);
		snprintf(err, errlen, "cannot start the HTTP server");
		return -1;
	}
	snprintf(s->web_url, sizeof(s->web_url), "http://%s:%u", addr,
		 s->web_port);
	srv_log(s, "web pages on %s", s->web_url);
	return 0;
}

/* The requests held (wait.c) answered with the status as it is, not
 * cut: their clients would take a cut for a lost cluster. At most
 * HELD_GRACE_MS. */
#define HELD_GRACE_MS 2000

static void answer_held(struct srv *s)
{
	long long until = srv_now_ms() + HELD_GRACE_MS;
	struct timespec tick = {0, 10 * 1000000L};
	size_t left;

	/* no connection may be suspended when a daemon stops */
	pthread_mutex_lock(&s->lock);
	srv_wake_waiters(s, true);
	left = s->held_out;
	pthread_mutex_unlock(&s->lock);
	while (left && srv_now_ms() < until) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&s->lock);
		left = s->held_out;
		pthread_mutex_unlock(&s->lock);
	}
}

void srv_http_stop(struct srv *s)
{
	answer_held(s);
	/* MHD closes the listening sockets it was given. */
	if (s->tcp_d)
		MHD_stop_daemon(s->tcp_d);
	s->tcp_d = NULL;
	if (s->unix_d) {
		MHD_stop_daemon(s->unix_d);
		unlink(s->sock_path);
	}
	s->unix_d = NULL;
	/* after the socket: its requests start this one */
	if (s->web_d)
		MHD_stop_daemon(s->web_d);
	s->web_d = NULL;
}
