/* alloc_fail.c - out-of-memory injection for the unit tests: see
 * alloc_fail.h. --wrap redirects only references from the objects that
 * are linked statically (libpai.a and the tests): the C library's own
 * calls are not counted, and jansson's come through json_set_alloc_funcs.
 */
#include "alloc_fail.h"

#include <jansson.h>
#include <malloc.h>
#include <stddef.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

long alloc_fail_after = -1;
int alloc_failed;

static int fail_now(void)
{
	if (alloc_fail_after < 0)
		return 0;
	if (alloc_fail_after-- > 0)
		return 0;
	alloc_failed = 1;
	return 1;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

const char *alloc_watch;
int alloc_watch_hits;

void *__wrap_realloc(void *p, size_t n)
{
	if (alloc_watch && p &&
	    memmem(p, strnlen(p, malloc_usable_size(p)), alloc_watch,
		   strlen(alloc_watch)))
		alloc_watch_hits++;
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : __real_strndup(s, n);
}

static void *json_malloc(size_t n)
{
	return __wrap_malloc(n);
}

static json_malloc_t saved_malloc;
static json_free_t saved_free;

void alloc_fail_begin(long n, int json)
{
	alloc_failed = 0;
	alloc_fail_after = n;
	if (json && !saved_malloc) {
		json_get_alloc_funcs(&saved_malloc, &saved_free);
		json_set_alloc_funcs(json_malloc, saved_free);
	}
}

int alloc_fail_end(void)
{
	alloc_fail_after = -1;
	if (saved_malloc) {
		json_set_alloc_funcs(saved_malloc, saved_free);
		saved_malloc = NULL;
	}
	return alloc_failed;
}
