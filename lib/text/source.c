/* source.c - a config's text and the places in it: line and column of
 * a byte offset and back, the lines a diagnostic quotes, and the tree of
 * where each value stands (the JSON and YAML readers build it). */
#include "text.h"

#include <stdlib.h>
#include <string.h>

void pai__src_release(pai__src *src)
{
	if (!src)
		return;
	if (src->owned)
		free(src->text);
	free(src->lines);
	free(src->chars);
	free(src->bigs);
	free(src->jtext);
	pai__arena_free(src->arena);
	free(src->cmts);
	memset(src, 0, sizeof(*src));
}

/* ---- lines and columns ------------------------------------------------ */

static int build_lines(pai__src *src)
{
	size_t n = 1, i = 0;
	const char *p, *end = src->text + src->len;

	if (src->lines)
		return 0;
	for (p = src->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	src->lines = malloc(n * sizeof(*src->lines));
	if (!src->lines)
		return -1;
	src->lines[i++] = 0;
	for (p = src->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		src->lines[i++] = (size_t)(p - src->text) + 1;
	src->nlines = n;
	return 0;
}

static size_t chars_between(const char *s, size_t from, size_t to)
{
	size_t k = 0;

	for (; from < to; from++)
		if (((unsigned char)s[from] & 0xC0) != 0x80)
			k++;
	return k;
}

/* Code points in cols[0..off), from the index of every PAI__CHARS_STEP
 * bytes (built on first use); SIZE_MAX when memory ran out. */
static size_t chars_before(pai__src *src, const char *cols, size_t off)
{
	size_t k, n = src->len / PAI__CHARS_STEP + 1;

	if (!src->chars) {
		src->chars = malloc(n * sizeof(*src->chars));
		if (!src->chars)
			return SIZE_MAX;
		src->chars[0] = 0;
		for (k = 1; k < n; k++)
			src->chars[k] =
			    src->chars[k - 1] +
			    chars_between(cols, (k - 1) * PAI__CHARS_STEP,
					  k * PAI__CHARS_STEP);
	}
	k = off / PAI__CHARS_STEP;
	return src->chars[k] + chars_between(cols, k * PAI__CHARS_STEP, off);
}

/* Code points in cols[from..to): counted on a short stretch, looked up
 * on a long one. */
static size_t chars_in(pai__src *src, const char *cols, size_t from, size_t to)
{
	size_t a, b;

	if (to - from <= 2 * PAI__CHARS_STEP)
		return chars_between(cols, from, to);
	a = chars_before(src, cols, from);
	b = chars_before(src, cols, to);
	return a == SIZE_MAX || b == SIZE_MAX ? SIZE_MAX : b - a;
}

void pai__src_linecol(pai__src *src, size_t off, unsigned *line,
		      unsigned *column)
{
	size_t lo = 0, hi, mid, from, n;
	const char *cols = src->orig ? src->orig : src->text;

	*line = *column = 0;
	if (off > src->len || build_lines(src) < 0)
		return;
	hi = src->nlines;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (src->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	from = src->lines[lo];
	/* a byte order mark is invisible: the first column follows it */
	if (lo == 0 && src->len >= 3 && memcmp(cols, "\xEF\xBB\xBF", 3) == 0) {
		from = 3;
		if (off < 3)
			off = 3;
	}
	n = chars_in(src, cols, from, off);
	if (n == SIZE_MAX)
		return;
	*line = (unsigned)(lo + 1);
	*column = (unsigned)n + 1;
}

void pai__src_line_span(const pai__src *src, unsigned line, size_t *start,
			size_t *end)
{
	*start = src->lines[line - 1];
	*end = line < src->nlines ? src->lines[line] - 1 : src->len;
}

size_t pai__src_offset(pai__src *src, unsigned line, unsigned column)
{
	size_t off;

	if (build_lines(src) < 0 || line == 0)
		return 0;
	if (line > src->nlines)
		return src->len;
	off = src->lines[line - 1];
	/* jansson counts columns in the text it parsed: the blanked one */
	while (column > 1 && off < src->len && src->text[off] != '\n') {
		off++;
		while (off < src->len &&
		       ((unsigned char)src->text[off] & 0xC0) == 0x80)
			off++;
		column--;
	}
	return off;
}

/* ---- the position tree ------------------------------------------------- */

void pai__pos_release(pai__pos *pos)
{
	size_t i;

	if (!pos)
		return;
	if (pos->arena) { /* the source's arena holds the rest */
		memset(pos, 0, sizeof(*pos));
		return;
	}
	for (i = 0; i < pos->nchild; i++) {
		pai__pos_release(&pos->child[i]);
		free(pos->child[i].key);
	}
	free(pos->child);
	pos->child = NULL;
	pos->nchild = 0;
}

const pai__pos *pai__pos_member(const pai__pos *obj, const char *key)
{
	size_t i;

	if (!obj)
		return NULL;
	for (i = 0; i < obj->nchild; i++)
		if (obj->child[i].key && strcmp(obj->child[i].key, key) == 0)
			return &obj->child[i];
	return NULL;
}

const pai__pos *pai__pos_index(const pai__pos *arr, size_t i)
{
	return arr && i < arr->nchild ? &arr->child[i] : NULL;
}
