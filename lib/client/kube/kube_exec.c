/* kube_exec.c - exec's connection (§7): curl makes the TCP and TLS
 * connection with CONNECT_ONLY (the same pai__kube_curl_setup as every
 * request, HTTP/1.1 so that ALPN does not pick h2), and the upgrade and
 * the frames go over curl_easy_send/curl_easy_recv, waiting on the
 * socket with poll. kube.h says why not libwebsockets; kube_ws.c holds
 * the framing. */
#include "kube.h"

#include "sys/dl_curl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The body of a refusal kept, at most. */
#define MAX_REFUSAL ((size_t)1 << 20)
/* stdin is read and sent in pieces of this size. */
#define STDIN_CHUNK 16384

struct pai__kube_exec {
	CURL *h;
	struct curl_slist *connect_to;
	curl_socket_t sock;
	int protocol; /* 5 or 4 */
	pai__kube_ws_dec dec;
	pai__buf out; /* frames not yet sent, from out_off */
	size_t out_off;
	int stdin_open;
	int got_status, status_ret, exit_code;
	char status_msg[PAI__KUBE_ERR_MAX];
	int closed, close_sent, broken;
	char errbuf[CURL_ERROR_SIZE];
	void (*trace)(void *data, const char *line);
	void *trace_data;
};


static int curl_failed(pai__kube_exec *x, CURLcode rc, pai__kube_err *err)
{
	int code = PAI_EUNREACHABLE;

	switch (rc) {
	case CURLE_OUT_OF_MEMORY: return PAI_ENOMEM;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR: code = PAI_ETLS; break;
	default: break;
	}
	return pai__kube_fail(err, code, "exec: %s",
			      x->errbuf[0] ? x->errbuf
					   : curl_easy_strerror(rc));
}

/* Waits for events on the socket until deadline: 1 ready, 0 timed out. */
static int wait_sock(pai__kube_exec *x, short events, long long deadline)
{
	struct pollfd p = {(int)x->sock, events, 0};
	long long left;
	int n;

	do {
		if ((left = deadline - pai__now_ms()) < 0)
			left = 0;
		n = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
	} while ((n < 0 && errno == EINTR) || (n == 0 && left > 60000));
	return n > 0;
}

static int send_all(pai__kube_exec *x, const char *data, size_t n,
		    long long deadline, pai__kube_err *err)
{
	size_t sent;
	CURLcode rc;

	while (n > 0) {
		sent = 0;
		rc = curl_easy_send(x->h, data, n, &sent);
		if (rc == CURLE_AGAIN) {
			if (!wait_sock(x, POLLOUT, deadline))
				return pai__kube_fail(err, PAI_EUNREACHABLE,
						      "exec: the server takes "
						      "no data");
			continue;
		}
		if (rc != CURLE_OK)
			return curl_failed(x, rc, err);
		data += sent;
		n -= sent;
	}
	return PAI_OK;
}

/* Reads what is there into b (waiting until deadline for something):
 * PAI_OK with *eof set at the end of the stream. */
static int recv_some(pai__kube_exec *x, pai__buf *b, long long deadline,
		     int *eof, pai__kube_err *err)
{
	char chunk[16384];
	size_t got;
	CURLcode rc;

	*eof = 0;
	for (;;) {
		got = 0;
		rc = curl_easy_recv(x->h, chunk, sizeof(chunk), &got);
		if (rc == CURLE_OK) {
			*eof = got == 0;
			pai__buf_put(b, chunk, got);
			return b->oom ? PAI_ENOMEM : PAI_OK;
		}
		if (rc != CURLE_AGAIN)
			return curl_failed(x, rc, err);
		if (!wait_sock(x, POLLIN, deadline))
			return pai__kube_fail(
			    err, PAI_EUNREACHABLE,
			    "exec: no answer from the server");
	}
}

/* ---- the upgrade ------------------------------------------------------------
 */

static void put_query(pai__buf *b, const char *name, const char *value)
{
	pai__buf_printf(b, "%s=", name);
	pai__kube_put_escaped(b, value);
	pai__buf_putc(b, '&');
}

