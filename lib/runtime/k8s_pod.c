/* k8s_pod.c - the environment a pod of a converted job sees:
 * pai_expand_task() with the placement of k8s_names.c (DNS names and
 * fixed ports), less what Kubernetes cannot give, and for expand, what
 * its controller sets besides (k8s_own.c). */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

static int in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

static int same(const char *a, const char *b)
{
	return b && strcmp(a, b) == 0;
}

enum pai__k8s_var pai__k8s_var_kind(const struct pai__k8s *k, size_t r,
				    size_t i, const char *name,
				    const char *value)
{
	static const char *const index[] = {
	    "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "PAI_TASK_INDEX",
	    "PAI_TASK_ROLE_INDEX", NULL};
	static const char *const ip[] = {"PAI_CONTAINER_HOST_IP",
					 "PAI_CURRENT_CONTAINER_IP", NULL};
	struct pai__k8s *kk = (struct pai__k8s *)k;
	char num[32];

	snprintf(num, sizeof(num), "%zu", i);
	/* the single task's pod has no index of its own: always 0 */
	if (in_list(name, index) && strcmp(value, num) == 0 &&
	    !pai__k8s_single(k, r))
		return PAI__K8S_INDEX;
	/* out of memory, the pod's name and pai__k8s_host() say NULL and
	 * leave k->scratch.oom set for the caller to see */
	if (strcmp(name, "PAI_CONTAINER_ID") == 0 &&
	    same(value, kk->pl.container_id(kk, r, i)))
		return PAI__K8S_POD_NAME;
	if (in_list(name, ip) && same(value, pai__k8s_host(kk, r, i)))
		return PAI__K8S_POD_IP;
	if (strcmp(name, "PAI_WORK_DIR") == 0 &&
	    strncmp(value, "<work-dir:", 10) == 0)
		return PAI__K8S_WORK_DIR;
	return PAI__K8S_STATIC;
}

/* What only OpenPAI knows: the placeholders pai_expand_task() writes for
 * the HDFS URI, an unknown user and the v1.x framework's ids. */
static int unknown_here(const char *v)
{
	static const char *const marks[] = {
	    "<default-fs>",	       "<user>",
	    "<md5:",	       "<framework-",
	    "<configmap-uid>", "<task-role-uid:",
	    "<task-uid:",      "<task-attempt-id:",
	    "<gpus:",	       NULL};
	size_t m;

	for (m = 0; marks[m]; m++)
		if (strstr(v, marks[m]))
			return 1;
	return 0;
}

int pai__k8s_is_job_env(const pai_job *job, const char *name)
{
	json_t *envs = json_object_get(pai_job_config(job), "jobEnvs");

	return pai_job_format(job) == PAI_FORMAT_V1 &&
	       json_object_get(envs, name) != NULL;
}

/* n=v into the pod's environment, unless a pod on Kubernetes does not
 * get it (into dropped, if a PAI_ variable), or the controller sets it
 * itself (the job's value would not count). */
static int keep(pai_env *to, json_t *dropped, const struct pai__k8s *k,
		const char *n, const char *v)
{
	const struct pai__k8s_own *own = pai__k8s_own_env(k, n);

	if (own && !own->job_wins)
		return PAI_OK;
	if (!pai__k8s_is_job_env(k->job, n) &&
	    (strncmp(n, "PAI_", 4) || unknown_here(v)))
		return strncmp(n, "PAI_", 4) == 0 && dropped &&
			       json_object_set_new(dropped, n, json_string(v))
			   ? PAI_ENOMEM
			   : PAI_OK;
	return pai__env_put(to, n, v, false);
}

/* The runtime's environment of pod i of role r (or with `current` only
 * its variables that differ between tasks), placed as the pods are. */
static int runtime_env(pai_env **all, struct pai__k8s *k, size_t r, size_t i,
		       int current)
{
	pai_expand_options eo = PAI_EXPAND_OPTIONS_INIT;

	eo.user = k->o.user;
	/* a default file system given: its variables are the pods' too */
	eo.fs_uri = k->o.fs_uri;
	eo.placement = &k->pl;
	if (current)
		return pai__expand_current(all, k->job, r, i, &eo);
	return pai_expand_task(all, k->job, r, i, &eo);
}

