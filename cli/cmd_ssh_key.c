/* cmd_ssh_key.c - paictl ssh-key: save a job's private key, print how to
 * reach each task */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_FORCE = 256 };

const cli_opt cli_ssh_key_opts[] = {
    {"out", 'O', "FILE", NULL,
     "save the key as FILE (default: under the state directory)"},
    {"force", OPT_FORCE, NULL, NULL,
     "replace FILE if it holds another key"},
    CLI_OLD("output-file", 'O', "FILE", "--out"),
    CLI_OPT_END};

struct opts {
	const char *file;
	int force;
};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;

	(void)ctx;
	if (key == 'O')
		o->file = arg;
	else if (key == OPT_FORCE)
		o->force = 1;
	else
		return EXIT_USAGE;
	return 0;
}

/* The key to log in with: the job's, saved (file, or under the state
 * directory); where jobs have none (OpenPAI v1.x), the user's own, said
 * so. *path new ("" for the ssh-agent's keys). 0, or the exit status. */
static int which_key(cli_ctx *ctx, cli_conn *conn, const pai_ssh_info *ssh,
		     const char *user, const char *name, const char *ref,
		     const struct opts *o, char **path)
{
	cli_identity id;
	int st, existed = 0;

	*path = NULL;
	if (pai_ssh_info_key_url(ssh) || o->file) {
		st = cli_ssh_key_fetch(ctx, conn, ssh, user, name, ref, o->file,
				       o->force ? CLI_KEY_REPLACE
						: CLI_KEY_FETCH,
				       path, &existed);
		if (!st && existed && ctx->verbose)
			cli_error(ctx, 0, "'%s' holds this key already", *path);
		return st;
	}
	if ((st = cli_ssh_identity(ctx, conn, ssh, user, name, ref, NULL, &id)))
		return st;
	if (!ctx->quiet)
		cli_error(ctx, 0,
			  "job '%s' has no key of its own: its tasks let in "
			  "your SSH key%s%s (added by 'paictl submit')",
			  ref, id.key ? ", " : " (ssh-agent)",
			  id.key ? id.key : "");
	*path = id.key ? id.key : strdup("");
	return *path ? EXIT_OK : cli_error(ctx, EXIT_FAILURE_, "out of memory");
}

/* How to reach each task: ssh command lines, or JSON. */
static int print_access(const cli_ctx *ctx, const cli_conn *conn,
			const pai_ssh_info *ssh, const pai_job_info *info,
			const char *path)
{
	const char *login = cli_ssh_user(conn);
	char *quoted = cli_sh_quote(path);
	json_t *out = json_pack("{s:s,s:[]}", "key", path, "tasks");
	int st = EXIT_OK;
	size_t i;

	if (!quoted || !out)
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
	if (!st && ctx->output == CLI_OUT_TEXT && *path)
		printf("%s\n", path);
	for (i = 0; !st && i < pai_ssh_info_count(ssh); i++) {
		const pai_ssh_container *c = pai_ssh_info_get(ssh, i);
		const pai_task_info *t = c ? cli_task_of(info, c->id) : NULL;

		if (!c || !c->ip)
			continue;
		if (ctx->output == CLI_OUT_JSON)
			json_array_append_new(
			    json_object_get(out, "tasks"),
			    json_pack("{s:s?,s:o,s:s?,s:s,s:i,s:s}", "role",
				      t ? t->role : NULL, "index",
				      t ? json_integer(t->index) : json_null(),
				      "containerId", c->id, "ip", c->ip, "port",
				      (int)c->port, "user", login));
		else {
			printf("ssh%s%s -p %ld %s@%s", *path ? " -i " : "",
			       *path ? quoted : "", c->port, login, c->ip);
			if (t)
				printf("  # %s-%ld", t->role, t->index);
			putchar('\n');
		}
	}
	if (!st && ctx->output == CLI_OUT_JSON &&
	    cli_print_json(json_incref(out)) < 0)
		st = EXIT_FAILURE_;
	json_decref(out);
	free(quoted);
	return st;
}

int cmd_ssh_key(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {NULL, 0};
	cli_conn *conn = NULL;
	pai_ssh_info *ssh = NULL;
	pai_job_info *info = NULL;
	char *user = NULL, *name = NULL, *path = NULL;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st)
		goto out;
	do
		err = pai_job_get_ssh(&ssh, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		st = cli_fail(ctx, conn, err, "no SSH access to job '%s'",
			      argv[first]);
		goto out;
	}
	if ((st = which_key(ctx, conn, ssh, user, name, argv[first], &o,
			    &path)))
		goto out;
	/* the job's status names each container's task */
	do
		err = pai_job_get(&info, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	st = err ? cli_fail(ctx, conn, err, "cannot get job '%s'", argv[first])
		 : print_access(ctx, conn, ssh, info, path);
out:
	free(path);
	pai_ssh_info_free(ssh);
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
