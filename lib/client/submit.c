/* submit.c - one submission: the config in the cluster's format, sent
 * once, and a lost answer resolved by asking for the job, never by
 * sending blindly again */
#include "api.h"
#include "job/job.h" /* pai__config_is_v2 */

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The API module a config goes through, and the format it goes in: the
 * module's, but paictl's local cluster (dual) takes either format on
 * its v1 route and runs each as its own kind of cluster would, and a
 * module of format AUTO (Kubernetes) takes either. */
static int api_for(const struct pai__api **out, pai_format *to, pai_client *c,
		   pai_format fmt)
{
	int err = pai__client_api(c, out);

	if (err == PAI_OK)
		*to =
		    c->api == PAI_API_DUAL || (*out)->format == PAI_FORMAT_AUTO
			? fmt
			: (*out)->format;
	return err;
}

/* config (format from) as a new config in format `to`, by the rules of
 * pai_job_convert(). */
static int convert(json_t **out, pai_client *c, json_t *config,
		   const pai_submit_options *o, pai_format to)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	const char *name = o->source_name ? o->source_name : "<config>";
	pai_diags *diags = o->diags, *own = NULL;
	char *text = pai__json_dumps(config, JSON_INDENT(2)), *conv = NULL;
	size_t len = 0;
	pai_job *job = NULL;
	int err;

	*out = NULL;
	if (!text)
		return pai__client_oom(c);
	if (!diags && (err = pai_diags_new(&own)))
		goto out;
	jo.dialect = o->dialect;
	jo.format = pai__config_is_v2(config) ? PAI_FORMAT_V2 : PAI_FORMAT_V1;
	err = pai_job_convert(&conv, &len, diags ? diags : own, name, text,
			      strlen(text), &jo, to);
	if (err == PAI_OK) {
		jo.format = to;
		err = pai_job_parse(&job, diags ? diags : own, name, conv, len,
				    &jo);
	}
	if (err == PAI_OK && !(*out = json_deep_copy(pai_job_config(job))))
		err = PAI_ENOMEM;
	if (err == PAI_ENOMEM)
		pai__client_oom(c);
	else if (err)
		err = pai__client_fail(c, err, 0, NULL,
				       "the config cannot be converted to "
				       "the cluster's format (%s)",
				       pai_format_name(to));
out:
	pai_job_free(job);
	pai_diags_free(own);
	free(conv);
	free(text);
	return err;
}

/* 1 when some runtime plugin of extras is the ssh plugin. */
static int has_ssh_plugin(json_t *plugins)
{
	json_t *p;
	size_t i;

	json_array_foreach(plugins, i, p)
	{
		const char *name =
		    json_string_value(json_object_get(p, "plugin"));

		if (name && strcmp(name, "ssh") == 0)
			return 1;
	}
	return 0;
}

/* The user's key in the job's ssh runtime plugin, unless it has one: so
 * that `paictl ssh` gets in with the user's own key. */
static int add_ssh_key(json_t *doc, const char *key)
{
	static const char member[] = "com.microsoft.pai.runtimeplugin";
	json_t *extras = json_object_get(doc, "extras"), *plugins;

	if (!extras) {
		if (!(extras = json_object()) ||
		    json_object_set_new(doc, "extras", extras) < 0)
			return PAI_ENOMEM;
	}
	if (!json_is_object(extras))
		return PAI_OK; /* validation has said what it thinks */
	plugins = json_object_get(extras, member);
	if (!plugins) {
		if (!(plugins = json_array()) ||
		    json_object_set_new(extras, member, plugins) < 0)
			return PAI_ENOMEM;
	}
	if (!json_is_array(plugins) || has_ssh_plugin(plugins))
		return PAI_OK;
	if (json_array_append_new(
		plugins, json_pack("{s:s,s:{s:b,s:{s:s,s:s}}}", "plugin", "ssh",
				   "parameters", "jobssh", 1, "userssh", "type",
				   "custom", "value", key)) < 0)
		return PAI_ENOMEM;
	return PAI_OK;
}

