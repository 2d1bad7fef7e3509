/* channel.c - a command or a shell in a connected session: its input,
 * output and terminal moved both ways until it ends, and its exit
 * status. */
#include "session.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Writes all of buf to fd. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = {fd, POLLOUT, 0};

			poll(&p, 1, 1000);
			continue;
		}
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int signal_number(const char *name)
{
	static const struct {
		const char *name;
		int num;
	} sigs[] = {{"HUP", 1},	  {"INT", 2},	{"QUIT", 3},  {"ILL", 4},
		    {"ABRT", 6},  {"FPE", 8},	{"KILL", 9},  {"USR1", 10},
		    {"SEGV", 11}, {"USR2", 12}, {"PIPE", 13}, {"ALRM", 14},
		    {"TERM", 15}};
	size_t i;

	for (i = 0; name && i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strcmp(sigs[i].name, name) == 0)
			return sigs[i].num;
	return 127; /* 128 + 127 = 255: unknown */
}

/* Blocks until the socket can go the way libssh2 wants, or 1 s. */
static void wait_socket(pai_ssh *s, struct pollfd *extra)
{
	struct pollfd p[2];
	int dir = libssh2_session_block_directions(s->session);

	p[0].fd = s->fd;
	p[0].events = POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		p[0].events |= POLLOUT;
	p[0].revents = 0;
	if (extra) {
		p[1] = *extra;
		p[1].revents = 0;
	}
	poll(p, extra ? 2 : 1, 1000);
	if (extra)
		extra->revents = p[1].revents;
}

/* The caller's side of a running session: input read and not yet
 * sent. */
struct pump {
	char in[32768];
	size_t inlen, inoff;
	int in_eof, eof_sent;
};

static int lost(pai_ssh *s)
{
	return pai__ssh_fail(s, PAI_EUNREACHABLE,
			     "connection to %s port %ld lost: %s", s->host,
			     s->port, pai__ssh_msg(s));
}

/* Tells the remote terminal the window's new size, when it changed. */
static void resize(pai_ssh *s, LIBSSH2_CHANNEL *ch,
		   const pai_ssh_run_options *o)
{
	unsigned cols = 0, rows = 0;

	if (!o->resized || !*o->resized || !o->window_size)
		return;
	*o->resized = 0;
	if (o->window_size(o->data, &cols, &rows) == 0)
		while (libssh2_channel_request_pty_size(
			   ch, (int)cols, (int)rows) == LIBSSH2_ERROR_EAGAIN &&
		       !pai__ssh_interrupted(s))
			wait_socket(s, NULL);
}

/* Writes what the remote command wrote so far, stdout and stderr, to
 * the caller's descriptors. */
static int drain_output(pai_ssh *s, LIBSSH2_CHANNEL *ch,
			const pai_ssh_run_options *o)
{
	static const int streams[2] = {0, SSH_EXTENDED_DATA_STDERR};
	char buf[32768];
	ssize_t n;
	int i;

	for (i = 0; i < 2; i++) {
		int fd = i && o->err_fd >= 0 ? o->err_fd : o->out_fd;

		while ((n = libssh2_channel_read_ex(ch, streams[i], buf,
						    sizeof(buf))) > 0)
			if (write_all(fd, buf, (size_t)n) < 0)
				return pai__ssh_fail(
				    s, PAI_EIO, "cannot write the output: %s",
				    strerror(errno));
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
			return lost(s);
	}
	return PAI_OK;
}

/* Sends what input the channel takes now, and its end once all of it
 * has gone. */
static int push_input(pai_ssh *s, LIBSSH2_CHANNEL *ch, struct pump *p)
{
	ssize_t n;

	while (p->inoff < p->inlen) {
		n = libssh2_channel_write(ch, p->in + p->inoff,
					  p->inlen - p->inoff);
		if (n == LIBSSH2_ERROR_EAGAIN)
			break;
		if (n == LIBSSH2_ERROR_CHANNEL_CLOSED ||
		    n == LIBSSH2_ERROR_CHANNEL_EOF_SENT) {
			/* the remote command is done with its input
			 * (head -1): the rest is dropped */
			p->inoff = p->inlen;
			p->in_eof = p->eof_sent = 1;
			break;
		}
		if (n < 0)
			return lost(s);
		p->inoff += (size_t)n;
	}
	if (p->inoff == p->inlen)
		p->inoff = p->inlen = 0;
	if (p->in_eof && !p->eof_sent && !p->inlen) {
		/* sent, or the remote closed already: either way done */
		if (libssh2_channel_send_eof(ch) != LIBSSH2_ERROR_EAGAIN)
			p->eof_sent = 1;
	}
	return PAI_OK;
}

/* Reads the caller's input, which poll says is ready; *closed when
 * on_input says to leave ("~."). */
