/* template.c - mustache 2.3.2's parser with the tags "<%" "%>", and the
 * rest-server's render of a role's commands with it
 *
 * The v1.8.0 rest-server (middlewares/v2/protocol.js) calls
 * mustache.parse(text, ["<%", "%>"]) and walks the top-level tokens only:
 * text is copied, a name tag is looked up and, when nothing defines it,
 * put back as "<% name %>"; sections (and whatever they hold), comments,
 * partials and unescaped tags are dropped; the result is trimmed. So what
 * decides acceptance is whether mustache's parseTemplate() throws, and
 * what decides the output is its tokens, including the "standalone line"
 * whitespace it deletes. Both are redone here on bytes: the delimiters
 * are ASCII and the text is valid UTF-8 (the loader checks), so byte
 * offsets stand in for JavaScript's UTF-16 ones. JavaScript's \s (which
 * mustache's regular expressions use) includes some non-ASCII spaces. */
#include "job.h"

#include <stdlib.h>
#include <string.h>

/* Length of the JavaScript \s character at s (n bytes left), or 0. */
static size_t ws_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!n)
		return 0;
	if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
		return 1;
	if (n >= 2 && u[0] == 0xC2 && u[1] == 0xA0)
		return 2; /* U+00A0 */
	if (n < 3)
		return 0;
	if (u[0] == 0xE1 && u[1] == 0x9A && u[2] == 0x80)
		return 3; /* U+1680 */
	if (u[0] == 0xE2 && u[1] == 0x80 &&
	    (u[2] <= 0x8A || u[2] == 0xA8 || u[2] == 0xA9 || u[2] == 0xAF))
		return 3; /* U+2000-200A, U+2028, U+2029, U+202F */
	if (u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F)
		return 3; /* U+205F */
	if (u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80)
		return 3; /* U+3000 */
	if (u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF)
		return 3; /* U+FEFF */
	return 0;
}

/* ---- the scanner ------------------------------------------------------ */

struct scan {
	const char *t;
	size_t len, pos;
	/* the current delimiters (a set-delimiters tag changes them) */
	const char *open, *close;
	size_t nopen, nclose;
};

static bool at(const struct scan *s, size_t i, const char *w, size_t n)
{
	return i <= s->len && s->len - i >= n && memcmp(s->t + i, w, n) == 0;
}

static void skip_ws(struct scan *s)
{
	size_t k;

	while ((k = ws_len(s->t + s->pos, s->len - s->pos)))
		s->pos += k;
}

/* Where the regular expression \s*W (\s*\}W when curly) first matches
 * from pos on: the whitespace run just before the first W (W never
 * starts with whitespace). s->len when there is none. */
static size_t find_ws_then(const struct scan *s, bool curly, const char *w,
			   size_t n)
{
	size_t i = s->pos, run = PAI__NO_OFFSET, k;

	while (i < s->len) {
		if (curly ? s->t[i] == '}' && at(s, i + 1, w, n)
			  : at(s, i, w, n))
			return run != PAI__NO_OFFSET ? run : i;
		k = ws_len(s->t + i, s->len - i);
		if (k) {
			if (run == PAI__NO_OFFSET)
				run = i;
			i += k;
		} else {
			run = PAI__NO_OFFSET;
			i++;
		}
	}
	return s->len;
}

/* scanner.scan(/\s*W/): consumes it when it matches at pos. */
static bool eat_ws_then(struct scan *s, const char *w, size_t n)
{
	size_t save = s->pos;

	skip_ws(s);
	if (at(s, s->pos, w, n)) {
		s->pos += n;
		return true;
	}
	s->pos = save;
	return false;
}

/* The first occurrence of the opening delimiter from pos, or len. */
static size_t find_open(const struct scan *s)
{
	const char *p;

	if (s->pos >= s->len)
		return s->len;
	p = memmem(s->t + s->pos, s->len - s->pos, s->open, s->nopen);
	return p ? (size_t)(p - s->t) : s->len;
}

/* ---- tokens ----------------------------------------------------------- */

/* A text token is a run of text (whitespace runs are separate tokens and
 * end at a newline, so that mustache's stripping of standalone lines can
 * delete them); a tag token holds its value's span. */
struct tok {
	char type; /* 't' text, 'n' name, or mustache's #^/>&=! */
	bool dead; /* whitespace of a standalone line, deleted */
	bool space;
	unsigned depth; /* sections around it */
	size_t a, b;	/* the text's or the value's span */
	size_t start;	/* the tag's first byte */
};

struct toks {
	struct tok *v;
	size_t n, cap;
	/* whitespace tokens since the last newline (mustache's `spaces`) */
	size_t *sp;
	size_t nsp, capsp;
	bool has_tag, non_space;
	/* open sections (token indices) */
	size_t *sec;
	size_t nsec, capsec;
};

