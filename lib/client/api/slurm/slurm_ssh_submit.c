/* slurm_ssh_submit.c - a submission over the login node's wire
 * (slurm_ssh.c): the body slurm_submit.c made for slurmrestd (the batch
 * script, one component or several) as sbatch takes it: the script
 * written over SFTP as job.sh in the job's directory, each component's
 * members as sbatch's options (components apart by " : "), every word
 * single-quoted, `sbatch --parsable` read strictly. A member sbatch
 * cannot be told is refused, never dropped. */
#include "slurm_api.h"

#include "ssh/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A component's members as sbatch's options: 's' a string, 'n' a
 * number, 'e' the environment, 0 left to the script. */
static const struct option {
	const char *key, *flag;
	char kind;
} options[] = {
    {"name", "--job-name=", 's'},
    {"current_working_directory", "--chdir=", 's'},
    {"standard_output", "--output=", 's'},
    {"comment", "--comment=", 's'},
    {"partition", "--partition=", 's'},
    {"account", "--account=", 's'},
    {"qos", "--qos=", 's'},
    {"gpus_per_task", "--gpus-per-task=", 's'},
    {"tasks", "--ntasks=", 'n'},
    {"cpus_per_task", "--cpus-per-task=", 'n'},
    {"memory_per_cpu", "--mem-per-cpu=", 'n'},
    {"environment", "--export=ALL", 'e'},
};

static const struct option *option_of(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (strcmp(options[i].key, key) == 0)
			return &options[i];
	return NULL;
}

/* One "K=V" of the environment onto b (",K=V"); -1 for one sbatch's
 * --export cannot carry (a ',' in it). */
static int env_pair(pai__buf *b, const char *k, const char *v)
{
	if (strchr(k, ',') || strchr(k, '=') || !*k || (v && strchr(v, ',')))
		return -1;
	pai__buf_printf(b, ",%s=%s", k, v ? v : "");
	return 0;
}

/* --export=ALL,K=V,... of either shape of the environment. */
static int env_option(pai__buf *cmd, json_t *env)
{
	pai__buf b = PAI__BUF_INIT;
	const char *k, *s;
	json_t *v;
	size_t i;
	int bad = 0;

	pai__buf_puts(&b, "--export=ALL");
	if (json_is_object(env))
		json_object_foreach(env, k, v) bad |=
		    env_pair(&b, k, json_string_value(v));
	else
		json_array_foreach(env, i, v)
		{
			char key[256];

			s = json_string_value(v);
			if (!s || strcspn(s, "=") >= sizeof(key)) {
				bad = 1;
				continue;
			}
			snprintf(key, sizeof(key), "%.*s", (int)strcspn(s, "="),
				 s);
			bad |= env_pair(&b, key,
					strchr(s, '=') ? strchr(s, '=') + 1
						       : NULL);
		}
	if (!bad && !b.oom) {
		pai__buf_putc(cmd, ' ');
		pai__sh_quote(cmd, b.data);
	}
	pai__buf_release(&b);
	return bad ? -1 : 0;
}

/* One component's options onto cmd; -1 with *what the member that
 * sbatch cannot be told. */
static int component(pai__buf *cmd, json_t *comp, const char **what)
{
	pai__buf w = PAI__BUF_INIT;
	const struct option *opt;
	const char *k;
	json_t *v;
	int bad = 0;

	json_object_foreach(comp, k, v)
	{
		if (bad)
			break;
		*what = k;
		w.len = 0;
		if (!(opt = option_of(k)))
			bad = 1;
		else if (opt->kind == 'e')
			bad = env_option(cmd, v);
		else if (opt->kind == 'n' && json_is_integer(v))
			pai__buf_printf(&w, "%s%lld", opt->flag,
					(long long)json_integer_value(v));
		else if (opt->kind == 's' && json_is_string(v))
			pai__buf_printf(&w, "%s%s", opt->flag,
					json_string_value(v));
		else
			bad = 1;
		if (!bad && w.len) {
			pai__buf_putc(cmd, ' ');
			pai__sh_quote(cmd, w.data);
		}
	}
	pai__buf_release(&w);
	return bad ? -1 : 0;
}

