/* kube_ws.c - RFC 6455 for exec (§7), as pure functions over buffers:
 * client frames (always masked), the server's frames decoded into
 * messages (never masked, continuations reassembled, control frames
 * checked), the upgrade's answer, a refusal's body, and what channel 3
 * says about the command's end. kube_exec.c does the I/O; the fuzzer
 * feeds these directly. */
#include "kube.h"
#include "text/text.h" /* pai__hexval */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- client frames ---------------------------------------------------------
 */

size_t pai__kube_ws_frame_len(size_t n)
{
	return 2 + (n < 126 ? 0 : n <= 0xffff ? 2 : 8) + 4 + n;
}

size_t pai__kube_ws_frame(unsigned char *out, int opcode,
			  const unsigned char mask[4], const void *payload,
			  size_t n)
{
	const unsigned char *p = payload;
	size_t i = 0, k;

	out[i++] = (unsigned char)(0x80 | (opcode & 0x0f));
	if (n < 126)
		out[i++] = (unsigned char)(0x80 | n);
	else if (n <= 0xffff) {
		out[i++] = 0x80 | 126;
		out[i++] = (unsigned char)(n >> 8);
		out[i++] = (unsigned char)n;
	} else {
		out[i++] = 0x80 | 127;
		for (k = 0; k < 8; k++)
			out[i++] = (unsigned char)((uint64_t)n >> (56 - 8 * k));
	}
	memcpy(out + i, mask, 4);
	i += 4;
	for (k = 0; k < n; k++)
		out[i + k] = p[k] ^ mask[k & 3];
	return i + n;
}

/* ---- server frames ------------------------------------------------------- */

void pai__kube_ws_dec_init(pai__kube_ws_dec *d, size_t max_msg)
{
	memset(d, 0, sizeof(*d));
	d->max_msg = max_msg ? max_msg : PAI__KUBE_WS_MAX_MSG;
}

void pai__kube_ws_dec_release(pai__kube_ws_dec *d)
{
	pai__buf_release(&d->in);
	pai__buf_release(&d->msg);
	pai__buf_release(&d->ctl);
	memset(d, 0, sizeof(*d));
}

int pai__kube_ws_dec_feed(pai__kube_ws_dec *d, const void *data, size_t len)
{
	if (d->in_off > 0 && d->in_off >= d->in.len / 2) {
		memmove(d->in.data, d->in.data + d->in_off,
			d->in.len - d->in_off);
		d->in.len -= d->in_off;
		d->in_off = 0;
	}
	pai__buf_put(&d->in, data, len);
	return d->in.oom ? PAI_ENOMEM : PAI_OK;
}

static int bad_frame(int *close_code, pai__kube_err *err, const char *what)
{
	*close_code = 1002;
	return pai__kube_fail(err, PAI_EPROTOCOL, "websocket: %s", what);
}

/* One frame's header: 0 when incomplete, else its length, with *op,
 * *fin and *len; <0 for what the protocol forbids. */
static int frame_head(const unsigned char *p, size_t avail, int *op, int *fin,
		      uint64_t *len, size_t *hdr, int *close_code,
		      pai__kube_err *err)
{
	size_t k;

	if (avail < 2)
		return 0;
	*fin = p[0] & 0x80;
	*op = p[0] & 0x0f;
	*len = p[1] & 0x7f;
	*hdr = 2 + (*len == 126 ? 2 : *len == 127 ? 8 : 0);
	if (p[0] & 0x70)
		return bad_frame(close_code, err, "reserved bits set");
	if (p[1] & 0x80) /* RFC 6455 §5.1: a client closes on this */
		return bad_frame(close_code, err,
				 "a masked frame from the "
				 "server");
	if ((*op > 2 && *op < 8) || *op > 10)
		return bad_frame(close_code, err, "an unknown opcode");
	if (*op >= 8 && (!*fin || *len > 125))
		return bad_frame(close_code, err,
				 "a fragmented or long "
				 "control frame");
	if (avail < *hdr)
		return 0;
	if (*hdr > 2)
		for (*len = 0, k = 2; k < *hdr; k++)
			*len = (*len << 8) | p[k];
	if (*len >> 63)
		return bad_frame(close_code, err, "a frame length over 2^63");
	return 1;
}

