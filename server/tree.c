/* tree.c - every process a task started, however it detached (setsid,
 * a double fork, nohup, an ssh session's shell): the task's own cgroup
 * v2 where the machine lets the local cluster make one, else the
 * descendants of the task's monitor, which is their child subreaper so
 * that an orphan comes back to it rather than to init. Stopping a task
 * or its end ends them all, as a container's end does.
 *
 * The server finds where cgroups can be made once (srv_tree_base); the
 * rest runs in the monitor, a child forked from a threaded server:
 * async-signal-safe calls only (no stdio, no malloc, no opendir). */
#include "srv_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The most processes a scan of /proc looks at: far above what a task
 * starts (a machine with more only has its later pids unseen). */
#define SCAN_MAX 32768

/* ---- in the server ---------------------------------------------------- */

/* The mount point of the cgroup v2 hierarchy, from mountinfo's line
 * "... MOUNTPOINT ... - cgroup2 ...": new string, or NULL. */
static char *cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], *mnt = NULL, *p, *q;
	int i;

	while (f && !mnt && fgets(line, sizeof(line), f)) {
		if (!strstr(line, " - cgroup2 "))
			continue;
		/* the fifth field */
		for (p = line, i = 0; p && i < 4; i++)
			if ((p = strchr(p, ' ')))
				p++;
		if (p && (q = strchr(p, ' ')))
			mnt = strndup(p, (size_t)(q - p));
	}
	if (f)
		fclose(f);
	return mnt;
}

/* The server's own cgroup v2, from /proc/self/cgroup's "0::PATH". */
static char *own_cgroup(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096], *path = NULL;

	while (f && !path && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			path = strdup(line + 3);
		}
	if (f)
		fclose(f);
	return path;
}

char *srv_tree_base(void)
{
	char *mnt = cgroup2_mount(), *own = own_cgroup(), *base = NULL;
	char *probe = NULL;

	if (mnt && own)
		base = srv_printf("%s%s", mnt, strcmp(own, "/") ? own : "");
	if (base)
		probe = srv_printf("%s/paictl-probe-%ld", base, (long)getpid());
	/* a cgroup made and removed: the machine gives us one */
	if (!probe || mkdir(probe, 0755) < 0 || rmdir(probe) < 0) {
		free(base);
		base = NULL;
	}
	free(probe);
	free(mnt);
	free(own);
	return base;
}

/* ---- in the monitor: async-signal-safe from here on -------------------- */

/* dst = a + b + c (NULL: none), within len; 0, or -1 when too long. */
static int join3(char *dst, size_t len, const char *a, const char *b,
		 const char *c)
{
	size_t na = strlen(a), nb = strlen(b), nc = c ? strlen(c) : 0;

	if (na + nb + nc >= len)
		return -1;
	memcpy(dst, a, na);
	memcpy(dst + na, b, nb);
	memcpy(dst + na + nb, c ? c : "", nc);
	dst[na + nb + nc] = '\0';
	return 0;
}

/* The decimal digits of v into buf (at least 24 bytes). */
static void decimal(char *buf, long v)
{
	char tmp[24];
	size_t n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n > 0)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
}

bool srv_tree_make(const char *dir)
{
	char path[sizeof(((struct srv_tree *)0)->dir) + 32];

	if (mkdir(dir, 0755) < 0)
		return false; /* not ours to remove */
	if (join3(path, sizeof(path), dir, "/cgroup.procs", NULL) < 0 ||
	    access(path, W_OK) < 0) {
		rmdir(dir);
		return false;
	}
	return true;
}

void srv_tree_init(struct srv_tree *t, const char *base,
		   unsigned long long start, const char *given)
{
	char name[64];
	size_t n = given ? strlen(given) : 0;

	t->dir[0] = '\0';
	t->asked = false;
	t->pooled = false;
	/* an orphan of the task's comes back here, not to init */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (given && n < sizeof(t->dir)) {
		/* the server's, made (and checked) before */
		memcpy(t->dir, given, n + 1);
		t->pooled = true;
		return;
	}
	if (!base)
		return;
	/* "/paictl-task-PID-START": a pid is reused, the pair is not */
	memcpy(name, "/paictl-task-", 14);
	decimal(name + 13, (long)getpid());
	n = strlen(name);
	name[n++] = '-';
	decimal(name + n, (long)start);
	if (join3(t->dir, sizeof(t->dir), base, name, NULL) < 0 ||
	    !srv_tree_make(t->dir))
		t->dir[0] = '\0';
}

