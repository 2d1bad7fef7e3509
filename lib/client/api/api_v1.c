/* api_v1.c - OpenPAI v0.x's REST API (/api/v1): the only file that knows
 * its paths and JSON shapes. See openpai-rest-api-v1.md. */
#include "client/api.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

/* <base>/api/v1/user/USER/jobs[/NAME][SUFFIX], path segments escaped */
static char *job_url(pai_client *c, const char *user, const char *name,
		     const char *suffix)
{
	pai__buf b = PAI__BUF_INIT;

	pai__buf_printf(&b, "%s/api/v1/user/", c->uri);
	pai__buf_put_escaped(&b, user);
	pai__buf_puts(&b, "/jobs");
	if (name) {
		pai__buf_putc(&b, '/');
		pai__buf_put_escaped(&b, name);
	}
	if (suffix)
		pai__buf_puts(&b, suffix);
	return pai__buf_detach(&b);
}

static int oom(pai_client *c)
{
	return pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
}

static int v1_cluster_info(json_t **out, pai_client *c)
{
	pai__buf b = PAI__BUF_INIT;
	char *url;
	int err;

	*out = NULL;
	pai__buf_printf(&b, "%s/api/v1/", c->uri);
	if (!(url = pai__buf_detach(&b)))
		return oom(c);
	err = pai__get_json(out, c, url);
	if (err == PAI_OK && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		err = pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
				       "GET %s: expected a JSON object", url);
	}
	free(url);
	return err;
}

static int v1_login(char **token, pai_client *c, const char *user,
		  const char *password, long expiration_s)
{
	pai__request rq = {"POST", NULL, NULL, 0, "application/json", NULL, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	json_t *body = NULL, *answer = NULL;
	pai__buf b = PAI__BUF_INIT;
	char *url = NULL, *text = NULL;
	const char *t;
	int err;

	*token = NULL;
	pai__buf_printf(&b, "%s/api/v1/token", c->uri);
	body = json_pack("{s:s,s:s}", "username", user, "password", password);
	if (body && expiration_s > 0)
		json_object_set_new(body, "expiration",
				    json_integer(expiration_s));
	url = pai__buf_detach(&b);
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
	if (err != PAI_OK)
		goto out;
	t = json_string_value(json_object_get(answer, "token"));
	if (!t || !*t) {
		err = pai__client_fail(c, PAI_EPROTOCOL, rs.status, NULL,
				       "POST %s: the answer has no token", url);
		goto out;
	}
	if (!(*token = strdup(t)))
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

static int v1_submit_request(pai__submit_rq *rq, pai_client *c,
			     const char *user, json_t *config)
{
	(void)c;
	memset(rq, 0, sizeof(*rq));
	rq->content_type = "application/json";
	if (!(rq->url = job_url(c, user, NULL, NULL)) ||
	    !(rq->body = pai__json_dumps(config, JSON_COMPACT))) {
		pai__submit_rq_release(rq);
		return oom(c);
	}
	rq->len = strlen(rq->body);
	return PAI_OK;
}

static int v1_post_job(pai_client *c, const pai__submit_rq *sub,
		       int *maybe_created)
{
	pai__request rq = {"POST", sub->url, sub->body, sub->len,
			   sub->content_type, NULL, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	int err;

	*maybe_created = 0;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK) {
		err = pai__status_error(c, &rq, &rs);
		*maybe_created =
		    err != PAI_OK &&
		    (rs.status >= 500 || (err == PAI_ECONFLICT && rs.resent));
	} else
		*maybe_created = rs.sent && err != PAI_ENOMEM;
	pai__response_release(&rs);
	return err;
}

static int v1_job_get(pai_job_info **out, pai_client *c, const char *user,
		      const char *name)
{
	return pai__fetch_status(out, c, job_url(c, user, name, NULL), 0);
}

static int v1_jobs_list(pai_job_list **out, pai_client *c, const char *user)
{
	return pai__fetch_list(out, c, pai__jobs_url(c, "v1", user), 0);
}

static int v1_job_config(char **text, size_t *len, pai_client *c,
			 const char *user, const char *name)
{
	return pai__fetch_text(text, len, c, job_url(c, user, name, "/config"));
}

static int v1_job_stop(pai_client *c, const char *user, const char *name)
{
	return pai__put_stop(c, job_url(c, user, name, "/executionType"));
}

static int v1_job_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		    const char *name)
{
	pai_ssh_info *info = NULL;
	json_t *o = NULL, *cs, *e, *kp;
	char *url = job_url(c, user, name, "/ssh");
	size_t i;
	int err;

	*out = NULL;
	if (!url)
		return oom(c);
	if ((err = pai__get_json(&o, c, url)))
		goto out;
	cs = json_object_get(o, "containers");
	if (!json_is_object(o) || (cs && !json_is_array(cs))) {
		err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
				       "GET %s: not a job's SSH info", url);
		goto out;
	}
	if (!(info = calloc(1, sizeof(*info))) ||
	    (json_array_size(cs) &&
	     !(info->containers =
		   calloc(json_array_size(cs), sizeof(*info->containers))))) {
		err = oom(c);
		goto out;
	}
	info->json = o;
	o = NULL;
	json_array_foreach(cs, i, e)
	{
		pai_ssh_container *sc = &info->containers[info->count];
		long long port = 0;

		if (!json_is_object(e))
			continue;
		sc->id = pai__json_str(e, "id");
		sc->ip = pai__json_str(e, "sshIp");
		pai__json_integer(json_object_get(e, "sshPort"), &port);
		sc->port = (long)port;
		info->count++;
	}
	kp = json_object_get(info->json, "keyPair");
	info->key_url = pai__json_str(kp, "privateKeyDirectDownloadLink");
	info->key_name = pai__json_str(kp, "privateKeyFileName");
	*out = info;
	info = NULL;
out:
	pai_ssh_info_free(info);
	json_decref(o);
	free(url);
	return err;
}

