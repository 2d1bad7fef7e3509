/* test_yaml.c - protocol-v2 YAML loaded as js-yaml 3.13.1's safeLoad
 * loads it (the rest-server's loader): scalar resolution, keys and their
 * order, anchors, merges, one document, the bounds against hostile
 * input, positions, and agreement with js-yaml over both corpora.
 *
 * Expected values marked "js-yaml:" were printed by node 20 running
 * js-yaml 3.13.1 (npm pack js-yaml@3.13.1) over the same text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "alloc_fail.h"
#include "testutil.h"
#include "text/text.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define LIT(s) (s), (sizeof(s) - 1)

struct loaded {
	pai_diags *d;
	pai__src src;
	pai__pos pos;
	json_t *root;
	int err;
};

static void load(struct loaded *l, const char *text, size_t len)
{
	memset(l, 0, sizeof(*l));
	assert_int_equal(pai_diags_new(&l->d), PAI_OK);
	l->err = pai__src_init_yaml(&l->src, l->d, "t.yaml", text, len);
	if (!l->err)
		l->err = pai__yaml_parse(&l->root, &l->pos, &l->src, l->d);
}

static void unload(struct loaded *l)
{
	json_decref(l->root);
	pai__pos_release(&l->pos);
	pai__src_release(&l->src);
	pai_diags_free(l->d);
}

/* Loads text and expects one error of rule at line:col. */
static void fails_at(const char *text, size_t len, const char *rule,
		     unsigned line, unsigned col, const char *file, int fline)
{
	struct loaded l;
	const pai_diag *e;

	load(&l, text, len);
	_assert_int_equal(l.err, PAI_ESYNTAX, file, fline);
	_assert_true(l.root == NULL, "root == NULL", file, fline);
	_assert_int_equal(pai_diags_count(l.d), 1, file, fline);
	e = pai_diags_get(l.d, 0);
	_assert_string_equal(e->rule, rule, file, fline);
	if (line) {
		_assert_int_equal(e->line, line, file, fline);
		_assert_int_equal(e->column, col, file, fline);
	}
	unload(&l);
}
#define FAILS_AT(t, rule, line, col)                                           \
	fails_at(LIT(t), rule, line, col, __FILE__, __LINE__)

/* ---- scalars ------------------------------------------------------------ */

/* Expected: "n" null, "b:0/1", "i:<int>", "r:<real>", "s:<string>",
 * "date", "bin", "inf" (non-finite), "o" {}, "a" [], "err:<rule>". */
