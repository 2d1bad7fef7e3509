/* upgrade.h - an HTTP/1.1 Upgrade (exec's WebSocket, kubernetes-api.md
 * §7) over the client's one seam: libcurl makes the connection
 * (CONNECT_ONLY over HTTP/1.1, as conn.c sets up every one: TLS,
 * credential, keepalive, proxy), and the request and its answer's head
 * are written and read here, the head's lines by response.c's parser,
 * a 401 renewed once, a Retry-After held, a refusal's body judged by
 * pai__judge as any answer's. Debian 12's libcurl (7.88) has no
 * WebSocket of its own (8.11 has). The parsers are pure functions over
 * buffers, fuzzed. Not installed, not for cli/. */
#ifndef PAI_UPGRADE_H
#define PAI_UPGRADE_H

#include "rest.h"

/* What an HTTP/1.1 answer's head says beside what pai__response holds
 * (its status, Content-Type, Retry-After): its body's framing and its
 * upgrade. */
typedef struct pai__http1_head {
	long content_length; /* -1: none */
	int chunked;
	int upgrade_ok; /* Upgrade: websocket and Connection: upgrade */
	char *protocol; /* Sec-WebSocket-Protocol, or NULL */
	char *accept;	/* Sec-WebSocket-Accept, or NULL */
} pai__http1_head;

void pai__http1_head_release(pai__http1_head *h);

/* 1 when data[0..len) holds the whole head: its *head_len bytes read
 * into rs (status; each header line through pai__response_header) and
 * h (release both); 0 when more is needed; PAI_EPROTOCOL when it is not
 * HTTP/1.x (a line with a bare CR or LF or a NUL, or over 64 KiB); PAI_ENOMEM. */
int pai__http1_read_head(pai__response *rs, pai__http1_head *h,
			 size_t *head_len, const char *data, size_t len);
/* The body after a head, by Content-Length, chunked, or up to eof, into
 * body: 1 when complete, 0 when more is needed, PAI_EPROTOCOL (bad
 * chunking, or eof too soon), PAI_ETOOBIG past max, PAI_ENOMEM. */
int pai__http1_read_body(pai__buf *body, const pai__http1_head *h,
			 const char *data, size_t len, int eof, size_t max);

/* An upgraded connection: its handle (curl_easy_send/_recv on it), its
 * socket to poll, and the bytes that came after the 101's head. */
typedef struct pai__upgraded {
	CURL *h;
	curl_socket_t sock;
	pai__conn conn; /* kept while the connection lives */
	pai__buf rest;
	pai__http1_head head;
} pai__upgraded;

/*
 * GET url with the client's credential and the extra header lines
 * (each "Name: value"), over a connection of its own, for an upgrade:
 * PAI_OK with *up filled (a 101: its head in up->head for the caller
 * to check), else the error with the client's detail set: the server's
 * words for a refusal (pai__judge), the connection's failure
 * (PAI_EUNREACHABLE, PAI_ETLS), PAI_EPROTOCOL for an answer that is not
 * HTTP/1.1. At most timeout_ms for the connection and the answer.
 * *up is released by pai__upgraded_release whatever happened.
 */
int pai__upgrade(pai_client *c, const char *url, const char *const *headers,
		 size_t nheaders, long timeout_ms, pai__upgraded *up);
void pai__upgraded_release(pai__upgraded *up);
/* Waits until up's socket is ready for events (POLLIN, POLLOUT) or
 * deadline (pai__now_ms()): 1 ready, 0 not. */
int pai__upgraded_wait(const pai__upgraded *up, short events,
		       long long deadline);

#endif /* PAI_UPGRADE_H */
