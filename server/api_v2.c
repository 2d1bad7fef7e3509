/* api_v2.c - the local cluster's OpenPAI v1.x REST API (/api/v2), beside
 * the v1 API of http.c, over the same jobs: a job of either format is
 * seen on both. Answers as openpai-v1x-behaviour.md says the v1.8.0
 * rest-server does, where a local cluster can: status codes and bodies,
 * role names as framework names, ports as strings, STOPPING, and task
 * logs through locations whose tokens live two minutes, served under
 * /log-manager/ as a node's log-manager serves them. Not here: tags,
 * events, job attempts, virtual-cluster and user routes. */
#include "http_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* How long a log location's token is good for (log-manager's default). */
#define LOG_TOKEN_MS (120 * 1000)
#define LOG_TOKENS 256

/* Tokens handed out with log locations: a ring, under the server's lock. */
static struct log_token {
	char token[33];
	char key[300]; /* the job's user~name */
	long long expires;
} log_tokens[LOG_TOKENS];
static size_t next_log_token;

/* A role's framework name in out (convertName() of the rest-server). */
static void framework_name(char *out, size_t len, const char *role)
{
	char *fw = pai_role_framework_name(role);

	snprintf(out, len, "%s", fw ? fw : "");
	free(fw);
}

/* The job of "user~name", under the lock (NULL: none). */
static struct srv_job *find(struct srv *s, const char *ref)
{
	const char *tilde = strchr(ref, '~');
	char user[256];

	if (!tilde || (size_t)(tilde - ref) >= sizeof(user))
		return NULL;
	memcpy(user, ref, (size_t)(tilde - ref));
	user[tilde - ref] = '\0';
	return srv_find_job(s, user, tilde + 1);
}

static enum MHD_Result no_job(struct MHD_Connection *c, const char *ref)
{
	return h_reply_error(c, 404, "NoJobError", "Job %s is not found.", ref);
}

/* ---- submission ------------------------------------------------------- */

/* The first error of diags, as one line. */
static void first_error(char *out, size_t len, const pai_diags *diags)
{
	size_t i;

	snprintf(out, len, "invalid protocol");
	for (i = 0; i < pai_diags_count(diags); i++) {
		const pai_diag *d = pai_diags_get(diags, i);

		if (d->severity == PAI_SEVERITY_ERROR) {
			snprintf(out, len, "%s: %s [%s]", d->path, d->message,
				 d->rule);
			return;
		}
	}
}

/* A refusal as v1.x words it: YAML and template errors come out of the
 * rest-server's handler as 500s without a code. */
static enum MHD_Result refuse(struct MHD_Connection *c, int err,
			      const pai_diags *diags)
{
	const pai_diag *d = pai_diags_count(diags) ? pai_diags_get(diags, 0)
						   : NULL;
	char msg[600];

	if (err == PAI_ESYNTAX || (d && strncmp(d->rule, "yaml", 4) == 0)) {
		snprintf(msg, sizeof(msg), "%s at line %u, column %u",
			 d ? d->message : "bad YAML", d ? d->line : 0,
			 d ? d->column : 0);
		return h_reply_json(c, 500, json_pack("{s:s}", "message", msg));
	}
	first_error(msg, sizeof(msg), diags);
	return h_reply_error(c, 400, "InvalidProtocolError", "%s", msg);
}

static enum MHD_Result store(struct srv *s, struct MHD_Connection *c,
			     struct req *rq, pai_job *pj, const char *user)
{
	struct srv_job *j = NULL;
	enum MHD_Result res;
	const char *vc;
	json_t *ok;
	int err;

	if (srv_job_from_pai(&j, pj, user) < 0) {
		pai_job_free(pj);
		return h_reply_error(c, 400, "InvalidProtocolError",
				     "the job cannot run here (at most 1000 "
				     "tasks per role and 100 ports per "
				     "label)");
	}
	vc = json_string_value(json_object_get(
	    json_object_get(pai_job_config(pj), "defaults"), "virtualCluster"));
	if (vc && strcmp(vc, "default") != 0) {
		/* v1.8 says so even of one that does not exist */
		res = h_reply_error(c, 403, "ForbiddenUserError",
				    "User %s is not allowed to do operation "
				    "in %s",
				    user, vc);
		srv_job_free(j);
		pai_job_free(pj);
		return res;
	}
	j->pj = pj;
	srv_note_job(s, j); /* what this machine does not give it */
	/* the answer made before the job is handed to the runner, which
	 * may end and free it (and pj) before srv_add_job returns */
	ok = json_pack("{s:i,s:s+++}", "status", 202, "message", "Update job ",
		       pai_job_name(pj), " for user ", user);
	err = srv_add_job(s, j, rq->body, rq->len);
	if (err == 0)
		return h_reply_json(c, 202, ok);
	json_decref(ok);
	res = err == 1 ? h_reply_error(c, 409, "ConflictJobError",
				       "Job %s already exists.", j->key)
		       : h_reply_error(c, 500, "UnknownError",
				       "cannot store the job");
	srv_job_free(j);
	return res;
}

