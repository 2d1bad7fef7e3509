/* exec.c - commands and files on a host one connection logged in to
 * (exec.h): an exec channel per command with its output captured within
 * bounds, and SFTP on the same connection. Words reach the remote shell
 * only quoted (pai__sh_quote). */
#include "session.h"
#include "exec.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void pai__sh_quote(pai__buf *b, const char *word)
{
	const char *p;

	pai__buf_putc(b, '\'');
	for (p = word; *p; p++) {
		if (*p == '\'')
			pai__buf_puts(b, "'\\''");
		else
			pai__buf_putc(b, *p);
	}
	pai__buf_putc(b, '\'');
}

void pai__ssh_out_release(struct pai__ssh_out *o)
{
	pai__buf_release(&o->out);
	pai__buf_release(&o->err);
}

/* Waits (at most 200 ms) for the socket to go the way libssh2 wants. */
static void wait_socket(pai_ssh *s)
{
	struct pollfd p = {s->fd, POLLIN, 0};

	if (libssh2_session_block_directions(s->session) &
	    LIBSSH2_SESSION_BLOCK_OUTBOUND)
		p.events |= POLLOUT;
	poll(&p, 1, 200);
}

static int lost(pai_ssh *s)
{
	shutdown(s->fd, SHUT_RDWR);
	s->dead = 1;
	return pai__ssh_fail(s, PAI_EUNREACHABLE,
			     "connection to %s port %ld lost: %s", s->host,
			     s->port, pai__ssh_msg(s));
}

/* What stream (0 stdout, 1 stderr) has now, kept within max: 1 while
 * there was some, 0 none now, < 0 an error. */
static int drain(LIBSSH2_CHANNEL *ch, int stream, pai__buf *b, int *cut,
		 size_t max)
{
	char buf[16384];
	ssize_t n;
	size_t room;

	n = libssh2_channel_read_ex(ch, stream ? SSH_EXTENDED_DATA_STDERR : 0,
				    buf, sizeof(buf));
	if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
		return 0;
	if (n < 0)
		return -1;
	room = b->len < max ? max - b->len : 0;
	pai__buf_put(b, buf, (size_t)n < room ? (size_t)n : room);
	if ((size_t)n > room)
		*cut = 1;
	return 1;
}

/* Both streams read until the command closes its end, or the time or
 * the caller says stop. */
static int pump(pai_ssh *s, LIBSSH2_CHANNEL *ch, size_t max, long timeout_ms,
		struct pai__ssh_out *o)
{
	long long deadline = pai__now_ms() + timeout_ms;
	int a, b;

	for (;;) {
		if (pai__ssh_interrupted(s))
			return pai__ssh_fail(s, PAI_EINTR, "interrupted");
		a = drain(ch, 0, &o->out, &o->out_cut, max);
		b = drain(ch, 1, &o->err, &o->err_cut, max);
		if (a < 0 || b < 0)
			return lost(s);
		if (o->out.oom || o->err.oom)
			return pai__ssh_fail(s, PAI_ENOMEM, "out of memory");
		if (a || b)
			continue;
		if (libssh2_channel_eof(ch))
			return PAI_OK;
		if (pai__now_ms() > deadline)
			return pai__ssh_fail(s, PAI_ETIMEOUT,
					     "no end of the command on %s "
					     "after %ld ms",
					     s->host, timeout_ms);
		wait_socket(s);
	}
}

/* The exit status, or 128 + the signal's number (127 unknown). */
static int exit_status(LIBSSH2_CHANNEL *ch)
{
	char *sig = NULL;
	size_t len = 0;

	if (libssh2_channel_get_exit_signal(ch, &sig, &len, NULL, NULL, NULL,
					    NULL) == 0 &&
	    sig && len) {
		/* the signal's name is all the caller needs to know it died */
		return 128 + (strcmp(sig, "TERM") == 0	 ? 15
			      : strcmp(sig, "KILL") == 0 ? 9
			      : strcmp(sig, "INT") == 0	 ? 2
							 : 127);
	}
	return libssh2_channel_get_exit_status(ch);
}

int pai__ssh_exec(pai_ssh *s, const char *command, size_t max, long timeout_ms,
		  struct pai__ssh_out *o)
{
	LIBSSH2_CHANNEL *ch;
	int ret;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	s->detail[0] = '\0';
	if (!s->session || s->dead)
		return pai__ssh_fail(s, PAI_EINVAL, "not connected");
	if (pai__ssh_carrying(s))
		return PAI_EINVAL;
	libssh2_session_set_blocking(s->session, 1);
	if (!(ch = libssh2_channel_open_session(s->session)))
		return lost(s);
	if (libssh2_channel_exec(ch, command) != 0) {
		ret = pai__ssh_fail(s, PAI_EUNREACHABLE,
				    "%s refused to run a command: %s", s->host,
				    pai__ssh_msg(s));
		libssh2_channel_free(ch);
		return ret;
	}
	libssh2_channel_send_eof(ch);
	libssh2_session_set_blocking(s->session, 0);
	ret = pump(s, ch, max, timeout_ms, o);
	libssh2_session_set_blocking(s->session, 1);
	if (ret) {
		/* a command that did not end: the connection is cut rather
		 * than waited on */
		if (!s->dead) {
			shutdown(s->fd, SHUT_RDWR);
			s->dead = 1;
		}
		libssh2_channel_free(ch);
		return ret;
	}
	libssh2_channel_close(ch);
	libssh2_channel_wait_closed(ch);
	o->status = exit_status(ch);
	libssh2_channel_free(ch);
	return PAI_OK;
}

