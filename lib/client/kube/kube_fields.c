/* kube_fields.c - a kubeconfig's cluster (§1.3) and user (§1.4, 1.5)
 * into pai__kube_config, checked as client-go's clientcmd checks them
 * (validation.go) when they would otherwise fail later, obscurely. No
 * message quotes a token, password, key or data field. */
#include "kube.h"

#include <stdlib.h>
#include <string.h>

#define EXEC_EXT     "client.authentication.k8s.io/exec"
#define EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"
#define EXEC_V1	     "client.authentication.k8s.io/v1"

static int line_of(const pai__kube_ynode *map, const char *key)
{
	const pai__kube_ynode *v = pai__kube_yget(map, key);

	return v ? (int)v->line : map ? (int)map->line : 0;
}

static int path_field(char **out, const pai__kube_ynode *m, const char *key,
		      const char *file, const char *dir, pai__kube_err *err)
{
	char *p = NULL;
	int ret = pai__kube_ystr(&p, m, key, file, err);

	*out = NULL;
	if (ret || !p)
		return ret;
	ret = pai__kube_resolve(out, dir, p);
	free(p);
	return ret;
}

/* A -data field: base64 in YAML (a Go []byte), decoded. */
static int data_field(unsigned char **out, size_t *len,
		      const pai__kube_ynode *m, const char *key,
		      const char *file, pai__kube_err *err)
{
	char *text = NULL;
	int ret = pai__kube_ystr(&text, m, key, file, err);

	*out = NULL;
	*len = 0;
	if (ret || !text)
		return ret;
	ret = pai__base64_decode(out, len, text, strlen(text));
	pai__free_secret(text); /* client-key-data is a secret */
	if (ret == PAI_EINVAL)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%d: %s is not valid base64", file,
				      line_of(m, key), key);
	return ret;
}

static int bool_field(int *out, const pai__kube_ynode *m, const char *key,
		      const char *file, pai__kube_err *err)
{
	const pai__kube_ynode *v = pai__kube_yget(m, key);

	*out = 0;
	if (pai__kube_ynull(v) || pai__kube_ybool(v, out) == PAI_OK)
		return PAI_OK;
	return pai__kube_fail(err, PAI_ESYNTAX,
			      "%s:%u: %s must be true or false", file, v->line,
			      key);
}

/* A list of strings. */
static int strv_field(char ***out, size_t *n, const pai__kube_ynode *m,
		      const char *key, const char *file, pai__kube_err *err)
{
	const pai__kube_ynode *v = pai__kube_yget(m, key), *it;
	size_t i;

	*out = NULL;
	*n = 0;
	if (pai__kube_ynull(v))
		return PAI_OK;
	if (v->type != PAI__KY_SEQ)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: %s must be a list", file, v->line,
				      key);
	if (!(*out = calloc(v->n + 1, sizeof(**out))))
		return PAI_ENOMEM;
	for (i = 0; i < v->n; i++) {
		it = v->kids[i];
		if (it->type != PAI__KY_SCALAR || strlen(it->text) != it->len)
			return pai__kube_fail(err, PAI_ESYNTAX,
					      "%s:%u: %s must be a list of "
					      "strings",
					      file, it->line, key);
		if (!((*out)[i] = strdup(pai__kube_ynull(it) ? "" : it->text)))
			return PAI_ENOMEM;
		(*n)++;
	}
	return PAI_OK;
}

/* ---- cluster ---------------------------------------------------------- */

/* server as client-go takes it: a scheme added when missing, the final
 * '/' dropped; refused when it does not parse. */
static int normalise_server(pai__kube_config *c, const char *file, int line,
			    pai__kube_err *err)
{
	pai__kube_server s;
	pai__buf b = PAI__BUF_INIT;
	int ret;

	if (!strstr(c->server, "://")) {
		pai__buf_printf(&b, "https://%s", c->server);
		free(c->server);
		if (!(c->server = pai__buf_detach(&b)))
			return PAI_ENOMEM;
	}
	ret = pai__kube_server_split(&s, c->server);
	if (ret == PAI_EINVAL)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%d: server \"%s\" is not an http or "
				      "https URL",
				      file, line, c->server);
	if (ret)
		return ret;
	free(c->server);
	pai__buf_printf(&b, "%s://%s%s", s.scheme, s.authority, s.prefix);
	pai__kube_server_release(&s);
	return (c->server = pai__buf_detach(&b)) ? PAI_OK : PAI_ENOMEM;
}

