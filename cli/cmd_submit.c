/* cmd_submit.c - paictl submit: validate, then send job configs, several
 * in flight (pai_submit_batch()), their names printed in the order
 * given */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	OPT_NAME = 256,
	OPT_ENV,
	OPT_UNIQUE,
	OPT_DRY_RUN,
	OPT_WAIT,
	OPT_NO_VALIDATE,
	OPT_SKIP_EXISTING,
	OPT_NO_SSH_KEY,
	OPT_TIMEOUT
};

const cli_opt cli_submit_opts[] = {
    {"name", OPT_NAME, "NAME", NULL,
     "submit under NAME instead of the config's jobName (one file)"},
    {"env", OPT_ENV, "KEY=VALUE", NULL,
     "set jobEnvs (v2: parameters) KEY to VALUE (as many as needed)"},
    {"unique", OPT_UNIQUE, NULL, NULL,
     "append a short time-based suffix to the job name"},
    {"dry-run", OPT_DRY_RUN, NULL, NULL,
     "print the requests (token masked) and send nothing"},
    {"wait", OPT_WAIT, NULL, NULL,
     "wait for the jobs to end: exit 0 when all succeeded, 9 otherwise"},
    {"timeout", OPT_TIMEOUT, "SECONDS", NULL,
     "with --wait: give up after SECONDS (exit 8), the jobs going on"},
    {"no-validate", OPT_NO_VALIDATE, NULL, NULL,
     "leave the checks to the cluster"},
    {"skip-existing", OPT_SKIP_EXISTING, NULL, NULL,
     "a job of that name exists already: not an error"},
    {"no-ssh-key", OPT_NO_SSH_KEY, NULL, NULL,
     "v1.x clusters: do not add your SSH public key to the job"},
    CLI_JOB_OPTS,
    CLI_OPT_END};

struct opts {
	const char *name;
	char **env; /* "KEY=VALUE", borrowed from argv */
	size_t nenv;
	int unique, dry_run, wait, no_validate, skip_existing, no_ssh_key;
	double timeout; /* --wait's, for all the jobs; -1: none */
	cli_facts f;	/* the rules, the options' over the profile's */
};

/* At least one word character, as the server requires of jobEnvs keys. */
static int env_key_ok(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((key[i] >= 'A' && key[i] <= 'Z') ||
		    (key[i] >= 'a' && key[i] <= 'z') ||
		    (key[i] >= '0' && key[i] <= '9') || key[i] == '_')
			return 1;
	return 0;
}

static int shell_name(const char *key, size_t len)
{
	size_t i;

	if (!len || (key[0] >= '0' && key[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++)
		if (!((key[i] >= 'A' && key[i] <= 'Z') ||
		      (key[i] >= 'a' && key[i] <= 'z') ||
		      (key[i] >= '0' && key[i] <= '9') || key[i] == '_'))
			return 0;
	return 1;
}

/* jobName's rule: letters, digits, '-', '.' and '_' */
static int job_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' ||
		      *s == '_'))
			return 0;
	return 1;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	const char *eq;
	char **v;
	int st = cli_job_opt(ctx, key, arg, &o->f);

	if (st >= 0)
		return st;
	switch (key) {
	case OPT_NAME:
		if (!job_name_ok(arg))
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --name '%s' (letters, "
					 "digits, '-', '.' and '_')",
					 arg);
		o->name = arg;
		return 0;
	case OPT_ENV:
		eq = strchr(arg, '=');
		if (!eq || !env_key_ok(arg, (size_t)(eq - arg)))
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --env '%s' (use KEY=VALUE; "
					 "KEY needs a letter, digit or '_')",
					 arg);
		if (!shell_name(arg, (size_t)(eq - arg)))
			cli_warn(ctx,
				 "--env '%.*s' is not a shell variable name: "
				 "tasks cannot read it from their environment",
				 (int)(eq - arg), arg);
		v = realloc(o->env, (o->nenv + 1) * sizeof(*v));
		if (!v)
			return cli_error(ctx, EXIT_FAILURE_, "out of memory");
		o->env = v;
		o->env[o->nenv++] = (char *)arg;
		return 0;
	case OPT_UNIQUE: o->unique = 1; return 0;
	case OPT_DRY_RUN: o->dry_run = 1; return 0;
	case OPT_WAIT: o->wait = 1; return 0;
	case OPT_NO_VALIDATE: o->no_validate = 1; return 0;
	case OPT_SKIP_EXISTING: o->skip_existing = 1; return 0;
	case OPT_NO_SSH_KEY: o->no_ssh_key = 1; return 0;
	case OPT_TIMEOUT: return cli_timeout_opt(ctx, arg, &o->timeout);
	}
	return EXIT_USAGE;
}

