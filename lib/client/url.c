/* url.c - URLs as the wire sees them: an escaped path segment, a URL's
 * scheme, host and port (see url.h). */
#include "url.h"

#include "sys/dl_curl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void pai__buf_put_escaped(pai__buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (isalnum(ch) || ch == '-' || ch == '.' || ch == '_' ||
		    ch == '~')
			pai__buf_putc(b, (char)ch);
		else {
			char e[3] = {'%', hex[ch >> 4], hex[ch & 15]};

			pai__buf_put(b, e, 3);
		}
	}
}

int pai__url_split(const char *url, char **scheme, char **host, long *port)
{
	CURLU *u = curl_url();
	char *s = NULL, *h = NULL, *p = NULL;
	int ret = PAI_EINVAL;
	size_t i;

	*scheme = *host = NULL;
	*port = 0;
	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &s, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) !=
		CURLUE_OK)
		goto out;
	*scheme = strdup(s);
	*host = strdup(h);
	if (!*scheme || !*host) {
		free(*scheme);
		free(*host);
		*scheme = *host = NULL;
		ret = PAI_ENOMEM;
		goto out;
	}
	for (i = 0; (*scheme)[i]; i++)
		(*scheme)[i] = (char)tolower((unsigned char)(*scheme)[i]);
	for (i = 0; (*host)[i]; i++)
		(*host)[i] = (char)tolower((unsigned char)(*host)[i]);
	*port = strtol(p, NULL, 10);
	ret = PAI_OK;
out:
	curl_free(s);
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
	return ret;
}

int pai__url_origin(char **out, const char *url)
{
	char *scheme = NULL, *host = NULL;
	pai__buf b = PAI__BUF_INIT;
	long port = 0;
	int err;

	*out = NULL;
	if ((err = pai__url_split(url, &scheme, &host, &port)))
		return err;
	pai__buf_printf(&b, "%s://%s:%ld", scheme, host, port);
	*out = pai__buf_detach(&b);
	free(scheme);
	free(host);
	return *out ? PAI_OK : PAI_ENOMEM;
}

char *pai__url_host(const char *url)
{
	CURLU *u = curl_url();
	char *h = NULL, *p = NULL, *ret = NULL;
	pai__buf b = PAI__BUF_INIT;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK)
		goto out;
	pai__buf_puts(&b, h);
	if (curl_url_get(u, CURLUPART_PORT, &p, 0) == CURLUE_OK && p)
		pai__buf_printf(&b, ":%s", p);
	ret = pai__buf_detach(&b);
out:
	pai__buf_release(&b);
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
	return ret;
}
