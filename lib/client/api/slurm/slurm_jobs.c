/* slurm_jobs.c - Slurm's jobs as paictl's: the comment paictl gives its
 * jobs (the submission's id, the ports, the roles), the user's jobs of
 * a name, the components of a heterogeneous job, and Slurm's job states
 * as paictl's (reference/slurm.md). */
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The comment's first word: what says a job is paictl's. */
#define MAGIC "paictl:1"

char *pai__slurm_note_text(const char *sub, unsigned lo, unsigned hi,
			   const char *roles)
{
	char *s = NULL;

	if (asprintf(&s, MAGIC " sub=%s ports=%u-%u roles=%s", sub, lo, hi,
		     roles) < 0)
		s = NULL;
	return s;
}

/* The value of "key=" in the words of s into out (cut to size); 1 when
 * there. */
static int word(const char *s, const char *key, char *out, size_t size)
{
	size_t k = strlen(key), n;
	const char *p;

	for (p = s; (p = strstr(p, key)); p += k)
		if ((p == s || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			n = strcspn(p, " ");
			if (n >= size)
				return 0;
			memcpy(out, p, n);
			out[n] = '\0';
			return 1;
		}
	return 0;
}

int pai__slurm_note(struct pai__slurm_note *n, json_t *j)
{
	const char *c = pai__json_str(j, "comment");
	char ports[64];

	memset(n, 0, sizeof(*n));
	if (!c || strncmp(c, MAGIC " ", sizeof(MAGIC)) != 0)
		return 0;
	if (!word(c, "sub", n->sub, sizeof(n->sub)) ||
	    !word(c, "roles", n->roles, sizeof(n->roles)))
		return 0;
	if (word(c, "ports", ports, sizeof(ports)) &&
	    sscanf(ports, "%u-%u", &n->lo, &n->hi) != 2)
		n->lo = n->hi = 0;
	return 1;
}

static long long job_id(json_t *j)
{
	long long id = 0;

	pai__json_integer(json_object_get(j, "job_id"), &id);
	return id;
}

int pai__slurm_jobs(json_t **out, pai_client *c)
{
	json_t *o = NULL, *jobs;
	int err;

	*out = NULL;
	if ((err = pai__slurm_call(&o, c, "GET", "jobs", NULL, 1, NULL)))
		return err;
	if ((err = pai__slurm_jobs_read(o, &jobs))) {
		json_decref(o);
		return err == PAI_ENOMEM
			   ? pai__client_oom(c)
			   : pai__client_fail(c, PAI_EPROTOCOL, 200, NULL,
					      "slurmrestd's jobs answer has no "
					      "\"jobs\" list of jobs");
	}
	*out = json_incref(jobs);
	json_decref(o);
	return PAI_OK;
}


/* 1 for a job that is its own or its heterogeneous job's first. */
static int leader(json_t *j)
{
	long long off = 0;

	pai__json_integer(json_object_get(j, "het_job_offset"), &off);
	return off == 0;
}

json_t *pai__slurm_named(json_t *jobs, const char *user, const char *name)
{
	json_t *out = json_array(), *j;
	struct pai__slurm_note n;
	size_t i, k;

	json_array_foreach(jobs, i, j)
	{
		const char *jn = pai__json_str(j, "name"), *u;

		/* the name first: most jobs are told apart by it alone (a
		 * submission asks this of every job known, twice) */
		if (!out || !jn || strcmp(jn, name) != 0 || !leader(j))
			continue;
		u = pai__json_str(j, "user_name");
		if ((user && (!u || strcmp(u, user) != 0)) ||
		    !pai__slurm_note(&n, j))
			continue;
		/* newest (the highest id) first */
		for (k = 0; k < json_array_size(out); k++)
			if (job_id(json_array_get(out, k)) < job_id(j))
				break;
		if (json_array_insert(out, k, j)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

json_t *pai__slurm_components(json_t *jobs, json_t *lead)
{
	long long het = 0, h;
	json_t *out = json_array(), *j;
	size_t i;

	pai__json_integer(json_object_get(lead, "het_job_id"), &het);
	if (!out)
		return NULL;
	if (!het) {
		json_array_append(out, lead);
		return out;
	}
	json_array_foreach(jobs, i, j)
	{
		h = 0;
		pai__json_integer(json_object_get(j, "het_job_id"), &h);
		if (h == het && json_array_append(out, j)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* One of Slurm's job states as paictl's. */
static pai_state state_of(const char *s)
{
	static const struct {
		const char *slurm;
		pai_state state;
	} map[] = {{"PENDING", PAI_STATE_WAITING},
		   {"REQUEUED", PAI_STATE_WAITING},
		   {"REQUEUE_HOLD", PAI_STATE_WAITING},
		   {"REQUEUE_FED", PAI_STATE_WAITING},
		   {"RUNNING", PAI_STATE_RUNNING},
		   {"CONFIGURING", PAI_STATE_RUNNING},
		   {"COMPLETING", PAI_STATE_RUNNING},
		   {"SUSPENDED", PAI_STATE_RUNNING},
		   {"RESIZING", PAI_STATE_RUNNING},
		   {"STAGE_OUT", PAI_STATE_RUNNING},
		   {"SIGNALING", PAI_STATE_RUNNING},
		   {"COMPLETED", PAI_STATE_SUCCEEDED},
		   {"CANCELLED", PAI_STATE_STOPPED},
		   {"PREEMPTED", PAI_STATE_STOPPED},
		   {"REVOKED", PAI_STATE_STOPPED},
		   {"FAILED", PAI_STATE_FAILED},
		   {"TIMEOUT", PAI_STATE_FAILED},
		   {"NODE_FAIL", PAI_STATE_FAILED},
		   {"BOOT_FAIL", PAI_STATE_FAILED},
		   {"DEADLINE", PAI_STATE_FAILED},
		   {"OUT_OF_MEMORY", PAI_STATE_FAILED},
		   {"SPECIAL_EXIT", PAI_STATE_FAILED}};
	size_t i;

	for (i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(s, map[i].slurm) == 0)
			return map[i].state;
	return PAI_STATE_UNKNOWN;
}

/* How much a component's state says of the whole job: one still
 * running makes it running, one waiting waiting, one failed failed... */
static int weight(pai_state s)
{
	switch (s) {
	case PAI_STATE_RUNNING: return 5;
	case PAI_STATE_WAITING: return 4;
	case PAI_STATE_FAILED: return 3;
	case PAI_STATE_STOPPED: return 2;
	case PAI_STATE_SUCCEEDED: return 1;
	default: return 0;
	}
}

pai_state pai__slurm_state(json_t *comps, const char **why)
{
	pai_state st = PAI_STATE_UNKNOWN, s;
	json_t *j, *which = NULL;
	const char *r;
	size_t i;

	*why = NULL;
	json_array_foreach(comps, i, j)
	{
		s = state_of(pai__json_str(j, "job_state"));
		if (!which || weight(s) > weight(st)) {
			st = s;
			which = j;
		}
	}
	if (which && st != PAI_STATE_RUNNING && st != PAI_STATE_SUCCEEDED) {
		r = pai__json_str(which, "state_reason");
		*why = r && strcmp(r, "None") != 0
			   ? r
			   : pai__json_str(which, "job_state");
	}
	return st;
}

int pai__slurm_exit(json_t *v)
{
	long long w;

	if (!pai__json_integer(v, &w) || w < 0)
		return -1;
	if (w & 0x7f) /* killed by a signal */
		return 128 + (int)(w & 0x7f);
	return (int)((w >> 8) & 0xff);
}

/* ---- what a client knows, for its submissions ------------------------ */

/* Most jobs read one by one to catch up; past that, all listed again. */
#define CATCH_UP_MAX 32

int pai__slurm_pending(json_t *j)
{
	return json_is_true(json_object_get(j, "pending"));
}

/* Of Slurm's job j (a hundred members and more), what a submission's
 * checks read: a new object, or NULL. Every check asks it of every job
 * known, so that a small object is found in fewer cache lines. */
static json_t *slim(json_t *j)
{
	return json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}", "job_id",
			 json_object_get(j, "job_id"), "name",
			 json_object_get(j, "name"), "user_name",
			 json_object_get(j, "user_name"), "comment",
			 json_object_get(j, "comment"), "het_job_id",
			 json_object_get(j, "het_job_id"), "het_job_offset",
			 json_object_get(j, "het_job_offset"), "job_state",
			 json_object_get(j, "job_state"));
}

/* The jobs listed, slim: a new array, or NULL. */
static json_t *slim_all(json_t *jobs)
{
	json_t *out = json_array(), *j;
	size_t i;

	json_array_foreach(jobs, i, j)
	{
		if (out && json_array_append_new(out, slim(j))) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

/* j among the jobs known (under known_lock). */
static void know(struct pai__slurm_client *s, json_t *j)
{
	if (s->known && j && !json_array_append(s->known, j) &&
	    job_id(j) > s->known_max)
		s->known_max = job_id(j);
}

/* jobs, just listed, as what the client knows (under known_lock): with
 * the submissions under way, and the jobs made since the listing began
 * (past its highest id), of the list it replaces. */
static void replace_known(struct pai__slurm_client *s, json_t *jobs)
{
	json_t *old = s->known, *j;
	size_t i;

	s->known = jobs;
	s->known_at = pai__now_ms();
	s->known_max = 0;
	json_array_foreach(jobs, i, j)
	{
		if (job_id(j) > s->known_max)
			s->known_max = job_id(j);
	}
	json_array_foreach(old, i, j)
	{
		if (pai__slurm_pending(j) || job_id(j) > s->known_max)
			know(s, j);
	}
	json_decref(old);
}

int pai__slurm_known_lock(json_t **out, pai_client *c, long max_age_ms)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	json_t *jobs = NULL, *all = NULL;
	int err;

	*out = NULL;
	pthread_mutex_lock(&s->known_lock);
	while (s->listing)
		pthread_cond_wait(&s->known_cv, &s->known_lock);
	if (!s->known || pai__now_ms() - s->known_at > max_age_ms) {
		s->listing = 1;
		pthread_mutex_unlock(&s->known_lock);
		if (!(err = pai__slurm_jobs(&all, c)) &&
		    !(jobs = slim_all(all)))
			err = pai__client_oom(c);
		json_decref(all);
		pthread_mutex_lock(&s->known_lock);
		s->listing = 0;
		pthread_cond_broadcast(&s->known_cv);
		if (err) {
			pthread_mutex_unlock(&s->known_lock);
			return err;
		}
		replace_known(s, jobs);
	}
	*out = s->known;
	return PAI_OK;
}

void pai__slurm_known_unlock(pai_client *c)
{
	pthread_mutex_unlock(&pai__slurm_of(c)->known_lock);
}

void pai__slurm_known_wait(json_t **out, pai_client *c)
{
	struct pai__slurm_client *s = pai__slurm_of(c);

	pthread_cond_wait(&s->known_cv, &s->known_lock);
	*out = s->known;
}

void pai__slurm_known_claim(pai_client *c, json_t *j)
{
	if (j && !json_object_set_new(j, "pending", json_true())) {
		know(pai__slurm_of(c), j);
		pai__slurm_of(c)->claims++;
	}
	json_decref(j);
}

void pai__slurm_known_settle(pai_client *c, const char *sub, json_t *made)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	struct pai__slurm_note n;
	json_t *j;
	size_t i;

	pthread_mutex_lock(&s->known_lock);
	/* from the end, where claims were put lately */
	for (i = json_array_size(s->known); i-- > 0;) {
		j = json_array_get(s->known, i);
		if (pai__slurm_pending(j) && pai__slurm_note(&n, j) &&
		    strcmp(n.sub, sub) == 0) {
			json_array_remove(s->known, i);
			s->claims--;
			break;
		}
	}
	json_array_foreach(made, i, j)
	{
		know(s, j);
	}
	pthread_cond_broadcast(&s->known_cv);
	pthread_mutex_unlock(&s->known_lock);
	json_decref(made);
}

/* 1 when the client knows job id (under known_lock). */
static int knows(const struct pai__slurm_client *s, long long id)
{
	json_t *j;
	size_t i;

	json_array_foreach(s->known, i, j)
	{
		if (job_id(j) == id)
			return 1;
	}
	return 0;
}

/* Job k read (GET job/ID) into what the client knows, unless it knows
 * it by then: one that is no more is none. */
static int read_one(pai_client *c, long long k)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	json_t *o = NULL, *j, *jobs;
	char path[64];
	size_t i;
	int err;

	snprintf(path, sizeof(path), "job/%lld", k);
	err = pai__slurm_call(&o, c, "GET", path, NULL, 1, NULL);
	if (err && err != PAI_ENOTFOUND)
		return err;
	if (o && (err = pai__slurm_jobs_read(o, &jobs))) {
		json_decref(o);
		return err == PAI_ENOMEM
			   ? pai__client_oom(c)
			   : pai__client_fail(c, err, 200, NULL,
					      "slurmrestd's answer for job "
					      "%lld has no \"jobs\" list",
					      k);
	}
	pthread_mutex_lock(&s->known_lock);
	json_array_foreach(json_object_get(o, "jobs"), i, j)
	{
		if (!knows(s, job_id(j)) && (j = slim(j))) {
			know(s, j);
			json_decref(j);
		}
	}
	pthread_mutex_unlock(&s->known_lock);
	json_decref(o);
	return PAI_OK;
}

int pai__slurm_catch_up(pai_client *c, long long id)
{
	struct pai__slurm_client *s = pai__slurm_of(c);
	long long k, from, began = pai__now_ms();
	json_t *jobs;
	int err, had, known;

	pthread_mutex_lock(&s->known_lock);
	from = s->known_max;
	had = s->known != NULL;
	pthread_mutex_unlock(&s->known_lock);
	if (!had || id - from > CATCH_UP_MAX) {
		/* too many: all of them again, unless listed since */
		if ((err = pai__slurm_known_lock(&jobs, c,
						 (long)(pai__now_ms() - began))))
			return err;
		pai__slurm_known_unlock(c);
		return PAI_OK;
	}
	for (k = from + 1; k < id; k++) {
		pthread_mutex_lock(&s->known_lock);
		known = knows(s, k);
		pthread_mutex_unlock(&s->known_lock);
		if (!known && (err = read_one(c, k)))
			return err;
	}
	return PAI_OK;
}