static enum MHD_Result submit(struct listener *l, struct MHD_Connection *c,
			      struct req *rq)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	const char *type = MHD_lookup_connection_value(
	    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	pai_diags *diags = NULL;
	pai_job *pj = NULL;
	enum MHD_Result res = MHD_NO;
	char *user = h_v2_caller(l, c, &res);
	int err;

	if (!user)
		return res;
	if (!type || strncasecmp(type, "text/", 5) != 0 || !rq->len) {
		/* the body is then an object, which js-yaml reads as the
		 * text "[object Object]" */
		free(user);
		return h_reply_error(c, 400, "InvalidProtocolError",
				     "[{\"keyword\":\"type\",\"dataPath\":\"\","
				     "\"message\":\"should be object\"}]");
	}
	if (pai_diags_new(&diags) != PAI_OK) {
		free(user);
		return MHD_NO;
	}
	jo.format = PAI_FORMAT_V2;
	err = pai_job_parse(&pj, diags, "job.yaml", rq->body, rq->len, &jo);
	if (err == PAI_ESYNTAX || err == PAI_EINVALID)
		res = refuse(c, err, diags);
	else if (err)
		res = h_reply_error(c, 500, "UnknownError", "%s",
				    pai_strerror(err));
	else
		res = store(l->s, c, rq, pj, user);
	pai_diags_free(diags);
	free(user);
	return res;
}

/* ---- the list and the status --------------------------------------------- */

static const char *v2_state(const struct srv_job *j)
{
	if (j->state == ST_RUNNING && j->stop)
		return "STOPPING";
	return srv_state_name(j->state);
}

static json_t *summary(const struct srv_job *j)
{
	json_t *o = h_job_summary(j);

	json_object_set_new(o, "debugId", json_string(j->key));
	json_object_set_new(o, "state", json_string(v2_state(j)));
	json_object_set_new(o, "tags", json_array());
	json_object_set_new(o, "submissionTime", json_integer(j->created));
	json_object_set_new(o, "launchedTime", j->launched
						   ? json_integer(j->launched)
						   : json_null());
	json_object_set_new(o, "jobPriority", json_string("default"));
	return o;
}

static bool listed(const struct srv_job *j, const char *user,
		   const char *state)
{
	if (user && strcmp(j->user, user) != 0)
		return false;
	return !state || strstr(state, v2_state(j)) != NULL;
}

static enum MHD_Result list(struct srv *s, struct MHD_Connection *c)
{
	const char *user = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						       "username");
	const char *state = MHD_lookup_connection_value(
	    c, MHD_GET_ARGUMENT_KIND, "state");
	const char *lim = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						      "limit");
	long limit = lim ? strtol(lim, NULL, 10) : 5000;
	json_t *a = json_array();
	size_t i;

	if (limit > 50000) {
		json_decref(a);
		return h_reply_error(c, 400, "InvalidParametersError",
				     "Limit exceeds max number 50000.");
	}
	pthread_mutex_lock(&s->lock);
	/* newest first, as submissionTime,DESC */
	for (i = s->njobs; a && i-- > 0 && (long)json_array_size(a) < limit;)
		if (listed(s->jobs[i], user, state))
			json_array_append_new(a, summary(s->jobs[i]));
	pthread_mutex_unlock(&s->lock);
	return h_reply_json(c, 200, a);
}

/* v1's status of j, as v1.x shows it: framework role names, STOPPING,
 * each task's log as the rest-server path of its log locations. */
