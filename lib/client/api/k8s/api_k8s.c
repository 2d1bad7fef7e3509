/* api_k8s.c - a Kubernetes cluster as an API module: its table, and the
 * operations that are a request or two (the server's version, the stored
 * Job, stop as the kind's engine does it, delete, log locations; login
 * and SSH keys, which Kubernetes has not). The rest is in the k8s_*.c
 * files beside it (k8s_api.h). */
#include "k8s_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cluster_info(json_t **out, const struct pai__api *api, pai_client *c)
{
	(void)api;
	return pai__k8s_get(out, c, "/version");
}

static int no_login(char **token, const struct pai__api *api, pai_client *c,
		    const char *user, const char *password, long expiration_s)
{
	const pai__kube_config *cfg = pai__k8s_of(c)->cfg;

	(void)token;
	(void)api;
	(void)user;
	(void)password;
	(void)expiration_s;
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
				"a Kubernetes cluster's credentials come from "
				"the kubeconfig (%s, context '%s'): there is "
				"nothing to log in to",
				cfg->origin ? cfg->origin : "in-cluster",
				cfg->context ? cfg->context : "-");
}

static int no_ssh(pai_ssh_info **out, const struct pai__api *api, pai_client *c,
		  const char *user, const char *name)
{
	(void)out;
	(void)api;
	(void)user;
	return pai__client_fail(
	    c, PAI_ENOTSUP, 0, NULL,
	    "on Kubernetes no SSH reaches the pods: 'paictl "
	    "ssh %s ROLE INDEX [-- COMMAND]' runs a shell "
	    "or a command in a task's pod through the API "
	    "server's exec, as 'kubectl exec' does",
	    name);
}

/* The Job of user's job name, for the operations on a job (the user is
 * the namespace's business, and the Job's labels'). */
static int the_job(json_t **job, const struct pai__api *api, pai_client *c,
		   const char *user, const char *name)
{
	(void)api;
	(void)user;
	return pai__k8s_find_job(job, c, name);
}

/* The stored config: the Job as the server keeps it. */
static int job_config(char **text, size_t *len, const struct pai__api *api,
		      pai_client *c, const char *user, const char *name)
{
	json_t *job = NULL;
	int err;

	if ((err = the_job(&job, api, c, user, name)))
		return err;
	*text = json_dumps(job, JSON_INDENT(2));
	json_decref(job);
	if (!*text)
		return pai__client_oom(c);
	*len = strlen(*text);
	return PAI_OK;
}

/* ---- stop ------------------------------------------------------------ */

/* Deleted, Background: the garbage collector (or the operator) takes
 * its pods, and the ConfigMap the Job owns. */
int pai__k8s_delete_job(pai_client *c, json_t *job)
{
	const char *name =
	    pai__json_str(json_object_get(job, "metadata"), "name");
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_rq rq = {"DELETE", NULL, NULL, NULL, 1};
	int err;

	pai__k8s_path(&path, c, PAI__K8S_JOBS, name ? name : "",
		      "?propagationPolicy=Background");
	rq.path = path.data;
	err = path.oom ? pai__client_oom(c) : pai__k8s_call(NULL, c, &rq, NULL);
	pai__buf_release(&path);
	return err;
}

int pai__k8s_stop_by_delete(pai_client *c, json_t *job)
{
	int err = pai__k8s_delete_job(c, job);

	pai__k8s_of(c)->stop_deleted = err == PAI_OK;
	return err;
}

int pai__k8s_patch_job(json_t **out, pai_client *c, json_t *job, json_t *patch)
{
	const char *name =
	    pai__json_str(json_object_get(job, "metadata"), "name");
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_rq rq = {"PATCH", NULL, patch, "application/merge-patch+json",
			  1};
	int err;

	*out = NULL;
	pai__k8s_path(&path, c, PAI__K8S_JOBS, name ? name : "",
		      "?fieldManager=paictl");
	rq.path = path.data;
	err = path.oom ? pai__client_oom(c) : pai__k8s_call(out, c, &rq, NULL);
	pai__buf_release(&path);
	return err;
}

