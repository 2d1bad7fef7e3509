/* slurm_ssh.c - the login node's wire: a Slurm cluster reached by SSH to
 * a login node (ssh://user@host:port), where sbatch, squeue, sacct,
 * scontrol and scancel answer what slurmrestd would (their --json is
 * slurmrestd's data_parser: reference/slurm-next/README.md). One
 * connection (lib/ssh/exec.h) kept for the client's life, an exec
 * channel per command, every word single-quoted; the batch script
 * written over SFTP into the job's directory. The module's requests
 * (GET jobs, GET job/ID, POST job/submit, DELETE job/ID, GET nodes, GET
 * ping, accounting's jobs) are answered here by the command that does
 * the same, in the same JSON, so that everything above the wire
 * (slurm_submit.c's checks, the comment that finds a lost submission,
 * the states, the tasks' records) is the same for both. */
#include "slurm_api.h"

#include "ssh/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long one command may take (sbatch on a busy controller). */
#define CMD_TIMEOUT_MS 120000
/* Most of a task's file one read returns: the caller reads on. */
#define FILE_READ_MAX ((size_t)16 << 20)

/* ---- the connection --------------------------------------------------------
 */

int pai__slurm_login_uri(const char *uri, char **user, char **host, long *port)
{
	const char *p = uri + 6, *at, *end, *h;
	size_t n;
	char *e;

	*user = *host = NULL;
	*port = 22;
	if (strncmp(uri, "ssh://", 6) != 0)
		return PAI_EINVAL;
	end = p + strcspn(p, "/");
	if ((at = memchr(p, '@', (size_t)(end - p)))) {
		if (at == p || !(*user = strndup(p, (size_t)(at - p))))
			return at == p ? PAI_EINVAL : PAI_ENOMEM;
		p = at + 1;
	}
	if (*p == '[') { /* [v6 address] */
		h = ++p;
		if (!(p = memchr(p, ']', (size_t)(end - p))))
			goto bad;
		n = (size_t)(p++ - h);
	} else {
		h = p;
		n = strcspn(p, ":/");
		p += n;
	}
	if (n == 0 || memchr(h, ' ', n))
		goto bad;
	if (*p == ':') {
		*port = strtol(p + 1, &e, 10);
		if (e == p + 1 || e != end || *port < 1 || *port > 65535)
			goto bad;
	} else if (p != end)
		goto bad;
	if (*end && strcmp(end, "/") != 0)
		goto bad;
	if (!(*host = strndup(h, n))) {
		free(*user);
		*user = NULL;
		return PAI_ENOMEM;
	}
	return PAI_OK;
bad:
	free(*user);
	*user = NULL;
	return PAI_EINVAL;
}

/* A login node met for the first time: its key recorded, and the caller
 * told as OpenSSH tells ("Permanently added '[host]:port' (type)"). */
static void told_learned(const pai_ssh_options *o, pai_ssh *ssh)
{
	const char *fp = pai_ssh_hostkey_fingerprint(ssh);
	char name[300], type[64] = "?";

	if (!o->learned || pai_ssh_hostkey_status(ssh) != PAI_SSH_HOSTKEY_NEW)
		return;
	if (o->port == 22)
		snprintf(name, sizeof(name), "%s", o->host);
	else
		snprintf(name, sizeof(name), "[%s]:%ld", o->host, o->port);
	if (fp)
		snprintf(type, sizeof(type), "%.*s", (int)strcspn(fp, " "), fp);
	o->learned(o->learned_data, name, type, o->known_hosts);
}

/* The connection to the login node: the one kept, or a new one (the
 * kept one cut). Keys, agent and known_hosts as pai_client_set_sftp()
 * says. */
int pai__slurm_ssh_login(pai_ssh **out, pai_client *c)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai_ssh_options o;
	int err;

	if (s->login && !pai__ssh_dead(s->login)) {
		*out = s->login;
		return PAI_OK;
	}
	pai_ssh_free(s->login);
	s->login = NULL;
	if (!s->sftp.known_hosts)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"no known_hosts file for the login "
					"node %s (pai_client_set_sftp)",
					s->login_host);
	o = s->sftp;
	o.host = s->login_host;
	o.port = s->login_port;
	o.user = s->login_user ? s->login_user : s->user;
	/* the profile's key for its login node, else the caller's */
	if (s->s.identity_file)
		o.key_file = s->s.identity_file;
	o.host_key_alias = NULL;
	if ((err = pai_ssh_new(&s->login, &o)))
		return pai__client_fail(
		    c, err, 0, NULL, "cannot reach the login node %s: %s",
		    o.host,
		    err == PAI_EINVAL ? "no key and no ssh-agent"
				      : pai_strerror(err));
	if ((err = pai_ssh_connect(s->login))) {
		pai__client_fail(c, err, 0, NULL, "login node %s: %s", o.host,
				 pai_ssh_detail(s->login));
		pai_ssh_free(s->login);
		s->login = NULL;
		return err;
	}
	told_learned(&o, s->login);
	*out = s->login;
	return PAI_OK;
}

