/* cmd_stop.c - paictl stop: ask the cluster to stop a job */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_WAIT = 256, OPT_TIMEOUT };

const cli_opt cli_stop_opts[] = {
    {"wait", OPT_WAIT, NULL, NULL,
     "wait until the job has stopped and print its final state"},
    {"timeout", OPT_TIMEOUT, "SECONDS", NULL,
     "with --wait: give up after SECONDS (exit 8)"},
    CLI_OPT_END};

struct opts {
	int wait;
	double timeout; /* -1: none */
};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;

	if (key == OPT_WAIT)
		o->wait = 1;
	else if (key == OPT_TIMEOUT)
		return cli_timeout_opt(ctx, arg, &o->timeout);
	else
		return EXIT_USAGE;
	return 0;
}

/* The job's final state (NULL: not waited for): a line, or JSON
 * {name, user, state} (null then). */
static int print_state(const cli_ctx *ctx, const char *user,
		       const char *name, const char *state)
{
	if (ctx->output == CLI_OUT_JSON)
		return cli_print_json(json_pack("{s:s,s:s,s:s?}", "name", name,
						"user", user, "state",
						state)) < 0
			   ? EXIT_FAILURE_
			   : EXIT_OK;
	if (state)
		printf("%s\n", state);
	return EXIT_OK;
}

int cmd_stop(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	pai_state final;
	char *user = NULL, *name = NULL;
	struct opts o = {0, -1};
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (o.timeout >= 0 && !o.wait)
		return cli_error(ctx, EXIT_USAGE, "--timeout goes with --wait");
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st)
		goto out;
	do
		err = pai_job_stop(conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	if (err == PAI_ENOTFOUND) {
		/* v0.17's 404 carries the launcher's raw JSON: for -v only */
		st = cli_error(ctx, EXIT_NOTFOUND, "job '%s' not found",
			       argv[first]);
		if (ctx->verbose && pai_client_error(conn->client))
			cli_error(ctx, st, "the cluster said: %s",
				  pai_client_error(conn->client));
		goto out;
	}
	if (err) {
		st = cli_fail(ctx, conn, err, "cannot stop job '%s'",
			      argv[first]);
		goto out;
	}
	if (pai_job_stop_deleted(conn->client) && !ctx->quiet)
		cli_error(ctx, 0,
			  "'%s' cannot be stopped there, only deleted: it is "
			  "deleted, and its pods and their logs with it",
			  argv[first]);
	if (!o.wait) {
		/* asked, not known to be stopped: no state yet */
		st = print_state(ctx, user, name, NULL);
		goto out;
	}
	/* stopped is what was asked for: whatever the job's end, 0; a
	 * deleted job's end is its being gone */
	conn->deleted = pai_job_stop_deleted(conn->client);
	if ((st = cli_wait_job(ctx, conn, user, name, o.timeout, &final,
			       NULL)))
		goto out;
	st = print_state(ctx, user, name, pai_state_name(final));
out:
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
