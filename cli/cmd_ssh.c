/* cmd_ssh.c - paictl ssh: a shell or a command in a task's container,
 * in-process with libssh2
 *
 * Every failure of paictl's own exits 255, as ssh does, because every
 * other status may be the remote command's. COMMAND after "--": one
 * argument is a command line for the remote shell, as with ssh
 * ('echo $HOME' expands there); several are quoted for that shell one by
 * one, so that each reaches the remote command as one argument, as
 * given. Nothing is ever run through a local shell.
 */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define EXIT_SSH 255

enum { OPT_ACCEPT_NEW = 1100 };

const cli_opt cli_ssh_opts[] = {
    {"login", 'l', "USER", NULL,
     "log in as USER (default: root; on the local cluster, its owner)"},
    {"tty", 't', NULL, NULL, "a terminal for COMMAND too"},
    {"accept-new-host-key", OPT_ACCEPT_NEW, NULL, NULL,
     "replace a recorded host key that changed (a recreated container)"},
    {"identity", 'i', "FILE", NULL,
     "log in with this private key (default: the job's; on OpenPAI v1.x "
     "your ~/.ssh key and ssh-agent)"},
    CLI_OPT_END};

struct ssh_args {
	const char *login;
	int tty;
	int accept_new;
	const char *identity;
	/* the operands */
	const char *ref, *role;
	long index;
	char *command; /* after "--", or NULL: a shell */
};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct ssh_args *a = data;

	(void)ctx;
	switch (key) {
	case 'l': a->login = arg; return 0;
	case 't': a->tty = 1; return 0;
	case OPT_ACCEPT_NEW: a->accept_new = 1; return 0;
	case 'i': a->identity = arg; return 0;
	}
	return EXIT_USAGE;
}

/* ---- the local terminal ----------------------------------------------- */

static struct termios saved_tio;
static volatile sig_atomic_t raw_on;
static volatile int winch;

static void restore_tty(void)
{
	if (raw_on) {
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_tio);
		raw_on = 0;
	}
}

/* a signal that ends paictl: the terminal back first */
static void on_fatal(int sig)
{
	restore_tty();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_winch(int sig)
{
	(void)sig;
	winch = 1;
}

/* Raw mode as ssh sets it: every byte, ^C and ^Z included, goes on. */
static int enter_raw(void)
{
	static const int fatal[] = {SIGTERM, SIGHUP, SIGPIPE, SIGQUIT};
	struct termios tio;
	struct sigaction sa;
	size_t i;

	if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		return -1;
	tio = saved_tio;
	tio.c_iflag |= IGNPAR;
	tio.c_iflag &= ~(ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXANY | IXOFF);
	tio.c_lflag &=
	    ~(ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHONL | IEXTEN);
	tio.c_oflag &= ~OPOST;
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	raw_on = 1;
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &tio) < 0) {
		raw_on = 0;
		return -1;
	}
	return 0;
}

static int window_size(void *data, unsigned *cols, unsigned *rows)
{
	struct winsize ws;

	(void)data;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) < 0 || !ws.ws_col)
		return -1;
	*cols = ws.ws_col;
	*rows = ws.ws_row;
	return 0;
}

/* "~." after a newline disconnects, "~~" sends one "~", as in ssh. */
struct escape {
	int line_start;
	int tilde;
};

static int on_input(void *data, char *buf, size_t *len)
{
	struct escape *e = data;
	char *in = NULL;
	size_t i, n = *len, o = 0;

	if (!n)
		return 0;
	/* a "~" held back from the last block may make this one longer */
	in = malloc(n);
	if (!in)
		return 0;
	memcpy(in, buf, n);
	for (i = 0; i < n; i++) {
		char c = in[i];

		if (e->tilde) {
			e->tilde = 0;
			if (c == '.') {
				free(in);
				return 1;
			}
			if (c != '~')
				buf[o++] = '~';
		} else if (e->line_start && c == '~') {
			e->tilde = 1;
			e->line_start = 0;
			continue;
		}
		buf[o++] = c;
		e->line_start = c == '\r' || c == '\n';
	}
	free(in);
	*len = o;
	return 0;
}

/* ---- the task ----------------------------------------------------------- */

/* The remote command line (see the top of this file); new, or NULL. */
static char *remote_command(int argc, char **argv)
{
	size_t len = 0;
	char *cmd = NULL, *q;
	int i;

	if (argc == 1)
		return strdup(argv[0]);
	for (i = 0; i < argc; i++) {
		char *grown;

		q = cli_sh_quote(argv[i]);
		if (!q)
			goto fail;
		grown = realloc(cmd, len + strlen(q) + 2);
		if (!grown) {
			free(q);
			goto fail;
		}
		cmd = grown;
		if (len)
			cmd[len++] = ' ';
		strcpy(cmd + len, q);
		len += strlen(q);
		free(q);
	}
	return cmd;
fail:
	free(cmd);
	return NULL;
}

