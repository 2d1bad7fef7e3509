/* k8s_submit.c - a submission to Kubernetes: exactly the objects `paictl
 * convert` prints (pai__k8s_manifests()), in the order §4 recommends:
 * the ConfigMap, then the Job (fieldManager=paictl), then the
 * ConfigMap's ownerReference to the Job's uid, so that the garbage
 * collector deletes it with the Job. Both carry a random submission id
 * (annotation paictl/submission): after a lost answer the object is read
 * and its id compared, so nothing is created twice and a same-named
 * object that is not ours is a conflict, but for a ConfigMap left by an
 * earlier submission whose Job is not there (take_over()). What fails
 * after the ConfigMap was made deletes it, unless whether the Job was
 * made cannot be told (its answer lost, and reading it back failed
 * too): a Job that may be running keeps its environment. A 422's
 * causes become diagnostics naming their fields (§2.3). */
#include "k8s_api.h"

#include "convert/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULE_INVALID "k8s-invalid"
#define RULE_OWNER   "k8s-owner"

/* One submission under way. */
struct sub {
	pai_client *c;
	pai_diags *diags;
	const char *file; /* what the diagnostics name */
	json_t *cm, *job; /* the objects (cm NULL: the job shares no env) */
	char id[33];	  /* the submission's id */
	int cm_made;	  /* this submission made the ConfigMap */
	char *cm_rv;	  /* its resourceVersion as made: it is deleted only
			   * as it was made */
	int untold;	  /* whether the last create_once() made its object
			   * cannot be told */
	json_t *theirs;	  /* what it found in its object's place instead,
			   * not this submission's */
};

static const char *name_of(json_t *o)
{
	return pai__json_str(json_object_get(o, "metadata"), "name");
}

static const char *id_of(json_t *o)
{
	json_t *m = json_object_get(o, "metadata");

	return pai__json_str(json_object_get(m, "annotations"),
			     "paictl/submission");
}

/* A diagnostic with no place in the file: the server's, or ours. */
static void diag(struct sub *s, pai_severity sev, const char *path,
		 const char *rule, const char *msg)
{
	pai__src src;

	memset(&src, 0, sizeof(src));
	src.name = s->file;
	pai__diag_add(s->diags, &src, PAI__NO_OFFSET, sev, path, rule, "%s",
		      msg);
}

/* What the conversion says beyond what validating the config said (the
 * caller has shown that): its k8s-* rules, and every error. */
static int conversion_diag(const pai_diag *d)
{
	return d->severity == PAI_SEVERITY_ERROR ||
	       strncmp(d->rule, "k8s-", 4) == 0;
}

/* The objects of config, as convert makes them, each given the
 * submission's id and user. */
static int objects(struct sub *s, const char *user, json_t *config,
		   const pai_submit_options *o)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	pai_k8s_options ko = pai__k8s_of(s->c)->o;
	pai_diags *all = NULL;
	char *text = pai__json_dumps(config, JSON_COMPACT);
	json_t *docs = NULL, *d;
	size_t i;
	int err;

	if (!text)
		return pai__client_oom(s->c);
	jo.dialect = o->dialect;
	jo.format = pai__config_is_v2(config) ? PAI_FORMAT_V2 : PAI_FORMAT_V1;
	ko.user = user;
	if (pai_diags_new(&all)) {
		free(text);
		return pai__client_oom(s->c);
	}
	err = pai__k8s_manifests(&docs, all, s->file, text, strlen(text), &jo,
				 &ko);
	/* the places are those of config written out: not the file's */
	if (pai__diags_move(s->diags, all, conversion_diag, 1) && !err)
		err = PAI_ENOMEM;
	pai_diags_free(all);
	free(text);
	if (err == PAI_ESYNTAX || err == PAI_EINVALID)
		return pai__client_fail(s->c, PAI_EINVALID, 0, NULL,
					"the config cannot run on Kubernetes "
					"as it is");
	if (err == PAI_ENOMEM)
		return pai__client_oom(s->c);
	/* too many tasks to write out (PAI_ETOOBIG), a kind this paictl
	 * writes no objects of (PAI_EINVAL), a fault of its own: as it is */
	if (err)
		return pai__client_fail(s->c, err, 0, NULL,
					"cannot make the Kubernetes objects of "
					"the config: %s",
					err == PAI_EINVAL ? "no writer of the "
							    "cluster's kind"
							  : pai_strerror(err));
	json_array_foreach(docs, i, d)
	{
		json_t *ann = json_object_get(json_object_get(d, "metadata"),
					      "annotations");

		if (json_object_set_new(ann, "paictl/submission",
					json_string(s->id)) ||
		    json_object_set_new(ann, "paictl/user", json_string(user)))
			err = pai__client_oom(s->c);
	}
	s->job = json_incref(json_array_get(docs, json_array_size(docs) - 1));
	if (json_array_size(docs) > 1)
		s->cm = json_incref(json_array_get(docs, 0));
	json_decref(docs);
	return err;
}

