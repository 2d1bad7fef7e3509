/* suggest.c - "did you mean": for misspelt field names, one rule for
 * both formats (validate.c, validate_v2_schema.c), and the distance the
 * runtimes' reference checks measure variable names with */
#include "text.h"

#include <string.h>

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Levenshtein distance, case-insensitive; (size_t)-1 for names of 63
 * bytes or more. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, best;
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			best = prev + (lower(a[i - 1]) != lower(b[j - 1]));
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

void pai__closest_add(pai__closest *cl, const char *name)
{
	size_t d = distance(cl->key, name);

	if (d < cl->dist) {
		cl->dist = d;
		cl->best = name;
	}
}

const char *pai__closest_name(const pai__closest *cl)
{
	size_t limit = strlen(cl->key) / 3 + 1;

	if (limit > 3)
		limit = 3;
	return cl->dist <= limit ? cl->best : NULL;
}

const char *pai_suggest(const char *word, const char *const *names,
			size_t n)
{
	pai__closest cl = PAI__CLOSEST_INIT(word);
	size_t i;

	if (!word || !names)
		return NULL;
	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], word) != 0)
			pai__closest_add(&cl, names[i]);
	return pai__closest_name(&cl);
}

/* Longest name pai__edit_distance() compares: twice the longest that
 * the reference checks suggest a spelling for. */
#define EDIT_MAX 128

/* The optimal string alignment distance of a and b (edits, swaps of
 * neighbours counting as one), or max + 1 when it exceeds max (or b is
 * longer than EDIT_MAX). */
size_t pai__edit_distance(const char *a, size_t n, const char *b, size_t m,
			  size_t max)
{
	size_t rows[3][EDIT_MAX + 2], *pp, *p, *c, i, j, lo;

	if ((n > m ? n - m : m - n) > max || m > EDIT_MAX)
		return max + 1;
	pp = rows[0];
	p = rows[1];
	c = rows[2];
	for (j = 0; j <= m; j++)
		p[j] = j;
	for (i = 1; i <= n; i++) {
		size_t *t;

		c[0] = i;
		lo = c[0];
		for (j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = p[j - 1] + cost;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < lo)
				lo = v;
		}
		if (lo > max)
			return max + 1;
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[m];
}
