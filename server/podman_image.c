/* podman_image.c - the image a task runs in under podman: the job's
 * (v0.x "image"; protocol v2, the dockerimage prerequisite its role
 * names), a name without a registry taken as Docker Hub's as OpenPAI's
 * Docker does unless registries.conf says where podman searches, and
 * the registry's credentials of protocol v2's `auth` handed to podman
 * in memory (a memfd), never written to a file */
#include "runtime_podman.h"
#include "sys/sys.h" /* libpai's base64 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The dockerimage prerequisite of role `role` (v2), or NULL. */
static json_t *image_prerequisite(json_t *cfg, const char *role)
{
	json_t *r = json_object_get(json_object_get(cfg, "taskRoles"), role);
	const char *want = json_string_value(json_object_get(r, "dockerImage"));
	json_t *p, *first = NULL;
	size_t i;

	json_array_foreach(json_object_get(cfg, "prerequisites"), i, p)
	{
		const char *type = json_string_value(json_object_get(p, "type"));
		const char *name = json_string_value(json_object_get(p, "name"));

		if (!type || strcmp(type, "dockerimage") != 0 ||
		    !json_is_string(json_object_get(p, "uri")))
			continue;
		if (want && name && strcmp(want, name) == 0)
			return p;
		if (!first)
			first = p;
	}
	return first;
}

static const char *role_name(const pai_job *pj, size_t role)
{
	pai_role ri;

	return pai_job_role(&ri, pj, role) == PAI_OK ? ri.name : NULL;
}

/* Whether the first part of name is a registry: a host with a dot or
 * a port, or localhost. */
static bool names_registry(const char *name)
{
	size_t n = strcspn(name, "/");

	if (!name[n])
		return false;
	return memchr(name, '.', n) || memchr(name, ':', n) ||
	       (n == 9 && strncmp(name, "localhost", 9) == 0);
}

char *podman_image(const struct podman *p, const pai_job *pj, size_t role)
{
	json_t *cfg = pai_job_config(pj), *pre;
	const char *image = json_string_value(json_object_get(cfg, "image"));

	if (!image && (pre = image_prerequisite(cfg, role_name(pj, role))))
		image = json_string_value(json_object_get(pre, "uri"));
	if (!image || !*image)
		return NULL;
	if (names_registry(image) || p->short_names)
		return strdup(image);
	return srv_printf("docker.io/%s", image);
}

/* Whether one registries.conf sets a non-empty
 * unqualified-search-registries (TOML: key = [ ... ]). */
static bool file_searches(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	bool yes = false;

	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f)) {
		const char *c = line + strspn(line, " \t");

		if (strncmp(c, "unqualified-search-registries", 29) != 0)
			continue;
		c = strchr(c, '[');
		yes = c && c[1 + strspn(c + 1, " \t")] != ']';
	}
	fclose(f);
	return yes;
}

bool podman_searches_short_names(void)
{
	/* $CONTAINERS_REGISTRIES_CONF, as podman reads it, replaces the
	 * system's and the user's file */
	const char *home = getenv("HOME"),
		   *env = getenv("CONTAINERS_REGISTRIES_CONF");
	char *user = home && !env ? srv_printf("%s/.config/containers/"
					       "registries.conf",
					       home)
				  : NULL;
	bool yes = file_searches(env ? env : "/etc/containers/registries.conf") ||
		   (user && file_searches(user));
	DIR *d = opendir("/etc/containers/registries.conf.d");
	struct dirent *e;

	free(user);
	while (d && !yes && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *path;

		if (n < 5 || strcmp(e->d_name + n - 5, ".conf") != 0)
			continue;
		path = srv_printf("/etc/containers/registries.conf.d/%s",
				  e->d_name);
		yes = path && file_searches(path);
		free(path);
	}
	if (d)
		closedir(d);
	return yes;
}

/* The registry of auth (registryuri, else the image's own), as
 * auth.json keys it: a host, maybe with a port, no scheme or path. */
static char *auth_registry(json_t *auth, const char *image)
{
	const char *uri = json_string_value(json_object_get(auth, "registryuri"));
	const char *c;

	if (!uri || !*uri) {
		if (!image || !names_registry(image))
			return strdup("docker.io");
		uri = image;
	}
	if ((c = strstr(uri, "://")))
		uri = c + 3;
	return strndup(uri, strcspn(uri, "/"));
}

int podman_auth_fd(const pai_job *pj, size_t role)
{
	json_t *pre = image_prerequisite(pai_job_config(pj), role_name(pj, role));
	json_t *auth = json_object_get(pre, "auth"), *doc;
	const char *user = json_string_value(json_object_get(auth, "username"));
	const char *pass = json_string_value(json_object_get(auth, "password"));
	char *reg, *pair, *b64 = NULL, *text = NULL;
	size_t len;
	int fd = -2;

	if (!user || !pass)
		return -1;
	reg = auth_registry(auth, json_string_value(json_object_get(pre, "uri")));
	pair = srv_printf("%s:%s", user, pass);
	if (pair)
		b64 = malloc(4 * ((strlen(pair) + 2) / 3) + 1);
	if (b64)
		pai__base64_encode(b64, pair, strlen(pair));
	if (reg && b64 &&
	    (doc = json_pack("{s:{s:{s:s}}}", "auths", reg, "auth", b64))) {
		text = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
	}
	if (text && (fd = memfd_create("paictl-auth", MFD_CLOEXEC)) >= 0) {
		len = strlen(text);
		if (write(fd, text, len) != (ssize_t)len) {
			close(fd);
			fd = -2;
		}
	}
	if (fd < 0)
		fd = -2;
	srv_free_secret(text);
	srv_free_secret(b64);
	srv_free_secret(pair);
	free(reg);
	return fd;
}
