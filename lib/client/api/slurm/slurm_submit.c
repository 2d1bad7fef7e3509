/* slurm_submit.c - a job submitted to Slurm: its config parsed as the
 * cluster's runtime reads it, its name checked against the user's jobs
 * that Slurm knows (a conflict, as on OpenPAI), a port range that no
 * other paictl job known to Slurm holds, and the batch job posted once.
 * The submission's id is in the job's comment: a lost answer is
 * resolved by finding it there, never by posting again; and of two
 * submissions of one name at once (two clients), the later job (the
 * higher id) cancels itself, so that one name is one job. */
#include "slurm_api.h"

#include "convert/convert.h"
#include "job/job.h" /* pai__config_is_v2 */

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How old the client's list of Slurm's jobs may be for a submission's
 * checks: what was made since is read one by one after the post. */
#define KNOWN_MAX_AGE_MS 30000

/* The ports paictl hands out: [PORT_LO, PORT_HI). */
#define PORT_LO 20000
#define PORT_HI 60000

/* One submission under way. */
struct sub {
	pai_client *c;
	const char *user, *name;
	pai_job *job;
	pai_diags *diags; /* the caller's, or own */
	const char *source; /* the name the diagnostics carry */
	char subid[64];
	char roles[1024];
	unsigned lo, hi; /* the port range */
	char *jobdir, *note;
	json_t *body;
	int claimed; /* its claim among the jobs the client knows */
};

static void sub_release(struct sub *s)
{
	pai_job_free(s->job);
	free(s->jobdir);
	free(s->note);
	json_decref(s->body);
}

/* 8 random bytes (for the submission's id and the ports' place): the
 * kernel's (pai__random()), or where it gives none, the time's and the
 * process's. */
static unsigned long long random64(void)
{
	unsigned long long r = 0;

	if (pai__random(&r, sizeof(r)))
		r = (unsigned long long)time(NULL) * 2654435761u ^
		    (unsigned long long)getpid() ^ (unsigned long long)clock();
	return r;
}

/* The submission's id: its time (so that the directories sort by it)
 * and a random part. */
static void make_subid(char *out, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	char t[32] = "0";

	if (gmtime_r(&now, &tm))
		strftime(t, sizeof(t), "%Y%m%d-%H%M%S", &tm);
	snprintf(out, size, "%s-%06llx", t, random64() & 0xffffff);
}

/* The config as the job the cluster's runtime reads. */
static int parse(struct sub *s, json_t *config, const pai_submit_options *o)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	const char *src = o->source_name ? o->source_name : "<config>";
	char *text = pai__json_dumps(config, JSON_INDENT(2));
	int err;

	if (!text)
		return pai__client_oom(s->c);
	jo.dialect = o->dialect;
	jo.format = pai__config_is_v2(config) ? PAI_FORMAT_V2 : PAI_FORMAT_V1;
	err = pai_job_parse(&s->job, s->diags, src, text, strlen(text), &jo);
	free(text);
	if (err == PAI_ENOMEM)
		return pai__client_oom(s->c);
	if (err)
		return pai__client_fail(s->c, err, 0, NULL,
					"the config of job '%s' is not valid",
					s->name);
	return PAI_OK;
}

/* A name that is one directory's: no '/', not "." or "..". */
static int dir_name(const char *n)
{
	return *n && !strchr(n, '/') && strcmp(n, ".") && strcmp(n, "..");
}

/* "name*n,..." of the job's roles. */
static int role_list(struct sub *s)
{
	pai__buf b = PAI__BUF_INIT;
	pai_role ro;
	size_t r;

	for (r = 0; r < pai_job_role_count(s->job); r++) {
		if (pai_job_role(&ro, s->job, r) || strpbrk(ro.name, "*, "))
			return pai__client_fail(s->c, PAI_EINVALID, 0, NULL,
						"role '%s' cannot be named so "
						"on Slurm",
						ro.name);
		pai__buf_printf(&b, "%s%s*%lld", r ? "," : "", ro.name,
				ro.task_number);
	}
	if (b.oom || b.len >= sizeof(s->roles)) {
		pai__buf_release(&b);
		return pai__client_fail(s->c, PAI_ETOOBIG, 0, NULL,
					"job '%s' has too many roles for "
					"Slurm's comment",
					s->name);
	}
	snprintf(s->roles, sizeof(s->roles), "%s", b.data ? b.data : "");
	pai__buf_release(&b);
	return PAI_OK;
}

