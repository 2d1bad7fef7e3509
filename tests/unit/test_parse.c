/* test_parse.c - parsing job config text: every input that must fail
 * fails with one diagnostic at the right place, comments vanish without
 * moving anything, and files are read or refused with the right code. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "alloc_fail.h"
#include "text/text.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME   "t.json"
#define LIT(s) (s), (sizeof(s) - 1)

/* ---- helpers ---------------------------------------------------------- */

/* A copy of text in a buffer of exactly len bytes: pai_job_parse()
 * promises not to need a terminating NUL, and valgrind catches a read
 * past the end. */
static char *exact_copy(const char *text, size_t len)
{
	char *b = malloc(len ? len : 1);

	assert_non_null(b);
	if (len)
		memcpy(b, text, len);
	return b;
}

static int printable_utf8(const char *s);

/* Parses text as NAME and checks that it fails as a syntax error with
 * exactly one diagnostic, an error of the given rule at line:col. The
 * caller frees *dp; the diagnostic is returned for further checks. */
static const pai_diag *syntax_error_at(pai_diags **dp, const char *text,
				       size_t len, const char *rule,
				       unsigned line, unsigned col,
				       const char *file, int fline)
{
	pai_diags *d = NULL;
	pai_job *job = (pai_job *)&d; /* must be reset to NULL */
	const pai_diag *e;
	char *buf = exact_copy(text, len);
	int err;

	_assert_int_equal(pai_diags_new(&d), PAI_OK, file, fline);
	err = pai_job_parse(&job, d, NAME, buf, len, NULL);
	free(buf);
	*dp = d;
	_assert_int_equal(err, PAI_ESYNTAX, file, fline);
	_assert_true(job == NULL, "job == NULL", file, fline);
	_assert_int_equal(pai_diags_count(d), 1, file, fline);
	_assert_int_equal(pai_diags_errors(d), 1, file, fline);
	_assert_int_equal(pai_diags_warnings(d), 0, file, fline);
	e = pai_diags_get(d, 0);
	_assert_true(e != NULL, "e != NULL", file, fline);
	_assert_int_equal(e->severity, PAI_SEVERITY_ERROR, file, fline);
	_assert_string_equal(e->file, NAME, file, fline);
	_assert_string_equal(e->path, "", file, fline);
	_assert_string_equal(e->rule, rule, file, fline);
	_assert_int_equal(e->line, line, file, fline);
	_assert_int_equal(e->column, col, file, fline);
	_assert_true(e->excerpt != NULL, "e->excerpt != NULL", file, fline);
	/* shown on a terminal and turned into JSON: printable UTF-8 */
	_assert_true(printable_utf8(e->message), "printable_utf8(e->message)",
		     file, fline);
	return e;
}

/* A top level that is well-formed JSON but no object is the validator's
 * "type" error (PAI_EINVALID), quoting the value as written. */
static void top_level_not_object(const char *text, size_t len, const char *msg)
{
	pai_diags *d = NULL;
	pai_job *job = NULL;
	char *buf = exact_copy(text, len);
	const pai_diag *e;

	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, NAME, buf, len, NULL),
			 PAI_EINVALID);
	assert_null(job);
	assert_int_equal(pai_diags_count(d), 1);
	e = pai_diags_get(d, 0);
	assert_string_equal(e->rule, "type");
	assert_string_equal(e->path, "");
	assert_int_equal(e->line, 1);
	assert_int_equal(e->column, 1);
	assert_string_equal(e->message, msg);
	free(buf);
	pai_diags_free(d);
}

/* (dp, text, len, rule, line, col); variadic so that LIT() may give
 * text and len */
#define SYNTAX_ERROR_AT(...) syntax_error_at(__VA_ARGS__, __FILE__, __LINE__)

/* Checks one bad input and its message, and frees everything. */
#define BAD(lit, rule, line, col, msg)                                         \
	do {                                                                   \
		pai_diags *d_;                                                 \
		const pai_diag *e_ =                                           \
		    SYNTAX_ERROR_AT(&d_, LIT(lit), rule, line, col);           \
		if (msg)                                                       \
			assert_string_equal(e_->message, (const char *)msg);   \
		pai_diags_free(d_);                                            \
	} while (0)

/* A parsed text with its position tree, through the internal API. */
struct parsed {
	char *buf;
	pai__src src;
	pai__pos pos;
	json_t *root;
	pai_diags *d;
	char lc[32];
};

static void parsed_init(struct parsed *p, const char *text, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->buf = exact_copy(text, len);
	assert_int_equal(pai_diags_new(&p->d), PAI_OK);
	assert_int_equal(pai__src_init(&p->src, p->d, NAME, p->buf, len),
			 PAI_OK);
	assert_int_equal(pai__src_parse(&p->root, &p->pos, &p->src, p->d),
			 PAI_OK);
	assert_non_null(p->root);
	assert_int_equal(pai_diags_count(p->d), 0);
}

static void parsed_release(struct parsed *p)
{
	json_decref(p->root);
	pai__pos_release(&p->pos);
	pai__src_release(&p->src);
	pai_diags_free(p->d);
	free(p->buf);
}

/* "line:column" of byte offset off. */
static const char *lc(struct parsed *p, size_t off)
{
	unsigned line, col;

	pai__src_linecol(&p->src, off, &line, &col);
	snprintf(p->lc, sizeof(p->lc), "%u:%u", line, col);
	return p->lc;
}

static const pai__pos *member(const pai__pos *obj, const char *key)
{
	const pai__pos *m = pai__pos_member(obj, key);

	assert_non_null(m);
	return m;
}

/* The excerpt's character at its excerpt_column: what a caret shows. */
static const char *at_caret(const pai_diag *e)
{
	const char *p = e->excerpt;
	unsigned col = 1;

	for (; *p; p++) {
		if (((unsigned char)*p & 0xC0) == 0x80)
			continue;
		if (col == e->excerpt_column)
			return p;
		col++;
	}
	return p; /* the caret may stand just past the end */
}

/* Whether s is well-formed UTF-8 with no control characters but tab. */
static int printable_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t k = *p < 0x80		      ? 1
			   : *p >= 0xC2 && *p <= 0xDF ? 2
			   : *p >= 0xE0 && *p <= 0xEF ? 3
			   : *p >= 0xF0 && *p <= 0xF4 ? 4
						      : 0,
		       i;

		if (k == 0 || (*p < 0x20 && *p != '\t') || *p == 0x7F)
			return 0;
		for (i = 1; i < k; i++)
			if ((p[i] & 0xC0) != 0x80)
				return 0;
		p += k;
	}
	return 1;
}

/* ---- the inputs the issue lists ---------------------------------------- */

static void test_empty(void **state)
{
	(void)state;
	BAD("", "syntax", 1, 1, "empty file: expected a JSON object");
	BAD(" \n\t\r\n", "syntax", 1, 1, "empty file: expected a JSON object");
	BAD("// nothing\n/* here */\n", "syntax", 1, 1,
	    "empty file: expected a JSON object");
}

static void test_binary_garbage(void **state)
{
	(void)state;
	/* an ELF header: its fifth byte onwards has NULs */
	BAD("\x7f"
	    "ELF\x02\x01\x01\0\0\0",
	    "nul-byte", 1, 8,
	    "NUL byte in the file: a job config is UTF-8 text");
	/* gzip and PNG magic: not UTF-8 */
	BAD("\x1f\x8b\x08\x00", "invalid-utf8", 1, 2,
	    "invalid UTF-8 byte 0x8B: a job config is UTF-8 text");
	BAD("\x89PNG\r\n\x1a\n", "invalid-utf8", 1, 1,
	    "invalid UTF-8 byte 0x89: a job config is UTF-8 text");
	/* ASCII control characters are valid UTF-8 but no JSON */
	BAD("\x01\x02\x03", "syntax", 1, 1, NULL);
}

