/* k8s_stream.c - a long-running GET on a libcurl handle of its own
 * (a watch, §3; a log followed, §6): set up as the client's exchanges
 * are (k8s_client.c), its body handed over as it comes, its end and
 * status told apart; a 401 renews the credential once, as http.c does.
 * pai__http is for answers read whole: these are not. One stream runs
 * alone (pai__k8s_stream_run) or with others on a multi handle
 * (k8s_follow.c). */
#include "k8s_stream.h"

#include "sys/dl_curl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A failure's body kept, at most. */
#define MAX_ERROR_BODY ((size_t)64 << 10)

static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	pai__k8s_stream *s = data;
	size_t len = size * n;

	/* the status line of each response: a new answer begins */
	if (len > 5 && strncmp(p, "HTTP/", 5) == 0) {
		free(s->content_type);
		s->content_type = NULL;
		s->retry_after = -1;
	} else if (len > 13 && strncasecmp(p, "Content-Type:", 13) == 0) {
		free(s->content_type);
		s->content_type = strndup(p + 13, strcspn(p + 13, "\r\n"));
	} else if (len > 12 && strncasecmp(p, "Retry-After:", 12) == 0)
		s->retry_after = strtol(p + 12, NULL, 10);
	return len;
}

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
	pai__k8s_stream *s = data;
	size_t len = size * n;

	if (!s->status)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status < 200 || s->status >= 300) {
		/* an error's body: a Status, judged at the end */
		if (s->error_body.len + len <= MAX_ERROR_BODY)
			pai__buf_put(&s->error_body, p, len);
		return len;
	}
	if (s->on_data(s->data, p, len)) {
		s->stopped = 1; /* the caller has what it waited for */
		return 0;
	}
	return len;
}

static int on_progress(void *data, curl_off_t a, curl_off_t b, curl_off_t c,
		       curl_off_t d)
{
	pai__k8s_stream *s = data;

	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return s->c->interrupt && *s->c->interrupt;
}

static void trace_open(pai__k8s_stream *s)
{
	pai__buf b = PAI__BUF_INIT;

	if (!s->c->trace)
		return;
	pai__buf_printf(&b, "> GET %s (a stream)", s->url);
	if (!b.oom)
		s->c->trace(s->c->trace_data, b.data);
	pai__buf_release(&b);
}

/* The handle's options for one request (again after a 401). */
static int setup(pai__k8s_stream *s)
{
	CURL *h = s->h;
	int err;

	curl_easy_reset(h);
	pai__headers_free(s->hdrs);
	curl_slist_free_all(s->connect_to);
	s->hdrs = s->connect_to = NULL;
	if ((err = pai__k8s_setup_handle(s->c, h, &s->hdrs, &s->connect_to,
					 &s->generation)))
		return err;
	curl_easy_setopt(h, CURLOPT_URL, s->url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, s->hdrs);
	pai__curl_defaults(h);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
			 s->c->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(h, CURLOPT_PRIVATE, s);
	if (s->timeout_ms > 0)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, s->timeout_ms);
	s->status = 0;
	s->stopped = 0;
	s->errbuf[0] = '\0';
	pai__buf_release(&s->error_body);
	trace_open(s);
	return PAI_OK;
}

int pai__k8s_stream_new(pai__k8s_stream **out, pai_client *c, const char *path,
			long timeout_ms,
			int (*on_data)(void *, const char *, size_t),
			void *data)
{
	pai__k8s_stream *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return pai__client_oom(c);
	s->c = c;
	s->on_data = on_data;
	s->data = data;
	s->timeout_ms = timeout_ms;
	s->retry_after = -1;
	if ((err = pai__kube_url(&s->url, pai__k8s_of(c)->cfg, path)) ||
	    !(s->h = curl_easy_init())) {
		pai__k8s_stream_free(s);
		return pai__client_oom(c);
	}
	if ((err = setup(s))) {
		pai__k8s_stream_free(s);
		return err;
	}
	*out = s;
	return PAI_OK;
}

void pai__k8s_stream_free(pai__k8s_stream *s)
{
	if (!s)
		return;
	if (s->h)
		curl_easy_cleanup(s->h);
	pai__headers_free(s->hdrs);
	curl_slist_free_all(s->connect_to);
	free(s->url);
	free(s->content_type);
	pai__buf_release(&s->error_body);
	free(s);
}

/* What a transfer that ended with cc means; see k8s_stream.h. */
int pai__k8s_stream_done(pai__k8s_stream *s, int cc, int *again)
{
	pai__kube_status st;
	struct pai__k8s_client *k = pai__k8s_of(s->c);
	int err;

	*again = 0;
	if (s->stopped)
		return PAI_OK;
	if (cc == CURLE_ABORTED_BY_CALLBACK)
		return pai__client_fail(s->c, PAI_EINTR, 0, NULL,
					"interrupted");
	if (cc != CURLE_OK && cc != CURLE_OPERATION_TIMEDOUT && !s->status)
		return pai__client_fail(
		    s->c, PAI_EUNREACHABLE, 0, NULL, "%s: %s", s->url,
		    s->errbuf[0] ? s->errbuf : curl_easy_strerror(cc));
	if (!s->status)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status >= 200 && s->status < 300)
		return PAI_OK; /* the stream ended: the server's, or cut */
	if (s->status == 401 && !s->renewed &&
	    pai__kube_cred_unauthorized(k->cred, s->generation)) {
		s->renewed = 1;
		*again = 1;
		return setup(s);
	}
	if (pai__kube_status_parse(&st, s->status, s->content_type,
				   s->error_body.data ? s->error_body.data : "",
				   s->error_body.len, s->retry_after))
		return pai__client_oom(s->c);
	err = pai__client_fail(
	    s->c, pai__kube_status_error(&st), s->status, st.reason, "%s",
	    st.message && *st.message ? st.message : "HTTP error");
	s->code = st.code;
	pai__kube_status_release(&st);
	return err;
}

int pai__k8s_stream_run(pai__k8s_stream *s)
{
	int err, again;

	do {
		CURLcode cc = curl_easy_perform(s->h);

		err = pai__k8s_stream_done(s, (int)cc, &again);
	} while (!err && again);
	return err;
}

CURL *pai__k8s_stream_handle(pai__k8s_stream *s)
{
	return s->h;
}
