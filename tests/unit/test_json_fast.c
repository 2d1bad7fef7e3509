/* test_json_fast.c - the fast JSON parser (lib/text/json_fast.c) gives what
 * jansson and the position walk give, or gives up and leaves the text to
 * them: on hand-picked edge cases, on every example and corpus config,
 * and on many generated documents. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../json_same.h"
#include "testutil.h"
#include "alloc_fail.h"
#include "text/text.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum outcome { FAST, GAVE_UP, SYNTAX };

/* Parses text both ways through pai__src_parse() and checks that they
 * agree; says whether the fast parser took it, gave up, or the text is
 * not JSON at all. */
static enum outcome both_ways(const char *text, size_t len)
{
	pai_diags *d1 = NULL, *d2 = NULL;
	pai__src src;
	pai__pos p1, p2, p3;
	json_t *r1 = NULL, *r2 = NULL, *r3 = NULL;
	struct pai__arena *arena = NULL;
	int e1, e2, fast;
	enum outcome out;

	assert_int_equal(pai_diags_new(&d1), PAI_OK);
	assert_int_equal(pai_diags_new(&d2), PAI_OK);
	/* the fast parser on its own, on the text as given (comments,
	 * long strings and all), as pai__src_read() runs it before any
	 * other pass: it never takes what pai__src_init() or jansson
	 * refuses */
	fast = pai__json_fast_parse(&r3, &p3, &arena, text, len, true);
	assert_true(fast == PAI_OK || fast == 1);
	if (pai__src_init(&src, d1, "t.json", text, len) != PAI_OK) {
		assert_int_equal(fast, 1);
		pai__src_release(&src);
		pai_diags_free(d1);
		pai_diags_free(d2);
		return SYNTAX;
	}
	/* the fast parser first: it reads the text as given, comments
	 * and all; jansson reads the copy with them blanked out */
	e2 = pai__src_parse(&r2, &p2, &src, d2);
	pai__json_fast = false;
	e1 = pai__src_parse(&r1, &p1, &src, d1);
	pai__json_fast = true;
	assert_int_equal(e1, e2);
	assert_int_equal(pai_diags_count(d1), pai_diags_count(d2));
	if (e1 == PAI_OK) {
		assert_true(json_same(r1, r2));
		assert_true(pos_same(&p1, &p2));
	}
	if (fast == PAI_OK) {
		assert_int_equal(e1, PAI_OK);
		assert_true(json_same(r1, r3));
		assert_true(pos_same(&p1, &p3));
		pai__pos_release(&p3);
		pai__arena_free(arena);
		json_decref(r3);
	}
	out = e1 ? SYNTAX : fast == PAI_OK ? FAST : GAVE_UP;
	json_decref(r1);
	json_decref(r2);
	pai__pos_release(&p1);
	pai__pos_release(&p2);
	pai__src_release(&src);
	pai_diags_free(d1);
	pai_diags_free(d2);
	return out;
}

#define EXPECT(text, outcome)                                                  \
	_assert_int_equal(both_ways(text, strlen(text)), outcome, __FILE__,    \
			  __LINE__)