/* A job of the user's with the name, that Slurm still knows: exit 7. */
static int conflict(struct sub *s, json_t *jobs)
{
	json_t *named = pai__slurm_named(jobs, s->user, s->name), *j;
	long long id = 0;
	int err = PAI_OK;

	if (!named)
		return pai__client_oom(s->c);
	if ((j = json_array_get(named, 0))) {
		pai__json_integer(json_object_get(j, "job_id"), &id);
		err = pai__client_fail(s->c, PAI_ECONFLICT, 409, "ConflictJobError",
				       "job '%s' exists already (Slurm job "
				       "%lld, %s)",
				       s->name, id,
				       pai__json_str(j, "job_state")
					   ? pai__json_str(j, "job_state")
					   : "?");
	}
	json_decref(named);
	return err;
}

/* [lo, lo + n) overlaps no range of a paictl job in jobs. */
static int ports_free(json_t *jobs, unsigned lo, unsigned long long n)
{
	struct pai__slurm_note note;
	json_t *j;
	size_t i;

	json_array_foreach(jobs, i, j)
	{
		if (pai__slurm_note(&note, j) && note.hi > note.lo &&
		    lo < note.hi && note.lo < lo + n)
			return 0;
	}
	return 1;
}

/* How many random places choose_ports() tries before it refuses. */
#define PORT_TRIES 256

/* The job's port range: a random place among the free ones; refused in
 * words when PORT_TRIES places all overlap another paictl job's range
 * (sharing ports would make two jobs' servers collide). */
static int choose_ports(struct sub *s, json_t *jobs, unsigned long long n)
{
	unsigned long long room;
	int tries;

	if (n >= PORT_HI - PORT_LO)
		return pai__client_fail(s->c, PAI_ETOOBIG, 0, NULL,
					"job '%s' needs %llu ports, more than "
					"the %d paictl hands out",
					s->name, n, PORT_HI - PORT_LO);
	room = PORT_HI - PORT_LO - n;
	for (tries = 0; tries < PORT_TRIES; tries++) {
		s->lo = PORT_LO + (unsigned)(random64() % (room + 1));
		if (ports_free(jobs, s->lo, n)) {
			s->hi = s->lo + (unsigned)n;
			return PAI_OK;
		}
	}
	return pai__client_fail(s->c, PAI_ETOOBIG, 0, NULL,
				"job '%s' needs %llu ports, and no free range "
				"of them was found in %d tries among the "
				"ports %d-%d that paictl's jobs known to Slurm "
				"hold: wait for some of them to end (or be "
				"forgotten), or ask for fewer ports",
				s->name, n, PORT_TRIES, PORT_LO, PORT_HI - 1);
}

/* 1 when a submission of the user's job name is under way in another
 * lane of the client (its claim among jobs; under known_lock). */
static int under_way(struct sub *s, json_t *jobs)
{
	struct pai__slurm_note n;
	const char *u, *jn;
	json_t *j;
	size_t i;

	if (!pai__slurm_of(s->c)->claims) /* one lane, or none under way */
		return 0;
	json_array_foreach(jobs, i, j)
	{
		if (!pai__slurm_pending(j))
			continue;
		u = pai__json_str(j, "user_name");
		jn = pai__json_str(j, "name");
		if (u && jn &&
		    strcmp(u, s->user) == 0 && strcmp(jn, s->name) == 0 &&
		    pai__slurm_note(&n, j))
			return 1;
	}
	return 0;
}

/* The name checked and the ports chosen against the jobs Slurm knows
 * and the submissions under way (after one of the name under way has
 * settled), and this one's claim put beside them, in one hold of the
 * client's lock: two lanes never both pass with one name or take one
 * range. */
static int claim(struct sub *s, unsigned long long nports)
{
	json_t *jobs = NULL, *mine;
	char *note;
	int err;

	if ((err = pai__slurm_known_lock(&jobs, s->c, KNOWN_MAX_AGE_MS)))
		return err;
	while (under_way(s, jobs))
		pai__slurm_known_wait(&jobs, s->c);
	if (!(err = conflict(s, jobs)) &&
	    !(err = choose_ports(s, jobs, nports))) {
		note = pai__slurm_note_text(s->subid, s->lo, s->hi, s->roles);
		mine = note ? json_pack("{s:I,s:s,s:s,s:s,s:s}", "job_id",
					(json_int_t)0, "name", s->name,
					"user_name", s->user, "comment", note,
					"job_state", "PENDING")
			    : NULL;
		free(note);
		if (mine) {
			pai__slurm_known_claim(s->c, mine);
			s->claimed = 1;
		} else
			err = pai__client_oom(s->c);
	}
	pai__slurm_known_unlock(s->c);
	return err;
}

