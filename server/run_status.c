/* run_status.c - what the server learns of a task's monitor, its own
 * child or an earlier server's: the pids and the exit status that the
 * monitor wrote to `status` (run_monitor.c), whether the monitor is
 * still the process it was (/proc/PID/stat), and what the task's
 * runtime says while it prepares the task (`preparing`) */
#include "run_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned long long run_proc_start(pid_t pid, char *state)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p += 2; /* field 3, the state */
	if (state)
		*state = *p;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		v = strtoull(p, NULL, 10);
	return v;
}

/* v in decimal at p: how many bytes (at most 20). */
static size_t put_digits(char *p, unsigned long long v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* v with its sign at p; LONG_MIN too, whose magnitude no long holds */
static size_t put_long(char *p, long v)
{
	if (v >= 0)
		return put_digits(p, (unsigned long long)v);
	p[0] = '-';
	return 1 + put_digits(p + 1, 0ULL - (unsigned long long)v);
}

/* The line made whole in tmp (n bytes) into line, when it fits cap: a
 * cap too small writes nothing at all rather than a line cut short,
 * which the reader would take whole. */
static size_t put_line(char *line, size_t cap, const char *tmp, size_t n)
{
	if (n > cap)
		return 0;
	memcpy(line, tmp, n);
	return n;
}

/* Lines 1 and 2 are run by the monitor after fork: no malloc, no stdio,
 * no locale. */
size_t run_status_line1(char *line, size_t cap, long pid, long monitor,
			unsigned long long start, const char *cgroup)
{
	char tmp[RUN_STATUS_LINE1_MAX];
	size_t n, k = cgroup ? strlen(cgroup) : 0;

	n = put_long(tmp, pid);
	tmp[n++] = ' ';
	n += put_long(tmp + n, monitor);
	tmp[n++] = ' ';
	n += put_digits(tmp + n, start);
	/* a name the reader's st.cgroup holds with its NUL, else none:
	 * the line stays one that parse_status takes */
	if (k > 0 && k < sizeof(((struct run_status *)0)->cgroup)) {
		tmp[n++] = ' ';
		memcpy(tmp + n, cgroup, k);
		n += k;
	}
	tmp[n++] = '\n';
	return put_line(line, cap, tmp, n);
}

size_t run_status_line2(char *line, size_t cap, int code, int sig)
{
	char tmp[RUN_STATUS_LINE2_MAX];
	size_t n = put_long(tmp, code);

	tmp[n++] = ' ';
	n += put_long(tmp + n, sig);
	tmp[n++] = '\n';
	return put_line(line, cap, tmp, n);
}

/* The cgroup after line 1's start time, up to nl: one of the servers'
 * (paictl-task-, then digits and dashes), which fits st->cgroup; else
 * the line is not whole. */
static bool parse_cgroup(const char *p, const char *nl, struct run_status *st)
{
	static const char prefix[] = "paictl-task-";
	size_t n = (size_t)(nl - p), i;

	if (n >= sizeof(st->cgroup) || n <= sizeof(prefix) - 1 ||
	    strncmp(p, prefix, sizeof(prefix) - 1) != 0)
		return false;
	for (i = sizeof(prefix) - 1; i < n; i++)
		if ((p[i] < '0' || p[i] > '9') && p[i] != '-')
			return false;
	memcpy(st->cgroup, p, n);
	st->cgroup[n] = '\0';
	return true;
}

static int parse_status(const char *text, struct run_status *st, bool exit_only)
{
	const char *nl = strchr(text, '\n');
	int got = 0, at = 0;
	char end;

	if (!nl)
		return 0;
	if (!exit_only) {
		if (sscanf(text, "%ld %ld %llu%c%n", &st->pg, &st->mon,
			   &st->start, &end, &at) == 4 &&
		    (end == '\n' ||
		     (end == ' ' && parse_cgroup(text + at, nl, st))))
			got |= STATUS_PID;
		text = nl + 1;
		if (!strchr(text, '\n'))
			return got;
	}
	if (sscanf(text, "%d %*d%c", &st->code, &end) == 2 && end == '\n')
		got |= STATUS_EXIT;
	return got;
}

int run_read_status(const char *dir, struct run_status *st)
{
	char *path = srv_printf("%s/status", dir), *text = NULL;
	size_t len = 0;
	int got = 0, err = PAI_ENOMEM;

	memset(st, 0, sizeof(*st));
	st->code = -1;
	if (path && (err = pai_file_read(&text, &len, NULL, path)) == PAI_OK)
		got = parse_status(text, st, false);
	else if (err == PAI_ENOTFOUND) {
		/* the layout before `status` */
		free(path);
		path = srv_printf("%s/pid", dir);
		if (path && pai_file_read(&text, &len, NULL, path) == PAI_OK)
			got = parse_status(text, st, false) & STATUS_PID;
		free(path);
		free(text);
		text = NULL;
		path = srv_printf("%s/exit", dir);
		if (path && pai_file_read(&text, &len, NULL, path) == PAI_OK)
			got |= parse_status(text, st, true);
	}
	free(text);
	free(path);
	return got;
}

bool run_monitor_alive(const struct srv_task *t)
{
	char state = 0;

	return t->monitor > 0 && t->mon_start &&
	       run_proc_start(t->monitor, &state) == t->mon_start &&
	       state != 'Z';
}

bool srv_task_preparing(const struct srv_job *j, const struct srv_task *t,
			char *buf, size_t len)
{
	char *dir = srv_task_dir(j, t);
	char *path = dir ? srv_printf("%s/preparing", dir) : NULL;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = fd >= 0 && len > 1 ? read(fd, buf, len - 1) : -1;
	size_t i;

	if (fd >= 0)
		close(fd);
	free(path);
	free(dir);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* a task's bytes: no control characters in a status */
	for (i = 0; i < (size_t)n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = ' ';
	return true;
}
