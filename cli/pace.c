/* pace.c - the budget of every loop that asks a cluster again (see
 * cli.h; paictl-wait(1) and paictl-logs(1) write it down for users) */
#include "cli.h"

#include <stdlib.h>
#include <unistd.h>

void cli_pace_start(cli_pace *p, long max_ms)
{
	p->pause = CLI_PACE_MIN_MS;
	p->max = max_ms > CLI_PACE_MIN_MS ? max_ms : CLI_PACE_MIN_MS;
	p->round = 0;
	p->seed = (unsigned)getpid() ^ (unsigned)cli_now_ms();
}

void cli_pace_begin(cli_pace *p)
{
	p->round = cli_now_ms();
}

long cli_pace_next(cli_pace *p, int news)
{
	long pause, left;

	if (news)
		p->pause = CLI_PACE_MIN_MS;
	/* up to a tenth more, never less: scripts started together part,
	 * and no round comes within a second of the last */
	pause = p->pause + (long)(rand_r(&p->seed) % (p->pause / 10 + 1));
	left = (long)(p->round + pause - cli_now_ms());
	if (!news)
		p->pause =
		    p->pause * 3 / 2 < p->max ? p->pause * 3 / 2 : p->max;
	return left > 0 ? left : 0;
}

long cli_pace_push_left(const cli_pace *p)
{
	long left = (long)(p->round + CLI_PACE_PUSH_MS - cli_now_ms());

	return left > 0 ? left : 0;
}
