/* json_fast.c - the fast path of pai__src_parse(): valid JSON straight
 * into jansson values and the position tree, in one pass.
 *
 * jansson's loader reads a byte at a time through a callback and copies
 * every token into a growing buffer; on a large config that is most of
 * `paictl validate`'s time, and the position walk of json.c then reads
 * the text a second time. This parser takes only what it can be sure
 * jansson would take, with the same result (JSON_REJECT_DUPLICATES |
 * JSON_DECODE_ANY): anything else (an error of any kind, a number it
 * cannot convert exactly, a \u0000, deep nesting) makes it give up, and
 * jansson parses the text and reports what is wrong in its own words.
 * tests/fuzz/fuzz_job.c compares the two on every input it makes. */
#include "text.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool pai__json_fast = true;

enum { JP_OK = PAI_OK, JP_GIVE_UP = 1, JP_OOM = PAI_ENOMEM };

/* Deeper nesting goes to jansson, whose limit is 2048. */
#define JP_MAX_DEPTH 256

/* Slots of the table of distinct keys (a power of two). */
#define JP_KEYS 256

/* ---- the parser --------------------------------------------------------- */

struct jp {
	const char *t;
	size_t len, i;
	bool comments;	 /* comments and a leading byte order mark are blanks */
	bool values;	 /* jansson values are made (else *out stays NULL) */
	bool tree;	 /* the position tree is made */
	bool lean;	 /* the root's taskRoles get no values: see
			  * pai__json_fast_lean() */
	pai__pos *stack; /* the children of the open containers */
	size_t nstack, capstack;
	char *s; /* a string with escapes, decoded */
	size_t cap;
	unsigned depth;
	struct pai__arena *arena; /* the tree's nodes and keys */
	/* Each distinct key once in the arena, its members pointing at that
	 * copy: a config repeats the same few keys in every role, and a
	 * copy each was a third of the tree. Up to JP_KEYS / 2 of them;
	 * keys past those get copies of their own. */
	struct jp_key {
		const char *s; /* in the arena, NUL-terminated */
		size_t n;
	} keys[JP_KEYS];
	size_t nkeys;
};

static int jp_value(struct jp *p, pai__pos *node, json_t **out);

/* Whether a comment's text t[from, to) is what pai__src_init() takes:
 * UTF-8 with no NUL byte. The parser reads the caller's text as it is,
 * without that pass: what it would refuse is given up on here, and the
 * slow path says so. */
static bool jp_comment_ok(const struct jp *p, size_t from, size_t to)
{
	const unsigned char *t = (const unsigned char *)p->t;
	size_t k;

	while (from < to) {
		if (t[from] == 0)
			return false;
		if (t[from] < 0x80) {
			from++;
			continue;
		}
		k = pai__utf8_len(t + from, p->len - from);
		if (!k)
			return false;
		from += k;
	}
	return true;
}

/* Past blanks, and past comments when they are allowed (an unclosed
 * one, or one that is not UTF-8 text, is left where it starts, for the
 * slow path to refuse). */
static void jp_ws(struct jp *p)
{
	static const bool blank[256] = {[' '] = 1, ['\n'] = 1, ['\t'] = 1,
					['\r'] = 1};
	const char *t = p->t, *e;
	size_t end, i;

	for (;;) {
		/* a local index: a store to p->i could be to the text, for
		 * all the compiler knows */
		for (i = p->i; i < p->len && blank[(unsigned char)t[i]]; i++)
			;
		p->i = i;
		if (!p->comments || p->i + 1 >= p->len || t[p->i] != '/')
			return;
		if (t[p->i + 1] == '/') {
			e = memchr(t + p->i, '\n', p->len - p->i);
			end = e ? (size_t)(e - t) : p->len;
		} else if (t[p->i + 1] == '*') {
			e = p->i + 2 < p->len
				? memmem(t + p->i + 2, p->len - p->i - 2, "*/",
					 2)
				: NULL;
			if (!e)
				return;
			end = (size_t)(e - t) + 2;
		} else {
			return;
		}
		if (!jp_comment_ok(p, p->i + 2, end))
			return;
		p->i = end;
	}
}

