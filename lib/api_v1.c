/* api_v1.c - OpenPAI v0.x's REST API (/api/v1): the only file that knows
 * its paths and JSON shapes. See openpai-rest-api-v1.md. */
#include "api.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
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

/* GET url; the JSON body of a 2xx answer in *out (new). */
static int get_json(json_t **out, pai_client *c, const char *url)
{
	pai__request rq = {"GET", url, NULL, 0, NULL, NULL, 1};
	pai__response rs = PAI__RESPONSE_INIT;
	int err;

	*out = NULL;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK)
		err = pai__status_error(c, &rq, &rs);
	if (err == PAI_OK)
		err = pai__response_json(out, c, &rq, &rs);
	pai__response_release(&rs);
	return err;
}

int pai__v1_cluster_info(json_t **out, pai_client *c)
{
	pai__buf b = PAI__BUF_INIT;
	char *url;
	int err;

	*out = NULL;
	pai__buf_printf(&b, "%s/api/v1/", c->uri);
	if (!(url = pai__buf_detach(&b)))
		return oom(c);
	err = get_json(out, c, url);
	if (err == PAI_OK && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		err = pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
				       "GET %s: expected a JSON object", url);
	}
	free(url);
	return err;
}

int pai__v1_login(char **token, pai_client *c, const char *user,
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
		err = pai__status_error(c, &rq, &rs);
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

const char *pai__v1_config_job_name(json_t *config)
{
	return json_string_value(json_object_get(config, "jobName"));
}

int pai__v1_post_job(pai_client *c, const char *user, const char *body,
		     size_t len, int *maybe_created)
{
	pai__request rq = {"POST", NULL, body, len, "application/json",
			   NULL,   0};
	pai__response rs = PAI__RESPONSE_INIT;
	char *url = job_url(c, user, NULL, NULL);
	int err;

	*maybe_created = 0;
	if (!url)
		return oom(c);
	rq.url = url;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK) {
		err = pai__status_error(c, &rq, &rs);
		*maybe_created =
		    err != PAI_OK &&
		    (rs.status >= 500 || (err == PAI_ECONFLICT && rs.resent));
	} else
		*maybe_created = rs.sent && err != PAI_ENOMEM;
	pai__response_release(&rs);
	free(url);
	return err;
}

/* ---- reading values that servers send in more than one shape -------- */

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* An integer given as a number or a numeric string; 0 when neither. */
static int integer(json_t *v, long long *out)
{
	const char *s;
	char *end;
	long long n;

	*out = 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 1;
	}
	if (json_is_real(v)) {
		*out = (long long)json_real_value(v);
		return 1;
	}
	if (!(s = json_string_value(v)) || !*s)
		return 0;
	n = strtoll(s, &end, 10);
	if (*end == '.') /* "1549000000000.0" */
		while (isdigit((unsigned char)*++end))
			;
	if (*end)
		return 0;
	*out = n;
	return 1;
}

/* Milliseconds since the epoch from a number, a numeric string or an
 * ISO 8601 UTC time ("2019-02-01T10:00:00.000Z"); 0 when none. */
static long long time_ms(json_t *v)
{
	struct tm tm;
	const char *s = json_string_value(v), *p;
	long long ms = 0;
	char *end;

	if (integer(v, &ms))
		return ms;
	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return 0;
	if (*p == '.') {
		long frac = strtol(p + 1, &end, 10);
		int digits = (int)(end - (p + 1));

		while (digits > 3) {
			frac /= 10;
			digits--;
		}
		while (digits < 3) {
			frac *= 10;
			digits++;
		}
		ms = frac;
		p = end;
	}
	if (*p && strcmp(p, "Z") != 0)
		return 0;
	return (long long)timegm(&tm) * 1000 + ms;
}

static pai_state state_of(const char *s)
{
	pai_state st = PAI_STATE_UNKNOWN;

	if (s && pai_state_from_name(&st, s) != PAI_OK)
		st = PAI_STATE_UNKNOWN;
	return st;
}

/* The fields a job list entry and a job's jobStatus share. */
static void job_fields(pai_job_info *info, json_t *o)
{
	long long n;

	info->user = str(o, "username");
	info->vc = str(o, "virtualCluster");
	info->state = state_of(str(o, "state"));
	info->substate = str(o, "subState");
	info->created_ms = time_ms(json_object_get(o, "createdTime"));
	info->completed_ms = time_ms(json_object_get(o, "completedTime"));
	if (integer(json_object_get(o, "retries"), &n))
		info->retries = (long)n;
	if (integer(json_object_get(o, "appExitCode"), &n)) {
		info->has_exit_code = 1;
		info->exit_code = (int)n;
	}
}

