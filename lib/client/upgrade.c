/* upgrade.c - an HTTP/1.1 Upgrade over the client's seam (upgrade.h):
 * the connection conn.c sets up, made by curl with CONNECT_ONLY; the
 * request written and the answer's head and body read here, over
 * curl_easy_send and curl_easy_recv, waiting on the socket with poll.
 * The head's lines go through response.c's parser, as every answer's. */
#include "upgrade.h"
#include "text/text.h" /* pai__hexval */

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The body of a refusal kept, at most. */
#define MAX_REFUSAL ((size_t)1 << 20)
#define MAX_HEAD    65536

/* ---- the answer, as pure functions over bytes ------------------------ */

void pai__http1_head_release(pai__http1_head *h)
{
	free(h->protocol);
	free(h->accept);
	memset(h, 0, sizeof(*h));
	h->content_length = -1;
}

/* 1 when the comma-separated list v holds token (case ignored). */
static int has_token(const char *v, const char *token)
{
	size_t t = strlen(token), n;

	while (*v) {
		v += strspn(v, " \t,");
		n = strcspn(v, ",");
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		if (n == t && strncasecmp(v, token, t) == 0)
			return 1;
		v += strcspn(v, ",");
	}
	return 0;
}

/* A decimal of at most max, or -1. */
static long number(const char *v, long max)
{
	long x = 0;

	if (!*v)
		return -1;
	for (; *v; v++) {
		if (!isdigit((unsigned char)*v) || x > max / 10)
			return -1;
		x = x * 10 + (*v - '0');
	}
	return x <= max ? x : -1;
}

/* Lines end at CRLF: a bare CR or LF (RFC 9112 2.2), or a NUL (RFC
 * 9110 5.5), is refused, never a part of a value. */
static int bad_line(const char *l, size_t n)
{
	return memchr(l, '\r', n) || memchr(l, '\n', n) || memchr(l, 0, n);
}

/* One header line (without its CRLF) into rs and h; *up, *conn: the
 * Upgrade and Connection headers said what an upgrade's must. */
static int head_line(pai__response *rs, pai__http1_head *h, const char *l,
		     size_t n, int *up, int *conn)
{
	char *v;

	if (bad_line(l, n))
		return PAI_EPROTOCOL;
	pai__response_header(rs, l, n);
	if ((v = pai__header_value(l, n, "Content-Length")))
		h->content_length = number(v, 1L << 30);
	else if ((v = pai__header_value(l, n, "Transfer-Encoding")))
		h->chunked = has_token(v, "chunked");
	else if ((v = pai__header_value(l, n, "Upgrade")))
		*up = has_token(v, "websocket");
	else if ((v = pai__header_value(l, n, "Connection")))
		*conn = has_token(v, "upgrade");
	else if ((v = pai__header_value(l, n, "Sec-WebSocket-Protocol"))) {
		free(h->protocol);
		h->protocol = v;
		return PAI_OK;
	} else if ((v = pai__header_value(l, n, "Sec-WebSocket-Accept"))) {
		free(h->accept);
		h->accept = v;
		return PAI_OK;
	}
	free(v);
	return PAI_OK;
}

static int status_line(pai__response *rs, const char *l, size_t n)
{
	if (n < 12 || bad_line(l, n) || strncmp(l, "HTTP/1.", 7) != 0 ||
	    l[8] != ' ' ||
	    (n > 12 && l[12] != ' ') || !isdigit((unsigned char)l[9]) ||
	    !isdigit((unsigned char)l[10]) || !isdigit((unsigned char)l[11]))
		return PAI_EPROTOCOL;
	rs->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	return rs->status >= 100 ? PAI_OK : PAI_EPROTOCOL;
}

