/* kube_util.c - the Kubernetes client's small pure helpers: error
 * details, base64, SHA-1, RFC 3339 times, random bytes, URL escaping.
 * SHA-1 and base64 are here because libpai links no crypto library (the
 * TLS one is libcurl's, behind dlopen) and the WebSocket handshake needs
 * only these 100 lines of them. */
#include "kube.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A detail is one line a terminal can show: names quoted from a file
 * (a context, a command) may hold any byte, so control characters
 * become '?'. */
int pai__kube_fail(pai__kube_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		for (p = err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return code;
}

/* ---- RFC 3339 ---------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's
 * days_from_civil), without timegm() and its time zone machinery. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at s as a number, or -1. */
static long digits(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int days_in_month(long y, long m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30,
				   31, 31, 30, 31, 30, 31};

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* The zone at s: 'Z', or +hh:mm; *off seconds east; bytes, or 0. */
static size_t zone(const char *s, size_t n, long *off)
{
	long h, m;

	if (n >= 1 && (s[0] == 'Z' || s[0] == 'z')) {
		*off = 0;
		return 1;
	}
	if (n < 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':')
		return 0;
	h = digits(s + 1, 2);
	m = digits(s + 4, 2);
	if (h < 0 || h > 23 || m < 0 || m > 59)
		return 0;
	*off = (h * 3600 + m * 60) * (s[0] == '-' ? -1 : 1);
	return 6;
}

size_t pai__kube_time_parse(pai__kube_time *t, const char *s, size_t n)
{
	long y, mo, d, h, mi, se, nsec = 0, off;
	size_t i = 19, f, z;

	if (n < 20 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
		return 0;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	se = digits(s + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
		return 0;
	if (s[i] == '.') {
		for (f = 0, i++; i < n && f < 9 && isdigit((unsigned char)s[i]);
		     f++, i++)
			nsec = nsec * 10 + (s[i] - '0');
		if (f == 0 || (i < n && isdigit((unsigned char)s[i])))
			return 0;
		for (; f < 9; f++)
			nsec *= 10;
	}
	if (!(z = zone(s + i, n - i, &off)))
		return 0;
	t->sec = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
		 h * 3600 + mi * 60 + se - off;
	t->nsec = nsec;
	return i + z;
}

int pai__kube_time_cmp(const pai__kube_time *a, const pai__kube_time *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->nsec != b->nsec)
		return a->nsec < b->nsec ? -1 : 1;
	return 0;
}

/* ---- the server's URL ---------------------------------------------------- */

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

/* ---- paths in kubeconfig files ------------------------------------------ */

/* Go's filepath.Clean on an absolute path, in place: "//", "." and
 * ".." resolved lexically, as client-go's filepath.Join leaves them. */
static void clean(char *p)
{
	char *out = p + 1, *seg = p + 1, *end;
	size_t n;
	int last;

	while (*seg) {
		end = strchrnul(seg, '/');
		n = (size_t)(end - seg);
		last = *end == '\0'; /* the '/' written below may cover it */
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			/* out ends with "segment/": drop that segment */
			if (out > p + 1)
				out--;
			while (out > p + 1 && out[-1] != '/')
				out--;
		} else if (n && !(n == 1 && seg[0] == '.')) {
			memmove(out, seg, n);
			out += n;
			*out++ = '/';
		}
		if (last)
			break;
		seg = end + 1;
	}
	if (out > p + 1)
		out--;
	*out = '\0';
}

int pai__kube_resolve(char **out, const char *dir, const char *path)
{
	pai__buf b = PAI__BUF_INIT;

	*out = NULL;
	if (path[0] != '/')
		pai__buf_printf(&b, "%s/", dir);
	pai__buf_puts(&b, path);
	*out = pai__buf_detach(&b);
	if (*out && (*out)[0] == '/')
		clean(*out);
	return *out ? PAI_OK : PAI_ENOMEM;
}
