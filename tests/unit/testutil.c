/* testutil.c - small helpers shared by the unit tests */
#include "testutil.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
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

int test_find_paictl(char *out, size_t n, const char *argv0, const char *name)
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
	fprintf(stderr,
		"skipped: %s: %s%s (../shared is absent: a plain "
		"clone)\n",
		what, dir ? dir : env, dir ? " is not there" : " is not set");
	return NULL;
}

const char *test_at(const char *dir, const char *name)
{
	static char path[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

int test_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

int test_free_port(void)
{
	struct sockaddr_in a = loopback(0);
	socklen_t n = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), p;

	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &n);
	p = ntohs(a.sin_port);
	close(fd);
	return p;
}

int test_listening(int port)
{
	struct sockaddr_in a = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

int test_s_server(const char *dir, int *port, const char *const *extra)
{
	const char *argv[16] = {"openssl", "s_server", "-quiet", "-www",
				"-accept", NULL,       "-cert",	 "srv.pem",
				"-key",	   "srv.key"};
	char accept[32];
	size_t n = 10, i;
	pid_t pid;

	*port = test_free_port();
	snprintf(accept, sizeof(accept), "127.0.0.1:%d", *port);
	argv[5] = accept;
	for (i = 0; extra && extra[i] && i < 4; i++)
		argv[n++] = extra[i];
	if ((pid = fork()) == 0) {
		/* its verify lines are not the test's output */
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr) || chdir(dir) != 0)
			_exit(127);
		execvp("openssl", (char *const *)argv);
		_exit(127);
	}
	for (i = 0; pid > 0 && i < 100 && !test_listening(*port); i++)
		test_sleep_ms(50);
	return pid > 0 && test_listening(*port) ? (int)pid : -1;
}

unsigned long long test_proc_stat(pid_t pid, int field)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	int at;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* past the command's name, which may hold spaces and parentheses */
	if (!(p = strrchr(buf, ')')))
		return 0;
	for (p += 2, at = 3; at < field && p; at++)
		if ((p = strchr(p, ' ')))
			p++;
	return p ? strtoull(p, NULL, 10) : 0;
}
