/* job_edit.c - what submit changes in a config, in either format:
 * its name and its job-wide variables; and v1.x's role names */
#include "job.h"

#include <stdlib.h>
#include <string.h>

char *pai__v2_role_name(const char *s)
{
	char *c = malloc(strlen(s) + 1), *p = c;

	if (!c)
		return NULL;
	for (; *s; s++) {
		char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			*p++ = ch;
	}
	*p = '\0';
	return c;
}

char *pai_role_framework_name(const char *role)
{
	return role ? pai__v2_role_name(role) : NULL;
}

int pai__config_is_v2(json_t *config)
{
	return json_object_get(config, "protocolVersion") != NULL;
}

const char *pai_job_config_name(json_t *config)
{
	return json_string_value(json_object_get(
	    config, pai__config_is_v2(config) ? "name" : "jobName"));
}

int pai_job_config_rename(json_t *config, const char *name)
{
	if (!json_is_object(config) || !name)
		return PAI_EINVAL;
	if (json_object_set_new(config,
				pai__config_is_v2(config) ? "name" : "jobName",
				json_string(name)) < 0)
		return PAI_ENOMEM;
	return PAI_OK;
}

int pai_job_config_set_env(json_t *config, const char *key, const char *value)
{
	const char *member;
	json_t *envs, *v;

	if (!json_is_object(config) || !key || !value)
		return PAI_EINVAL;
	member = pai__config_is_v2(config) ? "parameters" : "jobEnvs";
	envs = json_object_get(config, member);
	if (!json_is_object(envs)) {
		if (!(envs = json_object()) ||
		    json_object_set_new(config, member, envs) < 0)
			return PAI_ENOMEM;
	}
	if (!(v = json_string(value)) || json_object_set_new(envs, key, v) < 0)
		return PAI_ENOMEM;
	return PAI_OK;
}
