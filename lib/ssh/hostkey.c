/* hostkey.c - a server's host key against the known_hosts file: OK,
 * NEW (recorded under the name the caller chose, or refused with
 * strict_host_keys), CHANGED (refused, or replaced with
 * replace_changed_key), the file rewritten or appended to under a lock. Reading the file's text is known_hosts.c's. */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

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
		return pai__ssh_fail(s, PAI_EIO, "cannot lock '%s.lock': %s",
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
		return pai__ssh_fail(s, err, "cannot write '%s': %s",
				     s->known_hosts,
				     e ? strerror(e) : pai_strerror(err));
	return PAI_OK;
}

static int append_line(pai_ssh *s, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;
	int fd, e, lock = lock_known_hosts(s);

	if (lock < 0)
		return pai__ssh_fail(s, PAI_EIO, "cannot lock '%s.lock': %s",
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
	return pai__ssh_fail(s, PAI_EIO, "cannot write '%s': %s",
			     s->known_hosts, strerror(e));
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
	pai__base64_encode(fp, hash, 32);
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
static int load_known_hosts(pai_ssh *s, LIBSSH2_KNOWNHOSTS *hosts, char **text,
			    size_t *len)
{
	int r, e = 0;

	r = pai_file_read(text, len, &e, s->known_hosts);
	if (r == PAI_ENOTFOUND)
		*len = 0;
	else if (r)
		return pai__ssh_fail(s, r, "cannot read '%s': %s",
				     s->known_hosts,
				     e ? strerror(e) : pai_strerror(r));
	return pai__kh_load(hosts, *text, *len);
}

/* A key that is not the one recorded under name, refused. */
static int refuse_changed(pai_ssh *s, const char *name, const char *text,
			  size_t len, const char *tname)
{
	unsigned ln = pai__kh_line_of(text, len, name);

	if (ln)
		return pai__ssh_fail(
		    s, PAI_EHOSTKEY,
		    "the host key of '%s' (%s port %ld) is not the one "
		    "recorded at %s:%u; now %s",
		    name, s->host, s->port, s->known_hosts, ln,
		    s->fingerprint ? s->fingerprint : tname);
	return pai__ssh_fail(
	    s, PAI_EHOSTKEY,
	    "the host key of '%s' (%s port %ld) is not the one "
	    "recorded in %s",
	    name, s->host, s->port, s->known_hosts);
}

/* Records key under name: in place of the lines that record name when
 * it changed, else appended. */
static int record_key(pai_ssh *s, LIBSSH2_KNOWNHOSTS *hosts, const char *name,
		      const char *key, size_t klen, int bits, int changed)
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
		return pai__ssh_fail(s, PAI_ERROR,
				     "cannot record the host key: %s",
				     pai__ssh_msg(s));
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

int pai__ssh_check_hostkey(pai_ssh *s)
{
	LIBSSH2_KNOWNHOSTS *hosts = NULL;
	struct libssh2_knownhost *found = NULL;
	const char *key, *tname;
	char *text = NULL, *name = NULL;
	size_t klen = 0, tlen = 0;
	int type, bits, r, ret = PAI_ENOMEM, changed;

	key = libssh2_session_hostkey(s->session, &klen, &type);
	if (!key)
		return pai__ssh_fail(s, PAI_EUNREACHABLE,
				     "no host key from %s: %s", s->host,
				     pai__ssh_msg(s));
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
		ret =
		    pai__ssh_fail(s, PAI_ERROR, "cannot check the host key: %s",
				  pai__ssh_msg(s));
		goto out;
	}
	/* a key of another type recorded under the name counts too */
	changed = r == LIBSSH2_KNOWNHOST_CHECK_MISMATCH ||
		  pai__kh_line_of(text, tlen, name) > 0;
	if (changed && !s->replace_changed_key)
		ret = refuse_changed(s, name, text, tlen, tname);
	else if (!changed && s->strict_host_keys)
		ret = pai__ssh_fail(s, PAI_EHOSTKEY,
				    "the host key of '%s' (%s port %ld, %s) is "
				    "not in %s, and unknown hosts are refused "
				    "(strict host key checking)",
				    name, s->host, s->port,
				    s->fingerprint ? s->fingerprint : tname,
				    s->known_hosts);
	else
		ret = record_key(s, hosts, name, key, klen, bits, changed);
out:
	if (ret == PAI_ENOMEM && !s->detail[0])
		pai__ssh_fail(s, ret, "out of memory");
	if (hosts)
		libssh2_knownhost_free(hosts);
	free(text);
	free(name);
	return ret;
}
