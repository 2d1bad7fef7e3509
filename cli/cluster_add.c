/* cluster_add.c - what `paictl cluster add` makes: add --slurm's
 * options filling a Slurm profile (its login node or slurmrestd, token
 * file, partition, account, QOS, the job directories' place and how
 * they are reached, the login node's key), beside cmd_cluster.c's
 * others; and any profile just made, opened and checked by libpai's
 * table of engines as every command opens it. */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cli_cluster_slurm_opt(cli_ctx *ctx, cli_slurm_add *a, int key,
			  const char *arg)
{
	char *end;

	if (key > CLI_OPT_SLURM_FIRST && key <= CLI_OPT_IDENTITY)
		a->given = 1;
	switch (key) {
	case CLI_OPT_SLURM_FIRST: a->url = arg; return 0;
	case CLI_OPT_PARTITION: a->s.partition = arg; return 0;
	case CLI_OPT_ACCOUNT: a->s.account = arg; return 0;
	case CLI_OPT_QOS: a->s.qos = arg; return 0;
	case CLI_OPT_WORKDIR: a->s.workdir = arg; return 0;
	case CLI_OPT_SSH_HOST: a->s.ssh_host = arg; return 0;
	case CLI_OPT_PYXIS: a->s.pyxis = 1; return 0;
	case CLI_OPT_VC_PARTITION: a->s.vc_partition = 1; return 0;
	case CLI_OPT_IDENTITY: a->s.identity_file = arg; return 0;
	case CLI_OPT_SSH_PORT:
		errno = 0;
		a->s.ssh_port = strtol(arg, &end, 10);
		if (!*arg || *end || errno || a->s.ssh_port < 1 ||
		    a->s.ssh_port > 65535)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --ssh-port '%s' (1 to 65535)",
					 arg);
		return 0;
	}
	return -1;
}

int cli_cluster_slurm_check(const cli_ctx *ctx, const cli_slurm_add *a,
			    int nargs)
{
	if (nargs < 0 && a->given)
		return cli_error(ctx, EXIT_USAGE,
				 "--partition, --account, --qos, --workdir, "
				 "--ssh-host, --ssh-port, --pyxis, "
				 "--vc-partition and --identity go with "
				 "--slurm");
	if (nargs >= 0 && nargs != 1)
		return cli_error(ctx, EXIT_USAGE,
				 "usage: paictl cluster add NAME --slurm URL "
				 "[--token-file F] [--partition P] "
				 "[--account A] [--qos Q] [--workdir DIR] "
				 "[--ssh-host H] [--ssh-port N] [--pyxis] "
				 "[--identity F]");
	if (a->s.identity_file && strncmp(a->url, "ssh://", 6) != 0)
		return cli_error(ctx, EXIT_USAGE,
				 "--identity is the login node's key: it goes "
				 "with --slurm ssh://");
	return 0;
}

/* A file given relative to here, made absolute: the profile is used
 * from anywhere. */
static int absolute(const cli_ctx *ctx, const char **path, char **abs,
		    const char *opt)
{
	if (!*path || **path == '/')
		return 0;
	if (!(*abs = realpath(*path, NULL)))
		return cli_error(ctx, EXIT_NOTFOUND, "cannot use %s '%s': %s",
				 opt, *path, strerror(errno));
	*path = *abs;
	return 0;
}

int cli_cluster_slurm_add(const cli_ctx *ctx, pai_config *cfg, pai_profile *p,
			  cli_slurm_add *a, const char *name)
{
	int err, st;

	a->s.token_file = ctx->token_file;
	if ((st = absolute(ctx, &a->s.token_file, &a->abs[0],
			   "--token-file")) ||
	    (st = absolute(ctx, &a->s.identity_file, &a->abs[1],
			   "--identity")))
		return st;
	if (a->s.workdir && a->s.workdir[0] != '/')
		return cli_error(ctx, EXIT_USAGE,
				 "--workdir '%s' must be absolute: a path "
				 "every node of the cluster sees",
				 a->s.workdir);
	p->name = name;
	p->uri = a->url;
	p->api = PAI_API_SLURM;
	err = pai_config_set(cfg, p);
	if (!err)
		err = pai_config_set_slurm(cfg, name, &a->s);
	if (err == PAI_EINVAL)
		return cli_error(ctx, EXIT_USAGE,
				 "invalid cluster name '%s', --slurm URL "
				 "'%s' (https:// to slurmrestd, ssh://[user@]"
				 "host[:port] to a login node), or a "
				 "--partition, --account, --qos or "
				 "--ssh-host with a blank, ',' or '='",
				 name, a->url);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot add '%s': %s", name,
				 pai_strerror(err));
	return EXIT_OK;
}

/* The profile just saved opened (as any command opens it: the engine
 * its profile names reads it) and checked as far as that engine can. */
int cli_cluster_probe(const cli_ctx *ctx, const char *name)
{
	cli_ctx c = *ctx;
	cli_conn *conn = NULL;
	char *said = NULL;
	int st, err;

	c.cluster = name;
	c.uri = NULL;
	if ((st = cli_open(&c, &conn)))
		return st;
	err = pai_client_probe(&said, conn->client);
	if (err)
		st = cli_error(ctx, cli_exit_status(err),
			       "cluster '%s' is not added: %s", name,
			       pai_client_error(conn->client)
				   ? pai_client_error(conn->client)
				   : pai_strerror(err));
	else if (said)
		printf("cluster '%s': %s\n", name, said);
	free(said);
	cli_conn_free(conn);
	return st;
}