/* What a pod gets of the runtime's environment all (keep()), and its
 * command. */
static int pod_vars(pai_env **out, json_t *dropped, struct pai__k8s *k,
		    const pai_env *all)
{
	pai_env *env = pai__env_new();
	size_t j, n = pai_env_count(all);
	char *cmd;
	int err = env ? PAI_OK : PAI_ENOMEM;

	for (j = 0; !err && j < n; j++)
		err = keep(env, dropped, k, pai_env_name(all, j),
			   pai_env_value(all, j));
	if (!err) {
		cmd = strdup(pai_env_command(all) ? pai_env_command(all) : "");
		err = cmd ? pai__env_set_command(env, cmd) : PAI_ENOMEM;
	}
	if (!err && k->scratch.oom)
		err = PAI_ENOMEM; /* a placement answer was lost */
	if (err) {
		pai_env_free(env);
		return err;
	}
	*out = env;
	return PAI_OK;
}

int pai__k8s_pod_env(pai_env **out, json_t **dropped, struct pai__k8s *k,
		     size_t r, size_t i, int current)
{
	pai_env *all = NULL;
	int err;

	*out = NULL;
	if (dropped && !(*dropped = json_object()))
		return PAI_ENOMEM;
	err = runtime_env(&all, k, r, i, current);
	if (!err)
		err = pod_vars(out, dropped ? *dropped : NULL, k, all);
	pai_env_free(all);
	if (err && dropped) {
		json_decref(*dropped);
		*dropped = NULL;
	}
	return err;
}

/* env, the pod's environment of pod i of role r, and all, the runtime's,
 * with what the controller sets in the pod itself, and the command with
 * those in it as in all (where a jobEnv of a name the controller sets
 * gave way to the controller's value). */
static int with_own_vars(pai_env *env, pai_env *all, struct pai__k8s *k,
			 size_t r, size_t i)
{
	char *cmd = NULL;
	int err = pai__k8s_own_vars(env, all, k, r, i);

	if (!err)
		err = pai__shown_command(&cmd, k->job, r);
	if (!err)
		err = pai__env_finish(all, cmd);
	free(cmd);
	if (!err) {
		cmd = strdup(pai_env_command(all));
		err = cmd ? pai__env_set_command(env, cmd) : PAI_ENOMEM;
	}
	return err;
}

int pai__env_shared(json_t **shared, const pai_job *job, const pai_env *all,
		    const pai_env *own)
{
	size_t j, n = pai_env_count(all);

	if (!(*shared = json_object()))
		return PAI_ENOMEM;
	for (j = 0; j < n; j++) {
		const char *name = pai_env_name(all, j);
		const char *value = pai_env_value(all, j);

		if (pai_env_get(own, name) && !pai__k8s_is_job_env(job, name))
			continue;
		if (json_object_set_new(*shared, name,
					json_string(value ? value : "")))
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* The variables every pod shares: the first task's, less those about the
 * task itself (pai__expand_current()), which are the same in every task
 * of the job by construction. */
int pai__k8s_shared_env(json_t **shared, json_t **dropped, struct pai__k8s *k)
{
	pai_env *all = NULL, *own = NULL;
	int err = pai__k8s_pod_env(&all, dropped, k, 0, 0, 0);

	if (!err)
		err = pai__k8s_pod_env(&own, NULL, k, 0, 0, 1);
	if (!err)
		err = pai__env_shared(shared, k->job, all, own);
	pai_env_free(all);
	pai_env_free(own);
	return err;
}

int pai_k8s_expand_task(pai_env **out, const pai_job *job, size_t role,
			size_t index, const pai_k8s_options *opts)
{
	pai_env *all = NULL;
	struct pai__k8s k;
	int err;

	if (out)
		*out = NULL;
	if (!out || !job || !opts ||
	    !pai__k8s_options_size(opts->version))
		return PAI_EINVAL;
	err = pai__k8s_init(&k, job, opts);
	if (!err)
		err = runtime_env(&all, &k, role, index, 0);
	if (!err)
		err = pod_vars(out, NULL, &k, all);
	if (!err)
		err = with_own_vars(*out, all, &k, role, index);
	if (err) {
		pai_env_free(*out);
		*out = NULL;
	}
	pai_env_free(all);
	pai__k8s_release(&k);
	return err;
}
