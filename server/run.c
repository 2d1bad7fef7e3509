/* run.c - the local cluster's task runner: which waiting job starts
 * (srv_schedule; first in, first out under --capacity), its attempt
 * begun (ports taken, the RUNNING record to be written) and then, once
 * that record is on disk, launched (srv_launch).
 *
 * Every task runs under a monitor: a child of the server, forked by its
 * forker (run_forker.c) or by the server itself, never exec'd (it uses
 * only async-signal-safe calls), that starts
 * `bash -c "$command"` in its own process group, copies the task's
 * stdout and stderr into user.pai.stdout, user.pai.stderr and
 * user.pai.all (each made with its first byte), and writes its pid,
 * then the exit status to `status` (synced once its server is gone).
 * The monitor is in its own session, so it outlives a killed server:
 * no log line is lost, and the next server re-adopts the task by
 * watching that file. The server reaps monitors (SIGCHLD) and decides
 * job states, in the main thread with the lock held; records are
 * written without it (srv_flush), and a begun attempt's tasks are
 * forked only once its record is on disk (srv_launch).
 *
 * The runner's files, an idea each, from the bottom up (run_int.h
 * holds what they share; tree.c, every process of a task):
 *   run_ports.c      the tasks' ports
 *   run_place.c      where an attempt's tasks are, for pai_expand_task
 *   run_monitor.c    the monitor, after fork: async-signal-safe only
 *   run_status.c     what a monitor tells: `status`, /proc/PID/stat
 *   run_resources.c  --capacity's admission, a job's warnings
 *   run_forker.c     the process that forks the monitors
 *   run_spawn.c      a task started: its monitor forked
 *   run_end.c        reaping, the completion policy, stops, retries
 *   run_recover.c    an earlier server's tasks taken back
 *   run.c            scheduling and launching
 */
#include "run_int.h"

#include <stdlib.h>
#include <string.h>

/* Takes j's next attempt: ports chosen, job and tasks RUNNING. Its
 * record is written (srv_flush) before srv_launch forks anything: a
 * server killed while starting tasks must not start them again after
 * a restart. */
static void begin_attempt(struct srv *s, struct srv_job *j)
{
	size_t i, k;

	for (i = 0; i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];
		const struct srv_role *r = &j->roles[t->role];
		pai_port pp;
		size_t n, off = 0;

		for (k = 0; k < r->nlabels; k++) {
			if (pai_job_port(&pp, j->pj, t->role, k) != PAI_OK)
				pp.begin_at = 0;
			for (n = 0; n < r->counts[k]; n++, off++)
				t->ports[off] = run_port_take(
				    s, pp.begin_at > 0
					   ? pp.begin_at + (long long)n
					   : 0);
		}
		t->state = ST_RUNNING;
		t->monitor = 0;
	}
	j->state = ST_RUNNING;
	if (!j->launched)
		j->launched = srv_now_ms();
	j->launching = true;
	j->dirty = true;
	srv_log(s, "'%s': attempt %d: starting %zu task%s", j->key, j->attempt,
		j->ntasks, j->ntasks == 1 ? "" : "s");
}

/* Starts the tasks of an attempt begun and recorded. A STOP that came
 * meanwhile found no monitor to signal: the tasks never start. */
static void launch_attempt(struct srv *s, struct srv_job *j)
{
	pai_expand_options eo;
	pai_placement pm;
	struct run_place pl;
	size_t i;
	int attempt = j->attempt;

	j->launching = j->launch_recorded = false;
	if (j->stop) {
		for (i = 0; i < j->ntasks; i++) {
			j->tasks[i].state = ST_STOPPED;
			j->tasks[i].completed = srv_now_ms();
			run_task_ports_release(s, j, &j->tasks[i]);
		}
		run_attempt_over(s, j);
		return;
	}
	memset(&pl, 0, sizeof(pl));
	if (run_place_init(&pl, s, j, &pm, &eo) == 0)
		for (i = 0; i < j->ntasks; i++)
			run_spawn_task(s, j, &j->tasks[i], &pl, &eo);
	/* A task that could not start counts as failed at once. */
	for (i = 0; i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];

		if (t->state == ST_RUNNING && !t->monitor) {
			t->state = ST_FAILED;
			t->completed = srv_now_ms();
			srv_task_set_diag(t, "the task could not be started");
		}
		if (t->state == ST_FAILED)
			run_task_ports_release(s, j, t);
	}
	for (i = 0; i < j->ntasks && j->state == ST_RUNNING &&
		    j->attempt == attempt;
	     i++)
		if (j->tasks[i].state == ST_FAILED)
			run_evaluate(s, j, &j->tasks[i]);
	run_place_free(&pl);
}

void srv_schedule(struct srv *s)
{
	size_t i;
	int started = 0;

	for (i = 0; i < s->njobs; i++) {
		struct srv_job *j = s->jobs[i];
		int r;

		if (j->state != ST_WAITING || j->stop || !j->pj)
			continue;
		if (s->capped) {
			r = j->holds ? 1 : run_admit(s, j);
			if (r < 0) {
				long long c, m, g;

				run_job_request(j, &c, &m, &g);
				j->state = ST_FAILED;
				j->completed = srv_now_ms();
				free(j->diag);
				j->diag = srv_printf(
				    "the job asks for %lld CPUs, %lld MB "
				    "and %lld GPUs, more than the local "
				    "cluster's --capacity of %lld CPUs, "
				    "%lld MB and %lld GPUs",
				    c, m, g, s->cap_cpus, s->cap_mem_mb,
				    s->cap_gpus);
				pai_job_free(j->pj);
				j->pj = NULL;
				j->dirty = true;
				srv_log(s, "'%s': FAILED: %s", j->key,
					j->diag ? j->diag : "too big");
				continue;
			}
			if (r == 0)
				break; /* first in, first out */
		} else
			srv_note_job(s, j);
		/* a few at a time: srv_launch holds the lock */
		if (started++ == 4) {
			srv_wake(s);
			break;
		}
		begin_attempt(s, j);
	}
}

long srv_next_timeout(struct srv *s)
{
	long long now = srv_now_ms(), t = 1000;
	size_t i, k;

	for (i = 0; i < s->njobs; i++) {
		struct srv_job *j = s->jobs[i];

		if (j->state != ST_RUNNING)
			continue;
		if (j->kill_at && j->kill_at - now < t)
			t = j->kill_at - now;
		for (k = 0; k < j->ntasks; k++)
			if (j->tasks[k].adopted &&
			    j->tasks[k].state == ST_RUNNING && t > 200)
				t = 200;
	}
	return t < 0 ? 0 : (long)t;
}

/* Starts the tasks of the attempts srv_schedule began, once their
 * RUNNING records are written (srv_flush says so); an attempt whose
 * record could not be written waits for the next try. Lock held. */
void srv_launch(struct srv *s)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i]->launching && s->jobs[i]->launch_recorded)
			launch_attempt(s, s->jobs[i]);
}