static int check_proxy(const char *url, const char *file, int line,
		       pai__kube_err *err)
{
	static const char *const ok[] = {"http://", "https://", "socks5://"};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strncmp(url, ok[i], strlen(ok[i])) == 0 &&
		    url[strlen(ok[i])])
			return PAI_OK;
	return pai__kube_fail(err, PAI_ESYNTAX,
			      "%s:%d: proxy-url must be an http, https or "
			      "socks5 URL",
			      file, line);
}

/* extensions: [{name, extension}]: the exec plugin's (§1.3). */
static int exec_extension(json_t **ext, const pai__kube_ynode *cluster)
{
	const pai__kube_ynode *list = pai__kube_yget(cluster, "extensions");
	const pai__kube_ynode *name;
	size_t i;

	*ext = NULL;
	if (!list || list->type != PAI__KY_SEQ)
		return PAI_OK;
	for (i = 0; i < list->n; i++) {
		name = pai__kube_yget(list->kids[i], "name");
		if (!name || name->type != PAI__KY_SCALAR ||
		    strcmp(name->text, EXEC_EXT) != 0)
			continue;
		*ext =
		    pai__kube_yjson(pai__kube_yget(list->kids[i], "extension"));
		return *ext ? PAI_OK : PAI_ENOMEM;
	}
	return PAI_OK;
}

static int cluster_tls(pai__kube_config *c, const pai__kube_ynode *cl,
		       const char *file, const char *dir, pai__kube_err *err)
{
	int ret;

	if ((ret = path_field(&c->ca_file, cl, "certificate-authority", file,
			      dir, err)) ||
	    (ret = data_field(&c->ca_data, &c->ca_len, cl,
			      "certificate-authority-data", file, err)) ||
	    (ret = bool_field(&c->insecure, cl, "insecure-skip-tls-verify",
			      file, err)) ||
	    (ret = pai__kube_ystr(&c->tls_server_name, cl, "tls-server-name",
				  file, err)) ||
	    (ret = pai__kube_ystr(&c->proxy_url, cl, "proxy-url", file, err)))
		return ret;
	if (c->ca_data) { /* -data wins (§1.3) */
		free(c->ca_file);
		c->ca_file = NULL;
	}
	if (c->insecure && (c->ca_file || c->ca_data))
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s: cluster \"%s\": specifying a root "
				      "certificates file with the insecure "
				      "flag is not allowed",
				      file, c->cluster);
	if (c->tls_server_name &&
	    strspn(c->tls_server_name,
		   "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") !=
		strlen(c->tls_server_name))
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%d: tls-server-name must be a host "
				      "name",
				      file, line_of(cl, "tls-server-name"));
	if (c->proxy_url)
		return check_proxy(c->proxy_url, file, line_of(cl, "proxy-url"),
				   err);
	return PAI_OK;
}

int pai__kube_read_cluster(pai__kube_config *c, json_t **ext,
			   const pai__kube_ynode *cl, const char *file,
			   const char *dir, pai__kube_err *err)
{
	int ret;

	*ext = NULL;
	if ((ret = pai__kube_ystr(&c->server, cl, "server", file, err)))
		return ret;
	if (!c->server)
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s: no server found for cluster \"%s\"",
				      file, c->cluster);
	if ((ret = normalise_server(c, file, line_of(cl, "server"), err)) ||
	    (ret = cluster_tls(c, cl, file, dir, err)))
		return ret;
	return exec_extension(ext, cl);
}

/* ---- exec (§1.5) ----------------------------------------------------------
 */

