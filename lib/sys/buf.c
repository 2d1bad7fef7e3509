/* buf.c - a growable byte buffer that remembers allocation failure, and
 * strings made safe to quote with it, or copied when set */
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(pai__buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return -1;
	if (extra > SIZE_MAX - b->len - 1)
		goto fail;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	/* a secret's old block wiped, not left behind by realloc */
	p = b->secret ? pai__secret_grow(b->data, b->data ? b->len + 1 : 0,
					 b->cap, cap)
		      : realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return 0;
fail:
	b->oom = 1;
	return -1;
}

void pai__buf_put(pai__buf *b, const char *s, size_t n)
{
	if (grow(b, n) < 0)
		return;
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void pai__buf_puts(pai__buf *b, const char *s)
{
	pai__buf_put(b, s, strlen(s));
}

void pai__buf_putc(pai__buf *b, char c)
{
	pai__buf_put(b, &c, 1);
}

void pai__buf_vprintf(pai__buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (b->oom)
		return;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || grow(b, (size_t)n) < 0) {
		b->oom = 1;
		return;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void pai__buf_printf(pai__buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pai__buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *pai__buf_detach(pai__buf *b)
{
	char *s;

	if (b->oom) {
		pai__buf_release(b);
		return NULL;
	}
	s = b->data ? b->data : strdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

void pai__buf_release(pai__buf *b)
{
	if (b->secret && b->data)
		explicit_bzero(b->data, b->cap);
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

char *pai__escape_controls(const char *s)
{
	pai__buf b = PAI__BUF_INIT;
	const char *p;

	for (p = s; *p && (unsigned char)*p >= 0x20 && *p != 0x7F; p++)
		;
	if (!*p)
		return strdup(s);
	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x20 && c != 0x7F) {
			pai__buf_putc(&b, *p);
			continue;
		}
		switch (c) {
		case '\n': pai__buf_puts(&b, "\\n"); break;
		case '\t': pai__buf_puts(&b, "\\t"); break;
		case '\r': pai__buf_puts(&b, "\\r"); break;
		case '\b': pai__buf_puts(&b, "\\b"); break;
		case '\f': pai__buf_puts(&b, "\\f"); break;
		default: pai__buf_printf(&b, "\\u%04x", c);
		}
	}
	return pai__buf_detach(&b);
}

int pai__strdup_opt(char **out, const char *s)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out ? 0 : -1;
}
