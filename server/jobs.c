/* jobs.c - the local cluster's job model and its records on disk
 *
 * Layout under the state directory:
 *   records.log                     the jobs' records (states, ports),
 *                                   a line each; see "records" below
 *   jobs/<user>~<job>/config.json   the config exactly as submitted;
 *                                   no record yet: not started
 *   jobs/<user>~<job>/job.json      a record, in an earlier layout
 *   jobs/<user>~<job>/attempt-<n>/<role>-<index>/
 *       work/                        the task's working directory
 *       status                       pids, then the exit status
 *       user.pai.stdout, .stderr, .all   from the first byte logged
 * A job directory appears by renaming a complete temporary directory,
 * so a restart sees a job entirely or not at all; a deleted one goes by
 * a rename to .del-<user>~<job> first. What makes a submission durable
 * is its first record, which carries the config (srv_add_job): one
 * sync of the log, not three of files and directories.
 */
#include "srv_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void role_release(struct srv_role *r)
{
	size_t i;

	free(r->name);
	for (i = 0; r->labels && i < r->nlabels; i++)
		free(r->labels[i]);
	free(r->labels);
	free(r->counts);
}

void srv_job_free(struct srv_job *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; j->roles && i < j->nroles; i++)
		role_release(&j->roles[i]);
	for (i = 0; j->tasks && i < j->ntasks; i++) {
		free(j->tasks[i].ports);
		free(j->tasks[i].diag);
	}
	free(j->roles);
	free(j->tasks);
	free(j->user);
	free(j->name);
	free(j->key);
	free(j->dir);
	free(j->vc);
	free(j->trigger_role);
	free(j->diag);
	free(j->warnings);
	pai_job_free(j->pj);
	free(j);
}

void srv_task_set_diag(struct srv_task *t, const char *msg)
{
	free(t->diag);
	t->diag = msg ? strdup(msg) : NULL;
}

/* Allocates the tasks of every role, all WAITING. */
static int make_tasks(struct srv_job *j)
{
	size_t r, i, n = 0;

	for (r = 0; r < j->nroles; r++)
		n += (size_t)j->roles[r].task_number;
	j->tasks = calloc(n ? n : 1, sizeof(*j->tasks));
	if (!j->tasks)
		return -1;
	j->ntasks = n;
	n = 0;
	for (r = 0; r < j->nroles; r++)
		for (i = 0; i < (size_t)j->roles[r].task_number; i++, n++) {
			struct srv_task *t = &j->tasks[n];

			t->role = r;
			t->index = i;
			t->state = ST_WAITING;
			t->exit_code = -1;
			t->ports =
			    calloc(j->roles[r].nports + 1, sizeof(*t->ports));
			if (!t->ports)
				return -1;
		}
	return 0;
}

/* Role r of pj, into sr; 0, or -1 for a role the local cluster cannot
 * take (or out of memory). */
static int role_from_pai(struct srv_role *sr, const pai_job *pj, size_t r)
{
	pai_role pr;
	size_t k;

	if (pai_job_role(&pr, pj, r) || !pr.name || pr.task_number < 1 ||
	    pr.task_number > 1000)
		return -1;
	sr->name = strdup(pr.name);
	sr->task_number = pr.task_number;
	sr->cpu = pr.cpu_number;
	sr->memory_mb = pr.memory_mb;
	sr->gpu = pr.gpu_number;
	sr->min_failed = pr.min_failed;
	sr->min_succeeded = pr.min_succeeded;
	sr->nlabels = pr.port_count;
	sr->labels = calloc(pr.port_count + 1, sizeof(*sr->labels));
	sr->counts = calloc(pr.port_count + 1, sizeof(*sr->counts));
	if (!sr->name || !sr->labels || !sr->counts)
		return -1;
	for (k = 0; k < pr.port_count; k++) {
		pai_port pp;

		if (pai_job_port(&pp, pj, r, k) || !pp.label ||
		    pp.port_number < 0 || pp.port_number > 100)
			return -1;
		sr->labels[k] = strdup(pp.label);
		if (!sr->labels[k])
			return -1;
		sr->counts[k] = (unsigned)pp.port_number;
		sr->nports += sr->counts[k];
	}
	return 0;
}

int srv_job_from_pai(struct srv_job **out, const pai_job *pj, const char *user)
{
	struct srv_job *j = NULL;
	json_t *cfg = pai_job_config(pj), *v;
	size_t r;
	int ret = -1;

	*out = NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		goto out;
	j->user = strdup(user);
	j->name = strdup(pai_job_name(pj));
	j->key = srv_printf("%s~%s", user, pai_job_name(pj));
	v = json_object_get(cfg, "virtualCluster");
	j->vc = strdup(json_is_string(v) && *json_string_value(v)
			   ? json_string_value(v)
			   : "default");
	if (!j->user || !j->name || !j->key || !j->vc)
		goto out;
	v = json_object_get(cfg, "retryCount");
	j->retry_count = json_is_integer(v) && json_integer_value(v) > 0 &&
				 json_integer_value(v) < 1000
			     ? (int)json_integer_value(v)
			     : 0;
	j->state = ST_WAITING;
	j->exit_code = -1;
	j->trigger_index = -1;
	j->created = srv_now_ms();
	j->nroles = pai_job_role_count(pj);
	j->roles = calloc(j->nroles ? j->nroles : 1, sizeof(*j->roles));
	if (!j->roles)
		goto out;
	for (r = 0; r < j->nroles; r++)
		if (role_from_pai(&j->roles[r], pj, r) < 0)
			goto out;
	if (make_tasks(j) < 0)
		goto out;
	*out = j;
	j = NULL;
	ret = 0;
out:
	srv_job_free(j);
	return ret;
}

