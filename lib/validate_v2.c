/* validate_v2.c - a protocol-v2 job judged as the v1.8.0 rest-server
 * judges POST /api/v2/jobs (../shared/reference/protocol-v2-rules.md)
 *
 * The server's steps run in order and it stops at the first that fails:
 * the schema (ajv with allErrors: every problem of the step is reported
 * here too), the reference checks, the mustache render, hived, the job
 * model and the write-merger. Values are judged as JavaScript sees them:
 * a real with no fraction is an integer, js-yaml's Dates and Buffers are
 * objects, .inf and .nan are numbers. Where the server's code throws by
 * accident (a 500) the config is refused too, saying what is wrong.
 *
 * This file is the walk, the reporting and the schema (step 3); the
 * later steps are in validate_v2_steps.c. Paths of diagnostics are
 * built only when one is reported: a 2,000-role job that passes builds
 * none. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct v2_ctx {
	pai_diags *diags;
	pai__src *src;
	pai_scheduler scheduler;
	size_t errors;
	int err; /* PAI_ENOMEM once an allocation failed */
};

/* A diagnostic's path, as a chain up to the root (NULL), turned into text
 * only when something is reported. key NULL: item idx of a list. */
struct v2_path {
	const struct v2_path *up;
	const char *key;
	size_t idx;
};

enum v2_type { V2_NULL, V2_BOOL, V2_NUMBER, V2_STRING, V2_ARRAY, V2_OBJECT };

struct v2_iter {
	json_t *obj;
	const pai__pos *pos;
	size_t i;
	void *jit;
	bool started, bypos;
};

#define V2_ITER(o, p)                                                          \
	{                                                                      \
		(o), (p), 0, NULL, false, false                                \
	}

static void v2_report(struct v2_ctx *c, size_t off, const struct v2_path *p,
		      const char *rule, const char *fmt, ...) PAI__PRINTF(5, 6);

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