/* The config's virtual cluster (v1's virtualCluster, v2's
 * defaults.virtualCluster), or NULL. */
static const char *vc_of(const pai_job *job)
{
	json_t *cfg = pai_job_config(job);
	const char *vc = pai__json_str(cfg, "virtualCluster");

	return vc ? vc
		  : pai__json_str(json_object_get(cfg, "defaults"),
				  "virtualCluster");
}

/* What is posted: the batch job, its comment, its directory. */
static int make_body(struct sub *s, unsigned long long nports)
{
	const struct pai__slurm_client *sc = pai__slurm_of(s->c);
	struct pai__slurm_submit so;
	char mark[32];
	int err;

	memset(&so, 0, sizeof(so));
	snprintf(mark, sizeof(mark), "\x01%08llx", random64() & 0xffffffff);
	s->jobdir = pai__slurm_jobdir(s->c, s->name, s->subid);
	s->note = pai__slurm_note_text(s->subid, s->lo, s->hi, s->roles);
	if (!s->jobdir || !s->note)
		return pai__client_oom(s->c);
	so.user = s->user;
	so.name = s->name;
	so.subid = s->subid;
	so.workdir = sc->s.workdir;
	so.jobdir = s->jobdir;
	so.comment = s->note;
	so.roles = s->roles;
	so.partition = sc->s.partition;
	so.account = sc->s.account;
	so.qos = sc->s.qos;
	so.port_base = nports ? s->lo : 0;
	so.mark = mark;
	so.source = s->source;
	if (sc->s.vc_partition && !sc->s.partition)
		so.partition = vc_of(s->job);
	if ((err = pai__slurm_image_warning(s->diags, s->source, s->job,
					    sc->s.pyxis, &so.image)) ||
	    (err = pai__slurm_job_body(&s->body, s->diags, s->job, &so)) ||
	    (err = pai__slurm_body_write(s->body, pai__slurm_speaks(s->c))))
		return err == PAI_ENOMEM ? pai__client_oom(s->c)
					 : pai__client_fail(
					       s->c, err, 0, NULL,
					       "job '%s' cannot be run on Slurm",
					       s->name);
	return PAI_OK;
}

/* Everything before the post: the job, the name, the ports, the body
 * (check: against the jobs Slurm knows, claimed; 0 for a dry run). */
static int prepare(struct sub *s, json_t *config, const pai_submit_options *o,
		   int check)
{
	struct pai__slurm_tasks t;
	unsigned long long nports = 0;
	int err;

	if (!pai__slurm_of(s->c)->s.workdir)
		return pai__client_fail(s->c, PAI_EINVAL, 0, NULL,
					"the cluster's profile has no working "
					"directory: add one with 'paictl "
					"cluster add NAME --slurm URL --workdir "
					"DIR' (a directory every node sees)");
	if (!dir_name(s->name))
		return pai__client_fail(s->c, PAI_EINVALID, 0, NULL,
					"job name '%s' cannot name a directory",
					s->name);
	if ((err = parse(s, config, o)) || (err = role_list(s)))
		return err;
	if ((err = pai__slurm_tasks_init(&t, s->job)) == PAI_OK)
		nports = t.nports;
	pai__slurm_tasks_release(&t);
	if (err)
		return pai__client_fail(s->c, err, 0, NULL,
					"job '%s' needs more ports than there "
					"are",
					s->name);
	make_subid(s->subid, sizeof(s->subid));
	if (check && (err = claim(s, nports)))
		return err;
	if (!check)
		s->lo = PORT_LO, s->hi = PORT_LO + (unsigned)nports;
	return make_body(s, nports);
}

/* After a lost answer: the job whose comment has this submission's id,
 * if Slurm has it. 1 found, 0 not, or an error. */
