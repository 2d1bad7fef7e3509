/* test_client.c - libpai's REST client, profiles and credentials.
 *
 * Against the real local cluster (`paictl serve`, real HTTP over its Unix
 * socket or 127.0.0.1) for everything it can show, and against the small
 * scripted responder of fake_openpai.c only for what it cannot: a
 * proxy's HTML page, a lost answer to a submission, a redirect to another
 * host, an expired token, YARN's HTML logs, a server ignoring Range,
 * retries, a stalled transfer. Network only on 127.0.0.x; every wait is
 * bounded. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "testutil.h"
#include "alloc_fail.h"
#include "fake_openpai.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char paictl[PATH_MAX];

/* ---- the local cluster ---------------------------------------------- */

struct server {
	char dir[64];
	char sock[128];
	char url[64]; /* with --listen */
	pid_t pid;
};

/* one server for most tests (the group's), one per test for the rest */
static struct server shared;

static pai_client *new_client(const struct server *sv, const char *token)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;

	if (sv->url[0])
		o.uri = sv->url;
	else
		o.unix_socket = sv->sock;
	o.token = token;
	o.max_retries = 2;
	o.retry_max_ms = 5000;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	return c;
}

static int start_server(struct server *sv, const char *const *extra, int tcp)
{
	const char *argv[16] = {"paictl",  "serve", "--state-dir", sv->dir,
				"--grace", "1",	    "--no-ssh"};
	char log[128], path[160];
	double t0;
	int n = 7;

	while (extra && *extra && n < 15)
		argv[n++] = *extra++;
	argv[n] = NULL;
	snprintf(sv->sock, sizeof(sv->sock), "%s/api.sock", sv->dir);
	snprintf(log, sizeof(log), "%s.log", sv->dir);
	sv->url[0] = '\0';
	sv->pid = fork();
	if (sv->pid < 0)
		return -1;
	if (sv->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execv(paictl, (char *const *)argv);
		_exit(127);
	}
	/* ready when server.json names this process (and the TCP URL) */
	snprintf(path, sizeof(path), "%s/server.json", sv->dir);
	for (t0 = test_now_s(); test_now_s() - t0 < 10; test_sleep_ms(20)) {
		json_t *info = json_load_file(path, 0, NULL);
		int ok =
		    json_integer_value(json_object_get(info, "pid")) == sv->pid;

		if (ok && tcp) {
			const char *u =
			    json_string_value(json_object_get(info, "url"));

			ok = u != NULL;
			if (u)
				snprintf(sv->url, sizeof(sv->url), "%s", u);
		}
		json_decref(info);
		if (ok && access(sv->sock, F_OK) == 0)
			return 0;
	}
	return -1;
}

static void stop_server(struct server *sv)
{
	char cmd[256];
	double t0;
	int st;

	if (sv->pid > 0) {
		kill(sv->pid, SIGTERM);
		for (t0 = test_now_s(); test_now_s() - t0 < 20; test_sleep_ms(20))
			if (waitpid(sv->pid, &st, WNOHANG) == sv->pid)
				break;
		if (test_now_s() - t0 >= 20) {
			kill(sv->pid, SIGKILL);
			waitpid(sv->pid, &st, 0);
		}
	}
	sv->pid = 0;
	/* test scaffolding only: dir is our own mkdtemp name */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.log'", sv->dir, sv->dir);
	if (sv->dir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", sv->dir);
}

static int group_setup(void **state)
{
	(void)state;
	strcpy(shared.dir, "/tmp/paictl-cli-XXXXXX");
	if (!mkdtemp(shared.dir))
		return -1;
	return start_server(&shared, NULL, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	stop_server(&shared);
	return 0;
}

static json_t *config(const char *name, const char *command)
{
	json_t *c = json_pack(
	    "{s:s,s:s,s:[{s:s,s:i,s:i,s:i,s:i,s:s}]}", "jobName", name, "image",
	    "ubuntu", "taskRoles", "name", "main", "taskNumber", 2, "cpuNumber",
	    1, "memoryMB", 100, "gpuNumber", 0, "command", command);

	assert_non_null(c);
	return c;
}

static pai_job_info *wait_final(pai_client *c, const char *user,
				const char *name)
{
	pai_job_info *info = NULL;
	double t0 = test_now_s();

	while (test_now_s() - t0 < 30) {
		assert_int_equal(pai_job_get(&info, c, user, name), PAI_OK);
		if (pai_state_is_final(pai_job_info_state(info)))
			return info;
		pai_job_info_free(info);
		info = NULL;
		test_sleep_ms(50);
	}
	fail_msg("job %s did not end", name);
	return NULL;
}

/* ---- against the local cluster --------------------------------------- */

static void test_local_job_lifecycle(void **state)
{
	pai_client *c = new_client(&shared, NULL);
	json_t *cfg = config("life", "echo out $PAI_TASK_INDEX; exit 0");
	json_t *info = NULL, *stored;
	pai_job_info *ji = NULL;
	pai_job_list *list = NULL;
	const pai_task_info *t;
	char *text = NULL;
	size_t len = 0, i;
	int rec = -1, has;

	(void)state;
	assert_int_equal(pai_cluster_info(&info, c), PAI_OK);
	assert_string_equal(json_string_value(json_object_get(info, "name")),
			    "PAI RESTfulAPI");
	json_decref(info);

	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_OK);
	assert_int_equal(rec, 0);
	assert_null(pai_client_error(c));

	/* the same name again: 409 */
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_ECONFLICT);
	assert_int_equal(rec, 0);
	assert_int_equal(pai_client_http_status(c), 409);
	assert_string_equal(pai_client_error_code(c), "ConflictJobError");
	assert_string_equal(pai_client_error(c),
			    "Job name life already exists.");

	ji = wait_final(c, "alice", "life");
	assert_string_equal(pai_job_info_name(ji), "life");
	assert_string_equal(pai_job_info_user(ji), "alice");
	assert_string_equal(pai_job_info_vc(ji), "default");
	assert_int_equal(pai_job_info_state(ji), PAI_STATE_SUCCEEDED);
	assert_non_null(pai_job_info_substate(ji));
	assert_true(pai_job_info_created_ms(ji) > 1500000000000LL);
	assert_true(pai_job_info_completed_ms(ji) >=
		    pai_job_info_created_ms(ji));
	assert_int_equal(pai_job_info_retries(ji), 0);
	assert_int_equal(pai_job_info_exit_code(ji, &has), 0);
	assert_int_equal(has, 1);
	assert_int_equal(pai_job_info_task_count(ji), 2);
	for (i = 0; i < 2; i++) {
		t = pai_job_info_task(ji, i);
		assert_string_equal(t->role, "main");
		assert_int_equal(t->index, (long)i);
		assert_int_equal(t->state, PAI_STATE_SUCCEEDED);
		assert_string_equal(t->ip, "127.0.0.1");
		assert_non_null(t->container_id);
		assert_true(json_is_string(json_object_get(t->ports, "ssh")));
		assert_true(json_is_string(json_object_get(t->ports, "http")));
		assert_non_null(strstr(t->log_url, "/api/v1/local/logs/"));
		assert_int_equal(t->has_exit_code, 1);
		assert_int_equal(t->exit_code, 0);
	}
	assert_null(pai_job_info_task(ji, 2));
	assert_true(json_is_object(pai_job_info_json(ji)));
	pai_job_info_free(ji);

	assert_int_equal(pai_jobs_list(&list, c, "alice"), PAI_OK);
	assert_true(pai_job_list_count(list) >= 1);
	assert_true(json_is_array(pai_job_list_json(list)));
	for (i = 0; i < pai_job_list_count(list); i++)
		if (strcmp(pai_job_info_name(pai_job_list_get(list, i)),
			   "life") == 0)
			break;
	assert_true(i < pai_job_list_count(list));
	assert_int_equal(pai_job_info_state(pai_job_list_get(list, i)),
			 PAI_STATE_SUCCEEDED);
	assert_string_equal(pai_job_info_user(pai_job_list_get(list, i)),
			    "alice");
	assert_true(
	    json_is_object(pai_job_info_json(pai_job_list_get(list, i))));
	pai_job_list_free(list);
	assert_int_equal(pai_jobs_list(&list, c, "nobody-here"), PAI_OK);
	assert_int_equal(pai_job_list_count(list), 0);
	pai_job_list_free(list);
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_OK);
	assert_true(pai_job_list_count(list) >= 1);
	pai_job_list_free(list);

	assert_int_equal(pai_job_get_config(&text, &len, c, "alice", "life"),
			 PAI_OK);
	assert_int_equal(strlen(text), len);
	stored = json_loads(text, 0, NULL);
	assert_true(json_equal(stored, cfg));
	json_decref(stored);
	free(text);

	/* any URL of the cluster's own origin goes over its socket */
	assert_int_equal(
	    pai_download(&text, &len, c,
			 "http://localhost/api/v1/user/alice/jobs/life/config"),
	    PAI_OK);
	stored = json_loadb(text, len, 0, NULL);
	assert_true(json_equal(stored, cfg));
	json_decref(stored);
	free(text);

	/* stopping an ended job is fine (idempotent) */
	assert_int_equal(pai_job_stop(c, "alice", "life"), PAI_OK);

	json_decref(cfg);
	pai_client_free(c);
}

