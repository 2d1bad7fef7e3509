/* ssh.c - SSH sessions to task containers, in-process with libssh2
 *
 * Host keys are always checked against a known_hosts file (OpenSSH
 * format, so that plain ssh can share it). Containers are new on every
 * job, so a key is trusted on first use under a name of the caller's
 * choice (the container id, like OpenSSH's HostKeyAlias); a different
 * key under the same name is refused unless the caller accepts it.
 */
#include "internal.h"
#include "known_hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/dl_ssh2.h"

struct pai_ssh {
	char *host, *user, *key_file, *known_hosts, *alias;
	long port, timeout_ms;
	int accept_new, use_agent;
	volatile int *interrupt;
	int fd;
	int dead; /* the connection was cut: only freeing is left */
	LIBSSH2_SESSION *session;
	pai_ssh_hostkey hostkey;
	char *fingerprint;
	char *exit_signal;
	char detail[512];
};

static int fail(pai_ssh *s, int err, const char *fmt, ...) PAI__PRINTF(3, 4);

static int fail(pai_ssh *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
	return err;
}

/* libssh2's last message for the session */
static const char *ssh_msg(const pai_ssh *s)
{
	char *msg = NULL;

	if (!s->session)
		return "no session";
	libssh2_session_last_error(s->session, &msg, NULL, 0);
	return msg && *msg ? msg : "unknown error";
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
	    (!opts->key_file &&
	     (opts->version < 2 || !opts->use_agent)))
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
	s->accept_new = opts->accept_new;
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
		if (!s->dead)
			libssh2_session_disconnect(s->session, "bye");
		libssh2_session_free(s->session);
	}
	if (s->fd >= 0)
		close(s->fd);
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

static int interrupted(const pai_ssh *s)
{
	return s->interrupt && *s->interrupt;
}

/* Waits until the non-blocking connect() on fd, which said e, is done
 * or deadline has passed: 0 connected, an errno value (*timed_out set
 * for the deadline), or -1 when the caller interrupted. */
