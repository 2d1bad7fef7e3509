/* json_values.c - JSON values as servers and files send them (see json_values.h) */
#include "json_values.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *pai__json_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

void pai__json_wipe_str(json_t *o, const char *key)
{
	const char *s = pai__json_str(o, key);

	/* jansson's own buffer: the value is never read again */
	if (s)
		explicit_bzero((char *)s, strlen(s));
}

static int dump_into(const char *p, size_t n, void *data)
{
	pai__buf *b = data;

	pai__buf_put(b, p, n);
	return b->oom ? -1 : 0;
}

char *pai__json_dumps_secret(const json_t *o, size_t flags)
{
	pai__buf b = PAI__SECRET_BUF_INIT;

	if (json_dump_callback(o, dump_into, &b, flags) < 0) {
		pai__buf_release(&b);
		return NULL;
	}
	return pai__buf_detach(&b);
}

int pai__json_str_member(const char **v, json_t *o, const char *key)
{
	json_t *m = json_object_get(o, key);

	*v = json_string_value(m);
	return !m || json_is_null(m) || *v ? 0 : -1;
}

int pai__json_put_str(json_t *o, const char *key, const char *v)
{
	return v ? json_object_set_new(o, key, json_string(v)) : 0;
}

int pai__json_integer(json_t *v, long long *out)
{
	const char *s;
	char *end;
	long long n;

	*out = 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 1;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		/* past long long's range the cast is undefined: not one */
		if (!(d > -9.2e18 && d < 9.2e18))
			return 0;
		*out = (long long)d;
		return 1;
	}
	if (!(s = json_string_value(v)) || !*s)
		return 0;
	n = strtoll(s, &end, 10);
	if (*end == '.') /* "1549000000000.0" */
		while (isdigit((unsigned char)*++end))
			;
	if (*end)
		return 0;
	*out = n;
	return 1;
}

int pai__json_loadb(json_t **out, json_error_t *e, const char *text, size_t len,
		    size_t flags)
{
	/* jansson sets no error code when an early allocation fails */
	memset(e, 0, sizeof(*e));
	*out = json_loadb(text, len, flags, e);
	/* jansson reports some allocation failures as syntax errors: a
	 * second try tells the two apart */
	if (!*out)
		*out = json_loadb(text, len, flags, e);
	if (*out)
		return PAI_OK;
	if (json_error_code(e) == json_error_out_of_memory || !e->text[0])
		return PAI_ENOMEM;
	return PAI_ESYNTAX;
}

char *pai__json_dumps(const json_t *json, size_t flags)
{
	char *text = json_dumps(json, flags);
	json_t *back;

	if (!text)
		return NULL;
	/* jansson may drop bytes when an allocation fails while it dumps,
	 * and say nothing: what goes out must read back the same */
	back = json_loads(text, JSON_DECODE_ANY, NULL);
	if (!back || !json_equal(back, (json_t *)json)) {
		free(text);
		text = NULL;
	}
	json_decref(back);
	return text;
}