static void v2_vreport(struct v2_ctx *c, size_t off, const struct v2_path *p,
		       const char *rule, const char *fmt, va_list ap)
{
	pai__buf path = PAI__BUF_INIT, msg = PAI__BUF_INIT;

	c->errors++;
	if (c->err)
		return;
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

static void v2_report(struct v2_ctx *c, size_t off, const struct v2_path *p,
		      const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	v2_vreport(c, off, p, rule, fmt, ap);
	va_end(ap);
}

static size_t v2_off(const pai__pos *at)
{
	return at ? at->off : PAI__NO_OFFSET;
}

static size_t v2_key_off(const pai__pos *at)
{
	return at ? at->key_off : PAI__NO_OFFSET;
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

static enum v2_type v2_type(json_t *v, const pai__pos *at)
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
static bool v2_is_int(const struct v2_ctx *c, json_t *v, const pai__pos *at)
{
	double d;

	if (v2_type(v, at) != V2_NUMBER)
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
static bool v2_truthy(const struct v2_ctx *c, json_t *v, const pai__pos *at)
{
	if (at && at->ykind == PAI__YK_NONFINITE)
		return !is_nan(c, at);
	switch (v2_type(v, at)) {
	case V2_NULL: return false;
	case V2_BOOL: return json_is_true(v);
	case V2_NUMBER: return json_number_value(v) != 0;
	case V2_STRING: return json_string_length(v) > 0;
	default: return true;
	}
}

static const char *v2_type_name(json_t *v, const pai__pos *at)
{
	unsigned k = at ? at->ykind : PAI__YK_PLAIN;

	if (k == PAI__YK_DATE)
		return "a date";
	if (k == PAI__YK_BINARY)
		return "binary data";
	switch (v2_type(v, at)) {
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
static bool v2_next(struct v2_iter *it, const char **key, json_t **v,
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

static const pai__pos *v2_item(const pai__pos *arr, size_t i)
{
	return arr && i < arr->nchild ? &arr->child[i] : arr;
}

/* The member `key` of an object node's value and its position. */
static json_t *v2_get(json_t *obj, const pai__pos *pos, const char *key,
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

/* ---- step 3: the schema ----------------------------------------------- */

enum { T_STR = 1, T_NUM = 2, T_INT = 4, T_ARR = 8, T_OBJ = 16, T_NULL = 32 };

static const char *mask_name(unsigned m)
{
	switch (m) {
	case T_STR: return "a string";
	case T_STR | T_NUM: return "a string or a number";
	case T_INT: return "an integer";
	case T_INT | T_NULL: return "an integer or null";
	case T_ARR: return "a list";
	case T_OBJ: return "a mapping";
	}
	return "a value of another type";
}

static bool has_type(struct v2_ctx *c, json_t *v, const pai__pos *at,
		     unsigned m)
{
	switch (v2_type(v, at)) {
	case V2_STRING: return m & T_STR;
	case V2_NUMBER:
		return (m & T_NUM) || ((m & T_INT) && v2_is_int(c, v, at));
	case V2_ARRAY: return m & T_ARR;
	case V2_OBJECT: return m & T_OBJ;
	case V2_NULL: return m & T_NULL;
	case V2_BOOL: break;
	}
	return false;
}

static bool want(struct v2_ctx *c, json_t *v, const pai__pos *at,
		 const struct v2_path *p, unsigned m)
{
	if (has_type(c, v, at, m))
		return true;
	v2_report(c, v2_off(at), p, "type", "must be %s, got %s", mask_name(m),
		  v2_type_name(v, at));
	return false;
}

/* A list of strings with at least min items. */
static void str_list(struct v2_ctx *c, json_t *v, const pai__pos *at,
		     const struct v2_path *p, size_t min)
{
	struct v2_path ip = {p, NULL, 0};
	json_t *item;

	if (!want(c, v, at, p, T_ARR))
		return;
	if (json_array_size(v) < min)
		v2_report(c, v2_off(at), p, "empty",
			  "must not be empty (a list of at least one string)");
	json_array_foreach(v, ip.idx, item)
	{
		want(c, item, v2_item(at, ip.idx), &ip, T_STR);
	}
}

static bool only_chars(const char *s, bool (*ok)(int c, size_t i))
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!ok((unsigned char)s[i], i))
			return false;
	return i > 0;
}

static bool name_char(int c, size_t i)
{
	(void)i;
	return pai__is_name_char(c) || c == '-';
}

static bool role_char(int c, size_t i)
{
	return pai__is_name_char(c) && !(i == 0 && c >= '0' && c <= '9');
}

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* A job, prerequisite or deployment name: ^[a-zA-Z0-9_-]+$, at most 255
 * characters (ajv counts code points). */
static void check_name(struct v2_ctx *c, json_t *v, const pai__pos *at,
		       const struct v2_path *p, const char *rule)
{
	const char *s;

	if (!want(c, v, at, p, T_STR))
		return;
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v) || !only_chars(s, name_char))
		v2_report(c, v2_off(at), p, rule,
			  "must be letters, digits, '_' and '-' only (at "
			  "least one)");
	else if (code_points(s) > 255)
		v2_report(c, v2_off(at), p, rule,
			  "must be at most 255 characters, got %zu",
			  code_points(s));
}

/* enum ["2", 2]: 2.0 is the number 2 too. */
static void check_version(struct v2_ctx *c, json_t *v, const pai__pos *at,
			  const struct v2_path *p)
{
	if (json_is_string(v) && strcmp(json_string_value(v), "2") == 0 &&
	    json_string_length(v) == 1)
		return;
	if (v2_type(v, at) == V2_NUMBER && !(at && at->ykind) &&
	    json_number_value(v) == 2)
		return;
	v2_report(c, v2_off(at), p, "v2-protocol-version",
		  "must be 2 or \"2\", got %s", v2_type_name(v, at));
}

static void unknown_key(struct v2_ctx *c, const char *key, const pai__pos *at,
			const struct v2_path *p, const char *const *known,
			const char *where)
{
	const char *best = NULL;
	size_t d, bestd = (size_t)-1, limit = strlen(key) / 3 + 1;

	for (; *known; known++) {
		d = pai__name_distance(key, *known);
		if (d < bestd) {
			bestd = d;
			best = *known;
		}
	}
	if (bestd <= (limit > 3 ? 3 : limit))
		v2_report(c, v2_key_off(at), p, "unknown-field",
			  "%s has no field \"%s\"; did you mean \"%s\"?", where,
			  key, best);
	else
		v2_report(c, v2_key_off(at), p, "unknown-field",
			  "%s has no field \"%s\"", where, key);
}

static int key_index(const char *key, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(key, names[i]) == 0)
			return i;
	return -1;
}

static void required(struct v2_ctx *c, json_t *obj, const pai__pos *at,
		     const struct v2_path *p, const char *const *names)
{
	for (; *names; names++)
		if (!json_object_get(obj, *names))
			v2_report(c, v2_off(at), p, "required",
				  "\"%s\" is required", *names);
}

/* The fields every protocol object shares (the server's base.json). */
static bool base_field(struct v2_ctx *c, const char *key, json_t *v,
		       const pai__pos *at, const struct v2_path *p,
		       const char *name_rule)
{
	if (strcmp(key, "protocolVersion") == 0)
		check_version(c, v, at, p);
	else if (strcmp(key, "name") == 0)
		check_name(c, v, at, p, name_rule);
	else if (strcmp(key, "version") == 0)
		want(c, v, at, p, T_STR | T_NUM);
	else if (strcmp(key, "contributor") == 0 ||
		 strcmp(key, "description") == 0)
		want(c, v, at, p, T_STR);
	else
		return false;
	return true;
}

/* A prerequisite: one of three kinds, told apart by `type` (ajv's oneOf
 * comes to that, as each kind has its own `type` values). */
static void check_prereq_kind(struct v2_ctx *c, json_t *o, const pai__pos *at,
			      const struct v2_path *p, const char *type)
{
	static const char *const image_keys[] = {"protocolVersion",
						 "name",
						 "version",
						 "contributor",
						 "description",
						 "type",
						 "auth",
						 "uri",
						 NULL};
	static const char *const auth_keys[] = {"username", "password",
						"registryuri", NULL};
	struct v2_iter it = V2_ITER(o, at), ai;
	struct v2_path mp = {p, NULL, 0}, ap;
	bool image = strcmp(type, "dockerimage") == 0;
	bool data = strcmp(type, "data") == 0;
	const pai__pos *m, *am;
	const char *key, *ak;
	json_t *v, *av;

	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (base_field(c, key, v, m, &mp, "v2-name") ||
		    strcmp(key, "type") == 0)
			continue;
		if (strcmp(key, "uri") == 0 && data)
			str_list(c, v, m, &mp, 0);
		else if (strcmp(key, "uri") == 0)
			want(c, v, m, &mp, T_STR);
		else if (!image && strcmp(key, "plugin") == 0)
			want(c, v, m, &mp, T_STR);
		else if (!image && strcmp(key, "require") == 0)
			str_list(c, v, m, &mp, 0);
		else if (image && strcmp(key, "auth") == 0 &&
			 want(c, v, m, &mp, T_OBJ)) {
			ai = (struct v2_iter)V2_ITER(v, m);
			ap = (struct v2_path){&mp, NULL, 0};
			while (v2_next(&ai, &ak, &av, &am))
				if (key_index(ak, auth_keys) >= 0 &&
				    (ap.key = ak))
					want(c, av, am, &ap, T_STR);
		} else if (image)
			unknown_key(c, key, m, &mp, image_keys,
				    "a dockerimage prerequisite");
	}
	if (image && !json_object_get(o, "uri"))
		v2_report(c, v2_off(at), p, "required", "\"uri\" is required");
}

static void check_prereq(struct v2_ctx *c, json_t *o, const pai__pos *at,
			 const struct v2_path *p)
{
	static const char *const need[] = {"name", "type", NULL};
	static const char *const kinds[] = {"script", "output", "data",
					    "dockerimage", NULL};
	struct v2_path tp = {p, "type", 0};
	const pai__pos *tat;
	json_t *type;

	if (!want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	type = v2_get(o, at, "type", &tat);
	if (!type)
		return;
	if (!json_is_string(type) ||
	    key_index(json_string_value(type), kinds) < 0) {
		v2_report(c, v2_off(tat), &tp, "v2-prerequisite-type",
			  "must be \"script\", \"output\", \"data\" or "
			  "\"dockerimage\", got %s",
			  v2_type_name(type, tat));
		return;
	}
	check_prereq_kind(c, o, at, p, json_string_value(type));
}

static void check_completion(struct v2_ctx *c, json_t *o, const pai__pos *at,
			     const struct v2_path *p)
{
	static const char *const keys[] = {"minFailedInstances",
					   "minSucceededInstances", NULL};
	struct v2_iter it = V2_ITER(o, at);
	struct v2_path mp = {p, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;

	if (!want(c, o, at, p, T_OBJ))
		return;
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (key_index(key, keys) >= 0)
			want(c, v, m, &mp, T_INT | T_NULL);
		else
			unknown_key(c, key, m, &mp, keys, "completion");
	}
}

/* A mapping the schema gives no type (ports, taskRoles): only a mapping
 * is checked, which must not be empty; each key is a name of role-name
 * characters (else `rule`, saying `what`), and each value goes to fn. */
static void check_named_map(struct v2_ctx *c, json_t *o, const pai__pos *at,
			    const struct v2_path *p, const char *empty,
			    const char *rule, const char *what,
			    void (*fn)(struct v2_ctx *c, json_t *v,
				       const pai__pos *m,
				       const struct v2_path *p))
{
	struct v2_iter it = V2_ITER(o, at);
	struct v2_path mp = {p, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;

	if (v2_type(o, at) != V2_OBJECT)
		return;
	if (!json_object_size(o))
		v2_report(c, v2_off(at), p, "empty", "must not be empty (%s)",
			  empty);
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (!only_chars(key, role_char))
			v2_report(c, v2_key_off(m), &mp, rule,
				  "%s is a letter or '_', then letters, "
				  "digits and '_'",
				  what);
		else
			fn(c, v, m, &mp);
	}
}

static void check_port_count(struct v2_ctx *c, json_t *v, const pai__pos *m,
			     const struct v2_path *p)
{
	want(c, v, m, p, T_INT);
}

/* `ports`: port labels and how many ports of each. */
static void check_ports(struct v2_ctx *c, json_t *o, const pai__pos *at,
			const struct v2_path *p)
{
	check_named_map(c, o, at, p, "a port label and its count",
			"port-label", "a port label", check_port_count);
}

static void check_resources(struct v2_ctx *c, json_t *o, const pai__pos *at,
			    const struct v2_path *p)
{
	static const char *const keys[] = {"cpu", "memoryMB", "gpu", "ports",
					   NULL};
	static const char *const need[] = {"cpu", "memoryMB", "gpu", NULL};
	struct v2_iter it = V2_ITER(o, at);
	struct v2_path mp = {p, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;
	int k;

	if (!want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		k = key_index(key, keys);
		if (k == 3)
			check_ports(c, v, m, &mp);
		else if (k >= 0)
			want(c, v, m, &mp, T_INT);
		else
			unknown_key(c, key, m, &mp, keys,
				    "resourcePerInstance");
	}
}

/* extraContainerOptions: open, but the server's schema has
 * `additionalProperties: false` inside `properties`, which makes a key
 * literally named additionalProperties fail whatever its value (odd, and
 * kept, since the server refuses it). */
static void check_extra_options(struct v2_ctx *c, json_t *o, const pai__pos *at,
				const struct v2_path *p)
{
	struct v2_iter it = V2_ITER(o, at);
	struct v2_path mp = {p, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;

	if (!want(c, o, at, p, T_OBJ))
		return;
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (strcmp(key, "shmMB") == 0)
			want(c, v, m, &mp, T_INT);
		else if (strcmp(key, "additionalProperties") == 0)
			v2_report(c, v2_key_off(m), &mp,
				  "v2-additional-properties",
				  "the server's schema refuses a key named "
				  "\"additionalProperties\" here");
	}
}

static const char *const role_keys[] = {"protocolVersion",
					"instances",
					"completion",
					"taskRetryCount",
					"prerequisites",
					"dockerImage",
					"data",
					"output",
					"script",
					"extraContainerOptions",
					"resourcePerInstance",
					"commands",
					NULL};

static void check_role_field(struct v2_ctx *c, int k, json_t *v,
			     const pai__pos *m, const struct v2_path *mp)
{
	switch (k) {
	case 0: check_version(c, v, m, mp); break;
	case 1:
		if (want(c, v, m, mp, T_INT) && json_number_value(v) < 1)
			v2_report(c, v2_off(m), mp, "v2-instances",
				  "must be at least 1");
		break;
	case 2: check_completion(c, v, m, mp); break;
	case 3: want(c, v, m, mp, T_INT); break;
	case 4: str_list(c, v, m, mp, 0); break;
	case 9: check_extra_options(c, v, m, mp); break;
	case 10: check_resources(c, v, m, mp); break;
	case 11: str_list(c, v, m, mp, 1); break;
	default: want(c, v, m, mp, T_STR); break;
	}
}

static void check_role(struct v2_ctx *c, json_t *o, const pai__pos *at,
		       const struct v2_path *p)
{
	static const char *const need[] = {"dockerImage", "resourcePerInstance",
					   "commands", NULL};
	struct v2_iter it = V2_ITER(o, at);
	struct v2_path mp = {p, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;
	int k;

	if (!want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		k = key_index(key, role_keys);
		if (k < 0)
			unknown_key(c, key, m, &mp, role_keys, "a task role");
		else
			check_role_field(c, k, v, m, &mp);
	}
}

/* taskRoles: anything but a mapping is step 4's concern. */
static void check_roles(struct v2_ctx *c, json_t *o, const pai__pos *at,
			const struct v2_path *p)
{
	check_named_map(c, o, at, p, "at least one task role", "role-name",
			"a task role name", check_role);
}

static void check_deploy_role(struct v2_ctx *c, json_t *o, const pai__pos *at,
			      const struct v2_path *p)
{
	static const char *const keys[] = {"preCommands", "postCommands", NULL};
	struct v2_iter it = V2_ITER(o, at);
	struct v2_path mp = {p, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;

	if (!want(c, o, at, p, T_OBJ))
		return;
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (key_index(key, keys) >= 0)
			str_list(c, v, m, &mp, 1);
		else
			unknown_key(c, key, m, &mp, keys,
				    "a deployment's task role");
	}
}

static void check_deployment(struct v2_ctx *c, json_t *o, const pai__pos *at,
			     const struct v2_path *p)
{
	static const char *const need[] = {"name", "taskRoles", NULL};
	struct v2_iter it = V2_ITER(o, at), ri;
	struct v2_path mp = {p, NULL, 0}, rp;
	const pai__pos *m, *rm;
	const char *key, *rk;
	json_t *v, *rv;

	if (!want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (strcmp(key, "protocolVersion") == 0)
			check_version(c, v, m, &mp);
		else if (strcmp(key, "name") == 0)
			check_name(c, v, m, &mp, "v2-name");
		/* taskRoles has no `type` either: only a mapping is checked */
		if (strcmp(key, "taskRoles") || v2_type(v, m) != V2_OBJECT)
			continue;
		if (!json_object_size(v))
			v2_report(c, v2_off(m), &mp, "empty",
				  "must not be empty (at least one task "
				  "role)");
		ri = (struct v2_iter)V2_ITER(v, m);
		rp = (struct v2_path){&mp, NULL, 0};
		while (v2_next(&ri, &rk, &rv, &rm)) {
			rp.key = rk;
			if (!only_chars(rk, role_char))
				v2_report(c, v2_key_off(rm), &rp, "role-name",
					  "a task role name is a letter or "
					  "'_', then letters, digits and '_'");
			else
				check_deploy_role(c, rv, rm, &rp);
		}
	}
}

/* A list of at least one item, each checked by fn. */
static void check_list(struct v2_ctx *c, json_t *v, const pai__pos *at,
		       const struct v2_path *p,
		       void (*fn)(struct v2_ctx *, json_t *, const pai__pos *,
				  const struct v2_path *))
{
	struct v2_path ip = {p, NULL, 0};
	json_t *item;

	if (!want(c, v, at, p, T_ARR))
		return;
	if (!json_array_size(v))
		v2_report(c, v2_off(at), p, "empty",
			  "must not be empty when given");
	json_array_foreach(v, ip.idx, item)
	{
		fn(c, item, v2_item(at, ip.idx), &ip);
	}
}

static const char *const top_keys[] = {
    "protocolVersion", "name",	      "version",
    "contributor",     "description", "type",
    "prerequisites",   "parameters",  "secrets",
    "jobRetryCount",   "taskRoles",   "deployments",
    "defaults",	       "extras",      NULL};

static void check_top_field(struct v2_ctx *c, const char *key, json_t *v,
			    const pai__pos *m, const struct v2_path *mp)
{
	const pai__pos *dm;
	json_t *d;
	struct v2_path dp = {mp, "deployment", 0};

	switch (key_index(key, top_keys)) {
	case 5:
		if (want(c, v, m, mp, T_STR) &&
		    strcmp(json_string_value(v), "job"))
			v2_report(c, v2_off(m), mp, "v2-job-type",
				  "must be \"job\"");
		break;
	case 6: check_list(c, v, m, mp, check_prereq); break;
	case 7:
	case 8:
	case 13: want(c, v, m, mp, T_OBJ); break;
	case 9:
		if (want(c, v, m, mp, T_INT) && json_number_value(v) < 0)
			v2_report(c, v2_off(m), mp, "negative-retry-count",
				  "must not be negative");
		break;
	case 10: check_roles(c, v, m, mp); break;
	case 11: check_list(c, v, m, mp, check_deployment); break;
	case 12:
		if (want(c, v, m, mp, T_OBJ) &&
		    (d = v2_get(v, m, "deployment", &dm)))
			want(c, d, dm, &dp, T_STR);
		break;
	case -1:
		unknown_key(c, key, m, mp, top_keys, "a protocol-v2 job");
		break;
	default: base_field(c, key, v, m, mp, "job-name"); break;
	}
}

static void check_schema(struct v2_ctx *c, json_t *root, const pai__pos *pos)
{
	static const char *const need[] = {"protocolVersion", "name", "type",
					   "taskRoles", NULL};
	struct v2_iter it = V2_ITER(root, pos);
	struct v2_path mp = {NULL, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;

	if (v2_type(root, pos) != V2_OBJECT) {
		v2_report(c, v2_off(pos), NULL, "type",
			  "a protocol-v2 job must be a mapping, got %s",
			  v2_type_name(root, pos));
		return;
	}
	required(c, root, pos, NULL, need);
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		check_top_field(c, key, v, m, &mp);
	}
}

/* ---- names, found by hash ------------------------------------------------ */

struct nent {
	const char *k; /* borrowed from the JSON */
	json_t *v;
	const pai__pos *at;
};

struct nset {
	struct nent *e;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct nent *nset_slot(const struct nset *s, const char *k)
{
	size_t i;

	if (!s->cap)
		return NULL;
	for (i = hash(k) & (s->cap - 1); s->e[i].k; i = (i + 1) & (s->cap - 1))
		if (strcmp(s->e[i].k, k) == 0)
			return &s->e[i];
	return &s->e[i];
}

static struct nent *nset_find(const struct nset *s, const char *k)
{
	struct nent *e = nset_slot(s, k);

	return e && e->k ? e : NULL;
}

/* Adds k unless present; *dup is the entry already there, or NULL. */
static int nset_add(struct nset *s, const char *k, json_t *v,
		    const pai__pos *at, struct nent **dup)
{
	struct nset big;
	struct nent *e;
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
	*e = (struct nent){k, v, at};
	s->n++;
	return 0;
}

/* Object.prototype's properties: JavaScript's `in` finds them in any {}. */
static bool proto_name(const char *s)
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

	return key_index(s, names) >= 0;
}

/* ---- step 4: references ------------------------------------------------- */

enum { K_SCRIPT, K_OUTPUT, K_DATA, K_IMAGE, NKINDS };

struct role {
	char *name; /* owned */
	json_t *spec;
	const pai__pos *at;
};

/* What step 4 builds and the later steps use. */
struct model {
	struct nset kind[NKINDS];
	struct nset deploy;
	struct role *roles;
	size_t nroles;
	json_t *troles; /* the taskRoles value */
	const pai__pos *troles_at;
};

static void model_release(struct model *md)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		free(md->kind[i].e);
	free(md->deploy.e);
	for (i = 0; i < md->nroles; i++)
		free(md->roles[i].name);
	free(md->roles);
}

static const char *const kind_names[] = {"script", "output", "data",
					 "dockerimage", NULL};

static void index_prereqs(struct v2_ctx *c, struct model *md, json_t *list,
			  const pai__pos *at)
{
	struct v2_path lp = {NULL, "prerequisites", 0}, ip = {&lp, NULL, 0};
	struct v2_path np = {&ip, "name", 0};
	const pai__pos *iat, *nat;
	struct nent *dup;
	json_t *item, *name;
	int k;

	json_array_foreach(list, ip.idx, item)
	{
		iat = v2_item(at, ip.idx);
		name = v2_get(item, iat, "name", &nat);
		k = key_index(json_string_value(json_object_get(item, "type")),
			      kind_names);
		if (nset_add(&md->kind[k], json_string_value(name), item, iat,
			     &dup) < 0) {
			c->err = PAI_ENOMEM;
			return;
		}
		if (dup)
			v2_report(c, v2_off(nat), &np,
				  "v2-duplicate-prerequisite",
				  "a second %s prerequisite named \"%s\"",
				  kind_names[k], json_string_value(name));
	}
}

static void index_deployments(struct v2_ctx *c, struct model *md, json_t *list,
			      const pai__pos *at)
{
	struct v2_path lp = {NULL, "deployments", 0}, ip = {&lp, NULL, 0};
	struct v2_path np = {&ip, "name", 0};
	const pai__pos *iat, *nat;
	struct nent *dup;
	json_t *item, *name;

	json_array_foreach(list, ip.idx, item)
	{
		iat = v2_item(at, ip.idx);
		name = v2_get(item, iat, "name", &nat);
		if (nset_add(&md->deploy, json_string_value(name), item, iat,
			     &dup) < 0) {
			c->err = PAI_ENOMEM;
			return;
		}
		if (dup)
			v2_report(c, v2_off(nat), &np,
				  "v2-duplicate-deployment",
				  "a second deployment named \"%s\"",
				  json_string_value(name));
	}
}

static int add_role(struct model *md, const char *name, json_t *spec,
		    const pai__pos *at)
{
	struct role *r = &md->roles[md->nroles];

	r->name = strdup(name);
	if (!r->name)
		return -1;
	r->spec = spec;
	r->at = at;
	md->nroles++;
	return 0;
}

/* The roles as the server's Object.keys(taskRoles) sees them. A list is
 * taken as roles "0", "1"...; the schema never looks into it, and most
 * of what it would refuse in a role crashes the server later, so its
 * items are held to the role schema here (an approximation: the server
 * takes unknown keys in them). null or a non-empty string crash the
 * server at once; a number, a boolean, "" or [] give no roles. */
static void collect_roles(struct v2_ctx *c, struct model *md, json_t *tr,
			  const pai__pos *at)
{
	struct v2_path p = {NULL, "taskRoles", 0}, ip = {&p, NULL, 0};
	struct v2_iter it = V2_ITER(tr, at);
	enum v2_type t = v2_type(tr, at);
	size_t n = t == V2_OBJECT  ? json_object_size(tr)
		   : t == V2_ARRAY ? json_array_size(tr)
				   : 0;
	const pai__pos *m;
	const char *key;
	char num[32];
	json_t *v;

	md->troles = tr;
	md->troles_at = at;
	if (t == V2_NULL || (t == V2_STRING && json_string_length(tr))) {
		v2_report(c, v2_off(at), &p, "v2-no-roles",
			  "must be a mapping of task role names to roles, got "
			  "%s (the server fails with an internal error here)",
			  v2_type_name(tr, at));
		return;
	}
	md->roles = calloc(n ? n : 1, sizeof(*md->roles));
	if (!md->roles)
		goto oom;
	if (t == V2_OBJECT) {
		while (v2_next(&it, &key, &v, &m))
			if (add_role(md, key, v, m) < 0)
				goto oom;
		return;
	}
	for (ip.idx = 0; ip.idx < n; ip.idx++) {
		v = json_array_get(tr, ip.idx);
		m = v2_item(at, ip.idx);
		snprintf(num, sizeof(num), "%zu", ip.idx);
		check_role(c, v, m, &ip);
		if (add_role(md, num, v, m) < 0)
			goto oom;
	}
	return;
oom:
	c->err = PAI_ENOMEM;
}

static const char *const ref_fields[] = {"script", "output", "data",
					 "dockerImage", NULL};

/* A role's prerequisites (any kind, by name) and its four references
 * (by kind; JavaScript's `in`, so "toString" is found too). */
static void check_role_refs(struct v2_ctx *c, const struct model *md,
			    const struct role *r)
{
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, r->name, 0};
	struct v2_path fp = {&p, NULL, 0}, ip = {&fp, NULL, 0};
	const pai__pos *at, *iat;
	const char *s;
	json_t *v, *item;
	int k, j;

	v = v2_get(r->spec, r->at, "prerequisites", &at);
	fp.key = "prerequisites";
	json_array_foreach(v, ip.idx, item)
	{
		s = json_string_value(item);
		for (j = 0; j < NKINDS && !nset_find(&md->kind[j], s); j++)
			;
		iat = v2_item(at, ip.idx);
		if (j == NKINDS)
			v2_report(c, v2_off(iat), &ip,
				  "v2-prerequisite-missing",
				  "no prerequisite is named \"%s\"", s);
	}
	for (k = 0; k < NKINDS; k++) {
		v = v2_get(r->spec, r->at, ref_fields[k], &at);
		s = json_string_value(v);
		fp.key = ref_fields[k];
		if (v && !(s && (nset_find(&md->kind[k], s) || proto_name(s))))
			v2_report(c, v2_off(at), &fp, "v2-prerequisite-missing",
				  "no %s prerequisite is named \"%s\"",
				  kind_names[k], s ? s : "(not a string)");
	}
}

static void check_refs(struct v2_ctx *c, struct model *md, json_t *root,
		       const pai__pos *pos)
{
	struct v2_path dp = {NULL, "defaults", 0}, p = {&dp, "deployment", 0};
	const pai__pos *at;
	json_t *v;
	size_t i;

	v = v2_get(root, pos, "prerequisites", &at);
	if (v)
		index_prereqs(c, md, v, at);
	v = v2_get(root, pos, "deployments", &at);
	if (v)
		index_deployments(c, md, v, at);
	v = v2_get(root, pos, "taskRoles", &at);
	collect_roles(c, md, v, at);
	for (i = 0; i < md->nroles && !c->err; i++)
		if (v2_type(md->roles[i].spec, md->roles[i].at) == V2_OBJECT)
			check_role_refs(c, md, &md->roles[i]);
	v = v2_get(json_object_get(root, "defaults"),
		   pai__pos_member(pos, "defaults"), "deployment", &at);
	/* a built-in name such as "toString" passes the server's `in` check
	 * and then crashes its render: refused here all the same */
	if (v && !nset_find(&md->deploy, json_string_value(v)))
		v2_report(c, v2_off(at), &p, "v2-deployment-missing",
			  "no deployment is named \"%s\"",
			  json_string_value(v));
}

/* ---- step 5: the render ---------------------------------------------------
 */

static void template_error(struct v2_ctx *c, const pai__pos *at,
			   const struct v2_path *p, const char *text,
			   size_t len, const pai__tmpl_error *e)
{
	size_t n = len - e->off < 24 ? len - e->off : 24;
	const char *rule = "v2-template-section";

	if (strcmp(e->why, "out of memory") == 0) {
		c->err = PAI_ENOMEM;
		return;
	}
	while (n > 0 && ((unsigned char)text[e->off + n] & 0xC0) == 0x80 &&
	       e->off + n < len)
		n--;
	if (strcmp(e->why, "unclosed tag") == 0)
		rule = "v2-template-unclosed";
	else if (strcmp(e->why, "invalid delimiters") == 0)
		rule = "v2-template-delimiters";
	v2_report(c, v2_off(at), p, rule,
		  "the server's mustache template (<%% %%>) does not parse: "
		  "%s at \"%.*s%s\"",
		  e->why, (int)n, text + e->off, n < len - e->off ? "..." : "");
}

/* mustache.parse() keeps a cache in a plain {}: a text equal to one of
 * Object.prototype's names finds a function there, which the server then
 * iterates, and crashes. */
static void render_check(struct v2_ctx *c, const pai__pos *at,
			 const struct v2_path *p, const char *text, size_t len)
{
	pai__tmpl_error e;

	if (proto_name(text) && strlen(text) == len) {
		v2_report(c, v2_off(at), p, "v2-template-prototype",
			  "a template text of just \"%s\" (a JavaScript "
			  "built-in name) makes the server fail with an "
			  "internal error",
			  text);
		return;
	}
	if (pai__tmpl_check(text, len, &e) < 0)
		template_error(c, at, p, text, len, &e);
}

/* Each truthy value of a dockerimage's auth is rendered; a truthy value
 * that is not a string crashes mustache. */
static void render_auth(struct v2_ctx *c, const struct nent *img, size_t i)
{
	struct v2_path lp = {NULL, "prerequisites", 0}, ip = {&lp, NULL, i};
	struct v2_path ap = {&ip, "auth", 0}, mp = {&ap, NULL, 0};
	const pai__pos *at, *m;
	struct v2_iter it;
	const char *key;
	json_t *auth, *v;

	auth = v2_get(img->v, img->at, "auth", &at);
	if (!auth)
		return;
	it = (struct v2_iter)V2_ITER(auth, at);
	while (v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (!v2_truthy(c, v, m))
			continue;
		if (!json_is_string(v))
			v2_report(c, v2_off(m), &mp, "v2-auth-value",
				  "must be a string, got %s (the server fails "
				  "with an internal error here)",
				  v2_type_name(v, m));
		else
			render_check(c, m, &mp, json_string_value(v),
				     json_string_length(v));
	}
}

/* Length of the JavaScript whitespace character (String.prototype.trim's
 * set) ending at s + n, or 0. */
static size_t ws_before(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s + n;

	if (n >= 1 && (u[-1] == ' ' || (u[-1] >= '\t' && u[-1] <= '\r')))
		return 1;
	if (n >= 2 && u[-2] == 0xC2 && u[-1] == 0xA0)
		return 2;
	if (n < 3)
		return 0;
	if ((u[-3] == 0xE1 && u[-2] == 0x9A && u[-1] == 0x80) ||
	    (u[-3] == 0xE2 && u[-2] == 0x80 &&
	     (u[-1] <= 0x8A || u[-1] == 0xA8 || u[-1] == 0xA9 ||
	      u[-1] == 0xAF)) ||
	    (u[-3] == 0xE2 && u[-2] == 0x81 && u[-1] == 0x9F) ||
	    (u[-3] == 0xE3 && u[-2] == 0x80 && u[-1] == 0x80) ||
	    (u[-3] == 0xEF && u[-2] == 0xBB && u[-1] == 0xBF))
		return 3;
	return 0;
}

/* Appends a command line as the server joins them: trimmed, one a line.
 * (Leading whitespace is found by trying each prefix length, as only
 * ws_before() exists; lines are short and this runs once per line.) */
static void put_line(pai__buf *b, json_t *line, bool first)
{
	const char *s = json_string_value(line);
	size_t a = 0, n = json_string_length(line), k;

	if (!first)
		pai__buf_putc(b, '\n');
	for (;;) {
		for (k = 1; k <= 3 && a + k <= n; k++)
			if (ws_before(s + a, k) == k)
				break;
		if (k > 3 || a + k > n)
			break;
		a += k;
	}
	while (n > a && (k = ws_before(s, n)))
		n -= k;
	pai__buf_put(b, s + a, n - a);
}

/* The default deployment's entry for a role: NULL when none. Its
 * taskRoles is looked into with `in`, which throws on a non-object. */
static json_t *deploy_entry(json_t *dep, const char *role, bool *crash)
{
	const pai__pos *at = NULL;
	json_t *tr = json_object_get(dep, "taskRoles");
	char *end;
	size_t i;

	*crash = false;
	switch (v2_type(tr, at)) {
	case V2_OBJECT: return json_object_get(tr, role);
	case V2_ARRAY:
		i = strtoul(role, &end, 10);
		return *role && !*end ? json_array_get(tr, i) : NULL;
	default: break;
	}
	*crash = true;
	return NULL;
}

static void render_role(struct v2_ctx *c, const struct role *r, json_t *dep,
			pai__buf *b)
{
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, r->name, 0};
	struct v2_path cp = {&p, "commands", 0};
	json_t *entry = NULL, *pre = NULL, *post = NULL, *l;
	const pai__pos *at;
	bool crash = false;
	size_t i, nl = 0;

	if (dep)
		entry = deploy_entry(dep, r->name, &crash);
	if (crash || (entry && !json_is_object(entry))) {
		v2_report(c, PAI__NO_OFFSET, &p, "v2-deployment-roles",
			  "the default deployment's taskRoles must be a "
			  "mapping of roles to their pre- and postCommands "
			  "(the server fails with an internal error here)");
		return;
	}
	pre = json_object_get(entry, "preCommands");
	post = json_object_get(entry, "postCommands");
	b->len = 0;
	json_array_foreach(pre, i, l)
	{
		put_line(b, l, nl++ == 0);
	}
	json_array_foreach(json_object_get(r->spec, "commands"), i, l)
	{
		put_line(b, l, nl++ == 0);
	}
	json_array_foreach(post, i, l)
	{
		put_line(b, l, nl++ == 0);
	}
	pai__buf_putc(b, '\0');
	if (b->oom) {
		c->err = PAI_ENOMEM;
		return;
	}
	v2_get(r->spec, r->at, "commands", &at);
	render_check(c, at, &cp, b->data, b->len - 1);
}

static void render_all(struct v2_ctx *c, const struct model *md, json_t *root)
{
	const struct nset *img = &md->kind[K_IMAGE];
	json_t *dep = NULL, *name, *list;
	pai__buf b = PAI__BUF_INIT;
	struct nent *e;
	size_t i;

	list = json_object_get(root, "prerequisites");
	json_array_foreach(list, i, name)
	{
		e = nset_find(img,
			      json_string_value(json_object_get(name, "name")));
		if (e && e->v == name)
			render_auth(c, e, i);
	}
	name = json_object_get(json_object_get(root, "defaults"), "deployment");
	if (name && (e = nset_find(&md->deploy, json_string_value(name))))
		dep = e->v;
	for (i = 0; i < md->nroles && !c->err; i++)
		render_role(c, &md->roles[i], dep, &b);
	pai__buf_release(&b);
}

/* ---- step 6: hived ------------------------------------------------------ */

static bool hived_key_char(int ch, size_t i)
{
	(void)i;
	return pai__is_name_char(ch) || ch == '.' || ch == '~';
}

/* The hived schema on extras.hivedScheduler. */
static void hived_schema(struct v2_ctx *c, json_t *h, const pai__pos *at,
			 const struct v2_path *p)
{
	static const char *const fields[] = {"skuType", "pinnedCellId",
					     "affinityGroupName", NULL};
	struct v2_path tp = {p, "taskRoles", 0}, rp = {&tp, NULL, 0};
	struct v2_path fp = {&rp, NULL, 0}, cp = {p, "jobPriorityClass", 0};
	const pai__pos *m, *tat, *fm;
	struct v2_iter it, fi;
	const char *key, *fk, *s;
	json_t *v, *tr, *fv;

	if (!want(c, h, at, p, T_OBJ))
		return;
	v = v2_get(h, at, "jobPriorityClass", &m);
	s = json_string_value(v);
	if (v && !(s && (!strcmp(s, "prod") || !strcmp(s, "test") ||
			 !strcmp(s, "oppo"))))
		v2_report(c, v2_off(m), &cp, "hived-priority-class",
			  "must be \"prod\", \"test\" or \"oppo\"");
	tr = v2_get(h, at, "taskRoles", &tat);
	if (!tr || v2_type(tr, tat) != V2_OBJECT)
		return; /* no `type` in the schema here either */
	if (!json_object_size(tr))
		v2_report(c, v2_off(tat), &tp, "empty",
			  "must not be empty (at least one task role)");
	it = (struct v2_iter)V2_ITER(tr, tat);
	while (v2_next(&it, &key, &v, &m)) {
		rp.key = key;
		if (!only_chars(key, hived_key_char)) {
			v2_report(c, v2_key_off(m), &rp, "hived-role-name",
				  "must be letters, digits, '.', '_' and '~' "
				  "only");
			continue;
		}
		if (!want(c, v, m, &rp, T_OBJ))
			continue;
		fi = (struct v2_iter)V2_ITER(v, m);
		while (v2_next(&fi, &fk, &fv, &fm))
			if (key_index(fk, fields) >= 0 && (fp.key = fk))
				want(c, fv, fm, &fp, T_STR | T_NULL);
	}
}

/* skuType or pinnedCellId of two roles: the same (null and absent are
 * both null once the hived schema's defaults are in). */
static bool same_str(json_t *a, json_t *b)
{
	if (!json_is_string(a) || !json_is_string(b))
		return !json_is_string(a) && !json_is_string(b);
	return json_equal(a, b);
}

static bool role_in(const struct model *md, const char *name)
{
	size_t i;
	char *end;

	if (json_is_object(md->troles))
		return json_object_get(md->troles, name) || proto_name(name);
	i = strtoul(name, &end, 10);
	return *name && !*end && i < md->nroles;
}

/* hivedScheduler.taskRoles that is not a mapping (the hived schema gives
 * it no type): the server's Object.keys() names a list's items and a
 * string's characters "0", "1"..., which must be task roles (only a
 * list of roles has such names). */
static void hived_list_roles(struct v2_ctx *c, const struct model *md,
			     json_t *tr, const pai__pos *at,
			     const struct v2_path *p)
{
	struct v2_path ip = {p, NULL, 0};
	char num[32];
	size_t n = json_is_array(tr)	? json_array_size(tr)
		   : json_is_string(tr) ? code_points(json_string_value(tr))
					: 0;

	for (ip.idx = 0; ip.idx < n; ip.idx++) {
		snprintf(num, sizeof(num), "%zu", ip.idx);
		if (!role_in(md, num))
			v2_report(
			    c,
			    v2_off(json_is_array(tr) ? v2_item(at, ip.idx)
						     : at),
			    &ip, "hived-unknown-role",
			    "there is no task role \"%s\" (a list here is "
			    "read as roles \"0\", \"1\"...)",
			    num);
	}
}

/* The hived checks of each role named in hivedScheduler.taskRoles. */
static void hived_checks(struct v2_ctx *c, const struct model *md, json_t *h,
			 const pai__pos *at, struct nset *groups)
{
	struct v2_path ep = {NULL, "extras", 0},
		       hp = {&ep, "hivedScheduler", 0};
	struct v2_path tp = {&hp, "taskRoles", 0}, rp = {&tp, NULL, 0};
	const pai__pos *tat, *m, *gm;
	json_t *tr, *v, *sku, *cell, *g;
	struct v2_iter it;
	struct nent *first;
	const char *key;

	tr = v2_get(h, at, "taskRoles", &tat);
	if (!json_is_object(tr)) {
		hived_list_roles(c, md, tr, tat, &tp);
		return;
	}
	it = (struct v2_iter)V2_ITER(tr, tat);
	while (v2_next(&it, &key, &v, &m)) {
		rp.key = key;
		if (!role_in(md, key)) {
			v2_report(c, v2_key_off(m), &rp, "hived-unknown-role",
				  "there is no task role \"%s\"", key);
			continue;
		}
		sku = json_object_get(v, "skuType");
		cell = json_object_get(v, "pinnedCellId");
		if (json_is_string(sku) && json_is_string(cell))
			v2_report(c, v2_off(m), &rp, "hived-sku-and-cell",
				  "skuType and pinnedCellId: only one of them");
		g = v2_get(v, m, "affinityGroupName", &gm);
		if (!json_is_string(g))
			continue;
		if (nset_add(groups, json_string_value(g), v, m, &first) < 0) {
			c->err = PAI_ENOMEM;
			return;
		}
		if (first &&
		    (!same_str(json_object_get(first->v, "skuType"), sku) ||
		     !same_str(json_object_get(first->v, "pinnedCellId"),
			       cell)))
			v2_report(c, v2_off(gm), &rp, "hived-affinity-group",
				  "affinity group \"%s\" has another skuType "
				  "or pinnedCellId in another role",
				  json_string_value(g));
	}
}

/* ---- step 7: the job model ---------------------------------------------- */

/* for (x of v) { x.name } in the server: v must be a list (or a string)
 * without null items. */
static void iterable_entries(struct v2_ctx *c, json_t *v, const pai__pos *at,
			     const struct v2_path *p)
{
	struct v2_path ip = {p, NULL, 0};
	json_t *item;

	if (v2_type(v, at) == V2_STRING)
		return;
	if (v2_type(v, at) != V2_ARRAY) {
		v2_report(c, v2_off(at), p, "v2-storages",
			  "must be a list, got %s (the server fails with an "
			  "internal error here)",
			  v2_type_name(v, at));
		return;
	}
	json_array_foreach(v, ip.idx, item)
	{
		if (json_is_null(item))
			v2_report(c, v2_off(v2_item(at, ip.idx)), &ip,
				  "v2-storages",
				  "must not be null (the server fails with an "
				  "internal error here)");
	}
}

/* The deprecated teamwise_storage plugin, read when extras has no
 * storages. */
static void check_plugins(struct v2_ctx *c, json_t *v, const pai__pos *at,
			  const struct v2_path *p)
{
	struct v2_path ip = {p, NULL, 0}, pp = {&ip, "parameters", 0};
	const pai__pos *m;
	json_t *item, *par, *names;

	iterable_entries(c, v, at, p);
	json_array_foreach(v, ip.idx, item)
	{
		if (!json_is_object(item) ||
		    !json_is_string(json_object_get(item, "plugin")) ||
		    strcmp(json_string_value(json_object_get(item, "plugin")),
			   "teamwise_storage"))
			continue;
		par = v2_get(item, v2_item(at, ip.idx), "parameters", &m);
		names = json_object_get(par, "storageConfigNames");
		if (par && json_is_null(par))
			v2_report(c, v2_off(m), &pp, "v2-storages",
				  "must not be null (the server fails with "
				  "an internal error here)");
		else if (names && v2_truthy(c, names, NULL) &&
			 !json_is_array(names))
			v2_report(c, v2_off(m), &pp, "v2-storages",
				  "storageConfigNames must be a list (the "
				  "server fails with an internal error here)");
	}
}

static void check_extras(struct v2_ctx *c, json_t *root, const pai__pos *pos)
{
	struct v2_path ep = {NULL, "extras", 0}, sp = {&ep, "storages", 0};
	struct v2_path pp = {&ep, "com.microsoft.pai.runtimeplugin", 0};
	const pai__pos *eat, *at;
	json_t *extras, *v;

	extras = v2_get(root, pos, "extras", &eat);
	if (!extras)
		return;
	v = v2_get(extras, eat, "storages", &at);
	if (v && v2_truthy(c, v, at)) {
		iterable_entries(c, v, at, &sp);
		return;
	}
	v = v2_get(extras, eat, "com.microsoft.pai.runtimeplugin", &at);
	if (v)
		check_plugins(c, v, at, &pp);
}

/* `p in ports` for ssh and http: ports must be an object when truthy. */
static void check_role_ports(struct v2_ctx *c, const struct role *r)
{
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, r->name, 0};
	struct v2_path qp = {&p, "resourcePerInstance", 0},
		       pp = {&qp, "ports", 0};
	const pai__pos *at, *pat;
	json_t *res, *ports;

	res = v2_get(r->spec, r->at, "resourcePerInstance", &at);
	ports = v2_get(res, at, "ports", &pat);
	if (ports && v2_truthy(c, ports, pat) &&
	    v2_type(ports, pat) != V2_OBJECT && v2_type(ports, pat) != V2_ARRAY)
		v2_report(c, v2_off(pat), &pp, "v2-ports",
			  "must be a mapping of port labels to counts, got %s "
			  "(the server fails with an internal error here)",
			  v2_type_name(ports, pat));
}

