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

/* s for ssh_config: in double quotes when it has a blank or a quote */
static void put_value(const char *s)
{
	if (!s[strcspn(s, " \t\"#")]) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* One host's block: the Host name, then keyword and value pairs. */
struct block {
	char host[512], port[24], jump[512];
	const char *key[10], *value[10];
	size_t n;
};

static void add(struct block *b, const char *key, const char *value)
{
	b->key[b->n] = key;
	b->value[b->n++] = value;
}

/* The block of container c, of task t (NULL: none known), logged in to
 * as user with the key of id, the known_hosts file known. */
static void make_block(struct block *b, const char *user, const char *name,
		       const pai_ssh_container *c, const pai_task_info *t,
		       const cli_identity *id, const char *known)
{
	const char *alias = cli_ssh_host_alias(c->id);

	b->n = 0;
	if (t)
		snprintf(b->host, sizeof(b->host), "%s-%s-%ld", name, t->role,
			 t->index);
	else
		snprintf(b->host, sizeof(b->host), "%s-%s", name,
			 alias ? alias : c->ip);
	snprintf(b->port, sizeof(b->port), "%ld", c->port);
	add(b, "HostName", c->ip);
	add(b, "Port", b->port);
	add(b, "User", user);
	if (id->key) {
		/* the agent's keys too where the user's own key is the one:
		 * OpenSSH offers both then */
		add(b, "IdentityFile", id->key);
		if (!id->own)
			add(b, "IdentitiesOnly", "yes");
	}
	add(b, "UserKnownHostsFile", known);
	/* the names paictl ssh records keys under, and its policy: trust
	 * on first use, never a changed key */
	if (alias)
		add(b, "HostKeyAlias", alias);
	add(b, "StrictHostKeyChecking", "accept-new");
}

/* A Slurm cluster reached through its login node (ssh://user@host:port):
 * the nodes are reached through it too, as OpenSSH's ProxyJump does. */
static void add_jump(struct block *b, const cli_conn *conn)
{
	const char *u = conn->uri;

	if (!u || strncmp(u, "ssh://", 6) != 0)
		return;
	snprintf(b->jump, sizeof(b->jump), "%.*s", (int)strcspn(u + 6, "/"),
		 u + 6);
	add(b, "ProxyJump", b->jump);
}

static void put_block(const struct block *b)
{
	size_t i;

	printf("Host %s\n", b->host);
	for (i = 0; i < b->n; i++) {
		printf("    %s ", b->key[i]);
		put_value(b->value[i]);
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

/* Every reachable task's block, as text or as one JSON array: 0, or
 * the exit status after saying why. */
static int put_blocks(const cli_ctx *ctx, const cli_conn *conn,
		      const char *ref, const char *name,
		      const pai_ssh_info *ssh, const pai_job_info *info,
		      const cli_identity *id, const char *known)
{
	json_t *out = json_array();
	size_t i, shown = 0;
	int st = EXIT_OK;

	if (!out)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	for (i = 0; i < pai_ssh_info_count(ssh); i++) {
		const pai_ssh_container *c = pai_ssh_info_get(ssh, i);
		const pai_task_info *t = c ? cli_task_of(info, c->id) : NULL;
		struct block b;

		if (!c || !c->ip || !c->id)
			continue;
		/* the cluster's user where it names one (Slurm's) */
		make_block(&b,
			   pai_ssh_info_user(ssh) ? pai_ssh_info_user(ssh)
						  : cli_ssh_user(conn),
			   name, c, t, id, known);
		add_jump(&b, conn);
		if (ctx->output == CLI_OUT_JSON)
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
			       "no task of job '%s' can be reached yet", ref);
	else if (ctx->output == CLI_OUT_JSON &&
		 cli_print_json(json_incref(out)) < 0)
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
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &identity, &first);
	if (st >= 0)
		return st;
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st)
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
	st = known ? put_blocks(ctx, conn, argv[first], name, ssh, info, &id,
				known)
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