/* The sbatch command for body, its script at path; *cmd new. */
static int command(pai_client *c, char **out, json_t *body, const char *path)
{
	json_t *one = json_object_get(body, "job");
	json_t *comps = json_object_get(body, "jobs"), *comp;
	pai__buf cmd = PAI__BUF_INIT;
	const char *what = "job";
	size_t i, n = one ? 1 : json_array_size(comps);
	int bad = n == 0;

	*out = NULL;
	pai__buf_puts(&cmd, "sbatch --parsable");
	for (i = 0; !bad && i < n; i++) {
		comp = one ? one : json_array_get(comps, i);
		if (i)
			pai__buf_puts(&cmd, " :");
		bad = !json_is_object(comp) || component(&cmd, comp, &what);
	}
	pai__buf_putc(&cmd, ' ');
	pai__sh_quote(&cmd, path);
	if (bad) {
		pai__buf_release(&cmd);
		return pai__client_fail(c, PAI_EINVALID, 0, NULL,
					"the job's '%s' cannot be given to "
					"sbatch (a ',' in the environment?)",
					what);
	}
	if (cmd.oom)
		return pai__client_oom(c);
	*out = cmd.data;
	return PAI_OK;
}

/* The job's directory (<workdir>/<name>/<sub>, made as the script makes
 * it) and the script in it as job.sh, over SFTP: *path new. */
static int put_script(pai_client *c, pai_ssh *ssh, json_t *body, char **path)
{
	json_t *comp = json_object_get(body, "job");
	const char *script = pai__json_str(body, "script");
	const char *name;
	char *jobdir = NULL, *parent = NULL;
	struct pai__slurm_note n;
	int err;

	*path = NULL;
	if (!comp)
		comp = json_array_get(json_object_get(body, "jobs"), 0);
	/* <workdir>/<name>/<sub>: the submission's id in the comment */
	name = pai__json_str(comp, "name");
	if (!script || !name || !pai__slurm_note(&n, comp))
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"a submission without its script, "
					"name or comment");
	if (!(jobdir = pai__slurm_jobdir(c, name, n.sub)) ||
	    !(parent = strdup(jobdir)) ||
	    asprintf(path, "%s/job.sh", jobdir) < 0) {
		free(jobdir);
		free(parent);
		*path = NULL;
		return pai__client_oom(c);
	}
	*strrchr(parent, '/') = '\0';
	if ((err = pai__ssh_mkdir(ssh, parent, 0777)) ||
	    (err = pai__ssh_mkdir(ssh, jobdir, 0777)) ||
	    (err = pai__ssh_put(ssh, *path, script, strlen(script), 0700)))
		err = pai__client_fail(c, err, 0, NULL, "login node %s: %s",
				       pai__slurm_of(c)->login_host,
				       pai_ssh_detail(ssh));
	free(jobdir);
	free(parent);
	if (err) {
		free(*path);
		*path = NULL;
	}
	return err;
}

int pai__slurm_ssh_submit(json_t **out, pai_client *c, json_t *body, int *maybe)
{
	struct pai__ssh_out o;
	char *path = NULL, *cmd = NULL, cluster[64];
	pai_ssh *ssh;
	long long id = 0;
	int err, sent = 0;

	memset(&o, 0, sizeof(o));
	if ((err = pai__slurm_ssh_login(&ssh, c)) ||
	    (err = put_script(c, ssh, body, &path)) ||
	    (err = command(c, &cmd, body, path)))
		goto out;
	err = pai__slurm_ssh_run(c, cmd, &o, &sent);
	if (err) {
		/* it went: whether sbatch made the job cannot be told */
		*maybe = sent;
		goto out;
	}
	if (o.status != 0) {
		err = pai__slurm_ssh_refused(c, "sbatch", &o);
		goto out;
	}
	if (pai__slurm_parsable_read(&id, cluster, sizeof(cluster),
				     o.out.data ? o.out.data : "", o.out.len)) {
		char line[81];

		/* sbatch said something else: the job may be there */
		*maybe = 1;
		pai__slurm_ssh_line(line, sizeof(line), &o.out);
		err = pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
				       "sbatch --parsable printed no job id: "
				       "'%s'",
				       line);
		goto out;
	}
	if (out && !(*out = json_pack("{s:I}", "job_id", (json_int_t)id)))
		err = pai__client_oom(c);
out:
	pai__ssh_out_release(&o);
	free(path);
	free(cmd);
	return err;
}
