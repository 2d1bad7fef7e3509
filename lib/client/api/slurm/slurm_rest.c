/* slurm_rest.c - requests to slurmrestd (reference/slurm.md,
 * slurm-next/README.md): the newest OpenAPI plugin version paictl knows
 * that the server serves (slurm_shapes.c's table), JSON bodies, and
 * answers judged. slurmrestd says what went wrong in an "errors" list of
 * two shapes ({error_number, description, error, source}; v0.0.38's
 * submission {error_code, error}), a missing credential with a
 * plain-text 401, and a bad or expired token with a 500 of error -1
 * (22.05) or a 511 of error 1007 (23.02 on), which the token's own
 * expiry then explains. Retries
 * (connection errors, 502-504, 429 and Retry-After) are http.c's. */
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Slurm's error numbers paictl tells apart */
#define ESLURM_INVALID_JOB_ID 2017
#define ESLURM_AUTH_CRED_INVALID 1007 /* 23.02 on: a bad or expired token */

int pai__slurm_url(char **url, pai_client *c, const char *path)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai__buf b = PAI__BUF_INIT;

	pai__buf_printf(&b, "%s/slurm/%s/%s", c->uri,
			s->path_version[0] ? s->path_version
					   : pai__slurm_version_at(0)->name,
			path);
	*url = pai__buf_detach(&b);
	return *url ? PAI_OK : pai__client_oom(c);
}

/* ---- the version: the newest known that the server serves ------------- */

const struct pai__slurm_version *pai__slurm_speaks(pai_client *c)
{
	struct pai__slurm_client *s = pai__slurm_of(c);

	return s->version ? s->version : pai__slurm_version_at(0);
}

int pai_client_set_slurm_openapi(pai_client *c, const char *version)
{
	struct pai__slurm_client *s;
	const struct pai__slurm_version *v;
	long n = pai__slurm_version_number(version);
	size_t i;

	if (!c || c->api != PAI_API_SLURM || n < 0)
		return PAI_EINVAL;
	s = pai__slurm_of(c);
	for (i = 0; (v = pai__slurm_version_at(i)); i++)
		if (pai__slurm_version_number(v->name) <= n)
			break;
	if (!v)
		return PAI_EINVAL; /* older than any paictl speaks */
	/* the newest known at most as new: its shapes, the paths named */
	s->version = v;
	snprintf(s->path_version, sizeof(s->path_version), "%s", version);
	s->tentative = 1;
	return PAI_OK;
}

const char *pai_client_slurm_openapi(const pai_client *c)
{
	const struct pai__slurm_client *s;

	if (!c || c->api != PAI_API_SLURM)
		return NULL;
	s = c->wire_data;
	return s->version && !s->tentative ? s->path_version : NULL;
}

/* The OpenAPI document the server serves: /openapi/v3 (23.02 on; auth
 * required), else /openapi (22.05). */
static int openapi(json_t **spec, pai_client *c)
{
	static const char *const where[] = {"openapi/v3", "openapi"};
	char *url = NULL;
	size_t i;
	int err = PAI_ENOTFOUND;

	for (i = 0; err == PAI_ENOTFOUND && i < 2; i++) {
		if (asprintf(&url, "%s/%s", c->uri, where[i]) < 0)
			return pai__client_oom(c);
		err = pai__get_json(spec, c, url);
		free(url);
	}
	return err;
}

/* The newest "v0.0.N" among the paths "/slurm/v0.0.N/..." of paths,
 * into best (its N, or -1). */
static long newest_served(json_t *paths, char *best, size_t size)
{
	const char *k;
	json_t *v;
	long n, most = -1;
	char ver[16];

	json_object_foreach(paths, k, v)
	{
		if (strncmp(k, "/slurm/", 7) != 0 ||
		    sscanf(k + 7, "%15[^/]", ver) != 1)
			continue;
		n = pai__slurm_version_number(ver);
		if (n > most) {
			most = n;
			snprintf(best, size, "%s", ver);
		}
	}
	return most;
}

/* The version to speak among the paths of the server's OpenAPI
 * document: the newest paictl knows that it serves; when it serves only
 * newer ones, the newest of those, spoken as the newest known (said
 * once, to -v). */
