/* http.c - one HTTP exchange read whole (a REST request) on the
 * client's libcurl handle: the connection as conn.c sets every one up,
 * interruption, retries (with backoff, and the holds of hold.c), and
 * the trace of what goes and comes (trace.c). Knows nothing of the
 * API's paths or JSON. */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A response larger than this is refused rather than held in memory. */
#define MAX_BODY ((size_t)1 << 30)
/* Backoff: the n-th retry waits a random time in [0, min(CAP, BASE*2^n)]. */
#define BACKOFF_BASE_MS 250
#define BACKOFF_CAP_MS	10000

struct xfer {
	pai_client *c;
	const pai__request *rq;
	pai__response *rs;
	int too_big;
	int body_traced;
};

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
	case CURLINFO_TEXT: pai__trace_lines(pai__trace_to, c, "* ", data, size); break;
	case CURLINFO_HEADER_OUT:
		/* the trace masks "Authorization: Bearer ..." */
		pai__trace_lines(pai__trace_to, c, "> ", data, size);
		break;
	case CURLINFO_HEADER_IN:
		pai__trace_lines(pai__trace_to, c, "< ", data, size);
		break;
	case CURLINFO_DATA_OUT:
		/* the whole body at once, so that masking sees whole
		 * members even when libcurl sends it in pieces */
		if (!x->body_traced && x->rq->body)
			pai__trace_body(pai__trace_to, c, "> ", x->rq->body,
					x->rq->body_len);
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
	/* a key, a token: wiped as the body grows and when released */
	if (x->rq->secret)
		x->rs->body.secret = 1;
	pai__buf_put(&x->rs->body, p, len);
	return x->rs->body.oom ? 0 : len;
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

/* ---- what went wrong -------------------------------------------------- */

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

int pai__transient(int cc)
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

int pai__transfer_error(pai_client *c, CURL *h, const char *url, int cc,
			int via_socket, const char *errbuf)
{
	char *host = pai__url_host(url);
	const char *where = host ? host : url;
	const char *why =
	    errbuf && errbuf[0] ? errbuf : curl_easy_strerror((CURLcode)cc);
	long os_errno = 0;
	int err;

	curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
	if (cc == CURLE_ABORTED_BY_CALLBACK)
		err = pai__client_fail(c, PAI_EINTR, 0, NULL, "interrupted");
	else if (is_tls_error((CURLcode)cc))
		err = pai__client_fail(c, PAI_ETLS, 0, NULL, "%s: %s", where,
				       why);
	else if (cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL)
		err = pai__client_fail(c, PAI_EINVAL, 0, NULL,
				       "cannot use the URL '%s': %s", url, why);
	else if (via_socket && cc == CURLE_COULDNT_CONNECT && os_errno)
		err = pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL,
				       "cannot connect to '%s': %s",
				       c->unix_socket, strerror((int)os_errno));
	else if (pai__transient(cc))
		err = pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL, "%s: %s",
				       where, why);
	else
		err = pai__client_fail(c, PAI_ERROR, 0, NULL, "%s: %s", where,
				       why);
	free(host);
	return err;
}

/* An attempt that failed before its answer was read whole. */
static int attempt_error(pai_client *c, const pai__request *rq,
			 const struct xfer *x, CURLcode cc, int via_socket)
{
	char *host;
	int err;

	if (x->rs->body.oom)
		return pai__client_oom(c);
	if (!x->too_big)
		return pai__transfer_error(c, c->curl, rq->url, cc, via_socket,
					   c->errbuf);
	host = pai__url_host(rq->url);
	err = pai__client_fail(c, PAI_ETOOBIG, 0, NULL,
			       "the response from %s is larger than %zu bytes",
			       host ? host : rq->url, MAX_BODY);
	free(host);
	return err;
}

/* ---- one attempt -------------------------------------------------------- */

/* The handle's options for one attempt at rq, beside its connection's:
 * its callbacks writing into x. */
static void set_options(CURL *h, pai_client *c, const pai__request *rq,
			struct xfer *x)
{
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
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
	/* libcurl sends a request again by itself when a reused
	 * connection dies before any answer, which may be after the
	 * server acted on it: a submission never goes on a reused one,
	 * unless a second copy is refused and told apart (rq->reuse) */
	if (!rq->safe && !rq->reuse)
		curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
	/* always: on_debug also notices libcurl re-sending a request */
	curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(h, CURLOPT_DEBUGDATA, x);
}

