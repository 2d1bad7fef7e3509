/* slurm_shapes.c - the versions of slurmrestd's OpenAPI plugins paictl
 * speaks, one row each, and the small adapters between their JSON
 * shapes and the one paictl reads (v0.0.38's, reference/slurm.md):
 * answers are read by their shape, whatever the version (a state as a
 * string or a list of flags, a number plain or {set, infinite, number},
 * an exit code as a wait status or {status, return_code, signal}), and
 * what is sent is written as the version's row says. Knows no
 * transport: slurmrestd's answers, squeue's and sacct's --json read
 * alike (reference/slurm-next/README.md). */
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Newest first. By Slurm's release notes: 22.05 v0.0.36-38, 23.02
 * v0.0.39, 23.11 v0.0.40, 24.05 v0.0.41, 24.11 v0.0.42, 25.05 v0.0.43,
 * 25.11 v0.0.44, 26.05 v0.0.45, each release keeping the two or three
 * before. */
static const struct pai__slurm_version versions[] = {
    {"v0.0.45", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.44", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.43", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.42", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.41", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.40", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.39", PAI__SLURM_ENV_LIST | PAI__SLURM_DBD},
    {"v0.0.38", 0},
    {"v0.0.37", 0},
    {"v0.0.36", 0},
};

const struct pai__slurm_version *pai__slurm_version_at(size_t i)
{
	return i < sizeof(versions) / sizeof(versions[0]) ? &versions[i]
							  : NULL;
}

/* "v0.0.N" as N; -1 for another name. */
long pai__slurm_version_number(const char *v)
{
	char *end;
	long n;

	if (!v || strncmp(v, "v0.0.", 5) != 0 || v[5] < '0' || v[5] > '9')
		return -1;
	n = strtol(v + 5, &end, 10);
	return *end || n > 9999 ? -1 : n;
}

/* ---- answers, read by their shape -------------------------------------- */

/* A number of either shape into *n: 1; 0 for one that is not set, is
 * infinite, or is no number. */
int pai__slurm_number(json_t *v, long long *n)
{
	if (json_is_object(v)) {
		if (!json_is_true(json_object_get(v, "set")) ||
		    json_is_true(json_object_get(v, "infinite")))
			return 0;
		v = json_object_get(v, "number");
	}
	return pai__json_integer(v, n);
}

/* Every member of o that is a {set, infinite, number} as a plain
 * number, or null when it says none. */
static void flatten_numbers(json_t *o)
{
	const char *k;
	json_t *v;
	long long n;

	json_object_foreach(o, k, v)
	{
		if (!json_is_object(v) || !json_object_get(v, "number") ||
		    !json_object_get(v, "set"))
			continue;
		json_object_set_new(o, k, pai__slurm_number(v, &n)
					      ? json_integer((json_int_t)n)
					      : json_null());
	}
}

/* The base state among a list of flags (["RUNNING", "COMPLETING"]): the
 * first; a string as it is; NULL for neither. */
static const char *state_of(json_t *v)
{
	if (json_is_array(v))
		v = json_array_get(v, 0);
	return json_string_value(v);
}

/* An exit code of either shape as the raw wait status v0.0.38 gives:
 * {status, return_code, signal} -> (code << 8) or the signal; -1 when
 * it says neither. */
long long pai__slurm_wait_status(json_t *v)
{
	long long code = 0, sig = 0;
	int has_code, has_sig;

	if (!json_is_object(v))
		return pai__json_integer(v, &code) ? code : -1;
	has_code = pai__slurm_number(json_object_get(v, "return_code"), &code);
	has_sig = pai__slurm_number(
	    json_object_get(json_object_get(v, "signal"), "id"), &sig);
	if (has_sig && sig > 0 && sig < 128)
		return sig;
	if (has_code && code >= 0 && code < 256)
		return code << 8;
	return -1;
}

int pai__slurm_job_read(json_t *j)
{
	json_t *st = json_object_get(j, "job_state"), *ec, *cm;
	const char *s = state_of(st);
	long long w;

	if (!json_is_object(j))
		return PAI_EPROTOCOL;
	flatten_numbers(j);
	if (json_is_array(st) &&
	    json_object_set_new(j, "job_state", s ? json_string(s)
						  : json_null()))
		return PAI_ENOMEM;
	ec = json_object_get(j, "exit_code");
	if (json_is_object(ec)) {
		w = pai__slurm_wait_status(ec);
		if (json_object_set_new(j, "exit_code",
					w >= 0 ? json_integer((json_int_t)w)
					       : json_null()))
			return PAI_ENOMEM;
	}
	/* a comment may come as an object (accounting's): its job's */
	cm = json_object_get(json_object_get(j, "comment"), "job");
	if (json_is_object(json_object_get(j, "comment")) &&
	    json_object_set_new(j, "comment", json_is_string(cm)
						  ? json_incref(cm)
						  : json_null()))
		return PAI_ENOMEM;
	return PAI_OK;
}

