/* yaml.c - protocol-v2 job YAML, loaded as OpenPAI's rest-server loads it
 * (js-yaml 3.13.1 safeLoad, DEFAULT_SAFE_SCHEMA), into JSON and a
 * position tree.
 *
 * libyaml does the scanning and parsing and hands over events; the
 * building is ours, on an explicit stack (no recursion over the input's
 * nesting), with js-yaml's rules for what each scalar means, what a key
 * becomes, which keys clash and in what order an object's keys come.
 * Where JSON has no word for a JavaScript value (a Date, a Buffer,
 * Infinity) the nearest JSON value is kept and marked (enum pai__ykind).
 *
 * Aliases are expanded (deep copies), so an alias bomb is stopped by a
 * bound on the nodes the document expands to, and a chain of aliases
 * cannot nest deeper than the depth bound either. */
#include "text.h"

#include <math.h> /* INFINITY, NAN, isnan(): no libm */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* js-yaml recurses (two or three JavaScript frames a level) and dies of
 * a RangeError somewhere past a few thousand levels; no job nests more
 * than ten. 1,000 keeps our own (and the validator's) walks cheap. */
#define MAX_DEPTH 1000
/* Nodes after expanding every alias and merge. A body the server takes
 * (100 KiB) holds at most ~51,000 nodes written out; 1,000,000 leaves
 * room for any honest use of anchors and stops a "billion laughs" at a
 * few tens of MB. */
#define MAX_NODES 1000000

#define TAG(x) "tag:yaml.org,2002:" x

/* The bounds, for tests (which also need this file linked in ahead of
 * v2_pending.c's weak placeholders while that file exists). */
const size_t pai__yaml_max_depth = MAX_DEPTH;
const size_t pai__yaml_max_nodes = MAX_NODES;

/* A finished node, on its way to its parent. */
struct yval {
	json_t *v;
	pai__pos pos;
	size_t nodes;	 /* nodes in it, aliases expanded */
	unsigned height; /* levels in it: a scalar is 1 */
	int merge;	 /* as a key: "<<" (plain) or !!merge */
	double num;	 /* a number's value, for String(key) */
	int is_num;
};

/* A mapping's member, kept until the mapping ends: then the members are
 * put in JavaScript's property order. */
struct ent {
	char *key; /* NUL-terminated; klen bytes (a key may hold a NUL) */
	size_t klen;
	struct yval val;
	int overridable; /* set by a merge: an explicit key replaces it */
};

struct frame {
	int map;
	char *tag;    /* explicit tag (owned) or NULL */
	char *anchor; /* owned or NULL */
	size_t off;
	size_t nodes;
	unsigned height;
	json_t *arr; /* sequence: its items */
	pai__pos pos; /* sequence: its items' positions */
	size_t cap;
	struct ent *ents; /* mapping: members in insertion order */
	size_t nents, capents;
	json_t *index; /* mapping: key -> 1 + index in ents */
	int have_key;
	char *key;
	size_t klen, key_off;
	int key_merge;
};

struct anchor {
	char *name;
	struct yval val;
};

struct ystate {
	pai__src *src;
	pai_diags *diags;
	const char *in; /* what libyaml reads: the text past any BOM */
	size_t inlen, base;
	size_t cidx, boff; /* cursor: character index <-> byte offset */
	struct frame *fr;
	size_t nfr, capfr;
	struct anchor *anch;
	size_t nanch, capanch;
	json_t *anames; /* anchor name -> 1 + index in anch (latest) */
	size_t nodes;
	int docs;
	int have_root;
	struct yval root;
};

static int yerr(struct ystate *st, size_t off, const char *rule,
		const char *fmt, ...) PAI__PRINTF(4, 5);

static int yerr(struct ystate *st, size_t off, const char *rule,
		const char *fmt, ...)
{
	pai__buf b = PAI__BUF_INIT;
	va_list ap;
	int err;

	va_start(ap, fmt);
	pai__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.oom || !b.data) {
		pai__buf_release(&b);
		return PAI_ENOMEM;
	}
	err = pai__diag_add(st->diags, st->src, off, PAI_SEVERITY_ERROR, "",
			    rule, "%s", b.data);
	pai__buf_release(&b);
	return err ? PAI_ENOMEM : PAI_ESYNTAX;
}

/* ---- positions ---------------------------------------------------------- */

/* libyaml counts characters; diagnostics want bytes. Marks come mostly in
 * order, so a cursor that walks from the last one costs linear time in
 * all, however long a line is. */
static size_t mark_off(struct ystate *st, size_t cidx)
{
	const unsigned char *t = (const unsigned char *)st->in;

	while (st->cidx < cidx && st->boff < st->inlen) {
		st->boff++;
		while (st->boff < st->inlen && (t[st->boff] & 0xC0) == 0x80)
			st->boff++;
		st->cidx++;
	}
	while (st->cidx > cidx && st->boff > 0) {
		st->boff--;
		while (st->boff > 0 && (t[st->boff] & 0xC0) == 0x80)
			st->boff--;
		st->cidx--;
	}
	return st->base + st->boff;
}

/* A node with an anchor or a tag starts at them; its value starts past
 * them, their spaces, line breaks and comments. */
static size_t skip_props(const pai__src *src, size_t off)
{
	const char *t = src->text;

	while (off < src->len && (t[off] == '&' || t[off] == '!')) {
		if (t[off] == '!' && off + 1 < src->len && t[off + 1] == '<') {
			while (off < src->len && t[off] != '>')
				off++;
		}
		while (off < src->len && !strchr(" \t\r\n", t[off]))
			off++;
		for (;;) {
			while (off < src->len && strchr(" \t\r\n", t[off]))
				off++;
			if (off >= src->len || t[off] != '#')
				break;
			while (off < src->len && t[off] != '\n')
				off++;
		}
	}
	return off < src->len ? off : src->len;
}

static void yval_release(struct yval *y)
{
	json_decref(y->v);
	y->v = NULL;
	pai__pos_release(&y->pos);
	free(y->pos.key);
	y->pos.key = NULL;
}

/* A deep copy of a position tree; the depth bound keeps this recursion
 * short. */
static int pos_copy(pai__pos *to, const pai__pos *from)
{
	size_t i;

	*to = *from;
	to->key = NULL;
	to->child = NULL;
	to->nchild = 0;
	if (from->key && !(to->key = strdup(from->key)))
		return -1;
	if (!from->nchild)
		return 0;
	to->child = calloc(from->nchild, sizeof(*to->child));
	if (!to->child)
		return -1;
	for (i = 0; i < from->nchild; i++) {
		to->nchild++;
		if (pos_copy(&to->child[i], &from->child[i]) < 0)
			return -1;
	}
	return 0;
}

