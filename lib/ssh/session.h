/* session.h - what lib/ssh's files share of a session (session.c):
 * ssh.c opens it (TCP, handshake, login), hostkey.c checks the server's
 * key against known_hosts, channel.c runs a command in it, tunnel.c
 * carries it through another host's connection; under them
 * known_hosts.c reads the file's text. Not installed, not for cli/. */
#ifndef PAI_SESSION_H
#define PAI_SESSION_H

#include "sys/sys.h"
#include "known_hosts.h"

#include "sys/dl_ssh2.h"

struct pai_ssh {
	char *host, *user, *key_file, *known_hosts, *alias;
	long port, timeout_ms;
	int replace_changed_key, strict_host_keys, use_agent;
	volatile int *interrupt;
	int fd;
	int dead; /* the connection was cut: only freeing is left */
	LIBSSH2_SESSION *session;
	LIBSSH2_SFTP *sftp; /* exec.c's, opened when first needed */
	pai_ssh_hostkey hostkey;
	/* the tunnel s's session goes through (tunnel.c), or NULL; and
	 * how many tunnels go through this one's connection */
	struct pai__tunnel *tunnel;
	int carrying;
	char *fingerprint;
	char *exit_signal;
	char detail[512];
};

/* Sets s->detail and returns err. */
int pai__ssh_fail(pai_ssh *s, int err, const char *fmt, ...) PAI__PRINTF(3, 4);
/* libssh2's last message for the session. */
const char *pai__ssh_msg(const pai_ssh *s);

static inline int pai__ssh_interrupted(const pai_ssh *s)
{
	return s->interrupt && *s->interrupt;
}

/* The server's host key against s->known_hosts (hostkey.c): PAI_OK when
 * it matches or was recorded (s->hostkey says which), PAI_EHOSTKEY when
 * it changed and replace_changed_key is not set, or it is new and
 * strict_host_keys is set. */
int pai__ssh_check_hostkey(pai_ssh *s);

/* A direct-tcpip channel on jump's connection to s's host and port,
 * carried to s->fd by a thread of its own (s->tunnel; tunnel.c). */
int pai__ssh_tunnel_open(pai_ssh *s, pai_ssh *jump);
/* The tunnel's thread stopped, its channel closed, it freed (NULL:
 * none); after s's session, whose socket (s->fd) the caller closed. */
void pai__ssh_tunnel_close(struct pai__tunnel *t);
/* 1, said in s's detail, when s carries a tunnel: its connection is
 * the tunnel's until that ends. */
int pai__ssh_carrying(pai_ssh *s);

#endif /* PAI_SESSION_H */