static int request_line(pai__buf *b, const pai__kube_config *cfg,
			const pai__kube_exec_opts *o, pai__kube_server *s)
{
	size_t i;
	int ret;

	if ((ret = pai__kube_server_split(s, cfg->server)))
		return ret;
	pai__buf_printf(b, "GET %s/api/v1/namespaces/", s->prefix);
	pai__kube_put_escaped(b, o->namespace ? o->namespace : cfg->namespace);
	pai__buf_puts(b, "/pods/");
	pai__kube_put_escaped(b, o->pod);
	pai__buf_puts(b, "/exec?");
	for (i = 0; i < o->ncommand; i++)
		put_query(b, "command", o->command[i]);
	if (o->container)
		put_query(b, "container", o->container);
	pai__buf_printf(
	    b, "stdin=%s&stdout=%s&stderr=%s&tty=%s HTTP/1.1\r\n",
	    o->use_stdin ? "true" : "false", o->use_stdout ? "true" : "false",
	    o->use_stderr ? "true" : "false", o->tty ? "true" : "false");
	pai__buf_printf(b, "Host: %s\r\n", s->authority);
	return PAI_OK;
}

static int upgrade_request(pai__buf *b, const pai__kube_config *cfg,
			   const pai__kube_auth *auth,
			   const pai__kube_exec_opts *o, const char *key)
{
	pai__kube_server s;
	int ret;

	if ((ret = request_line(b, cfg, o, &s)))
		return ret;
	pai__kube_server_release(&s);
	if ((ret = pai__kube_header_text(b, cfg, auth)))
		return ret;
	pai__buf_printf(b,
			"User-Agent: %s\r\n"
			"Connection: Upgrade\r\n"
			"Upgrade: websocket\r\n"
			"Sec-WebSocket-Version: 13\r\n"
			"Sec-WebSocket-Key: %s\r\n"
			"Sec-WebSocket-Protocol: %s\r\n\r\n",
			o->user_agent ? o->user_agent : "paictl/" PAI_VERSION,
			key, PAI__KUBE_WS_PROTOCOLS);
	return b->oom ? PAI_ENOMEM : PAI_OK;
}

/* Each line of text to the trace, prefixed, the Authorization value
 * masked. */
static void trace(pai__kube_exec *x, const char *prefix, const char *text,
		  size_t len)
{
	pai__buf line = PAI__BUF_INIT;
	const char *e, *end = text + len;

	for (; x->trace && text < end; text = e + 1) {
		if (!(e = memchr(text, '\n', (size_t)(end - text))))
			e = end;
		pai__buf_puts(&line, prefix);
		if (e - text >= 14 &&
		    strncasecmp(text, "Authorization:", 14) == 0)
			pai__buf_puts(&line, "Authorization: ***");
		else
			pai__buf_put(&line, text, (size_t)(e - text));
		while (line.len > 0 && line.data[line.len - 1] == '\r')
			line.data[--line.len] = '\0';
		if (!line.oom && line.len > strlen(prefix))
			x->trace(x->trace_data, line.data);
		line.len = 0;
	}
	pai__buf_release(&line);
}

