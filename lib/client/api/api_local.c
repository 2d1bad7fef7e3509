/* api_local.c - paictl's local cluster: OpenPAI v0.x's routes (its table,
 * pai__api_local, is api_v1.c's with what is here) and the extensions
 * the cluster names in GET /api/v2/info ("paictl": {"version",
 * "extensions"}): "wait", the long-poll on a job's status, which is
 * job_changed (module.h). The server's side is server/wait.c. */
#include "openpai.h"

#include <stdlib.h>
#include <string.h>

/* A long-poll's longest wait: well under the stall timeout, which fails
 * a transfer that moves nothing for that long (30 s unless said). */
#define WAIT_CHUNK_MS 20000

void pai__local_note_info(pai_client *c, json_t *info)
{
	json_t *ext = json_object_get(json_object_get(info, "paictl"),
				      "extensions"),
	       *e;
	size_t i;

	c->can_wait = -1;
	json_array_foreach(ext, i, e)
	{
		const char *name = json_string_value(e);

		if (name && strcmp(name, "wait") == 0)
			c->can_wait = 1;
	}
}

/* Whether the cluster has the long-poll, asked once per client: PAI_OK,
 * PAI_ENOTSUP (an older local cluster), or why asking failed. */
static int check_wait(pai_client *c)
{
	json_t *info = NULL;
	char *url;
	int err;

	if (c->can_wait == 0) {
		if (!(url = pai__url(c, "/api/v2/info")))
			return pai__client_oom(c);
		err = pai__get_object(&info, c, url);
		free(url);
		if (err && err != PAI_ENOTFOUND && err != PAI_EPROTOCOL)
			return err;
		pai__local_note_info(c, info);
		json_decref(info);
	}
	if (c->can_wait < 0)
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"this local cluster does not tell of "
					"a job's changes (started by an older "
					"paictl?)");
	pai__client_reset_error(c);
	return PAI_OK;
}

/* The job's URL with the long-poll's query: answered once the job's
 * ETag is no longer since, or after wait_ms. */
static char *wait_url(const struct pai__api *api, pai_client *c,
		      const char *user, const char *name, long wait_ms,
		      const char *since)
{
	char *base = api->openpai->job_url(c, user, name, NULL);
	pai__buf b = PAI__BUF_INIT;

	if (!base)
		return NULL;
	pai__buf_printf(&b, "%s?wait=%ld&since=", base, wait_ms);
	pai__buf_put_escaped(&b, since);
	free(base);
	return pai__buf_detach(&b);
}

/* The longest one request waits: WAIT_CHUNK_MS, less when the stall
 * timeout is short (two thirds of it), and no longer than what is left
 * (left < 0: no limit). */
static long chunk(const pai_client *c, long long left)
{
	long ms = WAIT_CHUNK_MS;

	if (c->stall_timeout_s * 2000 / 3 < ms)
		ms = c->stall_timeout_s * 2000 / 3;
	if (left >= 0 && left < ms)
		ms = (long)left;
	return ms > 0 ? ms : 0;
}

static int same_version(const pai_job_info *a, const pai_job_info *b)
{
	return a->version && b->version && strcmp(a->version, b->version) == 0;
}

int pai__local_job_changed(pai_job_info **out, const struct pai__api *api,
			   pai_client *c, const char *user, const char *name,
			   const pai_job_info *last, long timeout_ms)
{
	long long deadline = timeout_ms < 0 ? -1 : pai__now_ms() + timeout_ms;
	pai_job_info *info = NULL;
	char *url;
	long ms;
	int err;

	*out = NULL;
	if ((err = check_wait(c)))
		return err;
	/* nothing to wait from: the status now */
	if (!last || !last->version || pai_state_is_final(last->state))
		return api->job_get(out, api, c, user, name);
	for (;;) {
		long long asked = pai__now_ms();

		ms = chunk(c, deadline < 0 ? -1 : deadline - asked);
		if (!(url = wait_url(api, c, user, name, ms, last->version)))
			return pai__client_oom(c);
		err = pai__openpai_status_at(&info, api, c, url);
		free(url);
		if (err)
			return err;
		/* unchanged early: the server did not hold the request
		 * (too many held), and asking again at once would be a
		 * poll without pause: the caller paces */
		if (!same_version(info, last) || ms == 0 ||
		    pai__now_ms() - asked < ms / 2 ||
		    (deadline >= 0 && pai__now_ms() >= deadline))
			break;
		pai_job_info_free(info);
		info = NULL;
	}
	*out = info;
	return PAI_OK;
}