void srv_tree_enter(const struct srv_tree *t)
{
	char path[sizeof(t->dir) + 32];
	int fd;

	if (!t->dir[0] ||
	    join3(path, sizeof(path), t->dir, "/cgroup.procs", NULL) < 0)
		return;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	/* "0": the writer itself; if the machine refuses, the monitor's
	 * descendants still find it */
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* nothing more to do */
		}
		close(fd);
	}
}

/* The number s begins with (no sign): strtol may read the locale. */
static long number(const char *s)
{
	long v = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return v;
}

/* The pid and parent of each process of /proc (at most SCAN_MAX);
 * their number. */
struct proc {
	pid_t pid, ppid;
};

static struct proc procs[SCAN_MAX];

/* The parent pid from /proc/PID/stat (field 4, after the comm in
 * parentheses); 0 when gone, -1 for a zombie. */
static pid_t parent_of(const char *pid)
{
	char path[64], buf[512], *p = NULL;
	ssize_t n, i;
	pid_t pp = 0;
	int fd;

	if (join3(path, sizeof(path), "/proc/", pid, "/stat") < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (i = n - 1; i > 0 && !p; i--)
		if (buf[i] == ')')
			p = buf + i;
	if (!p || p + 4 >= buf + n)
		return 0;
	if (p[2] == 'Z' || p[2] == 'X')
		return -1;
	for (p += 4; p < buf + n && *p >= '0' && *p <= '9'; p++)
		pp = pp * 10 + (*p - '0');
	return pp;
}

/* Every live process of the machine and its parent, from /proc. */
static size_t scan(void)
{
	char buf[8192];
	size_t n = 0;
	long got, off;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	while (fd >= 0 &&
	       (got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (off = 0; off < got && n < SCAN_MAX;) {
			/* struct linux_dirent64: ino, off, reclen, type,
			 * name */
			unsigned short reclen;
			const char *name = buf + off + 19;
			pid_t pp;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			off += reclen;
			if (*name < '1' || *name > '9')
				continue;
			if ((pp = parent_of(name)) > 0) {
				procs[n].pid = (pid_t)number(name);
				procs[n++].ppid = pp;
			}
		}
	if (fd >= 0)
		close(fd);
	return n;
}

/* What srv_tree_signal signals: all found before any is signalled. */
static pid_t found[SCAN_MAX];

/* found[n..]: every live descendant of this process (the monitor), from
 * a scan of every process of the machine; the new count. */
static size_t find_descendants_by_scan(size_t n)
{
	size_t np = scan(), i, k, n0 = n;
	pid_t self = getpid();
	int changed = 1;

	while (changed) {
		changed = 0;
		for (i = 0; i < np && n < SCAN_MAX; i++) {
			if (!procs[i].pid)
				continue;
			for (k = n0; procs[i].ppid != self && k < n &&
				     found[k] != procs[i].ppid;
			     k++)
				;
			if (procs[i].ppid != self && k == n)
				continue;
			found[n++] = procs[i].pid;
			procs[i].pid = 0;
			changed = 1;
		}
	}
	return n;
}

/* pid into found[n0..*n] unless it is there already (a process that
 * changed parents while the lists were read) or found[] is full. */
static void add_found(pid_t pid, size_t n0, size_t *n)
{
	size_t k;

	for (k = n0; k < *n && found[k] != pid; k++)
		;
	if (k == *n && *n < SCAN_MAX)
		found[(*n)++] = pid;
}

/* The most bytes of a thread's list of children read at once. */
#define CHILDREN_MAX 4095
/* The kernel's limit of pids (PID_MAX_LIMIT): no pid is higher. */
#define PID_LIMIT 4194304

/* The pids fd lists ("PID PID ..."), appended to found[n0..*n]: those
 * of its first CHILDREN_MAX bytes. A list longer than that: the pid
 * those bytes cut is left out, never a part of it (another process's),
 * and the rest is found by the next round, once these have gone. */
static void add_listed(int fd, size_t n0, size_t *n)
{
	char buf[CHILDREN_MAX + 1];
	ssize_t r = read(fd, buf, sizeof(buf)), i;
	long c = 0;

	for (i = 0; i < r && i < CHILDREN_MAX; i++) {
		if (buf[i] >= '0' && buf[i] <= '9') {
			if (c >= 0)
				c = c > PID_LIMIT ? -1
						  : c * 10 + (buf[i] - '0');
			continue;
		}
		if (c > 0 && c <= PID_LIMIT)
			add_found((pid_t)c, n0, n);
		c = 0;
	}
	/* the last one whole: the list ends, or a blank follows it */
	if (c > 0 && c <= PID_LIMIT &&
	    (r <= CHILDREN_MAX || buf[CHILDREN_MAX] < '0' ||
	     buf[CHILDREN_MAX] > '9'))
		add_found((pid_t)c, n0, n);
}

/* The children of each thread of process pid (/proc/PID/task/TID/
 * children), appended to found[n0..*n]; -1 when the kernel has no such
 * file (CONFIG_PROC_CHILDREN), else 0. */
static int add_children(pid_t pid, size_t n0, size_t *n)
{
	char dir[64], path[96], ents[2048];
	long got, off;
	int dfd, fd, ret = 0;

	decimal(dir, (long)pid);
	if (join3(path, sizeof(path), "/proc/", dir, "/task") < 0 ||
	    (dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0; /* gone */
	while ((got = syscall(SYS_getdents64, dfd, ents, sizeof(ents))) > 0)
		for (off = 0; off < got;) {
			unsigned short reclen;
			const char *tid = ents + off + 19;

			memcpy(&reclen, ents + off + 16, sizeof(reclen));
			off += reclen;
			if (*tid < '1' || *tid > '9')
				continue;
			if (join3(path, sizeof(path), tid, "/children",
				  NULL) < 0 ||
			    (fd = openat(dfd, path, O_RDONLY | O_CLOEXEC)) < 0) {
				if (errno == ENOENT && pid == getpid())
					ret = -1;
				continue;
			}
			add_listed(fd, n0, n);
			close(fd);
		}
	close(dfd);
	return ret;
}

/* Whether process pid is a zombie (or gone): nothing to signal. */
static bool dead(pid_t pid)
{
	char name[24];

	decimal(name, (long)pid);
	return parent_of(name) <= 0;
}

/* found[n..]: every live descendant of this process (the monitor); the
 * new count. Walked down from this process through its children's
 * lists, which costs a few reads per descendant; where the kernel lists
 * no children, from a scan of every process of the machine, which costs
 * a few reads per process. */
static size_t find_descendants(size_t n)
{
	size_t n0 = n, k, live;

	if (add_children(getpid(), n0, &n) < 0)
		return find_descendants_by_scan(n0);
	for (k = n0; k < n; k++)
		add_children(found[k], n0, &n);
	for (k = live = n0; k < n; k++)
		if (!dead(found[k]))
			found[live++] = found[k];
	return live;
}

/* SIGKILL to every process of the cgroup dir at once, where the kernel
 * has cgroup.kill. */
static void kill_cgroup(const char *dir)
{
	char path[600];
	int fd;

	if (join3(path, sizeof(path), dir, "/cgroup.kill", NULL) == 0 &&
	    (fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0) {
		if (write(fd, "1", 1) < 0) {
			/* the processes below are signalled one by one */
		}
		close(fd);
	}
}

bool srv_tree_populated(const char *dir)
{
	static const char key[] = "populated ";
	char path[600], buf[256];
	ssize_t got, i;
	int fd;

	if (join3(path, sizeof(path), dir, "/cgroup.events", NULL) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return true;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return true;
	buf[got] = '\0';
	/* "populated 0" at a line's start: empty; anything else is not
	 * known to be */
	for (i = 0; i < got; i++)
		if ((i == 0 || buf[i - 1] == '\n') &&
		    strncmp(buf + i, key, sizeof(key) - 1) == 0)
			return buf[i + sizeof(key) - 1] != '0';
	return true;
}

/* found[n..]: the processes of the task's cgroup not found yet; the new
 * count. */
static size_t find_in_cgroup(const struct srv_tree *t, size_t n)
{
	char path[sizeof(t->dir) + 32], buf[4096];
	size_t kept = 0, i, k, start;
	ssize_t got;
	pid_t pid;
	int fd;

	if (join3(path, sizeof(path), t->dir, "/cgroup.procs", NULL) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return n;
	/* a pid a line; one cut at the buffer's end is kept for the next
	 * read */
	while ((got = read(fd, buf + kept, sizeof(buf) - kept)) > 0) {
		got += (ssize_t)kept;
		for (i = start = 0; i < (size_t)got; i++) {
			if (buf[i] != '\n')
				continue;
			buf[i] = '\0';
			pid = (pid_t)number(buf + start);
			start = i + 1;
			for (k = 0; k < n && found[k] != pid; k++)
				;
			if (pid > 1 && k == n && n < SCAN_MAX)
				found[n++] = pid;
		}
		kept = (size_t)got - start;
		memmove(buf, buf + start, kept);
		if (kept == sizeof(buf))
			kept = 0; /* no line is this long */
	}
	close(fd);
	return n;
}

int srv_tree_signal(struct srv_tree *t, int sig)
{
	size_t n, i;
	int hit = 0;

	/* SIGTERM once: a second one would cut short the cleanup that the
	 * first began (a trap's commands are processes of the tree too) */
	if (sig == SIGTERM && t->asked)
		return 0;
	t->asked = t->asked || sig == SIGTERM;
	if (sig == SIGKILL && t->dir[0])
		kill_cgroup(t->dir);
	/* the descendants, and what the cgroup holds that escaped them
	 * (none without one), all found first: what a process starts
	 * once signalled is not signalled too */
	n = find_descendants(0);
	if (t->dir[0])
		n = find_in_cgroup(t, n);
	for (i = 0; i < n; i++)
		if (kill(found[i], sig) == 0)
			hit++;
	return hit;
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void nap_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Until what is left has gone (orphans reaped here), after its SIGTERM:
 * grace_ms at most, or until SIGINT comes on sfd. A shell's traps clean
 * up (pyenv's lock file, a half-written checkpoint) rather than being
 * cut short by SIGKILL. */
static void wait_gone(struct srv_tree *t, int grace_ms, int sfd)
{
	long until = mono_ms() + grace_ms;
	struct signalfd_siginfo si;
	struct pollfd p;

	p.fd = sfd;
	p.events = POLLIN;
	for (;;) {
		reap();
		if (mono_ms() >= until || srv_tree_signal(t, 0) == 0)
			return;
		if (poll(&p, sfd >= 0 ? 1 : 0, 50) <= 0)
			continue;
		/* SIGTERM again changes nothing; SIGINT kills now */
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			if (si.ssi_signo == SIGINT)
				return;
	}
}

void srv_tree_end(struct srv_tree *t, int grace_ms, int sfd)
{
	int i;

	/* none left (most tasks leave nothing), nor in a cgroup below the
	 * task's: no grace, no SIGKILL */
	if (srv_tree_signal(t, t->asked ? 0 : SIGTERM) > 0 ||
	    (t->dir[0] && srv_tree_populated(t->dir))) {
		wait_gone(t, grace_ms, sfd);
		/* what a dying process forks meanwhile is found by the
		 * next round: until a round finds none left (its orphans
		 * reaped here) */
		for (i = 0; i < 50 && srv_tree_signal(t, SIGKILL) > 0; i++) {
			nap_ms(20);
			reap();
		}
	}
	reap();
	/* the server's cgroup goes back to it empty (it looks); one of
	 * the monitor's own is removed */
	for (i = 0; t->dir[0] && i < 50; i++) {
		if (t->pooled ? !srv_tree_populated(t->dir)
			      : rmdir(t->dir) == 0 || errno != EBUSY)
			break;
		nap_ms(20);
	}
	t->dir[0] = '\0';
}

/* ---- in the server again: after a monitor ----------------------------- */

void srv_tree_remove(const char *dir)
{
	int i;

	if (access(dir, F_OK) < 0)
		return;
	kill_cgroup(dir);
	for (i = 0; i < 100 && rmdir(dir) < 0 && errno == EBUSY; i++)
		nap_ms(10);
}

/* A task's cgroup whose monitor is gone (killed before it could clean
 * up): what is left in it killed, and it removed once they have gone
 * (a second at most, else by the next start's sweep). The cgroup is the
 * one the monitor named in its status (name: a server's, given to it),
 * else the one it made, after its pid and start time: another monitor
 * that has its pid now has its own. A monitor of a version before the
 * start time was in the name has "paictl-task-PID". */
void srv_tree_forget(const char *base, pid_t monitor,
		     unsigned long long start, const char *name)
{
	bool named = name && name[0];
	char *dir;

	if (!base)
		return;
	dir = named ? srv_printf("%s/%s", base, name)
		    : srv_printf("%s/paictl-task-%ld-%llu", base,
				 (long)monitor, start);
	if (dir && !named && access(dir, F_OK) < 0) {
		free(dir);
		dir = srv_printf("%s/paictl-task-%ld", base, (long)monitor);
	}
	if (dir)
		srv_tree_remove(dir);
	free(dir);
}

/* The empty cgroups of monitors that are gone, left by a killed one
 * (any server's: an empty cgroup is no one's loss). */
void srv_tree_sweep(const char *base)
{
	DIR *d = base ? opendir(base) : NULL;
	struct dirent *e;
	char *dir;
	long pid;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "paictl-task-", 12) != 0)
			continue;
		/* PID-START (a monitor's; a server's has -K after), or
		 * PID */
		pid = atol(e->d_name + 12);
		if (pid <= 1 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		/* rmdir fails on a cgroup that still holds a process */
		if ((dir = srv_printf("%s/%s", base, e->d_name)))
			rmdir(dir);
		free(dir);
	}
	if (d)
		closedir(d);
}