/* One job to submit. */
struct item {
	const char *file; /* as given; "<stdin>" for "-" */
	pai_job *job;	  /* the validated config */
	json_t *config;	  /* what is sent (new reference) */
	const char *name; /* borrowed from config */
	int submitted;	  /* accepted by the cluster */
	int existing;	  /* --skip-existing: it was there */
	int recovered;	  /* the response was lost, the job is ours */
	int again;	  /* sent again after a 401 */
	pai_state final;  /* after --wait */
	int waited;
	const char *ssh_key; /* the user's public key (v1.x), or NULL */
};

/* A short suffix from the time, base 36: 8 characters until 2059. */
static void unique_suffix(char *buf, size_t len, unsigned long long ms)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	char tmp[16];
	size_t n = 0, i;

	do
		tmp[n++] = digits[ms % 36];
	while ((ms /= 36) && n < sizeof(tmp));
	if (len < n + 2)
		n = len - 2;
	buf[0] = '-';
	for (i = 0; i < n; i++)
		buf[1 + i] = tmp[n - 1 - i];
	buf[1 + n] = '\0';
}

/* The config as given, --name, --unique and --env applied (jobName and
 * jobEnvs in v0.x, name and parameters in protocol v2). */
static int apply(const cli_ctx *ctx, const struct opts *o, struct item *it,
		 json_t *base, unsigned long long ms)
{
	json_t *cfg = json_deep_copy(base);
	const char *name;
	char suffix[16], *full = NULL;
	size_t i;
	int err;

	if (!cfg)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	name = o->name ? o->name : pai_job_config_name(cfg);
	if (!name)
		name = "";
	if (o->unique) {
		unique_suffix(suffix, sizeof(suffix), ms);
		if (asprintf(&full, "%s%s", name, suffix) < 0)
			full = NULL;
	} else
		full = strdup(name);
	err = full ? pai_job_config_rename(cfg, full) : PAI_ENOMEM;
	free(full);
	for (i = 0; !err && i < o->nenv; i++) {
		const char *eq = strchr(o->env[i], '=');
		char *key = strndup(o->env[i], (size_t)(eq - o->env[i]));

		/* values are literal strings: the cluster substitutes
		 * nothing in jobEnvs */
		err = key ? pai_job_config_set_env(cfg, key, eq + 1)
			  : PAI_ENOMEM;
		free(key);
	}
	if (err) {
		json_decref(cfg);
		return cli_error(ctx, EXIT_FAILURE_, "'%s': %s", it->file,
				 pai_strerror(err));
	}
	it->config = cfg;
	it->name = pai_job_config_name(cfg);
	return EXIT_OK;
}

/* 1 when the edited config still has warning d (same rule, path and
 * message). */
static int still_there(const pai_diags *edited, const pai_diag *d)
{
	size_t i;

	for (i = 0; i < pai_diags_count(edited); i++) {
		const pai_diag *e = pai_diags_get(edited, i);

		if (strcmp(e->rule, d->rule) == 0 &&
		    strcmp(e->path, d->path) == 0 &&
		    strcmp(e->message, d->message) == 0)
			return 1;
	}
	return 0;
}

/* The file's warnings, at their places in the file; but a variable that
 * --env now defines is no longer unknown. */
