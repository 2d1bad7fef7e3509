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
	int timed_out;
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	pai__stream *s = data;

	pai__response_header(&s->rs, p, size * n);
	return size * n;
}

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
	pai__stream *s = data;
	size_t len = size * n;

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
		/* less than a byte a second for that long: silent */
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
				 (s->o.silence_ms + 999) / 1000);
	}
	pai__response_release(&s->rs);
	s->stopped = s->timed_out = 0;
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

int pai__stream_done(pai__stream *s, int cc, int *again)
{
	pai__request rq = {"GET", s->url, NULL, 0, NULL, NULL, 1, 0};
	long long named;
	int err;

	*again = 0;
	if (s->stopped)
		return PAI_OK;
	if (cc == CURLE_ABORTED_BY_CALLBACK)
		return pai__client_fail(s->c, PAI_EINTR, 0, NULL,
					"interrupted");
	if (!s->rs.status)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->rs.status);
	if (cc != CURLE_OK && s->rs.status / 100 == 2) {
		/* cut, or silent past its limit, mid-body: this one's end,
		 * for the caller to resume */
		s->timed_out = cc == CURLE_OPERATION_TIMEDOUT;
		return PAI_OK;
	}
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

int pai__stream_run(pai__stream *s)
{
	int err, again;

	do {
		CURLcode cc;

		if ((err = pai__hold(s->c)))
			return err;
		cc = curl_easy_perform(s->h);
		err = pai__stream_done(s, (int)cc, &again);
	} while (!err && again);
	return err;
}

CURL *pai__stream_handle(pai__stream *s)
{
	return s->h;
}

long pai__stream_status(const pai__stream *s)
{
	return s->rs.status;
}

int pai__stream_timed_out(const pai__stream *s)
{
	return s->timed_out;
}
