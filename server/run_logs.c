/* run_logs.c - a task's output copied into its logs (run_logs.h). Runs
 * in the monitor after fork: memcpy and the callback only. */
#include "run_logs.h"

#include <string.h>

void run_logs_init(struct run_logs *l, run_logs_write *write, void *ctx)
{
	l->write = write;
	l->ctx = ctx;
	l->plen[0] = l->plen[1] = 0;
	l->ended[0] = l->ended[1] = false;
	l->mid = -1;
}

/* p[0..n) of stream `from` to user.pai.all; a line the other stream
 * left unfinished there ends first. */
static void put_all(struct run_logs *l, int from, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (l->mid >= 0 && l->mid != from)
		l->write(l->ctx, RUN_LOG_ALL, RUN_LOGS_ADDED, "\n", 1);
	l->write(l->ctx, RUN_LOG_ALL, from, p, n);
	l->mid = p[n - 1] == '\n' ? -1 : from;
}

/* The line part stream s kept, to user.pai.all. */
static void put_part(struct run_logs *l, int s)
{
	put_all(l, s, l->part[s], l->plen[s]);
	l->plen[s] = 0;
}

void run_logs_copy(struct run_logs *l, int s, const char *p, size_t n)
{
	size_t last = n;

	if (n == 0)
		return;
	l->write(l->ctx, s, s, p, n);
	/* what ends with a newline goes now, after the part kept before */
	while (last > 0 && p[last - 1] != '\n')
		last--;
	if (last > 0) {
		put_part(l, s);
		put_all(l, s, p, last);
		p += last;
		n -= last;
	}
	if (n == 0)
		return;
	/* the rest is kept if it fits; else it goes as it is, and so does
	 * what follows it on that line while user.pai.all still ends in it
	 * (l->mid == s: nothing kept then) */
	if (l->mid == s || n > RUN_LOGS_PART - l->plen[s]) {
		put_part(l, s);
		put_all(l, s, p, n);
		return;
	}
	memcpy(l->part[s] + l->plen[s], p, n);
	l->plen[s] += n;
}

void run_logs_end(struct run_logs *l, int s)
{
	int other = !s;

	if (l->ended[s])
		return;
	l->ended[s] = true;
	/* kept until the other stream ends: its lines, which the task may
	 * well have written first, then this one's last */
	if (!l->ended[other])
		return;
	put_part(l, other);
	put_part(l, s);
}