static void test_local_not_found(void **state)
{
	pai_client *c = new_client(&shared, NULL);
	pai_job_info *ji = (pai_job_info *)1;
	pai_ssh_info *si = (pai_ssh_info *)1;
	char *text = (char *)1, *data = (char *)1;
	size_t len = 1;
	long long next = -1;
	json_t *cfg = config("nossh", "true");
	int rec;

	(void)state;
	assert_int_equal(pai_job_get(&ji, c, "alice", "no-such-job"),
			 PAI_ENOTFOUND);
	assert_null(ji);
	assert_int_equal(pai_client_http_status(c), 404);
	assert_string_equal(pai_client_error_code(c), "NoJobError");
	assert_string_equal(pai_client_error(c),
			    "Job no-such-job is not found.");

	assert_int_equal(pai_job_stop(c, "alice", "no-such-job"),
			 PAI_ENOTFOUND);
	assert_int_equal(
	    pai_job_get_config(&text, &len, c, "alice", "no-such-job"),
	    PAI_ENOTFOUND);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_int_equal(pai_job_get_ssh(&si, c, "alice", "no-such-job"),
			 PAI_ENOTFOUND);
	assert_null(si);
	assert_string_equal(pai_client_error_code(c), "NoJobError");

	/* --no-ssh: the job has no SSH info */
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_OK);
	assert_int_equal(pai_job_get_ssh(&si, c, "alice", "nossh"),
			 PAI_ENOTFOUND);
	assert_string_equal(pai_client_error_code(c), "NoJobSshInfoError");

	/* a log that does not exist */
	assert_int_equal(
	    pai_log_read(&data, &len, &next, c,
			 "http://localhost/api/v1/local/logs/alice~zz/0/main/0/"
			 "user.pai.stdout",
			 0),
	    PAI_ENOTFOUND);
	assert_null(data);
	assert_int_equal(next, 0);

	/* an earlier error does not linger */
	assert_int_equal(pai_job_get(&ji, c, "alice", "nossh"), PAI_OK);
	assert_int_equal(pai_client_http_status(c), 0);
	assert_null(pai_client_error_code(c));
	assert_null(pai_client_error(c));
	pai_job_info_free(ji);

	/* a bad argument */
	assert_int_equal(pai_job_get(&ji, c, "", "x"), PAI_EINVAL);
	assert_int_equal(pai_job_get(&ji, c, "alice", NULL), PAI_EINVAL);
	json_decref(cfg);
	pai_client_free(c);
}

static void test_local_invalid_config(void **state)
{
	pai_client *c = new_client(&shared, NULL);
	json_t *cfg = json_pack("{s:s,s:s,s:[]}", "jobName", "bad", "image",
				"ubuntu", "taskRoles");
	int rec = -1;

	(void)state;
	/* the server's validator refuses it: 400, nothing retried */
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_EHTTP);
	assert_int_equal(rec, 0);
	assert_int_equal(pai_client_http_status(c), 400);
	assert_string_equal(pai_client_error_code(c), "InvalidParametersError");
	assert_non_null(strstr(pai_client_error(c), "invalid job config"));
	json_decref(cfg);

	/* no jobName: nothing to send */
	cfg = json_pack("{s:s}", "image", "ubuntu");
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_EINVAL);
	json_decref(cfg);
	pai_client_free(c);
}

/* Reads a log the way `logs -f` does until the job ends. */
static char *follow_log(pai_client *c, const char *url, const char *name)
{
	char *all = strdup(""), *data, *tmp;
	size_t total = 0, len;
	long long off = 0, next;
	pai_job_info *ji = NULL;
	double t0 = test_now_s();
	int final = 0;

	for (;;) {
		assert_true(test_now_s() - t0 < 30);
		if (!final) {
			assert_int_equal(pai_job_get(&ji, c, "alice", name),
					 PAI_OK);
			final = pai_state_is_final(pai_job_info_state(ji));
			pai_job_info_free(ji);
		}
		assert_int_equal(pai_log_read(&data, &len, &next, c, url, off),
				 PAI_OK);
		assert_int_equal(next, off + (long long)len);
		tmp = realloc(all, total + len + 1);
		assert_non_null(tmp);
		all = tmp;
		memcpy(all + total, data, len + 1);
		total += len;
		off = next;
		free(data);
		if (final && len == 0)
			return all;
		test_sleep_ms(20);
	}
}

static void test_local_logs(void **state)
{
	pai_client *c = new_client(&shared, NULL);
	json_t *cfg = config("logs", "for i in $(seq 1 300); do echo line $i; "
				     "[ $((i % 50)) = 0 ] && sleep 0.05; done; "
				     "echo '<&>' >&2");
	pai_job_info *ji = NULL;
	char url[512], *got, *data, want[8192];
	size_t len, n = 0;
	long long next;
	double t0 = test_now_s();
	int i, rec;

	(void)state;
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_OK);
	/* wait for the task to be placed (it has a log URL then) */
	for (;;) {
		assert_true(test_now_s() - t0 < 20);
		assert_int_equal(pai_job_get(&ji, c, "alice", "logs"), PAI_OK);
		if (pai_job_info_task(ji, 0)->log_url)
			break;
		pai_job_info_free(ji);
		test_sleep_ms(20);
	}
	snprintf(url, sizeof(url), "%suser.pai.stdout",
		 pai_job_info_task(ji, 0)->log_url);
	pai_job_info_free(ji);

	for (i = 1; i <= 300; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "line %d\n",
				      i);
	got = follow_log(c, url, "logs");
	assert_string_equal(got, want);
	free(got);

	/* from an offset: a Range request, 206 */
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 7), PAI_OK);
	assert_string_equal(data, want + 7);
	assert_int_equal(next, (long long)n);
	free(data);
	/* at the end (416) and past it: nothing new, same offset */
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, (long long)n),
			 PAI_OK);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	assert_int_equal(next, (long long)n);
	free(data);
	assert_int_equal(
	    pai_log_read(&data, &len, &next, c, url, (long long)n + 100),
	    PAI_OK);
	assert_int_equal(len, 0);
	assert_int_equal(next, (long long)n + 100);
	free(data);
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, -1),
			 PAI_EINVAL);

	/* stderr too */
	strcpy(strstr(url, "user.pai.stdout"), "user.pai.stderr");
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 0), PAI_OK);
	assert_string_equal(data, "<&>\n");
	free(data);
	json_decref(cfg);
	pai_client_free(c);
}

static void test_local_stop(void **state)
{
	pai_client *c = new_client(&shared, NULL);
	json_t *cfg = config("sleeper", "sleep 60");
	pai_job_info *ji = NULL;
	double t0 = test_now_s();
	int rec;

	(void)state;
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_OK);
	for (;;) {
		assert_true(test_now_s() - t0 < 20);
		assert_int_equal(pai_job_get(&ji, c, "alice", "sleeper"),
				 PAI_OK);
		if (pai_job_info_state(ji) == PAI_STATE_RUNNING)
			break;
		pai_job_info_free(ji);
		test_sleep_ms(20);
	}
	pai_job_info_free(ji);
	assert_int_equal(pai_job_stop(c, "alice", "sleeper"), PAI_OK);
	ji = wait_final(c, "alice", "sleeper");
	assert_int_equal(pai_job_info_state(ji), PAI_STATE_STOPPED);
	pai_job_info_free(ji);
	json_decref(cfg);
	pai_client_free(c);
}

static void test_local_unreachable(void **state)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	pai_job_info *ji = NULL;
	char sock[160];
	double t0;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/no-such.sock", shared.dir);
	o.unix_socket = sock;
	o.max_retries = 2;
	o.retry_max_ms = 3000;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	t0 = test_now_s();
	assert_int_equal(pai_job_get(&ji, c, "alice", "x"), PAI_EUNREACHABLE);
	assert_true(test_now_s() - t0 < 5);
	assert_int_equal(pai_client_http_status(c), 0);
	assert_null(pai_client_error_code(c));
	assert_non_null(strstr(pai_client_error(c), sock));
	assert_non_null(strstr(pai_client_error(c), "No such file"));
	pai_client_free(c);

	/* a closed TCP port */
	o = (pai_client_options)PAI_CLIENT_OPTIONS_INIT;
	o.uri = "http://127.0.0.1:1";
	o.max_retries = 0;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_job_get(&ji, c, "alice", "x"), PAI_EUNREACHABLE);
	assert_non_null(pai_client_error(c));
	pai_client_free(c);

	/* bad options */
	o = (pai_client_options)PAI_CLIENT_OPTIONS_INIT;
	assert_int_equal(pai_client_new(&c, &o), PAI_EINVAL);
	o.uri = "ftp://example.com";
	assert_int_equal(pai_client_new(&c, &o), PAI_EINVAL);
	o.uri = "http://localhost";
	o.version = 99;
	assert_int_equal(pai_client_new(&c, &o), PAI_EINVAL);
	assert_null(c);
}

struct trace_log {
	char *text;
	size_t len;
};

static void on_trace(void *data, const char *line)
{
	struct trace_log *t = data;
	size_t n = strlen(line);
	char *p = realloc(t->text, t->len + n + 2);

	assert_non_null(p);
	t->text = p;
	memcpy(t->text + t->len, line, n);
	t->text[t->len + n] = '\n';
	t->text[t->len + n + 1] = '\0';
	t->len += n + 1;
}

