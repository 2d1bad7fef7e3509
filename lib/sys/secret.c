/* secret.c - memory that held a secret (a token, a password, a key)
 * wiped before it is given back: explicit_bzero, which the compiler may
 * not remove as it removes a memset just before free() */
#include "sys.h"

#include <stdlib.h>
#include <string.h>

void pai__wipe(void *p, size_t n)
{
	if (p && n)
		explicit_bzero(p, n);
}

void pai__free_secret(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

void *pai__secret_grow(void *p, size_t len, size_t cap, size_t new_cap)
{
	void *q = malloc(new_cap);

	if (!q)
		return NULL;
	if (p) {
		memcpy(q, p, len < new_cap ? len : new_cap);
		explicit_bzero(p, cap);
		free(p);
	}
	return q;
}

void pai__buf_wipe(pai__buf *b)
{
	if (b->data)
		explicit_bzero(b->data, b->cap);
	pai__buf_release(b);
}