static const struct {
	const char *yaml, *want;
} scalars[] = {
    {"~", "n"}, {"null", "n"}, {"Null", "n"}, {"NULL", "n"},
    {"nULL", "s:nULL"}, {"true", "b:1"}, {"True", "b:1"}, {"TRUE", "b:1"},
    {"tRUE", "s:tRUE"}, {"false", "b:0"}, {"FALSE", "b:0"},
    /* YAML 1.1 booleans are strings in js-yaml */
    {"yes", "s:yes"}, {"no", "s:no"}, {"on", "s:on"}, {"off", "s:off"},
    {"y", "s:y"}, {"n", "s:n"},
    {"0", "i:0"}, {"-0", "i:0"}, {"+12", "i:12"}, {"1_000", "i:1000"},
    {"010", "i:8"}, {"-010", "i:-8"}, {"08", "s:08"}, {"0o10", "s:0o10"},
    {"0b101", "i:5"}, {"-0b11", "i:-3"}, {"0x1F", "i:31"},
    {"0xff_ff", "i:65535"}, {"1:20", "i:80"}, {"-1:30:00", "i:-5400"},
    {"1:60", "s:1:60"}, {"1_", "s:1_"}, {"_1", "s:_1"},
    /* js-yaml: 9007199254740992 (a double) */
    {"9007199254740993", "i:9007199254740992"},
    /* js-yaml: 1.2345678901234568e+29 */
    {"123456789012345678901234567890", "r:1.2345678901234568e+29"},
    /* js-yaml: 9223372036854776000, past a long long */
    {"0x7fffffffffffffff", "r:9223372036854775808"},
    {"1.5", "r:1.5"}, {"-1.5", "r:-1.5"}, {".5", "r:0.5"},
    {"-.5", "s:-.5"}, {"+.5", "s:+.5"}, {"1.", "i:1"},
    /* js-yaml 3.13.1: 1e3 is a float (its pattern makes the dot
     * optional) */
    {"1e3", "i:1000"}, {"1.5e3", "i:1500"}, {"1E-2", "r:0.01"},
    {"1.0", "i:1"}, {"2.0", "i:2"}, {"1_0.5", "r:10.5"},
    {"1:30.5", "r:90.5"}, {".inf", "inf"}, {"-.Inf", "inf"},
    {"+.INF", "inf"}, {".nan", "inf"}, {".NaN", "inf"},
    {"-.nan", "s:-.nan"}, {".Inf_", "s:.Inf_"},
    {"2021-01-01", "date"}, {"2021-1-1", "s:2021-1-1"},
    {"2021-01-01T10:20:30Z", "date"}, {"2021-01-01 10:20:30.5 +02:00", "date"},
    {"2021-01-01t10:20:30", "date"}, {"2021-13-45", "date"},
    {"\"010\"", "s:010"}, {"'true'", "s:true"}, {"!!str 010", "s:010"},
    {"!!int \"010\"", "i:8"}, {"!!float 1", "i:1"}, {"!!float \"1e3\"", "i:1000"},
    {"!!bool \"true\"", "b:1"}, {"!!null \"\"", "err:yaml-bad-tagged-value"},
    {"!!null", "n"}, {"!!str", "s:"}, {"!!timestamp 2021-01-01", "date"},
    {"!!binary aGVsbG8=", "bin"}, {"!!binary aGVsbG8", "err:yaml-bad-tagged-value"},
    {"!!merge <<", "s:<<"}, {"!!map", "o"}, {"!!seq", "a"}, {"!!set", "o"},
    {"!!omap", "a"}, {"!!pairs", "a"}, {"! 010", "s:010"}, {"<<", "s:<<"},
    {"|\n  block 1", "s:block 1\n"}, {">-\n  folded\n  text", "s:folded text"},
    {"!!int abc", "err:yaml-bad-tagged-value"},
    {"!!bool yes", "err:yaml-bad-tagged-value"},
    {"!!map x", "err:yaml-bad-tagged-value"},
    {"!!foo x", "err:yaml-unknown-tag"}, {"!foo x", "err:yaml-unknown-tag"},
    {"!!js/function 'function () {}'", "err:yaml-unknown-tag"},
    {"!<tag:yaml.org,2002:str> 1", "s:1"},
    {"[1, {a: b}]", "J:[1,{\"a\":\"b\"}]"},
    {"!!set {a, b}", "J:{\"a\":null,\"b\":null}"},
    {"!!set {a: 1}", "err:yaml-bad-tagged-value"},
    {"!!omap [a: 1, b: 2]", "J:[{\"a\":1},{\"b\":2}]"},
    {"!!omap [a: 1, a: 2]", "err:yaml-bad-tagged-value"},
    /* js-yaml: [["a",1],["a",2]] */
    {"!!pairs [a: 1, a: 2]", "J:[[\"a\",1],[\"a\",2]]"},
};

