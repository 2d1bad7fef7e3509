/* error.c - error strings and whole-file reading */
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *pai_strerror(int err)
{
	switch (err) {
	case PAI_OK: return "success";
	case PAI_ERROR: return "failure";
	case PAI_ENOMEM: return "out of memory";
	case PAI_EINVAL: return "invalid argument";
	case PAI_ENOTFOUND: return "not found";
	case PAI_EIO: return "input/output error";
	case PAI_EACCES: return "permission denied";
	case PAI_ESYNTAX: return "job config is not well-formed JSON";
	case PAI_EINVALID: return "job config is invalid";
	case PAI_EISDIR: return "is a directory";
	case PAI_ETOOBIG: return "too large";
	case PAI_EAUTH: return "not authenticated";
	case PAI_EFORBIDDEN: return "not allowed";
	case PAI_ECONFLICT: return "already exists";
	case PAI_EUNREACHABLE: return "cluster unreachable";
	case PAI_ETIMEOUT: return "timed out";
	case PAI_EHTTP: return "HTTP error";
	case PAI_EPROTOCOL: return "unexpected response from the cluster";
	case PAI_EINTR: return "interrupted";
	case PAI_ETLS: return "TLS certificate not trusted";
	case PAI_EHOSTKEY: return "SSH host key changed";
	case PAI_ELIBRARY:
		return "a shared library is missing (libcurl or libssh2: "
		       "Debian packages libcurl4 and libssh2-1)";
	case PAI_ENOTSUP: return "not supported by this cluster";
	}
	return "unknown error";
}

int pai__from_errno(int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
	case ENAMETOOLONG:
	case ELOOP: return PAI_ENOTFOUND;
	case EISDIR: return PAI_EISDIR;
	case EACCES:
	case EPERM:
	case EROFS: return PAI_EACCES;
	case ENOMEM: return PAI_ENOMEM;
	case EEXIST: return PAI_ECONFLICT;
	case EFBIG:
	case EOVERFLOW: return PAI_ETOOBIG;
	}
	return PAI_EIO;
}

int pai_file_read(char **out, size_t *len, int *sys_errno, const char *path)
{
	return pai_file_read_max(out, len, sys_errno, path, SIZE_MAX);
}

/* fd's fstat into st: 0, or an errno (EISDIR for a directory, which
 * has no bytes to read). */
static int stat_readable(int fd, struct stat *st)
{
	if (fstat(fd, st) < 0)
		return errno;
	return S_ISDIR(st->st_mode) ? EISDIR : 0;
}

/* path opened for reading and its fstat: the descriptor, or -1 with *e
 * an errno, or *err PAI_ETOOBIG for a regular file over max (refused
 * before a byte is read). */
static int open_bounded(const char *path, size_t max, struct stat *st, int *e,
			int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*e = errno;
		return -1;
	}
	if (!(*e = stat_readable(fd, st))) {
		if (!S_ISREG(st->st_mode) || (uintmax_t)st->st_size <= max)
			return fd;
		*err = PAI_ETOOBIG;
	}
	close(fd);
	return -1;
}

/* Reads fd to its end into *data (a new buffer, NUL-terminated at *n),
 * never more than max + 1 bytes, however long the input (/dev/zero, a
 * file that grows while read): *n > max says it is larger. 0, or an
 * errno; *data is the caller's to free either way. */
static int read_bounded(int fd, const struct stat *st, size_t max, char **data,
			size_t *n)
{
	/* max + 1 bytes tell "too big" from "exactly max", plus the NUL */
	size_t limit = max < SIZE_MAX - 1 ? max + 2 : SIZE_MAX, cap, want;
	ssize_t r;
	char *p;

	/* Regular files come in one allocation (the size, the NUL, and a
	 * byte for the read that sees the end); pipes and the like grow. */
	cap = S_ISREG(st->st_mode) && st->st_size > 0 ? (size_t)st->st_size + 2
						      : 65536;
	if (cap > limit)
		cap = limit;
	if (!(*data = malloc(cap)))
		return ENOMEM;
	for (*n = 0;;) {
		if (*n + 1 >= cap) {
			/* only when limit is SIZE_MAX: the bound stops the
			 * loop first otherwise */
			if (cap >= limit)
				return EFBIG;
			want = cap > limit / 2 ? limit : cap * 2;
			if (!(p = realloc(*data, want)))
				return ENOMEM;
			*data = p;
			cap = want;
		}
		r = read(fd, *data + *n, cap - *n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			break;
		*n += (size_t)r;
		if (*n > max)
			return 0;
	}
	(*data)[*n] = '\0';
	return 0;
}

/* fd's bytes, or its stat's refusal, into the outputs (set empty by
 * the callers): a PAI_* code, with *e the errno behind it. */
static int read_fd(char **out, size_t *len, int *e, int fd,
		   const struct stat *st, size_t max)
{
	char *data = NULL;
	size_t n = 0;
	int err = PAI_OK;

	*e = read_bounded(fd, st, max, &data, &n);
	if (*e)
		err = pai__from_errno(*e);
	else if (n > max)
		err = PAI_ETOOBIG;
	if (!err) {
		*out = data;
		data = NULL;
		if (len)
			*len = n;
	}
	free(data);
	return err;
}

static void read_start(char **out, size_t *len, int *sys_errno)
{
	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (sys_errno)
		*sys_errno = 0;
}

int pai_file_read_max(char **out, size_t *len, int *sys_errno, const char *path,
		      size_t max)
{
	struct stat st;
	int fd, err = PAI_OK, e = 0;

	read_start(out, len, sys_errno);
	if (!out || !path)
		return PAI_EINVAL;
	fd = open_bounded(path, max, &st, &e, &err);
	if (fd >= 0) {
		err = read_fd(out, len, &e, fd, &st, max);
		close(fd);
	} else if (e) {
		err = pai__from_errno(e);
	}
	if (e && sys_errno)
		*sys_errno = e;
	return err;
}

int pai_fd_read_max(char **out, size_t *len, int *sys_errno, int fd,
		    size_t max)
{
	struct stat st;
	int err, e = 0;

	read_start(out, len, sys_errno);
	if (!out || fd < 0)
		return PAI_EINVAL;
	if ((e = stat_readable(fd, &st))) {
		if (sys_errno)
			*sys_errno = e;
		return pai__from_errno(e);
	}
	/* a regular file's size says nothing of what is left past its
	 * offset: it is read to its end, bounded as a pipe is */
	err = read_fd(out, len, &e, fd, &st, max);
	if (e && sys_errno)
		*sys_errno = e;
	return err;
}
