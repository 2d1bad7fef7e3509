/* fuzz_kube_wire.c - libFuzzer target for what a Kubernetes API server
 * (or whatever answers in its place) sends: Status and other error
 * bodies, the watch stream, the log stream, WebSocket frames and the
 * upgrade's answer (read by the client's transport, lib/client/
 * upgrade.c and response.c), channel 3's Status, an exec plugin's
 * output (lib/client/kube). Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the parser, byte 1 how the rest is cut into
 * chunks; the rest is the stream. Checks: each stream gives the same
 * result whether it comes whole or cut at every chunk boundary the
 * input chose (a watch's events, a log's text, a WebSocket's
 * messages), details are one printable line, and messages, causes and
 * results keep the promises of kube.h. */
#include "check.h"
#include "client/kube/kube.h"
#include "client/upgrade.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_line(const char *s)
{
	for (; s && *s; s++)
		CHECK((unsigned char)*s >= 0x20 && *s != 0x7f);
}

/* Chunk i's size: from the cut byte, 1..64. */
static size_t chunk(uint8_t cut, size_t i, size_t left)
{
	size_t n = 1 + ((cut * (i + 7)) % 64);

	return n < left ? n : left;
}

static void fuzz_status(uint8_t cut, const uint8_t *d, size_t n)
{
	static const char *const types[] = {"application/json", "text/plain",
					    "text/html", NULL};
	static const long codes[] = {404, 422, 429, 500};
	pai__kube_status st;
	char *causes;
	size_t i;

	if (pai__kube_status_parse(&st, codes[cut & 3], types[(cut >> 2) & 3],
				   (const char *)d, n, cut >> 4) != PAI_OK)
		return;
	CHECK(st.message);
	check_line(st.message);
	CHECK(st.code >= 100 && st.code <= 599);
	CHECK(pai__kube_status_error(&st) != PAI_OK);
	causes = pai__kube_status_causes(&st);
	CHECK(!causes == !st.ncauses);
	CHECK(!causes || causes[strlen(causes) - 1] == '\n');
	for (i = 0; i < st.ncauses; i++)
		check_line(st.causes[i].message);
	free(causes);
	pai__kube_status_release(&st);
}

/* The events of a watch stream as one text, fed in chunks or whole. */
static int watch_events(pai__buf *out, uint8_t cut, const uint8_t *d, size_t n,
			int whole)
{
	pai__kube_watch *w;
	pai__kube_event ev;
	pai__kube_err e;
	size_t off = 0, i, k;
	int r = 0, end = 0;

	CHECK(pai__kube_watch_new(&w, 4096) == PAI_OK);
	for (i = 0; !end; i++) {
		k = whole ? n - off : chunk(cut, i, n - off);
		if ((r = pai__kube_watch_feed(w, d + off, k, &e)))
			break;
		off += k;
		if (off == n) {
			pai__kube_watch_eof(w);
			end = 1;
		}
		while ((r = pai__kube_watch_next(w, &ev, &e)) == 1) {
			CHECK(ev.object && ev.type >= PAI__KW_ADDED &&
			      ev.type <= PAI__KW_ERROR);
			pai__buf_printf(
			    out, "%d %s %d|", ev.type,
			    ev.resource_version ? ev.resource_version : "-",
			    ev.expired);
			pai__kube_event_release(&ev);
		}
		if (r < 0)
			break;
	}
	if (r < 0 && r != PAI_ENOMEM)
		check_line(e.msg);
	pai__kube_watch_free(w);
	return r < 0 ? r : 0;
}

static void fuzz_watch(uint8_t cut, const uint8_t *d, size_t n)
{
	pai__buf a = PAI__BUF_INIT, b = PAI__BUF_INIT;
	int ra = watch_events(&a, cut, d, n, 0);
	int rb = watch_events(&b, cut, d, n, 1);

	/* a too-long event is found by feed or by next, as cut */
	if (ra != PAI_ETOOBIG && rb != PAI_ETOOBIG) {
		CHECK(ra == rb);
		CHECK(a.len == b.len &&
		      (!a.len || !memcmp(a.data, b.data, a.len)));
	}
	pai__buf_release(&a);
	pai__buf_release(&b);
}