static size_t pos_count(const pai__pos *p)
{
	size_t i, n = 1;

	for (i = 0; i < p->nchild; i++)
		n += pos_count(&p->child[i]);
	return n;
}

static unsigned pos_height(const pai__pos *p)
{
	size_t i;
	unsigned h = 0, c;

	for (i = 0; i < p->nchild; i++) {
		c = pos_height(&p->child[i]);
		if (c > h)
			h = c;
	}
	return h + 1;
}

/* A copy of y (value and positions) in *to; -1 when out of memory. */
static int yval_copy(struct yval *to, const struct yval *from)
{
	*to = *from;
	memset(&to->pos, 0, sizeof(to->pos));
	to->v = json_deep_copy(from->v);
	if (!to->v || pos_copy(&to->pos, &from->pos) < 0) {
		yval_release(to);
		return -1;
	}
	return 0;
}

/* ---- numbers -------------------------------------------------------------- */

/* libpai links without libm: the little of it needed here, for the
 * magnitudes a date or a JSON integer has (below 2^63). */
static double yfloor(double x)
{
	double t = (double)(long long)x;

	return t > x ? t - 1 : t;
}

/* x mod m, in [0, m) */
static double ymod(double x, double m)
{
	return x - m * yfloor(x / m);
}

/* A JavaScript number as JSON: an exact integer as an integer (2.0 is 2
 * in JavaScript too), anything else as a real. */
static json_t *number_json(double d)
{
	if (d > -9.2e18 && d < 9.2e18 && d == yfloor(d))
		return json_integer((json_int_t)d);
	return json_real(d);
}

/* ---- scalars: js-yaml's types (its lib/js-yaml/type/) -------------------- */

static int is_dec(int c) { return c >= '0' && c <= '9'; }

static int is_hex(int c)
{
	return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int eq(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && memcmp(s, w, n) == 0;
}

static int null_resolve(const char *s, size_t n)
{
	return eq(s, n, "~") || eq(s, n, "null") || eq(s, n, "Null") ||
	       eq(s, n, "NULL");
}

/* 1 true, 0 false, -1 neither */
static int bool_resolve(const char *s, size_t n)
{
	if (eq(s, n, "true") || eq(s, n, "True") || eq(s, n, "TRUE"))
		return 1;
	if (eq(s, n, "false") || eq(s, n, "False") || eq(s, n, "FALSE"))
		return 0;
	return -1;
}

/* Digits of one class, '_' allowed between (not at the end). */
static int digits_ok(const char *s, size_t n, int (*ok)(int))
{
	size_t i, got = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '_')
			continue;
		if (!ok((unsigned char)s[i]))
			return 0;
		got++;
	}
	return got > 0 && s[n - 1] != '_';
}

static int is_bin(int c) { return c == '0' || c == '1'; }
static int is_oct(int c) { return c >= '0' && c <= '7'; }

/* ":" then [0-5]?[0-9], one or more times, to the end */
static int base60_ok(const char *s, size_t n)
{
	size_t i = 0, d;

	while (i < n) {
		if (s[i++] != ':')
			return 0;
		for (d = 0; i < n && is_dec((unsigned char)s[i]); i++, d++)
			;
		if (d == 0 || d > 2 || (d == 2 && s[i - 2] > '5'))
			return 0;
	}
	return n > 0;
}

static int int_resolve(const char *s, size_t n)
{
	size_t i = 0;

	if (n && (s[0] == '-' || s[0] == '+'))
		i++;
	if (i >= n)
		return 0;
	if (s[i] == '0') {
		if (i + 1 == n)
			return 1;
		if (s[i + 1] == 'b')
			return digits_ok(s + i + 2, n - i - 2, is_bin);
		if (s[i + 1] == 'x')
			return digits_ok(s + i + 2, n - i - 2, is_hex);
		return digits_ok(s + i + 1, n - i - 1, is_oct);
	}
	if (s[i] == '_')
		return 0;
	{
		const char *c = memchr(s + i, ':', n - i);
		size_t m = c ? (size_t)(c - s) : n;

		if (!digits_ok(s + i, m - i, is_dec))
			return 0;
		return !c || base60_ok(c, n - m);
	}
}

/* Digits (with '_') in base b as a double, as parseInt() reads them.
 * Takes the '_' out of s in place: the text is not needed once it has
 * resolved as a number. */
static double parse_base(char *s, size_t n, int b)
{
	double v = 0;
	size_t i, k = 0;

	if (b == 10) { /* correctly rounded, as V8's parseInt */
		for (i = 0; i < n; i++)
			if (s[i] != '_')
				s[k++] = s[i];
		s[k] = '\0'; /* s[n] is a ':' already read, or the end */
		return strtod(s, NULL);
	}
	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '_')
			continue;
		v = v * b + (is_dec(c) ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v;
}

/* Sexagesimal: parts separated by ':', the last one counting 1. */
static double base60(char *s, size_t n, int real)
{
	double v = 0, part;
	size_t i = 0, j;

	while (i <= n) {
		for (j = i; j < n && s[j] != ':'; j++)
			;
		/* the text has no '_' left when real */
		part = real && j == n ? strtod(s + i, NULL)
				      : parse_base(s + i, j - i, 10);
		v = v * 60 + part;
		i = j + 1;
	}
	return v;
}

static double int_construct(char *s, size_t n)
{
	double sign = 1;

	if (s[0] == '-' || s[0] == '+') {
		sign = s[0] == '-' ? -1 : 1;
		s++, n--;
	}
	if (n > 1 && s[0] == '0' && s[1] == 'b')
		return sign * parse_base(s + 2, n - 2, 2);
	if (n > 1 && s[0] == '0' && s[1] == 'x')
		return sign * parse_base(s + 2, n - 2, 16);
	if (s[0] == '0')
		return n == 1 ? 0 : sign * parse_base(s + 1, n - 1, 8);
	if (memchr(s, ':', n))
		return sign * base60(s, n, 0);
	return sign * parse_base(s, n, 10);
}

static size_t skip_set(const char *s, size_t i, size_t n, const char *set)
{
	while (i < n && s[i] && strchr(set, s[i]))
		i++;
	return i;
}

/* [eE][-+]?[0-9]+, if there, from i; SIZE_MAX when malformed */
static size_t exponent(const char *s, size_t i, size_t n)
{
	size_t j;

	if (i >= n || (s[i] != 'e' && s[i] != 'E'))
		return i;
	i++;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	j = skip_set(s, i, n, "0123456789");
	return j > i ? j : SIZE_MAX;
}

