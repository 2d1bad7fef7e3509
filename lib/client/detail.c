/* detail.c - the last error's detail on the client: what every layer
 * of lib/client sets with pai__client_fail() and returns the code of,
 * and pai_client_error() and its siblings tell (http.h). */
#include "http.h"

#include <stdlib.h>
#include <string.h>

/* Longest message kept for the one-line error. */
#define MAX_MESSAGE 1000

void pai__error_release(pai__error *e)
{
	free(e->code);
	free(e->msg);
	memset(e, 0, sizeof(*e));
}

void pai__client_reset_error(pai_client *c)
{
	c->status = 0;
	free(c->err_code);
	free(c->err_msg);
	c->err_code = c->err_msg = NULL;
}

void pai__client_save_error(pai_client *c, pai__error *saved)
{
	pai__error_release(saved);
	saved->status = c->status;
	saved->code = c->err_code;
	saved->msg = c->err_msg;
	c->status = 0;
	c->err_code = c->err_msg = NULL;
}

void pai__client_restore_error(pai_client *c, pai__error *saved)
{
	pai__client_reset_error(c);
	c->status = saved->status;
	c->err_code = saved->code;
	c->err_msg = saved->msg;
	memset(saved, 0, sizeof(*saved));
}

/* One line: control characters become spaces, runs of blanks one,
 * and at most MAX_MESSAGE bytes (cut at a character boundary). */
static char *one_line(const char *s)
{
	pai__buf b = PAI__BUF_INIT;
	int space = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == ' ') {
			space = b.len > 0;
			continue;
		}
		if (b.len >= MAX_MESSAGE && (ch & 0xC0) != 0x80) {
			pai__buf_puts(&b, "...");
			break;
		}
		if (space)
			pai__buf_putc(&b, ' ');
		space = 0;
		pai__buf_putc(&b, (char)ch);
	}
	return pai__buf_detach(&b);
}

int pai__client_fail(pai_client *c, int err, long status, const char *code,
		     const char *fmt, ...)
{
	pai__buf b = PAI__BUF_INIT;
	va_list ap;
	char *raw;

	pai__client_reset_error(c);
	c->status = status;
	if (code)
		c->err_code = strdup(code);
	va_start(ap, fmt);
	pai__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	raw = pai__buf_detach(&b);
	c->err_msg = raw ? one_line(raw) : NULL;
	free(raw);
	return err;
}

int pai__client_oom(pai_client *c)
{
	return pai__client_fail(c, PAI_ENOMEM, 0, NULL, "out of memory");
}

long long pai__server_now_ms(const pai_client *c)
{
	if (!c->server_date_s)
		return 0;
	return c->server_date_s * 1000 + (pai__now_ms() - c->server_date_at_ms);
}