static int connect_wait(pai_ssh *s, int fd, int e, long long deadline,
			int *timed_out)
{
	while (e == EINPROGRESS || e == EINTR) {
		struct pollfd p = {fd, POLLOUT, 0};
		long long left = deadline - now_ms();
		socklen_t len = sizeof(e);
		int ret;

		if (interrupted(s))
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
	long long deadline = now_ms() + s->timeout_ms;
	int fd = -1, e = 0, ret, timed_out = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%ld", s->port);
	ret = getaddrinfo(s->host, port, &hints, &res);
	if (ret != 0)
		return fail(s, PAI_EUNREACHABLE, "cannot resolve '%s': %s",
			    s->host, gai_strerror(ret));
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
			return fail(s, PAI_EINTR, "interrupted");
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return fail(s, PAI_EUNREACHABLE, "connect to %s port %ld: %s",
			    s->host, s->port,
			    timed_out ? "timed out" : strerror(e));
	/* libssh2 waits on blocking sockets itself, within its timeout */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	s->fd = fd;
	return PAI_OK;
}

static void base64(char *out, const unsigned char *in, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				  "qrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*out++ = tab[in[i] >> 2];
		*out++ = tab[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
		*out++ = tab[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)];
		*out++ = tab[in[i + 2] & 63];
	}
	if (i < n) {
		*out++ = tab[in[i] >> 2];
		if (i + 1 < n) {
			*out++ = tab[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
			*out++ = tab[(in[i + 1] & 15) << 2];
		} else
			*out++ = tab[(in[i] & 3) << 4];
	}
	*out = '\0';
}

static int key_bits(int type, const char **name)
{
	switch (type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		*name = "ssh-rsa";
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		*name = "ssh-dss";
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		*name = "ecdsa-sha2-nistp256";
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		*name = "ecdsa-sha2-nistp384";
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		*name = "ecdsa-sha2-nistp521";
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		*name = "ssh-ed25519";
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
	}
	*name = "unknown";
	return 0;
}

/* known_hosts is rewritten whole (a replaced key) or appended to (a new
 * one); two paictl processes doing either at once could lose a line, the
 * rename of one rewrite dropping what the other appended. Both take an
 * exclusive flock on "<known_hosts>.lock" (a file of its own: the
 * rewrite's rename gives known_hosts a new inode) and a rewrite reads the
 * file again under it. -1 (errno set) when it cannot. */
static int lock_known_hosts(const pai_ssh *s)
{
	char *path = NULL;
	int fd;

	if (asprintf(&path, "%s.lock", s->known_hosts) < 0)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
	return fd;
}

/* The file without the lines that record name, plus line, read and
 * written under the lock. */
static int replace_lines(pai_ssh *s, const char *name, const char *line)
{
	pai__buf b = PAI__BUF_INIT;
	char *text = NULL, *data;
	size_t len = 0;
	int err, e = 0, fd = lock_known_hosts(s);

	if (fd < 0)
		return fail(s, PAI_EIO, "cannot lock '%s.lock': %s",
			    s->known_hosts, strerror(errno));
	err = pai_file_read(&text, &len, &e, s->known_hosts);
	if (err == PAI_ENOTFOUND)
		err = PAI_OK;
	if (!err)
		pai__kh_without(&b, text, len, name);
	free(text);
	pai__buf_puts(&b, line);
	len = b.len;
	data = err ? NULL : pai__buf_detach(&b);
	pai__buf_release(&b);
	if (!err && !data)
		err = PAI_ENOMEM;
	if (!err)
		err = pai_file_write_atomic(s->known_hosts, data, len, 0600, 0);
	free(data);
	close(fd); /* unlocks */
	if (err)
		return fail(s, err, "cannot write '%s': %s", s->known_hosts,
			    e ? strerror(e) : pai_strerror(err));
	return PAI_OK;
}

static int append_line(pai_ssh *s, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;
	int fd, e, lock = lock_known_hosts(s);

	if (lock < 0)
		return fail(s, PAI_EIO, "cannot lock '%s.lock': %s",
			    s->known_hosts, strerror(errno));
	fd = open(s->known_hosts, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		  0600);
	if (fd < 0)
		goto bad;
	n = write(fd, line, len);
	if (n != (ssize_t)len || fsync(fd) < 0) {
		e = n < 0 ? errno : EIO;
		close(fd);
		errno = e;
		goto bad;
	}
	if (close(fd) < 0)
		goto bad;
	close(lock);
	return PAI_OK;
bad:
	e = errno;
	close(lock);
	return fail(s, PAI_EIO, "cannot write '%s': %s", s->known_hosts,
		    strerror(e));
}

/* The key's fingerprint as ssh-keygen -l shows it, into s->fingerprint
 * (left NULL when libssh2 gives no hash, or memory runs out). */
static void set_fingerprint(pai_ssh *s, const char *tname)
{
	const unsigned char *hash = (const unsigned char *)libssh2_hostkey_hash(
	    s->session, LIBSSH2_HOSTKEY_HASH_SHA256);
	char fp[64];

	if (!hash)
		return;
	base64(fp, hash, 32);
	fp[43] = '\0'; /* no padding, as ssh-keygen -l */
	if (asprintf(&s->fingerprint, "%s SHA256:%s", tname, fp) < 0)
		s->fingerprint = NULL;
}

/* The name a key is recorded under: the alias, or "[host]:port" as
 * OpenSSH does. New; NULL when out of memory. */
static char *hostkey_name(const pai_ssh *s)
{
	char *name = NULL;

	if (s->alias)
		return strdup(s->alias);
	if (s->port == 22)
		return strdup(s->host);
	if (asprintf(&name, "[%s]:%ld", s->host, s->port) < 0)
		return NULL;
	return name;
}

/* The known_hosts file as it is now into hosts, and its text (*text
 * new, NULL when there is no file). */
static int load_known_hosts(pai_ssh *s, LIBSSH2_KNOWNHOSTS *hosts,
			    char **text, size_t *len)
{
	int r, e = 0;

	r = pai_file_read(text, len, &e, s->known_hosts);
	if (r == PAI_ENOTFOUND)
		*len = 0;
	else if (r)
		return fail(s, r, "cannot read '%s': %s", s->known_hosts,
			    e ? strerror(e) : pai_strerror(r));
	return pai__kh_load(hosts, *text, *len);
}

/* A key that is not the one recorded under name, refused. */
static int refuse_changed(pai_ssh *s, const char *name, const char *text,
			  size_t len, const char *tname)
{
	unsigned ln = pai__kh_line_of(text, len, name);

	if (ln)
		return fail(s, PAI_EHOSTKEY,
			    "the host key of '%s' (%s port %ld) is not the one "
			    "recorded at %s:%u; now %s",
			    name, s->host, s->port, s->known_hosts, ln,
			    s->fingerprint ? s->fingerprint : tname);
	return fail(s, PAI_EHOSTKEY,
		    "the host key of '%s' (%s port %ld) is not the one "
		    "recorded in %s",
		    name, s->host, s->port, s->known_hosts);
}

/* Records key under name: in place of the lines that record name when
 * it changed, else appended. */
static int record_key(pai_ssh *s, LIBSSH2_KNOWNHOSTS *hosts,
		      const char *name, const char *key, size_t klen,
		      int bits, int changed)
{
	struct libssh2_knownhost *node = NULL;
	char line[4096];
	size_t outlen = 0;
	int r, ret;

	r = libssh2_knownhost_addc(hosts, name, NULL, key, klen, "paictl", 6,
				   LIBSSH2_KNOWNHOST_TYPE_PLAIN |
				       LIBSSH2_KNOWNHOST_KEYENC_RAW | bits,
				   &node);
	if (r == 0)
		r = libssh2_knownhost_writeline(hosts, node, line,
						sizeof(line) - 1, &outlen,
						LIBSSH2_KNOWNHOST_FILE_OPENSSH);
	if (r != 0)
		return fail(s, PAI_ERROR, "cannot record the host key: %s",
			    ssh_msg(s));
	line[outlen] = '\0';
	if (changed) {
		ret = replace_lines(s, name, line);
		s->hostkey = PAI_SSH_HOSTKEY_REPLACED;
	} else {
		ret = append_line(s, line);
		s->hostkey = PAI_SSH_HOSTKEY_NEW;
	}
	return ret;
}

/* OK, NEW (recorded), CHANGED (refused, or replaced with accept_new). */
static int check_hostkey(pai_ssh *s)
{
	LIBSSH2_KNOWNHOSTS *hosts = NULL;
	struct libssh2_knownhost *found = NULL;
	const char *key, *tname;
	char *text = NULL, *name = NULL;
	size_t klen = 0, tlen = 0;
	int type, bits, r, ret = PAI_ENOMEM, changed;

	key = libssh2_session_hostkey(s->session, &klen, &type);
	if (!key)
		return fail(s, PAI_EUNREACHABLE, "no host key from %s: %s",
			    s->host, ssh_msg(s));
	bits = key_bits(type, &tname);
	set_fingerprint(s, tname);
	name = hostkey_name(s);
	hosts = libssh2_knownhost_init(s->session);
	if (!name || !hosts ||
	    (ret = load_known_hosts(s, hosts, &text, &tlen)) != PAI_OK)
		goto out;
	r = libssh2_knownhost_checkp(hosts, name, -1, key, klen,
				     LIBSSH2_KNOWNHOST_TYPE_PLAIN |
					 LIBSSH2_KNOWNHOST_KEYENC_RAW | bits,
				     &found);
	if (r == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
		s->hostkey = PAI_SSH_HOSTKEY_MATCH;
		goto out;
	}
	if (r == LIBSSH2_KNOWNHOST_CHECK_FAILURE) {
		ret = fail(s, PAI_ERROR, "cannot check the host key: %s",
			   ssh_msg(s));
		goto out;
	}
	/* a key of another type recorded under the name counts too */
	changed = r == LIBSSH2_KNOWNHOST_CHECK_MISMATCH ||
		  pai__kh_line_of(text, tlen, name) > 0;
	if (changed && !s->accept_new)
		ret = refuse_changed(s, name, text, tlen, tname);
	else
		ret = record_key(s, hosts, name, key, klen, bits, changed);
out:
	if (ret == PAI_ENOMEM && !s->detail[0])
		fail(s, ret, "out of memory");
	if (hosts)
		libssh2_knownhost_free(hosts);
	free(text);
	free(name);
	return ret;
}

/* The key file must be ours alone, as ssh insists. */
static int check_key_file(pai_ssh *s)
{
	struct stat st;
	int fd = open(s->key_file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail(s, errno == ENOENT ? PAI_ENOTFOUND : PAI_EACCES,
			    "cannot open key '%s': %s", s->key_file,
			    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(s, PAI_EACCES, "key '%s' is not a regular file",
			    s->key_file);
	}
	close(fd);
	if (st.st_mode & 077)
		return fail(s, PAI_EACCES,
			    "permissions %04o for key '%s' are too open",
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
		while (!ok && !interrupted(s) &&
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
		return fail(s, PAI_EACCES, "cannot use key '%s': %s",
			    s->key_file, ssh_msg(s));
	if (r == LIBSSH2_ERROR_TIMEOUT || r == LIBSSH2_ERROR_SOCKET_RECV ||
	    r == LIBSSH2_ERROR_SOCKET_SEND ||
	    r == LIBSSH2_ERROR_SOCKET_DISCONNECT)
		return fail(s, PAI_EUNREACHABLE,
			    "%s port %ld: logging in failed: %s", s->host,
			    s->port, ssh_msg(s));
	if (r != 0)
		return fail(s, PAI_EAUTH,
			    "%s port %ld refused key '%s' for user '%s'",
			    s->host, s->port, s->key_file, s->user);
	return PAI_OK;
}

int pai_ssh_connect(pai_ssh *s)
{
	int ret;

	s->detail[0] = '\0';
	if (s->session || s->fd >= 0)
		return fail(s, PAI_EINVAL, "connected already");
	if (s->key_file && (ret = check_key_file(s)))
		return ret;
	ret = tcp_connect(s);
	if (ret)
		return ret;
	s->session = libssh2_session_init();
	if (!s->session)
		return fail(s, PAI_ENOMEM, "out of memory");
	libssh2_session_set_blocking(s->session, 1);
	libssh2_session_set_timeout(s->session, s->timeout_ms);
	if (libssh2_session_handshake(s->session, s->fd) != 0)
		return fail(s, PAI_EUNREACHABLE,
			    "SSH handshake with %s port %ld failed: %s",
			    s->host, s->port, ssh_msg(s));
	ret = check_hostkey(s);
	if (ret)
		return ret;
	if (interrupted(s))
		return fail(s, PAI_EINTR, "interrupted");
	if (s->use_agent && getenv("SSH_AUTH_SOCK") && agent_auth(s))
		return PAI_OK;
	if (!s->key_file)
		return fail(s, PAI_EAUTH,
			    "%s port %ld refused the ssh-agent's keys for "
			    "user '%s'",
			    s->host, s->port, s->user);
	return key_auth(s);
}

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
	return fail(s, PAI_EUNREACHABLE, "connection to %s port %ld lost: %s",
		    s->host, s->port, ssh_msg(s));
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
		while (libssh2_channel_request_pty_size(ch, (int)cols,
							(int)rows) ==
			   LIBSSH2_ERROR_EAGAIN &&
		       !interrupted(s))
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
				return fail(s, PAI_EIO,
					    "cannot write the output: %s",
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
static int read_input(pai_ssh *s, const pai_ssh_run_options *o,
		      struct pump *p, int *closed)
{
	/* one byte left for on_input */
	ssize_t n = read(o->in_fd, p->in, sizeof(p->in) - 1);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return PAI_OK;
	if (n < 0)
		return fail(s, PAI_EIO, "cannot read the input: %s",
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

		if (interrupted(s))
			return fail(s, PAI_EINTR, "interrupted");
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
			return fail(s, PAI_ERROR, "no terminal: %s", ssh_msg(s));
	}
	r = o->command ? libssh2_channel_exec(ch, o->command)
		       : libssh2_channel_shell(ch);
	if (r != 0)
		return fail(s, PAI_ERROR, "cannot start %s: %s",
			    o->command ? "the command" : "a shell", ssh_msg(s));
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
		return fail(s, PAI_EINVAL, "bad options");
	if (!s->session || s->dead)
		return fail(s, PAI_EINVAL, "not connected");
	libssh2_session_set_blocking(s->session, 1);
	ch = libssh2_channel_open_session(s->session);
	if (!ch)
		return fail(s, PAI_EUNREACHABLE, "cannot open a session: %s",
			    ssh_msg(s));
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