static void test_invalid_utf8(void **state)
{
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	/* the column counts the two é as one character each */
	BAD("{\"\xc3\xa9\xc3\xa9\": \"x\xff\"}", "invalid-utf8", 1, 10,
	    "invalid UTF-8 byte 0xFF: a job config is UTF-8 text");
	/* a lone continuation byte, a truncated sequence at the end */
	BAD("{\"a\": \"\x80\"}", "invalid-utf8", 1, 8, NULL);
	BAD("{\"a\": \"\xc3", "invalid-utf8", 1, 8, NULL);
	BAD("{\"a\": \"\xe2\x82\"}", "invalid-utf8", 1, 8, NULL);
	/* overlong '/', a UTF-16 surrogate, a code point past U+10FFFF */
	BAD("{\"a\": \"\xc0\xaf\"}", "invalid-utf8", 1, 8,
	    "invalid UTF-8 byte 0xC0: a job config is UTF-8 text");
	BAD("{\"a\": \"\xe0\x80\xaf\"}", "invalid-utf8", 1, 8, NULL);
	BAD("{\"a\": \"\xed\xa0\x80\"}", "invalid-utf8", 1, 8, NULL);
	BAD("{\"a\": \"\xf4\x90\x80\x80\"}", "invalid-utf8", 1, 8, NULL);
	BAD("{\"a\": \"\xf5\x80\x80\x80\"}", "invalid-utf8", 1, 8, NULL);
	/* a comment is part of the text, too */
	BAD("{} // caf\xe9\n", "invalid-utf8", 1, 10, NULL);
	BAD("{\n /* \xfe */ }", "invalid-utf8", 2, 5, NULL);

	/* the excerpt shows the broken bytes as '?', never raw */
	e = SYNTAX_ERROR_AT(&d,
			    LIT("{\"a\": \"\xf8\x88\x80\x80\xe0\x80\x80\"}"),
			    "invalid-utf8", 1, 8);
	assert_string_equal(e->excerpt, "{\"a\": \"???????\"}");
	assert_int_equal(e->excerpt_column, 8);
	pai_diags_free(d);
}

static void test_nul_byte(void **state)
{
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	e = SYNTAX_ERROR_AT(&d, LIT("{\"a\":\n 1\0}\n"), "nul-byte", 2, 3);
	assert_string_equal(e->message,
			    "NUL byte in the file: a job config is UTF-8 text");
	assert_string_equal(e->excerpt, " 1?}");
	assert_int_equal(e->excerpt_column, 3);
	pai_diags_free(d);

	BAD("{\"a\": \"x\0\"}", "nul-byte", 1, 9, NULL);
	BAD("{} // \0\n", "nul-byte", 1, 7, NULL);
	BAD("\0", "nul-byte", 1, 1, NULL);
	/* the escape \u0000 is JSON, but not in a job config */
	BAD("{\"a\": \"\\u0000\"}", "syntax", 1, 7, NULL);
}

static void test_deep_nesting(void **state)
{
	size_t n = 100000, i;
	char *t = malloc(2 * n);
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	assert_non_null(t);
	memset(t, '[', n);
	e = SYNTAX_ERROR_AT(&d, t, n, "too-deep", 1, JSON_PARSER_MAX_DEPTH + 1);
	assert_string_equal(e->message, "nesting deeper than 2048 levels");
	assert_int_equal(JSON_PARSER_MAX_DEPTH, 2048);
	/* the excerpt of a 100,000-character line is clipped */
	assert_int_equal(strlen(e->excerpt), 3 + 160 + 3);
	assert_int_equal(strspn(e->excerpt + 3, "["), 160);
	assert_string_equal(e->excerpt + 163, "...");
	assert_int_equal(e->excerpt_column, 3 + 60 + 1);
	pai_diags_free(d);

	/* one level per line */
	for (i = 0; i < n; i++) {
		t[2 * i] = '[';
		t[2 * i + 1] = '\n';
	}
	SYNTAX_ERROR_AT(&d, t, 2 * n, "too-deep", JSON_PARSER_MAX_DEPTH + 1, 1);
	pai_diags_free(d);

	/* objects count as much as arrays: {"a":{"a":... */
	for (i = 0; i < n / 5; i++)
		memcpy(t + 5 * i, "{\"a\":", 5);
	SYNTAX_ERROR_AT(&d, t, n, "too-deep", 1, 5 * JSON_PARSER_MAX_DEPTH + 1);
	pai_diags_free(d);
	free(t);
}

/* The deepest nesting jansson accepts (it counts the innermost value as
 * a level): the position walk recurses as deep and still finds it. */
static void test_deepest_accepted(void **state)
{
	size_t n = JSON_PARSER_MAX_DEPTH - 1, i;
	char *t = malloc(2 * n + 3);
	struct parsed p;
	const pai__pos *q;
	pai_diags *d;

	(void)state;
	assert_non_null(t);
	memset(t, '[', n);
	t[n] = '7';
	memset(t + n + 1, ']', n);
	parsed_init(&p, t, 2 * n + 1);
	q = &p.pos;
	for (i = 0; i < n; i++) {
		assert_int_equal(q->nchild, 1);
		q = pai__pos_index(q, 0);
		assert_non_null(q);
	}
	assert_string_equal(lc(&p, q->off), "1:2048");
	assert_int_equal(q->nchild, 0);
	parsed_release(&p);

	/* one more level is one too many */
	memset(t, '[', n + 1);
	t[n + 1] = '7';
	memset(t + n + 2, ']', n + 1);
	SYNTAX_ERROR_AT(&d, t, 2 * n + 3, "too-deep", 1, 2049);
	pai_diags_free(d);
	free(t);
}

static void test_number_range(void **state)
{
	struct parsed p;

	(void)state;
	BAD("{\"n\": 1e400}", "number-range", 1, 7,
	    "number 1e400 is out of range");
	BAD("{\"n\": -1.5E+400}", "number-range", 1, 7,
	    "number -1.5E+400 is out of range");
	BAD("{\"n\":\n  [1, 2e999]}", "number-range", 2, 7,
	    "number 2e999 is out of range");
	BAD("{\"n\": 99999999999999999999}", "number-range", 1, 7,
	    "number 99999999999999999999 is out of range");
	BAD("{\"n\": -99999999999999999999}", "number-range", 1, 7, NULL);
	/* longer than jansson quotes: the message clips the source */
	BAD("{\"n\": 1234567890123456789012345678901234567890"
	    "12345678901234567890123456789}",
	    "number-range", 1, 7,
	    "number 1234567890123456789012345678901234567890"
	    "12345678901234567890123... is out of range");

	/* underflow is not out of range: it is zero */
	parsed_init(&p, LIT("{\"n\": 1e-400}"));
	assert_true(json_real_value(json_object_get(p.root, "n")) == 0.0);
	parsed_release(&p);
}

static void test_trailing_comma(void **state)
{
	(void)state;
	BAD("{\"a\": [1, 2,]}", "trailing-comma", 1, 12,
	    "trailing comma before ']'");
	BAD("{\"a\": 1,\n}", "trailing-comma", 1, 8,
	    "trailing comma before '}'");
	/* a comment between the comma and the bracket changes nothing */
	BAD("{\"a\": 1, // last\n  /* really */ }", "trailing-comma", 1, 8,
	    NULL);
	BAD("{\r\n  \"a\": [\r\n    1,\r\n  ]\r\n}\r\n", "trailing-comma", 3, 6,
	    NULL);
	/* a comma with nothing before it is a plain syntax error */
	BAD("{,}", "syntax", 1, 2, NULL);
	BAD("{\"a\": [,]}", "syntax", 1, 8, NULL);
}

static void test_duplicate_key(void **state)
{
	char key[71], text[200];
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	BAD("{\"a\": 1,\n  \"a\": 2}", "duplicate-key", 2, 3,
	    "duplicate key \"a\": each key may appear once in an object");
	BAD("{\"o\": {\"k\": 1, \"k\": 2}}", "duplicate-key", 1, 16, NULL);
	/* the same key, spelt differently */
	BAD("{\"a\": 1, \"\\u0061\": 2}", "duplicate-key", 1, 10,
	    "duplicate key \"\\u0061\": each key may appear once in an object");
	BAD("{\"a\\\"b\": 1, \"a\\\"b\": 2}", "duplicate-key", 1, 13,
	    "duplicate key \"a\\\"b\": each key may appear once in an object");
	/* the same name in different objects is fine; a later key after
	 * a multibyte one keeps its column */
	BAD("{\"x\": {\"a\": 1}, \"y\": {\"a\": 1}, \"\xc3\xa9\": 1, "
	    "\"\xc3\xa9\": 2}",
	    "duplicate-key", 1, 40, NULL);

	/* a key longer than jansson quotes is quoted from the source */
	memset(key, 'k', 70);
	key[70] = '\0';
	snprintf(text, sizeof(text), "{\"%s\": 1, \"%s\": 2}", key, key);
	e = SYNTAX_ERROR_AT(&d, text, strlen(text), "duplicate-key", 1, 79);
	snprintf(text, sizeof(text),
		 "duplicate key \"%.62s...\": each key may appear once in an "
		 "object",
		 key);
	assert_string_equal(e->message, text);
	pai_diags_free(d);
}

