/* http.c - one HTTP exchange on the client's libcurl handle: timeouts,
 * interruption, retries of safe requests, and a trace with secrets
 * masked. Knows nothing of the API's paths or JSON. */
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
/* Trace at most this much of a body. */
#define TRACE_BODY_MAX 2048
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
	memset(rs, 0, sizeof(*rs));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

void pai__error_move(pai__error *to, pai__error *from)
{
	pai__error_release(to);
	*to = *from;
	memset(from, 0, sizeof(*from));
}

void pai__client_reset_error(pai_client *c)
{
	pai__error_release(&c->err);
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
	c->err.status = status;
	if (code)
		c->err.code = strdup(code);
	va_start(ap, fmt);
	pai__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	raw = pai__buf_detach(&b);
	c->err.msg = raw ? one_line(raw) : NULL;
	free(raw);
	return err;
}

int pai__client_oom(pai_client *c)
{
	return pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
}

/* ---- URLs ------------------------------------------------------------ */

void pai__buf_put_escaped(pai__buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (isalnum(ch) || ch == '-' || ch == '.' || ch == '_' ||
		    ch == '~')
			pai__buf_putc(b, (char)ch);
		else {
			char e[3] = {'%', hex[ch >> 4], hex[ch & 15]};

			pai__buf_put(b, e, 3);
		}
	}
}

int pai__url_split(const char *url, char **scheme, char **host, long *port)
{
	CURLU *u = curl_url();
	char *s = NULL, *h = NULL, *p = NULL;
	int ret = PAI_EINVAL;
	size_t i;

	*scheme = *host = NULL;
	*port = 0;
	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &s, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) !=
		CURLUE_OK)
		goto out;
	*scheme = strdup(s);
	*host = strdup(h);
	if (!*scheme || !*host) {
		free(*scheme);
		free(*host);
		*scheme = *host = NULL;
		ret = PAI_ENOMEM;
		goto out;
	}
	for (i = 0; (*scheme)[i]; i++)
		(*scheme)[i] = (char)tolower((unsigned char)(*scheme)[i]);
	for (i = 0; (*host)[i]; i++)
		(*host)[i] = (char)tolower((unsigned char)(*host)[i]);
	*port = strtol(p, NULL, 10);
	ret = PAI_OK;
out:
	curl_free(s);
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
	return ret;
}

int pai__same_origin(const pai_client *c, const char *url)
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

int pai__url_origin(char **out, const char *url)
{
	char *scheme = NULL, *host = NULL;
	pai__buf b = PAI__BUF_INIT;
	long port = 0;
	int err;

	*out = NULL;
	if ((err = pai__url_split(url, &scheme, &host, &port)))
		return err;
	pai__buf_printf(&b, "%s://%s:%ld", scheme, host, port);
	*out = pai__buf_detach(&b);
	free(scheme);
	free(host);
	return *out ? PAI_OK : PAI_ENOMEM;
}

char *pai__url_host(const char *url)
{
	CURLU *u = curl_url();
	char *h = NULL, *p = NULL, *ret = NULL;
	pai__buf b = PAI__BUF_INIT;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK)
		goto out;
	pai__buf_puts(&b, h);
	if (curl_url_get(u, CURLUPART_PORT, &p, 0) == CURLUE_OK && p)
		pai__buf_printf(&b, ":%s", p);
	ret = pai__buf_detach(&b);
out:
	pai__buf_release(&b);
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
	return ret;
}

/* ---- tracing ----------------------------------------------------------- */

static int is_secret_key(const char *k, size_t n)
{
	static const char *const keys[] = {"password", "passwd", "token",
					   "secret", "privateKey"};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i]) == n && strncasecmp(k, keys[i], n) == 0)
			return 1;
	return 0;
}

/* A YAML line "  key: value" whose key is a secret (the value masked),
 * or a top-level "secrets:" (every line indented under it masked).
 * Returns the offset after what was written to b, or i when the line at
 * i is neither. */