/* --listen with accounts: tokens, 401, 403, logins. */
static void test_local_tokens(void **state)
{
	struct server sv;
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	struct trace_log tl = {NULL, 0};
	pai_client *c = NULL;
	char users[160], *token = NULL, *bob = NULL;
	const char *extra[] = {"--listen", "127.0.0.1:0", "--users", users,
			       NULL};
	json_t *cfg = config("secured", "true");
	pai_job_info *ji = NULL;
	FILE *f;
	int rec;

	(void)state;
	memset(&sv, 0, sizeof(sv));
	strcpy(sv.dir, "/tmp/paictl-clt-XXXXXX");
	assert_non_null(mkdtemp(sv.dir));
	snprintf(users, sizeof(users), "%s.users", sv.dir);
	f = fopen(users, "w");
	assert_non_null(f);
	fputs("alice:s3cret-Pw:admin\nbob:hunter2\n", f);
	fclose(f);
	chmod(users, 0600);
	if (start_server(&sv, extra, 1) != 0) {
		stop_server(&sv);
		unlink(users);
		fail_msg("the server did not start");
	}

	o.uri = sv.url;
	o.max_retries = 0;
	o.trace = on_trace;
	o.trace_data = &tl;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);

	/* no token: reading is open, submitting is not */
	assert_int_equal(pai_job_get(&ji, c, "alice", "secured"),
			 PAI_ENOTFOUND);
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_EAUTH);
	assert_int_equal(pai_client_http_status(c), 401);
	assert_string_equal(pai_client_error_code(c), "UnauthorizedUserError");

	/* logins */
	assert_int_equal(pai_login(&token, c, "alice", "wrong-password", 3600),
			 PAI_EAUTH);
	assert_null(token);
	assert_string_equal(pai_client_error_code(c), "IncorrectPasswordError");
	assert_int_equal(pai_client_http_status(c), 400);
	/* under 6 characters: v0.17's validation refuses it before looking
	 * at the user, with a 400 that is still a failed login */
	assert_int_equal(pai_login(&token, c, "alice", "wrong", 3600),
			 PAI_EAUTH);
	assert_string_equal(pai_client_error_code(c), "InvalidParametersError");
	assert_int_equal(pai_login(&token, c, "mallory", "xxxxxx", 0),
			 PAI_EAUTH);
	assert_string_equal(pai_client_error_code(c), "NoUserError");
	assert_int_equal(pai_login(&token, c, "alice", "s3cret-Pw", 3600),
			 PAI_OK);
	assert_non_null(token);
	assert_int_equal(pai_login(&bob, c, "bob", "hunter2", 0), PAI_OK);

	/* bob may not act for alice */
	assert_int_equal(pai_client_set_token(c, bob), PAI_OK);
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_EFORBIDDEN);
	assert_int_equal(pai_client_http_status(c), 403);
	assert_string_equal(pai_client_error_code(c), "ForbiddenUserError");

	assert_int_equal(pai_client_set_token(c, token), PAI_OK);
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_OK);
	assert_int_equal(pai_job_stop(c, "alice", "secured"), PAI_OK);

	/* a token the server does not know */
	assert_int_equal(pai_client_set_token(c, "not-a-token"), PAI_OK);
	assert_int_equal(pai_job_stop(c, "alice", "secured"), PAI_EAUTH);
	assert_int_equal(pai_client_set_token(c, "two\r\nX-Injected: 1"),
			 PAI_EINVAL);
	assert_int_equal(pai_client_set_token(c, NULL), PAI_OK);
	assert_int_equal(pai_job_stop(c, "alice", "secured"), PAI_EAUTH);

	/* the trace shows requests, never a secret */
	assert_non_null(tl.text);
	assert_non_null(strstr(tl.text, "> POST /api/v1/token"));
	assert_non_null(strstr(tl.text, "Authorization: Bearer ***"));
	assert_non_null(strstr(tl.text, "\"password\":\"***\""));
	assert_null(strstr(tl.text, "s3cret-Pw"));
	assert_null(strstr(tl.text, "hunter2"));
	assert_null(strstr(tl.text, token));
	assert_null(strstr(tl.text, bob));

	free(tl.text);
	free(token);
	free(bob);
	json_decref(cfg);
	pai_client_free(c);
	stop_server(&sv);
	unlink(users);
}

/* ---- against the fake --------------------------------------------------- */

struct script {
	int posts, gets, puts, requests;
	int mode;	/* what the test wants */
	char *stored;	/* a job's config, once "created" */
	char auth[256]; /* the last Authorization header, "" if none */
	char range[256];
	int step;
	unsigned other_port; /* the second fake's */
	char loc[160];	     /* a Location header line; an error seen */
	long long created;   /* the stored job's createdTime */
	long clock_s;	     /* the server's clock: now plus this */
};

static fake_server *start_fake(const char *ip, fake_handler *fn,
			       struct script *s)
{
	fake_server *f = NULL;

	assert_int_equal(fake_start(&f, ip, fn, s), 0);
	return f;
}

static pai_client *client_of(fake_server *f, const char *token, int retries)
{
	pai_client *c = fake_client(f, token, retries);

	assert_non_null(c);
	return c;
}

static void note(struct script *s, const fake_request *rq)
{
	char buf[256];

	s->requests++;
	if (strcmp(rq->method, "POST") == 0)
		s->posts++;
	else if (strcmp(rq->method, "GET") == 0)
		s->gets++;
	else if (strcmp(rq->method, "PUT") == 0)
		s->puts++;
	snprintf(s->auth, sizeof(s->auth), "%s",
		 fake_header(rq, "Authorization", buf, sizeof(buf)) ? buf : "");
	snprintf(s->range, sizeof(s->range), "%s",
		 fake_header(rq, "Range", buf, sizeof(buf)) ? buf : "");
}

static const char html_502[] =
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx"
    "</center>\r\n</body>\r\n</html>\r\n";

static void on_proxy(void *data, const fake_request *rq, fake_reply *rp)
{
	note(data, rq);
	fake_reply_set(rp, 502, "text/html", "%s", html_502);
}

static void test_fake_html_502(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_proxy, &s);
	pai_client *c = client_of(f, "tok", 0);
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_job_info *ji = NULL;
	char want[128], uri[64];

	(void)state;
	assert_int_equal(pai_job_get(&ji, c, "alice", "j"), PAI_EHTTP);
	assert_int_equal(pai_client_http_status(c), 502);
	assert_null(pai_client_error_code(c));
	snprintf(want, sizeof(want), "HTTP 502 Bad Gateway from 127.0.0.1:%u",
		 fake_port(f));
	assert_string_equal(pai_client_error(c), want);
	fake_lock(f);
	assert_int_equal(s.requests, 1); /* max_retries 0 */
	fake_unlock(f);
	pai_client_free(c);

	/* TLS with a CA file that cannot be read: refused before a byte
	 * is sent (test_trust.c: whatever the scheme) */
	snprintf(uri, sizeof(uri), "https://127.0.0.1:%u", fake_port(f));
	o.uri = uri;
	o.ca_file = "/nonexistent/ca.pem";
	o.max_retries = 0;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_job_get(&ji, c, "alice", "x"), PAI_EACCES);
	assert_int_equal(pai_client_http_status(c), 0);
	pai_client_free(c);
	fake_stop(f);
}

/* A local cluster of an older paictl: its info names no extension. */
static void on_old_local(void *data, const fake_request *rq, fake_reply *rp)
{
	note(data, rq);
	fake_reply_set(rp, 200, "application/json",
		       "{\"name\":\"PAI RESTful API\",\"version\":"
		       "\"paictl 0.1.0\",\"launcherType\":\"paictl\"}");
}

/* "Tell me when it changes": the local cluster holds the request until
 * the job changes (or the time is up); OpenPAI cannot, and the call
 * says so without a request. Lower bounds only on time. */