/* The id of task t's container in j's current attempt, as the API
 * reports it and $PAI_CONTAINER_ID gives it. */
char *srv_container_id(const struct srv_job *j, const struct srv_task *t)
{
	return srv_printf("%s-%d-%s-%zu", j->key, j->attempt,
			  j->roles[t->role].name, t->index);
}

/* Whether task t's role has an `ssh` port; *port is the task's first. */
bool srv_ssh_port(const struct srv_job *j, const struct srv_task *t,
		  unsigned *port)
{
	const struct srv_role *r = &j->roles[t->role];
	size_t k, off = 0;

	for (k = 0; k < r->nlabels; off += r->counts[k], k++)
		if (strcmp(r->labels[k], "ssh") == 0 && r->counts[k]) {
			*port = t->ports[off];
			return true;
		}
	*port = 0;
	return false;
}

char *srv_attempt_dir(const struct srv_job *j)
{
	return srv_printf("%s/attempt-%d", j->dir, j->attempt);
}

char *srv_task_dir(const struct srv_job *j, const struct srv_task *t)
{
	return srv_printf("%s/attempt-%d/%s-%zu", j->dir, j->attempt,
			  j->roles[t->role].name, t->index);
}

static int set_str(json_t *o, const char *k, const char *v)
{
	return json_object_set_new(o, k, v ? json_string(v) : json_null());
}

static json_t *role_record(const struct srv_role *sr)
{
	json_t *ro = json_object(), *labels = json_array();
	size_t k;

	for (k = 0; k < sr->nlabels; k++)
		json_array_append_new(labels,
				      json_pack("[s,i]", sr->labels[k],
						(json_int_t)sr->counts[k]));
	json_object_set_new(ro, "name", json_string(sr->name));
	json_object_set_new(ro, "taskNumber", json_integer(sr->task_number));
	json_object_set_new(ro, "cpuNumber", json_integer(sr->cpu));
	json_object_set_new(ro, "memoryMB", json_integer(sr->memory_mb));
	json_object_set_new(ro, "gpuNumber", json_integer(sr->gpu));
	json_object_set_new(ro, "minFailedTaskCount",
			    json_integer(sr->min_failed));
	json_object_set_new(ro, "minSucceededTaskCount",
			    json_integer(sr->min_succeeded));
	json_object_set_new(ro, "ports", labels);
	return ro;
}

static json_t *task_record(const struct srv_job *j, const struct srv_task *t)
{
	json_t *to = json_object(), *ports = json_array();
	size_t k;

	for (k = 0; k < j->roles[t->role].nports; k++)
		json_array_append_new(ports, json_integer(t->ports[k]));
	json_object_set_new(to, "role", json_integer((json_int_t)t->role));
	json_object_set_new(to, "index", json_integer((json_int_t)t->index));
	set_str(to, "state", srv_state_name(t->state));
	json_object_set_new(to, "exitCode", json_integer(t->exit_code));
	json_object_set_new(to, "ports", ports);
	json_object_set_new(to, "monitor", json_integer(t->monitor));
	json_object_set_new(to, "monitorStart",
			    json_integer((json_int_t)t->mon_start));
	json_object_set_new(to, "gpus", json_integer((json_int_t)t->gpus));
	json_object_set_new(to, "started", json_integer(t->started));
	json_object_set_new(to, "completed", json_integer(t->completed));
	set_str(to, "diagnostics", t->diag);
	return to;
}

json_t *srv_job_record(const struct srv_job *j)
{
	json_t *o = json_object(), *roles = json_array(), *tasks = json_array();
	size_t r, i;

	if (!o || !roles || !tasks)
		goto fail;
	json_object_set_new(o, "version", json_integer(1));
	set_str(o, "user", j->user);
	set_str(o, "name", j->name);
	set_str(o, "virtualCluster", j->vc);
	set_str(o, "state", srv_state_name(j->state));
	json_object_set_new(o, "stop", json_boolean(j->stop));
	json_object_set_new(o, "deciding", json_boolean(j->deciding));
	set_str(o, "outcome", srv_state_name(j->outcome));
	json_object_set_new(o, "created", json_integer(j->created));
	json_object_set_new(o, "launched", json_integer(j->launched));
	json_object_set_new(o, "completed", json_integer(j->completed));
	json_object_set_new(o, "retries", json_integer(j->retries));
	json_object_set_new(o, "retryCount", json_integer(j->retry_count));
	json_object_set_new(o, "attempt", json_integer(j->attempt));
	json_object_set_new(o, "exitCode", json_integer(j->exit_code));
	set_str(o, "triggerRole", j->trigger_role);
	json_object_set_new(o, "triggerIndex", json_integer(j->trigger_index));
	set_str(o, "diagnostics", j->diag);
	set_str(o, "warnings", j->warnings);
	json_object_set_new(o, "holds", json_boolean(j->holds));
	json_object_set_new(o, "ssh", json_boolean(j->ssh));
	for (r = 0; r < j->nroles; r++)
		json_array_append_new(roles, role_record(&j->roles[r]));
	for (i = 0; i < j->ntasks; i++)
		json_array_append_new(tasks, task_record(j, &j->tasks[i]));
	json_object_set_new(o, "roles", roles);
	json_object_set_new(o, "tasks", tasks);
	return o;
fail:
	json_decref(o);
	json_decref(roles);
	json_decref(tasks);
	return NULL;
}

