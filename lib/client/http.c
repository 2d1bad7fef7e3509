/* http.c - one HTTP exchange on the client's libcurl handle: timeouts,
 * interruption, retries (with backoff, and Retry-After), the trace of
 * what goes and comes (trace.c), and the last error's detail, which
 * every layer of lib/client sets through it. Knows nothing of the
 * API's paths or JSON. */
#include "http.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* A response larger than this is refused rather than held in memory. */
#define MAX_BODY ((size_t)1 << 30)
/* Backoff: the n-th retry waits a random time in [0, min(CAP, BASE*2^n)]. */
#define BACKOFF_BASE_MS 250
#define BACKOFF_CAP_MS	10000
/* Longest message kept for the one-line error. */
#define MAX_MESSAGE 1000

struct xfer {
	pai_client *c;
	const pai__request *rq;
	pai__response *rs;
	int too_big;
	int body_traced;
};

void pai__response_release(pai__response *rs)
{
	if (!rs)
		return;
	pai__buf_release(&rs->body);
	free(rs->content_type);
	free(rs->location);
	free(rs->content_range);
	free(rs->etag);
	memset(rs, 0, sizeof(*rs));
}

long long pai__server_now_ms(const pai_client *c)
{
	if (!c->server_date_s)
		return 0;
	return c->server_date_s * 1000 + (pai__now_ms() - c->server_date_at_ms);
}

/* xorshift64*: jitter needs no cryptographic randomness */
static uint64_t next_random(pai_client *c)
{
	uint64_t x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ---- the last error's detail --------------------------------------- */

void pai__error_release(pai__error *e)
{
	free(e->code);
	free(e->msg);
	memset(e, 0, sizeof(*e));
}

void pai__client_reset_error(pai_client *c)
{
	c->status = 0;
	free(c->err_code);
	free(c->err_msg);
	c->err_code = c->err_msg = NULL;
}

void pai__client_save_error(pai_client *c, pai__error *saved)
{
	pai__error_release(saved);
	saved->status = c->status;
	saved->code = c->err_code;
	saved->msg = c->err_msg;
	c->status = 0;
	c->err_code = c->err_msg = NULL;
}

void pai__client_restore_error(pai_client *c, pai__error *saved)
{
	pai__client_reset_error(c);
	c->status = saved->status;
	c->err_code = saved->code;
	c->err_msg = saved->msg;
	memset(saved, 0, sizeof(*saved));
}

/* One line: control characters become spaces, runs of blanks one,
 * and at most MAX_MESSAGE bytes (cut at a character boundary). */
static char *one_line(const char *s)
{
	pai__buf b = PAI__BUF_INIT;
	int space = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == ' ') {
			space = b.len > 0;
			continue;
		}
		if (b.len >= MAX_MESSAGE && (ch & 0xC0) != 0x80) {
			pai__buf_puts(&b, "...");
			break;
		}
		if (space)
			pai__buf_putc(&b, ' ');
		space = 0;
		pai__buf_putc(&b, (char)ch);
	}
	return pai__buf_detach(&b);
}

int pai__client_fail(pai_client *c, int err, long status, const char *code,
		     const char *fmt, ...)
{
	pai__buf b = PAI__BUF_INIT;
	va_list ap;
	char *raw;

	pai__client_reset_error(c);
	c->status = status;
	if (code)
		c->err_code = strdup(code);
	va_start(ap, fmt);
	pai__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	raw = pai__buf_detach(&b);
	c->err_msg = raw ? one_line(raw) : NULL;
	free(raw);
	return err;
}

int pai__client_oom(pai_client *c)
{
	return pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
}

/* ---- libcurl's callbacks ---------------------------------------------- */