static void test_local_job_changed(void **state)
{
	pai_client *c = new_client(&shared, NULL);
	json_t *cfg = config("watched", "sleep 60");
	pai_job_info *ji = NULL, *next = NULL;
	struct script s = {0};
	fake_server *f;
	double t0 = test_now_s();
	int rec;

	(void)state;
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_OK);
	/* no status known: the status now */
	assert_int_equal(
	    pai_job_get_changed(&ji, c, "alice", "watched", NULL, 5000),
	    PAI_OK);
	while (pai_job_info_state(ji) != PAI_STATE_RUNNING) {
		assert_true(test_now_s() - t0 < 20);
		assert_int_equal(
		    pai_job_get_changed(&next, c, "alice", "watched", ji, 5000),
		    PAI_OK);
		pai_job_info_free(ji);
		ji = next;
	}
	t0 = test_now_s();
	assert_int_equal(
	    pai_job_get_changed(&next, c, "alice", "watched", ji, 600), PAI_OK);
	assert_true(test_now_s() - t0 >= 0.5);
	assert_int_equal(pai_job_info_state(next), PAI_STATE_RUNNING);
	pai_job_info_free(next);
	assert_int_equal(pai_job_stop(c, "alice", "watched"), PAI_OK);
	do {
		assert_int_equal(
		    pai_job_get_changed(&next, c, "alice", "watched", ji, -1),
		    PAI_OK);
		pai_job_info_free(ji);
		ji = next;
	} while (pai_job_info_state(ji) != PAI_STATE_STOPPED);
	pai_job_info_free(ji);
	json_decref(cfg);
	pai_client_free(c);

	/* an older local cluster: not supported, asked once per client */
	f = start_fake("127.0.0.1", on_old_local, &s);
	c = client_of(f, "tok", 0);
	assert_int_equal(pai_client_set_api(c, PAI_API_DUAL), PAI_OK);
	assert_int_equal(
	    pai_job_get_changed(&next, c, "alice", "j", NULL, 1000),
	    PAI_ENOTSUP);
	assert_int_equal(
	    pai_job_get_changed(&next, c, "alice", "j", NULL, 1000),
	    PAI_ENOTSUP);
	fake_lock(f);
	assert_int_equal(s.requests, 1);
	s.requests = 0;
	fake_unlock(f);
	pai_client_free(c);
	fake_stop(f);

	/* OpenPAI: not supported, and nothing asked */
	f = start_fake("127.0.0.1", on_proxy, &s);
	c = client_of(f, "tok", 0);
	assert_int_equal(
	    pai_job_get_changed(&next, c, "alice", "j", NULL, 1000),
	    PAI_ENOTSUP);
	assert_null(next);
	fake_lock(f);
	assert_int_equal(s.requests, 0);
	fake_unlock(f);
	pai_client_free(c);
	fake_stop(f);
}

/* Submissions: the job store of a server that may lose answers. */
enum {
	LOSE_AFTER_CREATE, /* create the job, drop the connection */
	LOSE_BEFORE_CREATE,
	ERROR_500_CREATED, /* create it, answer 500 (known OpenPAI bug) */
	ANSWER_201,
	ANSWER_202,
	OTHER_CONFIG,	 /* drop; a different job of that name exists */
	OLD_SAME_CONFIG, /* drop; that config, submitted an hour before */
	SKEWED_CLOCK,	 /* as LOSE_AFTER_CREATE, the server a day ahead */
	UNKNOWABLE,	 /* drop; the job cannot be read (503) */
	REUSED		 /* "a" accepted; "j" created and dropped */
};

/* The server's clock, in epoch ms. */
static long long server_ms(const struct script *s)
{
	return ((long long)time(NULL) + s->clock_s) * 1000;
}

/* A POST of the submission modes: stores, drops, answers. */
static void post_job(struct script *s, const fake_request *rq, fake_reply *rp)
{
	switch (s->mode) {
	case LOSE_AFTER_CREATE:
	case SKEWED_CLOCK:
	case ERROR_500_CREATED:
	case OLD_SAME_CONFIG:
		if (!s->stored) {
			s->stored = strdup(rq->body);
			s->created = server_ms(s) -
				     (s->mode == OLD_SAME_CONFIG ? 3600000 : 0);
		}
		if (s->mode == ERROR_500_CREATED)
			fake_reply_set(rp, 500, "application/json",
				       "{\"code\":\"UnknownError\","
				       "\"message\":\"upstream\"}");
		else
			rp->drop = 1;
		return;
	case ANSWER_201:
		/* v0.17's real answer: the whole job, no name in jobStatus
		 * while waiting, taskRoles empty */
		fake_reply_set(rp, 201, "application/json",
			       "{\"name\":\"j\",\"jobStatus\":{\"username\":"
			       "\"alice\",\"state\":\"WAITING\",\"subState\":"
			       "\"FRAMEWORK_WAITING\",\"retries\":0,"
			       "\"createdTime\":1548979200250,"
			       "\"virtualCluster\":\"default\"},"
			       "\"taskRoles\":{}}");
		return;
	case ANSWER_202:
		fake_reply_set(rp, 202, "application/json",
			       "{\"message\":\"ok\"}");
		return;
	case OTHER_CONFIG:
		s->stored = strdup("{\"jobName\":\"j\",\"image\":\"x\"}");
		s->created = server_ms(s);
		rp->drop = 1;
		return;
	case REUSED:
		if (strstr(rq->body, "\"jobName\":\"a\"")) {
			fake_reply_set(rp, 202, "application/json",
				       "{\"message\":\"ok\"}");
			return;
		}
		s->stored = strdup(rq->body);
		s->created = server_ms(s);
		rp->drop = 1;
		return;
	default: rp->drop = 1; return;
	}
}

/* GET of the stored config: as a server may write it back,
 * pretty-printed, keys sorted, 1 as 1.0, its schema's defaults added. */
static void get_config(struct script *s, fake_reply *rp)
{
	json_t *o = json_loads(s->stored, 0, NULL);
	char *text;

	if (json_is_integer(json_object_get(o, "retryCount")))
		json_object_set_new(o, "retryCount", json_real(1.0));
	json_object_set_new(o, "jobEnvs", json_object());
	json_object_set_new(json_array_get(json_object_get(o, "taskRoles"), 0),
			    "portList", json_array());
	text = json_dumps(o, JSON_INDENT(4) | JSON_SORT_KEYS);
	fake_reply_set(rp, 200, "text/plain", "%s", text);
	free(text);
	json_decref(o);
}

static void on_submit(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;
	int status = strcmp(rq->path, "/api/v1/user/alice/jobs/j") == 0;

	note(s, rq);
	rp->clock_s = s->clock_s;
	if (strcmp(rq->method, "POST") == 0 &&
	    strcmp(rq->path, "/api/v1/user/alice/jobs") == 0)
		return post_job(s, rq, rp);
	if (strcmp(rq->method, "GET") != 0 ||
	    (!status && strcmp(rq->path, "/api/v1/user/alice/jobs/j/config")))
		return fake_reply_set(rp, 404, "application/json",
				      "{\"code\":\"NotFoundError\","
				      "\"message\":\"no\"}");
	if (s->mode == UNKNOWABLE)
		return fake_reply_set(rp, 503, "text/html",
				      "<html>busy</html>");
	if (!s->stored)
		return fake_reply_set(rp, 404, "application/json",
				      "{\"code\":\"NoJobError\",\"message\":"
				      "\"Job j is not found.\"}");
	if (!status)
		return get_config(s, rp);
	fake_reply_set(rp, 200, "application/json",
		       "{\"name\":\"j\",\"jobStatus\":{\"username\":\"alice\","
		       "\"state\":\"WAITING\",\"createdTime\":%lld,"
		       "\"virtualCluster\":\"default\"},\"taskRoles\":{}}",
		       s->created);
}

static int submit_with(int mode, int *recovered, struct script *s, int *posts)
{
	fake_server *f = start_fake("127.0.0.1", on_submit, s);
	pai_client *c = client_of(f, "tok", 2);
	json_t *cfg =
	    json_pack("{s:s,s:s,s:i,s:[{s:s,s:i,s:s}]}", "jobName", "j",
		      "image", "ubuntu", "retryCount", 1, "taskRoles", "name",
		      "main", "taskNumber", 1, "command", "true");
	int err;

	s->mode = mode;
	s->clock_s = mode == SKEWED_CLOCK ? 86400 : 0;
	err = pai_submit(c, "alice", cfg, recovered);
	snprintf(s->loc, sizeof(s->loc), "%s",
		 pai_client_error(c) ? pai_client_error(c) : "");
	fake_lock(f);
	*posts = s->posts;
	fake_unlock(f);
	json_decref(cfg);
	pai_client_free(c);
	fake_stop(f);
	free(s->stored);
	s->stored = NULL;
	return err;
}

static void test_fake_submit_recovery(void **state)
{
	struct script s;
	int rec, posts;

	(void)state;
	/* created, answer lost: found, submitted meanwhile with the config
	 * sent, never sent again */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(LOSE_AFTER_CREATE, &rec, &s, &posts),
			 PAI_OK);
	assert_int_equal(rec, 1);
	assert_int_equal(posts, 1);

	/* the server's clock decides, not ours */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(SKEWED_CLOCK, &rec, &s, &posts), PAI_OK);
	assert_int_equal(rec, 1);

	/* a 500 although the job was created */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(ERROR_500_CREATED, &rec, &s, &posts),
			 PAI_OK);
	assert_int_equal(rec, 1);
	assert_int_equal(posts, 1);

	/* lost before it was created: absent, not sent again, said so */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(LOSE_BEFORE_CREATE, &rec, &s, &posts),
			 PAI_EUNREACHABLE);
	assert_int_equal(rec, 0);
	assert_int_equal(posts, 1);
	assert_non_null(strstr(s.loc, "the job was not made"));

	/* someone else's job of that name */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(OTHER_CONFIG, &rec, &s, &posts),
			 PAI_ECONFLICT);
	assert_int_equal(rec, 0);
	assert_int_equal(posts, 1);

	/* the same config, but from before: not this submission */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(OLD_SAME_CONFIG, &rec, &s, &posts),
			 PAI_ECONFLICT);
	assert_int_equal(posts, 1);
	assert_non_null(strstr(s.loc, "submitted before"));

	/* cannot tell: the first failure, and no second POST */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(UNKNOWABLE, &rec, &s, &posts),
			 PAI_EUNREACHABLE);
	assert_int_equal(rec, 0);
	assert_int_equal(posts, 1);
	assert_non_null(
	    strstr(s.loc, "whether job 'j' was made cannot be told"));

	/* 201 and 202 are both accepted */
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(ANSWER_201, &rec, &s, &posts), PAI_OK);
	assert_int_equal(rec, 0);
	assert_int_equal(posts, 1);
	memset(&s, 0, sizeof(s));
	assert_int_equal(submit_with(ANSWER_202, &rec, &s, &posts), PAI_OK);
	assert_int_equal(posts, 1);
}