static int find_own(struct sub *s, long long *id)
{
	json_t *jobs = NULL, *j;
	struct pai__slurm_note n;
	size_t i;
	int err, found = 0;

	if ((err = pai__slurm_jobs(&jobs, s->c)))
		return err;
	json_array_foreach(jobs, i, j)
	{
		if (!found && pai__slurm_note(&n, j) &&
		    strcmp(n.sub, s->subid) == 0) {
			pai__json_integer(json_object_get(j, "job_id"), id);
			found = 1;
		}
	}
	json_decref(jobs);
	return found;
}

/* Our job id (and its components after it) among what the client
 * knows in place of its claim, so that its next submission needs no
 * listing. */
static void know_own(struct sub *s, long long id)
{
	size_t k, n = json_is_array(json_object_get(s->body, "jobs"))
			  ? json_array_size(json_object_get(s->body, "jobs"))
			  : 1;
	json_t *made = json_array();

	for (k = 0; made && k < n; k++)
		json_array_append_new(
		    made, json_pack("{s:I,s:s,s:s,s:s,s:I,s:I,s:s}", "job_id",
				    (json_int_t)(id + (long long)k), "name",
				    s->name, "user_name", s->user, "comment",
				    s->note, "het_job_id",
				    (json_int_t)(n > 1 ? id : 0),
				    "het_job_offset", (json_int_t)k,
				    "job_state", "PENDING"));
	pai__slurm_known_settle(s->c, s->subid, made);
	s->claimed = 0;
}

/* Our job, posted, cancelled again because whether an older job of the
 * name is there cannot be told (the reading of the jobs made since the
 * client's listing failed): never a job of a name twice, blind. err and
 * the detail are the failed reading's. */
static int unchecked(struct sub *s, long long id, int err)
{
	pai__error first = {0, NULL, NULL};
	char path[64];
	int gone;

	if (err == PAI_ENOMEM)
		return err;
	pai__client_save_error(s->c, &first);
	snprintf(path, sizeof(path), "job/%lld", id);
	gone = !pai__slurm_call(NULL, s->c, "DELETE", path, NULL, 1, NULL);
	pai__client_fail(s->c, PAI_EFORBIDDEN, first.status, first.code,
			 "whether job '%s' exists already cannot be checked "
			 "(%s), so it is not submitted: Slurm job %lld, just "
			 "made, %s",
			 s->name, first.msg ? first.msg : pai_strerror(err), id,
			 gone ? "is cancelled; try again"
			      : "could not be cancelled either: 'paictl stop' "
				"it");
	pai__error_release(&first);
	return PAI_EFORBIDDEN;
}

/* Of two jobs of the name posted at once, the later gives way: ours is
 * cancelled when an older one of another submission is there (the jobs
 * made since the client's listing read one by one). When they cannot be
 * read, ours is cancelled too (unchecked()). */
static int one_of_a_name(struct sub *s, long long id)
{
	json_t *jobs = NULL, *named, *j;
	struct pai__slurm_note n;
	long long other = 0;
	char path[64];
	size_t i;
	int err;

	if ((err = pai__slurm_catch_up(s->c, id)) ||
	    (err = pai__slurm_known_lock(&jobs, s->c, KNOWN_MAX_AGE_MS)))
		return unchecked(s, id, err);
	named = pai__slurm_named(jobs, s->user, s->name);
	pai__slurm_known_unlock(s->c);
	if (!named)
		return pai__client_oom(s->c);
	json_array_foreach(named, i, j)
	{
		pai__json_integer(json_object_get(j, "job_id"), &other);
		if (pai__slurm_note(&n, j) && strcmp(n.sub, s->subid) != 0 &&
		    other < id)
			break;
		other = 0;
	}
	json_decref(named);
	know_own(s, id);
	if (!other)
		return PAI_OK;
	snprintf(path, sizeof(path), "job/%lld", id);
	pai__slurm_call(NULL, s->c, "DELETE", path, NULL, 1, NULL);
	return pai__client_fail(s->c, PAI_ECONFLICT, 409, "ConflictJobError",
				"job '%s' exists already (Slurm job %lld, "
				"submitted at the same time)",
				s->name, other);
}

/* Posts the batch job; a lost answer resolved by the submission's id.
 * *recovered as pai_submit_ex(). */
