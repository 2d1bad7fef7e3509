/* kube_server.c - a kubeconfig's server URL: split once, at load, into
 * its scheme, host, port, authority and path prefix (§1.3), and each
 * request's URL made of them. */
#include "kube.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void pai__kube_server_release(pai__kube_server *s)
{
	free(s->scheme);
	free(s->host);
	free(s->authority);
	free(s->prefix);
	memset(s, 0, sizeof(*s));
}

/* host and port of an authority ("h", "h:1", "[::1]:1"); PAI_EINVAL. */
static int split_authority(pai__kube_server *s, const char *a, size_t n)
{
	const char *colon = NULL, *hs = a, *he;
	long port = 0;
	size_t i;

	if (n && a[0] == '[') {
		if (!(he = memchr(a, ']', n)))
			return PAI_EINVAL;
		hs = a + 1;
		if (he + 1 < a + n && he[1] != ':')
			return PAI_EINVAL;
		colon = he + 1 < a + n ? he + 1 : NULL;
	} else {
		colon = memchr(a, ':', n);
		he = colon ? colon : a + n;
		if (colon &&
		    memchr(colon + 1, ':', (size_t)(a + n - colon - 1)))
			return PAI_EINVAL;
	}
	if (he == hs || memchr(a, '@', n))
		return PAI_EINVAL;
	for (i = colon ? (size_t)(colon - a) + 1 : n; i < n; i++) {
		if (!isdigit((unsigned char)a[i]) || port > 65535)
			return PAI_EINVAL;
		port = port * 10 + (a[i] - '0');
	}
	if (colon && (colon + 1 == a + n || port == 0 || port > 65535))
		return PAI_EINVAL;
	s->port = colon ? port : strcmp(s->scheme, "https") == 0 ? 443 : 80;
	s->host = strndup(hs, (size_t)(he - hs));
	return s->host ? PAI_OK : PAI_ENOMEM;
}

int pai__kube_server_split(pai__kube_server *s, const char *server)
{
	const char *p = strstr(server, "://"), *a;
	size_t n, i;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!p || !(s->scheme = strndup(server, (size_t)(p - server))))
		return p ? PAI_ENOMEM : PAI_EINVAL;
	for (i = 0; s->scheme[i]; i++)
		s->scheme[i] = (char)tolower((unsigned char)s->scheme[i]);
	a = p + 3;
	n = strcspn(a, "/?#");
	ret = PAI_EINVAL;
	if ((strcmp(s->scheme, "https") != 0 &&
	     strcmp(s->scheme, "http") != 0) ||
	    strpbrk(a, "?# \t\r\n") || (ret = split_authority(s, a, n)))
		goto fail;
	s->authority = strndup(a, n);
	s->prefix = strdup(a + n);
	ret = PAI_ENOMEM;
	if (!s->authority || !s->prefix)
		goto fail;
	for (i = strlen(s->prefix); i > 0 && s->prefix[i - 1] == '/'; i--)
		s->prefix[i - 1] = '\0';
	return PAI_OK;
fail:
	pai__kube_server_release(s);
	return ret;
}

int pai__kube_url(char **out, const pai__kube_config *cfg,
		  const char *path_query)
{
	const pai__kube_server *s = &cfg->srv;
	pai__buf b = PAI__BUF_INIT;

	if (cfg->tls_server_name)
		pai__buf_printf(&b, "%s://%s:%ld%s%s", s->scheme,
				cfg->tls_server_name, s->port, s->prefix,
				path_query);
	else
		pai__buf_printf(&b, "%s://%s%s%s", s->scheme, s->authority,
				s->prefix, path_query);
	*out = pai__buf_detach(&b);
	return *out ? PAI_OK : PAI_ENOMEM;
}
