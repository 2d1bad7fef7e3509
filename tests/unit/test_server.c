/* test_server.c - the local cluster, end to end: the real `paictl serve`
 * process, real HTTP (libcurl over its Unix socket, or 127.0.0.1), real
 * tasks. Every wait is bounded. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>

#include "pai.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char paictl[PATH_MAX];
static pid_t last_server; /* stopped by teardown when a test fails */
static char last_dir[64]; /* and its state directory removed */

struct server {
	char dir[64]; /* state directory */
	char sock[128];
	char url[64]; /* TCP base URL, or "" */
	pid_t pid;
	int tcp;
};

struct resp {
	long status;
	char *body;
	size_t len;
	char content_range[128];
	char etag[64];
};

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
	struct resp *r = data;
	char *b = realloc(r->body, r->len + size * n + 1);

	assert_non_null(b);
	memcpy(b + r->len, p, size * n);
	r->body = b;
	r->len += size * n;
	b[r->len] = '\0';
	return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	struct resp *r = data;
	size_t len = size * n;

	if (len > 15 && strncasecmp(p, "Content-Range: ", 15) == 0 &&
	    len - 15 < sizeof(r->content_range)) {
		memcpy(r->content_range, p + 15, len - 15);
		r->content_range[strcspn(r->content_range, "\r\n")] = '\0';
	}
	if (len > 6 && strncasecmp(p, "ETag: ", 6) == 0 &&
	    len - 6 < sizeof(r->etag)) {
		memcpy(r->etag, p + 6, len - 6);
		r->etag[strcspn(r->etag, "\r\n")] = '\0';
	}
	return len;
}

/* Requests whose headers have gone out: a held request is waited for
 * until it has been sent, not for a fixed time. */
static atomic_int requests_sent;

static int on_debug(CURL *c, curl_infotype type, char *p, size_t n, void *d)
{
	(void)c;
	(void)p;
	(void)n;
	(void)d;
	if (type == CURLINFO_HEADER_OUT)
		atomic_fetch_add(&requests_sent, 1);
	return 0;
}

/* Waits until n requests more than before have been sent (30 s at most),
 * then a little longer for the server to take the last one up. */
static void wait_sent(int before, int n)
{
	double t0;

	for (t0 = test_now_s(); atomic_load(&requests_sent) < before + n &&
				test_now_s() - t0 < 30;)
		test_sleep_ms(10);
	assert_true(atomic_load(&requests_sent) >= before + n);
	test_sleep_ms(200);
}

/* One request; body may be NULL. tcp selects the TCP listener. Returns
 * the curl code; the response in *r (caller frees r->body). */
static CURLcode request(const struct server *sv, int tcp, const char *method,
			const char *path, const char *body, size_t len,
			const char *header1, const char *header2,
			struct resp *r)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char url[1024];
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	assert_non_null(c);
	snprintf(url, sizeof(url), "%s%s", tcp ? sv->url : "http://localhost",
		 path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	if (!tcp)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, sv->sock);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	if (!(header2 && strncmp(header2, "Expect:", 7) == 0))
		h = curl_slist_append(h, "Expect:");
	if (header1)
		h = curl_slist_append(h, header1);
	if (header2)
		h = curl_slist_append(h, header2);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)len);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return rc;
}

/* GET/POST/PUT over the Unix socket; returns the status, *json the
 * parsed body (NULL when not JSON). */
static long call(const struct server *sv, const char *method, const char *path,
		 const char *body, json_t **json)
{
	struct resp r;

	if (request(sv, 0, method, path, body, body ? strlen(body) : 0, NULL,
		    NULL, &r) != CURLE_OK)
		r.status = -1;
	if (json)
		*json = r.body ? json_loads(r.body, 0, NULL) : NULL;
	free(r.body);
	return r.status;
}

static void expect_error(long status, json_t *o, long want, const char *code)
{
	if (status != want || !json_is_string(json_object_get(o, "code")) ||
	    !json_is_string(json_object_get(o, "message")))
		fail_msg("wanted %ld %s, got %ld %s", want, code, status,
			 o ? json_dumps(o, 0) : "(not JSON)");
	assert_string_equal(json_string_value(json_object_get(o, "code")),
			    code);
}

/* Starts paictl serve on sv->dir with extra options (NULL-terminated,
 * or NULL); returns once it answers on its socket. */
static void start_server_in(struct server *sv, const char *const *extra)
{
	const char *argv[16] = {"paictl", "serve",   "--state-dir",
				sv->dir,  "--grace", "1"};
	char log[128];
	double t0;
	int fd, n = 6, ready = 0, st = -1;

	while (extra && *extra && n < 15)
		argv[n++] = *extra++;
	argv[n] = NULL;

	snprintf(sv->sock, sizeof(sv->sock), "%s/api.sock", sv->dir);
	snprintf(log, sizeof(log), "%s.log", sv->dir);
	sv->pid = fork();
	assert_true(sv->pid >= 0);
	if (sv->pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		/* a failed test must not leave a server behind */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* a HOME of its own, which tasks and their ssh sessions
		 * get: the user's ~/.bashrc is not the tests' to run */
		snprintf(log, sizeof(log), "%s/home", sv->dir);
		if (mkdir(log, 0700) < 0 && errno != EEXIST)
			_exit(126);
		setenv("HOME", log, 1);
		execv(paictl, (char *const *)argv);
		_exit(127);
	}
	last_server = sv->pid;
	snprintf(last_dir, sizeof(last_dir), "%s", sv->dir);
	/* ready when it answers (a minute at most: a machine busy with
	 * other builds is slow) */
	for (t0 = test_now_s(); !ready && test_now_s() - t0 < 60;) {
		json_t *o = NULL;

		ready = call(sv, "GET", "/api/v1", NULL, &o) == 200;
		json_decref(o);
		if (!ready && waitpid(sv->pid, &st, WNOHANG) == sv->pid)
			break;
		if (!ready)
			test_sleep_ms(20);
	}
	if (!ready) {
		char *text = NULL;
		size_t len = 0;

		pai_file_read(&text, &len, NULL, log);
		fail_msg("paictl serve did not answer (%s %d); its log:\n%s",
			 st < 0		    ? "running after 60 s"
			 : WIFSIGNALED(st) ? "killed by signal"
					    : "exit",
			 st < 0 ? 0 : WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			 text ? text : "(none)");
	}
	sv->url[0] = '\0';
	if (sv->tcp) {
		char path[128];
		json_t *info;

		snprintf(path, sizeof(path), "%s/server.json", sv->dir);
		/* written just after the listeners start */
		for (t0 = test_now_s(); test_now_s() - t0 < 60; test_sleep_ms(20)) {
			info = json_load_file(path, 0, NULL);
			if (json_integer_value(json_object_get(info, "pid")) ==
			    sv->pid)
				break;
			json_decref(info);
			info = NULL;
		}
		assert_non_null(info);
		assert_true(json_is_string(json_object_get(info, "url")));
		snprintf(sv->url, sizeof(sv->url), "%s",
			 json_string_value(json_object_get(info, "url")));
		json_decref(info);
	}
}

/* Starts paictl serve on a new state directory, with extra options. */
static void start_new_server(struct server *sv, const char *const *extra)
{
	memset(sv, 0, sizeof(*sv));
	strcpy(sv->dir, "/tmp/paictl-srv-XXXXXX");
	assert_non_null(mkdtemp(sv->dir));
	start_server_in(sv, extra);
}

static void start_server(struct server *sv)
{
	start_new_server(sv, NULL);
}

static const char *const one_cpu[] = {"--capacity", "cpus=1,memory=1000,gpus=0",
				      NULL};


