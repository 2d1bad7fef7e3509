/* random.c - random bytes from the kernel (getrandom(2)): WebSocket
 * keys and masks, submission ids */
#include "sys.h"

#include <errno.h>
#include <sys/random.h>

int pai__random(void *out, size_t n)
{
	unsigned char *p = out;
	ssize_t got;

	while (n > 0) {
		got = getrandom(p, n, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return PAI_ERROR;
		p += got;
		n -= (size_t)got;
	}
	return PAI_OK;
}
