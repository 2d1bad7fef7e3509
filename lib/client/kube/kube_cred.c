/* kube_cred.c - the credential a request carries (§1.4, 1.5, 1.6): a
 * token file read again every minute and after a 401 (the in-cluster
 * token is one), a static token, HTTP Basic, or an exec plugin's output
 * kept until it expires or a 401 says it is stale. Precedence is
 * client-go's round trippers': the token file whenever it can be read,
 * then the static token, and a plugin only without either. */
#include "kube.h"
#include "client/http.h"

#include <stdlib.h>
#include <string.h>

/* A token file is small; a larger one is not a token. */
#define MAX_TOKEN_FILE ((size_t)1 << 20)

struct pai__kube_cred {
	const pai__kube_config *cfg;
	pai__kube_cred_opts o;
	unsigned long generation;
	char *authz; /* the Authorization value now */
	/* the token file */
	int file_read, file_stale, authz_from_file;
	time_t file_at;
	/* the exec plugin */
	pai__kube_plugin_out plug;
	int have_plug, plug_stale;
};

static time_t now(const pai__kube_cred *c)
{
	return c->o.now ? c->o.now() : time(NULL);
}

int pai__kube_cred_new(pai__kube_cred **out, const pai__kube_config *cfg,
		       const pai__kube_cred_opts *opts)
{
	pai__kube_cred_opts def = PAI__KUBE_CRED_OPTS_INIT;
	pai__kube_cred *c;

	*out = NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return PAI_ENOMEM;
	c->cfg = cfg;
	c->o = opts ? *opts : def;
	c->generation = 1;
	*out = c;
	return PAI_OK;
}

void pai__kube_cred_free(pai__kube_cred *c)
{
	if (!c)
		return;
	pai__free_secret(c->authz);
	pai__kube_plugin_out_release(&c->plug);
	free(c);
}

/* Makes "SCHEME value" the Authorization; a change is a new generation. */
static int set_authz(pai__kube_cred *c, const char *scheme, const char *v)
{
	pai__buf b = PAI__BUF_INIT;
	char *s;

	if (!pai__header_safe(v))
		return PAI_EINVAL;
	pai__buf_printf(&b, "%s %s", scheme, v);
	if (!(s = pai__buf_detach(&b)))
		return PAI_ENOMEM;
	if (c->authz && strcmp(c->authz, s) == 0) {
		pai__free_secret(s);
		return PAI_OK;
	}
	pai__free_secret(c->authz);
	c->authz = s;
	c->generation++;
	return PAI_OK;
}

/* The file's token, whitespace trimmed; PAI_EINVAL when empty. */
static int read_token(char **out, int *sys, const char *path)
{
	char *text = NULL, *s, *e;
	size_t len = 0;
	int ret;

	*out = NULL;
	*sys = 0;
	ret = pai_file_read_max(&text, &len, sys, path, MAX_TOKEN_FILE);
	if (ret)
		return ret;
	for (s = text; *s && strchr(" \t\r\n", *s); s++)
		;
	for (e = text + len; e > s && strchr(" \t\r\n", e[-1]); e--)
		;
	*e = '\0';
	memmove(text, s, (size_t)(e - s) + 1);
	if (!*text || strlen(text) != (size_t)(e - s)) {
		pai__free_secret(text);
		return PAI_EINVAL;
	}
	*out = text;
	return PAI_OK;
}

/* The token file: read when older than a minute or stale after a 401.
 * When it cannot be read, client-go keeps the token it read before, or
 * sends the static token. */