static size_t yaml_secret_line(pai__buf *b, const char *text, size_t len,
			       size_t i)
{
	size_t k = i, e;

	while (k < len && text[k] == ' ')
		k++;
	e = k;
	while (e < len && (isalnum((unsigned char)text[e]) || text[e] == '_'))
		e++;
	if (e == k || e >= len || text[e] != ':' ||
	    (e + 1 < len && text[e + 1] != ' ' && text[e + 1] != '\n'))
		return i;
	if (k == i && e - k == 7 && strncmp(text + k, "secrets", 7) == 0) {
		/* the whole block: to the next line that is not indented */
		pai__buf_put(b, text + i, e + 1 - i);
		pai__buf_puts(b, " ***");
		while (e < len && !(text[e] == '\n' && e + 1 < len &&
				     text[e + 1] != ' ' && text[e + 1] != '\n'))
			e++;
		return e;
	}
	if (!is_secret_key(text + k, e - k))
		return i;
	pai__buf_put(b, text + i, e + 1 - i);
	pai__buf_puts(b, " ***");
	while (e < len && text[e] != '\n')
		e++;
	return e;
}


/* key=value in a form or a URL's query at i (its start, or after '&'
 * or '?'): a secret's value masked. Returns the offset after it. */
static size_t form_field_masked(pai__buf *b, const char *text, size_t len,
				size_t i)
{
	size_t k = i;

	while (k < len && isalpha((unsigned char)text[k]))
		k++;
	if (k < len && text[k] == '=' && is_secret_key(text + i, k - i)) {
		pai__buf_put(b, text + i, k - i + 1);
		pai__buf_puts(b, "***");
		for (i = k + 1; i < len && text[i] != '&';)
			i++;
		return i;
	}
	pai__buf_put(b, text + i, k - i);
	return k;
}

/* s copied with the values of secret query parameters ("?token=..." or
 * "&token=...", as in a log-manager location inside a JSON string)
 * masked. */
static void put_query_masked(pai__buf *b, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		char ch = s[i++];

		pai__buf_putc(b, ch);
		if ((ch == '?' || ch == '&') && i < n &&
		    isalpha((unsigned char)s[i]))
			i = form_field_masked(b, s, n, i);
	}
}


/* A JSON string at i: a secret member's value masked ("password":
 * "***"), any other string copied with its query's secrets masked.
 * Returns the offset after what was written. */
static size_t json_string_masked(pai__buf *b, const char *text, size_t len,
				 size_t i)
{
	size_t k = i + 1, j, e;

	while (k < len && text[k] != '"' && text[k] != '\\')
		k++;
	if (k < len && text[k] == '"' &&
	    is_secret_key(text + i + 1, k - i - 1)) {
		j = k + 1;
		while (j < len && isspace((unsigned char)text[j]))
			j++;
		if (j < len && text[j] == ':') {
			j++;
			while (j < len && isspace((unsigned char)text[j]))
				j++;
		} else
			j = len; /* a string, not a member's name */
		if (j < len && text[j] == '"') {
			for (e = j + 1; e < len && text[e] != '"';)
				e += text[e] == '\\' ? 2 : 1;
			pai__buf_put(b, text + i, j - i);
			pai__buf_puts(b, "\"***\"");
			return e < len ? e + 1 : len;
		}
	}
	put_query_masked(b, text + i, k - i);
	return k;
}

char *pai__mask_secrets(const char *text, size_t len)
{
	pai__buf b = PAI__BUF_INIT;
	size_t i = 0, j;

	while (i < len) {
		/* a YAML body's secrets, at a line's start */
		if ((i == 0 || text[i - 1] == '\n') &&
		    (j = yaml_secret_line(&b, text, len, i)) != i)
			i = j;
		else if (text[i] == '"') /* "key" : "value" in JSON */
			i = json_string_masked(&b, text, len, i);
		else if ((i == 0 || text[i - 1] == '&' || text[i - 1] == '?') &&
			 isalpha((unsigned char)text[i]))
			i = form_field_masked(&b, text, len, i);
		else if (len - i > 7 &&
			 strncasecmp(text + i, "Bearer ", 7) == 0) {
			/* Bearer <token> anywhere */
			pai__buf_put(&b, text + i, 7);
			for (i += 7; i < len && !isspace((unsigned char)text[i]) &&
				     text[i] != '"';)
				i++;
			pai__buf_puts(&b, "***");
		} else
			pai__buf_putc(&b, text[i++]);
	}
	return pai__buf_detach(&b);
}

