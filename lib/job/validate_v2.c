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

static void run_steps(struct v2_ctx *c, struct v2_model *md, json_t *root,
		      const pai__pos *pos)
{
	struct v2_path ep = {NULL, "extras", 0},
		       hp = {&ep, "hivedScheduler", 0};
	struct v2_nset groups = {NULL, 0, 0};
	const pai__pos *at;
	json_t *h;

	pai__v2_check_schema(c, root, pos);
	if (c->errors || c->err)
		return;
	pai__v2_check_refs(c, md, root, pos);
	if (c->errors || c->err)
		return;
	pai__v2_render_all(c, md, root);
	if (c->errors || c->err)
		return;
	h = pai__v2_get(json_object_get(root, "extras"),
			pai__pos_member(pos, "extras"), "hivedScheduler", &at);
	if (c->scheduler == PAI_SCHEDULER_HIVED && h) {
		pai__v2_hived_schema(c, h, at, &hp);
		if (c->errors || c->err)
			return;
		if (!json_is_null(h))
			pai__v2_hived_checks(c, md, h, at, &groups);
		if (c->errors || c->err)
			goto out;
	}
	pai__v2_check_model(c, md, root, pos, &groups);
	if (!c->errors && !c->err)
		pai__v2_check_masked(c);
	if (!c->errors && !c->err)
		pai__v2_check_role_names(c, md);
out:
	free(groups.e);
}

int pai__validate_v2(pai_diags *diags, pai__src *src, const pai__pos *pos,
		     json_t *root, pai_scheduler scheduler)
{
	struct v2_ctx c = {diags, src, scheduler, 0, 0};
	struct v2_model md;

	memset(&md, 0, sizeof(md));
	run_steps(&c, &md, root, pos);
	model_release(&md);
	if (c.err)
		return c.err;
	return c.errors ? PAI_EINVALID : PAI_OK;
}
