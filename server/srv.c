/* srv.c - the local cluster's life: state directory, main loop, shutdown
 *
 * Threads: libmicrohttpd's polling threads answer requests; the main
 * thread waits on a signalfd (SIGCHLD, SIGTERM, SIGINT, SIGHUP) and a
 * wake pipe, and starts, reaps and stops tasks. One mutex guards the
 * job table. Signals are blocked before any thread exists, so only the
 * signalfd sees them.
 */
#include "srv_int.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* mkdir -p for the default location's parents, 0700 as XDG asks. */
static int mkdir_parents(const char *path)
{
	char *p = strdup(path), *q;
	int ret = 0;

	if (!p)
		return -1;
	for (q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			ret = -1;
		*q = '/';
	}
	free(p);
	return ret;
}

static char *default_state_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (x && *x == '/')
		return srv_printf("%s/paictl/local", x);
	if (home && *home)
		return srv_printf("%s/.local/state/paictl/local", home);
	return NULL;
}

static int load_users(struct srv *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	char line[1024];
	unsigned lineno = 0;
	int ret = -1;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) < 0 || (st.st_mode & 077)) {
		snprintf(err, errlen,
			 "'%s' holds passwords: it must not be readable by "
			 "others (chmod 600 '%s')",
			 path, path);
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char *name = line, *pass, *flags, *nl;
		struct srv_user *v;

		lineno++;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		else if (!feof(f)) {
			/* its rest would be read as a line of its own */
			snprintf(err, errlen, "%s:%u: line too long (at most %zu "
				 "bytes)", path, lineno, sizeof(line) - 2);
			goto out;
		}
		if (!*line || *line == '#')
			continue;
		pass = strchr(line, ':');
		if (!pass || pass == line) {
			snprintf(err, errlen,
				 "%s:%u: expected 'user:password[:admin]'",
				 path, lineno);
			goto out;
		}
		*pass++ = '\0';
		flags = strchr(pass, ':');
		if (flags)
			*flags++ = '\0';
		v = realloc(s->users, (s->nusers + 1) * sizeof(*v));
		if (!v)
			goto oom;
		s->users = v;
		v[s->nusers].name = strdup(name);
		v[s->nusers].password = strdup(pass);
		v[s->nusers].admin = flags && strcmp(flags, "admin") == 0;
		s->nusers++;
		if (!v[s->nusers - 1].name || !v[s->nusers - 1].password)
			goto oom;
	}
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	explicit_bzero(line, sizeof(line)); /* it held a password */
	fclose(f);
	return ret;
}

/* The variables a task inherits from the server: enough for bash and
 * ordinary tools; the cluster's own variables come from lib. */
static int base_env(struct srv *s)
{
	static const char *const keep[] = {
	    "PATH",   "HOME",	  "USER", "LOGNAME", "LANG",
	    "LC_ALL", "LC_CTYPE", "TZ",	  "TMPDIR",  "SHELL"};
	size_t i, k, n = sizeof(keep) / sizeof(keep[0]);
	bool path = false;

	s->base_env = calloc(n + 2, sizeof(*s->base_env));
	if (!s->base_env)
		return -1;
	for (i = 0; environ && environ[i]; i++)
		for (k = 0; k < n; k++) {
			size_t len = strlen(keep[k]);

			if (strncmp(environ[i], keep[k], len) == 0 &&
			    environ[i][len] == '=') {
				if (!(s->base_env[s->nbase_env++] =
					  strdup(environ[i])))
					return -1;
				path = path || k == 0;
			}
		}
	if (!path && !(s->base_env[s->nbase_env++] =
			   strdup("PATH=/usr/local/bin:/usr/bin:/bin")))
		return -1;
	return 0;
}