static void test_unterminated_comment(void **state)
{
	struct parsed p;

	(void)state;
	BAD("{\"a\": 1 /* hello\n\n", "unterminated-comment", 1, 9,
	    "unterminated comment: '/*' has no '*/'");
	/* a slash right after the opening star does not close it */
	BAD("{\"a\": 1}\n/*/\n", "unterminated-comment", 2, 1, NULL);
	BAD("{} /* *", "unterminated-comment", 1, 4, NULL);
	BAD("{}\n\n  /** doc", "unterminated-comment", 3, 3, NULL);

	/* a line comment needs no newline at the end */
	parsed_init(&p, LIT("{\"a\": 1} // the end"));
	parsed_release(&p);
}

/* ---- other syntax errors: where the caret goes ---------------------- */

static void test_syntax_positions(void **state)
{
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	/* at the start of the unexpected token, not its end */
	BAD("{\"a\" 123}", "syntax", 1, 6, "':' expected near '123'");
	BAD("{\"a\": 1 \"b\": 2}", "syntax", 1, 9, NULL);
	BAD("{\"a\": 1 \"a string longer than twenty\": 2}", "syntax", 1, 9,
	    NULL);
	BAD("{\"a\": tru}", "syntax", 1, 7, "invalid token near 'tru'");
	BAD("{}  \"abc\"", "syntax", 1, 5,
	    "unexpected text after the end of the JSON value");
	BAD("{\"a\": 1}\n{", "syntax", 2, 1, NULL);
	top_level_not_object("\"abc\"", 5,
			     "must be an object, got a string \"abc\"");
	top_level_not_object("42", 2, "must be an object, got 42");
	/* inside a string: at the offending character */
	BAD("{\"a\": \"abc\n\"}", "syntax", 1, 11, NULL);
	BAD("{\"a\": \"\\x\"}", "syntax", 1, 9, NULL);
	/* the end of the file, wherever it is */
	BAD("{\"a\": \"abc", "syntax", 1, 11,
	    "unexpected end of file: a value, ']' or '}' is missing");
	BAD("{\"a\": 1\n", "syntax", 2, 1, NULL);

	/* jansson's message quotes the token up to the byte it did not
	 * expect, which may be the first of a UTF-8 character: each stray
	 * byte shows as '?', so that the message stays UTF-8 text (and
	 * pai_diags_to_json() works) */
	BAD("{\"a\": \"x\\\xe6\x97\xa5\"}", "syntax", 1, 10,
	    "invalid escape near '\"x\\?'");
	BAD("{\"a\": \"\\u12\xe6\x97\xa5\"}", "syntax", 1, 12,
	    "invalid escape near '\"\\u12?'");
	BAD("{\"a\": \xe6\x97\xa5}", "syntax", 1, 7,
	    "invalid token near '\xe6\x97\xa5'");

	/* a control character in a string: shown as '?', caret on it */
	e = SYNTAX_ERROR_AT(&d, LIT("{\"a\": \"x\x01y\"}"), "syntax", 1, 9);
	assert_string_equal(e->excerpt, "{\"a\": \"x?y\"}");
	assert_int_equal(e->excerpt_column, 9);
	pai_diags_free(d);
}

/* ---- comments ----------------------------------------------------------- */

static void test_comments_keep_positions(void **state)
{
	static const char text[] =
	    "{ // line comment with \"quote, /* and 'x'\n"
	    "  \"url\": \"http://x/*y*/\", /* block\n"
	    "  spanning \"lines\" // still the comment\n"
	    "  */ \"n\": 1,\n"
	    "  \"s\": \"a\\\"//b\", \"t\": \"c\\\\\" // real comment\n"
	    "  , \"u\": /**/ 2 /***/ , \"v\": /* * / */ 3\n"
	    "}\n";
	struct parsed p;
	const pai__pos *m;

	(void)state;
	parsed_init(&p, LIT(text));
	assert_int_equal(p.pos.nchild, 6);
	assert_string_equal(lc(&p, p.pos.off), "1:1");

	m = member(&p.pos, "url");
	assert_string_equal(lc(&p, m->key_off), "2:3");
	assert_string_equal(lc(&p, m->off), "2:10");
	assert_string_equal(json_string_value(json_object_get(p.root, "url")),
			    "http://x/*y*/");

	m = member(&p.pos, "n");
	assert_string_equal(lc(&p, m->key_off), "4:6");
	assert_string_equal(lc(&p, m->off), "4:11");

	m = member(&p.pos, "s");
	assert_string_equal(lc(&p, m->off), "5:8");
	assert_string_equal(json_string_value(json_object_get(p.root, "s")),
			    "a\"//b");
	m = member(&p.pos, "t");
	assert_string_equal(lc(&p, m->key_off), "5:18");
	assert_string_equal(lc(&p, m->off), "5:23");
	assert_string_equal(json_string_value(json_object_get(p.root, "t")),
			    "c\\");

	m = member(&p.pos, "u");
	assert_string_equal(lc(&p, m->off), "6:15");
	m = member(&p.pos, "v");
	assert_string_equal(lc(&p, m->key_off), "6:25");
	assert_string_equal(lc(&p, m->off), "6:40");
	assert_int_equal(json_integer_value(json_object_get(p.root, "v")), 3);
	parsed_release(&p);
}

static void test_comments_with_multibyte(void **state)
{
	struct parsed p;
	const pai__pos *m;

	(void)state;
	/* "é" is 2 bytes, 1 column; the blanked text has 2 spaces */
	parsed_init(
	    &p, LIT("{/*\xc3\xa9*/\"a\": 1, // \xe2\x82\xac\xf0\x9f\x98\x80\n"
		    " /* \xc3\xa9\n\xc3\xa9 */ \"b\": [true]}"));
	m = member(&p.pos, "a");
	assert_string_equal(lc(&p, m->key_off), "1:7");
	assert_string_equal(lc(&p, m->off), "1:12");
	m = member(&p.pos, "b");
	assert_string_equal(lc(&p, m->key_off), "3:6");
	assert_string_equal(lc(&p, pai__pos_index(m, 0)->off), "3:12");
	parsed_release(&p);

	/* and an error after such a comment is where it is */
	BAD("{/*\xc3\xa9\xc3\xa9*/\"a\" 1}", "syntax", 1, 12, NULL);
}

static void test_strings_are_not_comments(void **state)
{
	struct parsed p;

	(void)state;
	parsed_init(&p, LIT("{\"a\": \"//\", \"b\": \"/*\", \"c\": \"*/\", "
			    "\"d\": \"\\\\\"//x\n}"));
	assert_string_equal(json_string_value(json_object_get(p.root, "a")),
			    "//");
	assert_string_equal(json_string_value(json_object_get(p.root, "b")),
			    "/*");
	assert_string_equal(json_string_value(json_object_get(p.root, "c")),
			    "*/");
	assert_string_equal(json_string_value(json_object_get(p.root, "d")),
			    "\\");
	/* the original text is untouched */
	assert_memory_equal(p.src.orig, "{\"a\": \"//\"", 10);
	parsed_release(&p);
}

/* ---- encodings, line ends, columns ----------------------------------- */

static void test_bom(void **state)
{
	struct parsed p;
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	parsed_init(&p, LIT("\xef\xbb\xbf{\"a\": 1}"));
	assert_int_equal(json_integer_value(json_object_get(p.root, "a")), 1);
	/* the mark is invisible: it takes no column */
	assert_string_equal(lc(&p, member(&p.pos, "a")->off), "1:7");
	parsed_release(&p);

	e = SYNTAX_ERROR_AT(&d, LIT("\xef\xbb\xbf{\"a\" 1}"), "syntax", 1, 6);
	assert_string_equal(e->excerpt, "{\"a\" 1}");
	assert_int_equal(e->excerpt_column, 6);
	pai_diags_free(d);

	/* a mark alone is an empty file; a mark later on is no mark */
	BAD("\xef\xbb\xbf", "syntax", 1, 1, NULL);
	BAD("{\"a\": 1}\xef\xbb\xbf", "syntax", 1, 9, NULL);
}