static void check_scalar(const char *yaml, const char *want)
{
	struct loaded l;
	char *text;
	json_t *v;
	size_t n = strlen(yaml) + 5;
	const pai__pos *p;

	text = malloc(n);
	assert_non_null(text);
	snprintf(text, n, "v: %s\n", yaml);
	load(&l, text, strlen(text));
	free(text);
	if (strncmp(want, "err:", 4) == 0) {
		if (l.err != PAI_ESYNTAX)
			fail_msg("%s: loaded, want %s", yaml, want);
		assert_string_equal(pai_diags_get(l.d, 0)->rule, want + 4);
		unload(&l);
		return;
	}
	if (l.err)
		fail_msg("%s: %s", yaml, pai_diags_get(l.d, 0)->message);
	v = json_object_get(l.root, "v");
	p = pai__pos_member(&l.pos, "v");
	assert_non_null(v);
	assert_non_null(p);
	switch (strcmp(want, "inf") && strcmp(want, "bin") ? want[0] : 0) {
	case 'n': assert_true(json_is_null(v)); break;
	case 'b': assert_int_equal(json_is_true(v), want[2] == '1'); break;
	case 'i':
		if (!json_is_integer(v))
			fail_msg("%s: not an integer", yaml);
		assert_int_equal(json_integer_value(v), strtoll(want + 2, 0, 10));
		break;
	case 'r':
		assert_true(json_is_real(v));
		assert_true(json_real_value(v) == strtod(want + 2, NULL));
		break;
	case 's':
		if (!json_is_string(v) || strcmp(json_string_value(v), want + 2))
			fail_msg("%s: want string '%s'", yaml, want + 2);
		break;
	case 'o': assert_true(json_is_object(v) && !json_object_size(v)); break;
	case 'a': assert_true(json_is_array(v) && !json_array_size(v)); break;
	case 'J': {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		if (strcmp(s, want + 2))
			fail_msg("%s: got %s, want %s", yaml, s, want + 2);
		free(s);
		break;
	}
	default: break;
	}
	if (!strcmp(want, "date")) {
		assert_true(json_is_object(v) && !json_object_size(v));
		assert_int_equal(p->ykind, PAI__YK_DATE);
	} else if (!strcmp(want, "bin")) {
		assert_int_equal(p->ykind, PAI__YK_BINARY);
	} else if (!strcmp(want, "inf")) {
		assert_true(json_is_real(v));
		assert_int_equal(p->ykind, PAI__YK_NONFINITE);
	} else {
		assert_int_equal(p->ykind, PAI__YK_PLAIN);
	}
	unload(&l);
}

static void test_scalars(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		check_scalar(scalars[i].yaml, scalars[i].want);
}

static void test_string_with_nul(void **state)
{
	struct loaded l;
	json_t *v;

	(void)state;
	load(&l, LIT("v: \"a\\tb\\u00e9\\0c\"\n"));
	assert_int_equal(l.err, PAI_OK);
	v = json_object_get(l.root, "v");
	assert_int_equal(json_string_length(v), 7);
	assert_memory_equal(json_string_value(v), "a\tb\xC3\xA9\0c", 7);
	unload(&l);
}

/* ---- keys ----------------------------------------------------------------- */

static void expect_json(const char *yaml, const char *want)
{
	struct loaded l;
	char *s;

	load(&l, yaml, strlen(yaml));
	if (l.err)
		fail_msg("%s: %s", yaml, pai_diags_get(l.d, 0)->message);
	s = json_dumps(l.root, JSON_COMPACT | JSON_ENCODE_ANY);
	if (strcmp(s, want))
		fail_msg("got %s\nwant %s", s, want);
	free(s);
	unload(&l);
}

