/* node_ssh.c - how a client's cluster's nodes are reached by SSH: from
 * here, or through the connection the client keeps to a host that sees
 * them (a Slurm login node), as OpenSSH's ProxyJump; the module says
 * which (struct pai__api's ssh_jump). */
#include "api.h"
#include "ssh/session.h"
#include "ssh/tunnel.h"

int pai_client_ssh_connect(pai_client *c, pai_ssh *s)
{
	const struct pai__api *api;
	pai_ssh *jump = NULL;
	int err;

	if (!c || !s)
		return PAI_EINVAL;
	pai__client_reset_error(c);
	if ((err = pai__client_api(c, &api)))
		return pai__ssh_fail(s, err, "%s", pai_client_error(c));
	if (api->ssh_jump && (err = api->ssh_jump(&jump, api, c)))
		/* the connection to the jump host failed: said on s, where
		 * the caller looks */
		return pai__ssh_fail(s, err, "%s", pai_client_error(c));
	return jump ? pai__ssh_connect_via(s, jump) : pai_ssh_connect(s);
}
