/* cli.h - the paictl front end: commands, options, messages, exits */
#ifndef CLI_H
#define CLI_H

#include "pai.h"

#include <stdbool.h>
#include <stdio.h>

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

/* One option of a command. The same table drives getopt_long, --help
 * and the shell completions. */
typedef struct cli_opt {
	const char *name;    /* long name, without "--" */
	int key;	     /* short letter, or a value >= 256 */
	const char *argname; /* NULL: takes no argument */
	const char *values;  /* completions for the argument, "a|b", or NULL */
	const char *help;
} cli_opt;

typedef enum { CLI_OUT_TEXT = 0, CLI_OUT_JSON = 1 } cli_output;

struct cli_cmd;

/* What every command may use: the global options, as given (flags win
 * over the environment, which wins over the profile: see cli_connect). */
typedef struct cli_ctx {
	const char *cmd; /* the command's name, for messages */
	const struct cli_cmd *command;
	cli_output output;
	int quiet;
	int verbose;            /* -v: more; -vv: HTTP requests, secrets masked */
	const char *cluster;    /* -c, --cluster NAME */
	const char *uri;        /* --uri URL */
	const char *user;       /* -u, --user NAME */
	const char *token_file; /* --token-file FILE */
	const char *config;     /* --config FILE */
	const char *cacert;     /* --cacert FILE */
	int insecure;           /* --insecure */
} cli_ctx;

/* Keys of the global options that have no short letter. */
enum {
	CLI_OPT_URI = 1000,
	CLI_OPT_TOKEN_FILE,
	CLI_OPT_CONFIG,
	CLI_OPT_CACERT,
	CLI_OPT_INSECURE
};

/* The global options: accepted before the command and after it. */
extern const cli_opt cli_global_opts[];

typedef struct cli_cmd {
	const char *name;
	int (*fn)(cli_ctx *ctx, int argc, char **argv);
	const cli_opt *opts; /* terminated by a zeroed entry */
	const char *args;    /* synopsis of the operands, e.g. "FILE..." */
	const char *summary;
} cli_cmd;

#define CLI_OPT_END                                                            \
	{                                                                      \
		NULL, 0, NULL, NULL, NULL                                      \
	}

/* Parses argv against ctx->command->opts (options and operands may mix, as in
 * GNU tools; "--" ends options). For each option calls on_opt(key, arg,
 * data), which returns 0 or an exit status. Handles -o, -q and --help
 * itself. On success returns -1 and sets *first to the index of the
 * first operand (they are moved to the end of argv); otherwise returns
 * the exit status (EXIT_OK after --help). */
int cli_parse(cli_ctx *ctx, int argc, char **argv,
	      int (*on_opt)(cli_ctx *ctx, int key, const char *arg, void *data),
	      void *data, int *first);

void cli_help(FILE *f, const cli_cmd *cmd);

/* Parses the global options before the command (`paictl -c prod submit
 * job.json`) and shifts them out of argv, keeping argv[0]. Returns -1 to
 * go on, or an exit status (after --help, or for a usage error). */
int cli_parse_leading(cli_ctx *ctx, int *argc, char ***argv);

/* Prints the list of commands. */
void cli_usage(FILE *f);

/* "paictl: CMD: message" on stderr; returns status, so that callers can
 * `return cli_error(ctx, EXIT_USAGE, "...")`. */
int cli_error(const cli_ctx *ctx, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cli_warn(const cli_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The exit status for a libpai error code. */
int cli_exit_status(int pai_err);

/* Reads FILE, or standard input for "-"; on failure prints why and
 * returns the exit status (EXIT_NOTFOUND for a file that is missing,
 * unreadable or a directory). */
int cli_read_input(const cli_ctx *ctx, const char *path, char **out,
		   size_t *len);

/* Prints diagnostics like a compiler, with the source line and a caret. */
void cli_print_diags(FILE *f, const pai_diags *diags, size_t from);

/* Flushes stdout and reports a failed write (a full disk, a closed
 * pipe); returns status unchanged, or EXIT_FAILURE_ if writing failed. */
int cli_finish(const cli_ctx *ctx, int status);

/* The commands, one file each. */
int cmd_validate(cli_ctx *ctx, int argc, char **argv);
int cmd_expand(cli_ctx *ctx, int argc, char **argv);

extern const cli_opt cli_validate_opts[];
extern const cli_opt cli_expand_opts[];
int cmd_serve(cli_ctx *ctx, int argc, char **argv);
extern const cli_opt cli_serve_opts[];

#endif /* CLI_H */
