/* paths.c - paictl's files: where the profiles and the state directory
 * are (flag, environment, XDG, HOME), directories made 0700, and the
 * profiles loaded with the reason said when they cannot be; and the
 * string helpers the connection's files share (cli_env, cli_join,
 * cli_dup_opt) */
#include "cli.h"
#include "connect_int.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *cli_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

char *cli_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 1);

	if (p) {
		memcpy(p, a, la);
		memcpy(p + la, b, lb + 1);
	}
	return p;
}

char *cli_config_path(const cli_ctx *ctx)
{
	const char *x = cli_env("XDG_CONFIG_HOME"), *home = cli_env("HOME");

	if (ctx->config)
		return strdup(ctx->config);
	if (cli_env("PAICTL_CONFIG"))
		return strdup(cli_env("PAICTL_CONFIG"));
	if (x && *x == '/')
		return cli_join(x, "/paictl/config.json");
	if (home)
		return cli_join(home, "/.config/paictl/config.json");
	return NULL;
}

char *cli_state_dir(void)
{
	const char *x = cli_env("XDG_STATE_HOME"), *home = cli_env("HOME");

	/* the local cluster keeps its state in <this>/local, as
	 * `paictl serve` does by default */
	if (x && *x == '/')
		return cli_join(x, "/paictl");
	if (home)
		return cli_join(home, "/.local/state/paictl");
	return NULL;
}

int cli_mkdirs(const char *path)
{
	char *p = strdup(path), *q;
	int ret = 0;

	if (!p)
		return -1;
	for (q = p + 1;; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		if (q[-1] != '/') {
			char c = *q;

			*q = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST)
				ret = -1;
			*q = c;
		}
		if (!*q)
			break;
	}
	free(p);
	return ret;
}

int cli_load_config(const cli_ctx *ctx, pai_config **out, char **path)
{
	char *p = cli_config_path(ctx), *detail = NULL;
	int err;

	*out = NULL;
	if (path)
		*path = NULL;
	if (!p)
		return cli_error(ctx, EXIT_FAILURE_,
				 "no HOME: set HOME, XDG_CONFIG_HOME or "
				 "--config");
	err = pai_config_load(out, &detail, p);
	if (err) {
		int st = err == PAI_EACCES ? EXIT_AUTH : EXIT_FAILURE_;

		cli_error(ctx, st, "%s", detail ? detail : pai_strerror(err));
		free(detail);
		free(p);
		return st;
	}
	free(detail);
	if (path)
		*path = p;
	else
		free(p);
	return EXIT_OK;
}

char *cli_dup_opt(const char *s, int *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = 1;
	return d;
}