/* A log stream's text as the user would see it. */
static void log_text(pai__buf *out, uint8_t cut, const uint8_t *d, size_t n,
		     int whole)
{
	pai__kube_log *l;
	pai__kube_log_line ln;
	size_t off = 0, i, k;

	CHECK(pai__kube_log_new(&l, cut & 1, 64 + (cut & 0x3f)) == PAI_OK);
	for (i = 0; off < n; i++) {
		k = whole ? n - off : chunk(cut, i, n - off);
		CHECK(pai__kube_log_feed(l, d + off, k) == PAI_OK);
		off += k;
		while (pai__kube_log_next(l, &ln) == 1) {
			CHECK(!ln.ts || (ln.ts_len >= 20 && ln.ts_len <= 35));
			pai__buf_put(out, ln.text, ln.len);
			if (ln.newline)
				pai__buf_putc(out, '\n');
		}
	}
	pai__kube_log_end(l);
	while (pai__kube_log_next(l, &ln) == 1)
		pai__buf_put(out, ln.text, ln.len);
	pai__kube_log_free(l);
}

/* A stream that drops, then comes again from the start: a resume
 * prints no line twice and loses none, so the text is what one
 * unbroken stream gives. */
static void log_resumed(pai__buf *out, uint8_t cut, const uint8_t *d, size_t n)
{
	pai__kube_log *l;
	pai__kube_log_line ln;
	size_t drop = n ? (cut * 131u) % n : 0;
	char since[32];

	CHECK(pai__kube_log_new(&l, 1, 64 + (cut & 0x3f)) == PAI_OK);
	CHECK(pai__kube_log_feed(l, d, drop) == PAI_OK);
	while (pai__kube_log_next(l, &ln) == 1) {
		pai__buf_put(out, ln.text, ln.len);
		if (ln.newline)
			pai__buf_putc(out, '\n');
	}
	pai__kube_log_resume(l);
	if (pai__kube_log_since(l, since))
		CHECK(strlen(since) == 20 && since[19] == 'Z');
	CHECK(pai__kube_log_feed(l, d, n) == PAI_OK);
	pai__kube_log_end(l);
	while (pai__kube_log_next(l, &ln) == 1) {
		pai__buf_put(out, ln.text, ln.len);
		if (ln.newline)
			pai__buf_putc(out, '\n');
	}
	pai__kube_log_free(l);
}

/* 1 when d is a log whose timestamps never go back: only then can a
 * resume tell what it printed. */
static int ordered_log(const uint8_t *d, size_t n)
{
	pai__kube_time t, last = {0, 0};
	const char *p = (const char *)d, *e, *end = p + n;
	size_t k;

	for (; p < end; p = e + 1) {
		if (!(e = memchr(p, '\n', (size_t)(end - p))))
			return 0; /* a last line cut: pieces aside */
		k = pai__kube_time_parse(&t, p, (size_t)(e - p));
		if (!k || p[k] != ' ' || pai__kube_time_cmp(&t, &last) < 0 ||
		    (size_t)(e - p) > 60)
			return 0;
		last = t;
	}
	return 1;
}

static void fuzz_log(uint8_t cut, const uint8_t *d, size_t n)
{
	pai__buf a = PAI__BUF_INIT, b = PAI__BUF_INIT;

	log_text(&a, cut, d, n, 0);
	log_text(&b, cut, d, n, 1);
	CHECK(a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)));
	if ((cut & 1) && ordered_log(d, n)) {
		pai__buf_release(&a);
		log_resumed(&a, cut | 1, d, n);
		CHECK(a.len == b.len &&
		      (!a.len || !memcmp(a.data, b.data, a.len)));
	}
	pai__buf_release(&a);
	pai__buf_release(&b);
}

/* A server's frames decoded into messages, one text. */
static int ws_messages(pai__buf *out, uint8_t cut, const uint8_t *d, size_t n,
		       int whole)
{
	pai__kube_ws_dec dec;
	pai__kube_ws_msg m;
	pai__kube_err e;
	size_t off = 0, i, k;
	int r = 0, cc;

	pai__kube_ws_dec_init(&dec, 1000);
	for (i = 0; off < n && r >= 0; i++) {
		k = whole ? n - off : chunk(cut, i, n - off);
		CHECK(pai__kube_ws_dec_feed(&dec, d + off, k) == PAI_OK);
		off += k;
		while ((r = pai__kube_ws_dec_next(&dec, &m, &cc, &e)) == 1) {
			CHECK(m.opcode == 1 || m.opcode == 2 || m.opcode >= 8);
			CHECK(m.opcode < 8 || m.len <= 125);
			pai__buf_printf(out, "%d:%zu|", m.opcode, m.len);
			pai__buf_put(out, (const char *)m.data, m.len);
		}
	}
	if (r < 0) {
		CHECK(cc == 1002 || cc == 1009);
		check_line(e.msg);
	}
	pai__kube_ws_dec_release(&dec);
	return r;
}

