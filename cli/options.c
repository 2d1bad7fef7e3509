/* options.c - one options table per command drives getopt_long and --help;
 * the global options are merged into every command's */
#include "cli.h"
#include "error.h"

#include <getopt.h>
#include <string.h>

const cli_opt cli_global_opts[] = {
    {"cluster", 'c', "NAME", NULL, "the cluster profile ($PAICTL_CLUSTER)"},
    {"uri", CLI_OPT_URI, "URL", NULL, "the REST server's URI ($PAICTL_URI)"},
    {"user", 'u', "NAME", NULL, "the user to act as ($PAICTL_USER)"},
    {"token-file", CLI_OPT_TOKEN_FILE, "FILE", NULL,
     "read the bearer token from FILE (or $PAICTL_TOKEN)"},
    {"config", CLI_OPT_CONFIG, "FILE", NULL,
     "the profiles file ($PAICTL_CONFIG)"},
    {"cacert", CLI_OPT_CACERT, "FILE", NULL,
     "trust the certificates in FILE for HTTPS"},
    {"insecure", CLI_OPT_INSECURE, NULL, NULL,
     "do not verify the server's TLS certificate"},
    {"output", 'o', "FORMAT", "text|json",
     "print results as text (the default) or JSON"},
    {"color", CLI_OPT_COLOR, "WHEN", "auto|always|never",
     "auto (on a terminal, unless $NO_COLOR), always or never"},
    {"quiet", 'q', NULL, NULL, "print less"},
    {"verbose", 'v', NULL, NULL,
     "say more; -vv: HTTP requests, secrets masked"},
    {"help", 'h', NULL, NULL, "show this help and exit"},
    CLI_OPT_END};

static const cli_opt *find_name(const cli_opt *opts, const char *name)
{
	for (; opts->name; opts++)
		if (strcmp(opts->name, name) == 0)
			return opts;
	return NULL;
}

static const cli_opt *find_key(const cli_opt *opts, int key)
{
	for (; opts->name; opts++)
		if (opts->key == key)
			return opts;
	return NULL;
}

/* Handles one global option; 0 or an exit status. */
static int global_opt(cli_ctx *ctx, int key, const char *arg)
{
	switch (key) {
	case 'o':
		if (strcmp(arg, "text") == 0)
			ctx->output = CLI_OUT_TEXT;
		else if (strcmp(arg, "json") == 0)
			ctx->output = CLI_OUT_JSON;
		else
			return cli_error(ctx, EXIT_USAGE,
					 "unknown output format '%s' (use "
					 "text or json)",
					 arg);
		return 0;
	case CLI_OPT_COLOR:
		if (strcmp(arg, "auto") == 0)
			ctx->color = CLI_COLOR_AUTO;
		else if (strcmp(arg, "always") == 0)
			ctx->color = CLI_COLOR_ALWAYS;
		else if (strcmp(arg, "never") == 0)
			ctx->color = CLI_COLOR_NEVER;
		else
			return cli_error(ctx, EXIT_USAGE,
					 "unknown colour setting '%s' (use "
					 "auto, always or never)",
					 arg);
		cli_color_set(ctx->color);
		return 0;
	case 'q': ctx->quiet = 1; return 0;
	case 'v': ctx->verbose++; return 0;
	case 'c': ctx->cluster = arg; return 0;
	case 'u': ctx->user = arg; return 0;
	case CLI_OPT_URI: ctx->uri = arg; return 0;
	case CLI_OPT_TOKEN_FILE: ctx->token_file = arg; return 0;
	case CLI_OPT_CONFIG: ctx->config = arg; return 0;
	case CLI_OPT_CACERT: ctx->cacert = arg; return 0;
	case CLI_OPT_INSECURE: ctx->insecure = 1; return 0;
	}
	return EXIT_USAGE;
}

/* Fills getopt_long's tables from one or two option tables (a command's
 * own option wins over a global one of the same name or letter). */
static void build(struct option *lopts, size_t maxl, char *sopts, size_t maxs,
		  const cli_opt *own, const cli_opt *global, const char *prefix)
{
	const cli_opt *tables[2] = {own, global}, *o;
	size_t n = 0, s;
	int t;

	strcpy(sopts, prefix);
	s = strlen(sopts);
	for (t = 0; t < 2; t++) {
		for (o = tables[t]; o && o->name && n + 1 < maxl; o++) {
			if (t == 1 && own &&
			    (find_name(own, o->name) || find_key(own, o->key)))
				continue;
			lopts[n].name = o->name;
			lopts[n].has_arg =
			    o->argname ? required_argument : no_argument;
			lopts[n].flag = NULL;
			lopts[n].val = o->key;
			n++;
			if (o->key > 0 && o->key < 256 && s + 3 < maxs) {
				sopts[s++] = (char)o->key;
				if (o->argname)
					sopts[s++] = ':';
				sopts[s] = '\0';
			}
		}
	}
	memset(&lopts[n], 0, sizeof(*lopts));
}

/* The option of own and global whose long name is nearest to word
 * ("--fs-ur", "--fs-ur=x"), as "--name"; an old spelling's nearness
 * suggests what it stands for. NULL when none is near. */
static const char *nearest(const char *word, const cli_opt *own)
{
	static char said[72];
	const cli_opt *tables[2] = {own, cli_global_opts}, *o, *of[96];
	const char *names[96], *best;
	char key[64];
	size_t n = 0, len, i;
	int t;

	if (strncmp(word, "--", 2) != 0)
		return NULL;
	len = strcspn(word + 2, "=");
	if (len >= sizeof(key))
		return NULL;
	memcpy(key, word + 2, len);
	key[len] = '\0';
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o && o->name && n < 96; o++) {
			of[n] = o;
			names[n++] = o->name;
		}
	if (!(best = pai_suggest(key, names, n)))
		return NULL;
	for (i = 0; names[i] != best; i++)
		;
	if (cli_opt_old(of[i]))
		return strncmp(of[i]->values, "--", 2) == 0 ? of[i]->values
							   : NULL;
	snprintf(said, sizeof(said), "--%s", best);
	return said;
}