/* curl's connection: CONNECT_ONLY over HTTP/1.1 (§7). */
static int connect_curl(pai__kube_exec *x, const pai__kube_config *cfg,
			const pai__kube_auth *auth, long timeout_ms,
			pai__kube_err *err)
{
	char *url = NULL;
	curl_socket_t sock = CURL_SOCKET_BAD;
	CURLcode rc;
	int ret;

	if (!(x->h = curl_easy_init()))
		return PAI_ENOMEM;
	if ((ret =
		 pai__kube_curl_setup(x->h, &x->connect_to, cfg, auth, err)) ||
	    (ret = pai__kube_url(&url, cfg, "/")))
		return ret;
	x->errbuf[0] = '\0';
	curl_easy_setopt(x->h, CURLOPT_URL, url);
	curl_easy_setopt(x->h, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(x->h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->errbuf);
	/* through an HTTP proxy, a tunnel: the upgrade is ours to send */
	curl_easy_setopt(x->h, CURLOPT_HTTPPROXYTUNNEL, 1L);
	rc = curl_easy_perform(x->h);
	free(url);
	if (rc != CURLE_OK)
		return curl_failed(x, rc, err);
	rc = curl_easy_getinfo(x->h, CURLINFO_ACTIVESOCKET, &sock);
	if (rc != CURLE_OK || sock == CURL_SOCKET_BAD)
		return pai__kube_fail(err, PAI_EUNREACHABLE,
				      "exec: no connection to use");
	x->sock = sock;
	return PAI_OK;
}

/* A refusal (any status but 101): its body read and judged as §2.3
 * says. The error its status maps to, with *st filled. */
static int refused(pai__kube_exec *x, const pai__kube_http_head *h,
		   pai__buf *in, size_t head_len, long long deadline,
		   pai__kube_status *st, pai__kube_err *err)
{
	char *body = NULL;
	size_t n = 0;
	int ret, eof = 0;

	while ((ret = pai__kube_http_body(&body, &n, h, in->data + head_len,
					  in->len - head_len, eof,
					  MAX_REFUSAL)) == 0)
		if ((ret = recv_some(x, in, deadline, &eof, err)))
			return ret;
	if (ret < 0 && ret != PAI_EPROTOCOL)
		return ret;
	/* a body cut short is judged by what came */
	ret = pai__kube_status_parse(st, h->status, h->content_type,
				     body ? body : "", body ? n : 0,
				     h->retry_after);
	free(body);
	if (ret)
		return ret;
	ret = pai__kube_status_error(st);
	if (ret == PAI_OK)
		ret = PAI_EPROTOCOL; /* a 2xx is not an upgrade */
	return pai__kube_fail(err, ret, "exec: HTTP %ld%s%s", h->status,
			      *st->message ? ": " : "", st->message);
}

/* Sends the upgrade and reads the answer's head: 101 checked, the
 * bytes after it handed to the decoder. */
static int handshake(pai__kube_exec *x, const pai__kube_config *cfg,
		     const pai__kube_auth *auth, const pai__kube_exec_opts *o,
		     long long deadline, pai__kube_status *st,
		     pai__kube_err *err)
{
	pai__buf rq = PAI__BUF_INIT, in = PAI__BUF_INIT;
	pai__kube_http_head h;
	char key[25];
	size_t head_len = 0;
	int ret, eof = 0;

	memset(&h, 0, sizeof(h));
	if (pai__kube_ws_key(key))
		return pai__kube_fail(err, PAI_ERROR, "exec: no random bytes");
	if ((ret = upgrade_request(&rq, cfg, auth, o, key)))
		goto out;
	trace(x, "> ", rq.data, rq.len);
	if ((ret = send_all(x, rq.data, rq.len, deadline, err)))
		goto out;
	while ((ret = pai__kube_http_head_parse(&h, &head_len, in.data, in.len,
						err)) == 0) {
		if (eof)
			break;
		if ((ret = recv_some(x, &in, deadline, &eof, err)))
			goto out;
	}
	if (ret == 0)
		ret = pai__kube_fail(err, PAI_EUNREACHABLE,
				     "exec: the server closed the connection "
				     "without an answer");
	if (ret < 0)
		goto out;
	trace(x, "< ", in.data, head_len);
	if (h.status != 101) {
		ret = refused(x, &h, &in, head_len, deadline, st, err);
		goto out;
	}
	if ((ret = pai__kube_ws_check_101(&h, key, err)) < 0)
		goto out;
	x->protocol = ret;
	ret = pai__kube_ws_dec_feed(&x->dec, in.data + head_len,
				    in.len - head_len);
out:
	pai__buf_wipe(&rq); /* it held the credential */
	pai__buf_release(&in);
	pai__kube_http_head_release(&h);
	return ret;
}

static void disconnect(pai__kube_exec *x)
{
	if (x->h)
		curl_easy_cleanup(x->h);
	curl_slist_free_all(x->connect_to);
	x->h = NULL;
	x->connect_to = NULL;
	x->sock = CURL_SOCKET_BAD;
}

static int check_opts(const pai__kube_exec_opts *o, pai__kube_err *err)
{
	if (!o->pod || !*o->pod || o->ncommand == 0 || !o->command)
		return pai__kube_fail(err, PAI_EINVAL,
				      "exec: a pod and a command are needed");
	/* the kubelet's rule (§7) */
	if (!o->use_stdin && !o->use_stdout && !o->use_stderr)
		return pai__kube_fail(err, PAI_EINVAL,
				      "exec: at least one of stdin, stdout "
				      "and stderr is needed");
	return PAI_OK;
}

/* One try: credential, connection, upgrade. *gen: the credential's. */
static int attempt(pai__kube_exec *x, const pai__kube_config *cfg,
		   pai__kube_cred *cred, const pai__kube_exec_opts *o,
		   unsigned long *gen, pai__kube_status *st, pai__kube_err *err)
{
	long timeout =
	    o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 30000;
	long long deadline = pai__now_ms() + timeout;
	pai__kube_auth auth;
	int ret;

	memset(&auth, 0, sizeof(auth));
	if (cred && (ret = pai__kube_cred_get(cred, &auth, err)))
		return ret;
	*gen = auth.generation;
	if ((ret = connect_curl(x, cfg, &auth, timeout, err)))
		return ret;
	return handshake(x, cfg, &auth, o, deadline, st, err);
}

int pai__kube_exec_open(pai__kube_exec **out, const pai__kube_config *cfg,
			pai__kube_cred *cred, const pai__kube_exec_opts *o,
			pai__kube_status *refusal, pai__kube_err *err)
{
	pai__kube_exec *x = NULL;
	pai__kube_status st;
	unsigned long gen = 0;
	int ret, tries;

	*out = NULL;
	memset(&st, 0, sizeof(st));
	if (refusal)
		memset(refusal, 0, sizeof(*refusal));
	if ((ret = check_opts(o, err)))
		return ret;
	if (pai__curl_load() != PAI_OK)
		return pai__kube_fail(err, PAI_ELIBRARY, "cannot load libcurl");
	if (!(x = calloc(1, sizeof(*x))))
		return PAI_ENOMEM;
	x->sock = CURL_SOCKET_BAD;
	x->trace = o->trace;
	x->trace_data = o->trace_data;
	x->stdin_open = o->use_stdin;
	pai__kube_ws_dec_init(&x->dec, 0);
	for (tries = 0;; tries++) {
		ret = attempt(x, cfg, cred, o, &gen, &st, err);
		/* §2.3: a 401 gets one fresh credential */
		if (ret != PAI_EAUTH || st.code != 401 || tries > 0 || !cred ||
		    !pai__kube_cred_unauthorized(cred, gen))
			break;
		pai__kube_status_release(&st);
		disconnect(x);
	}
	if (!ret) {
		*out = x;
		x = NULL;
	}
	if (refusal)
		*refusal = st;
	else
		pai__kube_status_release(&st);
	pai__kube_exec_free(x);
	return ret;
}

int pai__kube_exec_protocol(const pai__kube_exec *x)
{
	return x->protocol;
}

/* ---- the session ------------------------------------------------------------
 */

/* Queues one client frame, masked with fresh random bytes (RFC 6455
 * §5.3: the kubelet closes on an unmasked one). */
static int queue_frame(pai__kube_exec *x, int opcode, const void *payload,
		       size_t n)
{
	unsigned char mask[4], *frame;
	size_t len = pai__kube_ws_frame_len(n);

	if (pai__random(mask, sizeof(mask)))
		return PAI_ERROR;
	if (!(frame = malloc(len)))
		return PAI_ENOMEM;
	pai__kube_ws_frame(frame, opcode, mask, payload, n);
	pai__buf_put(&x->out, (const char *)frame, len);
	free(frame);
	return x->out.oom ? PAI_ENOMEM : PAI_OK;
}

/* A message on a channel: its byte, then the data (§7). */
static int queue_channel(pai__kube_exec *x, int ch, const void *data, size_t n)
{
	unsigned char *msg = malloc(n + 1);
	int ret;

	if (!msg)
		return PAI_ENOMEM;
	msg[0] = (unsigned char)ch;
	if (n)
		memcpy(msg + 1, data, n);
	ret = queue_frame(x, PAI__WS_BINARY, msg, n + 1);
	free(msg);
	return ret;
}

/* Sends what is queued; with wait, until all is out or deadline. */
static int flush(pai__kube_exec *x, long long deadline, pai__kube_err *err)
{
	size_t sent;
	CURLcode rc;

	while (x->out_off < x->out.len) {
		sent = 0;
		rc = curl_easy_send(x->h, x->out.data + x->out_off,
				    x->out.len - x->out_off, &sent);
		if (rc == CURLE_AGAIN) {
			if (deadline < 0 || !wait_sock(x, POLLOUT, deadline))
				return PAI_OK;
			continue;
		}
		if (rc != CURLE_OK) {
			x->closed = x->broken = 1;
			return curl_failed(x, rc, err);
		}
		x->out_off += sent;
	}
	x->out.len = x->out_off = 0;
	return PAI_OK;
}

/* Writes all of data to fd (a terminal may take it slowly). */
static int write_all(int fd, const unsigned char *data, size_t n)
{
	struct pollfd p = {fd, POLLOUT, 0};
	ssize_t w;

	while (n > 0) {
		w = write(fd, data, n);
		if (w < 0 && errno == EAGAIN) {
			poll(&p, 1, 1000);
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return PAI_EIO;
		data += w;
		n -= (size_t)w;
	}
	return PAI_OK;
}

/* Channel 3: the command's end (§7). */
static void on_status(pai__kube_exec *x, const unsigned char *data, size_t n)
{
	pai__kube_err e;

	e.msg[0] = '\0';
	x->status_ret = pai__kube_exec_status(&x->exit_code, data, n, &e);
	snprintf(x->status_msg, sizeof(x->status_msg), "%s", e.msg);
	x->got_status = 1;
}

static int on_data(pai__kube_exec *x, const pai__kube_exec_io *io,
		   const pai__kube_ws_msg *m, pai__kube_err *err)
{
	int fd;

	/* the kubelet's first frame is a channel byte alone */
	if (m->len <= 1)
		return PAI_OK;
	switch (m->data[0]) {
	case PAI__KCH_STDOUT: fd = io ? io->out_fd : -1; break;
	case PAI__KCH_STDERR: fd = io ? io->err_fd : -1; break;
	case PAI__KCH_ERROR: on_status(x, m->data + 1, m->len - 1); return 0;
	default: return PAI_OK;
	}
	if (fd >= 0 && write_all(fd, m->data + 1, m->len - 1))
		return pai__kube_fail(err, PAI_EIO,
				      "exec: writing the output failed: %s",
				      strerror(errno));
	return PAI_OK;
}

static int on_message(pai__kube_exec *x, const pai__kube_exec_io *io,
		      const pai__kube_ws_msg *m, pai__kube_err *err)
{
	switch (m->opcode) {
	case PAI__WS_PING: return queue_frame(x, PAI__WS_PONG, m->data, m->len);
	case PAI__WS_PONG: return PAI_OK;
	case PAI__WS_CLOSE:
		/* echo its code, and stop (RFC 6455 §5.5.1) */
		x->closed = 1;
		if (x->close_sent)
			return PAI_OK;
		x->close_sent = 1;
		return queue_frame(x, PAI__WS_CLOSE, m->data,
				   m->len >= 2 ? 2 : 0);
	default: return on_data(x, io, m, err);
	}
}

/* Decodes what came: 1 when the session is over. */
static int take_frames(pai__kube_exec *x, const pai__kube_exec_io *io,
		       pai__kube_err *err)
{
	pai__kube_ws_msg m;
	unsigned char code[2];
	int ret, close_code;

	while ((ret = pai__kube_ws_dec_next(&x->dec, &m, &close_code, err)) >
	       0) {
		if ((ret = on_message(x, io, &m, err)))
			return ret;
		if (x->got_status || x->closed)
			return 1;
	}
	if (ret < 0 && close_code && !x->close_sent) {
		code[0] = (unsigned char)(close_code >> 8);
		code[1] = (unsigned char)close_code;
		x->close_sent = 1;
		queue_frame(x, PAI__WS_CLOSE, code, 2);
		flush(x, pai__now_ms() + 1000, NULL);
	}
	if (ret < 0)
		x->closed = x->broken = 1;
	return ret;
}

/* Reads all the socket has now (TLS may hold more than poll shows). */
static int read_socket(pai__kube_exec *x, const pai__kube_exec_io *io,
		       pai__kube_err *err)
{
	char chunk[16384];
	size_t got;
	CURLcode rc;
	int ret;

	for (;;) {
		got = 0;
		rc = curl_easy_recv(x->h, chunk, sizeof(chunk), &got);
		if (rc == CURLE_AGAIN)
			return take_frames(x, io, err);
		if (rc != CURLE_OK || got == 0) {
			ret = take_frames(x, io, err);
			x->closed = 1;
			return ret < 0 ? ret : 1;
		}
		if ((ret = pai__kube_ws_dec_feed(&x->dec, chunk, got)))
			return ret;
		if ((ret = take_frames(x, io, err)))
			return ret;
	}
}

/* stdin is readable: sent (through io's filter), or at its end closed
 * (v5) or left (v4). 2 when the filter ends the session. */
static int read_stdin(pai__kube_exec *x, const pai__kube_exec_io *io,
		      pai__kube_err *err)
{
	char buf[STDIN_CHUNK + 1];
	ssize_t n = read(io->in_fd, buf, STDIN_CHUNK);
	size_t len = n > 0 ? (size_t)n : 0;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return PAI_OK;
	if (n < 0)
		return pai__kube_fail(err, PAI_EIO,
				      "exec: reading the input failed: %s",
				      strerror(errno));
	if (n > 0 && io->on_input && io->on_input(io->data, buf, &len))
		return 2;
	if (n > 0)
		return len ? queue_channel(x, PAI__KCH_STDIN, buf, len)
			   : PAI_OK;
	x->stdin_open = 0;
	if (x->protocol < 5)
		return PAI_OK;
	return queue_channel(x, PAI__KCH_CLOSE, "\0", 1);
}

int pai__kube_exec_pump(pai__kube_exec *x, const pai__kube_exec_io *io,
			int timeout_ms, pai__kube_err *err)
{
	long long deadline = timeout_ms < 0 ? -1 : pai__now_ms() + timeout_ms;
	int in = io && io->in_fd >= 0 && x->stdin_open ? io->in_fd : -1;
	struct pollfd p[2];
	long long left;
	int ret, n;

	for (;;) {
		if (x->got_status || x->closed)
			return 1;
		if ((ret = read_socket(x, io, err)) ||
		    (ret = flush(x, -1, err)))
			return ret;
		p[0].fd = (int)x->sock;
		p[0].events = POLLIN | (x->out.len ? POLLOUT : 0);
		p[1].fd = in;
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		left = deadline < 0 ? -1 : deadline - pai__now_ms();
		if (deadline >= 0 && left < 0)
			left = 0;
		n = poll(p, in >= 0 ? 2 : 1, (int)left);
		if (n < 0 && errno == EINTR)
			return PAI_EINTR;
		if (n < 0)
			return pai__kube_fail(err, PAI_EIO, "exec: poll: %s",
					      strerror(errno));
		if (in >= 0 && p[1].revents) {
			if ((ret = read_stdin(x, io, err)))
				return ret;
			in = x->stdin_open ? in : -1;
		}
		if (n == 0 && deadline >= 0 && pai__now_ms() >= deadline)
			return 0;
	}
}

int pai__kube_exec_send(pai__kube_exec *x, const void *data, size_t len,
			pai__kube_err *err)
{
	int ret;

	if (x->closed)
		return pai__kube_fail(err, PAI_EUNREACHABLE,
				      "exec: the connection is closed");
	while (len > 0) {
		size_t n = len > STDIN_CHUNK ? STDIN_CHUNK : len;

		if ((ret = queue_channel(x, PAI__KCH_STDIN, data, n)) ||
		    (ret = flush(x, pai__now_ms() + 30000, err)))
			return ret;
		data = (const char *)data + n;
		len -= n;
	}
	return x->out.len ? pai__kube_fail(err, PAI_EUNREACHABLE,
					   "exec: the server takes no input")
			  : PAI_OK;
}

int pai__kube_exec_close_stdin(pai__kube_exec *x, pai__kube_err *err)
{
	int ret;

	if (x->protocol < 5 || !x->stdin_open)
		return 0;
	x->stdin_open = 0;
	if ((ret = queue_channel(x, PAI__KCH_CLOSE, "\0", 1)) ||
	    (ret = flush(x, pai__now_ms() + 30000, err)))
		return ret;
	return 1;
}

int pai__kube_exec_resize(pai__kube_exec *x, unsigned width, unsigned height,
			  pai__kube_err *err)
{
	char json[64];
	int n, ret;

	/* uint16 fields, capitalised Go names (§7) */
	n = snprintf(json, sizeof(json), "{\"Width\":%u,\"Height\":%u}",
		     width > 65535 ? 65535 : width,
		     height > 65535 ? 65535 : height);
	if ((ret = queue_channel(x, PAI__KCH_RESIZE, json, (size_t)n)))
		return ret;
	return flush(x, pai__now_ms() + 30000, err);
}

int pai__kube_exec_result(const pai__kube_exec *x, int *exit_code,
			  pai__kube_err *err)
{
	*exit_code = -1;
	if (!x->got_status)
		return pai__kube_fail(err, PAI_EUNREACHABLE,
				      "exec: the connection ended before the "
				      "command's exit status came");
	if (x->status_ret)
		return pai__kube_fail(err, x->status_ret, "%s", x->status_msg);
	*exit_code = x->exit_code;
	return PAI_OK;
}

void pai__kube_exec_free(pai__kube_exec *x)
{
	static const unsigned char normal[2] = {1000 >> 8, 1000 & 0xff};

	if (!x)
		return;
	/* a polite close, briefly: the answer is not waited for */
	if (x->h && x->protocol && !x->close_sent && !x->broken &&
	    queue_frame(x, PAI__WS_CLOSE, normal, 2) == PAI_OK)
		flush(x, pai__now_ms() + 1000, NULL);
	disconnect(x);
	pai__kube_ws_dec_release(&x->dec);
	pai__buf_release(&x->out);
	free(x);
}