static int post(struct sub *s, int *recovered)
{
	json_t *ans = NULL;
	pai__error first = {0, NULL, NULL};
	long long id = 0;
	int err, maybe = 0, found;

	err = pai__slurm_call(&ans, s->c, "POST", "job/submit", s->body, 0,
			      &maybe);
	if (!err) {
		pai__json_integer(json_object_get(ans, "job_id"), &id);
		json_decref(ans);
		return one_of_a_name(s, id);
	}
	if (!maybe)
		return err;
	pai__client_save_error(s->c, &first);
	found = find_own(s, &id);
	if (found == 1) {
		pai__error_release(&first);
		*recovered = 1;
		return one_of_a_name(s, id);
	}
	if (found == 0) {
		pai__client_restore_error(s->c, &first);
		return err; /* nothing was made: submitting again is safe */
	}
	pai__client_fail(s->c, err, first.status, first.code,
			 "%s; whether job '%s' was made cannot be told: see "
			 "'paictl status %s'",
			 first.msg ? first.msg : pai_strerror(err), s->name,
			 s->name);
	pai__error_release(&first);
	return err;
}

/* The submission's start: names, diagnostics. */
static int begin(struct sub *s, pai_diags **own, pai_client *c,
		 const char *user, json_t *config, const pai_submit_options *o)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->user = user;
	s->name = pai_job_config_name(config);
	s->diags = o->diags;
	s->source = o->source_name;
	if (!s->diags && pai_diags_new(own))
		return pai__client_oom(c);
	if (!s->diags)
		s->diags = *own;
	return PAI_OK;
}

/* The job's directory (<workdir>/<name>/<sub>), made before the job is
 * posted where this machine sees the work directory, as the job's
 * script makes it (mkdir -p, the umask's mode): a status read before
 * the script runs then tells a task that has not started from one whose
 * directory is elsewhere (slurm_status.c gives the latter a log), and
 * 'submit && logs -f' waits for the log. undo: removed again, where
 * nothing went in (a job not made). */
static void job_dir(const struct sub *s, int undo)
{
	char *parent = s->jobdir ? strdup(s->jobdir) : NULL, *slash;

	if (parent && (slash = strrchr(parent, '/')) && slash != parent &&
	    pai__slurm_seen(pai__slurm_of(s->c)->s.workdir)) {
		*slash = '\0';
		if (undo) {
			rmdir(s->jobdir);
			rmdir(parent);
		} else if (mkdir(parent, 0777) == 0 || errno == EEXIST)
			mkdir(s->jobdir, 0777);
	}
	free(parent);
}

int pai__slurm_submit(const struct pai__api *api, pai_client *c,
		      const char *user, json_t *config,
		      const pai_submit_options *o, int *recovered)
{
	struct pai__slurm_client *sc = pai__slurm_of(c);
	/* a batch's lanes share slurmrestd; the login node's connection,
	 * one at a time */
	int serial = sc->ops != &pai__slurm_restd_ops;
	struct sub s;
	pai_diags *own = NULL;
	int err, rec = 0;

	(void)api;
	if (serial)
		pthread_mutex_lock(&sc->serial);
	if (!(err = begin(&s, &own, c, user, config, o)) &&
	    !(err = prepare(&s, config, o, 1))) {
		job_dir(&s, 0);
		if ((err = post(&s, &rec)))
			job_dir(&s, 1);
	}
	if (s.claimed) /* no job made, or not known to be */
		pai__slurm_known_settle(c, s.subid, NULL);
	if (serial)
		pthread_mutex_unlock(&sc->serial);
	if (!err && recovered)
		*recovered = rec;
	sub_release(&s);
	pai_diags_free(own);
	return err;
}

int pai__slurm_submit_request(pai__submit_rq *rq, const struct pai__api *api,
			      pai_client *c, const char *user, json_t *config)
{
	static const pai_submit_options defaults = PAI_SUBMIT_OPTIONS_INIT;
	struct sub s;
	pai_diags *own = NULL;
	int err;

	(void)api;
	if (!(err = begin(&s, &own, c, user, config, &defaults)) &&
	    !(err = prepare(&s, config, &defaults, 0)) &&
	    (pai__slurm_url(&rq->url, c, "job/submit") ||
	     !(rq->body = pai__json_dumps(s.body, JSON_INDENT(2)))))
		err = pai__client_oom(c);
	if (!err) {
		rq->len = strlen(rq->body);
		rq->content_type = "application/json";
	}
	sub_release(&s);
	pai_diags_free(own);
	return err;
}
