/* runtime.c - the local cluster's runtimes (runtime.h): the table, the
 * one chosen at start, and what their rows share (argv vectors, $PATH,
 * a helper program run with its output read) */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct srv_runtime *const runtimes[] = {&rt_podman,
						     &rt_process};

char **rt_strv(const char *const *v, size_t n)
{
	char **c = calloc(n + 1, sizeof(*c));
	size_t i;

	for (i = 0; c && i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			rt_strv_free(c);
			return NULL;
		}
	return c;
}

void rt_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void rt_task_free(struct rt_task *rt)
{
	rt_strv_free(rt->argv);
	rt_strv_free(rt->envp);
	rt_strv_free(rt->stop[0]);
	rt_strv_free(rt->stop[1]);
	rt_strv_free(rt->end);
	free(rt->started);
	free(rt->start_why);
	free(rt->prep);
	if (rt->keep_fd >= 0)
		close(rt->keep_fd);
	memset(rt, 0, sizeof(*rt));
	rt->keep_fd = -1;
}

char *rt_find_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		char *full;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (end == p)
			continue;
		full = srv_printf("%.*s/%s", (int)(end - p), p, name);
		if (full && access(full, X_OK) == 0)
			return full;
		free(full);
	}
	return NULL;
}

/* Reads what fd gives into out until its end or the deadline. */
static void read_until(int fd, char *out, size_t outlen, long long deadline)
{
	size_t len = 0;
	char drop[512];

	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		long long left = deadline - srv_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		if (len + 1 < outlen)
			n = read(fd, out + len, outlen - 1 - len);
		else
			n = read(fd, drop, sizeof(drop));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < outlen)
			len += (size_t)n;
	}
	if (outlen)
		out[len] = '\0';
}

int rt_run(struct srv *s, char *const argv[], char *out, size_t outlen,
	   int timeout_ms)
{
	long long deadline = srv_now_ms() + timeout_ms;
	int p[2], st = 0;
	sigset_t none;
	pid_t pid, w;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(s->null_fd, 0);
		dup2(p[1], 1);
		dup2(s->null_fd, 2);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	read_until(p[0], out, outlen, deadline);
	close(p[0]);
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 ||
	       (w < 0 && errno == EINTR)) {
		if (srv_now_ms() > deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		usleep(5000);
	}
	return w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* podman where it answers, else processes: the log says which, and
 * what to install for the other. */
static int pick_default(struct srv *s, char *err, size_t errlen)
{
	char why[512];

	if (rt_podman.open(s, why, sizeof(why)) == 0) {
		s->rt = &rt_podman;
		return 0;
	}
	s->rt = &rt_process;
	if (rt_process.open(s, err, errlen) < 0)
		return -1;
	/* what the jobs' warnings say then (runtime_process.c) */
	srv_log(s, "podman: %s", why);
	s->rt_data = strdup(why);
	return 0;
}

int srv_runtime_pick(struct srv *s, const char *name, char *err,
		     size_t errlen)
{
	size_t i;

	if (!name)
		return pick_default(s, err, errlen);
	for (i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (strcmp(runtimes[i]->name, name) == 0) {
			if (runtimes[i]->open(s, err, errlen) < 0)
				return -1;
			/* whoever asked for processes knows why */
			s->rt = runtimes[i];
			return 0;
		}
	snprintf(err, errlen,
		 "invalid --runtime '%s' (podman or process)", name);
	return -2;
}
