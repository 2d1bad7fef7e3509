/* podman_probe.c - what the podman runtime finds once, when the local
 * cluster starts: podman itself, answering; the OCI runtime this
 * machine's cgroups let run (runc where crun refuses hybrid cgroups);
 * the open files and processes podman may give a container (no more
 * than the server has: podman's defaults ask for more than a machine
 * without CAP_SYS_RESOURCE allows); an init that passes SIGTERM on
 * (catatonit); whether CPU and memory can be limited; GPUs that CDI
 * declares; what podman reads of the server's environment */
#include "runtime_podman.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* crun refuses cgroups in hybrid mode (v1 controllers beside a v2
 * `unified` tree); runc runs there. */
static bool cgroups_hybrid(void)
{
	struct statfs a, b;

	return statfs("/sys/fs/cgroup", &a) == 0 &&
	       (uint64_t)a.f_type == TMPFS_MAGIC &&
	       statfs("/sys/fs/cgroup/unified", &b) == 0 &&
	       (uint64_t)b.f_type == CGROUP2_SUPER_MAGIC;
}

/* Whether podman can limit CPU and memory: as root, with the cgroup
 * controllers mounted (v1) or enabled at the root (v2); rootless
 * podman needs delegation this probe does not check, so no limits. */
static void probe_cgroups(struct podman *p)
{
	struct statfs f;
	char buf[512] = "";
	FILE *c;

	if (geteuid() != 0 || statfs("/sys/fs/cgroup", &f) < 0)
		return;
	if ((uint64_t)f.f_type != CGROUP2_SUPER_MAGIC) {
		p->cpus = access("/sys/fs/cgroup/cpu", F_OK) == 0;
		p->memory = access("/sys/fs/cgroup/memory", F_OK) == 0;
		return;
	}
	if ((c = fopen("/sys/fs/cgroup/cgroup.controllers", "re"))) {
		if (!fgets(buf, sizeof(buf), c))
			buf[0] = '\0';
		fclose(c);
	}
	p->cpus = strstr(buf, "cpu ") || strstr(buf, "cpu\n");
	p->memory = strstr(buf, "memory") != NULL;
}

/* Whether a CDI spec (the NVIDIA Container Toolkit's, say) in dir
 * declares the kind nvidia.com/gpu. */