static void trace_line(pai_client *c, const char *prefix, const char *s,
		       size_t n)
{
	pai__buf b = PAI__BUF_INIT;
	char *masked = pai__mask_secrets(s, n), *line;

	pai__buf_puts(&b, prefix);
	if (masked)
		pai__buf_puts(&b, masked);
	free(masked);
	line = pai__buf_detach(&b);
	if (line)
		c->trace(c->trace_data, line);
	free(line);
}

/* Each line of text (headers, a body) with its prefix. */
static void trace_lines(pai_client *c, const char *prefix, const char *s,
			size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t e = i;

		while (e < n && s[e] != '\n')
			e++;
		if (e > i || e < n) {
			size_t k = e;

			while (k > i && s[k - 1] == '\r')
				k--;
			if (k > i)
				trace_line(c, prefix, s + i, k - i);
		}
		i = e + 1;
	}
}

static void trace_body(pai_client *c, const char *prefix, const char *s,
		       size_t n)
{
	char note[64];

	if (!n)
		return;
	trace_lines(c, prefix, s, n > TRACE_BODY_MAX ? TRACE_BODY_MAX : n);
	if (n > TRACE_BODY_MAX) {
		snprintf(note, sizeof(note), "[%zu more bytes]",
			 n - TRACE_BODY_MAX);
		trace_line(c, prefix, note, strlen(note));
	}
}

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
	case CURLINFO_TEXT: trace_lines(c, "* ", data, size); break;
	case CURLINFO_HEADER_OUT:
		/* trace_line masks "Authorization: Bearer ..." */
		trace_lines(c, "> ", data, size);
		break;
	case CURLINFO_HEADER_IN: trace_lines(c, "< ", data, size); break;
	case CURLINFO_DATA_OUT:
		/* the whole body at once, so that masking sees whole
		 * members even when libcurl sends it in pieces */
		if (!x->body_traced && x->rq->body)
			trace_body(c, "> ", x->rq->body, x->rq->body_len);
		x->body_traced = 1;
		break;
	default: break;
	}
	return 0;
}

/* ---- callbacks ---------------------------------------------------------- */

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

