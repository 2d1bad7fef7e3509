/* connect_slurm.c - a Slurm cluster's connection, beside the others'
 * (profile.c, token_source.c, connect.c): the profile's settings, the
 * JWT (--token-file, the profile's token file, else $SLURM_JWT, what
 * `scontrol token` prints), the client as the user (-u, else the login
 * name), and SFTP access to the job directories with the keys and
 * known_hosts `paictl ssh` uses. */
#include "connect_int.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_slurm_choose(const cli_ctx *ctx, const pai_config *cfg, cli_conn *c,
		     const char *name)
{
	pai_slurm_cluster s;
	int oom = 0;

	if (pai_config_slurm(&s, cfg, name) != PAI_OK)
		return cli_error(ctx, EXIT_FAILURE_, "cannot read cluster '%s'",
				 name);
	c->slurm = 1;
	c->slurm_cfg = s;
	c->slurm_cfg.token_file = cli_dup_opt(s.token_file, &oom);
	c->slurm_cfg.partition = cli_dup_opt(s.partition, &oom);
	c->slurm_cfg.account = cli_dup_opt(s.account, &oom);
	c->slurm_cfg.qos = cli_dup_opt(s.qos, &oom);
	c->slurm_cfg.workdir = cli_dup_opt(s.workdir, &oom);
	c->slurm_cfg.ssh_host = cli_dup_opt(s.ssh_host, &oom);
	if (oom)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	return EXIT_OK;
}

void cli_slurm_conn_release(cli_conn *c)
{
	free((char *)c->slurm_cfg.token_file);
	free((char *)c->slurm_cfg.partition);
	free((char *)c->slurm_cfg.account);
	free((char *)c->slurm_cfg.qos);
	free((char *)c->slurm_cfg.workdir);
	free((char *)c->slurm_cfg.ssh_host);
	memset(&c->slurm_cfg, 0, sizeof(c->slurm_cfg));
}

int cli_slurm_token(const cli_ctx *ctx, cli_conn *c)
{
	const char *file = ctx->token_file ? ctx->token_file
					   : c->slurm_cfg.token_file;
	const char *jwt = getenv("SLURM_JWT");

	/* a login node over SSH: the SSH keys log in, there is no JWT */
	if (c->uri && strncmp(c->uri, "ssh://", 6) == 0)
		return EXIT_OK;
	if (file) {
		/* read again by the client for every request */
		char *copy = strdup(file);

		free((char *)c->slurm_cfg.token_file);
		c->slurm_cfg.token_file = copy;
		c->token_file = copy ? strdup(copy) : NULL;
		c->token_source = CLI_TOKEN_FILE;
		if (!c->token_file)
			return cli_error(ctx, EXIT_FAILURE_, "out of memory");
		return EXIT_OK;
	}
	if (!jwt || !*jwt)
		return cli_error(ctx, EXIT_AUTH,
				 "no token for Slurm cluster '%s': give "
				 "--token-file FILE, or set SLURM_JWT (on a "
				 "login node: 'scontrol token')",
				 c->cluster);
	c->token = strdup(jwt);
	c->token_source = CLI_TOKEN_SLURM_JWT;
	return c->token ? EXIT_OK
			: cli_error(ctx, EXIT_FAILURE_, "out of memory");
}

/* A new SFTP host's key learned: said as OpenSSH says it. */
static void learned(void *data, const char *name, const char *type,
		    const char *known_hosts)
{
	cli_warn(data, "permanently added '%s' (%s) to the known hosts in %s",
		 name, type, known_hosts);
}

/* SFTP for job directories this machine does not see: as paictl ssh
 * logs in (the user's key, the agent, the cluster's known_hosts), host
 * keys as OpenSSH checks them (a new one learned and said, or refused
 * with --strict-host-keys; a changed one refused). */
static int set_sftp(const cli_ctx *ctx, cli_conn *c)
{
	pai_ssh_options so = PAI_SSH_OPTIONS_INIT;
	char *known = cli_known_hosts_path(c), *key = cli_own_key(), *dir;
	int err = PAI_OK;

	if (known && (dir = strdup(known))) {
		*strrchr(dir, '/') = '\0';
		cli_mkdirs(dir);
		free(dir);
		so.user = c->user;
		so.key_file = key;
		so.use_agent = cli_env("SSH_AUTH_SOCK") != NULL;
		so.known_hosts = known;
		so.strict_host_keys = ctx->strict_host_keys;
		so.learned = learned;
		so.learned_data = (void *)ctx;
		err = pai_client_set_sftp(c->client, &so);
	}
	free(known);
	free(key);
	if (err)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	return EXIT_OK;
}

/* ---- the slurmrestd version spoken, kept between runs ---------------- */

/* How long a version kept is spoken before the server is asked again
 * (a server upgraded serves newer ones beside it). */
#define OPENAPI_KEEP_S (24 * 3600)

/* $XDG_STATE_HOME/paictl/slurm/CLUSTER.openapi; new, or NULL. */
static char *openapi_path(const cli_conn *c)
{
	char *state = cli_state_dir(), *p = NULL;

	if (state && asprintf(&p, "%s/slurm/%s.openapi", state, c->cluster) < 0)
		p = NULL;
	free(state);
	return p;
}

/* The version the cluster's slurmrestd served last time, as a hint:
 * it spares the server's OpenAPI document each run. */
static void openapi_load(cli_conn *c)
{
	char *path = openapi_path(c), *text = NULL, v[16];
	size_t len = 0;
	long long at = 0;
	int e = 0;

	if (path && pai_file_read(&text, &len, &e, path) == PAI_OK &&
	    sscanf(text, "%15s %lld", v, &at) == 2 &&
	    (long long)time(NULL) - at < OPENAPI_KEEP_S)
		pai_client_set_slurm_openapi(c->client, v);
	free(text);
	free(path);
}

void cli_slurm_openapi_save(const cli_conn *c)
{
	const char *v = pai_client_slurm_openapi(c->client);
	char *path, *text = NULL, *dir, line[64], was[16];
	long long at = 0;
	size_t len = 0;
	int e = 0, same;

	if (!v || !(path = openapi_path(c)))
		return;
	/* the same, and not about to expire: left as it is */
	same = pai_file_read(&text, &len, &e, path) == PAI_OK &&
	       sscanf(text, "%15s %lld", was, &at) == 2 &&
	       strcmp(was, v) == 0 &&
	       (long long)time(NULL) - at < OPENAPI_KEEP_S / 2;
	if (!same && (dir = strdup(path))) {
		*strrchr(dir, '/') = '\0';
		cli_mkdirs(dir);
		free(dir);
		snprintf(line, sizeof(line), "%s %lld\n", v,
			 (long long)time(NULL));
		pai_file_write_atomic(path, line, strlen(line), 0600,
				      PAI_WRITE_NO_DIRSYNC);
	}
	free(text);
	free(path);
}

int cli_slurm_client(cli_ctx *ctx, cli_conn *c, const pai_client_options *o)
{
	pai_client_options co = *o;
	char *detail = NULL;
	int err, st;

	c->slurm_cfg.user = c->user;
	co.token = c->token;
	err = pai_client_new_slurm(&c->client, &detail, &co, &c->slurm_cfg);
	if (err) {
		st = cli_error(ctx, cli_exit_status(err), "cluster '%s': %s",
			       c->cluster, detail ? detail : pai_strerror(err));
		free(detail);
		return st;
	}
	openapi_load(c);
	return set_sftp(ctx, c);
}