static json_t *detail(const struct srv_job *j, const char *host)
{
	json_t *o = h_job_detail(j, host), *roles = json_object(), *r, *t;
	const char *name;
	char fw[256];
	size_t i;

	if (!o || !roles) {
		json_decref(o);
		json_decref(roles);
		return NULL;
	}
	json_object_set_new(o, "debugId", json_string(j->key));
	json_object_set_new(o, "tags", json_array());
	json_object_set_new(json_object_get(o, "jobStatus"), "state",
			    json_string(v2_state(j)));
	json_object_foreach(json_object_get(o, "taskRoles"), name, r)
	{
		framework_name(fw, sizeof(fw), name);
		json_array_foreach(json_object_get(r, "taskStatuses"), i, t)
		{
			if (json_is_null(json_object_get(t, "containerLog")))
				continue;
			json_object_set_new(
			    t, "containerLog",
			    json_sprintf("/api/v2/jobs/%s/attempts/0/"
					 "taskRoles/%s/taskIndex/%zu/"
					 "attempts/0/logs",
					 j->key, fw, i));
		}
		json_object_set(roles, fw, r);
	}
	json_object_set_new(o, "taskRoles", roles);
	return o;
}

/* The status, or (?wait=MS&since=ETAG) the status once it changed:
 * wait.c. */
static enum MHD_Result status(struct srv *s, struct MHD_Connection *c,
			      struct req *rq, const char *ref)
{
	struct srv_job *j;
	enum MHD_Result res;

	pthread_mutex_lock(&s->lock);
	j = find(s, ref);
	/* v1.x has no ssh info route: a running job's tasks take SSH
	 * logins (the keys of its ssh plugin) from the start */
	if (j && j->state == ST_RUNNING && !j->no_ssh)
		srv_ssh_enable(s, j);
	if (j && h_wait_hold(s, c, rq, j))
		res = MHD_YES;
	else
		res = j ? h_reply_job(c, j, detail(j, h_conn_host(c)))
			: no_job(c, ref);
	pthread_mutex_unlock(&s->lock);
	return res;
}

/* The stored config, read again, its secrets masked: JSON text sent as
 * text/yaml, as v1.x does. */
static enum MHD_Result config(struct srv *s, struct MHD_Connection *c,
			      const char *ref)
{
	struct srv_job *j;
	pai_diags *diags = NULL;
	pai_job *pj = NULL;
	char *path = NULL, *text = NULL, *out = NULL;
	size_t len = 0;
	json_t *cfg;

	pthread_mutex_lock(&s->lock);
	j = find(s, ref);
	if (j)
		path = srv_printf("%s/config.json", j->dir);
	pthread_mutex_unlock(&s->lock);
	if (!j)
		return no_job(c, ref);
	if (path && pai_file_read(&text, &len, NULL, path) == PAI_OK &&
	    pai_diags_new(&diags) == PAI_OK &&
	    pai_job_parse(&pj, diags, "config", text, len, NULL) == PAI_OK &&
	    (cfg = json_deep_copy(pai_job_config(pj)))) {
		if (json_object_get(cfg, "secrets"))
			json_object_set_new(cfg, "secrets",
					    json_string("******"));
		out = json_dumps(cfg, JSON_COMPACT);
		json_decref(cfg);
	}
	pai_job_free(pj);
	pai_diags_free(diags);
	free(text);
	free(path);
	if (!out)
		return h_reply_error(c, 404, "NoJobConfigError",
				     "Config of job %s is not found.", ref);
	return h_reply_raw(c, 200, "text/yaml; charset=utf-8", out,
			   strlen(out));
}

static enum MHD_Result execute(struct listener *l, struct MHD_Connection *c,
			       struct req *rq, const char *ref)
{
	struct srv *s = l->s;
	json_t *body = rq->len ? json_loadb(rq->body, rq->len, 0, NULL) : NULL;
	char *form = body ? NULL : h_form_value(rq->body, rq->len, "value");
	const char *v =
	    body ? json_string_value(json_object_get(body, "value")) : form;
	enum MHD_Result res = MHD_NO;
	char *user = h_v2_caller(l, c, &res);
	struct srv_job *j;

