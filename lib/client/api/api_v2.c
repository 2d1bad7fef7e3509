/* api_v2.c - OpenPAI v1.x's REST API (/api/v2): the only file that knows
 * its paths and shapes. See openpai-v1x-behaviour.md: the v1.8.0
 * rest-server's code, which wins over its swagger file. */
#include "client/api.h"
#include "convert/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(pai_client *c)
{
	return pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
}

/* <base>/api/v2/jobs/USER~NAME[SUFFIX], both names escaped */
static char *job_url(pai_client *c, const char *user, const char *name,
		     const char *suffix)
{
	pai__buf b = PAI__BUF_INIT;

	pai__buf_printf(&b, "%s/api/v2/jobs/", c->uri);
	pai__buf_put_escaped(&b, user);
	pai__buf_putc(&b, '~');
	pai__buf_put_escaped(&b, name);
	if (suffix)
		pai__buf_puts(&b, suffix);
	return pai__buf_detach(&b);
}

/* ---- which API --------------------------------------------------------- */

/* v1.x's launcherType is k8s and its version v1.*; paictl's local
 * cluster says "paictl"; v0.x has no such route (404). */
static pai_api api_of(json_t *info)
{
	const char *lt = pai__json_str(info, "launcherType");
	const char *v = pai__json_str(info, "version");

	if (lt && strcmp(lt, "paictl") == 0)
		return PAI_API_DUAL;
	if (lt && strcmp(lt, "k8s") == 0 && v && strncmp(v, "v1.", 3) == 0)
		return PAI_API_V2;
	return PAI_API_V1;
}

int pai__v2_detect(pai_api *out, pai_client *c)
{
	pai__buf b = PAI__BUF_INIT;
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1};
	pai__response rs = PAI__RESPONSE_INIT;
	json_t *info = NULL;
	char *url;
	int err;

	*out = PAI_API_AUTO;
	pai__buf_printf(&b, "%s/api/v2/info", c->uri);
	if (!(url = pai__buf_detach(&b)))
		return oom(c);
	rq.url = url;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK && rs.status == 404)
		*out = PAI_API_V1;
	else if (err == PAI_OK && (err = pai__status_error(c, &rq, &rs)) ==
				      PAI_OK) {
		info = json_loadb(rs.body.data ? rs.body.data : "",
				  rs.body.len, 0, NULL);
		*out = api_of(info);
	}
	json_decref(info);
	pai__response_release(&rs);
	free(url);
	return err;
}

static int v2_cluster_info(json_t **out, pai_client *c)
{
	pai__buf b = PAI__BUF_INIT;
	char *url;
	int err;

	pai__buf_printf(&b, "%s/api/v2/info", c->uri);
	if (!(url = pai__buf_detach(&b)))
		return oom(c);
	err = pai__get_json(out, c, url);
	if (err == PAI_OK && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
				       "GET %s: expected a JSON object", url);
	}
	free(url);
	return err;
}

/* ---- login -------------------------------------------------------------- */

static int v2_login(char **token, pai_client *c, const char *user,
		    const char *password, long expiration_s)
{
	pai__request rq = {"POST", NULL, NULL, 0, "application/json", NULL, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	json_t *body = json_pack("{s:s,s:s}", "username", user, "password",
				 password),
	       *answer = NULL;
	pai__buf b = PAI__BUF_INIT;
	char *url, *text = NULL;
	const char *t;
	int err;

	*token = NULL;
	pai__buf_printf(&b, "%s/api/v2/authn/basic/login", c->uri);
	url = pai__buf_detach(&b);
	if (body && expiration_s > 0)
		json_object_set_new(body, "expiration",
				    json_integer(expiration_s));
	text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	if (!url || !text) {
		err = body ? oom(c)
			   : pai__client_fail(c, PAI_EINVAL, 0, NULL,
					      "the user name or password is "
					      "not UTF-8");
		goto out;
	}
	rq.url = url;
	rq.body = text;
	rq.body_len = strlen(text);
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK)
		err = pai__login_error(c, pai__status_error(c, &rq, &rs));
	if (err == PAI_OK)
		err = pai__response_json(&answer, c, &rq, &rs);
	t = pai__json_str(answer, "token");
	if (err == PAI_OK && (!t || !*t))
		err = pai__client_fail(c, PAI_EPROTOCOL, rs.status, NULL,
				       "POST %s: the answer has no token", url);
	if (err == PAI_OK && !(*token = strdup(t)))
		err = oom(c);
out:
	if (text)
		memset(text, 0, strlen(text)); /* the password */
	free(text);
	free(url);
	json_decref(body);
	json_decref(answer);
	pai__response_release(&rs);
	return err;
}

