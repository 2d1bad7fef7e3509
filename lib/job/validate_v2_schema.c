/* validate_v2_schema.c - step 3 of protocol-v2 validation: the server's
 * protocol schema, as ajv 6 with allErrors applies it (every problem of
 * the step is reported). See validate_v2.c. */
#include "validate_v2_base.h"

#include <string.h>

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
	switch (pai__v2_type(v, at)) {
	case V2_STRING: return m & T_STR;
	case V2_NUMBER:
		return (m & T_NUM) || ((m & T_INT) && pai__v2_is_int(c, v, at));
	case V2_ARRAY: return m & T_ARR;
	case V2_OBJECT: return m & T_OBJ;
	case V2_NULL: return m & T_NULL;
	case V2_BOOL: break;
	}
	return false;
}

bool pai__v2_want(struct v2_ctx *c, json_t *v, const pai__pos *at,
		  const struct v2_path *p, unsigned m)
{
	if (has_type(c, v, at, m))
		return true;
	pai__v2_report(c, v2_off(at), p, "type", "must be %s, got %s",
		       mask_name(m), pai__v2_type_name(v, at));
	return false;
}

/* A list of strings with at least min items. */
static void str_list(struct v2_ctx *c, json_t *v, const pai__pos *at,
		     const struct v2_path *p, size_t min)
{
	struct v2_path ip = {p, NULL, 0};
	json_t *item;

	if (!pai__v2_want(c, v, at, p, T_ARR))
		return;
	if (json_array_size(v) < min)
		pai__v2_report(
		    c, v2_off(at), p, "empty",
		    "must not be empty (a list of at least one string)");
	json_array_foreach(v, ip.idx, item)
	{
		pai__v2_want(c, item, v2_item(at, ip.idx), &ip, T_STR);
	}
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

/* A job, prerequisite or deployment name: ^[a-zA-Z0-9_-]+$, at most 255
 * characters (ajv counts code points). */
static void check_name(struct v2_ctx *c, json_t *v, const pai__pos *at,
		       const struct v2_path *p, const char *rule)
{
	const char *s;

	if (!pai__v2_want(c, v, at, p, T_STR))
		return;
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v) ||
	    !pai__v2_only_chars(s, name_char))
		pai__v2_report(c, v2_off(at), p, rule,
			       "must be letters, digits, '_' and '-' only (at "
			       "least one)");
	else if (pai__v2_code_points(s) > 255)
		pai__v2_report(c, v2_off(at), p, rule,
			       "must be at most 255 characters, got %zu",
			       pai__v2_code_points(s));
}

/* enum ["2", 2]: 2.0 is the number 2 too. */
static void check_version(struct v2_ctx *c, json_t *v, const pai__pos *at,
			  const struct v2_path *p)
{
	if (json_is_string(v) && strcmp(json_string_value(v), "2") == 0 &&
	    json_string_length(v) == 1)
		return;
	if (pai__v2_type(v, at) == V2_NUMBER && !(at && at->ykind) &&
	    json_number_value(v) == 2)
		return;
	pai__v2_report(c, v2_off(at), p, "v2-protocol-version",
		       "must be 2 or \"2\", got %s", pai__v2_type_name(v, at));
}

static void unknown_key(struct v2_ctx *c, const char *key, const pai__pos *at,
			const struct v2_path *p, const char *const *known,
			const char *where)
{
	pai__closest cl = PAI__CLOSEST_INIT(key);
	const char *best;

	for (; *known; known++)
		pai__closest_add(&cl, *known);
	best = pai__closest_name(&cl);
	if (best)
		pai__v2_report(c, v2_key_off(at), p, "unknown-field",
			       "%s has no field \"%s\"; did you mean \"%s\"?",
			       where, key, best);
	else
		pai__v2_report(c, v2_key_off(at), p, "unknown-field",
			       "%s has no field \"%s\"", where, key);
}

