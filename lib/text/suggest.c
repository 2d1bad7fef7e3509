/* suggest.c - "did you mean" for misspelt field names, one rule for both
 * formats (validate.c, validate_v2_schema.c) */
#include "internal.h"

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