static void test_keys(void **state)
{
	(void)state;
	/* js-yaml: {"1":"y","2":"x","9":3,"10":"z","4294967294":5,"b":1,
	 * "a":2,"4294967295":4}: JavaScript's order (011 is octal 9) */
	expect_json("b: 1\n2: x\na: 2\n1: y\n011: 3\n10: z\n4294967295: 4\n"
		    "4294967294: 5\n",
		    "{\"1\":\"y\",\"2\":\"x\",\"9\":3,\"10\":\"z\","
		    "\"4294967294\":5,\"b\":1,\"a\":2,\"4294967295\":4}");
	/* js-yaml: {"null":1,"true":2,"1000":3,"0.5":4,"Infinity":5,
	 * "NaN":6,"1e+21":7,"1e-7":8} */
	expect_json("null: 1\ntrue: 2\n1e3: 3\n0.5: 4\n.inf: 5\n.nan: 6\n"
		    "1e21: 7\n0.0000001: 8\n",
		    "{\"1000\":3,\"null\":1,\"true\":2,\"0.5\":4,"
		    "\"Infinity\":5,\"NaN\":6,\"1e+21\":7,\"1e-7\":8}");
	/* js-yaml: {"[object Object]":1,"a,b,,1":2} */
	expect_json("? {x: 1}\n: 1\n? [a, b, null, 1]\n: 2\n",
		    "{\"[object Object]\":1,\"a,b,,1\":2}");
	/* js-yaml (TZ=UTC): the Date's String() */
	expect_json("2021-01-01: 1\n",
		    "{\"Fri Jan 01 2021 00:00:00 GMT+0000 (Coordinated "
		    "Universal Time)\":1}");
	/* __proto__ becomes the prototype, not an own key */
	expect_json("__proto__: 1\na: 2\n", "{\"a\":2}");
	FAILS_AT("? [[1]]\n: 1\n", "yaml-bad-key", 1, 4);
}

static void test_duplicates(void **state)
{
	struct loaded l;

	(void)state;
	FAILS_AT("a: 1\nb: 2\na: 3\n", "yaml-duplicate-key", 3, 1);
	/* 1 and "1" are the same key once stringified */
	FAILS_AT("1: x\n\"1\": y\n", "yaml-duplicate-key", 2, 1);
	FAILS_AT("x:\n  - {k: 1, k: 2}\n", "yaml-duplicate-key", 2, 12);
	load(&l, LIT("a: 1\nb: 2\na: 3\n"));
	assert_string_equal(pai_diags_get(l.d, 0)->message,
			    "duplicated mapping key 'a' (first at line 1)");
	unload(&l);
}

/* ---- anchors and merges ----------------------------------------------------- */

static void test_anchors_merges(void **state)
{
	(void)state;
	expect_json("a: &x {k: 1}\nb: *x\nc: &s hi\nd: *s\n",
		    "{\"a\":{\"k\":1},\"b\":{\"k\":1},\"c\":\"hi\","
		    "\"d\":\"hi\"}");
	/* explicit keys win over merged ones, wherever they are */
	expect_json("base: &b {x: 1, y: 2}\nm:\n  x: 0\n  <<: *b\n  y: 3\n",
		    "{\"base\":{\"x\":1,\"y\":2},\"m\":{\"x\":0,\"y\":3}}");
	/* the earlier map of a list wins */
	expect_json("a: &a {k: 1, a: 1}\nb: &b {k: 2, b: 2}\nm:\n"
		    "  <<: [*a, *b]\n",
		    "{\"a\":{\"k\":1,\"a\":1},\"b\":{\"k\":2,\"b\":2},"
		    "\"m\":{\"k\":1,\"a\":1,\"b\":2}}");
	/* a quoted "<<" is an ordinary key */
	expect_json("\"<<\": 1\n", "{\"<<\":1}");
	/* a later anchor of the same name wins */
	expect_json("a: &x 1\nb: &x 2\nc: *x\n",
		    "{\"a\":1,\"b\":2,\"c\":2}");
	FAILS_AT("a: 1\nb: *nope\n", "yaml-unknown-alias", 2, 4);
	FAILS_AT("m:\n  <<: 1\n", "yaml-bad-merge", 2, 7);
	FAILS_AT("m:\n  <<: [{a: 1}, x]\n", "yaml-bad-merge", 2, 16);
	/* a merged key may be set again; an explicit one may not */
	FAILS_AT("a: &a {k: 1}\nm:\n  <<: *a\n  k: 2\n  k: 3\n",
		 "yaml-duplicate-key", 5, 3);
}

/* ---- documents --------------------------------------------------------------- */

static void expect_null(const char *text, size_t len)
{
	struct loaded l;

	load(&l, text, len);
	assert_int_equal(l.err, PAI_OK);
	assert_true(json_is_null(l.root));
	unload(&l);
}

