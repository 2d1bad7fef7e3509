/* expand_fallback.c - a stand-in for lib's pai_expand_task until it lands
 *
 * Weak definitions: lib/expand.c's real ones replace them at link time.
 * Only a handful of variables, enough to run a task; delete this file
 * once libpai exports pai_expand_task.
 */
#include "srv.h"

#include <stdlib.h>
#include <string.h>

struct pai_env {
	size_t n;
	char *name[16], *value[16];
	char *command;
};

static void put(struct pai_env *e, const char *n, char *v)
{
	if (e->n < 16 && v) {
		e->name[e->n] = strdup(n);
		e->value[e->n++] = v;
	}
}

__attribute__((weak)) int pai_expand_task(pai_env **out, const pai_job *job,
					  size_t role, size_t index,
					  const pai_expand_options *opts)
{
	struct pai_env *e = calloc(1, sizeof(*e));
	const pai_placement *p = opts ? opts->placement : NULL;
	pai_role r;

	*out = NULL;
	if (!e || pai_job_role(&r, job, role))
		return free(e), PAI_EINVAL;
	put(e, "PAI_JOB_NAME", strdup(pai_job_name(job)));
	put(e, "PAI_USER_NAME", strdup(opts && opts->user ? opts->user : ""));
	put(e, "PAI_CURRENT_TASK_ROLE_NAME", strdup(r.name));
	put(e, "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX",
	    srv_printf("%zu", index));
	if (p) {
		put(e, "PAI_CONTAINER_HOST_IP", strdup(p->ip(p->data, role, index)));
		put(e, "PAI_CONTAINER_ID",
		    strdup(p->container_id(p->data, role, index)));
		put(e, "PAI_WORK_DIR", strdup(p->work_dir(p->data, role, index)));
		put(e, "PAI_CONTAINER_HOST_PORT",
		    srv_printf("%u", p->port(p->data, role, index, r.port_count - 2, 0)));
	}
	e->command = strdup(r.command ? r.command : "");
	*out = e;
	return PAI_OK;
}

__attribute__((weak)) void pai_env_free(pai_env *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->n; i++) {
		free(e->name[i]);
		free(e->value[i]);
	}
	free(e->command);
	free(e);
}

__attribute__((weak)) size_t pai_env_count(const pai_env *e)
{
	return e ? e->n : 0;
}

__attribute__((weak)) const char *pai_env_name(const pai_env *e, size_t i)
{
	return e && i < e->n ? e->name[i] : NULL;
}

__attribute__((weak)) const char *pai_env_value(const pai_env *e, size_t i)
{
	return e && i < e->n ? e->value[i] : NULL;
}

__attribute__((weak)) const char *pai_env_get(const pai_env *e, const char *n)
{
	size_t i;

	for (i = 0; e && i < e->n; i++)
		if (strcmp(e->name[i], n) == 0)
			return e->value[i];
	return NULL;
}

__attribute__((weak)) const char *pai_env_command(const pai_env *e)
{
	return e ? e->command : NULL;
}
