/* client.c - the REST client as callers see it: the handle, its last
 * error, and jobs and tasks through the client's API (api.h). Logs are
 * logs.c's, submissions submit.c's. */
#include "api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ---- the handle ------------------------------------------------------- */

/* A token goes into a header line: no control characters, no spaces. */
static int valid_token(const char *t)
{
	for (; t && *t; t++)
		if ((unsigned char)*t <= ' ' || *t == 0x7f)
			return 0;
	return 1;
}

int pai_client_new(pai_client **out, const pai_client_options *opts)
{
	pai_client *c = NULL;
	const char *uri;
	size_t n;
	int err = PAI_OK;

	if (out)
		*out = NULL;
	if (!out || !opts || opts->version != PAI_CLIENT_OPTIONS_VERSION)
		return PAI_EINVAL;
	uri = opts->uri		  ? opts->uri
	      : opts->unix_socket ? "http://localhost"
				  : NULL;
	if (!uri ||
	    (strncasecmp(uri, "http://", 7) != 0 &&
	     strncasecmp(uri, "https://", 8) != 0) ||
	    !valid_token(opts->token))
		return PAI_EINVAL;
	/* libcurl is opened by the first client (sys/dl.h) */
	if (pai__curl_load())
		return PAI_ELIBRARY;
	if (!(c = calloc(1, sizeof(*c))))
		return PAI_ENOMEM;
	c->sh = &c->own;
	pthread_mutex_init(&c->own.lock, NULL);
	pthread_mutex_init(&c->own.out, NULL);
	if (pai__strdup_opt(&c->uri, uri) < 0 ||
	    pai__strdup_opt(&c->unix_socket, opts->unix_socket) < 0 ||
	    pai__strdup_opt(&c->own.token, opts->token) < 0 ||
	    pai__strdup_opt(&c->ca_file, opts->ca_file) < 0) {
		err = PAI_ENOMEM;
		goto out;
	}
	n = strlen(c->uri);
	while (n && c->uri[n - 1] == '/')
		c->uri[--n] = '\0';
	if ((err = pai__url_split(c->uri, &c->scheme, &c->host, &c->port)))
		goto out;
	c->insecure = opts->insecure;
	c->connect_timeout_ms =
	    opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 10000;
	c->stall_timeout_s =
	    opts->stall_timeout_s > 0 ? opts->stall_timeout_s : 30;
	c->max_retries = opts->max_retries >= 0 ? opts->max_retries : 4;
	c->retry_max_ms = opts->retry_max_ms > 0 ? opts->retry_max_ms : 60000;
	c->trace = opts->trace;
	c->trace_data = opts->trace_data;
	c->interrupt = opts->interrupt;
	c->rng = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^
		 (uint64_t)(uintptr_t)c;
	if (!c->rng)
		c->rng = 1;
	if (!(c->curl = curl_easy_init())) {
		err = PAI_ENOMEM;
		goto out;
	}
	*out = c;
	c = NULL;
out:
	pai_client_free(c);
	return err;
}

int pai__client_lane(pai_client **out, pai_client *c)
{
	pai_client *l;

	*out = NULL;
	if (!(l = calloc(1, sizeof(*l))))
		return PAI_ENOMEM;
	*l = *c;
	l->parent = c;
	l->sh = c->sh;
	l->err_code = l->err_msg = NULL;
	l->status = 0;
	l->uri = l->scheme = l->host = l->unix_socket = NULL;
	l->ca_file = l->html_log_origin = NULL;
	l->curl = NULL;
	/* jitter of its own: lanes started together part */
	l->rng ^= (uint64_t)(uintptr_t)l << 1;
	if (!l->rng)
		l->rng = 1;
	if (pai__strdup_opt(&l->uri, c->uri) < 0 ||
	    pai__strdup_opt(&l->scheme, c->scheme) < 0 ||
	    pai__strdup_opt(&l->host, c->host) < 0 ||
	    pai__strdup_opt(&l->unix_socket, c->unix_socket) < 0 ||
	    pai__strdup_opt(&l->ca_file, c->ca_file) < 0 ||
	    !(l->curl = curl_easy_init())) {
		pai_client_free(l);
		return PAI_ENOMEM;
	}
	*out = l;
	return PAI_OK;
}

void pai_client_free(pai_client *c)
{
	if (!c)
		return;
	if (c->wire && !c->parent)
		c->wire->free(c->wire_data);
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->uri);
	free(c->scheme);
	free(c->host);
	free(c->unix_socket);
	free(c->ca_file);
	free(c->err_code);
	free(c->err_msg);
	free(c->html_log_origin);
	if (c->sh == &c->own) {
		pai__free_secret(c->own.token);
		pthread_mutex_destroy(&c->own.lock);
		pthread_mutex_destroy(&c->own.out);
	}
	free(c);
}

