/* slurm_client.c - a client for a Slurm cluster's slurmrestd: the
 * profile's facts, and on every exchange (http.h's struct pai__wire)
 * the headers slurmrestd's JWT authentication reads, X-SLURM-USER-NAME
 * and X-SLURM-USER-TOKEN, the token read again from its file each time
 * (tokens are re-issued) and wiped after. The trace masks the token's
 * header (trace.c). */
#include "slurm_api.h"

#include "sys/dl_curl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A JWT is three base64url parts; a file may hold more than that. */
#define TOKEN_MAX 16384

struct pai__slurm_client *pai__slurm_of(pai_client *c)
{
	return c->wire_data;
}

/* A secret of the client's wiped, freed and forgotten. */
static void wipe(char **s)
{
	pai__free_secret(*s);
	*s = NULL;
}

/* The token in text: the line "SLURM_JWT=..." (as scontrol token
 * prints it) or the text itself, blanks trimmed; in place. */
static char *token_in(char *text)
{
	char *s = strstr(text, "SLURM_JWT="), *e;

	s = s ? s + 10 : text;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	e = s + strcspn(s, " \t\r\n");
	*e = '\0';
	return s;
}

/* The token file's token in *out (new): refused when others may read it,
 * as ssh refuses such keys. */
static int read_token(pai_client *c, const char *path, char **out)
{
	char buf[TOKEN_MAX + 1];
	struct stat st;
	ssize_t r;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), err = PAI_OK;

	*out = NULL;
	if (fd < 0)
		return pai__client_fail(c, errno == EACCES ? PAI_EACCES
							   : PAI_EAUTH,
					0, NULL, "cannot open token file '%s': %s",
					path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077))
		err = pai__client_fail(c, PAI_EACCES, 0, NULL,
				       "token file '%s' is not a regular file "
				       "that only its owner can read (chmod "
				       "600 '%s')",
				       path, path);
	while (!err && n < TOKEN_MAX &&
	       ((r = read(fd, buf + n, TOKEN_MAX - n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	buf[n] = '\0';
	if (!err && !*token_in(buf))
		err = pai__client_fail(c, PAI_EAUTH, 0, NULL,
				       "token file '%s' holds no token", path);
	if (!err && !(*out = strdup(token_in(buf))))
		err = pai__client_oom(c);
	explicit_bzero(buf, sizeof(buf));
	return err;
}

/* ---- struct pai__wire ------------------------------------------------ */

/* "Name: value" onto conn's header lines (wiped when they are freed),
 * the line made here wiped too: PAI_OK, or PAI_ENOMEM with the detail. */
static int header(pai_client *c, pai__conn *conn, const char *name,
		  const char *v)
{
	pai__buf line = PAI__BUF_INIT;
	int err;

	pai__buf_printf(&line, "%s: %s", name, v);
	err = line.oom ? pai__client_oom(c)
		       : pai__conn_header(c, conn, line.data);
	pai__buf_wipe(&line);
	return err;
}

/* The token's expiry (its payload's "exp"), or 0 when it says none. */
static long long token_exp(const char *tok)
{
	const char *p = tok ? strchr(tok, '.') : NULL;
	unsigned char *payload = NULL;
	long long exp = 0;
	json_t *o = NULL;
	size_t n;

	if (p && pai__base64url_decode(&payload, &n, p + 1,
				       strcspn(p + 1, ".")) == PAI_OK)
		o = json_loadb((const char *)payload, n, 0, NULL);
	pai__json_integer(json_object_get(o, "exp"), &exp);
	json_decref(o);
	free(payload);
	return exp;
}

/* The token (read again from its file each time) and the user, as
 * slurmrestd's JWT authentication wants them; the token wiped once it
 * is in the connection's header lines. Called one lane at a time. */
static int wire_prepare(void *data, pai_client *c, CURL *h, pai__conn *conn)
{
	struct pai__slurm_client *s = data;
	int err = PAI_OK;

	(void)h;
	wipe(&s->token);
	if (s->s.token_file) {
		if ((err = read_token(c, s->s.token_file, &s->token)))
			return err;
	} else if (!s->jwt || !(s->token = strdup(s->jwt)))
		return s->jwt ? pai__client_oom(c)
			      : pai__client_fail(
				    c, PAI_EAUTH, 0, NULL,
				    "no Slurm token: give --token-file "
				    "FILE, or set SLURM_JWT (what "
				    "'scontrol token' prints)");
	if (!pai__header_safe(s->token))
		err = pai__client_fail(c, PAI_EAUTH, 0, NULL,
				       "the Slurm token holds a control "
				       "character");
	else if (!(err = header(c, conn, "X-SLURM-USER-NAME", s->user)) &&
		 !(err = header(c, conn, "X-SLURM-USER-TOKEN", s->token)))
		err = pai__conn_header(c, conn, "Accept: application/json");
	/* kept for the words of a refusal: the token is gone by then */
	s->token_exp = token_exp(s->token);
	wipe(&s->token);
	return err;
}

static int wire_unauthorized(void *data, unsigned long gen)
{
	(void)data;
	(void)gen;
	return 0; /* the file is read again on the next request anyway */
}

static void wire_free(void *data)
{
	struct pai__slurm_client *s = data;

	if (!s)
		return;
	wipe(&s->token);
	wipe(&s->jwt);
	json_decref(s->known);
	pai__slurm_state_save(s);
	free(s->state_path);
	pthread_mutex_destroy(&s->known_lock);
	pthread_cond_destroy(&s->known_cv);
	pthread_mutex_destroy(&s->serial);
	pai_ssh_free(s->login);
	free(s->login_host);
	free(s->login_user);
	pai__slurm_prof_release(&s->prof);
	free(s->user);
	free(s->sftp_user);
	free(s->sftp_key);
	free(s->sftp_known);
	free(s);
}

static const struct pai__wire slurm_wire = {wire_prepare, wire_unauthorized,
					    NULL, wire_free};

/* ---- the client -------------------------------------------------------- */

/* st's copy of the profile's facts (config_slurm.c's, as a profile
 * keeps them), and st->s what it says. */
static int keep_facts(struct pai__slurm_client *st, const pai_slurm_cluster *s)
{
	if (pai__slurm_prof_copy(&st->prof, s) ||
	    pai__strdup_opt(&st->user, s->user))
		return PAI_ENOMEM;
	pai__slurm_prof_get(&st->s, &st->prof);
	if (!st->s.ssh_port)
		st->s.ssh_port = 22;
	st->s.user = st->user;
	return PAI_OK;
}

/* A login node's URI (ssh://user@host:port): the login node's wire, its
 * host the one the tasks' files are read from unless the profile names
 * another. *uri then a placeholder that pai_client_new() takes: no HTTP
 * is spoken. */
static int login_facts(struct pai__slurm_client *st, const char **uri)
{
	st->ops = &pai__slurm_restd_ops;
	if (!*uri || strncmp(*uri, "ssh://", 6) != 0)
		return PAI_OK;
	if (pai__slurm_login_uri(*uri, &st->login_user, &st->login_host,
				 &st->login_port))
		return PAI_EINVAL;
	st->ops = &pai__slurm_ssh_ops;
	/* the tasks' files: read on the wire's own connection, whatever
	 * the URL's host says; ssh_port stays the nodes' */
	if (!st->s.ssh_host)
		st->s.ssh_host = st->login_host;
	*uri = "http://login-node.invalid";
	return PAI_OK;
}

/* The client's URI the login node's, not the placeholder. */
static int keep_uri(pai_client *c, const char *uri)
{
	char *u = strdup(uri);

	if (!u)
		return PAI_ENOMEM;
	free(c->uri);
	c->uri = u;
	return PAI_OK;
}

static int say(char **detail, int err, const char *why)
{
	if (detail && !(*detail = strdup(why)))
		return PAI_ENOMEM;
	return err;
}

int pai_client_new_slurm(pai_client **out, char **detail,
			 const pai_client_options *opts,
			 const pai_slurm_cluster *s)
{
	struct pai__slurm_client *st;
	pai_client_options o;
	int err;

	if (out)
		*out = NULL;
	if (detail)
		*detail = NULL;
	if (!out || !opts || opts->version != PAI_CLIENT_OPTIONS_VERSION ||
	    !s || s->version < 1 || s->version > PAI_SLURM_CLUSTER_VERSION)
		return PAI_EINVAL;
	if (!s->user || !*s->user || !pai__header_safe(s->user))
		return say(detail, PAI_EINVAL, "a Slurm client needs a user");
	if (!(st = calloc(1, sizeof(*st))))
		return PAI_ENOMEM;
	pthread_mutex_init(&st->known_lock, NULL);
	pthread_cond_init(&st->known_cv, NULL);
	pthread_mutex_init(&st->serial, NULL);
	/* the token goes in slurmrestd's header, never as a bearer */
	o = *opts;
	o.token = NULL;
	if ((err = keep_facts(st, s)) || (err = login_facts(st, &o.uri)) ||
	    (opts->token && !(st->jwt = strdup(opts->token)) &&
	     (err = PAI_ENOMEM)) ||
	    (err = pai_client_new(out, &o)) ||
	    (st->login_host && (err = keep_uri(*out, opts->uri)))) {
		pai_client_free(*out);
		*out = NULL;
		wire_free(st);
		return say(detail, err,
			   err == PAI_EINVAL ? "the cluster's URI must be "
					       "http:// or https:// "
					       "(slurmrestd) or "
					       "ssh://[user@]host[:port] (a "
					       "login node)"
					     : pai_strerror(err));
	}
	(*out)->wire = &slurm_wire;
	(*out)->wire_data = st;
	(*out)->api = PAI_API_SLURM;
	return PAI_OK;
}

int pai_client_set_sftp(pai_client *c, const pai_ssh_options *o)
{
	struct pai__slurm_client *s;
	char *user = NULL, *key = NULL, *known = NULL;

	if (!c || !o || !o->known_hosts)
		return PAI_EINVAL;
	if (c->api != PAI_API_SLURM)
		return PAI_OK; /* no cluster else reads files so */
	s = pai__slurm_of(c);
	if (pai__strdup_opt(&user, o->user) ||
	    pai__strdup_opt(&key, o->key_file) ||
	    pai__strdup_opt(&known, o->known_hosts)) {
		free(user);
		free(key);
		free(known);
		return PAI_ENOMEM;
	}
	free(s->sftp_user);
	free(s->sftp_key);
	free(s->sftp_known);
	/* field by field: a caller of an older version has a shorter one */
	memset(&s->sftp, 0, sizeof(s->sftp));
	s->sftp.version = PAI_SSH_OPTIONS_VERSION;
	s->sftp.port = o->port;
	s->sftp.replace_changed_key = o->replace_changed_key;
	s->sftp.timeout_ms = o->timeout_ms;
	s->sftp.interrupt = o->interrupt;
	s->sftp.use_agent = o->version >= 2 && o->use_agent;
	if (o->version >= 3) {
		s->sftp.strict_host_keys = o->strict_host_keys;
		s->sftp.learned = o->learned;
		s->sftp.learned_data = o->learned_data;
	}
	s->sftp.user = s->sftp_user = user;
	s->sftp.key_file = s->sftp_key = key;
	s->sftp.known_hosts = s->sftp_known = known;
	s->sftp.host = NULL; /* the profile's ssh_host */
	return PAI_OK;
}
