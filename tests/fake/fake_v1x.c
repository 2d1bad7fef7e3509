/* fake_v1x.c - a test tool, not part of paictl: an OpenPAI v1.8 cluster
 * as a client meets it through pylon, for the command-level tests of what
 * the local cluster cannot show. It follows
 * shared/reference/openpai-v1x-behaviour.md: the /rest-server prefix,
 * nginx's HTML pages, the rest-server's {code, message} errors and odd
 * status codes (a YAML syntax error is a 500 without a code), the job
 * status with framework role names and string ports, the mock state
 * right after submission, STOPPING, log locations on the gateway's
 * origin whose tokens expire, and rate limits.
 *
 *   fake-v1x --port-file FILE [--log FILE] [--log-times]
 *            [--scenario NAME]... [--retry-after N] [--old-job FILE]
 *            [--container-ip TEXT]
 *
 * Listens on 127.0.0.1 (a free port, written to FILE once it answers)
 * until SIGTERM. One user, alice, password secret123. A job moves one
 * step per GET of its status: the mock state (WAITING, no tasks), pods
 * without IPs (WAITING), RUNNING, then SUCCEEDED (FAILED with 255 when
 * a command holds "exit 1", the other tasks STOPPED with -220); a STOP
 * makes it STOPPING, then STOPPED (-210). Logs grow by a line per step.
 * Times are the real ones (submissionTime when the POST came); every
 * answer has a Date. The rest-server's rate limits as deployed, fixed
 * windows as express-rate-limit keeps them: 600 requests a minute from
 * an address, 120 job lists a minute and 3600 submissions an hour per
 * user; over one, 429 with a text/html body and Retry-After the
 * window's length (60, 60, 3600). The log-managers have none.
 * Scenarios:
 *   drop-post     the first submission's answer is never sent: the
 *                 connection is closed (after the job was made, or
 *                 after a 409 when a job of that name was there)
 *   rate-limit    the first submission and the first GET of a job's
 *                 status get 429, Retry-After 1 (the limiter answers
 *                 before the handler: nothing is done with them)
 *   limit-status  the first GET of a job's status gets 429 with
 *                 Retry-After N (--retry-after, default 1)
 *   html-502      the first GET of the job list gets nginx's 502 page
 *   log-expire    a log location's token is good for one read
 *   chatty        jobs run until stopped, and a running task's log
 *                 grows on every read of it, 37 bytes (a line cut
 *                 anywhere), as a training loop's does
 * --old-job FILE: a job of that config (YAML), submitted an hour ago.
 * --container-ip TEXT: every running task's containerIp, as it is (a
 * hostile cluster's, for ssh-config's tests).
 * --log FILE gets "METHOD PATH STATUS" per request, tokens masked;
 * with --log-times each line ends " +MS", the ms since the start. */
#include "../unit/fake_openpai.h"
#include "pai.h"

#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS 64
#define MAX_ROLES 8
#define MAX_TOKENS 64

struct role {
	char name[64], fw[64];
	int instances;
	bool fails;
};

struct job {
	char name[128];
	json_t *config; /* as stored: secrets masked */
	struct role roles[MAX_ROLES];
	int nroles, step, stop; /* stop: 0, 1 asked, 2 seen STOPPING */
	bool over;
	long long submitted, launched, completed; /* epoch ms; 0: not yet */
	size_t log_len[MAX_ROLES][2]; /* chatty: each task's log so far */
};

/* A rate limit's fixed window (express-rate-limit's MemoryStore). */
struct limit {
	int max;
	long long window_ms, start;
	int hits;
};

static struct state {
	struct job jobs[MAX_JOBS];
	int njobs;
	char log_tokens[MAX_TOKENS][40];
	int log_uses[MAX_TOKENS], ntokens;
	bool drop_post, rate_limit, html_502, log_expire, chatty;
	bool limit_status, log_times;
	bool posted, limited, post_limited, failed_502;
	int retry_after;
	const char *container_ip; /* NULL: 10.0.0.N */
	struct limit per_ip, lists, submissions;
	long long started;
	FILE *log;
} st;

