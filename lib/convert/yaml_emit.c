/* yaml_emit.c - a small block-style YAML writer with comments, for what
 * `paictl convert` writes. libyaml's emitter cannot write comments, and
 * js-yaml 3 (the rest-server's loader) resolves plain scalars the YAML
 * 1.1 way, so every string that could read back as anything else is
 * quoted here. */
#include "convert.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct em {
	pai__buf *b;
	json_t *comments;
	pai__buf path;
};

/* The code point at s (valid UTF-8: the input was validated), its
 * length in *n. */
static unsigned long cp_at(const unsigned char *s, size_t *n)
{
	if (s[0] < 0x80) {
		*n = 1;
		return s[0];
	}
	if ((s[0] & 0xE0) == 0xC0) {
		*n = 2;
		return ((s[0] & 0x1FUL) << 6) | (s[1] & 0x3F);
	}
	if ((s[0] & 0xF0) == 0xE0) {
		*n = 3;
		return ((s[0] & 0x0FUL) << 12) | ((s[1] & 0x3FUL) << 6) |
		       (s[2] & 0x3F);
	}
	*n = 4;
	return ((s[0] & 0x07UL) << 18) | ((s[1] & 0x3FUL) << 12) |
	       ((s[2] & 0x3FUL) << 6) | (s[3] & 0x3F);
}

/* YAML's printable set, less the BOM (js-yaml drops it). */
static int printable(unsigned long c)
{
	return c == '\t' || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
	       (c >= 0xA0 && c <= 0xD7FF) ||
	       (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) ||
	       (c >= 0x10000 && c <= 0x10FFFF);
}

/* 1 when every character is printable and, unless nl, none is a newline. */
static int all_printable(const char *s, size_t len, int nl)
{
	size_t i = 0, n;

	while (i < len) {
		unsigned long c = cp_at((const unsigned char *)s + i, &n);

		if (i + n > len)
			return 0;
		if (!(printable(c) || (nl && c == '\n')))
			return 0;
		i += n;
	}
	return 1;
}

/* Whether js-yaml 3 reads s, written plain, as this very string. Leading
 * digits, signs and dots could be numbers, dates or sexagesimals (1:20);
 * the words could be booleans or null, in YAML 1.1 or 1.2 spellings. */
static int plain_ok(const char *s, size_t len)
{
	static const char *const words[] = {"true", "false", "null", "yes",
					    "no",   "on",    "off",  "y",
					    "n",    "~",     NULL};
	size_t i;

	if (len == 0 || strlen(s) != len || !all_printable(s, len, 0))
		return 0;
	if (strchr("-?:,[]{}#&*!|>'\"%@`+.<=~ \t", s[0]) ||
	    isdigit((unsigned char)s[0]))
		return 0;
	if (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == ':')
		return 0;
	if (strstr(s, ": ") || strstr(s, " #") || strstr(s, ":\t") ||
	    strstr(s, "\t#"))
		return 0;
	for (i = 0; words[i]; i++)
		if (strcasecmp(s, words[i]) == 0)
			return 0;
	return 1;
}

static void put_double_quoted(pai__buf *b, const char *s, size_t len)
{
	size_t i = 0, n;

	pai__buf_putc(b, '"');
	while (i < len) {
		unsigned long c = cp_at((const unsigned char *)s + i, &n);

		if (c == '"' || c == '\\') {
			pai__buf_putc(b, '\\');
			pai__buf_putc(b, (char)c);
		} else if (c == '\n') {
			pai__buf_puts(b, "\\n");
		} else if (c == '\t') {
			pai__buf_puts(b, "\\t");
		} else if (!printable(c)) {
			pai__buf_printf(b, c > 0xFFFF ? "\\U%08lx" : "\\u%04lx",
					c);
		} else {
			pai__buf_put(b, s + i, n);
		}
		i += n;
	}
	pai__buf_putc(b, '"');
}

static void put_flow_string(pai__buf *b, const char *s, size_t len)
{
	size_t i;

	if (plain_ok(s, len)) {
		pai__buf_put(b, s, len);
	} else if (all_printable(s, len, 0) && strlen(s) == len) {
		pai__buf_putc(b, '\'');
		for (i = 0; i < len; i++) {
			if (s[i] == '\'')
				pai__buf_putc(b, '\'');
			pai__buf_putc(b, s[i]);
		}
		pai__buf_putc(b, '\'');
	} else {
		put_double_quoted(b, s, len);
	}
}

/* A literal block keeps a multi-line command as it is written. It cannot
 * hold control characters or a carriage return, and a first line that
 * starts with a blank would set the indentation. */
static int literal_ok(const char *s, size_t len)
{
	return len > 1 && memchr(s, '\n', len) && strlen(s) == len &&
	       !memchr(s, '\r', len) && s[0] != ' ' && s[0] != '\t' &&
	       s[0] != '\n' && all_printable(s, len, 1);
}

static void put_literal(pai__buf *b, const char *s, size_t len, int indent)
{
	size_t end = len, i, nl = 0;

	while (end > 0 && s[end - 1] == '\n') {
		end--;
		nl++;
	}
	pai__buf_puts(b, nl == 0 ? "|-" : nl == 1 ? "|" : "|+");
	pai__buf_putc(b, '\n');
	for (i = 0; i < end;) {
		const char *e = memchr(s + i, '\n', end - i);
		size_t n = e ? (size_t)(e - (s + i)) : end - i;

		if (n)
			pai__buf_printf(b, "%*s", indent, "");
		pai__buf_put(b, s + i, n);
		pai__buf_putc(b, '\n');
		i += n + 1;
	}
	for (i = 1; i < nl; i++)
		pai__buf_putc(b, '\n');
}