static void print_warnings(const struct opts *o, const struct item *it,
			   const pai_diags *diags)
{
	pai_job_options jo = o->f.job;
	pai_diags *edited = NULL;
	pai_job *job = NULL;
	char *text = NULL;
	size_t i;

	if (o->nenv && pai_diags_new(&edited) == PAI_OK &&
	    (text = json_dumps(it->config, JSON_INDENT(2)))) {
		/* the config as sent: JSON, whatever it was read from */
		jo.format = PAI_FORMAT_AUTO;
		if (pai_job_parse(&job, edited, it->file, text, strlen(text),
				  &jo) != PAI_OK) {
			pai_diags_free(edited);
			edited = NULL;
		}
	} else {
		pai_diags_free(edited);
		edited = NULL;
	}
	for (i = 0; i < pai_diags_count(diags); i++) {
		const pai_diag *d = pai_diags_get(diags, i);

		if (edited && strcmp(d->rule, "unknown-variable") == 0 &&
		    !still_there(edited, d))
			continue;
		cli_print_diag(stderr, d);
	}
	pai_job_free(job);
	pai_diags_free(edited);
	free(text);
}

/* Reads and validates one file into it->job; prints the diagnostics. */
static int load(const cli_ctx *ctx, const struct opts *o, struct item *it,
		const char *path, unsigned long long ms)
{
	pai_diags *diags = NULL;
	json_t *raw = NULL;
	char *text = NULL;
	size_t len = 0;
	int err, st;

	it->file = strcmp(path, "-") == 0 ? "<stdin>" : path;
	st = cli_read_input(ctx, path, &text, &len);
	if (st)
		return st;
	if (pai_diags_new(&diags)) {
		free(text);
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	}
	err = pai_job_parse(&it->job, diags, it->file, text, len, &o->f.job);
	if (err == PAI_EINVALID && o->no_validate) {
		/* the cluster decides: the config as data, JSON or YAML */
		pai_diags *scratch = NULL;

		if (pai_diags_new(&scratch) == PAI_OK)
			pai_config_read(&raw, scratch, it->file, text, len,
					PAI_FORMAT_AUTO);
		pai_diags_free(scratch);
		if (raw && json_is_object(raw)) {
			err = PAI_OK;
			if (!ctx->quiet)
				cli_print_diags(stderr, diags, 0);
		}
	}
	if (err == PAI_ENOMEM)
		st = cli_error(ctx, EXIT_FAILURE_, "'%s': out of memory",
			       it->file);
	else if (err) {
		cli_print_diags(stderr, diags, 0);
		if (!ctx->quiet)
			fprintf(stderr, "%s: %zu error%s, %zu warning%s\n",
				it->file, pai_diags_errors(diags),
				pai_diags_errors(diags) == 1 ? "" : "s",
				pai_diags_warnings(diags),
				pai_diags_warnings(diags) == 1 ? "" : "s");
		st = EXIT_INVALID;
	} else {
		st = apply(ctx, o, it, raw ? raw : pai_job_config(it->job), ms);
		if (!st && !raw && !ctx->quiet)
			print_warnings(o, it, diags);
	}
	json_decref(raw);
	pai_diags_free(diags);
	free(text);
	return st;
}

/* --dry-run: the request as it would go out, the token masked. A
 * cluster whose API is not known yet is taken to speak the config's:
 * a dry run sends nothing, not even that question. */
