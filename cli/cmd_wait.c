/* cmd_wait.c - paictl wait: until the job ends (the waiting itself,
 * shared with submit --wait and stop --wait, is wait.c's) */
#include "cli.h"
#include "error.h"

#include <stdlib.h>

enum { OPT_TIMEOUT = 256 };

const cli_opt cli_wait_opts[] = {
    {"timeout", OPT_TIMEOUT, "SECONDS", NULL,
     "give up after SECONDS (exit 8); default: wait as long as it takes"},
    CLI_OPT_END};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	if (key != OPT_TIMEOUT)
		return EXIT_USAGE;
	return cli_timeout_opt(ctx, arg, data);
}

int cmd_wait(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	pai_job_info *info = NULL;
	pai_state final;
	double timeout = -1;
	char *user = NULL, *name = NULL;
	int first, st;

	st = cli_parse(ctx, argc, argv, on_opt, &timeout, &first);
	if (st >= 0)
		return st;
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st)
		goto out;
	st = cli_wait_job(ctx, conn, user, name, timeout, &final, &info);
	if (st)
		goto out;
	if (ctx->output == CLI_OUT_JSON) {
		int has_exit = 0,
		    code = pai_job_info_exit_code(info, &has_exit);

		if (cli_print_json(json_pack(
			"{s:s,s:s,s:s,s:o}", "name", name, "user", user,
			"state", pai_state_name(final), "exitCode",
			has_exit ? json_integer(code) : json_null())) < 0)
			st = EXIT_FAILURE_;
	} else
		printf("%s\n", pai_state_name(final));
	if (!st)
		st = cli_final_status(final);
out:
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