static void test_crlf(void **state)
{
	struct parsed p;
	pai_diags *d;
	const pai_diag *e;
	const pai__pos *m;

	(void)state;
	parsed_init(&p, LIT("{\r\n  \"a\": 1, // c\r\n  \"b\":\r\n"
			    "    /* x\r\n */ 2\r\n}\r\n"));
	m = member(&p.pos, "a");
	assert_string_equal(lc(&p, m->off), "2:8");
	m = member(&p.pos, "b");
	assert_string_equal(lc(&p, m->key_off), "3:3");
	assert_string_equal(lc(&p, m->off), "5:5");
	parsed_release(&p);

	e = SYNTAX_ERROR_AT(&d, LIT("{\r\n  \"a\" 1\r\n}\r\n"), "syntax", 2, 7);
	assert_string_equal(e->excerpt, "  \"a\" 1");
	assert_int_equal(e->excerpt_column, 7);
	pai_diags_free(d);

	/* a lone CR is no line end: it shows as '?' */
	e = SYNTAX_ERROR_AT(&d, LIT("{\"a\": 1,\r\"b\" 2}"), "syntax", 1, 14);
	assert_string_equal(e->excerpt, "{\"a\": 1,?\"b\" 2}");
	pai_diags_free(d);
}

static void test_columns_count_code_points(void **state)
{
	struct parsed p;

	(void)state;
	/* Cyrillic (2 bytes each), then the error */
	BAD("{\"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87\": \"\xd0\xb7\xd0\xbd\xd0\xb0"
	    "\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd0\xb5\", \"x\" 1}",
	    "syntax", 1, 26, NULL);
	/* a 4-byte emoji and a 3-byte euro sign */
	BAD("{\"\xf0\x9f\x98\x80\": 1, \"\xe2\x82\xac\" 2}", "syntax", 1, 14,
	    NULL);

	parsed_init(&p,
		    LIT("{\"\xe6\x97\xa5\xe6\x9c\xac\": \"\xf0\x9f\x98\x80\","
			"\n\t\"k\": 1}"));
	assert_string_equal(
	    lc(&p, member(&p.pos, "\xe6\x97\xa5\xe6\x9c\xac")->off), "1:8");
	/* a tab is one column */
	assert_string_equal(lc(&p, member(&p.pos, "k")->off), "2:7");
	parsed_release(&p);
}

/* ---- excerpts ----------------------------------------------------------- */

static char *long_line(size_t before, const char *mid, size_t after,
		       const char *fill, size_t *len)
{
	size_t f = strlen(fill), m = strlen(mid), i, n = 0;
	char *t = malloc(8 + before * f + m + after * f + 4);

	assert_non_null(t);
	memcpy(t, "{\"a\": \"", 7);
	n = 7;
	for (i = 0; i < before; i++, n += f)
		memcpy(t + n, fill, f);
	memcpy(t + n, mid, m);
	n += m;
	for (i = 0; i < after; i++, n += f)
		memcpy(t + n, fill, f);
	memcpy(t + n, "\"}", 2);
	n += 2;
	*len = n;
	return t;
}

static void test_excerpt_clipping(void **state)
{
	size_t len;
	char *t;
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	/* an error in the middle of a 50 KB line: "..." both sides, 60
	 * bytes before the problem, 160 in all */
	t = long_line(25000, "\" \"b\" 1, \"", 25000, "x", &len);
	e = SYNTAX_ERROR_AT(&d, t, len, "syntax", 1, 25010);
	assert_int_equal(strlen(e->excerpt), 3 + 160 + 3);
	assert_memory_equal(e->excerpt, "...", 3);
	assert_memory_equal(e->excerpt + 166 - 3, "...", 3);
	assert_int_equal(e->excerpt_column, 3 + 60 + 1);
	assert_memory_equal(at_caret(e) - 4, "xx\" \"b\" 1", 9);
	pai_diags_free(d);
	free(t);

	/* near the start: nothing cut before */
	t = long_line(0, "\" \"b\" 1, \"", 50000, "x", &len);
	e = SYNTAX_ERROR_AT(&d, t, len, "syntax", 1, 10);
	assert_memory_equal(e->excerpt, "{\"a\": \"\" \"b\" 1", 14);
	assert_int_equal(strlen(e->excerpt), 160 + 3);
	assert_int_equal(e->excerpt_column, 10);
	pai_diags_free(d);
	free(t);

	/* near the end: nothing cut after */
	t = long_line(50000, "\" \"b\" 1, \"", 0, "x", &len);
	e = SYNTAX_ERROR_AT(&d, t, len, "syntax", 1, 50010);
	assert_string_equal(at_caret(e), "\"b\" 1, \"\"}");
	assert_memory_equal(e->excerpt, "...", 3);
	assert_int_equal(e->excerpt_column, 3 + 60 + 1);
	pai_diags_free(d);
	free(t);

	/* multibyte text is cut between characters, and the caret column
	 * counts characters; 3 bytes between the text and the token make
	 * the 60-byte cut fall inside an "é" */
	t = long_line(20000, "\"  \"b\" 1, \"", 20000, "\xc3\xa9", &len);
	e = SYNTAX_ERROR_AT(&d, t, len, "syntax", 1, 20011);
	assert_true(printable_utf8(e->excerpt));
	assert_memory_equal(e->excerpt, "...\xc3\xa9", 5);
	assert_memory_equal(at_caret(e), "\"b\" 1", 5);
	assert_true(strlen(e->excerpt) <= 166);
	pai_diags_free(d);
	free(t);
}

static void test_excerpt_control_characters(void **state)
{
	pai_diags *d;
	const pai_diag *e;

	(void)state;
	/* tabs stay (the caret line copies them); DEL and other controls
	 * become one '?' each, so the caret keeps its column */
	e = SYNTAX_ERROR_AT(&d, LIT("{\t\"a\": \"\x7f\", \x1b\"b\": 1}"),
			    "syntax", 1, 13);
	assert_string_equal(e->excerpt, "{\t\"a\": \"?\", ?\"b\": 1}");
	assert_int_equal(e->excerpt_column, 13);
	/* the message quotes the token, but no raw control character */
	assert_true(printable_utf8(e->message));
	pai_diags_free(d);
}

/* ---- string offsets ---------------------------------------------------- */

static void test_string_offset(void **state)
{
	/* decoded: a \n b " c é(2 bytes) d 😀(4 bytes) e */
	static const char text[] =
	    "{\"k\": \"a\\nb\\\"c\\u00e9d\\ud83d\\ude00e\", "
	    "\"r\": \"\xc3\xa9x\"}";
	struct parsed p;
	const pai__src *s;
	size_t q;

	(void)state;
	parsed_init(&p, LIT(text));
	s = &p.src;
	q = member(&p.pos, "k")->off;
	assert_int_equal(q, 6);
	assert_int_equal(pai__src_string_offset(s, q, 0), 7);  /* a */
	assert_int_equal(pai__src_string_offset(s, q, 1), 8);  /* \n */
	assert_int_equal(pai__src_string_offset(s, q, 2), 10); /* b */
	assert_int_equal(pai__src_string_offset(s, q, 3), 11); /* \" */
	assert_int_equal(pai__src_string_offset(s, q, 4), 13); /* c */
	assert_int_equal(pai__src_string_offset(s, q, 5), 14); /* \u00e9 */
	assert_int_equal(pai__src_string_offset(s, q, 6),
			 14); /* its 2nd byte */
	assert_int_equal(pai__src_string_offset(s, q, 7), 20); /* d */
	assert_int_equal(pai__src_string_offset(s, q, 8), 21); /* the pair */
	assert_int_equal(pai__src_string_offset(s, q, 11), 21);
	assert_int_equal(pai__src_string_offset(s, q, 12), 33); /* e */
	assert_int_equal(pai__src_string_offset(s, q, 13), 34); /* the end */
	assert_int_equal(pai__src_string_offset(s, q, 1000), 34);
	assert_int_equal(s->text[34], '"');
	assert_string_equal(json_string_value(json_object_get(p.root, "k")),
			    "a\nb\"c\xc3\xa9"
			    "d\xf0\x9f\x98\x80"
			    "e");

	/* raw UTF-8 is copied byte for byte */
	q = member(&p.pos, "r")->off;
	assert_int_equal(pai__src_string_offset(s, q, 0), q + 1);
	assert_int_equal(pai__src_string_offset(s, q, 2), q + 3);
	parsed_release(&p);
}

