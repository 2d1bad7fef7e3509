/* k8s_exec.c - placeholder */
#include "k8s_api.h"

int pai__k8s_task_exec(int *exit_status, const struct pai__api *api,
		       pai_client *c, const pai_job_info *job,
		       const pai_task_info *task, const pai_exec_options *o)
{
	(void)exit_status;
	(void)api;
	(void)job;
	(void)task;
	(void)o;
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL, "not yet");
}
