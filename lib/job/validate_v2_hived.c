/* validate_v2_hived.c - step 6 of protocol-v2 validation: the hived
 * schema on extras.hivedScheduler and the checks of its task roles. See
 * validate_v2.c. */
#include "validate_v2_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- step 6: hived ------------------------------------------------------ */

static bool hived_key_char(int ch, size_t i)
{
	(void)i;
	return pai__is_name_char(ch) || ch == '.' || ch == '~';
}

/* The hived schema on extras.hivedScheduler. */
void pai__v2_hived_schema(struct v2_ctx *c, json_t *h, const pai__pos *at,
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

	if (!pai__v2_want(c, h, at, p, T_OBJ))
		return;
	v = pai__v2_get(h, at, "jobPriorityClass", &m);
	s = json_string_value(v);
	if (v && !(s && (!strcmp(s, "prod") || !strcmp(s, "test") ||
			 !strcmp(s, "oppo"))))
		pai__v2_report(c, v2_off(m), &cp, "hived-priority-class",
			       "must be \"prod\", \"test\" or \"oppo\"");
	tr = pai__v2_get(h, at, "taskRoles", &tat);
	if (!tr || pai__v2_type(tr, tat) != V2_OBJECT)
		return; /* no `type` in the schema here either */
	if (!json_object_size(tr))
		pai__v2_report(c, v2_off(tat), &tp, "empty",
			       "must not be empty (at least one task role)");
	it = (struct v2_iter)V2_ITER(tr, tat);
	while (pai__v2_next(&it, &key, &v, &m)) {
		rp.key = key;
		if (!pai__v2_only_chars(key, hived_key_char)) {
			pai__v2_report(
			    c, v2_key_off(m), &rp, "hived-role-name",
			    "must be letters, digits, '.', '_' and '~' "
			    "only");
			continue;
		}
		if (!pai__v2_want(c, v, m, &rp, T_OBJ))
			continue;
		fi = (struct v2_iter)V2_ITER(v, m);
		while (pai__v2_next(&fi, &fk, &fv, &fm))
			if (pai__v2_key_index(fk, fields) >= 0 && (fp.key = fk))
				pai__v2_want(c, fv, fm, &fp, T_STR | T_NULL);
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

static bool role_in(const struct v2_model *md, const char *name)
{
	size_t i;
	char *end;

	if (json_is_object(md->troles))
		return json_object_get(md->troles, name) ||
		       pai__v2_proto_name(name);
	i = strtoul(name, &end, 10);
	return *name && !*end && i < md->nroles;
}

/* hivedScheduler.taskRoles that is not a mapping (the hived schema gives
 * it no type): the server's Object.keys() names a list's items and a
 * string's characters "0", "1"..., which must be task roles (only a
 * list of roles has such names). */
static void hived_list_roles(struct v2_ctx *c, const struct v2_model *md,
			     json_t *tr, const pai__pos *at,
			     const struct v2_path *p)
{
	struct v2_path ip = {p, NULL, 0};
	char num[32];
	size_t n = json_is_array(tr) ? json_array_size(tr)
		   : json_is_string(tr)
		       ? pai__v2_code_points(json_string_value(tr))
		       : 0;

	for (ip.idx = 0; ip.idx < n; ip.idx++) {
		snprintf(num, sizeof(num), "%zu", ip.idx);
		if (!role_in(md, num))
			pai__v2_report(
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
void pai__v2_hived_checks(struct v2_ctx *c, const struct v2_model *md,
			  json_t *h, const pai__pos *at, struct v2_nset *groups)
{
	struct v2_path ep = {NULL, "extras", 0},
		       hp = {&ep, "hivedScheduler", 0};
	struct v2_path tp = {&hp, "taskRoles", 0}, rp = {&tp, NULL, 0};
	const pai__pos *tat, *m, *gm;
	json_t *tr, *v, *sku, *cell, *g;
	struct v2_iter it;
	struct v2_nent *first;
	const char *key;

	tr = pai__v2_get(h, at, "taskRoles", &tat);
	if (!json_is_object(tr)) {
		hived_list_roles(c, md, tr, tat, &tp);
		return;
	}
	it = (struct v2_iter)V2_ITER(tr, tat);
	while (pai__v2_next(&it, &key, &v, &m)) {
		rp.key = key;
		if (!role_in(md, key)) {
			pai__v2_report(c, v2_key_off(m), &rp,
				       "hived-unknown-role",
				       "there is no task role \"%s\"", key);
			continue;
		}
		sku = json_object_get(v, "skuType");
		cell = json_object_get(v, "pinnedCellId");
		if (json_is_string(sku) && json_is_string(cell))
			pai__v2_report(
			    c, v2_off(m), &rp, "hived-sku-and-cell",
			    "skuType and pinnedCellId: only one of them");
		g = pai__v2_get(v, m, "affinityGroupName", &gm);
		if (!json_is_string(g))
			continue;
		if (pai__v2_nset_add(groups, json_string_value(g), v, m,
				     &first) < 0) {
			c->err = PAI_ENOMEM;
			return;
		}
		if (first &&
		    (!same_str(json_object_get(first->v, "skuType"), sku) ||
		     !same_str(json_object_get(first->v, "pinnedCellId"),
			       cell)))
			pai__v2_report(
			    c, v2_off(gm), &rp, "hived-affinity-group",
			    "affinity group \"%s\" has another skuType "
			    "or pinnedCellId in another role",
			    json_string_value(g));
	}
}