static int wait_exit(pid_t pid, double secs)
{
	double t0 = test_now_s();
	int st;

	while (test_now_s() - t0 < secs) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		test_sleep_ms(20);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static void stop_server(struct server *sv)
{
	int st;

	kill(sv->pid, SIGTERM);
	st = wait_exit(sv->pid, 30);
	last_server = 0;
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void remove_tree(const char *dir)
{
	char cmd[256];

	/* test scaffolding only: dir is our own mkdtemp name */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.log'", dir, dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static json_t *job_status(const struct server *sv, const char *user,
			  const char *job)
{
	char path[256];
	json_t *o = NULL;

	snprintf(path, sizeof(path), "/api/v1/user/%s/jobs/%s", user, job);
	if (call(sv, "GET", path, NULL, &o) != 200) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *job_state(json_t *o)
{
	return json_string_value(
	    json_object_get(json_object_get(o, "jobStatus"), "state"));
}

static int is_final(const char *st)
{
	return st && (strcmp(st, "SUCCEEDED") == 0 ||
		      strcmp(st, "FAILED") == 0 || strcmp(st, "STOPPED") == 0);
}

/* The least time a wait for a job gives it: its bound says only that it
 * did not hang, and a machine busy with other builds (or ASan) is slow. */
#define WAIT_MIN_S 60

/* Polls until the job completes; returns its status (new reference). */
static json_t *wait_job(const struct server *sv, const char *user,
			const char *job, double secs)
{
	double t0 = test_now_s();

	if (secs < WAIT_MIN_S)
		secs = WAIT_MIN_S;

	while (test_now_s() - t0 < secs) {
		json_t *o = job_status(sv, user, job);

		if (o && is_final(job_state(o)))
			return o;
		json_decref(o);
		test_sleep_ms(25);
	}
	fail_msg("job %s did not complete within %.0f s", job, secs);
	return NULL;
}

/* Polls until the job is RUNNING: 1, or 0 after secs seconds. */
static int wait_running(const struct server *sv, const char *user,
			const char *job, double secs)
{
	double t0;
	int running = 0;

	if (secs < WAIT_MIN_S)
		secs = WAIT_MIN_S;
	for (t0 = test_now_s(); !running && test_now_s() - t0 < secs;) {
		json_t *o = job_status(sv, user, job);

		running = o && strcmp(job_state(o), "RUNNING") == 0;
		json_decref(o);
		if (!running)
			test_sleep_ms(20);
	}
	return running;
}

static long submit(const struct server *sv, const char *user,
		   const char *config, json_t **out)
{
	char path[256];

	snprintf(path, sizeof(path), "/api/v1/user/%s/jobs", user);
	return call(sv, "POST", path, config, out);
}

/* A one-role config; command is JSON-escaped by jansson. */
static char *config1(const char *name, int tasks, const char *command,
		     const char *extra_role_json, int retry)
{
	json_t *role =
	    json_pack("{s:s,s:i,s:i,s:i,s:i,s:s}", "name", "main", "taskNumber",
		      tasks, "cpuNumber", 1, "memoryMB", 100, "gpuNumber", 0,
		      "command", command);
	json_t *cfg;
	char *text;

	if (extra_role_json) {
		json_t *x = json_loads(extra_role_json, 0, NULL);

		assert_non_null(x);
		json_object_update(role, x);
		json_decref(x);
	}
	cfg = json_pack("{s:s,s:s,s:i,s:[o]}", "jobName", name, "image",
			"ubuntu", "retryCount", retry, "taskRoles", role);
	text = json_dumps(cfg, JSON_INDENT(2));
	json_decref(cfg);
	return text;
}

/* Line 1 of the status of job's task main-0 (attempt 0): the task's
 * process group, its monitor and the monitor's start (each NULL: not
 * wanted), and the cgroup it names (its 4th field) into name, "" for
 * none (NULL: not wanted). */
static void status_line1(const struct server *sv, const char *job, int *pg,
			 int *mon, unsigned long long *start, char *name,
			 size_t len)
{
	char path[320], line[256];
	FILE *f;
	int g, m, n = 0;
	unsigned long long st;

	snprintf(path, sizeof(path), "%s/jobs/u~%s/attempt-0/main-0/status",
		 sv->dir, job);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_true(sscanf(line, "%d %d %llu %n", &g, &m, &st, &n) >= 3);
	if (pg)
		*pg = g;
	if (mon)
		*mon = m;
	if (start)
		*start = st;
	if (name)
		snprintf(name, len, "%.*s",
			 n > 0 ? (int)strcspn(line + n, "\n") : 0, line + n);
}

/* A job of u's, name, of tasks tasks running command, submitted: once
 * it runs (within secs). */
static void submit_running(const struct server *sv, const char *name,
			   int tasks, const char *command, double secs)
{
	char *cfg = config1(name, tasks, command, NULL, 0);

	assert_int_equal(submit(sv, "u", cfg, NULL), 201);
	free(cfg);
	assert_true(wait_running(sv, "u", name, secs));
}

static json_t *tasks_of(json_t *status, const char *role)
{
	return json_object_get(
	    json_object_get(json_object_get(status, "taskRoles"), role),
	    "taskStatuses");
}

static char *fetch_log(const struct server *sv, json_t *task, const char *file)
{
	const char *prefix =
	    json_string_value(json_object_get(task, "containerLog"));
	const char *p;
	char path[512];
	struct resp r;

	assert_non_null(prefix);
	/* the URL is absolute; go by its path over the socket */
	p = strstr(prefix, "/api/v1/");
	assert_non_null(p);
	snprintf(path, sizeof(path), "%s%s", p, file);
	assert_int_equal(request(sv, 0, "GET", path, NULL, 0, NULL, NULL, &r),
			 CURLE_OK);
	assert_int_equal(r.status, 200);
	return r.body ? r.body : strdup("");
}

/* Runs a one-task job of command to SUCCEEDED (within secs): its
 * stdout. */
static char *run_for_stdout(const struct server *sv, const char *name,
			    const char *command, int secs)
{
	char *cfg = config1(name, 1, command, NULL, 0), *out;
	json_t *o;

	assert_int_equal(submit(sv, "u", cfg, NULL), 201);
	free(cfg);
	o = wait_job(sv, "u", name, secs);
	assert_string_equal(job_state(o), "SUCCEEDED");
	out = fetch_log(sv, json_array_get(tasks_of(o, "main"), 0),
			"user.pai.stdout");
	json_decref(o);
	return out;
}

/* The last record of job key in the server's records.log, or NULL. */
static json_t *last_record(const struct server *sv, const char *key)
{
	char path[256], line[65536];
	json_t *last = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/records.log", sv->dir);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		json_t *rec = json_loads(line, 0, NULL);
		const char *u = json_string_value(json_object_get(rec, "user"));
		const char *n = json_string_value(json_object_get(rec, "name"));
		char k[256];

		snprintf(k, sizeof(k), "%s~%s", u ? u : "", n ? n : "");
		if (rec && u && n && strcmp(k, key) == 0) {
			json_decref(last);
			last = rec;
		} else
			json_decref(rec);
	}
	fclose(f);
	return last;
}

/* A server with room for one task, taken by job "first" (first_cmd);
 * job name (cmd), submitted after it, waits. */
static void start_one_waiting(struct server *sv, const char *first_cmd,
			      const char *name, const char *cmd)
{
	char *cfg;

	start_new_server(sv, one_cpu);
	cfg = config1("first", 1, first_cmd, NULL, 0);
	assert_int_equal(submit(sv, "u", cfg, NULL), 201);
	free(cfg);
	cfg = config1(name, 1, cmd, NULL, 0);
	assert_int_equal(submit(sv, "u", cfg, NULL), 201);
	free(cfg);
}

/* A gate for a first job that holds the one CPU until the test opens
 * it, however slow the machine: its command, into cmd. */
static void gate_cmd(char *gate, size_t glen, char *cmd, size_t clen)
{
	snprintf(gate, glen, "/tmp/paictl-test-gate-%ld", (long)getpid());
	unlink(gate);
	snprintf(cmd, clen, "while [ ! -e '%s' ]; do sleep 0.05; done", gate);
}

static void gate_open(const char *gate)
{
	int fd = open(gate, O_WRONLY | O_CREAT, 0600);

	assert_true(fd >= 0);
	close(fd);
}

/* ---- tests ------------------------------------------------------------- */

static void test_api_and_bad_requests(void **state)
{
	struct server sv;
	json_t *o = NULL;
	char *cfg, *big, *text;
	struct resp r;
	long st;

	(void)state;
	start_server(&sv);

	st = call(&sv, "GET", "/api/v1", NULL, &o);
	assert_int_equal(st, 200);
	assert_string_equal(json_string_value(json_object_get(o, "name")),
			    "PAI RESTfulAPI");
	json_decref(o);

	/* not JSON: 400 with lib's diagnostics, nothing stored */
	st = submit(&sv, "alice", "this is { not json", &o);
	expect_error(st, o, 400, "InvalidParametersError");
	assert_true(json_array_size(json_object_get(o, "diagnostics")) >= 1);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(o, "diagnostics"), 0),
		"severity")),
	    "error");
	json_decref(o);

	/* a config that breaks the rules: no taskRoles */
	st = submit(&sv, "alice", "{\"jobName\": \"bad\", \"image\": \"x\"}",
		    &o);
	expect_error(st, o, 400, "InvalidParametersError");
	json_decref(o);
	st = call(&sv, "GET", "/api/v1/user/alice/jobs/bad", NULL, &o);
	expect_error(st, o, 404, "NoJobError");
	json_decref(o);
	st = call(&sv, "GET", "/api/v1/jobs", NULL, &o);
	assert_int_equal(st, 200);
	assert_int_equal(json_array_size(o), 0);
	json_decref(o);

	/* 10 MB body: refused with 413 */
	big = malloc(10 * 1024 * 1024);
	assert_non_null(big);
	memset(big, ' ', 10 * 1024 * 1024);
	big[0] = '{';
	big[10 * 1024 * 1024 - 1] = '}';
	request(&sv, 0, "POST", "/api/v1/user/alice/jobs", big,
		10 * 1024 * 1024, "Content-Type: application/json", NULL, &r);
	assert_int_equal(r.status, 413);
	free(r.body);
	/* the same, announced with Expect: 100-continue */
	request(&sv, 0, "POST", "/api/v1/user/alice/jobs", big,
		10 * 1024 * 1024, "Content-Type: application/json",
		"Expect: 100-continue", &r);
	assert_int_equal(r.status, 413);
	o = json_loads(r.body, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(o, "code")),
			    "RequestEntityTooLargeError");
	json_decref(o);
	free(r.body);
	free(big);

	/* unknown job, unknown API, wrong method */
	st = call(&sv, "GET", "/api/v1/user/alice/jobs/nope", NULL, &o);
	expect_error(st, o, 404, "NoJobError");
	json_decref(o);
	st = call(&sv, "GET", "/api/v1/user/alice/jobs/nope/config", NULL, &o);
	expect_error(st, o, 404, "NoJobError");
	json_decref(o);
	/* v0.17: the launcher's raw error, as an UnknownError */
	st = call(&sv, "PUT", "/api/v1/user/alice/jobs/nope/executionType",
		  "{\"value\":\"STOP\"}", &o);
	expect_error(st, o, 404, "UnknownError");
	json_decref(o);
	/* the v2 API answers too, as v1.x does (launcherType k8s), and
	 * says it is paictl's own cluster, and what it has besides */
	st = call(&sv, "GET", "/api/v2/info", NULL, &o);
	assert_int_equal(st, 200);
	assert_string_equal(
	    json_string_value(json_object_get(o, "launcherType")), "k8s");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(o, "paictl"), "version")),
			    PAI_VERSION);
	assert_string_equal(
	    json_string_value(json_array_get(
		json_object_get(json_object_get(o, "paictl"), "extensions"),
		0)),
	    "wait");
	json_decref(o);
	st = call(&sv, "GET", "/api/v2/nothing", NULL, &o);
	expect_error(st, o, 404, "NoApiError");
	json_decref(o);
	st = call(&sv, "DELETE", "/api/v1/jobs", NULL, &o);
	assert_int_equal(st, 405);
	json_decref(o);

	/* malformed HTTP is refused by the HTTP layer */
	{
		static const char junk[] = "THIS IS NOT HTTP\r\n\r\n";
		struct sockaddr_un a;
		char got[64] = "";
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		ssize_t n;

		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		assert_true(strlen(sv.sock) < sizeof(a.sun_path));
		memcpy(a.sun_path, sv.sock, strlen(sv.sock) + 1);
		assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)),
				 0);
		assert_int_equal(write(fd, junk, sizeof(junk) - 1),
				 (ssize_t)sizeof(junk) - 1);
		n = read(fd, got, sizeof(got) - 1);
		assert_true(n > 12);
		assert_memory_equal(got, "HTTP/1.1 400", 12);
		close(fd);
	}
	/* a second server on the same state directory is refused */
	{
		char *argv[] = {paictl, "serve", "--state-dir", sv.dir, NULL};
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 2);
			execv(paictl, argv);
			_exit(127);
		}
		st = wait_exit(pid, 10);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	}

	/* accepted (201 with the job, as v0.17 answers), then a duplicate;
	 * the config comes back re-serialised */
	cfg = config1("hello", 1, "echo hi", NULL, 0);
	st = submit(&sv, "alice", cfg, &o);
	assert_int_equal(st, 201);
	assert_string_equal(json_string_value(json_object_get(o, "name")),
			    "hello");
	assert_null(json_object_get(json_object_get(o, "jobStatus"), "name"));
	json_decref(o);
	st = submit(&sv, "alice", cfg, &o);
	expect_error(st, o, 409, "ConflictJobError");
	json_decref(o);
	/* the same name for another user is another job */
	assert_int_equal(submit(&sv, "bob", cfg, NULL), 201);
	request(&sv, 0, "GET", "/api/v1/user/alice/jobs/hello/config", NULL, 0,
		NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	{
		json_t *sent = json_loads(cfg, 0, NULL),
		       *back = json_loads(r.body, 0, NULL);
		char *want = json_dumps(sent, JSON_INDENT(2));

		assert_true(json_equal(sent, back));
		assert_string_equal(r.body, want); /* v0.17's 2-space JSON */
		free(want);
		json_decref(sent);
		json_decref(back);
	}
	free(r.body);
	o = wait_job(&sv, "alice", "hello", 10);
	assert_string_equal(job_state(o), "SUCCEEDED");
	text = fetch_log(&sv, json_array_get(tasks_of(o, "main"), 0),
			 "user.pai.stdout");
	assert_string_equal(text, "hi\n");
	free(text);
	json_decref(o);
	st = call(&sv, "GET", "/api/v1/jobs?username=bob", NULL, &o);
	assert_int_equal(json_array_size(o), 1);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(o, 0), "username")),
			    "bob");
	json_decref(o);
	json_decref(wait_job(&sv, "bob", "hello", 10));
	free(cfg);

	stop_server(&sv);
	remove_tree(sv.dir);
}

