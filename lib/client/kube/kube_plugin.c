/* kube_plugin.c - exec credential plugins (§1.5): KUBERNETES_EXEC_INFO,
 * running the command without a shell (posix_spawn, argv as
 * configured), a deadline so that a hung plugin cannot hang paictl, and
 * the output checked as client-go's exec.go checks it. The plugin's
 * stdout holds a credential: it is never quoted in a detail. */
#include "kube.h"
#include "client/json_values.h"
#include "client/url.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define EXEC_INFO "KUBERNETES_EXEC_INFO"
/* A credential is a few KB; more is not one. */
#define MAX_OUTPUT ((size_t)1 << 20)

/* ---- KUBERNETES_EXEC_INFO ----------------------------------------------- */

/* The CA as spec.cluster carries it: the data, or the file's bytes. */
static int ca_base64(json_t *cluster, const pai__kube_config *cfg,
		     pai__kube_err *err)
{
	char *text = NULL, *b = NULL;
	const void *ca = cfg->ca_data;
	size_t len = cfg->ca_len;
	int sys = 0, ret = PAI_OK;

	if (!ca && cfg->ca_file) {
		ret = pai_file_read_max(&text, &len, &sys, cfg->ca_file,
					PAI__KUBE_MAX_FILE);
		if (ret)
			return pai__kube_fail(err, ret,
					      "cannot read certificate-"
					      "authority '%s': %s",
					      cfg->ca_file, strerror(sys));
		ca = text;
	}
	if (ca && !(b = malloc(4 * ((len + 2) / 3) + 1)))
		ret = PAI_ENOMEM;
	if (ca && b) {
		pai__base64_encode(b, ca, len);
		if (json_object_set_new(cluster, "certificate-authority-data",
					json_string(b)))
			ret = PAI_ENOMEM;
	}
	free(b);
	free(text);
	return ret;
}

static int set_str(json_t *o, const char *key, const char *v)
{
	return v && json_object_set_new(o, key, json_string(v)) ? PAI_ENOMEM
								: PAI_OK;
}

/* spec.cluster (provideClusterInfo), as clientauthentication's Cluster. */
static int exec_cluster(json_t *spec, const pai__kube_config *cfg,
			pai__kube_err *err)
{
	json_t *c = json_object();
	int ret = c ? PAI_OK : PAI_ENOMEM;

	if (!ret &&
	    ((ret = set_str(c, "server", cfg->server)) ||
	     (ret = set_str(c, "tls-server-name", cfg->tls_server_name)) ||
	     (ret = set_str(c, "proxy-url", cfg->proxy_url))))
		goto out;
	if (!ret && cfg->insecure &&
	    json_object_set_new(c, "insecure-skip-tls-verify", json_true()))
		ret = PAI_ENOMEM;
	if (!ret && (ret = ca_base64(c, cfg, err)))
		goto out;
	if (!ret && cfg->exec->cluster_config &&
	    json_object_set(c, "config", cfg->exec->cluster_config))
		ret = PAI_ENOMEM;
	if (!ret && json_object_set(spec, "cluster", c))
		ret = PAI_ENOMEM;
out:
	json_decref(c);
	return ret;
}

char *pai__kube_exec_info(const pai__kube_config *cfg, int interactive,
			  int *err_code, pai__kube_err *err)
{
	json_t *o = json_object(), *spec = json_object();
	char *s = NULL;
	int ret = o && spec ? PAI_OK : PAI_ENOMEM;

	if (!ret && (json_object_set_new(o, "kind",
					 json_string("Exec"
						     "Credential")) ||
		     json_object_set_new(o, "apiVersion",
					 json_string(cfg->exec->api_version)) ||
		     json_object_set_new(spec, "interactive",
					 json_boolean(interactive))))
		ret = PAI_ENOMEM;
	if (!ret && cfg->exec->provide_cluster_info)
		ret = exec_cluster(spec, cfg, err);
	if (!ret && json_object_set(o, "spec", spec))
		ret = PAI_ENOMEM;
	if (!ret && !(s = pai__json_dumps(o, JSON_COMPACT)))
		ret = PAI_ENOMEM;
	json_decref(spec);
	json_decref(o);
	*err_code = ret;
	return s;
}

/* ---- the output -------------------------------------------------------------
 */

void pai__kube_plugin_out_release(pai__kube_plugin_out *o)
{
	pai__free_secret(o->token);
	pai__wipe(o->key, o->key_len);
	free(o->cert);
	free(o->key);
	memset(o, 0, sizeof(*o));
}

