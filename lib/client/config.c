/* config.c - cluster profiles and stored tokens (written with file.c's
 * atomic writes). Files that hold secrets or choose where they go are
 * refused when others may read them, as ssh refuses such keys. */
#include "config_k8s.h"
#include "config_slurm.h"
#include "file.h"
#include "json_values.h"
#include "text/text.h" /* pai__is_name_char */

#include "sys/dl_curl.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A profile and, for a Kubernetes or Slurm cluster, the rest of it. */
struct entry {
	pai_profile p; /* every string owned */
	struct pai__k8s_prof k8s;
	struct pai__slurm_prof slurm;
};

struct pai_config {
	struct entry *profiles;
	size_t count;
	char *current;
};

static char *xprintf(const char *fmt, ...) PAI__PRINTF(1, 2);

static char *xprintf(const char *fmt, ...)
{
	pai__buf b = PAI__BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	pai__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return pai__buf_detach(&b);
}

/* Opens path for reading and refuses it when group or others have any
 * access, or someone else owns it. *fd -1 and PAI_OK when missing and
 * missing_ok. */
static int open_private(int *fdp, char **detail, const char *path,
			int missing_ok)
{
	struct stat st;
	int fd, e;

	*fdp = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && missing_ok)
			return PAI_OK;
		if (detail)
			*detail =
			    xprintf("cannot open '%s': %s", path, strerror(e));
		return pai__from_errno(e);
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		if (detail)
			*detail =
			    xprintf("cannot stat '%s': %s", path, strerror(e));
		return pai__from_errno(e);
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		if (detail)
			*detail = xprintf("'%s' is a directory", path);
		return PAI_EISDIR;
	}
	if (st.st_mode & 077) {
		close(fd);
		if (detail)
			*detail =
			    xprintf("permissions %04o on '%s' are too "
				    "open: it must be private to its "
				    "owner (chmod 600 '%s')",
				    (unsigned)(st.st_mode & 07777), path, path);
		return PAI_EACCES;
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		if (detail)
			*detail = xprintf("'%s' belongs to another user", path);
		return PAI_EACCES;
	}
	*fdp = fd;
	return PAI_OK;
}

/* fd's bytes, at most 16 MiB; secret (a token): the buffer and the
 * pieces read wiped as they go. */
static int read_fd(char **out, size_t *len, int fd, int secret)
{
	pai__buf b = PAI__BUF_INIT;
	char chunk[4096];
	ssize_t r;

	*out = NULL;
	*len = 0;
	b.secret = secret;
	for (;;) {
		r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			pai__buf_release(&b);
			return pai__from_errno(e);
		}
		if (r == 0)
			break;
		pai__buf_put(&b, chunk, (size_t)r);
		if (secret)
			explicit_bzero(chunk, (size_t)r);
		if (b.len > 16 << 20) {
			pai__buf_release(&b);
			return PAI_ETOOBIG;
		}
	}
	*len = b.len;
	*out = pai__buf_detach(&b);
	return *out ? PAI_OK : PAI_ENOMEM;
}

/* ---- profiles ----------------------------------------------------------- */

static void profile_release(pai_profile *p)
{
	free((char *)p->name);
	free((char *)p->uri);
	free((char *)p->user);
	free((char *)p->ca_file);
	memset(p, 0, sizeof(*p));
}

static void entry_release(struct entry *e)
{
	profile_release(&e->p);
	pai__k8s_prof_release(&e->k8s);
	pai__slurm_prof_release(&e->slurm);
}

void pai_config_free(pai_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->count; i++)
		entry_release(&cfg->profiles[i]);
	free(cfg->profiles);
	free(cfg->current);
	free(cfg);
}