/* cmd run on the login node: *o its output (released by the caller).
 * *sent: the command went out (its effect may have happened). */
int pai__slurm_ssh_run(pai_client *c, const char *cmd, struct pai__ssh_out *o,
		       int *sent)
{
	pai_ssh *ssh;
	int err;

	memset(o, 0, sizeof(*o));
	if (sent)
		*sent = 0;
	if ((err = pai__slurm_ssh_login(&ssh, c)))
		return err;
	if (sent)
		*sent = 1;
	err = pai__ssh_exec(ssh, cmd, PAI__SLURM_OUT_MAX, CMD_TIMEOUT_MS, o);
	if (err)
		return pai__client_fail(c, err, 0, NULL, "login node %s: %s",
					pai__slurm_of(c)->login_host,
					pai_ssh_detail(ssh));
	if (o->out_cut)
		return pai__client_fail(c, PAI_ETOOBIG, 0, NULL,
					"'%.40s' on %s printed more than %u "
					"bytes",
					cmd, pai__slurm_of(c)->login_host,
					PAI__SLURM_OUT_MAX);
	return PAI_OK;
}

void pai__slurm_ssh_line(char *dst, size_t size, const pai__buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->len && b->data[i] != '\n' && n + 1 < size; i++) {
		unsigned char ch = (unsigned char)b->data[i];

		dst[n++] = ch < ' ' || ch == 0x7f ? '?' : (char)ch;
	}
	dst[n] = '\0';
}

/* A command that failed, said by its first line of stderr: "Invalid
 * job id" PAI_ENOTFOUND, else PAI_EINVAL (a refusal, as slurmrestd's). */
int pai__slurm_ssh_refused(pai_client *c, const char *what,
			   struct pai__ssh_out *o)
{
	char line[300];

	pai__slurm_ssh_line(line, sizeof(line), &o->err);
	if (strstr(line, "Invalid job id"))
		return pai__client_fail(c, PAI_ENOTFOUND, 404, NULL, "%s: %s",
					what, line);
	if (o->status == 127)
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"%s: not found on the login node %s",
					what, pai__slurm_of(c)->login_host);
	return pai__client_fail(c, PAI_EINVAL, 400, NULL,
				"%s failed (exit status %d): %s", what,
				o->status, *line ? line : "no message");
}

/* What command what printed (o, its exit status 0 or not) as JSON (an
 * object with a list named list) in *out, new. */
static int json_of(json_t **out, pai_client *c, struct pai__ssh_out *o,
		   const char *what, const char *list)
{
	*out = NULL;
	if (o->status != 0)
		return pai__slurm_ssh_refused(c, what, o);
	if (!(*out = json_loadb(o->out.data ? o->out.data : "", o->out.len, 0,
				NULL)) ||
	    !json_is_array(json_object_get(*out, list))) {
		json_decref(*out);
		*out = NULL;
		return pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
					"%s printed no JSON with a \"%s\" list",
					what, list);
	}
	return PAI_OK;
}

/* cmd's stdout as JSON (json_of()) in *out, new. */
static int run_json(json_t **out, pai_client *c, const char *cmd,
		    const char *what, const char *list)
{
	struct pai__ssh_out o;
	int err;

	*out = NULL;
	if (!(err = pai__slurm_ssh_run(c, cmd, &o, NULL)))
		err = json_of(out, c, &o, what, list);
	pai__ssh_out_release(&o);
	return err;
}

/* ---- jobs: squeue's and sacct's, --json or --format --------------------- */

/* --json itself refused, as a Slurm before 21.08 refuses it
 * ("unrecognized option '--json'"): the first line of stderr names it. */
static int json_refused(const struct pai__ssh_out *o)
{
	char line[300];

	pai__slurm_ssh_line(line, sizeof(line), &o->err);
	return o->status != 0 && o->status != 127 && strstr(line, "json");
}

/* prog (squeue, sacct) with --json and args: *out its answer, new; 1
 * (nothing said) when --json was refused, the client knowing it from
 * then on. */