/* ---- diagnostics as JSON, several files ------------------------------ */

static void test_diags_to_json(void **state)
{
	pai_diags *d;
	pai__src src;
	json_t *a, *o;
	const char *k;
	json_t *v;
	size_t n = 0;

	(void)state;
	SYNTAX_ERROR_AT(&d, LIT("{\"a\": 1,\n  \"a\": 2}"), "duplicate-key", 2,
			3);
	/* a warning without a place, added the way validation does */
	assert_int_equal(pai__src_init(&src, d, "w.json", "{}", 2), PAI_OK);
	assert_int_equal(pai__diag_add(d, &src, PAI__NO_OFFSET,
				       PAI_SEVERITY_WARNING, "taskRoles[0]",
				       "some-rule", "%s %d", "n =", 5),
			 PAI_OK);
	pai__src_release(&src);

	a = pai_diags_to_json(d);
	assert_non_null(a);
	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 2);

	o = json_array_get(a, 0);
	assert_true(json_is_object(o));
	assert_int_equal(json_object_size(o), 7);
	json_object_foreach(o, k, v)
	{
		(void)v;
		assert_non_null(strstr(" file line column path severity rule "
				       "message ",
				       k));
		n++;
	}
	assert_int_equal(n, 7);
	assert_string_equal(json_string_value(json_object_get(o, "file")),
			    NAME);
	assert_true(json_is_integer(json_object_get(o, "line")));
	assert_int_equal(json_integer_value(json_object_get(o, "line")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "column")), 3);
	assert_string_equal(json_string_value(json_object_get(o, "path")), "");
	assert_string_equal(json_string_value(json_object_get(o, "severity")),
			    "error");
	assert_string_equal(json_string_value(json_object_get(o, "rule")),
			    "duplicate-key");
	assert_string_equal(json_string_value(json_object_get(o, "message")),
			    "duplicate key \"a\": each key may appear once in "
			    "an object");

	o = json_array_get(a, 1);
	assert_string_equal(json_string_value(json_object_get(o, "file")),
			    "w.json");
	assert_int_equal(json_integer_value(json_object_get(o, "line")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "column")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "path")),
			    "taskRoles[0]");
	assert_string_equal(json_string_value(json_object_get(o, "severity")),
			    "warning");
	assert_string_equal(json_string_value(json_object_get(o, "message")),
			    "n = 5");
	assert_null(pai_diags_get(d, 1)->excerpt);
	json_decref(a);
	pai_diags_free(d);

	a = pai_diags_to_json(NULL);
	assert_non_null(a);
	assert_int_equal(json_array_size(a), 0);
	json_decref(a);

	/* a file name is bytes, not always UTF-8, which jansson refuses:
	 * a stray byte becomes U+FFFD, and the rest of the list is there */
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai__src_init(&src, d, "bad\xff\xc3.json", "{}", 2),
			 PAI_OK);
	assert_int_equal(
	    pai__diag_add(d, &src, 0, PAI_SEVERITY_ERROR, "", "r", "m"),
	    PAI_OK);
	pai__src_release(&src);
	a = pai_diags_to_json(d);
	assert_non_null(a);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(a, 0), "file")),
	    "bad\xef\xbf\xbd\xef\xbf\xbd.json");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(a, 0), "rule")),
	    "r");
	json_decref(a);
	pai_diags_free(d);
}

/* A minified config is one line. Each of its diagnostics once walked the
 * line from its start, for the column and for the excerpt: 50,000
 * unknown keys in 1 MB took a minute. Now each costs a few KB at most;
 * columns still count code points ("é" keys put many 2-byte characters
 * between the index's steps). */
static void test_many_diagnostics_on_one_line(void **state)
{
	size_t n = 50000, i, len = 0, errors = 0;
	char *t = malloc(n * 32 + 256);
	size_t *at = malloc(n * sizeof(*at)), *col = malloc(n * sizeof(*col));
	pai_diags *d = NULL;
	pai_job *job = NULL;
	int err;

	(void)state;
	assert_non_null(t);
	assert_non_null(at);
	assert_non_null(col);
	len += (size_t)sprintf(
	    t + len, "{\"jobName\":\"j\",\"image\":\"i\","
		     "\"taskRoles\":[{\"name\":\"a\",\"taskNumber\":1,"
		     "\"cpuNumber\":1,\"memoryMB\":100,"
		     "\"gpuNumber\":0,\"command\":\"x\"}]");
	for (i = 0; i < n; i++) {
		t[len++] = ',';
		at[i] = len;
		len += (size_t)sprintf(t + len, "\"\xc3\xa9%zu\":1", i);
	}
	t[len++] = '}';
	/* columns from byte offsets, counted here in one pass */
	{
		size_t k, c = 1, j = 0;

		for (k = 0; k < len && j < n; k++) {
			if (k == at[j])
				col[j++] = c;
			c += ((unsigned char)t[k] & 0xC0) != 0x80;
		}
	}
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	/* (quadratic work took 20 s and more, linear well under 1: a
	 * matter for make bench, not for an assertion on the clock) */
	err = pai_job_parse(&job, d, NAME, t, len, NULL);
	assert_int_equal(err, PAI_EINVALID);
	assert_null(job);
	for (i = 0; i < pai_diags_count(d); i++) {
		const pai_diag *e = pai_diags_get(d, i);
		size_t idx;

		if (strcmp(e->rule, "unknown-field") != 0)
			continue;
		/* "\"é123\"": which key it is, from the message */
		assert_int_equal(
		    sscanf(e->message, "unknown field \"\xc3\xa9%zu", &idx), 1);
		assert_true(idx < n);
		assert_int_equal(e->line, 1);
		assert_int_equal(e->column, col[idx]);
		assert_memory_equal(at_caret(e), "\"\xc3\xa9", 3);
		errors++;
	}
	assert_int_equal(errors, n);
	pai_diags_free(d);
	free(at);
	free(col);
	free(t);
}

/* ---- out of memory ------------------------------------------------------ */

/* Parses text with each of libpai's allocations failing in turn: every
 * run must end in PAI_ENOMEM, or in the very result of a run without
 * failure (every problem still reported), and leak nothing (make
 * check-asan). Then with jansson's allocations failing too, where only
 * "no crash, no leak, no empty message" can be asked: jansson 2.14
 * reports some of its failures inside json_loadb() as syntax errors
 * ("invalid token"), and its lexer drops a byte of a string when its
 * buffer cannot grow, so the parse may even succeed on other text. */
static void parse_out_of_memory(const char *text, pai_dialect dialect)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	size_t len = strlen(text), count0, i;
	pai_diags *d0 = NULL, *d;
	pai_job *job = NULL;
	json_t *json;
	int err0, err, failed, with_json;
	long n;

	o.dialect = dialect;
	assert_int_equal(pai_diags_new(&d0), PAI_OK);
	err0 = pai_job_parse(&job, d0, NAME, text, len, &o);
	count0 = pai_diags_count(d0);
	pai_job_free(job);
	for (with_json = 0; with_json < 2; with_json++) {
		for (n = 0;; n++) {
			d = NULL;
			job = NULL;
			alloc_fail_begin(n, with_json);
			err = pai_diags_new(&d);
			if (!err)
				err =
				    pai_job_parse(&job, d, NAME, text, len, &o);
			failed = alloc_fail_end();
			if (!with_json && err != PAI_ENOMEM &&
			    (err != err0 || pai_diags_count(d) != count0))
				fail_msg("allocation %ld failing%s: result %d "
					 "with %zu diagnostics, not %d with "
					 "%zu",
					 n, with_json ? " (jansson's too)" : "",
					 err, pai_diags_count(d), err0, count0);
			for (i = 0; i < pai_diags_count(d); i++)
				assert_true(*pai_diags_get(d, i)->message);
			assert_true(err == PAI_OK ? job != NULL : job == NULL);
			pai_job_free(job);
			pai_diags_free(d);
			if (!failed)
				break;
		}
	}
	for (n = 0;; n++) {
		alloc_fail_begin(n, 1);
		json = pai_diags_to_json(d0);
		failed = alloc_fail_end();
		if (!failed) {
			assert_non_null(json);
			json_decref(json);
			break;
		}
		assert_null(json);
	}
	pai_diags_free(d0);
}

