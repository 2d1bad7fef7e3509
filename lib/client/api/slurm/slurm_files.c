/* slurm_files.c - a job's directory, <workdir>/<name>/<submission>: the
 * records the batch script and each task leave there (KEY=VALUE lines,
 * written whole and renamed), and the tasks' logs, read here where this
 * machine sees the directory (a login node), else on the login node's
 * wire or over SFTP (libcurl's, on libssh2) from the profile's SSH host,
 * host keys checked against the caller's known_hosts as OpenSSH does (a
 * new host learned and told, or refused when strict; a changed key
 * refused). A task's files are named by URLs whose path is
 * percent-encoded (a working directory may hold any byte but NUL). A log
 * read from an offset past its end has been replaced (rotated, a task
 * run again): it is read from its start. */
#include "slurm_api.h"

#include "sys/dl_curl.h"
#include "text/text.h" /* pai__hexval */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Most of a log one read returns: the caller reads on from there. */
#define READ_MAX ((size_t)16 << 20)
/* The longest record (KEY=VALUE lines a script writes): a longer file is
 * none. */
#define RECORD_MAX ((size_t)64 << 10)

char *pai__slurm_jobdir(pai_client *c, const char *name, const char *sub)
{
	const char *w = pai__slurm_of(c)->s.workdir;
	char *d = NULL;

	if (!w || asprintf(&d, "%s/%s/%s", w, name, sub) < 0)
		return NULL;
	return d;
}

int pai__slurm_seen(const char *dir)
{
	struct stat st;

	return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The longest KEY=VALUE line of a record: a longer one is left out
 * whole, never cut into a value the script did not write. */
#define RECORD_LINE_MAX 4095

/* The KEY=VALUE lines of data[0..len) into a new object (NULL when out
 * of memory). */
static json_t *record_lines(const char *data, size_t len)
{
	char line[RECORD_LINE_MAX + 1], *eq;
	const char *p, *nl;
	json_t *o = json_object();
	size_t n;

	for (p = data; o && p < data + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(data + len - p));
		if (!nl)
			nl = data + len;
		if ((n = (size_t)(nl - p)) > RECORD_LINE_MAX)
			continue;
		memcpy(line, p, n);
		line[n] = '\0';
		if (!(eq = strchr(line, '=')) || eq == line)
			continue;
		*eq = '\0';
		json_object_set_new(o, line, json_string(eq + 1));
	}
	return o;
}

json_t *pai__slurm_record(const char *dir, const char *file)
{
	char *path = NULL, *data = NULL;
	json_t *o = NULL;
	size_t len = 0;
	ssize_t got = 1;
	int fd;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return NULL;
	/* one byte more than a record may have: a longer file is none */
	if ((data = malloc(RECORD_MAX + 1)))
		while (len <= RECORD_MAX &&
		       (got = read(fd, data + len, RECORD_MAX + 1 - len)) > 0)
			len += (size_t)got;
	close(fd);
	if (data && got >= 0 && len <= RECORD_MAX)
		o = record_lines(data, len);
	free(data);
	return o;
}

int pai__slurm_latest(char **sub, pai_client *c, const char *name)
{
	const char *w = pai__slurm_of(c)->s.workdir;
	char *dir = NULL, *best = NULL;
	struct dirent *e;
	json_t *rec;
	DIR *d;

	*sub = NULL;
	if (!w || asprintf(&dir, "%s/%s", w, name) < 0)
		return PAI_OK;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char *sd = NULL;

		/* submissions are named by their time: the last is the
		 * newest */
		if (e->d_name[0] == '.' ||
		    (best && strcmp(e->d_name, best) <= 0) ||
		    asprintf(&sd, "%s/%s", dir, e->d_name) < 0)
			continue;
		if ((rec = pai__slurm_record(sd, "job"))) {
			free(best);
			best = strdup(e->d_name);
		}
		json_decref(rec);
		free(sd);
	}
	if (d)
		closedir(d);
	free(dir);
	*sub = best;
	return PAI_OK;
}

/* Appends path to b as a URL's path: '/' as it is, every byte but RFC
 * 3986's unreserved ones percent-encoded (a working directory may hold
 * blanks, quotes, '%', '#' or '?', which a URL cannot carry bare). */
static void put_path(pai__buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			pai__buf_putc(b, (char)*p);
		else {
			char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};

			pai__buf_put(b, e, 3);
		}
}

