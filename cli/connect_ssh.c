/* connect_ssh.c - how this machine logs in over SSH when a cluster's
 * engine needs it (a login node; job directories read over SFTP): as
 * `paictl ssh` logs in, with the user's key, the agent and the
 * cluster's known_hosts, host keys checked as OpenSSH checks them (a
 * new one learned and said, or refused with --strict-host-keys; a
 * changed one refused). Given to every client's opening: an engine
 * that needs no SSH ignores it. */
#include "connect_int.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

/* A new host's key learned: said as OpenSSH says it. */
static void learned(void *data, const char *name, const char *type,
		    const char *known_hosts)
{
	cli_warn(data, "permanently added '%s' (%s) to the known hosts in %s",
		 name, type, known_hosts);
}

int cli_ssh_access(const cli_ctx *ctx, const cli_conn *c, pai_ssh_options *so,
		   char **known, char **key)
{
	char *dir, *state = cli_state_dir();

	*so = (pai_ssh_options)PAI_SSH_OPTIONS_INIT;
	*known = *key = NULL;
	/* no state directory (no HOME): no known_hosts, no SSH */
	if (!state)
		return EXIT_OK;
	free(state);
	*known = cli_known_hosts_path(c);
	*key = cli_conn_key(c);
	if (!*known || !(dir = strdup(*known)))
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	*strrchr(dir, '/') = '\0';
	cli_mkdirs(dir);
	free(dir);
	so->user = c->user;
	so->key_file = *key;
	so->use_agent = cli_env("SSH_AUTH_SOCK") != NULL;
	so->known_hosts = *known;
	so->strict_host_keys = ctx->strict_host_keys;
	so->learned = learned;
	so->learned_data = (void *)ctx;
	return EXIT_OK;
}
