/* reply.c - what both of the local cluster's REST APIs answer with:
 * replies, the v1 views of a job, and task logs served with their
 * Range (http_int.h) */
#include "http_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- responses ------------------------------------------------------ */

/* Task t's container id as a JSON string (NULL when out of memory). */
json_t *h_container_id(const struct srv_job *j, const struct srv_task *t)
{
	char *id = srv_container_id(j, t);
	json_t *v = id ? json_string(id) : NULL;

	free(id);
	return v;
}

/* Takes body; with name, a header name: value too. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *type, char *body, size_t len,
			     const char *name, const char *value)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* a browser takes every answer as its type says, never as HTML */
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (name)
		MHD_add_response_header(r, name, value);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

enum MHD_Result h_reply_raw(struct MHD_Connection *c, unsigned status,
			    const char *type, char *body, size_t len)
{
	return reply(c, status, type, body, len, NULL, NULL);
}

enum MHD_Result h_reply_job(struct MHD_Connection *c, const struct srv_job *j,
			    json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	char etag[32];

	json_decref(o);
	if (!text)
		return MHD_NO;
	h_job_etag(j, etag, sizeof(etag));
	return reply(c, 200, "application/json; charset=utf-8", text,
		     strlen(text), MHD_HTTP_HEADER_ETAG, etag);
}

enum MHD_Result h_reply_etag(struct MHD_Connection *c, json_t *o,
			     const char *etag)
{
	return h_reply_header(c, 200, o, MHD_HTTP_HEADER_ETAG, etag);
}

enum MHD_Result h_reply_header(struct MHD_Connection *c, unsigned status,
			       json_t *o, const char *name, const char *value)
{
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	if (!text)
		return MHD_NO;
	return reply(c, status, "application/json; charset=utf-8", text,
		     strlen(text), name, value);
}

/* Steals o. */
enum MHD_Result h_reply_json(struct MHD_Connection *c, unsigned status,
			     json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	if (!text)
		return MHD_NO;
	return h_reply_raw(c, status, "application/json; charset=utf-8", text,
			   strlen(text));
}

enum MHD_Result h_reply_error(struct MHD_Connection *c, unsigned status,
			      const char *code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return h_reply_json(
	    c, status, json_pack("{s:s,s:s}", "code", code, "message", msg));
}

enum MHD_Result h_reply_message(struct MHD_Connection *c, unsigned status,
				const char *msg)
{
	return h_reply_json(c, status, json_pack("{s:s}", "message", msg));
}

enum MHD_Result h_no_job(struct MHD_Connection *c, const char *name)
{
	return h_reply_error(c, 404, "NoJobError", "Job %s is not found.",
			     name);
}

/* ---- job views -------------------------------------------------------- */

json_t *h_job_summary(const struct srv_job *j)
{
	long long gpus = 0, tasks = 0;
	size_t r;

	for (r = 0; r < j->nroles; r++) {
		gpus += j->roles[r].gpu * j->roles[r].task_number;
		tasks += j->roles[r].task_number;
	}
	return json_pack(
	    "{s:s,s:s,s:s,s:s,s:s,s:i,s:I,s:o,s:o,s:s,s:I,s:I,s:i}", "name",
	    j->name, "username", j->user, "state", srv_state_name(j->state),
	    "subState",
	    j->state == ST_WAITING ? "FRAMEWORK_WAITING"
	    : j->state == ST_RUNNING
		? (j->stop ? "APPLICATION_STOPPING" : "APPLICATION_RUNNING")
		: "FRAMEWORK_COMPLETED",
	    "executionType", j->stop ? "STOP" : "START", "retries", j->retries,
	    "createdTime", (json_int_t)j->created, "completedTime",
	    j->completed ? json_integer(j->completed) : json_null(),
	    "appExitCode",
	    j->completed && j->exit_code >= 0 ? json_integer(j->exit_code)
					      : json_null(),
	    "virtualCluster", j->vc, "totalGpuNumber", (json_int_t)gpus,
	    "totalTaskNumber", (json_int_t)tasks, "totalTaskRoleNumber",
	    (int)j->nroles);
}

const char *h_conn_host(struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");

	return h && *h ? h : "localhost";
}

