/* ssh_access.c - how ssh, ssh-config and ssh-key get into a job's
 * tasks (and submit finds the user's own key): the job's key, fetched
 * once and kept 0400, or the user's; the user the containers take; the
 * known_hosts file and the names keys are recorded under */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *cli_sh_quote(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./~-";
	size_t n = 2, i, k = 0;
	char *q;

	if (*s && s[0] != '~' && !s[strspn(s, safe)])
		return strdup(s);
	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	q = malloc(n + 1);
	if (!q)
		return NULL;
	q[k++] = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(q + k, "'\\''", 4);
			k += 4;
		} else
			q[k++] = s[i];
	}
	q[k++] = '\'';
	q[k] = '\0';
	return q;
}

/* Saves the key at path: a different key there is replaced only when
 * asked to (replace). */
static int save(const cli_ctx *ctx, const char *path, const char *data,
		size_t len, int replace, int *existed)
{
	char *old = NULL;
	size_t olen = 0;
	int e = 0, err;

	*existed = 0;
	err = pai_file_read(&old, &olen, &e, path);
	if (err == PAI_OK) {
		int same = olen == len && memcmp(old, data, len) == 0;

		explicit_bzero(old, olen);
		free(old);
		if (!same && !replace)
			return cli_error(ctx, EXIT_CONFLICT,
					 "'%s' holds a different key; not "
					 "replacing it (give --force, or "
					 "--out FILE)",
					 path);
		*existed = same;
		if (same)
			return EXIT_OK;
	}
	if (err != PAI_OK && err != PAI_ENOTFOUND)
		return cli_error(ctx, cli_exit_status(err),
				 "cannot read '%s': %s", path,
				 e ? strerror(e) : pai_strerror(err));
	err = pai_file_write_atomic(path, data, len, 0400,
				    replace ? 0 : PAI_WRITE_EXCLUSIVE);
	if (err == PAI_ECONFLICT)
		return cli_error(ctx, EXIT_CONFLICT,
				 "'%s' appeared meanwhile; not replacing it",
				 path);
	if (err)
		return cli_error(
		    ctx,
		    cli_exit_status(err) == EXIT_NOTFOUND ? EXIT_NOTFOUND
							  : EXIT_FAILURE_,
		    "cannot write '%s': %s", path, pai_strerror(err));
	return EXIT_OK;
}

const pai_task_info *cli_task_of(const pai_job_info *info, const char *id)
{
	size_t i;

	for (i = 0; id && info && i < pai_job_info_task_count(info); i++) {
		const pai_task_info *t = pai_job_info_task(info, i);

		if (t && t->container_id && strcmp(t->container_id, id) == 0)
			return t;
	}
	return NULL;
}

/* OpenPAI's containers take root; the local cluster's sshd runs as its
 * owner, who can log in only as themself. */
const char *cli_ssh_user(const cli_conn *conn)
{
	const struct passwd *pw;

	if (!conn->local && !conn->socket)
		return "root";
	pw = getpwuid(getuid());
	return pw && pw->pw_name ? pw->pw_name : "root";
}

/* Where the key goes: file, or keys/<cluster>/<user>~<job> under the
 * state directory, in 0700 directories (*dir: the one to create; NULL
 * for file). New strings; 0 or the exit status. */
static int key_path(const cli_ctx *ctx, const cli_conn *conn, const char *user,
		    const char *name, const char *file, char **path, char **dir)
{
	char *state;

	if (file)
		*path = strdup(file);
	else {
		state = cli_state_dir();
		if (!state)
			return cli_error(ctx, EXIT_FAILURE_,
					 "no HOME: set HOME or XDG_STATE_HOME, "
					 "or give --out FILE");
		if (asprintf(dir, "%s/keys/%s", state, conn->cluster) < 0)
			*dir = NULL;
		free(state);
		if (!*dir || asprintf(path, "%s/%s~%s", *dir, user, name) < 0)
			*path = NULL;
	}
	if (!*path)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	return EXIT_OK;
}

