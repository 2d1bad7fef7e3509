/* podman_orphans.c - what the podman runtime does once a task is over:
 * podman's own words, when podman could not run the task (an image
 * that cannot be pulled, say), put in the task's diagnostics; the
 * container of a task whose monitor was lost removed; and, at the
 * start, the containers of this state directory whose task no longer
 * runs (left by a monitor killed with its server) removed */
#include "runtime_podman.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* podman's exit statuses of its own: 125 (podman failed), 126 and 127
 * (the command could not run, or be found, in the container); any, for
 * a task whose container was never made (its pull failed, or took too
 * long). */
#define PODMAN_OWN(code) ((code) >= 125 && (code) <= 127)

static bool never_made(const struct srv_job *j, const struct srv_task *t)
{
	char *cid = podman_cidfile(j, t);
	bool never = cid && access(cid, F_OK) != 0;

	free(cid);
	return never;
}
#define TAIL 8192

/* The last line of the task's stderr that begins with "Error: ", as
 * podman writes its reason, into out; "" when none. */
static void last_error(const struct srv_job *j, const struct srv_task *t,
		       char *out, size_t outlen)
{
	char *dir = srv_task_dir(j, t), *path, buf[TAIL + 1], *line, *c;
	ssize_t n = 0;
	off_t end;
	int fd;

	out[0] = '\0';
	path = dir ? srv_printf("%s/user.pai.stderr", dir) : NULL;
	free(dir);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	if (end >= 0 && lseek(fd, end > TAIL ? end - TAIL : 0, SEEK_SET) >= 0)
		n = read(fd, buf, TAIL);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (line = buf; line && *line; line = c ? c + 1 : NULL) {
		c = strchr(line, '\n');
		if (strncmp(line, "Error: ", 7) == 0)
			snprintf(out, outlen, "%.*s",
				 (int)(c ? (size_t)(c - line) : strlen(line)),
				 line);
	}
}

/* Removes the named containers, whatever their state. */
static void remove_containers(struct srv *s, const char *const *names,
			      size_t n)
{
	const char *head[] = {"rm", "--force", "--time", "0", "--ignore"};
	const char **v = calloc(n + 5, sizeof(*v));
	char **argv, out[256];
	size_t i;

	if (!v)
		return;
	memcpy(v, head, sizeof(head));
	for (i = 0; i < n; i++)
		v[5 + i] = names[i];
	argv = podman_argv(podman_of(s), v, n + 5);
	if (argv && rt_run(s, argv, out, sizeof(out), 30000) != 0)
		srv_log(s, "podman rm of %zu container%s failed", n,
			n == 1 ? "" : "s");
	rt_strv_free(argv);
	free(v);
}

void podman_ended(struct srv *s, struct srv_job *j, struct srv_task *t,
		  int code)
{
	char why[1024], *name;

	if (PODMAN_OWN(code) || (code > 0 && never_made(j, t))) {
		last_error(j, t, why, sizeof(why));
		if (why[0]) {
			char *d = srv_printf("podman: %s", why + 7);

			srv_task_set_diag(t, d ? d : why);
			free(d);
		}
		return;
	}
	if (code >= 0)
		return;
	/* its monitor is gone: its container must not outlive it */
	if ((name = podman_name(s, j, t))) {
		const char *one = name;

		remove_containers(s, &one, 1);
	}
	free(name);
}

/* Whether a task that runs names its container name. */
static bool running(const struct srv *s, const char *name)
{
	size_t i, k;
	bool yes = false;

	for (i = 0; !yes && i < s->njobs; i++)
		for (k = 0; !yes && k < s->jobs[i]->ntasks; k++) {
			const struct srv_task *t = &s->jobs[i]->tasks[k];
			char *n;

			if (t->state != ST_RUNNING || t->monitor <= 0)
				continue;
			n = podman_name(s, s->jobs[i], t);
			yes = n && strcmp(n, name) == 0;
			free(n);
		}
	return yes;
}

#define SWEEP_MAX 256 /* containers removed per start, at most */

void podman_sweep(struct srv *s)
{
	const struct podman *p = podman_of(s);
	char *out = malloc(65536);
	const char *gone[SWEEP_MAX];
	char *filter = srv_printf("label=%s=%s", PODMAN_LABEL, p->id), *line,
	     *nl;
	const char *v[] = {"ps", "--all", "--filter", filter,
			   "--format={{.Names}}"};
	char **argv = filter ? podman_argv(p, v, 5) : NULL;
	size_t n = 0;

	if (!argv || !out || rt_run(s, argv, out, 65536, 30000) != 0) {
		if (argv)
			srv_log(s, "podman ps failed: containers of an "
				   "earlier server not looked for");
		goto out;
	}
	for (line = out; *line && n < SWEEP_MAX; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		if (*line && !running(s, line))
			gone[n++] = line;
	}
	if (n) {
		srv_log(s, "removing %zu container%s whose task no longer runs",
			n, n == 1 ? "" : "s");
		remove_containers(s, gone, n);
	}
out:
	rt_strv_free(argv);
	free(filter);
	free(out);
}
