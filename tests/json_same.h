/* json_same.h - what the fast JSON parser (lib/text/json_fast.c) must give
 * exactly as jansson and the position walk do: the same values with the
 * same types, in the same order, and the same position tree. Shared by
 * tests/unit/test_json_fast.c and tests/fuzz/fuzz_job.c. */
#ifndef JSON_SAME_H
#define JSON_SAME_H

#include "text/text.h"

#include <stdlib.h>
#include <string.h>

/* Equal as jansson writes them: types (1 and 1.0 differ), key order and
 * every bit of a real (17 digits). */
static inline int json_same(const json_t *a, const json_t *b)
{
	size_t flags = JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
	char *x = json_dumps(a, flags), *y = json_dumps(b, flags);
	int same = x && y && strcmp(x, y) == 0;

	free(x);
	free(y);
	return same;
}

static inline int pos_same(const pai__pos *a, const pai__pos *b)
{
	size_t i;

	if (a->off != b->off || a->key_off != b->key_off ||
	    a->nchild != b->nchild || a->ykind != b->ykind ||
	    !a->key != !b->key || (a->key && strcmp(a->key, b->key) != 0))
		return 0;
	for (i = 0; i < a->nchild; i++)
		if (!pos_same(&a->child[i], &b->child[i]))
			return 0;
	return 1;
}

#endif
