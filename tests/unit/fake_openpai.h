/* fake_openpai.h - a tiny scripted HTTP responder on 127.0.0.x for the
 * few behaviours the local cluster cannot show (a proxy's HTML page, a
 * dropped connection, a redirect to another host, a stalled transfer).
 * Linked into every unit test; only test_client.c uses it. */
#ifndef FAKE_OPENPAI_H
#define FAKE_OPENPAI_H

#include <stddef.h>

typedef struct fake_request {
	char method[16];
	char path[2048]; /* with the query */
	char *headers;	 /* raw header lines, NUL-terminated */
	char *body;	 /* NUL-terminated */
	size_t body_len;
	const char *local_ip; /* the address the request came to */
} fake_request;

typedef struct fake_reply {
	int status;
	const char *content_type; /* NULL: none */
	const char *headers;	  /* extra lines, each ending "\r\n" */
	char *body;		  /* malloc'd; the fake frees it */
	size_t body_len;
	int drop; /* close without answering (after reading the request) */
	/* send the headers, then nothing (libcurl measures speed over
	 * seconds: a few body bytes would hide the stall for ~5 s) */
	int stall;
	/* every reply has a Date header: now, plus this many seconds (a
	 * server whose clock is off) */
	long clock_s;
	/* answer this many ms later, out of the lock: a slow server that
	 * works on other connections' requests meanwhile */
	long delay_ms;
} fake_reply;

/* Called under the fake's lock for each request; fills rp. */
typedef void fake_handler(void *data, const fake_request *rq, fake_reply *rp);

typedef struct fake_server fake_server;

/* Listens on ip (e.g. "127.0.0.1") on a free port. 0 or -1. */
int fake_start(fake_server **out, const char *ip, fake_handler *fn, void *data);
unsigned fake_port(const fake_server *f);
/* Stops every thread and closes every socket; NULL is fine. */
void fake_stop(fake_server *f);
/* Connections accepted so far. */
unsigned fake_connections(fake_server *f);
/* The handler's data is shared with the test thread: read it locked. */
void fake_lock(fake_server *f);
void fake_unlock(fake_server *f);

/* Sets a reply; body printf-formatted (NULL: empty). */
void fake_reply_set(fake_reply *rp, int status, const char *content_type,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The value of header name in rq (case-insensitive), copied into buf;
 * NULL when absent. */
const char *fake_header(const fake_request *rq, const char *name, char *buf,
			size_t len);

/* A client of the fake as an OpenPAI v0.x cluster (its API known, never
 * asked): token (or NULL), retries of a safe request; short timeouts.
 * NULL when it cannot be made. */
struct pai_client *fake_client(fake_server *f, const char *token, int retries);

#endif /* FAKE_OPENPAI_H */