/* GPUs as nvidia-smi -L lists them; none without it. */
static long long count_gpus(void)
{
	static const char *const paths[] = {"/usr/bin/nvidia-smi",
					    "/usr/local/bin/nvidia-smi"};
	char *argv[] = {"nvidia-smi", "-L", NULL};
	char buf[4096];
	long long n = 0;
	ssize_t got;
	size_t i, k;
	int p[2], st;
	pid_t pid;

	for (i = 0; i < 2 && access(paths[i], X_OK) != 0; i++)
		;
	if (i == 2 || pipe2(p, O_CLOEXEC) < 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execv(paths[i], argv);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && (got = read(p[0], buf, sizeof(buf))) > 0)
		for (k = 0; k < (size_t)got; k++)
			n += buf[k] == '\n';
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? n : 0;
}

/* "cpus=N,memory=MB,gpus=G", any of them; the rest is this machine's. */
static int parse_capacity(struct srv *s, const char *spec, char *err,
			  size_t errlen)
{
	char *copy = strdup(spec), *item, *save = NULL, *p = copy;

	s->cap_cpus = s->host_cpus;
	s->cap_mem_mb = s->host_mem_mb;
	s->cap_gpus = s->host_gpus;
	while (copy && (item = strtok_r(p, ",", &save))) {
		char *eq = strchr(item, '='), *end;
		long long v;

		p = NULL;
		v = eq ? strtoll(eq + 1, &end, 10) : -1;
		if (!eq || eq[1] == '\0' || *end || v < 0)
			goto bad;
		*eq = '\0';
		if (strcmp(item, "cpus") == 0)
			s->cap_cpus = v;
		else if (strcmp(item, "memory") == 0)
			s->cap_mem_mb = v;
		else if (strcmp(item, "gpus") == 0 && v <= 64)
			s->cap_gpus = v;
		else
			goto bad;
	}
	free(copy);
	s->capped = true;
	return 0;
bad:
	free(copy);
	snprintf(err, errlen,
		 "invalid --capacity '%s': expected cpus=N,memory=MB,gpus=G "
		 "(any of them; at most 64 GPUs)",
		 spec);
	return -1;
}

void srv_write_info(struct srv *s)
{
	json_t *o = json_pack("{s:i,s:s,s:s,s:s}", "pid", (int)getpid(),
			      "socket", s->sock_path, "version", PAI_VERSION,
			      "runtime", s->rt ? s->rt->name : "process");
	char *path = srv_printf("%s/server.json", s->state_dir), *text;

	/* the web pages' listener starts while others may write it too */
	pthread_mutex_lock(&s->lock);
	if (o && s->tcp_d)
		json_object_set_new(
		    o, "url",
		    json_sprintf("http://%s:%u", s->tcp_addr, s->tcp_port));
	if (o && s->web_d)
		json_object_set_new(o, "web", json_string(s->web_url));
	text = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
	if (!text || !path ||
	    pai_file_write_atomic(path, text, strlen(text), 0600, 0) != PAI_OK)
		srv_log(s, "cannot write '%s'", path ? path : "server.json");
	pthread_mutex_unlock(&s->lock);
	json_decref(o);
	free(text);
	free(path);
}

/* Background mode: stderr (the log) goes to <state>/server.log. */
static bool start_log(struct srv *s, char *err, size_t errlen)
{
	char *path = srv_printf("%s/server.log", s->state_dir);
	int fd =
	    path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)
		 : -1;

	if (fd < 0 || dup2(fd, 2) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s",
			 path ? path : "server.log", strerror(errno));
		free(path);
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	free(path);
	return true;
}

static void srv_free(struct srv *s)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		srv_job_free(s->jobs[i]);
	free(s->jobs);
	srv_free_dead(s);
	for (i = 0; i < s->nusers; i++) {
		free(s->users[i].name);
		srv_free_secret(s->users[i].password);
	}
	free(s->users);
	for (i = 0; i < s->ntokens; i++)
		free(s->tokens[i].user);
	if (s->tokens)
		explicit_bzero(s->tokens, s->ntokens * sizeof(*s->tokens));
	free(s->tokens);
	for (i = 0; i < s->nbase_env; i++)
		free(s->base_env[i]);
	free(s->base_env);
	free(s->state_dir);
	free(s->jobs_dir);
	free(s->sock_path);
	free(s->host_key);
	srv_pool_free(s);
	free(s->tree_base);
	free(s->owner);
	if (s->rt && s->rt->close)
		s->rt->close(s);
	srv_forker_stop(s);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->null_fd >= 0)
		close(s->null_fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->rec_fd >= 0)
		close(s->rec_fd);
	if (s->inotify_fd >= 0)
		close(s->inotify_fd);
	free(s->rec_path);
	free(s->unloaded);
	free(s->waiters);
	for (i = 0; i < s->npending; i++)
		free(s->pending[i]);
	free(s->pending);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->save_lock);
	srv_log_sync_free(s);
}

