/* cmd_delete.c - paictl delete: jobs that have ended deleted, their
 * names free again */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

const cli_opt cli_delete_opts[] = {CLI_OPT_END};

/* Deletes the job ref names: 0, or the exit status after saying why. */
static int delete_one(cli_ctx *ctx, cli_conn *conn, const char *ref,
		      json_t *out)
{
	char *user = NULL, *name = NULL;
	int st, err;

	if ((st = cli_job_ref(ctx, conn, ref, &user, &name)))
		return st;
	do
		err = pai_job_delete(conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		st = cli_fail(ctx, conn, err, "cannot delete job '%s'", ref);
		if (err == PAI_ENOTSUP)
			cli_error(ctx, st,
				  "'submit --unique' gives each run a name of "
				  "its own");
	} else if (ctx->output == CLI_OUT_JSON)
		json_array_append_new(out, json_pack("{s:s,s:s}", "name", name,
						     "user", user));
	else
		cli_note(ctx, "deleted job '%s'", ref);
	free(user);
	free(name);
	return st;
}

int cmd_delete(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	json_t *out = json_array();
	int first, st, i, s;

	st = cli_parse(ctx, argc, argv, NULL, NULL, &first);
	if (st >= 0 || !out) {
		json_decref(out);
		return st >= 0 ? st
			       : cli_error(ctx, EXIT_FAILURE_, "out of memory");
	}
	if (first >= argc) {
		json_decref(out);
		return cli_error(ctx, EXIT_USAGE,
				 "no job given; try 'paictl delete JOB'");
	}
	if ((st = cli_open(ctx, &conn)))
		goto out;
	for (i = first; i < argc; i++)
		if ((s = delete_one(ctx, conn, argv[i], out)) && !st)
			st = s;
	if (ctx->output == CLI_OUT_JSON && cli_print_json(json_incref(out)) < 0 &&
	    !st)
		st = EXIT_FAILURE_;
out:
	json_decref(out);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