int pai__slurm_url_path(char **out, const char *p)
{
	char *d = malloc(strlen(p) + 1);
	size_t n = 0;
	int hi, lo;

	*out = NULL;
	if (!d)
		return PAI_ENOMEM;
	for (; *p; p++) {
		if (*p != '%') {
			d[n++] = *p;
			continue;
		}
		hi = pai__hexval((unsigned char)p[1]);
		lo = hi < 0 ? -1 : pai__hexval((unsigned char)p[2]);
		if (lo < 0 || (hi == 0 && lo == 0)) { /* bad, or a NUL */
			free(d);
			return PAI_EINVAL;
		}
		d[n++] = (char)(hi << 4 | lo);
		p += 2;
	}
	d[n] = '\0';
	*out = d;
	return PAI_OK;
}

char *pai__slurm_task_url(pai_client *c, const char *taskdir)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai__buf b = PAI__BUF_INIT;

	/* without an SSH host, the files where they should be here: a
	 * read says what is missing */
	if (pai__slurm_seen(taskdir) || !s->s.ssh_host)
		pai__buf_puts(&b, "file://");
	else
		pai__buf_printf(&b, "sftp://%s:%ld", s->s.ssh_host,
				s->s.ssh_port);
	put_path(&b, taskdir);
	pai__buf_putc(&b, '/');
	return pai__buf_detach(&b);
}

/* ---- reading a log ------------------------------------------------------ */

/* 1 when the job directory of a task's file (<dir>/<task>/<file>) is
 * here. */
static int job_dir_here(const char *path)
{
	char *d = strdup(path), *slash;
	int here = 0;

	if (d && (slash = strrchr(d, '/'))) {
		*slash = '\0';
		if ((slash = strrchr(d, '/'))) {
			*slash = '\0';
			here = pai__slurm_seen(d);
		}
	}
	free(d);
	return here;
}

/* path from offset on, here: at most READ_MAX bytes. */
static int read_local(char **data, size_t *len, long long *next,
		      pai_client *c, const char *path, long long offset)
{
	struct stat st;
	size_t want, n = 0;
	ssize_t r;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 && errno == ENOENT && !job_dir_here(path))
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"the job's directory is not on this "
					"machine: give the profile an SSH "
					"host that sees '%s' (cluster add "
					"--ssh-host)",
					pai__slurm_of(c)->s.workdir);
	if (fd < 0)
		return pai__client_fail(c, errno == ENOENT ? PAI_ENOTFOUND
							   : PAI_EIO,
					0, NULL, "cannot read '%s': %s", path,
					strerror(errno));
	if (fstat(fd, &st) < 0)
		st.st_size = 0;
	if (st.st_size < offset)
		offset = 0; /* replaced since: its text from the start */
	want = (size_t)(st.st_size - offset) < READ_MAX
		   ? (size_t)(st.st_size - offset)
		   : READ_MAX;
	if (!(buf = malloc(want + 1))) {
		close(fd);
		return pai__client_oom(c);
	}
	while (n < want && ((r = pread(fd, buf + n, want - n,
				       offset + (off_t)n)) > 0 ||
			    (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	*next = offset + (long long)n;
	return PAI_OK;
}

struct sftp_read {
	pai_client *c;
	pai__buf body;
	const struct pai__slurm_client *s;
	enum curl_khmatch key_match; /* what on_host_key found */
};

static size_t on_data(char *p, size_t size, size_t n, void *ptr)
{
	struct sftp_read *x = ptr;

	if (x->body.len + size * n > READ_MAX)
		return 0;
	pai__buf_put(&x->body, p, size * n);
	return x->body.oom ? 0 : size * n;
}

static int on_progress(void *ptr, curl_off_t a, curl_off_t b, curl_off_t d,
		       curl_off_t e)
{
	struct sftp_read *x = ptr;

	(void)a, (void)b, (void)d, (void)e;
	return x->c->interrupt && *x->c->interrupt;
}

/* The type of a key libcurl found, as known_hosts names it. */
static const char *key_type(enum curl_khtype t)
{
	switch (t) {
	case CURLKHTYPE_RSA1: return "rsa1";
	case CURLKHTYPE_RSA: return "ssh-rsa";
	case CURLKHTYPE_DSS: return "ssh-dss";
	case CURLKHTYPE_ECDSA: return "ecdsa-sha2-nistp256";
	case CURLKHTYPE_ED25519: return "ssh-ed25519";
	default: return "unknown";
	}
}

/* The host's key as OpenSSH checks it: a host new to known_hosts is
 * learned (recorded, and the caller told) unless the caller is strict,
 * a changed key refused unless the caller replaces changed keys. What
 * was refused is kept for the words of the failure. */
static int on_host_key(CURL *h, const struct curl_khkey *known,
		       const struct curl_khkey *found, enum curl_khmatch m,
		       void *ptr)
{
	struct sftp_read *x = ptr;
	const pai_ssh_options *o = &x->s->sftp;
	char name[300];

	(void)h, (void)known;
	x->key_match = m;
	if (m == CURLKHMATCH_OK)
		return CURLKHSTAT_FINE;
	if (m == CURLKHMATCH_MISSING && o->strict_host_keys)
		return CURLKHSTAT_REJECT;
	if (m == CURLKHMATCH_MISSING) {
		/* the name libcurl records it under, as OpenSSH writes it */
		if (x->s->s.ssh_port == 22)
			snprintf(name, sizeof(name), "%s", x->s->s.ssh_host);
		else
			snprintf(name, sizeof(name), "[%s]:%ld",
				 x->s->s.ssh_host, x->s->s.ssh_port);
		if (o->learned)
			o->learned(o->learned_data, name,
				   key_type(found->keytype), o->known_hosts);
		return CURLKHSTAT_FINE_ADD_TO_FILE;
	}
	return o->replace_changed_key ? CURLKHSTAT_FINE_REPLACE
				      : CURLKHSTAT_REJECT;
}

static void sftp_options(CURL *h, struct sftp_read *x, const char *url,
			 long long offset)
{
	const struct pai__slurm_client *s = x->s;
	pai_client *c = x->c;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "sftp");
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(h, CURLOPT_USERNAME,
			 s->sftp.user ? s->sftp.user : s->user);
	curl_easy_setopt(h, CURLOPT_SSH_AUTH_TYPES,
			 (long)(CURLSSH_AUTH_PUBLICKEY |
				(s->sftp.use_agent ? CURLSSH_AUTH_AGENT : 0)));
	if (s->sftp.key_file) {
		curl_easy_setopt(h, CURLOPT_SSH_PRIVATE_KEYFILE,
				 s->sftp.key_file);
		/* libssh2 derives the public half from the private key */
		curl_easy_setopt(h, CURLOPT_SSH_PUBLIC_KEYFILE, "");
	}
	curl_easy_setopt(h, CURLOPT_SSH_KNOWNHOSTS, s->sftp.known_hosts);
	curl_easy_setopt(h, CURLOPT_SSH_KEYFUNCTION, on_host_key);
	curl_easy_setopt(h, CURLOPT_SSH_KEYDATA, x);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	pai__curl_keepalive(h);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, c->stall_timeout_s);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)offset);
}

