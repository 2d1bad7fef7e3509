/* tunnel.h - a session to a host that only another host reaches, as
 * OpenSSH's ProxyJump (tunnel.c): a direct-tcpip channel on the jump
 * host's connection, carried to a socket that the session's libssh2
 * speaks over as over any TCP connection. Not installed, not for cli/. */
#ifndef PAI_SSH_TUNNEL_H
#define PAI_SSH_TUNNEL_H

#include "pai.h"

/* Bytes a tunnel holds in each direction between the channel and the
 * socket: what one read of either side may bring. */
#define PAI__TUNNEL_BUF 32768

struct pai__tunnel;

/* Connects s (not connected) to its host and port as jump's host sees
 * them, through jump (connected): checks s's host key and logs in as
 * pai_ssh_connect() does. jump carries the tunnel until pai_ssh_free(s)
 * and is refused to everything else meanwhile (its connection is the
 * tunnel's thread's): the caller frees s before jump. PAI_EUNREACHABLE
 * when jump's host cannot reach s's (s's detail says what it said), or
 * jump's connection was lost; else as pai_ssh_connect(). */
int pai__ssh_connect_via(pai_ssh *s, pai_ssh *jump);

#endif /* PAI_SSH_TUNNEL_H */
