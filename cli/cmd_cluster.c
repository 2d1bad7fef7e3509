/* cmd_cluster.c - paictl cluster add|list|remove|use: the profiles */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_CACERT = 256,
	OPT_INSECURE,
	OPT_API,
	OPT_KUBERNETES,
	OPT_NAMESPACE,
	OPT_CONTEXT,
	OPT_KUBECONFIG,
	OPT_ENGINE,
	OPT_QUEUE,
	OPT_SCHEDULER,
	OPT_DEFAULT_FS,
	OPT_RUNTIME,
	OPT_RUNTIME_NS,
	/* add --slurm's: cluster_add.c */
	OPT_SLURM = CLI_OPT_SLURM_FIRST
};

const cli_opt cli_cluster_opts[] = {
    {"user", 'u', "NAME", NULL, "add: the user to act as on this cluster"},
    {"dialect", 'd', "NAME", "openpai|scm",
     "add: the cluster's job config rules (default openpai)"},
    {"cacert", OPT_CACERT, "FILE", NULL,
     "add: trust the certificates in FILE for HTTPS"},
    {"insecure", OPT_INSECURE, NULL, NULL,
     "add: do not verify the cluster's TLS certificate"},
    {"api", OPT_API, "VERSION", "auto|v1|v2",
     "add: the REST API, v1 (OpenPAI v0.x) or v2 (v1.x); default: ask "
     "the cluster once"},
    {"kubernetes", OPT_KUBERNETES, NULL, NULL,
     "add: a Kubernetes cluster, as its kubeconfig describes it (no URI)"},
    {"namespace", OPT_NAMESPACE, "NS", NULL,
     "add --kubernetes: the jobs' namespace (default: the context's)"},
    {"context", OPT_CONTEXT, "NAME", NULL,
     "add --kubernetes: the kubeconfig's context (default: its current)"},
    {"kubeconfig", OPT_KUBECONFIG, "FILE", NULL,
     "add --kubernetes: this kubeconfig alone (default: $KUBECONFIG, else "
     "~/.kube/config)"},
    {"engine", OPT_ENGINE, "KIND",
     "volcano|paddlejob|jobset|pytorchjob|trainjob|mpijob",
     "add --kubernetes: jobs as Volcano Jobs (the default), PaddleJobs, "
     "JobSets, PyTorchJobs, TrainJobs (Kubeflow Trainer v2) or MPIJobs"},
    {"queue", OPT_QUEUE, "QUEUE", NULL,
     "add --kubernetes: the Volcano queue (default: default), or a "
     "JobSet's or TrainJob's Kueue LocalQueue (default: none)"},
    {"scheduler", OPT_SCHEDULER, "NAME", "volcano|default",
     "add --kubernetes: the cluster's scheduler, volcano (gang "
     "scheduling, the default) or default (Kubernetes')"},
    {"default-fs", OPT_DEFAULT_FS, "URI", NULL,
     "add --kubernetes: the default file system ($PAI_DEFAULT_FS_URI), "
     "e.g. hdfs://namenode:9000"},
    {"runtime", OPT_RUNTIME, "NAME", NULL,
     "add --engine trainjob: the ClusterTrainingRuntime the jobs run on "
     "(default: torch-distributed)"},
    {"runtime-namespaced", OPT_RUNTIME_NS, NULL, NULL,
     "add --engine trainjob: --runtime names a TrainingRuntime of the "
     "namespace"},
    CLI_CLUSTER_SLURM_OPTS,
    CLI_OPT_END};

struct opts {
	pai_profile p;
	pai_k8s_cluster k;
	cli_slurm_add slurm; /* add --slurm's */
	int given;	/* an option of `add` was given */
	int k8s_given;	/* an option of `add --kubernetes` was */
	int kubernetes; /* --kubernetes */
};

/* --scheduler as every command reads it; a Kubernetes cluster's is
 * Volcano or the default one. */
static int k8s_scheduler(cli_ctx *ctx, struct opts *o, const char *arg)
{
	cli_sched s;

	if (cli_sched_from_name(&s, arg))
		return cli_error(ctx, EXIT_USAGE,
				 "unknown scheduler '%s' (use volcano or "
				 "default)",
				 arg);
	if (s == CLI_SCHED_HIVED)
		return cli_error(ctx, EXIT_USAGE,
				 "hived is OpenPAI's scheduler; a Kubernetes "
				 "cluster's is volcano or default");
	o->k.scheduler = s == CLI_SCHED_DEFAULT ? PAI_K8S_SCHED_DEFAULT
						: PAI_K8S_SCHED_VOLCANO;
	return 0;
}