static int push_idx(size_t **v, size_t *n, size_t *cap, size_t x)
{
	size_t *p;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		p = realloc(*v, *cap * sizeof(*p));
		if (!p)
			return -1;
		*v = p;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int push_tok(struct toks *k, char type, size_t a, size_t b, size_t start,
		    bool space)
{
	struct tok *p;

	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 32;
		p = realloc(k->v, k->cap * sizeof(*p));
		if (!p)
			return -1;
		k->v = p;
	}
	p = &k->v[k->n++];
	p->type = type;
	p->dead = false;
	p->space = space;
	p->depth = (unsigned)k->nsec;
	p->a = a;
	p->b = b;
	p->start = start;
	return 0;
}

/* mustache's stripSpace() at a newline: a line that held a tag and only
 * whitespace besides loses that whitespace, newline included. */
static void strip_space(struct toks *k)
{
	size_t i;

	if (k->has_tag && !k->non_space)
		for (i = 0; i < k->nsp; i++)
			k->v[k->sp[i]].dead = true;
	k->nsp = 0;
	k->has_tag = false;
	k->non_space = false;
}

/* The text between tags, [a, b), as mustache tokenizes it. */
static int text_tokens(struct toks *k, const char *t, size_t a, size_t b)
{
	size_t i = a, j, w;
	bool space;

	while (i < b) {
		w = ws_len(t + i, b - i);
		space = w > 0;
		j = i;
		if (space) {
			/* a whitespace run, ending at (and with) a newline */
			while (j < b && (w = ws_len(t + j, b - j))) {
				j += w;
				if (t[j - 1] == '\n')
					break;
			}
		} else {
			while (j < b && !ws_len(t + j, b - j))
				j++;
			k->non_space = true;
		}
		if (space && push_idx(&k->sp, &k->nsp, &k->capsp, k->n) < 0)
			return -1;
		if (push_tok(k, 't', i, j, i, space) < 0)
			return -1;
		if (space && t[j - 1] == '\n')
			strip_space(k);
		i = j;
	}
	return 0;
}

static void set_err(pai__tmpl_error *err, size_t off, const char *why)
{
	if (err) {
		err->off = off;
		err->why = why;
	}
}

/* A set-delimiters tag's value "open close": split as
 * value.split(/\s+/, 2), which must give two parts. */
static bool set_tags(struct scan *s, size_t a, size_t b)
{
	size_t i = a, w;

	while (i < b && !ws_len(s->t + i, b - i))
		i++;
	if (i == a || i == b)
		return false;
	s->open = s->t + a;
	s->nopen = i - a;
	while (i < b && (w = ws_len(s->t + i, b - i)))
		i += w;
	a = i;
	while (i < b && !ws_len(s->t + i, b - i))
		i++;
	if (i == a)
		return false; /* not reached: the value ends before \s*= */
	s->close = s->t + a;
	s->nclose = i - a;
	return true;
}

static bool same_value(const struct scan *s, const struct tok *x,
		       const struct tok *y)
{
	return x->b - x->a == y->b - y->a &&
	       memcmp(s->t + x->a, s->t + y->a, x->b - x->a) == 0;
}

static const char oom_why[] = "out of memory";

/* Closes a section at the '/' tag tokens[k->n - 1]. */
static int close_section(struct toks *k, const struct scan *s,
			 pai__tmpl_error *err)
{
	const struct tok *close = &k->v[k->n - 1], *open;

	if (!k->nsec) {
		set_err(err, close->start, "unopened section");
		return -1;
	}
	open = &k->v[k->sec[--k->nsec]];
	if (!same_value(s, open, close)) {
		set_err(err, close->start, "section closed with another name");
		return -1;
	}
	return 0;
}

/* One tag from its opening delimiter at s->pos: its type and value span,
 * or -1 when its closing delimiter never comes. */
static int scan_tag(struct scan *s, char *type, size_t *a, size_t *b)
{
	const char *c = s->close;
	size_t nc = s->nclose;

	s->pos += s->nopen;
	skip_ws(s);
	*type = 'n';
	if (s->pos < s->len && strchr("#^/>{&=!", s->t[s->pos]) &&
	    s->t[s->pos]) {
		*type = s->t[s->pos++];
		skip_ws(s);
	}
	*a = s->pos;
	if (*type == '=') {
		s->pos = *b = find_ws_then(s, false, "=", 1);
		eat_ws_then(s, "=", 1);
		s->pos = find_ws_then(s, false, c, nc);
	} else if (*type == '{') {
		/* the value ends at \s*}C; then \s*} and up to \s*C */
		s->pos = *b = find_ws_then(s, true, c, nc);
		eat_ws_then(s, "}", 1);
		s->pos = find_ws_then(s, false, c, nc);
		*type = '&';
	} else {
		s->pos = *b = find_ws_then(s, false, c, nc);
	}
	return eat_ws_then(s, c, nc) ? 0 : -1;
}

