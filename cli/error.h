/* error.h - messages on stderr and the exit statuses: the one place a
 * library error or a job's end becomes paictl's exit status (paictl(1)) */
#ifndef CLI_ERROR_H
#define CLI_ERROR_H

#include "pai.h"

/* Exit statuses: the one place they are defined (see paictl(1)). */
enum {
	EXIT_OK = 0,
	EXIT_FAILURE_ = 1, /* any failure not listed below */
	EXIT_USAGE = 2,
	EXIT_INVALID = 3,     /* invalid job config */
	EXIT_NOTFOUND = 4,    /* file, job, task... not found */
	EXIT_AUTH = 5,	      /* authentication or permission */
	EXIT_UNREACHABLE = 6, /* cluster unreachable */
	EXIT_CONFLICT = 7,    /* job exists */
	EXIT_TIMEOUT = 8,
	EXIT_JOB_FAILED = 9 /* the job ended FAILED or STOPPED */
};

struct cli_ctx;

/* "paictl: CMD: message" on stderr; returns status, so that callers can
 * `return cli_error(ctx, EXIT_USAGE, "...")`. */
int cli_error(const struct cli_ctx *ctx, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cli_warn(const struct cli_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "paictl: CMD: message" on stderr for what was done (none with -q):
 * a note, not an error, and no exit status. */
void cli_note(const struct cli_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The exit status for a libpai error code. */
int cli_exit_status(int pai_err);
/* 0 for SUCCEEDED, EXIT_JOB_FAILED for FAILED and STOPPED. */
int cli_final_status(pai_state state);

/* Flushes stdout and reports a failed write (a full disk, a closed
 * pipe); returns status unchanged, or EXIT_FAILURE_ if writing failed. */
int cli_finish(const struct cli_ctx *ctx, int status);

#endif /* CLI_ERROR_H */
