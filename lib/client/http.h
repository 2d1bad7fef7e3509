/* http.h - the floor of lib/client's network (layers: api.h): the client
 * handle and the one seam every transfer goes through, as curl's
 * connection filters are one chain for every transfer:
 *
 *   conn.c      a connection set up: TLS trust, keepalive, timeouts, the
 *               credential (the token, or the module's: its wire)
 *   response.c  an answer's head read, whatever carried it
 *   hold.c      the waits a server names (Retry-After), held for every
 *               request of the client and its lanes; backoff
 *   http.c      one exchange read whole (REST), with its retries
 *   detail.c    the last error's detail, which every layer sets
 *
 * stream.h (long-running GETs: watches, logs followed) and upgrade.h
 * (an HTTP/1.1 upgrade: exec's WebSocket) stand on these. Knows no API;
 * under it only url.h and trace.h, which know no handle. Not installed,
 * not for cli/. */
#ifndef PAI_HTTP_H
#define PAI_HTTP_H

#include "sys/sys.h"
#include "trace.h"
#include "url.h"

#include "sys/dl_curl.h"

#include <pthread.h>

struct pai__request;
struct pai__response;
struct pai__conn;

/*
 * What a module adds to each connection of a client whose cluster wants
 * more than the token, CA file and insecure flag the client was given
 * (Kubernetes: a kubeconfig's certificates, CA data, tls-server-name,
 * token files and credential plugins), and how it reads its server's
 * errors. The module that makes such a client sets pai_client.wire and
 * .wire_data; the seam calls these and knows nothing more of them. The
 * lanes of a batch share the module's state: prepare and unauthorized
 * run one at a time (the client's shared lock), everything else of the
 * module may only read it.
 */
