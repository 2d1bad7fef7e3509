/* error.c - error strings and whole-file reading */
#include "internal.h"

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

int pai_file_read_max(char **out, size_t *len, int *sys_errno, const char *path,
		      size_t max)
{
	struct stat st;
	char *data = NULL, *p;
	size_t cap, want, n = 0;
	/* max + 1 bytes tell "too big" from "exactly max", plus the NUL */
	size_t limit = max < SIZE_MAX - 1 ? max + 2 : SIZE_MAX;
	int fd = -1, err = PAI_OK, e = 0;
	ssize_t r;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (sys_errno)
		*sys_errno = 0;
	if (!out || !path)
		return PAI_EINVAL;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		e = EISDIR;
		goto out;
	}
	/* A regular file says its size: refuse it before reading a byte. */
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max) {
		err = PAI_ETOOBIG;
		goto out;
	}
	/* Regular files come in one allocation (the size, the NUL, and a
	 * byte for the read that sees the end); pipes and the like grow. */
	cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 2
						    : 65536;
	if (cap > limit)
		cap = limit;
	data = malloc(cap);
	if (!data) {
		e = ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= limit) {
				/* only when limit is SIZE_MAX: the bound
				 * stops the loop first otherwise */
				e = EFBIG;
				goto out;
			}
			want = cap > limit / 2 ? limit : cap * 2;
			p = realloc(data, want);
			if (!p) {
				e = ENOMEM;
				goto out;
			}
			data = p;
			cap = want;
		}
		/* never more than max + 1 bytes, however long the input
		 * (/dev/zero, a file that grows while read) */
		r = read(fd, data + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			err = PAI_ETOOBIG;
			goto out;
		}
	}
	data[n] = '\0';
	*out = data;
	data = NULL;
	if (len)
		*len = n;
out:
	if (e) {
		err = pai__from_errno(e);
		if (sys_errno)
			*sys_errno = e;
	}
	if (fd >= 0)
		close(fd);
	free(data);
	return err;
}
