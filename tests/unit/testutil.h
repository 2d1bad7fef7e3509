/* testutil.h - small helpers shared by the unit tests (linked into each) */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Seconds on the monotonic clock. */
double test_now_s(void);
void test_sleep_ms(long ms);

/* The paictl under test into out: $PAICTL, else BUILD/paictl beside the
 * test binary (which lives in BUILD/tests/). Returns 0, or -1 after saying
 * on stderr, as `name`, that there is none. */
int test_find_paictl(char *out, size_t n, const char *argv0, const char *name);

/* dir/name, in one of four buffers taken in turn: valid until the
 * fourth call after. */
const char *test_at(const char *dir, const char *name);
/* system() of the formatted command line: its status. */
int test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A port on 127.0.0.1 free now; whether something listens on one. */
int test_free_port(void);
int test_listening(int port);

/* openssl s_server -www on a free port of 127.0.0.1 (*port), in dir,
 * with srv.pem and srv.key there and the extra arguments (up to four,
 * NULL-terminated): its pid once it listens, or -1. */
int test_s_server(const char *dir, int *port, const char *const *extra);

/* Field `field` of /proc/PID/stat (counted as proc(5) does: 4 the
 * parent, 22 the start time), a number; 0 when pid is gone. */
unsigned long long test_proc_stat(pid_t pid, int field);

/* The folder $env names (the Makefile's ../shared/corpus/...), or NULL
 * after one line on stderr saying what is not run and why: ../shared
 * sits beside a worktree, not beside a plain clone of the repository. */
const char *test_corpus_dir(const char *env, const char *what);

#endif