	if (!user)
		goto out;
	if (!v || (strcmp(v, "START") != 0 && strcmp(v, "STOP") != 0)) {
		res = h_reply_error(c, 400, "InvalidParametersError",
				    "child \"value\" fails because [\"value\" "
				    "must be one of [START, STOP]]");
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	j = find(s, ref);
	if (!j)
		res = no_job(c, ref);
	else if (l->tcp && strcmp(j->user, user) != 0)
		res = h_reply_error(c, 403, "ForbiddenUserError",
				    "User %s is not allowed to do operation "
				    "on job %s",
				    user, ref);
	else {
		if (strcmp(v, "STOP") == 0) {
			srv_stop_job(s, j, "stopped by the user");
			srv_flush(s);
			srv_wake(s);
		}
		res = h_reply_json(c, 202,
				   json_pack("{s:i,s:s++}", "status", 202,
					     "message", "Execute job ", ref,
					     " successfully."));
	}
	pthread_mutex_unlock(&s->lock);
out:
	free(user);
	free(form);
	json_decref(body);
	return res;
}

/* ---- logs ----------------------------------------------------------------- */

/* A new token for j's logs, in out[33]; under the lock. */
static void log_token(const struct srv_job *j, char *out)
{
	struct log_token *t = &log_tokens[next_log_token++ % LOG_TOKENS];

	if (srv_random_hex(t->token, 16) < 0)
		t->token[0] = '\0';
	snprintf(t->key, sizeof(t->key), "%s", j->key);
	t->expires = srv_now_ms() + LOG_TOKEN_MS;
	memcpy(out, t->token, sizeof(t->token));
}

static bool log_token_ok(const char *token, const char *key)
{
	size_t i;

	for (i = 0; token && *token && i < LOG_TOKENS; i++)
		if (h_same_secret(log_tokens[i].token, token))
			return strcmp(log_tokens[i].key, key) == 0 &&
			       log_tokens[i].expires > srv_now_ms();
	return false;
}

/* The role whose framework name is fw, or j->nroles. */
static size_t role_of(const struct srv_job *j, const char *fw)
{
	char name[256];
	size_t r;

	for (r = 0; r < j->nroles; r++) {
		framework_name(name, sizeof(name), j->roles[r].name);
		if (strcmp(name, fw) == 0 || strcmp(j->roles[r].name, fw) == 0)
			return r;
	}
	return j->nroles;
}

static json_t *locations(const struct srv_job *j, size_t role, long index,
			 const char *host, bool tail)
{
	static const char *const names[] = {"runtime.log", "stderr", "all",
					    "init.log", "stdout"};
	static const char *const files[] = {"runtime.log", "user-stderr",
					    "user-all", "init.log",
					    "user-stdout"};
	json_t *a = json_array();
	char token[33];
	size_t k;

	log_token(j, token);
	for (k = 0; a && k < 5; k++)
		json_array_append_new(
		    a, json_pack("{s:s,s:o}", "name", names[k], "uri",
				 json_sprintf("/log-manager/%s/api/v1/logs/%s?"
					      "username=%s&framework-name=%s&"
					      "pod-uid=0.%ld&taskrole=%s&"
					      "token=%s%s",
					      host, files[k], j->user, j->key,
					      index, j->roles[role].name, token,
					      tail ? "&tail-mode=true" : "")));
	return json_pack("{s:o}", "locations", a);
}

/* seg: api v2 jobs REF attempts 0 taskRoles ROLE taskIndex I attempts 0
 * logs */
static enum MHD_Result log_locations(struct srv *s, struct MHD_Connection *c,
				     char **seg)
{
	const char *tm = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						     "tail-mode");
	struct srv_job *j;
	enum MHD_Result res;
	char *end;
	long index = strtol(seg[9], &end, 10);
	size_t role;
	bool started;

	pthread_mutex_lock(&s->lock);
	j = find(s, seg[3]);
	role = j ? role_of(j, seg[7]) : 0;
	if (!j || role >= j->nroles || *end || index < 0 ||
	    index >= j->roles[role].task_number || strcmp(seg[5], "0") != 0) {
		pthread_mutex_unlock(&s->lock);
		return h_reply_error(c, 500, "UnknownError",
				     "Failed to get log list");
	}
	started = strcmp(seg[11], "0") == 0 && j->state != ST_WAITING;
	res = started ? h_reply_json(c, 200,
				     locations(j, role, index, h_conn_host(c),
					       tm && strcmp(tm, "true") == 0))
		      : h_reply_error(c, 404, "NoTaskLogError",
				      "Log of task is not found.");
	pthread_mutex_unlock(&s->lock);
	return res;
}

