/* kube_config.c - which kubeconfig files, how they merge, which context
 * (§1.1, 1.2), and the in-cluster configuration (§1.6). The fields of a
 * cluster and a user are kube_fields.c's. */
#include "kube.h"
#include "text/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One file of the merge. */
struct kfile {
	char *path;
	char *dir; /* absolute: what relative paths in it are against */
	pai__kube_ynode *root;
};

/* A named entry, from the first file that names it. */
struct entry {
	const char *name; /* borrowed from the tree */
	const pai__kube_ynode *body;
	size_t file;
};

struct kind {
	const char *list, *body, *what; /* "clusters", "cluster", ... */
	struct entry *v;
	size_t n, cap;
};

struct merged {
	struct kfile *files;
	size_t nfiles, capfiles;
	struct kind clusters, users, contexts;
	const char *current; /* the first non-empty current-context */
};

void pai__kube_load_opts_env(pai__kube_load_opts *o)
{
	o->env_kubeconfig = getenv("KUBECONFIG");
	o->home = getenv("HOME");
	o->service_host = getenv("KUBERNETES_SERVICE_HOST");
	o->service_port = getenv("KUBERNETES_SERVICE_PORT");
	o->pod_namespace = getenv("POD_NAMESPACE");
}

static void merged_release(struct merged *m)
{
	size_t i;

	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].dir);
		pai__kube_ynode_free(m->files[i].root);
	}
	free(m->files);
	free(m->clusters.v);
	free(m->users.v);
	free(m->contexts.v);
}

/* The absolute folder of path, as Go's filepath.Abs(filepath.Dir()). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[4096];
	pai__buf b = PAI__BUF_INIT;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			snprintf(cwd, sizeof(cwd), ".");
		pai__buf_printf(&b, "%s%s", cwd, slash ? "/" : "");
	}
	if (slash)
		pai__buf_put(&b, path,
			     slash == path ? 1 : (size_t)(slash - path));
	return pai__buf_detach(&b);
}

/* ---- one file ------------------------------------------------------------ */

static int read_error(pai__kube_err *err, int code, int sys, const char *path)
{
	if (code == PAI_ETOOBIG)
		return pai__kube_fail(err, code, "%s: larger than %zu bytes",
				      path, PAI__KUBE_MAX_FILE);
	return pai__kube_fail(err, code, "cannot read kubeconfig '%s': %s",
			      path, strerror(sys));
}

/* Reads and parses path into a new kfile. *missing set (and PAI_OK
 * returned) when it does not exist and may_miss says so. */
static int load_file(struct merged *m, const char *path, int may_miss,
		     pai__kube_err *err)
{
	struct kfile f = {NULL, NULL, NULL};
	char *text = NULL;
	size_t len = 0;
	int sys = 0, ret;

	ret = pai_file_read_max(&text, &len, &sys, path, PAI__KUBE_MAX_FILE);
	if (ret == PAI_ENOTFOUND && may_miss)
		return PAI_OK;
	if (ret)
		return read_error(err, ret, sys, path);
	ret = pai__kube_yaml_parse(&f.root, path, text, len, err);
	free(text);
	if (ret)
		return ret;
	if (f.root && f.root->type != PAI__KY_MAP) {
		ret = pai__kube_fail(err, PAI_ESYNTAX,
				     "%s:%u: not a kubeconfig (no mapping)",
				     path, f.root->line);
		pai__kube_ynode_free(f.root);
		return ret;
	}
	if (m->nfiles == m->capfiles) {
		size_t cap = m->capfiles ? 2 * m->capfiles : 4;
		struct kfile *v = realloc(m->files, cap * sizeof(*v));

		if (!v)
			goto nomem;
		m->files = v;
		m->capfiles = cap;
	}
	if (!(f.path = strdup(path)) || !(f.dir = dir_of(path)))
		goto nomem;
	m->files[m->nfiles++] = f;
	return PAI_OK;
nomem:
	free(f.path);
	pai__kube_ynode_free(f.root);
	return PAI_ENOMEM;
}

/* $KUBECONFIG's files, split like PATH, empties and repeats dropped,
 * missing ones skipped (§1.1). */
static int load_env_list(struct merged *m, const char *list, pai__kube_err *err)
{
	char *copy = strdup(list), *p, *next;
	size_t i, seen = 0;
	const char **done;
	int ret = PAI_OK;

	done = malloc((strlen(list) / 2 + 2) * sizeof(*done));
	if (!copy || !done) {
		free(copy);
		free(done);
		return PAI_ENOMEM;
	}
	for (p = copy; p && !ret; p = next) {
		if ((next = strchr(p, ':')))
			*next++ = '\0';
		for (i = 0; i < seen && strcmp(done[i], p) != 0; i++)
			;
		if (*p == '\0' || i < seen)
			continue;
		done[seen++] = p;
		ret = load_file(m, p, 1, err);
	}
	free(done);
	free(copy);
	return ret;
}