/* Several calls share one connection, but a submission goes on one of
 * its own: when a reused connection dies after the server acted on a
 * request, libcurl would send it again by itself. */
static void test_fake_reused_connection(void **state)
{
	struct script s;
	fake_server *f;
	pai_client *c;
	pai_job_list *list = NULL;
	json_t *a = json_pack("{s:s}", "jobName", "a");
	json_t *j = json_pack("{s:s,s:i}", "jobName", "j", "retryCount", 1);
	int rec = -1;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.mode = REUSED;
	f = start_fake("127.0.0.1", on_submit, &s);
	c = client_of(f, "tok", 0);
	assert_int_equal(pai_submit(c, "alice", a, &rec), PAI_OK);
	assert_int_equal(pai_submit(c, "alice", a, &rec), PAI_OK);
	assert_int_equal(fake_connections(f), 2);
	assert_int_equal(pai_submit(c, "alice", j, &rec), PAI_OK);
	assert_int_equal(rec, 1);
	fake_lock(f);
	assert_int_equal(s.posts, 3); /* a, a, j: never twice */
	fake_unlock(f);
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_ENOTFOUND);
	pai_client_free(c);
	fake_stop(f);
	free(s.stored);
	json_decref(a);
	json_decref(j);
}

static void on_redirect(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;

	note(s, rq);
	if (strcmp(rq->local_ip, "127.0.0.2") == 0) {
		fake_reply_set(rp, 200, "application/octet-stream",
			       "-----BEGIN KEY-----\n");
		return;
	}
	if (strcmp(rq->path, "/webhdfs/v1/key?op=OPEN") == 0) {
		/* WebHDFS: to a data node, i.e. another host */
		snprintf(s->loc, sizeof(s->loc),
			 "Location: http://127.0.0.2:%u/data?op=OPEN\r\n",
			 s->other_port);
		rp->headers = s->loc;
		fake_reply_set(rp, 307, NULL, NULL);
		return;
	}
	if (strcmp(rq->path, "/api/v1/user/alice/jobs/moved") == 0) {
		rp->headers = "Location: https://127.0.0.1/api/v1/user/alice/"
			      "jobs/moved\r\n";
		fake_reply_set(rp, 301, "text/html", "<html>moved</html>");
		return;
	}
	if (strcmp(rq->path, "/here") == 0) {
		rp->headers = "Location: /there\r\n";
		fake_reply_set(rp, 302, NULL, NULL);
		return;
	}
	if (strcmp(rq->path, "/there") == 0) {
		fake_reply_set(rp, 200, "text/plain", "same host");
		return;
	}
	if (strcmp(rq->path, "/loop") == 0) {
		rp->headers = "Location: /loop\r\n";
		fake_reply_set(rp, 302, NULL, NULL);
		return;
	}
	fake_reply_set(rp, 404, "text/plain", "no");
}

static void test_fake_redirect_other_host(void **state)
{
	struct script s1, s2;
	fake_server *f1, *f2;
	pai_job_info *ji = NULL;
	pai_client *c;
	char url[128], *data = NULL;
	size_t len = 0;

	(void)state;
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	f2 = start_fake("127.0.0.2", on_redirect, &s2);
	f1 = start_fake("127.0.0.1", on_redirect, &s1);
	s1.other_port = fake_port(f2);
	c = client_of(f1, "secret-token", 0);

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/webhdfs/v1/key?op=OPEN",
		 fake_port(f1));
	assert_int_equal(pai_download(&data, &len, c, url), PAI_OK);
	assert_string_equal(data, "-----BEGIN KEY-----\n");
	assert_int_equal(len, strlen(data));
	free(data);
	fake_lock(f1);
	assert_string_equal(s1.auth, "Bearer secret-token");
	fake_unlock(f1);
	fake_lock(f2);
	assert_int_equal(s2.requests, 1);
	assert_string_equal(s2.auth, ""); /* not sent to another host */
	fake_unlock(f2);

	/* a redirect on the same host keeps the token */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/here", fake_port(f1));
	assert_int_equal(pai_download(&data, &len, c, url), PAI_OK);
	assert_string_equal(data, "same host");
	free(data);
	fake_lock(f1);
	assert_string_equal(s1.auth, "Bearer secret-token");
	fake_unlock(f1);

	/* API calls follow no redirect, and say where it went */
	assert_int_equal(pai_job_get(&ji, c, "alice", "moved"), PAI_EHTTP);
	assert_int_equal(pai_client_http_status(c), 301);
	assert_non_null(strstr(pai_client_error(c),
			       "HTTP 301 Moved Permanently from 127.0.0.1:"));
	assert_non_null(strstr(pai_client_error(c),
			       "(to https://127.0.0.1/api/v1/user/alice/jobs/"
			       "moved)"));

	/* no end of redirects */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/loop", fake_port(f1));
	assert_int_equal(pai_download(&data, &len, c, url), PAI_EPROTOCOL);
	assert_null(data);

	/* a log on another host gets no token either */
	snprintf(url, sizeof(url), "http://127.0.0.2:%u/x", fake_port(f2));
	assert_int_equal(pai_download(&data, &len, c, url), PAI_OK);
	free(data);
	fake_lock(f2);
	assert_string_equal(s2.auth, "");
	fake_unlock(f2);

	pai_client_free(c);
	fake_stop(f1);
	fake_stop(f2);
}

static void on_expired(void *data, const fake_request *rq, fake_reply *rp)
{
	note(data, rq);
	fake_reply_set(rp, 401, "application/json; charset=utf-8",
		       "{\"code\":\"UnauthorizedUserError\",\"message\":"
		       "\"Guest is not allowed to do this operation.\"}");
}

static void test_fake_expired_token(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_expired, &s);
	pai_client *c = client_of(f, "old-token", 3);
	pai_job_list *list = NULL;

	(void)state;
	assert_int_equal(pai_jobs_list(&list, c, "alice"), PAI_EAUTH);
	assert_null(list);
	assert_int_equal(pai_client_http_status(c), 401);
	assert_string_equal(pai_client_error_code(c), "UnauthorizedUserError");
	assert_string_equal(pai_client_error(c),
			    "Guest is not allowed to do this operation.");
	fake_lock(f);
	assert_int_equal(s.requests, 1); /* a 401 is not retried */
	assert_string_equal(s.auth, "Bearer old-token");
	fake_unlock(f);
	pai_client_free(c);
	fake_stop(f);
}

/* YARN: an HTML page with the log inside <pre>, entities escaped. */
static void on_yarn(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;

	note(s, rq);
	if (s->mode == 1) {
		/* a server that ignores Range */
		fake_reply_set(rp, 200, "text/plain", "0123456789abcdef\n");
		return;
	}
	if (s->mode == 2) {
		/* an empty log, without even a Content-Type */
		fake_reply_set(rp, 200, NULL, NULL);
		return;
	}
	fake_reply_set(rp, 200, "text/html; charset=utf-8",
		       "<!DOCTYPE html><html><head><title>logs</title></head>"
		       "<body><table><tr><td>Log Type: user.pai.stdout"
		       "</td></tr></table><pre class=\"log\">a &lt;b&gt; &amp; "
		       "&quot;c&quot; &#39;d&#39; &#233;&#x4e2d;\nline 2"
		       "\n</pre></body></html>");
}

static void test_fake_yarn_html_log(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_yarn, &s);
	pai_client *c = client_of(f, NULL, 0);
	const char *want = "a <b> & \"c\" 'd' \xc3\xa9\xe4\xb8\xad\nline 2\n";
	char url[128], *data = NULL;
	size_t len = 0;
	long long next = 0;

	(void)state;
	snprintf(url, sizeof(url),
		 "http://127.0.0.1:%u/node/containerlogs/c1/alice/"
		 "user.pai.stdout",
		 fake_port(f));
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 0), PAI_OK);
	assert_string_equal(data, want);
	assert_int_equal(next, (long long)strlen(want));
	free(data);
	/* an offset counts in the decoded text; an HTML log is fetched
	 * whole, without Range */
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 2), PAI_OK);
	assert_string_equal(data, want + 2);
	assert_int_equal(next, (long long)strlen(want));
	free(data);
	fake_lock(f);
	assert_string_equal(s.range, "");
	fake_unlock(f);
	assert_int_equal(
	    pai_log_read(&data, &len, &next, c, url, (long long)strlen(want)),
	    PAI_OK);
	assert_int_equal(len, 0);
	free(data);
	pai_client_free(c);
	fake_stop(f);
}

/* An empty answer without a type is an empty log, not an HTML page
 * (found by fuzz_logs: the body's data is NULL then). */
static void test_fake_empty_log(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_yarn, &s);
	pai_client *c = client_of(f, NULL, 0);
	char url[128], *data = NULL;
	size_t len = 9;
	long long next = 0;

	(void)state;
	s.mode = 2;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/logs/stdout",
		 fake_port(f));
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 0), PAI_OK);
	assert_non_null(data);
	assert_int_equal(len, 0);
	assert_int_equal(next, 0);
	free(data);
	pai_client_free(c);
	fake_stop(f);
}

