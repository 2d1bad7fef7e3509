/* signals.c - Ctrl-C: the handler that sets cli_interrupt (installed
 * with the client, cli_connect), the sleep it ends, and the monotonic
 * clock the loops that ask a cluster again measure by */
#include "cli.h"
#include "connect_int.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

volatile int cli_interrupt;

long long cli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cli_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	/* the handler has no SA_RESTART: Ctrl-C ends the sleep */
	while (!cli_interrupt && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return cli_interrupt != 0;
}

static void on_sigint(int sig)
{
	(void)sig;
	cli_interrupt = 1;
	/* a second Ctrl-C kills at once, for whoever does not want to wait */
	signal(SIGINT, SIG_DFL);
}

void cli_catch_sigint(void)
{
	struct sigaction sa, old;

	/* a background job of a non-interactive shell ignores Ctrl-C: so
	 * do we, as the shell meant */
	if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}
