/* slurm_status.c - a job's status as the JSON OpenPAI's APIs send
 * (status.h): what Slurm says of the job (its components' states, times
 * and exit), and each task from its record in the job's directory (its
 * node, ports, start, end and exit code) where this machine sees it.
 * A job that slurmctld no longer knows (MinJobAge) is told from its
 * directory's records alone. */
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a status is built from. */
struct build {
	pai_client *c;
	const char *name, *user;
	json_t *comps; /* Slurm's components, or NULL: forgotten */
	json_t *jobrec; /* the job directory's record, or NULL */
	char *dir;     /* the job's directory, or NULL */
	int seen;      /* this machine sees dir (its records) */
	size_t role;   /* the role whose tasks are built */
	char roles[1024];
	char sub[64];
	pai_state state;
	const char *why;
	long long job_id;
	int acct; /* comps are accounting's: slurmctld forgot the job */
	long retries; /* attempts run again (the job's record), or -1 */
};

static long long num(json_t *o, const char *key)
{
	long long n = 0;

	pai__json_integer(json_object_get(o, key), &n);
	return n;
}

/* "label:p0,p1;label2:p2" as label -> "p0,p1". */
static json_t *ports_of(const char *list)
{
	json_t *o = json_object();
	char *copy = list ? strdup(list) : NULL, *save = NULL, *t;

	for (t = copy ? strtok_r(copy, ";", &save) : NULL; o && t;
	     t = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(t, ':');

		if (colon) {
			*colon = '\0';
			json_object_set_new(o, t, json_string(colon + 1));
		}
	}
	free(copy);
	return o;
}

/* A task's state: its record's, else the job's. */
static pai_state task_state(const struct build *b, json_t *rec, int *code)
{
	const char *exit = pai__json_str(rec, "exit");
	const char *stopped = pai__json_str(rec, "stopped");

	*code = -1;
	if (exit) {
		*code = atoi(exit);
		/* stopped by its job's end (another task's), or its stop */
		if (*code && stopped && strcmp(stopped, "1") == 0)
			return PAI_STATE_STOPPED;
		return *code ? PAI_STATE_FAILED : PAI_STATE_SUCCEEDED;
	}
	if (rec) /* started, and not ended: killed with its job */
		return pai_state_is_final(b->state) ? PAI_STATE_STOPPED
						    : PAI_STATE_RUNNING;
	if (b->state == PAI_STATE_RUNNING && b->seen)
		return PAI_STATE_WAITING; /* not started yet */
	return b->state;
}

/* A task's node: its record's; where the records are not seen here,
 * its component's when that has one node. */
static const char *node_of(const struct build *b, json_t *rec)
{
	json_t *comp = json_array_get(
	    b->comps, json_array_size(b->comps) > 1 ? b->role : 0);
	const char *n = pai__json_str(comp, "nodes");

	if (rec || b->seen)
		return pai__json_str(rec, "node");
	return n && *n && !strpbrk(n, "[,") ? n : NULL;
}

/* A task's container, for SSH: "<role>-<index>@<node>"; NULL before
 * it started. */
static const char *container_id(pai__buf *b, const char *role, long i,
				const char *node)
{
	if (!node || !*node)
		return NULL;
	pai__buf_printf(b, "%s-%ld@%s", role, i, node);
	return b->oom ? NULL : b->data;
}

/* The task's earlier attempts (retryCount): each one's exit code and
 * log, from its directory attempt-K/<role>-<index>/; NULL when none. */
static json_t *attempts_of(struct build *b, const char *role, long i)
{
	json_t *list = NULL, *rec, *a;
	char *tdir = NULL, *url;
	const char *x;
	long k;

	for (k = 0; b->dir && k < b->retries && k < 1000; k++) {
		if (asprintf(&tdir, "%s/attempt-%ld/%s-%ld", b->dir, k, role,
			     i) < 0)
			break;
		rec = pai__slurm_record_at(b->c, tdir, "record");
		url = rec ? pai__slurm_task_url(b->c, tdir) : NULL;
		x = pai__json_str(rec, "exit");
		a = json_pack("{s:I,s:s?}", "attempt", (json_int_t)k,
			      "containerLog", url);
		if (a && x)
			json_object_set_new(a, "containerExitCode",
					    json_integer(atoi(x)));
		if (!list)
			list = json_array();
		json_array_append_new(list, a);
		json_decref(rec);
		free(url);
		free(tdir);
		tdir = NULL;
	}
	return list;
}

