/* diag.c - the list of problems found in job configs, and the paths
 * (taskRoles[0].command) that name where each one is */
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* Longest excerpt of a source line, in bytes, and how much of it comes
 * before the problem when the line has to be clipped. */
#define EXCERPT_MAX    160
#define EXCERPT_BEFORE 60

struct item {
	pai_diag d;
	size_t seq; /* insertion order, to keep sorting stable */
};

struct pai_diags {
	struct item *v;
	size_t n, cap;
	size_t errors, warnings;
};

int pai_diags_new(pai_diags **out)
{
	if (!out)
		return PAI_EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? PAI_OK : PAI_ENOMEM;
}

static void item_release(struct item *it)
{
	free((char *)it->d.file);
	free((char *)it->d.path);
	free((char *)it->d.rule);
	free((char *)it->d.message);
	free((char *)it->d.excerpt);
}

void pai_diags_free(pai_diags *diags)
{
	size_t i;

	if (!diags)
		return;
	for (i = 0; i < diags->n; i++)
		item_release(&diags->v[i]);
	free(diags->v);
	free(diags);
}

/* An item without its place: line, column and excerpt. */
static void unplace(struct item *it)
{
	free((char *)it->d.excerpt);
	it->d.excerpt = NULL;
	it->d.line = it->d.column = it->d.excerpt_column = 0;
}

int pai__diags_move(pai_diags *dst, pai_diags *src,
		    int (*keep)(const pai_diag *d), int placeless)
{
	size_t i, k = 0;

	for (i = 0; i < src->n; i++) {
		struct item it = src->v[i];

		if (!keep(&it.d)) {
			src->v[k++] = it; /* stays */
			continue;
		}
		if (dst->n == dst->cap) {
			size_t cap = dst->cap ? dst->cap * 2 : 16;
			struct item *v = realloc(dst->v, cap * sizeof(*v));

			if (!v) {
				memmove(&src->v[k], &src->v[i],
					(src->n - i) * sizeof(*src->v));
				src->n = k + (src->n - i);
				return PAI_ENOMEM;
			}
			dst->v = v;
			dst->cap = cap;
		}
		it.seq = dst->n;
		if (placeless)
			unplace(&it);
		dst->v[dst->n++] = it;
		if (it.d.severity == PAI_SEVERITY_ERROR) {
			dst->errors++;
			src->errors--;
		} else {
			dst->warnings++;
			src->warnings--;
		}
	}
	src->n = k;
	return PAI_OK;
}

size_t pai_diags_count(const pai_diags *diags)
{
	return diags ? diags->n : 0;
}

const pai_diag *pai_diags_get(const pai_diags *diags, size_t i)
{
	return diags && i < diags->n ? &diags->v[i].d : NULL;
}

size_t pai_diags_errors(const pai_diags *diags)
{
	return diags ? diags->errors : 0;
}

size_t pai_diags_warnings(const pai_diags *diags)
{
	return diags ? diags->warnings : 0;
}

static bool is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

static unsigned count_chars(const char *s, size_t n)
{
	unsigned k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_cont((unsigned char)s[i]))
			k++;
	return k;
}

/* Whether b may follow lead byte c of a 3- or 4-byte UTF-8 sequence. */
static bool second_byte_ok(unsigned char c, unsigned char b)
{
	return !((c == 0xE0 && b < 0xA0) || (c == 0xED && b > 0x9F) ||
		 (c == 0xF0 && b < 0x90) || (c == 0xF4 && b > 0x8F));
}

/* The length of the character at text[i] if it is valid UTF-8 ending
 * before e, else 0. */
static size_t shown_len(const char *text, size_t i, size_t e)
{
	unsigned char c = (unsigned char)text[i];
	size_t k, j;

	if (c < 0x80)
		return 1;
	k = c > 0xF4 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
	for (j = 1; k && j < k; j++)
		if (i + j >= e || !is_cont((unsigned char)text[i + j]))
			k = 0;
	/* overlong forms, surrogates, past U+10FFFF */
	if (k > 2 && !second_byte_ok(c, (unsigned char)text[i + 1]))
		k = 0;
	return k;
}

/* text[s..e) into b. Control characters and broken UTF-8 would garble a
 * terminal: each such byte shows as one '?', which keeps the caret's
 * column. */
static void put_shown(pai__buf *b, const char *text, size_t s, size_t e)
{
	size_t i, k;

	for (i = s; i < e; i += k) {
		unsigned char c = (unsigned char)text[i];

		k = shown_len(text, i, e);
		if (k == 0 || (c < 0x20 && c != '\t') || c == 0x7F) {
			pai__buf_putc(b, '?');
			k = 1;
			continue;
		}
		pai__buf_put(b, text + i, k);
	}
}

/* The line around off, which runs from ls to le (its '\n' or the end),
 * clipped to EXCERPT_MAX bytes on character boundaries, with "..." where
 * it was cut. */
static char *make_excerpt(const char *text, size_t len, size_t ls, size_t le,
			  size_t off, unsigned *col)
{
	size_t s, e;
	pai__buf b = PAI__BUF_INIT;

	/* a byte order mark is invisible, and would shift the caret */
	if (ls == 0 && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		ls = 3;
		if (off < ls)
			off = ls;
		if (le < ls)
			le = ls;
	}
	if (le > ls && text[le - 1] == '\r')
		le--;
	if (off > le)
		off = le;
	s = ls;
	e = le;
	if (e - s > EXCERPT_MAX) {
		if (off - s > EXCERPT_BEFORE)
			s = off - EXCERPT_BEFORE;
		while (s > ls && is_cont((unsigned char)text[s]))
			s--;
		if (e - s > EXCERPT_MAX)
			e = s + EXCERPT_MAX;
		while (e > s && e < le && is_cont((unsigned char)text[e]))
			e--;
	}
	if (s > ls)
		pai__buf_puts(&b, "...");
	put_shown(&b, text, s, e);
	if (e < le)
		pai__buf_puts(&b, "...");
	*col = (s > ls ? 3 : 0) + count_chars(text + s, off - s) + 1;
	return pai__buf_detach(&b);
}

