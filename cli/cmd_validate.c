/* cmd_validate.c - paictl validate: check job configs, report every problem */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_STRICT = 256 };

const cli_opt cli_validate_opts[] = {
    CLI_JOB_OPTS,
    {"strict", OPT_STRICT, NULL, NULL, "treat warnings as errors"},
    CLI_OPT_END};

struct opts {
	cli_facts f;
	int strict;
};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	int st = cli_job_opt(ctx, key, arg, &o->f);

	if (st >= 0)
		return st;
	switch (key) {
	case OPT_STRICT: o->strict = 1; return 0;
	}
	return EXIT_USAGE;
}

/* Worse outcomes win: a file that could not be read says more than an
 * invalid one, and a failure more than both. */
static int rank(int status)
{
	switch (status) {
	case EXIT_OK: return 0;
	case EXIT_INVALID: return 1;
	case EXIT_NOTFOUND: return 2;
	}
	return 3; /* any other failure */
}

static int worse(int a, int b)
{
	return rank(b) > rank(a) ? b : a;
}

/* The text judged by every rule of the cluster it is for: for a
 * Kubernetes cluster also what its conversion refuses, as submit
 * would. Only the verdict is wanted, not the job: pai_job_check() never
 * holds a large config whole. */
static int judge(const struct opts *o, pai_diags *diags, const char *name,
		 const char *text, size_t len)
{
	char *res = NULL;
	int err;

	if (!o->f.target)
		return pai_job_check(diags, name, text, len, &o->f.job);
	err = pai_job_to_k8s(&res, NULL, diags, name, text, len, &o->f.job,
			     &o->f.k8s);
	free(res);
	return err;
}

/* Validates the file at path ("-": standard input), its diagnostics
 * added to diags; its exit status. */
static int validate(const cli_ctx *ctx, const struct opts *o, pai_diags *diags,
		    const char *path)
{
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	size_t from = pai_diags_count(diags), len = 0, k;
	size_t errors = 0, warnings = 0;
	char *text = NULL;
	int err, st;

	st = cli_read_input(ctx, path, &text, &len);
	if (st)
		return st;
	err = judge(o, diags, name, text, len);
	free(text);
	if (err && err != PAI_ESYNTAX && err != PAI_EINVALID)
		return cli_error(ctx, EXIT_FAILURE_, "'%s': %s", name,
				 pai_strerror(err));
	for (k = from; k < pai_diags_count(diags); k++) {
		if (pai_diags_get(diags, k)->severity == PAI_SEVERITY_ERROR)
			errors++;
		else
			warnings++;
	}
	if (ctx->output == CLI_OUT_TEXT) {
		cli_print_diags(stderr, diags, from);
		if (!ctx->quiet && !errors && !(o->strict && warnings))
			printf("%s: ok%s\n", name,
			       warnings ? " (with warnings)" : "");
		else if (!ctx->quiet)
			fprintf(stderr, "%s: %zu error%s, %zu warning%s\n",
				name, errors, errors == 1 ? "" : "s", warnings,
				warnings == 1 ? "" : "s");
	}
	return errors || (o->strict && warnings) ? EXIT_INVALID : EXIT_OK;
}

int cmd_validate(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {CLI_FACTS_INIT, 0};
	cli_conn *conn = NULL;
	pai_diags *diags = NULL;
	int first, st, status = EXIT_OK, i, nstdin = 0;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (first >= argc)
		return cli_error(ctx, EXIT_USAGE,
				 "no job config given; try 'paictl validate "
				 "job.json' ('-' reads standard input)");
	for (i = first; i < argc; i++)
		nstdin += strcmp(argv[i], "-") == 0;
	if (nstdin > 1)
		return cli_error(ctx, EXIT_USAGE,
				 "standard input ('-') can be read only once");
	/* the chosen cluster's rules, as submit judges the config */
	if ((st = cli_job_facts(ctx, &o.f, &conn)))
		return st;
	if (pai_diags_new(&diags)) {
		cli_conn_free(conn);
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	}
	for (i = first; i < argc; i++)
		status = worse(status, validate(ctx, &o, diags, argv[i]));
	if (ctx->output == CLI_OUT_JSON) {
		json_t *arr = pai_diags_to_json(diags);

		if (!arr || json_dumpf(arr, stdout, JSON_INDENT(2)) < 0)
			status = worse(status, EXIT_FAILURE_);
		else
			putchar('\n');
		json_decref(arr);
	}
	pai_diags_free(diags);
	cli_conn_free(conn);
	return cli_finish(ctx, status);
}