/* js-yaml's YAML_FLOAT_PATTERN, one alternative at a time */
static int float_resolve(const char *s, size_t n)
{
	size_t i, sg = n && (s[0] == '-' || s[0] == '+');

	if (!n || s[n - 1] == '_')
		return 0;
	if (eq(s + sg, n - sg, ".inf") || eq(s + sg, n - sg, ".Inf") ||
	    eq(s + sg, n - sg, ".INF") || eq(s, n, ".nan") ||
	    eq(s, n, ".NaN") || eq(s, n, ".NAN"))
		return 1;
	if (s[0] == '.') { /* \.[0-9_]+ exponent? */
		i = skip_set(s, 1, n, "0123456789_");
		return i > 1 && exponent(s, i, n) == n;
	}
	i = sg;
	if (i < n && s[i] == '0') { /* 0 | [1-9][0-9_]*, fraction, exp */
		i++;
	} else if (i < n && s[i] >= '1' && s[i] <= '9') {
		i = skip_set(s, i + 1, n, "0123456789_");
	} else {
		return 0;
	}
	if (i < n && s[i] == '.')
		i = skip_set(s, i + 1, n, "0123456789_");
	if (exponent(s, i, n) == n)
		return 1;
	/* base 60: [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* */
	i = skip_set(s, sg, n, "0123456789_");
	if (i == sg || s[sg] == '_' || i >= n || s[i] != ':')
		return 0;
	while (i < n && s[i] == ':') {
		size_t d = skip_set(s, i + 1, n, "0123456789") - i - 1;

		if (d == 0)
			return 0;
		if (d >= 2 && s[i + 1] <= '5')
			d = 2;
		else
			d = 1;
		i += 1 + d;
	}
	return i < n && s[i] == '.' &&
	       skip_set(s, i + 1, n, "0123456789_") == n;
}

/* Lower-cases s and takes its '_' out, in place (see parse_base). */
static double float_construct(char *t, size_t n)
{
	size_t i, k = 0;
	double sign = 1;

	for (i = 0; i < n; i++)
		if (t[i] != '_')
			t[k++] = (char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] | 0x20
								  : t[i]);
	t[k] = '\0';
	i = 0;
	if (t[0] == '-' || t[0] == '+')
		sign = t[i++] == '-' ? -1 : 1;
	if (strcmp(t + i, ".inf") == 0)
		return sign * INFINITY;
	if (strcmp(t + i, ".nan") == 0)
		return NAN;
	if (strchr(t + i, ':'))
		return sign * base60(t + i, k - i, 1);
	return sign * strtod(t + i, NULL);
}

/* n digits at s[*i] (n2: or one fewer, when n2 is 1) */
static int take_digits(const char *s, size_t len, size_t *i, int n, int opt)
{
	int k = 0;

	while (k < n && *i < len && is_dec((unsigned char)s[*i]))
		(*i)++, k++;
	return k == n || (opt && k == n - 1 && k > 0);
}

/* js-yaml's YAML_DATE_REGEXP and YAML_TIMESTAMP_REGEXP */
static int timestamp_resolve(const char *s, size_t n)
{
	size_t i = 0;

	if (!take_digits(s, n, &i, 4, 0) || i >= n || s[i++] != '-')
		return 0;
	if (n == 10 && take_digits(s, n, &i, 2, 0) && s[i++] == '-' &&
	    take_digits(s, n, &i, 2, 0) && i == n)
		return 1;
	i = 5;
	if (!take_digits(s, n, &i, 2, 1) || i >= n || s[i++] != '-' ||
	    !take_digits(s, n, &i, 2, 1) || i >= n)
		return 0;
	if (s[i] == 'T' || s[i] == 't')
		i++;
	else if (s[i] == ' ' || s[i] == '\t')
		i = skip_set(s, i, n, " \t");
	else
		return 0;
	if (!take_digits(s, n, &i, 2, 1) || i >= n || s[i++] != ':' ||
	    !take_digits(s, n, &i, 2, 0) || i >= n || s[i++] != ':' ||
	    !take_digits(s, n, &i, 2, 0))
		return 0;
	if (i < n && s[i] == '.')
		i = skip_set(s, i + 1, n, "0123456789");
	if (i == n)
		return 1;
	i = skip_set(s, i, n, " \t"); /* only before a zone */
	if (i == n)
		return 0;
	if (s[i] == 'Z')
		return i + 1 == n;
	if (s[i] != '-' && s[i] != '+')
		return 0;
	i++;
	if (!take_digits(s, n, &i, 2, 1))
		return 0;
	if (i < n && s[i] == ':') {
		i++;
		if (!take_digits(s, n, &i, 2, 0))
			return 0;
	}
	return i == n;
}

static int binary_resolve(const char *s, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				  "qrstuvwxyz0123456789+/=";
	size_t i, bits = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n' || s[i] == '\r')
			continue;
		if (!s[i] || !strchr(b64, s[i]))
			return 0;
		bits += 6;
	}
	return bits % 8 == 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date; m is 0-based and
 * may be past 11 (Date.UTC rolls it over, and d over the month). */
static double days_from_civil(double y, double m, double d)
{
	double yy, era, yoe, doy, doe, mp;

	y += yfloor(m / 12);
	m = ymod(m, 12);
	yy = m < 2 ? y - 1 : y;
	era = yfloor(yy / 400);
	yoe = yy - era * 400;
	mp = m < 2 ? m + 10 : m - 2;
	doy = yfloor((153 * mp + 2) / 5);
	doe = yoe * 365 + yfloor(yoe / 4) - yfloor(yoe / 100) + doy;
	return era * 146097 + doe - 719468 + d - 1;
}

static double num_at(const char *s, size_t n, size_t *i)
{
	double v = 0;

	while (*i < n && is_dec((unsigned char)s[*i]))
		v = v * 10 + (s[(*i)++] - '0');
	return v;
}

/* constructYamlTimestamp: milliseconds since the epoch (UTC), for the
 * key a Date becomes. The text has passed timestamp_resolve(). */
static double timestamp_ms(const char *s, size_t n)
{
	size_t i = 0;
	double y, mo, d, h = 0, mi = 0, sec = 0, frac = 0, tz = 0, k;

	y = num_at(s, n, &i), i++;
	mo = num_at(s, n, &i) - 1, i++;
	d = num_at(s, n, &i);
	if (i < n) {
		i = skip_set(s, i + 1, n, " \t");
		h = num_at(s, n, &i), i++;
		mi = num_at(s, n, &i), i++;
		sec = num_at(s, n, &i);
		if (i < n && s[i] == '.') /* milliseconds: 3 digits */
			for (i++, k = 100; i < n && is_dec((unsigned char)s[i]);
			     i++, k /= 10)
				frac += k >= 1 ? (s[i] - '0') * k : 0;
		i = skip_set(s, i, n, " \t");
		if (i < n && (s[i] == '-' || s[i] == '+')) {
			double sg = s[i++] == '-' ? -1 : 1, th, tm = 0;

			th = num_at(s, n, &i);
			if (i < n && s[i] == ':')
				i++, tm = num_at(s, n, &i);
			tz = sg * (th * 60 + tm) * 60000;
		}
	}
	return days_from_civil(y, mo, d) * 86400000 +
	       ((h * 60 + mi) * 60 + sec) * 1000 + frac - tz;
}