/* ---- records --------------------------------------------------------
 *
 * Every job's record lives in one file, records.log: a line of compact
 * JSON per record written, the last line of a job winning. A flush
 * appends the records of every job that changed in one write, synced
 * once (a group commit), so a job costs the disk no file of its own
 * per change of state. The log is written anew (temporary file, fsync,
 * rename) at each start and when it has grown to several times what it
 * holds. A record cut short by a crash is an incomplete last line,
 * which loading ignores: the job keeps its previous record. */

#define REC_MIN_COMPACT (1 << 20)

/* One record to write, taken while the lock was held. */
struct save {
	struct srv_job *j;
	char *text; /* with its newline */
	size_t len;
	bool launching; /* the record of an attempt to launch */
	/* a rewrite's: the job's config.json and directory, synced
	 * with it (synced: the job's records can go without the config) */
	char *cfg, *dir;
	bool synced;
};

/* rec as a line of compact JSON, with its newline; NULL when out of
 * memory. rec's reference is taken. */
static char *dump_line(json_t *rec, size_t *len)
{
	char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL, *line;

	json_decref(rec);
	if (!text)
		return NULL;
	*len = strlen(text);
	line = realloc(text, *len + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[(*len)++] = '\n';
	line[*len] = '\0';
	return line;
}

/* j's record; with config, the config as submitted in it (for a job
 * whose config.json is not synced: see srv_add_job), read again from
 * config.json, which the page cache holds. */
static char *record_line(const struct srv_job *j, bool config, size_t *len)
{
	json_t *rec = srv_job_record(j);
	char *path = NULL, *text = NULL;
	size_t n = 0;

	if (rec && config && (path = srv_printf("%s/config.json", j->dir)) &&
	    pai_file_read(&text, &n, NULL, path) == PAI_OK)
		json_object_set_new(rec, "config", json_stringn(text, n));
	free(text);
	free(path);
	return dump_line(rec, len);
}

/* Syncs config.json and its directory, from a rewrite's save. */
static int sync_config(const struct save *sv)
{
	int fd = open(sv->cfg, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r < 0 ? -1 : srv_fsync_dir(sv->dir);
}

/* Writes the whole log anew from v (every job) and the records of jobs
 * that could not be loaded (kept as they were); save_lock held. */
static int rec_rewrite(struct srv *s, struct save *v, size_t n)
{
	char *buf = NULL, *p;
	size_t i, total = s->unloaded_len;
	int err = PAI_EIO;

	/* whatever fails from here, the next flush writes it all again
	 * and nothing is appended to a file that may be gone */
	if (s->rec_fd >= 0)
		close(s->rec_fd);
	s->rec_fd = -1;
	s->rec_compact = true;
	/* the configs that only records carried, on disk for good: the
	 * next records go without them (a config that cannot be synced
	 * stays in them) */
	for (i = 0; i < n; i++)
		v[i].synced = v[i].cfg && sync_config(&v[i]) == 0;
	for (i = 0; i < n && !v[i].synced; i++)
		;
	if (i < n && srv_fsync_dir(s->jobs_dir) < 0)
		for (i = 0; i < n; i++)
			v[i].synced = false;
	for (i = 0; i < n; i++)
		total += v[i].len;
	buf = malloc(total + 1);
	if (!buf)
		return PAI_ENOMEM;
	p = buf;
	if (s->unloaded_len)
		memcpy(p, s->unloaded, s->unloaded_len);
	p += s->unloaded_len;
	for (i = 0; i < n; i++) {
		memcpy(p, v[i].text, v[i].len);
		p += v[i].len;
	}
	err = pai_file_write_atomic(s->rec_path, buf, total, 0600,
				    PAI_WRITE_NO_DIRSYNC);
	free(buf);
	if (err != PAI_OK)
		return err;
	if (srv_fsync_dir(s->state_dir) < 0 ||
	    (s->rec_fd = open(s->rec_path, O_WRONLY | O_APPEND | O_CLOEXEC)) <
		0)
		return PAI_EIO;
	s->rec_size = (long long)total;
	s->rec_compact = false;
	return PAI_OK;
}

/* Appends v's records; *seq: the append's number, for srv_log_sync
 * (log_sync.c). save_lock held. A failed append is cut off again, so
 * the next one starts a line. */
static int rec_append(struct srv *s, struct save *v, size_t n,
		      unsigned long long *seq)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!srv_write_all(s->rec_fd, v[i].text, v[i].len))
			goto fail;
	for (i = 0; i < n; i++)
		s->rec_size += (long long)v[i].len;
	*seq = ++s->rec_seq;
	return PAI_OK;
fail:
	/* nothing after the last good line, and written anew next time:
	 * what the failed write left must not count */
	if (ftruncate(s->rec_fd, s->rec_size) < 0)
		srv_log(s, "cannot cut '%s' back: %s", s->rec_path,
			strerror(errno));
	s->rec_compact = true;
	return PAI_EIO;
}

/* What follows from a record now on disk (the log written anew with
 * all). Lock held. */