static int choose(pai_client *c, json_t *paths)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	const struct pai__slurm_version *v, *found = NULL,
					      *newest = pai__slurm_version_at(0);
	char p[64], top[16] = "";
	int newer = newest_served(paths, top, sizeof(top)) >
		    pai__slurm_version_number(newest->name);
	size_t i;

	/* "/slurm/v0.0.38/jobs" (22.05), "/slurm/v0.0.42/jobs/" (24.11) */
	for (i = 0; !found && (v = pai__slurm_version_at(i)); i++) {
		snprintf(p, sizeof(p), "/slurm/%s/jobs/", v->name);
		if (json_object_get(paths, p) ||
		    (p[strlen(p) - 1] = '\0', json_object_get(paths, p)))
			found = v;
	}
	if (newer)
		pai__client_notice(c,
				   "slurmrestd at %s serves openapi/%s, newer "
				   "than paictl knows (up to %s): speaking %s",
				   c->uri, top, newest->name,
				   found ? found->name : top);
	if (!found && !newer) {
		while (pai__slurm_version_at(i))
			i++;
		return pai__client_fail(
		    c, PAI_EPROTOCOL, 0, NULL,
		    "slurmrestd at %s serves none of the OpenAPI plugins "
		    "paictl speaks (openapi/%s to %s)",
		    c->uri, pai__slurm_version_at(i - 1)->name, newest->name);
	}
	/* none known served, but newer ones: the newest's paths spoken as
	 * the newest known (unknown fields are ignored) */
	s->version = found ? found : newest;
	snprintf(s->path_version, sizeof(s->path_version), "%s",
		 found ? found->name : top);
	return PAI_OK;
}

static int served(pai_client *c)
{
	json_t *spec = NULL;
	int err;

	if ((err = openapi(&spec, c)))
		return err;
	err = choose(c, json_object_get(spec, "paths"));
	json_decref(spec);
	return err;
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
	if ((num == -1 && status >= 500) || num == ESLURM_AUTH_CRED_INVALID)
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

/* 1 when rs is slurmrestd's answer to a path it has (a JSON body with
 * an "errors" list: a job it does not know), not a version it serves
 * not. */
static int own_answer(const pai__response *rs)
{
	json_t *o = rs->body.data
			? json_loadb(rs->body.data, rs->body.len, 0, NULL)
			: NULL;
	int own = json_is_array(json_object_get(o, "errors"));

	json_decref(o);
	return own;
}

/* The version to speak, once: the tentative one (the caller's hint,
 * pai_client_set_slurm_openapi(), else the newest paictl knows) is kept
 * once the server answers it; a 404 to it asks the server's OpenAPI
 * document which it serves; *again when that is another. */
static int settle_version(int *again, pai_client *c, const pai__response *rs)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	char tried[16];
	int err;

	*again = 0;
	if (s->version && !s->tentative)
		return PAI_OK;
	if (rs->status != 404 || own_answer(rs)) {
		if (!s->version) {
			s->version = pai__slurm_version_at(0);
			snprintf(s->path_version, sizeof(s->path_version),
				 "%s", s->version->name);
		}
		s->tentative = 0;
		return PAI_OK;
	}
	snprintf(tried, sizeof(tried), "%s",
		 s->path_version[0] ? s->path_version
				    : pai__slurm_version_at(0)->name);
	s->version = NULL;
	s->tentative = 0;
	if ((err = served(c)))
		return err;
	*again = strcmp(s->path_version, tried) != 0;
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

static int restd_call(json_t **out, pai_client *c, const char *method,
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

/* ---- accounting ---------------------------------------------------------- */

static int restd_db_get(json_t **out, pai_client *c, const char *path)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai__response rs = PAI__RESPONSE_INIT;
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1, 0, 0};
	char *url = NULL;
	int err;

	*out = NULL;
	if ((!s->version || s->tentative) &&
	    (err = pai__slurm_call(NULL, c, "GET", "ping", NULL, 1, NULL)))
		return err;
	if (s->no_dbd || !(s->version->shapes & PAI__SLURM_DBD))
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"slurmrestd at %s serves no accounting",
					c->uri);
	if (asprintf(&url, "%s/slurmdb/%s/%s", c->uri, s->path_version,
		     path) < 0)
		return pai__client_oom(c);
	rq.url = url;
	err = pai__http(c, &rq, &rs);
	free(url);
	if (!err && rs.status == 404 && !own_answer(&rs)) {
		s->no_dbd = 1; /* slurmrestd runs without slurmdbd's plugin */
		err = pai__client_fail(c, PAI_ENOTSUP, 404, NULL,
				       "slurmrestd at %s serves no accounting",
				       c->uri);
	} else if (!err)
		err = answer(out, c, &rs);
	pai__response_release(&rs);
	return err;
}

/* ---- the wire, picked once per client ------------------------------------ */

const struct pai__slurm_ops pai__slurm_restd_ops = {"slurmrestd", restd_call,
						     restd_db_get, NULL};

int pai__slurm_call(json_t **out, pai_client *c, const char *method,
		    const char *path, json_t *body, int safe, int *maybe)
{
	return pai__slurm_of(c)->ops->call(out, c, method, path, body, safe,
					   maybe);
}

int pai__slurm_db_get(json_t **out, pai_client *c, const char *path)
{
	return pai__slurm_of(c)->ops->db_get(out, c, path);
}
