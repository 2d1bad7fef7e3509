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
} srv_options;

#define SRV_OPTIONS_INIT                                                       \
	{                                                                      \
		NULL, NULL, NULL, NULL, NULL, 10000, 0, 0                      \
	}

/* Runs the local cluster until SIGTERM or SIGINT. Returns 0 after a
 * clean shutdown; otherwise -1, or -2 for an invalid option value, with
 * the reason in err. Logs to stderr. */
int srv_run(const srv_options *opts, char *err, size_t errlen);

#endif /* SERVER_H */