static void record_written(struct srv *s, const struct save *sv, bool all)
{
	struct srv_job *j = sv->j;

	if (all && j->legacy) {
		/* folded into the log, which is on disk */
		char *old = srv_printf("%s/job.json", j->dir);

		if (old)
			unlink(old);
		free(old);
		j->legacy = false;
	}
	if (all && sv->synced)
		j->cfg_pending = false; /* synced by the rewrite */
	s->rec_live += (long long)sv->len - j->rec_len;
	j->rec_len = (long long)sv->len;
	/* srv_launch may fork its tasks now */
	if (sv->launching && j->launching)
		j->launch_recorded = true;
}

/* Writes the records of every dirty job. The records are taken with
 * the lock held; the lock is released while they are written and
 * synced, so requests are not held up by the disk. save_lock keeps
 * writes in the order their records were taken. Lock held. */
void srv_flush(struct srv *s)
{
	struct save *v = NULL;
	size_t i, n = 0, ndirty = 0;
	bool all;
	unsigned long long seq = 0;
	int err;

	for (i = 0; i < s->njobs; i++)
		ndirty += s->jobs[i]->dirty;
	pthread_mutex_lock(&s->save_lock);
	if (!ndirty && !s->rec_compact && s->rec_fd >= 0) {
		pthread_mutex_unlock(&s->save_lock);
		return;
	}
	/* written anew when asked to, or when it holds mostly old lines */
	all = s->rec_compact || s->rec_fd < 0 ||
	      (s->rec_size > REC_MIN_COMPACT &&
	       s->rec_size > 4 * s->rec_live);
	v = calloc(all ? s->njobs + 1 : ndirty, sizeof(*v));
	if (all)
		s->rec_gen++; /* what srv_add_job appended may be left out */
	for (i = 0; v && i < s->njobs; i++) {
		struct srv_job *j = s->jobs[i];

		if (!j->dirty && !all)
			continue;
		v[n].j = j;
		v[n].text = record_line(j, j->cfg_pending, &v[n].len);
		v[n].launching = j->launching;
		if (all && j->cfg_pending) {
			v[n].cfg = srv_printf("%s/config.json", j->dir);
			v[n].dir = strdup(j->dir);
		}
		if (!v[n].text || (all && j->cfg_pending &&
				   (!v[n].cfg || !v[n].dir))) {
			n++;
			break; /* out of memory: tried again next time */
		}
		n++;
	}
	if (v && i < s->njobs) {
		for (i = 0; i < n; i++) {
			free(v[i].text);
			free(v[i].cfg);
			free(v[i].dir);
		}
		free(v);
		pthread_mutex_unlock(&s->save_lock);
		return;
	}
	for (i = 0; i < n; i++)
		v[i].j->dirty = false;
	s->flushing++;
	pthread_mutex_unlock(&s->lock);
	err = !v    ? PAI_ENOMEM
	      : all ? rec_rewrite(s, v, n)
		    : rec_append(s, v, n, &seq);
	pthread_mutex_unlock(&s->save_lock);
	if (seq)
		err = srv_log_sync(s, seq);
	pthread_mutex_lock(&s->lock);
	s->flushing--;
	if (err != PAI_OK && v)
		srv_log(s, "cannot write %zu job record%s to '%s': %s", n,
			n == 1 ? "" : "s", s->rec_path, pai_strerror(err));
	for (i = 0; v && i < n; i++) {
		/* a job deleted meanwhile has nothing more to follow */
		if (err != PAI_OK && !v[i].j->deleted)
			v[i].j->dirty = true; /* tried again next time */
		else if (!v[i].j->deleted)
			record_written(s, &v[i], all);
		free(v[i].text);
		free(v[i].cfg);
		free(v[i].dir);
	}
	free(v);
	if (!s->flushing)
		srv_free_dead(s);
}

void srv_free_dead(struct srv *s)
{
	while (s->dead) {
		struct srv_job *j = s->dead;

		s->dead = j->next_dead;
		srv_job_free(j);
	}
}

struct srv_job *srv_find_job(struct srv *s, const char *user, const char *name)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		if (strcmp(s->jobs[i]->name, name) == 0 &&
		    (!user || strcmp(s->jobs[i]->user, user) == 0))
			return s->jobs[i];
	return NULL;
}

static int append_job(struct srv *s, struct srv_job *j)
{
	if (s->njobs == s->capjobs) {
		size_t cap = s->capjobs ? 2 * s->capjobs : 64;
		struct srv_job **v = realloc(s->jobs, cap * sizeof(*v));

		if (!v)
			return -1;
		s->jobs = v;
		s->capjobs = cap;
	}
	s->jobs[s->njobs++] = j;
	return 0;
}

/* Writes a new file, synced or not; *mtime (ms) is when it was written,
 * the time a job was submitted before and after a restart alike. */
static int write_file(const char *path, const char *data, size_t len,
		      bool sync, long long *mtime)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct stat st;
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, len) == (ssize_t)len &&
	     (!sync || fsync(fd) == 0) && fstat(fd, &st) == 0;
	if (ok)
		*mtime = (long long)st.st_mtim.tv_sec * 1000 +
			 st.st_mtim.tv_nsec / 1000000;
	return close(fd) == 0 && ok ? 0 : -1;
}

/* Names being stored by srv_add_job, taken before the lock is let go:
 * 1 when key is among them (removed with del), else 0 (added with add),
 * or -1 when out of memory. Lock held. */