/* The options of `add --kubernetes`: 0, or -1 when key is not one. */
static int k8s_opt(cli_ctx *ctx, struct opts *o, int key, const char *arg)
{
	if (key > OPT_KUBERNETES && key <= OPT_RUNTIME_NS)
		o->k8s_given = 1;
	switch (key) {
	case OPT_KUBERNETES: o->kubernetes = 1; return 0;
	case OPT_NAMESPACE: o->k.ns = arg; return 0;
	case OPT_CONTEXT: o->k.context = arg; return 0;
	case OPT_KUBECONFIG: o->k.kubeconfig = arg; return 0;
	case OPT_QUEUE: o->k.queue = arg; return 0;
	case OPT_DEFAULT_FS: o->k.fs_uri = arg; return 0;
	case OPT_RUNTIME: o->k.runtime = arg; return 0;
	case OPT_RUNTIME_NS: o->k.runtime_namespaced = 1; return 0;
	case OPT_ENGINE:
		if (pai_k8s_kind_from_name(&o->k.kind, arg) == PAI_OK)
			return 0;
		return cli_error(ctx, EXIT_USAGE,
				 "unknown engine '%s' (use volcano, paddlejob, "
				 "jobset, pytorchjob, trainjob or mpijob)",
				 arg);
	case OPT_SCHEDULER: return k8s_scheduler(ctx, o, arg);
	}
	return -1;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	int st;

	o->given = 1;
	if ((st = k8s_opt(ctx, o, key, arg)) >= 0 ||
	    (st = cli_cluster_slurm_opt(ctx, &o->slurm, key, arg)) >= 0)
		return st;
	switch (key) {
	case 'u': o->p.user = arg; return 0;
	case 'd':
		if (pai_dialect_from_name(&o->p.dialect, arg))
			return cli_error(ctx, EXIT_USAGE,
					 "unknown dialect '%s' (use openpai "
					 "or scm)",
					 arg);
		return 0;
	case OPT_CACERT: o->p.ca_file = arg; return 0;
	case OPT_INSECURE: o->p.insecure = 1; return 0;
	case OPT_API:
		if (pai_api_from_name(&o->p.api, arg) ||
		    o->p.api == PAI_API_DUAL)
			return cli_error(ctx, EXIT_USAGE,
					 "unknown API '%s' (use v1, v2 or "
					 "auto)",
					 arg);
		return 0;
	}
	return EXIT_USAGE;
}

static int save(const cli_ctx *ctx, const pai_config *cfg, const char *path)
{
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	int err;

	/* $XDG_CONFIG_HOME/paictl may not exist yet */
	if (slash && slash != dir) {
		*slash = '\0';
		cli_mkdirs(dir);
	}
	free(dir);
	err = pai_config_save(cfg, path);
	if (err)
		return cli_error(
		    ctx,
		    cli_exit_status(err) == EXIT_AUTH ? EXIT_AUTH
						      : EXIT_FAILURE_,
		    "cannot write '%s': %s", path, pai_strerror(err));
	return EXIT_OK;
}

/* One profile's row of the table, and its JSON in arr. */
static void put_row(const char **row, json_t *arr, const pai_config *cfg,
		    const pai_profile *p, int is_cur, int builtin)
{
	json_t *o, *settings;
	const char *key;

	row[0] = is_cur ? "*" : "";
	row[1] = p->name;
	/* a Kubernetes cluster is where its kubeconfig says */
	row[2] = p->uri ? p->uri : "(kubeconfig)";
	row[3] = p->user ? p->user : "-";
	row[4] = pai_dialect_name(p->dialect);
	row[5] = pai_api_name(p->api);
	o = json_pack("{s:s,s:s?,s:s?,s:s,s:s?,s:b,s:s,s:b,s:b}", "name",
		      p->name, "uri", p->uri, "user", p->user, "dialect",
		      pai_dialect_name(p->dialect), "caFile", p->ca_file,
		      "insecure", p->insecure, "api", pai_api_name(p->api),
		      "current", is_cur, "builtin", builtin);
	/* what the profile's engine keeps beside (its kubeconfig, its
	 * Slurm settings), under the engine's key */
	settings = pai_config_settings(&key, cfg, p->name);
	if (o && settings)
		json_object_set_new(o, key, settings);
	else
		json_decref(settings);
	json_array_append_new(arr, o);
}