static void test_out_of_memory(void **state)
{
	/* valid, with comments, a BOM, numeric strings and warnings about
	 * references (with suggestions) */
	static const char valid[] =
	    "\xEF\xBB\xBF{ // the job\n"
	    "  \"jobName\": \"job\", \"image\": \"img\", /* block */\n"
	    "  \"outputDir\": \"/out\", \"retryCount\": \"-1\",\n"
	    "  \"jobEnvs\": {\"batch\": 32, \"o\": {\"a\": [1, 2.5]}},\n"
	    "  \"taskRoles\": [{\"name\": \"worker\", \"taskNumber\": 2,\n"
	    "    \"cpuNumber\": 1, \"memoryMB\": 100.0, \"gpuNumber\": 0,\n"
	    "    \"portList\": [{\"label\": \"tb\", \"beginAt\": 0,\n"
	    "      \"portNumber\": 2}],\n"
	    "    \"command\": \"echo $PAI_TASK_ROLE_wroker_HOST_LIST "
	    "$PAI_HOST_IP_worker_7 $PAI_TASK_ROLE_0_HOST_LIST $batch $bacth "
	    "$PAI_CONTAINER_HOST_tb_PORT_LIST ${x:-1} $(cat "
	    "<<EOF\\n$y\\nEOF\\n)\"},\n"
	    "   {\"name\": \"ps\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
	    "    \"memoryMB\": 100, \"gpuNumber\": 0, \"command\": "
	    "\"$PAI_tb\"}]\n"
	    "}\n";
	/* a problem of every kind the validator reports */
	static const char invalid[] =
	    "{\"jobName\": \"a~b\", \"image\": \"\", \"memoryMb\": 1,\n"
	    " \"dataDir\": \"/d\", \"retryCount\": -3, \"tmp\": {},\n"
	    " \"killAllOnCompletedTaskNumber\": 1, \"extras\": {\"-\": 1},\n"
	    " \"jobEnvs\": {\"-\": 1, \"1a\": [], \"isDebug\": 1},\n"
	    " \"taskRoles\": [{\"name\": \"g2p-train\", \"taskNumber\": 0,\n"
	    "   \"cpuNumber\": \"99999999999999999999\", \"memoryMB\": 64,\n"
	    "   \"shmMB\": 128, \"gpuNumber\": 1.5, \"command\": \"\",\n"
	    "   \"minFailedTaskCount\": 0, \"minSucceededTaskCount\": 5,\n"
	    "   \"storageGB\": 1,\n"
	    "   \"portList\": [{\"label\": \"a b\", \"beginAt\": -1,\n"
	    "     \"portNumber\": 1}, {\"label\": \"x\"}, {\"label\": \"x\",\n"
	    "     \"beginAt\": 1, \"portNumber\": 1}, 7]},\n"
	    "  {\"name\": \"g2p-train\"}, null]}\n";
	/* syntax errors of every kind */
	static const char *const bad[] = {
	    "",
	    "{\"a\": 1, \"a\": 2}",
	    "{\"a\": [1,]}",
	    "{\"a\": 1e400}",
	    "{\"a\": \"\xff\"}",
	    "{} /* open",
	    "[[[[[[[[",
	    "{\"a\": \"x\\q\"}",
	    "{\"a\" 1}",
	    "42",
	    "{\"a\": \"\x01\"}",
	    "{\"a\": \"\\ud800\"}",
	};
	size_t i;

	(void)state;
	parse_out_of_memory(valid, PAI_DIALECT_OPENPAI);
	parse_out_of_memory(invalid, PAI_DIALECT_OPENPAI);
	parse_out_of_memory(invalid, PAI_DIALECT_SCM);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		parse_out_of_memory(bad[i], PAI_DIALECT_OPENPAI);
	/* every string on the fast path for long ones, which checks
	 * escapes itself */
	pai__big_string = 0;
	parse_out_of_memory(valid, PAI_DIALECT_OPENPAI);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		parse_out_of_memory(bad[i], PAI_DIALECT_OPENPAI);
	pai__big_string = 65536;
}

static void test_diags_from_several_files(void **state)
{
	pai_diags *d;
	pai_job *job = NULL;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(
	    pai_job_parse(&job, d, "one.json", LIT("{\n\n  ]"), NULL),
	    PAI_ESYNTAX);
	assert_int_equal(
	    pai_job_parse(&job, d, "two.json", LIT("{\"a\" 1}"), NULL),
	    PAI_ESYNTAX);
	assert_null(job);
	assert_int_equal(pai_diags_count(d), 2);
	/* in the order of the files, not sorted across them */
	assert_string_equal(pai_diags_get(d, 0)->file, "one.json");
	assert_int_equal(pai_diags_get(d, 0)->line, 3);
	assert_string_equal(pai_diags_get(d, 1)->file, "two.json");
	assert_int_equal(pai_diags_get(d, 1)->line, 1);
	assert_null(pai_diags_get(d, 2));
	pai_diags_free(d);
}

static void test_parse_arguments(void **state)
{
	pai_diags *d;
	pai_job *job = (pai_job *)&d;
	pai_job_options bad = PAI_JOB_OPTIONS_INIT;
	char text[] = "{\"a\" 1}xyz";

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(NULL, d, NAME, "{}", 2, NULL),
			 PAI_EINVAL);
	assert_int_equal(pai_job_parse(&job, d, NAME, NULL, 1, NULL),
			 PAI_EINVAL);
	assert_null(job);
	bad.version = 99;
	job = (pai_job *)&d;
	assert_int_equal(pai_job_parse(&job, d, NAME, "{}", 2, &bad),
			 PAI_EINVAL);
	assert_null(job);
	assert_int_equal(pai_diags_count(d), 0);
	/* no text at all is an empty file */
	assert_int_equal(pai_job_parse(&job, d, NAME, NULL, 0, NULL),
			 PAI_ESYNTAX);
	/* len bounds the text: what follows it is not read */
	assert_int_equal(pai_job_parse(&job, d, NULL, text, 7, NULL),
			 PAI_ESYNTAX);
	assert_int_equal(pai_diags_count(d), 2);
	assert_string_equal(pai_diags_get(d, 1)->file, "<config>");
	assert_string_equal(pai_diags_get(d, 1)->excerpt, "{\"a\" 1}");
	pai_diags_free(d);
}

/* A large string value parses, and later values keep their place. */
static void test_large_string(void **state)
{
	size_t n = 1 << 20, len;
	char *t = malloc(n + 64);
	struct parsed p;

	(void)state;
	assert_non_null(t);
	memcpy(t, "{\"command\": \"", 13);
	memset(t + 13, 'x', n);
	len = 13 + n;
	memcpy(t + len, "\",\n \"n\": 5}", 11);
	len += 11;
	parsed_init(&p, t, len);
	assert_int_equal(json_string_length(json_object_get(p.root, "command")),
			 n);
	assert_string_equal(lc(&p, member(&p.pos, "n")->off), "2:7");
	parsed_release(&p);
	free(t);
}

/* Strings longer than 64 KiB are checked and decoded by libpai itself,
 * not jansson: the same errors, at the same places, and the same
 * values. big() builds prefix, n times 'x', suffix. */
static char *big(const char *prefix, size_t n, const char *suffix, size_t *len)
{
	size_t a = strlen(prefix), b = strlen(suffix);
	char *t = malloc(a + n + b);

	assert_non_null(t);
	memcpy(t, prefix, a);
	memset(t + a, 'x', n);
	memcpy(t + a + n, suffix, b);
	*len = a + n + b;
	return t;
}

#define BIG 70000

