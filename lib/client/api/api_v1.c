/* api_v1.c - OpenPAI v0.x's REST API (/api/v1): its routes and shapes,
 * the only file that knows them, and the operations it does its own way
 * (SSH, log URLs); the rest is openpai.c's. See
 * openpai-rest-api-v1.md. */
#include "openpai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static char *submit_url(pai_client *c, const char *user)
{
	return job_url(c, user, NULL, NULL);
}

static int submit_body(char **body, size_t *len, json_t *config)
{
	*body = pai__json_dumps(config, JSON_COMPACT);
	*len = *body ? strlen(*body) : 0;
	return *body ? PAI_OK : PAI_ENOMEM;
}

/* The stored config: JSON text, or (older servers) that text as a JSON
 * string. */
static int stored_config(json_t **out, pai_client *c, const char *name,
			 const char *text, size_t len)
{
	json_t *stored = json_loadb(text, len, JSON_DECODE_ANY, NULL);

	*out = NULL;
	if (json_is_string(stored)) {
		json_t *inner = json_loads(json_string_value(stored), 0, NULL);

		json_decref(stored);
		stored = inner;
	}
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

static const struct pai__openpai routes = {
    .info_path = "/api/v1/",
    .login_path = "/api/v1/token",
    .jobs_path = "/api/v1/jobs",
    .job_url = job_url,
    .submit_url = submit_url,
    .framework_names = 0,
    .submit_type = "application/json",
    .submit_body = submit_body,
    .stored_config = stored_config,
    .refused = NULL, /* v0.x refuses a config with 400, as anything else */
};

/* ---- what v0.x does its own way ----------------------------------------- */

/* GET .../ssh's answer, {containers: [{id, sshIp, sshPort}], keyPair:
 * {privateKeyDirectDownloadLink, privateKeyFileName}}, as an info that
 * takes *o; PAI_EPROTOCOL for another shape. */
static int ssh_shape(pai_ssh_info **out, pai_client *c, const char *url,
		     json_t **o)
{
	json_t *cs = json_object_get(*o, "containers"), *e, *kp;
	pai_ssh_info *info;
	size_t i;

	if (!json_is_object(*o) || (cs && !json_is_array(cs)))
		return pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
					"GET %s: not a job's SSH info", url);
	if (!(info = calloc(1, sizeof(*info))) ||
	    (json_array_size(cs) &&
	     !(info->containers =
		   calloc(json_array_size(cs), sizeof(*info->containers))))) {
		pai_ssh_info_free(info);
		return pai__client_oom(c);
	}
	info->json = *o;
	*o = NULL;
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
	return PAI_OK;
}

static int v1_job_ssh(pai_ssh_info **out, const struct pai__api *api,
		      pai_client *c, const char *user, const char *name)
{
	char *url = job_url(c, user, name, "/ssh");
	json_t *o = NULL;
	int err;

	(void)api;
	*out = NULL;
	if (!url)
		return pai__client_oom(c);
	if ((err = pai__get_json(&o, c, url)) == PAI_OK)
		err = ssh_shape(out, c, url, &o);
	json_decref(o);
	free(url);
	return err;
}

/* containerLog is a prefix: the file's name goes after it. */
static int v1_task_log_url(char **url, const struct pai__api *api,
			   pai_client *c, const pai_job_info *job,
			   const pai_task_info *task, const char *stream,
			   int tail)
{
	(void)api;
	(void)job;
	(void)tail;
	*url = NULL;
	if (!task->log_url)
		return pai__client_fail(
		    c, PAI_ENOTFOUND, 0, NULL, "task %s:%ld has no log yet",
		    task->role ? task->role : "?", task->index);
	if (asprintf(url, "%suser.pai.%s", task->log_url, stream) < 0) {
		*url = NULL;
		return pai__client_oom(c);
	}
	return PAI_OK;
}

/* DELETE of the job's route, as v0.17's rest-server takes it from the
 * job's owner or an admin (controllers/job.js remove): 202; the
 * launcher's framework goes, and the name is free again. */
static int v1_job_delete(const struct pai__api *api, pai_client *c,
			 const char *user, const char *name)
{
	/* not retried: a second DELETE after a lost answer would say 404 */
	return pai__openpai_job_call(api, c, user, name, NULL, "DELETE", NULL,
				     0);
}

#define V1_OPERATIONS                                                          \
	.openpai = &routes, .cluster_info = pai__openpai_cluster_info,         \
	.login = pai__openpai_login,                                           \
	.submit_request = pai__openpai_submit_request,                         \
	.post_job = pai__openpai_post_job,                                     \
	.stored_config = pai__openpai_stored_config,                           \
	.job_get = pai__openpai_job_get, .jobs_list = pai__openpai_jobs_list,  \
	.job_config = pai__openpai_job_config,                                 \
	.job_stop = pai__openpai_job_stop, .job_ssh = v1_job_ssh,              \
	.task_log_url = v1_task_log_url, .job_delete = v1_job_delete

const struct pai__api pai__api_v1 = {
    .id = PAI_API_V1,
    .format = PAI_FORMAT_V1,
    .lanes = 1,
    V1_OPERATIONS,
};

/* The local cluster takes v1's routes (and either format on them:
 * submit.c), and tells of a job's changes (api_local.c). */
const struct pai__api pai__api_local = {
    .id = PAI_API_DUAL,
    .format = PAI_FORMAT_V1,
    .lanes = 1,
    V1_OPERATIONS,
    .job_changed = pai__local_job_changed,
};
