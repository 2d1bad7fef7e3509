/* kube_ws.c - RFC 6455 for exec (§7), as pure functions over buffers:
 * client frames (always masked), the server's frames decoded into
 * messages (never masked, continuations reassembled, control frames
 * checked), the handshake's key and its 101's checks, and what channel
 * 3 says about the command's end. The upgrade's HTTP is the client's
 * (client/upgrade.c), kube_exec.c does the I/O; the fuzzer feeds these
 * directly. */
#include "kube.h"

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

int pai__kube_ws_check_101(int upgrade_ok, const char *accept,
			   const char *protocol, const char *key,
			   pai__kube_err *err)
{
	char want[29];

	if (!upgrade_ok)
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "the server's 101 lacks Upgrade: "
				      "websocket");
	pai__kube_ws_accept(want, key);
	if (!accept || strcmp(accept, want) != 0)
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "the server's Sec-WebSocket-Accept is "
				      "wrong");
	if (protocol && strcmp(protocol, "v5.channel.k8s.io") == 0)
		return 5;
	if (protocol && strcmp(protocol, "v4.channel.k8s.io") == 0)
		return 4;
	return pai__kube_fail(
	    err, PAI_EPROTOCOL, "the server chose %s subprotocol (offered: %s)",
	    protocol ? "another" : "no", PAI__KUBE_WS_PROTOCOLS);
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
