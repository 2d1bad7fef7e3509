/* validate_v2_base.c - what the steps of protocol-v2 validation share
 * (validate_v2_base.h): the reporting, values as JavaScript sees them,
 * the walk in the file's order and the sets of names. */
#include "validate_v2_base.h"

#include <stdlib.h>
#include <string.h>

/* ---- reporting ---------------------------------------------------------- */

static void put_path(pai__buf *b, const struct v2_path *p)
{
	pai__buf up = PAI__BUF_INIT;
	char *s;

	if (!p)
		return;
	put_path(&up, p->up);
	pai__buf_putc(&up, '\0');
	s = up.oom ? NULL : up.data;
	if (!s) {
		b->oom = 1;
	} else if (p->key) {
		pai__path_member(b, s, p->key);
	} else {
		pai__buf_puts(b, s);
		pai__buf_printf(b, "[%zu]", p->idx);
	}
	pai__buf_release(&up);
}

/* p as a list of its keys and indices, root first; NULL when out of
 * memory. */
static json_t *path_list(const struct v2_path *p)
{
	json_t *l = json_array(), *v;

	for (; l && p; p = p->up) {
		v = p->key ? json_string(p->key)
			   : json_integer((json_int_t)p->idx);
		if (json_array_insert_new(l, 0, v) < 0) {
			json_decref(l);
			return NULL;
		}
	}
	return l;
}

static void v2_vreport(struct v2_ctx *c, size_t off, const struct v2_path *p,
		       const char *rule, const char *fmt, va_list ap)
{
	pai__buf path = PAI__BUF_INIT, msg = PAI__BUF_INIT;

	c->errors++;
	if (c->err)
		return;
	if (c->cuts && json_array_append_new(c->cuts, path_list(p)))
		c->err = PAI_ENOMEM;
	put_path(&path, p);
	pai__buf_putc(&path, '\0');
	pai__buf_vprintf(&msg, fmt, ap);
	pai__buf_putc(&msg, '\0');
	if (path.oom || msg.oom ||
	    pai__diag_add(c->diags, c->src, off, PAI_SEVERITY_ERROR, path.data,
			  rule, "%s", msg.data))
		c->err = PAI_ENOMEM;
	pai__buf_release(&path);
	pai__buf_release(&msg);
}

void pai__v2_report(struct v2_ctx *c, size_t off, const struct v2_path *p,
		    const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	v2_vreport(c, off, p, rule, fmt, ap);
	va_end(ap);
}

/* ---- values as JavaScript sees them ------------------------------------- */

static bool is_nan(const struct v2_ctx *c, const pai__pos *at)
{
	const char *t;

	if (!at || at->off >= c->src->len)
		return false;
	t = c->src->text + at->off;
	if (*t == '+' || *t == '-')
		t++;
	/* js-yaml's .nan, .NaN, .NAN; otherwise .inf in some form */
	return t[0] == '.' && (t[1] == 'n' || t[1] == 'N');
}

enum v2_type pai__v2_type(json_t *v, const pai__pos *at)
{
	unsigned k = at ? at->ykind : PAI__YK_PLAIN;

	if (k == PAI__YK_DATE || k == PAI__YK_BINARY)
		return V2_OBJECT;
	switch (json_typeof(v)) {
	case JSON_OBJECT: return V2_OBJECT;
	case JSON_ARRAY: return V2_ARRAY;
	case JSON_STRING: return V2_STRING;
	case JSON_INTEGER:
	case JSON_REAL: return V2_NUMBER;
	case JSON_TRUE:
	case JSON_FALSE: return V2_BOOL;
	case JSON_NULL: break;
	}
	return V2_NULL;
}

/* ajv 6's integer: typeof x == "number" && !(x % 1) && !isNaN(x), so
 * 2.0 and Infinity pass, NaN does not. */
bool pai__v2_is_int(const struct v2_ctx *c, json_t *v, const pai__pos *at)
{
	double d;

	if (pai__v2_type(v, at) != V2_NUMBER)
		return false;
	if (at && at->ykind == PAI__YK_NONFINITE)
		return !is_nan(c, at);
	if (json_is_integer(v))
		return true;
	d = json_real_value(v);
	if (d >= 9007199254740992.0 || d <= -9007199254740992.0)
		return true; /* every double this large is whole */
	return (double)(long long)d == d;
}

/* JavaScript truthiness. */
bool pai__v2_truthy(const struct v2_ctx *c, json_t *v, const pai__pos *at)
{
	if (at && at->ykind == PAI__YK_NONFINITE)
		return !is_nan(c, at);
	switch (pai__v2_type(v, at)) {
	case V2_NULL: return false;
	case V2_BOOL: return json_is_true(v);
	case V2_NUMBER: return json_number_value(v) != 0;
	case V2_STRING: return json_string_length(v) > 0;
	default: return true;
	}
}