static size_t count_running(struct srv *s)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->njobs; i++)
		for (k = 0; k < s->jobs[i]->ntasks; k++)
			n += s->jobs[i]->tasks[k].state == ST_RUNNING;
	return n;
}

/* struct srv's open_web: the pages' listener for `paictl web` */
static int open_web(struct srv *s, unsigned *port, char *err, size_t errlen)
{
	int st;

	pthread_mutex_lock(&s->lock);
	st = srv_web_listen(s, err, errlen);
	*port = s->web_port;
	pthread_mutex_unlock(&s->lock);
	if (st == 0)
		srv_write_info(s);
	return st;
}

static void srv_init(struct srv *s, const srv_options *opts)
{
	memset(s, 0, sizeof(*s));
	s->opt = *opts;
	s->wake[0] = s->wake[1] = s->sigfd = s->lock_fd = s->null_fd = -1;
	s->rec_fd = s->inotify_fd = s->forker_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->save_lock, NULL);
	srv_log_sync_init(s);
	s->open_web = open_web;
}

/* The machine, and the option values: 0, or -2 for a usage error. */
static int check_options(struct srv *s, char *err, size_t errlen)
{
	s->host_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->host_mem_mb = (long long)sysconf(_SC_PHYS_PAGES) *
			 sysconf(_SC_PAGESIZE) / (1024 * 1024);
	s->host_gpus = count_gpus();
	if ((s->opt.capacity &&
	     parse_capacity(s, s->opt.capacity, err, errlen) < 0) ||
	    (s->opt.listen && srv_listen_check(s->opt.listen, err, errlen) < 0))
		return -2;
	return 0;
}

/* Locks the state directory's lock file fd for this process alone: a
 * POSIX record lock, which the monitors forked later do not share (an
 * flock they would, until each closed its copy: a server killed just
 * after forking one could not be started again until that monitor had
 * run). An flock is tried too, and let go at once, for a server of an
 * earlier version that holds one. 0, or -1 with errno. */
static int lock_state(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
		return -1;
	return flock(fd, LOCK_UN);
}

/* The state directory, made private and locked: 0, -1, or -3 when
 * another server holds it. */
static int take_state_dir(struct srv *s, char *err, size_t errlen)
{
	const srv_options *o = &s->opt;
	char *lock_path = NULL;
	int ret = -1;

	s->state_dir =
	    o->state_dir ? strdup(o->state_dir) : default_state_dir();
	if (!s->state_dir) {
		snprintf(err, errlen,
			 "no state directory: set HOME, "
			 "XDG_STATE_HOME or --state-dir");
		return -1;
	}
	if (!o->state_dir)
		mkdir_parents(s->state_dir);
	if (srv_private_dir(s->state_dir, err, errlen) < 0)
		return -1;
	s->jobs_dir = srv_printf("%s/jobs", s->state_dir);
	s->rec_path = srv_printf("%s/records.log", s->state_dir);
	s->sock_path = o->socket ? strdup(o->socket)
				 : srv_printf("%s/api.sock", s->state_dir);
	lock_path = srv_printf("%s/lock", s->state_dir);
	if (!s->jobs_dir || !s->rec_path || !s->sock_path || !lock_path) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (srv_private_dir(s->jobs_dir, err, errlen) < 0)
		goto out;
	s->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lock_fd < 0 || lock_state(s->lock_fd) < 0) {
		if (s->lock_fd >= 0 &&
		    (errno == EWOULDBLOCK || errno == EACCES))
			ret = -3;
		snprintf(err, errlen,
			 ret == -3 ? "another 'paictl serve' is using '%s'"
				   : "cannot lock '%s'",
			 s->state_dir);
		goto out;
	}
	ret = 0;
