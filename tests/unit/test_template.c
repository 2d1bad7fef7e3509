/* test_template.c - mustache 2.3.2 with "<%" "%>", as the rest-server
 * parses and renders a role's commands
 *
 * Expectations come from mustache 2.3.2 itself (each was checked against
 * the npm package; lib/job/template.c was also compared with it on 60,000
 * random templates, with no difference in verdict or output). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "job/job.h"

/* "a" is "A"; "n.0" is "zero"; nothing else is defined. */
static int lookup(void *data, const char *name, size_t n, pai__buf *out)
{
	(void)data;
	if (n == 1 && name[0] == 'a') {
		pai__buf_puts(out, "A");
		return 1;
	}
	if (n == 3 && memcmp(name, "n.0", 3) == 0) {
		pai__buf_puts(out, "zero");
		return 1;
	}
	return 0;
}

static void expect_render(const char *in, const char *want)
{
	pai__buf b = PAI__BUF_INIT;

	assert_int_equal(pai__tmpl_render(&b, in, strlen(in), lookup, NULL), 0);
	assert_false(b.oom);
	assert_string_equal(b.len ? b.data : "", want);
	pai__buf_release(&b);
}

static void expect_error(const char *in, size_t off, const char *why)
{
	pai__tmpl_error e = {0, NULL};
	pai__buf b = PAI__BUF_INIT;

	assert_int_equal(pai__tmpl_check(in, strlen(in), &e), -1);
	assert_int_equal(e.off, off);
	assert_string_equal(e.why, why);
	assert_int_equal(pai__tmpl_render(&b, in, strlen(in), lookup, NULL),
			 -1);
	pai__buf_release(&b);
}

static void test_text_and_names(void **state)
{
	(void)state;
	expect_render("", "");
	expect_render("echo hi", "echo hi");
	expect_render("x <% a %> y", "x A y");
	expect_render("x <%a%>y", "x Ay");
	/* undefined names come back with the server's spacing */
	expect_render("<%$parameters.lr%>", "<% $parameters.lr %>");
	/* a[0] is looked up as a.0 */
	expect_render("<% n[0] %>", "zero");
	expect_render("<% b[0] %>", "<% b.0 %>");
	/* the result is trimmed, as the server's is */
	expect_render("  x  \n", "x");
	/* {{ }} are plain text with these tags */
	expect_render("{{a}}", "{{a}}");
	expect_render("a %> b", "a %> b");
}

static void test_dropped_tokens(void **state)
{
	(void)state;
	/* sections and their contents, comments, partials and unescaped
	 * tags are not rendered by the server */
	expect_render("x<%#s%>in<%/s%>y", "xy");
	expect_render("x<%^s%>in<%/s%>y", "xy");
	expect_render("x<%! note %>y", "xy");
	expect_render("x<%> part%>y", "xy");
	expect_render("x<%& a%>y<%{a}%>z", "xyz");
	/* a standalone tag line loses its whitespace and newline */
	expect_render("a\n  <%! c %>  \nb", "a\nb");
	expect_render("a\n<%#s%>\nb\n<%/s%>\nc", "a\nc");
	/* a name tag makes the line not standalone */
	expect_render("a\n <%a%> \nb", "a\n A \nb");
}

static void test_delimiters(void **state)
{
	(void)state;
	expect_render("<%=| |=%>|a| <%a%>", "A <%a%>");
	expect_error("<%=|=%>x", 0, "invalid delimiters");
	expect_error("<%==%>", 0, "invalid delimiters");
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("echo <% a", 5, "unclosed tag");
	expect_error("x\n<%#loop%>y", 2, "unclosed section");
	expect_error("ab<%/loop%>", 2, "unopened section");
	expect_error("<%#a%><%/b%>", 6, "section closed with another name");
	expect_error("<%{a%>", 0, "unclosed tag");
	/* JavaScript's \s includes U+00A0: the name is trimmed of it */
	expect_render("<%#s\xC2\xA0%>x<%/s%>", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_and_names),
	    cmocka_unit_test(test_dropped_tokens),
	    cmocka_unit_test(test_delimiters),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
