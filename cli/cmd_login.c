/* cmd_login.c - paictl login: get a token and keep it for later runs */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

enum { OPT_PASSWORD_STDIN = 256 };

const cli_opt cli_login_opts[] = {
    {"password-stdin", OPT_PASSWORD_STDIN, NULL, NULL,
     "read the password from standard input (its first line)"},
    CLI_OPT_END};

/* Tokens last a week; `paictl login` again when one expires. */
#define TOKEN_LIFETIME_S (7L * 24 * 3600)

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	(void)ctx;
	(void)arg;
	if (key != OPT_PASSWORD_STDIN)
		return EXIT_USAGE;
	*(int *)data = 1;
	return 0;
}

/* Reads one line from fd into buf (without its newline). -1: error or
 * interrupted; 0: nothing at all. */
static ssize_t read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;
	char c;

	while (n + 1 < len) {
		r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR && !cli_interrupt)
			continue;
		if (r < 0)
			return -1;
		if (r == 0 || c == '\n')
			break;
		buf[n++] = c;
	}
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return (ssize_t)n;
}

/* Asks on the terminal, without echo. */
static int prompt(const cli_ctx *ctx, const cli_conn *conn, char *buf,
		  size_t len)
{
	struct termios old, quiet;
	char msg[512];
	ssize_t n;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY), echo_off;

	if (fd < 0)
		return cli_error(ctx, EXIT_USAGE,
				 "no terminal to ask for a password: give "
				 "--password-stdin or set PAICTL_PASSWORD");
	snprintf(msg, sizeof(msg), "Password for %s at '%s': ", conn->user,
		 conn->cluster);
	echo_off = tcgetattr(fd, &old) == 0;
	if (echo_off) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	if (write(fd, msg, strlen(msg)) < 0) {
		/* the read below fails too, and says so */
	}
	n = read_line(fd, buf, len);
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0) {
		/* nothing more to tell */
	}
	close(fd);
	if (cli_interrupt)
		return cli_error(ctx, 130, "interrupted");
	if (n < 0)
		return cli_error(ctx, EXIT_FAILURE_,
				 "cannot read the password: %s",
				 strerror(errno));
	return EXIT_OK;
}

/* The password: the first line of standard input (--password-stdin),
 * $PAICTL_PASSWORD, or asked on the terminal. 0 or the exit status. */
static int get_password(const cli_ctx *ctx, const cli_conn *conn,
			int from_stdin, char *pw, size_t len)
{
	int st;

	if (from_stdin) {
		if (read_line(STDIN_FILENO, pw, len) < 0)
			return cli_error(
			    ctx, cli_interrupt ? 130 : EXIT_FAILURE_,
			    "cannot read the password: %s",
			    cli_interrupt ? "interrupted" : strerror(errno));
	} else if (getenv("PAICTL_PASSWORD"))
		snprintf(pw, len, "%s", getenv("PAICTL_PASSWORD"));
	else if (isatty(STDIN_FILENO)) {
		st = prompt(ctx, conn, pw, len);
		if (st)
			return st;
	} else
		return cli_error(ctx, EXIT_USAGE,
				 "no password: give --password-stdin or set "
				 "PAICTL_PASSWORD (standard input is not a "
				 "terminal)");
	if (!*pw)
		return cli_error(ctx, EXIT_USAGE, "empty password");
	return EXIT_OK;
}

/* Keeps token for the next runs: <state>/tokens/<cluster>@<user>, 0600.
 * 0 or the exit status. */
static int store_token(const cli_ctx *ctx, const cli_conn *conn,
		       const char *token)
{
	char *state = cli_state_dir();
	int err = 0, st = EXIT_OK;

	if (!state)
		return cli_error(ctx, EXIT_FAILURE_,
				 "no HOME to keep the token in: set HOME or "
				 "XDG_STATE_HOME");
	if (cli_mkdirs(state) < 0 ||
	    (err = pai_token_save(state, conn->cluster, conn->user, token)))
		st = cli_error(ctx, EXIT_FAILURE_,
			       "cannot store the token under '%s': %s", state,
			       err ? pai_strerror(err) : strerror(errno));
	free(state);
	return st;
}

/* A cluster with nothing to log in to says so: 1, else 0. */
static int needs_no_login(const cli_ctx *ctx, const cli_conn *conn)
{
	if (conn->local || conn->socket) {
		/* the socket's directory is the owner's alone */
		if (!ctx->quiet)
			cli_error(ctx, 0,
				  "the local cluster needs no login: only "
				  "you can reach its socket");
		return 1;
	}
	if (!conn->own_credentials)
		return 0;
	if (!ctx->quiet)
		cli_error(ctx, 0, "'%s' takes no password: %s; there is "
			  "nothing to log in to",
			  conn->cluster, conn->credentials);
	return 1;
}

/* The login's result: JSON on stdout, or a line on stderr. */
static int report(const cli_ctx *ctx, const cli_conn *conn)
{
	if (ctx->output == CLI_OUT_JSON)
		return cli_print_json(
			   json_pack("{s:s,s:s,s:s}", "cluster", conn->cluster,
				     "user", conn->user, "uri", conn->uri)) < 0
			   ? EXIT_FAILURE_
			   : EXIT_OK;
	if (!ctx->quiet)
		cli_error(ctx, 0, "logged in to '%s' as %s", conn->cluster,
			  conn->user);
	return EXIT_OK;
}

int cmd_login(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	char pw[4096], *token = NULL;
	int first, st, err, from_stdin = 0;

	pw[0] = '\0';
	st = cli_parse(ctx, argc, argv, on_opt, &from_stdin, &first);
	if (st >= 0)
		return st;
	if (first < argc)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s': the password is "
				 "never an argument (see 'paictl login "
				 "--help')",
				 argv[first]);
	st = cli_resolve(ctx, &conn);
	if (st)
		return st;
	if (needs_no_login(ctx, conn))
		goto out;
	/* log in afresh, with no token */
	if (conn->token)
		explicit_bzero(conn->token, strlen(conn->token));
	free(conn->token);
	conn->token = NULL;
	conn->token_source = CLI_TOKEN_LOGIN;
	st = cli_connect(ctx, conn);
	if (!st)
		st = get_password(ctx, conn, from_stdin, pw, sizeof(pw));
	if (st)
		goto out;
	err = pai_login(&token, conn->client, conn->user, pw, TOKEN_LIFETIME_S);
	if (err)
		st = cli_fail(ctx, conn, err, "cannot log in to '%s' as %s",
			      conn->cluster, conn->user);
	else if (!(st = store_token(ctx, conn, token)))
		st = report(ctx, conn);
out:
	explicit_bzero(pw, sizeof(pw));
	if (token)
		explicit_bzero(token, strlen(token));
	free(token);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