void pai__response_header(pai__response *rs, const char *p, size_t len)
{
	char *v;

	/* a new response (after 100 Continue): forget the last one's */
	if (len > 5 && strncmp(p, "HTTP/", 5) == 0) {
		free(rs->content_type);
		free(rs->content_range);
		rs->content_type = rs->content_range = NULL;
		rs->retry_after_s = 0;
		return;
	}
	set_header(&rs->content_type, header_value(p, len, "Content-Type"));
	set_header(&rs->content_range, header_value(p, len, "Content-Range"));
	v = header_value(p, len, "Retry-After");
	if (v) {
		char *end;
		long s = strtol(v, &end, 10);

		/* only delta-seconds; an HTTP date is not worth parsing */
		if (end != v && !*end && s > 0)
			rs->retry_after_s = s;
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

static int perform(pai_client *c, const pai__request *rq, pai__response *rs,
		   CURLcode *ccp)
{
	CURL *h = c->curl;
	struct curl_slist *hdrs = NULL, *t;
	struct xfer x;
	pai__buf auth = PAI__BUF_INIT, line = PAI__BUF_INIT;
	int same = pai__same_origin(c, rq->url), via_socket, err = PAI_OK;
	long req_size = 0;
	char *redirect = NULL;
	CURLcode cc;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.rq = rq;
	x.rs = rs;
	c->errbuf[0] = '\0';
	via_socket = c->unix_socket && same;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, rq->url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "paictl/" PAI_VERSION);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
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
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, &x);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
	/* redirects are the caller's: the token must not follow them */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->insecure ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->insecure ? 0L : 2L);
	if (c->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	/* always: on_debug also notices libcurl re-sending a request */
	curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(h, CURLOPT_DEBUGDATA, &x);

	/* no 100-continue round trip before a body */
	hdrs = curl_slist_append(hdrs, "Expect:");
	if (c->token && same) {
		pai__buf_printf(&auth, "Authorization: Bearer %s", c->token);
		if (auth.oom || !(t = curl_slist_append(hdrs, auth.data)))
			goto oom;
		hdrs = t;
	}
	if (rq->body && rq->content_type) {
		pai__buf_printf(&line, "Content-Type: %s", rq->content_type);
		if (line.oom || !(t = curl_slist_append(hdrs, line.data)))
			goto oom;
		hdrs = t;
		pai__buf_release(&line);
	}
	if (rq->range) {
		pai__buf_printf(&line, "Range: %s", rq->range);
		if (line.oom || !(t = curl_slist_append(hdrs, line.data)))
			goto oom;
		hdrs = t;
	}
	if (!hdrs)
		goto oom;
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);

	if (strcmp(rq->method, "GET") == 0)
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	else {
		if (strcmp(rq->method, "POST") == 0)
			curl_easy_setopt(h, CURLOPT_POST, 1L);
		else
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS,
				 rq->body ? rq->body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(rq->body ? rq->body_len : 0));
	}

	cc = curl_easy_perform(h);
	*ccp = cc;
	curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &req_size);
	rs->sent = req_size > 0;
	if (cc != CURLE_OK) {
		err = transport_error(c, rq, &x, cc, via_socket);
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &rs->status);
	if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &redirect) ==
		CURLE_OK &&
	    redirect && !(rs->location = strdup(redirect)))
		goto oom;
	if (c->trace)
		trace_body(c, "< ", rs->body.data, rs->body.len);
	goto out;
oom:
	err = pai__client_oom(c);
out:
	/* the handle must not point at this call's stack or headers */
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	if (auth.data)
		memset(auth.data, 0, auth.len);
	pai__buf_release(&auth);
	pai__buf_release(&line);
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

int pai__http(pai_client *c, const pai__request *rq, pai__response *rs)
{
	long long deadline = now_ms() + c->retry_max_ms;
	int attempt, err;

	for (attempt = 0;; attempt++) {
		CURLcode cc = CURLE_OK;
		long long window, delay;
		int retry;

		pai__response_release(rs);
		pai__client_reset_error(c);
		err = c->transport ? c->transport(c->transport_data, c, rq, rs)
				   : perform(c, rq, rs, &cc);
		if (err == PAI_OK)
			retry = rs->status == 502 || rs->status == 503 ||
				rs->status == 504;
		else
			retry = err == PAI_EUNREACHABLE && is_transient(cc);
		/* a rate limit refuses a request before anything is done
		 * with it: safe to send again, a submission too */
		if (!(retry && rq->safe) &&
		    !(err == PAI_OK && rs->status == 429))
			break;
		if (attempt >= c->max_retries)
			break;
		window = BACKOFF_BASE_MS << (attempt < 10 ? attempt : 10);
		if (window > BACKOFF_CAP_MS)
			window = BACKOFF_CAP_MS;
		delay = (long long)(next_random(c) % (uint64_t)(window + 1));
		if (err == PAI_OK && rs->retry_after_s > 0 &&
		    rs->retry_after_s * 1000LL > delay)
			delay = rs->retry_after_s * 1000LL;
		if (now_ms() + delay > deadline)
			break;
		if (c->trace) {
			char note[160];

			snprintf(note, sizeof(note),
				 "* retrying %s in %lld ms (%s)", rq->method,
				 delay,
				 err != PAI_OK		? "connection failed"
				 : rs->status == 429 ? "rate limited"
						     : "server busy");
			c->trace(c->trace_data, note);
		}
		if (sleep_interruptible(c, (long)delay) != PAI_OK) {
			pai__response_release(rs);
			return pai__client_fail(c, PAI_EINTR, 0, NULL,
						"interrupted");
		}
	}
	return err;
}
