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

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 12
#define M 40 /* configs of the lanes' batch */

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
	size_t order[2 * M];
	int errs[2 * M];
	char details[2 * M][128];
	size_t n;
	size_t stop_at; /* STOP after telling this one; N: never */
	int renewed;
	int again[M]; /* sent again once already */
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

/* ---- the lanes against a real loopback server ------------------------- */

struct slow {
	int posts;
	long long at[2 * M]; /* when each POST came (ms) */
	char made[M][16];    /* the jobs made, in order */
	int nmade;
	long long refused_ms; /* when it was */
	int refused;
};

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* POSTs before the last one that are still being answered (60 ms). */
static int under_way(const struct slow *s)
{
	long long now = s->at[s->posts - 1];
	int i, n = 0;

	for (i = 0; i < s->posts - 1; i++)
		n += s->at[i] > now - 60;
	return n;
}

/* Every POST answered after 60 ms, all at once (a server that overlaps
 * slow requests), but one: the first that comes while three others are
 * under way (the lanes have grown to four), a 429 with Retry-After: 1
 * at once. */
static void on_slow(void *data, const fake_request *rq, fake_reply *rp)
{
	struct slow *s = data;
	json_t *cfg = json_loadb(rq->body, rq->body_len, 0, NULL);
	const char *name = json_string_value(json_object_get(cfg, "jobName"));

	if (strcmp(rq->method, "POST") != 0 || !name || s->posts >= 2 * M) {
		fake_reply_set(rp, 404, "application/json",
			       "{\"code\":\"NotFoundError\",\"message\":\"no\"}");
		json_decref(cfg);
		return;
	}
	s->at[s->posts++] = ms_now();
	if (!s->refused && under_way(s) >= 3) {
		s->refused_ms = s->at[s->posts - 1];
		s->refused = 1;
		rp->headers = "Retry-After: 1\r\n";
		fake_reply_set(rp, 429, "application/json",
			       "{\"code\":\"TooManyRequests\",\"message\":"
			       "\"slow down\"}");
	} else {
		if (s->nmade < M)
			snprintf(s->made[s->nmade++], 16, "%s", name);
		rp->delay_ms = 60;
		fake_reply_set(rp, 202, "application/json",
			       "{\"message\":\"update job %s successfully\"}",
			       name);
	}
	json_decref(cfg);
}

/* The lanes the trace says, in order: "* batch: N submissions at once,
 * not W" and whether it was for an overload. */
struct changes {
	pthread_mutex_t m;
	unsigned to[64], from[64];
	int overload[64];
	long long at[64];
	size_t n;
};

static void on_trace(void *data, const char *line)
{
	struct changes *ch = data;
	unsigned to, from;

	if (sscanf(line, "* batch: %u submissions at once, not %u", &to,
		   &from) != 2)
		return;
	pthread_mutex_lock(&ch->m);
	if (ch->n < 64) {
		ch->to[ch->n] = to;
		ch->from[ch->n] = from;
		ch->overload[ch->n] = strstr(line, "overloaded") != NULL;
		ch->at[ch->n] = ms_now();
		ch->n++;
	}
	pthread_mutex_unlock(&ch->m);
}

static void test_lanes_grow_and_halve_on_429(void **state)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_batch_options bo = PAI_BATCH_OPTIONS_INIT;
	struct slow s = {0};
	struct changes ch = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, {0}, {0}, 0};
	struct told t = {0};
	json_t *cfgs[M];
	fake_server *f = NULL;
	char uri[64], name[32];
	unsigned most = 1;
	size_t i, j, k;

	(void)state;
	assert_int_equal(fake_start(&f, "127.0.0.1", on_slow, &s), 0);
	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u", fake_port(f));
	o.uri = uri;
	o.token = "tok";
	o.max_retries = 3;
	o.retry_max_ms = 10000;
	o.connect_timeout_ms = 2000;
	o.trace = on_trace;
	o.trace_data = &ch;
	assert_int_equal(pai_client_new(&t.c, &o), PAI_OK);
	assert_int_equal(pai_client_set_api(t.c, PAI_API_V1), PAI_OK);
	for (i = 0; i < M; i++) {
		snprintf(name, sizeof(name), "j%u", (unsigned)i);
		cfgs[i] = config(name);
	}
	t.stop_at = M;
	bo.in_flight = 8;
	bo.done = on_done;
	bo.data = &t;
	assert_int_equal(pai_submit_batch(t.c, "alice", cfgs, NULL, M, &bo),
			 PAI_OK);
	fake_lock(f);
	/* each told once, in order, made once: the refused one was sent
	 * again (a 429 refuses before anything is done), none twice */
	assert_int_equal(t.n, M);
	for (i = 0; i < M; i++) {
		assert_int_equal(t.order[i], i);
		assert_int_equal(t.errs[i], PAI_OK);
	}
	assert_int_equal(s.nmade, M);
	for (i = 0; i < M; i++)
		for (j = i + 1; j < M; j++)
			assert_string_not_equal(s.made[i], s.made[j]);
	assert_int_equal(s.posts, M + 1);
	assert_true(s.refused);
	/* Retry-After honoured: no POST came in the second after the 429
	 * but those sent before the client had read it (other lanes' at
	 * the same moment, 200 ms allowed on a loaded machine), a little
	 * less than the second for the clocks; without the hold, POSTs
	 * would come every 60 ms / lanes */
	for (i = 0; i < (size_t)s.posts; i++)
		if (s.at[i] > s.refused_ms + 200 &&
		    s.at[i] < s.refused_ms + 950)
			fail_msg("POST %u came %lld ms after the 429",
				 (unsigned)i, s.at[i] - s.refused_ms);
	fake_unlock(f);
	/* from one lane, doubling (or one more) while it paid, back when
	 * a step did not (a loaded machine), before the 429; then, the
	 * first change after it: half, for the overload */
	assert_true(ch.n >= 2);
	assert_int_equal(ch.from[0], 1);
	assert_int_equal(ch.to[0], 2);
	for (k = 0; k < ch.n && !ch.overload[k]; k++) {
		assert_true(ch.to[k] == 2 * ch.from[k] ||
			    ch.to[k] == ch.from[k] + 1 || ch.to[k] < ch.from[k]);
		if (ch.to[k] > most)
			most = ch.to[k];
	}
	assert_true(most >= 4);
	assert_true(k < ch.n);
	assert_true(ch.from[k] >= 4);
	assert_int_equal(ch.to[k], ch.from[k] / 2);
	/* and only once for that 429; then one more at a time (additive
	 * increase) while that pays */
	for (j = k + 1; j < ch.n; j++) {
		assert_false(ch.overload[j]);
		assert_true(ch.to[j] == ch.from[j] + 1 || ch.to[j] < ch.from[j]);
	}
	for (i = 0; i < M; i++)
		json_decref(cfgs[i]);
	pai_client_free(t.c);
	fake_stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_errors),
	    cmocka_unit_test(test_again_with_a_renewed_token),
	    cmocka_unit_test(test_stop_tells_those_under_way),
	    cmocka_unit_test(test_one_by_one),
	    cmocka_unit_test(test_unreachable),
	    cmocka_unit_test(test_lanes_grow_and_halve_on_429),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
