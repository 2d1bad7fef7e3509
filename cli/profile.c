/* profile.c - which cluster, as whom: flag > environment > profile >
 * built-in default (the local cluster), and the profile's settings;
 * nothing sent, no token read. And the cli_conn it fills, freed (the
 * API the client found recorded in the profile then). */
#include "cli.h"
#include "connect_int.h"
#include "error.h"

#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The profile that needs no configuration: the local cluster. */
#define LOCAL_NAME "local"

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *strdup_printf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static char *strdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Records the API the client found in the profile, so that it is asked
 * once per cluster. Best effort: the next run asks again otherwise. */
static void save_api(cli_conn *conn)
{
	pai_api api = pai_client_api(conn->client);
	pai_config *cfg = NULL;
	const pai_profile *p;
	pai_profile copy;

	if (api == PAI_API_AUTO ||
	    pai_config_load(&cfg, NULL, conn->save_api_in) != PAI_OK)
		return;
	p = pai_config_find(cfg, conn->cluster);
	if (p && p->api == PAI_API_AUTO) {
		copy = *p;
		copy.api = api;
		if (pai_config_set(cfg, &copy) == PAI_OK)
			pai_config_save(cfg, conn->save_api_in);
	}
	pai_config_free(cfg);
}

void cli_conn_free(cli_conn *conn)
{
	if (!conn)
		return;
	if (conn->client && conn->save_api_in)
		save_api(conn);
	free(conn->save_api_in);
	pai_client_free(conn->client);
	pai_config_free(conn->cfg);
	free(conn->cluster);
	free(conn->user);
	free(conn->uri);
	free(conn->socket);
	if (conn->token)
		explicit_bzero(conn->token, strlen(conn->token));
	free(conn->token);
	free(conn->token_file);
	free(conn->ca_file);
	free(conn->login_cmd);
	free(conn);
}

/* The name under which an ad-hoc --uri keeps its token: its host[:port]. */
static char *name_from_uri(const char *uri)
{
	const char *p = strstr(uri, "://"), *e;
	char *s;
	size_t i;

	p = p ? p + 3 : uri;
	e = p + strcspn(p, "/?#");
	s = strndup(p, (size_t)(e - p));
	for (i = 0; s && s[i]; i++)
		if (s[i] == ':' || s[i] == '@')
			s[i] = '_';
	return s;
}

static const char *default_user(void)
{
	const struct passwd *pw;

	if (cli_env("USER"))
		return cli_env("USER");
	pw = getpwuid(getuid());
	return pw ? pw->pw_name : NULL;
}

/* --uri or $PAICTL_URI: a profile's name may come with another URI */
static int uri_given(const cli_ctx *ctx)
{
	return ctx->uri || cli_env("PAICTL_URI");
}

/* What the flags, the environment and the profiles choose: a profile's
 * name or an ad-hoc URI, or both (a profile given another URI). */
struct choice {
	const char *name, *uri;
	const pai_profile *prof; /* NULL: none (an ad-hoc URI, or local) */
};

/* Fills *ch and c->cluster (NULL when out of memory); 0 or the exit
 * status of a profile that is not there. */
static int choose_cluster(const cli_ctx *ctx, const pai_config *cfg,
			  cli_conn *c, struct choice *ch)
{
	ch->uri = ctx->uri ? ctx->uri : cli_env("PAICTL_URI");
	ch->name = ctx->cluster ? ctx->cluster : cli_env("PAICTL_CLUSTER");
	if (!ch->name && !ch->uri)
		ch->name = pai_config_current(cfg) ? pai_config_current(cfg)
						   : LOCAL_NAME;
	if (ch->name) {
		ch->prof = pai_config_find(cfg, ch->name);
		if (!ch->prof && !ch->uri && strcmp(ch->name, LOCAL_NAME) != 0)
			return cli_error(ctx, EXIT_NOTFOUND,
					 "no cluster named '%s'; see 'paictl "
					 "cluster list'",
					 ch->name);
		c->cluster = strdup(ch->name);
	} else
		c->cluster = name_from_uri(ch->uri);
	if (!ch->uri && ch->prof)
		ch->uri = ch->prof->uri;
	return EXIT_OK;
}

