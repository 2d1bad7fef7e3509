/* testutil.c - small helpers shared by the unit tests */
#include "testutil.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double test_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void test_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int test_find_paictl(char *out, size_t n, const char *argv0,
		     const char *name)
{
	char self[PATH_MAX];
	const char *env = getenv("PAICTL");

	out[0] = '\0';
	if (env)
		snprintf(out, n, "%s", env);
	else if (realpath(argv0, self))
		snprintf(out, n, "%s/../paictl", dirname(self));
	if (access(out, X_OK) != 0) {
		fprintf(stderr, "%s: no paictl at '%s'\n", name, out);
		return -1;
	}
	return 0;
}

const char *test_corpus_dir(const char *env, const char *what)
{
	const char *dir = getenv(env);
	DIR *d = dir ? opendir(dir) : NULL;

	if (d) {
		closedir(d);
		return dir;
	}
	fprintf(stderr, "skipped: %s: %s%s (../shared is absent: a plain "
			"clone)\n",
		what, dir ? dir : env, dir ? " is not there" : " is not set");
	return NULL;
}
