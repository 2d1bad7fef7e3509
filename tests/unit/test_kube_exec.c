/* test_kube_exec.c - exec over WebSocket (k8s_exec.c's upgrade through
 * the client's seam, kube_exec.c's session, §7) against a small RFC
 * 6455 server thread on 127.0.0.1: the upgrade request (its query,
 * credential, subprotocols), stdout and stderr from fragmented frames,
 * a ping answered, stdin and resize sent masked, the exit code from
 * channel 3, v5's stdin CLOSE, a 401 retried once with a fresh token,
 * refusals in the server's words (403 raw, 500 JSON chunked), a wrong
 * accept, a masked server frame, InternalError, a lost connection, and
 * a server that reads no input: stdin is not read into memory; nor are
 * its pings answered without bound. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/api/k8s/k8s_api.h"
#include "alloc_fail.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum scenario {
	S_V4,
	S_V5,
	S_401,
	S_403,
	S_500,
	S_BAD_ACCEPT,
	S_MASKED,
	S_INTERNAL,
	S_LOST,
	S_DEAF,
	S_PINGS
};

struct srv {
	int lfd, port, scenario, conns;
	pthread_t th;
	char request[8192]; /* the last upgrade request */
	char got[4096];	    /* the client's messages, "ch:data|" */
	size_t ngot;
	int got_close;	      /* the client's close code */
	volatile int stop;    /* S_DEAF: the test is done */
	char token_file[256]; /* rewritten on a 401 */
};

static char dir[64];

/* ---- the server's side ------------------------------------------------- */

static int read_head(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap) {
		r = read(fd, buf + n, 1);
		if (r <= 0)
			return -1;
		n++;
		buf[n] = '\0';
		if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
			return 0;
	}
	return -1;
}

static void say(int fd, const void *data, size_t n)
{
	assert_int_equal(write(fd, data, n), (ssize_t)n);
}

static void says(int fd, const char *s)
{
	say(fd, s, strlen(s));
}

/* A server frame (never masked). */
static void frame(int fd, int fin, int op, const void *data, size_t n)
{
	unsigned char h[4];

	h[0] = (unsigned char)((fin ? 0x80 : 0) | op);
	if (n < 126) {
		h[1] = (unsigned char)n;
		say(fd, h, 2);
	} else {
		h[1] = 126;
		h[2] = (unsigned char)(n >> 8);
		h[3] = (unsigned char)n;
		say(fd, h, 4);
	}
	say(fd, data, n);
}

static int read_full(int fd, unsigned char *b, size_t n)
{
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, b, n)) <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One client frame: it must be masked. Its opcode, or -1 at the end. */
static int client_frame(int fd, unsigned char *data, size_t *n)
{
	unsigned char h[2], ext[8], mask[4];
	size_t len, i;

	if (read_full(fd, h, 2))
		return -1;
	assert_true(h[1] & 0x80); /* masked, always */
	len = h[1] & 0x7f;
	if (len == 126) {
		assert_int_equal(read_full(fd, ext, 2), 0);
		len = (size_t)ext[0] << 8 | ext[1];
	}
	assert_true(len < 4000);
	assert_int_equal(read_full(fd, mask, 4), 0);
	assert_int_equal(read_full(fd, data, len), 0);
	for (i = 0; i < len; i++)
		data[i] ^= mask[i & 3];
	*n = len;
	return h[0] & 0x0f;
}

/* Records client messages until `want` data messages came (pongs are
 * recorded as "P:"); -1 at a close or the end. */
static int take(struct srv *s, int fd, int want)
{
	unsigned char d[4096];
	size_t n;
	int op;

	while (want > 0) {
		if ((op = client_frame(fd, d, &n)) < 0)
			return -1;
		if (op == 8) {
			s->got_close = n >= 2 ? d[0] << 8 | d[1] : 1;
			return -1;
		}
		if (op == 10)
			s->ngot += (size_t)snprintf(s->got + s->ngot,
						    sizeof(s->got) - s->ngot,
						    "P:%.*s|", (int)n, d);
		else if (op == 2) {
			s->ngot += (size_t)snprintf(
			    s->got + s->ngot, sizeof(s->got) - s->ngot,
			    "%d:%.*s|", d[0], (int)n - 1, d + 1);
			want--;
		}
	}
	return 0;
}

