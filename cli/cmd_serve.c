/* cmd_serve.c - paictl serve: run the local cluster in the foreground */
#include "cli.h"
#include "error.h"
#include "../server/server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_STATE_DIR = 256,
	OPT_LISTEN,
	OPT_SOCKET,
	OPT_USERS,
	OPT_GRACE,
	OPT_CAPACITY,
	OPT_NO_SSH,
	OPT_NO_CGROUP,
	OPT_RUNTIME,
	OPT_PULL_TIMEOUT,
	OPT_BACKGROUND,
	OPT_STATUS,
	OPT_STOP
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
    {"background", OPT_BACKGROUND, NULL, NULL,
     "start in the background unless one runs already; print the socket "
     "once it answers (log: DIR/server.log)"},
    {"no-ssh", OPT_NO_SSH, NULL, NULL,
     "start no sshd for tasks, even when openssh-server is installed"},
    {"no-cgroup", OPT_NO_CGROUP, NULL, NULL,
     "make no cgroup per task: find a task's processes as its monitor's "
     "descendants only"},
    {"runtime", OPT_RUNTIME, "podman|process", NULL,
     "run each task in its image with podman, or as a process on this "
     "machine, as the server's user, not in its image (default: podman "
     "where it is installed and answers, else process; "
     "$PAICTL_SERVE_RUNTIME)"},
    {"pull-timeout", OPT_PULL_TIMEOUT, "SECONDS", NULL,
     "with podman: fail a task whose image is not there after SECONDS of "
     "pulling (default 1800)"},
    {"grace", OPT_GRACE, "SECONDS", NULL,
     "time between SIGTERM and SIGKILL when stopping (default 10)"},
    {"status", OPT_STATUS, NULL, NULL,
     "say whether a local cluster runs in DIR (exit 0) or not (exit 6)"},
    {"stop", OPT_STOP, NULL, NULL,
     "stop the local cluster of DIR and wait until it has; its running "
     "tasks go on and the next server adopts them"},
    CLI_OPT_END};

/* What cmd_serve() does besides serving: --status, --stop. */
static int ctl_action;

/* arg as seconds from lo to hi into *secs: 0, or -1 when it is not */
static int seconds(const char *arg, double lo, double hi, double *secs)
{
	char *end;

	*secs = strtod(arg, &end);
	return !*arg || *end || *secs < lo || *secs > hi ? -1 : 0;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	srv_options *o = data;
	double secs;

	switch (key) {
	case OPT_STATE_DIR: o->state_dir = arg; return 0;
	case OPT_SOCKET: o->socket = arg; return 0;
	case OPT_LISTEN: o->listen = arg; return 0;
	case OPT_USERS: o->users_file = arg; return 0;
	case OPT_CAPACITY: o->capacity = arg; return 0;
	case OPT_NO_SSH: o->no_ssh = 1; return 0;
	case OPT_NO_CGROUP: o->no_cgroup = 1; return 0;
	case OPT_RUNTIME:
		if (strcmp(arg, "podman") != 0 && strcmp(arg, "process") != 0)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --runtime '%s' (podman or "
					 "process)",
					 arg);
		o->runtime = arg;
		return 0;
	case OPT_BACKGROUND: o->log_to_state = 1; return 0;
	case OPT_STATUS:
	case OPT_STOP: ctl_action = key; return 0;
	case OPT_PULL_TIMEOUT:
		if (seconds(arg, 1, 86400, &secs) < 0)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --pull-timeout '%s' (seconds, "
					 "1 to 86400)",
					 arg);
		o->pull_timeout_s = (int)secs;
		return 0;
	case OPT_GRACE:
		if (seconds(arg, 0, 3600, &secs) < 0)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --grace '%s' (seconds, "
					 "0 to 3600)",
					 arg);
		o->grace_ms = (int)(secs * 1000);
		return 0;
	}
	return EXIT_USAGE;
}

/* The socket, for whoever started us; with -o json, and whether this
 * start started it ("started": false when one ran already, as the
 * lock on the state directory tells). */
static int started(cli_ctx *ctx, const char *socket, int now)
{
	if (ctx->output == CLI_OUT_JSON)
		return cli_finish(ctx, cli_print_json(json_pack(
					   "{s:s,s:b}", "socket", socket,
					   "started", now)) < 0
					   ? EXIT_FAILURE_
					   : EXIT_OK);
	printf("%s\n", socket);
	return cli_finish(ctx, EXIT_OK);
}

/* --background: the server runs in a new session and reports on a
 * pipe once it answers (or why it could not start). The lock on the
 * state directory makes a second start report "running" instead. */