/* v1.x's task detail from the task's v2 status t (detail()'s). */
static json_t *task_detail(const struct srv_job *j, const char *fw,
			   json_t *t)
{
	const char *state = json_string_value(json_object_get(t, "taskState"));
	json_int_t index = json_integer_value(json_object_get(t, "taskIndex"));
	json_t *attempt = json_pack(
	    "{s:i,s:s,s:O,s:O,s:s,s:O,s:O,s:O,s:n}", "attemptId", 0,
	    "attemptState", state ? state : "WAITING", "containerId",
	    json_object_get(t, "containerId"), "containerIp",
	    json_object_get(t, "containerIp"), "containerNodeName", "localhost",
	    "containerPorts", json_object_get(t, "containerPorts"),
	    "containerLog", json_object_get(t, "containerLog"),
	    "containerExitCode", json_object_get(t, "containerExitCode"),
	    "containerExitSpec");

	return json_pack("{s:s,s:s,s:i,s:s,s:I,s:o,s:s,s:i,s:[o]}", "username",
			 j->user, "jobName", j->name, "jobAttemptId", 0,
			 "taskRoleName", fw, "taskIndex", index, "taskUid",
			 json_sprintf("%s-%s-%" JSON_INTEGER_FORMAT, j->key, fw,
				      index),
			 "taskState", state ? state : "WAITING", "retries", 0,
			 "attempts", attempt);
}

/* seg: api v2 jobs REF attempts A taskRoles ROLE taskIndex I attempts */
static enum MHD_Result task(struct srv *s, struct MHD_Connection *c,
			    char **seg)
{
	struct srv_job *j;
	json_t *d = NULL, *t;
	char fw[256], *end;
	long index = strtol(seg[9], &end, 10);
	size_t role = 0;
	enum MHD_Result res;

	pthread_mutex_lock(&s->lock);
	j = find(s, seg[3]);
	if (j)
		role = role_of(j, seg[7]);
	if (j && role < j->nroles && !*end && index >= 0 &&
	    index < j->roles[role].task_number && strcmp(seg[5], "0") == 0) {
		framework_name(fw, sizeof(fw), j->roles[role].name);
		d = detail(j, h_conn_host(c));
	}
	t = json_array_get(
	    json_object_get(
		json_object_get(json_object_get(d, "taskRoles"), fw),
		"taskStatuses"),
	    (size_t)index);
	res = t ? h_reply_json(c, 200, task_detail(j, fw, t))
		: h_reply_error(c, 404, "NoJobError",
				"Task %s of job %s is not found.", seg[9],
				seg[3]);
	pthread_mutex_unlock(&s->lock);
	json_decref(d);
	return res;
}

/* The paictl file behind a log-manager file name, or NULL. */
static const char *local_file(const char *name)
{
	if (strcmp(name, "user-stdout") == 0)
		return "user.pai.stdout";
	if (strcmp(name, "user-stderr") == 0)
		return "user.pai.stderr";
	if (strcmp(name, "user-all") == 0)
		return "user.pai.all";
	if (strcmp(name, "runtime.log") == 0 || strcmp(name, "init.log") == 0)
		return "runtime.log"; /* none here: always empty */
	return NULL;
}

static const char *arg(struct MHD_Connection *c, const char *key)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

/* seg: log-manager HOST api v1 logs FILE */
enum MHD_Result h_log_manager(struct listener *l, struct MHD_Connection *c,
			      char **seg, size_t n)
{
	struct srv *s = l->s;
	const char *key = arg(c, "framework-name"), *role = arg(c, "taskrole"),
		   *pod = arg(c, "pod-uid"), *tm = arg(c, "tail-mode");
	const char *file = n == 6 ? local_file(seg[5]) : NULL;
	struct srv_job *j;
	char *path = NULL;
	bool ok, starting = false;
	size_t r;
	long index = pod && strncmp(pod, "0.", 2) == 0 ? atol(pod + 2) : -1;
	enum MHD_Result res;

	if (n != 6 || strcmp(seg[2], "api") != 0 || strcmp(seg[4], "logs"))
		return h_reply_raw(c, 404, "text/html", strdup(""), 0);
	pthread_mutex_lock(&s->lock);
	ok = key && log_token_ok(arg(c, "token"), key);
	j = ok ? find(s, key) : NULL;
	for (r = 0; j && file && role && r < j->nroles && !path; r++)
		if (strcmp(j->roles[r].name, role) == 0)
			path = h_log_path(j, j->attempt, r, index, file,
					  &starting);
	pthread_mutex_unlock(&s->lock);
	if (!ok)
		return h_reply_raw(c, 403, "text/html", strdup(""), 0);
	if (!file || !role || !pod)
		return h_reply_raw(c, 400, "text/html", strdup(""), 0);
	res = path ? h_serve_log(c, path, starting || !strcmp(file, "runtime.log"),
				 tm && strcmp(tm, "true") == 0
				     ? "bytes=-16384"
				     : MHD_lookup_connection_value(
					   c, MHD_HEADER_KIND, "Range"),
				 "application/octet-stream", true)
		   : h_reply_raw(c, 404, "text/html", strdup(""), 0);
	free(path);
	return res;
}

