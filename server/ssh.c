/* ssh.c - the local cluster's per-task sshd
 *
 * Each job gets its own key pair (private key 0600), made the first
 * time somebody asks for it, and each task its own sshd on its `ssh`
 * port, bound to 127.0.0.1, accepting only that key. The key's authorized_keys line carries the task's environment
 * (environment="..." options) and a fixed command that starts the
 * session in $PAI_WORK_DIR; no value of ours is ever put in that
 * command, only variable references the session's shell expands.
 * ssh-keygen and sshd are run with execv, never through a shell.
 */
#include "srv_int.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *find_exe(const char *const *paths)
{
	for (; *paths; paths++)
		if (access(*paths, X_OK) == 0)
			return *paths;
	return NULL;
}

/* Starts ssh-keygen -t ed25519 into path; its pid, or -1. */
static pid_t keygen_start(struct srv *s, const char *path, const char *comment)
{
	char *argv[] = {"ssh-keygen", "-q",	    "-t", "ed25519",
			"-N",	      "",	    "-C", (char *)comment,
			"-f",	      (char *)path, NULL};
	sigset_t none;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		dup2(s->null_fd, 0);
		dup2(s->null_fd, 1);
		dup2(s->null_fd, 2);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(s->keygen, argv);
		_exit(127);
	}
	return pid;
}

static int keygen(struct srv *s, const char *path, const char *comment)
{
	pid_t pid = keygen_start(s, path, comment);
	int st = 0;

	long long deadline = srv_now_ms() + 10000;
	pid_t w;

	if (pid < 0)
		return -1;
	/* callers hold the lock: a stuck ssh-keygen must not hold it long */
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 ||
	       (w < 0 && errno == EINTR)) {
		struct timespec ts = {0, 2 * 1000 * 1000};

		if (srv_now_ms() > deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return w == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int srv_ssh_init(struct srv *s)
{
	static const char *const sshd[] = {"/usr/sbin/sshd", "/usr/bin/sshd",
					   NULL};
	static const char *const kg[] = {"/usr/bin/ssh-keygen",
					 "/usr/local/bin/ssh-keygen", NULL};
	struct stat st;

	if (s->opt.no_ssh)
		return 0;
	s->sshd = find_exe(sshd);
	s->keygen = find_exe(kg);
	if (!s->sshd || !s->keygen) {
		s->sshd = NULL;
		srv_log(s, "sshd or ssh-keygen not found: tasks get no ssh "
			   "server (install openssh-server)");
		return 0;
	}
	/* sshd started by root wants its privilege separation directory,
	 * which the Debian service would create */
	if (geteuid() == 0 && stat("/run/sshd", &st) < 0 &&
	    mkdir("/run/sshd", 0755) < 0 && errno != EEXIST) {
		srv_log(s,
			"cannot create /run/sshd: %s; tasks get no ssh server",
			strerror(errno));
		s->sshd = NULL;
		return 0;
	}
	s->host_key = srv_printf("%s/ssh_host_ed25519_key", s->state_dir);
	if (!s->host_key)
		return -1;
	if (access(s->host_key, R_OK) != 0 &&
	    keygen(s, s->host_key, "paictl-local-host") < 0) {
		srv_log(s, "ssh-keygen failed: tasks get no ssh server");
		s->sshd = NULL;
	}
	return 0;
}

char *srv_ssh_key_path(const struct srv_job *j, bool pub)
{
	return srv_printf("%s/ssh/%s%s", j->dir, j->name, pub ? ".pub" : "");
}

/* Makes the job's key pair, once, when somebody first asks for it
 * (GET /ssh or its key): most jobs are never logged into, and
 * ssh-keygen per submission would cost more than running the job. The
 * lock is held, so the main loop cannot reap ssh-keygen meanwhile.
 * 0 when the pair exists (j->ssh), -1 when it cannot be made. */
int srv_ssh_job_keys(struct srv *s, struct srv_job *j)
{
	char *dir = NULL, *key = NULL, *tmp = NULL, *tpub = NULL, *pub = NULL;
	int ret = -1;

	if (j->ssh)
		return 0;
	if (!s->sshd || j->no_ssh)
		return -1;
	dir = srv_printf("%s/ssh", j->dir);
	key = srv_ssh_key_path(j, false);
	pub = srv_ssh_key_path(j, true);
	tmp = srv_printf("%s/.new", dir ? dir : "");
	tpub = srv_printf("%s/.new.pub", dir ? dir : "");
	if (!dir || !key || !pub || !tmp || !tpub)
		goto out;
	if (access(key, R_OK) == 0 && access(pub, R_OK) == 0) {
		ret = 0;
		goto out;
	}
	/* made aside, public half first: the private key's name appearing
	 * means the pair is complete */
	unlink(tmp);
	unlink(tpub);
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) ||
	    keygen(s, tmp, j->key) < 0 || rename(tpub, pub) < 0 ||
	    rename(tmp, key) < 0)
		goto out;
	srv_fsync_dir(dir);
	ret = 0;
out:
	if (ret == 0) {
		j->ssh = true;
		j->dirty = true;
	} else {
		srv_log(s,
			"'%s': cannot make its ssh key pair; its tasks accept "
			"no ssh logins",
			j->key);
		j->no_ssh = true;
	}
	free(dir);
	free(key);
	free(pub);
	free(tmp);
	free(tpub);
	return ret;
}

void srv_ssh_put_quoted(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '"')
			fputc('\\', f);
		fputc(*v, f);
	}
}

