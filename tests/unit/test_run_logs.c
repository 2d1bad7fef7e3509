/* test_run_logs.c - the local cluster's log copy (server/run_logs.c): a
 * task's stdout and stderr reads into user.pai.stdout, .stderr and .all.
 * Every byte of each stream, in order, in its own log and in the merged
 * one; a line up to RUN_LOGS_PART never cut by the other stream's lines,
 * a longer one written as it comes (one byte under and over the limit),
 * and a stream's unfinished last line a line of its own there. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* The unit itself, pure and internal to server/: compiled in here. */
#include "../../server/run_logs.c"

/* What the copy wrote: each log's bytes, and the merged log's bytes of
 * each stream (added newlines left out). */
struct sink {
	char *log[3];
	size_t len[3];
	char *from_all[2];
	size_t from_len[2];
	size_t added;
};

static void append(char **b, size_t *len, const char *p, size_t n)
{
	char *nb = realloc(*b, *len + n + 1);

	assert_non_null(nb);
	memcpy(nb + *len, p, n);
	*len += n;
	nb[*len] = '\0';
	*b = nb;
}

static void sink_write(void *ctx, int log, int from, const char *p, size_t n)
{
	struct sink *k = ctx;

	assert_true(n > 0);
	assert_true(log >= 0 && log <= 2);
	append(&k->log[log], &k->len[log], p, n);
	if (log != RUN_LOG_ALL) {
		assert_int_equal(from, log);
		return;
	}
	if (from == RUN_LOGS_ADDED) {
		assert_int_equal(n, 1);
		assert_int_equal(p[0], '\n');
		k->added++;
		return;
	}
	assert_true(from == 0 || from == 1);
	append(&k->from_all[from], &k->from_len[from], p, n);
}

static void sink_free(struct sink *k)
{
	int i;

	for (i = 0; i < 3; i++)
		free(k->log[i]);
	free(k->from_all[0]);
	free(k->from_all[1]);
	memset(k, 0, sizeof(*k));
}

/* The copy's state on the stack, as in the monitor: an overflow of its
 * buffers is a sanitizer's report, not a quiet change of a neighbour. */
#define COPY(name, sink)                                                       \
	struct run_logs name;                                                  \
	run_logs_init(&name, sink_write, sink)

static void assert_bytes(const char *got, size_t glen, const char *want,
			 size_t wlen)
{
	assert_int_equal(glen, wlen);
	assert_true(wlen == 0 || memcmp(got, want, wlen) == 0);
}

/* "x\n" and then n bytes of y: the line that after a newline once ran
 * over the monitor's 4 KiB line buffer. */
static char *long_line(size_t n, size_t *len)
{
	char *d = malloc(n + 2);

	assert_non_null(d);
	d[0] = 'x';
	d[1] = '\n';
	memset(d + 2, 'y', n);
	*len = n + 2;
	return d;
}

/* Every split of the data in two reads, and of its long line in three
 * around the newline: both logs hold every byte, in order. */
static void check_splits(size_t n)
{
	size_t len, k, k2;
	char *d = long_line(n, &len);

	for (k = 0; k <= len; k++) {
		struct sink s = {0};
		COPY(c, &s);

		run_logs_copy(&c, RUN_LOG_OUT, d, k);
		run_logs_copy(&c, RUN_LOG_OUT, d + k, len - k);
		run_logs_end(&c, RUN_LOG_OUT);
		run_logs_end(&c, RUN_LOG_ERR);
		assert_bytes(s.log[0], s.len[0], d, len);
		assert_bytes(s.log[2], s.len[2], d, len);
		assert_int_equal(s.len[1], 0);
		sink_free(&s);
	}
	/* three reads: the newline's own, and the line cut anywhere */
	for (k = 0; k <= 3; k++)
		for (k2 = k; k2 <= len; k2 += k2 < 8 || len - k2 < 8 ? 1 : 97) {
			struct sink s = {0};
			COPY(c, &s);

			run_logs_copy(&c, RUN_LOG_OUT, d, k);
			run_logs_copy(&c, RUN_LOG_OUT, d + k, k2 - k);
			run_logs_copy(&c, RUN_LOG_OUT, d + k2, len - k2);
			run_logs_end(&c, RUN_LOG_OUT);
			run_logs_end(&c, RUN_LOG_ERR);
			assert_bytes(s.log[0], s.len[0], d, len);
			assert_bytes(s.log[2], s.len[2], d, len);
			sink_free(&s);
		}
	free(d);
}

static void test_long_line_every_split(void **state)
{
	(void)state;
	check_splits(RUN_LOGS_PART - 1);
	check_splits(RUN_LOGS_PART);
	check_splits(RUN_LOGS_PART + 1);
	check_splits(16384); /* the monitor's read: one read after "x\n" */
	check_splits(3 * RUN_LOGS_PART + 5);
}

/* A line that fits is kept whole: the other stream's line goes first. */
static void test_line_kept_whole(void **state)
{
	struct sink s = {0};
	COPY(c, &s);

	(void)state;
	run_logs_copy(&c, RUN_LOG_OUT, "abc", 3);
	run_logs_copy(&c, RUN_LOG_ERR, "err\n", 4);
	run_logs_copy(&c, RUN_LOG_OUT, "def\n", 4);
	run_logs_end(&c, RUN_LOG_OUT);
	run_logs_end(&c, RUN_LOG_ERR);
	assert_string_equal(s.log[2], "err\nabcdef\n");
	assert_string_equal(s.log[0], "abcdef\n");
	assert_string_equal(s.log[1], "err\n");
	assert_int_equal(s.added, 0);
	sink_free(&s);
}

