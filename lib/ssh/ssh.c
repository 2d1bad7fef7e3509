/* ssh.c - SSH sessions to task containers, in-process with libssh2: the
 * handle, the connection and the login (see session.h for the files
 * beside it).
 *
 * Host keys are always checked against a known_hosts file (OpenSSH
 * format, so that plain ssh can share it). Containers are new on every
 * job, so a key is trusted on first use under a name of the caller's
 * choice (the container id, like OpenSSH's HostKeyAlias); a different
 * key under the same name is refused unless the caller accepts it.
 */
#include "session.h"
#include "tunnel.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>


static char *dup_or_null(const char *s, int *bad)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*bad = 1;
	return d;
}

int pai_ssh_new(pai_ssh **out, const pai_ssh_options *opts)
{
	pai_ssh *s = NULL;
	int bad = 0, ret = PAI_ENOMEM;

	*out = NULL;
	if (!opts || opts->version < 1 ||
	    opts->version > PAI_SSH_OPTIONS_VERSION || !opts->host ||
	    !opts->user || !opts->known_hosts || opts->port <= 0 ||
	    opts->port > 65535 ||
	    (!opts->key_file && (opts->version < 2 || !opts->use_agent)))
		return PAI_EINVAL;
	/* libssh2 opened and initialised, once per process */
	if (pai__ssh2_load())
		return PAI_ELIBRARY;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out;
	s->fd = -1;
	s->host = dup_or_null(opts->host, &bad);
	s->user = dup_or_null(opts->user, &bad);
	s->key_file = dup_or_null(opts->key_file, &bad);
	s->known_hosts = dup_or_null(opts->known_hosts, &bad);
	s->alias = dup_or_null(opts->host_key_alias, &bad);
	if (bad)
		goto out;
	s->port = opts->port;
	s->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 10000;
	s->replace_changed_key = opts->replace_changed_key;
	s->strict_host_keys = opts->version >= 3 && opts->strict_host_keys;
	/* version 1 callers know no use_agent: never read it */
	s->use_agent = opts->version >= 2 && opts->use_agent;
	s->interrupt = opts->interrupt;
	*out = s;
	s = NULL;
	ret = PAI_OK;
out:
	pai_ssh_free(s);
	return ret;
}

void pai_ssh_free(pai_ssh *s)
{
	if (!s)
		return;
	if (s->session) {
		libssh2_session_set_blocking(s->session, 1);
		libssh2_session_set_timeout(s->session, 2000);
		if (s->sftp && !s->dead)
			libssh2_sftp_shutdown(s->sftp);
		if (!s->dead)
			libssh2_session_disconnect(s->session, "bye");
		libssh2_session_free(s->session);
	}
	if (s->fd >= 0)
		close(s->fd);
	/* its socket closed: the tunnel forwards what is left, and ends */
	pai__ssh_tunnel_close(s->tunnel);
	free(s->host);
	free(s->user);
	free(s->key_file);
	free(s->known_hosts);
	free(s->alias);
	free(s->fingerprint);
	free(s->exit_signal);
	free(s);
}

const char *pai_ssh_detail(const pai_ssh *s)
{
	return s ? s->detail : "";
}

pai_ssh_hostkey pai_ssh_hostkey_status(const pai_ssh *s)
{
	return s->hostkey;
}

const char *pai_ssh_hostkey_fingerprint(const pai_ssh *s)
{
	return s ? s->fingerprint : NULL;
}

const char *pai_ssh_exit_signal(const pai_ssh *s)
{
	return s ? s->exit_signal : NULL;
}

/* Waits until the non-blocking connect() on fd, which said e, is done
 * or deadline has passed: 0 connected, an errno value (*timed_out set
 * for the deadline), or -1 when the caller interrupted. */