/* Notes the resourceVersion of made, our object of res as the server
 * answered it, when it is the ConfigMap. */
static void made_cm(struct sub *s, enum pai__k8s_res res, json_t *made)
{
	const char *rv =
	    pai__json_str(json_object_get(made, "metadata"), "resourceVersion");

	if (res != PAI__K8S_CONFIGMAPS || !rv)
		return;
	free(s->cm_rv);
	s->cm_rv = strdup(rv); /* NULL: deleted without a precondition */
}

/* POSTs o to collection res: PAI_OK, or the error with ans filled. */
static int create(struct sub *s, enum pai__k8s_res res, json_t *o,
		  const char *query, pai__k8s_ans *ans)
{
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_rq rq = {"POST", NULL, o, NULL, 0};
	json_t *made = NULL;
	int err;

	pai__k8s_path(&path, s->c, res, NULL, query);
	rq.path = path.data;
	err = path.oom ? pai__client_oom(s->c)
		       : pai__k8s_call(&made, s->c, &rq, ans);
	if (!err)
		made_cm(s, res, made);
	json_decref(made);
	pai__buf_release(&path);
	return err;
}

/* After a lost answer or a 409: whether the object of that name in res
 * is ours. 1 yes, 0 another's (conflict: kept in *theirs when theirs is
 * not NULL), <0 an error (-1 none there: PAI_ENOTFOUND). */
static int ours(struct sub *s, enum pai__k8s_res res, json_t *o,
		json_t **theirs)
{
	pai__buf path = PAI__BUF_INIT;
	json_t *got = NULL;
	const char *id;
	int err;

	pai__k8s_path(&path, s->c, res, name_of(o), NULL);
	err = path.oom ? pai__client_oom(s->c)
		       : pai__k8s_get(&got, s->c, path.data);
	pai__buf_release(&path);
	if (err)
		return err;
	id = id_of(got);
	err = id && strcmp(id, s->id) == 0;
	if (err)
		made_cm(s, res, got);
	else if (theirs) {
		json_decref(*theirs);
		*theirs = json_incref(got);
	}
	json_decref(got);
	return err;
}

/* Creates o, never twice: a lost answer (or libcurl's own resend, met
 * with 409) is resolved by reading the object back. *recovered when it
 * was. PAI_ECONFLICT when the name is another's. s->untold when an
 * error leaves open whether o was made. */
static int create_once(struct sub *s, enum pai__k8s_res res, json_t *o,
		       const char *query, pai__k8s_ans *ans, int *recovered)
{
	pai__error first = {0, NULL, NULL};
	int err = create(s, res, o, query, ans), m, tries;

	s->untold = 0;
	for (tries = 0; tries < 2 && (ans->maybe || err == PAI_ECONFLICT);
	     tries++) {
		pai__client_save_error(s->c, &first);
		m = ours(s, res, o, &s->theirs);
		if (m == 1) {
			pai__error_release(&first);
			*recovered = 1;
			return PAI_OK;
		}
		if (m == 0 || err == PAI_ECONFLICT || m != PAI_ENOTFOUND) {
			/* another's, or nothing more can be told */
			pai__client_restore_error(s->c, &first);
			/* a 409 to the first send was read back above:
			 * libcurl's own resend of it meets 409 too */
			s->untold = m < 0 && m != PAI_ENOTFOUND &&
				    (ans->maybe || tries > 0);
			return m == 0 ? pai__client_fail(
					    s->c, PAI_ECONFLICT, 409,
					    "AlreadyExists",
					    "'%s' exists already in namespace "
					    "'%s' (not this submission's)",
					    name_of(o), pai__k8s_of(s->c)->o.ns)
				      : err;
		}
		/* not there: the request never arrived; send it again */
		pai__error_release(&first);
		pai__k8s_ans_release(ans);
		err = create(s, res, o, query, ans);
	}
	/* the last one sent lost its answer too: it may have been made */
	s->untold = err && ans->maybe;
	return err;
}

