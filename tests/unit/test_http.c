/* test_http.c - what every request of libpai's REST client honours: a
 * 429's or 503's Retry-After (seconds, or an HTTP date read against the
 * server's own Date), held on the client so that later calls wait too;
 * a wait longer than the client's limit failing at once with one line
 * that names both; the callback told once per wait; and a submission
 * re-sent after a 429 (refused before anything was done), never after a
 * 503. Against fake_openpai.c on 127.0.0.1; the times asserted are lower
 * bounds only (a wait never ends early), so a loaded machine cannot
 * fail them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "client/trace.h"
#include "alloc_fail.h"
#include "fake_openpai.h"
#include "testutil.h"

#include <jansson.h>
#include <malloc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	SECONDS,  /* the first request: 429, Retry-After: 1 */
	DATE,	  /* 429, Retry-After: an HTTP date 2 s after the Date */
	TOO_LONG, /* 429, Retry-After: 3600 */
	BUSY_POST /* a POST: 503, Retry-After: 1; then 404s */
};

struct script {
	int mode, requests, posts;
	const char *date_form; /* strftime's, for DATE */
	double at[8];	       /* when each request came (test_now_s) */
	char hdr[128];	       /* the reply's extra header lines */
	long clock_s;	       /* the server's clock: now plus this */
};

struct told {
	int calls;
	long status;
	long long wait_ms;
};

static void on_request(void *data, const fake_request *rq, fake_reply *rp)
{
	struct script *s = data;
	char date[64];
	time_t t = time(NULL) + s->clock_s + 2;
	struct tm tm;

	if (s->requests < 8)
		s->at[s->requests] = test_now_s();
	s->posts += strcmp(rq->method, "POST") == 0;
	rp->clock_s = s->clock_s;
	if (s->requests++ > 0) {
		if (s->mode == BUSY_POST)
			fake_reply_set(rp, 404, "application/json",
				       "{\"code\":\"NoJobError\",\"message\":"
				       "\"Job j is not found.\"}");
		else
			fake_reply_set(rp, 200, "application/json", "[]");
		return;
	}
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date),
		 s->date_form ? s->date_form : "%a, %d %b %Y %H:%M:%S GMT",
		 &tm);
	snprintf(s->hdr, sizeof(s->hdr), "Retry-After: %s\r\n",
		 s->mode == DATE       ? date
		 : s->mode == TOO_LONG ? "3600"
				       : "1");
	rp->headers = s->hdr;
	/* as express-rate-limit answers through nginx */
	fake_reply_set(rp, s->mode == BUSY_POST ? 503 : 429, "text/html",
		       "Too many requests, please try again later.");
}

static void on_told(void *data, long status, long long wait_ms)
{
	struct told *t = data;

	t->calls++;
	t->status = status;
	t->wait_ms = wait_ms;
}

static pai_client *client(fake_server *f, struct told *t)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	char uri[64];

	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u", fake_port(f));
	o.uri = uri;
	o.token = "tok";
	o.retry_max_ms = 10000;
	o.stall_timeout_s = 5;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_client_set_api(c, PAI_API_V1), PAI_OK);
	assert_int_equal(pai_client_set_retry_after_callback(c, on_told, t),
			 PAI_OK);
	return c;
}

/* A list asked once against a fake in mode; the script after. */
static int list_with(int mode, long clock_s, struct script *s, struct told *t,
		     char *msg, size_t len)
{
	const char *form = s->date_form;
	fake_server *f = NULL;
	pai_client *c;
	pai_job_list *list = NULL;
	int err;

	memset(s, 0, sizeof(*s));
	memset(t, 0, sizeof(*t));
	s->date_form = form;
	s->mode = mode;
	s->clock_s = clock_s;
	assert_int_equal(fake_start(&f, "127.0.0.1", on_request, s), 0);
	c = client(f, t);
	err = pai_jobs_list(&list, c, "alice");
	snprintf(msg, len, "%s",
		 pai_client_error(c) ? pai_client_error(c) : "");
	pai_job_list_free(list);
	pai_client_free(c);
	fake_stop(f);
	return err;
}

static void test_retry_after_seconds(void **state)
{
	struct script s;
	struct told t;
	char msg[512];

	(void)state;
	s.date_form = NULL;
	assert_int_equal(list_with(SECONDS, 0, &s, &t, msg, sizeof(msg)),
			 PAI_OK);
	assert_int_equal(s.requests, 2);
	assert_true(s.at[1] - s.at[0] >= 0.9);
	assert_int_equal(t.calls, 1);
	assert_int_equal(t.status, 429);
	assert_true(t.wait_ms > 0 && t.wait_ms <= 1000);
}

/* An HTTP date counts from the server's Date, whatever our clock says:
 * here the server is a day ahead. Its three forms (RFC 9110 5.6.7). */
static void test_retry_after_date(void **state)
{
	static const char *const forms[] = {
	    "%a, %d %b %Y %H:%M:%S GMT", /* IMF-fixdate */
	    "%A, %d-%b-%y %H:%M:%S GMT", /* RFC 850 */
	    "%a %b %e %H:%M:%S %Y"	 /* asctime */
	};
	struct script s;
	struct told t;
	char msg[512];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		s.date_form = forms[i];
		assert_int_equal(
		    list_with(DATE, 86400, &s, &t, msg, sizeof(msg)), PAI_OK);
		assert_int_equal(s.requests, 2);
		/* 2 s after a Date that may be the next second already */
		assert_true(s.at[1] - s.at[0] >= 0.9);
		assert_int_equal(t.calls, 1);
		assert_true(t.wait_ms <= 2000);
	}
}

