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

/* The longest login node (user@host:port) a ProxyJump is written with. */
enum { JUMP_MAX = 511 };

/* One host's block: the Host name, then keyword and value pairs, and
 * where each value came from (for the message that refuses it). */
struct block {
	char host[512], port[24], ip_from[640], jump[JUMP_MAX + 1];
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

/* The login node a Slurm cluster is reached through (its URI ssh://
 * user@host:port) as a ProxyJump names it, its length in *len; NULL:
 * none. */
static const char *login_node(const cli_conn *conn, size_t *len)
{
	const char *u = conn->uri;

	if (!u || strncmp(u, "ssh://", 6) != 0)
		return NULL;
	*len = strcspn(u + 6, "/");
	return u + 6;
}

/* A login node longer than JUMP_MAX is refused, never written cut: 0,
 * or the exit status after saying why. */
static int check_jump(const cli_ctx *ctx, const cli_conn *conn)
{
	char shown[96];
	size_t len;

	if (!login_node(conn, &len) || len <= JUMP_MAX)
		return EXIT_OK;
	escaped(shown, sizeof(shown), conn->uri);
	return cli_error(ctx, EXIT_FAILURE_,
			 "the login node of cluster '%s' (\"%s\") is %zu "
			 "bytes long, more than the %d of a ProxyJump "
			 "paictl writes: not written",
			 conn->cluster, shown, len, JUMP_MAX);
}

/* The nodes of a Slurm cluster reached through its login node are
 * reached through it too, as OpenSSH's ProxyJump does (check_jump
 * refused a login node too long). */
static void add_jump(struct block *b, const cli_conn *conn)
{
	size_t len;
	const char *node = login_node(conn, &len);

	if (!node || len > JUMP_MAX)
		return;
	memcpy(b->jump, node, len);
	b->jump[len] = '\0';
	add(b, "ProxyJump", b->jump, "the profile's login node");
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
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &identity, &first);
	if (st >= 0)
		return st;
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st || (st = check_jump(ctx, conn)))
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
	known = cli_known_hosts_path(conn);
	in = (struct blocks_in){conn, argv[first], name, known, ssh, info, &id};
	st = known ? put_blocks(ctx, &in)
		   : cli_error(ctx, EXIT_FAILURE_,
			       "no HOME: set HOME or XDG_STATE_HOME");
out:
	free(id.key);
	free(known);
	pai_ssh_info_free(ssh);
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