/* A 422's causes as diagnostics, each naming its field. */
static void invalid(struct sub *s, const pai__kube_status *st)
{
	size_t i;

	for (i = 0; i < st->ncauses; i++)
		diag(s, PAI_SEVERITY_ERROR, st->causes[i].field, RULE_INVALID,
		     st->causes[i].message  ? st->causes[i].message
		     : st->causes[i].reason ? st->causes[i].reason
					    : "invalid");
	if (!st->ncauses)
		diag(s, PAI_SEVERITY_ERROR, "", RULE_INVALID,
		     st->message ? st->message : "invalid");
}

/* A ConfigMap of that name in the way is a leftover, taken over, when
 * paictl made it (an id on it), nothing owns it and no Job of its job's
 * name is there: its submission's Job was never made, when whether it
 * was could not be told, or was deleted since. Unless it was made less
 * than this long ago by the server's clock: then it may be the one of
 * a submission under way, which makes its Job within seconds. */
#define LEFTOVER_S 600

/* Whether no job of s's name is there, of any kind: a profile of
 * another kind may share the namespace, and so the ConfigMap's name.
 * 1 none, 0 one is, <0 an error. */
static int no_job(struct sub *s)
{
	const struct pai__k8s_kind *kind;
	size_t i;
	int err = PAI_ENOTFOUND;

	for (i = 0; (kind = pai__k8s_kind_at(i)) && err == PAI_ENOTFOUND; i++) {
		pai__buf path = PAI__BUF_INIT;
		json_t *job = NULL;

		pai__k8s_job_path(&path, s->c, kind->id, name_of(s->job));
		err = path.oom ? pai__client_oom(s->c)
			       : pai__k8s_get(&job, s->c, path.data);
		pai__buf_release(&path);
		json_decref(job);
	}
	return err == PAI_ENOTFOUND ? 1 : err ? err : 0;
}

/* Whether old, the ConfigMap in the way, is a leftover: 1 yes, 2 yes but
 * too young, 0 no, <0 an error. */
static int leftover(struct sub *s, json_t *old)
{
	json_t *meta = json_object_get(old, "metadata");
	const char *made = pai__json_str(meta, "creationTimestamp");
	pai__kube_time t;
	long long now;
	int err;

	if (!id_of(old) ||
	    json_array_size(json_object_get(meta, "ownerReferences")))
		return 0;
	if ((err = no_job(s)) != 1)
		return err;
	now = pai__server_now_ms(s->c) / 1000;
	if (!made || !*made || !now ||
	    pai__kube_time_parse(&t, made, strlen(made)) != strlen(made))
		return 0;
	return now - t.sec >= LEFTOVER_S ? 1 : 2;
}

/* old replaced by s->cm: a PUT at old's resourceVersion, so that
 * whatever changed it since wins. */
static int replace_cm(struct sub *s, json_t *old)
{
	json_t *meta = json_object_get(s->cm, "metadata"), *made = NULL;
	json_t *rv = json_object_get(json_object_get(old, "metadata"),
				     "resourceVersion");
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_rq rq = {"PUT", NULL, NULL, NULL, 0};
	pai__k8s_ans ans;
	int err;

	if (!json_is_string(rv))
		return pai__client_fail(s->c, PAI_EPROTOCOL, 0, NULL,
					"it has no resourceVersion");
	memset(&ans, 0, sizeof(ans));
	pai__k8s_path(&path, s->c, PAI__K8S_CONFIGMAPS, name_of(s->cm),
		      "?fieldManager=paictl");
	rq.path = path.data;
	rq.body = s->cm;
	if (path.oom || json_object_set(meta, "resourceVersion", rv))
		err = pai__client_oom(s->c);
	else
		err = pai__k8s_call(&made, s->c, &rq, &ans);
	if (!err)
		made_cm(s, PAI__K8S_CONFIGMAPS, made);
	else if (ans.maybe && ours(s, PAI__K8S_CONFIGMAPS, s->cm, NULL) == 1)
		err = PAI_OK; /* its answer lost, but it is ours now */
	json_decref(made);
	pai__k8s_ans_release(&ans);
	json_object_del(meta, "resourceVersion");
	pai__buf_release(&path);
	return err;
}

/* What take_over() found, said: m as leftover() returned it, err the
 * replacing's error. Returns the error of the submission. */