/* Task i of role, from its record. */
static json_t *task_json(struct build *b, const char *role, long i)
{
	char *tdir = NULL, *url = NULL;
	pai__buf id = PAI__BUF_INIT;
	json_t *rec = NULL, *t;
	const char *node;
	int code;
	pai_state st;

	if (b->dir && asprintf(&tdir, "%s/%s-%ld", b->dir, role, i) < 0)
		tdir = NULL;
	if (tdir)
		rec = pai__slurm_record_at(b->c, tdir, "record");
	st = task_state(b, rec, &code);
	node = st == PAI_STATE_WAITING ? NULL : node_of(b, rec);
	/* a log once the task started (or where it cannot be told) */
	if (tdir && (rec || !b->seen) && st != PAI_STATE_WAITING &&
	    st != PAI_STATE_UNKNOWN)
		url = pai__slurm_task_url(b->c, tdir);
	t = json_pack("{s:I,s:s,s:s?,s:s?,s:s?,s:o,s:s?}", "taskIndex",
		      (json_int_t)i, "taskState", pai_state_name(st),
		      "containerId", container_id(&id, role, i, node),
		      "containerNodeName", node,
		      "containerIp", pai__json_str(rec, "address"),
		      "containerPorts", ports_of(pai__json_str(rec, "ports")),
		      "containerLog", url);
	if (t && code >= 0)
		json_object_set_new(t, "containerExitCode", json_integer(code));
	if (t && b->retries > 0)
		json_object_set_new(t, "attempts", attempts_of(b, role, i));
	json_decref(rec);
	pai__buf_release(&id);
	free(tdir);
	free(url);
	return t;
}

/* taskRoles from "name*n,name*n". */
static json_t *roles_json(struct build *b)
{
	json_t *roles = json_object();
	char *copy = strdup(b->roles), *save = NULL, *t;

	for (t = copy ? strtok_r(copy, ",", &save) : NULL; roles && t;
	     t = strtok_r(NULL, ",", &save)) {
		char *star = strrchr(t, '*');
		long n, i;
		json_t *ts = json_array();

		if (!star || !ts) {
			json_decref(ts);
			continue;
		}
		*star = '\0';
		n = strtol(star + 1, NULL, 10);
		b->role = json_object_size(roles);
		for (i = 0; i < n && i < 100000; i++)
			json_array_append_new(ts, task_json(b, t, i));
		json_object_set_new(roles, t,
				    json_pack("{s:{s:s},s:o}", "taskRoleStatus",
					      "name", t, "taskStatuses", ts));
	}
	free(copy);
	return roles;
}

/* The fields of jobStatus Slurm tells (comps: the job's components). */
static json_t *slurm_job_status(struct build *b)
{
	json_t *lead = json_array_get(b->comps, 0), *js;
	long long end = num(lead, "end_time");
	int code = pai__slurm_exit(json_object_get(lead, "exit_code"));

	js = json_pack("{s:s?,s:s,s:s?,s:s?,s:I,s:I}", "username",
		       pai__json_str(lead, "user_name"), "state",
		       pai_state_name(b->state), "subState",
		       pai__json_str(lead, "job_state"), "virtualCluster",
		       pai__json_str(lead, "partition"), "createdTime",
		       (json_int_t)num(lead, "submit_time") * 1000, "retries",
		       (json_int_t)(b->retries >= 0 ? b->retries
						    : num(lead, "restart_cnt")));
	if (js && pai_state_is_final(b->state) && end > 0)
		json_object_set_new(js, "completedTime",
				    json_integer((json_int_t)end * 1000));
	if (js && pai_state_is_final(b->state) && code >= 0)
		json_object_set_new(js, "appExitCode", json_integer(code));
	if (js && b->why)
		json_object_set_new(js, "appExitDiagnostics",
				    json_string(b->why));
	return js;
}

