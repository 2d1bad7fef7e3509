/* clock.c - the one clock that timeouts, deadlines and backoff count on:
 * CLOCK_MONOTONIC, which no change of the system's time moves */
#include "sys.h"

#include <time.h>

long long pai__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