/* A data frame's payload: a whole message, or a piece of one. */
static int data_frame(pai__kube_ws_dec *d, int op, int fin,
		      const unsigned char *payload, size_t n,
		      pai__kube_ws_msg *m, int *close_code, pai__kube_err *err)
{
	if (op == PAI__WS_CONT && !d->msg_op)
		return bad_frame(close_code, err,
				 "a continuation with no "
				 "message begun");
	if (op != PAI__WS_CONT && d->msg_op)
		return bad_frame(close_code, err,
				 "a new message inside a "
				 "fragmented one");
	if (op != PAI__WS_CONT && fin) {
		m->opcode = op;
		m->data = payload;
		m->len = n;
		return 1;
	}
	if (op != PAI__WS_CONT) {
		d->msg_op = op;
		d->msg.len = 0;
	}
	if (d->msg.len + n > d->max_msg) {
		*close_code = 1009;
		return pai__kube_fail(err, PAI_ETOOBIG,
				      "websocket: a message over %zu bytes",
				      d->max_msg);
	}
	pai__buf_put(&d->msg, (const char *)payload, n);
	if (d->msg.oom)
		return PAI_ENOMEM;
	if (!fin)
		return 0;
	m->opcode = d->msg_op;
	m->data = (const unsigned char *)d->msg.data;
	m->len = d->msg.len;
	d->msg_op = 0;
	return 1;
}

static int control_frame(pai__kube_ws_dec *d, int op,
			 const unsigned char *payload, size_t n,
			 pai__kube_ws_msg *m, int *close_code,
			 pai__kube_err *err)
{
	if (op == PAI__WS_CLOSE && n == 1)
		return bad_frame(close_code, err, "a close frame of one byte");
	d->ctl.len = 0;
	pai__buf_put(&d->ctl, (const char *)payload, n);
	if (d->ctl.oom)
		return PAI_ENOMEM;
	m->opcode = op;
	m->data = (const unsigned char *)d->ctl.data;
	m->len = n;
	return 1;
}

int pai__kube_ws_dec_next(pai__kube_ws_dec *d, pai__kube_ws_msg *m,
			  int *close_code, pai__kube_err *err)
{
	const unsigned char *p;
	uint64_t len;
	size_t hdr, avail;
	int op, fin, ret;

	*close_code = 0;
	memset(m, 0, sizeof(*m));
	for (;;) {
		p = (const unsigned char *)d->in.data + d->in_off;
		avail = d->in.len - d->in_off;
		ret = frame_head(p, avail, &op, &fin, &len, &hdr, close_code,
				 err);
		if (ret <= 0)
			return ret;
		if (len > d->max_msg) {
			*close_code = 1009;
			return pai__kube_fail(err, PAI_ETOOBIG,
					      "websocket: a frame over %zu "
					      "bytes",
					      d->max_msg);
		}
		if (avail - hdr < len)
			return 0;
		d->in_off += hdr + (size_t)len;
		if (op >= 8)
			return control_frame(d, op, p + hdr, (size_t)len, m,
					     close_code, err);
		ret = data_frame(d, op, fin, p + hdr, (size_t)len, m,
				 close_code, err);
		if (ret != 0)
			return ret;
	}
}

/* ---- the handshake ---------------------------------------------------------
 */

int pai__kube_ws_key(char out[25])
{
	unsigned char raw[16];

	if (pai__random(raw, sizeof(raw)))
		return PAI_ERROR;
	pai__base64_encode(out, raw, sizeof(raw));
	return PAI_OK;
}

void pai__kube_ws_accept(char out[29], const char *key)
{
	unsigned char sha[20];
	char in[128];
	size_t n = strlen(key);

	if (n > sizeof(in) - sizeof(PAI__WS_GUID))
		n = sizeof(in) - sizeof(PAI__WS_GUID);
	memcpy(in, key, n);
	memcpy(in + n, PAI__WS_GUID, sizeof(PAI__WS_GUID) - 1);
	pai__sha1(sha, in, n + sizeof(PAI__WS_GUID) - 1);
	pai__base64_encode(out, sha, sizeof(sha));
}

