/* cmd_convert.c - paictl convert: a job config from v1 JSON to
 * protocol-v2 YAML or back. `-o` is the global --output, so the file to
 * write is --out, with no short letter. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_TO = 256, OPT_OUT, OPT_FORCE };

const cli_opt cli_convert_opts[] = {
    {"to", OPT_TO, "FORMAT", "v1|v2",
     "the format to write: v2 (protocol YAML) or v1 (JSON); required"},
    {"out", OPT_OUT, "FILE",
     NULL, "write to FILE (atomically) instead of standard output"},
    {"force", OPT_FORCE, NULL, NULL, "replace FILE if it exists"},
    CLI_JOB_OPTS,
    CLI_OPT_END};

struct opts {
	pai_job_options job;
	pai_format to;
	const char *out;
	int force;
};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	int st = cli_job_opt(ctx, key, arg, &o->job);

	if (st >= 0)
		return st;
	switch (key) {
	case OPT_TO:
		if (pai_format_from_name(&o->to, arg) ||
		    o->to == PAI_FORMAT_AUTO)
			return cli_error(ctx, EXIT_USAGE,
					 "unknown format '%s' (use v1 or v2)",
					 arg);
		return 0;
	case OPT_OUT: o->out = arg; return 0;
	case OPT_FORCE: o->force = 1; return 0;
	}
	return EXIT_USAGE;
}

static int write_out(cli_ctx *ctx, const struct opts *o, const char *text,
		     size_t len)
{
	int err;

	if (!o->out) {
		fwrite(text, 1, len, stdout);
		return EXIT_OK;
	}
	err = pai_file_write_atomic(o->out, text, len, 0666,
				    o->force ? 0 : PAI_WRITE_EXCLUSIVE);
	if (err == PAI_ECONFLICT)
		return cli_error(ctx, EXIT_CONFLICT,
				 "'%s' exists; use --force to replace it",
				 o->out);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot write '%s': %s", o->out,
				 pai_strerror(err));
	return EXIT_OK;
}

int cmd_convert(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {PAI_JOB_OPTIONS_INIT, PAI_FORMAT_AUTO, NULL, 0};
	pai_diags *diags = NULL;
	char *text = NULL, *res = NULL;
	const char *name;
	size_t len = 0, rlen = 0;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (o.to == PAI_FORMAT_AUTO)
		return cli_error(ctx, EXIT_USAGE,
				 "--to v1 or --to v2 is required");
	if (first >= argc || argc - first > 1)
		return cli_error(ctx, EXIT_USAGE,
				 "give one job config; try 'paictl convert "
				 "job.json --to v2' ('-' reads standard "
				 "input)");
	name = strcmp(argv[first], "-") == 0 ? "<stdin>" : argv[first];
	st = cli_read_input(ctx, argv[first], &text, &len);
	if (st)
		return st;
	if (pai_diags_new(&diags)) {
		free(text);
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	}
	err = pai_job_convert(&res, &rlen, diags, name, text, len, &o.job,
			      o.to);
	cli_print_diags(stderr, diags, 0);
	if (err == PAI_ESYNTAX || err == PAI_EINVALID)
		st = EXIT_INVALID;
	else if (err)
		st = cli_error(ctx, cli_exit_status(err), "'%s': %s", name,
			       pai_strerror(err));
	else
		st = write_out(ctx, &o, res, rlen);
	free(res);
	free(text);
	pai_diags_free(diags);
	return cli_finish(ctx, st);
}