static int jp_hex4(const char *s, size_t avail, unsigned *v)
{
	size_t k;
	int h;

	*v = 0;
	if (avail < 4)
		return -1;
	for (k = 0; k < 4; k++) {
		if ((h = pai__hexval((unsigned char)s[k])) < 0)
			return -1;
		*v = *v << 4 | (unsigned)h;
	}
	return 0;
}

/* One escape at t[i] (its backslash) into o: the bytes written, with *i
 * past it; 0 for what jansson refuses (and \u0000, which it refuses
 * without JSON_ALLOW_NUL). */
static size_t jp_escape(struct jp *p, size_t *i, char *o)
{
	const char *t = p->t;
	unsigned cp, lo;

	if (*i + 1 >= p->len)
		return 0;
	switch (t[*i + 1]) {
	case '"':
	case '\\':
	case '/': o[0] = t[*i + 1]; break;
	case 'b': o[0] = '\b'; break;
	case 'f': o[0] = '\f'; break;
	case 'n': o[0] = '\n'; break;
	case 'r': o[0] = '\r'; break;
	case 't': o[0] = '\t'; break;
	case 'u':
		if (jp_hex4(t + *i + 2, p->len - *i - 2, &cp) < 0 || cp == 0 ||
		    (cp >= 0xDC00 && cp <= 0xDFFF))
			return 0;
		*i += 6;
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			if (*i + 6 > p->len || t[*i] != '\\' ||
			    t[*i + 1] != 'u' ||
			    jp_hex4(t + *i + 2, p->len - *i - 2, &lo) < 0 ||
			    lo < 0xDC00 || lo > 0xDFFF)
				return 0;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			*i += 6;
		}
		return pai__utf8_encode(o, cp);
	default: return 0;
	}
	*i += 2;
	return 1;
}

/* The string literal at t[p->i]: *s and *n its decoded bytes (in the
 * text itself when it has no escape, else in p->s until the next
 * string). */
/* Whether any of the 8 bytes of v is a quote, a backslash, a control
 * character or not ASCII: what ends a plain run of a string. */
static bool jp_special8(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
	uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');

	return ((v & high) | ((v - ones * 0x20) & ~v & high) |
		((q - ones) & ~q & high) | ((b - ones) & ~b & high)) != 0;
}

/* The rest of a string literal with escapes, from the first at i (the
 * text before it, from start, is plain): decoded into p->s. */
static int jp_string_escaped(struct jp *p, size_t start, size_t i,
			     const char **s, size_t *n)
{
	const char *t = p->t;
	size_t k, o;

	/* decoding never makes a string longer than its literal */
	if (p->len - start > p->cap) {
		char *b = realloc(p->s, p->len - start);

		if (!b)
			return JP_OOM;
		p->s = b;
		p->cap = p->len - start;
	}
	memcpy(p->s, t + start, i - start);
	o = i - start;
	for (;;) {
		size_t run = i;
		unsigned char c;
		uint64_t v;

		/* a plain run, copied at once (a long command has an
		 * escape every few bytes, but runs between them) */
		while (i + 8 <= p->len) {
			memcpy(&v, t + i, 8);
			if (jp_special8(v))
				break;
			i += 8;
		}
		while (i < p->len && (c = (unsigned char)t[i]) >= 0x20 &&
		       c < 0x80 && c != '"' && c != '\\')
			i++;
		memcpy(p->s + o, t + run, i - run);
		o += i - run;
		if (i >= p->len)
			return JP_GIVE_UP;
		c = (unsigned char)t[i];
		if (c == '"')
			break;
		if (c == '\\') {
			k = jp_escape(p, &i, p->s + o);
			if (!k)
				return JP_GIVE_UP;
			o += k;
			continue;
		}
		if (c < 0x20)
			return JP_GIVE_UP;
		k = pai__utf8_len((const unsigned char *)t + i, p->len - i);
		if (!k)
			return JP_GIVE_UP;
		memcpy(p->s + o, t + i, k);
		o += k;
		i += k;
	}
	*s = p->s;
	*n = o;
	p->i = i + 1;
	return JP_OK;
}

