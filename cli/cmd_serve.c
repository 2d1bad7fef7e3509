/* cmd_serve.c - paictl serve: run the local cluster in the foreground */
#include "cli.h"
#include "../server/server.h"

#include <stdlib.h>
#include <string.h>

enum {
	OPT_STATE_DIR = 256,
	OPT_LISTEN,
	OPT_SOCKET,
	OPT_USERS,
	OPT_GRACE,
	OPT_CAPACITY,
	OPT_NO_SSH
};

const cli_opt cli_serve_opts[] = {
    {"state-dir", OPT_STATE_DIR, "DIR", NULL,
     "keep jobs, logs and the socket in DIR (default "
     "$XDG_STATE_HOME/paictl/local)"},
    {"socket", OPT_SOCKET, "PATH", NULL,
     "listen on the Unix socket PATH (default DIR/api.sock)"},
    {"listen", OPT_LISTEN, "ADDR:PORT", NULL,
     "also listen on TCP; mutating calls then need a token"},
    {"users", OPT_USERS, "FILE", NULL,
     "accounts for tokens: 'user:password[:admin]' lines, mode 0600"},
    {"capacity", OPT_CAPACITY, "SPEC", NULL,
     "queue jobs FIFO within cpus=N,memory=MB,gpus=G (default: "
     "run every job at once)"},
    {"no-ssh", OPT_NO_SSH, NULL, NULL,
     "start no sshd for tasks, even when openssh-server is installed"},
    {"grace", OPT_GRACE, "SECONDS", NULL,
     "time between SIGTERM and SIGKILL when stopping (default 10)"},
    CLI_OPT_QUIET,
    CLI_OPT_HELP,
    CLI_OPT_END};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	srv_options *o = data;
	char *end;
	double secs;

	switch (key) {
	case OPT_STATE_DIR: o->state_dir = arg; return 0;
	case OPT_SOCKET: o->socket = arg; return 0;
	case OPT_LISTEN: o->listen = arg; return 0;
	case OPT_USERS: o->users_file = arg; return 0;
	case OPT_CAPACITY: o->capacity = arg; return 0;
	case OPT_NO_SSH: o->no_ssh = 1; return 0;
	case OPT_GRACE:
		secs = strtod(arg, &end);
		if (!*arg || *end || secs < 0 || secs > 3600)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --grace '%s' (seconds, "
					 "0 to 3600)",
					 arg);
		o->grace_ms = (int)(secs * 1000);
		return 0;
	}
	return EXIT_USAGE;
}

int cmd_serve(cli_ctx *ctx, int argc, char **argv)
{
	srv_options o = SRV_OPTIONS_INIT;
	char err[512];
	int first, st;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (first < argc)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; see 'paictl serve "
				 "--help'",
				 argv[first]);
	o.quiet = ctx->quiet;
	st = srv_run(&o, err, sizeof(err));
	if (st < 0)
		return cli_error(ctx, st == -2 ? EXIT_USAGE : EXIT_FAILURE_,
				 "%s", err);
	return EXIT_OK;
}
