/* api.h - the operations one version of a cluster's REST API carries.
 * api_v1.c speaks OpenPAI v0.x's /api/v1, api_v2.c OpenPAI v1.x's
 * /api/v2; client.c calls them through struct pai__api and speaks only
 * of jobs, tasks and logs. Not installed, not for cli/. */
#ifndef PAI_API_H
#define PAI_API_H

#include "http.h"
#include "json.h"
#include "model.h"

/* One submission as it goes out. */
typedef struct pai__submit_rq {
	char *url;
	char *body;
	size_t len;
	const char *content_type; /* static */
} pai__submit_rq;

void pai__submit_rq_release(pai__submit_rq *rq);

struct pai__api {
	pai_api id;
	pai_format format; /* of the configs it takes */

	int (*cluster_info)(json_t **out, pai_client *c);
	int (*login)(char **token, pai_client *c, const char *user,
		     const char *password, long expiration_s);

	/* The request that submits config, which is in this API's format
	 * (client.c has converted it). */
	int (*submit_request)(pai__submit_rq *rq, pai_client *c,
			      const char *user, json_t *config);
	/*
	 * Sends one submission. PAI_OK for any 2xx. On failure
	 * *maybe_created is 1 when the job may exist nonetheless: the
	 * request went out and no answer came, the server answered 5xx
	 * (for v2: one that is not a YAML or template error, which the
	 * server also answers 500), or libcurl re-sent the request by
	 * itself and met 409 (perhaps our own first copy).
	 */
	int (*post_job)(pai_client *c, const pai__submit_rq *rq,
			int *maybe_created);
	/* The job's stored config as JSON, to compare with what was sent;
	 * PAI_ENOTFOUND with c->err_code as the server gave it. */
	int (*stored_config)(json_t **out, pai_client *c, const char *user,
			     const char *name);

	int (*job_get)(pai_job_info **out, pai_client *c, const char *user,
		       const char *name);
	int (*jobs_list)(pai_job_list **out, pai_client *c, const char *user);
	int (*job_config)(char **text, size_t *len, pai_client *c,
			  const char *user, const char *name);
	int (*job_stop)(pai_client *c, const char *user, const char *name);
	int (*job_ssh)(pai_ssh_info **out, pai_client *c, const char *user,
		       const char *name);
	/* See pai_task_log_url(); job and task come from this API's
	 * job_get. */
	int (*task_log_url)(char **url, pai_client *c, const pai_job_info *job,
			    const pai_task_info *task, const char *stream,
			    int tail);
};

extern const struct pai__api pai__api_v1;
extern const struct pai__api pai__api_v2;

/* GET <base>/api/v2/info: which API the cluster speaks (api_v2.c). */
int pai__v2_detect(pai_api *out, pai_client *c);

/* The API module a client's calls go through (v1 for DUAL), found with
 * pai__v2_detect() on the first call when the client's is AUTO. */
int pai__client_api(pai_client *c, const struct pai__api **out);

/* ---- the status JSON both APIs share (status.c) ---------------------
 * OpenPAI v0.x and v1.x describe a job with the same members
 * ({name, jobStatus:{...}, taskRoles:{role:{taskStatuses:[...]}}}) and
 * a list entry with the same summary fields. */

/* Fills info from a job status object o (info->json borrows o: the
 * caller sets info->json to its own reference). PAI_EPROTOCOL when o is
 * not a status, PAI_ENOMEM. */
int pai__status_parse(pai_job_info *info, json_t *o);
/* Fills the summary fields of one list entry (or jobStatus object). */
void pai__status_job_fields(pai_job_info *info, json_t *o);
/* A list answer (a JSON array, or v2's {"data": [...]}) as a list:
 * takes *a. PAI_EPROTOCOL with the detail set for another shape. */
int pai__status_list(pai_job_list **out, pai_client *c, const char *url,
		     json_t *a);

/* The exchanges both APIs make, each at its own URL (taken: freed
 * here; NULL means out of memory): a job's status, a list (the query
 * in the URL), a text (the stored config), a STOP (idempotent, retried
 * when safe). framework_names: the cluster reports roles by their
 * framework names (v1.x). */
int pai__fetch_status(pai_job_info **out, pai_client *c, char *url,
		      int framework_names);
int pai__fetch_list(pai_job_list **out, pai_client *c, char *url,
		    int framework_names);
int pai__fetch_text(char **text, size_t *len, pai_client *c, char *url);
int pai__put_stop(pai_client *c, char *url);
/* <base>/api/VERSION/jobs[?username=USER]: the list's URL in both APIs.
 * New string, NULL when out of memory. */
char *pai__jobs_url(pai_client *c, const char *version, const char *user);

/* GET url with the client's token; the JSON body of a 2xx in *out. */
int pai__get_json(json_t **out, pai_client *c, const char *url);

#endif /* PAI_API_H */