/* ---- submission --------------------------------------------------------- */

static int v2_submit_request(pai__submit_rq *rq, pai_client *c,
			     const char *user, json_t *config)
{
	pai__buf url = PAI__BUF_INIT, body = PAI__BUF_INIT;

	(void)user; /* the token says who */
	memset(rq, 0, sizeof(*rq));
	rq->content_type = "text/yaml";
	pai__buf_printf(&url, "%s/api/v2/jobs", c->uri);
	if (pai__yaml_emit(&body, config, NULL) != PAI_OK || body.oom ||
	    url.oom) {
		pai__buf_release(&url);
		pai__buf_release(&body);
		return oom(c);
	}
	rq->len = body.len;
	rq->url = pai__buf_detach(&url);
	rq->body = pai__buf_detach(&body);
	if (!rq->url || !rq->body) {
		pai__submit_rq_release(rq);
		return oom(c);
	}
	return PAI_OK;
}

/* ajv's error list (InvalidProtocolError's message) for people:
 * "name: should match pattern ...; taskRoles: ..." */
static char *ajv_text(const char *msg)
{
	json_t *list = json_loads(msg, 0, NULL), *e;
	pai__buf b = PAI__BUF_INIT;
	size_t i;

	if (!json_is_array(list)) {
		json_decref(list);
		return NULL;
	}
	json_array_foreach(list, i, e)
	{
		const char *path = pai__json_str(e, "dataPath");
		const char *m = pai__json_str(e, "message");

		if (i)
			pai__buf_puts(&b, "; ");
		if (path && *path)
			pai__buf_printf(&b, "%s: ",
					path[0] == '.' ? path + 1 : path);
		pai__buf_puts(&b, m ? m : "invalid");
	}
	json_decref(list);
	return pai__buf_detach(&b);
}

/* What the server said no to before storing anything: the protocol
 * (400), and the YAML or template errors its handler meets as 500s
 * without a code (js-yaml's and mustache's exceptions). */
static int refused(pai_client *c, const pai__response *rs)
{
	const char *m = c->err.msg;
	char *text;

	if (c->err.status == 400 && c->err.code &&
	    strcmp(c->err.code, "InvalidProtocolError") == 0) {
		text = m ? ajv_text(m) : NULL;
		if (text)
			pai__client_fail(c, PAI_EINVALID, 400,
					 "InvalidProtocolError", "%s", text);
		free(text);
		c->err.status = 400;
		return 1;
	}
	if (c->err.status == 500 && !c->err.code && m && rs->body.len &&
	    (strstr(m, " at line ") || strncmp(m, "Unclosed tag", 12) == 0))
		return 1;
	return 0;
}