static void test_documents(void **state)
{
	(void)state;
	expect_null(LIT(""));
	expect_null(LIT("# only a comment\n\n"));
	expect_null(LIT("---\n"));
	expect_null(LIT("--- # x\n...\n"));
	expect_json("--- {a: 1}\n...\n", "{\"a\":1}");
	FAILS_AT("a: 1\n---\nb: 2\n", "yaml-multiple-documents", 2, 1);
	FAILS_AT("a: 1\n---\n", "yaml-multiple-documents", 2, 1);
	FAILS_AT("%YAML 2.0\n---\na: 1\n", "yaml-directive", 0, 0);
	expect_json("%YAML 1.2\n---\na: 1\n", "{\"a\":1}");
	FAILS_AT("a: 1\nb: [1, 2\n", "yaml-syntax", 3, 1);
	FAILS_AT("a:\n  b: 1\n c: 2\n", "yaml-syntax", 3, 2);
}

static void test_tabs_bom_encoding(void **state)
{
	struct loaded l;
	const pai_diag *e;

	(void)state;
	FAILS_AT("a:\n\tb: 1\n", "yaml-tab-indent", 2, 1);
	FAILS_AT("a: 1\n\tb: 2\n", "yaml-tab-indent", 2, 1);
	/* a tab after the colon is separation, not indentation */
	expect_json("a:\t1\n", "{\"a\":1}");
	FAILS_AT("a: x\0y\n", "nul-byte", 1, 5);
	FAILS_AT("a: \xC3\x28\n", "invalid-utf8", 1, 4);
	FAILS_AT("a: \x01\n", "yaml-syntax", 1, 4);
	/* a BOM is dropped; columns stay right after it */
	expect_json("\xEF\xBB\xBF" "a: 1\n", "{\"a\":1}");
	load(&l, LIT("\xEF\xBB\xBF" "a: 1\na: 2\n"));
	assert_int_equal(l.err, PAI_ESYNTAX);
	e = pai_diags_get(l.d, 0);
	assert_int_equal(e->line, 2);
	assert_int_equal(e->column, 1);
	unload(&l);
	load(&l, LIT("\xEF\xBB\xBF" "ab: 1\n"));
	assert_int_equal(l.err, PAI_OK);
	assert_int_equal(l.pos.off, 3);
	assert_int_equal(pai__pos_member(&l.pos, "ab")->key_off, 3);
	assert_int_equal(pai__pos_member(&l.pos, "ab")->off, 7);
	unload(&l);
}

/* ---- positions ------------------------------------------------------------- */

static void test_positions(void **state)
{
	static const char t[] = "# c\nname: \"é\"  # x\nlist:\n  - a\n"
				"  - &n {k: v}\nmap:\n  kk: |\n    text\n"
				"al: *n\n";
	struct loaded l;
	const pai__pos *p, *q;

	(void)state;
	load(&l, LIT(t));
	assert_int_equal(l.err, PAI_OK);
	assert_int_equal(l.pos.off, 4);
	p = pai__pos_member(&l.pos, "name");
	assert_int_equal(p->key_off, 4);
	assert_int_equal(p->off, 10);
	p = pai__pos_member(&l.pos, "list");
	assert_int_equal(p->off, (size_t)(strstr(t, "- a") - t));
	assert_int_equal(pai__pos_index(p, 0)->off,
			 (size_t)(strstr(t, "a\n") - t));
	/* past the anchor: the value itself */
	q = pai__pos_index(p, 1);
	assert_int_equal(q->off, (size_t)(strstr(t, "{k") - t));
	assert_int_equal(pai__pos_member(q, "k")->key_off,
			 (size_t)(strstr(t, "k: v") - t));
	p = pai__pos_member(&l.pos, "map");
	assert_int_equal(p->off, (size_t)(strstr(t, "kk") - t));
	assert_int_equal(pai__pos_member(p, "kk")->off,
			 (size_t)(strstr(t, "|") - t));
	/* an alias stands where it is written; its members where they
	 * were written */
	p = pai__pos_member(&l.pos, "al");
	assert_int_equal(p->off, (size_t)(strstr(t, "*n") - t));
	assert_int_equal(pai__pos_member(p, "k")->off,
			 (size_t)(strstr(t, "v}") - t));
	unload(&l);
	/* columns count characters */
	FAILS_AT("é: 1\né: 2\n", "yaml-duplicate-key", 2, 1);
	FAILS_AT("x: [é, !!int é]\n", "yaml-bad-tagged-value", 1, 14);
}