static int dup_field(char **out, size_t *len, const json_t *status,
		     const char *key)
{
	const json_t *v = json_object_get(status, key);

	*out = NULL;
	if (!json_is_string(v) || json_string_length(v) == 0)
		return PAI_OK;
	if (!(*out = malloc(json_string_length(v) + 1)))
		return PAI_ENOMEM;
	memcpy(*out, json_string_value(v), json_string_length(v) + 1);
	if (len)
		*len = json_string_length(v);
	return PAI_OK;
}

static int check_status(pai__kube_plugin_out *o, const json_t *status,
			pai__kube_err *err)
{
	const json_t *exp = json_object_get(status, "expirationTimestamp");
	const char *e = json_string_value(exp);

	if (dup_field(&o->token, NULL, status, "token") ||
	    dup_field((char **)&o->cert, &o->cert_len, status,
		      "clientCertificateData") ||
	    dup_field((char **)&o->key, &o->key_len, status, "clientKeyData"))
		return PAI_ENOMEM;
	if (!o->cert != !o->key)
		return pai__kube_fail(err, PAI_EAUTH,
				      "exec plugin returned only certificate "
				      "or key, not both");
	if (!o->token && !o->cert)
		return pai__kube_fail(err, PAI_EAUTH,
				      "exec plugin didn't return a token or "
				      "cert/key pair");
	if (e && *e) {
		o->has_expiry = 1;
		if (pai__kube_time_parse(&o->expiry, e, strlen(e)) != strlen(e))
			return pai__kube_fail(err, PAI_EAUTH,
					      "exec plugin returned an invalid "
					      "expirationTimestamp");
	} else if (exp && !json_is_null(exp) && !e)
		return pai__kube_fail(err, PAI_EAUTH,
				      "exec plugin returned an invalid "
				      "expirationTimestamp");
	return PAI_OK;
}

int pai__kube_plugin_parse(pai__kube_plugin_out *o, const char *api_version,
			   const char *text, size_t len, pai__kube_err *err)
{
	json_error_t jerr;
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *v = json_string_value(json_object_get(j, "apiVersion"));
	const char *kind = json_string_value(json_object_get(j, "kind"));
	const json_t *status = json_object_get(j, "status");
	int ret;

	memset(o, 0, sizeof(*o));
	if (!j && json_error_code(&jerr) == json_error_out_of_memory)
		return PAI_ENOMEM;
	/* jansson's message may quote the text: only its line */
	if (!json_is_object(j))
		ret = pai__kube_fail(err, PAI_EAUTH,
				     "exec plugin: its output is not an "
				     "ExecCredential (JSON, line %d)",
				     j ? 1 : jerr.line);
	else if (!kind || strcmp(kind, "ExecCredential") != 0 || !v ||
		 strcmp(v, api_version) != 0)
		ret = pai__kube_fail(err, PAI_EAUTH,
				     "exec plugin is configured to use API "
				     "version %s, plugin returned version %s",
				     api_version, v ? v : "(none)");
	else if (!json_is_object(status))
		ret = pai__kube_fail(err, PAI_EAUTH,
				     "exec plugin didn't return a status "
				     "field");
	else
		ret = check_status(o, status, err);
	json_decref(j);
	if (ret)
		pai__kube_plugin_out_release(o);
	return ret;
}

/* ---- running it ---------------------------------------------------------- */

/* The command's path into *out (new): as configured when it has a '/',
 * else the first executable of that name in $PATH, as Go's
 * exec.LookPath finds it. PAI_ENOTFOUND, PAI_ENOMEM. */
static int look_path(char **out, const char *cmd)
{
	const char *path = getenv("PATH"), *p, *e;
	pai__buf b = PAI__BUF_INIT;
	struct stat st;

	*out = NULL;
	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK) != 0)
			return PAI_ENOTFOUND;
		return (*out = strdup(cmd)) ? PAI_OK : PAI_ENOMEM;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; p; p = e) {
		e = strchr(p, ':');
		pai__buf_put(&b, p, e ? (size_t)(e - p) : strlen(p));
		if (b.len == 0)
			pai__buf_putc(&b, '.');
		pai__buf_printf(&b, "/%s", cmd);
		if (b.oom)
			return PAI_ENOMEM;
		if (stat(b.data, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(b.data, X_OK) == 0)
			return (*out = pai__buf_detach(&b)) ? PAI_OK
							    : PAI_ENOMEM;
		pai__buf_release(&b);
		e = e ? e + 1 : NULL;
	}
	return PAI_ENOTFOUND;
}

