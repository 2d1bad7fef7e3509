/* job_edit.c - what submit changes in a config, in either format:
 * its name and its job-wide variables; and v1.x's role names */
#include "job.h"

#include <stdio.h>
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

char *pai__v2_framework_name(const char *user, const char *job)
{
	size_t n = strlen(user) + 1 + strlen(job);
	char *name = malloc(n + 1), *out;

	if (!name)
		return NULL;
	snprintf(name, n + 1, "%s~%s", user, job);
	/* "unknown..." marks a framework PAI did not make: not hashed */
	if (strncmp(name, "unknown", 7) == 0) {
		out = pai__v2_role_name(name + 7);
	} else if ((out = malloc(33)) != NULL)
		pai__md5_hex(out, name, n);
	free(name);
	return out;
}

struct conv_name {
	char *name;
	size_t role;
};

static int conv_cmp(const void *a, const void *b)
{
	const struct conv_name *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x->role > y->role) - (x->role < y->role);
}

/* Sorted by converted name, so that 2,000 roles cost no 2,000^2
 * compares. */
int pai__v2_role_clashes(size_t *first, const char *const *names, size_t n)
{
	struct conv_name *cv = calloc(n ? n : 1, sizeof(*cv));
	size_t i, k = 0, lead = 0;
	int err = PAI_OK;

	if (!cv)
		return PAI_ENOMEM;
	for (; k < n; k++) {
		cv[k].role = k;
		if (!(cv[k].name = pai__v2_role_name(names[k]))) {
			err = PAI_ENOMEM;
			goto out;
		}
	}
	qsort(cv, n, sizeof(*cv), conv_cmp);
	for (i = 0; i < n; i++) {
		if (i && strcmp(cv[lead].name, cv[i].name) != 0)
			lead = i;
		first[cv[i].role] = cv[lead].role;
	}
out:
	for (i = 0; i < k; i++)
		free(cv[i].name);
	free(cv);
	return err;
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