int pai__http1_read_head(pai__response *rs, pai__http1_head *h,
			 size_t *head_len, const char *data, size_t len)
{
	const char *end = NULL, *l, *e;
	int up = 0, conn = 0;

	pai__http1_head_release(h);
	*head_len = 0;
	if (len > 0) /* nothing yet: data may be NULL */
		end = memmem(data, len < MAX_HEAD ? len : MAX_HEAD, "\r\n\r\n",
			     4);
	if (!end)
		return len >= MAX_HEAD ? PAI_EPROTOCOL : 0;
	e = memmem(data, (size_t)(end - data) + 2, "\r\n", 2);
	if (status_line(rs, data, (size_t)(e - data)))
		return PAI_EPROTOCOL;
	for (l = e + 2; l < end; l = e + 2) {
		e = memmem(l, (size_t)(end - l) + 2, "\r\n", 2);
		if (head_line(rs, h, l, (size_t)(e - l), &up, &conn))
			return PAI_EPROTOCOL;
	}
	h->upgrade_ok = up && conn;
	*head_len = (size_t)(end - data) + 4;
	return 1;
}

/* A chunked body: 1 when its last chunk came. */
static int dechunk(pai__buf *b, const char *data, size_t len, size_t max)
{
	size_t i = 0, size, k;
	const char *crlf;

	for (;;) {
		crlf = memmem(data + i, len - i, "\r\n", 2);
		if (!crlf)
			return 0;
		for (size = 0, k = i; k < (size_t)(crlf - data) &&
				      isxdigit((unsigned char)data[k]);
		     k++) {
			if (size > max)
				return PAI_ETOOBIG;
			size = size * 16 + (size_t)pai__hexval(data[k]);
		}
		if (k == i || (data[k] != ';' && data + k != crlf))
			return PAI_EPROTOCOL;
		if (size == 0)
			return 1; /* trailers are not read */
		i = (size_t)(crlf - data) + 2;
		if (len - i < size + 2)
			return 0;
		if (b->len + size > max)
			return PAI_ETOOBIG;
		if (memcmp(data + i + size, "\r\n", 2) != 0)
			return PAI_EPROTOCOL;
		pai__buf_put(b, data + i, size);
		i += size + 2;
	}
}

int pai__http1_read_body(pai__buf *body, const pai__http1_head *h,
			 const char *data, size_t len, int eof, size_t max)
{
	int ret;

	pai__buf_release(body);
	if (h->chunked)
		ret = dechunk(body, data, len, max);
	else if (h->content_length >= 0) {
		ret = (size_t)h->content_length > max	 ? PAI_ETOOBIG
		      : len >= (size_t)h->content_length ? 1
							 : 0;
		if (ret == 1)
			pai__buf_put(body, data, (size_t)h->content_length);
	} else {
		ret = len > max ? PAI_ETOOBIG : eof ? 1 : 0;
		if (ret == 1)
			pai__buf_put(body, data, len);
	}
	if (ret == 0 && eof)
		ret = PAI_EPROTOCOL;
	if (ret == 1 && body->oom)
		ret = PAI_ENOMEM;
	if (ret != 1)
		pai__buf_release(body);
	return ret;
}

/* ---- the connection ----------------------------------------------------- */

void pai__upgraded_release(pai__upgraded *up)
{
	if (up->h)
		curl_easy_cleanup(up->h);
	pai__conn_release(&up->conn);
	pai__buf_release(&up->rest);
	pai__http1_head_release(&up->head);
	up->h = NULL;
	up->sock = CURL_SOCKET_BAD;
}

int pai__upgraded_wait(const pai__upgraded *up, short events,
		       long long deadline)
{
	struct pollfd p = {(int)up->sock, events, 0};
	long long left;
	int n;

	do {
		if ((left = deadline - pai__now_ms()) < 0)
			left = 0;
		n = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
	} while ((n < 0 && errno == EINTR) || (n == 0 && left > 1000));
	return n > 0;
}