static int list(const cli_ctx *ctx, const pai_config *cfg)
{
	const char *cur = pai_config_current(cfg);
	size_t n = pai_config_count(cfg), i, rows = 1;
	const char **cells = calloc((n + 2) * 6, sizeof(*cells));
	char *state = cli_state_dir(), *local_uri = NULL;
	int st = EXIT_OK;
	json_t *arr = json_array();

	if (!cur)
		cur = "local";
	if (state && asprintf(&local_uri, "unix:%s/local/api.sock", state) < 0)
		local_uri = NULL;
	if (!cells || !arr || !local_uri) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	cells[0] = "CURRENT";
	cells[1] = "NAME";
	cells[2] = "URI";
	cells[3] = "USER";
	cells[4] = "DIALECT";
	cells[5] = "API";
	if (!pai_config_find(cfg, "local")) {
		/* the profile that needs no configuration */
		pai_profile local;

		memset(&local, 0, sizeof(local));
		local.name = "local";
		local.uri = local_uri;
		local.dialect = PAI_DIALECT_OPENPAI;
		local.api = PAI_API_DUAL;
		put_row(cells + 6 * rows++, arr, cfg, &local,
			strcmp(cur, "local") == 0, 1);
	}
	for (i = 0; i < n; i++) {
		const pai_profile *p = pai_config_get(cfg, i);

		put_row(cells + 6 * rows++, arr, cfg, p,
			strcmp(cur, p->name) == 0, 0);
	}
	if (ctx->output == CLI_OUT_JSON) {
		if (cli_print_json(json_incref(arr)) < 0)
			st = EXIT_FAILURE_;
	} else
		cli_table_print(stdout, 6, rows, cells);
out:
	json_decref(arr);
	free(cells);
	free(state);
	free(local_uri);
	return st;
}

/* The subcommand and its count of operands; 0 or the usage status. */
static int check_operands(const cli_ctx *ctx, const struct opts *o,
			  const char *sub, int nargs)
{
	int st;

	if (strcmp(sub, "add") == 0 && o->slurm.url) {
		if ((st = cli_cluster_slurm_check(ctx, &o->slurm, nargs)))
			return st;
		if (o->kubernetes || o->k8s_given || o->p.api != PAI_API_AUTO)
			return cli_error(ctx, EXIT_USAGE,
					 "--slurm is a cluster of its own: "
					 "not with --kubernetes, its options, "
					 "or --api");
	} else if (strcmp(sub, "add") == 0 && o->kubernetes) {
		if (nargs != 1)
			return cli_error(ctx, EXIT_USAGE,
					 "usage: paictl cluster add NAME "
					 "--kubernetes [--namespace NS] "
					 "[--context C] [--kubeconfig F] "
					 "[--engine E] [--queue Q] "
					 "[--scheduler S] [--default-fs URI] "
					 "[--runtime NAME "
					 "[--runtime-namespaced]]");
		if ((o->k.runtime || o->k.runtime_namespaced) &&
		    o->k.kind != PAI_K8S_TRAINJOB)
			return cli_error(ctx, EXIT_USAGE,
					 "--runtime and --runtime-namespaced "
					 "go with --engine trainjob");
		if (o->k.runtime_namespaced && !o->k.runtime)
			return cli_error(ctx, EXIT_USAGE,
					 "--runtime-namespaced names no "
					 "runtime: give --runtime NAME (a "
					 "TrainingRuntime of the namespace)");
		if (o->p.ca_file || o->p.insecure || o->p.api != PAI_API_AUTO)
			return cli_error(ctx, EXIT_USAGE,
					 "--cacert, --insecure and --api are "
					 "not for a Kubernetes cluster: its "
					 "kubeconfig says how to connect");
	} else if (strcmp(sub, "add") == 0) {
		if (nargs != 2)
			return cli_error(ctx, EXIT_USAGE,
					 "usage: paictl cluster add NAME URI "
					 "[--user U] [--dialect D] [--cacert "
					 "F] [--insecure] [--api V]");
		if (o->k8s_given)
			return cli_error(
			    ctx, EXIT_USAGE,
			    "--namespace, --context, --kubeconfig, "
			    "--engine, --queue, --scheduler, "
			    "--default-fs and --runtime go with "
			    "--kubernetes");
		if ((st = cli_cluster_slurm_check(ctx, &o->slurm, -1)))
			return st;
	} else if (strcmp(sub, "list") == 0) {
		if (nargs != 0)
			return cli_error(ctx, EXIT_USAGE,
					 "usage: paictl cluster list");
	} else if (strcmp(sub, "remove") == 0 || strcmp(sub, "use") == 0) {
		if (nargs != 1)
			return cli_error(ctx, EXIT_USAGE,
					 "usage: paictl cluster %s NAME", sub);
	} else
		return cli_error(ctx, EXIT_USAGE,
				 "unknown subcommand '%s'; use add, list, "
				 "remove or use",
				 sub);
	if (o->given && strcmp(sub, "add") != 0)
		return cli_error(ctx, EXIT_USAGE,
				 "--user, --dialect, --cacert, --insecure, "
				 "--api and --kubernetes go with 'cluster "
				 "add'");
	return 0;
}

