/* connect_int.h - what the files that make a connection (connect.c and
 * those it is built from) share among themselves and no command needs;
 * cli.h has what the commands use. Internal to cli/. */
#ifndef CLI_CONNECT_INT_H
#define CLI_CONNECT_INT_H

#include "cli.h"

/* ---- local_cluster.c ------------------------------------------------ */

/* c->socket: the local cluster's, which is started (`paictl serve
 * --background`) when nothing answers there; never while completing.
 * 0, or the exit status after saying why. */
int cli_connect_local(cli_ctx *ctx, cli_conn *c);

/* ---- token_source.c ------------------------------------------------- */

/* c's token and c->token_source, for the cluster cli_resolve_profile()
 * chose: 0, or the exit status after saying why. */
int cli_resolve_token(const cli_ctx *ctx, cli_conn *c);

/* ---- connect_ssh.c ------------------------------------------------- */

/* How SSH logs in for c's client, into *so: the user's key (*key), the
 * agent, the cluster's known_hosts (*known, its directory made), host
 * keys as --strict-host-keys says; *known NULL where there is no state
 * directory (no HOME): no SSH then. *known and *key new (caller frees,
 * after the client is made). 0, or the exit status after saying why. */
int cli_ssh_access(const cli_ctx *ctx, const cli_conn *c, pai_ssh_options *so,
		   char **known, char **key);

/* ---- paths.c -------------------------------------------------------- */

/* The string a followed by b: new (caller frees), NULL when out of
 * memory. */
char *cli_join(const char *a, const char *b);
/* A copy of s, NULL for a NULL s (a setting left unset); out of memory
 * sets *oom, so that a caller copying many checks once. */
char *cli_dup_opt(const char *s, int *oom);

/* ---- signals.c ------------------------------------------------------ */

/* Installs the Ctrl-C handler that sets cli_interrupt: once, with the
 * client (a second Ctrl-C kills at once). */
void cli_catch_sigint(void);

#endif /* CLI_CONNECT_INT_H */
