/* cmd_ssh_config.c - paictl ssh-config: an OpenSSH config block per task,
 * so that plain ssh, scp, rsync and editors' remote plugins get in too,
 * with the same key and the same host keys as paictl ssh */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const cli_opt cli_ssh_config_opts[] = {
    {"identity", 'i', "FILE", NULL,
     "the private key to name (default: the job's; on OpenPAI v1.x your "
     "~/.ssh key)"},
    CLI_OPT_END};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	(void)ctx;
	if (key != 'i')
		return EXIT_USAGE;
	*(const char **)data = arg;
	return 0;
}

/* Characters a value keeps as they are: anything else (a blank, a quote,
 * a backslash, '#', '=', a wildcard) puts it in double quotes. */
static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-~:@+/,%";

/* s as ssh_config(5) reads it back (OpenSSH's argv_split): in double
 * quotes, '"' and '\\' escaped, unless every character is plain; '%'
 * doubled where the keyword expands %-tokens (percent). No control
 * characters: check_value refused those. */
static void put_value(const char *s, int percent)
{
	int quote = !*s || s[strspn(s, plain)];

	if (quote)
		putchar('"');
	for (; *s; s++) {
		if (quote && (*s == '"' || *s == '\\'))
			putchar('\\');
		if (percent && *s == '%')
			putchar('%');
		putchar(*s);
	}
	if (quote)
		putchar('"');
}

/* One host's block: the Host name, then keyword and value pairs, and
 * where each value came from (for the message that refuses it). */
struct block {
	char host[512], port[24], ip_from[640], jump[512];
	char login_user[256], login_host[256]; /* the login node's block */
	const char *key[10], *value[10], *from[10];
	size_t n;
};

static void add(struct block *b, const char *key, const char *value,
		const char *from)
{
	/* make_block and add_jump add at most 9: the room is never short */
	if (b->n >= sizeof(b->key) / sizeof(b->key[0]))
		return;
	b->key[b->n] = key;
	b->from[b->n] = from;
	b->value[b->n++] = value;
}

/* The block of container c, of task t (NULL: none known), logged in to
 * as user (from: who named it) with the key of id, the known_hosts file
 * known. */
static void make_block(struct block *b, const char *user, const char *from,
		       const char *name, const pai_ssh_container *c,
		       const pai_task_info *t, const cli_identity *id,
		       const char *known)
{
	const char *alias = cli_ssh_host_alias(c->id);
	int n;

	b->n = 0;
	if (t)
		n = snprintf(b->host, sizeof(b->host), "%s-%s-%ld", name,
			     t->role, t->index);
	else
		n = snprintf(b->host, sizeof(b->host), "%s-%s", name,
			     alias ? alias : c->ip);
	if (n < 0 || (size_t)n >= sizeof(b->host))
		b->host[0] = '\0'; /* refused as too long by check_block */
	snprintf(b->port, sizeof(b->port), "%ld", c->port);
	if (t)
		snprintf(b->ip_from, sizeof(b->ip_from),
			 "the cluster's address of task %.200s-%ld", t->role,
			 t->index);
	else
		snprintf(b->ip_from, sizeof(b->ip_from),
			 "the cluster's address of container '%.200s'", c->id);
	add(b, "HostName", c->ip, b->ip_from);
	add(b, "Port", b->port, NULL);
	add(b, "User", user, from);
	if (id->key) {
		/* the agent's keys too where the user's own key is the one:
		 * OpenSSH offers both then */
		add(b, "IdentityFile", id->key, "the key's path");
		if (!id->own)
			add(b, "IdentitiesOnly", "yes", NULL);
	}
	add(b, "UserKnownHostsFile", known, "the known_hosts path");
	/* the names paictl ssh records keys under, and its policy: trust
	 * on first use, never a changed key */
	if (alias)
		add(b, "HostKeyAlias", alias, NULL);
	add(b, "StrictHostKeyChecking", "accept-new", NULL);
}

/* The keywords whose values OpenSSH expands %-tokens in. */
static int expands(const char *key)
{
	return strcmp(key, "HostName") == 0 ||
	       strcmp(key, "IdentityFile") == 0 ||
	       strcmp(key, "UserKnownHostsFile") == 0;
}

