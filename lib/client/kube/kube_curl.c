/* kube_curl.c - one libcurl handle set up for the cluster (§1.3, 1.4):
 * CA, client certificate and key (files or blobs), verification,
 * tls-server-name, proxy, and the headers every request carries. The
 * same setup serves REST requests and exec's CONNECT_ONLY connection. */
#include "kube.h"
#include "client/http.h"

#include "sys/dl_curl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One option, its failure named (a libcurl too old for blobs says
 * "Unknown option"). */
#define SET(h, opt, val, err)                                                  \
	do {                                                                   \
		CURLcode rc_ = curl_easy_setopt(h, opt, val);                  \
		if (rc_ != CURLE_OK)                                           \
			return setopt_failed(err, #opt, rc_);                  \
	} while (0)

static int setopt_failed(pai__kube_err *err, const char *opt, CURLcode rc)
{
	if (rc == CURLE_OUT_OF_MEMORY)
		return PAI_ENOMEM;
	return pai__kube_fail(err, PAI_EINVAL, "libcurl refused %s: %s", opt,
			      curl_easy_strerror(rc));
}

static int set_blob(CURL *h, CURLoption opt, const char *name,
		    const unsigned char *data, size_t len, pai__kube_err *err)
{
	struct curl_blob blob;
	CURLcode rc;

	blob.data = (void *)data;
	blob.len = len;
	blob.flags = CURL_BLOB_COPY; /* the key leaves our buffers alone */
	rc = curl_easy_setopt(h, opt, &blob);
	return rc == CURLE_OK ? PAI_OK : setopt_failed(err, name, rc);
}

/* The kubeconfig's CA alone when it names one, as kubectl trusts it
 * (certificate-authority-data wins over the file); else the system's. */
static int set_ca(CURL *h, const pai__kube_config *cfg, pai__kube_err *err)
{
	int ret = pai__curl_trust(h, cfg->ca_file, cfg->ca_data, cfg->ca_len,
				  cfg->insecure);

	if (ret == PAI_EACCES)
		return pai__kube_fail(err, ret,
				      "cannot read the kubeconfig's "
				      "certificate-authority '%s': %s",
				      cfg->ca_file, strerror(errno));
	if (ret == PAI_EINVAL)
		return pai__kube_fail(err, ret,
				      "libcurl refused the kubeconfig's "
				      "certificate-authority");
	return ret;
}

/* The client certificate and key: a plugin's, else the kubeconfig's
 * data, else its files. */
static int set_client_cert(CURL *h, const pai__kube_config *cfg,
			   const pai__kube_auth *auth, pai__kube_err *err)
{
	const unsigned char *cert = cfg->cert_data, *key = cfg->key_data;
	size_t cert_len = cfg->cert_len, key_len = cfg->key_len;
	int ret;

	if (auth && auth->cert && auth->key) {
		cert = auth->cert;
		cert_len = auth->cert_len;
		key = auth->key;
		key_len = auth->key_len;
	}
	if (cert || cfg->cert_file)
		SET(h, CURLOPT_SSLCERTTYPE, "PEM", err);
	if (key || cfg->key_file)
		SET(h, CURLOPT_SSLKEYTYPE, "PEM", err);
	if (cert &&
	    (ret = set_blob(h, CURLOPT_SSLCERT_BLOB, "CURLOPT_SSLCERT_BLOB",
			    cert, cert_len, err)))
		return ret;
	if (!cert && cfg->cert_file)
		SET(h, CURLOPT_SSLCERT, cfg->cert_file, err);
	if (key && (ret = set_blob(h, CURLOPT_SSLKEY_BLOB,
				   "CURLOPT_SSLKEY_BLOB", key, key_len, err)))
		return ret;
	if (!key && cfg->key_file)
		SET(h, CURLOPT_SSLKEY, cfg->key_file, err);
	return PAI_OK;
}

/* proxy-url; socks5 as Go dials it, the name resolved by the proxy. */
static int set_proxy(CURL *h, const pai__kube_config *cfg, pai__kube_err *err)
{
	pai__buf b = PAI__BUF_INIT;
	char *url;
	int ret;

	if (!cfg->proxy_url)
		return PAI_OK; /* curl reads https_proxy/http_proxy itself */
	if (strncmp(cfg->proxy_url, "socks5://", 9) == 0)
		pai__buf_printf(&b, "socks5h://%s", cfg->proxy_url + 9);
	else
		pai__buf_puts(&b, cfg->proxy_url);
	if (!(url = pai__buf_detach(&b)))
		return PAI_ENOMEM;
	ret = curl_easy_setopt(h, CURLOPT_PROXY, url) == CURLE_OK
		  ? PAI_OK
		  : pai__kube_fail(err, PAI_EINVAL,
				   "libcurl refused the "
				   "proxy-url");
	free(url);
	return ret;
}

/* tls-server-name: pai__kube_url() put the name in the URL, so curl
 * sends it as SNI and checks the certificate against it; CONNECT_TO
 * takes the connection to the server's real host (§1.3). */
static int set_server_name(CURL *h, struct curl_slist **connect_to,
			   const pai__kube_config *cfg, pai__kube_err *err)
{
	const pai__kube_server *s = &cfg->srv;
	pai__buf b = PAI__BUF_INIT;
	struct curl_slist *l;
	char *line;
	int v6;

	if (!cfg->tls_server_name)
		return PAI_OK;
	v6 = strchr(s->host, ':') != NULL;
	pai__buf_printf(&b, "%s:%ld:%s%s%s:%ld", cfg->tls_server_name, s->port,
			v6 ? "[" : "", s->host, v6 ? "]" : "", s->port);
	if (!(line = pai__buf_detach(&b)))
		return PAI_ENOMEM;
	l = curl_slist_append(NULL, line);
	free(line);
	if (!l)
		return PAI_ENOMEM;
	*connect_to = l;
	SET(h, CURLOPT_CONNECT_TO, l, err);
	return PAI_OK;
}

int pai__kube_curl_setup(CURL *h, struct curl_slist **connect_to,
			 const pai__kube_config *cfg,
			 const pai__kube_auth *auth, pai__kube_err *err)
{
	int ret;

	*connect_to = NULL;
	if (pai__curl_load() != PAI_OK)
		return pai__kube_fail(err, PAI_ELIBRARY,
				      "cannot load libcurl (%s)",
				      PAI_CURL_SONAME);
	if ((ret = set_ca(h, cfg, err)) ||
	    (ret = set_client_cert(h, cfg, auth, err)) ||
	    (ret = set_proxy(h, cfg, err)) ||
	    (ret = set_server_name(h, connect_to, cfg, err)))
		return ret;
	return PAI_OK;
}

/* ---- headers ------------------------------------------------------------ */

/* Every value is checked before any line is made: one with a line
 * break would add a header of its own. */
static int values_safe(const pai__kube_config *cfg, const pai__kube_auth *auth)
{
	size_t i;

	if ((auth && auth->authorization &&
	     !pai__header_safe(auth->authorization)) ||
	    (cfg->impersonate && !pai__header_safe(cfg->impersonate)))
		return 0;
	for (i = 0; i < cfg->nimpersonate_groups; i++)
		if (!pai__header_safe(cfg->impersonate_groups[i]))
			return 0;
	return 1;
}

/* Calls put(data, "Name: value") for each header; PAI_EINVAL for a
 * value that would break the header block. */
static int each_header(const pai__kube_config *cfg, const pai__kube_auth *auth,
		       int host, int (*put)(void *, const char *), void *data)
{
	pai__buf b = PAI__SECRET_BUF_INIT; /* the token, as it grows */
	size_t i;
	int ret = PAI_OK;

	if (!values_safe(cfg, auth))
		return PAI_EINVAL;
	if (auth && auth->authorization)
		pai__buf_printf(&b, "Authorization: %s\n", auth->authorization);
	if (cfg->impersonate)
		pai__buf_printf(&b, "Impersonate-User: %s\n", cfg->impersonate);
	for (i = 0; i < cfg->nimpersonate_groups; i++)
		pai__buf_printf(&b, "Impersonate-Group: %s\n",
				cfg->impersonate_groups[i]);
	if (host && cfg->tls_server_name)
		pai__buf_printf(&b, "Host: %s\n", cfg->srv.authority);
	if (!ret && b.oom)
		ret = PAI_ENOMEM;
	for (i = 0; !ret && i < b.len; i += strlen(b.data + i) + 1) {
		*strchr(b.data + i, '\n') = '\0';
		ret = put(data, b.data + i);
	}
	pai__buf_wipe(&b); /* it held the token */
	return ret;
}

static int put_slist(void *data, const char *line)
{
	struct curl_slist **list = data, *l;

	if (!(l = curl_slist_append(*list, line)))
		return PAI_ENOMEM;
	*list = l;
	return PAI_OK;
}

int pai__kube_headers(struct curl_slist **list, const pai__kube_config *cfg,
		      const pai__kube_auth *auth)
{
	if (pai__curl_load() != PAI_OK)
		return PAI_ELIBRARY;
	return each_header(cfg, auth, 1, put_slist, list);
}

static int put_text(void *data, const char *line)
{
	pai__buf_printf(data, "%s\r\n", line);
	return PAI_OK;
}

int pai__kube_header_text(pai__buf *b, const pai__kube_config *cfg,
			  const pai__kube_auth *auth)
{
	int ret = each_header(cfg, auth, 0, put_text, b);

	return !ret && b->oom ? PAI_ENOMEM : ret;
}