/* String(date) as a server in UTC says it */
static void date_string(char *out, size_t n, double ms)
{
	static const char *const wd[] = {"Thu", "Fri", "Sat", "Sun",
					 "Mon", "Tue", "Wed"};
	static const char *const mn[] = {"Jan", "Feb", "Mar", "Apr",
					 "May", "Jun", "Jul", "Aug",
					 "Sep", "Oct", "Nov", "Dec"};
	double days = yfloor(ms / 86400000), t = ms - days * 86400000;
	double z = days + 719468, era = yfloor(z / 146097);
	double doe = z - era * 146097, yoe, doy, mp, dd, mm, yy;

	yoe = yfloor((doe - yfloor(doe / 1460) + yfloor(doe / 36524) -
		     yfloor(doe / 146096)) /
		    365);
	doy = doe - (365 * yoe + yfloor(yoe / 4) - yfloor(yoe / 100));
	mp = yfloor((5 * doy + 2) / 153);
	dd = doy - yfloor((153 * mp + 2) / 5) + 1;
	mm = mp < 10 ? mp + 3 : mp - 9;
	yy = yoe + era * 400 + (mm <= 2);
	snprintf(out, n,
		 "%s %s %02d %04d %02d:%02d:%02d GMT+0000 (Coordinated "
		 "Universal Time)",
		 wd[(int)ymod(days, 7)], mn[(int)mm - 1], (int)dd,
		 (int)yy, (int)(t / 3600000), (int)ymod(t / 60000, 60),
		 (int)ymod(t / 1000, 60));
}

/* ---- scalars to values ------------------------------------------------ */

static const char *short_tag(const char *tag, char *buf, size_t n)
{
	if (strncmp(tag, TAG(""), strlen(TAG(""))) == 0) {
		snprintf(buf, n, "!!%s", tag + strlen(TAG("")));
		return buf;
	}
	return tag;
}

/* How much of a value a message quotes: up to 40 bytes, a whole
 * character, no line break or other control character. */
static int quote_len(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 40 && (unsigned char)s[i] >= 0x20; i++)
		;
	while (i > 0 && i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	return (int)i;
}

static void set_number(struct yval *y, double d)
{
	y->num = d;
	y->is_num = 1;
	if (isfinite(d)) {
		y->v = number_json(d);
	} else {
		y->v = json_real(0.0);
		y->pos.ykind = PAI__YK_NONFINITE;
	}
}

/* The implicit types of DEFAULT_SAFE_SCHEMA, in js-yaml's order: null,
 * bool, int, float, timestamp, merge; anything else is a string. */
static void implicit(struct yval *y, char *s, size_t n)
{
	int b;

	if (null_resolve(s, n)) {
		y->v = json_null();
	} else if ((b = bool_resolve(s, n)) >= 0) {
		y->v = json_boolean(b);
	} else if (int_resolve(s, n)) {
		set_number(y, int_construct(s, n));
	} else if (float_resolve(s, n)) {
		set_number(y, float_construct(s, n));
	} else if (timestamp_resolve(s, n)) {
		y->v = json_object();
		y->num = timestamp_ms(s, n);
		y->pos.ykind = PAI__YK_DATE;
	} else {
		y->merge = eq(s, n, "<<");
		y->v = json_stringn_nocheck(s, n);
	}
}

/* An explicitly tagged scalar: 1 when the tag is known and the text
 * fits it, 0 when it does not fit, -1 when the tag is unknown. s is NULL
 * for a node with no content. */
static int explicit(struct yval *y, const char *tag, char *s, size_t n)
{
	const char *t = tag + strlen(TAG(""));
	int b;

	if (strncmp(tag, TAG(""), strlen(TAG(""))) != 0)
		return -1;
	if (!strcmp(t, "str")) {
		y->v = json_stringn_nocheck(s ? s : "", s ? n : 0);
	} else if (!strcmp(t, "null")) {
		if (s && !null_resolve(s, n))
			return 0;
		y->v = json_null();
	} else if (!strcmp(t, "bool")) {
		if (!s || (b = bool_resolve(s, n)) < 0)
			return 0;
		y->v = json_boolean(b);
	} else if (!strcmp(t, "int") || !strcmp(t, "float")) {
		if (!s || !(t[0] == 'i' ? int_resolve(s, n)
					: float_resolve(s, n)))
			return 0;
		set_number(y, t[0] == 'i' ? int_construct(s, n)
					  : float_construct(s, n));
	} else if (!strcmp(t, "timestamp") || !strcmp(t, "binary")) {
		if (!s || !(t[0] == 't' ? timestamp_resolve(s, n)
					: binary_resolve(s, n)))
			return 0;
		if (t[0] == 't')
			y->num = timestamp_ms(s, n);
		y->pos.ykind = t[0] == 't' ? PAI__YK_DATE : PAI__YK_BINARY;
		y->v = json_object();
	} else if (!strcmp(t, "merge")) {
		if (s && !eq(s, n, "<<"))
			return 0;
		y->merge = 1;
		y->v = s ? json_string("<<") : json_null();
	} else if (!strcmp(t, "map") || !strcmp(t, "set") ||
		   !strcmp(t, "seq") || !strcmp(t, "omap") ||
		   !strcmp(t, "pairs")) {
		/* a collection's tag: only an empty node takes it */
		if (s)
			return 0;
		y->v = strchr("ms", t[0]) && strcmp(t, "seq") ? json_object()
							      : json_array();
	} else {
		return -1;
	}
	return 1;
}

static int scalar(struct ystate *st, struct yval *y, yaml_event_t *ev,
		  size_t off)
{
	char *s = (char *)ev->data.scalar.value;
	const char *tag = (const char *)ev->data.scalar.tag;
	size_t n = ev->data.scalar.length;
	int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, r;
	char tb[64];

	memset(y, 0, sizeof(*y));
	y->pos.off = y->pos.key_off = off;
	y->nodes = y->height = 1;
	if (plain && n == 0) /* no content at all */
		s = NULL;
	if (!tag || !strcmp(tag, "!")) {
		if (!s)
			y->v = json_null();
		else if (plain && !tag)
			implicit(y, s, n);
		else
			y->v = json_stringn_nocheck(s, n);
		return y->v ? PAI_OK : PAI_ENOMEM;
	}
	r = explicit(y, tag, s, n);
	if (r < 0)
		return yerr(st, off, "yaml-unknown-tag",
			    "unknown tag '%s': the server's YAML loader knows "
			    "only the standard !! tags",
			    short_tag(tag, tb, sizeof(tb)));
	if (r == 0)
		return yerr(st, off, "yaml-bad-tagged-value",
			    "%s%.*s%s is not a valid %s", s ? "'" : "",
			    s ? quote_len(s, n) : 5, s ? s : "empty",
			    s ? ((size_t)quote_len(s, n) < n ? "...'" : "'")
			      : "",
			    short_tag(tag, tb, sizeof(tb)));
	return y->v ? PAI_OK : PAI_ENOMEM;
}

