/* kube_exec.c - exec's session (§7) over a connection the client's seam
 * has upgraded (client/upgrade.h: curl's CONNECT_ONLY connection, the
 * same TLS and credential as every request): frames in and out over
 * curl_easy_send/curl_easy_recv, waiting on the socket with poll.
 * kube.h says why not libwebsockets; kube_ws.c holds the framing. The
 * session's memory is bounded (stdin is not read while the WebSocket
 * cannot take more), and its silence too: a ping after a quiet while,
 * and a peer that answers nothing for long is gone. */
#include "kube.h"
#include "client/upgrade.h"

#include "sys/dl_curl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stdin is read and sent in pieces of this size. */
#define STDIN_CHUNK 16384
/* stdin is not read while this much is queued for the server: a peer
 * that takes input slowly (or not at all) holds the rest in the pipe;
 * nor is a ping answered (RFC 6455 §5.5.3: a pong for the latest ping
 * is enough), so that a peer that pings and reads nothing cannot grow
 * the queue either. */
#define OUT_MAX PAI__KUBE_EXEC_OUT_MAX

struct pai__kube_exec {
	pai__upgraded up; /* the connection: its handle and socket */
	int protocol;	  /* 5 or 4 */
	pai__kube_ws_dec dec;
	pai__buf out;  /* frames queued */
	pai__buf wire; /* frames being sent, from wire_off: TLS wants a
			* write it could not finish retried with the same
			* bytes at the same place, so nothing is added to it
			* or moved until it is all out */
	size_t wire_off;
	int stdin_open;
	int got_status, status_ret, exit_code;
	char status_msg[PAI__KUBE_ERR_MAX];
	int closed, close_sent, broken, lost;
	long long heard;  /* when the peer last sent anything */
	long long pinged; /* when the last ping went, 0: none since */
};

static int curl_failed(pai__kube_exec *x, CURLcode rc, pai__kube_err *err)
{
	(void)x;
	if (rc == CURLE_OUT_OF_MEMORY)
		return PAI_ENOMEM;
	return pai__kube_fail(err, PAI_EUNREACHABLE, "exec: %s",
			      curl_easy_strerror(rc));
}

