/* firsts.c - which item first had a name: the duplicate checks of
 * validate.c (task role names, each role's port labels).
 *
 * A jansson object did this before, at an allocation or three per name
 * and a tree teardown per port list; a config with 2,000 roles made
 * 6,000 of them for nothing. Here one table serves every list: its
 * names are borrowed (the strings of the tree being checked), and
 * clearing it for the next list costs nothing (a new generation). */
#include "job.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t name_hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void pai__firsts_clear(struct pai__firsts *f)
{
	f->n = 0;
	if (++f->gen == 0) { /* wrapped: every slot is stale anyway */
		memset(f->slot, 0, f->cap * sizeof(*f->slot));
		f->gen = 1;
	}
}

void pai__firsts_release(struct pai__firsts *f)
{
	free(f->slot);
	memset(f, 0, sizeof(*f));
}

/* The slot of name, or the free one where it would go (cap > n). */
static struct pai__first *find(const struct pai__firsts *f, const char *name)
{
	size_t i = name_hash(name) & (f->cap - 1);

	for (; f->slot[i].gen == f->gen; i = (i + 1) & (f->cap - 1))
		if (strcmp(f->slot[i].name, name) == 0)
			break;
	return &f->slot[i];
}

bool pai__firsts_get(const struct pai__firsts *f, const char *name,
		     size_t *index)
{
	const struct pai__first *s;

	if (!f->n)
		return false;
	s = find(f, name);
	if (s->gen != f->gen)
		return false;
	*index = s->index;
	return true;
}

/* Twice the room, the current generation's names moved over. */
static int grow(struct pai__firsts *f)
{
	struct pai__firsts g = {NULL, 0, 0, 1};
	size_t i;

	g.cap = f->cap ? f->cap * 2 : 16;
	if (g.cap > SIZE_MAX / sizeof(*g.slot) ||
	    !(g.slot = calloc(g.cap, sizeof(*g.slot))))
		return PAI_ENOMEM;
	for (i = 0; i < f->cap; i++)
		if (f->slot[i].gen == f->gen) {
			struct pai__first *s = find(&g, f->slot[i].name);

			s->name = f->slot[i].name;
			s->index = f->slot[i].index;
			s->gen = g.gen;
			g.n++;
		}
	free(f->slot);
	*f = g;
	return PAI_OK;
}

int pai__firsts_add(struct pai__firsts *f, const char *name, size_t index)
{
	struct pai__first *s;

	/* at most half full: probes stay short */
	if ((f->n + 1) * 2 > f->cap && grow(f))
		return PAI_ENOMEM;
	s = find(f, name);
	if (s->gen == f->gen)
		return PAI_OK; /* the first one stays */
	s->name = name;
	s->index = index;
	s->gen = f->gen;
	f->n++;
	return PAI_OK;
}
