/* ctl.c - the local cluster seen from outside: is one running in a state
 * directory, stopping it (paictl serve --status, --stop), and asking it
 * for a login link to its pages (paictl web). A server
 * writes server.json (pid, socket, url) once it listens and removes it
 * when it stops cleanly; one runs when that socket accepts a connection
 * (a file left by a killed server does not). Its lock is not probed: a
 * probe holding it for an instant could make a server starting at that
 * moment believe another one runs. */
#include "server.h"
#include "srv_int.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

static char *state_dir(const char *given)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (given && *given)
		return strdup(given);
	if (x && *x == '/')
		return srv_printf("%s/paictl/local", x);
	if (home && *home)
		return srv_printf("%s/.local/state/paictl/local", home);
	return NULL;
}

/* Whether something accepts connections on the Unix socket path. */
static int answers(const char *path)
{
	struct sockaddr_un a;
	int fd, ok;

	if (!*path || strlen(path) >= sizeof(a.sun_path))
		return 0;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	memcpy(a.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static void read_info(const char *dir, struct srv_probe *out)
{
	char *path = srv_printf("%s/server.json", dir);
	json_t *o = path ? json_load_file(path, 0, NULL) : NULL;
	const char *s;

	free(path);
	out->pid = (long)json_integer_value(json_object_get(o, "pid"));
	s = json_string_value(json_object_get(o, "socket"));
	snprintf(out->socket, sizeof(out->socket), "%s", s ? s : "");
	s = json_string_value(json_object_get(o, "url"));
	snprintf(out->url, sizeof(out->url), "%s", s ? s : "");
	s = json_string_value(json_object_get(o, "web"));
	snprintf(out->web, sizeof(out->web), "%s", s ? s : "");
	s = json_string_value(json_object_get(o, "runtime"));
	snprintf(out->runtime, sizeof(out->runtime), "%s", s ? s : "");
	json_decref(o);
}

int srv_probe(const char *given, struct srv_probe *out, char *err,
	      size_t errlen)
{
	char *dir = state_dir(given);
	int held;

	memset(out, 0, sizeof(*out));
	if (!dir) {
		snprintf(err, errlen, "no state directory: set HOME or "
				      "XDG_STATE_HOME, or give --state-dir");
		return -1;
	}
	snprintf(out->state_dir, sizeof(out->state_dir), "%s", dir);
	free(dir);
	read_info(out->state_dir, out);
	held = out->pid > 0 && answers(out->socket);
	if (!held)
		out->pid = 0;
	return held;
}

/* Whether process pid has exited: no such process, or a zombie that a
 * parent (often init, the background server's) has not reaped yet. */
static int gone(long pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return errno == ENOENT;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* "pid (comm) S ...": the state after the last ')' */
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] == 'Z';
}

int srv_stop_running(const char *given, int timeout_ms,
		     struct srv_probe *out, char *err, size_t errlen)
{
	int st = srv_probe(given, out, err, errlen), waited;

	if (st <= 0)
		return st;
	if (out->pid <= 0 || kill((pid_t)out->pid, SIGTERM) < 0) {
		snprintf(err, errlen,
			 "cannot signal the server (pid %ld in "
			 "'%s/server.json'): %s",
			 out->pid, out->state_dir,
			 out->pid <= 0 ? "no pid" : strerror(errno));
		return -1;
	}
	/* stopped once the process is gone */
	for (waited = 0; waited < timeout_ms; waited += 50) {
		if (gone(out->pid))
			return 1;
		usleep(50 * 1000);
	}
	snprintf(err, errlen, "the server (pid %ld) is still running after "
			      "%d s",
		 out->pid, timeout_ms / 1000);
	return -1;
}

/* One HTTP/1.0 exchange on the Unix socket at path: the answer's
 * status and body (in buf, NUL-terminated). The socket is the server's
 * own channel, its directory the owner's alone: no library needed. */
static int exchange(const char *path, const char *request, char *buf,
		    size_t len, int *status, char *err, size_t errlen)
{
	struct sockaddr_un a;
	struct pollfd p;
	size_t n = 0;
	ssize_t r;
	int fd;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "socket path '%s' is too long", path);
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
		snprintf(err, errlen, "cannot reach the local cluster at "
				      "'%s': %s",
			 path, strerror(errno));
		goto fail;
	}
	p.fd = fd;
	p.events = POLLIN;
	/* until the server closes (HTTP/1.0), at most 10 s */
	while (n < len - 1 && poll(&p, 1, 10000) > 0 &&
	       (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", status) == 1)
		return 0;
	snprintf(err, errlen, "the local cluster at '%s' did not answer",
		 path);
	return -1;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int srv_web_link(const char *path, char *url, size_t urllen, char *secret,
		 char *err, size_t errlen)
{
	char buf[4096];
	const char *body, *u, *t, *m;
	json_t *o;
	int status = 0, ret = -1;

	if (exchange(path,
		     "POST /web/api/link HTTP/1.0\r\nHost: localhost\r\n"
		     "Content-Length: 0\r\n\r\n",
		     buf, sizeof(buf), &status, err, errlen) < 0)
		return -1;
	body = strstr(buf, "\r\n\r\n");
	o = body ? json_loads(body + 4, 0, NULL) : NULL;
	u = json_string_value(json_object_get(o, "url"));
	t = json_string_value(json_object_get(o, "token"));
	m = json_string_value(json_object_get(o, "message"));
	if (status == 200 && u && t && strlen(t) == 64) {
		snprintf(url, urllen, "%s", u);
		memcpy(secret, t, 65);
		ret = 0;
	} else if (status == 404)
		snprintf(err, errlen, "the local cluster has no web pages: "
				      "it is older than this paictl; restart "
				      "it with 'paictl serve --stop'");
	else
		snprintf(err, errlen, "the local cluster cannot serve its "
				      "pages: %s",
			 m ? m : "HTTP error");
	if (body)
		explicit_bzero(buf, sizeof(buf));
	/* jansson's copy of the secret too, before it is freed */
	if (t)
		explicit_bzero((char *)t, strlen(t));
	json_decref(o);
	return ret;
}