static void test_logs_and_ranges(void **state)
{
	struct server sv;
	json_t *o, *t;
	char *cfg, *all, path[512];
	const char *p;
	struct resp r;

	(void)state;
	start_server(&sv);
	cfg = config1("logs", 1,
		      "echo out1; echo err1 >&2; sleep 0.2; echo out2; "
		      "echo err2 >&2",
		      NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	o = wait_job(&sv, "u", "logs", 10);
	t = json_array_get(tasks_of(o, "main"), 0);
	all = fetch_log(&sv, t, "user.pai.all");
	assert_string_equal(all, "out1\nerr1\nout2\nerr2\n");
	free(all);
	all = fetch_log(&sv, t, "user.pai.stderr");
	assert_string_equal(all, "err1\nerr2\n");
	free(all);

	p = strstr(json_string_value(json_object_get(t, "containerLog")),
		   "/api/v1/");
	snprintf(path, sizeof(path), "%suser.pai.stdout", p);
	/* a follower asks only for new bytes */
	request(&sv, 0, "GET", path, NULL, 0, "Range: bytes=5-", NULL, &r);
	assert_int_equal(r.status, 206);
	assert_string_equal(r.body, "out2\n");
	assert_string_equal(r.content_range, "bytes 5-9/10");
	free(r.body);
	request(&sv, 0, "GET", path, NULL, 0, "Range: bytes=-3", NULL, &r);
	assert_int_equal(r.status, 206);
	assert_string_equal(r.body, "t2\n");
	free(r.body);
	request(&sv, 0, "GET", path, NULL, 0, "Range: bytes=10-", NULL, &r);
	assert_int_equal(r.status, 416);
	assert_string_equal(r.content_range, "bytes */10");
	free(r.body);
	snprintf(path, sizeof(path), "%suser.pai.nothing", p);
	request(&sv, 0, "GET", path, NULL, 0, NULL, NULL, &r);
	assert_int_equal(r.status, 404);
	free(r.body);
	json_decref(o);
	free(cfg);

	/* a task that logs nothing has no log files, and empty logs */
	all = run_for_stdout(&sv, "quiet", "true", 10);
	assert_string_equal(all, "");
	free(all);
	snprintf(path, sizeof(path),
		 "%s/jobs/u~quiet/attempt-0/main-0/user.pai.stdout", sv.dir);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path),
		 "%s/jobs/u~quiet/attempt-0/main-0/status", sv.dir);
	assert_int_equal(access(path, F_OK), 0);
	/* a task that never started has no log at all */
	request(&sv, 0, "GET",
		"/api/v1/local/logs/u~quiet/0/main/1/user.pai.stdout", NULL, 0,
		NULL, NULL, &r);
	assert_int_equal(r.status, 404);
	free(r.body);
	request(&sv, 0, "GET",
		"/api/v1/local/logs/u~quiet/1/main/0/user.pai.stdout", NULL, 0,
		NULL, NULL, &r);
	assert_int_equal(r.status, 404);
	free(r.body);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* Every $PAI_ variable of every task of a two-role job. */
static void test_two_roles(void **state)
{
	static const char *cmd = "env | grep '^PAI_' | sort";
	struct server sv;
	json_t *cfg, *o, *env[2][2];
	const char *roles[2] = {"ps", "worker"};
	char *text, hostlist[2][256];
	unsigned ports[32];
	size_t np = 0, i, k, r;

	(void)state;
	start_server(&sv);
	cfg = json_pack(
	    "{s:s,s:s,s:{s:s},s:[{s:s,s:i,s:i,s:i,s:i,s:s,s:[{s:s,s:i,s:i}]},"
	    "{s:s,s:i,s:i,s:i,s:i,s:s}]}",
	    "jobName", "dist", "image", "ubuntu", "jobEnvs", "LR", "0.1",
	    "taskRoles", "name", "ps", "taskNumber", 2, "cpuNumber", 1,
	    "memoryMB", 100, "gpuNumber", 0, "command", cmd, "portList",
	    "label", "grpc", "beginAt", 0, "portNumber", 2, "name", "worker",
	    "taskNumber", 2, "cpuNumber", 1, "memoryMB", 100, "gpuNumber", 0,
	    "command", cmd);
	text = json_dumps(cfg, 0);
	assert_int_equal(submit(&sv, "alice", text, NULL), 201);
	free(text);
	json_decref(cfg);
	o = wait_job(&sv, "alice", "dist", 15);
	assert_string_equal(job_state(o), "SUCCEEDED");

	for (r = 0; r < 2; r++) {
		json_t *ts = tasks_of(o, roles[r]);

		assert_int_equal(json_array_size(ts), 2);
		hostlist[r][0] = '\0';
		for (i = 0; i < 2; i++) {
			json_t *t = json_array_get(ts, i), *cp;
			char *log = fetch_log(&sv, t, "user.pai.stdout"), *line,
			     *save = NULL;
			const char *http;

			env[r][i] = json_object();
			for (line = strtok_r(log, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				char *eq = strchr(line, '=');

				if (eq) {
					*eq = '\0';
					json_object_set_new(
					    env[r][i], line,
					    json_string(eq + 1));
				}
			}
			free(log);
			cp = json_object_get(t, "containerPorts");
			http = json_string_value(json_object_get(cp, "http"));
			assert_non_null(http);
			snprintf(hostlist[r] + strlen(hostlist[r]),
				 sizeof(hostlist[r]) - strlen(hostlist[r]),
				 "%s127.0.0.1:%s", i ? "," : "", http);
			/* every port of every label, collected */
			{
				const char *label;
				json_t *v;

				json_object_foreach(cp, label, v)
				{
					char *p = strdup(json_string_value(v)),
					     *q, *sp = NULL;

					for (q = strtok_r(p, ",", &sp);
					     q && np < 32;
					     q = strtok_r(NULL, ",", &sp))
						ports[np++] = (unsigned)atoi(q);
					free(p);
				}
			}
		}
	}
	/* ps: grpc x2, http, ssh; worker: http, ssh; all distinct */
	assert_int_equal(np, 2 * 4 + 2 * 2);
	for (i = 0; i < np; i++)
		for (k = i + 1; k < np; k++)
			assert_int_not_equal(ports[i], ports[k]);

	for (r = 0; r < 2; r++)
		for (i = 0; i < 2; i++) {
			json_t *e = env[r][i];
			char want[64];
#define ENV(name) json_string_value(json_object_get(e, name))
			assert_string_equal(ENV("PAI_JOB_NAME"), "dist");
			assert_string_equal(ENV("PAI_USER_NAME"), "alice");
			assert_string_equal(ENV("PAI_CURRENT_TASK_ROLE_NAME"),
					    roles[r]);
			snprintf(want, sizeof(want), "%zu", i);
			assert_string_equal(
			    ENV("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"),
			    want);
			assert_string_equal(ENV("PAI_CONTAINER_HOST_IP"),
					    "127.0.0.1");
			assert_non_null(ENV("PAI_CONTAINER_ID"));
			assert_string_equal(ENV("PAI_TASK_ROLE_ps_HOST_LIST"),
					    hostlist[0]);
			assert_string_equal(
			    ENV("PAI_TASK_ROLE_worker_HOST_LIST"), hostlist[1]);
			assert_string_equal(ENV("PAI_JOB_TASK_COUNT"), "4");
			assert_string_equal(ENV("PAI_JOB_TASK_ROLE_COUNT"),
					    "2");
			assert_string_equal(ENV("PAI_JOB_TASK_ROLE_LIST"),
					    "ps,worker");
			/* everyone sees ps-1's grpc ports */
			assert_string_equal(
			    ENV("PAI_PORT_LIST_ps_1_grpc"),
			    json_string_value(json_object_get(
				json_object_get(
				    json_array_get(tasks_of(o, "ps"), 1),
				    "containerPorts"),
				"grpc")));
			assert_non_null(ENV("PAI_WORK_DIR"));
			assert_true(strstr(ENV("PAI_WORK_DIR"), sv.dir) ==
				    ENV("PAI_WORK_DIR"));
#undef ENV
			/* jobEnvs arrive literally, not as PAI_ */
			json_decref(e);
		}
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
}

static void test_completion_policies(void **state)
{
	struct server sv;
	json_t *o, *t;
	char *cfg, path[256];
	struct stat st;
	double t0;
	int a;

	(void)state;
	start_server(&sv);

	/* minFailedTaskCount 1: the first failure fails the job at once
	 * and stops the other task */
	cfg = config1("mf1", 2,
		      "if [ $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX = 0 ]; "
		      "then exit 3; else sleep 600; fi",
		      "{\"minFailedTaskCount\": 1}", 0);
	t0 = test_now_s();
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	o = wait_job(&sv, "u", "mf1", 10);
	/* not when the sleeper ends (a bound far from both, for a busy
	 * machine) */
	assert_true(test_now_s() - t0 < 60);
	assert_string_equal(job_state(o), "FAILED");
	t = tasks_of(o, "main");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(t, 0), "taskState")),
			    "FAILED");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(t, 0), "containerExitCode")),
			 3);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(t, 1), "taskState")),
			    "STOPPED");
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(o, "jobStatus"), "appExitCode")),
			 3);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(o, "jobStatus"),
					      "appExitTriggerTaskRoleName")),
	    "main");
	json_decref(o);

	/* minFailedTaskCount null: a failure does not decide; the job
	 * succeeds once every task has ended */
	cfg = config1("mfnull", 2,
		      "if [ $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX = 0 ]; "
		      "then exit 3; else sleep 0.5; fi",
		      "{\"minFailedTaskCount\": null}", 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	o = wait_job(&sv, "u", "mfnull", 10);
	assert_string_equal(job_state(o), "SUCCEEDED");
	t = tasks_of(o, "main");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(t, 0), "taskState")),
			    "FAILED");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(t, 1), "taskState")),
			    "SUCCEEDED");
	json_decref(o);

	/* minSucceededTaskCount 1: one success ends the job; the sleeper
	 * is stopped */
	cfg = config1("ms1", 2,
		      "if [ $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX = 0 ]; "
		      "then true; else sleep 600; fi",
		      "{\"minSucceededTaskCount\": 1}", 0);
	t0 = test_now_s();
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	o = wait_job(&sv, "u", "ms1", 10);
	assert_true(test_now_s() - t0 < 60);
	assert_string_equal(job_state(o), "SUCCEEDED");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(tasks_of(o, "main"), 1), "taskState")),
	    "STOPPED");
	json_decref(o);

	/* retryCount 2 and a failing command: three attempts */
	cfg = config1("retry", 1, "echo attempt; exit 7", NULL, 2);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	o = wait_job(&sv, "u", "retry", 15);
	assert_string_equal(job_state(o), "FAILED");
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(o, "jobStatus"), "retries")),
			 2);
	for (a = 0; a < 4; a++) {
		snprintf(path, sizeof(path),
			 "%s/jobs/u~retry/attempt-%d/main-0/user.pai.stdout",
			 sv.dir, a);
		if (a < 3) {
			assert_int_equal(stat(path, &st), 0);
			assert_int_equal(st.st_size, 8);
		} else
			assert_int_not_equal(stat(path, &st), 0);
	}
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* Whether every task of role main has written want to its stdout. */
static int all_wrote(const struct server *sv, json_t *o, const char *want)
{
	json_t *tasks = tasks_of(o, "main"), *t;
	size_t i;
	int ok = json_array_size(tasks) > 0;

	json_array_foreach(tasks, i, t)
	{
		const char *st =
		    json_string_value(json_object_get(t, "taskState"));
		char *log = st && strcmp(st, "RUNNING") == 0
				? fetch_log(sv, t, "user.pai.stdout")
				: NULL;

		ok = ok && log && strstr(log, want);
		free(log);
	}
	return ok;
}