static int jp_string(struct jp *p, const char **s, size_t *n)
{
	const char *t = p->t;
	size_t i = p->i + 1, start = i, k;

	for (;;) {
		unsigned char c;
		uint64_t v;

		/* plain ASCII eight bytes at a time: most of a command */
		while (i + 8 <= p->len) {
			memcpy(&v, t + i, 8);
			if (jp_special8(v))
				break;
			i += 8;
		}

		if (i >= p->len)
			return JP_GIVE_UP;
		c = (unsigned char)t[i];
		if (c == '"') {
			*s = t + start;
			*n = i - start;
			p->i = i + 1;
			return JP_OK;
		}
		if (c == '\\')
			return jp_string_escaped(p, start, i, s, n);
		if (c < 0x20)
			return JP_GIVE_UP;
		if (c < 0x80) {
			i++;
			continue;
		}
		k = pai__utf8_len((const unsigned char *)t + i, p->len - i);
		if (!k)
			return JP_GIVE_UP;
		i += k;
	}
}

static bool jp_digit(const struct jp *p, size_t i)
{
	return i < p->len && p->t[i] >= '0' && p->t[i] <= '9';
}

/* A real whose value is exactly m * 10^e10 rounded once: m below 2^53
 * and a power of ten that a double holds exactly (Clinger's fast path).
 * Others go to jansson's strtod. */
static int jp_real(double *v, uint64_t m, int e10, bool neg)
{
	static const double pow10[] = {1e0,  1e1,  1e2,	 1e3,  1e4,  1e5,
				       1e6,  1e7,  1e8,	 1e9,  1e10, 1e11,
				       1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
				       1e18, 1e19, 1e20, 1e21, 1e22};
	double d = (double)m;

	if (m >= (1ULL << 53) || e10 < -22 || e10 > 22)
		return JP_GIVE_UP;
	d = e10 < 0 ? d / pow10[-e10] : d * pow10[e10];
	*v = neg ? -d : d;
	return JP_OK;
}

/* A number as jansson reads it: an integer when it has no fraction and
 * no exponent (json_int_t, strtoll), else a real. */
static int jp_number(struct jp *p, json_t **out)
{
	size_t i = p->i, sig = 0;
	bool neg = false, real = false, seen = false;
	uint64_t m = 0;
	int e10 = 0, ex = 0, esign = 1, edigits = 0;
	double d = 0;

	if (p->t[i] == '-') {
		neg = true;
		i++;
	}
	if (!jp_digit(p, i) || (p->t[i] == '0' && jp_digit(p, i + 1)))
		return JP_GIVE_UP;
	for (; jp_digit(p, i); i++) {
		seen = seen || p->t[i] != '0';
		if (seen && ++sig <= 18)
			m = m * 10 + (uint64_t)(p->t[i] - '0');
	}
	if (i < p->len && p->t[i] == '.') {
		real = true;
		if (!jp_digit(p, ++i))
			return JP_GIVE_UP;
		for (; jp_digit(p, i); i++, e10--) {
			seen = seen || p->t[i] != '0';
			if (seen && ++sig <= 18)
				m = m * 10 + (uint64_t)(p->t[i] - '0');
		}
	}
	if (i < p->len && (p->t[i] == 'e' || p->t[i] == 'E')) {
		real = true;
		i++;
		if (i < p->len && (p->t[i] == '+' || p->t[i] == '-'))
			esign = p->t[i++] == '-' ? -1 : 1;
		if (!jp_digit(p, i))
			return JP_GIVE_UP;
		for (; jp_digit(p, i); i++)
			if (++edigits <= 4)
				ex = ex * 10 + (p->t[i] - '0');
	}
	if (sig > 18 || edigits > 4)
		return JP_GIVE_UP;
	p->i = i;
	if (real && jp_real(&d, m, e10 + esign * ex, neg))
		return JP_GIVE_UP;
	if (!p->values)
		return JP_OK;
	*out = real ? json_real(d)
		    : json_integer(neg ? -(json_int_t)m : (json_int_t)m);
	return *out ? JP_OK : JP_OOM;
}

