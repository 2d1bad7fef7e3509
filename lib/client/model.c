/* model.c - accessors of job infos, job lists and SSH infos; the names
 * of job states */
#include "model.h"
#include "convert/convert.h" /* pai__shell_quote */
#include "job/job.h"	    /* pai__v2_role_name */

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void pai__job_info_release(pai_job_info *info)
{
	if (!info)
		return;
	json_decref(info->json);
	json_decref(info->own);
	free(info->tasks);
	free(info->task_json);
	free(info->version);
	memset(info, 0, sizeof(*info));
}

void pai_job_info_free(pai_job_info *info)
{
	if (!info)
		return;
	pai__job_info_release(info);
	free(info);
}

const char *pai_job_info_name(const pai_job_info *info)
{
	return info ? info->name : NULL;
}

const char *pai_job_info_user(const pai_job_info *info)
{
	return info ? info->user : NULL;
}

const char *pai_job_info_vc(const pai_job_info *info)
{
	return info ? info->vc : NULL;
}

pai_state pai_job_info_state(const pai_job_info *info)
{
	return info ? info->state : PAI_STATE_UNKNOWN;
}

const char *pai_job_info_substate(const pai_job_info *info)
{
	return info ? info->substate : NULL;
}

long long pai_job_info_created_ms(const pai_job_info *info)
{
	return info ? info->created_ms : 0;
}

long long pai_job_info_completed_ms(const pai_job_info *info)
{
	return info ? info->completed_ms : 0;
}

long pai_job_info_retries(const pai_job_info *info)
{
	return info ? info->retries : 0;
}

int pai_job_info_exit_code(const pai_job_info *info, int *has_exit)
{
	if (has_exit)
		*has_exit = info ? info->has_exit_code : 0;
	return info && info->has_exit_code ? info->exit_code : 0;
}

size_t pai_job_info_task_count(const pai_job_info *info)
{
	return info ? info->ntasks : 0;
}

const pai_task_info *pai_job_info_task(const pai_job_info *info, size_t i)
{
	return info && i < info->ntasks ? &info->tasks[i] : NULL;
}

json_t *pai_job_info_json(const pai_job_info *info)
{
	return info ? info->json : NULL;
}

json_t *pai_job_info_task_json(const pai_job_info *info, size_t i)
{
	return info && i < info->ntasks && info->task_json ? info->task_json[i]
							   : NULL;
}

void pai_job_list_free(pai_job_list *list)
{
	if (!list)
		return;
	/* the items borrow every string from list->json */
	free(list->items);
	json_decref(list->json);
	free(list);
}

size_t pai_job_list_count(const pai_job_list *list)
{
	return list ? list->count : 0;
}

const pai_job_info *pai_job_list_get(const pai_job_list *list, size_t i)
{
	return list && i < list->count ? &list->items[i] : NULL;
}

json_t *pai_job_list_json(const pai_job_list *list)
{
	return list ? list->json : NULL;
}

void pai_ssh_info_free(pai_ssh_info *info)
{
	if (!info)
		return;
	free(info->containers);
	free(info->setup);
	json_decref(info->json);
	free(info);
}

const char *pai_ssh_info_user(const pai_ssh_info *info)
{
	return info ? info->login_user : NULL;
}

int pai_ssh_info_command(char **out, const pai_ssh_info *info, size_t i,
			 const char *command)
{
	const char *setup;
	pai__buf b = PAI__BUF_INIT;

	if (out)
		*out = NULL;
	if (!out || !info || i >= info->count)
		return PAI_EINVAL;
	setup = info->setup ? info->setup[i] : NULL;
	if (!setup)
		return command && !(*out = strdup(command)) ? PAI_ENOMEM
							    : PAI_OK;
	/* the task's set-up, then the command line as that shell would
	 * have read it, or a shell of the user's */
	pai__buf_printf(&b, "%s && ", setup);
	if (command) {
		pai__buf_puts(&b, "eval ");
		pai__shell_quote(&b, command);
	} else
		pai__buf_puts(&b, "exec \"${SHELL:-/bin/sh}\"");
	*out = pai__buf_detach(&b);
	return *out ? PAI_OK : PAI_ENOMEM;
}

size_t pai_ssh_info_count(const pai_ssh_info *info)
{
	return info ? info->count : 0;
}

const pai_ssh_container *pai_ssh_info_get(const pai_ssh_info *info, size_t i)
{
	return info && i < info->count ? &info->containers[i] : NULL;
}

const char *pai_ssh_info_key_url(const pai_ssh_info *info)
{
	return info ? info->key_url : NULL;
}

const char *pai_ssh_info_key_name(const pai_ssh_info *info)
{
	return info ? info->key_name : NULL;
}

json_t *pai_ssh_info_json(const pai_ssh_info *info)
{
	return info ? info->json : NULL;
}

int pai_job_info_role_is(const pai_job_info *info, const char *reported,
			 const char *role)
{
	char *conv;
	int same;

	if (!info || !reported || !role)
		return 0;
	if (strcmp(reported, role) == 0)
		return 1;
	if (!info->framework_names || !(conv = pai__v2_role_name(role)))
		return 0;
	same = *conv && strcmp(conv, reported) == 0;
	free(conv);
	return same;
}

long pai_job_info_find_task(const pai_job_info *info, const char *role,
			    long index)
{
	size_t i;

	if (!info || !role)
		return -1;
	for (i = 0; i < info->ntasks; i++) {
		const pai_task_info *t = &info->tasks[i];

		if (t->index == index && t->role &&
		    pai_job_info_role_is(info, t->role, role))
			return (long)i;
	}
	return -1;
}

/* ---- states ---------------------------------------------------------- */

static const char *const state_names[] = {"UNKNOWN",   "WAITING", "RUNNING",
					  "SUCCEEDED", "FAILED",  "STOPPED",
					  "STOPPING"};

const char *pai_state_name(pai_state state)
{
	if ((unsigned)state < sizeof(state_names) / sizeof(state_names[0]))
		return state_names[state];
	return "UNKNOWN";
}

int pai_state_from_name(pai_state *out, const char *name)
{
	size_t i;

	if (!out || !name)
		return PAI_EINVAL;
	for (i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (strcasecmp(name, state_names[i]) == 0) {
			*out = (pai_state)i;
			return PAI_OK;
		}
	return PAI_EINVAL;
}

int pai_state_is_final(pai_state state)
{
	return state == PAI_STATE_SUCCEEDED || state == PAI_STATE_FAILED ||
	       state == PAI_STATE_STOPPED;
}