/* libcurl's failure as the client's detail and error. */
static int sftp_error(pai_client *c, CURLcode cc, enum curl_khmatch m,
		      const char *url)
{
	const char *why = c->errbuf[0] ? c->errbuf : curl_easy_strerror(cc);

	switch (cc) {
	case CURLE_REMOTE_FILE_NOT_FOUND:
		return pai__client_fail(c, PAI_ENOTFOUND, 0, NULL, "%s: %s",
					url, why);
	case CURLE_LOGIN_DENIED:
		return pai__client_fail(c, PAI_EAUTH, 0, NULL,
					"%s: the SSH key was refused: %s", url,
					why);
	case CURLE_PEER_FAILED_VERIFICATION:
		if (m == CURLKHMATCH_MISSING)
			return pai__client_fail(
			    c, PAI_EHOSTKEY, 0, NULL,
			    "%s: the host key is not in '%s', and unknown "
			    "hosts are refused (strict host key checking): "
			    "add it there first (ssh-keyscan)",
			    url, pai__slurm_of(c)->sftp.known_hosts);
		return pai__client_fail(c, PAI_EHOSTKEY, 0, NULL,
					"%s: the host key differs from the one "
					"in '%s'",
					url, pai__slurm_of(c)->sftp.known_hosts);
	case CURLE_ABORTED_BY_CALLBACK:
		return pai__client_fail(c, PAI_EINTR, 0, NULL, "interrupted");
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SSH:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		return pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL, "%s: %s",
					url, why);
	default:
		return pai__client_fail(c, PAI_EIO, 0, NULL, "%s: %s", url,
					why);
	}
}

