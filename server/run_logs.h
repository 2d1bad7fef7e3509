/* run_logs.h - a task's output copied into its three logs: user.pai.stdout
 * and user.pai.stderr, each stream's bytes as they came, and user.pai.all,
 * both streams merged a line at a time so that a line of one never lands
 * inside a line of the other.
 *
 * Pure: bytes in, writes out through a callback; no system call, no
 * allocation, every buffer of a fixed size that no length from the task
 * can pass. So the monitor (run_monitor.c) can use it after fork, and a
 * unit test and a fuzzer can feed it. */
#ifndef RUN_LOGS_H
#define RUN_LOGS_H

#include <stdbool.h>
#include <stddef.h>

/* The logs, and the streams (the first two) that write to them. */
enum { RUN_LOG_OUT = 0, RUN_LOG_ERR = 1, RUN_LOG_ALL = 2 };

/* The longest line part a stream keeps back from user.pai.all: a line
 * up to this long is never cut by the other stream's lines; a longer
 * one is written out as it comes (every byte, in order). */
#define RUN_LOGS_PART 4096

/* `from` for a newline that the merge adds to user.pai.all: it ends a
 * stream's unfinished line there before the other stream's bytes. */
#define RUN_LOGS_ADDED (-1)

/* Writes p[0..n) (n > 0) to log; from is the stream the bytes came
 * from, or RUN_LOGS_ADDED. */
typedef void run_logs_write(void *ctx, int log, int from, const char *p,
			    size_t n);

struct run_logs {
	run_logs_write *write;
	void *ctx;
	/* each stream's line begun and not ended, kept from user.pai.all
	 * until its newline */
	char part[2][RUN_LOGS_PART];
	size_t plen[2];
	bool ended[2];
	/* the stream whose unfinished line user.pai.all ends with, or -1
	 * (empty, or ends with a newline) */
	int mid;
};

void run_logs_init(struct run_logs *l, run_logs_write *write, void *ctx);
/* n bytes (any n) read from stream (RUN_LOG_OUT or RUN_LOG_ERR), which
 * has not ended. */
void run_logs_copy(struct run_logs *l, int stream, const char *p, size_t n);
/* The stream ended (again: nothing). Its last line, if unfinished, goes
 * to user.pai.all once the other stream has ended too, after the other's
 * lines: a line of its own there. */
void run_logs_end(struct run_logs *l, int stream);

#endif /* RUN_LOGS_H */