static void test_values(void **state)
{
	(void)state;
	EXPECT("{}", FAST);
	EXPECT("[]", FAST);
	EXPECT(" \t\r\n{ \"a\" : [ 1 , true , false , null ] } \n", FAST);
	EXPECT("\"top\"", FAST);
	EXPECT("null", FAST);
	EXPECT("{\"a\": {\"b\": {\"c\": []}}, \"d\": [[], {}, [{}]]}", FAST);
	EXPECT("{\"z\": 1, \"a\": 2, \"m\": 3}", FAST); /* order kept */
	EXPECT("{\"k\\u00e9y\": \"v\", \"k\\\"q\": 1}", FAST);
	EXPECT("[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]", FAST);
	EXPECT("[\"\\n\\t\\r\\b\\f\\/\\\\\\\"\"]", FAST);
	EXPECT("[\"\\u00e9\\u20ac\\ud83d\\ude00\\uFFFF\"]", FAST);
	/* refused by jansson: the fast parser leaves them to it */
	EXPECT("", SYNTAX);
	EXPECT("{", SYNTAX);
	EXPECT("{\"a\": 1,}", SYNTAX);
	EXPECT("[1 2]", SYNTAX);
	EXPECT("{\"a\": 1, \"a\": 2}", SYNTAX);
	EXPECT("{\"a\" 1}", SYNTAX);
	EXPECT("[\"\\u0000\"]", SYNTAX);
	EXPECT("[\"\\ud83d\"]", SYNTAX);
	EXPECT("[\"\\ude00\"]", SYNTAX);
	EXPECT("[\"\\ud83d\\u0041\"]", SYNTAX);
	EXPECT("[\"\\x\"]", SYNTAX);
	EXPECT("[\"\\u12\"]", SYNTAX);
	EXPECT("[\"a\tb\"]", SYNTAX);
	EXPECT("[truex]", SYNTAX);
	EXPECT("[nul]", SYNTAX);
	EXPECT("{} {}", SYNTAX);
	EXPECT("{}x", SYNTAX);
	EXPECT("\f{}", SYNTAX);
}

static void test_numbers(void **state)
{
	(void)state;
	EXPECT("[0, -0, 7, -7, 123456789012345678, -123456789012345678]", FAST);
	EXPECT("[0.5, -0.0, 1.25, 3.14159, 0.1, 0.000001, 100.0]", FAST);
	EXPECT("[1e3, 1E3, 1e+3, 1e-3, 2.5E-7, 1e22, 900719925474099.1]", FAST);
	/* exact only through strtod, or out of range: jansson's */
	EXPECT("[9007199254740991.0]", GAVE_UP); /* past 2^53 */
	EXPECT("[1234567890123456789]", GAVE_UP);
	EXPECT("[9223372036854775807]", GAVE_UP);
	EXPECT("[1e23]", GAVE_UP);
	EXPECT("[1e-23]", GAVE_UP);
	EXPECT("[0.1234567890123456789]", GAVE_UP);
	EXPECT("[1e-400]", GAVE_UP);
	EXPECT("[9223372036854775808]", SYNTAX);
	EXPECT("[1e400]", SYNTAX);
	EXPECT("[01]", SYNTAX);
	EXPECT("[-]", SYNTAX);
	EXPECT("[1.]", SYNTAX);
	EXPECT("[.5]", SYNTAX);
	EXPECT("[1e]", SYNTAX);
	EXPECT("[+1]", SYNTAX);
	EXPECT("[1.5.3]", SYNTAX);
}

/* Strings are read eight plain bytes at a time: an escape, a quote, a
 * control character or UTF-8 at every place of the first words. */