static int v2_post_job(pai_client *c, const pai__submit_rq *sub,
		       int *maybe_created)
{
	pai__request rq = {"POST", sub->url, sub->body, sub->len,
			   sub->content_type, NULL, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	int err;

	*maybe_created = 0;
	err = pai__http(c, &rq, &rs);
	if (err != PAI_OK) {
		*maybe_created = rs.sent && err != PAI_ENOMEM;
		goto out;
	}
	err = pai__status_error(c, &rq, &rs);
	if (err == PAI_OK)
		goto out;
	if (refused(c, &rs))
		err = PAI_EINVALID;
	else if (rs.status == 413)
		err = PAI_ETOOBIG;
	else
		*maybe_created =
		    rs.status >= 500 || (err == PAI_ECONFLICT && rs.resent);
out:
	pai__response_release(&rs);
	return err;
}

/* The stored config: YAML (the real server sends JSON text, which is
 * YAML too), its secrets masked by the server. */
static int v2_stored_config(json_t **out, pai_client *c, const char *user,
			    const char *name)
{
	char *text = NULL;
	size_t len = 0;
	pai_diags *diags = NULL;
	pai__src src;
	pai__pos pos;
	json_t *root = NULL;
	int err;

	*out = NULL;
	if ((err = pai__api_v2.job_config(&text, &len, c, user, name)))
		return err;
	memset(&pos, 0, sizeof(pos));
	memset(&src, 0, sizeof(src));
	if ((err = pai_diags_new(&diags)) ||
	    (err = pai__src_init_yaml(&src, diags, "config", text, len)) ||
	    (err = pai__yaml_parse(&root, &pos, &src, diags)))
		goto out;
	if (!json_is_object(root)) {
		err = PAI_EPROTOCOL;
		goto out;
	}
	*out = root;
	root = NULL;
out:
	if (err && err != PAI_ENOMEM)
		err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
				       "the stored config of '%s' does not "
				       "read as YAML",
				       name);
	else if (err)
		oom(c);
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	pai_diags_free(diags);
	free(text);
	return err;
}

/* ---- jobs --------------------------------------------------------------- */

static int v2_job_get(pai_job_info **out, pai_client *c, const char *user,
		      const char *name)
{
	return pai__fetch_status(out, c, job_url(c, user, name, NULL), 1);
}

static int v2_jobs_list(pai_job_list **out, pai_client *c, const char *user)
{
	return pai__fetch_list(out, c, pai__jobs_url(c, "v2", user), 1);
}

static int v2_job_config(char **text, size_t *len, pai_client *c,
			 const char *user, const char *name)
{
	return pai__fetch_text(text, len, c, job_url(c, user, name, "/config"));
}

static int v2_job_stop(pai_client *c, const char *user, const char *name)
{
	return pai__put_stop(c, job_url(c, user, name, "/executionType"));
}

/* ---- SSH: no job keys, no ssh info route; the status says where ------- */

/* The first port of the "ssh" label ("23456" or "1,2"), or 0. */
static long ssh_port(const pai_task_info *t)
{
	const char *p = json_string_value(json_object_get(t->ports, "ssh"));

	return p ? strtol(p, NULL, 10) : 0;
}

static int v2_job_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		      const char *name)
{
	pai_job_info *job = NULL;
	pai_ssh_info *info = NULL;
	json_t *cs;
	size_t i;
	int err;

	*out = NULL;
	if ((err = v2_job_get(&job, c, user, name)))
		return err;
	if (!(info = calloc(1, sizeof(*info))) ||
	    !(info->json = json_pack("{s:[]}", "containers")) ||
	    (job->ntasks &&
	     !(info->containers = calloc(job->ntasks, sizeof(*info->containers)))))
		goto nomem;
	cs = json_object_get(info->json, "containers");
	for (i = 0; i < job->ntasks; i++) {
		const pai_task_info *t = &job->tasks[i];
		long port = ssh_port(t);
		json_t *e;

		if (!t->ip || !t->container_id || port <= 0)
			continue;
		e = json_pack("{s:s,s:s,s:i}", "id", t->container_id, "sshIp",
			      t->ip, "sshPort", (json_int_t)port);
		if (!e || json_array_append_new(cs, e) < 0)
			goto nomem;
		info->containers[info->count].id = pai__json_str(e, "id");
		info->containers[info->count].ip = pai__json_str(e, "sshIp");
		info->containers[info->count++].port = port;
	}
	*out = info;
	pai_job_info_free(job);
	return PAI_OK;
nomem:
	pai_ssh_info_free(info);
	pai_job_info_free(job);
	return oom(c);
}

