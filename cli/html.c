/* html.c - text put into a page paictl writes (paictl web's page that
 * opens the link), as HTML's character references */
#include "cli.h"

#include <string.h>

/* What ch is written as in a page; NULL: itself. */
static const char *reference(char ch)
{
	return ch == '&'   ? "&amp;"
	       : ch == '<' ? "&lt;"
	       : ch == '>' ? "&gt;"
	       : ch == '"' ? "&quot;"
			   : NULL;
}

int cli_html_escape(char *out, size_t size, const char *s)
{
	size_t n = 0, len;
	const char *r;

	for (; *s; s++) {
		r = reference(*s);
		len = r ? strlen(r) : 1;
		if (len >= size - n) {
			memset(out, 0, n + 1);
			return -1;
		}
		if (r)
			memcpy(out + n, r, len);
		else
			out[n] = *s;
		n += len;
	}
	out[n] = '\0';
	return 0;
}