static int on_debug(CURL *h, curl_infotype type, char *data, size_t size,
		    void *ptr)
{
	struct xfer *x = ptr;
	pai_client *c = x->c;

	(void)h;
	/* libcurl's own re-send on a fresh connection (Curl_retry_request)
	 * says so only here */
	if (type == CURLINFO_TEXT && size > 24 &&
	    memmem(data, size, "retrying a fresh connect", 24))
		x->rs->resent = 1;
	if (!c->trace)
		return 0;
	switch (type) {
	case CURLINFO_TEXT:
		pai__trace_lines(c->trace, c->trace_data, "* ", data, size);
		break;
	case CURLINFO_HEADER_OUT:
		/* the trace masks "Authorization: Bearer ..." */
		pai__trace_lines(c->trace, c->trace_data, "> ", data, size);
		break;
	case CURLINFO_HEADER_IN:
		pai__trace_lines(c->trace, c->trace_data, "< ", data, size);
		break;
	case CURLINFO_DATA_OUT:
		/* the whole body at once, so that masking sees whole
		 * members even when libcurl sends it in pieces */
		if (!x->body_traced && x->rq->body)
			pai__trace_body(c->trace, c->trace_data, "> ",
					x->rq->body, x->rq->body_len);
		x->body_traced = 1;
		break;
	default: break;
	}
	return 0;
}

static size_t on_write(char *p, size_t size, size_t n, void *ptr)
{
	struct xfer *x = ptr;
	size_t len = size * n;

	if (len > MAX_BODY - x->rs->body.len) {
		x->too_big = 1;
		return 0;
	}
	pai__buf_put(&x->rs->body, p, len);
	return x->rs->body.oom ? 0 : len;
}

static char *header_value(const char *p, size_t len, const char *name)
{
	size_t n = strlen(name), e;

	if (len <= n || strncasecmp(p, name, n) != 0 || p[n] != ':')
		return NULL;
	p += n + 1;
	len -= n + 1;
	while (len && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	e = len;
	while (e && (p[e - 1] == '\r' || p[e - 1] == '\n' || p[e - 1] == ' '))
		e--;
	return strndup(p, e);
}

static void set_header(char **slot, char *v)
{
	if (!v)
		return;
	free(*slot);
	*slot = v;
}

/* Delta-seconds (Retry-After: 120) in ms; 0 for none or 0. */
static long long delta_ms(const char *v)
{
	char *end;
	long long s;

	if (*v < '0' || *v > '9')
		return 0;
	s = strtoll(v, &end, 10);
	if (*end)
		return 0;
	/* longer than any wait anyone takes, and no overflow below */
	return s > 0 ? (s < 1000000000LL ? s : 1000000000LL) * 1000 : 0;
}

static int month_of(const char *m)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int i;

	for (i = 0; i < 12; i++)
		if (strlen(m) == 3 && strncmp(m, names + 3 * i, 3) == 0)
			return i;
	return -1;
}

/* An HTTP date (RFC 9110 5.6.7: IMF-fixdate, or the obsolete RFC 850
 * and asctime forms, always GMT) in epoch seconds; 0 when v is none.
 * By hand: strptime's names would be the locale's. */
static long long http_date(const char *v)
{
	char wday[16], mon[4], zone[4];
	int d = 0, y = 0, h = 0, mi = 0, sec = 0, n = 0;
	struct tm tm;

	if (sscanf(v, "%15[A-Za-z], %2d %3s %4d %2d:%2d:%2d %3s%n", wday, &d,
		   mon, &y, &h, &mi, &sec, zone, &n) == 8 &&
	    !v[n] && strcmp(zone, "GMT") == 0)
		;
	else if (sscanf(v, "%15[A-Za-z], %2d-%3[A-Za-z]-%2d %2d:%2d:%2d %3s%n",
			wday, &d, mon, &y, &h, &mi, &sec, zone, &n) == 8 &&
		 !v[n] && strcmp(zone, "GMT") == 0)
		y += y < 70 ? 2000 : 1900; /* RFC 9110: the nearer century */
	else if (sscanf(v, "%15[A-Za-z] %3s %2d %2d:%2d:%2d %4d%n", wday, mon,
			&d, &h, &mi, &sec, &y, &n) == 7 &&
		 !v[n])
		;
	else
		return 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_mon = month_of(mon);
	if (tm.tm_mon < 0 || d < 1 || d > 31 || y < 1970 || y > 9999 ||
	    h > 23 || mi > 59 || sec > 60 || h < 0 || mi < 0 || sec < 0)
		return 0;
	tm.tm_mday = d;
	tm.tm_year = y - 1900;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	return (long long)timegm(&tm);
}

