/* json.c - a v0.x config's text as JSON: comments, encoding, parsing, and
 * where each value stands (the position tree; source.c answers lines and
 * columns from it).
 *
 * jansson parses and reports syntax errors, but keeps no positions for
 * the values it returns. Once jansson has accepted the text, a small
 * structural walk (no second parser: it trusts the text to be valid)
 * records the offset of every value and key in a tree that mirrors the
 * JSON, so that every diagnostic can say file:line:column. */
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* What adding a syntax error returns: PAI_ESYNTAX, or PAI_ENOMEM when
 * the diagnostic could not be added. */
static int refused(int diag_err)
{
	return diag_err ? PAI_ENOMEM : PAI_ESYNTAX;
}

/* ---- comments and encoding ------------------------------------------ */

/* Blanks out comments. The text is copied only when it has a comment (or
 * a byte order mark): most configs are parsed straight from the caller's
 * buffer. */
static int own_text(pai__src *src)
{
	char *t;

	if (src->owned)
		return 0;
	t = malloc(src->len + 1);
	if (!t)
		return -1;
	memcpy(t, src->text, src->len);
	t[src->len] = '\0';
	src->text = t;
	src->owned = 1;
	return 0;
}

/* jansson's lexer copies a string byte by byte into a buffer that grows
 * by doubling, then decodes it into another: for a multi-megabyte command
 * that takes longer than everything else together. So string values
 * longer than this are checked here (the rules jansson applies to string
 * literals), cut to "" in the text jansson parses (no newline is lost: a
 * string holds none, so lines stay right), and decoded straight from the
 * source after parsing (restore_bigs). A variable, not a constant, only
 * so that tests/fuzz can run both paths over the same input. */
size_t pai__big_string = 65536;