static void test_fake_range_ignored(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_yarn, &s);
	pai_client *c = client_of(f, NULL, 0);
	char url[128], *data = NULL;
	size_t len = 0;
	long long next = 0;

	(void)state;
	s.mode = 1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/log/user.pai.all",
		 fake_port(f));
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 10), PAI_OK);
	assert_string_equal(data, "abcdef\n");
	assert_int_equal(len, 7);
	assert_int_equal(next, 17);
	free(data);
	fake_lock(f);
	assert_string_equal(s.range, "bytes=10-");
	fake_unlock(f);
	assert_int_equal(pai_log_read(&data, &len, &next, c, url, 17), PAI_OK);
	assert_int_equal(len, 0);
	assert_int_equal(next, 17);
	free(data);
	pai_client_free(c);
	fake_stop(f);
}

static void on_busy(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;

	note(s, rq);
	if (s->requests <= 2) {
		fake_reply_set(rp, 503, "text/html",
			       "<html><body>busy</body></html>");
		return;
	}
	if (strcmp(rq->method, "PUT") == 0)
		fake_reply_set(rp, 202, "application/json",
			       "{\"message\":\"execute job j successfully\"}");
	else
		fake_reply_set(rp, 200, "application/json", "[]");
}

static void test_fake_retries(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_busy, &s);
	pai_client *c = client_of(f, "tok", 4);
	pai_job_list *list = NULL;

	(void)state;
	/* 503 twice, then 200 */
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_OK);
	assert_int_equal(pai_job_list_count(list), 0);
	pai_job_list_free(list);
	fake_lock(f);
	assert_int_equal(s.gets, 3);
	s.requests = 0;
	fake_unlock(f);

	/* PUT executionType is idempotent: retried too */
	assert_int_equal(pai_job_stop(c, "alice", "j"), PAI_OK);
	fake_lock(f);
	assert_int_equal(s.puts, 3);
	s.requests = 0;
	fake_unlock(f);
	pai_client_free(c);

	/* too few retries: the 503 stands */
	c = client_of(f, "tok", 1);
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_EHTTP);
	assert_int_equal(pai_client_http_status(c), 503);
	pai_client_free(c);
	fake_stop(f);
}

static void on_stall(void *data, const fake_request *rq, fake_reply *rp)
{
	note(data, rq);
	fake_reply_set(rp, 200, "application/json",
		       "[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]");
	rp->stall = 1;
}

static void test_fake_stall_and_interrupt(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_stall, &s);
	pai_client *c = client_of(f, NULL, 0);
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_job_list *list = NULL;
	volatile int stop = 1;
	char uri[64];
	double t0 = test_now_s();

	(void)state;
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_EUNREACHABLE);
	assert_true(test_now_s() - t0 < 4);
	assert_non_null(strstr(pai_client_error(c), "too slow"));
	assert_int_equal(pai_client_http_status(c), 0);
	pai_client_free(c);

	/* Ctrl-C: the transfer stops */
	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u", fake_port(f));
	o.uri = uri;
	o.interrupt = &stop;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	t0 = test_now_s();
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_EINTR);
	assert_true(test_now_s() - t0 < 3);
	pai_client_free(c);
	fake_stop(f);
}

/* Shapes the documentation shows rather than what the local cluster
 * sends: taskRoles as an array, taskStatuses as one object, times and
 * ports as strings or numbers. */
static void on_shapes(void *data, const fake_request *rq, fake_reply *rp)
{
	note(data, rq);
	if (strcmp(rq->path, "/api/v1/user/alice/jobs/odd") == 0)
		fake_reply_set(
		    rp, 200, "application/json",
		    "{\"name\":\"odd\",\"jobStatus\":{\"username\":\"alice\","
		    "\"state\":\"running\",\"createdTime\":\"1549000000123\","
		    "\"completedTime\":null,\"retries\":\"2\","
		    "\"appExitCode\":null,\"virtualCluster\":\"vc1\"},"
		    "\"taskRoles\":[{\"taskRoleStatus\":{\"name\":\"ps\"},"
		    "\"taskStatuses\":{\"taskIndex\":0,\"taskState\":"
		    "\"RUNNING\",\"containerId\":\"c0\",\"containerIp\":"
		    "\"10.0.0.1\",\"containerPorts\":{\"ssh\":2222,\"http\":"
		    "\"80,81\"},\"containerLog\":\"http://n/log/\","
		    "\"containerExitCode\":\"3\"}},"
		    "{\"taskRoleStatus\":{\"name\":\"worker\"},"
		    "\"taskStatuses\":[{\"taskIndex\":1,\"taskState\":"
		    "\"WAITING\"},{\"taskIndex\":0,\"taskState\":\"FAILED\","
		    "\"containerPorts\":null}]}]}");
	else if (strcmp(rq->path, "/api/v1/user/alice/jobs/iso") == 0)
		fake_reply_set(
		    rp, 200, "application/json",
		    "{\"name\":\"iso\",\"jobStatus\":{\"state\":\"SUCCEEDED\","
		    "\"createdTime\":\"2019-02-01T10:00:00.250Z\","
		    "\"completedTime\":1549015200500.0},\"taskRoles\":{}}");
	else if (strcmp(rq->path, "/api/v1/user/alice/jobs/odd/ssh") == 0)
		fake_reply_set(
		    rp, 200, "application/json",
		    "{\"containers\":[{\"id\":\"c0\",\"sshIp\":\"10.0.0.1\","
		    "\"sshPort\":\"2222\"}],\"keyPair\":{\"folderPath\":\"/f\","
		    "\"publicKeyFileName\":\"odd.pub\",\"privateKeyFileName\":"
		    "\"odd\",\"privateKeyDirectDownloadLink\":\"http://h/"
		    "k\"}}");
	else if (strcmp(rq->path, "/api/v1/user/alice/jobs/garbage") == 0)
		fake_reply_set(rp, 200, "application/json", "{not json");
	else if (strcmp(rq->path, "/api/v1/jobs") == 0)
		fake_reply_set(rp, 200, "application/json", "{\"jobs\":[]}");
	else
		fake_reply_set(rp, 404, NULL, NULL);
}

static void test_fake_shapes(void **state)
{
	struct script s = {0};
	fake_server *f = start_fake("127.0.0.1", on_shapes, &s);
	pai_client *c = client_of(f, NULL, 0);
	pai_job_info *ji = NULL;
	pai_ssh_info *si = NULL;
	pai_job_list *list = NULL;
	const pai_task_info *t;
	int has;

	(void)state;
	assert_int_equal(pai_job_get(&ji, c, "alice", "odd"), PAI_OK);
	assert_int_equal(pai_job_info_state(ji), PAI_STATE_RUNNING);
	assert_int_equal(pai_job_info_created_ms(ji), 1549000000123LL);
	assert_int_equal(pai_job_info_completed_ms(ji), 0);
	assert_int_equal(pai_job_info_retries(ji), 2);
	assert_string_equal(pai_job_info_vc(ji), "vc1");
	pai_job_info_exit_code(ji, &has);
	assert_int_equal(has, 0);
	assert_int_equal(pai_job_info_task_count(ji), 3);
	t = pai_job_info_task(ji, 0);
	assert_string_equal(t->role, "ps");
	assert_string_equal(t->container_id, "c0");
	assert_string_equal(json_string_value(json_object_get(t->ports, "ssh")),
			    "2222");
	assert_string_equal(
	    json_string_value(json_object_get(t->ports, "http")), "80,81");
	assert_string_equal(t->log_url, "http://n/log/");
	assert_int_equal(t->has_exit_code, 1);
	assert_int_equal(t->exit_code, 3);
	/* by index within the role */
	t = pai_job_info_task(ji, 1);
	assert_string_equal(t->role, "worker");
	assert_int_equal(t->index, 0);
	assert_int_equal(t->state, PAI_STATE_FAILED);
	assert_non_null(t->ports);
	assert_int_equal(json_object_size(t->ports), 0);
	assert_null(t->ip);
	assert_int_equal(pai_job_info_task(ji, 2)->index, 1);
	pai_job_info_free(ji);

	assert_int_equal(pai_job_get(&ji, c, "alice", "iso"), PAI_OK);
	assert_int_equal(pai_job_info_created_ms(ji), 1549015200250LL);
	assert_int_equal(pai_job_info_completed_ms(ji), 1549015200500LL);
	assert_int_equal(pai_job_info_task_count(ji), 0);
	pai_job_info_free(ji);

	assert_int_equal(pai_job_get_ssh(&si, c, "alice", "odd"), PAI_OK);
	assert_int_equal(pai_ssh_info_count(si), 1);
	assert_string_equal(pai_ssh_info_get(si, 0)->id, "c0");
	assert_string_equal(pai_ssh_info_get(si, 0)->ip, "10.0.0.1");
	assert_int_equal(pai_ssh_info_get(si, 0)->port, 2222);
	assert_null(pai_ssh_info_get(si, 1));
	assert_string_equal(pai_ssh_info_key_url(si), "http://h/k");
	assert_string_equal(pai_ssh_info_key_name(si), "odd");
	assert_true(json_is_object(pai_ssh_info_json(si)));
	pai_ssh_info_free(si);

	/* not JSON, or not the documented shape */
	assert_int_equal(pai_job_get(&ji, c, "alice", "garbage"),
			 PAI_EPROTOCOL);
	assert_non_null(pai_client_error(c));
	assert_int_equal(pai_jobs_list(&list, c, NULL), PAI_EPROTOCOL);
	/* a 404 with no body at all */
	assert_int_equal(pai_job_get(&ji, c, "alice", "zzz"), PAI_ENOTFOUND);
	assert_null(pai_client_error_code(c));
	assert_non_null(strstr(pai_client_error(c), "HTTP 404 Not Found from"));
	pai_client_free(c);
	fake_stop(f);
}