/* ---- keys --------------------------------------------------------------- */

/* Infinity and NaN are kept as 0.0; their text says which. */
static double nonfinite_at(const pai__src *src, size_t off)
{
	const char *t = src->text + off;
	size_t n = src->len - off;

	if ((n > 1 && (t[1] == 'n' || t[1] == 'N')) ||
	    (n > 2 && (t[2] == 'n' || t[2] == 'N') && t[1] == '.'))
		return t[0] == '.' ? NAN : t[0] == '-' ? -INFINITY : INFINITY;
	return t[0] == '-' ? -INFINITY : INFINITY;
}

/* String(x) of one item of a sequence used as a key (Array's join). */
static void item_string(pai__buf *b, const pai__src *src, const json_t *v,
			const pai__pos *p)
{
	if (p->ykind == PAI__YK_NONFINITE) {
		pai__put_js_number(b, nonfinite_at(src, p->off));
	} else if (json_is_string(v)) {
		pai__buf_put(b, json_string_value(v), json_string_length(v));
	} else if (json_is_integer(v)) {
		pai__buf_printf(b, "%" JSON_INTEGER_FORMAT,
				json_integer_value(v));
	} else if (json_is_real(v)) {
		pai__put_js_number(b, json_real_value(v));
	} else if (json_is_boolean(v)) {
		pai__buf_puts(b, json_is_true(v) ? "true" : "false");
	} else if (json_is_object(v) && p->ykind == PAI__YK_PLAIN) {
		pai__buf_puts(b, "[object Object]");
	} /* null: nothing; a Date or a Buffer inside a key: nothing */
}

/* js-yaml's storeMappingPair turns any key into String(key). */
static int key_string(struct ystate *st, const struct yval *y, char **out,
		      size_t *len)
{
	pai__buf b = PAI__BUF_INIT;
	char nb[96];
	size_t i;

	if (y->pos.ykind == PAI__YK_DATE) {
		date_string(nb, sizeof(nb), y->num);
		pai__buf_puts(&b, nb);
	} else if (y->is_num || json_is_array(y->v) == 0) {
		if (y->is_num) {
			pai__put_js_number(&b, y->num);
		} else if (json_is_null(y->v)) {
			pai__buf_puts(&b, "null");
		} else {
			item_string(&b, st->src, y->v, &y->pos);
		}
	} else {
		for (i = 0; i < json_array_size(y->v); i++) {
			if (json_is_array(json_array_get(y->v, i))) {
				pai__buf_release(&b);
				return yerr(st, y->pos.child[i].off,
					    "yaml-bad-key",
					    "nested arrays are not supported "
					    "inside keys");
			}
			if (i)
				pai__buf_putc(&b, ',');
			item_string(&b, st->src, json_array_get(y->v, i),
				    &y->pos.child[i]);
		}
	}
	*len = b.len;
	*out = pai__buf_detach(&b);
	return *out ? PAI_OK : PAI_ENOMEM;
}

/* ---- the stack ------------------------------------------------------------ */

static int count_nodes(struct ystate *st, size_t n, size_t off)
{
	if (n <= MAX_NODES && st->nodes + n <= MAX_NODES) {
		st->nodes += n;
		return PAI_OK;
	}
	return yerr(st, off, "yaml-too-many-nodes",
		    "the document expands to more than %d nodes (aliases "
		    "counted at every use)",
		    MAX_NODES);
}

static int push_frame(struct ystate *st, int map, const char *tag,
		      const char *anchor, size_t off)
{
	struct frame *f;

	if (st->nfr >= MAX_DEPTH)
		return yerr(st, off, "yaml-too-deep",
			    "nesting deeper than %d levels", MAX_DEPTH);
	if (st->nfr == st->capfr) {
		size_t cap = st->capfr ? st->capfr * 2 : 16;

		f = realloc(st->fr, cap * sizeof(*f));
		if (!f)
			return PAI_ENOMEM;
		st->fr = f;
		st->capfr = cap;
	}
	f = &st->fr[st->nfr++];
	memset(f, 0, sizeof(*f));
	f->map = map;
	f->off = off;
	f->nodes = 1;
	f->tag = tag ? strdup(tag) : NULL;
	f->anchor = anchor ? strdup(anchor) : NULL;
	if (map)
		f->index = json_object();
	else
		f->arr = json_array();
	if ((tag && !f->tag) || (anchor && !f->anchor) ||
	    !(map ? f->index : f->arr))
		return PAI_ENOMEM;
	return count_nodes(st, 1, off);
}

static void frame_release(struct frame *f)
{
	size_t i;

	free(f->tag);
	free(f->anchor);
	json_decref(f->arr);
	pai__pos_release(&f->pos);
	for (i = 0; i < f->nents; i++) {
		free(f->ents[i].key);
		yval_release(&f->ents[i].val);
	}
	free(f->ents);
	json_decref(f->index);
	free(f->key);
}

static void take_height(struct frame *f, const struct yval *y)
{
	if (y->height > f->height)
		f->height = y->height;
	f->nodes += y->nodes;
}

/* Adds a member; takes key and *y (emptied) even when it fails. */
static int add_ent(struct frame *f, char *key, size_t klen, struct yval *y,
		   int overridable)
{
	struct ent *e;
	int err = PAI_ENOMEM;

	if (f->nents == f->capents) {
		size_t cap = f->capents ? f->capents * 2 : 8;

		e = realloc(f->ents, cap * sizeof(*e));
		if (!e)
			goto out;
		f->ents = e;
		f->capents = cap;
	}
	if (json_object_setn_new(f->index, key, klen,
				 json_integer((json_int_t)f->nents + 1)) < 0)
		goto out;
	take_height(f, y);
	e = &f->ents[f->nents++];
	e->key = key;
	e->klen = klen;
	e->val = *y;
	e->overridable = overridable;
	key = NULL;
	memset(y, 0, sizeof(*y));
	err = PAI_OK;
out:
	free(key);
	yval_release(y);
	return err;
}

/* ---- mappings: members, merges, order ---------------------------------- */

/* One source of a merge (js-yaml's mergeMappings): its keys that the
 * mapping does not have yet, overridable by explicit keys. */
