/* file.c - files replaced whole, as OpenSSH replaces them: a temporary
 * file beside the target, written, synced, then renamed (or linked, so
 * as never to replace one) into place (see file.h). */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pai__make_dirs(const char *dir, mode_t mode)
{
	char *copy = strdup(dir), *p;
	int ret = 0;

	if (!copy)
		return ENOMEM;
	for (p = copy + 1;; p++) {
		if (*p == '/' || !*p) {
			char save = *p;

			*p = '\0';
			if (mkdir(copy, mode) < 0 && errno != EEXIST) {
				ret = errno;
				break;
			}
			*p = save;
			if (!save)
				break;
		}
	}
	free(copy);
	return ret;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

/* Writes all of p to fd: 0, or -1 with errno set. */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* A new file in dir, named after path's last part (its name in *tmp,
 * new), that holds data with mode, synced and closed. 0, or an errno
 * value with nothing left behind and *tmp NULL. */
static int write_temp(char **tmp, const char *dir, const char *path,
		      const void *data, size_t len, unsigned mode)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	pai__buf b = PAI__BUF_INIT;
	int fd, e = 0;

	pai__buf_printf(&b, "%s/.%s.XXXXXX", dir, base);
	if (!(*tmp = pai__buf_detach(&b)))
		return ENOMEM;
	/* mkostemp creates 0600 whatever the umask; fchmod gives the mode
	 * asked for, and the descriptor stays writable even for 0400 */
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(*tmp);
		*tmp = NULL;
		return e;
	}
	if (fchmod(fd, (mode_t)(mode & 07777)) < 0 ||
	    write_all(fd, data, len) < 0 || fsync(fd) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (e) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return e;
}

/* Puts the file tmp at path; when exclusive, never in place of one
 * there (EEXIST). 0, or an errno value with tmp still there. */
static int put_in_place(const char *tmp, const char *path, int exclusive)
{
	int e;

	if (!exclusive)
		return rename(tmp, path) < 0 ? errno : 0;
	/* never replaces: link() fails with EEXIST */
	if (link(tmp, path) == 0) {
		unlink(tmp);
		return 0;
	}
	e = errno;
	/* file systems without hard links */
	if ((e == EPERM || e == ENOTSUP || e == ENOSYS) &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (e == EPERM && access(path, F_OK) == 0)
		e = EEXIST;
	return e;
}

int pai_file_write_atomic(const char *path, const void *data, size_t len,
			  unsigned mode, unsigned flags)
{
	char *copy, *dir, *tmp = NULL;
	int e;

	if (!path || !*path || (!data && len))
		return PAI_EINVAL;
	if (!(copy = strdup(path)))
		return PAI_ENOMEM;
	dir = dirname(copy);
	e = write_temp(&tmp, dir, path, data, len, mode);
	if (!e)
		e = put_in_place(tmp, path, flags & PAI_WRITE_EXCLUSIVE);
	if (e && tmp)
		unlink(tmp);
	if (!e && !(flags & PAI_WRITE_NO_DIRSYNC))
		fsync_dir(dir);
	free(tmp);
	free(copy);
	return e ? pai__from_errno(e) : PAI_OK;
}