/* ---- hostile input ------------------------------------------------------------ */

static void test_billion_laughs(void **state)
{
	pai__buf b = PAI__BUF_INIT;
	int i, j;

	(void)state;
	pai__buf_puts(&b, "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, "
			  "lol, lol]\n");
	for (i = 1; i < 10; i++) {
		pai__buf_printf(&b, "a%d: &a%d [", i, i);
		for (j = 0; j < 10; j++)
			pai__buf_printf(&b, "%s*a%d", j ? ", " : "", i - 1);
		pai__buf_puts(&b, "]\n");
	}
	assert_false(b.oom);
	fails_at(b.data, b.len, "yaml-too-many-nodes", 0, 0, __FILE__,
		 __LINE__);
	pai__buf_release(&b);
	/* merges count too */
	FAILS_AT("a: &a {x: [*b]}\n", "yaml-unknown-alias", 1, 12);
}

static void deep(const char *open, const char *close, size_t n,
		 const char *rule)
{
	pai__buf b = PAI__BUF_INIT;
	struct loaded l;
	size_t i;

	for (i = 0; i < n; i++)
		pai__buf_puts(&b, open);
	pai__buf_puts(&b, "x");
	for (i = 0; close && i < n; i++)
		pai__buf_puts(&b, close);
	pai__buf_putc(&b, '\n');
	assert_false(b.oom);
	load(&l, b.data, b.len);
	if (rule) {
		assert_int_equal(l.err, PAI_ESYNTAX);
		assert_string_equal(pai_diags_get(l.d, 0)->rule, rule);
	} else {
		assert_int_equal(l.err, PAI_OK);
	}
	unload(&l);
	pai__buf_release(&b);
}

static void test_deep(void **state)
{
	pai__buf b = PAI__BUF_INIT;
	size_t i;

	(void)state;
	deep("[", "]", 100000, "yaml-too-deep");
	deep("[", NULL, 100000, "yaml-too-deep");
	deep("[", "]", pai__yaml_max_depth, NULL);
	deep("[", "]", pai__yaml_max_depth + 1, "yaml-too-deep");
	deep("{a: ", "}", 5000, "yaml-too-deep");
	/* "- - - - x" nests on one line */
	deep("- ", NULL, 100000, "yaml-too-deep");
	/* and block mappings, one level a line */
	for (i = 0; i < 2000; i++) {
		pai__buf_printf(&b, "%*sk:\n", (int)i, "");
	}
	assert_false(b.oom);
	fails_at(b.data, b.len, "yaml-too-deep", 1001, 1001, __FILE__,
		 __LINE__);
	pai__buf_release(&b);
	/* aliases of aliases cannot nest deeper either */
	b = (pai__buf)PAI__BUF_INIT;
	pai__buf_puts(&b, "a0: &a0 [[[[[[[[[[x]]]]]]]]]]\n");
	for (i = 1; i < 200; i++)
		pai__buf_printf(&b, "a%zu: &a%zu [[[[[[[[[*a%zu]]]]]]]]]\n", i,
				i, i - 1);
	assert_false(b.oom);
	fails_at(b.data, b.len, "yaml-too-deep", 0, 0, __FILE__, __LINE__);
	pai__buf_release(&b);
}