static int load_files(struct merged *m, const pai__kube_load_opts *o,
		      pai__kube_err *err)
{
	char *path = NULL;
	int ret;

	if (o->kubeconfig)
		return load_file(m, o->kubeconfig, 0, err);
	if (o->env_kubeconfig && *o->env_kubeconfig)
		return load_env_list(m, o->env_kubeconfig, err);
	if (!o->home || !*o->home)
		return PAI_OK;
	if (pai__kube_resolve(&path, o->home, ".kube/config"))
		return PAI_ENOMEM;
	ret = load_file(m, path, 1, err);
	free(path);
	return ret;
}

/* ---- merging --------------------------------------------------------------
 */

/* Names are looked up one by one: a bound keeps that quadratic walk
 * short (a kubeconfig holds tens of entries). */
#define MAX_ENTRIES 10000

static int entry_add(struct kind *k, const char *name,
		     const pai__kube_ynode *body, size_t file)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		struct entry *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return PAI_ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n].name = name;
	k->v[k->n].body = body;
	k->v[k->n].file = file;
	k->n++;
	return PAI_OK;
}

static const struct entry *entry_find(const struct kind *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->v[i].name, name) == 0)
			return &k->v[i];
	return NULL;
}

/* One item of a named list: {name, <body>: {...}}. */
static int merge_item(struct merged *m, struct kind *k, size_t file,
		      const pai__kube_ynode *item, size_t first,
		      pai__kube_err *err)
{
	const char *path = m->files[file].path;
	const pai__kube_ynode *name = pai__kube_yget(item, "name");
	const pai__kube_ynode *body = pai__kube_yget(item, k->body);
	const char *nm = "";
	const struct entry *e;

	if (item->type != PAI__KY_MAP)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: an item of %s must be a mapping",
				      path, item->line, k->list);
	if (!pai__kube_ynull(name)) {
		if (name->type != PAI__KY_SCALAR ||
		    strlen(name->text) != name->len)
			return pai__kube_fail(err, PAI_ESYNTAX,
					      "%s:%u: name must be a string",
					      path, name->line);
		nm = name->text;
	}
	if (!pai__kube_ynull(body) && body->type != PAI__KY_MAP)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: %s must be a mapping", path,
				      body->line, k->body);
	e = entry_find(k, nm);
	/* client-go refuses a name twice in one file */
	if (e && e - k->v >= (ptrdiff_t)first)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: %s \"%s\" defined twice", path,
				      item->line, k->what, nm);
	if (e) /* an earlier file has it: it wins whole (§1.2) */
		return PAI_OK;
	return entry_add(k, nm, pai__kube_ynull(body) ? NULL : body, file);
}

static int merge_list(struct merged *m, struct kind *k, size_t file,
		      pai__kube_err *err)
{
	const pai__kube_ynode *list =
	    pai__kube_yget(m->files[file].root, k->list);
	size_t i, first = k->n;
	int ret;

	if (pai__kube_ynull(list))
		return PAI_OK;
	if (list->type == PAI__KY_SEQ && k->n + list->n > MAX_ENTRIES)
		return pai__kube_fail(
		    err, PAI_ETOOBIG, "%s:%u: more than %d %s",
		    m->files[file].path, list->line, MAX_ENTRIES, k->list);
	if (list->type != PAI__KY_SEQ)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: %s must be a list",
				      m->files[file].path, list->line, k->list);
	for (i = 0; i < list->n; i++)
		if ((ret = merge_item(m, k, file, list->kids[i], first, err)))
			return ret;
	return PAI_OK;
}

static int merge(struct merged *m, pai__kube_err *err)
{
	const pai__kube_ynode *cur;
	size_t i;
	int ret;

	for (i = 0; i < m->nfiles; i++) {
		if ((ret = merge_list(m, &m->clusters, i, err)) ||
		    (ret = merge_list(m, &m->users, i, err)) ||
		    (ret = merge_list(m, &m->contexts, i, err)))
			return ret;
		cur = pai__kube_yget(m->files[i].root, "current-context");
		if (pai__kube_ynull(cur))
			continue;
		if (cur->type != PAI__KY_SCALAR ||
		    strlen(cur->text) != cur->len)
			return pai__kube_fail(
			    err, PAI_ESYNTAX,
			    "%s:%u: current-context must be a string",
			    m->files[i].path, cur->line);
		if (!m->current && cur->len)
			m->current = cur->text;
	}
	return PAI_OK;
}

/* ---- in-cluster (§1.6) ----------------------------------------------------
 */

