/* v2_pending.c - TEMPORARY, for the few hours while the protocol-v2
 * pieces are written in parallel: weak definitions that the real ones
 * (yaml.c, validate_v2.c, template.c, expand_v2.c, convert.c) override.
 * This file is deleted before the work lands. */
#include "internal.h"

#include <string.h>

#define PENDING __attribute__((weak))

PENDING int pai__check_references_v2(pai_diags *diags, pai__src *src,
				     const pai__pos *pos, const pai_job *job)
{
	(void)diags, (void)src, (void)pos, (void)job;
	return PAI_OK;
}

PENDING int pai__expand_task_v2(pai_env **out, const pai_job *job,
				size_t role, size_t index,
				const pai_expand_options *opts)
{
	(void)out, (void)job, (void)role, (void)index, (void)opts;
	return PAI_ERROR;
}

