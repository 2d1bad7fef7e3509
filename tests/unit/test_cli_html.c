/* test_cli_html.c - text put into a page paictl writes (cli/html.c):
 * HTML's character references for &, <, > and ", and a text whose
 * references do not fit the buffer refused whole, never cut (it is a
 * link with its secret): one byte under and over the limit, with a
 * plain character and with a reference last. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* The unit itself, internal to cli/: compiled in here. */
#include "../../cli/html.c"

/* Whether the n bytes of b are all zero. */
static int zeros(const char *b, size_t n)
{
	while (n--)
		if (b[n])
			return 0;
	return 1;
}

static void test_references(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(
	    cli_html_escape(out, sizeof(out), "<a href=\"x?a=1&b=2\">'</a>"),
	    0);
	assert_string_equal(out, "&lt;a href=&quot;x?a=1&amp;b=2&quot;&gt;'"
				 "&lt;/a&gt;");
	assert_int_equal(cli_html_escape(out, 1, ""), 0);
	assert_string_equal(out, "");
}

/* In 8 bytes: 7 plain characters fit, 8 do not; "a&amp;" (6) fits in 7
 * bytes, not in 6; a refused text leaves nothing of itself behind
 * (what it wrote wiped, the rest untouched). */
static void test_limit(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(cli_html_escape(out, 8, "abcdefg"), 0);
	assert_string_equal(out, "abcdefg");
	memset(out, 'z', sizeof(out));
	assert_int_equal(cli_html_escape(out, 8, "abcdefgh"), -1);
	assert_true(zeros(out, 8));
	assert_int_equal(out[8], 'z');
	assert_int_equal(cli_html_escape(out, 7, "a&"), 0);
	assert_string_equal(out, "a&amp;");
	memset(out, 'z', sizeof(out));
	assert_int_equal(cli_html_escape(out, 6, "a&"), -1);
	assert_true(zeros(out, 2));
	assert_int_equal(out[2], 'z');
	assert_int_equal(cli_html_escape(out, 7, "&quot"), -1);
	assert_int_equal(cli_html_escape(out, 7, "\""), 0);
	assert_string_equal(out, "&quot;");
}

/* paictl web's page: a link of 409 '&' and "ab" makes 2047 bytes, which
 * its 2048 hold; one more character does not fit. */
static void test_web_page(void **state)
{
	char link[413], esc[2048];

	(void)state;
	memset(link, '&', 409);
	memcpy(link + 409, "ab", 3);
	assert_int_equal(cli_html_escape(esc, sizeof(esc), link), 0);
	assert_int_equal(strlen(esc), 2047);
	memcpy(link + 409, "abc", 4);
	assert_int_equal(cli_html_escape(esc, sizeof(esc), link), -1);
	assert_true(zeros(esc, sizeof(esc)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_references),
	    cmocka_unit_test(test_limit),
	    cmocka_unit_test(test_web_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