static int not_taken(struct sub *s, int m, int err, pai__error *first)
{
	pai__error put = {0, NULL, NULL};

	if (m == PAI_ENOMEM || err == PAI_ENOMEM)
		return PAI_ENOMEM;
	if (m == 2)
		return pai__client_fail(
		    s->c, PAI_ECONFLICT, 409, "AlreadyExists",
		    "ConfigMap '%s' in namespace '%s' was left by a submission "
		    "whose job is not there: a submission takes it over %d "
		    "minutes after it was made (or delete it)",
		    name_of(s->cm), pai__k8s_of(s->c)->o.ns, LEFTOVER_S / 60);
	if (m != 1) { /* not a leftover, or that cannot be told */
		pai__client_restore_error(s->c, first);
		return PAI_ECONFLICT;
	}
	pai__client_save_error(s->c, &put);
	pai__client_fail(s->c, err, put.status, put.code,
			 "ConfigMap '%s' was left by a submission whose job is "
			 "not there, but replacing it failed: %s",
			 name_of(s->cm), put.msg ? put.msg : pai_strerror(err));
	pai__error_release(&put);
	return err;
}

/* After a 409 for the ConfigMap, another's as create_once() read it
 * (s->theirs): a leftover taken over; else the conflict, said as it
 * was, or why it stays. */
static int take_over(struct sub *s)
{
	pai__error first = {0, NULL, NULL};
	int err, m;

	pai__client_save_error(s->c, &first);
	m = s->theirs ? leftover(s, s->theirs) : 0;
	err = m == 1 ? replace_cm(s, s->theirs) : PAI_OK;
	if (m == 1 && err == PAI_OK)
		pai__client_reset_error(s->c);
	else
		err = not_taken(s, m, err, &first);
	pai__error_release(&first);
	return err;
}

/* The ConfigMap: ours (made now, found ours after a lost answer, or a
 * leftover taken over), or a conflict. */
static int make_cm(struct sub *s)
{
	pai__k8s_ans ans;
	int rec = 0, err;

	if (!s->cm)
		return PAI_OK;
	err = create_once(s, PAI__K8S_CONFIGMAPS, s->cm, "?fieldManager=paictl",
			  &ans, &rec);
	if (err == PAI_EINVALID)
		invalid(s, &ans.st);
	pai__k8s_ans_release(&ans);
	if (err == PAI_ECONFLICT && !s->untold)
		err = take_over(s);
	s->cm_made = err == PAI_OK;
	return err;
}

/* The ConfigMap made now, deleted after a later failure (best effort:
 * the failure is the one to report), only as it was made: once changed
 * (taken over by another submission, made its Job's) it is not ours. */
static void unmake_cm(struct sub *s)
{
	pai__buf path = PAI__BUF_INIT;
	pai__k8s_rq rq = {"DELETE", NULL, NULL, NULL, 1};
	pai__error saved = {0, NULL, NULL};

	if (!s->cm_made)
		return;
	pai__client_save_error(s->c, &saved);
	pai__k8s_path(&path, s->c, PAI__K8S_CONFIGMAPS, name_of(s->cm), NULL);
	rq.path = path.data;
	if (s->cm_rv)
		rq.body = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1",
				    "kind", "DeleteOptions", "preconditions",
				    "resourceVersion", s->cm_rv);
	if (!path.oom && (rq.body || !s->cm_rv))
		pai__k8s_call(NULL, s->c, &rq, NULL);
	json_decref(rq.body);
	pai__buf_release(&path);
	pai__client_restore_error(s->c, &saved);
}

/* A Job whose making cannot be told: the detail says so, and that
 * the ConfigMap is kept for it. */
static int say_untold(struct sub *s, int err)
{
	pai__error first = {0, NULL, NULL};

	pai__client_save_error(s->c, &first);
	pai__client_fail(s->c, err, first.status, first.code,
			 "%s; whether job '%s' was made cannot be told%s%s%s",
			 first.msg ? first.msg : pai_strerror(err),
			 name_of(s->job), s->cm_made ? " (its ConfigMap '" : "",
			 s->cm_made ? name_of(s->cm) : "",
			 s->cm_made ? "' is kept for it)" : "");
	pai__error_release(&first);
	return err;
}

/* The Job; *made its stored object (with its uid). */
static int make_job(struct sub *s, int *recovered)
{
	pai__k8s_ans ans;
	int err;

	err = create_once(s, PAI__K8S_JOBS, s->job, "?fieldManager=paictl",
			  &ans, recovered);
	if (err == PAI_EINVALID)
		invalid(s, &ans.st);
	pai__k8s_ans_release(&ans);
	return err;
}

/* The ConfigMap owned by the Job (merge-patch, §4), so that it goes
 * with it; a failure leaves it behind, which the job does not mind:
 * said as a warning. */