/* The config as the cluster takes it: *out new, *api the module. */
static int prepare(json_t **out, const struct pai__api **api, pai_client *c,
		   json_t *config, const pai_submit_options *o)
{
	pai_format fmt, to;
	int err;

	*out = NULL;
	fmt = pai__config_is_v2(config) ? PAI_FORMAT_V2 : PAI_FORMAT_V1;
	if ((err = api_for(api, &to, c, fmt)))
		return err;
	if (to != fmt)
		err = convert(out, c, config, o, to);
	else
		err = (*out = json_deep_copy(config)) ? PAI_OK
						      : pai__client_oom(c);
	/* the key goes into OpenPAI v1.x's runtime plugin: none elsewhere */
	if (err == PAI_OK && to == PAI_FORMAT_V2 && (*api)->openpai &&
	    o->ssh_public_key && *o->ssh_public_key &&
	    add_ssh_key(*out, o->ssh_public_key) != PAI_OK)
		err = pai__client_oom(c);
	if (err) {
		json_decref(*out);
		*out = NULL;
	}
	return err;
}

static int check_args(pai_client *c, const char *user, json_t *config,
		      const pai_submit_options **o)
{
	static const pai_submit_options defaults = PAI_SUBMIT_OPTIONS_INIT;
	const char *name = pai_job_config_name(config);

	if (!*o)
		*o = &defaults;
	if ((*o)->version != PAI_SUBMIT_OPTIONS_VERSION)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if (!user || !*user || !name || !*name)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a job needs a user and a name");
	return PAI_OK;
}

int pai_submit_request(char **method, char **url, char **content_type,
		       char **body, size_t *body_len, pai_client *c,
		       const char *user, json_t *config,
		       const pai_submit_options *opts)
{
	const struct pai__api *api;
	pai__submit_rq rq = {NULL, NULL, 0, NULL};
	json_t *sent = NULL;
	int err;

	*method = *url = *content_type = *body = NULL;
	*body_len = 0;
	if (!c || !json_is_object(config))
		return PAI_EINVAL;
	if ((err = check_args(c, user, config, &opts)) ||
	    (err = prepare(&sent, &api, c, config, opts)) ||
	    (err = api->submit_request(&rq, api, c, user, sent)))
		goto out;
	if (!(*method = strdup("POST")) ||
	    !(*content_type = strdup(rq.content_type))) {
		free(*method);
		*method = NULL;
		err = pai__client_oom(c);
		goto out;
	}
	*url = rq.url;
	*body = rq.body;
	*body_len = rq.len;
	rq.url = rq.body = NULL;
out:
	pai__submit_rq_release(&rq);
	json_decref(sent);
	return err;
}

/* Whether the server's stored config is the one sent: equal as JSON
 * values, members in any order, numbers by value (a server may reorder,
 * re-indent, or write 1 as 1.0), and members the server added itself
 * allowed (OpenPAI v0.x stores the config with its schema's defaults
 * filled in). v1.x masks the secrets it stores. */
static int json_covers(json_t *sent, json_t *stored, int top)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_number(sent) && json_is_number(stored)) {
		if (json_is_integer(sent) && json_is_integer(stored))
			return json_integer_value(sent) ==
			       json_integer_value(stored);
		return json_number_value(sent) == json_number_value(stored);
	}
	if (json_typeof(sent) != json_typeof(stored))
		return 0;
	switch (json_typeof(sent)) {
	case JSON_OBJECT:
		json_object_foreach(sent, k, v)
		{
			json_t *w = json_object_get(stored, k);

			if (top && strcmp(k, "secrets") == 0)
				continue;
			if (!w || !json_covers(v, w, 0))
				return 0;
		}
		return 1;
	case JSON_ARRAY:
		if (json_array_size(sent) != json_array_size(stored))
			return 0;
		json_array_foreach(sent, i, v)
		{
			if (!json_covers(v, json_array_get(stored, i), 0))
				return 0;
		}
		return 1;
	default: return json_equal(sent, stored);
	}
}

/* Whether the job's stored config is the one sent: 1 yes, 0 the job
 * exists with another config, -1 no such job, -2 cannot tell. */
static int stored_matches(const struct pai__api *api, pai_client *c,
			  const char *user, const char *name, json_t *config)
{
	json_t *stored = NULL;
	int err, ret;

	err = api->stored_config(&stored, api, c, user, name);
	if (err == PAI_ENOTFOUND && c->err_code &&
	    strcmp(c->err_code, "NoJobConfigError") == 0)
		return -2; /* the job exists, its config is not there (yet) */
	if (err == PAI_ENOTFOUND)
		return -1;
	if (err)
		return -2;
	ret = json_covers(config, stored, api->format == PAI_FORMAT_V2);
	json_decref(stored);
	return ret;
}