void pai__response_header(pai__response *rs, const char *p, size_t len)
{
	char *v;

	/* a new response (after 100 Continue): forget the last one's */
	if (len > 5 && strncmp(p, "HTTP/", 5) == 0) {
		free(rs->content_type);
		free(rs->content_range);
		free(rs->etag);
		rs->content_type = rs->content_range = rs->etag = NULL;
		rs->retry_after_ms = rs->retry_at_s = rs->date_s = 0;
		return;
	}
	set_header(&rs->content_type, header_value(p, len, "Content-Type"));
	set_header(&rs->content_range, header_value(p, len, "Content-Range"));
	set_header(&rs->etag, header_value(p, len, "ETag"));
	if ((v = header_value(p, len, "Retry-After"))) {
		rs->retry_after_ms = delta_ms(v);
		rs->retry_at_s = rs->retry_after_ms ? 0 : http_date(v);
		free(v);
	}
	if ((v = header_value(p, len, "Date"))) {
		rs->date_s = http_date(v);
		free(v);
	}
}

static size_t on_header(char *p, size_t size, size_t n, void *ptr)
{
	struct xfer *x = ptr;

	pai__response_header(x->rs, p, size * n);
	return size * n;
}

static int on_progress(void *ptr, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		       curl_off_t un)
{
	struct xfer *x = ptr;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return x->c->interrupt && *x->c->interrupt ? 1 : 0;
}

/* ---- one attempt ----------------------------------------------------------
 */

static int is_tls_error(CURLcode cc)
{
	switch (cc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE: return 1;
	default: return 0;
	}
}

/* Connection trouble worth another try of a safe request. */
static int is_transient(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM: return 1;
	default: return 0;
	}
}

static int transport_error(pai_client *c, const pai__request *rq,
			   struct xfer *x, CURLcode cc, int via_socket)
{
	char *host = pai__url_host(rq->url);
	const char *where = host ? host : rq->url;
	const char *why = c->errbuf[0] ? c->errbuf : curl_easy_strerror(cc);
	long os_errno = 0;
	int err;

	if (cc == CURLE_ABORTED_BY_CALLBACK) {
		err = pai__client_fail(c, PAI_EINTR, 0, NULL, "interrupted");
		goto out;
	}
	if (x->rs->body.oom) {
		err = pai__client_oom(c);
		goto out;
	}
	if (x->too_big) {
		err = pai__client_fail(c, PAI_ETOOBIG, 0, NULL,
				       "the response from %s is larger than "
				       "%zu bytes",
				       where, MAX_BODY);
		goto out;
	}
	if (is_tls_error(cc)) {
		err = pai__client_fail(c, PAI_ETLS, 0, NULL, "%s: %s", where,
				       why);
		goto out;
	}
	if (cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL) {
		err = pai__client_fail(c, PAI_EINVAL, 0, NULL,
				       "cannot use the URL '%s': %s", rq->url,
				       why);
		goto out;
	}
	curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &os_errno);
	if (via_socket && cc == CURLE_COULDNT_CONNECT && os_errno)
		err = pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
				       "cannot connect to '%s': %s",
				       c->unix_socket, strerror((int)os_errno));
	else if (is_transient(cc) || cc == CURLE_SSL_CONNECT_ERROR)
		err = pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL, "%s: %s",
				       where, why);
	else
		err = pai__client_fail(c, PAI_ERROR, 0, NULL, "%s: %s", where,
				       why);
out:
	free(host);
	return err;
}

/* The handle's options for one attempt at rq, its callbacks writing
 * into x. */
