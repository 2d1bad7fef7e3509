/* api_v2.c - OpenPAI v1.x's REST API (/api/v2): the only file that knows
 * its paths and shapes. See openpai-v1x-behaviour.md. */
#include "api.h"
#include "convert.h"

#include <stdlib.h>
#include <string.h>

/* SKELETON: filled in by the api_v2 work. */

static int todo(pai_client *c)
{
	return pai__client_fail(c, PAI_ERROR, 0, NULL,
				"the v2 API is not spoken yet");
}

int pai__v2_detect(pai_api *out, pai_client *c)
{
	*out = PAI_API_V1;
	(void)c;
	return PAI_OK;
}

static int v2_cluster_info(json_t **out, pai_client *c)
{
	*out = NULL;
	return todo(c);
}

static int v2_login(char **token, pai_client *c, const char *user,
		    const char *password, long expiration_s)
{
	(void)user, (void)password, (void)expiration_s;
	*token = NULL;
	return todo(c);
}

static int v2_submit_request(pai__submit_rq *rq, pai_client *c,
			     const char *user, json_t *config)
{
	(void)user, (void)config;
	memset(rq, 0, sizeof(*rq));
	return todo(c);
}

static int v2_post_job(pai_client *c, const pai__submit_rq *rq,
		       int *maybe_created)
{
	(void)rq;
	*maybe_created = 0;
	return todo(c);
}

static int v2_stored_config(json_t **out, pai_client *c, const char *user,
			    const char *name)
{
	(void)user, (void)name;
	*out = NULL;
	return todo(c);
}

static int v2_job_get(pai_job_info **out, pai_client *c, const char *user,
		      const char *name)
{
	(void)user, (void)name;
	*out = NULL;
	return todo(c);
}

static int v2_jobs_list(pai_job_list **out, pai_client *c, const char *user)
{
	(void)user;
	*out = NULL;
	return todo(c);
}

static int v2_job_config(char **text, size_t *len, pai_client *c,
			 const char *user, const char *name)
{
	(void)user, (void)name;
	*text = NULL;
	*len = 0;
	return todo(c);
}

static int v2_job_stop(pai_client *c, const char *user, const char *name)
{
	(void)user, (void)name;
	return todo(c);
}

static int v2_job_ssh(pai_ssh_info **out, pai_client *c, const char *user,
		      const char *name)
{
	(void)user, (void)name;
	*out = NULL;
	return todo(c);
}

static int v2_task_log_url(char **url, pai_client *c, const pai_job_info *job,
			   const pai_task_info *task, const char *stream,
			   int tail)
{
	(void)job, (void)task, (void)stream, (void)tail;
	*url = NULL;
	return todo(c);
}

const struct pai__api pai__api_v2 = {
    PAI_API_V2,		 PAI_FORMAT_V2,	     v2_cluster_info,
    v2_login,		 v2_submit_request,  v2_post_job,
    v2_stored_config,	 v2_job_get,	     v2_jobs_list,
    v2_job_config,	 v2_job_stop,	     v2_job_ssh,
    v2_task_log_url};
