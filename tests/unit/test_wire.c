/* test_wire.c - the limits every connection and stream of the client's
 * seam keeps (lib/client/conn.c, stream.c, upgrade.c, hold.c; issue 27):
 * TCP keepalive on a REST exchange's connection, on an upgrade's and on
 * lib/ssh's socket; a stream silent past its limit ended within a second
 * of it, resumable when its answer had begun, a failure in words when
 * none had; a refused stream judged by its Status whatever the case and
 * spacing of its header lines; and the reflector's backoff of streams
 * opened again: from under a second, doubling with jitter up to 30 s,
 * reset by a stream that lived, never within a second of the last
 * opening. Against a small HTTP/1.1 server thread on 127.0.0.1. The
 * times asserted are bounds a loaded machine cannot break: no timing is
 * measured here (make bench does). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/api/k8s/k8s_api.h"
#include "client/stream.h"
#include "client/upgrade.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What the server answers each request with. */
enum mode {
	M_OK,	      /* 200, a body of its own length, the connection kept */
	M_QUIET_BODY, /* 200 chunked, one chunk, then nothing */
	M_SILENT,     /* nothing at all */
	M_REFUSED,    /* 403, a Status, its head in odd case and spacing */
	M_SWITCHING   /* 101, then nothing */
};

struct srv {
	int lfd, port;
	volatile int mode, stop;
	pthread_t th;
};

static struct srv srv;
static char dir[64];

/* ---- the server ------------------------------------------------------ */

static const char refused_body[] =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
    "\"Failure\",\"message\":\"pods \\\"p\\\" is forbidden: User \\\"u\\\" "
    "cannot get resource \\\"pods/log\\\"\",\"reason\":\"Forbidden\","
    "\"code\":403}";

static void says(int fd, const char *s)
{
	size_t n = strlen(s), off = 0;
	ssize_t w;

	while (off < n && (w = write(fd, s + off, n - off)) > 0)
		off += (size_t)w;
}

/* Waits for fd to be readable: 1, or 0 when the test ends first. */
static int readable(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};

	while (!srv.stop)
		if (poll(&p, 1, 100) > 0)
			return 1;
	return 0;
}

/* One request's head read: 0, or -1 at the connection's end. */
static int read_request(int fd)
{
	char buf[8192];
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1) {
		if (!readable(fd) ||
		    (r = read(fd, buf + n, sizeof(buf) - 1 - n)) <= 0)
			return -1;
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			return 0;
	}
	return -1;
}

/* Holds the connection, saying nothing, until the client closes it or
 * the test ends. */
static void hold(int fd)
{
	char c;

	while (readable(fd) && read(fd, &c, 1) > 0)
		;
}

static void answer(int fd)
{
	char head[512];

	switch (srv.mode) {
	case M_OK:
		says(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
			 "Content-Length: 2\r\n\r\n{}");
		return;
	case M_QUIET_BODY:
		says(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			 "5\r\nhello\r\n");
		break;
	case M_SILENT: break;
	case M_REFUSED:
		snprintf(head, sizeof(head),
			 "HTTP/1.1 403 Forbidden\r\ncontent-TYPE:application/"
			 "json \t\r\nCONTENT-LENGTH:\t%zu\r\n\r\n",
			 sizeof(refused_body) - 1);
		says(fd, head);
		says(fd, refused_body);
		break;
	case M_SWITCHING:
		says(fd, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: "
			 "websocket\r\nConnection: Upgrade\r\n\r\n");
		break;
	}
	hold(fd);
}

/* One connection: its requests answered as the mode says, a 200
 * keeping it for the next. */
static void *connection(void *arg)
{
	int fd = (int)(intptr_t)arg;

	while (read_request(fd) == 0) {
		answer(fd);
		if (srv.mode != M_OK)
			break;
	}
	close(fd);
	return NULL;
}

static void *serve(void *arg)
{
	pthread_t th;
	int fd;

	(void)arg;
	while (readable(srv.lfd)) {
		if ((fd = accept(srv.lfd, NULL, NULL)) < 0)
			continue;
		if (pthread_create(&th, NULL, connection, (void *)(intptr_t)fd))
			close(fd);
		else
			pthread_detach(th);
	}
	return NULL;
}