static int from_file(pai__kube_cred *c, pai__kube_err *err)
{
	const char *path = c->cfg->token_file;
	char *tok = NULL;
	int ret, sys;

	if (c->file_read && !c->file_stale &&
	    now(c) - c->file_at < PAI__KUBE_TOKEN_FILE_TTL)
		return PAI_OK;
	ret = read_token(&tok, &sys, path);
	c->file_read = 1;
	c->file_stale = 0;
	c->file_at = now(c);
	if (!ret) {
		ret = set_authz(c, "Bearer", tok);
		pai__free_secret(tok);
		c->authz_from_file = !ret;
		return ret;
	}
	if (ret == PAI_ENOMEM)
		return ret;
	if (c->authz_from_file)
		return PAI_OK;
	if (c->cfg->token)
		return set_authz(c, "Bearer", c->cfg->token);
	if (ret == PAI_EINVAL)
		return pai__kube_fail(err, PAI_EAUTH,
				      "token file '%s' holds no token", path);
	return pai__kube_fail(err, ret, "cannot read token file '%s': %s", path,
			      strerror(sys));
}

static int from_basic(pai__kube_cred *c)
{
	const char *u = c->cfg->username ? c->cfg->username : "";
	const char *p = c->cfg->password ? c->cfg->password : "";
	pai__buf b = PAI__BUF_INIT;
	char *plain, *enc;
	int ret;

	pai__buf_printf(&b, "%s:%s", u, p);
	if (!(plain = pai__buf_detach(&b)))
		return PAI_ENOMEM;
	if (!(enc = malloc(4 * ((strlen(plain) + 2) / 3) + 1))) {
		pai__free_secret(plain);
		return PAI_ENOMEM;
	}
	pai__base64_encode(enc, plain, strlen(plain));
	ret = set_authz(c, "Basic", enc);
	pai__free_secret(plain);
	pai__free_secret(enc);
	return ret;
}

/* The plugin's credential, run again once expired or stale. */
static int from_plugin(pai__kube_cred *c, pai__kube_err *err)
{
	pai__kube_plugin_out fresh;
	int ret;

	if (c->have_plug && !c->plug_stale &&
	    (!c->plug.has_expiry || (int64_t)now(c) < c->plug.expiry.sec))
		return PAI_OK;
	ret = pai__kube_plugin_run(&fresh, c->cfg, c->o.stdin_fd,
				   c->o.plugin_timeout_ms, err);
	if (ret)
		return ret;
	pai__kube_plugin_out_release(&c->plug);
	c->plug = fresh;
	c->have_plug = 1;
	c->plug_stale = 0;
	pai__free_secret(c->authz);
	c->authz = NULL;
	c->generation++; /* a new certificate is a new credential too */
	return c->plug.token ? set_authz(c, "Bearer", c->plug.token) : PAI_OK;
}

int pai__kube_cred_get(pai__kube_cred *c, pai__kube_auth *out,
		       pai__kube_err *err)
{
	const pai__kube_config *cfg = c->cfg;
	int ret = PAI_OK;

	memset(out, 0, sizeof(*out));
	if (cfg->token_file)
		ret = from_file(c, err);
	else if (cfg->token)
		ret = set_authz(c, "Bearer", cfg->token);
	else if (cfg->username || cfg->password)
		ret = from_basic(c);
	else if (cfg->exec)
		ret = from_plugin(c, err);
	if (ret == PAI_EINVAL) /* set_authz's: the value itself */
		return pai__kube_fail(err, PAI_EAUTH,
				      "the token holds a control character");
	if (ret)
		return ret;
	out->authorization = c->authz;
	if (c->have_plug && c->plug.cert) {
		out->cert = c->plug.cert;
		out->cert_len = c->plug.cert_len;
		out->key = c->plug.key;
		out->key_len = c->plug.key_len;
	}
	out->generation = c->generation;
	return PAI_OK;
}

int pai__kube_cred_unauthorized(pai__kube_cred *c, unsigned long generation)
{
	const pai__kube_config *cfg = c->cfg;

	if (cfg->token_file) {
		c->file_stale = 1;
		return 1;
	}
	if (cfg->token || cfg->username || cfg->password || !cfg->exec)
		return 0;
	/* once per stale credential: a newer one is already there */
	if (generation == c->generation)
		c->plug_stale = 1;
	return 1;
}