static void test_stop_ignoring_sigterm(void **state)
{
	struct server sv;
	json_t *o;
	char *cfg;
	double t0;
	int ready = 0;

	(void)state;
	start_server(&sv);
	cfg = config1("stubborn", 2,
		      "trap 'echo got TERM' TERM; echo ready; "
		      "while :; do sleep 0.05; done",
		      NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	/* both running, and both traps set: a task stopped before its
	 * trap is set ends of SIGTERM (143), rightly */
	for (t0 = test_now_s(); !ready && test_now_s() - t0 < 60;
	     test_sleep_ms(25)) {
		o = job_status(&sv, "u", "stubborn");
		ready = o && all_wrote(&sv, o, "ready");
		json_decref(o);
	}
	assert_true(ready);
	t0 = test_now_s();
	assert_int_equal(call(&sv, "PUT",
			      "/api/v1/user/u/jobs/stubborn/executionType",
			      "{\"value\":\"STOP\"}", NULL),
			 202);
	o = wait_job(&sv, "u", "stubborn", 60);
	/* grace is 1 s in these tests: SIGTERM ignored, then SIGKILL (the
	 * upper bound only says it did not hang) */
	assert_true(test_now_s() - t0 >= 0.9);
	assert_true(test_now_s() - t0 < 30);
	assert_string_equal(job_state(o), "STOPPED");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(o, "jobStatus"),
					      "executionType")),
	    "STOP");
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_array_get(tasks_of(o, "main"), 0), "containerExitCode")),
	    128 + SIGKILL);
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_array_get(tasks_of(o, "main"), 1), "containerExitCode")),
	    128 + SIGKILL);
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* A config sent as a form, as OpenPAI's JavaScript SDK sends it: nested
 * as Express's extended body parser nests it (indexes out of order, []
 * appends, '+' and %XX), numbers converted as Joi converts them, and
 * what is stored is that JSON. More than 1000 parameters: 413. */
static void test_form_submission(void **state)
{
	static const char form[] =
	    "jobName=form1&image=deb%2Fian&jobEnvs%5BGREETING%5D=hi+there"
	    "&taskRoles%5B1%5D%5Bname%5D=b&taskRoles%5B1%5D%5BtaskNumber%5D=1"
	    "&taskRoles%5B1%5D%5BcpuNumber%5D=1"
	    "&taskRoles%5B1%5D%5BmemoryMB%5D=100"
	    "&taskRoles%5B1%5D%5BgpuNumber%5D=0"
	    "&taskRoles%5B1%5D%5Bcommand%5D=true"
	    "&taskRoles%5B0%5D%5Bname%5D=a&taskRoles%5B0%5D%5BtaskNumber%5D=2"
	    "&taskRoles%5B0%5D%5BcpuNumber%5D=1"
	    "&taskRoles%5B0%5D%5BmemoryMB%5D=256"
	    "&taskRoles%5B0%5D%5BgpuNumber%5D=0"
	    "&taskRoles%5B0%5D%5Bcommand%5D=echo+%24GREETING"
	    "&taskRoles%5B0%5D%5BportList%5D%5B%5D%5Blabel%5D=http"
	    "&taskRoles%5B0%5D%5BportList%5D%5B0%5D%5BbeginAt%5D=0"
	    "&taskRoles%5B0%5D%5BportList%5D%5B0%5D%5BportNumber%5D=1";
	static const char *want =
	    "{\"jobName\": \"form1\", \"image\": \"deb/ian\", \"jobEnvs\": "
	    "{\"GREETING\": \"hi there\"}, \"taskRoles\": [{\"name\": \"a\", "
	    "\"taskNumber\": 2, \"cpuNumber\": 1, \"memoryMB\": 256, "
	    "\"gpuNumber\": 0, \"command\": \"echo $GREETING\", \"portList\": "
	    "[{\"label\": \"http\", \"beginAt\": 0, \"portNumber\": 1}]}, "
	    "{\"name\": \"b\", \"taskNumber\": 1, \"cpuNumber\": 1, "
	    "\"memoryMB\": 100, \"gpuNumber\": 0, \"command\": \"true\"}]}";
	const char *type = "Content-Type: application/x-www-form-urlencoded";
	struct server sv;
	struct resp r;
	json_t *stored, *expect;
	char *many;
	size_t i, n = 0;

	(void)state;
	start_server(&sv);
	assert_int_equal(request(&sv, 0, "POST", "/api/v1/user/u/jobs", form,
				 strlen(form), type, NULL, &r),
			 CURLE_OK);
	assert_int_equal(r.status, 201);
	free(r.body);
	request(&sv, 0, "GET", "/api/v1/user/u/jobs/form1/config", NULL, 0,
		NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	stored = json_loads(r.body, 0, NULL);
	expect = json_loads(want, 0, NULL);
	assert_non_null(stored);
	assert_non_null(expect);
	assert_true(json_equal(stored, expect));
	json_decref(stored);
	json_decref(expect);
	free(r.body);

	/* body-parser's parameterLimit */
	many = malloc(1001 * 8 + 16);
	assert_non_null(many);
	for (i = 0; i < 1001; i++)
		n += (size_t)sprintf(many + n, "%sa%zu=1", i ? "&" : "", i);
	request(&sv, 0, "POST", "/api/v1/user/u/jobs", many, n, type, NULL,
		&r);
	assert_int_equal(r.status, 413);
	free(r.body);
	free(many);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* What OpenPAI's JavaScript SDK asks besides jobs, answered as real
 * servers do: a job by framework name on the v1 API (no token), the v2
 * API's virtual clusters and users, and their errors. */
static void test_frameworks_vcs_users(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	struct server sv;
	char path[256], *cfg;
	json_t *o;
	long st;

	(void)state;
	assert_non_null(pw);
	start_server(&sv);
	cfg = config1("fw1", 1, "true", NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	st = call(&sv, "GET", "/api/v1/jobs/u~fw1", NULL, &o);
	assert_int_equal(st, 200);
	assert_non_null(json_object_get(o, "jobStatus"));
	json_decref(o);
	st = call(&sv, "GET", "/api/v1/jobs/fw1", NULL, &o);
	expect_error(st, o, 404, "NoJobError");
	json_decref(o);

	st = call(&sv, "GET", "/api/v2/virtual-clusters", NULL, &o);
	assert_int_equal(st, 200);
	assert_true(json_is_object(json_object_get(
	    json_object_get(o, "default"), "resourcesTotal")));
	json_decref(o);
	st = call(&sv, "GET", "/api/v2/virtual-clusters/default", NULL, &o);
	assert_int_equal(st, 200);
	assert_non_null(json_object_get(o, "usedCapacity"));
	json_decref(o);
	st = call(&sv, "GET", "/api/v2/virtual-clusters/gpu", NULL, &o);
	expect_error(st, o, 404, "NoVirtualClusterError");
	json_decref(o);
	st = call(&sv, "GET", "/api/v2/virtual-clusters/a-b", NULL, &o);
	expect_error(st, o, 400, "InvalidParametersError");
	json_decref(o);

	snprintf(path, sizeof(path), "/api/v2/users/%s", pw->pw_name);
	st = call(&sv, "GET", path, NULL, &o);
	assert_int_equal(st, 200);
	assert_string_equal(json_string_value(json_object_get(o, "username")),
			    pw->pw_name);
	json_decref(o);
	st = call(&sv, "GET", "/api/v2/users/me", NULL, &o);
	expect_error(st, o, 400, "NoUserError");
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* Whether the cgroup a monitor made for its task (server/tree.c, named
 * after the monitor's pid and start time) is still there: the cgroup v2
 * of this process, where the server's monitors make theirs, from
 * mountinfo and /proc/self/cgroup. */
static int monitor_cgroup_left(pid_t mon, unsigned long long start)
{
	char line[4096], mnt[1024] = "", own[1024] = "", path[3000];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *p;
	int i;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " - cgroup2 ")) {
			for (p = line, i = 0; p && i < 4; i++)
				if ((p = strchr(p, ' ')))
					p++;
			if (p)
				sscanf(p, "%1023s", mnt);
		}
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0)
			sscanf(line + 3, "%1023s", own);
	if (f)
		fclose(f);
	if (!*mnt)
		return 0;
	snprintf(path, sizeof(path), "%s%s/paictl-task-%ld-%llu", mnt,
		 strcmp(own, "/") ? own : "", (long)mon, start);
	return access(path, F_OK) == 0;
}

/* SIGKILL the server mid-job: the task keeps running under its monitor,
 * no log line is lost, and the restarted server sees it finish. */
/* Polls until dir/name holds want, 60 s at most: 1, or 0. */
static int wait_file_has(const char *dir, const char *name, const char *want)
{
	char path[512], buf[4096];
	double t0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (t0 = test_now_s(); test_now_s() - t0 < WAIT_MIN_S;
	     test_sleep_ms(20)) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		if (strstr(buf, want))
			return 1;
	}
	return 0;
}

static void test_server_killed(void **state)
{
	struct server sv;
	json_t *o, *rec;
	char *cfg, *log, path[256], want[4096];
	pid_t mon = 0, pg = 0;
	unsigned long long mon_start = 0;
	int i, n = 0;

	(void)state;
	start_server(&sv);
	cfg = config1("survivor", 1,
		      "for i in $(seq 1 30); do echo line $i; sleep 0.05; done",
		      NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	submit_running(&sv, "orphan", 1, "echo started; sleep 30", 10);
	/* its monitor has written its pids, and the task its line */
	snprintf(path, sizeof(path), "%s/jobs/u~orphan/attempt-0/main-0",
		 sv.dir);
	assert_true(wait_file_has(path, "status", " ") &&
		    wait_file_has(path, "user.pai.stdout", "started\n"));
	kill(sv.pid, SIGKILL);
	waitpid(sv.pid, NULL, 0);

	/* while it is down, the orphan's monitor dies too: that task's
	 * outcome is lost, and the restarted server must say so */
	rec = last_record(&sv, "u~orphan");
	assert_non_null(rec);
	assert_string_equal(json_string_value(json_object_get(rec, "state")),
			    "RUNNING");
	status_line1(&sv, "orphan", &pg, &mon, &mon_start, NULL, 0);
	assert_true(mon > 0 && pg > 0);
	kill(mon, SIGKILL);
	kill(-pg, SIGKILL);
	json_decref(rec);

	start_server_in(&sv, NULL);
	o = wait_job(&sv, "u", "survivor", 15);
	assert_string_equal(job_state(o), "SUCCEEDED");
	log = fetch_log(&sv, json_array_get(tasks_of(o, "main"), 0),
			"user.pai.stdout");
	for (i = 1; i <= 30; i++)
		n += snprintf(want + n, sizeof(want) - (size_t)n, "line %d\n",
			      i);
	assert_string_equal(log, want);
	free(log);
	json_decref(o);
	{
		struct resp r;
		char *orig = config1("survivor", 1,
				     "for i in $(seq 1 30); do echo line $i; "
				     "sleep 0.05; done",
				     NULL, 0);

		request(&sv, 0, "GET", "/api/v1/user/u/jobs/survivor/config",
			NULL, 0, NULL, NULL, &r);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, orig);
		free(r.body);
		free(orig);
	}

	o = wait_job(&sv, "u", "orphan", 10);
	assert_string_equal(job_state(o), "FAILED");
	assert_non_null(strstr(json_string_value(json_object_get(
				   json_array_get(tasks_of(o, "main"), 0),
				   "containerDiagnostics")),
			       "local cluster was down"));
	log = fetch_log(&sv, json_array_get(tasks_of(o, "main"), 0),
			"user.pai.stdout");
	assert_string_equal(log, "started\n");
	free(log);
	json_decref(o);
	/* the killed monitor could not remove its task's cgroup: the
	 * server that found it gone did */
	assert_false(monitor_cgroup_left(mon, mon_start));
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* How many tasks of the job are RUNNING. */
static int running_tasks(const struct server *sv, const char *user,
			 const char *job)
{
	json_t *o = job_status(sv, user, job), *t;
	size_t i;
	int n = 0;

	json_array_foreach(tasks_of(o, "main"), i, t)
	{
		const char *st =
		    json_string_value(json_object_get(t, "taskState"));

		n += st && strcmp(st, "RUNNING") == 0;
	}
	json_decref(o);
	return n;
}

/* A server killed while it forks its tasks' monitors starts again at
 * once: the state directory's lock is the server's alone, not shared
 * with a monitor that has not yet closed what it inherited. Rounds of
 * a job of many tasks, the server killed as soon as the first runs. */
/* How many processes work in dir or below (their cwd: a task's is its
 * work directory), deleted since or not. */
static int procs_under(const char *dir)
{
	char path[64], cwd[512];
	size_t n = strlen(dir);
	struct dirent *e;
	DIR *d = opendir("/proc");
	ssize_t got;
	int count = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/cwd", e->d_name);
		got = readlink(path, cwd, sizeof(cwd) - 1);
		if (got <= 0)
			continue;
		cwd[got] = '\0';
		count += strncmp(cwd, dir, n) == 0 && cwd[n] == '/';
	}
	closedir(d);
	return count;
}

static void test_restart_while_forking(void **state)
{
	struct server sv;
	char *cfg = config1("many", 32, "exec sleep 600", NULL, 0);
	double t0;
	int round;

	(void)state;
	start_server(&sv);
	for (round = 0; round < 10; round++) {
		json_t *o = NULL;

		assert_int_equal(submit(&sv, "u", cfg, &o), 201);
		json_decref(o);
		/* killed as soon as a first task runs: the others' monitors
		 * are being forked (no pause between the polls) */
		for (t0 = test_now_s(); !running_tasks(&sv, "u", "many");)
			assert_true(test_now_s() - t0 < WAIT_MIN_S);
		kill(sv.pid, SIGKILL);
		waitpid(sv.pid, NULL, 0);
		start_server_in(&sv, NULL);
		assert_int_equal(call(&sv, "PUT",
				      "/api/v1/user/u/jobs/many/executionType",
				      "{\"value\":\"STOP\"}", NULL),
				 202);
		json_decref(wait_job(&sv, "u", "many", 60));
		/* the name free again for the next round */
		assert_int_equal(call(&sv, "DELETE", "/api/v1/user/u/jobs/many",
				      NULL, NULL),
				 202);
	}
	free(cfg);
	stop_server(&sv);
	/* a task whose status was not written yet when the next server
	 * looked for it is not left running, unstoppable: its monitor,
	 * finding its server gone, ended it */
	for (t0 = test_now_s(); procs_under(sv.dir) && test_now_s() - t0 < 10;)
		test_sleep_ms(50);
	assert_int_equal(procs_under(sv.dir), 0);
	remove_tree(sv.dir);
}

/* The children of pid that run `paictl serve` (the forker, monitors):
 * how many, the first in *first. */
static int serve_children(pid_t pid, pid_t *first)
{
	char path[300], kids[4096], cmd[256];
	FILE *f;
	size_t n;
	char *p, *end;
	int count = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)pid,
		 (long)pid);
	f = fopen(path, "r");
	n = f ? fread(kids, 1, sizeof(kids) - 1, f) : 0;
	if (f)
		fclose(f);
	kids[n] = '\0';
	for (p = kids; *p; p = end) {
		long k = strtol(p, &end, 10);
		size_t m, i;

		if (end == p)
			break;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", k);
		f = fopen(path, "r");
		m = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
		if (f)
			fclose(f);
		for (i = 0; i < m; i++)
			if (cmd[i] == '\0')
				cmd[i] = ' ';
		cmd[m] = '\0';
		if (strstr(cmd, " serve ") && count++ == 0)
			*first = (pid_t)k;
	}
	return count;
}