/* TLS against `openssl s_server` with a self-signed certificate:
 * refused by default, trusted with it as the CA file, or with insecure. */
static void test_tls_verification(void **state)
{
	char dir[] = "/tmp/paictl-tls-XXXXXX", cmd[1024], uri[64], port[16];
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	json_t *info = NULL;
	fake_server *probe = NULL;
	struct script s = {0};
	pid_t pid;
	double t0;
	int err;

	(void)state;
	if (system("openssl version >/dev/null 2>&1") != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && openssl req -x509 -newkey rsa:2048 -nodes "
		 "-keyout key.pem -out cert.pem -days 1 -subj /CN=127.0.0.1 "
		 "-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1",
		 dir);
	assert_int_equal(system(cmd), 0);
	/* a free port: the fake's, once it is gone */
	probe = start_fake("127.0.0.1", on_proxy, &s);
	snprintf(port, sizeof(port), "%u", fake_port(probe));
	fake_stop(probe);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		char cert[64], key[64], acc[32];

		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
		snprintf(key, sizeof(key), "%s/key.pem", dir);
		snprintf(acc, sizeof(acc), "127.0.0.1:%s", port);
		execlp("openssl", "openssl", "s_server", "-quiet", "-www",
		       "-accept", acc, "-cert", cert, "-key", key,
		       (char *)NULL);
		_exit(127);
	}
	snprintf(uri, sizeof(uri), "https://127.0.0.1:%s", port);
	o.uri = uri;
	o.max_retries = 0;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	/* wait until it listens: refused (unreachable) until then */
	for (t0 = test_now_s(); test_now_s() - t0 < 10; test_sleep_ms(50)) {
		err = pai_cluster_info(&info, c);
		if (err != PAI_EUNREACHABLE)
			break;
	}
	assert_int_equal(err, PAI_ETLS);
	assert_int_equal(pai_client_http_status(c), 0);
	assert_non_null(pai_client_error(c));
	pai_client_free(c);

	/* trusted: the TLS part works (s_server -www answers HTML) */
	snprintf(cmd, sizeof(cmd), "%s/cert.pem", dir);
	o.ca_file = cmd;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_cluster_info(&info, c), PAI_EPROTOCOL);
	assert_int_equal(pai_client_http_status(c), 200);
	pai_client_free(c);

	o.ca_file = NULL;
	o.insecure = 1;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_cluster_info(&info, c), PAI_EPROTOCOL);
	assert_int_equal(pai_client_http_status(c), 200);
	pai_client_free(c);

	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- out of memory ---------------------------------------------------- */

static int config_round_trip(const char *dir)
{
	pai_profile p = {"prod",      "https://pai.example.com",
			 "alice",     PAI_DIALECT_SCM,
			 "/ca.pem",   0,
			 PAI_API_AUTO};
	pai_config *cfg = NULL;
	char path[128], *detail = NULL, *tok = NULL;
	int err;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	unlink(path);
	if ((err = pai_config_load(&cfg, &detail, path)) ||
	    (err = pai_config_set(cfg, &p)) ||
	    (err = pai_config_set_current(cfg, "prod")) ||
	    (err = pai_config_save(cfg, path)))
		goto out;
	pai_config_free(cfg);
	cfg = NULL;
	if ((err = pai_config_load(&cfg, &detail, path)))
		goto out;
	if (!pai_config_find(cfg, "prod") ||
	    strcmp(pai_config_find(cfg, "prod")->user, "alice") != 0)
		err = PAI_ERROR;
	if (err || (err = pai_token_save(dir, "prod", "alice", "t0k")) ||
	    (err = pai_token_load(&tok, dir, "prod", "alice")))
		goto out;
	if (strcmp(tok, "t0k") != 0)
		err = PAI_ERROR;
out:
	free(tok);
	free(detail);
	pai_config_free(cfg);
	return err;
}

static int client_calls(fake_server *shapes, fake_server *yarn)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	pai_job_info *ji = NULL;
	pai_ssh_info *si = NULL;
	char url[128], uri[64], *data = NULL;
	size_t len;
	long long next;
	int err;

	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u", fake_port(shapes));
	o.uri = uri;
	o.token = "tok";
	o.max_retries = 0;
	if ((err = pai_client_new(&c, &o)))
		return err;
	if ((err = pai_job_get(&ji, c, "alice", "odd")) ||
	    (err = pai_job_get_ssh(&si, c, "alice", "odd")))
		goto out;
	if (pai_job_info_task_count(ji) != 3 || pai_ssh_info_count(si) != 1)
		err = PAI_ERROR;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/log", fake_port(yarn));
	if (!err)
		err = pai_log_read(&data, &len, &next, c, url, 2);
out:
	free(data);
	pai_job_info_free(ji);
	pai_ssh_info_free(si);
	pai_client_free(c);
	return err;
}

/* Every allocation of these paths fails once, in turn: each call then
 * fails cleanly (PAI_ENOMEM, or a dropped answer when the allocation
 * was the fake's own), leaks nothing, and crashes nowhere. Only libpai's
 * own allocations fail: jansson 2.14's parser writes out of bounds when
 * one of its allocations fails (valgrind shows it in json_loadb). */
static void test_out_of_memory(void **state)
{
	char dir[] = "/tmp/paictl-oom-XXXXXX", cmd[64];
	struct script s1 = {0}, s2 = {0};
	fake_server *shapes, *yarn;
	long n;
	int err, failed;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (n = 0;; n++) {
		alloc_fail_begin(n, 0);
		err = config_round_trip(dir);
		failed = alloc_fail_end();
		if (!failed) {
			assert_int_equal(err, PAI_OK);
			break;
		}
		/* a call may also get over a failed allocation */
		if (err != PAI_ENOMEM && err != PAI_OK)
			fail_msg("allocation %ld: %s", n, pai_strerror(err));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);

	shapes = start_fake("127.0.0.1", on_shapes, &s1);
	yarn = start_fake("127.0.0.1", on_yarn, &s2);
	for (n = 0;; n++) {
		alloc_fail_begin(n, 0);
		err = client_calls(shapes, yarn);
		failed = alloc_fail_end();
		if (!failed) {
			assert_int_equal(err, PAI_OK);
			break;
		}
		if (err != PAI_ENOMEM && err != PAI_OK &&
		    err != PAI_EUNREACHABLE && err != PAI_EHTTP)
			fail_msg("allocation %ld: %s", n, pai_strerror(err));
	}
	fake_stop(shapes);
	fake_stop(yarn);
}

/* ---- no server --------------------------------------------------------------
 */