/* The state a job's record tells, once Slurm has forgotten the job. */
static pai_state record_state(json_t *rec, const char **why)
{
	const char *end = pai__json_str(rec, "end");
	const char *exit = pai__json_str(rec, "exit");
	const char *stopped = pai__json_str(rec, "stopped");

	*why = NULL;
	if (!end || !exit) {
		*why = "the job ended without its record (its node failed, "
		       "or it was killed)";
		return PAI_STATE_FAILED;
	}
	if (stopped && strcmp(stopped, "1") == 0)
		return PAI_STATE_STOPPED;
	return atoi(exit) ? PAI_STATE_FAILED : PAI_STATE_SUCCEEDED;
}

/* jobStatus from the job's record alone. */
static json_t *record_job_status(struct build *b)
{
	json_t *js;
	const char *exit = pai__json_str(b->jobrec, "exit");
	const char *end = pai__json_str(b->jobrec, "end");

	b->state = record_state(b->jobrec, &b->why);
	js = json_pack("{s:s,s:s,s:s,s:I,s:I}", "username", b->user, "state",
		       pai_state_name(b->state), "subState", "FORGOTTEN",
		       "createdTime",
		       (json_int_t)num(b->jobrec, "start") * 1000, "retries",
		       (json_int_t)(b->retries > 0 ? b->retries : 0));
	if (js && end)
		json_object_set_new(js, "completedTime",
				    json_integer(num(b->jobrec, "end") * 1000));
	if (js && exit)
		json_object_set_new(js, "appExitCode", json_integer(atoi(exit)));
	if (js && b->why)
		json_object_set_new(js, "appExitDiagnostics",
				    json_string(b->why));
	return js;
}

/* The "slurm" member: the job as Slurm knows it. */
static json_t *slurm_member(struct build *b)
{
	json_t *lead = json_array_get(b->comps, 0);

	return json_pack("{s:I,s:s,s:s?,s:b,s:b,s:s?,s:s?}", "jobId",
			 (json_int_t)b->job_id, "submission", b->sub, "jobDir",
			 b->dir, "known", b->comps != NULL && !b->acct,
			 "accounting", b->acct, "jobState",
			 pai__json_str(lead, "job_state"), "nodes",
			 pai__json_str(lead, "nodes"));
}

static int build_info(pai_job_info **out, struct build *b)
{
	json_t *js, *doc = NULL;
	pai_job_info *info = NULL;
	int err = PAI_OK;

	*out = NULL;
	b->seen = pai__slurm_seen(b->dir);
	if (b->dir && !b->jobrec)
		b->jobrec = pai__slurm_record_at(b->c, b->dir, "job");
	/* the directory is seen where its record was read: on the login
	 * node's wire, or over SFTP */
	b->seen = b->seen || b->jobrec;
	b->retries = pai__json_str(b->jobrec, "retries")
			 ? atol(pai__json_str(b->jobrec, "retries"))
			 : -1;
	js = b->comps ? slurm_job_status(b) : record_job_status(b);
	if (js)
		doc = json_pack("{s:s,s:o,s:o,s:o}", "name", b->name,
				"jobStatus", js, "taskRoles", roles_json(b),
				"slurm", slurm_member(b));
	if (!doc || !(info = calloc(1, sizeof(*info))))
		err = pai__client_oom(b->c);
	else if ((err = pai__status_parse(info, doc)))
		err = err == PAI_EPROTOCOL ? err : pai__client_oom(b->c);
	json_decref(doc);
	if (err) {
		pai_job_info_free(info);
		return err;
	}
	*out = info;
	return PAI_OK;
}