static void big_error(const char *prefix, const char *suffix, const char *rule,
		      unsigned col, const char *msg)
{
	size_t len;
	char *t = big(prefix, BIG, suffix, &len);
	pai_diags *d;
	const pai_diag *e;

	e = SYNTAX_ERROR_AT(&d, t, len, rule, 1, col);
	if (msg)
		assert_string_equal(e->message, msg);
	pai_diags_free(d);
	free(t);
}

static void test_large_string_errors(void **state)
{
	(void)state;
	/* in the string: at the escape or the character */
	big_error("{\"a\": \"", "\\q\"}", "syntax", 7 + BIG + 1, NULL);
	big_error("{\"a\": \"", "\\u0000\"}", "syntax", 7 + BIG + 1, NULL);
	big_error("{\"a\": \"", "\\udc00\"}", "syntax", 7 + BIG + 1, NULL);
	big_error("{\"a\": \"", "\\ud800x\"}", "syntax", 7 + BIG + 1, NULL);
	big_error("{\"a\": \"", "\tz\"}", "syntax", 7 + BIG + 1, NULL);
	big_error("{\"a\": \"", "\nz\"}", "syntax", 7 + BIG + 1, NULL);
	big_error("{\"a\": \"", "", "syntax", 7 + BIG + 1,
		  "unexpected end of file: a value, ']' or '}' is missing");
	/* after it, on the same line */
	big_error("{\"a\": \"", "\" \"b\": 1}", "syntax", 7 + BIG + 3,
		  "'}' expected near '\"b\"'");
	big_error("{\"a\": [\"", "\",]}", "trailing-comma", 8 + BIG + 2,
		  "trailing comma before ']'");
	big_error("{\"a\": \"", "\" \"b\" 1}", "syntax", 7 + BIG + 3, NULL);
	big_error("{\"a\": \"", "\", \"b\": 1e999}", "number-range",
		  7 + BIG + 9, "number 1e999 is out of range");
	/* a long string as the whole document: quoted as written */
	{
		size_t len;
		char *t = big("\"", BIG, "\"", &len);

		top_level_not_object(
		    t, len,
		    "must be an object, got a string "
		    "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"");
		free(t);
	}
	/* a big key stays a key: two of them are equal */
	{
		size_t len;
		char *t = big("{\"", BIG, "\": 1, \"", &len), *u;
		pai_diags *d;
		const pai_diag *e;

		u = realloc(t, len + BIG + 5);
		assert_non_null(u);
		memset(u + len, 'x', BIG);
		memcpy(u + len + BIG, "\": 2}", 5);
		e = SYNTAX_ERROR_AT(&d, u, len + BIG + 5, "duplicate-key", 1,
				    2 + BIG + 7);
		assert_memory_equal(e->message, "duplicate key \"xxxx", 19);
		pai_diags_free(d);
		free(u);
	}
}

static void test_large_string_values(void **state)
{
	size_t len, i;
	char *t = big("{\"a\": \"", BIG,
		      "\\n\\\"\\u00e9\\ud83d\\ude00\xc3\xa9\", // c\n"
		      "  \"b\": [\"\", 1], \"c\": \"",
		      &len);
	char *u;
	struct parsed p;
	const char *v;
	const pai__pos *m;

	(void)state;
	/* a second big string on the last line */
	u = realloc(t, len + BIG + 2);
	assert_non_null(u);
	memset(u + len, 'y', BIG);
	memcpy(u + len + BIG, "\"}", 2);
	len += BIG + 2;
	parsed_init(&p, u, len);

	v = json_string_value(json_object_get(p.root, "a"));
	assert_non_null(v);
	assert_int_equal(json_string_length(json_object_get(p.root, "a")),
			 BIG + 1 + 1 + 2 + 4 + 2);
	for (i = 0; i < BIG; i++)
		if (v[i] != 'x')
			break;
	assert_int_equal(i, BIG);
	assert_string_equal(v + BIG, "\n\"\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9");

	m = member(&p.pos, "a");
	assert_string_equal(lc(&p, m->off), "1:7");
	/* the escapes are 2+2+6+12 bytes, then raw é and the quote */
	assert_int_equal(pai__src_string_offset(&p.src, m->off, BIG + 2),
			 m->off + 1 + BIG + 4);
	m = member(&p.pos, "b");
	assert_string_equal(lc(&p, m->key_off), "2:3");
	assert_string_equal(lc(&p, m->off), "2:8");
	assert_string_equal(lc(&p, pai__pos_index(m, 1)->off), "2:13");
	m = member(&p.pos, "c");
	assert_string_equal(lc(&p, m->off), "2:22");
	v = json_string_value(json_object_get(p.root, "c"));
	assert_non_null(v);
	assert_int_equal(strlen(v), BIG);
	assert_int_equal(strspn(v, "y"), BIG);
	parsed_release(&p);
	free(u);
}

/* ---- reading files ----------------------------------------------------- */

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	chmod(path, 0600);
	return unlink(path);
}

static int files_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s", "/tmp/test_parse.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int files_teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static const char *tmp_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* A FIFO named name (in tmp_path) and a child writing data[0..n) to it,
 * exiting 0 when all of it was written; its pid. */