static int not_found(const pai__kube_plugin *p, pai__kube_err *err)
{
	char hint[400] = "";
	size_t i;

	/* the hint goes on the one line, its line breaks as spaces */
	if (p->install_hint) {
		snprintf(hint, sizeof(hint), ": %s", p->install_hint);
		for (i = 0; hint[i]; i++)
			if (hint[i] == '\n' || hint[i] == '\r' ||
			    hint[i] == '\t')
				hint[i] = ' ';
	}
	return pai__kube_fail(err, PAI_EAUTH,
			      "exec plugin: executable %s not found%s",
			      p->command, hint);
}

/* Our environment, exec.env and KUBERNETES_EXEC_INFO, a later name
 * replacing an earlier one (as Go's os/exec keeps the last). */
static char **plugin_env(const pai__kube_plugin *p, char *info)
{
	size_t n = 0, k = 0, i, j;
	char **env, **all;

	while (environ && environ[n])
		n++;
	if (!(env = calloc(n + p->nenv + 2, sizeof(*env))) ||
	    !(all = calloc(n + p->nenv + 2, sizeof(*all)))) {
		free(env);
		return NULL;
	}
	for (i = 0; i < n; i++)
		all[i] = environ[i];
	for (j = 0; j < p->nenv; j++)
		all[i++] = p->env[j];
	all[i++] = info;
	for (j = 0; j < i; j++) {
		size_t name = strcspn(all[j], "=");
		size_t later;

		for (later = j + 1; later < i; later++)
			if (strncmp(all[later], all[j], name + 1) == 0)
				break;
		if (later == i)
			env[k++] = all[j];
	}
	free(all);
	return env;
}


struct run {
	pid_t pid;
	int out;	    /* the read end of its stdout */
	long long deadline; /* on the monotonic clock, ms */
	pai__buf buf;
	int spawn_errno;
};

static int spawn(struct run *r, const char *path, const pai__kube_plugin *p,
		 char **env, int in_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char **argv = calloc(p->nargs + 2, sizeof(*argv));
	int fds[2] = {-1, -1}, ret = PAI_ENOMEM;
	sigset_t all, none;
	size_t i;

	if (!argv)
		return PAI_ENOMEM;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		r->spawn_errno = errno;
		free(argv);
		return PAI_EIO;
	}
	argv[0] = p->command;
	for (i = 0; i < p->nargs; i++)
		argv[i + 1] = p->args[i];
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	/* signals we ignore or block are not the plugin's business */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF |
					  POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	if (in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
						 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	/* nothing of ours beyond 0-2: not the apiserver's connection, not
	 * a token file a caller holds open */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
	r->spawn_errno = posix_spawn(&r->pid, path, &fa, &at, argv, env);
	ret = r->spawn_errno ? PAI_EIO : PAI_OK;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(fds[1]);
	r->out = fds[0];
	if (ret)
		close(fds[0]);
	free(argv);
	return ret;
}

/* Reads its stdout to the end, within the deadline and MAX_OUTPUT. */
static int collect(struct run *r)
{
	struct pollfd pfd = {r->out, POLLIN, 0};
	char chunk[4096];
	ssize_t got;
	long long left;

	for (;;) {
		if ((left = r->deadline - pai__now_ms()) <= 0)
			return PAI_ETIMEOUT;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) < 0 &&
		    errno != EINTR)
			return PAI_EIO;
		if (!pfd.revents)
			continue;
		got = read(r->out, chunk, sizeof(chunk));
		if (got == 0)
			return PAI_OK;
		if (got < 0 && errno != EINTR && errno != EAGAIN)
			return PAI_EIO;
		if (got > 0)
			pai__buf_put(&r->buf, chunk, (size_t)got);
		if (r->buf.oom)
			return PAI_ENOMEM;
		if (r->buf.len > MAX_OUTPUT)
			return PAI_ETOOBIG;
	}
}

/* Its exit status, waiting until the deadline; then it is killed and
 * the answer is PAI_ETIMEOUT. */
static int reap(struct run *r, int kill_now, int *status)
{
	int ret = PAI_OK;
	pid_t got;

	if (kill_now)
		kill(r->pid, SIGKILL);
	for (;;) {
		got = waitpid(r->pid, status, kill_now ? 0 : WNOHANG);
		if (got == r->pid)
			return ret;
		/* ECHILD: SIGCHLD ignored by the program, no status kept */
		if (got < 0 && errno != EINTR)
			return errno == ECHILD ? ret : PAI_EIO;
		if (got == 0 && pai__now_ms() >= r->deadline) {
			kill(r->pid, SIGKILL);
			kill_now = 1;
			ret = PAI_ETIMEOUT;
		} else if (got == 0)
			usleep(5000);
	}
}

