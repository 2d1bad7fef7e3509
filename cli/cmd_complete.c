/* cmd_complete.c - paictl __complete WORDS...: the candidates for the last
 * word, one per line, for the shell completions in completions/.
 *
 * Hidden: not in the usage nor in --help. It must be fast and silent, as
 * the shell calls it at every Tab: stderr goes to /dev/null, stdin comes
 * from /dev/null (nothing can prompt), the cluster is asked with short
 * timeouts and no retries, and the local cluster is never started.
 *
 * Files are the shell's to complete: a line "__files__" (any file) or
 * "__files__:*.json *.yaml *.yml" (files matching one of those globs, and
 * directories) tells the scripts to. */
#include "cli.h"
#include "error.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The subcommands of `paictl cluster`. */
static const char *const cluster_verbs[] = {"add", "list", "remove", "use",
					    NULL};

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void put(const char *prefix, const char *cand, const char *cur)
{
	if (starts(cand, cur))
		printf("%s%s\n", prefix, cand);
}

/* The commands that start with cur, and help. */
static void put_commands(const cli_ctx *ctx, const char *cur)
{
	const cli_cmd *c;

	for (c = ctx->commands; c->name; c++)
		put("", c->name, cur);
	put("", "help", cur);
	put("", "version", cur);
}

/* The option words may name: "--output", "-o", or NULL. */
static const cli_opt *lookup(const cli_opt *opts, const char *word)
{
	const cli_opt *o;

	if (!opts)
		return NULL;
	for (o = opts; o->name; o++) {
		if (word[0] == '-' && word[1] == '-' &&
		    strcmp(word + 2, o->name) == 0)
			return o;
		if (word[0] == '-' && word[1] && word[1] != '-' && !word[2] &&
		    o->key > 0 && o->key < 256 && word[1] == o->key)
			return o;
	}
	return NULL;
}

/* A command's own option wins over a global one, as in cli_parse. */
static const cli_opt *find_opt(const cli_cmd *cmd, const char *word)
{
	const cli_opt *o = cmd ? lookup(cmd->opts, word) : NULL;

	return o ? o : lookup(cli_global_opts, word);
}

static void put_opts(const cli_opt *opts, const cli_opt *own, const char *cur)
{
	const cli_opt *o;
	char buf[80];

	/* old spellings are accepted, never offered */
	for (o = opts; o && o->name; o++) {
		snprintf(buf, sizeof(buf), "--%s", o->name);
		if (cli_opt_old(o) || (own && own != opts && lookup(own, buf)))
			continue;
		put("", buf, cur);
	}
	for (o = opts; o && o->name; o++) {
		if (cli_opt_old(o) || o->key <= 0 || o->key >= 256)
			continue;
		snprintf(buf, sizeof(buf), "-%c", o->key);
		if (own && own != opts && lookup(own, buf))
			continue;
		put("", buf, cur);
	}
}

/* The profiles' names (for --cluster and cluster remove/use), and the
 * built-in local one where none is named so (with_local; not for
 * remove, which refuses it). */
static void put_profiles(cli_ctx *ctx, const char *cur, int with_local)
{
	pai_config *cfg = NULL;
	size_t i, n;

	if (cli_load_config(ctx, &cfg, NULL))
		return;
	if (with_local && !pai_config_find(cfg, "local"))
		put("", "local", cur);
	n = pai_config_count(cfg);
	for (i = 0; i < n; i++) {
		const pai_profile *p = pai_config_get(cfg, i);

		if (p && p->name)
			put("", p->name, cur);
	}
	pai_config_free(cfg);
}

