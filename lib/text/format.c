/* format.c - the two job config formats: their names, and telling them
 * apart from a file's content and name */
#include "text.h"

#include <string.h>

int pai_format_from_name(pai_format *out, const char *name)
{
	if (!out || !name)
		return PAI_EINVAL;
	if (strcmp(name, "v1") == 0)
		*out = PAI_FORMAT_V1;
	else if (strcmp(name, "v2") == 0)
		*out = PAI_FORMAT_V2;
	else if (strcmp(name, "auto") == 0)
		*out = PAI_FORMAT_AUTO;
	else
		return PAI_EINVAL;
	return PAI_OK;
}

const char *pai_format_name(pai_format format)
{
	switch (format) {
	case PAI_FORMAT_V1: return "v1";
	case PAI_FORMAT_V2: return "v2";
	case PAI_FORMAT_AUTO: break;
	}
	return "auto";
}

int pai_scheduler_from_name(pai_scheduler *out, const char *name)
{
	if (!out || !name)
		return PAI_EINVAL;
	if (strcmp(name, "hived") == 0)
		*out = PAI_SCHEDULER_HIVED;
	else if (strcmp(name, "default") == 0)
		*out = PAI_SCHEDULER_DEFAULT;
	else
		return PAI_EINVAL;
	return PAI_OK;
}

const char *pai_scheduler_name(pai_scheduler scheduler)
{
	return scheduler == PAI_SCHEDULER_DEFAULT ? "default" : "hived";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Skips white space, a BOM, and comments of either format: // and block
 * comments (v1 JSON as OpenPAI's examples write it), # lines (YAML). */
static size_t skip_blank(const char *t, size_t len, size_t i)
{
	while (i < len) {
		if (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' ||
		    t[i] == '\n') {
			i++;
		} else if (len - i >= 3 && memcmp(t + i, "\xEF\xBB\xBF", 3) == 0) {
			i += 3;
		} else if (t[i] == '#' ||
			   (t[i] == '/' && i + 1 < len && t[i + 1] == '/')) {
			while (i < len && t[i] != '\n')
				i++;
		} else if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
			const char *end = memmem(t + i + 2, len - i - 2, "*/", 2);

			i = end ? (size_t)(end - t) + 2 : len;
		} else {
			break;
		}
	}
	return i;
}

/* The end of the JSON string whose opening quote is at i (one past its
 * closing quote), or len. */
static size_t string_end(const char *t, size_t len, size_t i)
{
	const char *p = t + i + 1, *end = t + len, *q;

	while (p < end && (q = memchr(p, '"', (size_t)(end - p)))) {
		size_t bs = 0;

		/* escaped by an odd run of backslashes before it (the
		 * opening quote ends the run) */
		while (q[-1 - (ptrdiff_t)bs] == '\\')
			bs++;
		if (bs % 2 == 0)
			return (size_t)(q - t) + 1;
		p = q + 1;
	}
	return len;
}

/* Whether the JSON object opening at t[i] has a member "protocolVersion"
 * of its own (not one of a nested object's). */
static bool has_protocol_version(const char *t, size_t len, size_t i)
{
	static const char key[] = "\"protocolVersion\"";
	static const bool stop[256] = {['"'] = 1, ['/'] = 1, ['{'] = 1,
				       ['['] = 1, ['}'] = 1, [']'] = 1};
	int depth = 0;

	/* most configs have no such key anywhere: one memmem, not a walk
	 * over every string of a large v0.x config */
	if (!memmem(t + i, len - i, key, sizeof(key) - 1))
		return false;
	while (i < len) {
		char c;

		while (i < len && !stop[(unsigned char)t[i]])
			i++;
		if (i >= len)
			break;
		c = t[i];

		if (c == '"') {
			size_t end = string_end(t, len, i);

			size_t colon = skip_blank(t, len, end);

			if (depth == 1 && end - i == sizeof(key) - 1 &&
			    memcmp(t + i, key, end - i) == 0 && colon < len &&
			    t[colon] == ':')
				return true;
			i = end;
			continue;
		}
		if (c == '/' && i + 1 < len && (t[i + 1] == '/' || t[i + 1] == '*')) {
			i = skip_blank(t, len, i);
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return false;
		i++;
	}
	return false;
}

/* A YAML line "protocolVersion:" at the left margin: the top level. */
static bool has_yaml_protocol_version(const char *t, size_t len)
{
	static const char key[] = "protocolVersion";
	size_t n = sizeof(key) - 1, i = 0;

	while (i + n < len) {
		if (memcmp(t + i, key, n) == 0) {
			size_t k = i + n;

			while (k < len && t[k] == ' ')
				k++;
			if (k < len && t[k] == ':')
				return true;
		}
		while (i < len && t[i] != '\n')
			i++;
		i++;
	}
	return false;
}

/* Whether the first line at t[i] reads as YAML and not as JSON: a
 * document marker, a list item, or a plain "key:" of a mapping. */
static bool looks_like_yaml(const char *t, size_t len, size_t i)
{
	size_t k = i;

	if (len - i >= 3 && memcmp(t + i, "---", 3) == 0)
		return true;
	if (len - i >= 2 && t[i] == '-' && (t[i + 1] == ' ' || t[i + 1] == '\n'))
		return true;
	while (k < len && (pai__is_name_char((unsigned char)t[k]) ||
			   t[k] == '-' || t[k] == '.'))
		k++;
	while (k > i && k < len && t[k] == ' ')
		k++;
	return k > i && k < len && t[k] == ':' &&
	       (k + 1 == len || t[k + 1] == ' ' || t[k + 1] == '\n' ||
		t[k + 1] == '\r');
}

pai_format pai_format_detect(const char *name, const char *text, size_t len)
{
	bool yaml_name = name && (ends_with(name, ".yaml") ||
				  ends_with(name, ".yml"));
	bool json_name = name && ends_with(name, ".json");
	size_t i;

	if (!text)
		len = 0;
	i = skip_blank(text, len, 0);
	if (i < len && text[i] == '{' && has_protocol_version(text, len, i))
		return PAI_FORMAT_V2;
	if (i < len && text[i] != '{' && has_yaml_protocol_version(text, len))
		return PAI_FORMAT_V2;
	if (yaml_name)
		return PAI_FORMAT_V2;
	if (json_name)
		return PAI_FORMAT_V1;
	return i < len && looks_like_yaml(text, len, i) ? PAI_FORMAT_V2
						       : PAI_FORMAT_V1;
}

int pai_config_read(json_t **out, pai_diags *diags, const char *name,
		    const char *text, size_t len, pai_format format)
{
	pai__src src;
	pai__pos pos;
	int err;

	if (out)
		*out = NULL;
	if (!out || !diags || !name || (!text && len))
		return PAI_EINVAL;
	if (format == PAI_FORMAT_AUTO)
		format = pai_format_detect(name, text, len);
	memset(&src, 0, sizeof(src));
	memset(&pos, 0, sizeof(pos));
	if (format == PAI_FORMAT_V2) {
		err = pai__src_init_yaml(&src, diags, name, text ? text : "",
					 len);
		if (err == PAI_OK)
			err = pai__yaml_parse(out, &pos, &src, diags);
	} else {
		err = pai__src_read(out, &pos, &src, diags, name,
				    text ? text : "", len);
	}
	pai__pos_release(&pos);
	pai__src_release(&src);
	return err;
}