static void fuzz_ws(uint8_t cut, const uint8_t *d, size_t n)
{
	pai__buf a = PAI__BUF_INIT, b = PAI__BUF_INIT;
	int ra = ws_messages(&a, cut, d, n, 0);
	int rb = ws_messages(&b, cut, d, n, 1);

	CHECK(ra == rb);
	CHECK(a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)));
	pai__buf_release(&a);
	pai__buf_release(&b);
}

/* An upgrade's answer as the client's transport reads it
 * (client/upgrade.h): its head, the 101's checks, a refusal's body. */
static void fuzz_http(uint8_t cut, const uint8_t *d, size_t n)
{
	pai__response rs = PAI__RESPONSE_INIT;
	pai__http1_head h = {-1, 0, 0, NULL, NULL};
	pai__buf body = PAI__BUF_INIT;
	pai__kube_err e;
	size_t hl;
	int r = pai__http1_read_head(&rs, &h, &hl, (const char *)d, n);

	CHECK(r == 1 || r == 0 || r == PAI_EPROTOCOL);
	if (r != 1)
		goto out;
	CHECK(hl <= n && rs.status >= 100 && rs.status <= 999);
	/* response.c's values: trimmed, one line, whatever the spacing */
	CHECK(!rs.content_type ||
	      (!strpbrk(rs.content_type, "\r\n") &&
	       (!*rs.content_type ||
		(rs.content_type[0] != ' ' && rs.content_type[0] != '\t' &&
		 rs.content_type[strlen(rs.content_type) - 1] != ' '))));
	if (rs.status == 101) {
		r = pai__kube_ws_check_101(h.upgrade_ok, h.accept, h.protocol,
					   "dGhlIHNhbXBsZSBub25jZQ==", &e);
		CHECK(r == 4 || r == 5 || r == PAI_EPROTOCOL);
		if (r < 0)
			check_line(e.msg);
	}
	r = pai__http1_read_body(&body, &h, (const char *)d + hl, n - hl,
				 cut & 1, 4096);
	CHECK(r == 1 || r == 0 || r == PAI_EPROTOCOL || r == PAI_ETOOBIG);
	CHECK(r == 1 || !body.len);
	CHECK(body.len <= n - hl);
out:
	pai__buf_release(&body);
	pai__http1_head_release(&h);
	pai__response_release(&rs);
}

static void fuzz_small(uint8_t cut, const uint8_t *d, size_t n)
{
	pai__kube_plugin_out o;
	pai__kube_err e;
	int code, r;

	if (cut & 1) {
		r = pai__kube_exec_status(&code, d, n, &e);
		CHECK(r == PAI_OK || r == PAI_ERROR || r == PAI_EPROTOCOL);
		CHECK(r != PAI_OK || code >= 0);
		if (r)
			check_line(e.msg);
		return;
	}
	r = pai__kube_plugin_parse(&o, "client.authentication.k8s.io/v1",
				   (const char *)d, n, &e);
	CHECK(r == PAI_OK || r == PAI_EAUTH);
	if (r == PAI_OK) {
		CHECK(o.token || (o.cert && o.key));
		pai__kube_plugin_out_release(&o);
	} else
		check_line(e.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	switch (data[0] % 6) {
	case 0: fuzz_status(data[1], data + 2, size - 2); break;
	case 1: fuzz_watch(data[1], data + 2, size - 2); break;
	case 2: fuzz_log(data[1], data + 2, size - 2); break;
	case 3: fuzz_ws(data[1], data + 2, size - 2); break;
	case 4: fuzz_http(data[1], data + 2, size - 2); break;
	default: fuzz_small(data[1], data + 2, size - 2); break;
	}
	return 0;
}
