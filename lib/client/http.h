/* http.h - the floor of lib/client's network (layers: api.h): the client
 * handle, one HTTP exchange, and the last error's detail, which every
 * layer above sets. Knows no API; under it only url.h and trace.h,
 * which know no handle. Not installed, not for cli/. */
#ifndef PAI_HTTP_H
#define PAI_HTTP_H

#include "sys/sys.h"
#include "trace.h"
#include "url.h"

#include "sys/dl_curl.h"

struct pai__request;
struct pai__response;

/*
 * What a module adds to each exchange of a client whose cluster wants
 * more than the token, CA file and insecure flag the client was given
 * (Kubernetes: a kubeconfig's certificates, CA data, tls-server-name,
 * token files and credential plugins). The module that makes such a
 * client sets pai_client.wire and .wire_data; http.c calls these around
 * each attempt and knows nothing more of them.
 */
struct pai__wire {
	/* h's TLS and proxy, and the attempt's header lines (its
	 * Authorization) appended to *hdrs; *generation names the
	 * credential used, for unauthorized(). PAI_OK, or an error with
	 * the client's detail set (no secret in it). */
	int (*prepare)(void *data, pai_client *c, CURL *h,
		       struct curl_slist **hdrs, unsigned long *generation);
	/* After the attempt, whatever happened: let go of what prepare
	 * kept for h. */
	void (*finish)(void *data, CURL *h);
	/* The attempt got a 401 with credential generation: 1 when a
	 * fresh credential can be had (the request goes again, once). */
	int (*unauthorized)(void *data, unsigned long generation);
	/* pai_client_free(): the module's state, wire_data. */
	void (*free)(void *data);
};

/* The detail of a failure, as pai_client_error() and its siblings tell
 * it, put aside (pai__client_save_error()) while later calls run. */
typedef struct pai__error {
	long status; /* the HTTP status, 0 when no answer says */
	char *code;  /* the server's error code, or NULL */
	char *msg;   /* one line, or NULL */
} pai__error;

/* The handle every layer of lib/client is given; made and freed by
 * client.c. Most of it is the wire's; the layers above keep a field
 * each, said below. */
struct pai_client {
	CURL *curl; /* one handle: its connection cache serves every call */
	char *uri;  /* base URI without a trailing '/' */
	char *scheme, *host;
	long port;
	char *unix_socket, *token, *ca_file;
	int insecure;
	long connect_timeout_ms, stall_timeout_s, retry_max_ms;
	int max_retries;
	void (*trace)(void *data, const char *line);
	void *trace_data;
	volatile int *interrupt;

	/* Why the last call failed. Kept by this layer: every layer above
	 * sets it with pai__client_fail() and returns the code it passed,
	 * so errors go up as return values and http.c never calls up. */
	long status;
	char *err_code, *err_msg;

	char errbuf[CURL_ERROR_SIZE];
	uint64_t rng; /* the retries' jitter */
	/* No request goes out before this time (cli_now_ms()'s clock,
	 * CLOCK_MONOTONIC in ms; 0: none): the end of the last wait a
	 * server named (Retry-After of a 429 or 503), whose status is
	 * held_by. Every request of every call honours it, so that the
	 * calls of a loop do too. */
	long long not_before_ms;
	long held_by;
	/* pai_client_set_retry_after_callback(): told before such a wait */
	void (*on_retry_after)(void *data, long status, long long wait_ms);
	void *on_retry_after_data;
	/* The server's clock as its last Date header gave it: epoch
	 * seconds, and when (monotonic ms) it came; 0: none yet. For
	 * times the server stamped (a job's submission time), so that
	 * this machine's clock does not matter. */
	long long server_date_s, server_date_at_ms;
	/* logs.c: an origin that serves logs as HTML pages, fetched whole */
	char *html_log_origin;
	pai_api api; /* api.c: which module its calls go through */
	/* A module's part of each exchange (above), and its state: NULL
	 * for a client of the token, CA file and insecure flag alone. */
	const struct pai__wire *wire;
	void *wire_data;
	/* api/api_local.c: whether the local cluster has its long-poll on
	 * a job (GET /api/v2/info's paictl.extensions): 0 not known yet,
	 * 1 yes, -1 no */
	int can_wait;

