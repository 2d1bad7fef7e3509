/* config.c - cluster profiles, stored tokens, and atomic file writes.
 * Files that hold secrets or choose where they go are refused when
 * others may read them, as ssh refuses such keys. */
#include "json.h"

#include "sys/dl_curl.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pai_config {
	pai_profile *profiles; /* every string owned */
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

/* ---- atomic writes ---------------------------------------------------- */

/* mkdir -p with mode for what it creates */
static int make_dirs(const char *dir, mode_t mode)
{
	char *copy = strdup(dir), *p;
	int ret = 0;

	if (!copy)
		return ENOMEM;
	for (p = copy + 1;; p++) {
		if (*p == '/' || !*p) {
			char save = *p;

			*p = '\0';
			if (mkdir(copy, mode) < 0 && errno != EEXIST) {
				ret = errno;
				break;
			}
			*p = save;
			if (!save)
				break;
		}
	}
	free(copy);
	return ret;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

int pai_file_write_atomic(const char *path, const void *data, size_t len,
			  unsigned mode, unsigned flags)
{
	char *copy = NULL, *dir, *tmp = NULL;
	const char *p = data;
	int fd = -1, e = 0, err = PAI_OK;
	size_t done = 0;

	if (!path || !*path || (!data && len))
		return PAI_EINVAL;
	if (!(copy = strdup(path)))
		return PAI_ENOMEM;
	dir = dirname(copy);
	if (!(tmp = xprintf("%s/.%s.XXXXXX", dir,
			    strrchr(path, '/') ? strrchr(path, '/') + 1
					       : path))) {
		err = PAI_ENOMEM;
		goto out;
	}
	/* mkostemp creates 0600 whatever the umask; fchmod gives the mode
	 * asked for, and the descriptor stays writable even for 0400 */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (fchmod(fd, (mode_t)(mode & 07777)) < 0) {
		e = errno;
		goto out;
	}
	while (done < len) {
		ssize_t w = write(fd, p + done, len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto out;
		}
		done += (size_t)w;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		e = errno;
		fd = -1;
		goto out;
	}
	fd = -1;
	if (flags & PAI_WRITE_EXCLUSIVE) {
		/* never replaces: link() fails with EEXIST */
		if (link(tmp, path) < 0) {
			e = errno;
			/* file systems without hard links */
			if ((e == EPERM || e == ENOTSUP || e == ENOSYS) &&
			    renameat2(AT_FDCWD, tmp, AT_FDCWD, path,
				      RENAME_NOREPLACE) == 0) {
				free(tmp);
				tmp = NULL;
				if (!(flags & PAI_WRITE_NO_DIRSYNC))
					fsync_dir(dir);
				e = 0;
				goto out;
			}
			if (e == EPERM && access(path, F_OK) == 0)
				e = EEXIST;
			goto out;
		}
		unlink(tmp);
	} else if (rename(tmp, path) < 0) {
		e = errno;
		goto out;
	}
	free(tmp);
	tmp = NULL;
	if (!(flags & PAI_WRITE_NO_DIRSYNC))
		fsync_dir(dir);
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(copy);
	if (e)
		err = pai__from_errno(e);
	return err;
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

static int read_fd(char **out, size_t *len, int fd)
{
	pai__buf b = PAI__BUF_INIT;
	char chunk[4096];
	ssize_t r;

	*out = NULL;
	*len = 0;
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

void pai_config_free(pai_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->count; i++)
		profile_release(&cfg->profiles[i]);
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

static int valid_uri(const char *uri)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL;
	int ok;

	if (!uri || (strncmp(uri, "http://", 7) != 0 &&
		     strncmp(uri, "https://", 8) != 0))
		return 0;
	if (!(u = curl_url()))
		return 0;
	ok = curl_url_set(u, CURLUPART_URL, uri, 0) == CURLUE_OK &&
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
	    !(dst->uri = strdup(src->uri)) ||
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
		if (strcmp(cfg->profiles[i].name, name) == 0)
			return (long)i;
	return -1;
}

int pai_config_set(pai_config *cfg, const pai_profile *profile)
{
	pai_profile copy, *v;
	long i;
	int err;

	if (pai__curl_load()) /* valid_uri's parser */
		return PAI_ELIBRARY;
	if (!cfg || !profile || !valid_name(profile->name) ||
	    !valid_uri(profile->uri) ||
	    (profile->dialect != PAI_DIALECT_OPENPAI &&
	     profile->dialect != PAI_DIALECT_SCM) ||
	    (unsigned)profile->api > PAI_API_DUAL ||
	    (profile->user && !*profile->user))
		return PAI_EINVAL;
	if ((err = copy_profile(&copy, profile)))
		return err;
	i = find_index(cfg, profile->name);
	if (i >= 0) {
		profile_release(&cfg->profiles[i]);
		cfg->profiles[i] = copy;
		return PAI_OK;
	}
	v = realloc(cfg->profiles, (cfg->count + 1) * sizeof(*v));
	if (!v) {
		profile_release(&copy);
		return PAI_ENOMEM;
	}
	cfg->profiles = v;
	cfg->profiles[cfg->count++] = copy;
	return PAI_OK;
}

int pai_config_remove(pai_config *cfg, const char *name)
{
	long i = find_index(cfg, name);

	if (!cfg || !name)
		return PAI_EINVAL;
	if (i < 0)
		return PAI_ENOTFOUND;
	profile_release(&cfg->profiles[i]);
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
	return cfg && i < cfg->count ? &cfg->profiles[i] : NULL;
}

const pai_profile *pai_config_find(const pai_config *cfg, const char *name)
{
	long i = find_index(cfg, name);

	return i >= 0 ? &cfg->profiles[i] : NULL;
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

/* One profile from the file; a reason in *why on failure. */
static int load_profile(pai_config *cfg, const char *name, json_t *o,
			char **why)
{
	pai_profile p;
	json_t *v;
	int err;

	memset(&p, 0, sizeof(p));
	p.name = name;
	if (!json_is_object(o)) {
		*why = xprintf("cluster '%s' is not an object", name);
		return PAI_ESYNTAX;
	}
	p.uri = json_string_value(json_object_get(o, "uri"));
	p.user = json_string_value(json_object_get(o, "user"));
	p.ca_file = json_string_value(json_object_get(o, "caFile"));
	v = json_object_get(o, "dialect");
	if (v && !json_is_null(v) &&
	    (!json_is_string(v) ||
	     pai_dialect_from_name(&p.dialect, json_string_value(v)))) {
		*why = xprintf("cluster '%s': dialect must be \"openpai\" or "
			       "\"scm\"",
			       name);
		return PAI_ESYNTAX;
	}
	v = json_object_get(o, "api");
	if (v && !json_is_null(v) &&
	    (!json_is_string(v) ||
	     pai_api_from_name(&p.api, json_string_value(v)))) {
		*why = xprintf("cluster '%s': api must be \"v1\", \"v2\", "
			       "\"dual\" or \"auto\"",
			       name);
		return PAI_ESYNTAX;
	}
	v = json_object_get(o, "insecure");
	if (v && !json_is_boolean(v) && !json_is_null(v)) {
		*why = xprintf("cluster '%s': insecure must be true or false",
			       name);
		return PAI_ESYNTAX;
	}
	p.insecure = json_is_true(v);
	if ((json_object_get(o, "user") &&
	     !json_is_null(json_object_get(o, "user")) && !p.user) ||
	    (json_object_get(o, "caFile") &&
	     !json_is_null(json_object_get(o, "caFile")) && !p.ca_file)) {
		*why = xprintf("cluster '%s': user and caFile must be strings",
			       name);
		return PAI_ESYNTAX;
	}
	err = pai_config_set(cfg, &p);
	if (err == PAI_EINVAL) {
		*why = !valid_name(name)
			   ? xprintf("'%s' is not a valid cluster name "
				     "(letters, digits, '.', '_', '-')",
				     name)
			   : xprintf("cluster '%s' needs an http:// or "
				     "https:// uri",
				     name);
		return PAI_ESYNTAX;
	}
	return err;
}

int pai_config_load(pai_config **out, char **detail, const char *path)
{
	pai_config *cfg = NULL;
	json_t *root = NULL, *clusters, *v;
	json_error_t je;
	char *text = NULL, *why = NULL;
	const char *name;
	size_t len = 0;
	int fd = -1, err;

	if (out)
		*out = NULL;
	if (detail)
		*detail = NULL;
	if (!out || !path)
		return PAI_EINVAL;
	if (!(cfg = calloc(1, sizeof(*cfg))))
		return PAI_ENOMEM;
	if ((err = open_private(&fd, detail, path, 1)))
		goto out;
	if (fd < 0)
		goto done; /* no file: no profiles */
	if ((err = read_fd(&text, &len, fd))) {
		why = xprintf("cannot read '%s': %s", path, pai_strerror(err));
		goto out;
	}
	if (len == 0)
		goto done;
	err = pai__json_loadb(&root, &je, text, len, JSON_REJECT_DUPLICATES);
	if (err == PAI_ESYNTAX)
		why =
		    xprintf("%s:%d:%d: %s", path, je.line, je.column, je.text);
	if (err)
		goto out;
	if (!json_is_object(root)) {
		err = PAI_ESYNTAX;
		why = xprintf("%s: expected a JSON object", path);
		goto out;
	}
	v = json_object_get(root, "current");
	if (v && !json_is_null(v)) {
		err = json_is_string(v)
			  ? pai_config_set_current(cfg, json_string_value(v))
			  : PAI_EINVAL;
		if (err == PAI_EINVAL) {
			err = PAI_ESYNTAX;
			why = xprintf("%s: \"current\" must be a cluster name",
				      path);
		}
		if (err)
			goto out;
	}
	clusters = json_object_get(root, "clusters");
	if (clusters && !json_is_object(clusters) && !json_is_null(clusters)) {
		err = PAI_ESYNTAX;
		why = xprintf("%s: \"clusters\" must be an object", path);
		goto out;
	}
	json_object_foreach(clusters, name, v)
	{
		char *reason = NULL;

		if ((err = load_profile(cfg, name, v, &reason))) {
			why = reason ? xprintf("%s: %s", path, reason) : NULL;
			free(reason);
			goto out;
		}
	}
done:
	*out = cfg;
	cfg = NULL;
	err = PAI_OK;
out:
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
	if (fd >= 0)
		close(fd);
	free(text);
	json_decref(root);
	pai_config_free(cfg);
	return err;
}

int pai_config_save(const pai_config *cfg, const char *path)
{
	json_t *root = NULL, *clusters;
	char *text = NULL, *copy = NULL;
	size_t i;
	int err = PAI_ENOMEM, e;

	if (!cfg || !path)
		return PAI_EINVAL;
	/* json_object_set_new takes the value even when it fails */
	root = json_object();
	if (!root ||
	    json_object_set_new(root, "current",
				cfg->current ? json_string(cfg->current)
					     : json_null()) < 0 ||
	    json_object_set_new(root, "clusters", json_object()) < 0)
		goto out;
	clusters = json_object_get(root, "clusters");
	for (i = 0; i < cfg->count; i++) {
		const pai_profile *p = &cfg->profiles[i];
		json_t *o = json_object();

		if (!o || json_object_set_new(clusters, p->name, o) < 0 ||
		    json_object_set_new(o, "uri", json_string(p->uri)) < 0 ||
		    (p->user && json_object_set_new(
				    o, "user", json_string(p->user)) < 0) ||
		    json_object_set_new(
			o, "dialect",
			json_string(pai_dialect_name(p->dialect))) < 0 ||
		    (p->ca_file &&
		     json_object_set_new(o, "caFile", json_string(p->ca_file)) <
			 0) ||
		    json_object_set_new(o, "insecure",
					json_boolean(p->insecure)) < 0 ||
		    (p->api != PAI_API_AUTO &&
		     json_object_set_new(o, "api",
					 json_string(pai_api_name(p->api))) <
			 0))
			goto out;
	}
	if (!(text = pai__json_dumps(root, JSON_INDENT(2))) ||
	    !(copy = strdup(path)))
		goto out;
	if ((e = make_dirs(dirname(copy), 0700))) {
		err = pai__from_errno(e);
		goto out;
	}
	{
		char *t = xprintf("%s\n", text);

		if (!t)
			goto out;
		err = pai_file_write_atomic(path, t, strlen(t), 0600, 0);
		free(t);
	}
out:
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
	if ((err = read_fd(&text, &len, fd)))
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
	if (text)
		memset(text, 0, len);
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
	if ((e = make_dirs(tdir, 0700))) {
		err = pai__from_errno(e);
		goto out;
	}
	err = pai_file_write_atomic(path, text, strlen(text), 0600, 0);
out:
	if (text)
		memset(text, 0, strlen(text));
	free(text);
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