/* Each role's hived pod spec lists the instances of every member of its
 * affinity group, and js-yaml's dump throws on a member without them. */
static void check_groups(struct v2_ctx *c, const struct model *md, json_t *root,
			 const struct nset *groups)
{
	json_t *extras = json_object_get(root, "extras"), *gang, *hr, *g;
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, NULL, 0};
	bool all;
	size_t i;

	gang = json_object_get(extras, "gangAllocation");
	all = !groups->n && (!gang || json_is_true(gang));
	hr = json_object_get(json_object_get(extras, "hivedScheduler"),
			     "taskRoles");
	for (i = 0; i < md->nroles; i++) {
		g = json_object_get(json_object_get(hr, md->roles[i].name),
				    "affinityGroupName");
		if (!all && !json_is_string(g))
			continue;
		if (json_object_get(md->roles[i].spec, "instances"))
			continue;
		p.key = md->roles[i].name;
		v2_report(c, v2_off(md->roles[i].at), &p,
			  "hived-instances-missing",
			  "\"instances\" is needed in a role of an affinity "
			  "group under hived (the server fails with an "
			  "internal error here)");
	}
}

static void check_model(struct v2_ctx *c, const struct model *md, json_t *root,
			const pai__pos *pos, const struct nset *groups)
{
	struct v2_path p = {NULL, "taskRoles", 0};
	size_t i;

	check_extras(c, root, pos);
	for (i = 0; i < md->nroles; i++)
		check_role_ports(c, &md->roles[i]);
	if (c->scheduler != PAI_SCHEDULER_HIVED)
		return;
	if (!md->nroles)
		v2_report(c, v2_off(md->troles_at), &p, "hived-no-roles",
			  "gives no task roles, and under hived the server "
			  "reads the first one's (it fails with an internal "
			  "error here)");
	check_groups(c, md, root, groups);
}