static int print_request(const cli_ctx *ctx, const cli_conn *conn,
			 const struct opts *o, const struct item *it,
			 json_t *out)
{
	pai_submit_options so = PAI_SUBMIT_OPTIONS_INIT;
	char *method = NULL, *url = NULL, *ctype = NULL, *body = NULL;
	size_t len = 0;
	json_t *h = NULL, *jbody;
	int err, ret = 0;

	if (pai_client_api(conn->client) == PAI_API_AUTO)
		pai_client_set_api(conn->client,
				   pai_job_format(it->job) == PAI_FORMAT_V2
				       ? PAI_API_V2
				       : PAI_API_V1);
	so.ssh_public_key = it->ssh_key;
	so.source_name = it->file;
	so.dialect = o->f.job.dialect;
	err = pai_submit_request(&method, &url, &ctype, &body, &len,
				 conn->client, conn->user, it->config, &so);
	if (err) {
		ret = cli_fail(ctx, conn, err, "cannot make the request for "
				"'%s'", it->file);
		goto out;
	}
	if (ctx->output == CLI_OUT_JSON) {
		h = json_pack("{s:s}", "User-Agent", "paictl/" PAI_VERSION);
		if (h && conn->token)
			json_object_set_new(h, "Authorization",
					    json_string("Bearer ***"));
		json_object_set_new(h, "Content-Type", json_string(ctype));
		json_object_set_new(h, "Content-Length",
				    json_sprintf("%zu", len));
		/* a JSON body as JSON, YAML as its text */
		jbody = json_loadb(body, len, 0, NULL);
		if (!jbody)
			jbody = json_stringn(body, len);
		ret = json_array_append_new(
			  out, json_pack("{s:s,s:s,s:s,s:o,s:o}", "file",
					 it->file, "method", method, "url", url,
					 "headers", h, "body", jbody))
			  ? EXIT_FAILURE_
			  : 0;
	} else
		printf("%s %s\nUser-Agent: paictl/%s\n%sContent-Type: "
		       "%s\nContent-Length: %zu\n\n%s%s",
		       method, url, PAI_VERSION,
		       conn->token ? "Authorization: Bearer ***\n" : "", ctype,
		       len, body, len && body[len - 1] == '\n' ? "" : "\n");
out:
	free(method);
	free(url);
	free(ctype);
	free(body);
	return ret;
}

/* Statuses that would repeat for every further file: stop at once. */
static int fatal(int err)
{
	return err == PAI_EUNREACHABLE || err == PAI_EAUTH ||
	       err == PAI_EFORBIDDEN || err == PAI_EINTR || err == PAI_ETLS ||
	       err == PAI_ENOMEM;
}

static json_t *item_json(const struct item *it, const char *user)
{
	json_t *o = json_pack("{s:s,s:s?,s:s,s:b,s:b}", "file", it->file,
			      "name", it->name, "user", user, "submitted",
			      it->submitted, "existing", it->existing);

	if (o && it->recovered)
		json_object_set_new(o, "recovered", json_true());
	if (o && it->waited)
		json_object_set_new(o, "state",
				    json_string(pai_state_name(it->final)));
	return o;
}

/* The public half of the user's own key (cli_own_key), for v1.x
 * clusters, whose jobs let in the keys their ssh plugin names. New
 * string, or NULL. */
static char *user_public_key(void)
{
	char *key = cli_own_key(), *pub = NULL, line[16384];
	FILE *f = NULL;
	size_t n = 0;

	if (key && asprintf(&pub, "%s.pub", key) < 0)
		pub = NULL;
	if (pub && (f = fopen(pub, "r"))) {
		n = fgets(line, sizeof(line), f) ? strcspn(line, "\r\n") : 0;
		fclose(f);
	}
	free(key);
	free(pub);
	line[n] = '\0';
	if (n && (strncmp(line, "ssh-", 4) == 0 ||
		  strncmp(line, "ecdsa-", 6) == 0))
		return strdup(line);
	return NULL;
}

/* Every file read and validated: 0, else the status (nothing is sent). */
static int load_all(cli_ctx *ctx, const struct opts *o, struct item *items,
		    size_t n, char **files)
{
	unsigned long long ms;
	struct timespec ts;
	size_t i;
	int st = EXIT_OK;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (unsigned long long)ts.tv_sec * 1000 +
	     (unsigned long long)ts.tv_nsec / 1000000;
	for (i = 0; i < n; i++) {
		int s = load(ctx, o, &items[i], files[i], ms + i);

		if (s && (!st || s != EXIT_INVALID))
			st = s;
	}
	if (st && !ctx->quiet)
		cli_error(ctx, st, "nothing submitted");
	return st;
}