static int connect_wait(pai_ssh *s, int fd, int e, long long deadline,
			int *timed_out)
{
	while (e == EINPROGRESS || e == EINTR) {
		struct pollfd p = {fd, POLLOUT, 0};
		long long left = deadline - pai__now_ms();
		socklen_t len = sizeof(e);
		int ret;

		if (pai__ssh_interrupted(s))
			return -1;
		if (left <= 0) {
			*timed_out = 1;
			return ETIMEDOUT;
		}
		ret = poll(&p, 1, left > 200 ? 200 : (int)left);
		if (ret < 0 && errno != EINTR)
			return errno;
		e = EINPROGRESS;
		if (ret > 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
			e = errno;
	}
	return e;
}

/* A TCP connection within the timeout, trying each address in turn. */
static int tcp_connect(pai_ssh *s)
{
	struct addrinfo hints, *res = NULL, *ai;
	char port[16];
	long long deadline = pai__now_ms() + s->timeout_ms;
	int fd = -1, e = 0, ret, timed_out = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%ld", s->port);
	ret = getaddrinfo(s->host, port, &hints, &res);
	if (ret != 0)
		return pai__ssh_fail(s, PAI_EUNREACHABLE,
				     "cannot resolve '%s': %s", s->host,
				     gai_strerror(ret));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
			    ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = connect_wait(s, fd, errno, deadline, &timed_out);
		if (e == 0)
			break;
		close(fd);
		fd = -1;
		if (e < 0) {
			freeaddrinfo(res);
			return pai__ssh_fail(s, PAI_EINTR, "interrupted");
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return pai__ssh_fail(
		    s, PAI_EUNREACHABLE, "connect to %s port %ld: %s", s->host,
		    s->port, timed_out ? "timed out" : strerror(e));
	/* libssh2 waits on blocking sockets itself, within its timeout */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	/* a session whose peer went away without a word ends, as every
	 * connection of paictl's does */
	pai__tcp_keepalive(fd);
	/* SSH's small requests and answers (a keystroke, an SFTP step) go
	 * at once, not held for the peer's delayed acknowledgement (40 ms
	 * a step), as OpenSSH sets it */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	s->fd = fd;
	return PAI_OK;
}

/* The key file must be ours alone, as ssh insists. */
static int check_key_file(pai_ssh *s)
{
	struct stat st;
	int fd = open(s->key_file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return pai__ssh_fail(
		    s, errno == ENOENT ? PAI_ENOTFOUND : PAI_EACCES,
		    "cannot open key '%s': %s", s->key_file, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pai__ssh_fail(s, PAI_EACCES,
				     "key '%s' is not a regular file",
				     s->key_file);
	}
	close(fd);
	if (st.st_mode & 077)
		return pai__ssh_fail(
		    s, PAI_EACCES, "permissions %04o for key '%s' are too open",
		    (unsigned)(st.st_mode & 07777), s->key_file);
	return PAI_OK;
}

/* 1 when a key of the ssh-agent at $SSH_AUTH_SOCK let us in. */
static int agent_auth(pai_ssh *s)
{
	LIBSSH2_AGENT *agent = libssh2_agent_init(s->session);
	struct libssh2_agent_publickey *id = NULL, *prev = NULL;
	int ok = 0;

	if (!agent)
		return 0;
	if (libssh2_agent_connect(agent) == 0 &&
	    libssh2_agent_list_identities(agent) == 0) {
		while (!ok && !pai__ssh_interrupted(s) &&
		       libssh2_agent_get_identity(agent, &id, prev) == 0) {
			ok = libssh2_agent_userauth(agent, s->user, id) == 0;
			prev = id;
		}
		libssh2_agent_disconnect(agent);
	}
	libssh2_agent_free(agent);
	return ok;
}

static int key_auth(pai_ssh *s)
{
	int r = libssh2_userauth_publickey_fromfile(s->session, s->user, NULL,
						    s->key_file, NULL);

	if (r == LIBSSH2_ERROR_FILE)
		return pai__ssh_fail(s, PAI_EACCES, "cannot use key '%s': %s",
				     s->key_file, pai__ssh_msg(s));
	if (r == LIBSSH2_ERROR_TIMEOUT || r == LIBSSH2_ERROR_SOCKET_RECV ||
	    r == LIBSSH2_ERROR_SOCKET_SEND ||
	    r == LIBSSH2_ERROR_SOCKET_DISCONNECT)
		return pai__ssh_fail(s, PAI_EUNREACHABLE,
				     "%s port %ld: logging in failed: %s",
				     s->host, s->port, pai__ssh_msg(s));
	if (r != 0)
		return pai__ssh_fail(
		    s, PAI_EAUTH, "%s port %ld refused key '%s' for user '%s'",
		    s->host, s->port, s->key_file, s->user);
	return PAI_OK;
}

/* Connects s: over TCP, or through jump's connection (tunnel.c). */
static int connect_any(pai_ssh *s, pai_ssh *jump)
{
	int ret;

	s->detail[0] = '\0';
	if (s->session || s->fd >= 0)
		return pai__ssh_fail(s, PAI_EINVAL, "connected already");
	if (s->key_file && (ret = check_key_file(s)))
		return ret;
	ret = jump ? pai__ssh_tunnel_open(s, jump) : tcp_connect(s);
	if (ret)
		return ret;
	s->session = libssh2_session_init();
	if (!s->session)
		return pai__ssh_fail(s, PAI_ENOMEM, "out of memory");
	libssh2_session_set_blocking(s->session, 1);
	libssh2_session_set_timeout(s->session, s->timeout_ms);
	if (libssh2_session_handshake(s->session, s->fd) != 0)
		return pai__ssh_fail(
		    s, PAI_EUNREACHABLE,
		    "SSH handshake with %s port %ld failed: %s", s->host,
		    s->port, pai__ssh_msg(s));
	ret = pai__ssh_check_hostkey(s);
	if (ret)
		return ret;
	if (pai__ssh_interrupted(s))
		return pai__ssh_fail(s, PAI_EINTR, "interrupted");
	if (s->use_agent && getenv("SSH_AUTH_SOCK") && agent_auth(s))
		return PAI_OK;
	if (!s->key_file)
		return pai__ssh_fail(
		    s, PAI_EAUTH,
		    "%s port %ld refused the ssh-agent's keys for "
		    "user '%s'",
		    s->host, s->port, s->user);
	return key_auth(s);
}

int pai_ssh_connect(pai_ssh *s)
{
	return connect_any(s, NULL);
}

int pai__ssh_connect_via(pai_ssh *s, pai_ssh *jump)
{
	return connect_any(s, jump);
}
