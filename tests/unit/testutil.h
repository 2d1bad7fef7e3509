/* testutil.h - small helpers shared by the unit tests (linked into each) */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stddef.h>

/* Seconds on the monotonic clock. */
double test_now_s(void);
void test_sleep_ms(long ms);

/* The paictl under test into out: $PAICTL, else BUILD/paictl beside the
 * test binary (which lives in BUILD/tests/). Returns 0, or -1 after saying
 * on stderr, as `name`, that there is none. */
int test_find_paictl(char *out, size_t n, const char *argv0,
		     const char *name);

/* The folder $env names (the Makefile's ../shared/corpus/...), or NULL
 * after one line on stderr saying what is not run and why: ../shared
 * sits beside a worktree, not beside a plain clone of the repository. */
const char *test_corpus_dir(const char *env, const char *what);

#endif