static void test_string_words(void **state)
{
	static const char *const odd[] = {"\\n", "\\\"", "\xc3\xa9", "\t",
					  "\x7f", "\xff"};
	char t[64];
	size_t at, k;

	(void)state;
	for (k = 0; k < sizeof(odd) / sizeof(odd[0]); k++)
		for (at = 0; at < 20; at++) {
			snprintf(t, sizeof(t), "[\"%.*s%s%.*s\"]", (int)at,
				 "abcdefghijklmnopqrstuvwxyz", odd[k],
				 (int)(20 - at), "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
			/* a raw tab and 0xff are refused, the rest taken */
			assert_int_equal(both_ways(t, strlen(t)),
					 k >= 3 && k != 4 ? SYNTAX : FAST);
		}
}

/* A key repeated in many objects is one copy in the tree; past the
 * table's room (128 distinct keys), keys are copied each, still right. */
static void test_keys_shared(void **state)
{
	const char *t = "[{\"name\": 1, \"b\": 2}, {\"b\": 3, \"name\": 4}]";
	char big[300 * 24 + 8];
	size_t n = 0, k, r;
	struct pai__arena *arena = NULL;
	json_t *root;
	pai__pos pos;

	(void)state;
	assert_int_equal(
	    pai__json_fast_parse(&root, &pos, &arena, t, strlen(t), false),
	    PAI_OK);
	assert_string_equal(pos.child[0].child[0].key, "name");
	assert_ptr_equal(pos.child[0].child[0].key, pos.child[1].child[1].key);
	assert_ptr_equal(pos.child[0].child[1].key, pos.child[1].child[0].key);
	pai__pos_release(&pos);
	pai__arena_free(arena);
	json_decref(root);
	/* 300 distinct keys, twice over */
	big[n++] = '[';
	for (r = 0; r < 2; r++) {
		big[n++] = '{';
		for (k = 0; k < 300; k++)
			n += (size_t)snprintf(big + n, sizeof(big) - n,
					      "%s\"k%zu\": %zu", k ? "," : "",
					      k, k);
		big[n++] = '}';
		if (r == 0)
			big[n++] = ',';
	}
	big[n++] = ']';
	assert_int_equal(both_ways(big, n), FAST);
}

static void test_depth(void **state)
{
	char t[2 * 3000 + 1];
	size_t n;

	(void)state;
	for (n = 0; n < 256; n++) {
		t[n] = '[';
		t[256 + n] = ']';
	}
	assert_int_equal(both_ways(t, 512), FAST);
	for (n = 0; n < 300; n++) {
		t[n] = '[';
		t[300 + n] = ']';
	}
	assert_int_equal(both_ways(t, 600), GAVE_UP);
	for (n = 0; n < 3000; n++) {
		t[n] = '[';
		t[3000 + n] = ']';
	}
	assert_int_equal(both_ways(t, 6000), SYNTAX);
}

/* Comments and long strings are json.c's: the positions still match. */
static void test_comments_and_long_strings(void **state)
{
	size_t big = pai__big_string;

	(void)state;
	EXPECT("// c\n{\"a\": /* b */ [1, 2] // d\n}", FAST);
	EXPECT("\xEF\xBB\xBF/* bom */ {\"a\"/**/:/***/1/*\n*/,\"b\"://\n2}//",
	       FAST);
	EXPECT("{\"a\": \"// not a comment /* nor this */\"}", FAST);
	EXPECT("{\"a\": 1 / 2}", SYNTAX);
	EXPECT("{\"a\": 1} /* open", SYNTAX);
	/* what only pai__src_init() checks, which pai__src_read() skips
	 * when the fast parser takes the text: it must give up on them */
	EXPECT("{\"a\": 1} // caf\xc3\xa9 \xe2\x82\xac", FAST);
	EXPECT("{\"a\": 1} // bad \xff byte", SYNTAX);
	EXPECT("{\"a\": /* bad \xc3 */ 1}", SYNTAX);
	EXPECT("{\"a\": /* overlong \xc0\xaf */ 1}", SYNTAX);
	assert_int_equal(both_ways("{\"a\": 1} // nul \0 byte", 22), SYNTAX);
	assert_int_equal(both_ways("{\"a\": /* nul \0 */ 1}", 20), SYNTAX);
	/* long strings: json.c cuts them out for jansson; the fast parser
	 * reads them in place, to the same value */
	pai__big_string = 4;
	EXPECT("{\"a\": \"long string\", \"b\": [\"xxxxxxxx\", 1]}", FAST);
	pai__big_string = big;
}

/* Out of memory at each allocation in turn: PAI_ENOMEM, nothing leaked,
 * or a parse as good as any. */
static void test_out_of_memory(void **state)
{
	const char *t = "{\"a\": [1, 2.5, \"x\\u00e9\", {\"b\": null}], "
			"\"c\": \"d\"}";
	pai__pos pos;
	json_t *root;
	struct pai__arena *arena;
	long n;
	int err, failed;

	(void)state;
	for (n = 0;; n++) {
		arena = NULL;
		alloc_fail_begin(n, 1);
		err = pai__json_fast_parse(&root, &pos, &arena, t, strlen(t),
					   true);
		failed = alloc_fail_end();
		if (!failed) {
			assert_int_equal(err, PAI_OK);
			assert_non_null(arena);
			pai__pos_release(&pos);
			pai__arena_free(arena);
			json_decref(root);
			break;
		}
		assert_null(arena);
		/* jansson says nothing when its allocation fails; either
		 * way the parser holds nothing after */
		assert_true(err == PAI_ENOMEM || err == 1);
		assert_null(root);
		assert_int_equal(pos.nchild, 0);
	}
	assert_true(n > 10);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) &&
	    fread(b, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* Every .json file of dir both ways; counts what took the fast path. */
static void each_json(const char *dir, size_t *files, size_t *fast)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), len = 0;
		char *text;

		if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		text = read_all(path, &len);
		assert_non_null(text);
		(*files)++;
		if (both_ways(text, len) == FAST)
			(*fast)++;
		free(text);
	}
	closedir(d);
}