static int setup(void **state)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wire-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((srv.lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(srv.lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(srv.lfd, 8) ||
	    getsockname(srv.lfd, (struct sockaddr *)&a, &len))
		return -1;
	srv.port = ntohs(a.sin_port);
	return pthread_create(&srv.th, NULL, serve, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	srv.stop = 1;
	pthread_join(srv.th, NULL);
	test_sleep_ms(300); /* the connections' threads see it too */
	close(srv.lfd);
	test_sh("rm -rf '%s'", dir);
	return 0;
}

/* ---- the client ------------------------------------------------------ */

/* A Kubernetes client of the server (its wire judges a Status). */
static pai_client *client(void)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_k8s_cluster k = PAI_K8S_CLUSTER_INIT;
	char path[128], text[512];
	pai_client *c = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	snprintf(text, sizeof(text),
		 "clusters: [{name: c, cluster: {server: "
		 "'http://127.0.0.1:%d'}}]\n"
		 "users: [{name: u, user: {token: t0k3n}}]\n"
		 "contexts: [{name: x, context: {cluster: c, user: u, "
		 "namespace: ns}}]\ncurrent-context: x\n",
		 srv.port);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	o.connect_timeout_ms = 5000;
	o.max_retries = 0;
	k.kubeconfig = path;
	assert_int_equal(pai_client_new_k8s(&c, NULL, &o, &k), PAI_OK);
	return c;
}

static int sockopt(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	assert_int_equal(getsockopt(fd, level, name, &v, &len), 0);
	return v;
}

/* fd has keepalive's limits (sys.h). */
static void keeps_alive(int fd)
{
	assert_int_not_equal(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
	assert_int_equal(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE),
			 PAI__KEEPIDLE_S);
	assert_int_equal(sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL),
			 PAI__KEEPINTVL_S);
	assert_int_equal(sockopt(fd, IPPROTO_TCP, TCP_KEEPCNT), PAI__KEEPCNT);
}