/* b from Slurm's job lead (of jobs), or NULL: from the directory. */
static int from_slurm(struct build *b, json_t *jobs, json_t *lead)
{
	struct pai__slurm_note n;

	pai__slurm_note(&n, lead);
	snprintf(b->sub, sizeof(b->sub), "%s", n.sub);
	snprintf(b->roles, sizeof(b->roles), "%s", n.roles);
	b->job_id = num(lead, "job_id");
	if (!(b->comps = pai__slurm_components(jobs, lead)))
		return pai__client_oom(b->c);
	b->state = pai__slurm_state(b->comps, &b->why);
	b->dir = pai__slurm_jobdir(b->c, b->name, b->sub);
	return PAI_OK;
}

/* b from the job's directory: its newest submission's record. */
static int from_dir(struct build *b)
{
	char *sub = NULL;
	const char *roles, *id;

	pai__slurm_latest(&sub, b->c, b->name);
	if (sub)
		b->dir = pai__slurm_jobdir(b->c, b->name, sub);
	if (b->dir)
		b->jobrec = pai__slurm_record(b->dir, "job");
	roles = pai__json_str(b->jobrec, "roles");
	id = pai__json_str(b->jobrec, "slurm_job_id");
	if (!roles) {
		free(sub);
		return pai__client_fail(b->c, PAI_ENOTFOUND, 404, NULL,
					"job '%s' not found", b->name);
	}
	snprintf(b->sub, sizeof(b->sub), "%s", sub);
	snprintf(b->roles, sizeof(b->roles), "%s", roles);
	b->job_id = id ? atoll(id) : 0;
	free(sub);
	return PAI_OK;
}

/* The job of id among jobs, or NULL. */
static json_t *job_of(json_t *jobs, long long id)
{
	json_t *j;
	size_t i;

	json_array_foreach(jobs, i, j)
	{
		if (num(j, "job_id") == id)
			return j;
	}
	return NULL;
}

/* b from accounting where slurmctld has forgotten the job: the job the
 * directory's record names (rec: from_dir() found one), else the newest
 * of the name whose comment is paictl's. Without accounting, or when
 * it cannot be read (said to -v), b as the record says; with neither,
 * not found. */
static int from_acct(struct build *b, int rec)
{
	json_t *acct = NULL, *named = NULL, *lead = NULL;
	int err;

	err = pai__slurm_acct_jobs(&acct, b->c, b->user, b->name, 0);
	if (err == PAI_ENOMEM)
		return err;
	if (err && err != PAI_ENOTSUP)
		pai__client_notice(b->c, "accounting not read: %s",
				   pai_client_error(b->c));
	if (!err && rec && b->job_id)
		lead = job_of(acct, b->job_id);
	else if (!err && !rec &&
		 (named = pai__slurm_named(acct, b->user, b->name)))
		lead = json_array_get(named, 0);
	if (lead && !rec)
		err = from_slurm(b, acct, lead);
	else if (lead && !(b->comps = pai__slurm_components(acct, lead)))
		err = pai__client_oom(b->c);
	else if (lead)
		b->state = pai__slurm_state(b->comps, &b->why);
	else
		err = PAI_OK;
	b->acct = lead != NULL;
	json_decref(named);
	json_decref(acct);
	if (!err && !rec && !lead)
		return pai__client_fail(b->c, PAI_ENOTFOUND, 404, NULL,
					"job '%s' not found", b->name);
	return err;
}

int pai__slurm_job_get(pai_job_info **out, const struct pai__api *api,
		       pai_client *c, const char *user, const char *name)
{
	struct build b;
	json_t *jobs = NULL, *named = NULL;
	int err;

	(void)api;
	memset(&b, 0, sizeof(b));
	b.c = c;
	b.name = name;
	b.user = user;
	if ((err = pai__slurm_jobs(&jobs, c)))
		return err;
	if (!(named = pai__slurm_named(jobs, user, name)))
		err = pai__client_oom(c);
	else if (json_array_size(named))
		err = from_slurm(&b, jobs, json_array_get(named, 0));
	else if ((err = from_dir(&b)) == PAI_OK || err == PAI_ENOTFOUND)
		err = from_acct(&b, err == PAI_OK);
	if (!err)
		err = build_info(out, &b);
	json_decref(b.comps);
	json_decref(b.jobrec);
	json_decref(named);
	json_decref(jobs);
	free(b.dir);
	return err;
}

