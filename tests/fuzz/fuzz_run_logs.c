/* fuzz_run_logs.c - libFuzzer target for the local cluster's log copy
 * (server/run_logs.c): a task's stdout and stderr read in pieces of any
 * size, and their ends, into user.pai.stdout, .stderr and .all. Built
 * and run by `make fuzz`.
 *
 * Input: a list of steps, each a byte whose low bit names the stream
 * and whose next two bits say what: 0, a read of the LEN bytes that
 * follow (LEN: two bytes, little-endian, at most the monitor's 16 KiB
 * read); 1, a read of LEN copies of the byte that follows (long lines
 * from short inputs); 2, the same with a newline at the place the next
 * two bytes say (before a long line, as "x\n" and 16 KiB of y in one
 * read); 3, the stream's end. Both streams end after the last step.
 *
 * Checks: each stream's log holds exactly what was read from it; the
 * merged log holds every byte of each stream, in order, and nothing else
 * but newlines the copy says it added; two streams never meet inside a
 * line there (a newline always comes between); and a stream's line is
 * left unfinished there only when it ended or is longer than
 * RUN_LOGS_PART, the part the copy keeps back. */
#include "check.h"

#include <stdint.h>
#include <string.h>

/* The unit itself, pure and internal to server/: compiled in here. */
#include "../../server/run_logs.c"

#define READ_MAX 16384
#define STREAM_MAX (1 << 20) /* bytes of a stream an input may make */

struct logs {
	char read[2][STREAM_MAX]; /* what each stream gave the copy */
	size_t nread[2];
	char log[3][2 * STREAM_MAX + 2]; /* what the copy wrote */
	size_t len[3];
	char all_of[2][STREAM_MAX]; /* the merged log's bytes of each */
	size_t nall_of[2];
	int last_from;     /* the stream of the merged log's last bytes */
	int added_after;   /* a newline added after that stream's: -1 none */
	bool ended[2];
};

static struct logs L;

/* The length of stream s's line unfinished in the merged log. */
static size_t unfinished(int s)
{
	size_t n = L.nall_of[s], k = n;

	while (k > 0 && L.all_of[s][k - 1] != '\n')
		k--;
	return n - k;
}

static void on_all(int from, const char *p, size_t n)
{
	if (from == RUN_LOGS_ADDED) {
		/* only to end a line another stream is to follow */
		CHECK(n == 1 && p[0] == '\n');
		CHECK(L.len[2] > 0 && L.log[2][L.len[2] - 1] != '\n');
		CHECK(L.added_after < 0 && L.last_from >= 0);
		/* left unfinished: the stream ended, or the line is too
		 * long to keep back */
		CHECK(L.ended[L.last_from] ||
		      unfinished(L.last_from) > RUN_LOGS_PART);
		L.added_after = L.last_from;
		return;
	}
	CHECK(from == 0 || from == 1);
	if (L.added_after >= 0)
		CHECK(from != L.added_after);
	/* streams meet only between lines */
	if (L.last_from >= 0 && L.last_from != from)
		CHECK(L.log[2][L.len[2] - 1] == '\n');
	CHECK(L.nall_of[from] + n <= STREAM_MAX);
	memcpy(L.all_of[from] + L.nall_of[from], p, n);
	L.nall_of[from] += n;
	L.last_from = from;
	L.added_after = -1;
}

static void on_write(void *ctx, int log, int from, const char *p, size_t n)
{
	(void)ctx;
	CHECK(n > 0 && log >= 0 && log <= 2);
	CHECK(L.len[log] + n <= sizeof(L.log[log]));
	if (log == RUN_LOG_ALL)
		on_all(from, p, n);
	else
		CHECK(from == log);
	memcpy(L.log[log] + L.len[log], p, n);
	L.len[log] += n;
}

/* A read of stream s: n bytes at p, or (p NULL) n copies of fill with a
 * newline at nl (none: beyond n). */
static void feed(struct run_logs *c, int s, const uint8_t *p, size_t n,
		 uint8_t fill, size_t nl)
{
	char buf[READ_MAX];

	if (L.ended[s] || L.nread[s] + n + 1 > STREAM_MAX)
		return; /* the monitor reads no stream after its end */
	if (p)
		memcpy(buf, p, n);
	else {
		memset(buf, fill, n);
		if (nl < n)
			buf[nl] = '\n';
	}
	memcpy(L.read[s] + L.nread[s], buf, n);
	L.nread[s] += n;
	run_logs_copy(c, s, buf, n);
}

static size_t two(const uint8_t *p)
{
	return (size_t)p[0] | (size_t)p[1] << 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_logs c; /* on the stack, as in the monitor */
	size_t i = 0, n;
	int s;

	memset(L.nread, 0, sizeof(L.nread));
	memset(L.len, 0, sizeof(L.len));
	memset(L.nall_of, 0, sizeof(L.nall_of));
	L.last_from = L.added_after = -1;
	L.ended[0] = L.ended[1] = false;
	run_logs_init(&c, on_write, NULL);
	while (i < size) {
		uint8_t op = data[i++];

		s = op & 1;
		if (((op >> 1) & 3) == 3) {
			L.ended[s] = true;
			run_logs_end(&c, s);
			continue;
		}
		if (size - i < 2)
			break;
		n = two(data + i) % (READ_MAX + 1);
		i += 2;
		if (((op >> 1) & 3) == 0) {
			if (n > size - i)
				n = size - i;
			feed(&c, s, data + i, n, 0, 0);
			i += n;
		} else if (((op >> 1) & 3) == 1 && i < size) {
			feed(&c, s, NULL, n, data[i], READ_MAX);
			i++;
		} else if (size - i >= 3) {
			feed(&c, s, NULL, n, data[i], two(data + i + 1));
			i += 3;
		} else
			break;
	}
	for (s = 0; s < 2; s++) {
		L.ended[s] = true;
		run_logs_end(&c, s);
	}
	for (s = 0; s < 2; s++) {
		CHECK(L.len[s] == L.nread[s]);
		CHECK(memcmp(L.log[s], L.read[s], L.nread[s]) == 0);
		CHECK(L.nall_of[s] == L.nread[s]);
		CHECK(memcmp(L.all_of[s], L.read[s], L.nread[s]) == 0);
	}
	/* nothing in the merged log but the streams' bytes and at most a
	 * newline where they changed */
	CHECK(L.len[2] >= L.nread[0] + L.nread[1]);
	return 0;
}
