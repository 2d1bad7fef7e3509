/* openpai.h - what OpenPAI's two REST APIs (v0.x's /api/v1, v1.x's
 * /api/v2) share: the operations of struct pai__api written once
 * (openpai.c), each following the routes and shapes a module gives in a
 * struct pai__openpai, and the status JSON both send (status.c). A
 * module of this family (api_v1.c, api_v2.c) is its routes, its shapes
 * and the operations it does its own way. Not installed, not for cli/. */
#ifndef PAI_OPENPAI_H
#define PAI_OPENPAI_H

#include "module.h"
#include "status.h"

struct pai__openpai {
	/* ---- routes: paths under the client's base URI */
	const char *info_path;	/* GET: what the cluster says of itself */
	const char *login_path; /* POST {username, password[, expiration]}:
				 * {token} */
	const char *jobs_path;	/* GET: the job list (?username=USER) */
	/* A job's URL (suffix "/config", "/executionType", or NULL), and
	 * where a submission is posted: new, NULL when out of memory. */
	char *(*job_url)(pai_client *c, const char *user, const char *name,
			 const char *suffix);
	char *(*submit_url)(pai_client *c, const char *user);

	/* ---- shapes */
	int framework_names;	 /* roles reported by their framework names
				  * (v1.x) */
	const char *submit_type; /* a submission's Content-Type */
	/* config as a submission's body (new); PAI_ENOMEM. */
	int (*submit_body)(char **body, size_t *len, json_t *config);
	/* The stored config, as GET job_url(.., "/config") answers it, as
	 * a JSON object (*out new); PAI_EPROTOCOL or PAI_ENOMEM with the
	 * detail set. */
	int (*stored_config)(json_t **out, pai_client *c, const char *name,
			     const char *text, size_t len);
	/* A failed submission's answer (its detail set) that says the
	 * server refused the config before storing anything: the error to
	 * return; PAI_OK for any other answer. NULL: the API has none. */
	int (*refused)(pai_client *c, const pai__response *rs);
};

/* ---- the operations both modules share (openpai.c) ------------------ */

int pai__openpai_cluster_info(json_t **out, const struct pai__api *api,
			      pai_client *c);
int pai__openpai_login(char **token, const struct pai__api *api, pai_client *c,
		       const char *user, const char *password,
		       long expiration_s);
int pai__openpai_submit_request(pai__submit_rq *rq, const struct pai__api *api,
				pai_client *c, const char *user,
				json_t *config);
int pai__openpai_post_job(const struct pai__api *api, pai_client *c,
			  const pai__submit_rq *rq, int *maybe_created);
int pai__openpai_stored_config(json_t **out, const struct pai__api *api,
			       pai_client *c, const char *user,
			       const char *name);
int pai__openpai_job_get(pai_job_info **out, const struct pai__api *api,
			 pai_client *c, const char *user, const char *name);
/* The job status at url (a job_url, perhaps with a query), its ETag as
 * the info's version. */
int pai__openpai_status_at(pai_job_info **out, const struct pai__api *api,
			   pai_client *c, const char *url);
int pai__openpai_jobs_list(pai_job_list **out, const struct pai__api *api,
			   pai_client *c, const char *user);
int pai__openpai_job_config(char **text, size_t *len,
			    const struct pai__api *api, pai_client *c,
			    const char *user, const char *name);
int pai__openpai_job_stop(const struct pai__api *api, pai_client *c,
			  const char *user, const char *name);
/* method on the job's route (with suffix, or NULL), with a JSON body
 * or none; safe: it may be sent again. The answer's status is all it
 * gives. */
int pai__openpai_job_call(const struct pai__api *api, pai_client *c,
			  const char *user, const char *name,
			  const char *suffix, const char *method,
			  const char *json_body, int safe);

#endif /* PAI_OPENPAI_H */
