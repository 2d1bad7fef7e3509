/* cmd_convert.c - paictl convert: a job config from v1 JSON to
 * protocol-v2 YAML or back, or to Kubernetes objects (a Volcano Job, a
 * PaddleJob, a JobSet, a PyTorchJob, a TrainJob or an MPIJob). `-o` is the global --output, so
 * the file to write is --out (-O), as ssh-key's. */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

enum {
	OPT_TO = 256,
	OPT_FORCE,
	OPT_NAMESPACE,
	OPT_QUEUE,
	OPT_DEFAULT_FS,
	OPT_RUNTIME,
	OPT_RUNTIME_NS
};

const cli_opt cli_convert_opts[] = {
    {"to", OPT_TO, "FORMAT",
     "v1|v2|volcano|paddlejob|jobset|pytorchjob|trainjob|mpijob",
     "the format to write: v2 (protocol YAML), v1 (JSON), or a Kubernetes "
     "Volcano Job, PaddleJob, JobSet, PyTorchJob, TrainJob or MPIJob; "
     "required, but for a Kubernetes cluster (its engine)"},
    {"namespace", OPT_NAMESPACE, "NS", NULL,
     "Kubernetes: the objects' namespace (default: the cluster's, else "
     "kubectl's)"},
    {"queue", OPT_QUEUE, "QUEUE", NULL,
     "Kubernetes: the Volcano queue, or for a JobSet Kueue's (default: the "
     "cluster's, else default; a JobSet none)"},
    {"default-fs", OPT_DEFAULT_FS, "URI", NULL,
     "Kubernetes: the default file system, for $PAI_DEFAULT_FS_URI and "
     "the HDFS directories (default: the cluster's)"},
    {"runtime", OPT_RUNTIME, "NAME", NULL,
     "a TrainJob: the ClusterTrainingRuntime it runs on (default: the "
     "cluster's, else torch-distributed)"},
    {"runtime-namespaced", OPT_RUNTIME_NS, NULL, NULL,
     "a TrainJob: --runtime names a TrainingRuntime of the namespace"},

    {"out", 'O', "FILE", NULL,
     "write to FILE (atomically) instead of standard output"},
    {"force", OPT_FORCE, NULL, NULL, "replace FILE if it exists"},
    CLI_JOB_OPTS,
    CLI_OLD("fs-uri", OPT_DEFAULT_FS, "URI", "--default-fs"),
    CLI_OPT_END};

struct opts {
	cli_facts f; /* f.target: --to a Kubernetes kind, or the cluster's */
	pai_format to;
	const char *out;
	int force;
};

/* A DNS-1123 subdomain, as Kubernetes names namespaces and queues. */
static int dns_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 253 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '.'))
			return 0;
	return 1;
}

static int k8s_opt(cli_ctx *ctx, int key, const char *arg, struct opts *o)
{
	if (key == OPT_DEFAULT_FS && !strstr(arg, "://"))
		return cli_error(ctx, EXIT_USAGE,
				 "'%s' is not a URI (hdfs://host:port)", arg);
	if ((key == OPT_NAMESPACE || key == OPT_QUEUE || key == OPT_RUNTIME) &&
	    !dns_name(arg))
		return cli_error(ctx, EXIT_USAGE,
				 "'%s' is not a Kubernetes name (lower-case "
				 "letters, digits, '-' and '.')",
				 arg);
	/* a namespace is a DNS label: no dots, at most 63 characters */
	if (key == OPT_NAMESPACE && (strchr(arg, '.') || strlen(arg) > 63))
		return cli_error(ctx, EXIT_USAGE,
				 "'%s' is not a namespace name (lower-case "
				 "letters, digits and '-', at most 63)",
				 arg);
	switch (key) {
	case OPT_NAMESPACE:
		o->f.k8s.ns = arg;
		o->f.given |= CLI_GIVEN_NS;
		return 0;
	case OPT_QUEUE:
		o->f.k8s.queue = arg;
		o->f.given |= CLI_GIVEN_QUEUE;
		return 0;
	case OPT_DEFAULT_FS:
		o->f.k8s.fs_uri = arg;
		o->f.given |= CLI_GIVEN_FS;
		return 0;
	case OPT_RUNTIME: o->f.k8s.runtime = arg; return 0;
	case OPT_RUNTIME_NS: o->f.k8s.runtime_namespaced = 1; return 0;
	}
	return EXIT_USAGE;
}

