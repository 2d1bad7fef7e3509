/* keepalive.c - TCP keepalive, the same on every connection paictl
 * makes (libcurl's for REST, streams and exec; lib/ssh's own), so that a
 * peer gone without a word (a NAT entry or a load balancer that forgot
 * the connection: no FIN, no RST) is noticed within a minute, whatever
 * the connection carries. */
#include "sys.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

void pai__tcp_keepalive(int fd)
{
	int on = 1, idle = PAI__KEEPIDLE_S, intvl = PAI__KEEPINTVL_S,
	    cnt = PAI__KEEPCNT;

	/* a Unix socket refuses these: nothing to notice there */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}
