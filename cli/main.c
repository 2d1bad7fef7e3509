/* main.c - paictl's entry point: the command table, and the dispatch to one
 * command (the helpers all commands share stand below: error.c, options.c,
 * connect.c, ...) */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_cmd commands[] = {
    {"validate", cmd_validate, cli_validate_opts, "FILE...",
     "check job configs against the cluster's rules"},
    {"expand", cmd_expand, cli_expand_opts, "FILE [ROLE [INDEX]]",
     "show each task's environment and command"},
    {"convert", cmd_convert, cli_convert_opts, "FILE",
     "convert a job config between v1 JSON and protocol-v2 YAML"},
    {"submit", cmd_submit, cli_submit_opts, "FILE...",
     "validate job configs and submit them"},
    {"list", cmd_list, cli_list_opts, "", "list your jobs, newest first"},
    {"status", cmd_status, cli_status_opts, "JOB",
     "show a job's state, times and tasks"},
    {"wait", cmd_wait, cli_wait_opts, "JOB", "wait for a job to end"},
    {"logs", cmd_logs, cli_logs_opts, "JOB [ROLE [INDEX]]",
     "print or follow the logs of a job's tasks"},
    {"stop", cmd_stop, cli_stop_opts, "JOB", "stop a job"},
    {"delete", cmd_delete, cli_delete_opts, "JOB...",
     "delete jobs that have ended, freeing their names"},
    {"ssh-key", cmd_ssh_key, cli_ssh_key_opts, "JOB",
     "save a job's SSH key and show how to reach its tasks"},
    {"ssh", cmd_ssh, cli_ssh_opts, "JOB [ROLE [INDEX]] [-- COMMAND [ARG...]]",
     "open a shell or run a command in a task's container"},
    {"ssh-config", cmd_ssh_config, cli_ssh_config_opts, "JOB",
     "print an OpenSSH config block for each task of a job"},
    {"login", cmd_login, cli_login_opts, "",
     "log in to a cluster and keep the token"},
    {"cluster", cmd_cluster, cli_cluster_opts,
     "add NAME URI | list | remove NAME | use NAME",
     "manage the cluster profiles"},
    {"serve", cmd_serve, cli_serve_opts, "",
     "run the local cluster in the foreground"},
    {"web", cmd_web, cli_web_opts, "[JOB]",
     "open the local cluster's jobs in a browser"},
    {NULL, NULL, NULL, NULL, NULL}};

static void usage(FILE *f)
{
	const cli_cmd *c;

	fprintf(f, "usage: paictl [--version] [--help] COMMAND [ARGS]\n\n"
		   "paictl is the job client for OpenPAI-style clusters.\n\n"
		   "Commands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "  %-10s %s\n  %-10s %s\n", "help",
		"show the commands, or a command's usage and options",
		"version", "show paictl's version");
	fprintf(f, "\nRun 'paictl COMMAND --help' for a command's options.\n");
}

/* --version, and the global options after it (-o json): "paictl
 * VERSION", or {"version": VERSION}. */
static const cli_opt no_opts[] = {CLI_OPT_END};
static const cli_cmd version_cmd = {"version", NULL, no_opts, "",
				    "show paictl's version"};

static int version(cli_ctx *ctx, int argc, char **argv)
{
	int first, st;

	ctx->cmd = "version";
	ctx->command = &version_cmd;
	if ((st = cli_parse(ctx, argc, argv, NULL, NULL, &first)) >= 0)
		return st;
	if (first < argc)
		return cli_error(ctx, EXIT_USAGE, "unexpected argument '%s'",
				 argv[first]);
	if (ctx->output == CLI_OUT_JSON)
		return cli_finish(ctx, cli_print_json(json_pack(
					   "{s:s}", "version", PAI_VERSION)) < 0
					   ? EXIT_FAILURE_
					   : EXIT_OK);
	printf("paictl %s\n", PAI_VERSION);
	return cli_finish(ctx, EXIT_OK);
}

/* An unknown command: the nearest name, as git says it, else the list. */
static int unknown_command(cli_ctx *ctx, const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0]) + 2];
	const char *best;
	size_t n = 0;
	const cli_cmd *c;

	for (c = commands; c->name; c++)
		names[n++] = c->name;
	names[n++] = "help";
	names[n++] = "version";
	best = pai_suggest(name, names, n);
	if (best)
		return cli_error(ctx, EXIT_USAGE,
				 "unknown command '%s'; did you mean '%s'?",
				 name, best);
	cli_error(ctx, EXIT_USAGE, "unknown command '%s'", name);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static char outbuf[BUFSIZ];
	cli_ctx ctx;
	const cli_cmd *cmd;
	int st;

	/* stdout's buffer, as stdio would choose it, but not from malloc:
	 * asked for after a large config is freed, it makes malloc sort
	 * every freed chunk first (a tenth of `validate`'s time) */
	setvbuf(stdout, outbuf, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF,
		sizeof(outbuf));
	memset(&ctx, 0, sizeof(ctx));
	ctx.commands = commands;
	/* global options may come before the command too */
	st = cli_parse_leading(&ctx, &argc, &argv);
	if (st == CLI_HELP_ASKED) {
		usage(stdout);
		return cli_finish(&ctx, EXIT_OK);
	}
	if (st >= 0)
		return st;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* hidden: for the shell completions (cmd_complete.c) */
	if (strcmp(argv[1], "__complete") == 0)
		return cmd_complete(&ctx, argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0 &&
		    strcmp(argv[2], "help") != 0) {
			cmd = strcmp(argv[2], "version") == 0
				  ? &version_cmd
				  : cli_find_command(commands, argv[2]);
			if (!cmd)
				return unknown_command(&ctx, argv[2]);
			cli_help(stdout, cmd);
			return cli_finish(&ctx, EXIT_OK);
		}
		usage(stdout);
		return cli_finish(&ctx, EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "version") == 0)
		return version(&ctx, argc - 1, argv + 1);
	cmd = cli_find_command(commands, argv[1]);
	if (!cmd)
		return unknown_command(&ctx, argv[1]);
	ctx.cmd = cmd->name;
	ctx.command = cmd;
	return cmd->fn(&ctx, argc - 1, argv + 1);
}