/* --to: a Kubernetes kind, or v1 or v2 (then not the cluster's
 * engine either). */
static int to_opt(cli_ctx *ctx, const char *arg, struct opts *o)
{
	if (cli_k8s_target(&o->f, arg) == 0)
		return 0;
	cli_no_k8s_target(&o->f);
	if (pai_format_from_name(&o->to, arg) || o->to == PAI_FORMAT_AUTO)
		return cli_error(ctx, EXIT_USAGE,
				 "unknown format '%s' (use v1, v2, volcano, "
				 "paddlejob, jobset, pytorchjob, trainjob or "
				 "mpijob)",
				 arg);
	return 0;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	int st = cli_job_opt(ctx, key, arg, &o->f);

	if (st >= 0)
		return st;
	switch (key) {
	case OPT_TO: return to_opt(ctx, arg, o);
	case 'O': o->out = arg; return 0;
	case OPT_FORCE: o->force = 1; return 0;
	}
	return k8s_opt(ctx, key, arg, o);
}

static int write_out(cli_ctx *ctx, const struct opts *o, const char *text,
		     size_t len)
{
	int err;

	if (!o->out) {
		fwrite(text, 1, len, stdout);
		return EXIT_OK;
	}
	err = pai_file_write_atomic(o->out, text, len, 0666,
				    o->force ? 0 : PAI_WRITE_EXCLUSIVE);
	if (err == PAI_ECONFLICT)
		return cli_error(ctx, EXIT_CONFLICT,
				 "'%s' exists; use --force to replace it",
				 o->out);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot write '%s': %s", o->out,
				 pai_strerror(err));
	return EXIT_OK;
}

static int convert(const struct opts *o, char **res, size_t *rlen,
		   pai_diags *diags, const char *name, const char *text,
		   size_t len)
{
	if (!o->f.target)
		return pai_job_convert(res, rlen, diags, name, text, len,
				       &o->f.job, o->to);
	return pai_job_to_k8s(res, rlen, diags, name, text, len, &o->f.job,
			      &o->f.k8s);
}

int cmd_convert(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {CLI_FACTS_INIT, PAI_FORMAT_AUTO, NULL, 0};
	cli_conn *conn = NULL;
	pai_diags *diags = NULL;
	char *text = NULL, *res = NULL;
	const char *name;
	size_t len = 0, rlen = 0;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (ctx->output == CLI_OUT_JSON)
		return cli_error(ctx, EXIT_USAGE,
				 "-o json is not one of convert's outputs: it "
				 "writes the format --to names (--to v1 is "
				 "JSON)");
	/* the cluster's facts under the flags': on a Kubernetes cluster
	 * its engine is the target */
	if ((st = cli_job_facts(ctx, &o.f, &conn)))
		return st;
	if (o.to == PAI_FORMAT_AUTO && !o.f.target)
		st = cli_error(ctx, EXIT_USAGE,
			       "--to v1, v2, volcano, paddlejob, jobset, "
			       "pytorchjob, trainjob or mpijob is required");
	else if (first >= argc || argc - first > 1)
		st = cli_error(ctx, EXIT_USAGE,
			       "give one job config; try 'paictl convert "
			       "job.json --to v2' ('-' reads standard "
			       "input)");
	if (st)
		goto out;
	name = strcmp(argv[first], "-") == 0 ? "<stdin>" : argv[first];
	if ((st = cli_read_input(ctx, argv[first], &text, &len)))
		goto out;
	if (pai_diags_new(&diags)) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	err = convert(&o, &res, &rlen, diags, name, text, len);
	cli_print_diags(stderr, diags, 0);
	if (err == PAI_ESYNTAX || err == PAI_EINVALID)
		st = EXIT_INVALID;
	else if (err)
		st = cli_error(ctx, cli_exit_status(err), "'%s': %s", name,
			       pai_strerror(err));
	else
		st = write_out(ctx, &o, res, rlen);
out:
	free(res);
	free(text);
	pai_diags_free(diags);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