/* ---- step 8: the write-merger ---------------------------------------------
 *
 * The database-controller stores the config with its secrets masked:
 * from a line starting "secrets:" lazily up to the next line starting
 * with a word character, replaced by `secrets: "******"`, and re-parses
 * that with js-yaml 3.14.0. When no line starts "secrets:" the text is
 * unchanged and has parsed already. Otherwise the masked text is loaded
 * again (with our js-yaml loader; 3.14.0 loads what 3.13.1 does in all
 * that matters here). It fails only for contrived texts: a "secrets:"
 * line at column 0 inside a multi-line quoted or flow scalar, or lines
 * starting with a non-word character (a quoted key, a flow collection)
 * swallowed up to a point where what is left no longer parses. */
static char *mask_secrets(const char *t, size_t len, size_t *out_len)
{
	pai__buf b = PAI__BUF_INIT;
	size_t i, j;

	for (i = 0; i < len; i = j + 1) {
		for (j = i; j < len && t[j] != '\n'; j++)
			;
		if (len - i >= 8 && memcmp(t + i, "secrets:", 8) == 0)
			break;
		if (j >= len)
			return NULL;
	}
	if (i >= len)
		return NULL;
	pai__buf_put(&b, t, i);
	pai__buf_puts(&b, "secrets: \"******\"\n");
	/* the next line starting with [A-Za-z0-9_] (the text gets "\nZ"
	 * appended first, so there always is one) */
	for (j = i + 8; j < len; j++)
		if (t[j - 1] == '\n' && pai__is_name_char((unsigned char)t[j]))
			break;
	if (j < len)
		pai__buf_put(&b, t + j, len - j);
	else if (b.len)
		b.len--; /* the "\nZ" came back off with the newline */
	*out_len = b.len;
	return pai__buf_detach(&b);
}

