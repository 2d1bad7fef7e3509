/* cmd_expand.c - placeholder, being written */
#include "cli.h"
const cli_opt cli_expand_opts[] = { CLI_OPT_OUTPUT, CLI_OPT_HELP, CLI_OPT_END };
int cmd_expand(cli_ctx *ctx, int argc, char **argv)
{
	(void)argc; (void)argv;
	return cli_error(ctx, EXIT_FAILURE_, "not yet");
}
