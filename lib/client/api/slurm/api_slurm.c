/* api_slurm.c - a Slurm cluster as an API module: its table, and the
 * operations that are a request or two (the cluster's ping, the job's
 * script, stop, SSH access to the tasks' nodes, log locations); login,
 * which Slurm's tokens have not. The rest is in the slurm_*.c files
 * beside it (slurm_api.h). */
#include "slurm_api.h"

#include "convert/convert.h" /* pai__shell_quote */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cluster_info(json_t **out, const struct pai__api *api, pai_client *c)
{
	(void)api;
	return pai__slurm_call(out, c, "GET", "ping", NULL, 1, NULL);
}

static int no_login(char **token, const struct pai__api *api, pai_client *c,
		    const char *user, const char *password, long expiration_s)
{
	(void)token;
	(void)api;
	(void)password;
	(void)expiration_s;
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
				"Slurm's slurmrestd takes a JWT, not a "
				"password: on a login node, 'scontrol token "
				"username=%s lifespan=SECONDS' prints one; "
				"give it with --token-file FILE or $SLURM_JWT",
				user);
}

/* The job's status (a job Slurm knows, or its directory's). */
static int status(pai_job_info **out, pai_client *c, const char *user,
		  const char *name)
{
	return pai__slurm_job_get(out, NULL, c, user, name);
}

/* The config as run: the batch script in the job's directory. */
static int job_config(char **text, size_t *len, const struct pai__api *api,
		      pai_client *c, const char *user, const char *name)
{
	pai_job_info *info = NULL;
	const char *dir;
	char *path = NULL;
	int err, e = 0;

	(void)api;
	if ((err = status(&info, c, user, name)))
		return err;
	dir = pai__json_str(pai__slurm_info_meta(info), "jobDir");
	if (!dir || asprintf(&path, "%s/job.sh", dir) < 0)
		path = NULL;
	err = path ? pai_file_read(text, len, &e, path) : PAI_ENOTFOUND;
	if (err)
		err = pai__client_fail(c, err == PAI_ENOMEM ? err : PAI_ENOTFOUND,
				       0, NULL,
				       "the script of job '%s' is not on this "
				       "machine (%s)",
				       name, path ? path : "no directory");
	free(path);
	pai_job_info_free(info);
	return err;
}

/* scancel: DELETE job/ID; a job that has ended is left as it is. */
static int job_stop(const struct pai__api *api, pai_client *c, const char *user,
		    const char *name)
{
	pai_job_info *info = NULL;
	json_t *meta;
	long long id = 0;
	char path[64];
	int err;

	(void)api;
	if ((err = status(&info, c, user, name)))
		return err;
	meta = pai__slurm_info_meta(info);
	pai__json_integer(json_object_get(meta, "jobId"), &id);
	if (!pai_state_is_final(pai_job_info_state(info)) &&
	    json_is_true(json_object_get(meta, "known"))) {
		snprintf(path, sizeof(path), "job/%lld", id);
		err = pai__slurm_call(NULL, c, "DELETE", path, NULL, 1, NULL);
		if (err == PAI_ENOTFOUND)
			err = PAI_OK; /* it ended meanwhile */
	}
	pai_job_info_free(info);
	return err;
}

/* pai_job_delete(): slurmrestd has no request that makes slurmctld
 * forget a job, and none is needed: it forgets an ended one by itself,
 * and the name is free again then (slurm_submit.c's conflict()). */
static int job_delete(const struct pai__api *api, pai_client *c,
		      const char *user, const char *name)
{
	(void)api;
	(void)user;
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
				"Slurm has no request that deletes a job: "
				"slurmctld forgets '%s' by itself once it has "
				"ended for MinJobAge (300 s by default), and "
				"the name is free again then",
				name);
}

/* The log of one task: its directory's file, here or over SFTP. */
static int task_log_url(char **url, const struct pai__api *api, pai_client *c,
			const pai_job_info *job, const pai_task_info *task,
			const char *stream, int tail)
{
	(void)api;
	(void)job;
	(void)tail;
	if (strcmp(stream, "all") == 0 || strcmp(stream, "previous") == 0)
		return pai__client_fail(
		    c, PAI_ENOTSUP, 0, NULL,
		    "on Slurm a task's output and error are two files, and "
		    "there is no earlier run: give --stream stdout or "
		    "stderr, or neither for both");
	if (!task->log_url)
		return pai__client_fail(c, PAI_ENOTFOUND, 0, NULL,
					"task %s-%ld has not started", task->role,
					task->index);
	if (asprintf(url, "%s%s", task->log_url, stream) < 0) {
		*url = NULL;
		return pai__client_oom(c);
	}
	return PAI_OK;
}

/* ---- SSH to the tasks' nodes ----------------------------------------- */

/* The nodes' addresses: name -> address (GET nodes); *out new. */
static int node_addresses(json_t **out, pai_client *c)
{
	json_t *o = NULL, *n, *map = json_object();
	size_t i;
	int err;

	*out = NULL;
	if (!map)
		return pai__client_oom(c);
	if ((err = pai__slurm_call(&o, c, "GET", "nodes", NULL, 1, NULL))) {
		json_decref(map);
		return err;
	}
	json_array_foreach(json_object_get(o, "nodes"), i, n)
	{
		const char *name = pai__json_str(n, "name");
		const char *addr = pai__json_str(n, "address");

		if (name)
			json_object_set_new(map, name,
					    json_string(addr ? addr : name));
	}
	json_decref(o);
	*out = map;
	return PAI_OK;
}