/* cluster add NAME --kubernetes: the profile and what its options say;
 * a relative --kubeconfig made absolute (*abs, caller frees). */
static int add_k8s(const cli_ctx *ctx, pai_config *cfg, struct opts *o,
		   const char *name, char **abs)
{
	int err;

	if (o->k.kubeconfig && o->k.kubeconfig[0] != '/') {
		if (!(*abs = realpath(o->k.kubeconfig, NULL)))
			return cli_error(ctx, EXIT_NOTFOUND,
					 "cannot use --kubeconfig '%s': %s",
					 o->k.kubeconfig, strerror(errno));
		o->k.kubeconfig = *abs;
	}
	o->p.name = name;
	o->p.uri = NULL;
	o->p.api = PAI_API_K8S;
	err = pai_config_set(cfg, &o->p);
	if (!err)
		err = pai_config_set_k8s(cfg, name, &o->k);
	if (err == PAI_EINVAL)
		return cli_error(ctx, EXIT_USAGE,
				 "invalid cluster name '%s', --namespace, "
				 "--queue (Kubernetes names: lower-case "
				 "letters, digits, '-'; a queue and a "
				 "--runtime also '.') or --default-fs (a URI: "
				 "hdfs://host:port)",
				 name);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot add '%s': %s", name,
				 pai_strerror(err));
	return EXIT_OK;
}

/* What pai_config_set() refused of cluster add NAME URI: the name
 * alone, as the same profile with a URI it takes shows, or the URI,
 * saying what is wrong with it. */
static int bad_name_or_uri(const cli_ctx *ctx, pai_config *cfg,
			   struct opts *o, const char *name, const char *uri)
{
	const char *sep = strstr(uri, "://");

	o->p.uri = "https://example.com";
	if (pai_config_set(cfg, &o->p) == PAI_EINVAL)
		return cli_error(ctx, EXIT_USAGE,
				 "invalid cluster name '%s' (letters, digits, "
				 "'-', '_' and '.')",
				 name);
	pai_config_remove(cfg, name);
	if (!sep)
		return cli_error(ctx, EXIT_USAGE,
				 "'%s' is not a URI: give its scheme, as in "
				 "'https://%s' (http:// or https://)",
				 uri, uri);
	if (strncmp(uri, "http://", 7) != 0 && strncmp(uri, "https://", 8) != 0)
		return cli_error(ctx, EXIT_USAGE,
				 "'%s' is not an http:// or https:// URI",
				 uri);
	return cli_error(ctx, EXIT_USAGE,
			 "'%s' is not a URI paictl can use (http:// or "
			 "https://, a host, then an optional port and path)",
			 uri);
}

/* cluster add NAME URI: o->p as the options gave it. *ca: the absolute
 * path of a relative --cacert or --kubeconfig (caller frees). */