int pai__kube_exec_attach(pai__kube_exec **out, pai__upgraded *up, int protocol,
			  int use_stdin)
{
	pai__kube_exec *x = calloc(1, sizeof(*x));
	int ret;

	*out = NULL;
	if (!x)
		return PAI_ENOMEM;
	pai__kube_ws_dec_init(&x->dec, 0);
	/* the bytes after the 101 are the first frames */
	if ((ret =
		 pai__kube_ws_dec_feed(&x->dec, up->rest.data, up->rest.len))) {
		pai__kube_ws_dec_release(&x->dec);
		free(x);
		return ret;
	}
	x->up = *up;
	memset(up, 0, sizeof(*up));
	up->sock = CURL_SOCKET_BAD;
	x->protocol = protocol;
	x->stdin_open = use_stdin;
	x->heard = pai__now_ms();
	*out = x;
	return PAI_OK;
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

/* Bytes queued or being sent. */
static size_t pending(const pai__kube_exec *x)
{
	return x->out.len + (x->wire.len - x->wire_off);
}

size_t pai__kube_exec_queued(const pai__kube_exec *x)
{
	return pending(x);
}

/* Sends what is queued; with wait, until all is out or deadline. */
static int flush(pai__kube_exec *x, long long deadline, pai__kube_err *err)
{
	pai__buf t;
	size_t sent;
	CURLcode rc;

	for (;;) {
		if (x->wire_off == x->wire.len) {
			if (!x->out.len)
				return PAI_OK;
			/* the queue goes on the wire as it is */
			t = x->wire;
			x->wire = x->out;
			x->out = t;
			x->out.len = x->wire_off = 0;
		}
		sent = 0;
		rc = curl_easy_send(x->up.h, x->wire.data + x->wire_off,
				    x->wire.len - x->wire_off, &sent);
		if (rc == CURLE_AGAIN) {
			if (deadline < 0 ||
			    !pai__upgraded_wait(&x->up, POLLOUT, deadline))
				return PAI_OK;
			continue;
		}
		if (rc != CURLE_OK) {
			x->closed = x->broken = 1;
			return curl_failed(x, rc, err);
		}
		x->wire_off += sent;
	}
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
	case PAI__WS_PING:
		return pending(x) < OUT_MAX
			   ? queue_frame(x, PAI__WS_PONG, m->data, m->len)
			   : PAI_OK;
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
		rc = curl_easy_recv(x->up.h, chunk, sizeof(chunk), &got);
		if (rc == CURLE_AGAIN)
			return take_frames(x, io, err);
		if (rc != CURLE_OK || got == 0) {
			ret = take_frames(x, io, err);
			x->closed = 1;
			return ret < 0 ? ret : 1;
		}
		x->heard = pai__now_ms();
		x->pinged = 0;
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

/* A ping when the peer has been quiet a while; the session lost when
 * it has answered nothing for long (a connection frozen without a
 * word): 1 then. */
static int keep_alive(pai__kube_exec *x)
{
	long long quiet = pai__now_ms() - x->heard;

	if (quiet >= PAI__KUBE_EXEC_DEAD_MS) {
		x->lost = x->closed = x->broken = 1;
		return 1;
	}
	if (quiet >= PAI__KUBE_EXEC_PING_MS && !x->pinged) {
		x->pinged = pai__now_ms();
		return queue_frame(x, PAI__WS_PING, "paictl", 6);
	}
	return PAI_OK;
}

/* poll's timeout: until deadline, or the next ping or verdict. */
static int poll_ms(const pai__kube_exec *x, long long deadline)
{
	long long next = x->heard + (x->pinged ? PAI__KUBE_EXEC_DEAD_MS
					       : PAI__KUBE_EXEC_PING_MS);
	long long until = deadline >= 0 && deadline < next ? deadline : next;
	long long left = until - pai__now_ms();

	return left < 0 ? 0 : (int)left;
}

int pai__kube_exec_pump(pai__kube_exec *x, const pai__kube_exec_io *io,
			int timeout_ms, pai__kube_err *err)
{
	long long deadline = timeout_ms < 0 ? -1 : pai__now_ms() + timeout_ms;
	int in = io && io->in_fd >= 0 && x->stdin_open ? io->in_fd : -1;
	struct pollfd p[2];
	int ret, n;

	for (;;) {
		if (x->got_status || x->closed)
			return 1;
		if ((ret = read_socket(x, io, err)) ||
		    (ret = flush(x, -1, err)) || (ret = keep_alive(x)))
			return ret;
		p[0].fd = (int)x->up.sock;
		p[0].events = POLLIN | (pending(x) ? POLLOUT : 0);
		/* stdin waits while the server cannot take more */
		p[1].fd = pending(x) < OUT_MAX ? in : -1;
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		n = poll(p, 2, poll_ms(x, deadline));
		if (n < 0 && errno == EINTR)
			return PAI_EINTR;
		if (n < 0)
			return pai__kube_fail(err, PAI_EIO, "exec: poll: %s",
					      strerror(errno));
		if (p[1].fd >= 0 && p[1].revents) {
			if ((ret = read_stdin(x, io, err)))
				return ret;
			in = x->stdin_open ? in : -1;
		}
		if (deadline >= 0 && pai__now_ms() >= deadline)
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
	return pending(x) ? pai__kube_fail(err, PAI_EUNREACHABLE,
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
	if (!x->got_status && x->lost)
		return pai__kube_fail(err, PAI_EUNREACHABLE,
				      "exec: the connection to the pod is "
				      "lost: nothing came for %d s, not even "
				      "an answer to a ping",
				      PAI__KUBE_EXEC_DEAD_MS / 1000);
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
	if (x->up.h && !x->close_sent && !x->broken &&
	    queue_frame(x, PAI__WS_CLOSE, normal, 2) == PAI_OK)
		flush(x, pai__now_ms() + 1000, NULL);
	pai__upgraded_release(&x->up);
	pai__kube_ws_dec_release(&x->dec);
	pai__buf_release(&x->out);
	pai__buf_release(&x->wire);
	free(x);
}