static int pending(struct srv *s, const char *key, bool add, bool del)
{
	size_t i;
	char **v;

	for (i = 0; i < s->npending; i++)
		if (strcmp(s->pending[i], key) == 0) {
			if (del) {
				free(s->pending[i]);
				s->pending[i] = s->pending[--s->npending];
			}
			return 1;
		}
	if (!add)
		return 0;
	v = realloc(s->pending, (s->npending + 1) * sizeof(*v));
	if (!v)
		return -1;
	s->pending = v;
	if (!(v[s->npending] = strdup(key)))
		return -1;
	s->npending++;
	return 0;
}

/* Appends new job j's first record, with its config (text) in it, to
 * records.log and waits for its sync, which the appends made meanwhile
 * share (log_sync.c): what a submission costs the disk. *gen: the
 * rewrites of the log begun by then (s->rec_gen), *len the record's
 * size. PAI_OK, or an error: not appended (the log is to be written
 * anew, or the config is not UTF-8). Lock not held. */
static int rec_submit(struct srv *s, const struct srv_job *j,
		      const char *text, size_t len, unsigned long *gen,
		      long long *rec_len)
{
	json_t *rec = srv_job_record(j), *cfg = json_stringn(text, len);
	struct save sv;
	unsigned long long seq = 0;
	int err = PAI_EIO;

	memset(&sv, 0, sizeof(sv));
	if (!rec || !cfg || json_object_set(rec, "config", cfg) < 0) {
		json_decref(rec);
		rec = NULL;
	}
	json_decref(cfg);
	sv.text = dump_line(rec, &sv.len);
	if (!sv.text)
		return PAI_ENOMEM;
	pthread_mutex_lock(&s->save_lock);
	if (s->rec_fd >= 0 && !s->rec_compact)
		err = rec_append(s, &sv, 1, &seq);
	*gen = s->rec_gen;
	pthread_mutex_unlock(&s->save_lock);
	if (seq)
		err = srv_log_sync(s, seq);
	*rec_len = (long long)sv.len;
	free(sv.text);
	return err;
}

/* Syncs a new job's config.json, its directory and the jobs directory:
 * the job is on disk without any record. 0 or -1. */
static int sync_job_dir(struct srv *s, const char *dir, const char *cfg)
{
	struct save sv;

	sv.cfg = (char *)cfg;
	sv.dir = (char *)dir;
	return sync_config(&sv) < 0 || srv_fsync_dir(s->jobs_dir) < 0 ? -1
									: 0;
}

/* Stores and publishes a new job (its config in j->pj): the config is
 * written in a temporary directory, which one rename publishes, then
 * the job's first record, the config in it, is appended to the log and
 * synced (rec_submit): after a crash, the job is restored from it
 * (restore_config), however much of the directory the disk kept. Its
 * records carry the config until a rewrite of the log has synced
 * config.json (j->cfg_pending). Where the log cannot take it, the
 * directory is synced instead: a job directory without a record is a
 * job submitted and not yet started (srv_load_jobs). The name is
 * reserved first, so the lock is not held while the disk works.
 * Returns 0 (the job is the server's now), 1 when the job exists (on
 * disk or in memory), or -1. Lock not held. */
int srv_add_job(struct srv *s, struct srv_job *j, const char *text, size_t len)
{
	char *tmp = NULL, *dir = NULL, *cfg = NULL;
	unsigned long gen = 0;
	long long rec_len = 0;
	bool logged = false;
	int ret, err;

	pthread_mutex_lock(&s->lock);
	ret = srv_find_job(s, j->user, j->name) ? 1
						: pending(s, j->key, true, false);
	pthread_mutex_unlock(&s->lock);
	if (ret != 0)
		return ret;
	ret = -1;
	dir = srv_printf("%s/%s", s->jobs_dir, j->key);
	tmp = srv_printf("%s/.new-%s", s->jobs_dir, j->key);
	if (!dir || !tmp)
		goto out;
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
		goto out;
	/* No one reads the temporary directory: a plain write, then the
	 * rename publishes it. */
	cfg = srv_printf("%s/config.json", tmp);
	if (!cfg || write_file(cfg, text, len, false, &j->created) < 0)
		goto out;
	if (rename(tmp, dir) < 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			ret = 1;
		goto out;
	}
	free(cfg);
	cfg = srv_printf("%s/config.json", dir);
	logged = rec_submit(s, j, text, len, &gen, &rec_len) == PAI_OK;
	if (!logged && (!cfg || sync_job_dir(s, dir, cfg) < 0)) {
		srv_rmtree(dir);
		goto out;
	}
	ret = 0;
out:
	err = errno;
	if (ret != 0 && tmp)
		srv_rmtree(tmp);
	pthread_mutex_lock(&s->lock);
	pending(s, j->key, false, true);
	if (ret == 0 && logged && gen != s->rec_gen) {
		/* rewritten since: j's record goes again, config and all,
		 * with the next flush; until then config.json is synced */
		pthread_mutex_unlock(&s->lock);
		if (sync_job_dir(s, dir, cfg) < 0) {
			srv_rmtree(dir);
			ret = -1;
		}
		logged = false;
		pthread_mutex_lock(&s->lock);
	}
	if (ret == 0) {
		j->dir = dir;
		dir = NULL;
		j->cfg_pending = logged;
		if (logged) {
			j->rec_len = rec_len;
			s->rec_live += rec_len;
		}
		if (append_job(s, j) < 0)
			ret = -1; /* on disk: the next start finds it */
		else {
			srv_log(s, "'%s': submitted", j->key);
			srv_wake(s);
		}
	}
	pthread_mutex_unlock(&s->lock);
	free(cfg);
	free(tmp);
	free(dir);
	errno = err; /* why it failed, for the answer */
	return ret;
}