static int exec_env(pai__kube_plugin *p, const pai__kube_ynode *ex,
		    const char *file, pai__kube_err *err)
{
	const pai__kube_ynode *env = pai__kube_yget(ex, "env");
	char *name = NULL, *value = NULL;
	pai__buf b = PAI__BUF_INIT;
	size_t i;
	int ret = PAI_OK;

	if (pai__kube_ynull(env))
		return PAI_OK;
	if (env->type != PAI__KY_SEQ)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: env must be a list", file,
				      env->line);
	if (!(p->env = calloc(env->n + 1, sizeof(*p->env))))
		return PAI_ENOMEM;
	for (i = 0; i < env->n && !ret; i++) {
		if ((ret = pai__kube_ystr(&name, env->kids[i], "name", file,
					  err)) ||
		    (ret = pai__kube_ystr(&value, env->kids[i], "value", file,
					  err)))
			break;
		if (!name || strchr(name, '='))
			ret = pai__kube_fail(err, PAI_ESYNTAX,
					     "%s:%u: env: each needs a name "
					     "(without '=')",
					     file, env->kids[i]->line);
		pai__buf_printf(&b, "%s=%s", name ? name : "",
				value ? value : "");
		free(name);
		free(value);
		name = value = NULL;
		if (!ret && !(p->env[p->nenv++] = pai__buf_detach(&b)))
			ret = PAI_ENOMEM;
	}
	free(name);
	pai__buf_release(&b);
	return ret;
}

static int exec_mode(pai__kube_plugin *p, const pai__kube_ynode *ex,
		     const char *file, const char *user, pai__kube_err *err)
{
	char *mode = NULL;
	int ret = pai__kube_ystr(&mode, ex, "interactiveMode", file, err);

	if (ret)
		return ret;
	if (!mode && strcmp(p->api_version, EXEC_V1) == 0)
		ret = pai__kube_fail(err, PAI_EINVAL,
				     "%s: interactiveMode must be specified "
				     "for %s to use exec authentication "
				     "plugin",
				     file, user);
	else if (!mode || strcmp(mode, "IfAvailable") == 0)
		p->interactive_mode = PAI__KUBE_INTERACTIVE_IF_AVAILABLE;
	else if (strcmp(mode, "Never") == 0)
		p->interactive_mode = PAI__KUBE_INTERACTIVE_NEVER;
	else if (strcmp(mode, "Always") == 0)
		p->interactive_mode = PAI__KUBE_INTERACTIVE_ALWAYS;
	else
		ret =
		    pai__kube_fail(err, PAI_ESYNTAX,
				   "%s:%d: invalid interactiveMode \"%s\" "
				   "(Never, IfAvailable or Always)",
				   file, line_of(ex, "interactiveMode"), mode);
	free(mode);
	return ret;
}

static int exec_check(pai__kube_plugin *p, const pai__kube_ynode *ex,
		      const char *file, const char *dir, pai__kube_err *err)
{
	char *cmd = p->command;

	if (!cmd)
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s:%u: exec: command must be specified",
				      file, ex->line);
	if (!p->api_version)
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s:%u: exec: apiVersion must be "
				      "specified",
				      file, ex->line);
	if (strcmp(p->api_version, EXEC_V1BETA1) != 0 &&
	    strcmp(p->api_version, EXEC_V1) != 0)
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s:%d: exec plugin: invalid apiVersion "
				      "\"%s\" (%s or %s)",
				      file, line_of(ex, "apiVersion"),
				      p->api_version, EXEC_V1BETA1, EXEC_V1);
	/* a path is the file's, a bare name $PATH's (§1.2) */
	if (strchr(cmd, '/') && cmd[0] != '/') {
		if (pai__kube_resolve(&cmd, dir, p->command))
			return PAI_ENOMEM;
		free(p->command);
		p->command = cmd;
	}
	return PAI_OK;
}

static int read_exec(pai__kube_config *c, const pai__kube_ynode *ex,
		     const char *file, const char *dir, pai__kube_err *err)
{
	pai__kube_plugin *p;
	int ret;

	if (pai__kube_ynull(ex))
		return PAI_OK;
	if (ex->type != PAI__KY_MAP)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: exec must be a mapping", file,
				      ex->line);
	if (!(p = c->exec = calloc(1, sizeof(*p))))
		return PAI_ENOMEM;
	if ((ret = pai__kube_ystr(&p->command, ex, "command", file, err)) ||
	    (ret = strv_field(&p->args, &p->nargs, ex, "args", file, err)) ||
	    (ret = exec_env(p, ex, file, err)) ||
	    (ret = pai__kube_ystr(&p->api_version, ex, "apiVersion", file,
				  err)) ||
	    (ret = pai__kube_ystr(&p->install_hint, ex, "installHint", file,
				  err)) ||
	    (ret = bool_field(&p->provide_cluster_info, ex,
			      "provideClusterInfo", file, err)) ||
	    (ret = exec_check(p, ex, file, dir, err)))
		return ret;
	return exec_mode(p, ex, file, c->user, err);
}