static void required(struct v2_ctx *c, json_t *obj, const pai__pos *at,
		     const struct v2_path *p, const char *const *names)
{
	for (; *names; names++)
		if (!json_object_get(obj, *names))
			pai__v2_report(c, v2_off(at), p, "required",
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
		pai__v2_want(c, v, at, p, T_STR | T_NUM);
	else if (strcmp(key, "contributor") == 0 ||
		 strcmp(key, "description") == 0)
		pai__v2_want(c, v, at, p, T_STR);
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

	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (base_field(c, key, v, m, &mp, "v2-name") ||
		    strcmp(key, "type") == 0)
			continue;
		if (strcmp(key, "uri") == 0 && data)
			str_list(c, v, m, &mp, 0);
		else if (strcmp(key, "uri") == 0)
			pai__v2_want(c, v, m, &mp, T_STR);
		else if (!image && strcmp(key, "plugin") == 0)
			pai__v2_want(c, v, m, &mp, T_STR);
		else if (!image && strcmp(key, "require") == 0)
			str_list(c, v, m, &mp, 0);
		else if (image && strcmp(key, "auth") == 0 &&
			 pai__v2_want(c, v, m, &mp, T_OBJ)) {
			ai = (struct v2_iter)V2_ITER(v, m);
			ap = (struct v2_path){&mp, NULL, 0};
			while (pai__v2_next(&ai, &ak, &av, &am))
				if (pai__v2_key_index(ak, auth_keys) >= 0 &&
				    (ap.key = ak))
					pai__v2_want(c, av, am, &ap, T_STR);
		} else if (image)
			unknown_key(c, key, m, &mp, image_keys,
				    "a dockerimage prerequisite");
	}
	if (image && !json_object_get(o, "uri"))
		pai__v2_report(c, v2_off(at), p, "required",
			       "\"uri\" is required");
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	type = pai__v2_get(o, at, "type", &tat);
	if (!type)
		return;
	if (!json_is_string(type) ||
	    pai__v2_key_index(json_string_value(type), kinds) < 0) {
		pai__v2_report(c, v2_off(tat), &tp, "v2-prerequisite-type",
			       "must be \"script\", \"output\", \"data\" or "
			       "\"dockerimage\", got %s",
			       pai__v2_type_name(type, tat));
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (pai__v2_key_index(key, keys) >= 0)
			pai__v2_want(c, v, m, &mp, T_INT | T_NULL);
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

	if (pai__v2_type(o, at) != V2_OBJECT)
		return;
	if (!json_object_size(o))
		pai__v2_report(c, v2_off(at), p, "empty",
			       "must not be empty (%s)", empty);
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (!pai__v2_only_chars(key, role_char))
			pai__v2_report(c, v2_key_off(m), &mp, rule,
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
	pai__v2_want(c, v, m, p, T_INT);
}

/* `ports`: port labels and how many ports of each. */
static void check_ports(struct v2_ctx *c, json_t *o, const pai__pos *at,
			const struct v2_path *p)
{
	check_named_map(c, o, at, p, "a port label and its count", "port-label",
			"a port label", check_port_count);
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		k = pai__v2_key_index(key, keys);
		if (k == 3)
			check_ports(c, v, m, &mp);
		else if (k >= 0)
			pai__v2_want(c, v, m, &mp, T_INT);
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (strcmp(key, "shmMB") == 0)
			pai__v2_want(c, v, m, &mp, T_INT);
		else if (strcmp(key, "additionalProperties") == 0)
			pai__v2_report(
			    c, v2_key_off(m), &mp, "v2-additional-properties",
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
		if (pai__v2_want(c, v, m, mp, T_INT) &&
		    json_number_value(v) < 1)
			pai__v2_report(c, v2_off(m), mp, "v2-instances",
				       "must be at least 1");
		break;
	case 2: check_completion(c, v, m, mp); break;
	case 3: pai__v2_want(c, v, m, mp, T_INT); break;
	case 4: str_list(c, v, m, mp, 0); break;
	case 9: check_extra_options(c, v, m, mp); break;
	case 10: check_resources(c, v, m, mp); break;
	case 11: str_list(c, v, m, mp, 1); break;
	default: pai__v2_want(c, v, m, mp, T_STR); break;
	}
}

void pai__v2_check_role(struct v2_ctx *c, json_t *o, const pai__pos *at,
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		k = pai__v2_key_index(key, role_keys);
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
			"a task role name", pai__v2_check_role);
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (pai__v2_key_index(key, keys) >= 0)
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

	if (!pai__v2_want(c, o, at, p, T_OBJ))
		return;
	required(c, o, at, p, need);
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (strcmp(key, "protocolVersion") == 0)
			check_version(c, v, m, &mp);
		else if (strcmp(key, "name") == 0)
			check_name(c, v, m, &mp, "v2-name");
		/* taskRoles has no `type` either: only a mapping is checked */
		if (strcmp(key, "taskRoles") || pai__v2_type(v, m) != V2_OBJECT)
			continue;
		if (!json_object_size(v))
			pai__v2_report(c, v2_off(m), &mp, "empty",
				       "must not be empty (at least one task "
				       "role)");
		ri = (struct v2_iter)V2_ITER(v, m);
		rp = (struct v2_path){&mp, NULL, 0};
		while (pai__v2_next(&ri, &rk, &rv, &rm)) {
			rp.key = rk;
			if (!pai__v2_only_chars(rk, role_char))
				pai__v2_report(
				    c, v2_key_off(rm), &rp, "role-name",
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

	if (!pai__v2_want(c, v, at, p, T_ARR))
		return;
	if (!json_array_size(v))
		pai__v2_report(c, v2_off(at), p, "empty",
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

	switch (pai__v2_key_index(key, top_keys)) {
	case 5:
		if (pai__v2_want(c, v, m, mp, T_STR) &&
		    strcmp(json_string_value(v), "job"))
			pai__v2_report(c, v2_off(m), mp, "v2-job-type",
				       "must be \"job\"");
		break;
	case 6: check_list(c, v, m, mp, check_prereq); break;
	case 7:
	case 8:
	case 13: pai__v2_want(c, v, m, mp, T_OBJ); break;
	case 9:
		if (pai__v2_want(c, v, m, mp, T_INT) &&
		    json_number_value(v) < 0)
			pai__v2_report(c, v2_off(m), mp, "negative-retry-count",
				       "must not be negative");
		break;
	case 10: check_roles(c, v, m, mp); break;
	case 11: check_list(c, v, m, mp, check_deployment); break;
	case 12:
		if (pai__v2_want(c, v, m, mp, T_OBJ) &&
		    (d = pai__v2_get(v, m, "deployment", &dm)))
			pai__v2_want(c, d, dm, &dp, T_STR);
		break;
	case -1:
		unknown_key(c, key, m, mp, top_keys, "a protocol-v2 job");
		break;
	default: base_field(c, key, v, m, mp, "job-name"); break;
	}
}

void pai__v2_check_schema(struct v2_ctx *c, json_t *root, const pai__pos *pos)
{
	static const char *const need[] = {"protocolVersion", "name", "type",
					   "taskRoles", NULL};
	struct v2_iter it = V2_ITER(root, pos);
	struct v2_path mp = {NULL, NULL, 0};
	const pai__pos *m;
	const char *key;
	json_t *v;

	if (pai__v2_type(root, pos) != V2_OBJECT) {
		pai__v2_report(c, v2_off(pos), NULL, "type",
			       "a protocol-v2 job must be a mapping, got %s",
			       pai__v2_type_name(root, pos));
		return;
	}
	required(c, root, pos, NULL, need);
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		check_top_field(c, key, v, m, &mp);
	}
}
