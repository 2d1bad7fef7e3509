/* trace.c - what -vv shows of the wire: each line of headers and bodies
 * through the caller's trace callback, with the secrets masked
 * (passwords, tokens, a YAML config's secrets); see trace.h. */
#include "trace.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Trace at most this much of a body. */
#define TRACE_BODY_MAX 2048

static int is_secret_key(const char *k, size_t n)
{
	static const char *const keys[] = {"password", "passwd", "token",
					   "secret", "privateKey"};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i]) == n && strncasecmp(k, keys[i], n) == 0)
			return 1;
	return 0;
}

/* A YAML line "  key: value" whose key is a secret (the value masked),
 * or a top-level "secrets:" (every line indented under it masked).
 * Returns the offset after what was written to b, or i when the line at
 * i is neither. */
static size_t yaml_secret_line(pai__buf *b, const char *text, size_t len,
			       size_t i)
{
	size_t k = i, e;

	while (k < len && text[k] == ' ')
		k++;
	e = k;
	while (e < len && (isalnum((unsigned char)text[e]) || text[e] == '_'))
		e++;
	if (e == k || e >= len || text[e] != ':' ||
	    (e + 1 < len && text[e + 1] != ' ' && text[e + 1] != '\n'))
		return i;
	if (k == i && e - k == 7 && strncmp(text + k, "secrets", 7) == 0) {
		/* the whole block: to the next line that is not indented */
		pai__buf_put(b, text + i, e + 1 - i);
		pai__buf_puts(b, " ***");
		while (e < len && !(text[e] == '\n' && e + 1 < len &&
				    text[e + 1] != ' ' && text[e + 1] != '\n'))
			e++;
		return e;
	}
	if (!is_secret_key(text + k, e - k))
		return i;
	pai__buf_put(b, text + i, e + 1 - i);
	pai__buf_puts(b, " ***");
	while (e < len && text[e] != '\n')
		e++;
	return e;
}

/* key=value in a form or a URL's query at i (its start, or after '&'
 * or '?'): a secret's value masked. Returns the offset after it. */
static size_t form_field_masked(pai__buf *b, const char *text, size_t len,
				size_t i)
{
	size_t k = i;

	while (k < len && isalpha((unsigned char)text[k]))
		k++;
	if (k < len && text[k] == '=' && is_secret_key(text + i, k - i)) {
		pai__buf_put(b, text + i, k - i + 1);
		pai__buf_puts(b, "***");
		for (i = k + 1; i < len && text[i] != '&';)
			i++;
		return i;
	}
	pai__buf_put(b, text + i, k - i);
	return k;
}

/* s copied with the values of secret query parameters ("?token=..." or
 * "&token=...", as in a log-manager location inside a JSON string)
 * masked. */
static void put_query_masked(pai__buf *b, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		char ch = s[i++];

		pai__buf_putc(b, ch);
		if ((ch == '?' || ch == '&') && i < n &&
		    isalpha((unsigned char)s[i]))
			i = form_field_masked(b, s, n, i);
	}
}

/* A JSON string at i: a secret member's value masked ("password":
 * "***"), any other string copied with its query's secrets masked.
 * Returns the offset after what was written. */
static size_t json_string_masked(pai__buf *b, const char *text, size_t len,
				 size_t i)
{
	size_t k = i + 1, j, e;

	while (k < len && text[k] != '"' && text[k] != '\\')
		k++;
	if (k < len && text[k] == '"' &&
	    is_secret_key(text + i + 1, k - i - 1)) {
		j = k + 1;
		while (j < len && isspace((unsigned char)text[j]))
			j++;
		if (j < len && text[j] == ':') {
			j++;
			while (j < len && isspace((unsigned char)text[j]))
				j++;
		} else
			j = len; /* a string, not a member's name */
		if (j < len && text[j] == '"') {
			for (e = j + 1; e < len && text[e] != '"';)
				e += text[e] == '\\' ? 2 : 1;
			pai__buf_put(b, text + i, j - i);
			pai__buf_puts(b, "\"***\"");
			return e < len ? e + 1 : len;
		}
	}
	put_query_masked(b, text + i, k - i);
	return k;
}