static const char *sa_dir(const pai__kube_load_opts *o)
{
	return o->sa_dir ? o->sa_dir : PAI__KUBE_SA_DIR;
}

static int in_cluster_possible(const pai__kube_load_opts *o)
{
	char path[4096];
	struct stat st;

	if (!o->service_host || !*o->service_host || !o->service_port ||
	    !*o->service_port)
		return 0;
	snprintf(path, sizeof(path), "%s/token", sa_dir(o));
	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* A small file's text, whitespace trimmed; NULL when unreadable or
 * empty. */
static char *read_trimmed(const char *dir, const char *name)
{
	char path[4096], *text = NULL, *s, *e;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (pai_file_read_max(&text, &len, NULL, path, 4096))
		return NULL;
	for (s = text; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';)
		s++;
	for (e = s + strlen(s); e > s && strchr(" \t\r\n", e[-1]);)
		e--;
	*e = '\0';
	memmove(text, s, (size_t)(e - s) + 1);
	if (!*text) {
		free(text);
		return NULL;
	}
	return text;
}

static int in_cluster(pai__kube_config *c, const pai__kube_load_opts *o)
{
	const char *host = o->service_host, *dir = sa_dir(o);
	pai__buf b = PAI__BUF_INIT;
	int v6 = strchr(host, ':') != NULL;

	c->in_cluster = 1;
	pai__buf_printf(&b, "https://%s%s%s:%s", v6 ? "[" : "", host,
			v6 ? "]" : "", o->service_port);
	c->server = pai__buf_detach(&b);
	if (pai__kube_resolve(&c->token_file, dir, "token") ||
	    !(c->origin = strdup("in-cluster")) || !c->server)
		return PAI_ENOMEM;
	/* client-go goes on without the CA when it cannot load it */
	if (pai__kube_resolve(&c->ca_file, dir, "ca.crt"))
		return PAI_ENOMEM;
	if (access(c->ca_file, R_OK) != 0) {
		free(c->ca_file);
		c->ca_file = NULL;
	}
	if (!o->namespace && o->pod_namespace && *o->pod_namespace)
		c->namespace = strdup(o->pod_namespace);
	else if (!o->namespace)
		c->namespace = read_trimmed(dir, "namespace");
	return PAI_OK;
}

/* ---- the context -----------------------------------------------------------
 */

/* The context's cluster and user entries, by name (§1.2). */
static int pick_refs(pai__kube_config *c, const struct merged *m,
		     const struct entry *ctx, const struct entry **cl,
		     const struct entry **us, pai__kube_err *err)
{
	const char *file = m->files[ctx->file].path;
	int ret;

	*cl = *us = NULL;
	if ((ret = pai__kube_ystr(&c->cluster, ctx->body, "cluster", file,
				  err)) ||
	    (ret = pai__kube_ystr(&c->user, ctx->body, "user", file, err)))
		return ret;
	if (!c->cluster)
		return pai__kube_fail(err, PAI_EINVAL,
				      "cluster was not specified for context "
				      "\"%s\"",
				      c->context);
	if (!(*cl = entry_find(&m->clusters, c->cluster)))
		return pai__kube_fail(err, PAI_EINVAL,
				      "cluster \"%s\" was not found for "
				      "context \"%s\"",
				      c->cluster, c->context);
	/* no user: anonymous, as with kubectl's --user="" */
	if (c->user && !(*us = entry_find(&m->users, c->user)))
		return pai__kube_fail(err, PAI_EINVAL,
				      "user \"%s\" was not found for context "
				      "\"%s\"",
				      c->user, c->context);
	return PAI_OK;
}

static int attach_ext(pai__kube_config *c, json_t *ext)
{
	if (c->exec && c->exec->provide_cluster_info && ext) {
		c->exec->cluster_config = ext;
		return PAI_OK;
	}
	json_decref(ext);
	return PAI_OK;
}

static int from_context(pai__kube_config *c, const struct merged *m,
			const char *name, const pai__kube_load_opts *o,
			pai__kube_err *err)
{
	const struct entry *ctx = entry_find(&m->contexts, name), *cl, *us;
	const struct kfile *f;
	json_t *ext = NULL;
	int ret;

	if (!ctx)
		return pai__kube_fail(err, PAI_ENOTFOUND,
				      "context \"%s\" does not exist", name);
	f = &m->files[ctx->file];
	if (!(c->context = strdup(name)) || !(c->origin = strdup(f->path)))
		return PAI_ENOMEM;
	if ((ret = pick_refs(c, m, ctx, &cl, &us, err)))
		return ret;
	if (!o->namespace && (ret = pai__kube_ystr(&c->namespace, ctx->body,
						   "namespace", f->path, err)))
		return ret;
	f = &m->files[cl->file];
	if ((ret = pai__kube_read_cluster(c, &ext, cl->body, f->path, f->dir,
					  err)))
		return ret;
	if (us) {
		f = &m->files[us->file];
		ret = pai__kube_read_user(c, us->body, f->path, f->dir, err);
	}
	if (ret) {
		json_decref(ext);
		return ret;
	}
	return attach_ext(c, ext);
}

/* ---- loading --------------------------------------------------------------
 */

static int empty(const struct merged *m)
{
	return !m->clusters.n && !m->users.n && !m->contexts.n && !m->current;
}

static int finish_namespace(pai__kube_config *c, const pai__kube_load_opts *o,
			    pai__kube_err *err)
{
	if (o->namespace) {
		free(c->namespace);
		c->namespace = strdup(o->namespace);
	} else if (!c->namespace)
		c->namespace = strdup("default");
	if (!c->namespace)
		return PAI_ENOMEM;
	if (!pai__dns_name(c->namespace, 63, 0))
		return pai__kube_fail(err, PAI_EINVAL,
				      "namespace \"%s\" is not a valid name "
				      "(lower case letters, digits and '-')",
				      c->namespace);
	return PAI_OK;
}

static int resolve(pai__kube_config *c, const struct merged *m,
		   const pai__kube_load_opts *o, pai__kube_err *err)
{
	const char *name = o->context && *o->context ? o->context : m->current;

	if (empty(m) && in_cluster_possible(o))
		return in_cluster(c, o);
	if (empty(m))
		return pai__kube_fail(
		    err, PAI_ENOTFOUND,
		    "no kubeconfig found (%s) and not inside a cluster",
		    o->kubeconfig ? o->kubeconfig
		    : o->env_kubeconfig && *o->env_kubeconfig
			? "$KUBECONFIG"
			: "~/.kube/config");
	if (!name)
		return pai__kube_fail(err, PAI_ENOTFOUND,
				      "no context chosen: the kubeconfig has "
				      "no current-context");
	return from_context(c, m, name, o, err);
}

int pai__kube_config_load(pai__kube_config **out, const pai__kube_load_opts *o,
			  pai__kube_err *err)
{
	struct merged m;
	pai__kube_config *c = NULL;
	int ret;

	*out = NULL;
	memset(&m, 0, sizeof(m));
	m.clusters =
	    (struct kind){"clusters", "cluster", "cluster", NULL, 0, 0};
	m.users = (struct kind){"users", "user", "user", NULL, 0, 0};
	m.contexts =
	    (struct kind){"contexts", "context", "context", NULL, 0, 0};
	if ((ret = load_files(&m, o, err)) || (ret = merge(&m, err)))
		goto out;
	if (!(c = calloc(1, sizeof(*c)))) {
		ret = PAI_ENOMEM;
		goto out;
	}
	if ((ret = resolve(c, &m, o, err)) ||
	    (ret = finish_namespace(c, o, err)))
		goto out;
	/* the server's parts, once: every request's URL is made of them */
	if ((ret = pai__kube_server_split(&c->srv, c->server))) {
		ret = ret == PAI_ENOMEM
			  ? ret
			  : pai__kube_fail(err, PAI_ESYNTAX,
					   "server \"%s\" is not an http or "
					   "https URL",
					   c->server);
		goto out;
	}
	*out = c;
	c = NULL;
out:
	pai__kube_config_free(c);
	merged_release(&m);
	return ret;
}

static void free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Secrets are wiped before they go back to the allocator. */
static void free_secret(void *p, size_t n)
{
	pai__wipe(p, n);
	free(p);
}

void pai__kube_config_free(pai__kube_config *c)
{
	if (!c)
		return;
	free(c->context);
	free(c->cluster);
	free(c->user);
	free(c->origin);
	free(c->server);
	pai__kube_server_release(&c->srv);
	free(c->namespace);
	free(c->ca_file);
	free(c->ca_data);
	free(c->tls_server_name);
	free(c->proxy_url);
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_data);
	free_secret(c->key_data, c->key_len);
	free_secret(c->token, c->token ? strlen(c->token) : 0);
	free(c->token_file);
	free(c->username);
	free_secret(c->password, c->password ? strlen(c->password) : 0);
	if (c->exec) {
		free(c->exec->command);
		free_strv(c->exec->args, c->exec->nargs);
		free_strv(c->exec->env, c->exec->nenv);
		free(c->exec->api_version);
		free(c->exec->install_hint);
		json_decref(c->exec->cluster_config);
		free(c->exec);
	}
	free(c->impersonate);
	free_strv(c->impersonate_groups, c->nimpersonate_groups);
	free(c);
}