/* The argument of option o: its values, files, or profiles. */
static void put_arg(cli_ctx *ctx, const cli_opt *o, const char *prefix,
		    const char *cur)
{
	if (cli_opt_old(o))
		return; /* its values name what it stands for */
	if (o->values) {
		const char *v = o->values;

		while (*v) {
			size_t len = strcspn(v, "|");
			char buf[64];

			if (len < sizeof(buf)) {
				memcpy(buf, v, len);
				buf[len] = '\0';
				put(prefix, buf, cur);
			}
			v += len + (v[len] == '|');
		}
	} else if (strcmp(o->argname, "FILE") == 0 ||
		   strcmp(o->argname, "PATH") == 0 ||
		   strcmp(o->argname, "DIR") == 0) {
		puts("__files__");
	} else if (strcmp(o->name, "cluster") == 0 && o->key == 'c') {
		put_profiles(ctx, cur, 1);
	}
}

/* Connects to the cluster without starting it, prompting or retrying. */
static cli_conn *open_quietly(cli_ctx *ctx)
{
	cli_conn *conn = NULL;

	ctx->completing = 1;
	if (cli_open(ctx, &conn))
		return NULL;
	return conn;
}

/* Which jobs put_jobs() offers: all, those that have not ended (stop,
 * whose job is one that runs), or those that have (delete). */
enum { JOBS_ALL, JOBS_LIVE, JOBS_ENDED };

static int offered(const pai_job_info *job, int which)
{
	int ended = pai_state_is_final(pai_job_info_state(job));

	return which == JOBS_ALL || (which == JOBS_ENDED) == ended;
}

static void put_jobs(cli_ctx *ctx, const char *cur, int which)
{
	cli_conn *conn = open_quietly(ctx);
	pai_job_list *list = NULL;
	const char *tilde = strchr(cur, '~');
	char *user = NULL;
	size_t i, n;

	if (!conn)
		return;
	if (tilde)
		user = strndup(cur, (size_t)(tilde - cur));
	if (!tilde || user) {
		if (!pai_jobs_list(&list, conn->client,
				   user ? user : conn->user)) {
			n = pai_job_list_count(list);
			for (i = 0; i < n; i++) {
				const pai_job_info *job =
				    pai_job_list_get(list, i);
				const char *name = pai_job_info_name(job);

				if (!name || !offered(job, which))
					continue;
				if (!user)
					put("", name, cur);
				else if (starts(name, tilde + 1))
					printf("%s~%s\n", user, name);
			}
		}
	}
	pai_job_list_free(list);
	free(user);
	cli_conn_free(conn);
}

/* Roles (index < 0) or, for role, the task indices of job ref.  A v1.x
 * cluster reports its own names for roles (ps_server as psserver): those
 * are offered, and the name the user wrote finds the same indices. */
static void put_tasks(cli_ctx *ctx, const char *ref, const char *role,
		      const char *cur)
{
	cli_conn *conn = open_quietly(ctx);
	pai_job_info *info = NULL;
	char *user = NULL, *name = NULL;
	size_t i, j, n;

	if (!conn)
		return;
	if (cli_job_ref(ctx, conn, ref, &user, &name) ||
	    pai_job_get(&info, conn->client, user, name))
		goto out;
	n = pai_job_info_task_count(info);
	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);
		char buf[32];

		if (!t || !t->role)
			continue;
		if (role) {
			if (!pai_job_info_role_is(info, t->role, role))
				continue;
			snprintf(buf, sizeof(buf), "%ld", t->index);
			put("", buf, cur);
			continue;
		}
		/* each role once */
		for (j = 0; j < i; j++) {
			const pai_task_info *u = pai_job_info_task(info, j);

			if (u && u->role && strcmp(u->role, t->role) == 0)
				break;
		}
		if (j == i)
			put("", t->role, cur);
	}
out:
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
}

/* Roles (role NULL) or a role's task indices from the job config at
 * path, for expand FILE ROLE INDEX: read and checked as expand reads it,
 * nothing offered when it is not valid. */