/* Where the server's cgroups are (this process's cgroup v2, which the
 * server shares), dir + "/" + name, in out; false without cgroup v2. */
static bool cgroup_path(const char *name, char *out, size_t len)
{
	static const char *mnt[] = {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "r");
	size_t i;
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strncmp(line, "0::", 3) == 0;
	if (f)
		fclose(f);
	if (!found)
		return false;
	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 2; i++) {
		snprintf(out, len, "%s%s/%s", mnt[i],
			 strcmp(line + 3, "/") ? line + 3 : "", name);
		if (access(out, F_OK) == 0)
			return true;
	}
	return false;
}

/* Tasks one after another take the same cgroup from the server's pool
 * (made once, not per task), left empty; the server removes it when
 * it stops. */
static void test_cgroup_pool(void **state)
{
	struct server sv;
	char first[96], second[96], dir[700], events[760], *log;


	(void)state;
	start_server(&sv);
	log = run_for_stdout(&sv, "p1", "echo a", 30);
	assert_string_equal(log, "a\n");
	free(log);
	log = run_for_stdout(&sv, "p2", "echo b", 30);
	assert_string_equal(log, "b\n");
	free(log);
	status_line1(&sv, "p1", NULL, NULL, NULL, first, sizeof(first));
	status_line1(&sv, "p2", NULL, NULL, NULL, second, sizeof(second));
	if (!cgroup_path("", dir, sizeof(dir)) ||
	    (snprintf(events, sizeof(events), "%s/paictl-probe-%ld", dir,
		      (long)getpid()),
	     mkdir(events, 0755) < 0) ||
	    rmdir(events) < 0) {
		/* no cgroup v2 to make cgroups in: none named */
		assert_string_equal(first, "");
		assert_string_equal(second, "");
		stop_server(&sv);
		remove_tree(sv.dir);
		skip();
	}
	assert_true(cgroup_path(first, dir, sizeof(dir)));
	assert_true(strncmp(first, "paictl-task-", 12) == 0);
	assert_string_equal(first, second);
	snprintf(events, sizeof(events), "%s/cgroup.events", dir);
	{
		char text[256] = "";
		FILE *f = fopen(events, "r");

		assert_non_null(f);
		assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
		fclose(f);
		assert_non_null(strstr(text, "populated 0\n"));
	}
	stop_server(&sv);
	assert_int_equal(access(dir, F_OK), -1);
	remove_tree(sv.dir);
}

/* Whether a cgroup can be made where the server's go (as
 * test_cgroup_pool probes it): else the server names none. */
static bool cgroups_made_here(void)
{
	char dir[700], probe[760];

	if (!cgroup_path("", dir, sizeof(dir)))
		return false;
	snprintf(probe, sizeof(probe), "%s/paictl-probe-%ld", dir,
		 (long)getpid());
	return mkdir(probe, 0755) == 0 && rmdir(probe) == 0;
}

/* A pooled cgroup whose monitor was SIGKILLed while its task ran is
 * populated when given back: removed (the task in it killed), never
 * kept for the next task, which gets another. */
static void test_cgroup_pool_monitor_killed(void **state)
{
	struct server sv;
	char path[256], first[96], second[96], dir[700], *log;
	bool made = cgroups_made_here();
	int pg = 0, mon = 0;
	json_t *o;

	(void)state;
	start_server(&sv);
	submit_running(&sv, "k1", 1, "sleep 60", 20);
	snprintf(path, sizeof(path), "%s/jobs/u~k1/attempt-0/main-0", sv.dir);
	assert_true(wait_file_has(path, "status", "\n"));
	status_line1(&sv, "k1", &pg, &mon, NULL, first, sizeof(first));
	assert_true(pg > 0 && mon > 0);
	if (made) {
		assert_true(strncmp(first, "paictl-task-", 12) == 0);
		assert_true(cgroup_path(first, dir, sizeof(dir)));
	} else
		assert_string_equal(first, ""); /* as test_cgroup_pool */

	assert_int_equal(kill(mon, SIGKILL), 0);
	o = wait_job(&sv, "u", "k1", 20);
	assert_string_equal(job_state(o), "FAILED");
	json_decref(o);
	if (made) /* given back before the job ended */
		assert_int_equal(access(dir, F_OK), -1);
	else
		kill(-pg, SIGKILL); /* no cgroup: nothing ends the task */

	log = run_for_stdout(&sv, "k2", "echo b", 30);
	assert_string_equal(log, "b\n");
	free(log);
	status_line1(&sv, "k2", NULL, NULL, NULL, second, sizeof(second));
	if (made) {
		assert_true(strncmp(second, "paictl-task-", 12) == 0);
		assert_string_not_equal(second, first);
	} else
		assert_string_equal(second, "");
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* A task's monitor is forked by the forker, which the server started
 * before its jobs and threads (the server's only child then), and is
 * the server's child all the same: the server reaps it. The forker
 * killed, the server forks the next monitors itself and says so. */
static void test_forker(void **state)
{
	struct server sv;
	char *cfg, *log, path[256], logname[320];
	pid_t forker = 0, mon = 0, pg = 0;
	unsigned long long mon_start = 0;
	json_t *o;

	(void)state;
	start_server(&sv);
	assert_int_equal(serve_children(sv.pid, &forker), 1);
	assert_true(forker > 0);
	/* an environment larger than the socket's buffer: the forker
	 * reads it while the server still writes */
	cfg = config1("first", 1,
		      "echo one ${#BIG0} ${#BIG1} ${#BIG2}; exec sleep 30",
		      NULL, 0);
	o = json_loads(cfg, 0, NULL);
	free(cfg);
	assert_non_null(o);
	{
		json_t *envs = json_object();
		char *big = malloc(100001), name[16];
		int i;

		assert_non_null(big);
		memset(big, 'x', 100000);
		big[100000] = '\0';
		for (i = 0; i < 3; i++) {
			snprintf(name, sizeof(name), "BIG%d", i);
			big[0] = (char)('a' + i);
			json_object_set_new(envs, name, json_string(big));
		}
		free(big);
		json_object_set_new(o, "jobEnvs", envs);
	}
	cfg = json_dumps(o, 0);
	json_decref(o);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	assert_true(wait_running(&sv, "u", "first", 10));
	snprintf(path, sizeof(path), "%s/jobs/u~first/attempt-0/main-0",
		 sv.dir);
	assert_true(wait_file_has(path, "user.pai.stdout",
				  "one 100000 100000 100000\n"));
	status_line1(&sv, "first", &pg, &mon, &mon_start, NULL, 0);
	assert_true(mon > 0 && mon != forker);
	assert_int_equal((pid_t)test_proc_stat(mon, 4), sv.pid);
	assert_int_equal((pid_t)test_proc_stat(forker, 4), sv.pid);

	assert_int_equal(kill(forker, SIGKILL), 0);
	log = run_for_stdout(&sv, "second", "echo two", 30);
	assert_string_equal(log, "two\n");
	free(log);
	snprintf(logname, sizeof(logname), "%s.log", sv.dir + strlen("/tmp/"));
	assert_true(wait_file_has("/tmp", logname, "forker ended"));
	assert_int_equal(serve_children(sv.pid, &forker), 1); /* first's */

	/* the first task, whose monitor the forker made, still answers */
	assert_int_equal(call(&sv, "PUT", "/api/v1/user/u/jobs/first/executionType",
			      "{\"value\":\"STOP\"}", NULL),
			 202);
	o = wait_job(&sv, "u", "first", 30);
	assert_string_equal(job_state(o), "STOPPED");
	json_decref(o);
	assert_int_equal(serve_children(sv.pid, &forker), 0);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* A job submitted and not started yet is stored by its first record,
 * which carries its config (one sync per submission, not three):
 * SIGKILL the server then, take away the job's directory, which was
 * never synced (what a crash of the machine may leave), and the
 * restarted server still has it, WAITING with its submission time and
 * its config as submitted, and runs it. */
static void test_waiting_survives_restart(void **state)
{
	struct server sv;
	json_t *o, *rec;
	char *log, *cfg, path[256], gate[64], first[128];
	long long created;
	struct stat st;
	double t0;

	(void)state;
	gate_cmd(gate, sizeof(gate), first, sizeof(first));
	start_one_waiting(&sv, first, "second", "echo second");
	o = job_status(&sv, "u", "second");
	assert_non_null(o);
	assert_string_equal(job_state(o), "WAITING");
	created = json_integer_value(
	    json_object_get(json_object_get(o, "jobStatus"), "createdTime"));
	json_decref(o);
	snprintf(path, sizeof(path), "%s/jobs/u~second/config.json", sv.dir);
	assert_int_equal(stat(path, &st), 0);
	cfg = config1("second", 1, "echo second", NULL, 0);
	rec = last_record(&sv, "u~second");
	assert_non_null(rec);
	assert_string_equal(json_string_value(json_object_get(rec, "state")),
			    "WAITING");
	assert_string_equal(json_string_value(json_object_get(rec, "config")),
			    cfg);
	json_decref(rec);
	/* the first job's monitor has let go of what it inherited from
	 * the server (its lock on the state directory among them) once
	 * it has written its pids */
	snprintf(path, sizeof(path), "%s/jobs/u~first/attempt-0/main-0/status",
		 sv.dir);
	for (t0 = test_now_s(); test_now_s() - t0 < 10 &&
				(stat(path, &st) < 0 || st.st_size == 0);)
		test_sleep_ms(20);
	assert_true(st.st_size > 0);
	kill(sv.pid, SIGKILL);
	waitpid(sv.pid, NULL, 0);
	{
		char cmd[sizeof(sv.dir) + 64];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s/jobs/u~second'", sv.dir);
		assert_int_equal(system(cmd), 0);
		snprintf(path, sizeof(path), "%s/jobs/u~second", sv.dir);
		assert_int_not_equal(access(path, F_OK), 0);
	}

	start_server_in(&sv, one_cpu);
	o = job_status(&sv, "u", "second");
	assert_non_null(o);
	/* submitted when its config was written, before and after */
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(o, "jobStatus"), "createdTime")),
			 created);
	json_decref(o);
	{
		struct resp r;

		request(&sv, 0, "GET", "/api/v1/user/u/jobs/second/config",
			NULL, 0, NULL, NULL, &r);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, cfg);
		free(r.body);
	}
	free(cfg);
	gate_open(gate);
	o = wait_job(&sv, "u", "second", 15);
	assert_string_equal(job_state(o), "SUCCEEDED");
	log = fetch_log(&sv, json_array_get(tasks_of(o, "main"), 0),
			"user.pai.stdout");
	assert_string_equal(log, "second\n");
	free(log);
	json_decref(o);
	/* recorded now; the restart's rewrite of the log synced
	 * config.json, and the records after it go without the config */
	rec = last_record(&sv, "u~second");
	assert_non_null(rec);
	assert_string_equal(json_string_value(json_object_get(rec, "state")),
			    "SUCCEEDED");
	assert_null(json_object_get(rec, "config"));
	json_decref(rec);
	o = wait_job(&sv, "u", "first", 15);
	assert_true(is_final(job_state(o)));
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
	unlink(gate);
}

