/* alloc_fail.h - make one allocation fail, to walk out-of-memory paths */
#ifndef ALLOC_FAIL_H
#define ALLOC_FAIL_H

#include <stddef.h>

/* Allocations that succeed before one fails; -1 (the default): none
 * fails. Counts libpai's and the tests' own malloc, calloc, realloc,
 * strdup and strndup (the Makefile links every test with -Wl,--wrap for
 * them) and, when alloc_fail_begin() is asked to, jansson's. Only one
 * allocation fails: the count then goes back to -1. */
extern long alloc_fail_after;
/* Set when an allocation has failed. */
extern int alloc_failed;

/* A string (a secret) that no block given to realloc may hold: realloc
 * would leave the old copy behind in freed memory. Every such realloc
 * counts in alloc_watch_hits; NULL: nothing watched. Blocks are read as
 * NUL-terminated strings (pai__buf's are). */
extern const char *alloc_watch;
extern int alloc_watch_hits;

/* Fails allocation n (0-based) from now on, counting jansson's too when
 * json is not 0. */
void alloc_fail_begin(long n, int json);
/* Stops failing; returns whether an allocation failed. */
int alloc_fail_end(void);

#endif