static void own_cm(struct sub *s)
{
	pai__buf path = PAI__BUF_INIT, msg = PAI__BUF_INIT;
	pai__k8s_rq rq = {"PATCH", NULL, NULL, "application/merge-patch+json",
			  1};
	json_t *job = NULL;
	int err;

	pai__k8s_path(&path, s->c, PAI__K8S_JOBS, name_of(s->job), NULL);
	err = path.oom ? PAI_ENOMEM : pai__k8s_get(&job, s->c, path.data);
	pai__buf_release(&path);
	rq.body =
	    err ? NULL
		: json_pack(
		      "{s:{s:[{s:s,s:s,s:s?,s:s?}]}}", "metadata",
		      "ownerReferences", "apiVersion", pai__k8s_job_api(s->c),
		      "kind", pai__k8s_job_kind(s->c), "name", name_of(job),
		      "uid",
		      pai__json_str(json_object_get(job, "metadata"), "uid"));
	pai__k8s_path(&path, s->c, PAI__K8S_CONFIGMAPS, name_of(s->cm), NULL);
	rq.path = path.data;
	if (!err)
		err = !rq.body || path.oom
			  ? PAI_ENOMEM
			  : pai__k8s_call(NULL, s->c, &rq, NULL);
	if (err) {
		pai__buf_printf(&msg,
				"the ConfigMap '%s' will outlive the job: its "
				"owner could not be set (%s)",
				name_of(s->cm),
				pai_client_error(s->c) ? pai_client_error(s->c)
						       : pai_strerror(err));
		diag(s, PAI_SEVERITY_WARNING, "", RULE_OWNER,
		     msg.data ? msg.data : "out of memory");
	}
	pai__client_reset_error(s->c);
	json_decref(job);
	json_decref(rq.body);
	pai__buf_release(&path);
	pai__buf_release(&msg);
}

static int new_id(struct sub *s)
{
	unsigned char r[16];
	size_t i;

	if (pai__random(r, sizeof(r)))
		return pai__client_fail(s->c, PAI_ERROR, 0, NULL,
					"no random bytes for the submission's "
					"id");
	for (i = 0; i < sizeof(r); i++)
		snprintf(s->id + 2 * i, 3, "%02x", r[i]);
	return PAI_OK;
}

static int begin(struct sub *s, pai_diags **own, pai_client *c,
		 const pai_submit_options *o)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->diags = o->diags;
	s->file = o->source_name ? o->source_name : "<config>";
	if (!s->diags && pai_diags_new(own))
		return pai__client_oom(c);
	if (!s->diags)
		s->diags = *own;
	return new_id(s);
}

int pai__k8s_submit(const struct pai__api *api, pai_client *c, const char *user,
		    json_t *config, const pai_submit_options *o, int *recovered)
{
	pai_diags *own = NULL;
	struct sub s;
	int err, rec = 0;

	(void)api;
	if ((err = begin(&s, &own, c, o)) ||
	    (err = objects(&s, user, config, o)) || (err = pai__k8s_ready(c)) ||
	    (err = make_cm(&s)))
		goto out;
	if ((err = make_job(&s, &rec))) {
		if (s.untold)
			say_untold(&s, err);
		else
			unmake_cm(&s);
		goto out;
	}
	if (s.cm)
		own_cm(&s);
	if (recovered)
		*recovered = rec;
out:
	json_decref(s.cm);
	json_decref(s.job);
	json_decref(s.theirs);
	free(s.cm_rv);
	pai_diags_free(own);
	return err;
}

int pai__k8s_submit_request(pai__submit_rq *rq, const struct pai__api *api,
			    pai_client *c, const char *user, json_t *config)
{
	static const pai_submit_options defaults = PAI_SUBMIT_OPTIONS_INIT;
	pai_diags *own = NULL;
	pai__buf path = PAI__BUF_INIT;
	struct sub s;
	char *url = NULL;
	int err;

	(void)api;
	if ((err = begin(&s, &own, c, &defaults)) ||
	    (err = objects(&s, user, config, &defaults)))
		goto out;
	pai__k8s_path(&path, c, PAI__K8S_JOBS, NULL, "?fieldManager=paictl");
	if (path.oom || !(url = pai__url(c, path.data)) ||
	    !(rq->body = json_dumps(s.job, JSON_INDENT(2)))) {
		err = pai__client_oom(c);
		goto out;
	}
	rq->url = url;
	url = NULL;
	rq->len = strlen(rq->body);
	rq->content_type = "application/json";
out:
	free(url);
	pai__buf_release(&path);
	json_decref(s.cm);
	json_decref(s.job);
	pai_diags_free(own);
	return err;
}
