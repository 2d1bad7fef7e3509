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

static void put_line(const char *name, const char *value)
{
	printf("    %s ", name);
	put_value(value);
	putchar('\n');
}

/* The block of container c, of task t (NULL: none known), logged in to
 * as user with the key of id, the known_hosts file known. */
static void put_block(const char *user, const char *name,
		      const pai_ssh_container *c, const pai_task_info *t,
		      const cli_identity *id, const char *known)
{
	const char *alias = cli_ssh_host_alias(c->id);
	char port[24];

	if (t)
		printf("Host %s-%s-%ld\n", name, t->role, t->index);
	else
		printf("Host %s-%s\n", name, alias ? alias : c->ip);
	snprintf(port, sizeof(port), "%ld", c->port);
	put_line("HostName", c->ip);
	put_line("Port", port);
	put_line("User", user);
	if (id->key) {
		/* the agent's keys too where the user's own key is the one:
		 * OpenSSH offers both then */
		put_line("IdentityFile", id->key);
		if (!id->own)
			put_line("IdentitiesOnly", "yes");
	}
	put_line("UserKnownHostsFile", known);
	/* the names paictl ssh records keys under, and its policy: trust
	 * on first use, never a changed key */
	if (alias)
		put_line("HostKeyAlias", alias);
	put_line("StrictHostKeyChecking", "accept-new");
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

int cmd_ssh_config(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	pai_ssh_info *ssh = NULL;
	pai_job_info *info = NULL;
	char *user = NULL, *name = NULL, *known = NULL;
	const char *identity = NULL;
	cli_identity id = {NULL, 0, 0, 0};
	size_t i, shown = 0;
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
	if (!known) {
		st = cli_error(ctx, EXIT_FAILURE_,
			       "no HOME: set HOME or XDG_STATE_HOME");
		goto out;
	}
	for (i = 0; i < pai_ssh_info_count(ssh); i++) {
		const pai_ssh_container *c = pai_ssh_info_get(ssh, i);

		if (!c || !c->ip || !c->id)
			continue;
		if (shown++)
			putchar('\n');
		put_block(pai_ssh_info_user(ssh) ? pai_ssh_info_user(ssh)
						  : cli_ssh_user(conn),
			  name, c, cli_task_of(info, c->id), &id, known);
	}
	if (!shown)
		st = cli_error(ctx, EXIT_NOTFOUND,
			       "no task of job '%s' can be reached yet",
			       argv[first]);
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