static void upgrade(int fd, const char *request, const char *protocol,
		    int good_accept)
{
	const char *k = strstr(request, "Sec-WebSocket-Key: ");
	char key[64], accept[32], head[512];

	assert_non_null(k);
	sscanf(k + 19, "%63[^\r]", key);
	pai__kube_ws_accept(accept, good_accept ? key : "x");
	snprintf(head, sizeof(head),
		 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
		 "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n"
		 "Sec-WebSocket-Protocol: %s\r\n\r\n",
		 accept, protocol);
	says(fd, head);
}

static const char exit3[] =
    "\x03{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command "
    "terminated with non-zero exit code: exit 3\",\"reason\":"
    "\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":\"ExitCode\","
    "\"message\":\"3\"}]}}";
static const char success[] = "\x03{\"metadata\":{},\"status\":\"Success\"}";
static const char internal[] =
    "\x03{\"status\":\"Failure\",\"message\":\"Internal error occurred: "
    "error executing command in container: no such file\",\"reason\":"
    "\"InternalError\",\"code\":500}";

static void v4_session(struct srv *s, int fd)
{
	upgrade(fd, s->request, "v4.channel.k8s.io", 1);
	frame(fd, 1, 2, "\x01", 1); /* the kubelet's empty first frame */
	frame(fd, 0, 2, "\x01he", 3);
	frame(fd, 1, 9, "p", 1); /* a ping between the pieces */
	frame(fd, 1, 0, "llo\n", 4);
	frame(fd, 1, 2, "\x02oops\n", 6);
	if (take(s, fd, 2) == 0) { /* stdin and the resize */
		frame(fd, 1, 2, exit3, sizeof(exit3) - 1);
		frame(fd, 1, 8, "\x03\xe8", 2);
		take(s, fd, 1); /* until the client's close */
	}
}

static void refuse(int fd, int status)
{
	static const char st500[] =
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	    "\"status\":\"Failure\",\"message\":\"error dialing backend: dial "
	    "tcp 127.0.0.1:27102: connect: connection refused\",\"code\":500}";
	static const char st401[] =
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	    "\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":"
	    "\"Unauthorized\",\"code\":401}";
	char head[256];

	if (status == 403) /* the kubelet's raw refusal */
		says(fd, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
	if (status == 401) {
		snprintf(head, sizeof(head),
			 "HTTP/1.1 401 Unauthorized\r\nContent-Type: "
			 "application/json\r\nContent-Length: %zu\r\n\r\n",
			 sizeof(st401) - 1);
		says(fd, head);
		says(fd, st401);
	}
	if (status == 500) {
		snprintf(
		    head, sizeof(head),
		    "HTTP/1.1 500 Internal Server Error\r\nContent-Type: "
		    "application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
		    "%zx\r\n",
		    sizeof(st500) - 1);
		says(fd, head);
		says(fd, st500);
		says(fd, "\r\n0\r\n\r\n");
	}
}

static void session(struct srv *s, int fd)
{
	static const char ping[126] = "ping";
	int i;

	switch (s->scenario) {
	case S_V4: v4_session(s, fd); break;
	case S_V5:
		upgrade(fd, s->request, "v5.channel.k8s.io", 1);
		if (take(s, fd, 2) == 0) /* stdin, then its CLOSE */
			frame(fd, 1, 2, success, sizeof(success) - 1);
		break;
	case S_401:
		if (s->conns == 1) {
			FILE *f = fopen(s->token_file, "w");

			fputs("new-token\n", f);
			fclose(f);
			refuse(fd, 401);
			break;
		}
		upgrade(fd, s->request, "v4.channel.k8s.io", 1);
		frame(fd, 1, 2, success, sizeof(success) - 1);
		break;
	case S_403: refuse(fd, 403); break;
	case S_500: refuse(fd, 500); break;
	case S_BAD_ACCEPT:
		upgrade(fd, s->request, "v4.channel.k8s.io", 0);
		break;
	case S_MASKED:
		upgrade(fd, s->request, "v4.channel.k8s.io", 1);
		say(fd, "\x82\x82\x00\x00\x00\x00\x01x", 8);
		take(s, fd, 1);
		break;
	case S_INTERNAL:
		upgrade(fd, s->request, "v4.channel.k8s.io", 1);
		frame(fd, 1, 2, internal, sizeof(internal) - 1);
		break;
	case S_LOST:
		upgrade(fd, s->request, "v4.channel.k8s.io", 1);
		frame(fd, 1, 2, "\x01x", 2);
		break;
	case S_DEAF: /* reads nothing until the client goes */
		upgrade(fd, s->request, "v4.channel.k8s.io", 1);
		while (!s->stop)
			usleep(20000);
		break;
	case S_PINGS: /* pings, 16 MiB of them, and reads nothing */
		upgrade(fd, s->request, "v4.channel.k8s.io", 1);
		for (i = 0; i < 16 * 8192 && !s->stop; i++)
			frame(fd, 1, 9, ping, 125);
		while (!s->stop)
			usleep(20000);
		break;
	}
}

static void *serve(void *arg)
{
	struct srv *s = arg;
	int fd;

	while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
		s->conns++;
		if (read_head(fd, s->request, sizeof(s->request)) == 0)
			session(s, fd);
		close(fd);
		if (s->scenario != S_401 || s->conns == 2)
			break;
	}
	return NULL;
}