static int dry_run(cli_ctx *ctx, cli_conn *conn, const struct opts *o,
		   struct item *items, size_t n, json_t *out)
{
	size_t i;
	int st;

	if ((st = cli_connect_offline(ctx, conn)))
		return st;
	for (i = 0; i < n; i++) {
		if (i && ctx->output == CLI_OUT_TEXT)
			putchar('\n');
		if ((st = print_request(ctx, conn, o, &items[i], out)))
			return st;
	}
	if (ctx->output == CLI_OUT_JSON && cli_print_json(json_incref(out)) < 0)
		return EXIT_FAILURE_;
	return EXIT_OK;
}

/* The conversion's warnings (a v0.x config for a v1.x cluster). */
static void print_conversion(const cli_ctx *ctx, pai_diags *diags)
{
	if (!ctx->quiet)
		cli_print_diags(stderr, diags, 0);
}

/* What one submission's end says: 0 (or --skip-existing's conflict),
 * else its status, said. */
static int took(cli_ctx *ctx, cli_conn *conn, const struct opts *o,
		struct item *it, int err)
{
	const char *code;
	int s;

	if (err == PAI_ECONFLICT && o->skip_existing) {
		it->existing = 1;
		if (!ctx->quiet)
			cli_error(ctx, 0,
				  "job '%s' exists already; not submitted "
				  "again (--skip-existing)",
				  it->name);
		return EXIT_OK;
	}
	if (err) {
		code = pai_client_error_code(conn->client);
		s = cli_fail(ctx, conn, err, "cannot submit '%s' as '%s'",
			     it->file, it->name);
		if (err == PAI_ECONFLICT)
			cli_error(ctx, s,
				  "a job's name is used once: --unique adds "
				  "a suffix to it, --skip-existing takes the "
				  "job there for this one, 'paictl delete %s' "
				  "frees the name once the job has ended (where "
				  "the cluster can delete jobs)",
				  it->name);
		/* the cluster's validator said no (--no-validate) */
		if (err == PAI_EINVALID ||
		    (code && (strcmp(code, "InvalidParametersError") == 0 ||
			      strcmp(code, "InvalidProtocolError") == 0)))
			s = EXIT_INVALID;
		return s;
	}
	it->submitted = 1;
	if (it->recovered && !ctx->quiet)
		cli_error(ctx, 0,
			  "the cluster's answer for '%s' was lost, but the "
			  "job is there with this config: submitted",
			  it->name);
	return EXIT_OK;
}

/* The local cluster says in a job's status what this machine does not
 * give it (its image, requests beyond the machine): said at submit, a
 * warning a line. */
static void local_notes(cli_ctx *ctx, cli_conn *conn, const struct item *it)
{
	pai_job_info *info = NULL;
	const char *w, *nl;

	if ((!conn->local && !conn->socket) || ctx->quiet ||
	    pai_job_get(&info, conn->client, conn->user, it->name))
		goto out;
	w = json_string_value(json_object_get(
	    json_object_get(pai_job_info_json(info), "jobStatus"),
	    "localWarnings"));
	for (; w && *w; w = *nl ? nl + 1 : nl) {
		nl = w + strcspn(w, "\n");
		cli_warn(ctx, "job '%s': %.*s", it->name, (int)(nl - w), w);
	}
out:
	pai_job_info_free(info);
}

/* Every item's submission, several in flight (pai_submit_batch()),
 * each told in the order given: its diagnostics, its name or why
 * not. */
struct sending {
	cli_ctx *ctx;
	cli_conn *conn;
	const struct opts *o;
	struct item *items;
	pai_submit_options *so;
	int st;
};