static int unknown(const cli_ctx *ctx, char **argv, const cli_opt *own,
		   const char *see)
{
	const char *best;

	if (optopt && optopt < 256)
		return cli_error(ctx, EXIT_USAGE,
				 "unknown option '-%c'; see '%s --help'",
				 optopt, see);
	best = nearest(argv[optind - 1], own);
	if (best)
		return cli_error(ctx, EXIT_USAGE,
				 "unknown option '%s'; did you mean '%s'?",
				 argv[optind - 1], best);
	return cli_error(ctx, EXIT_USAGE,
			 "unknown option '%s'; see '%s --help'",
			 argv[optind - 1], see);
}

int cli_parse(cli_ctx *ctx, int argc, char **argv,
	      int (*on_opt)(cli_ctx *, int, const char *, void *), void *data,
	      int *first)
{
	const cli_cmd *cmd = ctx->command;
	struct option lopts[64];
	char sopts[160], see[64];
	int c, st;

	build(lopts, 64, sopts, sizeof(sopts), cmd->opts, cli_global_opts, ":");
	snprintf(see, sizeof(see), "paictl %s", cmd->name);
	optind = 0; /* 0: a full reset of GNU getopt, mode included */
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (c == ':')
			return cli_error(ctx, EXIT_USAGE,
					 "option '%s' needs a value",
					 argv[optind - 1]);
		if (c == '?')
			return unknown(ctx, argv, cmd->opts, see);
		if (c == 'h' && !find_key(cmd->opts, 'h')) {
			cli_help(stdout, cmd);
			return cli_finish(ctx, EXIT_OK);
		}
		if (find_key(cmd->opts, c))
			st = on_opt ? on_opt(ctx, c, optarg, data) : EXIT_USAGE;
		else
			st = global_opt(ctx, c, optarg);
		if (st)
			return st;
	}
	*first = optind;
	return -1;
}

int cli_parse_leading(cli_ctx *ctx, int *argc, char ***argv)
{
	struct option lopts[32];
	char sopts[64];
	int c, st;

	/* "+": stop at the command's name */
	build(lopts, 32, sopts, sizeof(sopts), NULL, cli_global_opts, "+:");
	optind = 0; /* 0: a full reset of GNU getopt, mode included */
	opterr = 0;
	while ((c = getopt_long(*argc, *argv, sopts, lopts, NULL)) != -1) {
		if (c == ':')
			return cli_error(ctx, EXIT_USAGE,
					 "option '%s' needs a value",
					 (*argv)[optind - 1]);
		if (c == '?') {
			/* --version is welcome before any command */
			if (strcmp((*argv)[optind - 1], "--version") == 0) {
				optind--;
				break;
			}
			return unknown(ctx, *argv, NULL, "paictl");
		}
		if (c == 'h')
			return CLI_HELP_ASKED;
		st = global_opt(ctx, c, optarg);
		if (st)
			return st;
	}
	(*argv)[optind - 1] = (*argv)[0];
	*argv += optind - 1;
	*argc -= optind - 1;
	return -1;
}

const cli_cmd *cli_find_command(const cli_cmd *commands, const char *name)
{
	const cli_cmd *c;

	for (c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static void print_opts(FILE *f, const cli_opt *opts, const cli_opt *skip)
{
	const cli_opt *o;
	char left[64];
	int n;

	for (o = opts; o->name; o++) {
		if (cli_opt_old(o) || (skip && (find_name(skip, o->name) ||
					find_key(skip, o->key))))
			continue;
		if (o->key > 0 && o->key < 256)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->key,
				     o->name);
		else
			n = snprintf(left, sizeof(left), "    --%s", o->name);
		if (o->argname && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, " %s",
				 o->argname);
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

/* "Old spellings, still accepted: -r/--role (ROLE), --fs-uri
 * (--default-fs)": one line, unlike the options above it. */
static void print_old(FILE *f, const cli_opt *opts)
{
	const cli_opt *o;
	const char *sep = "\nOld spellings, still accepted: ";

	for (o = opts; o->name; o++) {
		if (!cli_opt_old(o))
			continue;
		if (o->key > 0 && o->key < 256)
			fprintf(f, "%s-%c/--%s (%s)", sep, o->key, o->name,
				o->values);
		else
			fprintf(f, "%s--%s (%s)", sep, o->name, o->values);
		sep = ", ";
	}
	if (*sep == ',')
		fputc('\n', f);
}

void cli_help(FILE *f, const cli_cmd *cmd)
{
	fprintf(f, "usage: paictl %s [OPTIONS]%s%s\n\n%c%s.\n", cmd->name,
		*cmd->args ? " " : "", cmd->args,
		cmd->summary[0] >= 'a' && cmd->summary[0] <= 'z'
		    ? cmd->summary[0] - 'a' + 'A'
		    : cmd->summary[0],
		cmd->summary + 1);
	if (cmd->opts->name) {
		fprintf(f, "\nOptions:\n");
		print_opts(f, cmd->opts, NULL);
	}
	fprintf(f, "\nGlobal options (before or after the command):\n");
	print_opts(f, cli_global_opts, cmd->opts);
	print_old(f, cmd->opts);
}