/* Takes ended job j off the list and out of the state directory: its
 * directory renamed away (*gone, for the caller to remove once the
 * lock is let go: logs can be large), and the records log written anew
 * without it before this returns, so that a job given its name later
 * never meets its records. Lock held (let go while the log is
 * written). 0, or -1 (errno) with nothing changed. */
int srv_delete_job(struct srv *s, struct srv_job *j, char **gone)
{
	size_t i;

	*gone = srv_printf("%s/.del-%s", s->jobs_dir, j->key);
	if (!*gone)
		return -1;
	if (rename(j->dir, *gone) < 0) {
		free(*gone);
		*gone = NULL;
		return -1;
	}
	srv_fsync_dir(s->jobs_dir);
	for (i = 0; i < s->njobs && s->jobs[i] != j; i++)
		;
	if (i < s->njobs)
		memmove(&s->jobs[i], &s->jobs[i + 1],
			(s->njobs - i - 1) * sizeof(*s->jobs));
	s->njobs--;
	s->rec_live -= j->rec_len;
	srv_log(s, "'%s': deleted", j->key);
	if (s->flushing) {
		/* a record of it is being written: freed after (srv_flush) */
		j->deleted = true;
		j->next_dead = s->dead;
		s->dead = j;
	} else
		srv_job_free(j);
	pthread_mutex_lock(&s->save_lock);
	s->rec_compact = true;
	pthread_mutex_unlock(&s->save_lock);
	srv_flush(s);
	return 0;
}

/* ---- loading ------------------------------------------------------- */

static long long get_int(json_t *o, const char *k, long long dflt)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static char *get_strdup(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? strdup(v) : NULL;
}

/* A role of a record, into sr; 0, or -1 for a record that cannot be. */
static int role_from_record(struct srv_role *sr, json_t *v)
{
	json_t *ports = json_object_get(v, "ports"), *p;
	size_t k;

	sr->name = get_strdup(v, "name");
	sr->task_number = get_int(v, "taskNumber", 1);
	sr->cpu = get_int(v, "cpuNumber", 1);
	sr->memory_mb = get_int(v, "memoryMB", 100);
	sr->gpu = get_int(v, "gpuNumber", 0);
	sr->min_failed = get_int(v, "minFailedTaskCount", 1);
	sr->min_succeeded = get_int(v, "minSucceededTaskCount", -1);
	sr->nlabels = json_array_size(ports);
	sr->labels = calloc(sr->nlabels + 1, sizeof(*sr->labels));
	sr->counts = calloc(sr->nlabels + 1, sizeof(*sr->counts));
	if (!sr->name || !srv_safe_name(sr->name) || !sr->labels ||
	    !sr->counts || sr->task_number < 1 || sr->task_number > 1000)
		return -1;
	json_array_foreach(ports, k, p)
	{
		const char *l = json_string_value(json_array_get(p, 0));

		sr->labels[k] = strdup(l ? l : "");
		sr->counts[k] =
		    (unsigned)json_integer_value(json_array_get(p, 1));
		if (!sr->labels[k] || sr->counts[k] > 100)
			return -1;
		sr->nports += sr->counts[k];
	}
	return 0;
}

/* A task of a record, into t (made by make_tasks); 0, or -1 when the
 * record's task is not t. */
static int task_from_record(const struct srv_job *j, struct srv_task *t,
			    json_t *v)
{
	json_t *ports = json_object_get(v, "ports");
	size_t k;

	if ((size_t)get_int(v, "role", -1) != t->role ||
	    (size_t)get_int(v, "index", -1) != t->index)
		return -1;
	t->state =
	    srv_state_from_name(json_string_value(json_object_get(v, "state")));
	t->exit_code = (int)get_int(v, "exitCode", -1);
	for (k = 0; k < j->roles[t->role].nports; k++)
		t->ports[k] =
		    (unsigned)json_integer_value(json_array_get(ports, k));
	t->monitor = (pid_t)get_int(v, "monitor", 0);
	t->mon_start = (unsigned long long)get_int(v, "monitorStart", 0);
	t->gpus = (unsigned long long)get_int(v, "gpus", 0);
	t->started = get_int(v, "started", 0);
	t->completed = get_int(v, "completed", 0);
	t->diag = get_strdup(v, "diagnostics");
	return 0;
}

/* The job's own members of a record (j->user, name, vc and dir set). */
static void job_members(struct srv_job *j, json_t *rec)
{
	j->key = srv_printf("%s~%s", j->user, j->name);
	j->state = srv_state_from_name(
	    json_string_value(json_object_get(rec, "state")));
	j->stop = json_is_true(json_object_get(rec, "stop"));
	j->deciding = json_is_true(json_object_get(rec, "deciding"));
	j->outcome = srv_state_from_name(
	    json_string_value(json_object_get(rec, "outcome")));
	j->created = get_int(rec, "created", 0);
	j->launched = get_int(rec, "launched", 0);
	j->completed = get_int(rec, "completed", 0);
	j->retries = (int)get_int(rec, "retries", 0);
	j->retry_count = (int)get_int(rec, "retryCount", 0);
	j->attempt = (int)get_int(rec, "attempt", 0);
	j->exit_code = (int)get_int(rec, "exitCode", -1);
	j->trigger_role = get_strdup(rec, "triggerRole");
	j->trigger_index = (long)get_int(rec, "triggerIndex", -1);
	j->diag = get_strdup(rec, "diagnostics");
	j->warnings = get_strdup(rec, "warnings");
	j->holds = json_is_true(json_object_get(rec, "holds"));
	j->ssh = json_is_true(json_object_get(rec, "ssh"));
}

