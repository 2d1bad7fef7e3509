/* kube_time.c - RFC 3339 times as Go's time.RFC3339Nano reads them:
 * log lines' timestamps, sinceTime, an exec credential's expiry. By
 * hand: without timegm() and its time zone machinery. */
#include "kube.h"

#include <ctype.h>

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
