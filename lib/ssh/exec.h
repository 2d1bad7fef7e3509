/* exec.h - commands and files on a host libpai logged in to (exec.c):
 * one connected pai_ssh kept for many steps, as the Slurm engine's login
 * node wire uses it (an exec channel per command, its output captured
 * within bounds; SFTP on the same connection). Not installed, not for
 * cli/. */
#ifndef PAI_SSH_EXEC_H
#define PAI_SSH_EXEC_H

#include "pai.h"
#include "sys/sys.h"

/* word as one word of a POSIX shell's command line, appended to b: in
 * single quotes, each ' as '\'' (nothing in it expanded). */
void pai__sh_quote(pai__buf *b, const char *word);

/* What a command printed: stdout and stderr, each kept up to max bytes
 * (more is read and dropped, *_cut set), and how it ended. */
struct pai__ssh_out {
	pai__buf out, err;
	int out_cut, err_cut;
	int status; /* exit status; 128 + signal; -1: none said */
};

/* Runs command (run by the remote user's shell: every word in it quoted
 * by the caller) on connected s, in a channel of its own, no input,
 * within timeout_ms: *o filled (its buffers released by the caller,
 * also on failure). PAI_ETIMEOUT, PAI_EUNREACHABLE (the connection
 * lost: s then dead), PAI_EINTR, PAI_ENOMEM; pai_ssh_detail() says. */
int pai__ssh_exec(pai_ssh *s, const char *command, size_t max, long timeout_ms,
		  struct pai__ssh_out *o);
void pai__ssh_out_release(struct pai__ssh_out *o);
/* 1 when s is not connected (never, or the connection was cut). */
int pai__ssh_dead(const pai_ssh *s);

/* data written to path over SFTP (mode as given), atomically: to
 * "path.part" then renamed over path. PAI_ENOTFOUND when its directory
 * is not there, PAI_EACCES, PAI_EIO. */
int pai__ssh_put(pai_ssh *s, const char *path, const char *data, size_t len,
		 long mode);
/* The directory path made (its parent must be there; one there already
 * is fine). */
int pai__ssh_mkdir(pai_ssh *s, const char *path, long mode);
/* Up to max bytes of path from *offset, appended to b: PAI_OK (fewer at
 * its end), PAI_ENOTFOUND, PAI_EACCES, PAI_EIO. A file shorter than
 * *offset has been replaced: read from its start, *offset 0. */
int pai__ssh_get(pai_ssh *s, const char *path, long long *offset, size_t max,
		 pai__buf *b);

#endif /* PAI_SSH_EXEC_H */
