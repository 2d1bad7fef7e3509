/* arena.c - memory handed out in blocks and freed all at once: a
 * position tree of 50,000 nodes costs a few allocations, not 50,000 */
#include "sys.h"

#include <stddef.h>
#include <stdlib.h>

struct pai__arena {
	struct pai__arena *next; /* the block before */
	size_t used, cap;
	max_align_t data[];
};

void *pai__arena_alloc(struct pai__arena **arena, size_t n)
{
	struct pai__arena *a = *arena, *b;
	size_t cap;
	void *p;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
	    sizeof(max_align_t);
	if (!a || a->cap - a->used < n) {
		/* blocks double, from 16 KiB to 1 MiB; a larger request
		 * gets a block of its own */
		cap = a ? a->cap * 2 : 16384;
		if (cap > 1048576)
			cap = 1048576;
		if (cap < n)
			cap = n;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = a;
		b->used = 0;
		b->cap = cap;
		*arena = a = b;
	}
	p = (char *)a->data + a->used;
	a->used += n;
	return p;
}

void pai__arena_free(struct pai__arena *arena)
{
	while (arena) {
		struct pai__arena *next = arena->next;

		free(arena);
		arena = next;
	}
}