static int background(cli_ctx *ctx, srv_options *o)
{
	char line[600], err[512];
	size_t len = 0;
	ssize_t n;
	int p[2], st, null;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return cli_error(ctx, EXIT_FAILURE_, "cannot start: %s",
				 strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cli_error(ctx, EXIT_FAILURE_, "cannot start: %s",
				 strerror(errno));
	if (pid == 0) {
		close(p[0]);
		setsid();
		/* hold nothing of the caller's: $(paictl serve --background)
		 * must see end of file */
		if (p[1] > 3)
			close_range(3, (unsigned)p[1] - 1, 0);
		close_range((unsigned)p[1] + 1, ~0U, 0);
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			close(null);
		}
		o->ready_fd = p[1];
		st = srv_run(o, err, sizeof(err));
		_exit(st == 0 ? 0 : 1);
	}
	close(p[1]);
	while (len < sizeof(line) - 1 &&
	       ((n = read(p[0], line + len, sizeof(line) - 1 - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close(p[0]);
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "ok ", 3) == 0 || strncmp(line, "running ", 8) == 0)
		return started(ctx, strchr(line, ' ') + 1, line[0] == 'o');
	if (strncmp(line, "usage ", 6) == 0)
		return cli_error(ctx, EXIT_USAGE, "%s", line + 6);
	return cli_error(ctx, EXIT_FAILURE_, "%s",
			 strncmp(line, "error ", 6) == 0
			     ? line + 6
			     : "the server exited before it answered");
}

static int print_probe(const cli_ctx *ctx, const struct srv_probe *p,
		       int running)
{
	json_t *o;

	if (ctx->output == CLI_OUT_JSON) {
		o = json_pack("{s:b,s:s}", "running", running, "stateDir",
			      p->state_dir);
		if (o && running) {
			json_object_set_new(o, "pid", json_integer(p->pid));
			json_object_set_new(o, "socket", json_string(p->socket));
			if (*p->url)
				json_object_set_new(o, "url",
						    json_string(p->url));
			if (*p->web)
				json_object_set_new(o, "web",
						    json_string(p->web));
			if (*p->runtime)
				json_object_set_new(o, "runtime",
						    json_string(p->runtime));
		}
		return cli_print_json(o) < 0 ? EXIT_FAILURE_ : EXIT_OK;
	}
	if (!running)
		printf("not running (%s)\n", p->state_dir);
	else
		printf("running: pid %ld, socket %s%s%s%s%s%s%s\n", p->pid,
		       p->socket, *p->runtime ? ", runtime " : "", p->runtime,
		       *p->url ? ", url " : "", p->url, *p->web ? ", web " : "",
		       p->web);
	return EXIT_OK;
}

/* --status (exit 0 running, 6 not) and --stop (0 once stopped, or when
 * none ran). */
static int control(cli_ctx *ctx, const srv_options *o)
{
	struct srv_probe p;
	char err[512];
	int st;

	if (ctl_action == OPT_STATUS) {
		st = srv_probe(o->state_dir, &p, err, sizeof(err));
		if (st < 0)
			return cli_error(ctx, EXIT_FAILURE_, "%s", err);
		if (print_probe(ctx, &p, st))
			return EXIT_FAILURE_;
		return cli_finish(ctx, st ? EXIT_OK : EXIT_UNREACHABLE);
	}
	st = srv_stop_running(o->state_dir, 30000, &p, err, sizeof(err));
	if (st < 0)
		return cli_error(ctx, EXIT_FAILURE_, "%s", err);
	if (ctx->output == CLI_OUT_JSON) {
		json_t *j = json_pack("{s:b,s:s}", "stopped", st, "stateDir",
				      p.state_dir);

		if (j && st)
			json_object_set_new(j, "pid", json_integer(p.pid));
		return cli_finish(ctx,
				  cli_print_json(j) < 0 ? EXIT_FAILURE_ : 0);
	}
	if (ctx->quiet)
		;
	else if (st)
		fprintf(stderr, "paictl: serve: stopped the local cluster "
				"(pid %ld)\n",
			p.pid);
	else
		fprintf(stderr, "paictl: serve: no local cluster runs in "
				"'%s'\n",
			p.state_dir);
	return cli_finish(ctx, EXIT_OK);
}

int cmd_serve(cli_ctx *ctx, int argc, char **argv)
{
	srv_options o = SRV_OPTIONS_INIT;
	char err[512];
	int first, st;

	/* the environment's choice, for servers started for a client
	 * (paictl submit starts one) */
	o.runtime = getenv("PAICTL_SERVE_RUNTIME");
	if (o.runtime && !*o.runtime)
		o.runtime = NULL;
	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (o.runtime && strcmp(o.runtime, "podman") != 0 &&
	    strcmp(o.runtime, "process") != 0)
		return cli_error(ctx, EXIT_USAGE,
				 "invalid PAICTL_SERVE_RUNTIME '%s' (podman or "
				 "process)",
				 o.runtime);
	if (first < argc)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; see 'paictl serve "
				 "--help'",
				 argv[first]);
	o.quiet = ctx->quiet;
	if (ctl_action)
		return control(ctx, &o);
	if (o.log_to_state)
		return background(ctx, &o);
	if (ctx->output == CLI_OUT_JSON)
		return cli_error(ctx, EXIT_USAGE,
				 "-o json is for --status, --stop and "
				 "--background: in the foreground the server "
				 "prints only its log, on standard error");
	st = srv_run(&o, err, sizeof(err));
	if (st < 0)
		return cli_error(ctx, st == -2 ? EXIT_USAGE : EXIT_FAILURE_,
				 "%s", err);
	return EXIT_OK;
}