static int on_submitted(void *data, size_t i, int err, int recovered)
{
	struct sending *sd = data;
	struct item *it = &sd->items[i];
	pai_diags *fresh = NULL;
	int s;

	/* a 401: once logged in again (by this one or one before it, while
	 * this one was on its way), it goes again, once */
	if (err == PAI_EAUTH && !it->again &&
	    (cli_relogin(sd->ctx, sd->conn, err) || sd->conn->relogged) &&
	    pai_diags_new(&fresh) == PAI_OK) {
		it->again = 1;
		pai_diags_free(sd->so[i].diags);
		sd->so[i].diags = fresh;
		return PAI_BATCH_AGAIN;
	}
	it->recovered = recovered;
	print_conversion(sd->ctx, sd->so[i].diags);
	s = took(sd->ctx, sd->conn, sd->o, it, err);
	if (s) {
		if (!sd->st)
			sd->st = s;
		return fatal(err) ? PAI_BATCH_STOP : PAI_BATCH_GO;
	}
	if (it->submitted && sd->ctx->output == CLI_OUT_TEXT) {
		printf("%s\n", it->name);
		/* a script reading names sees each one at once */
		fflush(stdout);
	}
	if (it->submitted)
		local_notes(sd->ctx, sd->conn, it);
	return PAI_BATCH_GO;
}

/* Each item's options: its key, its name for diagnostics, its own
 * diagnostics. 0, or the status. */
static int options_of(cli_ctx *ctx, const struct opts *o, struct sending *sd,
		      size_t n)
{
	pai_submit_options init = PAI_SUBMIT_OPTIONS_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		sd->so[i] = init;
		sd->so[i].ssh_public_key = sd->items[i].ssh_key;
		sd->so[i].source_name = sd->items[i].file;
		sd->so[i].dialect = o->f.job.dialect;
		if (pai_diags_new(&sd->so[i].diags))
			return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	}
	return EXIT_OK;
}

static int send_all(cli_ctx *ctx, cli_conn *conn, const struct opts *o,
		    struct item *items, size_t n)
{
	pai_batch_options bo = PAI_BATCH_OPTIONS_INIT;
	struct sending sd = {ctx, conn, o, items, NULL, EXIT_OK};
	const pai_submit_options **sop = NULL;
	json_t **configs = NULL;
	size_t i;
	int err, st;

	sd.so = calloc(n, sizeof(*sd.so));
	sop = calloc(n, sizeof(*sop));
	configs = calloc(n, sizeof(*configs));
	if (!sd.so || !sop || !configs)
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
	else if (!(st = options_of(ctx, o, &sd, n))) {
		for (i = 0; i < n; i++) {
			sop[i] = &sd.so[i];
			configs[i] = items[i].config;
		}
		bo.done = on_submitted;
		bo.data = &sd;
		err = pai_submit_batch(conn->client, conn->user, configs, sop,
				       n, &bo);
		st = err ? cli_fail(ctx, conn, err, "cannot submit") : sd.st;
	}
	for (i = 0; sd.so && i < n; i++)
		pai_diags_free(sd.so[i].diags);
	free(sd.so);
	free(sop);
	free(configs);
	return st;
}

/* Waiting was given up (Ctrl-C, --timeout): the jobs not waited for
 * go on, and the user is told how to stop each. */
static void going_on(const cli_ctx *ctx, const struct item *items, size_t n)
{
	char opts[512];
	size_t i;

	if (ctx->quiet)
		return;
	snprintf(opts, sizeof(opts), "%s%s%s%s%s%s", ctx->cluster ? " -c " : "",
		 ctx->cluster ? ctx->cluster : "", ctx->uri ? " --uri " : "",
		 ctx->uri ? ctx->uri : "", ctx->user ? " -u " : "",
		 ctx->user ? ctx->user : "");
	for (i = 0; i < n; i++)
		if (items[i].submitted || items[i].existing)
			cli_error(ctx, 0,
				  "job '%s' goes on; 'paictl%s stop %s' stops "
				  "it",
				  items[i].name, opts, items[i].name);
}