static int job_from_record(struct srv_job **out, json_t *rec, const char *dir)
{
	struct srv_job *j = calloc(1, sizeof(*j));
	json_t *roles = json_object_get(rec, "roles");
	json_t *tasks = json_object_get(rec, "tasks"), *v;
	size_t r, i;
	int ret = -1;

	*out = NULL;
	if (!j)
		goto out;
	j->user = get_strdup(rec, "user");
	j->name = get_strdup(rec, "name");
	j->vc = get_strdup(rec, "virtualCluster");
	j->dir = strdup(dir);
	if (!j->user || !j->name || !j->vc || !j->dir)
		goto out;
	job_members(j, rec);
	j->nroles = json_array_size(roles);
	j->roles = calloc(j->nroles + 1, sizeof(*j->roles));
	if (!j->key || !j->roles)
		goto out;
	json_array_foreach(roles, r, v)
	{
		if (role_from_record(&j->roles[r], v) < 0)
			goto out;
	}
	if (make_tasks(j) < 0 || json_array_size(tasks) != j->ntasks)
		goto out;
	json_array_foreach(tasks, i, v)
	{
		if (task_from_record(j, &j->tasks[i], v) < 0)
			goto out;
	}
	*out = j;
	j = NULL;
	ret = 0;
out:
	srv_job_free(j);
	return ret;
}

/* A job submitted and not yet started has its config and no record
 * (srv_add_job): it is WAITING, submitted when its config was written. */
static int job_from_config(struct srv_job **out, const char *dir,
			   const char *key)
{
	pai_diags *diags = NULL;
	pai_job *pj = NULL;
	char *path = srv_printf("%s/config.json", dir), *text = NULL;
	char *user = strdup(key), *tilde = user ? strchr(user, '~') : NULL;
	size_t len = 0;
	struct stat st;
	int ret = -1;

	*out = NULL;
	if (!path || !tilde || stat(path, &st) < 0 ||
	    pai_diags_new(&diags) != PAI_OK ||
	    pai_file_read(&text, &len, NULL, path) != PAI_OK ||
	    pai_job_parse(&pj, diags, "config.json", text, len, NULL) !=
		PAI_OK)
		goto out;
	*tilde = '\0';
	if (srv_job_from_pai(out, pj, user) < 0 ||
	    !((*out)->dir = strdup(dir))) {
		srv_job_free(*out);
		*out = NULL;
		goto out;
	}
	(*out)->created = (long long)st.st_mtim.tv_sec * 1000 +
			  st.st_mtim.tv_nsec / 1000000;
	(*out)->pj = pj;
	(*out)->dirty = true;
	pj = NULL;
	ret = 0;
out:
	pai_job_free(pj);
	pai_diags_free(diags);
	free(text);
	free(path);
	free(user);
	return ret;
}

static int by_created(const void *a, const void *b)
{
	const struct srv_job *x = *(struct srv_job *const *)a;
	const struct srv_job *y = *(struct srv_job *const *)b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A job that may still run needs its parsed config again (see srv_int.h). */
void srv_job_reparse(struct srv *s, struct srv_job *j)
{
	pai_diags *diags = NULL;
	char *path = NULL, *text = NULL;
	size_t len = 0;

	if (j->pj)
		return;
	path = srv_printf("%s/config.json", j->dir);
	if (path && pai_diags_new(&diags) == PAI_OK &&
	    pai_file_read(&text, &len, NULL, path) == PAI_OK)
		pai_job_parse(&j->pj, diags, "config.json", text, len, NULL);
	if (!j->pj) {
		srv_log(s,
			"'%s': cannot read its config again; marking it "
			"FAILED",
			j->key);
		j->state = ST_FAILED;
		j->completed = srv_now_ms();
		free(j->diag);
		j->diag = strdup("the local cluster could not read the job's "
				 "config again after a restart");
		j->dirty = true;
	}
	free(text);
	free(path);
	pai_diags_free(diags);
}

/* The last whole record of each job in records.log, by job key; NULL
 * when it exists and cannot be read (the server must not start then:
 * its jobs would run again). */
static json_t *read_records(struct srv *s)
{
	json_t *by_key = json_object();
	char *text = NULL, *p, *nl;
	size_t len = 0;
	int err;

	if (!by_key)
		return NULL;
	err = pai_file_read(&text, &len, NULL, s->rec_path);
	if (err == PAI_ENOTFOUND)
		return by_key;
	if (err != PAI_OK) {
		srv_log(s, "cannot read '%s': %s", s->rec_path,
			pai_strerror(err));
		json_decref(by_key);
		return NULL;
	}
	for (p = text; (nl = memchr(p, '\n', len - (size_t)(p - text)));
	     p = nl + 1) {
		json_t *rec = json_loadb(p, (size_t)(nl - p), 0, NULL);
		const char *u = json_string_value(json_object_get(rec, "user"));
		const char *n = json_string_value(json_object_get(rec, "name"));
		char *key = u && n ? srv_printf("%s~%s", u, n) : NULL;

		if (key && json_object_set(by_key, key, rec) < 0)
			err = PAI_ENOMEM;
		else if (!key && (rec || nl > p))
			srv_log(s, "'%s': ignoring a line that is no job's "
				   "record",
				s->rec_path);
		free(key);
		json_decref(rec);
	}
	/* an incomplete last line: a write cut short; the job keeps the
	 * record before it */
	free(text);
	if (err != PAI_OK) {
		srv_log(s, "cannot read '%s': %s", s->rec_path,
			pai_strerror(err));
		json_decref(by_key);
		return NULL;
	}
	return by_key;
}

/* Keeps a record that was read and not loaded, to be written again as
 * it was by every rewrite of the log: dropping it would make its job
 * look never started, and run it again. */
static void keep_unloaded(struct srv *s, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT), *v;
	size_t len = text ? strlen(text) : 0;

	v = text ? realloc(s->unloaded, s->unloaded_len + len + 1) : NULL;
	if (v) {
		memcpy(v + s->unloaded_len, text, len);
		v[s->unloaded_len + len] = '\n';
		s->unloaded = v;
		s->unloaded_len += len + 1;
	}
	free(text);
}

