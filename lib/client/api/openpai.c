/* openpai.c - the operations OpenPAI's two REST APIs share, written once
 * over the routes and shapes a module gives (see openpai.h). */
#include "openpai.h"

#include <stdlib.h>
#include <string.h>

int pai__openpai_cluster_info(json_t **out, const struct pai__api *api,
			      pai_client *c)
{
	char *url = pai__url(c, api->openpai->info_path);
	int err;

	*out = NULL;
	if (!url)
		return pai__client_oom(c);
	err = pai__get_object(out, c, url);
	free(url);
	return err;
}

/* ---- login ------------------------------------------------------------- */

/* A login route's error: every 400 there is a refused login (no such
 * user, a wrong password, or one the server's validation refuses, such as
 * v0.17's and v1.x's InvalidParametersError for a password under 6
 * characters): PAI_EAUTH, the detail (status, code, message) staying the
 * server's. */
static int login_error(pai_client *c, int err)
{
	return err == PAI_EHTTP && c->status == 400 ? PAI_EAUTH : err;
}

int pai__openpai_login(char **token, const struct pai__api *api, pai_client *c,
		       const char *user, const char *password,
		       long expiration_s)
{
	/* the answer is the token: never traced */
	pai__request rq = {"POST", NULL, NULL, 0, "application/json",
			   NULL,   0,	 0,    1};
	pai__response rs = PAI__RESPONSE_INIT;
	json_t *body = json_pack("{s:s,s:s}", "username", user, "password",
				 password),
	       *answer = NULL;
	char *url = pai__url(c, api->openpai->login_path), *text = NULL;
	const char *t;
	int err;

	*token = NULL;
	if (body && expiration_s > 0)
		json_object_set_new(body, "expiration",
				    json_integer(expiration_s));
	text = body ? pai__json_dumps_secret(body, JSON_COMPACT) : NULL;
	if (!url || !text) {
		err = body ? pai__client_oom(c)
			   : pai__client_fail(c, PAI_EINVAL, 0, NULL,
					      "the user name or password is "
					      "not UTF-8");
		goto out;
	}
	rq.url = url;
	rq.body = text;
	rq.body_len = strlen(text);
	err = login_error(c, pai__exchange(c, &rq, &rs));
	if (err == PAI_OK)
		err = pai__response_json(&answer, c, &rq, &rs);
	t = pai__json_str(answer, "token");
	if (err == PAI_OK && (!t || !*t))
		err = pai__client_fail(c, PAI_EPROTOCOL, rs.status, NULL,
				       "POST %s: the answer has no token", url);
	if (err == PAI_OK && !(*token = strdup(t)))
		err = pai__client_oom(c);
out:
	pai__free_secret(text); /* the password */
	free(url);
	pai__json_wipe_str(body, "password");
	pai__json_wipe_str(answer, "token");
	json_decref(body);
	json_decref(answer);
	pai__response_release(&rs);
	return err;
}

/* ---- submission ------------------------------------------------------- */

int pai__openpai_submit_request(pai__submit_rq *rq, const struct pai__api *api,
				pai_client *c, const char *user, json_t *config)
{
	const struct pai__openpai *o = api->openpai;

	memset(rq, 0, sizeof(*rq));
	rq->content_type = o->submit_type;
	if (!(rq->url = o->submit_url(c, user)) ||
	    o->submit_body(&rq->body, &rq->len, config) != PAI_OK) {
		pai__submit_rq_release(rq);
		return pai__client_oom(c);
	}
	return PAI_OK;
}

int pai__openpai_post_job(const struct pai__api *api, pai_client *c,
			  const pai__submit_rq *sub, int *maybe_created)
{
	pai__request rq = {
	    "POST", sub->url, sub->body, sub->len, sub->content_type,
	    NULL,   0,	      0,	 0};
	pai__response rs = PAI__RESPONSE_INIT;
	int err, refused;

	*maybe_created = 0;
	err = pai__http(c, &rq, &rs);
	if (err != PAI_OK) {
		*maybe_created = rs.sent && err != PAI_ENOMEM;
		goto out;
	}
	err = pai__status_error(c, &rq, &rs);
	if (err == PAI_OK)
		goto out;
	refused =
	    api->openpai->refused ? api->openpai->refused(c, &rs) : PAI_OK;
	if (refused != PAI_OK)
		err = refused;
	else
		*maybe_created =
		    rs.status >= 500 || (err == PAI_ECONFLICT && rs.resent);
out:
	pai__response_release(&rs);
	return err;
}