int pai_client_set_token(pai_client *c, const char *token)
{
	char *t = NULL;

	if (!c || !valid_token(token))
		return PAI_EINVAL;
	if (token && !(t = strdup(token)))
		return PAI_ENOMEM;
	pai__lock(c);
	pai__free_secret(c->sh->token);
	c->sh->token = t;
	pai__unlock(c);
	return PAI_OK;
}

int pai_client_set_retry_after_callback(pai_client *c, pai_retry_after_fn fn,
					void *data)
{
	if (!c)
		return PAI_EINVAL;
	pthread_mutex_lock(&c->sh->out);
	c->sh->on_retry_after = fn;
	c->sh->on_retry_after_data = data;
	pthread_mutex_unlock(&c->sh->out);
	return PAI_OK;
}

int pai_client_set_notice_callback(pai_client *c, pai_notice_fn fn,
				   void *data)
{
	if (!c)
		return PAI_EINVAL;
	pthread_mutex_lock(&c->sh->out);
	c->sh->on_notice = fn;
	c->sh->on_notice_data = data;
	pthread_mutex_unlock(&c->sh->out);
	return PAI_OK;
}

void pai__client_notice(pai_client *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!c->sh->on_notice)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&c->sh->out);
	if (c->sh->on_notice)
		c->sh->on_notice(c->sh->on_notice_data, line);
	pthread_mutex_unlock(&c->sh->out);
}

/* ---- the last error ---------------------------------------------------- */

long pai_client_http_status(const pai_client *c)
{
	return c ? c->status : 0;
}

const char *pai_client_error_code(const pai_client *c)
{
	return c ? c->err_code : NULL;
}

const char *pai_client_error(const pai_client *c)
{
	return c ? c->err_msg : NULL;
}

/* ---- calls ------------------------------------------------------------- */

static int check_names(pai_client *c, const char *user, const char *name)
{
	if (!user || !*user || (name && !*name))
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a job needs a user and a name");
	return PAI_OK;
}

/* The API of c for a call on user's job name, after what every such
 * call does first: the last error forgotten, the names checked. */
static int job_api(const struct pai__api **api, pai_client *c,
		   const char *user, const char *name)
{
	int err;

	pai__client_reset_error(c);
	if ((err = check_names(c, user, name ? name : "")))
		return err;
	return pai__client_api(c, api);
}

int pai_cluster_info(json_t **out, pai_client *c)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->cluster_info(out, api, c);
}

int pai_login(char **token, pai_client *c, const char *user,
	      const char *password, long expiration_s)
{
	const struct pai__api *api;
	int err;

	if (token)
		*token = NULL;
	if (!token || !c)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if (!user || !*user || !password)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a login needs a user and a password");
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->login(token, api, c, user, password, expiration_s);
}

int pai_job_ref_parse(char **user, char **name, const char *ref,
		      const char *default_user)
{
	const char *tilde;
	char *u = NULL, *n = NULL;
	int err = PAI_OK;

	if (user)
		*user = NULL;
	if (name)
		*name = NULL;
	if (!user || !name || !ref)
		return PAI_EINVAL;
	tilde = strchr(ref, '~');
	if (tilde) {
		if (tilde == ref || !tilde[1])
			return PAI_EINVAL;
		u = strndup(ref, (size_t)(tilde - ref));
		n = strdup(tilde + 1);
		if (!u || !n) {
			err = PAI_ENOMEM;
			goto out;
		}
	} else {
		if (!*ref)
			return PAI_EINVAL;
		if (default_user && !*default_user)
			return PAI_EINVAL;
		if ((default_user && !(u = strdup(default_user))) ||
		    !(n = strdup(ref))) {
			err = PAI_ENOMEM;
			goto out;
		}
	}
	*user = u;
	*name = n;
	u = n = NULL;
out:
	free(u);
	free(n);
	return err;
}

/* ---- jobs -------------------------------------------------------------- */

int pai_job_get(pai_job_info **out, pai_client *c, const char *user,
		const char *name)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	if ((err = job_api(&api, c, user, name)))
		return err;
	return api->job_get(out, api, c, user, name);
}

int pai_jobs_list(pai_job_list **out, pai_client *c, const char *user)
{
	return pai_jobs_list_since(out, c, user, 0);
}

