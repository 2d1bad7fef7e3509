/* convert.c - what both directions of pai_job_convert() (job_convert.c)
 * write the same way: a jobEnvs value as the string a task sees, and a
 * string quoted for bash */
#include "convert.h"

#include <string.h>

char *pai__env_string(json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_null(v))
		return strdup("");
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!pai__is_name_char((unsigned char)*s) &&
		    !strchr("./:=@%+,-", *s))
			return 0;
	return 1;
}

void pai__shell_quote(pai__buf *b, const char *s)
{
	const char *p;

	if (shell_safe(s) && !strstr(s, "<%")) {
		pai__buf_puts(b, s);
		return;
	}
	pai__buf_putc(b, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			pai__buf_puts(b, "'\\''");
		else if (*p == '%' && p > s && p[-1] == '<')
			pai__buf_puts(b, "''%"); /* '<''%' is "<%" to bash */
		else
			pai__buf_putc(b, *p);
	}
	pai__buf_putc(b, '\'');
}