static void put_file_tasks(cli_ctx *ctx, const char *path, const char *role,
			   const char *cur)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	pai_diags *diags = NULL;
	pai_job *job = NULL;
	char *text = NULL, buf[32];
	size_t len = 0, r;
	long long i;
	pai_role ro;

	if (strcmp(path, "-") == 0 || cli_read_input(ctx, path, &text, &len) ||
	    pai_diags_new(&diags) ||
	    pai_job_parse(&job, diags, path, text, len, &jo))
		goto out;
	for (r = 0; r < pai_job_role_count(job); r++) {
		if (pai_job_role(&ro, job, r))
			continue;
		if (!role)
			put("", ro.name, cur);
		else if (strcmp(ro.name, role) == 0)
			for (i = 0; i < ro.task_number; i++) {
				snprintf(buf, sizeof(buf), "%lld", i);
				put("", buf, cur);
			}
	}
out:
	pai_job_free(job);
	pai_diags_free(diags);
	free(text);
}

/* Takes in a global option's value, so that jobs come from the cluster
 * the command line names. */
static void global_value(cli_ctx *ctx, const cli_opt *o, const char *arg)
{
	switch (o->key) {
	case 'c': ctx->cluster = arg; break;
	case 'u': ctx->user = arg; break;
	case CLI_OPT_URI: ctx->uri = arg; break;
	case CLI_OPT_TOKEN_FILE: ctx->token_file = arg; break;
	case CLI_OPT_CONFIG: ctx->config = arg; break;
	case CLI_OPT_CACERT: ctx->cacert = arg; break;
	}
}

static void put_operand(cli_ctx *ctx, const cli_cmd *cmd, char **ops, int nops,
			const char *cur)
{
	const char *n = cmd->name;
	int i;

	if (strcmp(n, "validate") == 0 || strcmp(n, "submit") == 0 ||
	    ((strcmp(n, "expand") == 0 || strcmp(n, "convert") == 0) &&
	     nops == 0)) {
		/* job configs of either format */
		puts("__files__:*.json *.yaml *.yml");
	} else if (strcmp(n, "expand") == 0 && nops < 3) {
		put_file_tasks(ctx, ops[0], nops == 2 ? ops[1] : NULL, cur);
	} else if (strcmp(n, "cluster") == 0) {
		if (nops == 0)
			for (i = 0; cluster_verbs[i]; i++)
				put("", cluster_verbs[i], cur);
		else if (nops == 1 && (strcmp(ops[0], "remove") == 0 ||
				       strcmp(ops[0], "use") == 0))
			put_profiles(ctx, cur, strcmp(ops[0], "use") == 0);
	} else if (strcmp(n, "stop") == 0) {
		if (nops == 0)
			put_jobs(ctx, cur, JOBS_LIVE);
	} else if (strcmp(n, "delete") == 0) {
		put_jobs(ctx, cur, JOBS_ENDED);
	} else if (strcmp(n, "status") == 0 || strcmp(n, "wait") == 0 ||
		   strcmp(n, "ssh-key") == 0 || strcmp(n, "ssh-config") == 0 ||
		   strcmp(n, "web") == 0) {
		if (nops == 0)
			put_jobs(ctx, cur, JOBS_ALL);
	} else if (strcmp(n, "logs") == 0 || strcmp(n, "ssh") == 0) {
		if (nops == 0)
			put_jobs(ctx, cur, JOBS_ALL);
		else if (nops == 1)
			put_tasks(ctx, ops[0], NULL, cur);
		else if (nops == 2)
			put_tasks(ctx, ops[0], ops[1], cur);
	}
}

/* Silent whatever happens, never waiting on the user. */
static void be_silent(void)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (devnull >= 0) {
		dup2(devnull, STDERR_FILENO);
		dup2(devnull, STDIN_FILENO);
		close(devnull);
	}
	unsetenv("PAICTL_PASSWORD");
	/* the shell waits for us: a hung cluster must not hang it */
	signal(SIGALRM, SIG_DFL);
	alarm(3);
}

/* How reading the words before the one completed ended: on to complete
 * it, nothing to offer, or its candidates put already. */
enum { WORDS_READ, NOTHING, PUT };

/* An option among those words, argv[*i]: takes in a global option's
 * value (skipping it when it is the next word). PUT when the word
 * completed is this option's value. */
