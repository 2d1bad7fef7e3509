/* status.c - the job status and list JSON that OpenPAI v0.x (/api/v1)
 * and v1.x (/api/v2) share, read into pai_job_info; see status.h */
#include "status.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Milliseconds since the epoch from a number, a numeric string or an
 * ISO 8601 UTC time ("2019-02-01T10:00:00.000Z"); 0 when none. */
static long long time_ms(json_t *v)
{
	struct tm tm;
	const char *s = json_string_value(v), *p;
	long long ms = 0;
	char *end;

	if (pai__json_integer(v, &ms))
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

	info->user = pai__json_str(o, "username");
	info->vc = pai__json_str(o, "virtualCluster");
	info->state = state_of(pai__json_str(o, "state"));
	info->substate = pai__json_str(o, "subState");
	info->created_ms = time_ms(json_object_get(o, "createdTime"));
	info->completed_ms = time_ms(json_object_get(o, "completedTime"));
	info->submitted_ms = time_ms(json_object_get(o, "submissionTime"));
	if (!info->submitted_ms)
		info->submitted_ms = info->created_ms;
	if (pai__json_integer(json_object_get(o, "retries"), &n))
		info->retries = (long)n;
	if (pai__json_integer(json_object_get(o, "appExitCode"), &n)) {
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
				else if (pai__json_integer(e, &n))
					pai__buf_printf(&b, "%lld", n);
			}
		} else if (json_is_string(v))
			pai__buf_puts(&b, json_string_value(v));
		else if (pai__json_integer(v, &n))
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
		json_t **j;

		if (!v)
			return PAI_ENOMEM;
		info->tasks = v;
		if (!(j = realloc(info->task_json, ncap * sizeof(*j))))
			return PAI_ENOMEM;
		info->task_json = j;
		*cap = ncap;
	}
	if (!(ports = port_map(json_object_get(t, "containerPorts"))) ||
	    json_array_append_new(info->own, ports) < 0)
		return PAI_ENOMEM;
	info->task_json[info->ntasks] = t;
	ti = &info->tasks[info->ntasks++];
	memset(ti, 0, sizeof(*ti));
	ti->role = role;
	ti->index = pai__json_integer(json_object_get(t, "taskIndex"), &n)
			? (long)n
			: 0;
	ti->state = state_of(pai__json_str(t, "taskState"));
	ti->container_id = pai__json_str(t, "containerId");
	ti->ip = pai__json_str(t, "containerIp");
	ti->ports = ports;
	ti->log_url = pai__json_str(t, "containerLog");
	if (pai__json_integer(json_object_get(t, "containerExitCode"), &n)) {
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
		role =
		    pai__json_str(json_object_get(r, "taskRoleStatus"), "name");
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
		json_t *j1 = info->task_json[i];

		for (j = i; j > first && info->tasks[j - 1].index > t1.index;
		     j--) {
			info->tasks[j] = info->tasks[j - 1];
			info->task_json[j] = info->task_json[j - 1];
		}
		info->tasks[j] = t1;
		info->task_json[j] = j1;
	}
	return PAI_OK;
}

int pai__status_parse(pai_job_info *info, json_t *o)
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
	info->name = pai__json_str(o, "name");
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

int pai__status_list(pai_job_list **out, pai_client *c, const char *url,
		     json_t *a)
{
	pai_job_list *list = NULL;
	json_t *e;
	size_t i;
	int err = PAI_OK;

	*out = NULL;
	if (json_is_object(a) && json_is_array(json_object_get(a, "data"))) {
		json_t *d = json_incref(json_object_get(a, "data"));

		json_decref(a);
		a = d;
	}
	if (!json_is_array(a)) {
		err = pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
				       "GET %s: expected a JSON array", url);
		goto out;
	}
	if (!(list = calloc(1, sizeof(*list))) ||
	    (json_array_size(a) &&
	     !(list->items =
		   calloc(json_array_size(a), sizeof(*list->items))))) {
		err = pai__client_oom(c);
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
		info->name = pai__json_str(e, "name");
		job_fields(info, e);
		list->count++;
	}
	*out = list;
	list = NULL;
out:
	pai_job_list_free(list);
	json_decref(a);
	return err;
}