static int read_sftp(char **data, size_t *len, long long *next,
		     pai_client *c, const char *url, long long offset)
{
	struct sftp_read x = {c, PAI__BUF_INIT, pai__slurm_of(c),
			      CURLKHMATCH_OK};
	CURLcode cc;

	if (!x.s->sftp.known_hosts)
		return pai__client_fail(c, PAI_ENOTSUP, 0, NULL,
					"the job's directory is not on this "
					"machine, and no SSH access to read "
					"it was given");
	c->errbuf[0] = '\0';
	sftp_options(c->curl, &x, url, offset);
	cc = curl_easy_perform(c->curl);
	if (cc == CURLE_BAD_DOWNLOAD_RESUME && offset > 0) {
		offset = 0; /* shorter than we read: replaced since */
		sftp_options(c->curl, &x, url, 0);
		cc = curl_easy_perform(c->curl);
	}
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && !x.body.oom &&
				x.body.len)) {
		pai__buf_release(&x.body);
		return sftp_error(c, cc, x.key_match, url);
	}
	*len = x.body.len;
	*next = offset + (long long)x.body.len;
	if (!(*data = pai__buf_detach(&x.body)))
		return pai__client_oom(c);
	return PAI_OK;
}

/* ---- records elsewhere ---------------------------------------------------- */

/* dir/file over SFTP from the profile's SSH host, where this machine
 * does not see the working directory (where it does, a record not here
 * is not written yet), the client was given SSH access
 * (pai_client_set_sftp()) and the host answered before: one that did
 * not (unreachable, a refused key or host key) is not asked again for
 * the next record, each of which would wait as long. */
static int record_sftp(char **data, size_t *len, pai_client *c,
		       const char *dir, const char *file)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	pai__buf url = PAI__BUF_INIT;
	long long next;
	int err;

	if (!s->s.ssh_host || !s->sftp.known_hosts || s->sftp_down ||
	    pai__slurm_seen(s->s.workdir))
		return PAI_ENOTSUP;
	pai__buf_printf(&url, "sftp://%s:%ld", s->s.ssh_host, s->s.ssh_port);
	put_path(&url, dir);
	pai__buf_putc(&url, '/');
	put_path(&url, file);
	err = url.oom ? PAI_ENOMEM
		      : read_sftp(data, len, &next, c, url.data, 0);
	if (err && err != PAI_ENOTFOUND && err != PAI_ENOMEM)
		s->sftp_down = 1;
	pai__buf_release(&url);
	return err;
}

/* A record read on the wire's own connection (the login node's), else
 * over SFTP: NULL when there is none (or it is longer than a record is,
 * or it cannot be read: a record not there is no failure of the
 * caller's). */
static json_t *record_remote(pai_client *c, const char *dir, const char *file)
{
	const struct pai__slurm_ops *ops = pai__slurm_of(c)->ops;
	char *path = NULL, *data = NULL;
	long long next;
	size_t len = 0;
	json_t *o = NULL;
	pai__error kept = {0, NULL, NULL};
	int err;

	pai__client_save_error(c, &kept);
	if (!ops->file_read)
		err = record_sftp(&data, &len, c, dir, file);
	else if (asprintf(&path, "%s/%s", dir, file) < 0)
		err = PAI_ENOMEM;
	else
		err = ops->file_read(&data, &len, &next, c, path, 0);
	if (err == PAI_OK && len <= RECORD_MAX)
		o = record_lines(data, len);
	pai__client_restore_error(c, &kept);
	free(data);
	free(path);
	return o;
}

json_t *pai__slurm_record_at(pai_client *c, const char *dir, const char *file)
{
	if (pai__slurm_seen(dir))
		return pai__slurm_record(dir, file);
	return record_remote(c, dir, file);
}

int pai__slurm_log_read(char **data, size_t *len, long long *next,
			const struct pai__api *api, pai_client *c,
			const char *url, long long offset)
{
	const struct pai__slurm_ops *ops = pai__slurm_of(c)->ops;
	const char *at = NULL;
	char *path = NULL;
	int err, sftp = strncmp(url, "sftp://", 7) == 0;

	(void)api;
	if (strncmp(url, "file://", 7) == 0)
		at = url + 7;
	else if (sftp && ops->file_read)
		at = strchr(url + 7, '/');
	/* libcurl reads an sftp:// URL's escapes itself */
	if (!at && sftp)
		return read_sftp(data, len, next, c, url, offset);
	if (!at)
		return pai__client_fail(c, PAI_EINVAL, 0, NULL,
					"not a Slurm job's log: '%s'", url);
	if ((err = pai__slurm_url_path(&path, at)))
		return err == PAI_ENOMEM
			   ? pai__client_oom(c)
			   : pai__client_fail(c, PAI_EINVAL, 0, NULL,
					      "not a Slurm job's log: '%s' (a "
					      "bad %%-escape)",
					      url);
	if (sftp) /* the wire's own connection (the login node's) */
		err = ops->file_read(data, len, next, c, path, offset);
	else
		err = read_local(data, len, next, c, path, offset);
	free(path);
	return err;
}