/* label -> "p1,p2" from containerPorts, whose values may be strings,
 * numbers or arrays of them. New object. */
static json_t *port_map(json_t *ports)
{
	json_t *out = json_object(), *v;
	const char *label;

	if (!out || !json_is_object(ports))
		return out;
	json_object_foreach(ports, label, v)
	{
		pai__buf b = PAI__BUF_INIT;
		long long n;
		char *s;
		size_t i;

		if (json_is_array(v)) {
			for (i = 0; i < json_array_size(v); i++) {
				json_t *e = json_array_get(v, i);

				if (i)
					pai__buf_putc(&b, ',');
				if (json_is_string(e))
					pai__buf_puts(&b, json_string_value(e));
				else if (integer(e, &n))
					pai__buf_printf(&b, "%lld", n);
			}
		} else if (json_is_string(v))
			pai__buf_puts(&b, json_string_value(v));
		else if (integer(v, &n))
			pai__buf_printf(&b, "%lld", n);
		else
			continue;
		s = pai__buf_detach(&b);
		if (!s || json_object_set_new(out, label, json_string(s)) < 0) {
			free(s);
			json_decref(out);
			return NULL;
		}
		free(s);
	}
	return out;
}

static int add_task(pai_job_info *info, size_t *cap, const char *role,
		    json_t *t)
{
	pai_task_info *ti;
	json_t *ports;
	long long n;

	if (!json_is_object(t))
		return PAI_EPROTOCOL;
	if (info->ntasks == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		pai_task_info *v = realloc(info->tasks, ncap * sizeof(*v));

		if (!v)
			return PAI_ENOMEM;
		info->tasks = v;
		*cap = ncap;
	}
	if (!(ports = port_map(json_object_get(t, "containerPorts"))) ||
	    json_array_append_new(info->own, ports) < 0)
		return PAI_ENOMEM;
	ti = &info->tasks[info->ntasks++];
	memset(ti, 0, sizeof(*ti));
	ti->role = role;
	ti->index = integer(json_object_get(t, "taskIndex"), &n) ? (long)n : 0;
	ti->state = state_of(str(t, "taskState"));
	ti->container_id = str(t, "containerId");
	ti->ip = str(t, "containerIp");
	ti->ports = ports;
	ti->log_url = str(t, "containerLog");
	if (integer(json_object_get(t, "containerExitCode"), &n)) {
		ti->has_exit_code = 1;
		ti->exit_code = (int)n;
	}
	return PAI_OK;
}

/* One role's tasks: taskStatuses is an array on real servers; the
 * documentation shows one object, or it may map indexes to tasks. */
static int add_role(pai_job_info *info, size_t *cap, const char *role,
		    json_t *r)
{
	json_t *ts = json_object_get(r, "taskStatuses"), *t;
	size_t first = info->ntasks, i, j;
	const char *k;
	int err = PAI_OK;

	if (!role)
		role = str(json_object_get(r, "taskRoleStatus"), "name");
	if (json_is_array(ts)) {
		json_array_foreach(ts, i, t)
		{
			if ((err = add_task(info, cap, role, t)))
				return err;
		}
	} else if (json_is_object(ts) && json_object_get(ts, "taskIndex"))
		err = add_task(info, cap, role, ts);
	else if (json_is_object(ts)) {
		json_object_foreach(ts, k, t)
		{
			if ((err = add_task(info, cap, role, t)))
				return err;
		}
	}
	if (err)
		return err;
	/* by index within the role (insertion sort: stable, usually sorted) */
	for (i = first + 1; i < info->ntasks; i++) {
		pai_task_info t1 = info->tasks[i];

		for (j = i; j > first && info->tasks[j - 1].index > t1.index;
		     j--)
			info->tasks[j] = info->tasks[j - 1];
		info->tasks[j] = t1;
	}
	return PAI_OK;
}

static int parse_status(pai_job_info *info, json_t *o)
{
	json_t *roles = json_object_get(o, "taskRoles"), *r;
	size_t cap = 0, i;
	const char *name;
	int err;

	if (!json_is_object(o) ||
	    !json_is_object(json_object_get(o, "jobStatus")))
		return PAI_EPROTOCOL;
	info->json = json_incref(o);
	if (!(info->own = json_array()))
		return PAI_ENOMEM;
	info->name = str(o, "name");
	job_fields(info, json_object_get(o, "jobStatus"));
	if (json_is_object(roles)) {
		json_object_foreach(roles, name, r)
		{
			if ((err = add_role(info, &cap, name, r)))
				return err;
		}
	} else if (json_is_array(roles)) {
		json_array_foreach(roles, i, r)
		{
			if ((err = add_role(info, &cap, NULL, r)))
				return err;
		}
	}
	return PAI_OK;
}