	/* Fuzzing only (tests/fuzz): answers each request in place of the
	 * network, as perform() would: PAI_OK with rs filled (its headers
	 * through pai__response_header), or an error with the detail set. */
	int (*transport)(void *data, pai_client *c,
			 const struct pai__request *rq,
			 struct pai__response *rs);
	void *transport_data;
};

typedef struct pai__request {
	const char *method; /* "GET", "POST", "PUT" */
	const char *url;    /* absolute */
	const char *body;   /* or NULL */
	size_t body_len;
	const char *content_type; /* of the body */
	const char *range;	  /* "bytes=N-", or NULL */
	int safe;		  /* idempotent: may be retried */
} pai__request;

typedef struct pai__response {
	long status;
	pai__buf body;
	char *content_type;
	char *location; /* a redirect's target, absolute */
	char *content_range;
	char *etag; /* as sent, quotes and all */
	/* Retry-After: in ms from the answer, or as an HTTP date (epoch
	 * seconds); 0: none, or none worth waiting for */
	long long retry_after_ms, retry_at_s;
	long long date_s; /* the Date header: epoch seconds; 0: none */
	/* some of the request may have reached the server (a failed POST
	 * may still have created the job) */
	int sent;
	/* libcurl sent the request again by itself: a reused connection
	 * died before any answer, which may be after the server acted on
	 * it (a 409 to a submission may then be the job we created) */
	int resent;
} pai__response;

#define PAI__RESPONSE_INIT                                                     \
	{                                                                      \
		0, PAI__BUF_INIT, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0        \
	}

void pai__response_release(pai__response *rs);

/* Reads one header line of a response ("Name: value\r\n", or a status
 * line that starts a new response) into rs: Content-Type,
 * Content-Range, ETag, Retry-After (seconds or an HTTP date), Date. */
void pai__response_header(pai__response *rs, const char *line, size_t len);

/*
 * Performs rq once, or again: safe requests with exponential backoff
 * and full jitter after a connection error or a 502/503/504, within the
 * client's max_retries and retry_max_ms; any request after a 429, which
 * refuses it before anything is done. No attempt goes out before the
 * client's not_before_ms: a 429's or 503's Retry-After sets it, for
 * this call and the next ones, unless it names a wait longer than
 * retry_max_ms, which fails the call at once (PAI_EHTTP, the status
 * kept). An unsafe request goes on a connection of its own, so that
 * libcurl never sends it twice. PAI_OK when a response arrived,
 * whatever its status (callers judge it with pai__status_error);
 * otherwise PAI_EUNREACHABLE, PAI_ETLS, PAI_EINTR, PAI_ENOMEM,
 * PAI_ETOOBIG, PAI_EINVAL, PAI_EHTTP or PAI_ERROR with the client's
 * detail set. Redirects are not followed. The token goes only to the
 * client's own origin; the Unix socket serves only that origin too.
 */
int pai__http(pai_client *c, const pai__request *rq, pai__response *rs);

/* Frees a request's header lines, each wiped first: one may be an
 * Authorization. NULL: nothing. */
void pai__headers_free(struct curl_slist *hdrs);

/* ---- the last error's detail (http.c) ----------------------------- */

void pai__client_reset_error(pai_client *c);
/* Moves the client's detail to *saved (released first) and the other
 * way; each leaves the source empty. */
void pai__client_save_error(pai_client *c, pai__error *saved);
void pai__client_restore_error(pai_client *c, pai__error *saved);
/* Frees what a saved detail holds and empties it. */
void pai__error_release(pai__error *e);
/* Sets the detail (code may be NULL; the message made one line of at
 * most 1000 bytes) and returns err. */
int pai__client_fail(pai_client *c, int err, long status, const char *code,
		     const char *fmt, ...) PAI__PRINTF(5, 6);
/* Sets the detail to "out of memory"; returns PAI_ENOMEM. */
int pai__client_oom(pai_client *c);

/* The server's clock now, in epoch ms, as its last Date header and the
 * time since tell; 0 when no answer had one. */
long long pai__server_now_ms(const pai_client *c);

#endif /* PAI_HTTP_H */