static void test_examples_and_corpus(void **state)
{
	size_t files = 0, fast = 0;
	const char *top = getenv("PAI_SRCDIR"), *corpus;
	char dir[4096];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/examples", top ? top : ".");
	each_json(dir, &files, &fast);
	assert_true(files >= 5);
	corpus = test_corpus_dir("PAI_CORPUS", "the fast path on the corpus "
					       "(the examples only)");
	if (corpus)
		each_json(corpus, &files, &fast);
	print_message("%zu of %zu configs took the fast path\n", fast, files);
	/* the rest are syntax errors of the corpus, left to jansson */
	assert_true(fast * 10 >= files * 9);
}

/* Generated documents: random nesting, keys, escapes and numbers, with
 * one byte in five changed, so that many are not JSON at all. */
static unsigned long rnd_state = 20261125;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rnd_state >> 33) % n);
}

static void gen(char *b, size_t *n, size_t cap, int depth)
{
	static const char *const atoms[] = {"0",
					    "-0",
					    "12",
					    "-3.25",
					    "1e5",
					    "2E-2",
					    "0.1",
					    "true",
					    "false",
					    "null",
					    "\"\"",
					    "\"a b\"",
					    "\"\\u00e9\"",
					    "\"\\n\"",
					    "\"\xc3\xa9\"",
					    "1.0e+2",
					    "\"\\ud83d\\ude00\"",
					    "99999999999999999999",
					    "\"\\/\"",
					    "-0.0",
					    "1e-30",
					    "0.12345678901234567890",
					    "1234567890123456789"};
	const char *a;
	unsigned k, i;

	if (*n + 64 > cap)
		return;
	k = depth > 4 ? 2 : rnd(4);
	if (k < 2) {
		int obj = k == 0;
		unsigned m = rnd(4);

		b[(*n)++] = obj ? '{' : '[';
		for (i = 0; i < m && *n + 64 < cap; i++) {
			if (i)
				b[(*n)++] = ',';
			if (obj)
				*n += (size_t)snprintf(b + *n, cap - *n,
						       "\"k%u\":", rnd(6));
			gen(b, n, cap, depth + 1);
		}
		b[(*n)++] = obj ? '}' : ']';
		return;
	}
	a = atoms[rnd(sizeof(atoms) / sizeof(atoms[0]))];
	*n += (size_t)snprintf(b + *n, cap - *n, "%s", a);
}

static void test_generated(void **state)
{
	static const char noise[] = "{}[],:\"\\ 0e.-x\n";
	char b[4096];
	size_t i, n, count[3] = {0, 0, 0};

	(void)state;
	for (i = 0; i < 20000; i++) {
		n = 0;
		gen(b, &n, sizeof(b), 0);
		if (i % 5 == 0 && n)
			b[rnd((unsigned)n)] = noise[rnd(sizeof(noise) - 1)];
		count[both_ways(b, n)]++;
	}
	print_message("generated: %zu fast, %zu left to jansson, %zu not "
		      "JSON\n",
		      count[FAST], count[GAVE_UP], count[SYNTAX]);
	assert_true(count[FAST] > 1000 && count[GAVE_UP] > 100 &&
		    count[SYNTAX] > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_keys_shared),
	    cmocka_unit_test(test_string_words),
	    cmocka_unit_test(test_comments_and_long_strings),
	    cmocka_unit_test(test_out_of_memory),
	    cmocka_unit_test(test_examples_and_corpus),
	    cmocka_unit_test(test_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