static int jobs_json(json_t **out, pai_client *c, const char *prog,
		     const char *args)
{
	pai__buf cmd = PAI__BUF_INIT;
	struct pai__ssh_out o;
	int err;

	pai__buf_printf(&cmd, "%s --json%s", prog, args);
	if (cmd.oom)
		return pai__client_oom(c);
	err = pai__slurm_ssh_run(c, cmd.data, &o, NULL);
	if (!err && json_refused(&o)) {
		pai__slurm_of(c)->no_json = 1;
		err = 1;
	} else if (!err)
		err = json_of(out, c, &o, prog, "jobs");
	pai__ssh_out_release(&o);
	pai__buf_release(&cmd);
	return err;
}

/* prog's --format columns (slurm_cmd_out.c's, split by a byte no field
 * holds) with args, read strictly, as --json's answer in *out (new). */
static int jobs_fmt(json_t **out, pai_client *c, const char *prog,
		    const char *args, int acct)
{
	pai__buf cmd = PAI__BUF_INIT;
	struct pai__ssh_out o;
	char *spec = pai__slurm_fmt_spec(acct);
	size_t bad = 0;
	int err;

	pai__buf_printf(&cmd, "%s --noheader", prog);
	if (acct) {
		pai__buf_puts(&cmd, " --parsable2 --delimiter=");
		pai__sh_quote(&cmd, PAI__SLURM_DELIM_S);
	}
	pai__buf_puts(&cmd, " --format=");
	pai__sh_quote(&cmd, spec ? spec : "");
	pai__buf_puts(&cmd, args);
	free(spec);
	if (!spec || cmd.oom) {
		pai__buf_release(&cmd);
		return pai__client_oom(c);
	}
	if (!(err = pai__slurm_ssh_run(c, cmd.data, &o, NULL)) && o.status)
		err = pai__slurm_ssh_refused(c, prog, &o);
	if (!err && (err = pai__slurm_fmt_answer(
			 out, &bad, o.out.data ? o.out.data : "", o.out.len,
			 acct)))
		err = err == PAI_ENOMEM
			  ? pai__client_oom(c)
			  : pai__client_fail(c, err, 0, NULL,
					     "%s --format printed line %zu "
					     "not as asked",
					     prog, bad);
	pai__ssh_out_release(&o);
	pai__buf_release(&cmd);
	return err;
}

/* The jobs prog (squeue; sacct: acct) selects with args (" --all ...",
 * each word quoted), as --json's answer in *out (new): --json where the
 * Slurm has it, else --format. */
static int run_jobs(json_t **out, pai_client *c, const char *prog,
		    const char *args, int acct)
{
	int err = 1;

	*out = NULL;
	if (!pai__slurm_of(c)->no_json)
		err = jobs_json(out, c, prog, args);
	return err == 1 ? jobs_fmt(out, c, prog, args, acct) : err;
}

/* ---- what the module asks ---------------------------------------------------
 */

/* A job id in "job/ID": > 0, or 0. */
static long long path_id(const char *path)
{
	char *end;
	long long id;

	if (strncmp(path, "job/", 4) != 0 || path[4] < '1' || path[4] > '9')
		return 0;
	id = strtoll(path + 4, &end, 10);
	return *end ? 0 : id;
}

static int ping(json_t **out, pai_client *c)
{
	struct pai__ssh_out o;
	char v[64] = "";
	int err;

	if ((err = pai__slurm_ssh_run(c, "sbatch --version", &o, NULL)))
		goto out;
	if (o.status != 0) {
		err = pai__slurm_ssh_refused(c, "sbatch", &o);
		goto out;
	}
	/* "slurm 24.11.5" (or "slurm-wlm 24.11.5") */
	if (!o.out.data || sscanf(o.out.data, "%*s %63s", v) != 1) {
		err = pai__client_fail(c, PAI_EPROTOCOL, 0, NULL,
				       "'sbatch --version' printed no version");
		goto out;
	}
	if (out &&
	    !(*out = json_pack("{s:[],s:{s:{s:s}},s:s,s:s}", "pings", "meta",
			       "slurm", "release", v, "wire", "ssh", "login",
			       pai__slurm_of(c)->login_host)))
		err = pai__client_oom(c);
out:
	pai__ssh_out_release(&o);
	return err;
}

static int cancel(pai_client *c, long long id)
{
	struct pai__ssh_out o;
	char cmd[64];
	int err;

	snprintf(cmd, sizeof(cmd), "scancel %lld", id);
	if (!(err = pai__slurm_ssh_run(c, cmd, &o, NULL)) && o.status != 0)
		err = pai__slurm_ssh_refused(c, "scancel", &o);
	pai__ssh_out_release(&o);
	return err;
}