/* --wait, within --timeout for all: 0 when all succeeded,
 * EXIT_JOB_FAILED, or why waiting failed */
static int wait_all(cli_ctx *ctx, cli_conn *conn, const struct opts *o,
		    struct item *items, size_t n)
{
	long long start = cli_now_ms();
	double left = o->timeout;
	int failed = 0, s;
	size_t i;

	for (i = 0; i < n; i++) {
		struct item *it = &items[i];

		if (!it->submitted && !it->existing)
			continue;
		if (o->timeout >= 0) {
			left = o->timeout - (double)(cli_now_ms() - start) / 1000;
			left = left > 0 ? left : 0;
		}
		s = cli_wait_job(ctx, conn, conn->user, it->name, left,
				 &it->final, NULL);
		if (s) {
			going_on(ctx, items + i, n - i);
			return s;
		}
		it->waited = 1;
		if (cli_final_status(it->final))
			failed = 1;
	}
	return failed ? EXIT_JOB_FAILED : EXIT_OK;
}

static int print_items(cli_conn *conn, struct item *items, size_t n,
		       json_t *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (items[i].submitted || items[i].existing)
			json_array_append_new(out,
					      item_json(&items[i], conn->user));
	return cli_print_json(json_incref(out)) < 0 ? EXIT_FAILURE_ : EXIT_OK;
}

/* The options that go together, and the arguments as one list of
 * files: 0, else the usage status. */
static int check_files(cli_ctx *ctx, const struct opts *o, size_t n,
		       char **files)
{
	size_t i, nstdin = 0;

	if (o->timeout >= 0 && !o->wait)
		return cli_error(ctx, EXIT_USAGE, "--timeout goes with --wait");
	if (!n)
		return cli_error(ctx, EXIT_USAGE,
				 "no job config given; try 'paictl submit "
				 "job.json'");
	if (o->name && n > 1)
		return cli_error(ctx, EXIT_USAGE,
				 "--name names one job, but %zu files were "
				 "given",
				 n);
	for (i = 0; i < n; i++)
		nstdin += strcmp(files[i], "-") == 0;
	if (nstdin > 1)
		return cli_error(ctx, EXIT_USAGE,
				 "standard input ('-') can be read only once");
	return EXIT_OK;
}

int cmd_submit(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o;
	struct item *items = NULL;
	cli_conn *conn = NULL;
	json_t *out = NULL;
	char *key = NULL;
	size_t n = 0, i;
	int first, st, s;

	memset(&o, 0, sizeof(o));
	o.timeout = -1;
	o.f = (cli_facts)CLI_FACTS_INIT;
	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		goto out_opts;
	n = (size_t)(argc - first);
	if ((st = check_files(ctx, &o, n, argv + first)))
		goto out_opts;
	/* who and where, before anything is read: the profile's facts */
	if ((st = cli_resolve(ctx, &conn)))
		goto out_opts;
	cli_facts_take(&o.f, conn);
	items = calloc(n, sizeof(*items));
	out = json_array();
	if (!items || !out) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	st = load_all(ctx, &o, items, n, argv + first);
	if (st)
		goto out;
	if (!o.no_ssh_key)
		key = user_public_key();
	for (i = 0; i < n; i++)
		items[i].ssh_key = key;
	if (o.dry_run) {
		st = dry_run(ctx, conn, &o, items, n, out);
		goto out;
	}
	if ((st = cli_connect(ctx, conn)))
		goto out;
	st = send_all(ctx, conn, &o, items, n);
	if (o.wait && !st)
		st = wait_all(ctx, conn, &o, items, n);
	if (ctx->output == CLI_OUT_JSON && (s = print_items(conn, items, n, out)) &&
	    !st)
		st = s;
out:
	for (i = 0; items && i < n; i++) {
		pai_job_free(items[i].job);
		json_decref(items[i].config);
	}
	free(items);
	free(key);
	json_decref(out);
	cli_conn_free(conn);
out_opts:
	free(o.env);
	return cli_finish(ctx, st);
}
