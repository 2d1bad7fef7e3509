/* stream.h - a long-running GET whose body is handed over as it comes
 * (a Kubernetes watch or log followed) on a libcurl handle of its own,
 * over the same seam as every exchange (http.h: conn.c's connection,
 * response.c's header parser, a 401 renewed once, Retry-After held,
 * rest.h's judge of a failure): pai__http is for answers read whole,
 * these are not. Its silence is bounded: a stream that brings nothing
 * for its silence limit is dropped, as one whose connection died
 * without a word. Streams run on a multi handle, several at once. Not
 * installed, not for cli/. */
#ifndef PAI_STREAM_H
#define PAI_STREAM_H

#include "rest.h"

typedef struct pai__stream pai__stream;

typedef struct pai__stream_opts {
	long max_ms; /* the whole transfer; 0: none */
	/* no byte for this long ends it (within a second); 0: none */
	long silence_ms;
	/* each piece of a 2xx body; non-zero stops the transfer (not an
	 * error: pai__stream_done says PAI_OK) */
	int (*on_data)(void *data, const char *p, size_t n);
	void *data;
} pai__stream_opts;

/* A stream of GET url (set up, not started). *out new
 * (pai__stream_free). PAI_OK or the error with the client's detail set. */
int pai__stream_new(pai__stream **out, pai_client *c, const char *url,
		    const pai__stream_opts *o);
void pai__stream_free(pai__stream *s);

/* The handle to add to a multi handle (after pai__hold). */
CURL *pai__stream_handle(pai__stream *s);
/* After its transfer on a multi handle ended with CURLcode cc: PAI_OK
 * when it ended (the server closed it, it was cut or silent past its
 * limit mid-body, a time ran out, on_data stopped it), else the error
 * with the detail (the server's words for a non-2xx, as pai__judge
 * says them; PAI_EUNREACHABLE for one silent before its answer); *again
 * when the handle is set up to go again (a 401 renewed the credential):
 * add it once more. */
int pai__stream_done(pai__stream *s, int cc, int *again);

/* After the end: the answer's HTTP status (0: none came). */
long pai__stream_status(const pai__stream *s);
#endif /* PAI_STREAM_H */