/* The stored config: JSON text, or (older servers) that text as a JSON
 * string. */
static int v1_stored_config(json_t **out, pai_client *c, const char *user,
			    const char *name)
{
	char *text = NULL;
	size_t len = 0;
	json_t *stored;
	int err;

	*out = NULL;
	if ((err = v1_job_config(&text, &len, c, user, name)))
		return err;
	stored = json_loadb(text, len, JSON_DECODE_ANY, NULL);
	if (json_is_string(stored)) {
		json_t *inner = json_loads(json_string_value(stored), 0, NULL);

		json_decref(stored);
		stored = inner;
	}
	free(text);
	if (!json_is_object(stored)) {
		json_decref(stored);
		return pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
					"the stored config of '%s' is not "
					"JSON",
					name);
	}
	*out = stored;
	return PAI_OK;
}

/* containerLog is a prefix: the file's name goes after it. */
static int v1_task_log_url(char **url, pai_client *c, const pai_job_info *job,
			   const pai_task_info *task, const char *stream,
			   int tail)
{
	(void)job;
	(void)tail;
	*url = NULL;
	if (!task->log_url)
		return pai__client_fail(c, PAI_ENOTFOUND, 0, NULL,
					"task %s:%ld has no log yet",
					task->role ? task->role : "?",
					task->index);
	if (asprintf(url, "%suser.pai.%s", task->log_url, stream) < 0) {
		*url = NULL;
		return oom(c);
	}
	return PAI_OK;
}

const struct pai__api pai__api_v1 = {
    PAI_API_V1,		 PAI_FORMAT_V1,	     v1_cluster_info,
    v1_login,		 v1_submit_request,  v1_post_job,
    v1_stored_config,	 v1_job_get,	     v1_jobs_list,
    v1_job_config,	 v1_job_stop,	     v1_job_ssh,
    v1_task_log_url};
