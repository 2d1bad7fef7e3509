/* connect_int.h - what the files that make a connection (connect.c and
 * those it is built from) share among themselves and no command needs;
 * cli.h has what the commands use. Internal to cli/. */
#ifndef CLI_CONNECT_INT_H
#define CLI_CONNECT_INT_H

#include "cli.h"

/* ---- signals.c ------------------------------------------------------ */

/* Installs the Ctrl-C handler that sets cli_interrupt: once, with the
 * client (a second Ctrl-C kills at once). */
void cli_catch_sigint(void);

#endif /* CLI_CONNECT_INT_H */