/* ---- SFTP on the same connection ---------------------------------------- */

static int sftp_open(pai_ssh *s)
{
	if (!s->session || s->dead)
		return pai__ssh_fail(s, PAI_EINVAL, "not connected");
	if (pai__ssh_carrying(s))
		return PAI_EINVAL;
	libssh2_session_set_blocking(s->session, 1);
	if (!s->sftp && !(s->sftp = libssh2_sftp_init(s->session)))
		return pai__ssh_fail(s, PAI_EUNREACHABLE, "%s has no SFTP: %s",
				     s->host, pai__ssh_msg(s));
	return PAI_OK;
}

/* An SFTP failure on path as libpai's error, said. */
static int sftp_fail(pai_ssh *s, const char *what, const char *path)
{
	unsigned long e = libssh2_sftp_last_error(s->sftp);
	int err = e == LIBSSH2_FX_NO_SUCH_FILE || e == LIBSSH2_FX_NO_SUCH_PATH
		      ? PAI_ENOTFOUND
		  : e == LIBSSH2_FX_PERMISSION_DENIED ? PAI_EACCES
						      : PAI_EIO;

	return pai__ssh_fail(s, err, "cannot %s %s on %s: %s", what, path,
			     s->host,
			     err == PAI_ENOTFOUND ? "no such file or directory"
			     : err == PAI_EACCES  ? "permission denied"
						  : pai__ssh_msg(s));
}

static int write_all(pai_ssh *s, LIBSSH2_SFTP_HANDLE *h, const char *data,
		     size_t len, const char *path)
{
	ssize_t n;

	while (len) {
		n = libssh2_sftp_write(h, data, len);
		if (n <= 0)
			return sftp_fail(s, "write", path);
		data += n;
		len -= (size_t)n;
	}
	return PAI_OK;
}

int pai__ssh_put(pai_ssh *s, const char *path, const char *data, size_t len,
		 long mode)
{
	LIBSSH2_SFTP_HANDLE *h;
	char *part = NULL;
	int ret;

	if ((ret = sftp_open(s)))
		return ret;
	if (asprintf(&part, "%s.part", path) < 0)
		return pai__ssh_fail(s, PAI_ENOMEM, "out of memory");
	h = libssh2_sftp_open(
	    s->sftp, part,
	    LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC, mode);
	if (!h) {
		ret = sftp_fail(s, "write", part);
		free(part);
		return ret;
	}
	ret = write_all(s, h, data, len, part);
	if (libssh2_sftp_close_handle(h) && !ret)
		ret = sftp_fail(s, "write", part);
	if (!ret &&
	    libssh2_sftp_rename_ex(s->sftp, part, (unsigned)strlen(part), path,
				   (unsigned)strlen(path),
				   LIBSSH2_SFTP_RENAME_OVERWRITE |
				       LIBSSH2_SFTP_RENAME_ATOMIC |
				       LIBSSH2_SFTP_RENAME_NATIVE))
		ret = sftp_fail(s, "rename to", path);
	free(part);
	return ret;
}

int pai__ssh_mkdir(pai_ssh *s, const char *path, long mode)
{
	int ret;

	if ((ret = sftp_open(s)))
		return ret;
	if (libssh2_sftp_mkdir(s->sftp, path, mode) == 0 ||
	    libssh2_sftp_last_error(s->sftp) == LIBSSH2_FX_FILE_ALREADY_EXISTS)
		return PAI_OK;
	/* OpenSSH's sftp-server says FAILURE for a directory there */
	if (libssh2_sftp_last_error(s->sftp) == LIBSSH2_FX_FAILURE) {
		LIBSSH2_SFTP_HANDLE *h = libssh2_sftp_opendir(s->sftp, path);

		if (h) {
			libssh2_sftp_closedir(h);
			return PAI_OK;
		}
	}
	return sftp_fail(s, "make the directory", path);
}

int pai__ssh_get(pai_ssh *s, const char *path, long long *offset, size_t max,
		 pai__buf *b)
{
	LIBSSH2_SFTP_ATTRIBUTES a;
	LIBSSH2_SFTP_HANDLE *h;
	char buf[32768];
	ssize_t n;
	size_t got = 0;
	int ret;

	if ((ret = sftp_open(s)))
		return ret;
	if (!(h = libssh2_sftp_open(s->sftp, path, LIBSSH2_FXF_READ, 0)))
		return sftp_fail(s, "read", path);
	if (*offset < 0 ||
	    (libssh2_sftp_fstat(h, &a) == 0 &&
	     (a.flags & LIBSSH2_SFTP_ATTR_SIZE) &&
	     a.filesize < (libssh2_uint64_t)*offset))
		*offset = 0;
	libssh2_sftp_seek64(h, (libssh2_uint64_t)*offset);
	while (got < max) {
		n = libssh2_sftp_read(
		    h, buf, max - got < sizeof(buf) ? max - got : sizeof(buf));
		if (n == 0)
			break;
		if (n < 0) {
			ret = sftp_fail(s, "read", path);
			break;
		}
		pai__buf_put(b, buf, (size_t)n);
		got += (size_t)n;
	}
	libssh2_sftp_close_handle(h);
	if (!ret && b->oom)
		ret = pai__ssh_fail(s, PAI_ENOMEM, "out of memory");
	return ret;
}

int pai__ssh_dead(const pai_ssh *s)
{
	return !s->session || s->dead;
}
