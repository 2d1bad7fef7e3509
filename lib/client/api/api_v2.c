/* api_v2.c - OpenPAI v1.x's REST API (/api/v2): its routes and shapes,
 * the only file that knows them, and the operations it does its own way
 * (SSH from the status, logs from the log-manager); the rest is
 * openpai.c's. See openpai-v1x-behaviour.md: the v1.8.0 rest-server's
 * code, which wins over its swagger file. */
#include "openpai.h"

#include "convert/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INFO "/api/v2/info"
#define JOBS "/api/v2/jobs"

/* <base>/api/v2/jobs/USER~NAME[SUFFIX], both names escaped */
static char *job_url(pai_client *c, const char *user, const char *name,
		     const char *suffix)
{
	pai__buf b = PAI__BUF_INIT;

	pai__buf_printf(&b, "%s" JOBS "/", c->uri);
	pai__buf_put_escaped(&b, user);
	pai__buf_putc(&b, '~');
	pai__buf_put_escaped(&b, name);
	if (suffix)
		pai__buf_puts(&b, suffix);
	return pai__buf_detach(&b);
}

/* ---- which API --------------------------------------------------------- */

/* v1.x's launcherType is k8s and its version v1.*; paictl's local
 * cluster answers so too (OpenPAI's own clients decide by it), and names
 * itself in a member of its own, "paictl" (before, its launcherType was
 * "paictl"); v0.x has no such route (404). */
static pai_api api_of(json_t *info)
{
	const char *lt = pai__json_str(info, "launcherType");
	const char *v = pai__json_str(info, "version");

	if (json_is_object(json_object_get(info, "paictl")) ||
	    (lt && strcmp(lt, "paictl") == 0))
		return PAI_API_DUAL;
	if (lt && strcmp(lt, "k8s") == 0 && v && strncmp(v, "v1.", 3) == 0)
		return PAI_API_V2;
	return PAI_API_V1;
}

int pai__v2_detect(pai_api *out, pai_client *c)
{
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1, 0, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	json_t *info = NULL;
	char *url;
	int err;

	*out = PAI_API_AUTO;
	if (!(url = pai__url(c, INFO)))
		return pai__client_oom(c);
	rq.url = url;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK && rs.status == 404)
		*out = PAI_API_V1;
	else if (err == PAI_OK &&
		 (err = pai__status_error(c, &rq, &rs)) == PAI_OK) {
		info = json_loadb(rs.body.data ? rs.body.data : "", rs.body.len,
				  0, NULL);
		*out = api_of(info);
		if (*out == PAI_API_DUAL)
			pai__local_note_info(c, info);
	}
	json_decref(info);
	pai__response_release(&rs);
	free(url);
	return err;
}

/* ---- submission --------------------------------------------------------- */

static char *submit_url(pai_client *c, const char *user)
{
	(void)user; /* the token says who */
	return pai__url(c, JOBS);
}

static int submit_body(char **body, size_t *len, json_t *config)
{
	pai__buf b = PAI__BUF_INIT;

	*body = NULL;
	*len = 0;
	if (pai__yaml_emit(&b, config, NULL) != PAI_OK || b.oom) {
		pai__buf_release(&b);
		return PAI_ENOMEM;
	}
	*len = b.len;
	*body = pai__buf_detach(&b);
	return *body ? PAI_OK : PAI_ENOMEM;
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
			pai__buf_printf(
			    &b, "%s: ", path[0] == '.' ? path + 1 : path);
		pai__buf_puts(&b, m ? m : "invalid");
	}
	json_decref(list);
	return pai__buf_detach(&b);
}

/* What the server said no to before storing anything: the protocol
 * (400), the YAML or template errors its handler meets as 500s without
 * a code (js-yaml's and mustache's exceptions), and a body over its
 * limit (413). */