int pai_jobs_list_since(pai_job_list **out, pai_client *c, const char *user,
			long long since_ms)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c || since_ms < 0)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	if (user && !*user)
		user = NULL;
	if (since_ms > 0 && api->jobs_since)
		return api->jobs_since(out, api, c, user, since_ms);
	return api->jobs_list(out, api, c, user);
}

int pai_job_get_config(char **text, size_t *len, pai_client *c,
		       const char *user, const char *name)
{
	const struct pai__api *api;
	size_t n = 0;
	int err;

	if (text)
		*text = NULL;
	if (len)
		*len = 0;
	if (!text || !c)
		return PAI_EINVAL;
	err = job_api(&api, c, user, name);
	if (err == PAI_OK)
		err = api->job_config(text, &n, api, c, user, name);
	if (len)
		*len = n;
	return err;
}

int pai_job_stop(pai_client *c, const char *user, const char *name)
{
	const struct pai__api *api;
	int err;

	if (!c)
		return PAI_EINVAL;
	if ((err = job_api(&api, c, user, name)))
		return err;
	return api->job_stop(api, c, user, name);
}

int pai_job_delete(pai_client *c, const char *user, const char *name)
{
	const struct pai__api *api;
	pai_job_info *info = NULL;
	pai_state state;
	int err;

	if (!c)
		return PAI_EINVAL;
	if ((err = job_api(&api, c, user, name)))
		return err;
	if (!api->job_delete)
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"the cluster's API (%s) has no request "
					"that deletes a job: a name stays "
					"taken there",
					pai_api_name(api->id));
	/* only a job that has ended: deleting a running one would stop it
	 * on some clusters, and not on others */
	if ((err = api->job_get(&info, api, c, user, name)))
		return err;
	state = pai_job_info_state(info);
	pai_job_info_free(info);
	if (!pai_state_is_final(state))
		return pai__client_fail(c, PAI_ECONFLICT, 0, NULL,
					"job '%s' is %s: stop it first", name,
					pai_state_name(state));
	return api->job_delete(api, c, user, name);
}

int pai_job_get_changed(pai_job_info **out, pai_client *c, const char *user,
			const char *name, const pai_job_info *last,
			long timeout_ms)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	if ((err = job_api(&api, c, user, name)))
		return err;
	if (!api->job_changed)
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"the cluster does not tell of a job's "
					"changes; ask again instead");
	return api->job_changed(out, api, c, user, name, last, timeout_ms);
}

int pai_job_get_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		    const char *name)
{
	const struct pai__api *api;
	int err;

	if (out)
		*out = NULL;
	if (!out || !c)
		return PAI_EINVAL;
	if ((err = job_api(&api, c, user, name)))
		return err;
	return api->job_ssh(out, api, c, user, name);
}

int pai_task_log_url(char **url, pai_client *c, const pai_job_info *job,
		     const pai_task_info *task, const char *stream, int tail)
{
	const struct pai__api *api;
	int err;

	if (url)
		*url = NULL;
	if (!url || !c || !job || !task || !stream ||
	    (strcmp(stream, "stdout") != 0 && strcmp(stream, "stderr") != 0 &&
	     strcmp(stream, "all") != 0 && strcmp(stream, "previous") != 0))
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	return api->task_log_url(url, api, c, job, task, stream, tail);
}

/* ---- what only some clusters do ----------------------------------------- */

/* Sets the detail for an operation api has not (its slot NULL). */
static int unsupported(pai_client *c, const char *what)
{
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
				"this cluster (API %s) cannot %s",
				pai_api_name(c->api), what);
}

int pai_logs_follow(pai_client *c, const pai_job_info *job,
		    const pai_task_info *const *tasks, size_t n,
		    const pai_follow_options *o)
{
	const struct pai__api *api;
	int err;

	if (!c || !job || (n && !tasks) || !o ||
	    o->version != PAI_FOLLOW_OPTIONS_VERSION || !o->on_line)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	if (!api->logs_follow)
		return unsupported(c, "stream logs");
	return api->logs_follow(api, c, job, tasks, n, o);
}

int pai_task_exec(int *exit_status, pai_client *c, const pai_job_info *job,
		  const pai_task_info *task, const pai_exec_options *o)
{
	const struct pai__api *api;
	int err;

	if (exit_status)
		*exit_status = -1;
	if (!exit_status || !c || !job || !task || !o ||
	    o->version != PAI_EXEC_OPTIONS_VERSION)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return err;
	if (!api->task_exec)
		return unsupported(c, "run commands in a task's container");
	return api->task_exec(exit_status, api, c, job, task, o);
}