int pai__v1_job_get(pai_job_info **out, pai_client *c, const char *user,
		    const char *name)
{
	pai_job_info *info = NULL;
	json_t *o = NULL;
	char *url = job_url(c, user, name, NULL);
	int err;

	*out = NULL;
	if (!url)
		return oom(c);
	if ((err = get_json(&o, c, url)))
		goto out;
	if (!(info = calloc(1, sizeof(*info)))) {
		err = oom(c);
		goto out;
	}
	err = parse_status(info, o);
	if (err == PAI_EPROTOCOL)
		err = pai__client_fail(c, err, 200, NULL,
				       "GET %s: not a job status", url);
	else if (err)
		err = oom(c);
	if (err)
		goto out;
	*out = info;
	info = NULL;
out:
	pai_job_info_free(info);
	json_decref(o);
	free(url);
	return err;
}

int pai__v1_jobs_list(pai_job_list **out, pai_client *c, const char *user)
{
	pai_job_list *list = NULL;
	pai__buf b = PAI__BUF_INIT;
	json_t *a = NULL, *e;
	char *url;
	size_t i;
	int err;

	*out = NULL;
	pai__buf_printf(&b, "%s/api/v1/jobs", c->uri);
	if (user) {
		pai__buf_puts(&b, "?username=");
		pai__buf_put_escaped(&b, user);
	}
	if (!(url = pai__buf_detach(&b)))
		return oom(c);
	if ((err = get_json(&a, c, url)))
		goto out;
	if (!json_is_array(a)) {
		err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
				       "GET %s: expected a JSON array", url);
		goto out;
	}
	if (!(list = calloc(1, sizeof(*list))) ||
	    (json_array_size(a) &&
	     !(list->items =
		   calloc(json_array_size(a), sizeof(*list->items))))) {
		err = oom(c);
		goto out;
	}
	list->json = a;
	a = NULL;
	json_array_foreach(list->json, i, e)
	{
		pai_job_info *info = &list->items[i];

		if (!json_is_object(e)) {
			err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
					       "GET %s: entry %zu is not an "
					       "object",
					       url, i);
			goto out;
		}
		info->json = e; /* borrowed: see model.h */
		info->name = str(e, "name");
		job_fields(info, e);
		list->count++;
	}
	*out = list;
	list = NULL;
out:
	pai_job_list_free(list);
	json_decref(a);
	free(url);
	return err;
}

int pai__v1_job_config(char **text, size_t *len, pai_client *c,
		       const char *user, const char *name)
{
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1};
	pai__response rs = PAI__RESPONSE_INIT;
	char *url = job_url(c, user, name, "/config");
	int err;

	*text = NULL;
	*len = 0;
	if (!url)
		return oom(c);
	rq.url = url;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK)
		err = pai__status_error(c, &rq, &rs);
	if (err == PAI_OK) {
		*len = rs.body.len;
		if (!(*text = pai__buf_detach(&rs.body)))
			err = oom(c);
	}
	pai__response_release(&rs);
	free(url);
	return err;
}

int pai__v1_job_stop(pai_client *c, const char *user, const char *name)
{
	static const char body[] = "{\"value\":\"STOP\"}";
	/* idempotent: safe to retry */
	pai__request rq = {
	    "PUT", NULL, body, sizeof(body) - 1, "application/json", NULL, 1};
	pai__response rs = PAI__RESPONSE_INIT;
	char *url = job_url(c, user, name, "/executionType");
	int err;

	if (!url)
		return oom(c);
	rq.url = url;
	err = pai__http(c, &rq, &rs);
	if (err == PAI_OK)
		err = pai__status_error(c, &rq, &rs);
	pai__response_release(&rs);
	free(url);
	return err;
}

int pai__v1_job_ssh(pai_ssh_info **out, pai_client *c, const char *user,
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
	if ((err = get_json(&o, c, url)))
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
		sc->id = str(e, "id");
		sc->ip = str(e, "sshIp");
		integer(json_object_get(e, "sshPort"), &port);
		sc->port = (long)port;
		info->count++;
	}
	kp = json_object_get(info->json, "keyPair");
	info->key_url = str(kp, "privateKeyDirectDownloadLink");
	info->key_name = str(kp, "privateKeyFileName");
	*out = info;
	info = NULL;
out:
	pai_ssh_info_free(info);
	json_decref(o);
	free(url);
	return err;
}
