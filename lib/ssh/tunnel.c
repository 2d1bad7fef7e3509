/* tunnel.c - a session through another host's connection, as OpenSSH's
 * ProxyJump (tunnel.h): a direct-tcpip channel on the jump host's
 * connection to the target's host and port, and a socketpair whose one
 * end is the session's socket. A thread of the tunnel's own moves the
 * bytes between the channel and the pair's other end, holding at most
 * PAI__TUNNEL_BUF each way (the channel's SSH window bounds what the
 * jump host sends ahead). So the session's libssh2 speaks over the pair
 * as over TCP, blocking as it likes, and everything above it
 * (handshake, host key, login, pai_ssh_run) is as for a direct
 * connection. While the tunnel runs only its thread uses the jump host's
 * connection (libssh2's sessions are not for two threads at once). */
#include "session.h"
#include "tunnel.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How long the tunnel still forwards once its session was freed: what
 * the session said last (its disconnect) reaches the host. */
#define DRAIN_MS 1000

/* One direction's bytes: read, not yet all written. */
struct half {
	char buf[PAI__TUNNEL_BUF];
	size_t len, off;
	int eof; /* its source ended: 1, and 2 once that was passed on */
};

struct pai__tunnel {
	pai_ssh *jump;
	LIBSSH2_CHANNEL *ch;
	int fd; /* the pair's end the thread serves */
	pthread_t thread;
	atomic_int stop; /* the session was freed: drain, then end */
	int lost;	 /* the jump host's connection failed */
	struct half up;	 /* from the session to the channel */
	struct half down; /* from the channel to the session */
};

/* What a step did: moved bytes, nothing now, or the tunnel is done. */
enum { IDLE = 0, MOVED = 1, DONE = -1 };