static int read_input(pai_ssh *s, const pai_ssh_run_options *o, struct pump *p,
		      int *closed)
{
	/* one byte left for on_input */
	ssize_t n = read(o->in_fd, p->in, sizeof(p->in) - 1);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return PAI_OK;
	if (n < 0)
		return pai__ssh_fail(s, PAI_EIO, "cannot read the input: %s",
				     strerror(errno));
	if (n == 0) {
		p->in_eof = 1;
		return PAI_OK;
	}
	p->inlen = (size_t)n;
	if (o->on_input && o->on_input(o->data, p->in, &p->inlen))
		*closed = 1;
	return PAI_OK;
}

/* Moves bytes both ways until the remote command's output ends. */
static int pump(pai_ssh *s, LIBSSH2_CHANNEL *ch, const pai_ssh_run_options *o,
		int *closed)
{
	struct pump p;
	int err;

	memset(&p, 0, sizeof(p));
	p.in_eof = o->in_fd < 0;
	*closed = 0;
	for (;;) {
		struct pollfd in = {o->in_fd, POLLIN, 0};
		int want_input;

		if (pai__ssh_interrupted(s))
			return pai__ssh_fail(s, PAI_EINTR, "interrupted");
		resize(s, ch, o);
		if ((err = drain_output(s, ch, o)) ||
		    (err = push_input(s, ch, &p)))
			return err;
		if (libssh2_channel_eof(ch))
			return PAI_OK;
		want_input = !p.in_eof && !p.inlen;
		wait_socket(s, want_input ? &in : NULL);
		if (want_input && in.revents &&
		    ((err = read_input(s, o, &p, closed)) || *closed))
			return err;
	}
}

/* Opens the terminal when asked for, and starts the command or a
 * shell. */
static int start(pai_ssh *s, LIBSSH2_CHANNEL *ch, const pai_ssh_run_options *o)
{
	const char *term;
	int r;

	if (o->pty) {
		term = o->term && *o->term ? o->term : "xterm";
		if (libssh2_channel_request_pty_ex(
			ch, term, (unsigned)strlen(term), NULL, 0,
			(int)(o->cols ? o->cols : 80),
			(int)(o->rows ? o->rows : 24), 0, 0) != 0)
			return pai__ssh_fail(s, PAI_ERROR, "no terminal: %s",
					     pai__ssh_msg(s));
	}
	r = o->command ? libssh2_channel_exec(ch, o->command)
		       : libssh2_channel_shell(ch);
	if (r != 0)
		return pai__ssh_fail(s, PAI_ERROR, "cannot start %s: %s",
				     o->command ? "the command" : "a shell",
				     pai__ssh_msg(s));
	return PAI_OK;
}

/* The remote command's exit status, or 128 + the signal that ended
 * it (its name kept in s->exit_signal). */
static int exit_status_of(pai_ssh *s, LIBSSH2_CHANNEL *ch)
{
	char *sig = NULL;
	size_t siglen = 0;
	int status = libssh2_channel_get_exit_status(ch);

	if (libssh2_channel_get_exit_signal(ch, &sig, &siglen, NULL, NULL, NULL,
					    NULL) == 0 &&
	    sig) {
		free(s->exit_signal);
		s->exit_signal = strdup(sig);
		status = 128 + signal_number(sig);
	}
	if (sig)
		libssh2_free(s->session, sig);
	return status;
}

int pai_ssh_run(pai_ssh *s, const pai_ssh_run_options *o, int *exit_status)
{
	LIBSSH2_CHANNEL *ch = NULL;
	int ret, closed = 0;

	*exit_status = -1;
	s->detail[0] = '\0';
	if (!o || o->version != PAI_SSH_RUN_OPTIONS_VERSION)
		return pai__ssh_fail(s, PAI_EINVAL, "bad options");
	if (!s->session || s->dead)
		return pai__ssh_fail(s, PAI_EINVAL, "not connected");
	if (pai__ssh_carrying(s))
		return PAI_EINVAL;
	libssh2_session_set_blocking(s->session, 1);
	ch = libssh2_channel_open_session(s->session);
	if (!ch)
		return pai__ssh_fail(s, PAI_EUNREACHABLE,
				     "cannot open a session: %s",
				     pai__ssh_msg(s));
	if ((ret = start(s, ch, o)))
		goto out;
	libssh2_session_set_blocking(s->session, 0);
	ret = pump(s, ch, o, &closed);
	libssh2_session_set_blocking(s->session, 1);
	if (ret || closed) {
		/* no polite close: sshd answers one only once the remote
		 * command ends, and Ctrl-C or "~." must not wait for that */
		shutdown(s->fd, SHUT_RDWR);
		s->dead = 1;
		goto out;
	}
	libssh2_channel_close(ch);
	libssh2_channel_wait_closed(ch);
	*exit_status = exit_status_of(s, ch);
out:
	libssh2_channel_free(ch);
	return ret;
}