void pai__path_member(pai__buf *b, const char *parent, const char *key)
{
	const char *p;
	bool ident = *key && !(key[0] >= '0' && key[0] <= '9');

	for (p = key; *p && ident; p++)
		ident = pai__is_name_char((unsigned char)*p);
	pai__buf_puts(b, parent);
	if (ident) {
		if (*parent)
			pai__buf_putc(b, '.');
		pai__buf_puts(b, key);
		return;
	}
	pai__buf_puts(b, "[\"");
	for (p = key; *p; p++) {
		if (*p == '"' || *p == '\\')
			pai__buf_putc(b, '\\');
		pai__buf_putc(b, *p);
	}
	pai__buf_puts(b, "\"]");
}

int pai__diag_add(pai_diags *diags, pai__src *src, size_t off,
		  pai_severity severity, const char *path, const char *rule,
		  const char *fmt, ...)
{
	struct item it;
	pai__buf msg = PAI__BUF_INIT;
	va_list ap;

	if (!diags)
		return PAI_OK;
	if (diags->n == diags->cap) {
		size_t cap = diags->cap ? diags->cap * 2 : 16;
		struct item *v = realloc(diags->v, cap * sizeof(*v));
		if (!v)
			return PAI_ENOMEM;
		diags->v = v;
		diags->cap = cap;
	}
	memset(&it, 0, sizeof(it));
	it.seq = diags->n;
	it.d.severity = severity;
	va_start(ap, fmt);
	pai__buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	if (!msg.oom)
		it.d.message = pai__escape_controls(msg.data ? msg.data : "");
	pai__buf_release(&msg);
	it.d.file = strdup(src && src->name ? src->name : "");
	it.d.path = pai__escape_controls(path ? path : "");
	it.d.rule = strdup(rule ? rule : "");
	if (src && off != PAI__NO_OFFSET && off <= src->len) {
		size_t ls, le;

		/* line 0: the line index could not be built */
		pai__src_linecol(src, off, &it.d.line, &it.d.column);
		if (!it.d.line)
			goto oom;
		pai__src_line_span(src, it.d.line, &ls, &le);
		it.d.excerpt =
		    make_excerpt(src->orig ? src->orig : src->text, src->len,
				 ls, le, off, &it.d.excerpt_column);
		if (!it.d.excerpt)
			goto oom;
	}
	if (!it.d.message || !it.d.file || !it.d.path || !it.d.rule)
		goto oom;
	diags->v[diags->n++] = it;
	if (severity == PAI_SEVERITY_ERROR)
		diags->errors++;
	else
		diags->warnings++;
	return PAI_OK;
oom:
	item_release(&it);
	return PAI_ENOMEM;
}

static int cmp_place(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->d.line != y->d.line)
		return x->d.line < y->d.line ? -1 : 1;
	if (x->d.column != y->d.column)
		return x->d.column < y->d.column ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pai__diags_sort_from(pai_diags *diags, size_t start)
{
	if (diags && diags->n > start + 1)
		qsort(diags->v + start, diags->n - start, sizeof(*diags->v),
		      cmp_place);
}

/* s as a JSON string. A file name is bytes, not necessarily UTF-8, and
 * jansson refuses anything else (the whole array then failed): each byte
 * that is no part of a UTF-8 character becomes U+FFFD. */
static json_t *lossy_string(const char *s)
{
	size_t n = strlen(s), i, k;
	pai__buf b = PAI__BUF_INIT;
	json_t *j;

	for (i = 0; i < n; i += k)
		if (!(k = pai__utf8_len((const unsigned char *)s + i, n - i)))
			break;
	if (i == n)
		return json_stringn(s, n);
	pai__buf_put(&b, s, i);
	while (i < n) {
		k = pai__utf8_len((const unsigned char *)s + i, n - i);
		if (k) {
			pai__buf_put(&b, s + i, k);
			i += k;
		} else {
			pai__buf_puts(&b, "\xEF\xBF\xBD");
			i++;
		}
	}
	j = b.oom ? NULL : json_stringn(b.data, b.len);
	pai__buf_release(&b);
	return j;
}

json_t *pai_diags_to_json(const pai_diags *diags)
{
	json_t *arr = json_array(), *o;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; diags && i < diags->n; i++) {
		const pai_diag *d = &diags->v[i].d;

		/* json_object_set_new() takes its value even when it fails,
		 * and fails on NULL */
		o = json_object();
		if (!o || json_array_append_new(arr, o) < 0 ||
		    json_object_set_new(o, "file", lossy_string(d->file)) ||
		    json_object_set_new(o, "line", json_integer(d->line)) ||
		    json_object_set_new(o, "column", json_integer(d->column)) ||
		    json_object_set_new(o, "path", lossy_string(d->path)) ||
		    json_object_set_new(
			o, "severity",
			json_string(d->severity == PAI_SEVERITY_ERROR
					? "error"
					: "warning")) ||
		    json_object_set_new(o, "rule", lossy_string(d->rule)) ||
		    json_object_set_new(o, "message",
					lossy_string(d->message))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}