/* Where requests go: c->uri, and c->socket or c->local; a profile
 * whose engine says where (a kubeconfig) has no URI. */
static void set_endpoint(cli_conn *c, const char *uri, int profile)
{
	if (!uri && profile)
		c->uri = NULL;
	else if (!uri) {
		/* the built-in profile: the local cluster's socket */
		c->local = 1;
		c->uri = strdup("http://localhost");
	} else if (strncmp(uri, "unix:", 5) == 0 && uri[5]) {
		/* unix:PATH, a local cluster someone else started */
		c->socket = strdup(uri + 5);
		c->uri = strdup("http://localhost");
	} else
		c->uri = strdup(uri);
}

/* -u, $PAICTL_USER, the profile's, then the login name; or NULL. */
static const char *choose_user(const cli_ctx *ctx, const pai_profile *prof,
			       cli_conn *c)
{
	const char *user = ctx->user ? ctx->user : cli_env("PAICTL_USER");

	if (!user && prof && prof->user)
		user = prof->user;
	if (!user && !(user = cli_env("USER"))) {
		user = default_user();
		c->user_guessed = 1;
	}
	return user;
}

/* The rest of c: how to log in again, the profile's settings or the
 * flags' (NULL strings when out of memory). */
static void set_settings(const cli_ctx *ctx, cli_conn *c,
			 const struct choice *ch)
{
	const pai_profile *prof = ch->prof;
	const char *name = ch->name, *uri = ch->uri;

	/* what to tell someone whose token was refused: the same cluster
	 * and user, however they were given */
	c->login_cmd = strdup_printf(
	    "paictl login%s%s%s%s%s%s", name ? " -c " : "", name ? name : "",
	    !prof && uri ? " --uri " : "", !prof && uri ? uri : "",
	    ctx->user ? " -u " : "", ctx->user ? ctx->user : "");
	c->dialect = prof ? prof->dialect : PAI_DIALECT_OPENPAI;
	/* the local cluster is paictl's own: both APIs, for every job */
	c->api = c->local || c->socket ? PAI_API_DUAL
		 : prof		       ? prof->api
					 : PAI_API_AUTO;
	if (prof && c->api == PAI_API_AUTO && !uri_given(ctx))
		c->save_api_in = cli_config_path(ctx);
	c->ca_file = xstrdup(ctx->cacert ? ctx->cacert
			     : prof	 ? prof->ca_file
					 : NULL);
	c->insecure = ctx->insecure || (prof && prof->insecure);
}

int cli_resolve_profile(cli_ctx *ctx, cli_conn **out)
{
	pai_config *cfg = NULL;
	struct choice ch = {NULL, NULL, NULL};
	const char *user;
	cli_conn *c;
	int st;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	st = cli_load_config(ctx, &cfg, NULL);
	if (!st)
		st = choose_cluster(ctx, cfg, c, &ch);
	if (st)
		goto out;
	set_endpoint(c, ch.uri, ch.prof != NULL);
	user = choose_user(ctx, ch.prof, c);
	if (!user) {
		st = cli_error(ctx, EXIT_USAGE,
			       "who are you? give --user or set USER");
		goto out;
	}
	c->user = strdup(user);
	set_settings(ctx, c, &ch);
	if (!c->cluster || (!c->uri && (ch.uri || !ch.prof)) || !c->user ||
	    !c->login_cmd) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	/* the profile's engine opens the client, from the profiles */
	if (ch.prof) {
		c->own_credentials = pai_config_own_credentials(
		    &c->credentials, cfg, ch.name);
		c->cfg = cfg;
		cfg = NULL;
	}
	*out = c;
	c = NULL;
	st = EXIT_OK;
out:
	pai_config_free(cfg);
	cli_conn_free(c);
	return st;
}
