/* slurm_rest.c - requests to slurmrestd (reference/slurm.md): the newest
 * OpenAPI plugin version paictl knows that the server serves, JSON
 * bodies, and answers judged. slurmrestd says what went wrong in an
 * "errors" list of two shapes ({error_number, description, error,
 * source} on reads, {error_code, error} on a submission), a missing
 * credential with a plain-text 401, and a bad or expired token with a
 * 500 of error -1, which the token's own expiry then explains. Retries
 * (connection errors, 502-504, 429 and Retry-After) are http.c's. */
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The plugin versions paictl speaks, newest first: their shapes are the
 * same for what paictl reads and sends. */
static const char *const known[] = {"v0.0.38", "v0.0.37", "v0.0.36"};
#define NKNOWN (sizeof(known) / sizeof(known[0]))

/* Slurm's error numbers paictl tells apart */
#define ESLURM_INVALID_JOB_ID 2017

int pai__slurm_url(char **url, pai_client *c, const char *path)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai__buf b = PAI__BUF_INIT;

	pai__buf_printf(&b, "%s/slurm/%s/%s", c->uri,
			s->version ? s->version : known[0], path);
	*url = pai__buf_detach(&b);
	return *url ? PAI_OK : pai__client_oom(c);
}

/* The newest known version among the paths of /openapi; *v static. */
static int served(const char **v, pai_client *c)
{
	char *url = NULL;
	json_t *spec = NULL, *paths;
	size_t i;
	int err;

	*v = NULL;
	if (asprintf(&url, "%s/openapi", c->uri) < 0)
		return pai__client_oom(c);
	err = pai__get_json(&spec, c, url);
	free(url);
	if (err)
		return err;
	paths = json_object_get(spec, "paths");
	for (i = 0; !*v && i < NKNOWN; i++) {
		char p[64];

		snprintf(p, sizeof(p), "/slurm/%s/jobs", known[i]);
		if (json_object_get(paths, p))
			*v = known[i];
	}
	json_decref(spec);
	if (!*v)
		return pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
					"slurmrestd at %s serves none of the "
					"OpenAPI plugins paictl speaks "
					"(openapi/v0.0.36 to v0.0.38): start "
					"it with -s openapi/v0.0.38",
					c->uri);
	return PAI_OK;
}

/* ---- errors ------------------------------------------------------------ */

/* A 500 of error -1 (slurmctld refused what slurmrestd asked as the
 * user): the token, expired or not valid here. */
static int bad_token(pai_client *c, long status, const char *what)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	long long exp = s->token_exp;
	char when[64] = "";
	time_t t = (time_t)exp;
	struct tm tm;

	if (exp && exp <= (long long)time(NULL) && gmtime_r(&t, &tm)) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		return pai__client_fail(c, PAI_EAUTH, status, "-1",
					"the Slurm token expired at %s: get a "
					"new one with 'scontrol token'",
					when);
	}
	return pai__client_fail(
	    c, PAI_EAUTH, status, "-1",
	    "slurmctld refused to act as '%s' with this token (%s): a token "
	    "that is not valid here, or not %s's; get one with 'scontrol "
	    "token'",
	    s->user, what, s->user);
}

/* The detail of a failed answer (o its JSON, or NULL) and its error. */
static int judge(pai_client *c, long status, json_t *o, const char *body)
{
	json_t *e = json_array_get(json_object_get(o, "errors"), 0);
	const char *what = pai__json_str(e, "description"), *why;
	long long num = 0;
	char code[32];

	if (!pai__json_integer(json_object_get(e, "error_number"), &num) &&
	    !pai__json_integer(json_object_get(e, "error_code"), &num))
		pai__json_integer(json_object_get(e, "errno"), &num);
	why = pai__json_str(e, "error");
	snprintf(code, sizeof(code), "%lld", num);
	if (status == 401)
		return pai__client_fail(c, PAI_EAUTH, status, NULL,
					"slurmrestd refused the request: %s "
					"(HTTP 401)",
					body && *body ? body
						      : "no credentials");
	if (!e)
		return pai__client_fail(c, status == 404 ? PAI_ENOTFOUND
							 : PAI_EHTTP,
					status, NULL, "HTTP %ld from slurmrestd%s%.200s",
					status, body && *body ? ": " : "",
					body ? body : "");
	if (num == ESLURM_INVALID_JOB_ID)
		return pai__client_fail(c, PAI_ENOTFOUND, status, code, "%s",
					what ? what : why);
	if (num == -1 && status >= 500)
		return bad_token(c, status, what ? what : "unspecified error");
	return pai__client_fail(c, PAI_EHTTP, status, code, "%s%s%s",
				why ? why : "error", what ? ": " : "",
				what ? what : "");
}

/* ---- requests ---------------------------------------------------------- */

/* One exchange of method on path: the answer in *rs. */
static int exchange(pai_client *c, const char *method, const char *path,
		    const char *body, int safe, pai__response *rs)
{
	pai__request rq = {method, NULL, body, body ? strlen(body) : 0,
			   "application/json", NULL, safe, 0, 0};
	char *url = NULL;
	int err;

	if ((err = pai__slurm_url(&url, c, path)))
		return err;
	rq.url = url;
	err = pai__http(c, &rq, rs);
	free(url);
	return err;
}

/* The version to speak, once: a 404 to the tentative newest one asks
 * /openapi which the server has; *again when that is another. */
static int settle_version(int *again, pai_client *c, const pai__response *rs)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	const char *v = NULL;
	int err;

	*again = 0;
	if (s->version || rs->status != 404)
		return PAI_OK;
	if ((err = served(&v, c)))
		return err;
	if (!(s->version = strdup(v)))
		return pai__client_oom(c);
	*again = strcmp(v, known[0]) != 0;
	return PAI_OK;
}

/* Answers of 2xx and judged failures, from rs, into *out. */
static int answer(json_t **out, pai_client *c, const pai__response *rs)
{
	json_t *o = NULL;
	char *body = rs->body.data;

	if (body)
		o = json_loadb(body, rs->body.len, 0, NULL);
	if (rs->status >= 200 && rs->status < 300 && o) {
		if (out)
			*out = o;
		else
			json_decref(o);
		return PAI_OK;
	}
	if (rs->status >= 200 && rs->status < 300) {
		json_decref(o);
		return pai__client_fail(c, PAI_EPROTOCOL, rs->status, NULL,
					"slurmrestd answered with no JSON");
	}
	{
		int err = judge(c, rs->status, o, body);

		json_decref(o);
		return err;
	}
}

int pai__slurm_call(json_t **out, pai_client *c, const char *method,
		    const char *path, json_t *body, int safe, int *maybe)
{
	pai__response rs = PAI__RESPONSE_INIT;
	char *text = NULL;
	int err, again;

	if (out)
		*out = NULL;
	if (maybe)
		*maybe = 0;
	if (body && !(text = pai__json_dumps(body, JSON_COMPACT)))
		return pai__client_oom(c);
	do
		err = exchange(c, method, path, text, safe, &rs);
	while (!err && !(err = settle_version(&again, c, &rs)) && again);
	if (!err)
		err = answer(out, c, &rs);
	/* no answer, or a proxy's: slurmrestd's own 500s say what failed */
	if (maybe)
		*maybe = err && rs.sent &&
			 (!rs.status || (rs.status >= 502 && rs.status <= 504));
	pai__response_release(&rs);
	free(text);
	return err;
}