/* rq's own header lines: its body's type, its range. */
static int request_headers(pai_client *c, const pai__request *rq,
			   pai__conn *conn)
{
	pai__buf line = PAI__BUF_INIT;
	int err = PAI_OK;

	if (rq->body && rq->content_type) {
		pai__buf_printf(&line, "Content-Type: %s", rq->content_type);
		err = line.oom ? pai__client_oom(c)
			       : pai__conn_header(c, conn, line.data);
		pai__buf_release(&line);
	}
	if (!err && rq->range) {
		pai__buf_printf(&line, "Range: %s", rq->range);
		err = line.oom ? pai__client_oom(c)
			       : pai__conn_header(c, conn, line.data);
		pai__buf_release(&line);
	}
	return err;
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
static int read_answer(pai_client *c, const pai__request *rq, pai__response *rs)
{
	char *redirect = NULL;

	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &rs->status);
	if (curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &redirect) ==
		CURLE_OK &&
	    redirect && !(rs->location = strdup(redirect)))
		return pai__client_oom(c);
	if (c->trace && rq->secret)
		pai__trace_secret(pai__trace_to, c, "< ", rs->body.len);
	else if (c->trace)
		pai__trace_body(pai__trace_to, c, "< ", rs->body.data,
				rs->body.len);
	return PAI_OK;
}

static int perform(pai_client *c, const pai__request *rq, pai__response *rs,
		   CURLcode *ccp, pai__conn *conn)
{
	CURL *h = c->curl;
	struct xfer x = {c, rq, rs, 0, 0};
	long req_size = 0;
	int err;

	c->errbuf[0] = '\0';
	if ((err = pai__conn_setup(c, h, rq->url, conn)) ||
	    (err = request_headers(c, rq, conn))) {
		pai__conn_release(conn);
		return err;
	}
	set_options(h, c, rq, &x);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, conn->hdrs);
	set_method(h, rq);
	*ccp = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &req_size);
	rs->sent = req_size > 0;
	if (*ccp != CURLE_OK)
		err = attempt_error(c, rq, &x, *ccp, conn->via_socket);
	else
		err = read_answer(c, rq, rs);
	/* the handle must not point at this call's headers */
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h, CURLOPT_CONNECT_TO, NULL);
	pai__conn_release(conn);
	return err;
}

/* How long to wait before sending rq again after this attempt (the
 * attempt-th retry), or -1 for not again. Safe requests are sent again
 * after a connection error or a 502/503/504, any after a 429: a rate
 * limit refuses a request before anything is done with it, so a
 * submission too. After a wait the server named, 0: pai__hold() waits
 * until the client's hold; else exponential backoff with full
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
		retry = err == PAI_EUNREACHABLE && pai__transient(cc);
	if (!(retry && rq->safe) && !(err == PAI_OK && rs->status == 429))
		return -1;
	if (attempt >= c->max_retries)
		return -1;
	if (named > 0)
		return 0;
	window = BACKOFF_BASE_MS << (attempt < 10 ? attempt : 10);
	if (window > BACKOFF_CAP_MS)
		window = BACKOFF_CAP_MS;
	return (long long)(pai__jitter(c) % (uint64_t)(window + 1));
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
	pai__trace(c, note);
}

int pai__http(pai_client *c, const pai__request *rq, pai__response *rs)
{
	long long deadline = pai__now_ms() + c->retry_max_ms, delay, named;
	pai__conn conn = PAI__CONN_INIT;
	int attempt, err;

	for (attempt = 0;; attempt++) {
		CURLcode cc = CURLE_OK;

		pai__response_release(rs);
		pai__client_reset_error(c);
		if ((err = pai__hold(c)))
			return err;
		err = c->transport ? c->transport(c->transport_data, c, rq, rs)
				   : perform(c, rq, rs, &cc, &conn);
		/* a 401 to a credential the module can renew (a token file
		 * rewritten, a plugin's token expired): again at once, once */
		if (!err && rs->status == 401 && pai__conn_renew(c, &conn)) {
			attempt--;
			continue;
		}
		if ((err == PAI_OK && (rs->status == 429 || rs->status == 503)) ||
		    (err == PAI_EUNREACHABLE && cc == CURLE_OPERATION_TIMEDOUT))
			c->overloads++; /* a batch's lanes shrink (lanes.h) */
		if (pai__note_answer(c, rq, rs, err, &named))
			return PAI_EHTTP;
		delay = retry_delay(c, rq, rs, err, cc, attempt, named);
		/* backoff within retry_max_ms; a named wait within it each */
		if (delay < 0 || (!named && pai__now_ms() + delay > deadline))
			break;
		trace_retry(c, rq, rs, err, named ? named : delay);
		if (pai__sleep(c, delay) != PAI_OK) {
			pai__response_release(rs);
			return pai__client_fail(c, PAI_EINTR, 0, NULL,
						"interrupted");
		}
	}
	return err;
}