static int send_all(pai_client *c, pai__upgraded *up, const char *url,
		    const char *data, size_t n, long long deadline)
{
	size_t sent;
	CURLcode rc;

	while (n > 0) {
		sent = 0;
		rc = curl_easy_send(up->h, data, n, &sent);
		if (rc == CURLE_AGAIN &&
		    pai__upgraded_wait(up, POLLOUT, deadline))
			continue;
		if (rc == CURLE_AGAIN)
			return pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
						"the server takes no request");
		if (rc != CURLE_OK)
			return pai__transfer_error(c, up->h, url, rc, 0,
						   c->errbuf);
		data += sent;
		n -= sent;
	}
	return PAI_OK;
}

/* What is there into b (waiting until deadline for something): PAI_OK
 * with *eof at the end of the stream. */
static int recv_some(pai_client *c, pai__upgraded *up, const char *url,
		     pai__buf *b, long long deadline, int *eof)
{
	char chunk[16384];
	size_t got;
	CURLcode rc;

	*eof = 0;
	for (;;) {
		got = 0;
		rc = curl_easy_recv(up->h, chunk, sizeof(chunk), &got);
		if (rc == CURLE_OK) {
			*eof = got == 0;
			pai__buf_put(b, chunk, got);
			return b->oom ? pai__client_oom(c) : PAI_OK;
		}
		if (rc != CURLE_AGAIN)
			return pai__transfer_error(c, up->h, url, rc, 0,
						   c->errbuf);
		if (!pai__upgraded_wait(up, POLLIN, deadline))
			return pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
						"no answer from the server");
	}
}

/* curl's connection: CONNECT_ONLY over HTTP/1.1, as conn.c sets up
 * every one (§7: the apiserver speaks HTTP/2; upgrades need 1.1). */