/* Writes rec to f as one line of records.log, with "completed" set to
 * completed (0: as it is) and a newline or not. */
static void put_record(FILE *f, json_t *rec, long long completed, int nl)
{
	json_t *c = json_deep_copy(rec);
	char *text;

	if (completed)
		json_object_set_new(c, "completed", json_integer(completed));
	text = json_dumps(c, JSON_COMPACT);
	fprintf(f, "%s%s", text, nl ? "\n" : "");
	free(text);
	json_decref(c);
}

static long long completed_time(const struct server *sv, const char *name)
{
	json_t *o = job_status(sv, "u", name);
	long long t;

	assert_non_null(o);
	t = json_integer_value(
	    json_object_get(json_object_get(o, "jobStatus"), "completedTime"));
	json_decref(o);
	return t;
}

/* Runs paictl serve on sv->dir, which must refuse to start; returns
 * what it printed. */
static char *serve_refuses(const struct server *sv)
{
	char cmd[PATH_MAX + 256], *out = calloc(1, 4096);
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "'%s' serve --state-dir '%s' 2>&1", paictl,
		 sv->dir);
	/* test scaffolding: our own binary and mkdtemp directory */
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, 4095, p);
	out[n] = '\0';
	assert_int_not_equal(pclose(p), 0);
	return out;
}

/* records.log: the last whole line of a job wins; a record cut short
 * by a crash (no newline) is ignored, the job keeps the one before; a
 * job.json of the earlier layout is read, and removed once the log
 * holds it; a record that cannot be loaded is kept as it is, so its job
 * is not taken for one never started; a restart writes the log anew, a
 * line per job; and a log that cannot be read stops the server. */
