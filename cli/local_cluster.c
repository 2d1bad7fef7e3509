/* local_cluster.c - the built-in profile's cluster, paictl's own: its
 * socket under the state directory (<state>/local, as `paictl serve`
 * keeps it), and the server started in the background when nothing
 * answers there */
#include "cli.h"
#include "connect_int.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* 1 when something accepts connections on the Unix socket path. */
static int answers(const char *path)
{
	struct sockaddr_un sa;
	int fd, ok;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/* The socket that server.json names, else the default one. */
static char *local_socket(const char *state)
{
	char *info = cli_join(state, "/server.json"), *sock = NULL;
	json_t *o = info ? json_load_file(info, 0, NULL) : NULL;
	const char *s = json_string_value(json_object_get(o, "socket"));

	sock = s ? strdup(s) : cli_join(state, "/api.sock");
	json_decref(o);
	free(info);
	return sock;
}

/* Runs our own binary as `paictl serve --background -o json` (no
 * shell) and returns the socket it prints, and whether it started the
 * server: the server's lock on its state directory makes a concurrent
 * start report the running one instead. */
static int start_local(cli_ctx *ctx, char **sock, int *started)
{
	char *argv[] = {"paictl", "serve", "--background", "-o", "json", NULL};
	char *buf = NULL;
	json_t *o;
	int p[2], status;
	pid_t pid;

	*sock = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return cli_error(ctx, EXIT_UNREACHABLE,
				 "cannot start the local cluster: %s",
				 strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return cli_error(ctx, EXIT_UNREACHABLE,
				 "cannot start the local cluster: %s",
				 strerror(errno));
	}
	if (pid == 0) {
		/* stdout: the socket, for us; stderr: its reasons, for the
		 * user */
		if (dup2(p[1], STDOUT_FILENO) < 0)
			_exit(127);
		execve("/proc/self/exe", argv, environ);
		_exit(127);
	}
	close(p[1]);
	/* one short JSON object: more (or a failed read) is no answer */
	pai_fd_read_max(&buf, NULL, NULL, p[0], 4095);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	o = buf ? json_loads(buf, 0, NULL) : NULL;
	free(buf);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    !json_string_value(json_object_get(o, "socket"))) {
		json_decref(o);
		return cli_error(ctx, EXIT_UNREACHABLE,
				 "cannot start the local cluster");
	}
	*sock = strdup(json_string_value(json_object_get(o, "socket")));
	*started = json_is_true(json_object_get(o, "started"));
	json_decref(o);
	return *sock ? EXIT_OK : cli_error(ctx, EXIT_FAILURE_, "out of memory");
}

int cli_connect_local(cli_ctx *ctx, cli_conn *c)
{
	char *state = cli_state_dir(), *dir = NULL, *sock = NULL;
	int st = EXIT_OK, started = 0;

	if (!state)
		return cli_error(ctx, EXIT_FAILURE_,
				 "no HOME: set HOME or XDG_STATE_HOME");
	dir = cli_join(state, "/local");
	sock = dir ? local_socket(dir) : NULL;
	if (!sock) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	if (!answers(sock) && ctx->completing) {
		st = EXIT_UNREACHABLE;
		goto out;
	} else if (!answers(sock)) {
		free(sock);
		sock = NULL;
		if (ctx->verbose)
			cli_error(ctx, 0, "starting the local cluster in '%s'",
				  dir);
		st = start_local(ctx, &sock, &started);
		if (st)
			goto out;
		/* a command started at the same time may have started it */
		if (started && !ctx->quiet)
			cli_error(ctx, 0,
				  "started the local cluster (log: "
				  "%s/server.log)",
				  dir);
	}
	c->socket = sock;
	sock = NULL;
out:
	free(sock);
	free(dir);
	free(state);
	return st;
}
