/* connect.c - a connection to the chosen cluster: which cluster, as
 * whom (profile.c) and with which token (token_source.c); then its
 * client, opened by libpai from the profile (its engine chooses how:
 * an OpenPAI URI, the local cluster's socket, which local_cluster.c
 * starts first when nothing answers, a kubeconfig, a login node...),
 * with SSH as `paictl ssh` logs in (connect_ssh.c); and the JOB
 * operand of the commands that take one */
#include "cli.h"
#include "connect_int.h"
#include "error.h"

#include <stdlib.h>

int cli_resolve(cli_ctx *ctx, cli_conn **out)
{
	int st = cli_resolve_profile(ctx, out);

	/* the token: --token-file, $PAICTL_TOKEN, then `paictl login`'s */
	if (!st && (st = cli_resolve_token(ctx, *out))) {
		cli_conn_free(*out);
		*out = NULL;
	}
	return st;
}

static void trace(void *data, const char *line)
{
	(void)data;
	fprintf(stderr, "%s\n", line);
}

/* libpai holds a request until the time a 429 or 503 named: said once
 * a run, so that a quiet loop is not taken for a hung one (nor for a
 * lost cluster). */
/* What libpai says of how it talks to the cluster, to -v. */
static void on_notice(void *data, const char *line)
{
	cli_error(data, 0, "%s", line);
}

static void on_retry_after(void *data, long status, long long wait_ms)
{
	const cli_ctx *ctx = data;
	static int said;
	long long s = (wait_ms + 999) / 1000;

	if (said || ctx->quiet)
		return;
	said = 1;
	if (status == 429)
		cli_error(ctx, 0,
			  "waiting %lld s for the cluster's rate limit (HTTP "
			  "429)",
			  s);
	else
		cli_error(ctx, 0,
			  "the cluster is busy (HTTP %ld); waiting %lld s, "
			  "as it asks",
			  status, s);
}

static int new_client(cli_ctx *ctx, cli_conn *c);

int cli_connect(cli_ctx *ctx, cli_conn *c)
{
	int st;

	if (c->local && !c->socket) {
		st = cli_connect_local(ctx, c);
		if (st)
			return st;
	}
	return new_client(ctx, c);
}

int cli_connect_offline(cli_ctx *ctx, cli_conn *c)
{
	return new_client(ctx, c);
}

/* The client's options: where, with what token and trust, how long. */
static void client_options(const cli_ctx *ctx, const cli_conn *c,
			   pai_client_options *o)
{
	o->uri = c->uri;
	o->unix_socket = c->socket;
	o->token = c->token;
	o->ca_file = c->ca_file;
	o->insecure = c->insecure;
	if (ctx->completing) {
		/* the shell is waiting: one quick try */
		o->connect_timeout_ms = 500;
		o->stall_timeout_s = 2;
		o->max_retries = 0;
		o->retry_max_ms = 1000;
	}
	if (ctx->verbose >= 2) {
		o->trace = trace;
		o->trace_data = NULL;
	}
	o->interrupt = &cli_interrupt;
}

/* The client, by the one libpai call that opens any profile (or a URI
 * with none): the profile's engine chooses how; ssh how SSH logs in,
 * should the engine need it. */
static int open_client(cli_ctx *ctx, cli_conn *c, const pai_ssh_options *ssh)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_open_options oo = PAI_OPEN_OPTIONS_INIT;
	char *state = cli_state_dir(), *detail = NULL;
	int err, st = EXIT_OK;

	client_options(ctx, c, &o);
	oo.user = c->user;
	oo.token_file = c->own_credentials ? c->token_file : NULL;
	oo.state_dir = state;
	oo.ssh = ssh;
	oo.api = c->api;
	err = pai_client_open(&c->client, &detail, c->cfg,
			      c->cfg ? c->cluster : NULL, &o, &oo);
	if (err && c->cfg)
		st = cli_error(ctx, cli_exit_status(err), "cluster '%s': %s",
			       c->cluster, detail ? detail : pai_strerror(err));
	else if (err)
		st = cli_error(ctx, cli_exit_status(err),
			       "cannot use '%s': %s", c->uri,
			       detail ? detail : pai_strerror(err));
	free(detail);
	free(state);
	return st;
}

static int new_client(cli_ctx *ctx, cli_conn *c)
{
	pai_ssh_options so;
	char *known = NULL, *key = NULL;
	int st = cli_ssh_access(ctx, c, &so, &known, &key);

	cli_catch_sigint();
	if (!st)
		st = open_client(ctx, c, known ? &so : NULL);
	free(known);
	free(key);
	if (st)
		return st;
	pai_client_set_retry_after_callback(c->client, on_retry_after, ctx);
	if (ctx->verbose)
		pai_client_set_notice_callback(c->client, on_notice, ctx);
	return EXIT_OK;
}

int cli_open(cli_ctx *ctx, cli_conn **out)
{
	int st = cli_resolve(ctx, out);

	if (st)
		return st;
	st = cli_connect(ctx, *out);
	if (st) {
		cli_conn_free(*out);
		*out = NULL;
	}
	return st;
}

int cli_job_ref(const cli_ctx *ctx, const cli_conn *conn, const char *ref,
		char **user, char **name)
{
	int err = pai_job_ref_parse(user, name, ref, conn->user);

	if (err == PAI_ENOMEM)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	if (err)
		return cli_error(ctx, EXIT_USAGE,
				 "invalid job '%s' (use NAME or USER~NAME)",
				 ref);
	return EXIT_OK;
}

int cli_open_job(cli_ctx *ctx, int argc, char **argv, int first,
		 cli_conn **conn, char **user, char **name)
{
	int st;

	if (first >= argc)
		return cli_error(ctx, EXIT_USAGE,
				 "no job given; try 'paictl %s JOB'", ctx->cmd);
	if (first + 1 < argc)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; see 'paictl %s "
				 "--help'",
				 argv[first + 1], ctx->cmd);
	st = cli_open(ctx, conn);
	if (st)
		return st;
	return cli_job_ref(ctx, *conn, argv[first], user, name);
}
