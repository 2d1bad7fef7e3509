/* fail.c - a call on the cluster failed: the message, with the
 * cluster's reason and, after a 401, how to log in again as the token's
 * source asks; or, once a run, logging in again with $PAICTL_PASSWORD
 * so that the call can be made again */
#include "cli.h"
#include "error.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_relogin(cli_ctx *ctx, cli_conn *c, int err)
{
	const char *pw = getenv("PAICTL_PASSWORD");
	char *token = NULL, *state = NULL;
	int e;

	if (err != PAI_EAUTH || c->relogged || !pw || !c->client ||
	    (c->token_source != CLI_TOKEN_NONE &&
	     c->token_source != CLI_TOKEN_STORED))
		return 0;
	c->relogged = 1;
	e = pai_login(&token, c->client, c->user, pw, 0);
	if (e) {
		cli_fail(ctx, c, e,
			 "cannot log in to '%s' as %s with "
			 "$PAICTL_PASSWORD",
			 c->cluster, c->user);
		return 0;
	}
	if (pai_client_set_token(c->client, token)) {
		explicit_bzero(token, strlen(token));
		free(token);
		return 0;
	}
	state = cli_state_dir();
	if (!state || cli_mkdirs(state) < 0 ||
	    pai_token_save(state, c->cluster, c->user, token) != PAI_OK)
		cli_warn(ctx, "logged in again, but cannot store the token");
	else if (!ctx->quiet)
		cli_error(ctx, 0,
			  "logged in to '%s' as %s again "
			  "($PAICTL_PASSWORD)",
			  c->cluster, c->user);
	if (c->token)
		explicit_bzero(c->token, strlen(c->token));
	free(c->token);
	c->token = token;
	c->token_source = CLI_TOKEN_LOGIN;
	free(state);
	return 1;
}

int cli_fail(const cli_ctx *ctx, const cli_conn *c, int err, const char *what,
	     ...)
{
	const char *why = c && c->client ? pai_client_error(c->client) : NULL;
	char msg[1024];
	size_t n;
	va_list ap;
	int st = cli_exit_status(err);

	va_start(ap, what);
	vsnprintf(msg, sizeof(msg), what, ap);
	va_end(ap);
	if (!why || !*why || err == PAI_EINTR)
		why = pai_strerror(err);
	n = strlen(why);
	/* servers end their messages with a full stop; we do not */
	if (n > 1 && why[n - 1] == '.' && why[n - 2] != '.')
		n--;
	cli_error(ctx, st, "%s: %.*s", msg, (int)n, why);
	if (err == PAI_EAUTH && c) {
		switch (c->token_source) {
		case CLI_TOKEN_STORED:
			cli_error(ctx, st,
				  "the stored token for %s at '%s' was "
				  "refused (expired?); log in again with "
				  "'%s'",
				  c->user, c->cluster, c->login_cmd);
			break;
		case CLI_TOKEN_NONE:
			cli_error(ctx, st,
				  "not logged in; log in with '%s' (or give "
				  "--token-file)",
				  c->login_cmd);
			break;
		case CLI_TOKEN_FILE:
			cli_error(ctx, st,
				  "the token in '%s' was refused (expired?)",
				  c->token_file);
			break;
		case CLI_TOKEN_ENV:
			cli_error(ctx, st,
				  "the token in $PAICTL_TOKEN was refused "
				  "(expired?)");
			break;
		case CLI_TOKEN_ENGINE: /* the detail says what to do */
		case CLI_TOKEN_LOGIN: break;
		}
	}
	return st;
}