/* How far a submission time the server stamped may lie outside the time
 * the request was out: the Date header's second, and a margin; without
 * any Date, this machine's clock against the server's. */
#define WINDOW_SLACK_MS 2000
#define CLOCK_SKEW_MS	120000

/* Whether the job the server has was submitted while our request was
 * out (sent_at: monotonic ms when it went): 1 yes or cannot tell (the
 * status says no time), 0 before, -1 no such job, -2 cannot tell. The
 * server's clock from its answer's Date: this machine's does not
 * count. */
static int submitted_meanwhile(const struct pai__api *api, pai_client *c,
			       const char *user, const char *name,
			       long long sent_at)
{
	pai_job_info *info = NULL;
	long long now, at, slack = WINDOW_SLACK_MS;
	int err = api->job_get(&info, api, c, user, name);

	if (err == PAI_ENOTFOUND)
		return -1;
	if (err)
		return -2;
	at = info->submitted_ms;
	pai_job_info_free(info);
	if (!at)
		return 1;
	if (!(now = pai__server_now_ms(c))) {
		now = (long long)time(NULL) * 1000;
		slack = CLOCK_SKEW_MS;
	}
	return at >= now - (pai__now_ms() - sent_at) - slack &&
	       at <= now + slack;
}

/* After a lost answer: the job of that name is read, never sent again
 * (job names are unique per user: a job there is ours or another's).
 * 1 ours: submitted while our request was out, with the config sent;
 * else the error to return: PAI_ECONFLICT for another job of that
 * name, the first failure when there is no job (nothing was made) or
 * it cannot be told (the detail says which). */
static int resolve(const struct pai__api *api, pai_client *c, const char *user,
		   const char *name, json_t *sent, long long sent_at, int err)
{
	pai__error first = {0, NULL, NULL};
	int when, m = -2;

	pai__client_save_error(c, &first);
	when = submitted_meanwhile(api, c, user, name, sent_at);
	if (when == 1)
		m = stored_matches(api, c, user, name, sent);
	if (when == 0 || m == 0) {
		pai__error_release(&first);
		return pai__client_fail(c, PAI_ECONFLICT, 409, NULL,
					"job '%s' exists already (%s)", name,
					when == 0 ? "submitted before"
						  : "with another config");
	}
	if (m == 1) {
		pai__error_release(&first);
		pai__client_reset_error(c);
		return 1;
	}
	if (when == -1 || m == -1) {
		/* the first failure's detail, and what reading found */
		pai__client_fail(c, err, first.status, first.code,
				 "%s; the job was not made (submitting it "
				 "again is safe)",
				 first.msg ? first.msg : pai_strerror(err));
	} else {
		pai__client_fail(c, err, first.status, first.code,
				 when == 1 ? "%s; job '%s' is there, but "
					     "whether it is this submission's "
					     "cannot be told"
					   : "%s; whether job '%s' was made "
					     "cannot be told",
				 first.msg ? first.msg : pai_strerror(err),
				 name);
	}
	pai__error_release(&first);
	return err;
}

int pai_submit_ex(pai_client *c, const char *user, json_t *config,
		  const pai_submit_options *opts, int *recovered)
{
	const struct pai__api *api;
	pai__submit_rq rq = {NULL, NULL, 0, NULL};
	json_t *sent = NULL;
	long long sent_at;
	int err, maybe;

	if (recovered)
		*recovered = 0;
	if (!c || !json_is_object(config))
		return PAI_EINVAL;
	if ((err = check_args(c, user, config, &opts)) ||
	    (err = pai__client_api(c, &api)))
		goto out;
	/* a submission of several requests is the module's own */
	if (api->submit) {
		err = api->submit(api, c, user, config, opts, recovered);
		goto out;
	}
	if ((err = prepare(&sent, &api, c, config, opts)) ||
	    (err = api->submit_request(&rq, api, c, user, sent)))
		goto out;
	sent_at = pai__now_ms();
	err = api->post_job(api, c, &rq, &maybe);
	if (err != PAI_OK && maybe) {
		err = resolve(api, c, user, pai_job_config_name(sent), sent,
			      sent_at, err);
		if (err == 1) {
			if (recovered)
				*recovered = 1;
			err = PAI_OK;
		}
	}
out:
	pai__submit_rq_release(&rq);
	json_decref(sent);
	return err;
}

int pai_submit(pai_client *c, const char *user, json_t *config, int *recovered)
{
	return pai_submit_ex(c, user, config, NULL, recovered);
}