static void test_records_log(void **state)
{
	struct server sv;
	json_t *ra, *rb, *rc;
	char *cfg, path[256], line[65536], *out;
	long long a_done, b_done;
	struct stat st;
	FILE *f;
	int n = 0;

	(void)state;
	start_server(&sv);
	cfg = config1("a", 1, "true", NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	cfg = config1("b", 1, "exit 3", NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	snprintf(line, sizeof(line), "echo ran >>'%s.ran'", sv.dir);
	cfg = config1("c", 1, line, NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	json_decref(wait_job(&sv, "u", "a", 10));
	json_decref(wait_job(&sv, "u", "b", 10));
	json_decref(wait_job(&sv, "u", "c", 10));
	a_done = completed_time(&sv, "a");
	b_done = completed_time(&sv, "b");
	kill(sv.pid, SIGKILL);
	waitpid(sv.pid, NULL, 0);

	ra = last_record(&sv, "u~a");
	rb = last_record(&sv, "u~b");
	rc = last_record(&sv, "u~c");
	assert_non_null(ra);
	assert_non_null(rb);
	assert_non_null(rc);
	snprintf(path, sizeof(path), "%s/records.log", sv.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	put_record(f, ra, 1, 1);	 /* older: the next line wins */
	put_record(f, ra, 0, 1);	 /* the last whole line */
	/* c cannot be loaded (more tasks than the local cluster takes) */
	json_object_set_new(json_array_get(json_object_get(rc, "roles"), 0),
			    "taskNumber", json_integer(5000));
	put_record(f, rc, 0, 1);
	put_record(f, ra, 2, 0); /* cut short: no newline */
	fclose(f);
	snprintf(path, sizeof(path), "%s/jobs/u~b/job.json", sv.dir);
	assert_int_equal(json_dump_file(rb, path, JSON_COMPACT), 0);
	json_decref(ra);
	json_decref(rb);

	start_server_in(&sv, NULL);
	assert_true(completed_time(&sv, "a") == a_done);
	assert_true(completed_time(&sv, "b") == b_done);
	/* folded into the log */
	assert_int_not_equal(stat(path, &st), 0);
	/* a line per job, all whole; c's kept as it was */
	snprintf(path, sizeof(path), "%s/records.log", sv.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_t *rec = json_loads(line, 0, NULL);

		assert_non_null(rec);
		assert_int_equal(line[strlen(line) - 1], '\n');
		json_decref(rec);
		n++;
	}
	fclose(f);
	assert_int_equal(n, 3);
	ra = last_record(&sv, "u~c");
	assert_true(json_equal(ra, rc));
	json_decref(ra);
	stop_server(&sv);

	/* and again: c still not run a second time */
	start_server_in(&sv, NULL);
	stop_server(&sv);
	snprintf(path, sizeof(path), "%s.ran", sv.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "ran\n");
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(path);
	json_decref(rc);

	/* a log that cannot be read: no start, rather than jobs run twice */
	snprintf(path, sizeof(path), "%s/records.log", sv.dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	out = serve_refuses(&sv);
	assert_non_null(strstr(out, "cannot read the jobs' records"));
	free(out);
	rmdir(path);
	remove_tree(sv.dir);
}

/* The task's directories are made by its monitor: when that fails, the
 * task fails and says why. */
static void test_no_task_dir(void **state)
{
	struct server sv;
	json_t *o;
	char path[256], gate[64], first[128];
	int fd;

	(void)state;
	gate_cmd(gate, sizeof(gate), first, sizeof(first));
	start_one_waiting(&sv, first, "blocked", "echo hi");
	/* a file where its attempt directory goes, while it waits */
	snprintf(path, sizeof(path), "%s/jobs/u~blocked/attempt-0", sv.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	o = job_status(&sv, "u", "blocked");
	assert_string_equal(job_state(o), "WAITING");
	json_decref(o);
	gate_open(gate);
	o = wait_job(&sv, "u", "blocked", 15);
	assert_string_equal(job_state(o), "FAILED");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(tasks_of(o, "main"), 0), "containerDiagnostics")),
	    "cannot create the task's directory");
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
	unlink(gate);
}

/* --capacity: FIFO admission, GPUs given out, too-big jobs refused;
 * without it, every job runs and its status says what did not fit. */
static void test_capacity(void **state)
{
	const char *extra[] = {"--capacity", "cpus=2,memory=1000,gpus=2", NULL};
	struct server sv;
	json_t *a, *b, *o, *t;
	char *cfg, *log;
	long long a_done, b_start;
	double t0;
	int seen_waiting = 0, i;

	(void)state;
	start_new_server(&sv, extra);

	cfg = config1("big", 2, "echo gpus=$CUDA_VISIBLE_DEVICES; sleep 0.6",
		      "{\"gpuNumber\": 1}", 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	cfg = config1("next", 1, "true", NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	cfg = config1("huge", 3, "true", NULL, 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	/* "next" waits for "big" to give back its CPUs */
	for (t0 = test_now_s(); test_now_s() - t0 < 10; test_sleep_ms(20)) {
		o = job_status(&sv, "u", "next");
		assert_non_null(o);
		if (strcmp(job_state(o), "WAITING") == 0)
			seen_waiting = 1;
		i = is_final(job_state(o));
		json_decref(o);
		if (i)
			break;
	}
	assert_true(seen_waiting);
	a = wait_job(&sv, "u", "big", 10);
	b = wait_job(&sv, "u", "next", 10);
	assert_string_equal(job_state(a), "SUCCEEDED");
	assert_string_equal(job_state(b), "SUCCEEDED");
	a_done = json_integer_value(
	    json_object_get(json_object_get(a, "jobStatus"), "completedTime"));
	b_start = json_integer_value(json_object_get(
	    json_object_get(b, "jobStatus"), "appLaunchedTime"));
	assert_true(b_start >= a_done);
	for (i = 0; i < 2; i++) {
		char want[32];

		t = json_array_get(tasks_of(a, "main"), (size_t)i);
		log = fetch_log(&sv, t, "user.pai.stdout");
		snprintf(want, sizeof(want), "gpus=%d\n", i);
		assert_string_equal(log, want);
		free(log);
		assert_int_equal(
		    json_integer_value(json_object_get(t, "containerGpus")),
		    1 << i);
	}
	json_decref(a);
	json_decref(b);
	/* three CPUs can never fit in two */
	o = wait_job(&sv, "u", "huge", 10);
	assert_string_equal(job_state(o), "FAILED");
	{
		struct resp r;

		/* it never started: its tasks have no logs, not empty ones */
		request(&sv, 0, "GET",
			"/api/v1/local/logs/u~huge/0/main/0/user.pai.stdout",
			NULL, 0, NULL, NULL, &r);
		assert_int_equal(r.status, 404);
		free(r.body);
	}
	assert_non_null(
	    strstr(json_string_value(json_object_get(
		       json_object_get(o, "jobStatus"), "appExitDiagnostics")),
		   "--capacity"));
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);

	/* no --capacity: runs anyway, and says so */
	start_server(&sv);
	cfg = config1("greedy", 1, "true", "{\"memoryMB\": 100000000}", 0);
	assert_int_equal(submit(&sv, "u", cfg, NULL), 201);
	free(cfg);
	o = wait_job(&sv, "u", "greedy", 10);
	assert_string_equal(job_state(o), "SUCCEEDED");
	assert_non_null(
	    strstr(json_string_value(json_object_get(
		       json_object_get(o, "jobStatus"), "localWarnings")),
		   "MB of memory"));
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* Where run_capture puts the standard error of what it runs. */
static char capture_err[sizeof(((struct server *)0)->dir) + 8] = "/dev/null";

/* Runs argv (no shell), returns its stdout (new) and sets *status. */
static char *run_capture(char *const *argv, int *status)
{
	char *out = calloc(1, 1), buf[4096];
	size_t len = 0;
	ssize_t n;
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR),
		    err = open(capture_err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(null, 0);
		dup2(p[1], 1);
		dup2(err >= 0 ? err : null, 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		out = realloc(out, len + (size_t)n + 1);
		memcpy(out + len, buf, (size_t)n);
		len += (size_t)n;
		out[len] = '\0';
	}
	close(p[0]);
	*status = wait_exit(pid, WAIT_MIN_S);
	return out;
}

static int port_open(unsigned port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)port);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* Every task's own sshd: the job's key gets in, the session starts in
 * the task's directory with its environment; STOP takes sshd along. */
static void test_ssh(void **state)
{
	struct server sv;
	json_t *o, *c;
	char key[160], port[16], dest[128], *out, want[256];
	struct resp r;
	struct stat st;
	struct passwd *pw = getpwuid(getuid());
	int status, fd;
	double t0;

	(void)state;
	if (access("/usr/sbin/sshd", X_OK) != 0 ||
	    access("/usr/bin/ssh", X_OK) != 0)
		skip();
	start_server(&sv);
	submit_running(&sv, "sshjob", 2, "sleep 600", 10);
	/* the key pair is made when first asked for, tasks running */
	snprintf(key, sizeof(key), "%s/jobs/u~sshjob/ssh/sshjob", sv.dir);
	assert_int_not_equal(access(key, F_OK), 0);
	assert_int_equal(
	    call(&sv, "GET", "/api/v1/user/u/jobs/sshjob/ssh", NULL, &o), 200);
	assert_int_equal(json_array_size(json_object_get(o, "containers")), 2);
	c = json_array_get(json_object_get(o, "containers"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "id")),
			    "u~sshjob-0-main-1");
	assert_string_equal(json_string_value(json_object_get(c, "sshIp")),
			    "127.0.0.1");
	snprintf(port, sizeof(port), "%s",
		 json_string_value(json_object_get(c, "sshPort")));
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(o, "keyPair"),
					      "privateKeyFileName")),
	    "sshjob");
	json_decref(o);
	/* the private key: 0600 on disk, and downloadable */
	snprintf(key, sizeof(key), "%s/jobs/u~sshjob/ssh/sshjob", sv.dir);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	request(&sv, 0, "GET", "/api/v1/user/u/jobs/sshjob/ssh/key", NULL, 0,
		NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "OPENSSH PRIVATE KEY"));
	snprintf(key, sizeof(key), "%s.key", sv.dir);
	fd = open(key, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, r.body, r.len), (ssize_t)r.len);
	close(fd);
	free(r.body);
	{
		char *argv[] = {
		    "ssh",
		    "-i",
		    key,
		    "-p",
		    port,
		    "-o",
		    "BatchMode=yes",
		    "-o",
		    "StrictHostKeyChecking=no",
		    "-o",
		    "UserKnownHostsFile=/dev/null",
		    "-o",
		    "LogLevel=ERROR",
		    "-F",
		    "/dev/null",
		    dest,
		    "pwd; echo $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX "
		    "$PAI_JOB_NAME; echo $HOME",
		    NULL};

		snprintf(dest, sizeof(dest), "%s@127.0.0.1", pw->pw_name);
		snprintf(capture_err, sizeof(capture_err), "%s.err", sv.dir);
		out = run_capture(argv, &status);
	}
	snprintf(want, sizeof(want),
		 "%s/jobs/u~sshjob/attempt-0/main-1/work\n1 sshjob\n%s/home\n",
		 sv.dir, sv.dir);
	if (strcmp(out, want) != 0 || status != 0) {
		char *err = NULL;
		size_t len = 0;

		pai_file_read(&err, &len, NULL, capture_err);
		fail_msg("ssh: wait status %d, stdout:\n%s\nstderr:\n%s",
			 status, out, err ? err : "");
	}
	unlink(capture_err);
	snprintf(capture_err, sizeof(capture_err), "/dev/null");
	free(out);
	unlink(key);
	assert_int_equal(call(&sv, "PUT",
			      "/api/v1/user/u/jobs/sshjob/executionType",
			      "{\"value\":\"STOP\"}", NULL),
			 202);
	json_decref(wait_job(&sv, "u", "sshjob", 10));
	for (t0 = test_now_s(); test_now_s() - t0 < 5 && port_open((unsigned)atoi(port));)
		test_sleep_ms(20);
	assert_false(port_open((unsigned)atoi(port)));
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* tests/server/hello-distributed.json, the README's job: servers listen
 * on their http port, clients reach every address of the host list. */
static void test_example_job(void **state)
{
	const char *src = getenv("PAI_SRCDIR");
	struct server sv;
	char path[PATH_MAX], *text = NULL, *log, want[128];
	json_t *o;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/server/hello-distributed.json",
		 src ? src : ".");
	f = fopen(path, "r");
	if (!f)
		skip(); /* run from elsewhere than the source tree */
	text = malloc(65536);
	assert_non_null(text);
	len = fread(text, 1, 65535, f);
	text[len] = '\0';
	fclose(f);
	start_server(&sv);
	assert_int_equal(submit(&sv, "me", text, NULL), 201);
	o = wait_job(&sv, "me", "hello-distributed", 30);
	assert_string_equal(job_state(o), "SUCCEEDED");
	for (i = 0; i < 2; i++) {
		log = fetch_log(&sv, json_array_get(tasks_of(o, "client"), i),
				"user.pai.stdout");
		snprintf(want, sizeof(want),
			 "client-%zu got: hello from server-0\n"
			 "client-%zu got: hello from server-1\n",
			 i, i);
		assert_string_equal(log, want);
		free(log);
	}
	json_decref(o);
	free(text);
	stop_server(&sv);
	remove_tree(sv.dir);
}

/* --background starts one server per state directory, however often it
 * is asked, and prints the socket once the server answers. */
static void test_background(void **state)
{
	struct server sv;
	char *argv[] = {paictl,	       "serve", "--background",
			"--state-dir", NULL,	"--no-ssh",
			NULL};
	char want[160], path[160], *out;
	json_t *info, *o;
	pid_t pid;
	int st, k;

	(void)state;
	memset(&sv, 0, sizeof(sv));
	strcpy(sv.dir, "/tmp/paictl-srv-XXXXXX");
	assert_non_null(mkdtemp(sv.dir));
	snprintf(last_dir, sizeof(last_dir), "%s", sv.dir);
	argv[4] = sv.dir;
	snprintf(sv.sock, sizeof(sv.sock), "%s/api.sock", sv.dir);
	snprintf(want, sizeof(want), "%s\n", sv.sock);
	for (k = 0; k < 2; k++) {
		out = run_capture(argv, &st);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		assert_string_equal(out, want);
		free(out);
		/* answering as soon as the command returns */
		assert_int_equal(call(&sv, "GET", "/api/v1", NULL, &o), 200);
		json_decref(o);
	}
	snprintf(path, sizeof(path), "%s/server.json", sv.dir);
	info = json_load_file(path, 0, NULL);
	assert_non_null(info);
	pid = (pid_t)json_integer_value(json_object_get(info, "pid"));
	json_decref(info);
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	for (k = 0; k < 500 && kill(pid, 0) == 0; k++)
		test_sleep_ms(10);
	assert_int_not_equal(kill(pid, 0), 0);
	remove_tree(sv.dir);
}

struct client {
	struct server *sv;
	int id, accepted;
};

static void *client_main(void *data)
{
	struct client *c = data;
	int i;

	for (i = 0; i < 50; i++) {
		char name[64], *cfg;

		snprintf(name, sizeof(name), "c%d-job%d", c->id, i);
		cfg = config1(name, 1, "true", NULL, 0);
		if (submit(c->sv, "load", cfg, NULL) == 201)
			c->accepted++;
		free(cfg);
	}
	return NULL;
}

/* A GET of the job's status with ?wait=MS&since=ETAG; the answer's ETag
 * in etag, the seconds it took in *took. Returns the status. */
static long held_get(const struct server *sv, const char *path,
		     const char *since, long ms, char *etag, double *took)
{
	char url[512], *q = curl_easy_escape(NULL, since, 0);
	struct resp r;
	double t0 = test_now_s();

	snprintf(url, sizeof(url), "%s?wait=%ld&since=%s", path, ms, q);
	curl_free(q);
	assert_int_equal(request(sv, 0, "GET", url, NULL, 0, NULL, NULL, &r),
			 CURLE_OK);
	*took = test_now_s() - t0;
	snprintf(etag, 64, "%s", r.etag);
	free(r.body);
	return r.status;
}

struct held {
	const struct server *sv;
	const char *path, *since;
	char etag[64];
	double took;
	long status;
};

static void *held_main(void *arg)
{
	struct held *h = arg;

	h->status =
	    held_get(h->sv, h->path, h->since, 20000, h->etag, &h->took);
	return NULL;
}

/* A server with alice's job "lp" running: it sleeps a minute. */
static void start_with_sleeper(struct server *sv)
{
	char *cfg = config1("lp", 1, "exec sleep 60", NULL, 0);
	json_t *o = NULL;

	start_server(sv);
	assert_int_equal(submit(sv, "alice", cfg, &o), 201);
	json_decref(o);
	assert_true(wait_running(sv, "alice", "lp", 30));
	free(cfg);
}

/* The long-poll on a job (its own extension, named in /api/v2/info): a
 * GET with ?wait=MS&since=ETAG is held until the job changes, then
 * answered with the new ETag, or at the end of MS with the same; a
 * since that is not the job's, or a job that ended, is answered at
 * once; a held request holds up no other (the STOP that wakes it is
 * answered meanwhile), on either API. Times: lower bounds, or bounds
 * far from what is measured. */