/* The line that sets a task up: its directory, its environment. */
static json_t *setup_of(const char *dir)
{
	pai__buf b = PAI__BUF_INIT;
	json_t *s;

	pai__buf_puts(&b, "cd ");
	pai__shell_quote(&b, dir);
	pai__buf_puts(&b, " && . ./env.sh");
	s = b.oom ? NULL : json_string(b.data);
	pai__buf_release(&b);
	return s;
}

/* One container a task that runs has: its node's address, the profile's
 * port, its set-up. */
static json_t *container(pai_client *c, const pai_job_info *info, size_t i,
			 json_t *addrs)
{
	const pai_task_info *t = pai_job_info_task(info, i);
	json_t *tj = pai_job_info_task_json(info, i);
	const char *node = pai__json_str(tj, "containerNodeName");
	const char *dir =
	    pai__json_str(pai__slurm_info_meta(info), "jobDir");
	char *tdir = NULL;
	json_t *o;

	if (!t || !t->container_id || !node || !dir ||
	    asprintf(&tdir, "%s/%s-%ld", dir, t->role, t->index) < 0)
		return NULL;
	o = json_pack("{s:s,s:s,s:I,s:o}", "id", t->container_id, "ip",
		      pai__json_str(addrs, node) ? pai__json_str(addrs, node)
						 : node,
		      "port", (json_int_t)pai__slurm_of(c)->s.ssh_port, "setup",
		      setup_of(tdir));
	free(tdir);
	return o;
}

static int fill_ssh(pai_ssh_info *s, pai_client *c)
{
	json_t *a = json_object_get(s->json, "containers"), *o;
	size_t i;

	s->count = json_array_size(a);
	s->containers = calloc(s->count + 1, sizeof(*s->containers));
	s->setup = calloc(s->count + 1, sizeof(*s->setup));
	if (!s->containers || !s->setup)
		return pai__client_oom(c);
	json_array_foreach(a, i, o)
	{
		s->containers[i].id = pai__json_str(o, "id");
		s->containers[i].ip = pai__json_str(o, "ip");
		s->containers[i].port =
		    (long)json_integer_value(json_object_get(o, "port"));
		s->setup[i] = pai__json_str(o, "setup");
	}
	s->login_user = pai__json_str(s->json, "user");
	return PAI_OK;
}

static int job_ssh(pai_ssh_info **out, const struct pai__api *api,
		   pai_client *c, const char *user, const char *name)
{
	pai_job_info *info = NULL;
	json_t *addrs = NULL, *list = NULL;
	size_t i;
	int err;

	(void)api;
	if ((err = status(&info, c, user, name)) ||
	    (err = node_addresses(&addrs, c)))
		goto out;
	if (!(list = json_array()) || !(*out = calloc(1, sizeof(**out)))) {
		err = pai__client_oom(c);
		goto out;
	}
	for (i = 0; i < pai_job_info_task_count(info); i++)
		json_array_append_new(list, container(c, info, i, addrs));
	(*out)->json = json_pack("{s:O,s:s}", "containers", list, "user", user);
	err = (*out)->json ? fill_ssh(*out, c) : pai__client_oom(c);
	if (err) {
		pai_ssh_info_free(*out);
		*out = NULL;
	}
out:
	json_decref(list);
	json_decref(addrs);
	pai_job_info_free(info);
	return err;
}

/* Over the login node's wire, the nodes are reached through it, as
 * they are from the login node (their addresses are its). */
static int ssh_jump(pai_ssh **out, const struct pai__api *api, pai_client *c)
{
	(void)api;
	*out = NULL;
	if (pai__slurm_of(c)->ops != &pai__slurm_ssh_ops)
		return PAI_OK;
	return pai__slurm_ssh_login(out, c);
}

const struct pai__api pai__api_slurm = {
    .id = PAI_API_SLURM,
    .format = PAI_FORMAT_AUTO, /* either: the runtime reads both */
    /* a batch's submissions share what the client knows of Slurm's
     * jobs under a lock of the module's (slurm_jobs.c) */
    .lanes = 1,
    .openpai = NULL,
    .cluster_info = cluster_info,
    .login = no_login,
    .submit_request = pai__slurm_submit_request,
    .post_job = NULL,
    .stored_config = NULL,
    .job_get = pai__slurm_job_get,
    .jobs_list = pai__slurm_jobs_list,
    .jobs_since = pai__slurm_jobs_since,
    .job_config = job_config,
    .job_stop = job_stop,
    .job_ssh = job_ssh,
    .task_log_url = task_log_url,
    .submit = pai__slurm_submit,
    .job_changed = NULL, /* Slurm pushes nothing: callers poll */
    .logs_follow = NULL,
    .task_exec = NULL, /* SSH to the node instead */
    .log_read = pai__slurm_log_read,
    .poll_ms = 1800,
    .job_delete = job_delete,
    .ssh_jump = ssh_jump,
};