/* ---- routing -------------------------------------------------------------- */

/* As v1.8.0 answers (launcherType k8s: OpenPAI's JavaScript SDK and
 * web portal take it to mean the v2 routes, which these are), and what
 * this server is in a member of its own: paictl's version and its
 * extensions ("wait": the long-poll on a job, wait.c). */
static enum MHD_Result info(struct MHD_Connection *c)
{
	return h_reply_json(c, 200,
			    json_pack("{s:s,s:s,s:s,s:s,s:{s:s,s:[s]}}", "name",
				      "PAI RESTful API", "version", "v1.8.0",
				      "launcherType", "k8s", "authnMethod",
				      "basic", "paictl", "version", PAI_VERSION,
				      "extensions", "wait"));
}

static enum MHD_Result not_found(struct MHD_Connection *c, const char *url)
{
	return h_reply_error(c, 404, "NoApiError", "API %s is not found.", url);
}

/* /api/v2/jobs/REF[/...]: the job routes, the token checked first */
static enum MHD_Result job_route(struct listener *l, struct MHD_Connection *c,
				 char **seg, size_t n, bool get, bool put,
				 struct req *rq, const char *url)
{
	enum MHD_Result res = MHD_NO;
	char *who = h_v2_caller(l, c, &res);

	if (!who)
		return res;
	free(who);
	if (n == 4 && get)
		return status(l->s, c, rq, seg[3]);
	if (n == 5 && get && strcmp(seg[4], "config") == 0)
		return config(l->s, c, seg[3]);
	if (n == 5 && put && strcmp(seg[4], "executionType") == 0)
		return execute(l, c, rq, seg[3]);
	if (n == 5 && get && strcmp(seg[4], "ssh") == 0)
		return h_reply_error(c, 404, "NoJobSshInfoError",
				     "SSH info of job %s is not found.",
				     seg[3]);
	if (n == 11 && get && strcmp(seg[4], "attempts") == 0 &&
	    strcmp(seg[6], "taskRoles") == 0 &&
	    strcmp(seg[8], "taskIndex") == 0 && strcmp(seg[10], "attempts") == 0)
		return task(l->s, c, seg);
	if (n == 13 && get && strcmp(seg[4], "attempts") == 0 &&
	    strcmp(seg[6], "taskRoles") == 0 &&
	    strcmp(seg[8], "taskIndex") == 0 &&
	    strcmp(seg[10], "attempts") == 0 && strcmp(seg[12], "logs") == 0)
		return log_locations(l->s, c, seg);
	return not_found(c, url);
}

enum MHD_Result h_v2_route(struct listener *l, struct MHD_Connection *c,
			   char **seg, size_t n, const char *method,
			   const char *url, struct req *rq)
{
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	bool post = strcmp(method, "POST") == 0;
	bool put = strcmp(method, "PUT") == 0;
	enum MHD_Result res = MHD_NO;
	char *who;

	if (n == 2 && get)
		return h_reply_raw(c, 200, "text/html; charset=utf-8",
				   strdup("PAI RESTful API v2 (beta version)"),
				   strlen("PAI RESTful API v2 (beta version)"));
	if (n == 3 && get && strcmp(seg[2], "info") == 0)
		return info(c);
	if (n == 5 && post && strcmp(seg[2], "authn") == 0 &&
	    strcmp(seg[3], "basic") == 0 && strcmp(seg[4], "login") == 0)
		return h_post_token(l, c, rq);
	if (n == 3 && strcmp(seg[2], "jobs") == 0 && post)
		return submit(l, c, rq);
	if (n == 3 && strcmp(seg[2], "jobs") == 0 && get) {
		if (!(who = h_v2_caller(l, c, &res)))
			return res;
		free(who);
		return list(l->s, c);
	}
	if (n >= 4 && strcmp(seg[2], "jobs") == 0)
		return job_route(l, c, seg, n, get, put, rq, url);
	if ((n == 3 || n == 4) && get &&
	    strcmp(seg[2], "virtual-clusters") == 0)
		return h_v2_vcs(l, c, n == 4 ? seg[3] : NULL);
	if (n == 4 && get &&
	    (strcmp(seg[2], "users") == 0 || strcmp(seg[2], "user") == 0))
		return h_v2_user(l, c, seg[3]);
	return not_found(c, url);
}
