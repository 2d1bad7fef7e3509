/* k8s_follow.c - placeholder */
#include "k8s_api.h"

int pai__k8s_logs_follow(const struct pai__api *api, pai_client *c,
			 const pai_job_info *job,
			 const pai_task_info *const *tasks, size_t n,
			 const pai_follow_options *o)
{
	(void)api;
	(void)job;
	(void)tasks;
	(void)n;
	(void)o;
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL, "not yet");
}
