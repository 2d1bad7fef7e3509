/* task_ref.c - a job's task named as logs and ssh take it, ROLE
 * [INDEX]: what to say when the job has none such, as expand says it of
 * a config */
#include "cli.h"
#include "error.h"

#include <string.h>

/* Whether the job reports role, by its name or as the cluster names it
 * (a v1.x cluster's psserver for ps_server). */
static int has_role(const pai_job_info *info, const char *role)
{
	size_t i, n = pai_job_info_task_count(info);

	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);

		if (t && t->role && pai_job_info_role_is(info, t->role, role))
			return 1;
	}
	return 0;
}

/* "a, b": each role once, in the status's order. */
static void put_roles(FILE *f, const pai_job_info *info)
{
	size_t i, j, n = pai_job_info_task_count(info);
	const char *sep = "";

	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i), *u;

		if (!t || !t->role)
			continue;
		for (j = 0; j < i; j++)
			if ((u = pai_job_info_task(info, j)) && u->role &&
			    strcmp(u->role, t->role) == 0)
				break;
		if (j < i)
			continue;
		fprintf(f, "%s%s", sep, t->role);
		sep = ", ";
	}
}

int cli_no_task(const cli_ctx *ctx, int status, const char *ref,
		const pai_job_info *info, const char *role, long index)
{
	size_t i, n = pai_job_info_task_count(info), count = 0;

	if (!has_role(info, role)) {
		fflush(stdout);
		fprintf(stderr,
			"paictl: %s: job '%s' has no task role '%s'; its "
			"roles: ",
			ctx->cmd, ref, role);
		put_roles(stderr, info);
		fputc('\n', stderr);
		return status;
	}
	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);

		count += t && t->role && pai_job_info_role_is(info, t->role,
							       role);
	}
	return cli_error(ctx, status,
			 "job '%s' has no task %s-%ld; role '%s' has %zu "
			 "task%s",
			 ref, role, index, role, count, count == 1 ? "" : "s");
}