/* Room for one more child on the stack (none is kept without a tree). */
static int jp_push(struct jp *p, const pai__pos *c)
{
	if (!p->tree)
		return JP_OK;
	if (p->nstack == p->capstack) {
		size_t cap = p->capstack ? p->capstack * 2 : 64;
		pai__pos *s = realloc(p->stack, cap * sizeof(*s));

		if (!s)
			return JP_OOM;
		p->stack = s;
		p->capstack = cap;
	}
	p->stack[p->nstack++] = *c;
	return JP_OK;
}

/* Pops the children from base on: into node, exactly sized, when err is
 * JP_OK (on failure, the arena holds whatever they had). */
static int jp_pop(struct jp *p, size_t base, pai__pos *node, int err)
{
	size_t n = p->nstack - base;

	if (!err && n > UINT32_MAX)
		err = JP_GIVE_UP; /* more than a node holds: json.c says */
	if (!err && n) {
		node->child =
		    pai__arena_alloc(&p->arena, n * sizeof(*node->child));
		if (node->child) {
			memcpy(node->child, p->stack + base,
			       n * sizeof(*node->child));
			node->nchild = (uint32_t)n;
		} else {
			err = JP_OOM;
		}
	}
	p->nstack = base;
	return err;
}

/* The arena's copy of key k[0..n), NUL-terminated: the one copy of it
 * when the table has room, else a copy of its own. NULL: no memory. */
static char *jp_key(struct jp *p, const char *k, size_t n)
{
	size_t h = 2166136261u, i;
	char *c;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	for (h &= JP_KEYS - 1; p->keys[h].s; h = (h + 1) & (JP_KEYS - 1))
		if (p->keys[h].n == n && memcmp(p->keys[h].s, k, n) == 0)
			return (char *)p->keys[h].s;
	c = pai__arena_alloc(&p->arena, n + 1);
	if (!c)
		return NULL;
	memcpy(c, k, n);
	c[n] = '\0';
	if (p->nkeys < JP_KEYS / 2) {
		p->keys[h].s = c;
		p->keys[h].n = n;
		p->nkeys++;
	}
	return c;
}

