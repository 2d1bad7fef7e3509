/* validate_v2_base.h - what the parts of protocol-v2 validation share;
 * private to validate_v2_base.c (the context, reporting, values as
 * JavaScript sees them, walking and name sets), validate_v2_schema.c
 * (step 3), validate_v2_refs.c (steps 4, 5, 7 and 8),
 * validate_v2_hived.c (step 6) and validate_v2.c (the steps in order). */
#ifndef PAI_VALIDATE_V2_BASE_H
#define PAI_VALIDATE_V2_BASE_H

#include "job.h"

struct v2_ctx {
	pai_diags *diags;
	pai__src *src;
	pai_scheduler scheduler;
	size_t errors;
	int err; /* PAI_ENOMEM once an allocation failed */
	/* where each error is, as a list of keys and indices, while the
	 * schema is checked (validate_v2.c leaves those members out so
	 * that the later steps check what did parse); NULL: not kept */
	json_t *cuts;
};

/* A diagnostic's path, as a chain up to the root (NULL), turned into text
 * only when something is reported. key NULL: item idx of a list. */
struct v2_path {
	const struct v2_path *up;
	const char *key;
	size_t idx;
};

/* ---- reporting (validate_v2_base.c) -------------------------------------- */

/* An error with its rule id, counted in c->errors; an allocation failure
 * sets c->err. */
void pai__v2_report(struct v2_ctx *c, size_t off, const struct v2_path *p,
		    const char *rule, const char *fmt, ...) PAI__PRINTF(5, 6);

static inline size_t v2_off(const pai__pos *at)
{
	return at ? at->off : PAI__NO_OFFSET;
}

static inline size_t v2_key_off(const pai__pos *at)
{
	return at ? at->key_off : PAI__NO_OFFSET;
}

/* ---- values as JavaScript sees them (validate_v2_base.c) ----------------- */

enum v2_type { V2_NULL, V2_BOOL, V2_NUMBER, V2_STRING, V2_ARRAY, V2_OBJECT };

/* typeof, with js-yaml's Dates and Buffers objects. */
enum v2_type pai__v2_type(json_t *v, const pai__pos *at);
/* ajv 6's integer: 2.0 and Infinity are, NaN is not. */
bool pai__v2_is_int(const struct v2_ctx *c, json_t *v, const pai__pos *at);
bool pai__v2_truthy(const struct v2_ctx *c, json_t *v, const pai__pos *at);
/* "a mapping", "a list", "null"... for messages. */
const char *pai__v2_type_name(json_t *v, const pai__pos *at);

/* ---- walking (validate_v2_base.c) ---------------------------------------- */

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

/* The next member of an object in the file's order: false at the end. */
bool pai__v2_next(struct v2_iter *it, const char **key, json_t **v,
		  const pai__pos **at);
/* The member `key` of an object node's value and its position. */
json_t *pai__v2_get(json_t *obj, const pai__pos *pos, const char *key,
		    const pai__pos **at);

static inline const pai__pos *v2_item(const pai__pos *arr, size_t i)
{
	return arr && i < arr->nchild ? &arr->child[i] : arr;
}

/* ---- names (validate_v2_base.c) ------------------------------------------ */

/* Whether s is not empty and ok() takes each of its bytes (and index). */
bool pai__v2_only_chars(const char *s, bool (*ok)(int c, size_t i));
/* The length of a UTF-8 string in code points, as ajv counts. */
size_t pai__v2_code_points(const char *s);
/* The index of key in a NULL-terminated list, or -1. */
int pai__v2_key_index(const char *key, const char *const *names);
/* Whether s is one of Object.prototype's properties, which JavaScript's
 * `in` finds in any {}. */
bool pai__v2_proto_name(const char *s);

/* A set of names borrowed from the JSON, each with its value. */
struct v2_nent {
	const char *k;
	json_t *v;
	const pai__pos *at;
};

struct v2_nset {
	struct v2_nent *e;
	size_t cap, n;
};

struct v2_nent *pai__v2_nset_find(const struct v2_nset *s, const char *k);
/* Adds k unless present; *dup is the entry already there, or NULL. -1
 * when out of memory. */
int pai__v2_nset_add(struct v2_nset *s, const char *k, json_t *v,
		     const pai__pos *at, struct v2_nent **dup);

/* ---- the model: what step 4 builds and the later steps use --------------- */

enum { K_SCRIPT, K_OUTPUT, K_DATA, K_IMAGE, NKINDS };

struct v2_role {
	char *name; /* owned */
	json_t *spec;
	const pai__pos *at;
};

struct v2_model {
	struct v2_nset kind[NKINDS]; /* prerequisites by K_* */
	struct v2_nset deploy;
	struct v2_role *roles;
	size_t nroles;
	json_t *troles; /* the taskRoles value */
	const pai__pos *troles_at;
};

/* ---- step 3: the schema (validate_v2_schema.c) --------------------------- */

enum { T_STR = 1, T_NUM = 2, T_INT = 4, T_ARR = 8, T_OBJ = 16, T_NULL = 32 };

/* Whether v has one of the T_* types of m; reports "type" if not. */
bool pai__v2_want(struct v2_ctx *c, json_t *v, const pai__pos *at,
		  const struct v2_path *p, unsigned m);
/* A task role against the role schema (also step 4's list items). */
void pai__v2_check_role(struct v2_ctx *c, json_t *o, const pai__pos *at,
			const struct v2_path *p);
void pai__v2_check_schema(struct v2_ctx *c, json_t *root, const pai__pos *pos);

/* ---- steps 4, 5, 7 and 8 (validate_v2_refs.c) ---------------------------- */

/* Step 4 fills md, which the caller releases even on failure. */
void pai__v2_check_refs(struct v2_ctx *c, struct v2_model *md, json_t *root,
			const pai__pos *pos);
void pai__v2_render_all(struct v2_ctx *c, const struct v2_model *md,
			json_t *root);
/* Step 7; groups are step 6's affinity groups (empty without hived). */
void pai__v2_check_model(struct v2_ctx *c, const struct v2_model *md,
			 json_t *root, const pai__pos *pos,
			 const struct v2_nset *groups);
void pai__v2_check_masked(struct v2_ctx *c);
/* paictl's own, once the server's steps pass: two roles that become one
 * framework task role. */
void pai__v2_check_role_names(struct v2_ctx *c, const struct v2_model *md);

/* ---- step 6: hived (validate_v2_hived.c) --------------------------------- */

void pai__v2_hived_schema(struct v2_ctx *c, json_t *h, const pai__pos *at,
			  const struct v2_path *p);
/* Fills groups with the affinity groups, first role of each. */
void pai__v2_hived_checks(struct v2_ctx *c, const struct v2_model *md,
			  json_t *h, const pai__pos *at,
			  struct v2_nset *groups);

#endif