static void test_long_poll(void **state)
{
	static const char v1[] = "/api/v1/user/alice/jobs/lp",
			  v2[] = "/api/v2/jobs/alice~lp";
	struct server sv;
	struct held h = {&sv, v2, NULL, "", 0, 0};
	struct resp r;
	char etag[64];
	pthread_t th;
	double took;
	int sent;

	(void)state;
	start_with_sleeper(&sv);
	assert_int_equal(request(&sv, 0, "GET", v1, NULL, 0, NULL, NULL, &r),
			 CURLE_OK);
	free(r.body);
	assert_memory_equal(r.etag, "W/\"", 3);
	/* unchanged: held to the end of its time */
	assert_int_equal(held_get(&sv, v1, r.etag, 800, etag, &took), 200);
	assert_string_equal(etag, r.etag);
	assert_true(took >= 0.7);
	/* a since that is not the job's: at once */
	assert_int_equal(held_get(&sv, v1, "W/\"0\"", 20000, etag, &took), 200);
	assert_string_equal(etag, r.etag);
	assert_true(took < 15);
	/* held on v2, woken by a STOP answered meanwhile */
	h.since = r.etag;
	sent = atomic_load(&requests_sent);
	assert_int_equal(pthread_create(&th, NULL, held_main, &h), 0);
	wait_sent(sent, 1);
	assert_int_equal(call(&sv, "PUT", "/api/v2/jobs/alice~lp/executionType",
			      "{\"value\":\"STOP\"}", NULL),
			 202);
	pthread_join(th, NULL);
	assert_int_equal(h.status, 200);
	assert_string_not_equal(h.etag, r.etag);
	assert_true(h.took < 15);
	/* ended: nothing more to wait for */
	json_decref(wait_job(&sv, "alice", "lp", 20));
	assert_int_equal(request(&sv, 0, "GET", v1, NULL, 0, NULL, NULL, &r),
			 CURLE_OK);
	free(r.body);
	assert_int_equal(held_get(&sv, v1, r.etag, 20000, etag, &took), 200);
	assert_true(took < 15);
	stop_server(&sv);
}

/* A held request of a server that stops: answered, with the status as
 * it is then, not cut (its client would take that for a lost cluster). */
struct held_raw {
	const struct server *sv;
	char url[512];
	int cc;
	long status;
};

static void *held_raw_main(void *arg)
{
	struct held_raw *h = arg;
	struct resp r;

	h->cc = request(h->sv, 0, "GET", h->url, NULL, 0, NULL, NULL, &r);
	h->status = r.status;
	free(r.body);
	return NULL;
}

static void test_long_poll_at_shutdown(void **state)
{
	struct server sv;
	struct held_raw h;
	struct resp r;
	char *q;
	pthread_t th;
	int sent;

	(void)state;
	start_with_sleeper(&sv);
	assert_int_equal(request(&sv, 0, "GET", "/api/v2/jobs/alice~lp", NULL,
				 0, NULL, NULL, &r),
			 CURLE_OK);
	free(r.body);
	memset(&h, 0, sizeof(h));
	h.sv = &sv;
	q = curl_easy_escape(NULL, r.etag, 0);
	snprintf(h.url, sizeof(h.url),
		 "/api/v2/jobs/alice~lp?wait=20000&since=%s", q);
	curl_free(q);
	sent = atomic_load(&requests_sent);
	assert_int_equal(pthread_create(&th, NULL, held_raw_main, &h), 0);
	wait_sent(sent, 1);
	stop_server(&sv);
	pthread_join(th, NULL);
	assert_int_equal(h.cc, CURLE_OK);
	assert_int_equal(h.status, 200);
	/* the task goes on (to be re-adopted): started again, stopped */
	start_server_in(&sv, NULL);
	assert_int_equal(call(&sv, "PUT", "/api/v2/jobs/alice~lp/executionType",
			      "{\"value\":\"STOP\"}", NULL),
			 202);
	json_decref(wait_job(&sv, "alice", "lp", 20));
	stop_server(&sv);
	remove_tree(sv.dir);
}

static void test_concurrent_clients(void **state)
{
	struct server sv;
	struct client cl[4];
	pthread_t th[4];
	json_t *o, *seen = json_object(), *v;
	size_t i;
	double t0;
	int all;

	(void)state;
	start_server(&sv);
	for (i = 0; i < 4; i++) {
		cl[i].sv = &sv;
		cl[i].id = (int)i;
		cl[i].accepted = 0;
		assert_int_equal(
		    pthread_create(&th[i], NULL, client_main, &cl[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(cl[i].accepted, 50);
	}
	for (t0 = test_now_s(); test_now_s() - t0 < 60; test_sleep_ms(100)) {
		assert_int_equal(
		    call(&sv, "GET", "/api/v1/user/load/jobs", NULL, &o), 200);
		all = json_array_size(o) == 200;
		json_array_foreach(o, i, v) all =
		    all &&
		    strcmp(json_string_value(json_object_get(v, "state")),
			   "SUCCEEDED") == 0;
		if (all)
			break;
		json_decref(o);
		o = NULL;
	}
	assert_non_null(o);
	assert_int_equal(json_array_size(o), 200);
	json_array_foreach(o, i, v)
	{
		const char *name =
		    json_string_value(json_object_get(v, "name"));

		assert_null(json_object_get(seen, name));
		json_object_set_new(seen, name, json_true());
	}
	assert_int_equal(json_object_size(seen), 200);
	json_decref(o);
	json_decref(seen);
	stop_server(&sv);
	/* and all 200 come back after a restart */
	start_server_in(&sv, NULL);
	assert_int_equal(call(&sv, "GET", "/api/v1/jobs", NULL, &o), 200);
	assert_int_equal(json_array_size(o), 200);
	json_decref(o);
	stop_server(&sv);
	remove_tree(sv.dir);
}

static void test_tcp_tokens(void **state)
{
	struct server sv;
	char users[160], *cfg, auth[160];
	struct resp r;
	json_t *o;
	FILE *f;

	(void)state;
	memset(&sv, 0, sizeof(sv));
	strcpy(sv.dir, "/tmp/paictl-srv-XXXXXX");
	assert_non_null(mkdtemp(sv.dir));
	snprintf(users, sizeof(users), "%s.users", sv.dir);
	f = fopen(users, "w");
	assert_non_null(f);
	fputs("# test accounts\nalice:secret\nbob:hunter2\n", f);
	fclose(f);
	chmod(users, 0600);
	sv.tcp = 1;
	{
		const char *extra[] = {"--listen", "127.0.0.1:0", "--users",
				       users, NULL};

		start_server_in(&sv, extra);
	}
	assert_true(strncmp(sv.url, "http://127.0.0.1:", 17) == 0);

	cfg = config1("tok", 1, "true", NULL, 0);
	/* no token, a wrong token */
	request(&sv, 1, "POST", "/api/v1/user/alice/jobs", cfg, strlen(cfg),
		NULL, NULL, &r);
	o = json_loads(r.body, 0, NULL);
	expect_error(r.status, o, 401, "UnauthorizedUserError");
	json_decref(o);
	free(r.body);
	request(&sv, 1, "POST", "/api/v1/user/alice/jobs", cfg, strlen(cfg),
		"Authorization: Bearer 0123456789abcdef", NULL, &r);
	o = json_loads(r.body, 0, NULL);
	expect_error(r.status, o, 401, "UnauthorizedUserError");
	json_decref(o);
	free(r.body);
	/* bad credentials */
	request(&sv, 1, "POST", "/api/v1/token",
		"username=alice&password=wrong-pw", 32, NULL, NULL, &r);
	o = json_loads(r.body, 0, NULL);
	expect_error(r.status, o, 400, "IncorrectPasswordError");
	json_decref(o);
	free(r.body);
	/* v0.17's Joi rule: under 6 characters, before any user lookup */
	request(&sv, 1, "POST", "/api/v1/token", "username=alice&password=x",
		25, NULL, NULL, &r);
	o = json_loads(r.body, 0, NULL);
	expect_error(r.status, o, 400, "InvalidParametersError");
	json_decref(o);
	free(r.body);
	request(&sv, 1, "POST", "/api/v1/token",
		"{\"username\":\"carol\",\"password\":\"xxxxxx\"}", 40,
		"Content-Type: application/json", NULL, &r);
	o = json_loads(r.body, 0, NULL);
	expect_error(r.status, o, 400, "NoUserError");
	json_decref(o);
	free(r.body);
	/* bob's token does not submit as alice; alice's does */
	request(&sv, 1, "POST", "/api/v1/token",
		"username=bob&password=hunter2&expiration=3600", 45, NULL, NULL,
		&r);
	assert_int_equal(r.status, 200);
	o = json_loads(r.body, 0, NULL);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 json_string_value(json_object_get(o, "token")));
	assert_string_equal(json_string_value(json_object_get(o, "user")),
			    "bob");
	json_decref(o);
	free(r.body);
	request(&sv, 1, "POST", "/api/v1/user/alice/jobs", cfg, strlen(cfg),
		auth, NULL, &r);
	assert_int_equal(r.status, 403);
	free(r.body);
	request(&sv, 1, "POST", "/api/v1/token",
		"username=alice&password=secret", 30, NULL, NULL, &r);
	o = json_loads(r.body, 0, NULL);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		 json_string_value(json_object_get(o, "token")));
	json_decref(o);
	free(r.body);
	request(&sv, 1, "POST", "/api/v1/user/alice/jobs", cfg, strlen(cfg),
		auth, NULL, &r);
	assert_int_equal(r.status, 201);
	free(r.body);
	/* reading needs no token */
	request(&sv, 1, "GET", "/api/v1/user/alice/jobs/tok", NULL, 0, NULL,
		NULL, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	free(cfg);
	kill(sv.pid, SIGTERM);
	assert_int_equal(wait_exit(sv.pid, 10), 0);
	unlink(users);
	remove_tree(sv.dir);
}

static int teardown(void **state)
{
	(void)state;
	if (last_server > 0 && kill(last_server, SIGTERM) == 0)
		waitpid(last_server, NULL, 0);
	last_server = 0;
	if (last_dir[0]) {
		/* a --background server is not our child */
		char path[128];
		json_t *info;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/server.json", last_dir);
		info = json_load_file(path, 0, NULL);
		pid = (pid_t)json_integer_value(json_object_get(info, "pid"));
		if (pid > 1)
			kill(pid, SIGTERM);
		json_decref(info);
		remove_tree(last_dir);
	}
	last_dir[0] = '\0';
	return 0;
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    T(test_api_and_bad_requests),
	    T(test_logs_and_ranges),
	    T(test_two_roles),
	    T(test_completion_policies),
	    T(test_stop_ignoring_sigterm),
	    T(test_form_submission),
	    T(test_frameworks_vcs_users),
	    T(test_server_killed),
	    T(test_capacity),
	    T(test_waiting_survives_restart),
	    T(test_restart_while_forking),
	    T(test_cgroup_pool),
	    T(test_cgroup_pool_monitor_killed),
	    T(test_forker),
	    T(test_no_task_dir),
	    T(test_records_log),
	    T(test_ssh),
	    T(test_example_job),
	    T(test_background),
	    T(test_concurrent_clients),
	    T(test_long_poll),
	    T(test_long_poll_at_shutdown),
	    T(test_tcp_tokens),
	};
	(void)argc;
	if (test_find_paictl(paictl, sizeof(paictl), argv[0], "test_server") < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	/* TEST_FILTER=test_ssh (a glob): those tests alone, to run one
	 * again and again */
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