/* The value of the 4 hex digits at s, or -1. */
static long hex4_value(const char *s)
{
	long v = 0;
	int j, h;

	for (j = 0; j < 4; j++) {
		if ((h = pai__hexval((unsigned char)s[j])) < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

enum { ESC_OK, ESC_BAD, ESC_BAD_UNICODE };

/* The escape whose letter is at t[*ip] (just past its backslash), as
 * jansson judges it; when valid, *ip is moved to its last character. */
static int check_escape(const char *t, size_t *ip)
{
	size_t i = *ip;
	long cp, lo;

	if (t[i] != 'u')
		return strchr("\"\\/bfnrt", t[i]) ? ESC_OK : ESC_BAD;
	cp = hex4_value(t + i + 1);
	if (cp < 0)
		return ESC_BAD;
	if (cp == 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
		return ESC_BAD_UNICODE;
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (t[i + 5] != '\\' || t[i + 6] != 'u')
			return ESC_BAD_UNICODE;
		lo = hex4_value(t + i + 7);
		if (lo < 0xDC00 || lo > 0xDFFF)
			return ESC_BAD_UNICODE;
		i += 6;
	}
	*ip = i + 4;
	return ESC_OK;
}

/* The rules jansson applies to the contents of the string literal
 * between the quotes at open and close: PAI_OK, or PAI_ESYNTAX after
 * saying what breaks them. */
static int check_literal(pai__src *src, pai_diags *diags, size_t open,
			 size_t close)
{
	const char *t = src->text;
	size_t i;
	int bad;

	for (i = open + 1; i < close; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c < 0x20)
			return refused(pai__diag_add(
			    diags, src, i, PAI_SEVERITY_ERROR, "", "syntax",
			    "control character 0x%02X in a string: write it "
			    "as an escape such as \\n",
			    c));
		if (c != '\\')
			continue;
		i++;
		bad = check_escape(t, &i);
		if (bad == ESC_BAD)
			return refused(pai__diag_add(
			    diags, src, i - 1, PAI_SEVERITY_ERROR, "", "syntax",
			    "invalid escape in a string"));
		if (bad == ESC_BAD_UNICODE)
			return refused(pai__diag_add(
			    diags, src, i - 1, PAI_SEVERITY_ERROR, "", "syntax",
			    "invalid \\u escape in a string (NUL, or a lone "
			    "surrogate)"));
	}
	return PAI_OK;
}

/* A long string value at [open, close]: checked here and cut out of the
 * text jansson parses (a key keeps its text: blanking two keys would
 * make them equal). */
static int big_string(pai__src *src, pai_diags *diags, size_t open,
		      size_t close)
{
	const char *t = src->text;
	struct pai__big *v;
	size_t j;
	int err;

	for (j = close + 1; j < src->len && strchr(" \t\r\n", t[j]); j++)
		;
	if (j < src->len && (t[j] == ':' || t[j] == '/'))
		return PAI_OK;
	if ((err = check_literal(src, diags, open, close)))
		return err;
	if (src->nbigs == src->capbigs) {
		size_t cap = src->capbigs ? src->capbigs * 2 : 8;

		v = realloc(src->bigs, cap * sizeof(*v));
		if (!v)
			return PAI_ENOMEM;
		src->bigs = v;
		src->capbigs = cap;
	}
	src->bigs[src->nbigs].open = open;
	src->bigs[src->nbigs].close = close;
	src->bigs[src->nbigs].jopen = 0;
	src->nbigs++;
	return PAI_OK;
}

/* Notes a comment (or the byte order mark) at [start, end), for
 * blank(). */
static int add_span(pai__src *src, size_t start, size_t end)
{
	if (src->ncmts == src->capcmts) {
		size_t cap = src->capcmts ? src->capcmts * 2 : 16;
		struct pai__span *v = realloc(src->cmts, cap * sizeof(*v));

		if (!v)
			return -1;
		src->cmts = v;
		src->capcmts = cap;
	}
	src->cmts[src->ncmts].start = start;
	src->cmts[src->ncmts].end = end;
	src->ncmts++;
	src->comments = 1;
	return 0;
}

/* Where the scan of pai__src_init() stands in the text. */
struct lex {
	const unsigned char *t;
	size_t len;
	enum { CODE, STRING, LINE, BLOCK } st;
	size_t comment_start, str_start;
};

/* A NUL byte, or a byte of 0x80 or more, at i: PAI_OK with *k the length
 * of the valid UTF-8 character it starts, or PAI_ESYNTAX after saying
 * what is wrong (PAI_ENOMEM). */
static int check_byte(pai__src *src, pai_diags *diags, size_t i, size_t *k)
{
	const unsigned char *t = (const unsigned char *)src->text;

	*k = 0;
	if (t[i] == '\0')
		return pai__diag_add(diags, src, i, PAI_SEVERITY_ERROR, "",
				     "nul-byte",
				     "NUL byte in the file: a job config is "
				     "UTF-8 text")
			   ? PAI_ENOMEM
			   : PAI_ESYNTAX;
	*k = pai__utf8_len(t + i, src->len - i);
	if (*k)
		return PAI_OK;
	return pai__diag_add(diags, src, i, PAI_SEVERITY_ERROR, "",
			     "invalid-utf8",
			     "invalid UTF-8 byte 0x%02X: a job config is "
			     "UTF-8 text",
			     t[i])
		   ? PAI_ENOMEM
		   : PAI_ESYNTAX;
}

/* One ASCII character at i, in the state lx->st: where the scan goes on
 * after what it takes, or the end of the text when something failed
 * (*err says what). */
static size_t step(pai__src *src, pai_diags *diags, struct lex *lx, size_t i,
		   int *err)
{
	const unsigned char *t = lx->t;
	size_t len = lx->len;

	switch (lx->st) {
	case CODE:
		if (t[i] == '"') {
			lx->st = STRING;
			lx->str_start = i;
		} else if (t[i] == '/' && i + 1 < len &&
			   (t[i + 1] == '/' || t[i + 1] == '*')) {
			lx->st = t[i + 1] == '/' ? LINE : BLOCK;
			lx->comment_start = i;
			return i + 2;
		}
		break;
	case STRING:
		if (t[i] == '\\' && i + 1 < len && t[i + 1] != '\0' &&
		    t[i + 1] < 0x80)
			return i + 2;
		if (t[i] == '"') {
			lx->st = CODE;
			if (i - lx->str_start > pai__big_string &&
			    (*err = big_string(src, diags, lx->str_start, i)))
				return len;
		}
		break;
	case LINE:
		if (t[i] == '\n') {
			lx->st = CODE;
			if (add_span(src, lx->comment_start, i) < 0) {
				*err = PAI_ENOMEM;
				return len;
			}
		}
		break;
	case BLOCK:
		if (t[i] == '*' && i + 1 < len && t[i + 1] == '/') {
			lx->st = CODE;
			if (add_span(src, lx->comment_start, i + 2) < 0) {
				*err = PAI_ENOMEM;
				return len;
			}
			return i + 2;
		}
		break;
	}
	return i + 1;
}

/* The end of the text: a // comment ends there, a block comment must
 * not. */
static int text_end(pai__src *src, pai_diags *diags, const struct lex *lx)
{
	if (lx->st == LINE && add_span(src, lx->comment_start, src->len) < 0)
		return PAI_ENOMEM;
	if (lx->st != BLOCK)
		return PAI_OK;
	if (pai__diag_add(diags, src, lx->comment_start, PAI_SEVERITY_ERROR, "",
			  "unterminated-comment",
			  "unterminated comment: '/*' has no '*/'"))
		return PAI_ENOMEM;
	return PAI_ESYNTAX;
}

int pai__src_init(pai__src *src, pai_diags *diags, const char *name,
		  const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	struct lex lx = {t, len, CODE, 0, 0};
	size_t i = 0, k;
	int err = PAI_OK;

	memset(src, 0, sizeof(*src));
	src->name = name;
	src->orig = text;
	src->len = len;
	/* the caller's text, until jansson needs a copy (pai__src_parse) */
	src->text = (char *)text;

	/* A byte order mark is not JSON, but it is still UTF-8 text: accept
	 * it, as editors on some systems add it unasked. */
	if (len >= 3 && t[0] == 0xEF && t[1] == 0xBB && t[2] == 0xBF) {
		if (add_span(src, 0, 3) < 0)
			return PAI_ENOMEM;
		i = 3;
	}
	while (i < len) {
		/* the common case: plain ASCII inside a string */
		if (lx.st == STRING) {
			while (i < len && t[i] >= 0x20 && t[i] < 0x80 &&
			       t[i] != '"' && t[i] != '\\')
				i++;
			if (i >= len)
				break;
		}
		if (t[i] != '\0' && t[i] < 0x80)
			i = step(src, diags, &lx, i, &err);
		else if ((err = check_byte(src, diags, i, &k)))
			return err;
		else
			i += k;
	}
	return err ? err : text_end(src, diags, &lx);
}

/* The copy jansson and the walk parse: NUL-terminated (the caller's
 * buffer need not be, and text[len] may not even be readable), with the
 * byte order mark and the comments pai__src_init() found blanked out,
 * every other byte (newlines in block comments too) and so every line
 * and column where it was. */
static int blank(pai__src *src)
{
	size_t k, i;

	if (own_text(src) < 0)
		return -1;
	for (k = 0; k < src->ncmts; k++)
		for (i = src->cmts[k].start; i < src->cmts[k].end; i++)
			if (src->text[i] != '\n')
				src->text[i] = ' ';
	return 0;
}

/* ---- JSON string literals --------------------------------------------- */

static unsigned long hex4(const char *s)
{
	unsigned long v = 0;
	int i, h;

	for (i = 0; i < 4; i++) {
		h = pai__hexval((unsigned char)s[i]);
		v = v * 16 + (unsigned long)(h < 0 ? 0 : h);
	}
	return v;
}

/* Decodes one escape or character of a (valid) string literal at s.
 * Writes its UTF-8 bytes to out (if not NULL), returns the bytes written
 * and sets *used to the source bytes consumed. */
static size_t decode_one(const char *s, char *out, size_t *used)
{
	char tmp[4];
	unsigned long cp, lo;

	if (!out)
		out = tmp;
	if (s[0] != '\\') {
		out[0] = s[0];
		*used = 1;
		return 1;
	}
	switch (s[1]) {
	case 'b': out[0] = '\b'; break;
	case 'f': out[0] = '\f'; break;
	case 'n': out[0] = '\n'; break;
	case 'r': out[0] = '\r'; break;
	case 't': out[0] = '\t'; break;
	case 'u':
		cp = hex4(s + 2);
		*used = 6;
		if (cp >= 0xD800 && cp <= 0xDBFF && s[6] == '\\' &&
		    s[7] == 'u') {
			lo = hex4(s + 8);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
				*used = 12;
			}
		}
		return pai__utf8_encode(out, cp);
	default: out[0] = s[1]; break; /* \" \\ \/ */
	}
	*used = 2;
	return 1;
}

size_t pai__src_string_offset(const pai__src *src, size_t quote_off, size_t idx)
{
	const char *t = src->orig ? src->orig : src->text;
	size_t i = quote_off + 1, got = 0, used;

	while (i < src->len && t[i] != '"') {
		size_t n = decode_one(t + i, NULL, &used);

		if (got + n > idx)
			break;
		got += n;
		i += used;
	}
	return i;
}

/* ---- the position walk ------------------------------------------------- */

static size_t skip_ws(const char *t, size_t i)
{
	while (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')
		i++;
	return i;
}

/* Past the closing quote of the (valid) string literal at t[i]. */
static size_t skip_string(const char *t, size_t i)
{
	const char *p = t + i + 1, *q;
	size_t bs;

	for (;;) {
		q = strchr(p, '"');
		if (!q) /* cannot happen in text jansson accepted */
			return i + 1 + strlen(t + i + 1);
		/* the quote ends the string unless an odd run of
		 * backslashes escapes it */
		for (bs = 0; q - bs > p && q[-1 - (ptrdiff_t)bs] == '\\'; bs++)
			;
		if (bs % 2 == 0)
			return (size_t)(q - t) + 1;
		p = q + 1;
	}
}

static char *decode_key(const char *t, size_t quote, size_t end)
{
	char *k = malloc(end - quote), *o = k; /* decoding never grows */
	size_t i = quote + 1, used;

	if (!k)
		return NULL;
	while (i < end - 1) {
		o += decode_one(t + i, o, &used);
		i += used;
	}
	*o = '\0';
	return k;
}

static int push_child(pai__pos *node, size_t *cap)
{
	if (node->nchild == UINT32_MAX)
		return -1; /* pai__pos's bound: taken as out of memory */
	if (node->nchild == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		pai__pos *v = realloc(node->child, c * sizeof(*v));

		if (!v)
			return -1;
		node->child = v;
		*cap = c;
	}
	memset(&node->child[node->nchild], 0, sizeof(*node->child));
	node->nchild++;
	return 0;
}

/* jansson has already accepted the text and limits nesting to
 * JSON_PARSER_MAX_DEPTH, so this recursion is bounded. */
static int walk(const char *t, size_t *ip, pai__pos *node)
{
	size_t i = skip_ws(t, *ip), cap = 0, kq;
	char open = t[i];
	pai__pos *c;

	node->off = i;
	if (node->key_off == 0 && !node->key)
		node->key_off = i;
	if (open == '"') {
		*ip = skip_string(t, i);
		return 0;
	}
	if (open != '{' && open != '[') {
		while (t[i] && !strchr(",]} \t\r\n", t[i]))
			i++;
		*ip = i;
		return 0;
	}
	i = skip_ws(t, i + 1);
	if (t[i] == (open == '{' ? '}' : ']')) {
		*ip = i + 1;
		return 0;
	}
	for (;;) {
		if (push_child(node, &cap) < 0)
			return -1;
		c = &node->child[node->nchild - 1];
		if (open == '{') {
			kq = skip_ws(t, i);
			i = skip_string(t, kq);
			c->key_off = kq;
			c->key = decode_key(t, kq, i);
			if (!c->key)
				return -1;
			i = skip_ws(t, i) + 1; /* the ':' */
		}
		if (walk(t, &i, c) < 0)
			return -1;
		if (open == '[')
			c->key_off = c->off;
		i = skip_ws(t, i);
		if (t[i] == ',') {
			i++;
			continue;
		}
		*ip = i + 1; /* the closing bracket */
		return 0;
	}
}

/* ---- parsing ---------------------------------------------------------- */

/* The text jansson quotes after "near", e.g. near '"name"' -> "name". */
static const char *near_token(const char *msg, size_t *n)
{
	const char *p = strstr(msg, " near '"), *e;

	if (!p)
		return NULL;
	p += 7;
	e = strrchr(p, '\'');
	if (!e || e < p)
		return NULL;
	*n = (size_t)(e - p);
	return p;
}

/* Where the string literal whose closing quote is at `close` opens: the
 * nearest quote before it that no backslash escapes (every quote inside a
 * literal is escaped, and comments are blanked). */
static size_t string_start(const char *t, size_t close)
{
	size_t j = close;

	while (j > 0) {
		j--;
		if (t[j] == '"' && (j == 0 || t[j - 1] != '\\'))
			break;
	}
	return j;
}

/* jansson's column is the last character of the token it stopped at; a
 * diagnostic points at the first. Its "near" text is the token, but only
 * up to 20 bytes; past that, only a string's start can still be found. */
static size_t token_start(const char *t, size_t off, const char *tok, size_t n)
{
	if (tok && n > 0 && n <= off + 1 &&
	    memcmp(t + off + 1 - n, tok, n) == 0)
		return off + 1 - n;
	if (t[off] == '"')
		return string_start(t, off);
	return off;
}

/* How much of the source text from..to (exclusive) a message quotes:
 * at most QUOTE_MAX bytes, cut on a character boundary. */
#define QUOTE_MAX 63
static int quote_len(const char *t, size_t from, size_t to)
{
	size_t n = to - from;

	if (n > QUOTE_MAX) {
		n = QUOTE_MAX;
		while (n > 0 && ((unsigned char)t[from + n] & 0xC0) == 0x80)
			n--;
	}
	return (int)n;
}

static size_t from_jtext(const pai__src *src, size_t off);

/* Where in text jansson stopped. */
static size_t error_offset(pai__src *src, const json_error_t *err)
{
	size_t off;

	/* jansson saw jtext when long strings were cut out: its columns are
	 * off on those lines, but its byte position maps back exactly */
	if (src->nbigs)
		off = from_jtext(
		    src, err->position > 0 ? (size_t)err->position - 1 : 0);
	else
		off = pai__src_offset(src, (unsigned)err->line,
				      (unsigned)err->column);
	return off > src->len ? src->len : off;
}

/* The errors jansson gives a code of their own, said our way; 1 for any
 * other. */
static int coded_error(pai__src *src, pai_diags *diags,
		       enum json_error_code code, size_t off, const char *tok,
		       size_t n)
{
	const char *t = src->text;
	size_t j;
	int q;

	switch (code) {
	case json_error_duplicate_key:
		/* jansson stops at the key's closing quote. The key is quoted
		 * from the source: the "near" text stops at 20 bytes. */
		if (off >= src->len || t[off] != '"')
			return 1;
		j = string_start(t, off);
		q = quote_len(t, j, off + 1);
		return refused(pai__diag_add(
		    diags, src, j, PAI_SEVERITY_ERROR, "", "duplicate-key",
		    "duplicate key %.*s%s: each key may appear once in an "
		    "object",
		    q, t + j, j + (size_t)q > off ? "" : "...\""));
	case json_error_stack_overflow:
		return refused(pai__diag_add(
		    diags, src, off, PAI_SEVERITY_ERROR, "", "too-deep",
		    "nesting deeper than %d levels", JSON_PARSER_MAX_DEPTH));
	case json_error_numeric_overflow:
		/* jansson stops at the number's last character */
		if (off >= src->len)
			return 1;
		for (j = off; j > 0 && strchr("0123456789+-.eE", t[j - 1]); j--)
			;
		q = quote_len(t, j, off + 1);
		return refused(pai__diag_add(
		    diags, src, j, PAI_SEVERITY_ERROR, "", "number-range",
		    "number %.*s%s is out of range", q, t + j,
		    j + (size_t)q > off ? "" : "..."));
	case json_error_end_of_input_expected:
		return refused(pai__diag_add(
		    diags, src, token_start(t, off, tok, n), PAI_SEVERITY_ERROR,
		    "", "syntax",
		    "unexpected text after the end of the JSON value"));
	case json_error_premature_end_of_input:
		return refused(pai__diag_add(
		    diags, src, src->len, PAI_SEVERITY_ERROR, "", "syntax",
		    "unexpected end of file: a value, ']' or '}' is missing"));
	default: return 1;
	}
}

/* A trailing comma: the unexpected token is a closing bracket and the
 * last thing before it is a comma. 1 when it is not that. */
static int trailing_comma(pai__src *src, pai_diags *diags, size_t off)
{
	const char *t = src->text;
	size_t j = off;

	if (off >= src->len || (t[off] != '}' && t[off] != ']'))
		return 1;
	while (j > 0 && strchr(" \t\r\n", t[j - 1]))
		j--;
	if (j == 0 || t[j - 1] != ',')
		return 1;
	return refused(pai__diag_add(diags, src, j - 1, PAI_SEVERITY_ERROR, "",
				     "trailing-comma",
				     "trailing comma before '%c'", t[off]));
}

/* Where any other error points: at the offending character of a newline
 * or a control character in a string (jansson has stepped back off it),
 * at an escape, or at the start of the token it is about. */
static size_t error_place(const pai__src *src, size_t off, const char *text,
			  const char *tok, size_t n)
{
	if (off >= src->len)
		return off;
	if (strncmp(text, "unexpected newline", 18) == 0 ||
	    strncmp(text, "control character", 17) == 0) {
		off++;
		while (off < src->len &&
		       ((unsigned char)src->text[off] & 0xC0) == 0x80)
			off++;
		return off;
	}
	if (strncmp(text, "invalid escape", 14) == 0)
		return off;
	return token_start(src->text, off, tok, n);
}

/* jansson quotes the token it stopped at as it is: a control character
 * there would reach the terminal raw, and the token can end inside a
 * UTF-8 character (jansson stops at the first byte it did not expect, as
 * after a backslash), which makes the message no UTF-8 text and
 * pai_diags_to_json() fail. Each such byte is '?' in msg. */
static void clean_message(char *msg, size_t size, const char *text)
{
	size_t i, j;

	for (i = j = 0; text[i] && j < size - 1;) {
		const unsigned char *c = (const unsigned char *)text + i;
		size_t k = pai__utf8_len(c, strlen(text + i));

		if (k == 0 || *c < 0x20 || *c == 0x7F) {
			msg[j++] = '?';
			i++;
			continue;
		}
		if (j + k > size - 1)
			break;
		memcpy(msg + j, c, k);
		i += k;
		j += k;
	}
	msg[j] = '\0';
}

static int syntax_error(pai__src *src, pai_diags *diags,
			const json_error_t *err)
{
	size_t off = error_offset(src, err), n = 0;
	const char *tok = near_token(err->text, &n);
	char msg[JSON_ERROR_TEXT_LENGTH];
	int ret;

	if (skip_ws(src->text, 0) >= src->len)
		return refused(pai__diag_add(diags, src, 0, PAI_SEVERITY_ERROR,
					     "", "syntax",
					     "empty file: expected a JSON "
					     "object"));
	ret = coded_error(src, diags, json_error_code(err), off, tok, n);
	if (ret == 1)
		ret = trailing_comma(src, diags, off);
	if (ret != 1)
		return ret;
	clean_message(msg, sizeof(msg), err->text);
	return refused(
	    pai__diag_add(diags, src, error_place(src, off, err->text, tok, n),
			  PAI_SEVERITY_ERROR, "", "syntax", "%s", msg));
}

/* Builds jtext: text with every long string's contents cut out. */
static int compact(pai__src *src)
{
	size_t k, from = 0, n = 0;
	char *j;

	j = malloc(src->len + 1);
	if (!j)
		return -1;
	for (k = 0; k < src->nbigs; k++) {
		struct pai__big *b = &src->bigs[k];

		memcpy(j + n, src->text + from, b->open + 1 - from);
		n += b->open + 1 - from;
		b->jopen = n - 1;
		from = b->close; /* keep the closing quote */
	}
	memcpy(j + n, src->text + from, src->len - from);
	n += src->len - from;
	j[n] = '\0';
	src->jtext = j;
	src->jlen = n;
	return 0;
}

/* The offset in text of offset off in jtext. */
static size_t from_jtext(const pai__src *src, size_t off)
{
	size_t lo = 0, hi = src->nbigs, mid;

	/* the last long string that opens at or before off */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (src->bigs[mid].jopen <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return off;
	lo--;
	if (off == src->bigs[lo].jopen)
		return src->bigs[lo].open;
	/* at or past its closing quote: jtext[jopen + 1] is text[close] */
	return off + src->bigs[lo].close - src->bigs[lo].jopen - 1;
}

static void map_pos(pai__pos *p, const pai__src *src)
{
	size_t i;

	p->off = from_jtext(src, p->off);
	p->key_off = from_jtext(src, p->key_off);
	for (i = 0; i < p->nchild; i++)
		map_pos(&p->child[i], src);
}

static bool is_big(const pai__src *src, size_t off)
{
	size_t lo = 0, hi = src->nbigs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (src->bigs[mid].open == off)
			return true;
		if (src->bigs[mid].open < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The decoded value of the (checked) long string literal at orig[open]. */
static json_t *decode_big(const pai__src *src, size_t open)
{
	const char *p = src->orig + open + 1, *bs, *end;
	char *out, *o;
	size_t used, k;
	json_t *s;

	for (k = 0; src->bigs[k].open != open; k++)
		;
	end = src->orig + src->bigs[k].close;
	out = malloc((size_t)(end - p) + 1);
	if (!out)
		return NULL;
	o = out;
	while (p < end) {
		bs = memchr(p, '\\', (size_t)(end - p));
		if (!bs)
			bs = end;
		memcpy(o, p, (size_t)(bs - p));
		o += bs - p;
		p = bs;
		if (p < end) {
			o += decode_one(p, o, &used);
			p += used;
		}
	}
	s = json_stringn_nocheck(out, (size_t)(o - out));
	free(out);
	return s;
}

static int restore_bigs(json_t *v, const pai__pos *pos, const pai__src *src)
{
	size_t i;
	json_t *c, *s;

	for (i = 0; i < pos->nchild; i++) {
		const pai__pos *cp = &pos->child[i];

		c = json_is_object(v) ? json_object_get(v, cp->key)
				      : json_array_get(v, i);
		if (json_is_string(c) && is_big(src, cp->off)) {
			s = decode_big(src, cp->off);
			if (!s || (json_is_object(v)
				       ? json_object_set_new(v, cp->key, s)
				       : json_array_set_new(v, i, s)) < 0)
				return -1;
		} else if (cp->nchild && restore_bigs(c, cp, src) < 0) {
			return -1;
		}
	}
	return 0;
}

/* jansson's parse of the text, comments blanked and long strings cut
 * out, and the walk that records where each value stands. */
static int slow_parse(json_t **root, pai__pos *pos, pai__src *src,
		      pai_diags *diags)
{
	const char *jt;
	size_t jlen = src->len, i = 0;
	json_error_t err;

	if (!src->owned && blank(src) < 0)
		return PAI_ENOMEM;
	jt = src->text;
	if (src->nbigs) {
		/* (once: a second parse of the source reads the same) */
		if (!src->jtext && compact(src) < 0)
			return PAI_ENOMEM;
		jt = src->jtext;
		jlen = src->jlen;
	}
	/* Any JSON value parses: a top level that is not an object is the
	 * validator's "type" error, not a syntax error. (jansson sets no
	 * error code when an early allocation fails: it reads as 0.) */
	memset(&err, 0, sizeof(err));
	*root = json_loadb(jt, jlen, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
			   &err);
	if (!*root) {
		/* jansson gives up on most allocation failures without a
		 * word: no syntax error has an empty message */
		if (json_error_code(&err) == json_error_out_of_memory ||
		    !err.text[0])
			return PAI_ENOMEM;
		return syntax_error(src, diags, &err);
	}
	if (walk(jt, &i, pos) < 0) {
		pai__pos_release(pos);
		json_decref(*root);
		*root = NULL;
		return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* The long strings cut out of the text jansson parsed, put back: their
 * places mapped to the source's, their values decoded from it. */
static int put_bigs_back(json_t **root, pai__pos *pos, const pai__src *src)
{
	json_t *j = *root;

	map_pos(pos, src);
	if (json_is_string(j) && is_big(src, pos->off)) {
		/* a long string as the whole document (not a job, but the
		 * message should quote what was written) */
		json_decref(j);
		*root = j = decode_big(src, pos->off);
		if (!j)
			return PAI_ENOMEM;
	}
	return restore_bigs(j, pos, src) < 0 ? PAI_ENOMEM : PAI_OK;
}

int pai__src_parse(json_t **root, pai__pos *pos, pai__src *src,
		   pai_diags *diags)
{
	json_t *j = NULL;
	int err;

	*root = NULL;
	memset(pos, 0, sizeof(*pos));
	/* (once per source: the tree's arena is the source's) */
	err = pai__json_fast && !src->nbigs && !src->arena
		  ? pai__json_fast_parse(&j, pos, &src->arena, src->text,
					 src->len, src->comments)
		  : 1;
	if (err == 1)
		err = slow_parse(&j, pos, src, diags);
	if (!err && src->nbigs && (err = put_bigs_back(&j, pos, src))) {
		pai__pos_release(pos);
		json_decref(j);
		j = NULL;
	}
	*root = j;
	return err;
}

int pai__src_read(json_t **root, pai__pos *pos, pai__src *src,
		  pai_diags *diags, const char *name, const char *text,
		  size_t len)
{
	int err;

	*root = NULL;
	memset(src, 0, sizeof(*src));
	/* The common case in one pass: the fast parser reads the caller's
	 * text, comments and all, and takes only what pai__src_init()
	 * would (UTF-8, no NUL byte, comments closed), so that pass is
	 * needed only when it gives up. */
	if (pai__json_fast) {
		src->name = name;
		src->orig = text;
		src->text = (char *)text;
		src->len = len;
		err = pai__json_fast_parse(root, pos, &src->arena, text, len,
					   true);
		if (err != 1)
			return err;
	}
	err = pai__src_init(src, diags, name, text, len);
	return err ? err : pai__src_parse(root, pos, src, diags);
}

int pai__src_read_lean(json_t **root, pai__pos *pos, pai__src *src,
		       const char *name, const char *text, size_t len)
{
	*root = NULL;
	memset(src, 0, sizeof(*src));
	src->name = name;
	src->orig = text;
	src->text = (char *)text;
	src->len = len;
	if (!pai__json_fast)
		return 1;
	return pai__json_fast_lean(root, pos, &src->arena, text, len, true);
}
