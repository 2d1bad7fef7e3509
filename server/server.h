/* server.h - the local cluster, as seen by `paictl serve` (cli/cmd_serve.c) */
#ifndef SERVER_H
#define SERVER_H

#include <stddef.h>

typedef struct srv_options {
	const char *state_dir;	/* NULL: $XDG_STATE_HOME/paictl/local */
	const char *socket;	/* NULL: <state_dir>/api.sock */
	const char *listen;	/* "ADDR:PORT" for TCP, or NULL */
	const char *users_file; /* "user:password[:admin]" lines, or NULL */
	const char *capacity;	/* "cpus=N,memory=MB,gpus=G", or NULL */
	int grace_ms;		/* SIGTERM to SIGKILL on STOP */
	int quiet;		/* log only errors */
	int no_ssh;		/* no sshd for tasks even when installed */
	int log_to_state;	/* log to <state_dir>/server.log */
	/* -1, or a descriptor that gets one line and is closed: "ok SOCKET"
	 * once listening, "running SOCKET" when another server holds the
	 * state directory, "usage MESSAGE" or "error MESSAGE" */
	int ready_fd;
	int no_cgroup; /* tasks' processes by descendants, no cgroups */
	/* "podman", "process", or NULL: podman where it answers */
	const char *runtime;
	/* the most a task may wait for its image (podman's pull), s */
	int pull_timeout_s;
} srv_options;

#define SRV_OPTIONS_INIT                                                       \
	{                                                                      \
		NULL, NULL, NULL, NULL, NULL, 10000, 0, 0, 0, -1, 0, NULL, 1800 \
	}

/* Runs the local cluster until SIGTERM or SIGINT. Returns 0 after a
 * clean shutdown; otherwise -1, -2 for an invalid option value, or -3
 * when another server holds the state directory, with the reason in
 * err. Logs to stderr (or the state directory's server.log). */
int srv_run(const srv_options *opts, char *err, size_t errlen);

/* What server.json of a running server says (server/ctl.c). */
struct srv_probe {
	char state_dir[4096];
	long pid;
	char socket[4096];
	char url[256]; /* "" without --listen */
	char web[256]; /* the pages' listener (paictl web); "" before */
	char runtime[16]; /* what runs tasks: "podman", "process"; "" */
};

/* Whether a local cluster runs in state_dir (NULL: the default): 1 and
 * *out filled, 0 when none does, -1 with the reason in err. */
int srv_probe(const char *state_dir, struct srv_probe *out, char *err,
	      size_t errlen);

/* Stops the local cluster of state_dir (SIGTERM; its tasks go on and the
 * next server adopts them) and waits until it has exited, at most
 * timeout_ms: 1 stopped, 0 none was running, -1 with the reason in err. */
int srv_stop_running(const char *state_dir, int timeout_ms,
		     struct srv_probe *out, char *err, size_t errlen);

/* Asks the local cluster listening on the Unix socket path for a
 * login link to its web pages, which it starts serving on a loopback
 * address of their own if it does not yet (server/web_api.c): the base
 * URL ("http://127.A.B.C:PORT") in url and a one-time secret in
 * secret[65].
 * 0, or -1 with the reason in err. */
int srv_web_link(const char *path, char *url, size_t urllen, char *secret,
		 char *err, size_t errlen);

#endif /* SERVER_H */
