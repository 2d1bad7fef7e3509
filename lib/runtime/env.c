/* env.c - a task's environment: an ordered table of variables with a
 * hash index of the live ones, in which a later definition replaces an
 * earlier one and takes its place, as a second `export` does. The
 * runtimes fill it; the reference checks also use it names-only, as a
 * set (the entries' counts then say what a name stands for). */
#include "runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

pai_env *pai__env_new(void)
{
	return calloc(1, sizeof(pai_env));
}

static size_t hash_name(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	/* FNV's low bits, which the mask keeps, vary little between names
	 * such as U1 and U2: mix the high bits in (murmur3's finalizer) */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h;
}

/* The slot of name: its entry's, or the empty one where it would go. */
static struct slot *env_slot(const pai_env *e, const char *name, size_t n,
			     size_t hash)
{
	size_t mask = e->nslot - 1, h = hash & mask;

	while (e->slot[h].i) {
		const char *k = e->v[e->slot[h].i - 1].name;

		if (e->slot[h].hash == hash && strncmp(k, name, n) == 0 &&
		    k[n] == '\0')
			break;
		h = (h + 1) & mask;
	}
	return &e->slot[h];
}

const struct var *pai__env_find(const pai_env *e, const char *name, size_t n)
{
	struct slot *s;

	if (!e || !e->nslot)
		return NULL;
	s = env_slot(e, name, n, hash_name(name, n));
	return s->i ? &e->v[s->i - 1] : NULL;
}

bool pai__env_has(const pai_env *e, const char *name, size_t n)
{
	return pai__env_find(e, name, n) != NULL;
}

static int env_rehash(pai_env *e, size_t nslot)
{
	struct slot *slot = calloc(nslot, sizeof(*slot)), *s;
	size_t i, n, h;

	if (!slot)
		return -1;
	free(e->slot);
	e->slot = slot;
	e->nslot = nslot;
	for (i = 0; i < e->n; i++) {
		if (e->v[i].dead)
			continue;
		n = strlen(e->v[i].name);
		h = hash_name(e->v[i].name, n);
		s = env_slot(e, e->v[i].name, n, h);
		s->i = i + 1;
		s->hash = h;
	}
	return 0;
}

int pai__env_set(pai_env *e, char *name, char *value, long long count)
{
	struct slot *s;
	size_t n = strlen(name), h = hash_name(name, n);

	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		struct var *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			goto fail;
		e->v = v;
		e->cap = cap;
	}
	if ((e->n + 1) * 2 > e->nslot &&
	    env_rehash(e, e->nslot ? e->nslot * 2 : 128) < 0)
		goto fail;
	s = env_slot(e, name, n, h);
	if (s->i) {
		struct var *old = &e->v[s->i - 1];

		old->dead = true;
		free(old->value);
		old->value = NULL;
	}
	e->v[e->n].name = name;
	e->v[e->n].value = value;
	e->v[e->n].count = count;
	e->v[e->n].dead = false;
	e->v[e->n].controller = false;
	s->i = ++e->n;
	s->hash = h;
	return PAI_OK;
fail:
	free(name);
	free(value);
	return PAI_ENOMEM;
}

int pai__env_put(pai_env *e, const char *name, const char *value,
		 bool controller)
{
	char *n = strdup(name), *v = strdup(value);
	int err;

	if (!n || !v) {
		free(n);
		free(v);
		return PAI_ENOMEM;
	}
	err = pai__env_set(e, n, v, 0);
	if (!err)
		e->v[e->n - 1].controller = controller;
	return err;
}

int pai__env_add_once(pai_env *e, const char *name, size_t n)
{
	char *k;

	if (pai__env_find(e, name, n))
		return 0;
	k = strndup(name, n);
	if (!k || pai__env_set(e, k, NULL, 0) < 0)
		return PAI_ENOMEM;
	return 1;
}

int pai__env_compact(pai_env *e)
{
	size_t i, j = 0;

	for (i = 0; i < e->n; i++) {
		if (e->v[i].dead) {
			free(e->v[i].name);
			continue;
		}
		e->v[j++] = e->v[i];
	}
	if (j == e->n)
		return PAI_OK;
	e->n = j;
	return env_rehash(e, e->nslot) < 0 ? PAI_ENOMEM : PAI_OK;
}

void pai_env_free(pai_env *env)
{
	size_t i;

	if (!env)
		return;
	for (i = 0; i < env->n; i++) {
		free(env->v[i].name);
		free(env->v[i].value);
	}
	free(env->v);
	free(env->slot);
	free(env->command);
	free(env);
}

size_t pai_env_count(const pai_env *env)
{
	return env ? env->n : 0;
}

const char *pai_env_name(const pai_env *env, size_t i)
{
	return env && i < env->n ? env->v[i].name : NULL;
}

const char *pai_env_value(const pai_env *env, size_t i)
{
	return env && i < env->n ? env->v[i].value : NULL;
}

int pai_env_by_controller(const pai_env *env, size_t i)
{
	return env && i < env->n && env->v[i].controller;
}

const char *pai_env_get(const pai_env *env, const char *name)
{
	const struct var *v;

	if (!env || !name)
		return NULL;
	v = pai__env_find(env, name, strlen(name));
	return v ? v->value : NULL;
}

const char *pai_env_command(const pai_env *env)
{
	return env ? env->command : NULL;
}

int pai__env_set_command(pai_env *env, char *command)
{
	if (pai__env_compact(env)) {
		free(command);
		return PAI_ENOMEM;
	}
	free(env->command);
	env->command = command;
	return PAI_OK;
}
