/* cmd_expand.c - paictl expand: each task's environment and command, as
 * the cluster will give them, without submitting anything */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_DEFAULT_FS = 256, OPT_TARGET };

const cli_opt cli_expand_opts[] = {
    {"default-fs", OPT_DEFAULT_FS, "URI", NULL,
     "the cluster's default file system, for $PAI_DEFAULT_FS_URI (e.g. "
     "hdfs://namenode:9000)"},
    {"target", OPT_TARGET, "KIND",
     "volcano|paddlejob|jobset|pytorchjob|trainjob|mpijob|slurm",
     "each task as the pod of 'paictl convert --to KIND' sees it, or as "
     "a Slurm job's task"},
    CLI_JOB_OPTS,
    CLI_OLD("fs-uri", OPT_DEFAULT_FS, "URI", "--default-fs"),
    CLI_OLD("role", 'r', "ROLE", "ROLE"),
    CLI_OLD("index", 'i', "INDEX", "INDEX"),
    CLI_OPT_END};

struct opts {
	cli_facts f; /* f.target: each task as its pod (--target) */
	const char *role;
	long long index;     /* -1: every index */
	int slurm;	     /* --target slurm, or a Slurm cluster's profile */
	const char *workdir; /* a Slurm profile's; NULL: "<workdir>" */
};

/* A task's INDEX: a number from 0. */
static int task_index(cli_ctx *ctx, const char *arg, long long *index)
{
	char *end;

	errno = 0;
	*index = strtoll(arg, &end, 10);
	if (!*arg || *end || errno || *index < 0 ||
	    !(*arg >= '0' && *arg <= '9'))
		return cli_error(ctx, EXIT_USAGE,
				 "invalid task index '%s' (0, 1, ...)", arg);
	return 0;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	int st = cli_job_opt(ctx, key, arg, &o->f);

	if (st >= 0)
		return st;
	switch (key) {
	case OPT_DEFAULT_FS:
		o->f.k8s.fs_uri = *arg ? arg : NULL;
		o->f.given |= CLI_GIVEN_FS;
		return 0;
	case OPT_TARGET:
		o->slurm = strcmp(arg, "slurm") == 0;
		if (o->slurm)
			cli_no_k8s_target(&o->f);
		else if (cli_k8s_target(&o->f, arg) < 0)
			return cli_error(
			    ctx, EXIT_USAGE,
			    "unknown target '%s' (use volcano, "
			    "paddlejob, jobset, pytorchjob, trainjob, "
			    "mpijob or slurm)",
			    arg);
		return 0;
	case 'r': o->role = arg; return 0;
	case 'i': return task_index(ctx, arg, &o->index);
	}
	return EXIT_USAGE;
}

/* The operands FILE [ROLE [INDEX]] (ROLE and INDEX also as the old
 * -r/--role and -i/--index): 0, or the usage status after saying
 * why. */
static int operands(cli_ctx *ctx, int argc, char **argv, int first,
		    struct opts *o)
{
	int n = argc - first;

	if (n < 1)
		return cli_error(ctx, EXIT_USAGE,
				 "no job config given; try 'paictl expand "
				 "job.json' ('-' reads standard input)");
	if (n > 3)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; one job config at "
				 "a time, then ROLE and INDEX",
				 argv[first + 3]);
	if (n > 1 && o->role)
		return cli_error(ctx, EXIT_USAGE,
				 "the role is given twice: '%s' and -r '%s'",
				 argv[first + 1], o->role);
	if (n > 2 && o->index >= 0)
		return cli_error(ctx, EXIT_USAGE,
				 "the index is given twice: '%s' and -i %lld",
				 argv[first + 2], o->index);
	if (n > 1)
		o->role = argv[first + 1];
	return n > 2 ? task_index(ctx, argv[first + 2], &o->index) : 0;
}

/* A value on one line: verbatim, or in bash's $'...' form when it holds
 * control characters, which would break the one-variable-a-line layout. */