/* mustache 2.3.2's parseTemplate(). 0; -1 with *err set where it throws;
 * -2 when memory ran out. */
static int parse(struct toks *k, struct scan *s, pai__tmpl_error *err)
{
	size_t start, a, b;
	char type;
	int r;

	while (s->pos < s->len) {
		start = find_open(s);
		if (text_tokens(k, s->t, s->pos, start) < 0)
			return -2;
		s->pos = start;
		if (start >= s->len)
			break;
		k->has_tag = true;
		r = scan_tag(s, &type, &a, &b);
		if (r < 0) {
			set_err(err, start, "unclosed tag");
			return -1;
		}
		if (push_tok(k, type, a, b, start, false) < 0)
			return -2;
		if (type == '#' || type == '^') {
			if (push_idx(&k->sec, &k->nsec, &k->capsec, k->n - 1) <
			    0)
				return -2;
		} else if (type == '/') {
			if (close_section(k, s, err) < 0)
				return -1;
		} else if (type == 'n' || type == '&') {
			k->non_space = true;
		} else if (type == '=' && !set_tags(s, a, b)) {
			set_err(err, start, "invalid delimiters");
			return -1;
		}
	}
	if (k->nsec) {
		set_err(err, k->v[k->sec[k->nsec - 1]].start,
			"unclosed section");
		return -1;
	}
	return 0;
}

static void toks_release(struct toks *k)
{
	free(k->v);
	free(k->sp);
	free(k->sec);
}

static int run_parse(struct toks *k, const char *text, size_t len,
		     pai__tmpl_error *err)
{
	struct scan s = {text, len, 0, "<%", "%>", 2, 2};

	memset(k, 0, sizeof(*k));
	return parse(k, &s, err);
}

int pai__tmpl_check(const char *text, size_t len, pai__tmpl_error *err)
{
	struct toks k;
	int r = run_parse(&k, text, len, err);

	toks_release(&k);
	if (r == -2)
		set_err(err, 0, oom_why);
	return r < 0 ? -1 : 0;
}

/* A name tag's name as the server looks it up: "a[0].b" is "a.0.b". */
static void lookup_name(pai__buf *b, const char *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (v[i] == '[') {
			for (j = i + 1; j < n && v[j] >= '0' && v[j] <= '9';
			     j++)
				;
			if (j > i + 1 && j < n && v[j] == ']') {
				pai__buf_putc(b, '.');
				pai__buf_put(b, v + i + 1, j - i - 1);
				i = j;
				continue;
			}
		}
		pai__buf_putc(b, v[i]);
	}
}

/* Appends s[0, n) trimmed as JavaScript's String.prototype.trim(). */
static void put_trimmed(pai__buf *out, const char *s, size_t n)
{
	size_t a = 0, w, k;
	bool cut;

	while (a < n && (w = ws_len(s + a, n - a)))
		a += w;
	do {
		cut = false;
		for (k = 1; k <= 3 && k <= n - a; k++)
			if (ws_len(s + n - k, k) == k) {
				n -= k;
				cut = true;
				break;
			}
	} while (cut);
	pai__buf_put(out, s + a, n - a);
}

static void render_toks(pai__buf *r, const struct toks *k, const char *text,
			pai__tmpl_lookup lookup, void *data)
{
	pai__buf name = PAI__BUF_INIT;
	const struct tok *t;
	size_t i;

	for (i = 0; i < k->n; i++) {
		t = &k->v[i];
		if (t->depth || t->dead)
			continue;
		if (t->type == 't') {
			pai__buf_put(r, text + t->a, t->b - t->a);
		} else if (t->type == 'n') {
			name.len = 0;
			lookup_name(&name, text + t->a, t->b - t->a);
			pai__buf_putc(&name, '\0');
			if (name.oom) {
				r->oom = 1;
				break;
			}
			if (lookup(data, name.data, name.len - 1, r))
				continue;
			pai__buf_puts(r, "<% ");
			pai__buf_put(r, name.data, name.len - 1);
			pai__buf_puts(r, " %>");
		}
	}
	pai__buf_release(&name);
}

/* Sections' contents are dropped, not rendered: the server walks the
 * top-level tokens only. The result is trimmed, as the server's is. */
int pai__tmpl_render(pai__buf *out, const char *text, size_t len,
		     pai__tmpl_lookup lookup, void *data)
{
	pai__buf r = PAI__BUF_INIT;
	struct toks k;
	int ret = 0, p;

	p = run_parse(&k, text, len, NULL);
	if (p == -1) {
		ret = -1;
		goto out;
	}
	if (p == -2) {
		out->oom = 1;
		goto out;
	}
	render_toks(&r, &k, text, lookup, data);
	if (r.oom)
		out->oom = 1;
	else if (r.len)
		put_trimmed(out, r.data, r.len);
out:
	pai__buf_release(&r);
	toks_release(&k);
	return ret;
}