void pai__kube_http_head_release(pai__kube_http_head *h)
{
	free(h->protocol);
	free(h->accept);
	free(h->content_type);
	memset(h, 0, sizeof(*h));
}

/* 1 when the comma-separated list v holds token (case ignored). */
static int has_token(const char *v, size_t n, const char *token)
{
	size_t t = strlen(token), i = 0, s;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		for (s = i; i < n && v[i] != ','; i++)
			;
		while (i > s && (v[i - 1] == ' ' || v[i - 1] == '\t'))
			i--;
		if (i - s == t && strncasecmp(v + s, token, t) == 0)
			return 1;
		while (i < n && v[i] != ',')
			i++;
	}
	return 0;
}

static long number(const char *v, size_t n, long max)
{
	long x = 0;
	size_t i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)v[i]) || x > max / 10)
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x <= max ? x : -1;
}

/* One "Name: value" line into h. */
static int head_line(pai__kube_http_head *h, const char *l, size_t n,
		     int *upgrade, int *conn)
{
	const char *colon = memchr(l, ':', n), *v;
	size_t name, vn;
	char **dst = NULL;

	if (!colon)
		return PAI_OK;
	name = (size_t)(colon - l);
	for (v = colon + 1; v < l + n && (*v == ' ' || *v == '\t'); v++)
		;
	for (vn = (size_t)(l + n - v);
	     vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t');)
		vn--;
#define IS(s) (name == sizeof(s) - 1 && strncasecmp(l, s, name) == 0)
	if (IS("Sec-WebSocket-Protocol"))
		dst = &h->protocol;
	else if (IS("Sec-WebSocket-Accept"))
		dst = &h->accept;
	else if (IS("Content-Type"))
		dst = &h->content_type;
	else if (IS("Content-Length"))
		h->content_length = number(v, vn, 1L << 30);
	else if (IS("Transfer-Encoding"))
		h->chunked = has_token(v, vn, "chunked");
	else if (IS("Upgrade"))
		*upgrade = has_token(v, vn, "websocket");
	else if (IS("Connection"))
		*conn = has_token(v, vn, "upgrade");
	else if (IS("Retry-After"))
		h->retry_after = number(v, vn, 86400);
#undef IS
	if (!dst)
		return PAI_OK;
	free(*dst);
	return (*dst = strndup(v, vn)) ? PAI_OK : PAI_ENOMEM;
}

#define MAX_HEAD 65536

static int status_line(pai__kube_http_head *h, const char *l, size_t n)
{
	if (n < 12 || strncmp(l, "HTTP/1.", 7) != 0 || l[8] != ' ' ||
	    (n > 12 && l[12] != ' '))
		return PAI_EPROTOCOL;
	h->status = number(l + 9, 3, 999);
	return h->status >= 100 ? PAI_OK : PAI_EPROTOCOL;
}

int pai__kube_http_head_parse(pai__kube_http_head *h, size_t *head_len,
			      const char *data, size_t len, pai__kube_err *err)
{
	const char *end = NULL, *l, *e;
	int upgrade = 0, conn = 0, ret = PAI_OK;

	memset(h, 0, sizeof(*h));
	h->content_length = h->retry_after = -1;
	*head_len = 0;
	if (len > 0) /* nothing yet: data may be NULL */
		end = memmem(data, len < MAX_HEAD ? len : MAX_HEAD, "\r\n\r\n",
			     4);
	if (!end)
		return len >= MAX_HEAD ? pai__kube_fail(err, PAI_EPROTOCOL,
							"an answer head over "
							"64 KiB")
				       : 0;
	e = memmem(data, (size_t)(end - data) + 2, "\r\n", 2);
	if (status_line(h, data, (size_t)(e - data)))
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "the answer is not HTTP/1.1");
	for (l = e + 2; !ret && l < end; l = e + 2) {
		e = memmem(l, (size_t)(end - l) + 2, "\r\n", 2);
		ret = head_line(h, l, (size_t)(e - l), &upgrade, &conn);
	}
	h->upgrade_ok = upgrade && conn;
	if (ret) {
		pai__kube_http_head_release(h);
		return ret;
	}
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

int pai__kube_http_body(char **body, size_t *body_len,
			const pai__kube_http_head *h, const char *data,
			size_t len, int eof, size_t max)
{
	pai__buf b = PAI__BUF_INIT;
	int ret;

	*body = NULL;
	*body_len = 0;
	if (h->chunked)
		ret = dechunk(&b, data, len, max);
	else if (h->content_length >= 0) {
		ret = (size_t)h->content_length > max	 ? PAI_ETOOBIG
		      : len >= (size_t)h->content_length ? 1
							 : 0;
		if (ret == 1)
			pai__buf_put(&b, data, (size_t)h->content_length);
	} else {
		ret = len > max ? PAI_ETOOBIG : eof ? 1 : 0;
		if (ret == 1)
			pai__buf_put(&b, data, len);
	}
	if (ret == 0 && eof)
		ret = PAI_EPROTOCOL;
	if (ret == 1 && b.oom)
		ret = PAI_ENOMEM;
	if (ret == 1) {
		*body_len = b.len;
		if (!(*body = pai__buf_detach(&b)))
			ret = PAI_ENOMEM;
	}
	pai__buf_release(&b);
	return ret;
}

int pai__kube_ws_check_101(const pai__kube_http_head *h, const char *key,
			   pai__kube_err *err)
{
	char want[29];

	if (h->status != 101 || !h->upgrade_ok)
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "the server's 101 lacks Upgrade: "
				      "websocket");
	pai__kube_ws_accept(want, key);
	if (!h->accept || strcmp(h->accept, want) != 0)
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "the server's Sec-WebSocket-Accept is "
				      "wrong");
	if (h->protocol && strcmp(h->protocol, "v5.channel.k8s.io") == 0)
		return 5;
	if (h->protocol && strcmp(h->protocol, "v4.channel.k8s.io") == 0)
		return 4;
	return pai__kube_fail(
	    err, PAI_EPROTOCOL, "the server chose %s subprotocol (offered: %s)",
	    h->protocol ? "another" : "no", PAI__KUBE_WS_PROTOCOLS);
}

