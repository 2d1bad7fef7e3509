/* api.h - lib/client, libpai's REST client, and its table of APIs.
 *
 * The folder reads top-down; each layer calls only the ones under it:
 *
 *   client.c logs.c submit.c  the public calls as callers see them: the
 *                             handle, jobs and tasks; logs by URL;
 *                             submissions and their lost answers
 *   api.h api.c               one table per API a cluster speaks,
 *                             chosen once per client
 *   api/                      the API modules, one file each (api_v1.c,
 *                             api_v2.c), each a struct pai__api
 *                             (module.h): routes and shapes over what
 *                             OpenPAI's two APIs share (openpai.h: the
 *                             operations written once; status.h: the
 *                             status JSON)
 *   stream.h upgrade.h (.c)   what is not an exchange read whole: a
 *                             long-running GET (watches, logs
 *                             followed), an HTTP/1.1 upgrade (exec)
 *   rest.h rest.c             request plumbing any API uses: answers
 *                             judged (the module's judge, or OpenPAI's
 *                             rules), errors mapped, JSON
 *   http.h                    bytes on the wire, one seam for every
 *                             transfer: the handle; conn.c (a
 *                             connection: TLS, credential, keepalive),
 *                             response.c (an answer's head), hold.c
 *                             (Retry-After held, backoff), http.c (one
 *                             exchange with retries), detail.c (the
 *                             last error's detail, which every layer
 *                             sets and returns the code of)
 *   url.h trace.h (.c)        URLs, and the -vv trace with its secrets
 *                             masked: they know no handle
 *   model.h model.c json_values.h json_values.c
 *                             what is handed out (job infos, states);
 *                             JSON values as servers send them
 *
 * config.c (profiles, tokens) and file.c (atomic writes) stand apart:
 * no network. A new API (Kubernetes) is a file in api/ and a row in
 * api.c's table: a struct pai__api of its own operations over rest.h,
 * with its own shapes.
 * Not installed, not for cli/.
 */
#ifndef PAI_API_H
#define PAI_API_H

#include "client/api/module.h"

/* The API module a client's calls go through (v1 for DUAL), found with
 * pai__v2_detect() on the first call when the client's is AUTO. */
int pai__client_api(pai_client *c, const struct pai__api **out);

#endif /* PAI_API_H */
