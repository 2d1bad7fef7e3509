/* job_file.c - what every command that reads a job config shares: its
 * options (--dialect, --format and --scheduler, parsed in one place) and
 * the chosen cluster's facts beneath them, reading the file, and
 * printing its diagnostics like a compiler */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_sched_from_name(cli_sched *out, const char *name)
{
	static const char *const names[] = {"hived", "volcano", "default"};
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (cli_sched)(CLI_SCHED_HIVED + i);
			return 0;
		}
	return -1;
}

/* --scheduler: HiveD's v2 rules or not, and a Kubernetes target's
 * scheduler (HiveD is none of Kubernetes': Volcano, the default). */
static void set_scheduler(cli_facts *f, cli_sched s)
{
	f->sched = s;
	f->given |= CLI_GIVEN_SCHED;
	f->job.scheduler =
	    s == CLI_SCHED_HIVED ? PAI_SCHEDULER_HIVED : PAI_SCHEDULER_DEFAULT;
	f->k8s.scheduler = s == CLI_SCHED_DEFAULT ? PAI_K8S_SCHED_DEFAULT
						  : PAI_K8S_SCHED_VOLCANO;
}

int cli_job_opt(cli_ctx *ctx, int key, const char *arg, cli_facts *f)
{
	cli_sched s;

	switch (key) {
	case 'd':
		if (pai_dialect_from_name(&f->job.dialect, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown dialect '%s' (use openpai "
					 "or scm)",
					 arg);
		f->given |= CLI_GIVEN_DIALECT;
		return 0;
	case CLI_OPT_FORMAT:
		if (pai_format_from_name(&f->job.format, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown format '%s' (use v1, v2 or "
					 "auto)",
					 arg);
		return 0;
	case CLI_OPT_SCHEDULER:
		if (cli_sched_from_name(&s, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown scheduler '%s' (use hived, "
					 "volcano or default)",
					 arg);
		set_scheduler(f, s);
		return 0;
	}
	return -1;
}

/* kind the target: the pods', whose controller's own variables the
 * commands may use */
static void set_target(cli_facts *f, pai_k8s_kind kind)
{
	f->k8s.kind = kind;
	f->job.k8s_kind = (int)kind;
	f->target = 1;
}

int cli_k8s_target(cli_facts *f, const char *kind)
{
	pai_k8s_kind k;

	if (pai_k8s_kind_from_name(&k, kind))
		return -1;
	set_target(f, k);
	f->given |= CLI_GIVEN_KIND;
	return 0;
}

void cli_no_k8s_target(cli_facts *f)
{
	f->target = 0;
	f->job.k8s_kind = 0;
	f->given |= CLI_GIVEN_KIND;
}

/* A Kubernetes cluster's facts, where the options said nothing: its
 * engine is the target. */
static void k8s_facts(cli_facts *f, const pai_k8s_cluster *k)
{
	if (!(f->given & CLI_GIVEN_KIND))
		set_target(f, k->kind);
	if (!(f->given & CLI_GIVEN_NS))
		f->k8s.ns = k->ns;
	if (!(f->given & CLI_GIVEN_QUEUE))
		f->k8s.queue = k->queue;
	if (!(f->given & CLI_GIVEN_SCHED))
		f->k8s.scheduler = k->scheduler;
	if (!(f->given & CLI_GIVEN_FS))
		f->k8s.fs_uri = k->fs_uri;
	/* a TrainJob's runtime, unless --runtime named one */
	if (!f->k8s.runtime) {
		f->k8s.runtime = k->runtime;
		f->k8s.runtime_namespaced = k->runtime_namespaced;
	}
}

void cli_facts_take(cli_facts *f, cli_conn *conn)
{
	pai_k8s_cluster k;

	if (!(f->given & CLI_GIVEN_DIALECT))
		f->job.dialect = conn->dialect;
	f->k8s.user = conn->user_guessed ? NULL : conn->user;
	/* a Kubernetes cluster's profile (no other has such settings) */
	if (!conn->cfg || pai_config_k8s(&k, conn->cfg, conn->cluster) ||
	    pai_config_k8s_runtime(&k.runtime, &k.runtime_namespaced,
				   conn->cfg, conn->cluster))
		return;
	k.version = PAI_K8S_CLUSTER_VERSION;
	/* and the other way: what submit sends follows the options too
	 * (the profiles conn opens its client from are its own copy);
	 * read again, the strings of the one replaced gone */
	if (f->given & CLI_GIVEN_SCHED) {
		k.scheduler = f->k8s.scheduler;
		if (pai_config_set_k8s(conn->cfg, conn->cluster, &k) ||
		    pai_config_k8s(&k, conn->cfg, conn->cluster) ||
		    pai_config_k8s_runtime(&k.runtime, &k.runtime_namespaced,
					   conn->cfg, conn->cluster))
			return;
	}
	k8s_facts(f, &k);
}

int cli_job_facts(cli_ctx *ctx, cli_facts *f, cli_conn **conn)
{
	int st;

	*conn = NULL;
	if ((st = cli_resolve_profile(ctx, conn)))
		return st;
	cli_facts_take(f, *conn);
	return EXIT_OK;
}

/* The largest job config read, in MiB: far above any real one (bench/
 * validates 50 MiB), low enough that /dev/zero or an endless pipe is
 * refused at once instead of eating all memory. */
#define CONFIG_MAX_MIB 64

int cli_read_input(const cli_ctx *ctx, const char *path, char **out,
		   size_t *len)
{
	const size_t max = (size_t)CONFIG_MAX_MIB << 20;
	int e = 0, err;

	/* standard input as it is: /dev/stdin cannot reopen a socket */
	if (strcmp(path, "-") == 0)
		err = pai_fd_read_max(out, len, &e, STDIN_FILENO, max);
	else
		err = pai_file_read_max(out, len, &e, path, max);
	if (!err)
		return EXIT_OK;
	/* our bound (e is 0), not the system's EFBIG or EOVERFLOW */
	if (err == PAI_ETOOBIG && !e)
		return cli_error(ctx, EXIT_INVALID,
				 "'%s': larger than %d MiB; a job config "
				 "cannot be this big",
				 path, CONFIG_MAX_MIB);
	if (err == PAI_ENOMEM)
		return cli_error(ctx, EXIT_FAILURE_, "'%s': out of memory",
				 path);
	return cli_error(ctx,
			 err == PAI_EIO || err == PAI_ETOOBIG ? EXIT_FAILURE_
							      : EXIT_NOTFOUND,
			 "cannot read '%s': %s", path,
			 e ? strerror(e) : pai_strerror(err));
}

void cli_print_diag(FILE *f, const pai_diag *d)
{
	const char *sev =
	    d->severity == PAI_SEVERITY_ERROR ? "error" : "warning";
	const char *on = cli_color(f) ? cli_sgr(sev) : "";
	const char *off = *on ? CLI_SGR_OFF : "";

	if (d->line)
		fprintf(f, "%s:%u:%u: %s%s%s: ", d->file, d->line, d->column,
			on, sev, off);
	else
		fprintf(f, "%s: %s%s%s: ", d->file, on, sev, off);
	if (*d->path)
		fprintf(f, "%s: ", d->path);
	fprintf(f, "%s [%s]\n", d->message, d->rule);
	if (d->excerpt) {
		const char *p = d->excerpt;
		char pad[200];
		size_t n = 0;
		unsigned col = 1;

		/* keep tabs so that the caret lines up; built first, as
		 * stderr is unbuffered and 50,000 diagnostics add up */
		for (; *p && col < d->excerpt_column && n < sizeof(pad) - 1;
		     p++) {
			if (((unsigned char)*p & 0xC0) == 0x80)
				continue;
			pad[n++] = *p == '\t' ? '\t' : ' ';
			col++;
		}
		pad[n] = '\0';
		fprintf(f, "%6u | %s\n       | %s^\n", d->line, d->excerpt,
			pad);
	}
}

void cli_print_diags(FILE *f, const pai_diags *diags, size_t from)
{
	size_t i, n = pai_diags_count(diags);

	for (i = from; i < n; i++)
		cli_print_diag(f, pai_diags_get(diags, i));
}