out:
	free(lock_path);
	return ret;
}

/* Signals come through the signalfd alone (the threads inherit the
 * mask), and a closed client is no SIGPIPE: 0 or -1. */
static int catch_signals(struct srv *s, char *err, size_t errlen)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0) {
		snprintf(err, errlen, "cannot set up signals: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* What tasks and requests need: the log, bash, the environment, the
 * users, the main loop's pipe and signals, sshd. 0 or -1. */
static int set_up(struct srv *s, char *err, size_t errlen)
{
	const struct passwd *pw;
	int ret;

	if (s->opt.log_to_state && !start_log(s, err, errlen))
		return -1;
	s->bash = access("/bin/bash", X_OK) == 0       ? "/bin/bash"
		  : access("/usr/bin/bash", X_OK) == 0 ? "/usr/bin/bash"
						       : NULL;
	if (!s->bash) {
		snprintf(err, errlen,
			 "tasks need bash, which is not installed");
		return -1;
	}
	if ((pw = getpwuid(getuid())) && pw->pw_name &&
	    !(s->owner = strdup(pw->pw_name))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (base_env(s) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (s->opt.users_file &&
	    load_users(s, s->opt.users_file, err, errlen) < 0)
		return -1;
	s->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (s->null_fd < 0 || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "cannot set up: %s", strerror(errno));
		return -1;
	}
	if (catch_signals(s, err, errlen) < 0)
		return -1;
	if (srv_ssh_init(s) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ret = srv_runtime_pick(s, s->opt.runtime, err, errlen);
	if (ret < 0)
		return ret;
	/* each task in a cgroup of its own where the machine gives one */
	s->tree_base = s->opt.no_cgroup ? NULL : srv_tree_base();
	srv_tree_sweep(s->tree_base);
	if (srv_pool_init(s) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	srv_log(s, "tasks' processes: %s%s",
		s->tree_base ? "a cgroup each, under " : "the monitors' "
							 "descendants",
		s->tree_base ? s->tree_base : "");
	/* last, before the jobs are loaded and the threads start: the
	 * server is as small as it gets */
	if (srv_forker_start(s) < 0)
		srv_log(s, "no forker: the server forks the tasks' monitors "
			   "itself (%s)", strerror(errno));
	return 0;
}

/* The jobs of the state directory, resumed, their records written
 * anew. 0 or -1. */
static int load_jobs(struct srv *s, char *err, size_t errlen)
{
	int ret = srv_load_jobs(s);

	if (ret < 0) {
		if (ret == -2)
			snprintf(err, errlen,
				 "cannot read the jobs' records in '%s'; not "
				 "starting, or its jobs would run again",
				 s->rec_path);
		else
			snprintf(err, errlen, "cannot read '%s': %s",
				 s->jobs_dir, strerror(errno));
		return -1;
	}
	srv_resume_jobs(s);
	pthread_mutex_lock(&s->lock);
	srv_flush(s);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* Listening now: server.json for clients, "ok" for whoever started us,
 * a line in the log. */
static void announce(struct srv *s)
{
	srv_write_info(s);
	if (s->opt.ready_fd >= 0) {
		dprintf(s->opt.ready_fd, "ok %s\n", s->sock_path);
		close(s->opt.ready_fd);
		s->opt.ready_fd = -1;
	}
	if (s->tcp_d)
		srv_log(s,
			"listening on unix:%s and http://%s:%u (state in "
			"%s, %zu jobs)",
			s->sock_path, s->tcp_addr, s->tcp_port, s->state_dir,
			s->njobs);
	else
		srv_log(s, "listening on unix:%s (state in %s, %zu jobs)",
			s->sock_path, s->state_dir, s->njobs);
}

/* Waits for a signal, a wake-up, a log written (inotify: wait.c) or
 * the next deadline; returns true when a signal but SIGCHLD came (time
 * to quit), or poll failed. */
static bool wait_for_work(struct srv *s, bool *failed)
{
	struct pollfd p[3];
	struct signalfd_siginfo si;
	long timeout, held;
	char buf[4096];
	bool quit = false;

	pthread_mutex_lock(&s->lock);
	timeout = srv_next_timeout(s);
	/* a held request's time: answered when it is up */
	held = srv_wake_waiters(s, false);
	if (held >= 0 && held < timeout)
		timeout = held;
	p[2].fd = s->inotify_fd;
	pthread_mutex_unlock(&s->lock);
	p[0].fd = s->sigfd;
	p[1].fd = s->wake[0];
	p[0].events = p[1].events = p[2].events = POLLIN;
	if (poll(p, p[2].fd >= 0 ? 3 : 2, (int)timeout) < 0 &&
	    errno != EINTR) {
		*failed = true;
		return true;
	}
	while (read(s->wake[0], buf, sizeof(buf)) > 0)
		;
	while (p[2].fd >= 0 && read(p[2].fd, buf, sizeof(buf)) > 0)
		;
	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			quit = true;
	return quit;
}

/* Until SIGTERM, SIGINT or SIGHUP: tasks reaped, deadlines kept, jobs
 * started, records written; then the requests held for a job's change
 * (wait.c) are answered, this loop being where jobs change. */
static void main_loop(struct srv *s)
{
	bool quit = false, failed = false;

	while (!quit) {
		quit = wait_for_work(s, &failed);
		if (failed)
			break;
		pthread_mutex_lock(&s->lock);
		srv_reap(s);
		srv_poll_adopted(s);
		srv_check_deadlines(s);
		if (!quit)
			srv_schedule(s);
		/* records first (the lock let go meanwhile), then forks */
		srv_flush(s);
		srv_launch(s);
		srv_flush(s);
		srv_wake_waiters(s, false);
		pthread_mutex_unlock(&s->lock);
	}
}

/* No more requests; the tasks go on, to be re-adopted by the next
 * server. */
static void shut_down(struct srv *s)
{
	srv_http_stop(s);
	pthread_mutex_lock(&s->lock);
	srv_reap(s);
	srv_flush(s);
	if (count_running(s))
		srv_log(s,
			"shutting down; %zu running task%s keep running "
			"and are re-adopted on the next start",
			count_running(s), count_running(s) == 1 ? "" : "s");
	else
		srv_log(s, "shutting down");
	pthread_mutex_unlock(&s->lock);
}

/* Tells whoever waits on ready_fd how the start went (ret), stops and
 * frees all. */
static void finish(struct srv *s, int ret, const char *err)
{
	if (s->opt.ready_fd >= 0) {
		if (ret == -3)
			dprintf(s->opt.ready_fd, "running %s\n",
				s->sock_path ? s->sock_path : "");
		else
			dprintf(s->opt.ready_fd, "%s %s\n",
				ret == -2 ? "usage" : "error", err);
		close(s->opt.ready_fd);
	}
	srv_http_stop(s);
	if (ret == 0) {
		/* no server now: clients must not find this one */
		char *info = srv_printf("%s/server.json", s->state_dir);

		if (info)
			unlink(info);
		free(info);
	}
	srv_free(s);
}

int srv_run(const srv_options *opts, char *err, size_t errlen)
{
	struct srv s;
	int ret;

	srv_init(&s, opts);
	err[0] = '\0';
	/* option values first: a usage error leaves no trace */
	ret = check_options(&s, err, errlen);
	if (!ret)
		ret = take_state_dir(&s, err, errlen);
	if (!ret)
		ret = set_up(&s, err, errlen);
	if (!ret)
		ret = load_jobs(&s, err, errlen);
	if (!ret)
		ret = srv_http_start(&s, err, errlen);
	if (!ret) {
		announce(&s);
		main_loop(&s);
		shut_down(&s);
	}
	finish(&s, ret, err);
	return ret;
}
