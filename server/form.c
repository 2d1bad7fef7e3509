/* form.c - an application/x-www-form-urlencoded body as the v0.17
 * rest-server reads it: Express's body-parser with its extended parser,
 * the qs module. OpenPAI's JavaScript SDK submits job configs this way
 * (request's `form:` option): taskRoles[0][name]=a&taskRoles[0][taskNumber]=1.
 *
 * What qs does, and this too: names and values percent-decoded ('+' is
 * a space); a name's [bracketed] parts nest objects; a part that is an
 * index (decimal, no leading zero, at most arrayLimit) makes an array,
 * its elements in index order without holes; [] appends; a name given
 * twice makes an array of its values; every value is a string (Joi then
 * converts the numbers, as pai_job_parse() does). body-parser refuses
 * more than 1000 parameters (413), and takes arrayLimit as the larger of
 * 100 and the number of parameters. */
#include "http_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAMETER_LIMIT 1000
/* qs nests without bound; here a name's parts past this many are one
 * literal part, so that no name can nest the parse into a crash */
#define MAX_PARTS 64

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* (http_int.h) A '%' not followed by two hex digits stays as it is, as
 * decodeURIComponent's failure leaves qs. */
char *h_form_decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 &&
			   hex(s[i + 2]) >= 0) {
			*o++ = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* Whether part is an array index qs takes: "0", or digits without a
 * leading zero, at most limit. */
static bool is_index(const char *part, size_t limit)
{
	size_t i, v = 0;

	if (!*part || (part[0] == '0' && part[1]))
		return false;
	for (i = 0; part[i]; i++) {
		if (part[i] < '0' || part[i] > '9' || i > 9)
			return false;
		v = v * 10 + (size_t)(part[i] - '0');
	}
	return v <= limit;
}

/* The next part of a name at *p: the parent before the first '[', then
 * each [part]; NULL at the end. new. */
static char *next_part(const char **p, bool first)
{
	const char *s = *p, *e;
	char *part;

	if (!*s)
		return NULL;
	if (first) {
		e = strchr(s, '[');
		if (e == s) /* "[a]=b": qs keeps the name whole */
			e = NULL;
		if (!e || !strchr(e, ']'))
			e = s + strlen(s);
	} else if (*s == '[' && (e = strchr(s + 1, ']')) &&
		   !memchr(s + 1, '[', (size_t)(e - s - 1))) {
		part = strndup(s + 1, (size_t)(e - s - 1));
		*p = e + 1;
		return part;
	} else { /* what follows the last [part] is one more part */
		e = s + strlen(s);
	}
	part = strndup(s, (size_t)(e - s));
	*p = e;
	return part;
}

/* The child of node under part ("" appends), made an object when new. */
static json_t *child(json_t *node, const char *part)
{
	char idx[32];
	json_t *c;

	if (!*part) {
		snprintf(idx, sizeof(idx), "%zu", json_object_size(node));
		part = idx;
	}
	c = json_object_get(node, part);
	if (c)
		return c;
	c = json_object();
	if (!c || json_object_set_new(node, part, c) < 0)
		return NULL;
	return c;
}

/* Sets node[part] to value; a value already there makes the two an
 * array, as a name given twice does. */
static int put(json_t *node, const char *part, const char *value)
{
	char idx[32];
	json_t *old, *v = json_string(value), *pair;

	if (!v)
		return -1;
	if (!*part) {
		snprintf(idx, sizeof(idx), "%zu", json_object_size(node));
		part = idx;
	}
	old = json_object_get(node, part);
	if (!old)
		return json_object_set_new(node, part, v);
	if (json_is_object(old)) { /* a[0]=x&a=y: y joins the list */
		snprintf(idx, sizeof(idx), "%zu", json_object_size(old));
		return json_object_set_new(old, idx, v);
	}
	pair = json_pack("{s:O,s:o}", "0", old, "1", v);
	return pair ? json_object_set_new(node, part, pair) : -1;
}

static int add_pair(json_t *root, const char *name, const char *value)
{
	const char *p = name;
	char *part = next_part(&p, true), *next;
	json_t *node = root;
	int err = 0, depth = 0;

	while (part && ++depth < MAX_PARTS && (next = next_part(&p, false))) {
		node = json_is_object(node) ? child(node, part) : NULL;
		free(part);
		part = next;
		if (!node) {
			free(part);
			return 0; /* "a=1&a[b]=2": qs's merge, not followed */
		}
	}
	if (part && *p) { /* past MAX_PARTS: the rest, literally */
		char *rest = malloc(strlen(part) + strlen(p) + 1);

		if (rest)
			sprintf(rest, "%s%s", part, p);
		free(part);
		part = rest;
		if (!part)
			return -1;
	}
	if (part && json_is_object(node))
		err = put(node, part, value);
	free(part);
	return err;
}

static int by_index(const void *a, const void *b)
{
	long x = strtol(*(const char *const *)a, NULL, 10);
	long y = strtol(*(const char *const *)b, NULL, 10);

	return (x > y) - (x < y);
}

/* v, with every object below it whose keys are all indexes made an
 * array, its elements in index order: a new reference, or NULL. */
static json_t *arrays(json_t *v, size_t limit, bool top)
{
	const char *k, **keys;
	json_t *e, *a = NULL;
	size_t n = 0, i;
	void *tmp;

	if (!json_is_object(v))
		return json_incref(v);
	json_object_foreach_safe(v, tmp, k, e)
	{
		json_t *f = arrays(e, limit, false);

		if (!f || json_object_set_new(v, k, f) < 0)
			return NULL;
	}
	if (top || json_object_size(v) == 0)
		return json_incref(v);
	if (!(keys = malloc(json_object_size(v) * sizeof(*keys))))
		return NULL;
	json_object_foreach(v, k, e)
	{
		if (!is_index(k, limit)) {
			free(keys);
			return json_incref(v);
		}
		keys[n++] = k;
	}
	qsort(keys, n, sizeof(keys[0]), by_index);
	a = json_array();
	for (i = 0; a && i < n; i++)
		if (json_array_append(a, json_object_get(v, keys[i])) < 0) {
			json_decref(a);
			a = NULL;
		}
	free(keys);
	return a;
}

char *h_form_to_json(const char *body, size_t len, unsigned *status)
{
	size_t i = 0, count = 0, limit;
	json_t *root = json_object(), *done = NULL;
	char *out = NULL;

	*status = 500;
	for (i = 0; i < len; i++)
		count += body[i] == '&';
	if (++count > PARAMETER_LIMIT) {
		*status = 413;
		json_decref(root);
		return NULL;
	}
	limit = count > 100 ? count : 100;
	for (i = 0; root && i < len;) {
		size_t end = i, eq;
		char *name, *value;
		int err;

		while (end < len && body[end] != '&')
			end++;
		for (eq = i; eq < end && body[eq] != '='; eq++)
			;
		if (end > i) {
			name = h_form_decode(body + i, eq - i);
			value = eq < end
				    ? h_form_decode(body + eq + 1, end - eq - 1)
				    : strdup("");
			err = !name || !value ||
			      (*name && add_pair(root, name, value) < 0);
			free(name);
			free(value);
			if (err)
				goto out;
		}
		i = end + 1;
	}
	done = root ? arrays(root, limit, true) : NULL;
	out = done ? json_dumps(done, JSON_COMPACT) : NULL;
out:
	json_decref(done);
	json_decref(root);
	return out;
}