static bool cdi_dir_has_gpus(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool yes = false;

	while (d && !yes && (e = readdir(d))) {
		char *path = e->d_name[0] == '.' ? NULL
			     : srv_printf("%s/%s", dir, e->d_name);
		char *text = NULL;
		size_t len;

		/* a spec is a few kB: a bigger file is not one */
		if (path && pai_file_read_max(&text, &len, NULL, path,
					      1 << 20) == PAI_OK)
			yes = strstr(text, "nvidia.com/gpu") != NULL;
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	return yes;
}

static long long pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long long v = 0;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* podman asks for 1048576 open files and processes, which a machine
 * that does not give the server CAP_SYS_RESOURCE refuses: the task gets
 * the server's own limits, processes no more than the kernel has pids
 * (podman's own limit). Unlimited: podman's default does. */
static void probe_ulimits(struct podman *p)
{
	static const struct {
		int res;
		const char *name;
	} lim[2] = {{RLIMIT_NOFILE, "nofile"}, {RLIMIT_NPROC, "nproc"}};
	long long pm = pid_max();
	int i;

	for (i = 0; i < 2; i++) {
		struct rlimit r;
		unsigned long long cur, max;

		p->ulimit[i][0] = '\0';
		if (getrlimit(lim[i].res, &r) < 0 || r.rlim_max == RLIM_INFINITY)
			continue;
		cur = r.rlim_cur, max = r.rlim_max;
		if (lim[i].res == RLIMIT_NPROC && pm > 0) {
			if (max > (unsigned long long)pm)
				max = (unsigned long long)pm;
			if (cur > max)
				cur = max;
		}
		snprintf(p->ulimit[i], sizeof(p->ulimit[i]), "%s=%llu:%llu",
			 lim[i].name, cur, max);
	}
}

static void state_id(struct podman *p, const char *state_dir)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *c;

	for (c = (const unsigned char *)state_dir; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	snprintf(p->id, sizeof(p->id), "%08llx",
		 (unsigned long long)(h >> 32));
}

/* What podman reads of the server's environment, besides the few
 * variables every task has (PATH, HOME...): a NULL-terminated copy. */
static char **own_env(void)
{
	static const char *const names[] = {
	    "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	    "DBUS_SESSION_BUS_ADDRESS", "CONTAINERS_CONF",
	    "CONTAINERS_REGISTRIES_CONF", "CONTAINERS_STORAGE_CONF",
	    "REGISTRY_AUTH_FILE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	    "http_proxy", "https_proxy", "no_proxy"};
	const char *v[sizeof(names) / sizeof(names[0])];
	char **out;
	size_t i, n = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (getenv(names[i]) &&
		    !(v[n++] = srv_printf("%s=%s", names[i], getenv(names[i])))) {
			n--;
			break;
		}
	out = i == sizeof(names) / sizeof(names[0]) ? rt_strv(v, n) : NULL;
	while (n > 0)
		free((char *)v[--n]);
	return out;
}

void podman_free(struct podman *p)
{
	if (!p)
		return;
	free(p->exe);
	free(p->oci);
	free(p->init);
	rt_strv_free(p->env);
	free(p);
}

struct podman *podman_probe(struct srv *s, char *why, size_t whylen)
{
	struct podman *p = calloc(1, sizeof(*p));
	char out[64], *argv[4];

	if (!p || !(p->exe = rt_find_in_path("podman"))) {
		snprintf(why, whylen, "%s",
			 p ? "install podman to run them in it" : "out of memory");
		podman_free(p);
		return NULL;
	}
	argv[0] = p->exe;
	argv[1] = "version";
	argv[2] = "--format={{.Client.Version}}";
	argv[3] = NULL;
	if (rt_run(s, argv, out, sizeof(out), 15000) != 0) {
		snprintf(why, whylen,
			 "'%s version' fails: podman would run them in it",
			 p->exe);
		podman_free(p);
		return NULL;
	}
	out[strcspn(out, "\n")] = '\0';
	p->passthrough = strtol(out, NULL, 10) >= 4; /* "4.3.1" */
	if (cgroups_hybrid() && !(p->oci = rt_find_in_path("runc"))) {
		snprintf(why, whylen,
			 "install runc for podman to run them in it: crun "
			 "cannot run in this machine's hybrid cgroups");
		podman_free(p);
		return NULL;
	}
	p->init = access("/usr/libexec/podman/catatonit", X_OK) == 0
		      ? strdup("/usr/libexec/podman/catatonit")
		      : rt_find_in_path("catatonit");
	probe_cgroups(p);
	probe_ulimits(p);
	p->cdi_gpus = cdi_dir_has_gpus("/etc/cdi") ||
		      cdi_dir_has_gpus("/var/run/cdi");
	p->short_names = podman_searches_short_names();
	if (!(p->env = own_env())) {
		snprintf(why, whylen, "out of memory");
		podman_free(p);
		return NULL;
	}
	state_id(p, s->state_dir);
	srv_log(s,
		"tasks run in their image with podman %s; what this machine "
		"needs: %s%s%s%s%s%s%s; SIGTERM through --init: %s; CPU and "
		"memory limits: %s",
		out, p->oci ? "--runtime " : "", p->oci ? p->oci : "",
		p->ulimit[0][0] ? " --ulimit " : "", p->ulimit[0],
		p->ulimit[1][0] ? " --ulimit " : "", p->ulimit[1],
		p->oci || p->ulimit[0][0] || p->ulimit[1][0] ? "" : "nothing",
		p->init ? p->init : "no (install catatonit)",
		p->cpus && p->memory ? "yes"
		: p->cpus	     ? "CPU only"
		: p->memory	     ? "memory only"
				     : "no");
	return p;
}