static void check_masked(struct v2_ctx *c)
{
	pai_diags *scratch = NULL;
	json_t *root = NULL;
	size_t len = 0;
	pai__src src;
	pai__pos pos;
	char *text;
	int r;

	memset(&pos, 0, sizeof(pos));
	text = mask_secrets(c->src->text, c->src->len, &len);
	if (!text)
		return;
	if (pai_diags_new(&scratch)) {
		c->err = PAI_ENOMEM;
		goto out;
	}
	r = pai__src_init_yaml(&src, scratch, c->src->name, text, len);
	if (r == PAI_OK) {
		r = pai__yaml_parse(&root, &pos, &src, scratch);
		pai__pos_release(&pos);
	}
	pai__src_release(&src);
	if (r == PAI_ENOMEM)
		c->err = PAI_ENOMEM;
	else if (r == PAI_ESYNTAX)
		v2_report(c, PAI__NO_OFFSET, NULL, "v2-masked-secrets",
			  "with its secrets masked (from \"secrets:\" to the "
			  "next line starting with a letter, digit or '_'), "
			  "the config no longer parses, and the server fails "
			  "with an internal error when storing it");
out:
	json_decref(root);
	pai_diags_free(scratch);
	free(text);
}

/* ---- the steps ------------------------------------------------------------
 */