/* The length of "Bearer " or "Basic " (a kubeconfig's username and
 * password go as HTTP Basic) at text, or 0. */
static size_t auth_scheme(const char *text, size_t n)
{
	if (n > 7 && strncasecmp(text, "Bearer ", 7) == 0)
		return 7;
	if (n > 6 && strncasecmp(text, "Basic ", 6) == 0)
		return 6;
	return 0;
}

/* A header line "X-SLURM-USER-TOKEN: <token>" (any header whose name
 * ends in "token") at i, its value masked: the offset after it, or i
 * when the line at i is no such header. */
static size_t token_header(pai__buf *b, const char *text, size_t len,
			   size_t i)
{
	size_t k = i;

	while (k < len && (isalnum((unsigned char)text[k]) || text[k] == '-'))
		k++;
	if (k - i < 5 || k >= len || text[k] != ':' ||
	    strncasecmp(text + k - 5, "token", 5) != 0)
		return i;
	pai__buf_put(b, text + i, k + 1 - i);
	pai__buf_puts(b, " ***");
	while (k < len && text[k] != '\n')
		k++;
	return k;
}

char *pai__mask_secrets(const char *text, size_t len)
{
	pai__buf b = PAI__BUF_INIT;
	size_t i = 0, j;

	while (i < len) {
		/* a YAML body's secrets, at a line's start */
		if ((i == 0 || text[i - 1] == '\n') &&
		    ((j = yaml_secret_line(&b, text, len, i)) != i ||
		     (j = token_header(&b, text, len, i)) != i))
			i = j;
		else if (text[i] == '"') /* "key" : "value" in JSON */
			i = json_string_masked(&b, text, len, i);
		else if ((i == 0 || text[i - 1] == '&' || text[i - 1] == '?') &&
			 isalpha((unsigned char)text[i]))
			i = form_field_masked(&b, text, len, i);
		else if ((j = auth_scheme(text + i, len - i))) {
			/* Bearer <token> or Basic <user:password> anywhere */
			pai__buf_put(&b, text + i, j);
			for (i += j; i < len &&
				     !isspace((unsigned char)text[i]) &&
				     text[i] != '"';)
				i++;
			pai__buf_puts(&b, "***");
		} else
			pai__buf_putc(&b, text[i++]);
	}
	return pai__buf_detach(&b);
}

static void trace_line(pai__trace_fn trace, void *data, const char *prefix,
		       const char *s, size_t n)
{
	pai__buf b = PAI__BUF_INIT;
	char *masked = pai__mask_secrets(s, n), *line;

	pai__buf_puts(&b, prefix);
	if (masked)
		pai__buf_puts(&b, masked);
	free(masked);
	line = pai__buf_detach(&b);
	if (line)
		trace(data, line);
	free(line);
}

void pai__trace_lines(pai__trace_fn trace, void *data, const char *prefix,
		      const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t e = i;

		while (e < n && s[e] != '\n')
			e++;
		if (e > i || e < n) {
			size_t k = e;

			while (k > i && s[k - 1] == '\r')
				k--;
			if (k > i)
				trace_line(trace, data, prefix, s + i, k - i);
		}
		i = e + 1;
	}
}

void pai__trace_secret(pai__trace_fn trace, void *data, const char *prefix,
		       size_t n)
{
	char note[64];

	snprintf(note, sizeof(note), "[%zu bytes of secret body not shown]", n);
	trace_line(trace, data, prefix, note, strlen(note));
}

void pai__trace_body(pai__trace_fn trace, void *data, const char *prefix,
		     const char *s, size_t n)
{
	char note[64];

	if (!n)
		return;
	/* a key in any form (PEM, OpenSSH's), whoever sends it: masking
	 * members by name cannot see it */
	if (memmem(s, n, "PRIVATE KEY", 11)) {
		pai__trace_secret(trace, data, prefix, n);
		return;
	}
	pai__trace_lines(trace, data, prefix, s,
			 n > TRACE_BODY_MAX ? TRACE_BODY_MAX : n);
	if (n > TRACE_BODY_MAX) {
		snprintf(note, sizeof(note), "[%zu more bytes]",
			 n - TRACE_BODY_MAX);
		trace_line(trace, data, prefix, note, strlen(note));
	}
}
