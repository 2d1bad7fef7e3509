/* validate_v2.c - a protocol-v2 job judged as the v1.8.0 rest-server
 * judges POST /api/v2/jobs (../shared/reference/protocol-v2-rules.md)
 *
 * The server's steps run in order and it stops at the first that fails:
 * the schema (ajv with allErrors: every problem of the step is reported
 * here too), the reference checks, the mustache render, hived, the job
 * model and the write-merger. Here every step runs, so that every
 * problem is reported at once: the later steps check what did parse,
 * the document without the members the schema refused, when what is
 * left passes the schema (the later steps need its shape). Values are judged as JavaScript sees them:
 * a real with no fraction is an integer, js-yaml's Dates and Buffers are
 * objects, .inf and .nan are numbers. Where the server's code throws by
 * accident (a 500) the config is refused too, saying what is wrong.
 *
 * This file runs the steps in order: validate_v2_schema.c (3),
 * validate_v2_refs.c (4, 5, 7, 8) and validate_v2_hived.c (6), on what
 * validate_v2_base.c gives them all (the reporting, values as JavaScript
 * sees them, the walk and the name sets). Paths of diagnostics are built
 * only when one is reported: a 2,000-role job that passes builds none. */
#include "validate_v2_base.h"

#include <stdlib.h>
#include <string.h>

static void model_release(struct v2_model *md)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		free(md->kind[i].e);
	free(md->deploy.e);
	for (i = 0; i < md->nroles; i++)
		free(md->roles[i].name);
	free(md->roles);
}

/* Leaves the member at path (a list of keys and indices) out of doc:
 * 0, or -1 where it cannot (an item of a list: the places of the items
 * after it would move). A member that is not there is left as it is. */
static int cut(json_t *doc, json_t *path)
{
	size_t i, n = json_array_size(path);
	json_t *c;

	for (i = 0; doc && i + 1 < n; i++) {
		c = json_array_get(path, i);
		doc = json_is_string(c)
			  ? json_object_get(doc, json_string_value(c))
			  : json_array_get(doc, (size_t)json_integer_value(c));
	}
	c = json_array_get(path, n ? n - 1 : 0);
	if (!doc || !json_is_string(c))
		return -1;
	json_object_del(doc, json_string_value(c));
	return 0;
}

/* What did parse: root without the members the schema refused (cuts),
 * held to the schema again without a word. A new document when it
 * passes, for the later steps to check; NULL when it does not (a
 * required member was refused) or cannot be cut so. */
static json_t *what_parsed(struct v2_ctx *c, json_t *root, const pai__pos *pos,
			   json_t *cuts)
{
	struct v2_ctx again = *c;
	json_t *doc = json_deep_copy(root);
	size_t i;

	again.errors = 0;
	again.cuts = NULL;
	if (!doc || pai_diags_new(&again.diags)) {
		json_decref(doc);
		c->err = PAI_ENOMEM;
		return NULL;
	}
	for (i = json_array_size(cuts); i-- > 0;)
		if (cut(doc, json_array_get(cuts, i)) < 0)
			again.errors++;
	if (!again.errors)
		pai__v2_check_schema(&again, doc, pos);
	pai_diags_free(again.diags);
	c->err = again.err;
	if (again.errors || again.err) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* Step 3: the schema. The document the later steps check: root (a new
 * reference), what did parse of it, or NULL when nothing can be
 * checked further. */
static json_t *schema(struct v2_ctx *c, json_t *root, const pai__pos *pos)
{
	json_t *cuts = json_array(), *doc = NULL;

	if (!cuts) {
		c->err = PAI_ENOMEM;
		return NULL;
	}
	c->cuts = cuts;
	pai__v2_check_schema(c, root, pos);
	c->cuts = NULL;
	if (!c->err)
		doc = !c->errors ? json_incref(root)
				 : what_parsed(c, root, pos, cuts);
	json_decref(cuts);
	return doc;
}

/* The steps after the schema, each on what the schema passed: their
 * errors leave its shape as it was, so every one runs, as a compiler
 * goes on after an error. */
static void run_steps(struct v2_ctx *c, struct v2_model *md, json_t *root,
		      const pai__pos *pos)
{
	struct v2_path ep = {NULL, "extras", 0},
		       hp = {&ep, "hivedScheduler", 0};
	struct v2_nset groups = {NULL, 0, 0};
	const pai__pos *at;
	size_t before;
	json_t *h;

	pai__v2_check_refs(c, md, root, pos);
	if (!c->err)
		pai__v2_render_all(c, md, root);
	h = pai__v2_get(json_object_get(root, "extras"),
			pai__pos_member(pos, "extras"), "hivedScheduler", &at);
	if (!c->err && c->scheduler == PAI_SCHEDULER_HIVED && h) {
		before = c->errors;
		pai__v2_hived_schema(c, h, at, &hp);
		/* its checks read what its schema passed */
		if (!c->err && c->errors == before && !json_is_null(h))
			pai__v2_hived_checks(c, md, h, at, &groups);
	}
	if (!c->err)
		pai__v2_check_model(c, md, root, pos, &groups);
	if (!c->err)
		pai__v2_check_masked(c);
	if (!c->err)
		pai__v2_check_role_names(c, md);
	free(groups.e);
}

int pai__validate_v2(json_t **checked, pai_diags *diags, pai__src *src,
		     const pai__pos *pos, json_t *root, pai_scheduler scheduler)
{
	struct v2_ctx c = {diags, src, scheduler, 0, 0, NULL};
	struct v2_model md;
	json_t *doc;

	*checked = NULL;
	memset(&md, 0, sizeof(md));
	doc = schema(&c, root, pos);
	if (doc)
		run_steps(&c, &md, doc, pos);
	model_release(&md);
	if (c.err) {
		json_decref(doc);
		return c.err;
	}
	*checked = doc;
	return c.errors ? PAI_EINVALID : PAI_OK;
}