static int add(const cli_ctx *ctx, pai_config *cfg, struct opts *o,
	       const char *name, const char *uri, char **ca)
{
	int err;

	if (strcmp(name, "local") == 0)
		return cli_error(ctx, EXIT_USAGE,
				 "'local' is the built-in local cluster; "
				 "choose another name");
	if (pai_config_find(cfg, name))
		return cli_error(ctx, EXIT_CONFLICT,
				 "cluster '%s' exists already; remove "
				 "it first",
				 name);
	if (o->kubernetes)
		return add_k8s(ctx, cfg, o, name, ca);
	if (o->slurm.url)
		return cli_cluster_slurm_add(ctx, cfg, &o->p, &o->slurm, name);
	o->p.name = name;
	o->p.uri = uri;
	/* the profile is used from anywhere: no relative CA file */
	if (o->p.ca_file && o->p.ca_file[0] != '/') {
		*ca = realpath(o->p.ca_file, NULL);
		if (!*ca)
			return cli_error(ctx, EXIT_NOTFOUND,
					 "cannot use --cacert '%s': %s",
					 o->p.ca_file, strerror(errno));
		o->p.ca_file = *ca;
	}
	err = pai_config_set(cfg, &o->p);
	if (err == PAI_EINVAL)
		return bad_name_or_uri(ctx, cfg, o, name, uri);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot add '%s' ('%s'): out of memory", name,
				 o->p.uri);
	return EXIT_OK;
}

static int remove_profile(const cli_ctx *ctx, pai_config *cfg, const char *name)
{
	int err;

	if (strcmp(name, "local") == 0 && !pai_config_find(cfg, name))
		return cli_error(ctx, EXIT_USAGE,
				 "'local' is built in; it cannot be "
				 "removed");
	err = pai_config_remove(cfg, name);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "no cluster named '%s'", name);
	return EXIT_OK;
}

static int use(const cli_ctx *ctx, pai_config *cfg, const char *name)
{
	/* the built-in local cluster is the current one when none is */
	int builtin = strcmp(name, "local") == 0 && !pai_config_find(cfg, name);
	int err;

	if (strcmp(name, "local") != 0 && !pai_config_find(cfg, name))
		return cli_error(ctx, EXIT_NOTFOUND,
				 "no cluster named '%s'; see 'paictl "
				 "cluster list'",
				 name);
	err = pai_config_set_current(cfg, builtin ? NULL : name);
	if (err)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot use '%s': %s", name,
				 pai_strerror(err));
	return EXIT_OK;
}

int cmd_cluster(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o;
	pai_config *cfg = NULL;
	char *path = NULL, *ca = NULL;
	const char *sub, *name;
	int first, st, nargs;

	memset(&o, 0, sizeof(o));
	o.p.dialect = PAI_DIALECT_OPENPAI;
	o.k = (pai_k8s_cluster)PAI_K8S_CLUSTER_INIT;
	o.slurm.s = (pai_slurm_cluster)PAI_SLURM_CLUSTER_INIT;
	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (first >= argc)
		return cli_error(ctx, EXIT_USAGE,
				 "no subcommand; use 'paictl cluster add NAME "
				 "URI', 'list', 'remove NAME' or 'use NAME'");
	sub = argv[first];
	nargs = argc - first - 1;
	name = nargs > 0 ? argv[first + 1] : NULL;
	st = check_operands(ctx, &o, sub, nargs);
	if (st)
		return st;
	st = cli_load_config(ctx, &cfg, &path);
	if (st)
		return st;
	if (strcmp(sub, "list") == 0)
		st = list(ctx, cfg);
	else if (strcmp(sub, "add") == 0)
		st = add(ctx, cfg, &o, name, nargs > 1 ? argv[first + 2] : NULL,
			 &ca);
	else if (strcmp(sub, "remove") == 0)
		st = remove_profile(ctx, cfg, name);
	else
		st = use(ctx, cfg, name);
	/* list changes nothing */
	if (!st && strcmp(sub, "list") != 0)
		st = save(ctx, cfg, path);
	/* a profile is checked once saved, as its engine can (a kubeconfig
	 * read, a login node logged in to); one that fails is not kept */
	if (!st && strcmp(sub, "add") == 0 &&
	    (st = cli_cluster_probe(ctx, name)) &&
	    !pai_config_remove(cfg, name))
		save(ctx, cfg, path);
	pai_config_free(cfg);
	free(path);
	free(ca);
	free(o.slurm.abs[0]);
	free(o.slurm.abs[1]);
	return cli_finish(ctx, st);
}
