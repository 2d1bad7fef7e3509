/* k8s_stream.h - a long-running GET of the Kubernetes module (a watch,
 * a log followed) on a libcurl handle of its own (k8s_stream.c). Not
 * installed, not for cli/. */
#ifndef PAI_K8S_STREAM_H
#define PAI_K8S_STREAM_H

#include "k8s_api.h"

typedef struct pai__k8s_stream {
	pai_client *c;
	CURL *h;
	struct curl_slist *hdrs, *connect_to;
	char *url;
	long timeout_ms; /* the whole transfer; 0: none */
	/* each piece of a 2xx body; non-zero stops the transfer (not an
	 * error: pai__k8s_stream_done says PAI_OK) */
	int (*on_data)(void *data, const char *p, size_t n);
	void *data;
	/* the answer */
	long status, code;
	char *content_type;
	long retry_after;
	pai__buf error_body;
	int stopped;
	unsigned long generation;
	int renewed;
	char errbuf[CURL_ERROR_SIZE];
} pai__k8s_stream;

/* A stream of GET path (set up, not started), the body to on_data.
 * *out new (pai__k8s_stream_free). PAI_OK or the error with the
 * client's detail set. */
int pai__k8s_stream_new(pai__k8s_stream **out, pai_client *c, const char *path,
			long timeout_ms,
			int (*on_data)(void *, const char *, size_t),
			void *data);
void pai__k8s_stream_free(pai__k8s_stream *s);

/* Runs the stream to its end on its own: PAI_OK when it ended (the
 * server closed it, the time ran out, or on_data stopped it), else the
 * error with the detail (the server's Status for a non-2xx). */
int pai__k8s_stream_run(pai__k8s_stream *s);

/* After a transfer on a multi handle ended with CURLcode cc: PAI_OK (as
 * pai__k8s_stream_run), or the error; *again when the handle is set up
 * to go again (a 401 renewed the credential): add it once more. */
int pai__k8s_stream_done(pai__k8s_stream *s, int cc, int *again);

CURL *pai__k8s_stream_handle(pai__k8s_stream *s);

/* ---- a watched collection (k8s_informer.c) ------------------------- */

typedef struct pai__k8s_informer pai__k8s_informer;

/* A view of collection res filtered by query ("labelSelector=..."),
 * each object handed to on_event (type: enum pai__kube_event_type;
 * obj borrowed) as it is listed and as it changes. *out new. */
int pai__k8s_informer_new(pai__k8s_informer **out, pai_client *c,
			  enum pai__k8s_res res, const char *query,
			  void (*on_event)(void *, int, json_t *), void *data);
/* Lists (now) and adds the watch to m. PAI_OK or the error with the
 * client's detail. */
int pai__k8s_informer_start(pai__k8s_informer *inf, CURLM *m);
/* A transfer of m ended (h, CURLcode cc): 0 when not the informer's;
 * else 1, the watch opened again (listed again when its version was
 * gone), and *err PAI_OK or the error. */
int pai__k8s_informer_done(pai__k8s_informer *inf, CURLM *m, CURL *h, int cc,
			   int *err);
void pai__k8s_informer_free(pai__k8s_informer *inf, CURLM *m);

#endif /* PAI_K8S_STREAM_H */