/* Finds ROLE-INDEX (ROLE NULL: the first role), running. */
static int find_task(cli_ctx *ctx, const char *ref, const pai_job_info *info,
		     const char *role, long index, const pai_task_info **task)
{
	size_t n = pai_job_info_task_count(info);
	long k;

	*task = NULL;
	if (!role && n && pai_job_info_task(info, 0))
		role = pai_job_info_task(info, 0)->role;
	k = role ? pai_job_info_find_task(info, role, index) : -1;
	if (k >= 0)
		*task = pai_job_info_task(info, (size_t)k);
	if (!*task && !role)
		return cli_error(ctx, EXIT_SSH, "job '%s' has no tasks", ref);
	if (!*task)
		return cli_no_task(ctx, EXIT_SSH, ref, info, role, index);
	if ((*task)->state != PAI_STATE_RUNNING)
		return cli_error(
		    ctx, EXIT_SSH, "task %s-%ld of job '%s' is %s, not running",
		    role, index, ref, pai_state_name((*task)->state));
	return 0;
}

/* The task's container in the job's SSH access. */
static int find_container(cli_ctx *ctx, const char *ref,
			  const pai_ssh_info *ssh, const pai_task_info *task,
			  const pai_ssh_container **c)
{
	size_t i;

	*c = NULL;
	for (i = 0; i < pai_ssh_info_count(ssh); i++) {
		const pai_ssh_container *sc = pai_ssh_info_get(ssh, i);

		if (sc && sc->id && sc->ip && task->container_id &&
		    strcmp(sc->id, task->container_id) == 0)
			*c = sc;
	}
	if (!*c)
		return cli_error(ctx, EXIT_SSH,
				 "the cluster gives no SSH access to task "
				 "%s-%ld of job '%s'",
				 task->role, task->index, ref);
	return 0;
}

/* The operands: JOB [ROLE [INDEX]] [-- COMMAND...]. 0, or the status. */
static int parse_args(cli_ctx *ctx, int argc, char **argv,
		      struct ssh_args *a)
{
	int first, st, i, dashdash = argc;
	char *end;

	/* what follows "--" is the remote command, never our options */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dashdash = i;
			break;
		}
	st = cli_parse(ctx, dashdash, argv, on_opt, a, &first);
	if (st >= 0)
		return st == EXIT_OK ? -1 : EXIT_SSH;
	if (ctx->output == CLI_OUT_JSON)
		return cli_error(ctx, EXIT_SSH,
				 "-o json is not for ssh: what it prints is "
				 "the task's");
	if (first >= dashdash)
		return cli_error(ctx, EXIT_SSH,
				 "no job given; try 'paictl ssh JOB'");
	if (dashdash - first > 3)
		return cli_error(ctx, EXIT_SSH,
				 "unexpected argument '%s'; give the command "
				 "after '--'",
				 argv[first + 3]);
	a->ref = argv[first];
	if (dashdash - first > 1)
		a->role = argv[first + 1];
	if (dashdash - first > 2) {
		errno = 0;
		a->index = strtol(argv[first + 2], &end, 10);
		if (errno || end == argv[first + 2] || *end || a->index < 0)
			return cli_error(ctx, EXIT_SSH,
					 "INDEX must be a task index, not '%s'",
					 argv[first + 2]);
	}
	if (dashdash + 1 < argc) {
		a->command =
		    remote_command(argc - dashdash - 1, argv + dashdash + 1);
		if (!a->command)
			return cli_error(ctx, EXIT_SSH, "out of memory");
	} else if (dashdash < argc)
		return cli_error(ctx, EXIT_SSH, "no command after '--'");
	return 0;
}

/* The job's status and SSH access, the task's container and the key. */
struct target {
	char *user, *name;
	pai_job_info *info;
	pai_ssh_info *ssh;
	const pai_task_info *task;
	const pai_ssh_container *c;
	cli_identity id;
	char *known;
};

static void target_release(struct target *t)
{
	pai_ssh_info_free(t->ssh);
	pai_job_info_free(t->info);
	free(t->user);
	free(t->name);
	free(t->id.key);
	free(t->known);
}

/* The known_hosts file, its directory made. */
static int known_hosts(cli_ctx *ctx, cli_conn *conn, struct target *t)
{
	char *dir;

	t->known = cli_known_hosts_path(conn);
	dir = t->known ? strdup(t->known) : NULL;
	if (!dir)
		return cli_error(ctx, EXIT_SSH,
				 "no HOME: set HOME or XDG_STATE_HOME");
	*strrchr(dir, '/') = '\0';
	if (cli_mkdirs(dir) < 0) {
		cli_error(ctx, EXIT_SSH, "cannot create '%s': %s", dir,
			  strerror(errno));
		free(dir);
		return EXIT_SSH;
	}
	free(dir);
	return 0;
}