static int refused(pai_client *c, const pai__response *rs)
{
	const char *m = c->err_msg;
	char *text;

	if (c->status == 400 && c->err_code &&
	    strcmp(c->err_code, "InvalidProtocolError") == 0) {
		text = m ? ajv_text(m) : NULL;
		if (text)
			pai__client_fail(c, PAI_EINVALID, 400,
					 "InvalidProtocolError", "%s", text);
		free(text);
		c->status = 400;
		return PAI_EINVALID;
	}
	if (c->status == 500 && !c->err_code && m && rs->body.len &&
	    (strstr(m, " at line ") || strncmp(m, "Unclosed tag", 12) == 0))
		return PAI_EINVALID;
	return rs->status == 413 ? PAI_ETOOBIG : PAI_OK;
}

/* The stored config: YAML (the real server sends JSON text, which is
 * YAML too), its secrets masked by the server. */
static int stored_config(json_t **out, pai_client *c, const char *name,
			 const char *text, size_t len)
{
	pai_diags *diags = NULL;
	pai__src src;
	pai__pos pos;
	json_t *root = NULL;
	int err;

	*out = NULL;
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
		pai__client_oom(c);
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	pai_diags_free(diags);
	return err;
}

static const struct pai__openpai routes = {
    .info_path = INFO,
    .login_path = "/api/v2/authn/basic/login",
    .jobs_path = JOBS,
    .job_url = job_url,
    .submit_url = submit_url,
    .framework_names = 1,
    .submit_type = "text/yaml",
    .submit_body = submit_body,
    .stored_config = stored_config,
    .refused = refused,
};

/* ---- SSH: no job keys, no ssh info route; the status says where ------- */

/* The first port of the "ssh" label ("23456" or "1,2"), or 0. */
static long ssh_port(const pai_task_info *t)
{
	const char *p = json_string_value(json_object_get(t->ports, "ssh"));

	return p ? strtol(p, NULL, 10) : 0;
}

static int v2_job_ssh(pai_ssh_info **out, const struct pai__api *api,
		      pai_client *c, const char *user, const char *name)
{
	pai_job_info *job = NULL;
	pai_ssh_info *info = NULL;
	json_t *cs;
	size_t i;
	int err;

	*out = NULL;
	if ((err = api->job_get(&job, api, c, user, name)))
		return err;
	if (!(info = calloc(1, sizeof(*info))) ||
	    !(info->json = json_pack("{s:[]}", "containers")) ||
	    (job->ntasks && !(info->containers = calloc(
				  job->ntasks, sizeof(*info->containers)))))
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
	return pai__client_oom(c);
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
	return *out ? PAI_OK : pai__client_oom(c);
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

static int v2_task_log_url(char **url, const struct pai__api *api,
			   pai_client *c, const pai_job_info *job,
			   const pai_task_info *task, const char *stream,
			   int tail)
{
	json_t *o = NULL, *l;
	char *lurl;
	size_t i;
	int err;

	(void)api;
	*url = NULL;
	if (!job->user || !job->name || !task->role)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a task log needs its job and role");
	if (!(lurl = locations_url(c, job, task, tail)))
		return pai__client_oom(c);
	err = pai__get_json(&o, c, lurl);
	/* 404 NoTaskLogError: not started; 500 "Failed to get log list":
	 * what getLogs answers for any other trouble (a job still in its
	 * mock state among them) */
	if (err == PAI_ENOTFOUND || (err == PAI_EHTTP && c->status == 500)) {
		char *why = strdup(c->err_msg ? c->err_msg : "no location");
		char *code = c->err_code ? strdup(c->err_code) : NULL;

		err = pai__client_fail(c, PAI_ENOTFOUND, c->status, code,
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
    .id = PAI_API_V2,
    .format = PAI_FORMAT_V2,
    .lanes = 1,
    .openpai = &routes,
    .cluster_info = pai__openpai_cluster_info,
    .login = pai__openpai_login,
    .submit_request = pai__openpai_submit_request,
    .post_job = pai__openpai_post_job,
    .stored_config = pai__openpai_stored_config,
    .job_get = pai__openpai_job_get,
    .jobs_list = pai__openpai_jobs_list,
    .job_config = pai__openpai_job_config,
    .job_stop = pai__openpai_job_stop,
    .job_ssh = v2_job_ssh,
    .task_log_url = v2_task_log_url,
};
