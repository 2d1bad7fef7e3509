/* kube_err.c - the Kubernetes client's error details: one line a
 * terminal can show, in a fixed buffer (an error path never needs
 * memory). */
#include "kube.h"

#include <stdio.h>

/* A detail is one line a terminal can show: names quoted from a file
 * (a context, a command) may hold any byte, so control characters
 * become '?'. */
int pai__kube_fail(pai__kube_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		for (p = err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return code;
}
