/* stream.c - a long-running GET, its body handed over as it comes: see
 * stream.h. The connection is conn.c's, the head response.c's, a
 * failure judged by pai__judge as any answer; what is its own is the
 * body's delivery, the silence limit, and telling a server's end from a
 * failure. */
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failure's body kept, at most. */
#define MAX_ERROR_BODY ((size_t)64 << 10)

struct pai__stream {
	pai_client *c;
	CURL *h;
	pai__conn conn;
	char *url;
	pai__stream_opts o;
	pai__response rs; /* the head; a failure's body */
	int stopped;	  /* on_data said stop */
	int silent;	  /* nothing came for o.silence_ms */
	long long heard;  /* when a byte last came (pai__now_ms) */
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	pai__stream *s = data;

	s->heard = pai__now_ms();
	pai__response_header(&s->rs, p, size * n);
	return size * n;
}

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
	pai__stream *s = data;
	size_t len = size * n;

	s->heard = pai__now_ms();
	if (!s->rs.status)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->rs.status);
	if (s->rs.status < 200 || s->rs.status >= 300) {
		/* an error's body: judged at the end */
		if (s->rs.body.len + len <= MAX_ERROR_BODY)
			pai__buf_put(&s->rs.body, p, len);
		return len;
	}
	if (s->o.on_data(s->o.data, p, len)) {
		s->stopped = 1; /* the caller has what it waited for */
		return 0;
	}
	return len;
}

static int on_progress(void *data, curl_off_t a, curl_off_t b, curl_off_t c,
		       curl_off_t d)
{
	pai__stream *s = data;

	(void)a;
	(void)b;
	(void)c;
	(void)d;
	if (s->o.silence_ms > 0 &&
	    pai__now_ms() - s->heard >= s->o.silence_ms) {
		s->silent = 1;
		return 1;
	}
	return s->c->interrupt && *s->c->interrupt;
}

static void trace_open(pai__stream *s)
{
	pai__buf b = PAI__BUF_INIT;

	if (!s->c->trace)
		return;
	pai__buf_printf(&b, "> GET %s (a stream)", s->url);
	if (!b.oom)
		pai__trace(s->c, b.data);
	pai__buf_release(&b);
}

/* The handle's options for one request (again after a 401). */
static int setup(pai__stream *s)
{
	CURL *h = s->h;
	int err;

	if ((err = pai__conn_setup(s->c, h, s->url, &s->conn)))
		return err;
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, s->conn.hdrs);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(h, CURLOPT_PRIVATE, s);
	if (s->o.max_ms > 0)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, s->o.max_ms);
	if (s->o.silence_ms > 0) {
		/* on_progress ends it silence_ms after the last byte. A low
		 * speed limit makes libcurl call it every second however
		 * quiet the connection (its own verdict, on a speed averaged
		 * over seconds, would come some seconds late) */
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
				 (s->o.silence_ms + 999) / 1000 + 10);
	}
	pai__response_release(&s->rs);
	s->stopped = s->silent = 0;
	s->heard = pai__now_ms();
	s->errbuf[0] = '\0';
	trace_open(s);
	return PAI_OK;
}

int pai__stream_new(pai__stream **out, pai_client *c, const char *url,
		    const pai__stream_opts *o)
{
	pai__stream *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return pai__client_oom(c);
	s->c = c;
	s->o = *o;
	if (!(s->url = strdup(url)) || !(s->h = curl_easy_init())) {
		pai__stream_free(s);
		return pai__client_oom(c);
	}
	if ((err = setup(s))) {
		pai__stream_free(s);
		return err;
	}
	*out = s;
	return PAI_OK;
}

void pai__stream_free(pai__stream *s)
{
	if (!s)
		return;
	if (s->h)
		curl_easy_cleanup(s->h);
	pai__conn_release(&s->conn);
	pai__response_release(&s->rs);
	free(s->url);
	free(s);
}

/* Silent past its limit before its answer came. */
static int silent(pai__stream *s)
{
	char *host = pai__url_host(s->url);
	int err = pai__client_fail(
	    s->c, PAI_EUNREACHABLE, 0, NULL, "%s: no answer for %ld s",
	    host ? host : s->url, (s->o.silence_ms + 999) / 1000);

	free(host);
	return err;
}

int pai__stream_done(pai__stream *s, int cc, int *again)
{
	pai__request rq = {"GET", s->url, NULL, 0, NULL, NULL, 1, 0, 0};
	long long named;
	int err;

	*again = 0;
	if (s->stopped)
		return PAI_OK;
	if (!s->rs.status)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->rs.status);
	if (cc != CURLE_OK && s->rs.status / 100 == 2 &&
	    (cc != CURLE_ABORTED_BY_CALLBACK || s->silent))
		/* cut, or silent past its limit, mid-body: this one's end,
		 * for the caller to resume */
		return PAI_OK;
	if (cc == CURLE_ABORTED_BY_CALLBACK && s->silent)
		return silent(s);
	if (cc == CURLE_ABORTED_BY_CALLBACK)
		return pai__client_fail(s->c, PAI_EINTR, 0, NULL,
					"interrupted");
	if (cc != CURLE_OK && !s->rs.status)
		return pai__transfer_error(s->c, s->h, s->url, cc,
					   s->conn.via_socket, s->errbuf);
	/* a failure's body cut short is judged by what came */
	if (pai__note_answer(s->c, &rq, &s->rs, PAI_OK, &named))
		return PAI_EHTTP;
	if (s->rs.status >= 200 && s->rs.status < 300)
		return PAI_OK; /* the stream ended: the server's, or cut */
	if (s->rs.status == 401 && pai__conn_renew(s->c, &s->conn)) {
		*again = 1;
		return setup(s);
	}
	err = pai__judge(s->c, &rq, &s->rs);
	return err ? err : PAI_EPROTOCOL;
}

CURL *pai__stream_handle(pai__stream *s)
{
	return s->h;
}

long pai__stream_status(const pai__stream *s)
{
	return s->rs.status;
}