/* Whether any attempt of the job in dir was begun. */
static bool has_attempt(const char *dir)
{
	char *p = srv_printf("%s/attempt-0", dir);
	bool yes = p && access(p, F_OK) == 0;

	free(p);
	return yes;
}

/* The entry name of the jobs directory: a job, from its record in
 * records (or an earlier layout's job.json, or its config alone), or an
 * unfinished submission to remove. */
static void load_entry(struct srv *s, json_t *records, const char *name)
{
	char *dir = NULL, *path = NULL;
	json_t *rec = NULL;
	struct srv_job *j = NULL;
	bool from_log;

	if (name[0] == '.') {
		/* an unfinished submission (never acknowledged), or a
		 * deleted job's files not yet removed */
		if ((strncmp(name, ".new-", 5) == 0 ||
		     strncmp(name, ".del-", 5) == 0) &&
		    (dir = srv_printf("%s/%s", s->jobs_dir, name)))
			srv_rmtree(dir);
		free(dir);
		return;
	}
	dir = srv_printf("%s/%s", s->jobs_dir, name);
	path = srv_printf("%s/job.json", dir ? dir : "");
	rec = json_incref(json_object_get(records, name));
	from_log = rec != NULL;
	if (!rec && dir && path)
		rec = json_load_file(path, 0, NULL);
	if (!rec && dir && path && access(path, F_OK) < 0 && errno == ENOENT &&
	    !has_attempt(dir)) {
		if (job_from_config(&j, dir, name) < 0)
			j = NULL;
	} else if (rec && job_from_record(&j, rec, dir) < 0)
		j = NULL;
	if (j && !from_log && rec)
		j->legacy = true;
	/* its config was in the record (restore_config): the next
	 * rewrite syncs config.json */
	if (j && from_log && json_is_string(json_object_get(rec, "config")))
		j->cfg_pending = true;
	if (!j || strcmp(j->key, name) != 0 || append_job(s, j) < 0) {
		srv_log(s, "ignoring '%s': unreadable job record",
			dir ? dir : name);
		if (from_log)
			keep_unloaded(s, rec);
		srv_job_free(j);
	}
	json_decref(rec);
	free(dir);
	free(path);
}

/* The config that a job's record carries, put back in its directory
 * where a crash lost it (or some of it): the record is what made the
 * submission durable (srv_add_job). */
static void restore_config(struct srv *s, const char *key, json_t *rec)
{
	json_t *c = json_object_get(rec, "config");
	const char *u = json_string_value(json_object_get(rec, "user"));
	const char *n = json_string_value(json_object_get(rec, "name"));
	char *dir = NULL, *path = NULL, *text = NULL;
	size_t len = 0;
	long long mtime;

	if (!json_is_string(c) || !u || !n || !srv_safe_name(u) ||
	    !srv_safe_name(n) || strchr(u, '~') ||
	    !(dir = srv_printf("%s/%s", s->jobs_dir, key)) ||
	    !(path = srv_printf("%s/config.json", dir)))
		goto out;
	if (pai_file_read(&text, &len, NULL, path) == PAI_OK &&
	    len == json_string_length(c) &&
	    memcmp(text, json_string_value(c), len) == 0)
		goto out;
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) ||
	    write_file(path, json_string_value(c), json_string_length(c),
		       true, &mtime) < 0)
		srv_log(s, "cannot restore '%s': %s", path, strerror(errno));
	else
		srv_log(s, "'%s': its config restored from its record", key);
out:
	free(text);
	free(path);
	free(dir);
}

/* restore_config of every job's record. */
static void restore_configs(struct srv *s, json_t *records)
{
	const char *key;
	json_t *rec;

	json_object_foreach(records, key, rec)
	{
		restore_config(s, key, rec);
	}
}

int srv_load_jobs(struct srv *s)
{
	DIR *d = opendir(s->jobs_dir);
	json_t *records;
	struct dirent *e;

	if (!d)
		return -1;
	records = read_records(s);
	if (!records) {
		closedir(d);
		return -2;
	}
	/* a rewrite cut short by a crash */
	srv_remove_temps(s->state_dir, ".records.log.");
	restore_configs(s, records);
	/* written anew: no torn line to append after, and the records of
	 * an earlier layout (job.json per job) folded in */
	s->rec_compact = true;
	while ((e = readdir(d)))
		load_entry(s, records, e->d_name);
	closedir(d);
	json_decref(records);
	if (s->njobs)
		qsort(s->jobs, s->njobs, sizeof(*s->jobs), by_created);
	return 0;
}