static int option_word(cli_ctx *ctx, const cli_cmd *cmd, int argc, char **argv,
		       int *i, const char *cur)
{
	const char *w = argv[*i], *eq = strchr(w, '=');
	const cli_opt *o;
	char name[80];

	if (eq && w[1] == '-' && (size_t)(eq - w) < sizeof(name)) {
		memcpy(name, w, (size_t)(eq - w));
		name[eq - w] = '\0';
		o = find_opt(cmd, name);
		if (o && lookup(cli_global_opts, name) == o)
			global_value(ctx, o, eq + 1);
		return WORDS_READ;
	}
	o = find_opt(cmd, w);
	if (o && o->argname && *i + 1 < argc - 1) {
		if (lookup(cli_global_opts, w) == o)
			global_value(ctx, o, argv[*i + 1]);
		(*i)++;
	} else if (o && o->argname) {
		/* the word completed is this option's value */
		put_arg(ctx, o, "", cur);
		return PUT;
	}
	return WORDS_READ;
}

/* The words before the one completed: the command into *cmd, its
 * operands into ops. */
static int read_words(cli_ctx *ctx, int argc, char **argv, const char *cur,
		      const cli_cmd **cmd, char **ops, int *nops)
{
	int i, r;

	for (i = 1; i < argc - 1; i++) {
		const char *w = argv[i];

		if (*cmd && strcmp(w, "--") == 0)
			return NOTHING; /* ssh's remote command follows */
		if (w[0] == '-' && w[1]) {
			r = option_word(ctx, *cmd, argc, argv, &i, cur);
			if (r != WORDS_READ)
				return r;
			continue;
		}
		if (!*cmd) {
			*cmd = cli_find_command(ctx->commands, w);
			if (*cmd)
				continue;
			if (strcmp(w, "help") != 0)
				return NOTHING;
			/* paictl help COMMAND */
			if (i == argc - 2)
				put_commands(ctx, cur);
			return PUT;
		}
		ops[(*nops)++] = argv[i];
	}
	return WORDS_READ;
}

/* cur is "--output=j": the option's values after the "=". */
static void put_option_value(cli_ctx *ctx, const cli_cmd *cmd, const char *cur)
{
	const char *eq = strchr(cur, '=');
	char name[80];
	const cli_opt *o;

	/* room for the name, '=' and the NUL */
	if ((size_t)(eq - cur) + 2 > sizeof(name))
		return;
	memcpy(name, cur, (size_t)(eq - cur));
	name[eq - cur] = '\0';
	o = find_opt(cmd, name);
	if (o && o->argname && o->values) {
		name[eq - cur] = '=';
		name[eq - cur + 1] = '\0';
		put_arg(ctx, o, name, eq + 1);
	}
}

/* The candidates for cur, the word completed. */
static void put_word(cli_ctx *ctx, const cli_cmd *cmd, char **ops, int nops,
		     const char *cur)
{
	if (cur[0] == '-' && cur[1] == '-' && strchr(cur, '=')) {
		put_option_value(ctx, cmd, cur);
	} else if (cur[0] == '-') {
		if (cmd)
			put_opts(cmd->opts, NULL, cur);
		put_opts(cli_global_opts, cmd ? cmd->opts : NULL, cur);
	} else if (!cmd) {
		put_commands(ctx, cur);
	} else {
		put_operand(ctx, cmd, ops, nops, cur);
	}
}

int cmd_complete(cli_ctx *ctx, int argc, char **argv)
{
	const cli_cmd *cmd = NULL;
	const char *cur;
	char **ops;
	int nops = 0, r;

	be_silent();
	ctx->quiet = 1;
	ctx->cmd = "__complete";
	if (argc < 2) /* no word at all: the commands */
		cur = "";
	else
		cur = argv[argc - 1];
	ops = calloc((size_t)argc + 1, sizeof(*ops));
	if (!ops)
		return 0;
	r = read_words(ctx, argc, argv, cur, &cmd, ops, &nops);
	if (r == WORDS_READ)
		put_word(ctx, cmd, ops, nops, cur);
	free(ops);
	return r == NOTHING ? 0 : cli_finish(ctx, 0);
}
