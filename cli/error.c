/* error.c - messages on stderr and the exit statuses (error.h) */
#include "error.h"

#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

static void vmsg(const cli_ctx *ctx, const char *kind, const char *fmt,
		 va_list ap)
{
	fflush(stdout);
	fputs("paictl: ", stderr);
	if (ctx && ctx->cmd)
		fprintf(stderr, "%s: ", ctx->cmd);
	if (kind && cli_color(stderr))
		fprintf(stderr, "%s%s" CLI_SGR_OFF ": ", cli_sgr(kind), kind);
	else if (kind)
		fprintf(stderr, "%s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(const cli_ctx *ctx, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(ctx, NULL, fmt, ap);
	va_end(ap);
	return status;
}

void cli_warn(const cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx && ctx->quiet)
		return;
	va_start(ap, fmt);
	vmsg(ctx, "warning", fmt, ap);
	va_end(ap);
}

void cli_note(const cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx && ctx->quiet)
		return;
	va_start(ap, fmt);
	vmsg(ctx, NULL, fmt, ap);
	va_end(ap);
}

int cli_exit_status(int err)
{
	switch (err) {
	case PAI_OK: return EXIT_OK;
	case PAI_EINVAL: return EXIT_USAGE;
	case PAI_ESYNTAX:
	case PAI_EINVALID: return EXIT_INVALID;
	case PAI_ENOTFOUND:
	case PAI_EISDIR: return EXIT_NOTFOUND;
	case PAI_EACCES:
	case PAI_EAUTH:
	case PAI_EFORBIDDEN: return EXIT_AUTH;
	case PAI_ECONFLICT: return EXIT_CONFLICT;
	case PAI_EUNREACHABLE:
	case PAI_ETLS: return EXIT_UNREACHABLE;
	case PAI_ETIMEOUT: return EXIT_TIMEOUT;
	case PAI_EINTR: return 130; /* as a shell reports SIGINT */
	}
	return EXIT_FAILURE_;
}

int cli_final_status(pai_state state)
{
	return state == PAI_STATE_SUCCEEDED ? EXIT_OK : EXIT_JOB_FAILED;
}

int cli_finish(const cli_ctx *ctx, int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int e = errno;

		/* A reader that went away wants no message. */
		if (e != EPIPE)
			cli_error(ctx, EXIT_FAILURE_,
				  "error writing standard output: %s",
				  strerror(e));
		return status ? status : EXIT_FAILURE_;
	}
	return status;
}
