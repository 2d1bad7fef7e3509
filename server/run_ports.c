/* run_ports.c - the tasks' ports: each one free on 127.0.0.1 when it is
 * chosen and given to one task only (s->port_used) until that task ends;
 * and the socket that holds a task's ssh port for its monitor */
#include "run_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static bool port_used(struct srv *s, unsigned p)
{
	return s->port_used[p / 8] & (1u << (p % 8));
}

void run_port_mark(struct srv *s, unsigned p, bool used)
{
	if (!p || p > 65535)
		return;
	if (used)
		s->port_used[p / 8] |= (unsigned char)(1u << (p % 8));
	else
		s->port_used[p / 8] &= (unsigned char)~(1u << (p % 8));
}

/* Binds 127.0.0.1:p (0: any) to learn that it is free; returns the port
 * or 0. The socket is closed at once: the task binds it itself. */
static unsigned try_bind(unsigned p)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned got = 0;

	if (fd < 0)
		return 0;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)p);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &alen) == 0)
		got = ntohs(a.sin_port);
	close(fd);
	return got;
}

/* A port free on this machine and not given to another task: from
 * begin_at upwards when the config says so, else any. */
unsigned run_port_take(struct srv *s, long long begin_at)
{
	unsigned p;
	int tries;

	if (begin_at > 0) {
		for (p = (unsigned)begin_at; p <= 65535; p++)
			if (!port_used(s, p) && try_bind(p) == p) {
				run_port_mark(s, p, true);
				return p;
			}
		return 0;
	}
	for (tries = 0; tries < 64; tries++) {
		p = try_bind(0);
		if (p && !port_used(s, p)) {
			run_port_mark(s, p, true);
			return p;
		}
	}
	return 0;
}

/* The task's ssh port, held by its monitor from the start. */
int run_listen_on(unsigned p)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)p);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 16) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void run_task_ports_release(struct srv *s, struct srv_job *j,
			    struct srv_task *t)
{
	size_t k;

	for (k = 0; k < j->roles[t->role].nports; k++)
		run_port_mark(s, t->ports[k], false);
}