/* Longer than the client waits: at once, one line naming both. */
static void test_retry_after_too_long(void **state)
{
	struct script s;
	struct told t;
	char msg[512];

	(void)state;
	s.date_form = NULL;
	assert_int_equal(list_with(TOO_LONG, 0, &s, &t, msg, sizeof(msg)),
			 PAI_EHTTP);
	assert_int_equal(s.requests, 1);
	assert_int_equal(t.calls, 0);
	assert_non_null(strstr(msg, "HTTP 429 Too Many Requests"));
	assert_non_null(strstr(msg, "rate limit"));
	assert_non_null(strstr(msg, "60 min"));
	assert_non_null(strstr(msg, "(10 s)"));
	assert_null(strchr(msg, '\n'));
}

/* A submission that met a 503 is not sent again (the server may have
 * acted on it); the lost answer is resolved by reading, and that read
 * waits for the time the 503 named: the hold is the client's. */
static void test_busy_post_holds_the_next_call(void **state)
{
	struct script s;
	struct told t;
	fake_server *f = NULL;
	pai_client *c;
	json_t *cfg = json_pack("{s:s}", "jobName", "j");
	int rec = -1;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	s.mode = BUSY_POST;
	assert_int_equal(fake_start(&f, "127.0.0.1", on_request, &s), 0);
	c = client(f, &t);
	assert_int_equal(pai_submit(c, "alice", cfg, &rec), PAI_EHTTP);
	assert_int_equal(pai_client_http_status(c), 503);
	assert_non_null(strstr(pai_client_error(c), "the job was not made"));
	fake_lock(f);
	assert_int_equal(s.posts, 1);
	assert_int_equal(s.requests, 2);
	assert_true(s.at[1] - s.at[0] >= 0.9);
	fake_unlock(f);
	assert_int_equal(t.calls, 1);
	assert_int_equal(t.status, 503);
	pai_client_free(c);
	fake_stop(f);
	json_decref(cfg);
}

static void trace_into(void *data, const char *line)
{
	strncat(data, line, 1023 - strlen(data));
	strncat(data, "\n", 1023 - strlen(data));
}

/* A body that holds a private key, whoever sends it (a download, a
 * Secret's data as text): its size traced, never its lines; any other
 * body as it is, secrets masked */
static void test_trace_key_body(void **state)
{
	static const char key[] = "{\"note\": \"x\", \"k\": \"-----BEGIN OPENSSH "
				  "PRIVATE KEY-----\\nb3BlbnNzaC1rZXk=\\n\"}\n";
	static const char pem[] = "-----BEGIN RSA PRIVATE KEY-----\n"
				  "MIIEowIBAAKCAQEA\n"
				  "-----END RSA PRIVATE KEY-----\n";
	char out[1024] = "";

	(void)state;
	pai__trace_body(trace_into, out, "< ", key, strlen(key));
	pai__trace_body(trace_into, out, "< ", pem, strlen(pem));
	pai__trace_body(trace_into, out, "< ", "{\"a\": 1}", 8);
	pai__trace_secret(trace_into, out, "< ", 7);
	assert_string_equal(out, "< [78 bytes of secret body not shown]\n"
				 "< [79 bytes of secret body not shown]\n"
				 "< {\"a\": 1}\n"
				 "< [7 bytes of secret body not shown]\n");
}

/* ---- a login leaves no copy of the password or token ------------------ */

#define LOGIN_TOKEN "tok-0123456789abcdef0123456789abcdef0123456789abcdef0123"
#define LOGIN_PASSWORD "pw-0123456789abcdef0123456789"

static void on_login(void *data, const fake_request *rq, fake_reply *rp)
{
	(void)data;
	(void)rq;
	fake_reply_set(rp, 200, "application/json",
		       "{\"user\":\"alice\",\"token\":\"" LOGIN_TOKEN
		       "\",\"admin\":false}");
}

static int json_frees_with_secret;

/* jansson's free: a block it gives back holds neither secret (as a
 * string: what follows a NUL is beyond reach here) */
static void watching_free(void *p)
{
	size_t n = p ? strnlen(p, malloc_usable_size(p)) : 0;

	if (n && (memmem(p, n, LOGIN_TOKEN, strlen(LOGIN_TOKEN)) ||
		  memmem(p, n, LOGIN_PASSWORD, strlen(LOGIN_PASSWORD))))
		json_frees_with_secret++;
	free(p);
}

/* The password's JSON, the answer's body and its JSON: each wiped before
 * it is freed or grown. */
static void test_login_leaves_no_copy(void **state)
{
	fake_server *f = NULL;
	pai_client *c;
	json_malloc_t m;
	json_free_t fr;
	char *token = NULL;

	(void)state;
	assert_int_equal(fake_start(&f, "127.0.0.1", on_login, NULL), 0);
	assert_non_null(c = fake_client(f, NULL, 0));
	json_get_alloc_funcs(&m, &fr);
	json_set_alloc_funcs(malloc, watching_free);
	alloc_watch = LOGIN_TOKEN;
	alloc_watch_hits = json_frees_with_secret = 0;
	assert_int_equal(pai_login(&token, c, "alice", LOGIN_PASSWORD, 0),
			 PAI_OK);
	alloc_watch = NULL;
	json_set_alloc_funcs(m, fr);
	assert_string_equal(token, LOGIN_TOKEN);
	assert_int_equal(json_frees_with_secret, 0);
	assert_int_equal(alloc_watch_hits, 0);
	explicit_bzero(token, strlen(token));
	free(token);
	pai_client_free(c);
	fake_stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_retry_after_seconds),
	    cmocka_unit_test(test_retry_after_date),
	    cmocka_unit_test(test_retry_after_too_long),
	    cmocka_unit_test(test_busy_post_holds_the_next_call),
	    cmocka_unit_test(test_trace_key_body),
	    cmocka_unit_test(test_login_leaves_no_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