static void print_value(FILE *f, const char *v)
{
	const unsigned char *p;

	for (p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7F)
			break;
	if (!*p) {
		fputs(v, f);
		return;
	}
	fputs("$'", f);
	for (p = (const unsigned char *)v; *p; p++) {
		switch (*p) {
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\'': fputs("\\'", f); break;
		default:
			if (*p < 0x20 || *p == 0x7F)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('\'', f);
}

static void print_header(const pai_job *job, const char *user,
			 const pai_dirs *dirs)
{
	const char *names[] = {"authFile", "dataDir", "outputDir", "codeDir"};
	const char *vals[] = {pai_dirs_auth_file(dirs), pai_dirs_data_dir(dirs),
			      pai_dirs_output_dir(dirs),
			      pai_dirs_code_dir(dirs)};
	size_t k;

	printf("jobName: %s\nuser: %s\n", pai_job_name(job), user);
	for (k = 0; k < 4; k++) {
		printf("%s:", names[k]);
		if (*vals[k]) {
			putchar(' ');
			print_value(stdout, vals[k]);
		}
		putchar('\n');
	}
}

/* The v1.x header: a protocol-v2 job has no directories; its virtual
 * cluster and parameters are what its commands are rendered with. The
 * secrets are never shown. */
static const char *v2_vc(const pai_job *job)
{
	json_t *d = json_object_get(pai_job_config(job), "defaults");
	const char *vc =
	    json_string_value(json_object_get(d, "virtualCluster"));

	return vc ? vc : "default";
}

static void print_param(json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		print_value(stdout, json_string_value(v));
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	fputs(s ? s : "", stdout);
	free(s);
}

static void print_header_v2(const pai_job *job, const char *user)
{
	json_t *params = json_object_get(pai_job_config(job), "parameters");
	const char *key;
	json_t *v;

	printf("jobName: %s\nuser: %s\nvirtualCluster: %s\nparameters:\n",
	       pai_job_name(job), user, v2_vc(job));
	if (!json_is_object(params))
		return;
	json_object_foreach(params, key, v)
	{
		fputs("  ", stdout);
		print_value(stdout, key);
		fputs(": ", stdout);
		print_param(v);
		putchar('\n');
	}
}

static json_t *head_json(const pai_job *job, const char *user,
			 const pai_dirs *dirs)
{
	json_t *params = json_object_get(pai_job_config(job), "parameters");

	if (pai_job_format(job) == PAI_FORMAT_V2)
		return json_pack("{s:s, s:s, s:s, s:o}", "jobName",
				 pai_job_name(job), "user", user,
				 "virtualCluster", v2_vc(job), "parameters",
				 json_is_object(params) ? json_incref(params)
							: json_object());
	return json_pack(
	    "{s:s, s:s, s:{s:s, s:s, s:s, s:s}}", "jobName", pai_job_name(job),
	    "user", user, "dirs", "authFile", pai_dirs_auth_file(dirs),
	    "dataDir", pai_dirs_data_dir(dirs), "outputDir",
	    pai_dirs_output_dir(dirs), "codeDir", pai_dirs_code_dir(dirs));
}

/* The variables of env that its pod's controller sets (controller 1),
 * or the others, each on a line after indent. */
static void print_vars(const pai_env *env, int controller, const char *indent)
{
	size_t i;

	for (i = 0; i < pai_env_count(env); i++) {
		if (pai_env_by_controller(env, i) != controller)
			continue;
		printf("%s%s=", indent, pai_env_name(env, i));
		print_value(stdout, pai_env_value(env, i));
		putchar('\n');
	}
}

/* A task: its variables, then (for --target) those its pod's controller
 * sets, apart and indented, since paictl does not set them, then its
 * command. */
static void print_task(const pai_role *ro, size_t index, const pai_env *env,
		       const struct opts *o)
{
	const char *c = pai_env_command(env);

	printf("\n== %s-%zu (role %s, index %zu of %lld)\n", ro->name, index,
	       ro->name, index, ro->task_number);
	print_vars(env, 0, "");
	if (o->f.target) {
		printf("set by the %s controller:\n",
		       pai_k8s_kind_name(o->f.k8s.kind));
		print_vars(env, 1, "  ");
	}
	/* the command indented, so that its lines cannot pass for ours */
	fputs("command:\n  ", stdout);
	for (; *c; c++) {
		putchar(*c);
		if (*c == '\n' && c[1])
			fputs("  ", stdout);
	}
	putchar('\n');
}

/* The variables of env that its pod's controller sets (controller 1),
 * or the others, as a new object; NULL when out of memory. */
static json_t *vars_json(const pai_env *env, int controller)
{
	json_t *e = json_object();
	size_t i;

	for (i = 0; e && i < pai_env_count(env); i++)
		if (pai_env_by_controller(env, i) == controller &&
		    json_object_set_new(e, pai_env_name(env, i),
					json_string(pai_env_value(env, i))) <
			0) {
			json_decref(e);
			e = NULL;
		}
	return e;
}

/* A task as JSON; for --target, "controllerEnv" holds what its pod's
 * controller sets. */
static json_t *task_json(const pai_role *ro, size_t index, const pai_env *env,
			 const struct opts *o)
{
	json_t *t = NULL, *e = vars_json(env, 0), *own = NULL;

	if (!e || (o->f.target && !(own = vars_json(env, 1))))
		goto out;
	t = json_pack("{s:s, s:I, s:o, s:s}", "role", ro->name, "index",
		      (json_int_t)index, "env", e, "command",
		      pai_env_command(env));
	e = NULL; /* json_pack's "o" took it, even on failure */
	if (t && own && json_object_set_new(t, "controllerEnv", own) < 0) {
		json_decref(t);
		t = NULL;
	}
	own = NULL; /* json_object_set_new() took it, even on failure */
out:
	json_decref(e);
	json_decref(own);
	return t;
}

static int no_role(const cli_ctx *ctx, const pai_job *job, const char *file,
		   const char *role)
{
	size_t r, n = pai_job_role_count(job);
	pai_role ro;

	fflush(stdout);
	fprintf(stderr,
		"paictl: %s: no task role '%s' in '%s'; its roles: ", ctx->cmd,
		role, file);
	for (r = 0; r < n; r++)
		if (pai_job_role(&ro, job, r) == PAI_OK)
			fprintf(stderr, "%s%s", r ? ", " : "", ro.name);
	fputc('\n', stderr);
	return EXIT_NOTFOUND;
}

/* Prints v, pretty, with every line after the first indented by `indent`
 * spaces: JSON output is written a task at a time, since the environments
 * of a large job do not fit in memory together (every task of a job with
 * 4,000 tasks has some 40,000 variables). */
static int dump_indented(json_t *v, int indent)
{
	char *s = json_dumps(v, JSON_INDENT(2)), *p;

	if (!s)
		return -1;
	for (p = s; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			printf("%*s", indent, "");
	}
	free(s);
	return 0;
}

/* Whether some selected task has the index asked for, before anything is
 * printed. */
static bool index_exists(const pai_job *job, long sel, long long index)
{
	size_t r, n = pai_job_role_count(job);
	pai_role ro;

	for (r = 0; r < n; r++)
		if ((sel < 0 || r == (size_t)sel) &&
		    pai_job_role(&ro, job, r) == PAI_OK &&
		    (index < 0 || index < ro.task_number))
			return true;
	return false;
}

/* The role and index asked for, checked before anything is printed:
 * EXIT_OK and *sel (-1: every role), or an exit status after a message. */
static int select_tasks(cli_ctx *ctx, const pai_job *job, const char *file,
			const struct opts *o, long *sel)
{
	pai_role ro;

	*sel = -1;
	if (o->role && (*sel = pai_job_role_index(job, o->role)) < 0)
		return no_role(ctx, job, file, o->role);
	if (*sel >= 0 && o->index >= 0 &&
	    pai_job_role(&ro, job, (size_t)*sel) == PAI_OK &&
	    o->index >= ro.task_number)
		return cli_error(ctx, EXIT_NOTFOUND,
				 "role '%s' has %lld task%s; there is no "
				 "index %lld",
				 ro.name, ro.task_number,
				 ro.task_number == 1 ? "" : "s", o->index);
	if (!index_exists(job, *sel, o->index))
		return cli_error(ctx, EXIT_NOTFOUND,
				 "no task of '%s' has index %lld", file,
				 o->index);
	return EXIT_OK;
}

/* The job's lines before its tasks; for JSON, the object's start (its
 * "tasks" follow). *head is set for JSON output. */
static int print_head(const cli_ctx *ctx, const pai_job *job,
		      const pai_expand_options *eo, pai_dirs *dirs,
		      json_t **head)
{
	const char *user = eo->user ? eo->user : "<user>";
	char *hs;

	*head = NULL;
	if (ctx->output != CLI_OUT_JSON) {
		if (pai_job_format(job) == PAI_FORMAT_V2)
			print_header_v2(job, user);
		else
			print_header(job, user, dirs);
		return PAI_OK;
	}
	/* {"jobName": ..., "dirs": {...}, then "tasks": [ and each task:
	 * the header is printed without its closing "\n}" */
	if (!(*head = head_json(job, user, dirs)) ||
	    !(hs = json_dumps(*head, JSON_INDENT(2))))
		return PAI_ENOMEM;
	fwrite(hs, 1, strlen(hs) - 2, stdout);
	free(hs);
	return PAI_OK;
}

/* Task i of role r, as its environment (for --target: its pod's). */
static int show_task(const pai_job *job, size_t r, size_t i,
		     const struct opts *o, const pai_expand_options *eo,
		     int json, size_t shown)
{
	pai_env *env = NULL;
	json_t *t = NULL;
	pai_role ro;
	int err;

	if ((err = pai_job_role(&ro, job, r)))
		return err;
	err = o->f.target ? pai_k8s_expand_task(&env, job, r, i, &o->f.k8s)
	      : o->slurm
		  ? pai_slurm_expand_task(&env, job, r, i, eo->user, o->workdir)
		  : pai_expand_task(&env, job, r, i, eo);
	if (!err && json) {
		err = (t = task_json(&ro, i, env, o)) ? PAI_OK : PAI_ENOMEM;
		if (!err)
			fputs(shown ? ",\n    " : ",\n  \"tasks\": [\n    ",
			      stdout);
		if (!err && dump_indented(t, 4) < 0)
			err = PAI_ENOMEM;
	} else if (!err) {
		print_task(&ro, i, env, o);
	}
	json_decref(t);
	pai_env_free(env);
	return err;
}

/* Expands and prints the selected tasks; returns an exit status. */
static int show(cli_ctx *ctx, const pai_job *job, const char *file,
		const struct opts *o, const pai_expand_options *eo)
{
	size_t r, i, n = pai_job_role_count(job), shown = 0;
	long sel;
	json_t *head = NULL;
	pai_dirs *dirs = NULL;
	pai_role ro;
	int err = PAI_OK, status = select_tasks(ctx, job, file, o, &sel);

	if (status)
		return status;
	if (pai_job_format(job) != PAI_FORMAT_V2)
		err = pai_expand_dirs(&dirs, job, eo);
	if (!err)
		err = print_head(ctx, job, eo, dirs, &head);
	for (r = 0; !err && r < n; r++) {
		if ((sel >= 0 && r != (size_t)sel) ||
		    pai_job_role(&ro, job, r) != PAI_OK)
			continue;
		for (i = 0;
		     !err && ro.task_number > 0 && i < (size_t)ro.task_number;
		     i++)
			if (o->index < 0 || i == (size_t)o->index)
				if (!(err = show_task(job, r, i, o, eo,
						      head != NULL, shown)))
					shown++;
	}
	if (!err && head)
		fputs(shown ? "\n  ]\n}\n" : ",\n  \"tasks\": []\n}\n", stdout);
	if (err == PAI_ETOOBIG)
		status =
		    cli_error(ctx, EXIT_FAILURE_,
			      "'%s': too many tasks and ports to expand", file);
	else if (err)
		status = cli_error(ctx, cli_exit_status(err), "'%s': %s", file,
				   pai_strerror(err));
	pai_dirs_free(dirs);
	json_decref(head);
	return status;
}

/* --target: what the conversion says of the job replaces what the
 * parse did (it parses too); PAI_EINVALID when it would convert
 * nothing. */
static int k8s_diags(struct opts *o, pai_diags **diags, const char *name,
		     const char *text, size_t len)
{
	pai_diags *d = NULL;
	char *res = NULL;
	int err;

	if ((err = pai_diags_new(&d)))
		return err;
	err = pai_job_to_k8s(&res, NULL, d, name, text, len, &o->f.job,
			     &o->f.k8s);
	free(res);
	pai_diags_free(*diags);
	*diags = d;
	return err;
}

static int expand_file(cli_ctx *ctx, const char *path, struct opts *op);

int cmd_expand(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {CLI_FACTS_INIT, NULL, -1, 0, NULL};
	pai_slurm_cluster s;
	cli_conn *conn = NULL;
	int first, st;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if ((st = operands(ctx, argc, argv, first, &o)))
		return st;
	/* the chosen cluster's facts; on a Kubernetes cluster, the pods as
	 * submit makes them, on a Slurm cluster its batch jobs' tasks */
	if ((st = cli_job_facts(ctx, &o.f, &conn)))
		return st;
	if (conn->cfg && !(o.f.given & CLI_GIVEN_KIND) &&
	    pai_config_slurm(&s, conn->cfg, conn->cluster) == PAI_OK) {
		o.slurm = 1;
		o.workdir = s.workdir;
	}
	st = expand_file(ctx, argv[first], &o);
	cli_conn_free(conn);
	return st;
}

/* cmd_expand() once the options are read. */
static int expand_file(cli_ctx *ctx, const char *path, struct opts *op)
{
	struct opts o = *op;
	pai_expand_options eo = PAI_EXPAND_OPTIONS_INIT;
	pai_diags *diags = NULL;
	pai_job *job = NULL;
	const char *name;
	char *text = NULL;
	size_t len = 0;
	int st, err;

	name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	st = cli_read_input(ctx, path, &text, &len);
	if (st)
		return st;
	if (pai_diags_new(&diags)) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	err = pai_job_parse(&job, diags, name, text, len, &o.f.job);
	if (!err && o.f.target)
		err = k8s_diags(&o, &diags, name, text, len);
	if (err == PAI_ENOMEM) {
		st = cli_error(ctx, EXIT_FAILURE_, "'%s': out of memory", name);
		goto out;
	}
	/* errors always show; the warnings (references no task will have,
	 * among others) unless --quiet */
	if (err || !ctx->quiet)
		cli_print_diags(stderr, diags, 0);
	if (err) {
		st = cli_exit_status(err);
		goto out;
	}
	eo.user = o.f.k8s.user;
	eo.fs_uri = o.f.k8s.fs_uri;
	st = show(ctx, job, name, &o, &eo);
out:
	pai_job_free(job);
	pai_diags_free(diags);
	free(text);
	return cli_finish(ctx, st);
}