static volatile sig_atomic_t done;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

/* ---- answers ----------------------------------------------------------- */

static void nginx(fake_reply *rp, int status, const char *phrase)
{
	fake_reply_set(rp, status, "text/html",
		       "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n"
		       "<center><h1>%d %s</h1></center>\r\n<hr><center>nginx/"
		       "1.17.6</center>\r\n</body>\r\n</html>\r\n",
		       status, phrase, status, phrase);
	rp->headers = "Server: nginx/1.17.6\r\n";
}

static void send_json(fake_reply *rp, int status, json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT);

	fake_reply_set(rp, status, "application/json; charset=utf-8", "%s",
		       text ? text : "null");
	rp->headers = "Server: nginx/1.17.6\r\nX-Powered-By: Express\r\n";
	free(text);
	json_decref(o);
}

static void error(fake_reply *rp, int status, const char *code,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void error(fake_reply *rp, int status, const char *code,
		  const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	send_json(rp, status,
		  code ? json_pack("{s:s,s:s}", "code", code, "message", msg)
		       : json_pack("{s:s}", "message", msg));
}

/* ---- rate limits --------------------------------------------------------- */

/* Counts a request against l (each counts, refused or not, as
 * express-rate-limit counts them): false within the limit, else true
 * with the 429 set. Windows are fixed, from the start, as its
 * MemoryStore resets every count at once. */
static bool over_limit(struct limit *l, fake_reply *rp)
{
	static char hdr[3][80];
	static int next;
	long long now = now_ms();
	char *h = hdr[next++ % 3];

	if (now - l->start >= l->window_ms) {
		l->start = now - (now - st.started) % l->window_ms;
		l->hits = 0;
	}
	if (++l->hits <= l->max)
		return false;
	fake_reply_set(rp, 429, "text/html",
		       "Too many requests, please try again later.");
	snprintf(h, 80, "Server: nginx/1.17.6\r\nRetry-After: %lld\r\n",
		 l->window_ms / 1000);
	rp->headers = h;
	return true;
}

/* ---- helpers ------------------------------------------------------------- */

static const char *query(const char *path, const char *key, char *buf,
			 size_t len)
{
	const char *q = strchr(path, '?'), *p;
	size_t k = strlen(key), n;

	for (p = q; p && *p; p = strchr(p + 1, '&')) {
		if (strncmp(p + 1, key, k) == 0 && p[1 + k] == '=') {
			n = strcspn(p + 2 + k, "&");
			if (n >= len)
				n = len - 1;
			memcpy(buf, p + 2 + k, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

static bool authorized(const fake_request *rq, fake_reply *rp)
{
	char h[256];

	if (!fake_header(rq, "Authorization", h, sizeof(h))) {
		error(rp, 401, "UnauthorizedUserError",
		      "Guest is not allowed to do this operation.");
		return false;
	}
	if (strcmp(h, "Bearer eyJhbGciOiJIUzI1NiJ9.eyJ1c2VybmFtZSI6ImFsaWNlIn0."
		      "c2lnbmF0dXJl") != 0) {
		error(rp, 401, "UnauthorizedUserError", "Your token is invalid.");
		return false;
	}
	return true;
}

static struct job *find_job(const char *ref)
{
	int i;

	if (strncmp(ref, "alice~", 6) != 0)
		return NULL;
	for (i = 0; i < st.njobs; i++)
		if (strcmp(st.jobs[i].name, ref + 6) == 0)
			return &st.jobs[i];
	return NULL;
}

static void framework_name(char *out, size_t len, const char *s)
{
	size_t k = 0;

	for (; *s && k + 1 < len; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
			out[k++] = *s;
		else if (*s >= 'A' && *s <= 'Z')
			out[k++] = (char)(*s - 'A' + 'a');
	out[k] = '\0';
}

/* ---- login ----------------------------------------------------------------- */

static void login(const fake_request *rq, fake_reply *rp)
{
	json_t *b = json_loads(rq->body ? rq->body : "", 0, NULL);
	const char *u = json_string_value(json_object_get(b, "username"));
	const char *p = json_string_value(json_object_get(b, "password"));

	if (!u || !p)
		error(rp, 400, "InvalidParametersError",
		      "child \"username\" fails because [\"username\" is "
		      "required]");
	else if (strlen(p) < 6)
		error(rp, 400, "InvalidParametersError",
		      "child \"password\" fails because [\"password\" length "
		      "must be at least 6 characters long]");
	else if (strcmp(u, "alice") != 0)
		error(rp, 400, "NoUserError", "User %s is not found.", u);
	else if (strcmp(p, "secret123") != 0)
		error(rp, 400, "IncorrectPasswordError",
		      "Password is incorrect.");
	else
		send_json(rp, 200,
			  json_pack("{s:s,s:s,s:b}", "user", "alice", "token",
				    "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VybmFtZSI6ImFs"
				    "aWNlIn0.c2lnbmF0dXJl",
				    "admin", 0));
	json_decref(b);
}

/* ---- submission ------------------------------------------------------------ */

/* ajv's list for the first error, as InvalidProtocolError's message. */
static void invalid(fake_reply *rp, const pai_diags *d)
{
	const pai_diag *e = pai_diags_count(d) ? pai_diags_get(d, 0) : NULL;
	json_t *list = json_pack(
	    "[{s:s,s:s,s:s,s:{},s:s}]", "keyword", "pattern", "dataPath",
	    e && *e->path ? e->path : "", "schemaPath", "base.json#",
	    "params", "message", e ? e->message : "should be object");
	char *text = json_dumps(list, JSON_COMPACT);

	error(rp, 400, "InvalidProtocolError", "%s", text ? text : "[]");
	free(text);
	json_decref(list);
}

static void store(const pai_job *pj, json_t *cfg)
{
	struct job *j = &st.jobs[st.njobs++];
	size_t r;

	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", pai_job_name(pj));
	j->submitted = now_ms();
	j->config = json_deep_copy(cfg);
	if (json_object_get(j->config, "secrets"))
		json_object_set_new(j->config, "secrets", json_string("******"));
	for (r = 0; r < pai_job_role_count(pj) && r < MAX_ROLES; r++) {
		struct role *ro = &j->roles[j->nroles++];
		pai_role pr;

		pai_job_role(&pr, pj, r);
		snprintf(ro->name, sizeof(ro->name), "%s", pr.name);
		framework_name(ro->fw, sizeof(ro->fw), pr.name);
		ro->instances = (int)pr.task_number;
		ro->fails = pr.command && strstr(pr.command, "exit 1");
	}
}

static void submit(const fake_request *rq, fake_reply *rp)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_diags *d = NULL;
	pai_job *pj = NULL;
	json_t *cfg;
	const char *vc;
	int err;

	pai_diags_new(&d);
	o.format = PAI_FORMAT_V2;
	err = pai_job_parse(&pj, d, "job", rq->body ? rq->body : "",
			    rq->body_len, &o);
	if (err == PAI_ESYNTAX)
		error(rp, 500, NULL, "%s at line %u, column %u:",
		      pai_diags_get(d, 0)->message, pai_diags_get(d, 0)->line,
		      pai_diags_get(d, 0)->column);
	else if (err)
		invalid(rp, d);
	else {
		char ref[160];

		cfg = pai_job_config(pj);
		vc = json_string_value(json_object_get(
		    json_object_get(cfg, "defaults"), "virtualCluster"));
		snprintf(ref, sizeof(ref), "alice~%s", pai_job_name(pj));
		if (find_job(ref))
			error(rp, 409, "ConflictJobError",
			      "Job %s already exists.", ref);
		else if (vc && strcmp(vc, "default") != 0)
			error(rp, 403, "ForbiddenUserError",
			      "User alice is not allowed to do operation in %s",
			      vc);
		else if (st.njobs < MAX_JOBS) {
			store(pj, cfg);
			send_json(rp, 202,
				  json_pack("{s:i,s:s+++}", "status", 202,
					    "message", "Update job ",
					    pai_job_name(pj), " for user ",
					    "alice"));
		}
	}
	pai_job_free(pj);
	pai_diags_free(d);
}

/* ---- the status ------------------------------------------------------------ */

static const char *job_state(const struct job *j)
{
	if (j->stop == 2)
		return j->over ? "STOPPED" : "STOPPING";
	if (j->step <= 1)
		return "WAITING";
	if (j->step == 2)
		return "RUNNING";
	for (int r = 0; r < j->nroles; r++)
		if (j->roles[r].fails)
			return "FAILED";
	return "SUCCEEDED";
}

static json_t *task_json(const struct job *j, const struct role *ro, int i,
			 int n)
{
	const char *js = job_state(j);
	bool up = j->step >= 2 || j->stop;
	bool end = strcmp(js, "WAITING") && strcmp(js, "RUNNING") &&
		   strcmp(js, "STOPPING");
	const char *ts = !end		     ? js
			 : strcmp(js, "FAILED") ? js
			 : ro->fails		     ? "FAILED"
						     : "STOPPED";
	int code = !end ? 0
		   : strcmp(js, "STOPPED") == 0 ? -210
		   : strcmp(ts, "FAILED") == 0	? 255
		   : strcmp(ts, "STOPPED") == 0 ? -220
						: 0;

	json_t *t = json_pack("{s:i,s:s,s:s,s:s+}", "taskIndex", i, "taskUid",
			      "0b2f-uid", "taskState", ts, "containerId",
			      "pod-", ro->fw);

	json_object_set_new(t, "containerIp",
			    !up		       ? json_null()
			    : st.container_ip ? json_string(st.container_ip)
					       : json_sprintf("10.0.0.%d", 5 + n));
	json_object_set_new(t, "containerNodeName",
			    up ? json_sprintf("node-%d", n) : json_null());
	/* ports as strings, hashed into 15000..40000 on a real cluster */
	json_object_set_new(t, "containerPorts",
			    json_pack("{s:s,s:s}", "ssh", "23456", "http",
				      "15678"));
	json_object_set_new(t, "containerGpus", json_null());
	json_object_set_new(t, "containerLog",
			    json_sprintf("/api/v2/jobs/alice~%s/attempts/0/"
					 "taskRoles/%s/taskIndex/%d/attempts/"
					 "0/logs",
					 j->name, ro->fw, i));
	json_object_set_new(t, "containerExitCode",
			    end ? json_integer(code) : json_null());
	json_object_set_new(t, "retries", json_integer(0));
	return t;
}

static json_t *status_json(const struct job *j)
{
	const char *js = job_state(j);
	json_t *roles = json_object();
	int r, i, n = 0;
	bool end = strcmp(js, "WAITING") && strcmp(js, "RUNNING") &&
		   strcmp(js, "STOPPING");

	for (r = 0; j->step >= 1 && r < j->nroles; r++) {
		json_t *ts = json_array();

		for (i = 0; i < j->roles[r].instances && i < 2; i++)
			json_array_append_new(
			    ts, task_json(j, &j->roles[r], i, n++));
		json_object_set_new(roles, j->roles[r].fw,
				    json_pack("{s:{s:s},s:o}", "taskRoleStatus",
					      "name", j->roles[r].fw,
					      "taskStatuses", ts));
	}
	return json_pack(
	    "{s:s,s:s,s:[],s:{s:s,s:s,s:s,s:s,s:i,s:o,s:o,s:o,s:o,s:s},s:o}",
	    "debugId", "5e1d", "name", j->name, "tags", "jobStatus", "username",
	    "alice", "state", js, "subState",
	    j->step == 0   ? "AttemptCreationPending"
	    : j->step == 1 ? "AttemptPreparing"
			   : "AttemptRunning",
	    "executionType", j->stop ? "STOP" : "START", "retries", 0,
	    "createdTime", json_integer(j->submitted), "launchedTime",
	    j->launched ? json_integer(j->launched) : json_null(),
	    "completedTime",
	    end && j->completed ? json_integer(j->completed) : json_null(),
	    "appExitCode",
	    !end			 ? json_null()
	    : strcmp(js, "STOPPED") == 0 ? json_integer(-210)
	    : strcmp(js, "FAILED") == 0	 ? json_integer(255)
					 : json_integer(0),
	    "virtualCluster", "default", "taskRoles", roles);
}

/* The status, with v1.x's submissionTime: when the POST came. */
static json_t *status_of(const struct job *j)
{
	json_t *o = status_json(j);

	json_object_set_new(json_object_get(o, "jobStatus"), "submissionTime",
			    json_integer(j->submitted));
	return o;
}

/* A GET of the status moves the job on, as v1.x's does (a chatty job
 * runs until stopped). */
static void advance(struct job *j)
{
	if (j->stop == 1)
		j->stop = 2;
	else if (j->stop == 2)
		j->over = true;
	else if (j->step < (st.chatty ? 2 : 3))
		j->step++;
	if (j->step >= 2 && !j->launched)
		j->launched = now_ms();
	if (!j->completed && (j->over || (j->step == 3 && !j->stop)))
		j->completed = now_ms();
}

/* ---- logs ---------------------------------------------------------------- */

/* The first len bytes of a task's log: "line K of ROLE-INDEX" lines, the
 * last one perhaps cut. New string. */
static char *log_bytes(const char *role, int index, size_t len)
{
	char *buf = malloc(len + 64);
	size_t n = 0;
	int k;

	for (k = 1; buf && n < len; k++)
		n += (size_t)snprintf(buf + n, 64, "line %d of %s-%d\n", k,
				      role, index);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* How long a task's log is now: two lines a step, or (chatty) what it
 * has grown to, 37 bytes more on every read while the job runs. */
static size_t log_length(struct job *j, const char *role, int index)
{
	int r, lines = j->step >= 2 ? (j->step - 1) * 2 : 0;
	size_t len;

	for (r = 0; st.chatty && r < j->nroles; r++) {
		if (strcmp(j->roles[r].fw, role) != 0 || index < 0 || index > 1)
			continue;
		if (strcmp(job_state(j), "RUNNING") == 0)
			j->log_len[r][index] += 37;
		return j->log_len[r][index];
	}
	for (r = 1, len = 0; r <= lines; r++)
		len += (size_t)snprintf(NULL, 0, "line %d of %s-%d\n", r, role,
					index);
	return len;
}

static void log_text(fake_reply *rp, struct job *j, const char *role, int index,
		     const char *range)
{
	size_t len = log_length(j, role, index), from = 0;
	char *buf = log_bytes(role, index, len);

	rp->headers = "Server: nginx/1.17.6\r\nAccept-Ranges: bytes\r\n";
	if (!buf)
		fake_reply_set(rp, 500, "text/html", NULL);
	else if (range && sscanf(range, "bytes=%zu-", &from) == 1 &&
		 from >= len)
		nginx(rp, 416, "Requested Range Not Satisfiable");
	else if (range && from)
		fake_reply_set(rp, 206, "application/octet-stream", "%s",
			       buf + from);
	else
		fake_reply_set(rp, 200, "application/octet-stream", "%s", buf);
	free(buf);
}

static void log_manager(const fake_request *rq, fake_reply *rp)
{
	char tok[64], fw[160], role[64], idx[16], range[64];
	struct job *j;
	int t;

	if (!query(rq->path, "token", tok, sizeof(tok)))
		return fake_reply_set(rp, 403, "text/html", NULL);
	for (t = 0; t < st.ntokens; t++)
		if (strcmp(st.log_tokens[t], tok) == 0)
			break;
	if (t == st.ntokens || (st.log_expire && st.log_uses[t] >= 1))
		return fake_reply_set(rp, 403, "text/html", NULL);
	st.log_uses[t]++;
	if (!query(rq->path, "framework-name", fw, sizeof(fw)) ||
	    !query(rq->path, "taskrole", role, sizeof(role)) ||
	    !query(rq->path, "pod-uid", idx, sizeof(idx)) ||
	    !(j = find_job(fw)))
		return fake_reply_set(rp, 400, "text/html", NULL);
	log_text(rp, j, role, atoi(idx),
		 fake_header(rq, "Range", range, sizeof(range)));
}

static void locations(fake_reply *rp, const struct job *j, const char *role,
		      const char *index, bool tail)
{
	static const char *const names[] = {"runtime.log", "stderr", "all",
					    "init.log", "stdout"};
	static const char *const files[] = {"runtime.log", "user-stderr",
					    "user-all", "init.log",
					    "user-stdout"};
	json_t *a = json_array();
	int k, t = st.ntokens++ % MAX_TOKENS;

	snprintf(st.log_tokens[t], sizeof(st.log_tokens[t]), "eyJsb2cifQ.%d",
		 st.ntokens);
	st.log_uses[t] = 0;
	if (st.ntokens > MAX_TOKENS)
		st.ntokens = MAX_TOKENS;
	for (k = 0; k < 5; k++)
		json_array_append_new(
		    a, json_pack("{s:s,s:o}", "name", names[k], "uri",
				 json_sprintf("/log-manager/10.0.0.5:9103/api/"
					      "v1/logs/%s?username=alice&"
					      "framework-name=alice~%s&"
					      "pod-uid=%s&taskrole=%s&token=%s%s",
					      files[k], j->name, index, role,
					      st.log_tokens[t],
					      tail ? "&tail-mode=true" : "")));
	send_json(rp, 200, json_pack("{s:o}", "locations", a));
}

/* ---- routes -------------------------------------------------------------- */

static void job_routes(const fake_request *rq, fake_reply *rp,
		       const char *rest)
{
	char ref[200], role[64], index[16];
	const char *slash = strchr(rest, '/');
	size_t n = slash ? (size_t)(slash - rest) : strcspn(rest, "?");
	struct job *j;
	bool get = strcmp(rq->method, "GET") == 0;

	snprintf(ref, sizeof(ref), "%.*s", (int)n, rest);
	j = find_job(ref);
	if (!slash && get && j && (st.rate_limit || st.limit_status) &&
	    !st.limited) {
		static char hdr[80];

		st.limited = true;
		fake_reply_set(rp, 429, "text/html",
			       "Too many requests, please try again later.");
		snprintf(hdr, sizeof(hdr),
			 "Server: nginx/1.17.6\r\nRetry-After: %d\r\n",
			 st.retry_after);
		rp->headers = hdr;
		return;
	}
	if (slash && strcmp(slash, "/ssh") == 0)
		return error(rp, 404, "NoJobSshInfoError",
			     "SSH info of job %s is not found.", ref);
	if (!j)
		return error(rp, 404, "NoJobError", "Job %s is not found.", ref);
	if (!slash && get) {
		advance(j);
		return send_json(rp, 200, status_of(j));
	}
	if (slash && get && strcmp(slash, "/config") == 0) {
		char *t = json_dumps(j->config, JSON_COMPACT);

		fake_reply_set(rp, 200, "text/yaml; charset=utf-8", "%s", t);
		free(t);
		return;
	}
	if (slash && strcmp(rq->method, "PUT") == 0 &&
	    strcmp(slash, "/executionType") == 0) {
		if (!j->stop && !strstr(job_state(j), "ED"))
			j->stop = 1;
		return send_json(rp, 202,
				 json_pack("{s:i,s:s++}", "status", 202,
					   "message", "Execute job ", ref,
					   " successfully."));
	}
	if (slash && get &&
	    sscanf(slash, "/attempts/0/taskRoles/%63[^/]/taskIndex/%15[^/]",
		   role, index) == 2 &&
	    strstr(slash, "/attempts/0/logs")) {
		if (j->step < 1)
			return error(rp, 500, "UnknownError",
				     "Failed to get log list");
		if (j->step < 2)
			return error(rp, 404, "NoTaskLogError",
				     "Log of task is not found.");
		return locations(rp, j, role, index,
				 strstr(slash, "tail-mode=true") != NULL);
	}
	error(rp, 404, "NoApiError", "API %s is not found.", rq->path + 12);
}

static void list(const fake_request *rq, fake_reply *rp)
{
	json_t *a = json_array();
	int i;

	(void)rq;
	if (st.html_502 && !st.failed_502) {
		st.failed_502 = true;
		return nginx(rp, 502, "Bad Gateway");
	}
	for (i = st.njobs - 1; i >= 0; i--) {
		json_t *s = status_of(&st.jobs[i]), *js;

		js = json_deep_copy(json_object_get(s, "jobStatus"));
		json_object_set_new(js, "name", json_string(st.jobs[i].name));
		json_object_set_new(js, "debugId", json_string("5e1d"));
		json_array_append_new(a, js);
		json_decref(s);
	}
	send_json(rp, 200, a);
}

static void rest(const fake_request *rq, fake_reply *rp, const char *p)
{
	bool get = strcmp(rq->method, "GET") == 0;

	/* the rest-server's own limit comes first: its app-wide middleware */
	if (over_limit(&st.per_ip, rp))
		return;
	if (get && (strcmp(p, "/api/v2/info") == 0 ||
		    strcmp(p, "/api/v1") == 0 || strcmp(p, "/api/v1/") == 0))
		return send_json(rp, 200,
				 json_pack("{s:s,s:s,s:s,s:s}", "name",
					   "PAI RESTful API", "version",
					   "v1.8.0", "launcherType", "k8s",
					   "authnMethod", "basic"));
	if (strcmp(rq->method, "POST") == 0 &&
	    strcmp(p, "/api/v2/authn/basic/login") == 0)
		return login(rq, rp);
	if (strncmp(p, "/api/v2/jobs", 12) == 0 && !authorized(rq, rp))
		return;
	if (strcmp(rq->method, "POST") == 0 && strcmp(p, "/api/v2/jobs") == 0 &&
	    over_limit(&st.submissions, rp))
		return;
	if (get && strncmp(p, "/api/v2/jobs", 12) == 0 &&
	    (p[12] == '\0' || p[12] == '?') && over_limit(&st.lists, rp))
		return;
	if (strcmp(rq->method, "POST") == 0 && strcmp(p, "/api/v2/jobs") == 0 &&
	    st.rate_limit && !st.post_limited) {
		st.post_limited = true;
		fake_reply_set(rp, 429, "text/html",
			       "Too many requests, please try again later.");
		rp->headers = "Server: nginx/1.17.6\r\nRetry-After: 1\r\n";
		return;
	}
	if (strcmp(rq->method, "POST") == 0 && strcmp(p, "/api/v2/jobs") == 0) {
		submit(rq, rp);
		/* whatever it was, its answer is lost */
		rp->drop = st.drop_post && !st.posted;
		st.posted = true;
		return;
	}
	if (get && strncmp(p, "/api/v2/jobs", 12) == 0 &&
	    (p[12] == '\0' || p[12] == '?'))
		return list(rq, rp);
	if (strncmp(p, "/api/v2/jobs/", 13) == 0)
		return job_routes(rq, rp, p + 13);
	error(rp, 404, "NoApiError", "API %s is not found.", p);
}

static void handle(void *data, const fake_request *rq, fake_reply *rp)
{
	(void)data;
	if (strncmp(rq->path, "/rest-server/", 13) == 0)
		rest(rq, rp, rq->path + 12);
	else if (strncmp(rq->path, "/log-manager/", 13) == 0)
		log_manager(rq, rp);
	else
		nginx(rp, 404, "Not Found");
	if (st.log) {
		char path[2048], *t;

		snprintf(path, sizeof(path), "%s", rq->path);
		if ((t = strstr(path, "token=")))
			snprintf(t, sizeof(path) - (size_t)(t - path),
				 "token=***");
		fprintf(st.log, "%s %s %d%s", rq->method, path, rp->status,
			rp->drop ? " (dropped)" : "");
		if (st.log_times)
			fprintf(st.log, " +%lld", now_ms() - st.started);
		fputc('\n', st.log);
		fflush(st.log);
	}
}

/* --old-job FILE: that config, submitted (and done) an hour ago. */
static int old_job(const char *path)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_diags *d = NULL;
	pai_job *pj = NULL;
	char *text = NULL;
	size_t len = 0;
	struct job *j;
	int err;

	o.format = PAI_FORMAT_V2;
	err = pai_file_read(&text, &len, NULL, path);
	if (!err && !(err = pai_diags_new(&d)))
		err = pai_job_parse(&pj, d, path, text, len, &o);
	if (!err) {
		store(pj, pai_job_config(pj));
		j = &st.jobs[st.njobs - 1];
		j->submitted = now_ms() - 3600 * 1000;
		j->launched = j->submitted + 1000;
		j->completed = j->submitted + 60 * 1000;
		j->step = 3;
	}
	pai_job_free(pj);
	pai_diags_free(d);
	free(text);
	return err ? -1 : 0;
}

static int scenario(const char *name)
{
	static const char *const names[] = {"drop-post", "rate-limit",
					    "html-502",	 "log-expire",
					    "chatty",	 "limit-status"};
	bool *flags[] = {&st.drop_post,	 &st.rate_limit, &st.html_502,
			 &st.log_expire, &st.chatty,	 &st.limit_status};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0) {
			*flags[i] = true;
			return 0;
		}
	return -1;
}

static int options(int argc, char **argv, const char **port_file)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--log-times") == 0) {
			st.log_times = true;
			continue;
		}
		if (!v)
			return -1;
		if (strcmp(argv[i], "--port-file") == 0)
			*port_file = v;
		else if (strcmp(argv[i], "--log") == 0)
			st.log = fopen(v, "a");
		else if (strcmp(argv[i], "--scenario") == 0) {
			if (scenario(v) < 0)
				return -1;
		} else if (strcmp(argv[i], "--retry-after") == 0)
			st.retry_after = atoi(v);
		else if (strcmp(argv[i], "--container-ip") == 0)
			st.container_ip = v;
		else if (strcmp(argv[i], "--old-job") == 0) {
			if (old_job(v) < 0)
				return -1;
		} else
			return -1;
		i++;
	}
	return *port_file ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL;
	fake_server *f = NULL;
	char tmp[4096];
	FILE *pf;
	int i;

	st.started = now_ms();
	st.retry_after = 1;
	st.per_ip = (struct limit){600, 60 * 1000, st.started, 0};
	st.lists = (struct limit){120, 60 * 1000, st.started, 0};
	st.submissions = (struct limit){3600, 3600 * 1000, st.started, 0};
	if (options(argc, argv, &port_file) < 0) {
		fprintf(stderr,
			"usage: fake-v1x --port-file FILE [--log FILE] "
			"[--log-times] [--scenario NAME]... [--retry-after N] "
			"[--old-job FILE] [--container-ip TEXT]\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	if (fake_start(&f, "127.0.0.1", handle, NULL) < 0)
		return 1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	if (!(pf = fopen(tmp, "w")) || fprintf(pf, "%u\n", fake_port(f)) < 0 ||
	    fclose(pf) != 0 || rename(tmp, port_file) < 0)
		return 1;
	while (!done)
		pause();
	fake_stop(f);
	for (i = 0; i < st.njobs; i++)
		json_decref(st.jobs[i].config);
	if (st.log)
		fclose(st.log);
	return 0;
}