/* The job's status and the task to log in to. */
static int find_job(cli_ctx *ctx, cli_conn *conn, const struct ssh_args *a,
		    struct target *t)
{
	int err;

	if (cli_job_ref(ctx, conn, a->ref, &t->user, &t->name))
		return EXIT_SSH;
	do
		err = pai_job_get(&t->info, conn->client, t->user, t->name);
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		cli_fail(ctx, conn, err, "cannot reach job '%s'", a->ref);
		return EXIT_SSH;
	}
	if (find_task(ctx, a->ref, t->info, a->role, a->index, &t->task))
		return EXIT_SSH;
	return 0;
}

/* The job's SSH access, the task's container, the key to log in with
 * and the known_hosts file. */
static int find_ssh(cli_ctx *ctx, cli_conn *conn, const struct ssh_args *a,
		    struct target *t)
{
	int err;

	do
		err = pai_job_get_ssh(&t->ssh, conn->client, t->user, t->name);
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		cli_fail(ctx, conn, err, "cannot reach job '%s'", a->ref);
		return EXIT_SSH;
	}
	if (find_container(ctx, a->ref, t->ssh, t->task, &t->c) ||
	    cli_ssh_identity(ctx, conn, t->ssh, t->user, t->name, a->ref,
			     a->identity, &t->id) ||
	    known_hosts(ctx, conn, t))
		return EXIT_SSH;
	return 0;
}

/* Connects and logs in: 0, or the status after saying why. */
static int open_session(cli_ctx *ctx, cli_conn *conn,
			const struct ssh_args *a, struct target *t,
			pai_ssh **s)
{
	pai_ssh_options so = PAI_SSH_OPTIONS_INIT;
	int err;

	so.host = t->c->ip;
	so.port = t->c->port;
	so.user = a->login			     ? a->login
		  : pai_ssh_info_user(t->ssh) ? pai_ssh_info_user(t->ssh)
					     : cli_ssh_user(conn);
	so.key_file = t->id.key;
	so.use_agent = t->id.agent;
	so.known_hosts = t->known;
	so.host_key_alias = cli_ssh_host_alias(t->c->id);
	so.replace_changed_key = a->accept_new;
	so.interrupt = &cli_interrupt;
	if (pai_ssh_new(s, &so) != PAI_OK)
		return cli_error(ctx, EXIT_SSH, "out of memory");
	/* directly, or through the login node where the cluster's nodes
	 * are reached so (a Slurm cluster over ssh://) */
	err = pai_client_ssh_connect(conn->client, *s);
	if (err == PAI_EHOSTKEY)
		return cli_error(ctx, EXIT_SSH,
				 "%s; refused (if the container was "
				 "recreated, give --accept-new-host-key)",
				 pai_ssh_detail(*s));
	if (err == PAI_EAUTH && t->id.existed)
		/* a key saved by an earlier run: it may be stale */
		return cli_error(ctx, EXIT_SSH,
				 "%s (saved earlier: remove it to fetch the "
				 "job's key again)",
				 pai_ssh_detail(*s));
	if (err == PAI_EAUTH && t->id.own)
		return cli_error(ctx, EXIT_SSH,
				 "%s (the job lets in the keys of its ssh "
				 "plugin: submit it with this key, or give "
				 "-i FILE)",
				 pai_ssh_detail(*s));
	if (err)
		return cli_error(ctx, EXIT_SSH, "%s", pai_ssh_detail(*s));
	if (pai_ssh_hostkey_status(*s) == PAI_SSH_HOSTKEY_REPLACED)
		cli_warn(ctx, "replaced the host key of task %s-%ld in '%s'",
			 t->task->role, t->task->index, t->known);
	else if (pai_ssh_hostkey_status(*s) == PAI_SSH_HOSTKEY_NEW &&
		 ctx->verbose)
		cli_error(ctx, 0, "recorded the host key of task %s-%ld (%s)",
			  t->task->role, t->task->index,
			  pai_ssh_hostkey_fingerprint(*s));
	return 0;
}

/* SIGWINCH to winch, the terminal raw: the local side of a session with
 * a terminal. 0, or EXIT_SSH after saying why. */
static int local_terminal(cli_ctx *ctx)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	if (enter_raw() < 0)
		return cli_error(ctx, EXIT_SSH, "cannot set the terminal: %s",
				 strerror(errno));
	return 0;
}

