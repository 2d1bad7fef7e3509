/* runtime_podman.h - what the podman runtime's files share
 * (runtime_podman.c: the row and each task's `podman run`;
 * podman_probe.c: what this machine needs of podman, found at start;
 * podman_image.c: which image, and its registry's credentials;
 * podman_orphans.c: containers left without their task, and podman's
 * words when a task could not start) */
#ifndef RUNTIME_PODMAN_H
#define RUNTIME_PODMAN_H

#include "runtime.h"

struct podman {
	char *exe;	   /* podman's path */
	char *oci;	   /* --runtime PATH (runc where crun cannot run), or NULL */
	char *init;	   /* --init-path: a catatonit, or NULL (no --init) */
	bool cpus, memory; /* --cpus, --memory: the cgroups allow them */
	bool short_names;  /* registries.conf searches for short names */
	bool cdi_gpus;	   /* a CDI spec names nvidia.com/gpu devices */
	bool passthrough;  /* --log-driver=passthrough: podman 4 and later */
	char ulimit[2][64]; /* --ulimit nofile=S:H, nproc=S:H ("": none) */
	char id[17];	    /* this state directory's, in names and labels */
	char **env; /* the server's variables podman reads (its config,
		     * its rootless runtime directory, proxies) */
};

#define PODMAN_LABEL "io.paictl.local"

static inline struct podman *podman_of(const struct srv *s)
{
	return (struct podman *)s->rt_data;
}

/* Task t's container: paictl-ID-USER_JOB-ATTEMPT-ROLE-INDEX, allocated. */
char *podman_name(const struct srv *s, const struct srv_job *j,
		  const struct srv_task *t);
/* The file podman writes task t's container's id to once it made it
 * (--cidfile): until then, podman pulls its image. Allocated. */
char *podman_cidfile(const struct srv_job *j, const struct srv_task *t);
/* podman [--runtime OCI] followed by the n strings of v. */
char **podman_argv(const struct podman *p, const char *const *v, size_t n);

/* podman_probe.c: podman, and what this machine needs of it, found
 * (logged); NULL with what to do in why. */
struct podman *podman_probe(struct srv *s, char *why, size_t whylen);
void podman_free(struct podman *p);

/* podman_image.c */
/* The image task role `role` runs in (v2: the role's dockerImage
 * prerequisite), with docker.io/ before a name that names no registry
 * unless registries.conf searches for short names: allocated, or NULL
 * when the job names none. */
char *podman_image(const struct podman *p, const pai_job *pj, size_t role);
/* The registry credentials protocol v2 gives the role's image
 * (prerequisite `auth`), as an auth.json in a memfd (never a file):
 * its descriptor, -1 when the image has none, -2 on failure. */
int podman_auth_fd(const pai_job *pj, size_t role);
/* Whether registries.conf (system's, user's) sets
 * unqualified-search-registries. */
bool podman_searches_short_names(void);

/* podman_orphans.c */
void podman_ended(struct srv *s, struct srv_job *j, struct srv_task *t,
		  int code);
void podman_sweep(struct srv *s);

#endif /* RUNTIME_PODMAN_H */
