/* test_batch.c - pai_submit_batch() against fake_openpai.c's OpenPAI v0.x
 * on 127.0.0.1: every submission told once, in the order given, with
 * its own error and detail; several in flight (connections at once);
 * a 401 sent again with the token renewed meanwhile (shared by the
 * lanes); STOP begins no more, yet tells those under way; a batch of
 * one, and a cluster that cannot be reached, told per submission. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "fake_openpai.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 12

struct script {
	int posts, open, most; /* POSTs, under way now, most at once */
	char names[N][16];     /* the jobs the server made, in order */
	int made;
	char auth[64]; /* the token a POST must carry */
};

/* A POST of job jN: 202 after a while (slow enough that several are
 * under way at once), unless its token is stale (401), or it is "bad"
 * (400). */
static void on_request(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;
	json_t *cfg = json_loadb(rq->body, rq->body_len, 0, NULL);
	const char *name = json_string_value(json_object_get(cfg, "jobName"));
	char auth[128];

	if (strcmp(rq->method, "POST") != 0 || !name) {
		fake_reply_set(
		    rp, 404, "application/json",
		    "{\"code\":\"NotFoundError\",\"message\":\"no\"}");
		json_decref(cfg);
		return;
	}
	s->posts++;
	if (!fake_header(rq, "Authorization", auth, sizeof(auth)) ||
	    strcmp(auth, s->auth) != 0)
		fake_reply_set(rp, 401, "application/json",
			       "{\"code\":\"UnauthorizedUserError\","
			       "\"message\":\"Guest is not allowed to do this "
			       "operation.\"}");
	else if (strcmp(name, "bad") == 0)
		fake_reply_set(rp, 400, "application/json",
			       "{\"code\":\"InvalidParametersError\","
			       "\"message\":\"bad one\"}");
	else {
		if (s->made < N)
			snprintf(s->names[s->made++], 16, "%s", name);
		fake_reply_set(rp, 202, "application/json",
			       "{\"message\":\"update job %s successfully\"}",
			       name);
	}
	json_decref(cfg);
}

struct told {
	pai_client *c;
	size_t order[2 * N];
	int errs[2 * N];
	char details[2 * N][128];
	size_t n;
	size_t stop_at; /* STOP after telling this one; N: never */
	int renewed;
	int again[N]; /* sent again once already */
};

static int on_done(void *data, size_t i, int err, int recovered)
{
	struct told *t = data;
	const char *d = pai_client_error(t->c);

	(void)recovered;
	t->order[t->n] = i;
	t->errs[t->n] = err;
	snprintf(t->details[t->n], 128, "%s", d ? d : "");
	t->n++;
	if (err == PAI_EAUTH && !t->again[i]) {
		/* as cmd_submit.c does: a new token once (cli_relogin),
		 * then each refused one again, once */
		if (!t->renewed)
			assert_int_equal(pai_client_set_token(t->c, "new"),
					 PAI_OK);
		t->renewed = 1;
		t->again[i] = 1;
		return PAI_BATCH_AGAIN;
	}
	return i == t->stop_at ? PAI_BATCH_STOP : PAI_BATCH_GO;
}

static json_t *config(const char *name)
{
	return json_pack("{s:s,s:s,s:[{s:s,s:i,s:i,s:i,s:i,s:s}]}", "jobName",
			 name, "image", "debian", "taskRoles", "name", "main",
			 "taskNumber", 1, "cpuNumber", 1, "memoryMB", 100,
			 "gpuNumber", 0, "command", "true");
}

/* n configs j0, j1... ("bad" at bad, if < n) as one batch. */
static void run(struct script *s, struct told *t, size_t n, size_t bad,
		const char *token, unsigned in_flight)
{
	pai_batch_options bo = PAI_BATCH_OPTIONS_INIT;
	json_t *cfgs[N];
	fake_server *f = NULL;
	char name[32];
	size_t i;

	assert_int_equal(fake_start(&f, "127.0.0.1", on_request, s), 0);
	assert_non_null(t->c = fake_client(f, token, 0));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "j%u", (unsigned)i);
		cfgs[i] = config(i == bad ? "bad" : name);
	}
	bo.in_flight = in_flight;
	bo.done = on_done;
	bo.data = t;
	assert_int_equal(pai_submit_batch(t->c, "alice", cfgs, NULL, n, &bo),
			 PAI_OK);
	s->most = (int)fake_connections(f);
	for (i = 0; i < n; i++)
		json_decref(cfgs[i]);
	pai_client_free(t->c);
	fake_stop(f);
}