/* One byte under and over RUN_LOGS_PART: a part of exactly the limit is
 * still kept; one more, and it goes as it is, its line ended in
 * user.pai.all before the other stream's. */
static void check_limit(size_t n, bool kept)
{
	struct sink s = {0};
	char *d = malloc(n + 1), *want = malloc(n + 8);
	size_t wlen = 0;
	COPY(c, &s);

	assert_non_null(d);
	assert_non_null(want);
	memset(d, 'y', n);
	d[n] = '\n';
	run_logs_copy(&c, RUN_LOG_OUT, d, n);
	run_logs_copy(&c, RUN_LOG_ERR, "e\n", 2);
	run_logs_copy(&c, RUN_LOG_OUT, d + n, 1);
	run_logs_end(&c, RUN_LOG_OUT);
	run_logs_end(&c, RUN_LOG_ERR);
	if (kept) {
		memcpy(want, "e\n", 2);
		memcpy(want + 2, d, n + 1);
		wlen = n + 3;
	} else {
		memcpy(want, d, n);
		memcpy(want + n, "\ne\n\n", 4);
		wlen = n + 4;
	}
	assert_bytes(s.log[2], s.len[2], want, wlen);
	assert_bytes(s.log[0], s.len[0], d, n + 1);
	assert_int_equal(s.added, kept ? 0 : 1);
	sink_free(&s);
	free(d);
	free(want);
}

static void test_part_limit(void **state)
{
	(void)state;
	check_limit(RUN_LOGS_PART - 1, true);
	check_limit(RUN_LOGS_PART, true);
	check_limit(RUN_LOGS_PART + 1, false);
	check_limit(16384, false);
}

/* A long line cut by the other stream's line goes on after it, every
 * byte in order; the merged log never glues two streams in one line. */
static void test_long_line_interleaved(void **state)
{
	struct sink s = {0};
	size_t n = RUN_LOGS_PART + 10, i;
	char *d = malloc(n);
	COPY(c, &s);

	(void)state;
	assert_non_null(d);
	memset(d, 'y', n);
	run_logs_copy(&c, RUN_LOG_OUT, d, n);
	run_logs_copy(&c, RUN_LOG_OUT, "yy", 2);
	run_logs_copy(&c, RUN_LOG_ERR, "err\n", 4);
	run_logs_copy(&c, RUN_LOG_OUT, "zz\n", 3);
	run_logs_end(&c, RUN_LOG_OUT);
	run_logs_end(&c, RUN_LOG_ERR);
	assert_int_equal(s.len[2], n + 2 + 1 + 4 + 3);
	for (i = 0; i < n + 2; i++)
		assert_int_equal(s.log[2][i], 'y');
	assert_string_equal(s.log[2] + n + 2, "\nerr\nzz\n");
	assert_int_equal(s.from_len[0], n + 5);
	assert_int_equal(s.added, 1);
	sink_free(&s);
	free(d);
}

/* cli/logs-task-stderr-tail's flake: stdout's last line without its
 * newline read, its stream ended, and stderr's line read after. It was
 * "no newline 1err 1"; now the other stream's lines come first and the
 * unfinished line is a line of its own, whichever order the monitor
 * read them in. */
static void test_unfinished_last_line(void **state)
{
	static const char *const want = "line 1\nerr 1\nno newline 1";
	int order;

	(void)state;
	for (order = 0; order < 3; order++) {
		struct sink s = {0};
		COPY(c, &s);

		run_logs_copy(&c, RUN_LOG_OUT, "line 1\n", 7);
		if (order == 0)
			run_logs_copy(&c, RUN_LOG_ERR, "err 1\n", 6);
		run_logs_copy(&c, RUN_LOG_OUT, "no newline 1", 12);
		if (order == 1)
			run_logs_copy(&c, RUN_LOG_ERR, "err 1\n", 6);
		run_logs_end(&c, RUN_LOG_OUT);
		if (order == 2)
			run_logs_copy(&c, RUN_LOG_ERR, "err 1\n", 6);
		run_logs_end(&c, RUN_LOG_ERR);
		assert_string_equal(s.log[2], want);
		assert_string_equal(s.log[0], "line 1\nno newline 1");
		sink_free(&s);
	}
}

/* Both streams end unfinished: each its own line; ending twice, or
 * ending with nothing kept, writes nothing more. */
static void test_both_unfinished(void **state)
{
	struct sink s = {0};
	COPY(c, &s);

	(void)state;
	run_logs_copy(&c, RUN_LOG_ERR, "b", 1);
	run_logs_copy(&c, RUN_LOG_OUT, "a", 1);
	run_logs_end(&c, RUN_LOG_OUT);
	run_logs_end(&c, RUN_LOG_OUT);
	assert_null(s.log[2]);
	run_logs_end(&c, RUN_LOG_ERR);
	run_logs_end(&c, RUN_LOG_ERR);
	assert_string_equal(s.log[2], "a\nb");
	assert_int_equal(s.added, 1);
	sink_free(&s);
}

/* Nothing read: nothing written, to any log. */
static void test_nothing(void **state)
{
	struct sink s = {0};
	COPY(c, &s);

	(void)state;
	run_logs_copy(&c, RUN_LOG_OUT, "", 0);
	run_logs_end(&c, RUN_LOG_OUT);
	run_logs_end(&c, RUN_LOG_ERR);
	assert_null(s.log[0]);
	assert_null(s.log[1]);
	assert_null(s.log[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_line_every_split),
	    cmocka_unit_test(test_line_kept_whole),
	    cmocka_unit_test(test_part_limit),
	    cmocka_unit_test(test_long_line_interleaved),
	    cmocka_unit_test(test_unfinished_last_line),
	    cmocka_unit_test(test_both_unfinished),
	    cmocka_unit_test(test_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