static void test_ref_and_states(void **state)
{
	char *u = NULL, *n = NULL;
	pai_state st;

	(void)state;
	assert_int_equal(pai_job_ref_parse(&u, &n, "job1", "me"), PAI_OK);
	assert_string_equal(u, "me");
	assert_string_equal(n, "job1");
	free(u);
	free(n);
	assert_int_equal(pai_job_ref_parse(&u, &n, "bob~job~2", "me"), PAI_OK);
	assert_string_equal(u, "bob");
	assert_string_equal(n, "job~2");
	free(u);
	free(n);
	assert_int_equal(pai_job_ref_parse(&u, &n, "~job", "me"), PAI_EINVAL);
	assert_null(u);
	assert_int_equal(pai_job_ref_parse(&u, &n, "bob~", "me"), PAI_EINVAL);
	assert_int_equal(pai_job_ref_parse(&u, &n, "", "me"), PAI_EINVAL);
	assert_int_equal(pai_job_ref_parse(&u, &n, "j", NULL), PAI_OK);
	assert_null(u);
	assert_string_equal(n, "j");
	free(n);

	assert_string_equal(pai_state_name(PAI_STATE_SUCCEEDED), "SUCCEEDED");
	assert_string_equal(pai_state_name((pai_state)99), "UNKNOWN");
	assert_int_equal(pai_state_from_name(&st, "stopped"), PAI_OK);
	assert_int_equal(st, PAI_STATE_STOPPED);
	assert_int_equal(pai_state_from_name(&st, "DONE"), PAI_EINVAL);
	assert_true(pai_state_is_final(PAI_STATE_FAILED));
	assert_false(pai_state_is_final(PAI_STATE_RUNNING));
	assert_false(pai_state_is_final(PAI_STATE_UNKNOWN));
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void test_config_files(void **state)
{
	char dir[] = "/tmp/paictl-cfg-XXXXXX", path[128], cmd[160];
	pai_profile p = {"prod",	"https://pai.example.com/rest-server",
			 "alice",	PAI_DIALECT_SCM,
			 "/etc/ca.pem", 1,
			 PAI_API_V2};
	pai_config *cfg = NULL;
	const pai_profile *q;
	char *detail = NULL;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/config.json", dir);

	/* missing: empty */
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_OK);
	assert_int_equal(pai_config_count(cfg), 0);
	assert_null(pai_config_current(cfg));
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	p.name = "dev";
	p.uri = "http://10.0.0.1:9186";
	p.user = NULL;
	p.ca_file = NULL;
	p.insecure = 0;
	p.dialect = PAI_DIALECT_OPENPAI;
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	p.name = "bad/name";
	assert_int_equal(pai_config_set(cfg, &p), PAI_EINVAL);
	p.name = "x";
	p.uri = "ftp://x";
	assert_int_equal(pai_config_set(cfg, &p), PAI_EINVAL);
	assert_int_equal(pai_config_set_current(cfg, "prod"), PAI_OK);
	assert_int_equal(pai_config_save(cfg, path), PAI_OK);
	pai_config_free(cfg);
	cfg = NULL;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_OK);
	assert_int_equal(pai_config_count(cfg), 2);
	assert_string_equal(pai_config_current(cfg), "prod");
	q = pai_config_find(cfg, "prod");
	assert_non_null(q);
	assert_string_equal(q->uri, "https://pai.example.com/rest-server");
	assert_string_equal(q->user, "alice");
	assert_int_equal(q->dialect, PAI_DIALECT_SCM);
	assert_string_equal(q->ca_file, "/etc/ca.pem");
	assert_int_equal(q->insecure, 1);
	q = pai_config_get(cfg, 1);
	assert_string_equal(q->name, "dev");
	assert_null(q->user);
	assert_null(pai_config_get(cfg, 2));
	assert_null(pai_config_find(cfg, "nope"));
	assert_int_equal(pai_config_remove(cfg, "prod"), PAI_OK);
	assert_null(pai_config_current(cfg));
	assert_int_equal(pai_config_remove(cfg, "prod"), PAI_ENOTFOUND);
	assert_int_equal(pai_config_count(cfg), 1);
	pai_config_free(cfg);
	cfg = NULL;

	/* readable by others: refused, with the reason */
	chmod(path, 0644);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_EACCES);
	assert_null(cfg);
	assert_non_null(detail);
	assert_non_null(strstr(detail, "chmod 600"));
	free(detail);
	detail = NULL;

	/* malformed: where */
	write_file(path, "{\"clusters\": {\"a\": {\"uri\": }}}", 0600);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	assert_non_null(strstr(detail, ":1:"));
	free(detail);
	detail = NULL;
	write_file(path, "{\"clusters\": {\"a\": {\"uri\": \"gopher://x\"}}}",
		   0600);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	assert_non_null(strstr(detail, "'a'"));
	free(detail);
	detail = NULL;
	write_file(path, "[]", 0600);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	free(detail);
	detail = NULL;
	/* the reason quotes the file, but no control character of it
	 * reaches a terminal (found by fuzz_profiles) */
	write_file(path, "{\"clusters\": {\"a\x1b]0;x\x07\": 1}\x7f", 0600);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	assert_non_null(detail);
	for (const char *d = detail; *d; d++)
		assert_true((unsigned char)*d >= 0x20 && *d != 0x7f);
	free(detail);
	detail = NULL;
	write_file(path, "{\"clusters\": {\"a\\u001b]0;x\\u0007\": 1}}", 0600);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	assert_non_null(strstr(detail, "'a\\u001b]0;x\\u0007'"));
	free(detail);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A stored token longer than a read (4096 bytes) is read into a buffer
 * that leaves no copy of it behind as it grows. */
static void test_long_token_left_nowhere(void **state)
{
	char dir[] = "/tmp/paictl-tok-XXXXXX", cmd[64], *tok = NULL;
	char *want = malloc(10001);

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(want);
	memset(want, 'k', 10000);
	memcpy(want, "tok-left-nowhere-", 17);
	want[10000] = '\0';
	assert_int_equal(pai_token_save(dir, "prod", "alice", want), PAI_OK);
	alloc_watch = "tok-left-nowhere-";
	alloc_watch_hits = 0;
	assert_int_equal(pai_token_load(&tok, dir, "prod", "alice"), PAI_OK);
	alloc_watch = NULL;
	assert_string_equal(tok, want);
	assert_int_equal(alloc_watch_hits, 0);
	free(tok);
	free(want);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_tokens_and_atomic_writes(void **state)
{
	char dir[] = "/tmp/paictl-tok-XXXXXX", path[160], cmd[160];
	char *tok = NULL, *text = NULL;
	struct stat st;
	mode_t old;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(pai_token_load(&tok, dir, "prod", "alice"),
			 PAI_ENOTFOUND);
	assert_int_equal(pai_token_save(dir, "prod", "alice", "abc.def"),
			 PAI_OK);
	assert_int_equal(pai_token_load(&tok, dir, "prod", "alice"), PAI_OK);
	assert_string_equal(tok, "abc.def");
	free(tok);
	/* another user, another cluster: another file */
	assert_int_equal(pai_token_load(&tok, dir, "prod", "bob"),
			 PAI_ENOTFOUND);
	assert_int_equal(pai_token_load(&tok, dir, "dev", "alice"),
			 PAI_ENOTFOUND);
	/* odd names stay inside the directory */
	assert_int_equal(pai_token_save(dir, "..", "../../x", "t2"), PAI_OK);
	assert_int_equal(pai_token_load(&tok, dir, "..", "../../x"), PAI_OK);
	assert_string_equal(tok, "t2");
	free(tok);
	snprintf(path, sizeof(path), "%s/tokens/prod@alice", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	chmod(path, 0640);
	assert_int_equal(pai_token_load(&tok, dir, "prod", "alice"),
			 PAI_EACCES);
	assert_null(tok);
	/* saving again makes it private again */
	assert_int_equal(pai_token_save(dir, "prod", "alice", "new"), PAI_OK);
	assert_int_equal(pai_token_load(&tok, dir, "prod", "alice"), PAI_OK);
	assert_string_equal(tok, "new");
	free(tok);
	assert_int_equal(pai_token_remove(dir, "prod", "alice"), PAI_OK);
	assert_int_equal(pai_token_remove(dir, "prod", "alice"), PAI_ENOTFOUND);
	assert_int_equal(pai_token_save(dir, "prod", "", "t"), PAI_EINVAL);
	assert_int_equal(pai_token_save(dir, "prod", "a", "t\nx"), PAI_EINVAL);

	/* atomic writes: the mode asked for, whatever the umask */
	snprintf(path, sizeof(path), "%s/key", dir);
	old = umask(0);
	assert_int_equal(pai_file_write_atomic(path, "K1", 2, 0400, 1), PAI_OK);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0400);
	/* exclusive: an existing file stays */
	assert_int_equal(pai_file_write_atomic(path, "K2", 2, 0400, 1),
			 PAI_ECONFLICT);
	assert_int_equal(pai_file_read(&text, &len, NULL, path), PAI_OK);
	assert_string_equal(text, "K1");
	free(text);
	/* otherwise replaced */
	old = umask(077);
	assert_int_equal(pai_file_write_atomic(path, "K3", 2, 0644, 0), PAI_OK);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(pai_file_read(&text, &len, NULL, path), PAI_OK);
	assert_string_equal(text, "K3");
	free(text);
	/* no temporary file left behind */
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) = 2", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/no/such/dir/f", dir);
	assert_int_equal(pai_file_write_atomic(path, "x", 1, 0600, 0),
			 PAI_ENOTFOUND);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_local_job_lifecycle),
	    cmocka_unit_test(test_local_not_found),
	    cmocka_unit_test(test_local_invalid_config),
	    cmocka_unit_test(test_local_logs),
	    cmocka_unit_test(test_local_stop),
	    cmocka_unit_test(test_local_job_changed),
	    cmocka_unit_test(test_local_unreachable),
	    cmocka_unit_test(test_local_tokens),
	    cmocka_unit_test(test_fake_html_502),
	    cmocka_unit_test(test_fake_submit_recovery),
	    cmocka_unit_test(test_fake_reused_connection),
	    cmocka_unit_test(test_fake_redirect_other_host),
	    cmocka_unit_test(test_fake_expired_token),
	    cmocka_unit_test(test_fake_yarn_html_log),
	    cmocka_unit_test(test_fake_range_ignored),
	    cmocka_unit_test(test_fake_empty_log),
	    cmocka_unit_test(test_fake_retries),
	    cmocka_unit_test(test_fake_stall_and_interrupt),
	    cmocka_unit_test(test_fake_shapes),
	    cmocka_unit_test(test_tls_verification),
	    cmocka_unit_test(test_out_of_memory),
	    cmocka_unit_test(test_ref_and_states),
	    cmocka_unit_test(test_config_files),
	    cmocka_unit_test(test_tokens_and_atomic_writes),
	    cmocka_unit_test(test_long_token_left_nowhere),
	};
	(void)argc;
	if (test_find_paictl(paictl, sizeof(paictl), argv[0], "test_client") <
	    0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	/* 127.0.0.x only, even where the environment names a proxy */
	setenv("no_proxy", "*", 1);
	setenv("NO_PROXY", "*", 1);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
