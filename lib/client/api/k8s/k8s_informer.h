/* k8s_informer.h - the one list-and-watch loop of the Kubernetes module
 * (k8s_informer.c), as client-go's reflector: a collection listed, then
 * watched from the list's resourceVersion, each object handed over as
 * it changes; what waits for a job (k8s_watch.c) and what follows its
 * logs (k8s_follow.c) both keep their view with it. Not installed, not
 * for cli/. */
#ifndef PAI_K8S_INFORMER_H
#define PAI_K8S_INFORMER_H

#include "k8s_api.h"
#include "client/stream.h"

/* What a watch asks of the server, and how long past it a watch that
 * is still open counts as dead (a connection frozen, §3): it is then
 * dropped and resumed from the last version seen. */
#define PAI__K8S_WATCH_S       30
#define PAI__K8S_WATCH_GRACE_S 10
/* How long the informers keep trying while the server cannot be
 * reached (a restarting API server), backing off, before the caller is
 * told. */
#define PAI__K8S_GIVE_UP_MS (5 * 60 * 1000)

typedef struct pai__k8s_informer pai__k8s_informer;

/* A view of collection res filtered by query ("labelSelector=..."),
 * each object handed to on_event (type: enum pai__kube_event_type;
 * obj borrowed) as it is listed and as it changes. The re-watches back
 * off with *backoff (the caller's, so that it outlives the informer;
 * NULL: its own). *out new. */
int pai__k8s_informer_new(pai__k8s_informer **out, pai_client *c,
			  enum pai__k8s_res res, const char *query,
			  void (*on_event)(void *, int, json_t *), void *data,
			  pai__backoff *backoff);
/* Watch from resource version rv (copied) without a list first: the
 * caller has a view of that version, of which obj (borrowed; may be
 * NULL) is known to the informer, so that a list after a gone version
 * tells of it DELETED when it is no longer there. Before the start. */
int pai__k8s_informer_from(pai__k8s_informer *inf, const char *rv,
			   json_t *obj);
/* Lists (now, unless from a version) and adds the watch to m. PAI_OK or
 * the error with the client's detail. */
int pai__k8s_informer_start(pai__k8s_informer *inf, CURLM *m);
/* A transfer of m ended (h, CURLcode cc): 0 when not the informer's;
 * else 1, with *err PAI_OK (the watch is opened again when its backoff
 * allows: pai__k8s_informer_tick) or the error. */
int pai__k8s_informer_done(pai__k8s_informer *inf, CURLM *m, CURL *h, int cc,
			   int *err);
/* The watch opened again if it is due (listed again when its version
 * was gone): PAI_OK, or the error. Call it every round of the loop. */
int pai__k8s_informer_tick(pai__k8s_informer *inf, CURLM *m);
/* While the server cannot be reached (for less than
 * PAI__K8S_GIVE_UP_MS: the informer tries again meanwhile), the last
 * failure, its detail back on the client; PAI_OK when the watch works.
 * For a caller that must answer before the informer gives up. */
int pai__k8s_informer_failing(pai__k8s_informer *inf);
/* ms until the informer has something to do (a re-watch due); -1: it
 * waits on its stream. */
long long pai__k8s_informer_due(const pai__k8s_informer *inf);
void pai__k8s_informer_free(pai__k8s_informer *inf, CURLM *m);

/* One round of a loop over m and the informers on it: the transfers
 * moved, each one that ended handed to done(data, handle, CURLcode)
 * (its error ends the round), then a wait of at most ms for more.
 * PAI_OK, PAI_EINTR (the client's interrupt) with the detail set, or
 * done's error. */
int pai__k8s_round(pai_client *c, CURLM *m, long long ms,
		   int (*done)(void *data, CURL *h, int cc), void *data);

#endif /* PAI_K8S_INFORMER_H */
