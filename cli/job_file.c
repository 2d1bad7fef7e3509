/* job_opts.c - the options of every command that reads a job config:
 * --dialect, --format and --scheduler, parsed in one place */
#include "cli.h"
#include "error.h"

#include <stdlib.h>

int cli_job_opt(cli_ctx *ctx, int key, const char *arg, pai_job_options *o)
{
	switch (key) {
	case 'd':
		if (pai_dialect_from_name(&o->dialect, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown dialect '%s' (use openpai "
					 "or scm)",
					 arg);
		return 0;
	case CLI_OPT_FORMAT:
		if (pai_format_from_name(&o->format, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown format '%s' (use v1, v2 or "
					 "auto)",
					 arg);
		return 0;
	case CLI_OPT_SCHEDULER:
		if (pai_scheduler_from_name(&o->scheduler, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown scheduler '%s' (use hived "
					 "or default)",
					 arg);
		return 0;
	}
	return -1;
}

const char *cli_default_user(const char *given)
{
	const char *u = given;

	if (!u || !*u)
		u = getenv("PAICTL_USER");
	if (!u || !*u)
		u = getenv("USER");
	return u && *u ? u : NULL;
}