static int jp_key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether two of the members on the stack from base on have one key
 * (what jansson's set tells where values are made): each pair compared
 * in a small object, a sorted copy of the keys in a large one. */
static int jp_dups(struct jp *p, size_t base)
{
	size_t n = p->nstack - base, i, j;
	const char **k;
	int err = JP_OK;

	if (n <= 16) {
		for (i = base; i < p->nstack; i++)
			for (j = i + 1; j < p->nstack; j++)
				if (strcmp(p->stack[i].key, p->stack[j].key) ==
				    0)
					return JP_GIVE_UP;
		return JP_OK;
	}
	if (!(k = malloc(n * sizeof(*k))))
		return JP_OOM;
	for (i = 0; i < n; i++)
		k[i] = p->stack[base + i].key;
	qsort(k, n, sizeof(*k), jp_key_cmp);
	for (i = 1; i < n && !err; i++)
		if (strcmp(k[i - 1], k[i]) == 0)
			err = JP_GIVE_UP;
	free(k);
	return err;
}

/* The value of the member being read into obj (on its ':'): its
 * elements' values left out when it is the root's taskRoles array and
 * the parse is lean (an empty array stands for it). */
static int jp_member_value(struct jp *p, pai__pos *c, const char *k, size_t n,
			   json_t **v)
{
	int err;

	jp_ws(p);
	if (!p->lean || !p->values || p->depth != 1 || n != 9 ||
	    memcmp(k, "taskRoles", 9) != 0 || p->i >= p->len ||
	    p->t[p->i] != '[')
		return jp_value(p, c, v);
	p->values = false;
	err = jp_value(p, c, v);
	p->values = true;
	if (!err && !(*v = json_array()))
		err = JP_OOM;
	return err;
}

/* One "key": value member of the object obj at t[p->i] (obj NULL when
 * no values are made). */
static int jp_member(struct jp *p, json_t *obj)
{
	pai__pos c;
	const char *k;
	size_t n, had;
	json_t *v = NULL;
	int err;

	memset(&c, 0, sizeof(c));
	if (p->i >= p->len || p->t[p->i] != '"')
		return JP_GIVE_UP;
	c.key_off = p->i;
	err = jp_string(p, &k, &n);
	if (err)
		return err;
	/* the tree's keys are the arena's; so is an escaped one (decoded
	 * into p->s, which the value's strings reuse) */
	if ((p->tree || k == p->s) && !(k = c.key = jp_key(p, k, n)))
		return JP_OOM;
	if (!p->tree)
		c.key = NULL;
	jp_ws(p);
	if (p->i >= p->len || p->t[p->i] != ':')
		return JP_GIVE_UP;
	p->i++;
	err = jp_member_value(p, &c, k, n, &v);
	if (!err && obj) {
		had = json_object_size(obj);
		if (json_object_setn_new_nocheck(obj, k, n, v) < 0)
			err = JP_OOM;
		/* a duplicate key replaced the first one's value, leaving
		 * the size as it was (one lookup, not a lookup before the
		 * set): jansson says what is wrong */
		else if (json_object_size(obj) == had)
			err = JP_GIVE_UP;
	}
	if (!err)
		err = jp_push(p, &c);
	return err;
}

/* One element of the array arr at t[p->i] (arr NULL: no values). */
static int jp_element(struct jp *p, json_t *arr)
{
	pai__pos e;
	json_t *v = NULL;
	int err;

	memset(&e, 0, sizeof(e));
	err = jp_value(p, &e, &v);
	e.key_off = e.off;
	if (!err && arr && json_array_append_new(arr, v) < 0)
		err = JP_OOM;
	if (!err)
		err = jp_push(p, &e);
	return err;
}

/* The object or array at t[p->i]: its members or elements, separated by
 * commas, up to the closing bracket. */
static int jp_container(struct jp *p, pai__pos *node, json_t **out)
{
	bool is_obj = p->t[p->i] == '{';
	char close = is_obj ? '}' : ']';
	size_t base = p->nstack;
	json_t *c = !p->values ? NULL : is_obj ? json_object() : json_array();
	int err = c || !p->values ? JP_OK : JP_OOM;

	if (++p->depth > JP_MAX_DEPTH)
		err = JP_GIVE_UP;
	p->i++;
	jp_ws(p);
	if (!err && p->i < p->len && p->t[p->i] == close) {
		p->i++;
		goto out;
	}
	while (!err) {
		jp_ws(p);
		err = is_obj ? jp_member(p, c) : jp_element(p, c);
		if (err)
			break;
		jp_ws(p);
		if (p->i < p->len && p->t[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->len && p->t[p->i] == close)
			p->i++;
		else
			err = JP_GIVE_UP;
		break;
	}
	/* with no values, no jansson has looked at the keys */
	if (!err && is_obj && !p->values && p->tree)
		err = jp_dups(p, base);
out:
	p->depth--;
	err = p->tree ? jp_pop(p, base, node, err) : err;
	if (err)
		json_decref(c);
	else
		*out = c;
	return err;
}

static int jp_literal(struct jp *p, const char *word, json_t *v, json_t **out)
{
	size_t n = strlen(word);

	if (p->len - p->i < n || memcmp(p->t + p->i, word, n) != 0)
		return JP_GIVE_UP;
	p->i += n;
	*out = p->values ? v : NULL;
	return JP_OK;
}

/* The value at t[p->i] (after blanks) into *out, its place into node. */
static int jp_value(struct jp *p, pai__pos *node, json_t **out)
{
	const char *s;
	size_t n;
	int err;

	jp_ws(p);
	node->off = p->i;
	if (p->i >= p->len)
		return JP_GIVE_UP;
	switch (p->t[p->i]) {
	case '{':
	case '[': return jp_container(p, node, out);
	case '"':
		err = jp_string(p, &s, &n);
		if (err || !p->values)
			return err;
		*out = json_stringn_nocheck(s, n);
		return *out ? JP_OK : JP_OOM;
	case 't': return jp_literal(p, "true", json_true(), out);
	case 'f': return jp_literal(p, "false", json_false(), out);
	case 'n': return jp_literal(p, "null", json_null(), out);
	default: return jp_number(p, out);
	}
}

/* The text's one value, made as p says. */
static int jp_run(struct jp *p, json_t **root, pai__pos *pos)
{
	json_t *j = NULL;
	int err;

	*root = NULL;
	memset(pos, 0, sizeof(*pos));
	/* pai__src_init() takes a byte order mark as blanks */
	if (p->comments && p->len >= 3 && memcmp(p->t, "\xEF\xBB\xBF", 3) == 0)
		p->i = 3;
	err = jp_value(p, pos, &j);
	pos->key_off = pos->off;
	jp_ws(p);
	if (!err && p->i != p->len)
		err = JP_GIVE_UP; /* more after the value */
	free(p->stack);
	free(p->s);
	if (err) {
		json_decref(j);
		pai__arena_free(p->arena);
		p->arena = NULL;
		memset(pos, 0, sizeof(*pos));
		return err;
	}
	*root = j;
	return JP_OK;
}

static void jp_init(struct jp *p, const char *text, size_t len, bool comments)
{
	memset(p, 0, sizeof(*p));
	p->t = text;
	p->len = len;
	p->comments = comments;
	p->values = p->tree = true;
}

int pai__json_fast_parse(json_t **root, pai__pos *pos,
			 struct pai__arena **arena, const char *text,
			 size_t len, bool comments)
{
	struct jp p;
	int err;

	jp_init(&p, text, len, comments);
	err = jp_run(&p, root, pos);
	if (!err) {
		pos->arena = 1;
		*arena = p.arena;
	}
	return err;
}

int pai__json_fast_lean(json_t **root, pai__pos *pos,
			struct pai__arena **arena, const char *text,
			size_t len, bool comments)
{
	struct jp p;
	int err;

	jp_init(&p, text, len, comments);
	p.lean = true;
	err = jp_run(&p, root, pos);
	if (!err) {
		pos->arena = 1;
		*arena = p.arena;
	}
	return err;
}

/* ---- values from their places ---------------------------------------- */

static int jp_build(struct jp *p, const pai__pos *at, json_t **out);

/* The members or elements of the container at at into c. */
static int jp_build_children(struct jp *p, const pai__pos *at, json_t *c)
{
	json_t *v;
	size_t i;

	for (i = 0; i < at->nchild; i++) {
		const pai__pos *k = &at->child[i];
		int err = jp_build(p, k, &v);

		if (err)
			return err;
		if ((json_is_object(c)
			 ? json_object_set_new_nocheck(c, k->key, v)
			 : json_array_append_new(c, v)) < 0)
			return JP_OOM;
	}
	return JP_OK;
}

/* The value whose places are at: read where it stands, its structure
 * from the tree (no blank, comment or bracket read again). */
static int jp_build(struct jp *p, const pai__pos *at, json_t **out)
{
	const char *s;
	size_t n;
	int err;

	*out = NULL;
	p->i = at->off;
	switch (p->t[p->i]) {
	case '{':
	case '[':
		*out = p->t[p->i] == '{' ? json_object() : json_array();
		err = *out ? jp_build_children(p, at, *out) : JP_OOM;
		if (err) {
			json_decref(*out);
			*out = NULL;
		}
		return err;
	case '"':
		err = jp_string(p, &s, &n);
		if (!err && !(*out = json_stringn_nocheck(s, n)))
			err = JP_OOM;
		return err;
	case 't': *out = json_true(); return JP_OK;
	case 'f': *out = json_false(); return JP_OK;
	case 'n': *out = json_null(); return JP_OK;
	default: return jp_number(p, out);
	}
}

int pai__json_fast_value(json_t **out, const char *text, size_t len,
			 const pai__pos *at)
{
	struct jp p;
	int err;

	jp_init(&p, text, len, false);
	err = jp_build(&p, at, out);
	free(p.s);
	return err;
}