struct pai__wire {
	/* h's TLS and proxy, and the connection's header lines (its
	 * Authorization) appended to conn->hdrs, a CONNECT_TO list in
	 * conn->connect_to, the credential's generation in
	 * conn->generation, for unauthorized(). PAI_OK, or an error with
	 * the client's detail set (no secret in it). */
	int (*prepare)(void *data, pai_client *c, CURL *h,
		       struct pai__conn *conn);
	/* The connection got a 401 with credential generation: 1 when a
	 * fresh credential can be had (the request goes again, once). */
	int (*unauthorized)(void *data, unsigned long generation);
	/* An answer that is not a 2xx, whatever carried it (REST, a
	 * stream, an upgrade): the client's detail from its body, as the
	 * server says it (a Status's message), and the error it maps to.
	 * NULL: rest.c's OpenPAI rules. */
	int (*judge)(void *data, pai_client *c,
		     const struct pai__request *rq,
		     const struct pai__response *rs);
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

/* What a client shares with the lanes a batch of submissions runs on
 * (submit.c): a client alone has its own. */
struct pai__shared {
	/* not_before_ms, held_by, token, and the wire's prepare and
	 * unauthorized */
	pthread_mutex_t lock;
	/* the trace and on_retry_after: one caller's line at a time */
	pthread_mutex_t out;
	/* No request goes out before this time (pai__now_ms(); 0: none):
	 * the end of the last wait a server named (Retry-After of a 429
	 * or 503), whose status is held_by. Every request of every call
	 * and lane honours it, so that the calls of a loop do too. */
	long long not_before_ms;
	long held_by;
	char *token; /* the bearer token, or NULL */
	/* pai_client_set_retry_after_callback(): told before such a wait */
	void (*on_retry_after)(void *data, long status, long long wait_ms);
	void *on_retry_after_data;
	/* pai_client_set_notice_callback(): what -v says */
	void (*on_notice)(void *data, const char *line);
	void *on_notice_data;
};

/* The handle every layer of lib/client is given; made and freed by
 * client.c. Most of it is the wire's; the layers above keep a field
 * each, said below. */
struct pai_client {
	CURL *curl; /* one handle: its connection cache serves every call */
	char *uri;  /* base URI without a trailing '/' */
	char *scheme, *host;
	long port;
	char *unix_socket, *ca_file;
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
	/* Answers that said the server is overloaded (a 429, a 503, a
	 * timeout), retried or not: what a batch's lanes halve on. */
	unsigned long overloads;
	/* The limits and token, this client's own or, in a lane, the
	 * client's it came from (submit.c); own is used only then. */
	struct pai__shared *sh, own;
	pai_client *parent; /* a lane's client; NULL for a client */
	/* The server's clock as its last Date header gave it: epoch
	 * seconds, and when (monotonic ms) it came; 0: none yet. For
	 * times the server stamped (a job's submission time), so that
	 * this machine's clock does not matter. */
	long long server_date_s, server_date_at_ms;
	/* logs.c: an origin that serves logs as HTML pages, fetched whole */
	char *html_log_origin;
	pai_api api; /* api.c: which module its calls go through */
	/* A module's part of each connection (above), and its state: NULL
	 * for a client of the token, CA file and insecure flag alone. A
	 * lane's are its client's, not its own to free. */
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

/* A lane of client c (client.c), for a batch's submissions in other
 * threads (submit.c): a handle of its own (its connection, its detail)
 * that shares c's sh, wire and API; freed with pai_client_free before
 * c is. PAI_OK, PAI_ENOMEM. */
int pai__client_lane(pai_client **out, pai_client *c);

/* The lock a lane's shared state takes (a client alone takes it too:
 * uncontended, it costs nothing worth saying). */
void pai__lock(pai_client *c);
void pai__unlock(pai_client *c);
/* A line to the client's trace, one at a time across lanes; NULL
 * trace: nothing. */
void pai__trace(pai_client *c, const char *line);
/* pai__trace() as trace.h's callbacks are called: data is the client. */
void pai__trace_to(void *client, const char *line);

typedef struct pai__request {
	const char *method; /* "GET", "POST", "PUT" */
	const char *url;    /* absolute */
	const char *body;   /* or NULL */
	size_t body_len;
	const char *content_type; /* of the body */
	const char *range;	  /* "bytes=N-", or NULL */
	int safe;		  /* idempotent: may be retried */
	/* not safe, yet it may go on a reused connection: libcurl's own
	 * re-send of it (when the connection dies before any answer)
	 * cannot do twice what the caller cannot tell (a create of a
	 * named object: the second is refused, 409, and the module reads
	 * the object back by its submission id) */
	int reuse;
	/* the answer's body is a secret (a private key, a token): -vv
	 * shows its size only, and the body is wiped as it grows and when
	 * released */
	int secret;
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

/* ---- a connection (conn.c) ------------------------------------------- */

/* What one connection carries beside its handle's options: release it
 * after the transfer (pai__conn_release). */
typedef struct pai__conn {
	struct curl_slist *hdrs;       /* header lines, wiped when freed */
	struct curl_slist *connect_to; /* the module's CONNECT_TO, or NULL */
	unsigned long generation;      /* the credential's, for a 401 */
	int same;		       /* the client's own origin */
	int via_socket;		       /* over the client's Unix socket */
	int renewed;		       /* a 401 renewed it once already */
} pai__conn;

#define PAI__CONN_INIT                                                         \
	{                                                                      \
		NULL, NULL, 0, 0, 0, 0                                         \
	}

/*
 * h (reset) set up for url as every connection of c is: curl's
 * defaults, the Unix socket (the client's own origin only), the
 * connect timeout, TCP keepalive, the CAs trusted (the one named, or
 * the system's), no redirect followed, and the credential, to the
 * client's own origin only: the module's (its wire: TLS, proxy,
 * Authorization...) or the token. The header lines are in conn->hdrs:
 * the caller appends its own and sets CURLOPT_HTTPHEADER, and its
 * callbacks. PAI_OK, or the error with the client's detail set.
 */
int pai__conn_setup(pai_client *c, CURL *h, const char *url, pai__conn *conn);
/* What the connection kept, freed (the header lines wiped); conn is
 * PAI__CONN_INIT after but for its credential's generation and renewed
 * flag, which a 401 to it is about. */
void pai__conn_release(pai__conn *conn);
/* A 401 to the credential conn carried: 1 when a fresh one can be had
 * and conn has not been renewed yet (send again, once; traced), else
 * 0. */
int pai__conn_renew(pai_client *c, pai__conn *conn);
/* Appends "Name: value" (a copy) to conn's header lines: PAI_OK or
 * PAI_ENOMEM with the detail set. */
int pai__conn_header(pai_client *c, pai__conn *conn, const char *line);
/* Frees a request's header lines, each wiped first: one may be an
 * Authorization. NULL: nothing. */
void pai__headers_free(struct curl_slist *hdrs);
/* 1 when url has the scheme, host and port of the client's URI: the
 * only origin its credential goes to. */
int pai__same_origin(const pai_client *c, const char *url);

/* ---- an answer's head (response.c) -------------------------------- */

void pai__response_release(pai__response *rs);

/* Reads one header line of a response ("Name: value\r\n", or a status
 * line that starts a new response) into rs: Content-Type,
 * Content-Range, ETag, Retry-After (seconds or an HTTP date), Date.
 * Names in any case, blanks around values in any number: the one
 * parser of every transfer's answer (REST, streams, an upgrade). */
void pai__response_header(pai__response *rs, const char *line, size_t len);
/* The value of header `name` in line (any case, blanks trimmed), new;
 * NULL when line is another header (or out of memory). */
char *pai__header_value(const char *line, size_t len, const char *name);
/* 1 when v can be a request header's value: no line break, no control
 * character (a token file with "\r\nX-Evil: 1" must not add a header). */
int pai__header_safe(const char *v);

/* ---- holds and backoff (hold.c) --------------------------------------- */

/* Waits until the client's shared not_before_ms, saying so first (the
 * callback, the trace). PAI_OK, or PAI_EINTR with the detail set. */
int pai__hold(pai_client *c);
/* ms left of the client's hold: 0 when a request may go now. */
long long pai__held_ms(pai_client *c);
/* What an answer tells the client besides itself (err: how the
 * exchange went): the server's clock, and a wait it names (a 429's or
 * 503's Retry-After), held for every request from now on, its length
 * in *named (0: none); PAI_EHTTP with the detail set when it is longer
 * than the client waits. */
int pai__note_answer(pai_client *c, const struct pai__request *rq,
		     const struct pai__response *rs, int err,
		     long long *named);
/* Sleeps ms, waking to look at the client's interrupt: PAI_OK or
 * PAI_EINTR (no detail). */
int pai__sleep(pai_client *c, long long ms);
/* A random number for jitter (xorshift64*: not for secrets). */
uint64_t pai__jitter(pai_client *c);

/*
 * The backoff of a stream opened again and again (a watch the server
 * ends, a log cut), as client-go's reflector backs off: the n-th open
 * after one that did not live waits base * 2^n, up to half the cap,
 * plus up to as much again at random (at the cap, from half of it to
 * all of it); a stream that lived (open for
 * PAI__BACKOFF_LIVED_MS, or one that brought news) resets it. Never
 * sooner than PAI__BACKOFF_MIN_MS after the last open of the stream:
 * the budget of a loop that asks a cluster again (cli/pace.c's
 * second), which no stream's re-opening may exceed.
 */
typedef struct pai__backoff {
	long long opened_at; /* the last open (pai__now_ms), 0: none yet */
	long long next_at;   /* no open before this */
	long delay;	     /* the last wait's base, 0: none */
} pai__backoff;

#define PAI__BACKOFF_BASE_MS  800
#define PAI__BACKOFF_CAP_MS   30000
#define PAI__BACKOFF_MIN_MS   1000
#define PAI__BACKOFF_LIVED_MS 10000

/* The stream opens now. */
void pai__backoff_opened(pai__backoff *b);
/* The stream ended: lived says whether it brought news; the next open
 * is due at b->next_at. */
void pai__backoff_ended(pai_client *c, pai__backoff *b, int news);
/* ms until the next open may be: 0 when it may be now. */
long long pai__backoff_left(const pai__backoff *b);

/* ---- one exchange (http.c) -------------------------------------------- */

/*
 * Performs rq once, or again: safe requests with exponential backoff
 * and full jitter after a connection error or a 502/503/504, within the
 * client's max_retries and retry_max_ms; any request after a 429, which
 * refuses it before anything is done. No attempt goes out before the
 * client's hold (pai__hold): a 429's or 503's Retry-After sets it, for
 * this call and the next ones, unless it names a wait longer than
 * retry_max_ms, which fails the call at once (PAI_EHTTP, the status
 * kept). An unsafe request goes on a connection of its own, so that
 * libcurl never sends it twice. PAI_OK when a response arrived,
 * whatever its status (callers judge it with pai__judge);
 * otherwise PAI_EUNREACHABLE, PAI_ETLS, PAI_EINTR, PAI_ENOMEM,
 * PAI_ETOOBIG, PAI_EINVAL, PAI_EHTTP or PAI_ERROR with the client's
 * detail set. Redirects are not followed. The credential goes only to
 * the client's own origin; the Unix socket serves only that origin too.
 */
int pai__http(pai_client *c, const pai__request *rq, pai__response *rs);

/* A transfer of h that ended with cc (not CURLE_OK) as the client's
 * detail: what went wrong (errbuf, h's CURLOPT_ERRORBUFFER, else
 * libcurl's words), where (url's host), and the error (PAI_EINTR,
 * PAI_ETLS, PAI_EUNREACHABLE, PAI_EINVAL, PAI_ERROR). via_socket: it
 * went over the client's Unix socket. */
int pai__transfer_error(pai_client *c, CURL *h, const char *url, int cc,
			int via_socket, const char *errbuf);
/* Connection trouble worth another try of a safe request. */
int pai__transient(int cc);

/* ---- the last error's detail (detail.c) ----------------------------- */

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
/* One line to the caller's notice callback, if any (what -v says). */
void pai__client_notice(pai_client *c, const char *fmt, ...) PAI__PRINTF(2, 3);
/* Sets the detail to "out of memory"; returns PAI_ENOMEM. */
int pai__client_oom(pai_client *c);

/* The server's clock now, in epoch ms, as its last Date header and the
 * time since tell; 0 when no answer had one. */
long long pai__server_now_ms(const pai_client *c);

#endif /* PAI_HTTP_H */