int pai__slurm_jobs_read(json_t *answer, json_t **jobs)
{
	json_t *list = json_object_get(answer, "jobs"), *j;
	size_t i;
	int err;

	*jobs = NULL;
	if (!json_is_array(list))
		return PAI_EPROTOCOL;
	json_array_foreach(list, i, j)
	{
		if ((err = pai__slurm_job_read(j)))
			return err;
	}
	*jobs = list;
	return PAI_OK;
}

/* ---- accounting's jobs (slurmdbd's answers, sacct --json) --------------- */

/* o[key] = v (stolen; NULL: left out); 0, or -1 out of memory. */
static int put(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : 0;
}

/* A number of either shape as a JSON integer, or NULL when none. */
static json_t *number(json_t *v)
{
	long long n;

	return pai__slurm_number(v, &n) ? json_integer((json_int_t)n) : NULL;
}

/* A string member as a new JSON string, or NULL. */
static json_t *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? json_string(s) : NULL;
}

int pai__slurm_acct_job_read(json_t **out, json_t *a)
{
	json_t *st = json_object_get(a, "state");
	json_t *t = json_object_get(a, "time"), *het = json_object_get(a, "het");
	json_t *j, *cm = json_object_get(a, "comment");
	const char *state = state_of(json_object_get(st, "current"));
	long long w = pai__slurm_wait_status(json_object_get(a, "exit_code"));

	*out = NULL;
	if (!json_is_object(a) || !json_is_integer(json_object_get(a, "job_id")))
		return PAI_EPROTOCOL;
	if (!(j = json_object()))
		return PAI_ENOMEM;
	if (put(j, "job_id", number(json_object_get(a, "job_id"))) ||
	    put(j, "name", str(a, "name")) ||
	    put(j, "user_name", str(a, "user")) ||
	    put(j, "partition", str(a, "partition")) ||
	    put(j, "nodes", str(a, "nodes")) ||
	    put(j, "job_state", state ? json_string(state) : NULL) ||
	    put(j, "state_reason", str(st, "reason")) ||
	    put(j, "exit_code", w >= 0 ? json_integer((json_int_t)w) : NULL) ||
	    put(j, "submit_time", number(json_object_get(t, "submission"))) ||
	    put(j, "start_time", number(json_object_get(t, "start"))) ||
	    put(j, "end_time", number(json_object_get(t, "end"))) ||
	    put(j, "restart_cnt", number(json_object_get(a, "restart_cnt"))) ||
	    put(j, "het_job_id", number(json_object_get(het, "job_id"))) ||
	    put(j, "het_job_offset",
		number(json_object_get(het, "job_offset"))) ||
	    put(j, "current_working_directory", str(a, "working_directory")) ||
	    /* the job's own comment: kept where AccountingStoreFlags has
	     * job_comment */
	    put(j, "comment", json_is_object(cm) ? str(cm, "job") : str(a,
									"comment")) ||
	    json_object_set_new(j, "accounting", json_true())) {
		json_decref(j);
		return PAI_ENOMEM;
	}
	*out = j;
	return PAI_OK;
}

int pai__slurm_acct_jobs_read(json_t *answer, json_t **jobs)
{
	json_t *list = json_object_get(answer, "jobs"), *a, *j, *out;
	size_t i;
	int err;

	*jobs = NULL;
	if (!json_is_array(list))
		return PAI_EPROTOCOL;
	if (!(out = json_array()))
		return PAI_ENOMEM;
	json_array_foreach(list, i, a)
	{
		if ((err = pai__slurm_acct_job_read(&j, a)) == PAI_ENOMEM ||
		    (!err && json_array_append_new(out, j))) {
			json_decref(out);
			return PAI_ENOMEM;
		}
		/* a record of another shape: skipped, as unknown fields are */
	}
	*jobs = out;
	return PAI_OK;
}

/* ---- what is sent, as the version takes it ------------------------------ */

/* One component's environment {"K": "V"} as ["K=V", ...]. */
static int env_as_list(json_t *comp)
{
	json_t *env = json_object_get(comp, "environment"), *list, *v;
	const char *k;
	pai__buf b = PAI__BUF_INIT;

	if (!json_is_object(env))
		return PAI_OK;
	if (!(list = json_array()))
		return PAI_ENOMEM;
	json_object_foreach(env, k, v)
	{
		b.len = 0;
		pai__buf_printf(&b, "%s=%s", k,
				json_string_value(v) ? json_string_value(v)
						     : "");
		if (b.oom || json_array_append_new(list, json_string(b.data))) {
			pai__buf_release(&b);
			json_decref(list);
			return PAI_ENOMEM;
		}
	}
	pai__buf_release(&b);
	return json_object_set_new(comp, "environment", list) ? PAI_ENOMEM
							      : PAI_OK;
}

int pai__slurm_body_write(json_t *body, const struct pai__slurm_version *v)
{
	json_t *comps = json_object_get(body, "jobs"), *c;
	size_t i;
	int err;

	if (!(v->shapes & PAI__SLURM_ENV_LIST))
		return PAI_OK;
	if ((c = json_object_get(body, "job")) && (err = env_as_list(c)))
		return err;
	json_array_foreach(comps, i, c)
	{
		if ((err = env_as_list(c)))
			return err;
	}
	return PAI_OK;
}