json_t *pai__slurm_info_meta(const pai_job_info *info)
{
	return json_object_get(pai_job_info_json(info), "slurm");
}

/* ---- lists ------------------------------------------------------------- */

static json_t *list_entry(pai_client *c, json_t *jobs, json_t *lead)
{
	struct build b;
	json_t *js = NULL;

	memset(&b, 0, sizeof(b));
	b.c = c;
	if ((b.comps = pai__slurm_components(jobs, lead))) {
		b.state = pai__slurm_state(b.comps, &b.why);
		js = slurm_job_status(&b);
	}
	if (js && json_object_set_new(js, "name",
				      json_string(pai__json_str(lead, "name")))) {
		json_decref(js);
		js = NULL;
	}
	json_decref(b.comps);
	return js;
}

static int by_id(const void *a, const void *b)
{
	long long x = num(*(json_t *const *)a, "job_id");
	long long y = num(*(json_t *const *)b, "job_id");

	return x < y ? -1 : x > y;
}

/* jobs (slurmctld's) with the user's finished ones that accounting has
 * and slurmctld forgot, by id: *all new. Without accounting (or when it
 * cannot be read, said to -v), jobs alone. */
static int with_acct(json_t **all, pai_client *c, json_t *jobs,
		     const char *user, long long since_s)
{
	json_t *acct = NULL, *j, **v;
	size_t i, n;
	int err = user ? pai__slurm_acct_jobs(&acct, c, user, NULL, since_s)
		       : PAI_ENOTSUP;

	if (err == PAI_ENOMEM)
		return err;
	if (err && err != PAI_ENOTSUP)
		pai__client_notice(c, "accounting not read: %s",
				   pai_client_error(c));
	n = json_array_size(jobs) + json_array_size(acct);
	if (!(*all = json_array()) || !(v = calloc(n + 1, sizeof(*v)))) {
		json_decref(*all);
		json_decref(acct);
		return pai__client_oom(c);
	}
	n = 0;
	json_array_foreach(jobs, i, j) v[n++] = j;
	json_array_foreach(acct, i, j)
	{
		if (!job_of(jobs, num(j, "job_id")))
			v[n++] = j;
	}
	qsort(v, n, sizeof(*v), by_id);
	for (i = 0, err = PAI_OK; !err && i < n; i++)
		if (json_array_append(*all, v[i]))
			err = pai__client_oom(c);
	free(v);
	json_decref(acct);
	return err;
}

int pai__slurm_jobs_list(pai_job_list **out, const struct pai__api *api,
			 pai_client *c, const char *user)
{
	return pai__slurm_jobs_since(out, api, c, user, 0);
}

int pai__slurm_jobs_since(pai_job_list **out, const struct pai__api *api,
			  pai_client *c, const char *user, long long since_ms)
{
	json_t *live = NULL, *jobs = NULL, *a = NULL, *j;
	struct pai__slurm_note n;
	char *url = NULL;
	size_t i;
	int err;

	(void)api;
	if ((err = pai__slurm_jobs(&live, c)))
		return err;
	/* accounting from the second since_ms falls in */
	err = with_acct(&jobs, c, live, user, since_ms / 1000);
	json_decref(live);
	if (err)
		return err;
	if (!(a = json_array()) || pai__slurm_url(&url, c, "jobs"))
		err = pai__client_oom(c);
	/* newest first, as OpenPAI lists */
	for (i = json_array_size(jobs); !err && i-- > 0;) {
		const char *u;

		j = json_array_get(jobs, i);
		u = pai__json_str(j, "user_name");
		if (num(j, "het_job_offset") ||
		    (!pai__slurm_note(&n, j) &&
		     !json_is_true(json_object_get(j, "accounting"))) ||
		    (user && (!u || strcmp(u, user) != 0)))
			continue;
		if (json_array_append_new(a, list_entry(c, jobs, j)))
			err = pai__client_oom(c);
	}
	if (!err)
		err = pai__status_list(out, c, url, json_incref(a));
	json_decref(a);
	json_decref(jobs);
	free(url);
	return err;
}