static void test_keepalive(void **state)
{
	pai_client *c;
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1, 0, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	pai__upgraded up;
	curl_socket_t sock = CURL_SOCKET_BAD;
	int fd;

	(void)state;
	c = client();
	/* a REST exchange: its connection, kept for the next one */
	srv.mode = M_OK;
	rq.url = pai__url(c, "/api/v1/namespaces/ns/pods");
	assert_int_equal(pai__http(c, &rq, &rs), PAI_OK);
	assert_int_equal(rs.status, 200);
	assert_int_equal(
	    curl_easy_getinfo(c->curl, CURLINFO_ACTIVESOCKET, &sock), CURLE_OK);
	assert_int_not_equal(sock, CURL_SOCKET_BAD);
	keeps_alive((int)sock);
	pai__response_release(&rs);
	free((char *)rq.url);
	/* an upgrade's: exec's WebSocket */
	srv.mode = M_SWITCHING;
	rq.url = pai__url(c, "/api/v1/namespaces/ns/pods/p/exec");
	assert_int_equal(pai__upgrade(c, rq.url, NULL, 0, 5000, &up), PAI_OK);
	keeps_alive((int)up.sock);
	pai__upgraded_release(&up);
	free((char *)rq.url);
	pai_client_free(c);
	/* lib/ssh's own socket, made without libcurl */
	assert_true((fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	pai__tcp_keepalive(fd);
	keeps_alive(fd);
	close(fd);
}

static int discard(void *data, const char *p, size_t n)
{
	(void)data;
	(void)p;
	(void)n;
	return 0;
}

/* A log followed from the server answering as mode says, run to its end
 * on a multi handle: its pai__stream_done, the seconds it took in *took,
 * the answer's status in *status. */
static int follow(pai_client *c, int mode, long silence_ms, double *took,
		  long *status)
{
	pai__stream_opts so = {0, silence_ms, discard, NULL};
	pai__stream *s = NULL;
	CURLM *m = curl_multi_init();
	CURLMsg *msg;
	char *url = pai__url(c, "/api/v1/namespaces/ns/pods/p/log?follow=true");
	double t0 = test_now_s();
	int running = 1, left, cc = -1, again = 0, err;

	srv.mode = mode;
	assert_non_null(m);
	assert_int_equal(pai__stream_new(&s, c, url, &so), PAI_OK);
	curl_multi_add_handle(m, pai__stream_handle(s));
	while (cc < 0 && test_now_s() - t0 < 30) {
		curl_multi_perform(m, &running);
		while ((msg = curl_multi_info_read(m, &left)))
			if (msg->msg == CURLMSG_DONE)
				cc = (int)msg->data.result;
		if (cc < 0)
			curl_multi_poll(m, NULL, 0, 200, NULL);
	}
	curl_multi_remove_handle(m, pai__stream_handle(s));
	*took = test_now_s() - t0;
	err = cc < 0 ? -1 : pai__stream_done(s, cc, &again);
	*status = pai__stream_status(s);
	assert_int_equal(again, 0);
	pai__stream_free(s);
	curl_multi_cleanup(m);
	free(url);
	return err;
}

static void test_stream_silence(void **state)
{
	pai_client *c;
	double took;
	long status;

	(void)state;
	c = client();
	/* an answer begun, then silence (a connection frozen mid-stream):
	 * ended within a second of the limit, for the caller to resume */
	assert_int_equal(follow(c, M_QUIET_BODY, 2000, &took, &status), PAI_OK);
	assert_int_equal(status, 200);
	/* libcurl's own low speed verdict, on a speed averaged over
	 * seconds, would come some 5 s late */
	assert_true(took >= 1.9);
	assert_true(took < 5);
	/* no answer at all: a failure that says so */
	assert_int_equal(follow(c, M_SILENT, 2000, &took, &status),
			 PAI_EUNREACHABLE);
	assert_true(took >= 1.9);
	assert_true(took < 5);
	assert_non_null(strstr(pai_client_error(c), "no answer for 2 s"));
	pai_client_free(c);
}

static void test_stream_refused(void **state)
{
	pai_client *c;
	double took;
	long status;

	(void)state;
	c = client();
	assert_int_equal(follow(c, M_REFUSED, 0, &took, &status),
			 PAI_EFORBIDDEN);
	assert_int_equal(status, 403);
	/* the Status's message and reason, as for a REST answer */
	assert_string_equal(pai_client_error(c),
			    "pods \"p\" is forbidden: User \"u\" cannot get "
			    "resource \"pods/log\"");
	assert_string_equal(pai_client_error_code(c), "Forbidden");
	assert_int_equal(pai_client_http_status(c), 403);
	pai_client_free(c);
}

/* ---- the backoff ----------------------------------------------------- */

/* The stream opened (lived_ms ago) and ended: the wait before the next
 * opening, in ms. */
static long long ended(pai_client *c, pai__backoff *b, long long lived_ms,
		       int news)
{
	pai__backoff_opened(b);
	b->opened_at -= lived_ms;
	pai__backoff_ended(c, b, news);
	return b->next_at - pai__now_ms();
}

static void test_backoff(void **state)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	pai__backoff b;
	long long w, base, first[20], last[20];
	int i, n, differ = 0, part = 0;

	(void)state;
	o.uri = "http://127.0.0.1:1";
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	/* streams that end at once: base * 2^n, up to as much again at
	 * random, the base held at half the cap of 30 s (the slack: the
	 * clock ticks meanwhile) */
	for (n = 0; n < 20; n++) {
		memset(&b, 0, sizeof(b));
		for (i = 0, base = PAI__BACKOFF_BASE_MS; i < 12; i++) {
			w = ended(c, &b, 2000, 0);
			assert_true(w >= base - 50);
			assert_true(w <= 2 * base + 5);
			assert_true(w <= PAI__BACKOFF_CAP_MS + 5);
			if (i == 0)
				first[n] = w;
			base = 2 * base < PAI__BACKOFF_CAP_MS / 2
				   ? 2 * base
				   : PAI__BACKOFF_CAP_MS / 2;
		}
		/* at the cap: 15 to 30 s */
		assert_true(w >= PAI__BACKOFF_CAP_MS / 2 - 50);
		last[n] = w;
		/* one that lived resets it: at once, the second since its
		 * opening being long past */
		assert_true(ended(c, &b, PAI__BACKOFF_LIVED_MS, 0) <= 5);
		w = ended(c, &b, 2000, 0);
		assert_true(w >= PAI__BACKOFF_BASE_MS - 50 &&
			    w <= 2 * PAI__BACKOFF_BASE_MS + 5);
		/* so does one that brought news, but never within a second
		 * of its opening */
		w = ended(c, &b, 200, 1);
		assert_true(w >= PAI__BACKOFF_MIN_MS - 200 - 50 &&
			    w <= PAI__BACKOFF_MIN_MS - 200 + 5);
		w = ended(c, &b, 0, 0);
		assert_true(w >= PAI__BACKOFF_MIN_MS - 50);
		assert_true(w <= 2 * PAI__BACKOFF_BASE_MS + 5);
	}
	/* jittered: clients that lost the server together part, at the
	 * cap too (beyond the clock's ticks) */
	for (n = 1; n < 20; n++) {
		differ += first[n] != first[0];
		part += llabs(last[n] - last[0]) > 100;
	}
	assert_true(differ > 0);
	assert_true(part > 0);
	pai_client_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keepalive),
	    cmocka_unit_test(test_stream_silence),
	    cmocka_unit_test(test_stream_refused),
	    cmocka_unit_test(test_backoff),
	};

	if (pai__curl_load() != PAI_OK) {
		fprintf(stderr, "test_wire: skipped: no libcurl to load\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
