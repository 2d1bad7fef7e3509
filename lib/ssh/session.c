/* session.c - what ssh.c, hostkey.c and channel.c share of a session:
 * its detail and libssh2's last word on it (see session.h). */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>

int pai__ssh_fail(pai_ssh *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
	return err;
}

const char *pai__ssh_msg(const pai_ssh *s)
{
	char *msg = NULL;

	if (!s->session)
		return "no session";
	libssh2_session_last_error(s->session, &msg, NULL, 0);
	return msg && *msg ? msg : "unknown error";
}