static void set_options(CURL *h, pai_client *c, const pai__request *rq,
			struct xfer *x, int via_socket)
{
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, rq->url);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	pai__curl_defaults(h);
	if (via_socket) {
		curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
		/* no $http_proxy between us and a local socket */
		curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	}
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	/* a transfer that moves nothing for stall_timeout_s fails */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, c->stall_timeout_s);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	/* redirects are the caller's: the token must not follow them */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	/* libcurl sends a request again by itself when a reused
	 * connection dies before any answer, which may be after the
	 * server acted on it: a submission never goes on a reused one */
	if (!rq->safe)
		curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
	/* --cacert: that CA, not that CA too */
	pai__curl_trust(h, c->ca_file, NULL, 0, c->insecure);
	pai__curl_keepalive(h);
	/* always: on_debug also notices libcurl re-sending a request */
	curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(h, CURLOPT_DEBUGDATA, x);
}

void pai__headers_free(struct curl_slist *hdrs)
{
	struct curl_slist *l;

	for (l = hdrs; l; l = l->next)
		if (l->data)
			pai__wipe(l->data, strlen(l->data));
	curl_slist_free_all(hdrs);
}

/* Appends line (then emptied, wiped) to *hdrs; -1 when out of memory. */
static int add_header(struct curl_slist **hdrs, pai__buf *line)
{
	struct curl_slist *t = NULL;

	if (!line->oom)
		t = curl_slist_append(*hdrs, line->data);
	pai__buf_wipe(line); /* a token, perhaps */
	if (!t)
		return -1;
	*hdrs = t;
	return 0;
}

/* rq's header lines: the token only to the client's own origin (same).
 * NULL when out of memory. */
static struct curl_slist *request_headers(const pai_client *c,
					  const pai__request *rq, int same)
{
	/* no 100-continue round trip before a body */
	struct curl_slist *hdrs = curl_slist_append(NULL, "Expect:");
	pai__buf line = PAI__BUF_INIT;
	int bad = !hdrs;

	if (!bad && c->token && same) {
		pai__buf_printf(&line, "Authorization: Bearer %s", c->token);
		bad = add_header(&hdrs, &line);
	}
	if (!bad && rq->body && rq->content_type) {
		pai__buf_printf(&line, "Content-Type: %s", rq->content_type);
		bad = add_header(&hdrs, &line);
	}
	if (!bad && rq->range) {
		pai__buf_printf(&line, "Range: %s", rq->range);
		bad = add_header(&hdrs, &line);
	}
	if (bad) {
		pai__headers_free(hdrs);
		return NULL;
	}
	return hdrs;
}

static void set_method(CURL *h, const pai__request *rq)
{
	if (strcmp(rq->method, "GET") == 0) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
		return;
	}
	if (strcmp(rq->method, "POST") == 0)
		curl_easy_setopt(h, CURLOPT_POST, 1L);
	else
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)(rq->body ? rq->body_len : 0));
}

/* After a transfer that completed: its status and redirect into rs. */
static int read_answer(pai_client *c, pai__response *rs)
{
	char *redirect = NULL;

	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &rs->status);
	if (curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &redirect) ==
		CURLE_OK &&
	    redirect && !(rs->location = strdup(redirect)))
		return pai__client_oom(c);
	if (c->trace)
		pai__trace_body(c->trace, c->trace_data, "< ", rs->body.data,
				rs->body.len);
	return PAI_OK;
}

/* 1 when url has the scheme, host and port of the client's URI: the
 * only origin its token goes to. */
static int same_origin(const pai_client *c, const char *url)
{
	char *scheme = NULL, *host = NULL;
	long port = 0;
	int same;

	if (!c->scheme || pai__url_split(url, &scheme, &host, &port))
		return 0;
	same = strcmp(scheme, c->scheme) == 0 && strcmp(host, c->host) == 0 &&
	       port == c->port;
	free(scheme);
	free(host);
	return same;
}

