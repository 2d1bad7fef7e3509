/* rest.h - the request plumbing every API module shares: an answer
 * judged by its status (the server's error mapped to libpai's codes and
 * detail), JSON and text answers. Over http.h, under the API modules
 * (api.h); knows no API's paths or shapes. Not installed, not for cli/. */
#ifndef PAI_REST_H
#define PAI_REST_H

#include "http.h"
#include "json_values.h"

/* One submission as it goes out: a request whose URL and body are its
 * own (an API module makes it, submit.c sends or shows it). */
typedef struct pai__submit_rq {
	char *url;
	char *body;
	size_t len;
	const char *content_type; /* static */
} pai__submit_rq;

void pai__submit_rq_release(pai__submit_rq *rq);

/* <base URI><path>, new; NULL when out of memory. */
char *pai__url(pai_client *c, const char *path);

/*
 * PAI_OK for a 2xx response; else sets the detail from the body (the
 * server's {code, message}, or "HTTP 502 Bad Gateway from host" for any
 * other body) and returns the error the status and code map to.
 */
int pai__status_error(pai_client *c, const pai__request *rq,
		      const pai__response *rs);

/* Parses a response documented as JSON; PAI_EPROTOCOL when it is not.
 * *out new. */
int pai__response_json(json_t **out, pai_client *c, const pai__request *rq,
		       const pai__response *rs);

/* PAI_OK for a 2xx; else the client's detail from the answer as its
 * server says it (the module's wire judges, a Kubernetes Status; else
 * pai__status_error()'s OpenPAI rules), and the error it maps to: the
 * one judge of every transfer's answer (REST, streams, upgrades). */
int pai__judge(pai_client *c, const pai__request *rq, const pai__response *rs);

/* pai__http(), then pai__judge(): PAI_OK when a 2xx answer is in rs. */
int pai__exchange(pai_client *c, const pai__request *rq, pai__response *rs);

/* GET url with the client's token: the JSON body of a 2xx in *out (new);
 * pai__get_object() also refuses any other value than an object
 * (PAI_EPROTOCOL). */
int pai__get_json(json_t **out, pai_client *c, const char *url);
/* pai__get_json(), and the answer's ETag in *etag (new; NULL when it
 * has none). */
int pai__get_json_etag(json_t **out, char **etag, pai_client *c,
		       const char *url);
int pai__get_object(json_t **out, pai_client *c, const char *url);
/* GET url: the body of a 2xx, NUL-terminated, in *text (new). */
int pai__get_text(char **text, size_t *len, pai_client *c, const char *url);

#endif /* PAI_REST_H */