/* Writes what f holds (an open_memstream) to path atomically, closing
 * f: a monitor may start sshd on these files at any moment. */
static int put_file(FILE *f, char **buf, size_t *len, const char *path)
{
	int ok = fclose(f) == 0 && *buf &&
		 pai_file_write_atomic(path, *buf, *len, 0600,
				       PAI_WRITE_NO_DIRSYNC) == PAI_OK;

	free(*buf);
	*buf = NULL;
	return ok ? 0 : -1;
}

/* environment="NAME=VALUE", entry being NAME=VALUE; what the format
 * cannot carry is left out. */
static void put_env_option(FILE *f, const char *entry)
{
	size_t len = strlen(entry);

	if (strchr(entry, '\n') || (len && entry[len - 1] == '\\'))
		return;
	fputs("environment=\"", f);
	srv_ssh_put_quoted(f, entry);
	fputs("\",", f);
}

/* The options of every authorized_keys line of a task: its environment
 * as the task has it (the server's HOME, PATH, ... that the job's own
 * variables leave: the session's shell reads the startup files of the
 * task's HOME, not those of the user's passwd entry that sshd would
 * give), and its runtime's (a shell in its working directory, or in its
 * container: ropts). */
static void put_key_options(FILE *f, const struct srv *s, const pai_env *env,
			    const char *ropts)
{
	size_t i;

	fputs("restrict,pty,port-forwarding,", f);
	for (i = 0; i < s->nbase_env; i++)
		if (srv_env_inherits(env, s->base_env[i]))
			put_env_option(f, s->base_env[i]);
	for (i = 0; i < pai_env_count(env); i++) {
		char *e = srv_printf("%s=%s", pai_env_name(env, i),
				     pai_env_value(env, i));

		if (e)
			put_env_option(f, e);
		free(e);
	}
	fputs(ropts, f);
}

/* The user's keys a protocol-v2 job names in its ssh runtime plugin
 * (extras["com.microsoft.pai.runtimeplugin"][].parameters.userssh, as
 * OpenPAI v1.x's runtime lets them in), one line each. */
static void put_user_keys(FILE *f, const struct srv *s,
			  const struct srv_job *j, const pai_env *env,
			  const char *ropts)
{
	json_t *cfg = j->pj ? pai_job_config(j->pj) : NULL, *p;
	json_t *plugins = json_object_get(json_object_get(cfg, "extras"),
					  "com.microsoft.pai.runtimeplugin");
	size_t i;

	json_array_foreach(plugins, i, p)
	{
		json_t *us = json_object_get(json_object_get(p, "parameters"),
					     "userssh");
		const char *key = json_string_value(json_object_get(us, "value"));
		const char *name = json_string_value(json_object_get(p, "plugin"));

		if (!name || strcmp(name, "ssh") != 0 || !key ||
		    strncmp(key, "ssh-", 4) != 0 || strpbrk(key, "\r\n"))
			continue;
		put_key_options(f, s, env, ropts);
		fputs(key, f);
		fputc('\n', f);
	}
}

/* sshd_config and authorized_keys for task t, in its directory, made
 * here if its monitor has not made it yet: the monitor starts
 * `sshd -i -f DIR/sshd_config` per connection, so the files may appear
 * after the task started; each appears whole, the config last. */
int srv_ssh_task_files(struct srv *s, struct srv_job *j,
		       const struct srv_task *t, unsigned port,
		       const pai_env *env)
{
	char *adir = srv_attempt_dir(j), *dir = srv_task_dir(j, t);
	char *cfg = dir ? srv_printf("%s/sshd_config", dir) : NULL;
	char *ak = dir ? srv_printf("%s/authorized_keys", dir) : NULL;
	char *pub = srv_ssh_key_path(j, true), *pubtext = NULL, *buf = NULL;
	char *ropts = s->rt->ssh_options(s, j, t);
	size_t i, len = 0, blen = 0;
	FILE *f = NULL;
	int ret = -1;

	if (!adir || !cfg || !ak || !pub || !ropts ||
	    (mkdir(adir, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0700) < 0 && errno != EEXIST) ||
	    pai_file_read(&pubtext, &len, NULL, pub) != PAI_OK)
		goto out;
	f = open_memstream(&buf, &blen);
	if (!f)
		goto out;
	put_key_options(f, s, env, ropts);
	fwrite(pubtext, 1, len, f);
	if (len && pubtext[len - 1] != '\n')
		fputc('\n', f);
	put_user_keys(f, s, j, env, ropts);
	i = put_file(f, &buf, &blen, ak);
	f = NULL;
	if (i != 0 || !(f = open_memstream(&buf, &blen)))
		goto out;
	fprintf(f,
		"# sshd of one task of %s, written by paictl serve\n"
		"Port %u\nListenAddress 127.0.0.1\n"
		"HostKey \"%s\"\nAuthorizedKeysFile \"%s\"\n"
		"PidFile none\nPubkeyAuthentication yes\n"
		"PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
		"UsePAM no\nStrictModes no\nPermitUserEnvironment yes\n"
		"PermitRootLogin prohibit-password\nPrintMotd no\n"
		"Subsystem sftp internal-sftp\nLogLevel ERROR\n",
		j->key, port, s->host_key, ak);
	i = put_file(f, &buf, &blen, cfg);
	f = NULL;
	ret = i == 0 ? 0 : -1;
out:
	if (f)
		fclose(f);
	free(buf);
	free(cfg);
	free(ak);
	free(pub);
	free(pubtext);
	free(ropts);
	free(dir);
	free(adir);
	return ret;
}