static int perform(pai_client *c, const pai__request *rq, pai__response *rs,
		   CURLcode *ccp, unsigned long *gen)
{
	CURL *h = c->curl;
	struct curl_slist *hdrs;
	struct xfer x = {c, rq, rs, 0, 0};
	int same = same_origin(c, rq->url);
	int via_socket = c->unix_socket && same, err;
	long req_size = 0;

	c->errbuf[0] = '\0';
	set_options(h, c, rq, &x, via_socket);
	if (!(hdrs = request_headers(c, rq, same)))
		return pai__client_oom(c);
	/* the module's credentials go to its own server only */
	if (c->wire && same &&
	    (err = c->wire->prepare(c->wire_data, c, h, &hdrs, gen))) {
		c->wire->finish(c->wire_data, h);
		pai__headers_free(hdrs);
		return err;
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	set_method(h, rq);

	*ccp = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &req_size);
	rs->sent = req_size > 0;
	if (*ccp != CURLE_OK)
		err = transport_error(c, rq, &x, *ccp, via_socket);
	else
		err = read_answer(c, rs);
	/* the handle must not point at this call's headers */
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	pai__headers_free(hdrs);
	if (c->wire && same)
		c->wire->finish(c->wire_data, h);
	return err;
}

static int sleep_interruptible(pai_client *c, long ms)
{
	while (ms > 0) {
		long step = ms > 50 ? 50 : ms;
		struct timespec ts = {0, step * 1000000L};

		if (c->interrupt && *c->interrupt)
			return PAI_EINTR;
		nanosleep(&ts, NULL);
		ms -= step;
	}
	return c->interrupt && *c->interrupt ? PAI_EINTR : PAI_OK;
}

/* The wait the server named in its answer (Retry-After of a 429 or a
 * 503), in ms from now; 0 for none. An HTTP date counts from the
 * answer's own Date, so that this machine's clock does not matter. */
static long long named_wait(const pai__response *rs, int err)
{
	long long base, ms;

	if (err != PAI_OK || (rs->status != 429 && rs->status != 503))
		return 0;
	if (rs->retry_after_ms > 0)
		return rs->retry_after_ms;
	if (!rs->retry_at_s)
		return 0;
	base = rs->date_s ? rs->date_s : (long long)time(NULL);
	ms = (rs->retry_at_s - base) * 1000;
	return ms > 0 ? ms : 0;
}

/* "90 s", "60 min", "2 h": a wait as people say it. */
static void say_wait(char *out, size_t len, long long ms)
{
	long long s = (ms + 999) / 1000;

	if (s < 120)
		snprintf(out, len, "%lld s", s);
	else if (s < 7200)
		snprintf(out, len, "%lld min", (s + 59) / 60);
	else
		snprintf(out, len, "%lld h", (s + 3599) / 3600);
}

/* A named wait longer than the client waits: the call fails at once,
 * saying what the server asked and what the client's limit is. */
static int wait_too_long(pai_client *c, const pai__request *rq,
			 const pai__response *rs, long long named)
{
	char *host = pai__url_host(rq->url);
	char asked[32], cap[32];
	int err;

	say_wait(asked, sizeof(asked), named);
	say_wait(cap, sizeof(cap), c->retry_max_ms);
	err = pai__client_fail(
	    c, PAI_EHTTP, rs->status, NULL,
	    "HTTP %ld %s from %s: the cluster %s wait %s before the next "
	    "request, longer than the client waits (%s)",
	    rs->status,
	    rs->status == 429 ? "Too Many Requests" : "Service Unavailable",
	    host ? host : rq->url,
	    rs->status == 429 ? "has a rate limit and asks to"
			      : "is unavailable and asks to",
	    asked, cap);
	free(host);
	return err;
}

/* How long to wait before sending rq again after this attempt (the
 * attempt-th retry), or -1 for not again. Safe requests are sent again
 * after a connection error or a 502/503/504, any after a 429: a rate
 * limit refuses a request before anything is done with it, so a
 * submission too. After a wait the server named, 0: hold() waits until
 * the client's not_before_ms; else exponential backoff with full
 * jitter. */
static long long retry_delay(pai_client *c, const pai__request *rq,
			     const pai__response *rs, int err, CURLcode cc,
			     int attempt, long long named)
{
	long long window;
	int retry;

	if (err == PAI_OK)
		retry =
		    rs->status == 502 || rs->status == 503 || rs->status == 504;
	else
		retry = err == PAI_EUNREACHABLE && is_transient(cc);
	if (!(retry && rq->safe) && !(err == PAI_OK && rs->status == 429))
		return -1;
	if (attempt >= c->max_retries)
		return -1;
	if (named > 0)
		return 0;
	window = BACKOFF_BASE_MS << (attempt < 10 ? attempt : 10);
	if (window > BACKOFF_CAP_MS)
		window = BACKOFF_CAP_MS;
	return (long long)(next_random(c) % (uint64_t)(window + 1));
}