/* Letters, digits, '.', '_' and '-'; not starting with '.' or '-'. */
static int valid_name(const char *s)
{
	size_t i;

	if (!s || !*s || strlen(s) > 64 || *s == '.' || *s == '-')
		return 0;
	for (i = 0; s[i]; i++)
		if (!pai__is_name_char((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-')
			return 0;
	return 1;
}

/* An http(s):// URI; login: also ssh://[user@]host[:port] (a Slurm
 * cluster's login node, slurm_ssh.c). */
static int valid_uri(const char *uri, int login)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL;
	int ok, ssh = login && uri && strncmp(uri, "ssh://", 6) == 0;

	if (!uri || (strncmp(uri, "http://", 7) != 0 &&
		     strncmp(uri, "https://", 8) != 0 && !ssh))
		return 0;
	if (ssh && (strpbrk(uri + 6, "?#") || strchr(uri + 6, '/') !=
						      strrchr(uri + 6, '/') ||
		    (strchr(uri + 6, '/') && strchr(uri + 6, '/')[1])))
		return 0;
	if (!(u = curl_url()))
		return 0;
	ok = curl_url_set(u, CURLUPART_URL, uri,
			  ssh ? CURLU_NON_SUPPORT_SCHEME : 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && *host;
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
}

static int copy_profile(pai_profile *dst, const pai_profile *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->dialect = src->dialect;
	dst->insecure = src->insecure ? 1 : 0;
	dst->api = src->api;
	if (!(dst->name = strdup(src->name)) ||
	    (src->uri && !(dst->uri = strdup(src->uri))) ||
	    (src->user && !(dst->user = strdup(src->user))) ||
	    (src->ca_file && !(dst->ca_file = strdup(src->ca_file)))) {
		profile_release(dst);
		return PAI_ENOMEM;
	}
	return PAI_OK;
}

static long find_index(const pai_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; cfg && name && i < cfg->count; i++)
		if (strcmp(cfg->profiles[i].p.name, name) == 0)
			return (long)i;
	return -1;
}

/* A Kubernetes cluster's profile has no URI (its kubeconfig says
 * where), every other one an http(s) URI. */
static int valid_profile(const pai_profile *p)
{
	int k8s = p->api == PAI_API_K8S;

	return valid_name(p->name) && (k8s ? !p->uri
		    : valid_uri(p->uri, p->api == PAI_API_SLURM)) &&
	       (p->dialect == PAI_DIALECT_OPENPAI ||
		p->dialect == PAI_DIALECT_SCM) &&
	       (unsigned)p->api <= PAI_API_SLURM && (!p->user || *p->user);
}

int pai_config_set(pai_config *cfg, const pai_profile *profile)
{
	struct entry *v;
	pai_profile copy;
	long i;
	int err;

	if (pai__curl_load()) /* valid_uri's parser */
		return PAI_ELIBRARY;
	if (!cfg || !profile || !valid_profile(profile))
		return PAI_EINVAL;
	if ((err = copy_profile(&copy, profile)))
		return err;
	i = find_index(cfg, profile->name);
	if (i >= 0) {
		profile_release(&cfg->profiles[i].p);
		cfg->profiles[i].p = copy;
		/* a Kubernetes profile replaced keeps its settings */
		if (copy.api != PAI_API_K8S)
			pai__k8s_prof_release(&cfg->profiles[i].k8s);
		if (copy.api != PAI_API_SLURM)
			pai__slurm_prof_release(&cfg->profiles[i].slurm);
		return PAI_OK;
	}
	v = realloc(cfg->profiles, (cfg->count + 1) * sizeof(*v));
	if (!v) {
		profile_release(&copy);
		return PAI_ENOMEM;
	}
	cfg->profiles = v;
	memset(&v[cfg->count], 0, sizeof(v[0]));
	v[cfg->count++].p = copy;
	return PAI_OK;
}

/* The entry of profile name of API api (a Kubernetes or Slurm one):
 * PAI_ENOTFOUND, PAI_EINVAL (another kind). */
static int entry_of(struct entry **out, const pai_config *cfg,
		    const char *name, pai_api api)
{
	long i = find_index(cfg, name);

	*out = NULL;
	if (i < 0)
		return PAI_ENOTFOUND;
	if (cfg->profiles[i].p.api != api)
		return PAI_EINVAL;
	*out = &cfg->profiles[i];
	return PAI_OK;
}

int pai_config_set_k8s(pai_config *cfg, const char *name,
		       const pai_k8s_cluster *k)
{
	struct entry *e;
	int err;

	if (!cfg || !name || !k)
		return PAI_EINVAL;
	if ((err = entry_of(&e, cfg, name, PAI_API_K8S)))
		return err;
	return pai__k8s_prof_set(&e->k8s, k);
}

int pai_config_k8s(pai_k8s_cluster *out, const pai_config *cfg,
		   const char *name)
{
	pai_k8s_cluster all;
	struct entry *e;
	int err;

	if (!out || !cfg || !name)
		return PAI_EINVAL;
	if ((err = entry_of(&e, cfg, name, PAI_API_K8S)))
		return err;
	/* version 1's fields only: a caller built before version 2 has no
	 * room for more (pai_config_k8s_runtime() gives the rest) */
	pai__k8s_prof_get(&all, &e->k8s);
	all.version = 1;
	memcpy(out, &all, offsetof(pai_k8s_cluster, runtime));
	return PAI_OK;
}

int pai_config_k8s_runtime(const char **runtime, int *namespaced,
			   const pai_config *cfg, const char *name)
{
	pai_k8s_cluster all;
	struct entry *e;
	int err;

	if (!runtime || !namespaced || !cfg || !name)
		return PAI_EINVAL;
	if ((err = entry_of(&e, cfg, name, PAI_API_K8S)))
		return err;
	pai__k8s_prof_get(&all, &e->k8s);
	*runtime = all.runtime;
	*namespaced = all.runtime_namespaced;
	return PAI_OK;
}

int pai_config_set_slurm(pai_config *cfg, const char *name,
			 const pai_slurm_cluster *s)
{
	struct entry *e;
	int err;

	if (!cfg || !name || !s)
		return PAI_EINVAL;
	if ((err = entry_of(&e, cfg, name, PAI_API_SLURM)))
		return err;
	return pai__slurm_prof_set(&e->slurm, s);
}

int pai_config_slurm(pai_slurm_cluster *out, const pai_config *cfg,
		     const char *name)
{
	pai_slurm_cluster all;
	struct entry *e;
	int err;

	if (!out || !cfg || !name)
		return PAI_EINVAL;
	if ((err = entry_of(&e, cfg, name, PAI_API_SLURM)))
		return err;
	/* version 1's fields only: a caller built before version 2 has no
	 * room for more (pai_config_slurm_identity() gives the rest) */
	pai__slurm_prof_get(&all, &e->slurm);
	all.version = 1;
	memcpy(out, &all, offsetof(pai_slurm_cluster, identity_file));
	return PAI_OK;
}

int pai_config_slurm_identity(const char **identity, const pai_config *cfg,
			      const char *name)
{
	struct entry *e;
	int err;

	if (!identity || !cfg || !name)
		return PAI_EINVAL;
	if ((err = entry_of(&e, cfg, name, PAI_API_SLURM)))
		return err;
	*identity = e->slurm.identity_file;
	return PAI_OK;
}

int pai_config_remove(pai_config *cfg, const char *name)
{
	long i = find_index(cfg, name);

	if (!cfg || !name)
		return PAI_EINVAL;
	if (i < 0)
		return PAI_ENOTFOUND;
	entry_release(&cfg->profiles[i]);
	memmove(&cfg->profiles[i], &cfg->profiles[i + 1],
		(cfg->count - (size_t)i - 1) * sizeof(cfg->profiles[0]));
	cfg->count--;
	if (cfg->current && strcmp(cfg->current, name) == 0) {
		free(cfg->current);
		cfg->current = NULL;
	}
	return PAI_OK;
}

size_t pai_config_count(const pai_config *cfg)
{
	return cfg ? cfg->count : 0;
}

const pai_profile *pai_config_get(const pai_config *cfg, size_t i)
{
	return cfg && i < cfg->count ? &cfg->profiles[i].p : NULL;
}

const pai_profile *pai_config_find(const pai_config *cfg, const char *name)
{
	long i = find_index(cfg, name);

	return i >= 0 ? &cfg->profiles[i].p : NULL;
}

const char *pai_config_current(const pai_config *cfg)
{
	return cfg ? cfg->current : NULL;
}

int pai_config_set_current(pai_config *cfg, const char *name)
{
	char *c = NULL;

	if (!cfg)
		return PAI_EINVAL;
	/* "local" is the CLI's built-in profile: it need not be listed */
	if (name && !valid_name(name))
		return PAI_EINVAL;
	if (name && !(c = strdup(name)))
		return PAI_ENOMEM;
	free(cfg->current);
	cfg->current = c;
	return PAI_OK;
}

/* A profile's optional member: absent or null, or of its type. */
static int absent_or(json_t *v, int ok)
{
	return !v || json_is_null(v) || ok;
}

/* The members of a profile object o into p (strings borrowed from o); a
 * reason in *why on failure. */
static int profile_fields(pai_profile *p, const char *name, json_t *o,
			  char **why)
{
	json_t *v;

	p->uri = json_string_value(json_object_get(o, "uri"));
	p->user = json_string_value(json_object_get(o, "user"));
	p->ca_file = json_string_value(json_object_get(o, "caFile"));
	v = json_object_get(o, "dialect");
	if (!absent_or(v, json_is_string(v) &&
			      !pai_dialect_from_name(&p->dialect,
						     json_string_value(v)))) {
		*why = xprintf("cluster '%s': dialect must be \"openpai\" or "
			       "\"scm\"",
			       name);
		return PAI_ESYNTAX;
	}
	v = json_object_get(o, "api");
	if (!absent_or(v,
		       json_is_string(v) &&
			   !pai_api_from_name(&p->api, json_string_value(v)))) {
		*why = xprintf("cluster '%s': api must be \"v1\", \"v2\", "
			       "\"dual\", \"k8s\", \"slurm\" or \"auto\"",
			       name);
		return PAI_ESYNTAX;
	}
	v = json_object_get(o, "insecure");
	if (!absent_or(v, json_is_boolean(v))) {
		*why = xprintf("cluster '%s': insecure must be true or false",
			       name);
		return PAI_ESYNTAX;
	}
	p->insecure = json_is_true(v);
	if (!absent_or(json_object_get(o, "user"), p->user != NULL) ||
	    !absent_or(json_object_get(o, "caFile"), p->ca_file != NULL)) {
		*why = xprintf("cluster '%s': user and caFile must be strings",
			       name);
		return PAI_ESYNTAX;
	}
	return PAI_OK;
}

/* One profile from the file; a reason in *why on failure. */
static int load_profile(pai_config *cfg, const char *name, json_t *o,
			char **why)
{
	pai_profile p;
	int err;

	memset(&p, 0, sizeof(p));
	p.name = name;
	if (!json_is_object(o)) {
		*why = xprintf("cluster '%s' is not an object", name);
		return PAI_ESYNTAX;
	}
	if ((err = profile_fields(&p, name, o, why)))
		return err;
	err = pai_config_set(cfg, &p);
	if (err == PAI_EINVAL) {
		*why = !valid_name(name)
			   ? xprintf("'%s' is not a valid cluster name "
				     "(letters, digits, '.', '_', '-')",
				     name)
		       : p.api == PAI_API_K8S
			   ? xprintf("cluster '%s' is a Kubernetes cluster: "
				     "its kubeconfig says where, not a uri",
				     name)
			   : xprintf("cluster '%s' needs an http:// or "
				     "https:// uri",
				     name);
		return PAI_ESYNTAX;
	}
	if (!err && p.api == PAI_API_SLURM)
		return pai__slurm_prof_read(
		    &cfg->profiles[find_index(cfg, name)].slurm,
		    json_object_get(o, "slurm"), name, why);
	if (err || p.api != PAI_API_K8S)
		return err;
	return pai__k8s_prof_read(&cfg->profiles[find_index(cfg, name)].k8s,
				  json_object_get(o, "kubernetes"), name, why);
}

/* The config file's JSON in *root; NULL when there is no file, or an
 * empty one. A reason in *detail (opening) or *why (reading) on
 * failure. */
static int read_config(json_t **root, char **detail, char **why,
		       const char *path)
{
	json_error_t je;
	char *text = NULL;
	size_t len = 0;
	int fd = -1, err;

	*root = NULL;
	if ((err = open_private(&fd, detail, path, 1)) || fd < 0)
		return err; /* no file: no profiles */
	if ((err = read_fd(&text, &len, fd, 0)))
		*why = xprintf("cannot read '%s': %s", path, pai_strerror(err));
	else if (len > 0 &&
		 (err = pai__json_loadb(root, &je, text, len,
					JSON_REJECT_DUPLICATES)) == PAI_ESYNTAX)
		*why =
		    xprintf("%s:%d:%d: %s", path, je.line, je.column, je.text);
	close(fd);
	free(text);
	return err;
}

/* The file's JSON as profiles and the current one; a reason in *why on
 * failure. */
static int config_from_json(pai_config *cfg, json_t *root, const char *path,
			    char **why)
{
	json_t *clusters, *v;
	const char *name;
	int err;

	if (!json_is_object(root)) {
		*why = xprintf("%s: expected a JSON object", path);
		return PAI_ESYNTAX;
	}
	v = json_object_get(root, "current");
	if (v && !json_is_null(v)) {
		err = json_is_string(v)
			  ? pai_config_set_current(cfg, json_string_value(v))
			  : PAI_EINVAL;
		if (err == PAI_EINVAL)
			*why = xprintf("%s: \"current\" must be a cluster name",
				       path);
		if (err)
			return err == PAI_EINVAL ? PAI_ESYNTAX : err;
	}
	clusters = json_object_get(root, "clusters");
	if (!absent_or(clusters, json_is_object(clusters))) {
		*why = xprintf("%s: \"clusters\" must be an object", path);
		return PAI_ESYNTAX;
	}
	json_object_foreach(clusters, name, v)
	{
		char *reason = NULL;

		if ((err = load_profile(cfg, name, v, &reason))) {
			*why = reason ? xprintf("%s: %s", path, reason) : NULL;
			free(reason);
			return err;
		}
	}
	return PAI_OK;
}

int pai_config_load(pai_config **out, char **detail, const char *path)
{
	pai_config *cfg = NULL;
	json_t *root = NULL;
	char *why = NULL;
	int err;

	if (out)
		*out = NULL;
	if (detail)
		*detail = NULL;
	if (!out || !path)
		return PAI_EINVAL;
	if (!(cfg = calloc(1, sizeof(*cfg))))
		return PAI_ENOMEM;
	err = read_config(&root, detail, &why, path);
	if (err == PAI_OK && root)
		err = config_from_json(cfg, root, path, &why);
	if (err == PAI_OK) {
		*out = cfg;
		cfg = NULL;
	}
	if (why && detail && !*detail) {
		*detail = why;
		why = NULL;
	}
	free(why);
	/* the reason quotes the file (jansson's "near '...'", a cluster's
	 * name): no control character of it may reach a terminal */
	if (detail && *detail) {
		char *safe = pai__escape_controls(*detail);

		free(*detail);
		*detail = safe;
	}
	json_decref(root);
	pai_config_free(cfg);
	return err;
}

/* A profile as the file writes it; NULL when out of memory. */
static json_t *profile_json(const struct entry *e)
{
	const pai_profile *p = &e->p;
	json_t *o = json_object();

	/* json_object_set_new takes the value even when it fails */
	if (!o ||
	    (p->uri &&
	     json_object_set_new(o, "uri", json_string(p->uri)) < 0) ||
	    (p->user &&
	     json_object_set_new(o, "user", json_string(p->user)) < 0) ||
	    json_object_set_new(
		o, "dialect", json_string(pai_dialect_name(p->dialect))) < 0 ||
	    (p->ca_file &&
	     json_object_set_new(o, "caFile", json_string(p->ca_file)) < 0) ||
	    json_object_set_new(o, "insecure", json_boolean(p->insecure)) < 0 ||
	    (p->api != PAI_API_AUTO &&
	     json_object_set_new(o, "api", json_string(pai_api_name(p->api))) <
		 0) ||
	    (p->api == PAI_API_K8S &&
	     json_object_set_new(o, "kubernetes", pai__k8s_prof_json(&e->k8s)) <
		 0) ||
	    (p->api == PAI_API_SLURM &&
	     json_object_set_new(o, "slurm", pai__slurm_prof_json(&e->slurm)) <
		 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The whole config as the file writes it; NULL when out of memory. */
static json_t *config_json(const pai_config *cfg)
{
	json_t *root = json_object(), *clusters = json_object();
	size_t i;

	if (!root || !clusters ||
	    json_object_set_new(root, "current",
				cfg->current ? json_string(cfg->current)
					     : json_null()) < 0 ||
	    json_object_set(root, "clusters", clusters) < 0)
		goto oom;
	for (i = 0; i < cfg->count; i++)
		if (json_object_set_new(clusters, cfg->profiles[i].p.name,
					profile_json(&cfg->profiles[i])) < 0)
			goto oom;
	json_decref(clusters);
	return root;
oom:
	json_decref(clusters);
	json_decref(root);
	return NULL;
}

int pai_config_save(const pai_config *cfg, const char *path)
{
	json_t *root = NULL;
	char *text = NULL, *copy = NULL, *t = NULL;
	int err = PAI_ENOMEM, e;

	if (!cfg || !path)
		return PAI_EINVAL;
	if (!(root = config_json(cfg)) ||
	    !(text = pai__json_dumps(root, JSON_INDENT(2))) ||
	    !(copy = strdup(path)))
		goto out;
	if ((e = pai__make_dirs(dirname(copy), 0700))) {
		err = pai__from_errno(e);
		goto out;
	}
	if ((t = xprintf("%s\n", text)))
		err = pai_file_write_atomic(path, t, strlen(t), 0600, 0);
out:
	free(t);
	free(copy);
	free(text);
	json_decref(root);
	return err;
}

/* ---- tokens ---------------------------------------------------------------
 */

/* <dir>/tokens/<cluster>@<user>, each part percent-encoded so that no
 * name can leave the directory or collide with another. */
static int token_path(char **out, const char *dir, const char *cluster,
		      const char *user)
{
	pai__buf b = PAI__BUF_INIT;
	const char *parts[2] = {cluster, user}, *s;
	int i;

	*out = NULL;
	if (!dir || !*dir || !cluster || !*cluster || !user || !*user)
		return PAI_EINVAL;
	pai__buf_printf(&b, "%s/tokens/", dir);
	for (i = 0; i < 2; i++) {
		if (i)
			pai__buf_putc(&b, '@');
		for (s = parts[i]; *s; s++) {
			unsigned char ch = (unsigned char)*s;

			if (pai__is_name_char(ch) || ch == '-' ||
			    (ch == '.' && s != parts[i]))
				pai__buf_putc(&b, (char)ch);
			else
				pai__buf_printf(&b, "%%%02X", ch);
		}
	}
	*out = pai__buf_detach(&b);
	return *out ? PAI_OK : PAI_ENOMEM;
}

int pai_token_load(char **token, const char *dir, const char *cluster,
		   const char *user)
{
	char *path = NULL, *text = NULL;
	size_t len = 0;
	int fd = -1, err;

	if (token)
		*token = NULL;
	if (!token)
		return PAI_EINVAL;
	if ((err = token_path(&path, dir, cluster, user)))
		return err;
	if ((err = open_private(&fd, NULL, path, 0)))
		goto out;
	if ((err = read_fd(&text, &len, fd, 1)))
		goto out;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
		       text[len - 1] == ' ' || text[len - 1] == '\t'))
		text[--len] = '\0';
	if (!len || memchr(text, '\n', len) || strlen(text) != len) {
		err = PAI_ENOTFOUND; /* empty or not a token: none stored */
		goto out;
	}
	*token = text;
	text = NULL;
out:
	if (fd >= 0)
		close(fd);
	pai__wipe(text, len);
	free(text);
	free(path);
	return err;
}

int pai_token_save(const char *dir, const char *cluster, const char *user,
		   const char *token)
{
	char *path = NULL, *tdir = NULL, *text = NULL;
	int err, e;

	if (!token || !*token || strchr(token, '\n'))
		return PAI_EINVAL;
	if ((err = token_path(&path, dir, cluster, user)))
		return err;
	if (!(tdir = xprintf("%s/tokens", dir)) ||
	    !(text = xprintf("%s\n", token))) {
		err = PAI_ENOMEM;
		goto out;
	}
	if ((e = pai__make_dirs(tdir, 0700))) {
		err = pai__from_errno(e);
		goto out;
	}
	err = pai_file_write_atomic(path, text, strlen(text), 0600, 0);
out:
	pai__free_secret(text);
	free(tdir);
	free(path);
	return err;
}

int pai_token_remove(const char *dir, const char *cluster, const char *user)
{
	char *path = NULL;
	int err = token_path(&path, dir, cluster, user);

	if (err)
		return err;
	if (unlink(path) < 0)
		err = pai__from_errno(errno);
	free(path);
	return err;
}