/* ---- auth-provider (§1.5): only oidc's id-token ------------------------ */

static int read_provider(pai__kube_config *c, const pai__kube_ynode *ap,
			 const char *file, pai__kube_err *err)
{
	char *name = NULL, *tok = NULL;
	int ret;

	if (pai__kube_ynull(ap))
		return PAI_OK;
	if ((ret = pai__kube_ystr(&name, ap, "name", file, err)))
		return ret;
	if (!name || strcmp(name, "oidc") != 0)
		ret = pai__kube_fail(err, PAI_EINVAL,
				     "auth-provider %s is not supported; use "
				     "an exec credential plugin",
				     name ? name : "(unnamed)");
	else if (!(ret = pai__kube_ystr(&tok, pai__kube_yget(ap, "config"),
					"id-token", file, err)) &&
		 !tok)
		ret = pai__kube_fail(err, PAI_EINVAL,
				     "auth-provider oidc has no id-token (its "
				     "refresh is not supported); use an exec "
				     "credential plugin");
	/* token and tokenFile win, as their round tripper comes first */
	if (!ret && !c->token && !c->token_file) {
		c->token = tok;
		tok = NULL;
	}
	pai__free_secret(tok);
	free(name);
	return ret;
}

/* ---- user ------------------------------------------------------------- */

static int user_tls(pai__kube_config *c, const pai__kube_ynode *u,
		    const char *file, const char *dir, pai__kube_err *err)
{
	int ret;

	if ((ret = path_field(&c->cert_file, u, "client-certificate", file, dir,
			      err)) ||
	    (ret = data_field(&c->cert_data, &c->cert_len, u,
			      "client-certificate-data", file, err)) ||
	    (ret = path_field(&c->key_file, u, "client-key", file, dir, err)) ||
	    (ret = data_field(&c->key_data, &c->key_len, u, "client-key-data",
			      file, err)))
		return ret;
	if (c->cert_data) {
		free(c->cert_file);
		c->cert_file = NULL;
	}
	if (c->key_data) {
		free(c->key_file);
		c->key_file = NULL;
	}
	if ((c->cert_file || c->cert_data) && !c->key_file && !c->key_data)
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s: client-key-data or client-key must "
				      "be specified for %s to use the "
				      "clientCert authentication method",
				      file, c->user);
	return PAI_OK;
}

static int user_checks(pai__kube_config *c, const pai__kube_ynode *u,
		       const char *file, pai__kube_err *err)
{
	const pai__kube_ynode *ap = pai__kube_yget(u, "auth-provider");

	if (c->token && (c->username || c->password))
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s: more than one authentication method "
				      "found for %s; found [token basicAuth], "
				      "only one is allowed",
				      file, c->user);
	if (c->exec && !pai__kube_ynull(ap))
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s: authProvider cannot be provided in "
				      "combination with an exec plugin for %s",
				      file, c->user);
	if (c->nimpersonate_groups && !c->impersonate)
		return pai__kube_fail(err, PAI_EINVAL,
				      "%s: requesting groups or user-extra for "
				      "%s without impersonating a user",
				      file, c->user);
	return PAI_OK;
}

int pai__kube_read_user(pai__kube_config *c, const pai__kube_ynode *u,
			const char *file, const char *dir, pai__kube_err *err)
{
	int ret;

	if ((ret = user_tls(c, u, file, dir, err)) ||
	    (ret = pai__kube_ystr(&c->token, u, "token", file, err)) ||
	    (ret =
		 path_field(&c->token_file, u, "tokenFile", file, dir, err)) ||
	    (ret = pai__kube_ystr(&c->username, u, "username", file, err)) ||
	    (ret = pai__kube_ystr(&c->password, u, "password", file, err)) ||
	    (ret = pai__kube_ystr(&c->impersonate, u, "as", file, err)) ||
	    (ret = strv_field(&c->impersonate_groups, &c->nimpersonate_groups,
			      u, "as-groups", file, err)) ||
	    (ret = read_exec(c, pai__kube_yget(u, "exec"), file, dir, err)) ||
	    (ret = user_checks(c, u, file, err)))
		return ret;
	return read_provider(c, pai__kube_yget(u, "auth-provider"), file, err);
}