/* ---- channel 3 (§7) ---------------------------------------------------------
 */

static int exit_code_of(const pai__kube_status *st, int *code)
{
	size_t i;
	long v;
	const char *m;

	for (i = 0; i < st->ncauses; i++) {
		m = st->causes[i].message;
		if (!st->causes[i].reason || !m ||
		    strcmp(st->causes[i].reason, "ExitCode") != 0)
			continue;
		v = number(m, strlen(m), 1L << 30);
		if (v < 0)
			return PAI_EPROTOCOL;
		*code = (int)v;
		return PAI_OK;
	}
	return PAI_EPROTOCOL;
}

int pai__kube_exec_status(int *exit_code, const void *data, size_t len,
			  pai__kube_err *err)
{
	json_error_t jerr;
	json_t *j = json_loadb(data, len, 0, &jerr);
	pai__kube_status st;
	int ret;

	*exit_code = -1;
	if (!j && json_error_code(&jerr) == json_error_out_of_memory)
		return PAI_ENOMEM;
	if (!json_is_object(j)) {
		json_decref(j);
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "exec: channel 3 holds no Status");
	}
	ret = pai__kube_status_from_json(&st, j, 0);
	json_decref(j);
	if (ret)
		return ret;
	if (st.status && strcmp(st.status, "Success") == 0)
		*exit_code = 0;
	else if (st.reason && strcmp(st.reason, "NonZeroExitCode") == 0) {
		if ((ret = exit_code_of(&st, exit_code)))
			pai__kube_fail(err, ret,
				       "exec: NonZeroExitCode without an exit "
				       "code");
	} else
		ret = pai__kube_fail(err, PAI_ERROR, "%s",
				     *st.message ? st.message
						 : "exec: the command failed");
	pai__kube_status_release(&st);
	return ret;
}