int pai__openpai_stored_config(json_t **out, const struct pai__api *api,
			       pai_client *c, const char *user,
			       const char *name)
{
	char *text = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = pai__openpai_job_config(&text, &len, api, c, user, name)))
		return err;
	err = api->openpai->stored_config(out, c, name, text, len);
	free(text);
	return err;
}

/* ---- jobs --------------------------------------------------------------- */

int pai__openpai_job_get(pai_job_info **out, const struct pai__api *api,
			 pai_client *c, const char *user, const char *name)
{
	char *url = api->openpai->job_url(c, user, name, NULL);
	int err;

	*out = NULL;
	if (!url)
		return pai__client_oom(c);
	err = pai__openpai_status_at(out, api, c, url);
	free(url);
	return err;
}

int pai__openpai_status_at(pai_job_info **out, const struct pai__api *api,
			   pai_client *c, const char *url)
{
	pai_job_info *info = NULL;
	json_t *o = NULL;
	char *etag = NULL;
	int err;

	*out = NULL;
	if ((err = pai__get_json_etag(&o, &etag, c, url)))
		goto out;
	if (!(info = calloc(1, sizeof(*info)))) {
		err = pai__client_oom(c);
		goto out;
	}
	info->version = etag;
	etag = NULL;
	info->framework_names = api->openpai->framework_names;
	err = pai__status_parse(info, o);
	if (err == PAI_EPROTOCOL)
		err = pai__client_fail(c, err, 200, NULL,
				       "GET %s: not a job status", url);
	else if (err)
		err = pai__client_oom(c);
	if (err)
		goto out;
	*out = info;
	info = NULL;
out:
	pai_job_info_free(info);
	json_decref(o);
	free(etag);
	return err;
}

int pai__openpai_jobs_list(pai_job_list **out, const struct pai__api *api,
			   pai_client *c, const char *user)
{
	pai__buf b = PAI__BUF_INIT;
	json_t *a = NULL;
	char *url;
	size_t i;
	int err;

	*out = NULL;
	pai__buf_printf(&b, "%s%s", c->uri, api->openpai->jobs_path);
	if (user) {
		pai__buf_puts(&b, "?username=");
		pai__buf_put_escaped(&b, user);
	}
	if (!(url = pai__buf_detach(&b)))
		return pai__client_oom(c);
	if ((err = pai__get_json(&a, c, url)) == PAI_OK &&
	    (err = pai__status_list(out, c, url, a)) == PAI_OK)
		for (i = 0; i < (*out)->count; i++)
			(*out)->items[i].framework_names =
			    api->openpai->framework_names;
	free(url);
	return err;
}

int pai__openpai_job_config(char **text, size_t *len,
			    const struct pai__api *api, pai_client *c,
			    const char *user, const char *name)
{
	char *url = api->openpai->job_url(c, user, name, "/config");
	int err;

	*text = NULL;
	*len = 0;
	if (!url)
		return pai__client_oom(c);
	err = pai__get_text(text, len, c, url);
	free(url);
	return err;
}

int pai__openpai_job_call(const struct pai__api *api, pai_client *c,
			  const char *user, const char *name,
			  const char *suffix, const char *method,
			  const char *json_body, int safe)
{
	char *url = api->openpai->job_url(c, user, name, suffix);
	pai__request rq = {method,
			   url,
			   json_body,
			   json_body ? strlen(json_body) : 0,
			   json_body ? "application/json" : NULL,
			   NULL,
			   safe,
			   0,
			   0};
	pai__response rs = PAI__RESPONSE_INIT;
	int err;

	if (!url)
		return pai__client_oom(c);
	err = pai__exchange(c, &rq, &rs);
	pai__response_release(&rs);
	free(url);
	return err;
}

int pai__openpai_job_stop(const struct pai__api *api, pai_client *c,
			  const char *user, const char *name)
{
	/* idempotent: safe to retry */
	return pai__openpai_job_call(api, c, user, name, "/executionType",
				     "PUT", "{\"value\":\"STOP\"}", 1);
}