static void start(struct srv *s, int scenario)
{
	struct sockaddr_in a;
	socklen_t n = sizeof(a);
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->scenario = scenario;
	snprintf(s->token_file, sizeof(s->token_file), "%s/token", dir);
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->lfd, 4), 0);
	getsockname(s->lfd, (struct sockaddr *)&a, &n);
	s->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
}

static void stop(struct srv *s)
{
	s->stop = 1;
	shutdown(s->lfd, SHUT_RDWR);
	pthread_join(s->th, NULL);
	close(s->lfd);
}

/* ---- the client's side ------------------------------------------------- */

/* A Kubernetes client (the kubeconfig's token file), its exec. */
struct client {
	pai_client *c;
	pai__kube_exec *x;
	pai__kube_err e;
};

static int open_exec(struct client *c, const struct srv *s, int use_stdin)
{
	static const char *const cmd[] = {"sh", "-c", "echo hi; exit 3"};
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_k8s_cluster k = PAI_K8S_CLUSTER_INIT;
	pai__k8s_exec_rq rq = {"pod-0", "main", cmd, 3, 0, 1, 0};
	char path[128], text[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/token", dir);
	f = fopen(path, "w");
	fputs("old-token\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	snprintf(text, sizeof(text),
		 "clusters: [{name: c, cluster: {server: "
		 "'http://127.0.0.1:%d/prefix'}}]\n"
		 "users: [{name: u, user: {tokenFile: token}}]\n"
		 "contexts: [{name: x, context: {cluster: c, user: u, "
		 "namespace: ns}}]\ncurrent-context: x\n",
		 s->port);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	o.connect_timeout_ms = 5000;
	k.kubeconfig = path;
	assert_int_equal(pai_client_new_k8s(&c->c, NULL, &o, &k), PAI_OK);
	rq.in = use_stdin;
	return pai__k8s_exec_open(&c->x, c->c, &rq);
}

static void close_client(struct client *c)
{
	pai__kube_exec_free(c->x);
	pai_client_free(c->c);
}

static void slurp(int fd, char *out, size_t cap)
{
	ssize_t n = read(fd, out, cap - 1);

	out[n > 0 ? n : 0] = '\0';
}

static void test_v4(void **state)
{
	struct srv s;
	struct client c = {0};
	pai__kube_exec_io io;
	int in[2], out[2], err[2], code, r;
	char text[256];

	(void)state;
	start(&s, S_V4);
	/* the request holds the credential: no copy left as it grows */
	alloc_watch = "Bearer old-token";
	alloc_watch_hits = 0;
	assert_int_equal(open_exec(&c, &s, 1), PAI_OK);
	alloc_watch = NULL;
	assert_int_equal(alloc_watch_hits, 0);
	assert_non_null(strstr(
	    s.request, "GET /prefix/api/v1/namespaces/ns/pods/pod-0/exec?"
		       "command=sh&command=-c&command=echo%20hi%3B%20exit%203&"
		       "container=main&stdin=true&stdout=true&stderr=true&"
		       "tty=false HTTP/1.1\r\n"));
	assert_non_null(
	    strstr(s.request, "Authorization: Bearer old-token\r\n"));
	assert_non_null(strstr(s.request, "Sec-WebSocket-Protocol: "
					  "v5.channel.k8s.io, "
					  "v4.channel.k8s.io\r\n"));
	assert_int_equal(pai__kube_exec_protocol(c.x), 4);
	assert_true(pipe(in) == 0 && pipe(out) == 0 && pipe(err) == 0);
	say(in[1], "abc\n", 4);
	close(in[1]);
	io.in_fd = in[0];
	io.out_fd = out[1];
	io.err_fd = err[1];
	assert_int_equal(pai__kube_exec_resize(c.x, 80, 24, &c.e), PAI_OK);
	while ((r = pai__kube_exec_pump(c.x, &io, 5000, &c.e)) == 0)
		;
	assert_int_equal(r, 1);
	assert_int_equal(pai__kube_exec_result(c.x, &code, &c.e), PAI_OK);
	assert_int_equal(code, 3);
	slurp(out[0], text, sizeof(text));
	assert_string_equal(text, "hello\n");
	slurp(err[0], text, sizeof(text));
	assert_string_equal(text, "oops\n");
	close_client(&c);
	stop(&s);
	/* v4 has no stdin close: the EOF of in sent nothing */
	/* the resize went first; the pong and stdin as they came */
	assert_memory_equal(s.got, "4:{\"Width\":80,\"Height\":24}|", 27);
	assert_non_null(strstr(s.got, "|P:p|"));
	assert_non_null(strstr(s.got, "|0:abc\n|"));
	assert_int_equal(strlen(s.got), 27 + 4 + 7);
	assert_int_equal(s.got_close, 1000);
	close(in[0]);
	close(out[0]);
	close(out[1]);
	close(err[0]);
	close(err[1]);
}

static void test_v5_close_stdin(void **state)
{
	struct srv s;
	struct client c = {0};
	int code, r;

	(void)state;
	start(&s, S_V5);
	assert_int_equal(open_exec(&c, &s, 1), PAI_OK);
	assert_int_equal(pai__kube_exec_protocol(c.x), 5);
	assert_int_equal(pai__kube_exec_send(c.x, "data", 4, &c.e), PAI_OK);
	assert_int_equal(pai__kube_exec_close_stdin(c.x, &c.e), 1);
	while ((r = pai__kube_exec_pump(c.x, NULL, 5000, &c.e)) == 0)
		;
	assert_int_equal(r, 1);
	assert_int_equal(pai__kube_exec_result(c.x, &code, &c.e), PAI_OK);
	assert_int_equal(code, 0);
	close_client(&c);
	stop(&s);
	assert_string_equal(s.got, "0:data|255:|"); /* [255, 0] */
}

static void test_401_retry(void **state)
{
	struct srv s;
	struct client c = {0};
	int code;

	(void)state;
	start(&s, S_401);
	assert_int_equal(open_exec(&c, &s, 0), PAI_OK);
	assert_int_equal(s.conns, 2);
	assert_non_null(strstr(s.request, "Authorization: Bearer new-token"));
	assert_int_equal(pai__kube_exec_pump(c.x, NULL, 5000, &c.e), 1);
	assert_int_equal(pai__kube_exec_result(c.x, &code, &c.e), PAI_OK);
	close_client(&c);
	stop(&s);
}

static void test_refusals(void **state)
{
	struct srv s;
	struct client c = {0};

	(void)state;
	start(&s, S_403);
	assert_int_equal(open_exec(&c, &s, 0), PAI_EFORBIDDEN);
	assert_int_equal(pai_client_http_status(c.c), 403);
	assert_null(c.x);
	close_client(&c);
	stop(&s);
	memset(&c, 0, sizeof(c));
	start(&s, S_500);
	assert_int_equal(open_exec(&c, &s, 0), PAI_EHTTP);
	/* the Status's words, as for any request */
	assert_string_equal(pai_client_error(c.c),
			    "error dialing backend: dial tcp "
			    "127.0.0.1:27102: connect: connection refused");
	close_client(&c);
	stop(&s);
	memset(&c, 0, sizeof(c));
	start(&s, S_BAD_ACCEPT);
	assert_int_equal(open_exec(&c, &s, 0), PAI_EPROTOCOL);
	assert_non_null(strstr(pai_client_error(c.c), "Sec-WebSocket-Accept"));
	close_client(&c);
	stop(&s);
}

static void test_session_failures(void **state)
{
	struct srv s;
	struct client c = {0};
	int code;

	(void)state;
	start(&s, S_MASKED);
	assert_int_equal(open_exec(&c, &s, 0), PAI_OK);
	assert_int_equal(pai__kube_exec_pump(c.x, NULL, 5000, &c.e),
			 PAI_EPROTOCOL);
	close_client(&c);
	stop(&s);
	assert_int_equal(s.got_close, 1002);
	memset(&c, 0, sizeof(c));
	start(&s, S_INTERNAL);
	assert_int_equal(open_exec(&c, &s, 0), PAI_OK);
	assert_int_equal(pai__kube_exec_pump(c.x, NULL, 5000, &c.e), 1);
	assert_int_equal(pai__kube_exec_result(c.x, &code, &c.e), PAI_ERROR);
	assert_string_equal(c.e.msg, "Internal error occurred: error executing "
				     "command in container: no such file");
	close_client(&c);
	stop(&s);
	memset(&c, 0, sizeof(c));
	start(&s, S_LOST);
	assert_int_equal(open_exec(&c, &s, 0), PAI_OK);
	assert_int_equal(pai__kube_exec_pump(c.x, NULL, 5000, &c.e), 1);
	assert_int_equal(pai__kube_exec_result(c.x, &code, &c.e),
			 PAI_EUNREACHABLE);
	close_client(&c);
	stop(&s);
}

/* Writes into a pipe until it is closed; counts what went. */
struct feeder {
	int fd;
	size_t wrote;
};

static void *feed(void *arg)
{
	static char block[65536];
	struct feeder *f = arg;
	ssize_t w;

	while (f->wrote < ((size_t)256 << 20) &&
	       (w = write(f->fd, block, sizeof(block))) > 0)
		f->wrote += (size_t)w;
	return NULL;
}

static void test_input_not_hoarded(void **state)
{
	struct srv s;
	struct client c = {0};
	struct feeder f;
	pai__kube_exec_io io = {-1, -1, -1, NULL, NULL};
	pthread_t th;
	int in[2];
	double t0;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	start(&s, S_DEAF);
	assert_int_equal(open_exec(&c, &s, 1), PAI_OK);
	assert_int_equal(pipe(in), 0);
	f.fd = in[1];
	f.wrote = 0;
	assert_int_equal(pthread_create(&th, NULL, feed, &f), 0);
	io.in_fd = in[0];
	/* two seconds of a peer that takes nothing: what was taken from
	 * the input is what the socket's buffers and the session's 1 MiB
	 * hold, not the input's 256 MiB */
	for (t0 = test_now_s(); test_now_s() - t0 < 2;)
		assert_int_equal(pai__kube_exec_pump(c.x, &io, 200, &c.e), 0);
	close(in[0]); /* the feeder stops */
	pthread_join(th, NULL);
	close(in[1]);
	if (f.wrote >= ((size_t)32 << 20))
		fail_msg("%zu MiB of input read for a peer that takes none",
			 f.wrote >> 20);
	close_client(&c);
	stop(&s);
}

/* A peer that pings and reads nothing: the pongs queued stay within the
 * bound stdin keeps to (1 MiB), not the 16 MiB its pings would make. */
static void test_pongs_bounded(void **state)
{
	struct srv s;
	struct client c = {0};
	pai__kube_exec_io io = {-1, -1, -1, NULL, NULL};
	size_t most = 0;
	double t0;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	start(&s, S_PINGS);
	assert_int_equal(open_exec(&c, &s, 0), PAI_OK);
	for (t0 = test_now_s(); test_now_s() - t0 < 3;) {
		assert_int_equal(pai__kube_exec_pump(c.x, &io, 100, &c.e), 0);
		if (pai__kube_exec_queued(c.x) > most)
			most = pai__kube_exec_queued(c.x);
	}
	if (most > PAI__KUBE_EXEC_OUT_MAX + 256)
		fail_msg("%zu KiB queued for a peer that takes nothing",
			 most >> 10);
	assert_true(most > 0); /* the pongs were queued, up to the bound */
	close_client(&c);
	stop(&s);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kubeexec-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v4),
	    cmocka_unit_test(test_v5_close_stdin),
	    cmocka_unit_test(test_401_retry),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_session_failures),
	    cmocka_unit_test(test_input_not_hoarded),
	    cmocka_unit_test(test_pongs_bounded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