/* ---- logs: locations from the rest-server, files from log-managers ----- */

/* The location's name for a stream. */
static const char *location_name(const char *stream)
{
	return strcmp(stream, "all") == 0 ? "all" : stream;
}

/* uri (a path on pylon's host) against the origin of the REST base. */
static int resolve(char **out, pai_client *c, const char *uri)
{
	char *origin = NULL;

	*out = NULL;
	if (strncmp(uri, "http://", 7) == 0 || strncmp(uri, "https://", 8) == 0)
		*out = strdup(uri);
	else if (pai__url_origin(&origin, c->uri) == PAI_OK &&
		 asprintf(out, "%s%s%s", origin, uri[0] == '/' ? "" : "/",
			  uri) < 0)
		*out = NULL;
	free(origin);
	return *out ? PAI_OK : oom(c);
}

static char *locations_url(pai_client *c, const pai_job_info *job,
			   const pai_task_info *t, int tail)
{
	pai__buf b = PAI__BUF_INIT;

	if (t->log_url && t->log_url[0] == '/')
		pai__buf_printf(&b, "%s%s", c->uri, t->log_url);
	else {
		char *u = job_url(c, job->user, job->name, NULL);

		if (!u)
			return NULL;
		pai__buf_puts(&b, u);
		free(u);
		pai__buf_puts(&b, "/attempts/0/taskRoles/");
		pai__buf_put_escaped(&b, t->role);
		pai__buf_printf(&b, "/taskIndex/%ld/attempts/0/logs", t->index);
	}
	if (tail)
		pai__buf_puts(&b, strchr(b.data ? b.data : "", '?')
				      ? "&tail-mode=true"
				      : "?tail-mode=true");
	return pai__buf_detach(&b);
}

static int v2_task_log_url(char **url, pai_client *c, const pai_job_info *job,
			   const pai_task_info *task, const char *stream,
			   int tail)
{
	json_t *o = NULL, *l;
	char *lurl;
	size_t i;
	int err;

	*url = NULL;
	if (!job->user || !job->name || !task->role)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a task log needs its job and role");
	if (!(lurl = locations_url(c, job, task, tail)))
		return oom(c);
	err = pai__get_json(&o, c, lurl);
	/* 404 NoTaskLogError: not started; 500 "Failed to get log list":
	 * what getLogs answers for any other trouble (a job still in its
	 * mock state among them) */
	if (err == PAI_ENOTFOUND || (err == PAI_EHTTP && c->err.status == 500)) {
		char *why = strdup(c->err.msg ? c->err.msg : "no location");
		char *code = c->err.code ? strdup(c->err.code) : NULL;

		err = pai__client_fail(c, PAI_ENOTFOUND, c->err.status, code,
				       "task %s-%ld has no log yet (%s)",
				       task->role, task->index,
				       why ? why : "no location");
		free(why);
		free(code);
	}
	json_array_foreach(json_object_get(o, "locations"), i, l)
	{
		const char *name = pai__json_str(l, "name");
		const char *uri = pai__json_str(l, "uri");

		if (!err && name && uri &&
		    strcmp(name, location_name(stream)) == 0) {
			err = resolve(url, c, uri);
			break;
		}
	}
	if (!err && !*url)
		err = pai__client_fail(c, PAI_ENOTFOUND, 200, NULL,
				       "the cluster gives no %s log for task "
				       "%s-%ld",
				       stream, task->role, task->index);
	json_decref(o);
	free(lurl);
	return err;
}

const struct pai__api pai__api_v2 = {
    PAI_API_V2,		 PAI_FORMAT_V2,	     v2_cluster_info,
    v2_login,		 v2_submit_request,  v2_post_job,
    v2_stored_config,	 v2_job_get,	     v2_jobs_list,
    v2_job_config,	 v2_job_stop,	     v2_job_ssh,
    v2_task_log_url};