/* A job that has not ended is stopped as its kind stops one. */
static int job_stop(const struct pai__api *api, pai_client *c, const char *user,
		    const char *name)
{
	json_t *job = NULL;
	pai_state s;
	int err;

	pai__k8s_of(c)->stop_deleted = 0;
	if ((err = the_job(&job, api, c, user, name)))
		return err;
	s = pai__k8s_job_state(c, job);
	if (pai_state_is_final(s) || s == PAI_STATE_STOPPING)
		err = PAI_OK; /* nothing left to stop */
	else
		err = pai__k8s_engine(c)->stop(c, job, name);
	json_decref(job);
	return err;
}

/* pai_job_delete(): the job's object (whatever its kind) deleted in the
 * background, its pods and the ConfigMap it owns going with it by the
 * garbage collector. */
static int job_delete(const struct pai__api *api, pai_client *c,
		      const char *user, const char *name)
{
	json_t *job = NULL;
	int err;

	if ((err = the_job(&job, api, c, user, name)))
		return err;
	err = pai__k8s_delete_job(c, job);
	json_decref(job);
	return err;
}

/* ---- logs ------------------------------------------------------------ */

/* The pod log endpoint of task (§6): the pod's one log, standard output
 * and error as one stream ("all"; "previous": the run before). */
static int task_log_url(char **url, const struct pai__api *api, pai_client *c,
			const pai_job_info *job, const pai_task_info *task,
			const char *stream, int tail)
{
	long i = task - pai_job_info_task(job, 0);
	json_t *t = pai_job_info_task_json(job, i < 0 ? (size_t)-1 : (size_t)i);
	const char *pod = pai__json_str(t, "podName");
	const char *ctr = pai__json_str(t, "containerName");
	pai__buf path = PAI__BUF_INIT;
	int err;

	(void)api;
	(void)tail;
	if (strcmp(stream, "stderr") == 0 || strcmp(stream, "stdout") == 0)
		return pai__client_fail(
		    c, PAI_ENOTSUP, 0, NULL,
		    "on Kubernetes a container's standard output and error "
		    "are one log: leave out --stream %s",
		    stream);
	if (!pod || !pai__json_str(t, "containerLog"))
		return pai__client_fail(c, PAI_ENOTFOUND, 0, NULL,
					"task %s-%ld has no pod (yet)",
					task->role, task->index);
	pai__k8s_path(&path, c, PAI__K8S_PODS, pod, "/log");
	if (ctr) {
		pai__buf_puts(&path, "?container=");
		pai__buf_put_escaped(&path, ctr);
	}
	if (strcmp(stream, "previous") == 0)
		pai__buf_puts(&path, ctr ? "&previous=true" : "?previous=true");
	err = path.oom || !(*url = pai__url(c, path.data)) ? PAI_ENOMEM
							    : PAI_OK;
	pai__buf_release(&path);
	return err == PAI_ENOMEM ? pai__client_oom(c) : err;
}

const struct pai__api pai__api_k8s = {
    .id = PAI_API_K8S,
    .format = PAI_FORMAT_AUTO, /* either: pai_job_to_k8s() reads both */
    .lanes = 1,
    .openpai = NULL,
    .cluster_info = cluster_info,
    .login = no_login,
    .submit_request = pai__k8s_submit_request,
    .post_job = NULL,
    .stored_config = NULL,
    .job_get = pai__k8s_job_get,
    .jobs_list = pai__k8s_jobs_list,
    .job_config = job_config,
    .job_stop = job_stop,
    .job_ssh = no_ssh,
    .task_log_url = task_log_url,
    .submit = pai__k8s_submit,
    .job_changed = pai__k8s_job_changed,
    .logs_follow = pai__k8s_logs_follow,
    .task_exec = pai__k8s_task_exec,
    .job_delete = job_delete,
};