static void run_steps(struct v2_ctx *c, struct model *md, json_t *root,
		      const pai__pos *pos)
{
	struct v2_path ep = {NULL, "extras", 0},
		       hp = {&ep, "hivedScheduler", 0};
	struct nset groups = {NULL, 0, 0};
	const pai__pos *at;
	json_t *h;

	check_schema(c, root, pos);
	if (c->errors || c->err)
		return;
	check_refs(c, md, root, pos);
	if (c->errors || c->err)
		return;
	render_all(c, md, root);
	if (c->errors || c->err)
		return;
	h = v2_get(json_object_get(root, "extras"),
		   pai__pos_member(pos, "extras"), "hivedScheduler", &at);
	if (c->scheduler == PAI_SCHEDULER_HIVED && h) {
		hived_schema(c, h, at, &hp);
		if (c->errors || c->err)
			return;
		if (!json_is_null(h))
			hived_checks(c, md, h, at, &groups);
		if (c->errors || c->err)
			goto out;
	}
	check_model(c, md, root, pos, &groups);
	if (!c->errors && !c->err)
		check_masked(c);
out:
	free(groups.e);
}

int pai__validate_v2(pai_diags *diags, pai__src *src, const pai__pos *pos,
		     json_t *root, pai_scheduler scheduler)
{
	struct v2_ctx c = {diags, src, scheduler, 0, 0};
	struct model md;

	memset(&md, 0, sizeof(md));
	run_steps(&c, &md, root, pos);
	model_release(&md);
	if (c.err)
		return c.err;
	return c.errors ? PAI_EINVALID : PAI_OK;
}