static void test_order_and_errors(void **state)
{
	struct script s = {0};
	struct told t = {0};
	size_t i;

	(void)state;
	snprintf(s.auth, sizeof(s.auth), "Bearer tok");
	t.stop_at = N;
	run(&s, &t, N, 5, "tok", 4);
	assert_int_equal(t.n, N);
	for (i = 0; i < N; i++) {
		assert_int_equal(t.order[i], i);
		assert_int_equal(t.errs[i], i == 5 ? PAI_EHTTP : PAI_OK);
	}
	/* each one's own detail */
	assert_string_equal(t.details[5], "bad one");
	assert_string_equal(t.details[6], "");
	assert_int_equal(s.posts, N);
	assert_int_equal(s.made, N - 1);
	/* several connections: several in flight (fresh ones for POSTs) */
	assert_true(s.most >= 2);
}

static void test_again_with_a_renewed_token(void **state)
{
	struct script s = {0};
	struct told t = {0};
	size_t i, ok = 0, refused = 0;

	(void)state;
	/* a POST with the old token is refused: the first told renews it,
	 * and each refused one goes again, with the new one */
	snprintf(s.auth, sizeof(s.auth), "Bearer new");
	t.stop_at = N;
	run(&s, &t, N, N, "old", 4);
	for (i = 0; i < t.n; i++) {
		ok += t.errs[i] == PAI_OK;
		refused += t.errs[i] == PAI_EAUTH;
	}
	assert_int_equal(t.order[0], 0);
	assert_int_equal(t.errs[0], PAI_EAUTH);
	assert_int_equal(t.order[1], 0); /* told again: done */
	assert_int_equal(t.errs[1], PAI_OK);
	/* those begun with the old token: at most the four in flight */
	assert_true(refused >= 1 && refused <= 4);
	assert_int_equal(ok, N);
	assert_int_equal(s.made, N); /* each once */
}

static void test_stop_tells_those_under_way(void **state)
{
	struct script s = {0};
	struct told t = {0};
	size_t i;

	(void)state;
	snprintf(s.auth, sizeof(s.auth), "Bearer tok");
	t.stop_at = 1;
	run(&s, &t, N, N, "tok", 4);
	/* told in order, from the first; none after those begun */
	for (i = 0; i < t.n; i++)
		assert_int_equal(t.order[i], i);
	assert_true(t.n >= 2 && t.n <= 2 + 4);
	assert_int_equal((size_t)s.posts, t.n);
}

static void test_one_by_one(void **state)
{
	struct script s = {0};
	struct told t = {0};

	(void)state;
	snprintf(s.auth, sizeof(s.auth), "Bearer tok");
	t.stop_at = N;
	run(&s, &t, 3, N, "tok", 1);
	assert_int_equal(t.n, 3);
	assert_int_equal(s.made, 3);
	assert_string_equal(s.names[0], "j0");
	assert_string_equal(s.names[2], "j2");
}

static void test_unreachable(void **state)
{
	pai_batch_options bo = PAI_BATCH_OPTIONS_INIT;
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	struct told t = {0};
	json_t *cfgs[2] = {config("a"), config("b")};

	(void)state;
	o.uri = "http://127.0.0.1:9"; /* discard: nothing listens */
	o.max_retries = 0;
	assert_int_equal(pai_client_new(&t.c, &o), PAI_OK);
	t.stop_at = 0;
	bo.done = on_done;
	bo.data = &t;
	/* the API cannot be asked: told as the submission would tell it */
	assert_int_equal(pai_submit_batch(t.c, "alice", cfgs, NULL, 2, &bo),
			 PAI_OK);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.errs[0], PAI_EUNREACHABLE);
	assert_non_null(strstr(t.details[0], "127.0.0.1:9"));
	json_decref(cfgs[0]);
	json_decref(cfgs[1]);
	pai_client_free(t.c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_errors),
	    cmocka_unit_test(test_again_with_a_renewed_token),
	    cmocka_unit_test(test_stop_tells_those_under_way),
	    cmocka_unit_test(test_one_by_one),
	    cmocka_unit_test(test_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