static int merge_one(struct ystate *st, struct frame *f, json_t *v,
		     const pai__pos *p)
{
	struct yval y;
	char ib[32];
	const char *k;
	size_t i, klen;
	int err;

	if (p->ykind != PAI__YK_PLAIN)
		return PAI_OK; /* a Date has no own keys (a Buffer: ignored) */
	if (!json_is_object(v) && !json_is_array(v))
		return yerr(st, p->off, "yaml-bad-merge",
			    "cannot merge mappings: '<<' takes a mapping or a "
			    "list of mappings");
	for (i = 0; i < p->nchild; i++) {
		if (json_is_object(v)) {
			k = p->child[i].key;
			klen = strlen(k);
		} else {
			klen = (size_t)snprintf(ib, sizeof(ib), "%zu", i);
			k = ib;
		}
		if (json_object_getn(f->index, k, klen))
			continue;
		err = count_nodes(st, pos_count(&p->child[i]), p->child[i].off);
		if (err)
			return err;
		memset(&y, 0, sizeof(y));
		y.v = json_deep_copy(json_is_object(v)
					 ? json_object_getn(v, k, klen)
					 : json_array_get(v, i));
		if (!y.v || pos_copy(&y.pos, &p->child[i]) < 0) {
			yval_release(&y);
			return PAI_ENOMEM;
		}
		free(y.pos.key);
		y.pos.key = NULL;
		y.height = pos_height(&y.pos);
		err = add_ent(f, strndup(k, klen), klen, &y, 1);
		if (err)
			return err;
		if (!f->ents[f->nents - 1].key)
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* A key and its value: js-yaml's storeMappingPair. Takes *y. */
static int store_pair(struct ystate *st, struct frame *f, struct yval *y)
{
	json_t *ix;
	struct ent *e;
	unsigned line, col;
	size_t i;
	int err = PAI_OK;

	if (f->key_merge) {
		if (json_is_array(y->v) && y->pos.ykind == PAI__YK_PLAIN)
			for (i = 0; !err && i < y->pos.nchild; i++)
				err = merge_one(st, f,
						json_array_get(y->v, i),
						&y->pos.child[i]);
		else
			err = merge_one(st, f, y->v, &y->pos);
		goto out;
	}
	/* obj["__proto__"] = v sets the prototype: no own key appears */
	if (f->klen == 9 && memcmp(f->key, "__proto__", 10) == 0)
		goto out;
	y->pos.key_off = f->key_off;
	ix = json_object_getn(f->index, f->key, f->klen);
	if (!ix) {
		err = add_ent(f, f->key, f->klen, y, 0);
		f->key = NULL;
		return err;
	}
	e = &f->ents[json_integer_value(ix) - 1];
	if (!e->overridable) {
		pai__src_linecol(st->src, e->val.pos.key_off, &line, &col);
		err = yerr(st, f->key_off, "yaml-duplicate-key",
			   "duplicated mapping key '%.*s%s' (first at line %u)",
			   quote_len(f->key, f->klen), f->key,
			   (size_t)quote_len(f->key, f->klen) < f->klen ? "..."
									: "",
			   line);
		goto out;
	}
	take_height(f, y);
	yval_release(&e->val);
	e->val = *y;
	e->overridable = 0;
	memset(y, 0, sizeof(*y));
out:
	yval_release(y);
	return err;
}

/* Array indices ("0" to "4294967294", no leading zero) come first in a
 * JavaScript object, in numeric order; 0 when key is none. */
static int array_index(const struct ent *e, unsigned long long *v)
{
	size_t i;

	if (e->klen == 0 || e->klen > 10 || (e->key[0] == '0' && e->klen > 1))
		return 0;
	for (*v = 0, i = 0; i < e->klen; i++) {
		if (!is_dec((unsigned char)e->key[i]))
			return 0;
		*v = *v * 10 + (unsigned)(e->key[i] - '0');
	}
	return *v <= 4294967294ULL;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = *(const struct ent *const *)a;
	const struct ent *y = *(const struct ent *const *)b;
	unsigned long long u = 0, v = 0;
	int ix = array_index(x, &u), iy = array_index(y, &v);

	if (ix != iy)
		return iy - ix;
	if (ix && u != v)
		return u < v ? -1 : 1;
	return x < y ? -1 : x > y; /* else insertion order */
}

/* The finished object, its members in JavaScript's order. */
static int build_object(struct frame *f, struct yval *y)
{
	struct ent **order = NULL;
	size_t i;
	int err = PAI_ENOMEM;

	y->v = json_object();
	if (!y->v)
		goto out;
	if (!f->nents)
		return PAI_OK;
	order = malloc(f->nents * sizeof(*order));
	y->pos.child = calloc(f->nents, sizeof(*y->pos.child));
	if (!order || !y->pos.child)
		goto out;
	for (i = 0; i < f->nents; i++)
		order[i] = &f->ents[i];
	qsort(order, f->nents, sizeof(*order), ent_cmp);
	for (i = 0; i < f->nents; i++) {
		struct ent *e = order[i];

		if (json_object_setn_new(y->v, e->key, e->klen, e->val.v) < 0) {
			e->val.v = NULL;
			goto out;
		}
		e->val.v = NULL;
		y->pos.child[i] = e->val.pos;
		y->pos.child[i].key = e->key;
		memset(&e->val.pos, 0, sizeof(e->val.pos));
		e->key = NULL;
		y->pos.nchild++;
	}
	err = PAI_OK;
out:
	free(order);
	return err;
}

/* ---- sequences' tags ------------------------------------------------------ */

/* !!omap and !!pairs: a list of one-key mappings (omap: keys unique). */
static int pairs_ok(const json_t *a, const pai__pos *p, int omap)
{
	size_t i, j;

	for (i = 0; i < json_array_size(a); i++) {
		const json_t *m = json_array_get(a, i);

		if (!json_is_object(m) || p->child[i].ykind != PAI__YK_PLAIN ||
		    json_object_size(m) != 1)
			return 0;
		for (j = 0; omap && j < i; j++)
			if (strcmp(p->child[j].child[0].key,
				   p->child[i].child[0].key) == 0)
				return 0;
	}
	return 1;
}

/* !!pairs makes [[key, value], ...] of [{key: value}, ...]. */
static int to_pairs(struct yval *y)
{
	size_t i;

	for (i = 0; i < y->pos.nchild; i++) {
		pai__pos *c = &y->pos.child[i], *kv;
		json_t *m = json_array_get(y->v, i), *pair;
		const char *k = c->child[0].key;

		kv = calloc(2, sizeof(*kv));
		if (!kv)
			return PAI_ENOMEM;
		pair = json_pack("[sO]", k, json_object_get(m, k));
		if (!pair || json_array_set_new(y->v, i, pair) < 0) {
			free(kv);
			return PAI_ENOMEM;
		}
		kv[0].off = kv[0].key_off = c->child[0].key_off;
		kv[1] = c->child[0];
		free(kv[1].key);
		kv[1].key = NULL;
		kv[1].key_off = kv[1].off;
		free(c->child);
		c->child = kv;
		c->nchild = 2;
	}
	return PAI_OK;
}

/* An explicit tag on a collection, checked as js-yaml does once the
 * collection is complete. */
static int check_tag(struct ystate *st, struct frame *f, struct yval *y)
{
	const char *t = f->tag;
	char tb[64];
	int ok;

	if (!t || !strcmp(t, "!") || !strcmp(t, f->map ? TAG("map")
							: TAG("seq")))
		return PAI_OK;
	if (f->map && !strcmp(t, TAG("set"))) {
		const char *k;
		json_t *v;

		ok = 1;
		json_object_foreach(y->v, k, v) ok &= json_is_null(v);
		if (ok)
			return PAI_OK;
	} else if (!f->map &&
		   (!strcmp(t, TAG("omap")) || !strcmp(t, TAG("pairs")))) {
		if (pairs_ok(y->v, &y->pos, t[18] == 'o'))
			return t[18] == 'o' ? PAI_OK : to_pairs(y);
	} else {
		struct yval probe;

		memset(&probe, 0, sizeof(probe));
		if (explicit(&probe, t, NULL, 0) < 0)
			return yerr(st, f->off, "yaml-unknown-tag",
				    "unknown tag '%s': the server's YAML "
				    "loader knows only the standard !! tags",
				    short_tag(t, tb, sizeof(tb)));
		yval_release(&probe);
	}
	return yerr(st, f->off, "yaml-bad-tagged-value",
		    "this %s is not a valid %s",
		    f->map ? "mapping" : "sequence",
		    short_tag(t, tb, sizeof(tb)));
}

/* ---- anchors, aliases, and handing nodes up ------------------------------ */

static int add_anchor(struct ystate *st, const char *name,
		      const struct yval *y)
{
	struct anchor *a;

	if (st->nanch == st->capanch) {
		size_t cap = st->capanch ? st->capanch * 2 : 8;

		a = realloc(st->anch, cap * sizeof(*a));
		if (!a)
			return PAI_ENOMEM;
		st->anch = a;
		st->capanch = cap;
	}
	a = &st->anch[st->nanch];
	memset(a, 0, sizeof(*a));
	a->name = strdup(name);
	if (!a->name)
		return PAI_ENOMEM;
	st->nanch++;
	/* the value is shared (nothing changes it while loading); the
	 * positions are copied, as the tree's own move as it grows */
	a->val = *y;
	memset(&a->val.pos, 0, sizeof(a->val.pos));
	a->val.v = json_incref(y->v);
	if (pos_copy(&a->val.pos, &y->pos) < 0)
		return PAI_ENOMEM;
	/* a later anchor of the same name wins, as in js-yaml */
	if (json_object_set_new(st->anames, name,
				json_integer((json_int_t)st->nanch)) < 0)
		return PAI_ENOMEM;
	return PAI_OK;
}

static int alias(struct ystate *st, struct yval *y, const char *name,
		 size_t off)
{
	json_t *ix = json_object_get(st->anames, name);
	const struct anchor *a;
	int err;

	memset(y, 0, sizeof(*y));
	if (!ix)
		return yerr(st, off, "yaml-unknown-alias",
			    "unknown alias '*%.*s': no anchor '&%.*s' before it",
			    quote_len(name, strlen(name)), name,
			    quote_len(name, strlen(name)), name);
	a = &st->anch[json_integer_value(ix) - 1];
	if (st->nfr + a->val.height > MAX_DEPTH)
		return yerr(st, off, "yaml-too-deep",
			    "nesting deeper than %d levels (with the alias "
			    "'*%.*s' expanded)",
			    MAX_DEPTH, quote_len(name, strlen(name)), name);
	err = count_nodes(st, a->val.nodes, off);
	if (err)
		return err;
	if (yval_copy(y, &a->val) < 0)
		return PAI_ENOMEM;
	y->merge = 0; /* an alias is never the merge key */
	if (y->pos.ykind != PAI__YK_NONFINITE)
		y->pos.off = off;
	y->pos.key_off = y->pos.off;
	return PAI_OK;
}

/* Hands a finished node to its parent (or makes it the document).
 * Takes *y. */
static int deliver(struct ystate *st, struct yval *y)
{
	struct frame *f;
	pai__pos *c;
	int err;

	if (!st->nfr) {
		st->root = *y;
		st->have_root = 1;
		return PAI_OK;
	}
	f = &st->fr[st->nfr - 1];
	if (f->map && !f->have_key) {
		err = key_string(st, y, &f->key, &f->klen);
		f->key_off = y->pos.off;
		f->key_merge = y->merge;
		f->have_key = !err;
		yval_release(y);
		return err;
	}
	if (f->map) {
		f->have_key = 0;
		err = store_pair(st, f, y);
		free(f->key);
		f->key = NULL;
		return err;
	}
	if (f->pos.nchild == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;

		c = realloc(f->pos.child, cap * sizeof(*c));
		if (!c) {
			yval_release(y);
			return PAI_ENOMEM;
		}
		f->pos.child = c;
		f->cap = cap;
	}
	if (json_array_append_new(f->arr, y->v) < 0) {
		y->v = NULL;
		yval_release(y);
		return PAI_ENOMEM;
	}
	take_height(f, y);
	c = &f->pos.child[f->pos.nchild++];
	*c = y->pos;
	c->key_off = c->off;
	return PAI_OK;
}

/* The end of the innermost collection. */
static int end_collection(struct ystate *st)
{
	struct frame *f = &st->fr[st->nfr - 1];
	struct yval y;
	int err;

	memset(&y, 0, sizeof(y));
	if (f->map) {
		err = build_object(f, &y);
	} else {
		y.v = f->arr;
		y.pos = f->pos;
		f->arr = NULL;
		memset(&f->pos, 0, sizeof(f->pos));
		err = PAI_OK;
	}
	y.pos.off = y.pos.key_off = f->off;
	y.nodes = f->nodes;
	y.height = f->height + 1;
	if (!err)
		err = check_tag(st, f, &y);
	if (!err && f->anchor)
		err = add_anchor(st, f->anchor, &y);
	frame_release(f);
	st->nfr--;
	if (err) {
		yval_release(&y);
		return err;
	}
	return deliver(st, &y);
}

/* ---- events ----------------------------------------------------------------- */

static int on_event(struct ystate *st, yaml_event_t *ev)
{
	size_t off = mark_off(st, ev->start_mark.index);
	const char *tag = NULL, *anchor = NULL;
	struct yval y;
	int err;

	memset(&y, 0, sizeof(y));
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (st->docs++)
			return yerr(st, off, "yaml-multiple-documents",
				    "a second document: the server takes "
				    "exactly one YAML document");
		return PAI_OK;
	case YAML_ALIAS_EVENT:
		err = alias(st, &y, (const char *)ev->data.alias.anchor, off);
		break;
	case YAML_SCALAR_EVENT:
		anchor = (const char *)ev->data.scalar.anchor;
		if (anchor || ev->data.scalar.tag)
			off = skip_props(st->src, off);
		err = count_nodes(st, 1, off);
		if (!err)
			err = scalar(st, &y, ev, off);
		if (!err && anchor)
			err = add_anchor(st, anchor, &y);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			tag = (const char *)ev->data.sequence_start.tag;
			anchor = (const char *)ev->data.sequence_start.anchor;
		} else {
			tag = (const char *)ev->data.mapping_start.tag;
			anchor = (const char *)ev->data.mapping_start.anchor;
		}
		if (anchor || tag)
			off = skip_props(st->src, off);
		return push_frame(st, ev->type == YAML_MAPPING_START_EVENT, tag,
				  anchor, off);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return end_collection(st);
	default:
		return PAI_OK;
	}
	if (err) {
		yval_release(&y);
		return err;
	}
	return deliver(st, &y);
}