/* JavaScript's shortest form of a double, which js-yaml reads back. */
static void put_real(pai__buf *b, double x)
{
	char tmp[40];
	int prec;

	if (x != x) {
		pai__buf_puts(b, ".nan");
		return;
	}
	if (isinf(x)) {
		pai__buf_puts(b, x < 0 ? "-.inf" : ".inf");
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, x);
		if (strtod(tmp, NULL) == x)
			break;
	}
	snprintf(tmp, sizeof(tmp), "%.*g", prec, x);
	pai__buf_puts(b, tmp);
	if (!strpbrk(tmp, ".en"))
		pai__buf_puts(b, ".0");
}

/* A scalar after "key: " or "- "; literal blocks end their own line. */
static void put_scalar(struct em *e, json_t *v, int indent)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		if (literal_ok(json_string_value(v), json_string_length(v))) {
			put_literal(e->b, json_string_value(v),
				    json_string_length(v), indent);
			return;
		}
		put_flow_string(e->b, json_string_value(v),
				json_string_length(v));
		break;
	case JSON_INTEGER:
		pai__buf_printf(e->b, "%" JSON_INTEGER_FORMAT,
				json_integer_value(v));
		break;
	case JSON_REAL: put_real(e->b, json_real_value(v)); break;
	case JSON_TRUE: pai__buf_puts(e->b, "true"); break;
	case JSON_FALSE: pai__buf_puts(e->b, "false"); break;
	case JSON_OBJECT: pai__buf_puts(e->b, "{}"); break;
	case JSON_ARRAY: pai__buf_puts(e->b, "[]"); break;
	default: pai__buf_puts(e->b, "null"); break;
	}
	pai__buf_putc(e->b, '\n');
}

static void put_comment_lines(pai__buf *b, const char *text, int indent)
{
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		pai__buf_printf(b, "%*s#", indent, "");
		if (n)
			pai__buf_putc(b, ' ');
		pai__buf_put(b, p, n);
		pai__buf_putc(b, '\n');
		p += n + (e ? 1 : 0);
	}
}

static void put_comments(struct em *e, int indent)
{
	const char *text;

	if (!e->comments || e->path.oom)
		return;
	text = json_string_value(
	    json_object_get(e->comments, e->path.data ? e->path.data : ""));
	if (text)
		put_comment_lines(e->b, text, indent);
}

static int is_block(json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) ||
	       (json_is_array(v) && json_array_size(v));
}

static void put_node(struct em *e, json_t *v, int indent);

static void put_mapping(struct em *e, json_t *obj, int indent, int inline1)
{
	size_t mark = e->path.len, n = 0;
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		if (mark)
			pai__buf_putc(&e->path, PAI__YPATH_SEP);
		pai__buf_puts(&e->path, key);
		if (!(inline1 && n == 0)) {
			put_comments(e, indent);
			pai__buf_printf(e->b, "%*s", indent, "");
		}
		put_flow_string(e->b, key, strlen(key));
		pai__buf_putc(e->b, ':');
		if (is_block(v)) {
			pai__buf_putc(e->b, '\n');
			put_node(e, v, indent + 2);
		} else {
			pai__buf_putc(e->b, ' ');
			put_scalar(e, v, indent + 2);
		}
		e->path.len = mark;
		if (e->path.data)
			e->path.data[mark] = '\0';
		n++;
	}
}

static void put_sequence(struct em *e, json_t *arr, int indent)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
	{
		pai__buf_printf(e->b, "%*s- ", indent, "");
		if (json_is_object(v) && json_object_size(v))
			put_mapping(e, v, indent + 2, 1);
		else if (is_block(v)) {
			pai__buf_putc(e->b, '\n');
			put_node(e, v, indent + 2);
		} else
			put_scalar(e, v, indent + 2);
	}
}

static void put_node(struct em *e, json_t *v, int indent)
{
	if (json_is_object(v))
		put_mapping(e, v, indent, 0);
	else
		put_sequence(e, v, indent);
}

int pai__yaml_emit(pai__buf *out, json_t *doc, json_t *comments)
{
	struct em e = {out, comments, PAI__BUF_INIT};
	int err = PAI_OK;

	if (!json_is_object(doc))
		return PAI_EINVAL;
	put_mapping(&e, doc, 0, 0);
	pai__buf_puts(&e.path, "");
	if (comments && json_string_value(json_object_get(comments, "")))
		put_comment_lines(
		    out, json_string_value(json_object_get(comments, "")), 0);
	if (e.path.oom || out->oom)
		err = PAI_ENOMEM;
	pai__buf_release(&e.path);
	return err;
}

int pai__ycomment_add(json_t *comments, const char *path, const char *text)
{
	const char *old = json_string_value(json_object_get(comments, path));
	pai__buf b = PAI__BUF_INIT;
	char *s;
	int err;

	if (old) {
		pai__buf_puts(&b, old);
		pai__buf_putc(&b, '\n');
	}
	pai__buf_puts(&b, text);
	s = pai__buf_detach(&b);
	if (!s)
		return PAI_ENOMEM;
	err = json_object_set_new(comments, path, json_string(s)) ? PAI_ENOMEM
								    : PAI_OK;
	free(s);
	return err;
}