const char *pai__v2_type_name(json_t *v, const pai__pos *at)
{
	unsigned k = at ? at->ykind : PAI__YK_PLAIN;

	if (k == PAI__YK_DATE)
		return "a date";
	if (k == PAI__YK_BINARY)
		return "binary data";
	switch (pai__v2_type(v, at)) {
	case V2_OBJECT: return "a mapping";
	case V2_ARRAY: return "a list";
	case V2_STRING: return "a string";
	case V2_NUMBER: return "a number";
	case V2_BOOL: return json_is_true(v) ? "true" : "false";
	case V2_NULL: break;
	}
	return "null";
}

/* ---- walking ------------------------------------------------------------ */

/* Members in the file's order through the position tree, each looked up
 * by key; when the tree does not match (it always should), the JSON's
 * order with positions looked up one by one. */
bool pai__v2_next(struct v2_iter *it, const char **key, json_t **v,
		  const pai__pos **at)
{
	if (!it->started) {
		it->started = true;
		it->bypos =
		    it->pos && it->pos->nchild == json_object_size(it->obj);
		it->jit = json_object_iter(it->obj);
	}
	if (it->bypos) {
		while (it->i < it->pos->nchild) {
			*at = &it->pos->child[it->i++];
			*key = (*at)->key;
			*v = *key ? json_object_get(it->obj, *key) : NULL;
			if (*v)
				return true;
		}
		return false;
	}
	if (!it->jit)
		return false;
	*key = json_object_iter_key(it->jit);
	*v = json_object_iter_value(it->jit);
	*at = it->pos ? pai__pos_member(it->pos, *key) : NULL;
	if (!*at)
		*at = it->pos;
	it->jit = json_object_iter_next(it->obj, it->jit);
	return true;
}

/* The member `key` of an object node's value and its position. */
json_t *pai__v2_get(json_t *obj, const pai__pos *pos, const char *key,
		    const pai__pos **at)
{
	json_t *v = json_object_get(obj, key);

	*at = NULL;
	if (v && pos)
		*at = pai__pos_member(pos, key);
	if (v && !*at)
		*at = pos;
	return v;
}

/* ---- names ----------------------------------------------------------------
 */

bool pai__v2_only_chars(const char *s, bool (*ok)(int c, size_t i))
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!ok((unsigned char)s[i], i))
			return false;
	return i > 0;
}

size_t pai__v2_code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

int pai__v2_key_index(const char *key, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(key, names[i]) == 0)
			return i;
	return -1;
}

/* ---- names, found by hash ------------------------------------------------ */

static size_t hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct v2_nent *nset_slot(const struct v2_nset *s, const char *k)
{
	size_t i;

	if (!s->cap)
		return NULL;
	for (i = hash(k) & (s->cap - 1); s->e[i].k; i = (i + 1) & (s->cap - 1))
		if (strcmp(s->e[i].k, k) == 0)
			return &s->e[i];
	return &s->e[i];
}

struct v2_nent *pai__v2_nset_find(const struct v2_nset *s, const char *k)
{
	struct v2_nent *e = nset_slot(s, k);

	return e && e->k ? e : NULL;
}

/* Adds k unless present; *dup is the entry already there, or NULL. */
int pai__v2_nset_add(struct v2_nset *s, const char *k, json_t *v,
		     const pai__pos *at, struct v2_nent **dup)
{
	struct v2_nset big;
	struct v2_nent *e;
	size_t i;

	*dup = NULL;
	if (2 * (s->n + 1) > s->cap) {
		big.cap = s->cap ? s->cap * 2 : 16;
		big.n = 0;
		big.e = calloc(big.cap, sizeof(*big.e));
		if (!big.e)
			return -1;
		for (i = 0; i < s->cap; i++)
			if (s->e[i].k)
				*nset_slot(&big, s->e[i].k) = s->e[i];
		big.n = s->n;
		free(s->e);
		*s = big;
	}
	e = nset_slot(s, k);
	if (e->k) {
		*dup = e;
		return 0;
	}
	*e = (struct v2_nent){k, v, at};
	s->n++;
	return 0;
}

/* Object.prototype's properties: JavaScript's `in` finds them in any {}. */
bool pai__v2_proto_name(const char *s)
{
	static const char *const names[] = {"constructor",
					    "__defineGetter__",
					    "__defineSetter__",
					    "hasOwnProperty",
					    "__lookupGetter__",
					    "__lookupSetter__",
					    "isPrototypeOf",
					    "propertyIsEnumerable",
					    "toString",
					    "valueOf",
					    "__proto__",
					    "toLocaleString",
					    NULL};

	return pai__v2_key_index(s, names) >= 0;
}