/* Where the cluster runs commands in a task's container itself
 * (Kubernetes' exec), the shell or command there: the remote status, or
 * EXIT_SSH after saying why; -1 where it cannot (then SSH). */
static int run_exec(cli_ctx *ctx, cli_conn *conn, const struct ssh_args *a,
		    const struct target *t)
{
	pai_exec_options eo = PAI_EXEC_OPTIONS_INIT;
	struct escape esc = {1, 0};
	int tty_in = isatty(STDIN_FILENO), err, status = -1;

	eo.command = a->command;
	eo.tty = a->command ? a->tty : tty_in;
	eo.in_fd = STDIN_FILENO;
	if (eo.tty && tty_in) {
		window_size(NULL, &eo.cols, &eo.rows);
		eo.resized = &winch;
		eo.window_size = window_size;
		eo.on_input = on_input;
		eo.data = &esc;
		if (local_terminal(ctx))
			return EXIT_SSH;
	}
	fflush(stdout);
	err = pai_task_exec(&status, conn->client, t->info, t->task, &eo);
	restore_tty();
	if (err == PAI_ENOTSUP)
		return -1;
	if (err == PAI_EINTR)
		return cli_exit_status(err);
	if (err) {
		cli_fail(ctx, conn, err, "cannot run in task %s-%ld",
			 t->task->role, t->task->index);
		return EXIT_SSH; /* every other status may be the command's */
	}
	if (status < 0) /* "~." */
		return cli_error(ctx, EXIT_SSH,
				 "session with task %s-%ld "
				 "closed",
				 t->task->role, t->task->index);
	return status;
}

/* The shell or the command, the terminal raw where there is one: the
 * remote status, or EXIT_SSH after saying why. */
static int run_session(cli_ctx *ctx, const struct ssh_args *a,
		       const struct target *t, pai_ssh *s)
{
	pai_ssh_run_options ro = PAI_SSH_RUN_OPTIONS_INIT;
	struct escape esc = {1, 0};
	int tty_in = isatty(STDIN_FILENO), err, status = -1;
	char *line = NULL;

	/* where the task needs its directory and environment set up
	 * first (Slurm), the command line that does it */
	if (pai_ssh_info_command(&line, t->ssh,
				 (size_t)(t->c - pai_ssh_info_get(t->ssh, 0)),
				 a->command))
		return cli_error(ctx, EXIT_SSH, "out of memory");
	ro.command = line;
	ro.pty = a->command ? a->tty : tty_in;
	ro.term = getenv("TERM");
	ro.in_fd = STDIN_FILENO;
	ro.out_fd = STDOUT_FILENO;
	ro.err_fd = STDERR_FILENO;
	if (!a->command && !tty_in)
		cli_warn(ctx, "no terminal for the shell: standard input is "
			      "not a terminal");
	if (ro.pty && tty_in) {
		window_size(NULL, &ro.cols, &ro.rows);
		ro.resized = &winch;
		ro.window_size = window_size;
		/* escapes wherever there is a terminal, as in ssh */
		ro.on_input = on_input;
		ro.data = &esc;
		if (local_terminal(ctx)) {
			free(line);
			return EXIT_SSH;
		}
	}
	fflush(stdout);
	err = pai_ssh_run(s, &ro, &status);
	restore_tty();
	free(line);
	if (err)
		return err == PAI_EINTR ? cli_exit_status(err)
					: cli_error(ctx, EXIT_SSH, "%s",
						    pai_ssh_detail(s));
	if (status < 0) /* "~." */
		return cli_error(ctx, EXIT_SSH,
				 "connection to %s port %ld closed", t->c->ip,
				 t->c->port);
	return status;
}

int cmd_ssh(cli_ctx *ctx, int argc, char **argv)
{
	struct ssh_args a;
	struct target t;
	cli_conn *conn = NULL;
	pai_ssh *s = NULL;
	int st;

	memset(&a, 0, sizeof(a));
	memset(&t, 0, sizeof(t));
	st = parse_args(ctx, argc, argv, &a);
	if (st) {
		st = st < 0 ? EXIT_OK : st;
		goto out;
	}
	if (cli_open(ctx, &conn)) {
		st = EXIT_SSH;
		goto out;
	}
	if ((st = find_job(ctx, conn, &a, &t)))
		goto out;
	/* the cluster's own exec where it has one, else SSH */
	if ((st = run_exec(ctx, conn, &a, &t)) < 0 &&
	    !(st = find_ssh(ctx, conn, &a, &t)) &&
	    !(st = open_session(ctx, conn, &a, &t, &s)))
		st = run_session(ctx, &a, &t, s);
out:
	restore_tty();
	pai_ssh_free(s);
	target_release(&t);
	free(a.command);
	cli_conn_free(conn);
	return st;
}