static void test_big_scalar(void **state)
{
	size_t n = 50u << 20, i;
	char *t = malloc(n + 16);
	struct loaded l;

	(void)state;
	assert_non_null(t);
	memcpy(t, "v: ", 3);
	for (i = 3; i < n; i++)
		t[i] = (char)('a' + i % 26);
	t[n] = '\n';
	load(&l, t, n + 1);
	assert_int_equal(l.err, PAI_OK);
	assert_int_equal(json_string_length(json_object_get(l.root, "v")),
			 n - 3);
	unload(&l);
	/* and as a quoted scalar, with its error at the very end */
	t[3] = '"';
	load(&l, t, n + 1);
	assert_int_equal(l.err, PAI_ESYNTAX);
	unload(&l);
	free(t);
}

/* ---- out of memory ------------------------------------------------------------ */

static void test_alloc_fail(void **state)
{
	static const char t[] =
	    "a: &a {k: [1, 2.5, x], 2: 3}\nb:\n  <<: *a\n  c: *a\n"
	    "d: !!pairs [p: 1]\n2021-01-01: 1\n";
	struct loaded l;
	long n;
	int failed;

	(void)state;
	for (n = 0;; n++) {
		memset(&l, 0, sizeof(l));
		assert_int_equal(pai_diags_new(&l.d), PAI_OK);
		alloc_fail_begin(n, 1);
		l.err = pai__src_init_yaml(&l.src, l.d, "t.yaml", LIT(t));
		if (!l.err)
			l.err = pai__yaml_parse(&l.root, &l.pos, &l.src, l.d);
		failed = alloc_fail_end();
		if (!failed) {
			assert_int_equal(l.err, PAI_OK);
			unload(&l);
			break;
		}
		if (l.err != PAI_ENOMEM)
			fail_msg("allocation %ld: %d", n, l.err);
		assert_null(l.root);
		unload(&l);
	}
	assert_true(n > 20);
}

/* ---- the corpora, against js-yaml ---------------------------------------------- */

/* The files js-yaml 3.13.1 refuses, found by running
 *   node -e 'safeLoad(text with a leading BOM dropped)'
 * over every file (see the comment at the top). All other files load. */
static const char *const refused_examples[] = {
    "contrib__edu-examples__cifar10_cnn_tf2_gpu_horovod.2428945b.yaml",
    "docs__pai-job-protocol.08feddf7.yaml",
    "docs__pai-job-protocol.0c49069b.yaml",
    "docs__pai-job-protocol.0f08b55c.yaml",
    "docs__pai-job-protocol.20210599.yaml",
    "docs__pai-job-protocol.31a55cb3.yaml",
    "docs__pai-job-protocol.41ef9fea.yaml",
    "docs__pai-job-protocol.44809461.yaml",
    "docs__pai-job-protocol.46398b3f.yaml",
    "docs__pai-job-protocol.666044db.yaml",
    "docs__pai-job-protocol.74b24935.yaml",
    "docs__pai-job-protocol.751f47af.yaml",
    "docs__pai-job-protocol.77b5989b.yaml",
    "docs__pai-job-protocol.7c27eab8.yaml",
    "docs__pai-job-protocol.7fa57787.yaml",
    "docs__pai-job-protocol.87960b9c.yaml",
    "docs__pai-job-protocol.9ad77aeb.yaml",
    "docs__pai-job-protocol.afe86280.yaml",
    "docs__pai-job-protocol.c9cd23ff.yaml",
    "docs__pai-job-protocol.d08a4603.yaml",
    "docs__pai-job-protocol.d6a3f13f.yaml",
    "docs__pai-job-protocol.dc540596.yaml",
    "docs__pai-job-protocol.df2b6883.yaml",
    "docs__pai-protocol.2cc1ce62.yaml",
    "docs__pai-protocol.4148206a.yaml",
    "docs__pai-protocol.4a0ab6bf.yaml",
    "docs__pai-protocol.4a25dfce.yaml",
    "docs__pai-protocol.61f98982.yaml",
    "docs__pai-protocol.63335389.yaml",
    "docs__pai-protocol.68a7304e.yaml",
    "docs__pai-protocol.73690d22.yaml",
    "docs__pai-protocol.7a26ff2b.yaml",
    "docs__pai-protocol.8ebf42f8.yaml",
    "docs__pai-protocol.92868b54.yaml",
    "docs__pai-protocol.a9f743ae.yaml",
    "docs__pai-protocol.b0ebf51f.yaml",
    "docs__pai-protocol.c005bac6.yaml",
    "docs__pai-protocol.daea5c2a.yaml",
    "docs__protocol__pai-protocol.4c189e48.yaml",
    "src__kube-runtime__test__docker_image_acr_registry.45b9d362.yaml",
    "src__kube-runtime__test__docker_image_auth.0e30f6d2.yaml",
    NULL};