/* The session's bytes read from the pair. */
static int session_read(struct pai__tunnel *t)
{
	struct half *h = &t->up;
	ssize_t n;

	if (h->off < h->len || h->eof)
		return IDLE;
	n = recv(t->fd, h->buf, sizeof(h->buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return IDLE;
	if (n <= 0) { /* the session closed its socket */
		h->eof = 1;
		return MOVED;
	}
	h->len = (size_t)n;
	h->off = 0;
	return MOVED;
}

/* The session's bytes sent on the channel; DONE once all of them went
 * and the session closed. */
static int channel_write(struct pai__tunnel *t)
{
	struct half *h = &t->up;
	ssize_t n;

	if (h->off == h->len)
		return h->eof ? DONE : IDLE;
	n = libssh2_channel_write(t->ch, h->buf + h->off, h->len - h->off);
	if (n == LIBSSH2_ERROR_EAGAIN)
		return IDLE;
	if (n < 0) {
		/* the host closed the channel, or the connection broke */
		t->lost = n != LIBSSH2_ERROR_CHANNEL_CLOSED &&
			  n != LIBSSH2_ERROR_CHANNEL_EOF_SENT;
		return DONE;
	}
	h->off += (size_t)n;
	return MOVED;
}

/* The host's bytes read from the channel. */
static int channel_read(struct pai__tunnel *t)
{
	struct half *h = &t->down;
	ssize_t n;

	if (h->off < h->len || h->eof)
		return IDLE;
	n = libssh2_channel_read(t->ch, h->buf, sizeof(h->buf));
	if (n == LIBSSH2_ERROR_EAGAIN ||
	    (n == 0 && !libssh2_channel_eof(t->ch)))
		return IDLE;
	if (n == 0 || n == LIBSSH2_ERROR_CHANNEL_CLOSED) {
		h->eof = 1;
		return MOVED;
	}
	if (n < 0) {
		t->lost = 1;
		return DONE;
	}
	h->len = (size_t)n;
	h->off = 0;
	return MOVED;
}

/* The host's bytes written to the pair, and its end passed on. */
static int session_write(struct pai__tunnel *t)
{
	struct half *h = &t->down;
	ssize_t n;

	if (h->off == h->len) {
		if (h->eof != 1)
			return IDLE;
		shutdown(t->fd, SHUT_WR);
		h->eof = 2;
		return MOVED;
	}
	n = send(t->fd, h->buf + h->off, h->len - h->off,
		 MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return IDLE;
	if (n < 0) /* the session is gone */
		return DONE;
	h->off += (size_t)n;
	return MOVED;
}

/* Blocks until either side may move, or ms. The channel is read last
 * in a round, so nothing libssh2 read into its queue waits here. */
static void wait_io(struct pai__tunnel *t, int ms)
{
	int dir = libssh2_session_block_directions(t->jump->session);
	struct pollfd p[2];

	p[0].fd = t->jump->fd;
	p[0].events = 0;
	/* the channel's data only when there is room for it: else the
	 * socket stays readable and this would spin */
	if ((t->down.off == t->down.len && !t->down.eof) ||
	    t->up.off < t->up.len || (dir & LIBSSH2_SESSION_BLOCK_INBOUND))
		p[0].events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		p[0].events |= POLLOUT;
	p[1].fd = t->fd;
	p[1].events = 0;
	if (t->up.off == t->up.len && !t->up.eof)
		p[1].events |= POLLIN;
	if (t->down.off < t->down.len)
		p[1].events |= POLLOUT;
	p[0].revents = p[1].revents = 0;
	poll(p, 2, ms);
}

static void *pump(void *arg)
{
	struct pai__tunnel *t = arg;
	long long drain_until = 0;
	int a, b, c, d;

	for (;;) {
		if (atomic_load(&t->stop) && !drain_until)
			drain_until = pai__now_ms() + DRAIN_MS;
		if (drain_until && pai__now_ms() >= drain_until)
			break;
		a = session_read(t);
		b = channel_write(t);
		c = channel_read(t);
		d = session_write(t);
		if (a == DONE || b == DONE || c == DONE || d == DONE)
			break;
		if (!a && !b && !c && !d)
			wait_io(t, drain_until ? 100 : 1000);
	}
	/* the session, if still there, sees its connection end */
	shutdown(t->fd, SHUT_RDWR);
	return NULL;
}

int pai__ssh_carrying(pai_ssh *s)
{
	if (!s->carrying)
		return 0;
	pai__ssh_fail(s, PAI_EINVAL,
		      "the connection to %s carries a session to another "
		      "host",
		      s->host);
	return 1;
}

/* The channel to s's host and port on jump's connection: PAI_OK, or
 * the error in s's detail. */
static int open_channel(pai_ssh *s, pai_ssh *jump, LIBSSH2_CHANNEL **ch)
{
	char *msg = NULL;
	int code;

	libssh2_session_set_blocking(jump->session, 1);
	*ch = libssh2_channel_direct_tcpip_ex(jump->session, s->host,
					      (int)s->port, "127.0.0.1", 22);
	if (*ch)
		return PAI_OK;
	code = libssh2_session_last_error(jump->session, &msg, NULL, 0);
	if (code == LIBSSH2_ERROR_CHANNEL_FAILURE)
		/* the host refused: it could not connect, or forwards not */
		return pai__ssh_fail(s, PAI_EUNREACHABLE,
				     "%s port %ld cannot be reached from %s: "
				     "%s",
				     s->host, s->port, jump->host,
				     msg && *msg ? msg : "refused");
	shutdown(jump->fd, SHUT_RDWR);
	jump->dead = 1;
	return pai__ssh_fail(s, PAI_EUNREACHABLE,
			     "connection to %s port %ld lost: %s", jump->host,
			     jump->port, msg && *msg ? msg : "unknown error");
}

/* The thread started with every signal blocked: they are the caller's
 * threads' to take. */
static int start(struct pai__tunnel *t)
{
	sigset_t all, old;
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t->thread, NULL, pump, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

int pai__ssh_tunnel_open(pai_ssh *s, pai_ssh *jump)
{
	struct pai__tunnel *t;
	int sv[2], ret;

	if (!jump->session || jump->dead)
		return pai__ssh_fail(s, PAI_EUNREACHABLE,
				     "the connection to %s is closed",
				     jump->host);
	if (pai__ssh_carrying(jump))
		return pai__ssh_fail(s, PAI_EINVAL, "%s", jump->detail);
	if (!(t = calloc(1, sizeof(*t))))
		return pai__ssh_fail(s, PAI_ENOMEM, "out of memory");
	t->jump = jump;
	atomic_init(&t->stop, 0);
	if ((ret = open_channel(s, jump, &t->ch))) {
		free(t);
		return ret;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		ret = pai__ssh_fail(s, PAI_ERROR, "socketpair: %s",
				    strerror(errno));
		goto fail;
	}
	t->fd = sv[1];
	libssh2_session_set_blocking(jump->session, 0);
	if (start(t) != 0) {
		ret = pai__ssh_fail(s, PAI_ENOMEM, "cannot start a thread");
		libssh2_session_set_blocking(jump->session, 1);
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	jump->carrying = 1;
	s->tunnel = t;
	s->fd = sv[0];
	return PAI_OK;
fail:
	libssh2_channel_free(t->ch);
	free(t);
	return ret;
}

void pai__ssh_tunnel_close(struct pai__tunnel *t)
{
	pai_ssh *jump;

	if (!t)
		return;
	jump = t->jump;
	atomic_store(&t->stop, 1);
	pthread_join(t->thread, NULL);
	/* the jump host's connection its caller's again */
	libssh2_session_set_blocking(jump->session, 1);
	if (t->lost && !jump->dead) {
		shutdown(jump->fd, SHUT_RDWR);
		jump->dead = 1;
	}
	/* closing the channel waits for the host's word: not long */
	libssh2_session_set_timeout(jump->session, 2000);
	libssh2_channel_free(t->ch);
	libssh2_session_set_timeout(jump->session, jump->timeout_ms);
	jump->carrying = 0;
	close(t->fd);
	free(t);
}