/* The bytes ch takes in a message: a control character's C escape. */
static size_t shown_len(unsigned char ch)
{
	return ch == '\n' ? 2 : ch < 0x20 || ch == 0x7f ? 4 : 1;
}

/* s shown in a message, in out (size bytes, at least 8): control
 * characters as C escapes; where it does not fit whole, cut after a
 * whole character, with "..." after it. */
static void escaped(char *out, size_t size, const char *s)
{
	size_t o = 0, need = 0, room;
	const char *p;

	for (p = s; *p; p++)
		need += shown_len((unsigned char)*p);
	room = need < size ? size - 1 : size - 4;
	for (; *s && o + shown_len((unsigned char)*s) <= room; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\n')
			o += (size_t)snprintf(out + o, size - o, "\\n");
		else if (shown_len(ch) > 1)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	if (*s) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/* A value the cluster (or the machine) chose goes into a file that ssh
 * reads as its own config: a control character would end the line and
 * start one the cluster wrote (a ProxyCommand). 0, or the exit status
 * after saying why. */
static int check_value(const cli_ctx *ctx, const char *ref, const char *key,
		       const char *v, const char *from)
{
	char shown[96];
	const char *p;

	for (p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	if (*p) {
		escaped(shown, sizeof(shown), v);
		return cli_error(ctx, EXIT_FAILURE_,
				 "job '%s': %s holds a control character "
				 "(\"%s\"): not written as its %s",
				 ref, from ? from : key, shown, key);
	}
	/* OpenSSH 10 expands %-tokens in User too, older ones do not */
	if (strcmp(key, "User") == 0 && strchr(v, '%'))
		return cli_error(ctx, EXIT_FAILURE_,
				 "job '%s': %s holds a '%%' (\"%s\"), which "
				 "versions of OpenSSH read differently: not "
				 "written as its User",
				 ref, from, v);
	return EXIT_OK;
}

/* Every value of b fit to write, and a Host name that matches this task
 * alone (no blank, no wildcard, no '!'): 0, or the exit status after
 * saying why. */
static int check_block(const cli_ctx *ctx, const char *ref,
		       const struct block *b, const pai_task_info *t)
{
	size_t i;
	int st;

	if (!cli_ssh_host_alias(b->host)) {
		char shown[96];
		const char *what = t ? "name of a task role" : "task's address";

		escaped(shown, sizeof(shown), t ? t->role : b->value[0]);
		return cli_error(ctx, EXIT_FAILURE_,
				 "job '%s': the cluster's %s (\"%s\") makes no "
				 "Host name of letters, digits and ._-~:@+=%% "
				 "alone, one that matches this task and no "
				 "other host: not written",
				 ref, what, shown);
	}
	for (i = 0; i < b->n; i++)
		if ((st = check_value(ctx, ref, b->key[i], b->value[i],
				      b->from[i])))
			return st;
	return EXIT_OK;
}

/* The Host name of the login node's block (login_block): the cluster's,
 * apart from any the user has. */
static void login_alias(char *out, size_t size, const cli_conn *conn)
{
	int n = snprintf(out, size, "paictl-%s-login", conn->cluster);

	if (n < 0 || (size_t)n >= size)
		out[0] = '\0'; /* refused as no Host name by check_block */
}

/* A Slurm cluster reached through its login node (ssh://user@host:port):
 * the nodes are reached through it too, as OpenSSH's ProxyJump does,
 * named by its block, so that ssh logs in there as paictl does. */
static void add_jump(struct block *b, const cli_conn *conn)
{
	const char *u = conn->uri;

	if (!u || strncmp(u, "ssh://", 6) != 0)
		return;
	login_alias(b->jump, sizeof(b->jump), conn);
	add(b, "ProxyJump", b->jump, "the profile's login node");
}

/* From "[user@]host[:port]" of len bytes (host an IPv6 address in
 * brackets, or none): the user (default: the profile's), the host and
 * the port (default 22) into b. 0, or -1 when it is no such thing or a
 * part does not fit. */
static int split_login(struct block *b, const char *p, size_t len,
		       const char *user)
{
	const char *at = memchr(p, '@', len), *h, *end = p + len;
	size_t n;

	if (at) {
		user = p;
		n = (size_t)(at - p);
		p = at + 1;
	} else
		n = user ? strlen(user) : 0;
	if (!n || n >= sizeof(b->login_user))
		return -1;
	snprintf(b->login_user, sizeof(b->login_user), "%.*s", (int)n, user);
	h = *p == '[' ? p + 1 : p;
	n = *p == '[' ? strcspn(h, "]") : strcspn(h, ":/");
	if (!n || n >= sizeof(b->login_host) || h + n > end)
		return -1;
	snprintf(b->login_host, sizeof(b->login_host), "%.*s", (int)n, h);
	p = h + n + (*p == '[');
	if (p < end && *p == ':' && end - p - 1 > 0 &&
	    (size_t)(end - p - 1) < sizeof(b->port) &&
	    strspn(p + 1, "0123456789") >= (size_t)(end - p - 1))
		snprintf(b->port, sizeof(b->port), "%.*s", (int)(end - p - 1),
			 p + 1);
	else if (p == end)
		snprintf(b->port, sizeof(b->port), "22");
	else
		return -1;
	return 0;
}

/* The login node's block, which the nodes' name as their ProxyJump:
 * logged in to as paictl does (the user's key, the agent) and its host
 * key checked in the known_hosts file paictl recorded it in, under the
 * name OpenSSH gives it too. 0 when the cluster has no login node
 * (b->n 0 then), or it is no URI ssh reads (-1, said). */
static int login_block(const cli_ctx *ctx, struct block *b,
		       const cli_conn *conn, const char *key,
		       const char *known)
{
	const char *u = conn->uri;

	b->n = 0;
	if (!u || strncmp(u, "ssh://", 6) != 0)
		return 0;
	if (split_login(b, u + 6, strcspn(u + 6, "/"), conn->user) < 0) {
		char shown[96];

		escaped(shown, sizeof(shown), u);
		return cli_error(ctx, EXIT_FAILURE_,
				 "cluster '%s': the login node \"%s\" is no "
				 "[user@]host[:port] ssh-config writes (user "
				 "and host at most %zu bytes, port at most %zu "
				 "digits): not written",
				 conn->cluster, shown,
				 sizeof(b->login_host) - 1, sizeof(b->port) - 1);
	}
	login_alias(b->host, sizeof(b->host), conn);
	add(b, "HostName", b->login_host, "the profile's login node");
	add(b, "Port", b->port, NULL);
	add(b, "User", b->login_user, "the profile's login user");
	if (key)
		add(b, "IdentityFile", key, "the key's path");
	add(b, "UserKnownHostsFile", known, "the known_hosts path");
	add(b, "StrictHostKeyChecking", "accept-new", NULL);
	return 0;
}

static void put_block(const struct block *b)
{
	size_t i;

	printf("Host %s\n", b->host);
	for (i = 0; i < b->n; i++) {
		printf("    %s ", b->key[i]);
		put_value(b->value[i], expands(b->key[i]));
		putchar('\n');
	}
}

/* -o json: the block as an object, OpenSSH's keywords as its keys, and
 * the task it reaches; NULL when out of memory. */
static json_t *block_json(const struct block *b, const pai_task_info *t)
{
	json_t *o = json_pack("{s:s,s:s?,s:o}", "Host", b->host, "role",
			      t ? t->role : NULL, "index",
			      t ? json_integer(t->index) : json_null());
	size_t i;

	for (i = 0; o && i < b->n; i++)
		if (json_object_set_new(o, b->key[i],
					json_string(b->value[i])) < 0) {
			json_decref(o);
			o = NULL;
		}
	return o;
}

/* The job's SSH containers and status (to name the tasks); a libpai
 * error code. */
static int get_job(cli_ctx *ctx, cli_conn *conn, const char *user,
		   const char *name, pai_ssh_info **ssh, pai_job_info **info)
{
	int err;

	do
		err = pai_job_get_ssh(ssh, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	if (!err)
		do
			err = pai_job_get(info, conn->client, user, name);
		while (err && cli_relogin(ctx, conn, err));
	return err;
}

/* What every block is made of. */
struct blocks_in {
	const cli_conn *conn;
	const char *ref, *name, *known;
	const pai_ssh_info *ssh;
	const pai_job_info *info;
	const cli_identity *id;
	const struct block *login; /* the login node's, or NULL */
};

/* The block of container i in *b, its task in *t: 0 when it cannot be
 * reached (no address yet). */
static int block_of(const struct blocks_in *in, size_t i, struct block *b,
		    const pai_task_info **t)
{
	const pai_ssh_container *c = pai_ssh_info_get(in->ssh, i);
	const char *cluster_user = pai_ssh_info_user(in->ssh);

	if (!c || !c->ip || !c->id)
		return 0;
	*t = cli_task_of(in->info, c->id);
	/* the cluster's user where it names one (Slurm's) */
	make_block(b, cluster_user ? cluster_user : cli_ssh_user(in->conn),
		   cluster_user ? "the cluster's user name" : "your user name",
		   in->name, c, *t, in->id, in->known);
	add_jump(b, in->conn);
	return 1;
}

/* Every reachable task's block, as text or as one JSON array, once all
 * of them are fit to write (nothing written otherwise): 0, or the exit
 * status after saying why. */
static int put_blocks(const cli_ctx *ctx, const struct blocks_in *in)
{
	size_t i, n = pai_ssh_info_count(in->ssh), shown = 0;
	const pai_task_info *t;
	json_t *out = NULL;
	struct block b;
	int st = EXIT_OK;

	for (i = 0; i < n; i++)
		if (block_of(in, i, &b, &t) &&
		    (st = check_block(ctx, in->ref, &b, t)))
			return st;
	if (in->login && (st = check_block(ctx, in->ref, in->login, NULL)))
		return st;
	if (ctx->output == CLI_OUT_JSON && !(out = json_array()))
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	for (i = 0; i < n; i++) {
		if (!block_of(in, i, &b, &t))
			continue;
		if (out)
			json_array_append_new(out, block_json(&b, t));
		else {
			if (shown)
				putchar('\n');
			put_block(&b);
		}
		shown++;
	}
	/* the login node's once, after the nodes' that name it */
	if (shown && in->login && out)
		json_array_append_new(out, block_json(in->login, NULL));
	else if (shown && in->login) {
		putchar('\n');
		put_block(in->login);
	}
	if (!shown)
		st = cli_error(ctx, EXIT_NOTFOUND,
			       "no task of job '%s' can be reached yet",
			       in->ref);
	else if (out && cli_print_json(json_incref(out)) < 0)
		st = EXIT_FAILURE_;
	json_decref(out);
	return st;
}

int cmd_ssh_config(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	pai_ssh_info *ssh = NULL;
	pai_job_info *info = NULL;
	char *user = NULL, *name = NULL, *known = NULL;
	const char *identity = NULL;
	cli_identity id = {NULL, 0, 0, 0};
	struct blocks_in in;
	struct block login;
	char *own_key = NULL;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &identity, &first);
	if (st >= 0)
		return st;
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st)
		goto out;
	known = cli_known_hosts_path(conn);
	if (!known) {
		st = cli_error(ctx, EXIT_FAILURE_,
			       "no HOME: set HOME or XDG_STATE_HOME");
		goto out;
	}
	/* the login node's block, refused before the cluster is asked;
	 * its key: the one paictl logs in there with */
	own_key = cli_conn_key(conn);
	if ((st = login_block(ctx, &login, conn, own_key, known)))
		goto out;
	err = get_job(ctx, conn, user, name, &ssh, &info);
	if (err) {
		st = cli_fail(ctx, conn, err, "no SSH access to job '%s'",
			      argv[first]);
		goto out;
	}
	st = cli_ssh_identity(ctx, conn, ssh, user, name, argv[first],
			      identity, &id);
	if (st)
		goto out;
	in = (struct blocks_in){conn, argv[first], name,  known,
				ssh,  info,	   &id,	  login.n ? &login : NULL};
	st = put_blocks(ctx, &in);
out:
	free(own_key);
	free(id.key);
	free(known);
	pai_ssh_info_free(ssh);
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
