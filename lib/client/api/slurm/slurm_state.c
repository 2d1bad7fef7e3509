/* slurm_state.c - the slurmrestd OpenAPI version a client spoke, kept
 * between runs in the caller's state directory ("<dir>/slurm/<profile>
 * .openapi": the version and when it was found), so that a run speaks
 * it at once instead of asking for the server's OpenAPI document (over
 * a megabyte, made for each request). Kept a day: a server upgraded
 * serves newer versions beside the old. */
#include "slurm_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* How long a version kept is spoken before the server is asked again. */
#define KEEP_S (24 * 3600)

/* The version and time of the file at path into v (16 bytes) and *at:
 * 1, or 0 when there is no such file or it says something else. */
static int read_kept(const char *path, char v[16], long long *at)
{
	char *text = NULL;
	size_t len = 0;
	int e = 0, ok;

	ok = pai_file_read_max(&text, &len, &e, path, 256) == PAI_OK &&
	     sscanf(text, "%15s %lld", v, at) == 2;
	free(text);
	return ok;
}

int pai__slurm_state_keep(pai_client *c, const char *state_dir,
			  const char *name)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai__buf b = PAI__BUF_INIT;
	long long at = 0;
	char v[16];

	if (!state_dir || !name)
		return PAI_OK;
	pai__buf_printf(&b, "%s/slurm/%s.openapi", state_dir, name);
	if (b.oom)
		return PAI_ENOMEM;
	free(s->state_path);
	s->state_path = pai__buf_detach(&b);
	if (s->state_path && read_kept(s->state_path, v, &at) &&
	    (long long)time(NULL) - at < KEEP_S)
		pai_client_set_slurm_openapi(c, v);
	return s->state_path ? PAI_OK : PAI_ENOMEM;
}

/* The state directory and its slurm/ made (mode 0700) where missing:
 * path's grandparent, then its parent. */
static void make_dirs(const char *path)
{
	char *d = strdup(path), *parent, *grand;

	if (d && (parent = strrchr(d, '/')) && parent != d) {
		*parent = '\0';
		if ((grand = strrchr(d, '/')) && grand != d) {
			*grand = '\0';
			mkdir(d, 0700);
			*grand = '/';
		}
		mkdir(d, 0700);
	}
	free(d);
}

void pai__slurm_state_save(struct pai__slurm_client *s)
{
	const char *v = s->version && !s->tentative ? s->path_version : NULL;
	char was[16], line[64];
	long long at = 0;

	if (!v || !s->state_path)
		return;
	/* the same, and not about to expire: left as it is */
	if (read_kept(s->state_path, was, &at) && strcmp(was, v) == 0 &&
	    (long long)time(NULL) - at < KEEP_S / 2)
		return;
	make_dirs(s->state_path);
	snprintf(line, sizeof(line), "%s %lld\n", v, (long long)time(NULL));
	pai_file_write_atomic(s->state_path, line, strlen(line), 0600,
			      PAI_WRITE_NO_DIRSYNC);
}