static int connect_to(pai_client *c, const char *url, long timeout_ms,
		      pai__upgraded *up)
{
	CURLcode rc;
	int err;

	if (!(up->h = curl_easy_init()))
		return pai__client_oom(c);
	if ((err = pai__conn_setup(c, up->h, url, &up->conn)))
		return err;
	c->errbuf[0] = '\0';
	curl_easy_setopt(up->h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(up->h, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(up->h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(up->h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	/* through an HTTP proxy, a tunnel: the upgrade is ours to send */
	curl_easy_setopt(up->h, CURLOPT_HTTPPROXYTUNNEL, 1L);
	rc = curl_easy_perform(up->h);
	if (rc != CURLE_OK)
		return pai__transfer_error(c, up->h, url, rc,
					   up->conn.via_socket, c->errbuf);
	rc = curl_easy_getinfo(up->h, CURLINFO_ACTIVESOCKET, &up->sock);
	if (rc != CURLE_OK || up->sock == CURL_SOCKET_BAD)
		return pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
					"no connection to use");
	return PAI_OK;
}

/* The request: its line, Host (the module's own when it sets one:
 * tls-server-name), the connection's header lines (the credential),
 * then the caller's. */
static int request(pai__buf *b, const char *url, const pai__conn *conn,
		   const char *const *headers, size_t n)
{
	const char *a = strstr(url, "://"), *path;
	const struct curl_slist *l;
	int host = 0;
	size_t i;

	if (!a)
		return PAI_EINVAL;
	a += 3;
	path = a + strcspn(a, "/?");
	pai__buf_printf(b, "GET %s%s HTTP/1.1\r\n", *path == '/' ? "" : "/",
			path);
	for (l = conn->hdrs; l; l = l->next)
		host |= strncasecmp(l->data, "Host:", 5) == 0;
	if (!host)
		pai__buf_printf(b, "Host: %.*s\r\n", (int)(path - a), a);
	pai__buf_puts(b, "User-Agent: paictl/" PAI_VERSION "\r\n");
	for (l = conn->hdrs; l; l = l->next)
		if (strcmp(l->data, "Expect:") != 0)
			pai__buf_printf(b, "%s\r\n", l->data);
	for (i = 0; i < n; i++)
		pai__buf_printf(b, "%s\r\n", headers[i]);
	pai__buf_puts(b, "\r\n");
	return b->oom ? PAI_ENOMEM : PAI_OK;
}

/* The answer's head (and a refusal's body) into rs and up. */
static int answer(pai_client *c, pai__upgraded *up, const char *url,
		  pai__response *rs, long long deadline)
{
	pai__buf in = PAI__BUF_INIT;
	size_t head_len = 0;
	int ret, eof = 0;

	while ((ret = pai__http1_read_head(rs, &up->head, &head_len, in.data,
					   in.len)) == 0 &&
	       !eof)
		if ((ret = recv_some(c, up, url, &in, deadline, &eof)))
			goto out;
	if (ret == 0)
		ret = pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
				       "%s: the server closed the connection "
				       "without an answer",
				       url);
	else if (ret < 0)
		ret = ret == PAI_ENOMEM ? pai__client_oom(c)
					: pai__client_fail(c, ret, 0, NULL,
							   "%s: the answer is "
							   "not HTTP/1.1",
							   url);
	if (ret < 0)
		goto out;
	pai__trace_lines(pai__trace_to, c, "< ", in.data, head_len - 2);
	if (rs->status == 101) {
		pai__buf_put(&up->rest, in.data + head_len, in.len - head_len);
		ret = up->rest.oom ? pai__client_oom(c) : PAI_OK;
		goto out;
	}
	/* a refusal: its body, judged by what came if it was cut */
	while ((ret = pai__http1_read_body(
		    &rs->body, &up->head, in.data + head_len, in.len - head_len,
		    eof, MAX_REFUSAL)) == 0)
		if ((ret = recv_some(c, up, url, &in, deadline, &eof)))
			goto out;
	ret = ret == PAI_ENOMEM ? pai__client_oom(c) : PAI_OK;
out:
	pai__buf_release(&in);
	return ret;
}

/* One try: the connection, the request, the answer. */
static int attempt(pai_client *c, const char *url, const char *const *headers,
		   size_t n, long timeout_ms, pai__upgraded *up,
		   pai__response *rs)
{
	long long deadline = pai__now_ms() + timeout_ms;
	pai__buf rq = PAI__SECRET_BUF_INIT; /* the credential, as it grows */
	int err;

	if ((err = connect_to(c, url, timeout_ms, up)))
		return err;
	if ((err = request(&rq, url, &up->conn, headers, n)))
		err = err == PAI_ENOMEM
			  ? pai__client_oom(c)
			  : pai__client_fail(c, err, 0, NULL,
					     "cannot use the URL '%s'", url);
	if (!err) {
		/* the trace masks "Authorization: Bearer ..." */
		pai__trace_lines(pai__trace_to, c, "> ", rq.data, rq.len - 2);
		err = send_all(c, up, url, rq.data, rq.len, deadline);
	}
	pai__buf_wipe(&rq); /* it held the credential */
	return err ? err : answer(c, up, url, rs, deadline);
}

int pai__upgrade(pai_client *c, const char *url, const char *const *headers,
		 size_t nheaders, long timeout_ms, pai__upgraded *up)
{
	pai__request rq = {"GET", url, NULL, 0, NULL, NULL, 1, 0, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	long long named;
	int err;

	memset(up, 0, sizeof(*up));
	up->sock = CURL_SOCKET_BAD;
	up->head.content_length = -1;
	for (;;) {
		if ((err = pai__hold(c)) ||
		    (err = attempt(c, url, headers, nheaders, timeout_ms, up,
				   &rs)))
			break;
		if (pai__note_answer(c, &rq, &rs, PAI_OK, &named)) {
			err = PAI_EHTTP;
			break;
		}
		/* a 401 gets one fresh credential */
		if (rs.status != 401 || !pai__conn_renew(c, &up->conn))
			break;
		pai__response_release(&rs);
		pai__upgraded_release(up);
	}
	if (!err && rs.status != 101) {
		err = pai__judge(c, &rq, &rs);
		if (!err) /* a 2xx is no upgrade */
			err =
			    pai__client_fail(c, PAI_EPROTOCOL, rs.status, NULL,
					     "HTTP %ld to an upgrade: no "
					     "upgrade",
					     rs.status);
	}
	pai__response_release(&rs);
	return err;
}