int pai__slurm_ssh_call(json_t **out, pai_client *c, const char *method,
			const char *path, json_t *body, int safe, int *maybe)
{
	long long id = path_id(path);
	json_t *o = NULL;
	char cmd[96];
	int err;

	(void)safe;
	if (out)
		*out = NULL;
	if (maybe)
		*maybe = 0;
	if (strcmp(method, "POST") == 0 && strcmp(path, "job/submit") == 0)
		return pai__slurm_ssh_submit(out, c, body, maybe);
	if (strcmp(method, "DELETE") == 0 && id)
		return cancel(c, id);
	if (strcmp(method, "GET") != 0)
		goto unknown;
	if (strcmp(path, "ping") == 0)
		return ping(out, c);
	if (strcmp(path, "jobs") == 0)
		err = run_jobs(&o, c, "squeue", " --all --states=all", 0);
	else if (id) {
		snprintf(cmd, sizeof(cmd), " --all --states=all --jobs=%lld",
			 id);
		err = run_jobs(&o, c, "squeue", cmd, 0);
	} else if (strcmp(path, "nodes") == 0)
		err = run_json(&o, c, "scontrol show nodes --json", "scontrol",
			       "nodes");
	else
		goto unknown;
	if (!err && out)
		*out = o;
	else
		json_decref(o);
	return err;
unknown:
	return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
				"the login node's wire has no %s %s", method,
				path);
}

/* ---- accounting: sacct ------------------------------------------------- */

/* The value of key in query ("a=b&c=d"), %-decoded, in out (size). */
static int query(const char *q, const char *key, char *out, size_t size)
{
	size_t k = strlen(key), n = 0;
	const char *p;
	unsigned x;

	for (p = q; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
		if (strncmp(p, key, k) == 0 && p[k] == '=') {
			for (p += k + 1; *p && *p != '&' && n + 1 < size; p++)
				if (*p == '%' &&
				    sscanf(p + 1, "%2x", &x) == 1 && x) {
					out[n++] = (char)x;
					p += 2;
				} else
					out[n++] = *p == '+' ? ' ' : *p;
			out[n] = '\0';
			return *p && *p != '&' ? -1 : 1;
		}
	return 0;
}

int pai__slurm_ssh_db_get(json_t **out, pai_client *c, const char *path)
{
	pai__buf cmd = PAI__BUF_INIT;
	char v[1024];
	long long since;
	int err;

	*out = NULL;
	if (strncmp(path, "jobs?", 5) != 0)
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"the login node's wire has no "
					"accounting's %s",
					path);
	if (query(path + 5, "users", v, sizeof(v)) == 1) {
		pai__buf_puts(&cmd, " --user=");
		pai__sh_quote(&cmd, v);
	}
	if (query(path + 5, "job_name", v, sizeof(v)) == 1) {
		pai__buf_puts(&cmd, " --name=");
		pai__sh_quote(&cmd, v);
	}
	/* relative to the login node's clock: no time zone to guess */
	if (query(path + 5, "start_time", v, sizeof(v)) == 1 &&
	    (since = strtoll(v, NULL, 10)) > 0)
		pai__buf_printf(&cmd, " --starttime=now-%lld",
				(long long)time(NULL) - since > 0
				    ? (long long)time(NULL) - since
				    : 0);
	if (cmd.oom) {
		pai__buf_release(&cmd);
		return pai__client_oom(c);
	}
	err = run_jobs(out, c, "sacct", cmd.data ? cmd.data : "", 1);
	pai__buf_release(&cmd);
	/* a Slurm without slurmdbd: as slurmrestd without accounting */
	if (err == PAI_EINVAL)
		err = pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
				       "the login node %s has no accounting",
				       pai__slurm_of(c)->login_host);
	return err;
}

/* ---- the tasks' files, over SFTP on the same connection ---------------- */

static int file_read(char **data, size_t *len, long long *next, pai_client *c,
		     const char *path, long long offset)
{
	pai__buf b = PAI__BUF_INIT;
	pai_ssh *ssh;
	int err;

	if ((err = pai__slurm_ssh_login(&ssh, c)))
		return err;
	if ((err = pai__ssh_get(ssh, path, &offset, FILE_READ_MAX, &b))) {
		pai__buf_release(&b);
		return pai__client_fail(c, err, 0, NULL, "login node %s: %s",
					pai__slurm_of(c)->login_host,
					pai_ssh_detail(ssh));
	}
	pai__buf_putc(&b, '\0');
	if (b.oom) {
		pai__buf_release(&b);
		return pai__client_oom(c);
	}
	*len = b.len - 1;
	*next = offset + (long long)*len;
	*data = pai__buf_detach(&b);
	return PAI_OK;
}

const struct pai__slurm_ops pai__slurm_ssh_ops = {
    "ssh", pai__slurm_ssh_call, pai__slurm_ssh_db_get, file_read};
