/* api.h - the operations one version of a cluster's REST API carries.
 * api_v1.c speaks OpenPAI v0.x's /api/v1; client.c calls these and
 * speaks only of jobs, tasks and logs. Not installed, not for cli/. */
#ifndef PAI_API_H
#define PAI_API_H

#include "http.h"
#include "model.h"

int pai__v1_cluster_info(json_t **out, pai_client *c);
int pai__v1_login(char **token, pai_client *c, const char *user,
		  const char *password, long expiration_s);

/* The job name a config carries (borrowed), or NULL. */
const char *pai__v1_config_job_name(json_t *config);

/*
 * Sends one submission. PAI_OK for any 2xx. On failure *maybe_created
 * is 1 when the job may exist nonetheless: the request went out and no
 * answer came, the server answered 5xx, or libcurl re-sent the request
 * by itself and met 409 (perhaps our own first copy).
 */
int pai__v1_post_job(pai_client *c, const char *user, const char *body,
		     size_t len, int *maybe_created);

int pai__v1_job_get(pai_job_info **out, pai_client *c, const char *user,
		    const char *name);
int pai__v1_jobs_list(pai_job_list **out, pai_client *c, const char *user);
int pai__v1_job_config(char **text, size_t *len, pai_client *c,
		       const char *user, const char *name);
int pai__v1_job_stop(pai_client *c, const char *user, const char *name);
int pai__v1_job_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		    const char *name);

#endif /* PAI_API_H */
