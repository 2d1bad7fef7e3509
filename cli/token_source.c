/* token_source.c - the token a cluster is called with, and where it
 * came from (what to say when it is refused): --token-file, read as ssh
 * reads a key; $PAICTL_TOKEN; the one `paictl login` stored; none for
 * the local cluster; none where the cluster's engine reads its own (a
 * kubeconfig, a JWT file, SSH keys), given --token-file's path */
#include "cli.h"
#include "connect_int.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads a token file as ssh reads a key: refused when others may read
 * or change it. */
static int read_token_file(const cli_ctx *ctx, const char *path, char **out)
{
	struct stat st;
	char buf[8192];
	size_t n = 0;
	ssize_t r;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return cli_error(
		    ctx, errno == EACCES ? EXIT_AUTH : EXIT_NOTFOUND,
		    "cannot open token file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cli_error(ctx, EXIT_NOTFOUND,
				 "token file '%s' is not a regular file", path);
	}
	if (st.st_mode & 077) {
		close(fd);
		return cli_error(ctx, EXIT_AUTH,
				 "token file '%s' is accessible by others "
				 "(mode %03o); refusing it: chmod 600 '%s'",
				 path, (unsigned)(st.st_mode & 0777), path);
	}
	while (n < sizeof(buf) - 1 &&
	       ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	buf[n] = '\0';
	/* one line; surrounding blanks are the editor's, not the token's */
	buf[strcspn(buf, "\r\n")] = '\0';
	{
		char *s = buf, *e;

		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s) {
			explicit_bzero(buf, sizeof(buf));
			return cli_error(ctx, EXIT_AUTH,
					 "token file '%s' is empty", path);
		}
		*out = strdup(s);
	}
	explicit_bzero(buf, sizeof(buf));
	return *out ? EXIT_OK : cli_error(ctx, EXIT_FAILURE_, "out of memory");
}

/* An engine that reads its own credential (a kubeconfig, a JWT, SSH
 * keys) is given --token-file's path, to read as it does (a JWT read
 * again before every request), or refuses it when it opens. */
static int engine_token(const cli_ctx *ctx, cli_conn *c)
{
	c->token_source = CLI_TOKEN_ENGINE;
	if (!ctx->token_file)
		return EXIT_OK;
	c->token_source = CLI_TOKEN_FILE;
	c->token_file = strdup(ctx->token_file);
	return c->token_file ? EXIT_OK
			     : cli_error(ctx, EXIT_FAILURE_, "out of memory");
}

/* c's token: --token-file, $PAICTL_TOKEN, then the one `paictl login`
 * stored (none for the local cluster). 0, or the exit status. */
int cli_resolve_token(const cli_ctx *ctx, cli_conn *c)
{
	char *dir;
	int err, st;

	if (c->own_credentials)
		return engine_token(ctx, c);
	if (ctx->token_file) {
		if ((st = read_token_file(ctx, ctx->token_file, &c->token)))
			return st;
		c->token_source = CLI_TOKEN_FILE;
		c->token_file = strdup(ctx->token_file);
		return EXIT_OK;
	}
	if (cli_env("PAICTL_TOKEN")) {
		c->token = strdup(cli_env("PAICTL_TOKEN"));
		c->token_source = CLI_TOKEN_ENV;
		return EXIT_OK;
	}
	if (c->local || c->socket)
		return EXIT_OK;
	dir = cli_state_dir();
	err = dir ? pai_token_load(&c->token, dir, c->cluster, c->user)
		  : PAI_ENOTFOUND;
	free(dir);
	if (err == PAI_OK)
		c->token_source = CLI_TOKEN_STORED;
	else if (err == PAI_EACCES)
		return cli_error(ctx, EXIT_AUTH,
				 "the stored token for %s at '%s' is "
				 "accessible by others; refusing it: log in "
				 "again with '%s'",
				 c->user, c->cluster, c->login_cmd);
	else if (err != PAI_ENOTFOUND)
		return cli_error(ctx, EXIT_FAILURE_,
				 "cannot read the stored token for %s at "
				 "'%s': %s",
				 c->user, c->cluster, pai_strerror(err));
	return EXIT_OK;
}