static pid_t fifo_writer(const char *name, const char *data, size_t n,
			 const char **path)
{
	pid_t pid;

	*path = tmp_path(name);
	assert_int_equal(mkfifo(*path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen(*path, "wb");

		_exit(f && fwrite(data, 1, n, f) == n && fclose(f) == 0 ? 0
									: 1);
	}
	return pid;
}


static void write_file(const char *name, const char *data, size_t len)
{
	FILE *f = fopen(tmp_path(name), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_file_read_ok(void **state)
{
	char *out = NULL;
	size_t len = 99;
	int e = -1;

	(void)state;
	write_file("ok.json", LIT("{\"a\":\0 1}\n"));
	assert_int_equal(pai_file_read(&out, &len, &e, tmp_path("ok.json")),
			 PAI_OK);
	assert_int_equal(e, 0);
	assert_int_equal(len, 10);
	assert_memory_equal(out, "{\"a\":\0 1}\n", 11); /* and a NUL */
	free(out);

	write_file("empty.json", "", 0);
	assert_int_equal(pai_file_read(&out, &len, &e, tmp_path("empty.json")),
			 PAI_OK);
	assert_non_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(out[0], '\0');
	free(out);
}

static void test_file_read_missing(void **state)
{
	char *out = tmpdir; /* must be reset to NULL */
	size_t len = 99;
	int e = 0;

	(void)state;
	assert_int_equal(pai_file_read(&out, &len, &e, tmp_path("nope.json")),
			 PAI_ENOTFOUND);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(e, ENOENT);

	/* a path through a file */
	write_file("file", LIT("{}"));
	assert_int_equal(pai_file_read(&out, NULL, &e, tmp_path("file/x.json")),
			 PAI_ENOTFOUND);
	assert_int_equal(e, ENOTDIR);
	assert_int_equal(pai_file_read(&out, NULL, NULL, ""), PAI_ENOTFOUND);
	assert_int_equal(pai_file_read(&out, NULL, NULL, NULL), PAI_EINVAL);
	assert_int_equal(pai_file_read(NULL, NULL, NULL, "x"), PAI_EINVAL);
}

static void test_file_read_directory(void **state)
{
	char *out = tmpdir;
	int e = 0;

	(void)state;
	assert_int_equal(pai_file_read(&out, NULL, &e, tmpdir), PAI_EISDIR);
	assert_null(out);
	assert_int_equal(e, EISDIR);
	assert_string_equal(pai_strerror(PAI_EISDIR), "is a directory");
}

static void test_file_read_unreadable(void **state)
{
	char *out = NULL;
	const char *path;
	int e = 0, fd;

	(void)state;
	write_file("secret.json", LIT("{}"));
	path = tmp_path("secret.json");
	assert_int_equal(chmod(path, 0), 0);
	/* root (and CAP_DAC_OVERRIDE) reads it anyway */
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		skip();
	}
	assert_int_equal(pai_file_read(&out, NULL, &e, path), PAI_EACCES);
	assert_null(out);
	assert_int_equal(e, EACCES);
}

/* Pipes have no size: the buffer grows past its first 64 KiB. */
static void test_file_read_pipe(void **state)
{
	size_t n = 300000, len = 0, i;
	char *out = NULL, *data = malloc(n);
	const char *path;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(data);
	for (i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	pid = fifo_writer("fifo", data, n, &path);
	assert_int_equal(pai_file_read(&out, &len, NULL, path), PAI_OK);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, data, n);
	assert_int_equal(out[n], '\0');
	free(out);
	free(data);
}

/* The bound of pai_file_read_max(): max bytes are read, max + 1 are
 * PAI_ETOOBIG with no errno and no buffer. */
static void test_file_read_max(void **state)
{
	char *out = tmpdir;
	size_t len = 99;
	int e = -1;

	(void)state;
	write_file("ten.json", LIT("{\"a\": 12}\n"));
	assert_int_equal(
	    pai_file_read_max(&out, &len, &e, tmp_path("ten.json"), 10),
	    PAI_OK);
	assert_int_equal(e, 0);
	assert_int_equal(len, 10);
	assert_memory_equal(out, "{\"a\": 12}\n", 11);
	free(out);

	len = 99;
	e = -1;
	assert_int_equal(
	    pai_file_read_max(&out, &len, &e, tmp_path("ten.json"), 9),
	    PAI_ETOOBIG);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(e, 0);

	/* 0: only an empty file */
	write_file("empty.json", "", 0);
	assert_int_equal(
	    pai_file_read_max(&out, &len, &e, tmp_path("empty.json"), 0),
	    PAI_OK);
	assert_int_equal(len, 0);
	assert_int_equal(out[0], '\0');
	free(out);
	assert_int_equal(
	    pai_file_read_max(&out, &len, &e, tmp_path("ten.json"), 0),
	    PAI_ETOOBIG);
	assert_null(out);

	/* the other errors are pai_file_read()'s */
	assert_int_equal(
	    pai_file_read_max(&out, &len, &e, tmp_path("nope.json"), 10),
	    PAI_ENOTFOUND);
	assert_int_equal(e, ENOENT);
	assert_int_equal(pai_file_read_max(&out, &len, &e, tmpdir, 10),
			 PAI_EISDIR);
	assert_int_equal(pai_file_read_max(&out, NULL, NULL, NULL, 10),
			 PAI_EINVAL);
}

/* pai_fd_read_max(): an open descriptor from where it stands (a socket
 * here, which /dev/stdin cannot reopen), bounded as a pipe is, and
 * left open. */
static void test_fd_read_max(void **state)
{
	char *out = tmpdir;
	size_t len = 99;
	int e = -1, sv[2], fd;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[0], "{\"a\": 1}", 9), 9);
	close(sv[0]);
	assert_int_equal(pai_fd_read_max(&out, &len, &e, sv[1], 9), PAI_OK);
	assert_int_equal(e, 0);
	assert_int_equal(len, 9);
	assert_string_equal(out, "{\"a\": 1}");
	free(out);
	/* still open: at its end now */
	assert_int_equal(pai_fd_read_max(&out, &len, &e, sv[1], 9), PAI_OK);
	assert_int_equal(len, 0);
	free(out);
	close(sv[1]);

	/* a regular file past its offset; the bound counts what is left */
	write_file("ten.json", LIT("{\"a\": 12}\n"));
	fd = open(tmp_path("ten.json"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 4, SEEK_SET), 4);
	assert_int_equal(pai_fd_read_max(&out, &len, &e, fd, 5), PAI_ETOOBIG);
	assert_null(out);
	assert_int_equal(e, 0);
	assert_int_equal(lseek(fd, 4, SEEK_SET), 4);
	assert_int_equal(pai_fd_read_max(&out, &len, &e, fd, 6), PAI_OK);
	assert_int_equal(len, 6);
	assert_string_equal(out, ": 12}\n");
	free(out);
	close(fd);

	fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(pai_fd_read_max(&out, &len, &e, fd, 10), PAI_EISDIR);
	assert_int_equal(e, EISDIR);
	close(fd);
	assert_int_equal(pai_fd_read_max(&out, &len, &e, -1, 10), PAI_EINVAL);
}

/* A regular file is refused from its size: a sparse terabyte returns at
 * once, where reading it would take hours. */
static void test_file_read_max_by_size(void **state)
{
	const char *path = tmp_path("sparse.json");
	char *out = tmpdir;
	size_t len = 99;
	int e = -1, fd, r;

	(void)state;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	r = ftruncate(fd, (off_t)1 << 40);
	close(fd);
	if (r != 0) {
		/* a file system without sparse files that big */
		unlink(path);
		skip();
	}
	assert_int_equal(pai_file_read_max(&out, &len, &e, path, 64 << 20),
			 PAI_ETOOBIG);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(e, 0);
	assert_int_equal(unlink(path), 0);
}

/* Devices and pipes have no size: reading stops at byte max + 1. */
static void test_file_read_max_endless(void **state)
{
	char *out = tmpdir, chunk[4096];
	size_t len = 99;
	const char *path;
	pid_t pid;
	int e = -1, status;

	(void)state;
	assert_int_equal(pai_file_read_max(&out, &len, &e, "/dev/zero", 1000),
			 PAI_ETOOBIG);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(e, 0);

	/* a writer that never stops, until the reader goes away */
	memset(chunk, 'x', sizeof(chunk));
	path = tmp_path("endless");
	assert_int_equal(mkfifo(path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY);

		while (fd >= 0 && write(fd, chunk, sizeof(chunk)) > 0)
			;
		_exit(0);
	}
	assert_int_equal(pai_file_read_max(&out, &len, &e, path, 300000),
			 PAI_ETOOBIG);
	assert_null(out);
	assert_int_equal(e, 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(unlink(path), 0);
}

/* The bound is inclusive for pipes too: exactly max bytes are read. */
static void test_file_read_max_pipe_exact(void **state)
{
	size_t n = 200000, len = 0;
	char *out = NULL, *data = malloc(n);
	const char *path;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(data);
	memset(data, 'y', n);
	pid = fifo_writer("exact", data, n, &path);
	assert_int_equal(pai_file_read_max(&out, &len, NULL, path, n), PAI_OK);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, data, n);
	assert_int_equal(out[n], '\0');
	free(out);
	free(data);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest parse[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_binary_garbage),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_nul_byte),
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_deepest_accepted),
	    cmocka_unit_test(test_number_range),
	    cmocka_unit_test(test_trailing_comma),
	    cmocka_unit_test(test_duplicate_key),
	    cmocka_unit_test(test_unterminated_comment),
	    cmocka_unit_test(test_syntax_positions),
	    cmocka_unit_test(test_comments_keep_positions),
	    cmocka_unit_test(test_comments_with_multibyte),
	    cmocka_unit_test(test_strings_are_not_comments),
	    cmocka_unit_test(test_bom),
	    cmocka_unit_test(test_crlf),
	    cmocka_unit_test(test_columns_count_code_points),
	    cmocka_unit_test(test_excerpt_clipping),
	    cmocka_unit_test(test_excerpt_control_characters),
	    cmocka_unit_test(test_string_offset),
	    cmocka_unit_test(test_diags_to_json),
	    cmocka_unit_test(test_diags_from_several_files),
	    cmocka_unit_test(test_many_diagnostics_on_one_line),
	    cmocka_unit_test(test_out_of_memory),
	    cmocka_unit_test(test_parse_arguments),
	    cmocka_unit_test(test_large_string),
	    cmocka_unit_test(test_large_string_errors),
	    cmocka_unit_test(test_large_string_values),
	};
	const struct CMUnitTest files[] = {
	    cmocka_unit_test(test_file_read_ok),
	    cmocka_unit_test(test_file_read_missing),
	    cmocka_unit_test(test_file_read_directory),
	    cmocka_unit_test(test_file_read_unreadable),
	    cmocka_unit_test(test_file_read_pipe),
	    cmocka_unit_test(test_file_read_max),
	    cmocka_unit_test(test_fd_read_max),
	    cmocka_unit_test(test_file_read_max_by_size),
	    cmocka_unit_test(test_file_read_max_endless),
	    cmocka_unit_test(test_file_read_max_pipe_exact),
	};
	int failed;

	failed = cmocka_run_group_tests_name("parse", parse, NULL, NULL);
	failed += cmocka_run_group_tests_name("file_read", files, files_setup,
					      files_teardown);
	return failed ? 1 : 0;
}