/* libyaml's complaint, with its place and a rule id that says what. */
static int parse_error(struct ystate *st, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "invalid YAML";
	const char *rule = "yaml-syntax";
	unsigned line = 0, col;
	size_t off;

	if (p->error == YAML_MEMORY_ERROR)
		return PAI_ENOMEM;
	if (p->error == YAML_READER_ERROR)
		off = st->base + p->problem_offset;
	else
		off = mark_off(st, p->problem_mark.index);
	/* a tab where the indentation is: libyaml says only that it
	 * cannot start a token */
	if (strstr(problem, "tab") ||
	    (off < st->src->len && st->src->text[off] == '\t'))
		rule = "yaml-tab-indent";
	else if (strstr(problem, "incompatible YAML document") ||
		 strstr(problem, "%YAML") || strstr(problem, "%TAG"))
		rule = "yaml-directive";
	if (p->error == YAML_READER_ERROR && off < st->src->len)
		return yerr(st, off, rule, "%s (byte 0x%02X)", problem,
			    (unsigned char)st->src->text[off]);
	if (p->context && p->error != YAML_READER_ERROR)
		pai__src_linecol(st->src,
				 mark_off(st, p->context_mark.index), &line,
				 &col);
	if (!strcmp(rule, "yaml-tab-indent"))
		return yerr(st, off, rule,
			    "a tab character in the indentation: YAML "
			    "indents with spaces only");
	if (strstr(problem, "incompatible YAML document"))
		return yerr(st, off, rule,
			    "unsupported %%YAML version: the server reads "
			    "YAML 1.x only");
	if (line)
		return yerr(st, off, rule, "%s (%s at line %u)", problem,
			    p->context, line);
	return yerr(st, off, rule, "%s", problem);
}