static const char *const refused_variations[] = {
    "0062.yaml", "0481.yaml", "0482.yaml", "0485.yaml", "0486.yaml",
    "0487.yaml", "0488.yaml", "0489.yaml", "0490.yaml", "0491.yaml",
    "0493.yaml", "0494.yaml", "0495.yaml", "0496.yaml", "0497.yaml",
    "0503.yaml", "0507.yaml", "0508.yaml", "0510.yaml", "0513.yaml",
    "0515.yaml", "0525.yaml", "0526.yaml", "0527.yaml", "0528.yaml",
    "0544.yaml", NULL};

static int listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

static int yaml_name(const char *n)
{
	size_t k = strlen(n);

	return (k > 5 && !strcmp(n + k - 5, ".yaml")) ||
	       (k > 4 && !strcmp(n + k - 4, ".yml"));
}

/* Loads every YAML file of $env; returns how many, or -1 when unset. */
static long corpus(const char *env, const char *const *refused)
{
	const char *dir = test_corpus_dir(env, "the v2 corpus as js-yaml "
					       "loads it");
	struct dirent *de;
	long n = 0, bad = 0;
	DIR *dp;

	if (!dir)
		return -1;
	dp = opendir(dir);
	assert_non_null(dp);
	while ((de = readdir(dp))) {
		char path[4096], *buf;
		struct loaded l;
		FILE *f;
		long len;

		if (!yaml_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc((size_t)len + 1);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		load(&l, buf, (size_t)len);
		if ((l.err != PAI_OK) != listed(refused, de->d_name)) {
			fprintf(stderr, "# %s: %s\n", de->d_name,
				l.err ? pai_diags_get(l.d, 0)->message
				      : "loads, js-yaml refuses it");
			bad++;
		}
		if (l.err) {
			const char *r = pai_diags_get(l.d, 0)->rule;

			assert_true(!strncmp(r, "yaml-", 5) ||
				    !strcmp(r, "nul-byte") ||
				    !strcmp(r, "invalid-utf8"));
		}
		unload(&l);
		free(buf);
		n++;
	}
	closedir(dp);
	assert_int_equal(bad, 0);
	return n;
}

static void test_corpus_examples(void **state)
{
	long n = corpus("PAI_CORPUS_V2", refused_examples);

	(void)state;
	if (n >= 0)
		assert_int_equal(n, 237);
}

static void test_corpus_variations(void **state)
{
	long n = corpus("PAI_VARIATIONS_V2", refused_variations);

	(void)state;
	if (n >= 0)
		assert_int_equal(n, 546);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scalars),
	    cmocka_unit_test(test_string_with_nul),
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_duplicates),
	    cmocka_unit_test(test_anchors_merges),
	    cmocka_unit_test(test_documents),
	    cmocka_unit_test(test_tabs_bom_encoding),
	    cmocka_unit_test(test_positions),
	    cmocka_unit_test(test_billion_laughs),
	    cmocka_unit_test(test_deep),
	    cmocka_unit_test(test_big_scalar),
	    cmocka_unit_test(test_alloc_fail),
	    cmocka_unit_test(test_corpus_examples),
	    cmocka_unit_test(test_corpus_variations),
	};

	(void)pai__yaml_max_nodes;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
