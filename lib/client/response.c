/* response.c - an answer's head read into a pai__response: the one
 * parser of the header lines every transfer gets (REST, a stream, an
 * upgrade's answer), whatever their spacing or case; and the HTTP
 * dates of Retry-After and Date. */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void pai__response_release(pai__response *rs)
{
	if (!rs)
		return;
	pai__buf_release(&rs->body);
	free(rs->content_type);
	free(rs->location);
	free(rs->content_range);
	free(rs->etag);
	memset(rs, 0, sizeof(*rs));
}

char *pai__header_value(const char *p, size_t len, const char *name)
{
	size_t n = strlen(name), e;

	if (len <= n || strncasecmp(p, name, n) != 0 || p[n] != ':')
		return NULL;
	p += n + 1;
	len -= n + 1;
	while (len && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	e = len;
	while (e && (p[e - 1] == '\r' || p[e - 1] == '\n' || p[e - 1] == ' ' ||
		     p[e - 1] == '\t'))
		e--;
	return strndup(p, e);
}

int pai__header_safe(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return 0;
	return 1;
}

static void set_header(char **slot, char *v)
{
	if (!v)
		return;
	free(*slot);
	*slot = v;
}

/* Delta-seconds (Retry-After: 120) in ms; 0 for none or 0. */
static long long delta_ms(const char *v)
{
	char *end;
	long long s;

	if (*v < '0' || *v > '9')
		return 0;
	s = strtoll(v, &end, 10);
	if (*end)
		return 0;
	/* longer than any wait anyone takes, and no overflow below */
	return s > 0 ? (s < 1000000000LL ? s : 1000000000LL) * 1000 : 0;
}

static int month_of(const char *m)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int i;

	for (i = 0; i < 12; i++)
		if (strlen(m) == 3 && strncmp(m, names + 3 * i, 3) == 0)
			return i;
	return -1;
}

/* An HTTP date (RFC 9110 5.6.7: IMF-fixdate, or the obsolete RFC 850
 * and asctime forms, always GMT) in epoch seconds; 0 when v is none.
 * By hand: strptime's names would be the locale's. */
static long long http_date(const char *v)
{
	char wday[16], mon[4], zone[4];
	int d = 0, y = 0, h = 0, mi = 0, sec = 0, n = 0;
	struct tm tm;

	if (sscanf(v, "%15[A-Za-z], %2d %3s %4d %2d:%2d:%2d %3s%n", wday, &d,
		   mon, &y, &h, &mi, &sec, zone, &n) == 8 &&
	    !v[n] && strcmp(zone, "GMT") == 0)
		;
	else if (sscanf(v, "%15[A-Za-z], %2d-%3[A-Za-z]-%2d %2d:%2d:%2d %3s%n",
			wday, &d, mon, &y, &h, &mi, &sec, zone, &n) == 8 &&
		 !v[n] && strcmp(zone, "GMT") == 0)
		y += y < 70 ? 2000 : 1900; /* RFC 9110: the nearer century */
	else if (sscanf(v, "%15[A-Za-z] %3s %2d %2d:%2d:%2d %4d%n", wday, mon,
			&d, &h, &mi, &sec, &y, &n) == 7 &&
		 !v[n])
		;
	else
		return 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_mon = month_of(mon);
	if (tm.tm_mon < 0 || d < 1 || d > 31 || y < 1970 || y > 9999 ||
	    h > 23 || mi > 59 || sec > 60 || h < 0 || mi < 0 || sec < 0)
		return 0;
	tm.tm_mday = d;
	tm.tm_year = y - 1900;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	return (long long)timegm(&tm);
}

void pai__response_header(pai__response *rs, const char *p, size_t len)
{
	char *v;

	/* a new response (after 100 Continue): forget the last one's */
	if (len > 5 && strncmp(p, "HTTP/", 5) == 0) {
		free(rs->content_type);
		free(rs->content_range);
		free(rs->etag);
		rs->content_type = rs->content_range = rs->etag = NULL;
		rs->retry_after_ms = rs->retry_at_s = rs->date_s = 0;
		return;
	}
	set_header(&rs->content_type, pai__header_value(p, len, "Content-Type"));
	set_header(&rs->content_range, pai__header_value(p, len, "Content-Range"));
	set_header(&rs->etag, pai__header_value(p, len, "ETag"));
	if ((v = pai__header_value(p, len, "Retry-After"))) {
		rs->retry_after_ms = delta_ms(v);
		rs->retry_at_s = rs->retry_after_ms ? 0 : http_date(v);
		free(v);
	}
	if ((v = pai__header_value(p, len, "Date"))) {
		rs->date_s = http_date(v);
		free(v);
	}
}