static void trace_retry(pai_client *c, const pai__request *rq,
			const pai__response *rs, int err, long long delay)
{
	char note[160];

	if (!c->trace)
		return;
	snprintf(note, sizeof(note), "* retrying %s in %lld ms (%s)",
		 rq->method, delay,
		 err != PAI_OK	     ? "connection failed"
		 : rs->status == 429 ? "rate limited"
				     : "server busy");
	c->trace(c->trace_data, note);
}

/* A 401 to a credential the module can renew (a token file rewritten,
 * a plugin's token expired): sent again at once, once per call. */
static int renew_credential(pai_client *c, const pai__response *rs, int err,
			    unsigned long gen, int *renewed)
{
	if (err != PAI_OK || rs->status != 401 || !c->wire || *renewed ||
	    !c->wire->unauthorized(c->wire_data, gen))
		return 0;
	*renewed = 1;
	if (c->trace)
		c->trace(c->trace_data,
			 "* 401: the credential renewed, sending again");
	return 1;
}

/* Waits until the client's not_before_ms, saying so first (the callback,
 * the trace). PAI_OK, or PAI_EINTR with the detail set. */
static int hold(pai_client *c)
{
	long long wait = c->not_before_ms - pai__now_ms();
	char note[160];

	if (wait <= 0)
		return PAI_OK;
	if (c->on_retry_after)
		c->on_retry_after(c->on_retry_after_data, c->held_by, wait);
	if (c->trace) {
		snprintf(note, sizeof(note),
			 "* waiting %lld ms, as the server asked (HTTP %ld)",
			 wait, c->held_by);
		c->trace(c->trace_data, note);
	}
	if (sleep_interruptible(c, (long)wait) != PAI_OK)
		return pai__client_fail(c, PAI_EINTR, 0, NULL, "interrupted");
	return PAI_OK;
}

/* What an answer tells the client besides itself: the server's clock,
 * and a wait it names (PAI_EHTTP when longer than the client waits). */
static int take_note(pai_client *c, const pai__request *rq,
		     const pai__response *rs, int err, long long *named)
{
	if (err == PAI_OK && rs->date_s) {
		c->server_date_s = rs->date_s;
		c->server_date_at_ms = pai__now_ms();
	}
	*named = named_wait(rs, err);
	if (*named <= 0)
		return PAI_OK;
	if (*named > c->retry_max_ms)
		return wait_too_long(c, rq, rs, *named);
	c->not_before_ms = pai__now_ms() + *named;
	c->held_by = rs->status;
	return PAI_OK;
}

int pai__http(pai_client *c, const pai__request *rq, pai__response *rs)
{
	long long deadline = pai__now_ms() + c->retry_max_ms, delay, named;
	int attempt, err, renewed = 0;

	for (attempt = 0;; attempt++) {
		CURLcode cc = CURLE_OK;
		unsigned long gen = 0;

		pai__response_release(rs);
		pai__client_reset_error(c);
		if ((err = hold(c)))
			return err;
		err = c->transport ? c->transport(c->transport_data, c, rq, rs)
				   : perform(c, rq, rs, &cc, &gen);
		if (renew_credential(c, rs, err, gen, &renewed)) {
			attempt--;
			continue;
		}
		if (take_note(c, rq, rs, err, &named))
			return PAI_EHTTP;
		delay = retry_delay(c, rq, rs, err, cc, attempt, named);
		/* backoff within retry_max_ms; a named wait within it each */
		if (delay < 0 || (!named && pai__now_ms() + delay > deadline))
			break;
		trace_retry(c, rq, rs, err, named ? named : delay);
		if (sleep_interruptible(c, (long)delay) != PAI_OK) {
			pai__response_release(rs);
			return pai__client_fail(c, PAI_EINTR, 0, NULL,
						"interrupted");
		}
	}
	return err;
}