/* The members of a job's jobStatus beyond its summary's. */
static void status_members(json_t *st, const struct srv_job *j)
{
	json_object_del(st, "name");
	json_object_del(st, "totalGpuNumber");
	json_object_del(st, "totalTaskNumber");
	json_object_del(st, "totalTaskRoleNumber");
	json_object_set_new(st, "retryDetails",
			    json_pack("{s:i,s:i,s:i}", "user", j->retries,
				      "platform", 0, "resource", 0));
	json_object_set_new(st, "appId", json_string(j->key));
	json_object_set_new(st, "appProgress",
			    json_real(j->completed ? 1.0 : 0.0));
	json_object_set_new(st, "appTrackingUrl", json_string(""));
	json_object_set_new(st, "appLaunchedTime",
			    j->launched ? json_integer(j->launched)
					: json_null());
	json_object_set_new(st, "appCompletedTime",
			    j->completed ? json_integer(j->completed)
					 : json_null());
	json_object_set_new(st, "appExitSpec", json_null());
	json_object_set_new(st, "appExitTriggerMessage",
			    j->diag ? json_string(j->diag) : json_null());
	json_object_set_new(st, "appExitTriggerTaskRoleName",
			    j->trigger_role ? json_string(j->trigger_role)
					    : json_null());
	json_object_set_new(st, "appExitTriggerTaskIndex",
			    j->trigger_index >= 0
				? json_integer(j->trigger_index)
				: json_null());
	json_object_set_new(st, "appExitDiagnostics",
			    j->diag ? json_string(j->diag) : json_null());
	json_object_set_new(st, "appExitType", json_null());
	/* not OpenPAI's: what this machine could not give the job */
	json_object_set_new(st, "localWarnings",
			    j->warnings ? json_string(j->warnings)
					: json_null());
}

/* label -> "port[,port...]" of task t of role sr. */
static json_t *task_ports(const struct srv_role *sr, const struct srv_task *t)
{
	json_t *ports = json_object();
	size_t k, n, off = 0;

	for (k = 0; ports && k < sr->nlabels; k++) {
		char buf[1024];
		size_t len = 0;

		buf[0] = '\0';
		/* at most 100 ports a label (jobs.c) fit; should more come,
		 * the list stops rather than snprintf at buf + len beyond buf,
		 * and the label is left out */
		for (n = 0; n < sr->counts[k]; n++)
			if (len < sizeof(buf))
				len += (size_t)snprintf(
				    buf + len, sizeof(buf) - len, "%s%u",
				    n ? "," : "", t->ports[off + n]);
		off += sr->counts[k];
		if (len < sizeof(buf))
			json_object_set_new(ports, sr->labels[k],
					    json_string(buf));
	}
	return ports;
}

static json_t *task_status(const struct srv_job *j, const struct srv_task *t,
			   const char *host)
{
	const struct srv_role *sr = &j->roles[t->role];
	bool placed = t->state != ST_WAITING;
	bool ended = t->state == ST_SUCCEEDED || t->state == ST_FAILED ||
		     t->state == ST_STOPPED;
	json_t *to = json_object();

	json_object_set_new(to, "taskIndex",
			    json_integer((json_int_t)t->index));
	json_object_set_new(to, "taskState",
			    json_string(srv_state_name(t->state)));
	json_object_set_new(to, "containerId",
			    placed ? h_container_id(j, t) : json_null());
	json_object_set_new(to, "containerIp",
			    placed ? json_string("127.0.0.1") : json_null());
	json_object_set_new(to, "containerPorts",
			    placed ? task_ports(sr, t) : json_null());
	json_object_set_new(to, "containerGpus",
			    json_integer((json_int_t)t->gpus));
	json_object_set_new(
	    to, "containerLog",
	    placed ? json_sprintf("http://%s/api/v1/local/logs/%s/%d/%s/%zu/",
				  host, j->key, j->attempt, sr->name, t->index)
		   : json_null());
	json_object_set_new(to, "containerExitCode",
			    t->exit_code >= 0 && ended
				? json_integer(t->exit_code)
				: json_null());
	if (t->diag)
		json_object_set_new(to, "containerDiagnostics",
				    json_string(t->diag));
	else if (t->state == ST_RUNNING) {
		/* its runtime's progress while it prepares it (a pull) */
		char prep[512];

		if (srv_task_preparing(j, t, prep, sizeof(prep)))
			json_object_set_new(to, "containerDiagnostics",
					    json_sprintf("preparing: %s", prep));
	}
	/* not OpenPAI v0.x's: its v1.x names, for the web pages */
	json_object_set_new(to, "launchedTime",
			    placed && t->started ? json_integer(t->started)
						 : json_null());
	json_object_set_new(to, "completedTime",
			    ended && t->completed ? json_integer(t->completed)
						  : json_null());
	return to;
}

json_t *h_job_detail(const struct srv_job *j, const char *host)
{
	json_t *o = json_object(), *st = h_job_summary(j),
	       *roles = json_object();
	size_t r, i;

	if (!o || !st || !roles) {
		json_decref(o);
		json_decref(st);
		json_decref(roles);
		return NULL;
	}
	status_members(st, j);
	json_object_set_new(o, "name", json_string(j->name));
	json_object_set_new(o, "jobStatus", st);
	for (r = 0; r < j->nroles; r++) {
		const struct srv_role *sr = &j->roles[r];
		json_t *ts = json_array();

		for (i = 0; i < j->ntasks; i++)
			if (j->tasks[i].role == r)
				json_array_append_new(
				    ts, task_status(j, &j->tasks[i], host));
		json_object_set_new(roles, sr->name,
				    json_pack("{s:{s:s},s:o}", "taskRoleStatus",
					      "name", sr->name, "taskStatuses",
					      ts));
	}
	json_object_set_new(o, "taskRoles", roles);
	return o;
}