int cli_ssh_key_fetch(cli_ctx *ctx, cli_conn *conn, const pai_ssh_info *ssh,
		      const char *user, const char *name, const char *ref,
		      const char *file, int how, char **path_out,
		      int *existed)
{
	char *key = NULL, *path = NULL, *dir = NULL;
	size_t klen = 0;
	int st, err;

	*path_out = NULL;
	*existed = 0;
	st = key_path(ctx, conn, user, name, file, &path, &dir);
	if (st)
		goto out;
	/* a job's key never changes: the cached one saves a download */
	if (how == CLI_KEY_REUSE && access(path, R_OK) == 0) {
		*existed = 1;
		goto done;
	}
	if (!pai_ssh_info_key_url(ssh)) {
		st = cli_error(ctx, EXIT_NOTFOUND,
			       "the cluster gives no private key for job '%s'",
			       ref);
		goto out;
	}
	do
		err = pai_download(&key, &klen, conn->client,
				   pai_ssh_info_key_url(ssh));
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		st = cli_fail(ctx, conn, err,
			      "cannot download the key of "
			      "job '%s'",
			      ref);
		goto out;
	}
	if (dir && cli_mkdirs(dir) < 0) {
		st = cli_error(ctx, EXIT_FAILURE_, "cannot create '%s': %s",
			       dir, strerror(errno));
		goto out;
	}
	st = save(ctx, path, key, klen, how == CLI_KEY_REPLACE, existed);
	if (st)
		goto out;
done:
	*path_out = path;
	path = NULL;
out:
	if (key)
		explicit_bzero(key, klen);
	free(key);
	free(path);
	free(dir);
	return st;
}

char *cli_own_key(void)
{
	static const char *const names[] = {"id_ed25519", "id_ecdsa", "id_rsa"};
	const char *home = getenv("HOME");
	char *path;
	size_t i;

	for (i = 0; home && i < sizeof(names) / sizeof(names[0]); i++) {
		if (asprintf(&path, "%s/.ssh/%s", home, names[i]) < 0)
			return NULL;
		if (access(path, R_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

char *cli_conn_key(const cli_conn *conn)
{
	const char *identity = NULL;

	if (conn->cfg && conn->cluster &&
	    pai_config_slurm_identity(&identity, conn->cfg, conn->cluster) ==
		    PAI_OK &&
	    identity)
		return strdup(identity);
	return cli_own_key();
}

int cli_ssh_identity(cli_ctx *ctx, cli_conn *conn, const pai_ssh_info *ssh,
		     const char *user, const char *name, const char *ref,
		     const char *identity, cli_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->agent = getenv("SSH_AUTH_SOCK") && *getenv("SSH_AUTH_SOCK");
	if (identity) {
		if (!(id->key = strdup(identity)))
			return cli_error(ctx, EXIT_FAILURE_, "out of memory");
		return EXIT_OK;
	}
	if (pai_ssh_info_key_url(ssh)) {
		id->agent = 0; /* the job's key is the one */
		return cli_ssh_key_fetch(ctx, conn, ssh, user, name, ref, NULL,
					 CLI_KEY_REUSE, &id->key,
					 &id->existed);
	}
	/* no key of the job's own (OpenPAI v1.x): the tasks let in the
	 * user's, from the job's ssh plugin */
	id->own = 1;
	id->key = cli_conn_key(conn);
	if (!id->key && !id->agent)
		return cli_error(ctx, EXIT_NOTFOUND,
				 "job '%s' has no key of its own: its tasks "
				 "let in your SSH key, and there is none in "
				 "~/.ssh (id_ed25519, id_ecdsa, id_rsa) nor an "
				 "ssh-agent; give -i FILE",
				 ref);
	return EXIT_OK;
}

const char *cli_ssh_host_alias(const char *id)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._-~:@+=%";

	return id && *id && !id[strspn(id, ok)] ? id : NULL;
}

char *cli_known_hosts_path(const cli_conn *conn)
{
	char *state = cli_state_dir(), *p = NULL;

	if (state &&
	    asprintf(&p, "%s/known_hosts/%s", state, conn->cluster) < 0)
		p = NULL;
	free(state);
	return p;
}