static int run_failed(const pai__kube_plugin *p, int ret, int status,
		      long timeout_ms, pai__kube_err *err)
{
	if (ret == PAI_ETIMEOUT)
		return pai__kube_fail(err, ret,
				      "exec plugin %s did not finish within "
				      "%ld s",
				      p->command, timeout_ms / 1000);
	if (ret == PAI_ETOOBIG)
		return pai__kube_fail(
		    err, PAI_EAUTH, "exec plugin %s wrote more than %zu bytes",
		    p->command, MAX_OUTPUT);
	if (ret)
		return ret == PAI_ENOMEM
			   ? ret
			   : pai__kube_fail(
				 err, ret,
				 "exec plugin %s: reading its output "
				 "failed",
				 p->command);
	if (WIFSIGNALED(status))
		return pai__kube_fail(err, PAI_EAUTH,
				      "exec plugin %s was killed by signal %d",
				      p->command, WTERMSIG(status));
	return pai__kube_fail(err, PAI_EAUTH,
			      "exec plugin %s failed with exit code %d",
			      p->command, WEXITSTATUS(status));
}

/* The stdin the plugin gets, and spec.interactive (§1.5). */
static int stdin_for(const pai__kube_plugin *p, int stdin_fd, int *in_fd,
		     int *interactive, pai__kube_err *err)
{
	int tty = stdin_fd >= 0 && isatty(stdin_fd);

	*in_fd = -1;
	*interactive = 0;
	if (p->interactive_mode == PAI__KUBE_INTERACTIVE_NEVER)
		return PAI_OK;
	if (!tty && p->interactive_mode == PAI__KUBE_INTERACTIVE_ALWAYS)
		return pai__kube_fail(err, PAI_EAUTH,
				      "exec plugin %s needs a terminal "
				      "(interactiveMode Always), and standard "
				      "input is not one",
				      p->command);
	if (tty) {
		*in_fd = stdin_fd;
		*interactive = 1;
	}
	return PAI_OK;
}

/* What the plugin runs with: its path, environment (*var holds the
 * KUBERNETES_EXEC_INFO entry that *env points to). */
static int prepare(char **path, char ***env, char **var,
		   const pai__kube_config *cfg, int interactive,
		   pai__kube_err *err)
{
	pai__buf b = PAI__BUF_INIT;
	char *info;
	int ret;

	if ((ret = look_path(path, cfg->exec->command)))
		return ret == PAI_ENOTFOUND ? not_found(cfg->exec, err) : ret;
	if (!(info = pai__kube_exec_info(cfg, interactive, &ret, err)))
		return ret;
	pai__buf_printf(&b, "%s=%s", EXEC_INFO, info);
	free(info);
	if (!(*var = pai__buf_detach(&b)) ||
	    !(*env = plugin_env(cfg->exec, *var)))
		return PAI_ENOMEM;
	return PAI_OK;
}

int pai__kube_plugin_run(pai__kube_plugin_out *out, const pai__kube_config *cfg,
			 int stdin_fd, long timeout_ms, pai__kube_err *err)
{
	const pai__kube_plugin *p = cfg->exec;
	struct run r = {0, -1, 0, PAI__SECRET_BUF_INIT, 0};
	char *path = NULL, *var = NULL, **env = NULL;
	int ret, status = 0, in_fd, interactive;

	memset(out, 0, sizeof(*out));
	if (!p)
		return PAI_EINVAL;
	if (timeout_ms <= 0)
		timeout_ms = 60000;
	if ((ret = stdin_for(p, stdin_fd, &in_fd, &interactive, err)) ||
	    (ret = prepare(&path, &env, &var, cfg, interactive, err)))
		goto out;
	r.deadline = pai__now_ms() + timeout_ms;
	if ((ret = spawn(&r, path, p, env, in_fd)) == PAI_ENOMEM)
		goto out;
	if (ret) {
		ret = pai__kube_fail(err, PAI_EAUTH,
				     "exec plugin %s: cannot run it: %s",
				     p->command, strerror(r.spawn_errno));
		goto out;
	}
	ret = collect(&r);
	close(r.out);
	if (reap(&r, ret != PAI_OK, &status) == PAI_ETIMEOUT && !ret)
		ret = PAI_ETIMEOUT;
	if (ret || !WIFEXITED(status) || WEXITSTATUS(status))
		ret = run_failed(p, ret, status, timeout_ms, err);
	else
		ret = pai__kube_plugin_parse(out, p->api_version,
					     r.buf.data ? r.buf.data : "",
					     r.buf.len, err);
out:
	pai__buf_wipe(&r.buf); /* a token, a key */
	free(env);
	free(var);
	free(path);
	return ret;
}