static void state_release(struct ystate *st)
{
	size_t i;

	while (st->nfr)
		frame_release(&st->fr[--st->nfr]);
	free(st->fr);
	for (i = 0; i < st->nanch; i++) {
		free(st->anch[i].name);
		yval_release(&st->anch[i].val);
	}
	free(st->anch);
	json_decref(st->anames);
	if (st->have_root)
		yval_release(&st->root);
}

/* The server drops a byte order mark twice: iconv-lite, then js-yaml. */
static size_t bom_len(const char *t, size_t len)
{
	size_t n = 0;

	while (n < 6 && len - n >= 3 && memcmp(t + n, "\xEF\xBB\xBF", 3) == 0)
		n += 3;
	return n;
}

int pai__yaml_parse(json_t **root, pai__pos *pos, pai__src *src,
		    pai_diags *diags)
{
	struct ystate st;
	yaml_parser_t parser;
	yaml_event_t ev;
	int err = PAI_ENOMEM, done = 0, inited = 0;

	*root = NULL;
	memset(pos, 0, sizeof(*pos));
	memset(&st, 0, sizeof(st));
	st.src = src;
	st.diags = diags;
	st.base = bom_len(src->text, src->len);
	st.in = src->text + st.base;
	st.inlen = src->len - st.base;
	st.anames = json_object();
	if (!st.anames || !yaml_parser_initialize(&parser))
		goto out;
	inited = 1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)st.in,
				     st.inlen);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			err = parse_error(&st, &parser);
			goto out;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		err = on_event(&st, &ev);
		yaml_event_delete(&ev);
		if (err)
			goto out;
	}
	err = PAI_ENOMEM;
	if (!st.have_root) { /* no document, or only comments */
		*root = json_null();
		pos->off = pos->key_off = st.base;
		err = PAI_OK;
		goto out;
	}
	*root = st.root.v;
	*pos = st.root.pos;
	memset(&st.root, 0, sizeof(st.root));
	err = PAI_OK;
out:
	if (inited)
		yaml_parser_delete(&parser);
	state_release(&st);
	return err;
}

/* ---- the text ------------------------------------------------------------ */

int pai__src_init_yaml(pai__src *src, pai_diags *diags, const char *name,
		       const char *text, size_t len)
{
	const unsigned char *t;
	size_t i = 0, k;

	memset(src, 0, sizeof(*src));
	src->name = name;
	src->orig = text;
	src->len = len;
	/* a terminating NUL, which the caller's buffer need not have */
	src->text = malloc(len + 1);
	if (!src->text)
		return PAI_ENOMEM;
	memcpy(src->text, text, len);
	src->text[len] = '\0';
	src->owned = 1;
	t = (const unsigned char *)src->text;
	while (i < len) {
		if (t[i] >= 0x01 && t[i] < 0x80) {
			i++;
			continue;
		}
		if (t[i] == 0) {
			if (pai__diag_add(diags, src, i, PAI_SEVERITY_ERROR, "",
					  "nul-byte",
					  "NUL byte in the file: a job config "
					  "is UTF-8 text"))
				return PAI_ENOMEM;
			return PAI_ESYNTAX;
		}
		k = pai__utf8_len(t + i, len - i);
		if (!k) {
			if (pai__diag_add(diags, src, i, PAI_SEVERITY_ERROR, "",
					  "invalid-utf8",
					  "invalid UTF-8 byte 0x%02X: a job "
					  "config is UTF-8 text",
					  t[i]))
				return PAI_ENOMEM;
			return PAI_ESYNTAX;
		}
		i += k;
	}
	return PAI_OK;
}