/* ---- logs ------------------------------------------------------------ */

/* Parses a single "bytes=a-b", "bytes=a-" or "bytes=-n" against size.
 * 1: a range in [*from, *to]; 0: no usable header (send all);
 * -1: unsatisfiable. */
static int parse_range(const char *h, long long size, long long *from,
		       long long *to)
{
	char *end;
	long long a, b;

	if (!h || strncmp(h, "bytes=", 6) != 0 || strchr(h, ','))
		return 0;
	h += 6;
	if (*h == '-') {
		b = strtoll(h + 1, &end, 10);
		if (end == h + 1 || *end || b < 0)
			return 0;
		if (b == 0)
			return -1;
		*from = b > size ? 0 : size - b;
		*to = size - 1;
		return size ? 1 : -1;
	}
	a = strtoll(h, &end, 10);
	if (end == h || *end != '-' || a < 0)
		return 0;
	h = end + 1;
	if (*h) {
		b = strtoll(h, &end, 10);
		if (*end || b < a)
			return 0;
	} else
		b = size - 1;
	if (a >= size)
		return -1;
	*from = a;
	*to = b >= size ? size - 1 : b;
	return 1;
}

/* Whether the task whose log file is at path was started: its monitor
 * writes `status` in the same directory. */
static bool task_started(const char *path)
{
	char *st =
	    srv_printf("%.*s/status", (int)(strrchr(path, '/') - path), path);
	bool ok = st && access(st, F_OK) == 0;

	free(st);
	return ok;
}

char *h_log_path(const struct srv_job *j, long attempt, size_t role, long index,
		 const char *file, bool *starting)
{
	if (role >= j->nroles || index < 0 ||
	    index >= j->roles[role].task_number || attempt < 0 ||
	    attempt > j->attempt)
		return NULL;
	*starting = j->state == ST_RUNNING && attempt == j->attempt;
	return srv_printf("%s/attempt-%ld/%s-%ld/%s", j->dir, attempt,
			  j->roles[role].name, index, file);
}

enum MHD_Result h_log_missing(struct MHD_Connection *c, bool empty)
{
	if (empty)
		return h_reply_raw(c, 404, "text/plain", strdup(""), 0);
	return h_reply_error(c, 404, "NotFoundError", "no such log");
}

static enum MHD_Result unsatisfiable(struct MHD_Connection *c, long long size)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result res;
	char cr[128];

	if (!r)
		return MHD_NO;
	snprintf(cr, sizeof(cr), "bytes */%lld", size);
	MHD_add_response_header(r, "Content-Range", cr);
	res = MHD_queue_response(c, 416, r);
	MHD_destroy_response(r);
	return res;
}

enum MHD_Result h_serve_log(struct MHD_Connection *c, const char *path,
			    bool starting, const char *range, const char *type,
			    bool empty_errors)
{
	struct MHD_Response *r;
	struct stat st;
	long long from = 0, to = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rg;
	enum MHD_Result res;
	char cr[128];

	if (fd < 0 && errno == ENOENT && (starting || task_started(path))) {
		/* a log file appears with its first byte: none yet, or
		 * never, is an empty log */
		memset(&st, 0, sizeof(st));
		st.st_mode = S_IFREG;
	} else if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return h_log_missing(c, empty_errors);
	}
	rg = parse_range(range, (long long)st.st_size, &from, &to);
	if (rg < 0) {
		if (fd >= 0)
			close(fd);
		return unsatisfiable(c, (long long)st.st_size);
	}
	if (rg == 0) {
		from = 0;
		to = (long long)st.st_size - 1;
	}
	if (to < from)
		r = MHD_create_response_from_buffer(0, NULL,
						    MHD_RESPMEM_PERSISTENT);
	else
		r = MHD_create_response_from_fd_at_offset64(
		    (uint64_t)(to - from + 1), fd, (uint64_t)from);
	if (fd >= 0 && (!r || to < from))
		close(fd); /* else the response's now */
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Accept-Ranges", "bytes");
	if (rg > 0) {
		snprintf(cr, sizeof(cr), "bytes %lld-%lld/%lld", from, to,
			 (long long)st.st_size);
		MHD_add_response_header(r, "Content-Range", cr);
	}
	res = MHD_queue_response(c, rg > 0 ? 206 : 200, r);
	MHD_destroy_response(r);
	return res;
}
