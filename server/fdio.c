/* fdio.c - whole reads and writes on a descriptor, retried after a
 * signal: the records log's appends (jobs.c), the monitor's logs and
 * status (run_monitor.c), the forker's messages (run_forker.c). Only
 * read and write: async-signal-safe, as the monitor needs
 * (tests/lint/async_safe.sh checks this file too). */
#include "srv_int.h"

#include <errno.h>
#include <unistd.h>

bool srv_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

bool srv_read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}
