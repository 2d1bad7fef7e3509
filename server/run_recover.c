/* run_recover.c - the tasks of an earlier server: a restarted server
 * takes back the running ones (their ports, the resources their job
 * holds, their monitors found again by the pids in `status`) and, as
 * their monitors are not its children, learns of their end by reading
 * `status` again (srv_poll_adopted, from the main loop) */
#include "run_int.h"
#include "runtime.h"

#include <signal.h>
#include <stdlib.h>

/* The monitor's pid and start time, from the status it wrote. */
static void read_pid_file(struct srv_job *j, struct srv_task *t)
{
	char *dir = srv_task_dir(j, t);
	struct run_status st;

	if (dir && (run_read_status(dir, &st) & STATUS_PID) && st.mon > 1) {
		t->monitor = (pid_t)st.mon;
		t->mon_start = st.start;
	}
	free(dir);
}

/* A task whose monitor an earlier server forked as it stopped (or was
 * killed) has no line 1 in its status yet when this server starts: the
 * monitor, now init's, still starts it. Taken for never started, it
 * would run on, unstoppable; so this server waits for line 1 (then
 * adopts the monitor it names) until START_WAIT_MS after its own start,
 * by when any monitor forked before has written it, however loaded the
 * machine (one takes a few ms). */
#define START_WAIT_MS 10000

/* t's monitor from its status, found late; false while none is named.
 * A job stopping meanwhile has it stop too. */
static bool found_late(struct srv *s, struct srv_job *j, struct srv_task *t)
{
	read_pid_file(j, t);
	if (!t->monitor)
		return false;
	srv_log(s, "'%s': task %s-%zu: its monitor (pid %ld) found after "
		   "this start; adopted",
		j->key, j->roles[t->role].name, t->index, (long)t->monitor);
	if ((j->stop || j->deciding) && run_monitor_alive(t)) {
		kill(t->monitor, SIGTERM);
		if (!j->kill_at)
			j->kill_at = srv_now_ms() + s->opt.grace_ms;
	}
	return true;
}

/* True while t's status names no monitor and one forked before this
 * server started may still write it (until s->adopt_until). */
static bool monitor_awaited(struct srv *s, struct srv_job *j,
			    struct srv_task *t)
{
	return !t->monitor && !found_late(s, j, t) &&
	       srv_now_ms() < s->adopt_until;
}

/* Tasks of an earlier server: their monitor is not our child, so its
 * status file is the only news. */
void srv_poll_adopted(struct srv *s)
{
	size_t i, k;

	for (i = 0; i < s->njobs; i++) {
		struct srv_job *j = s->jobs[i];

		for (k = 0; j->state == ST_RUNNING && k < j->ntasks; k++) {
			struct srv_task *t = &j->tasks[k];
			struct run_status st;
			char *dir;
			bool done;

			if (t->state != ST_RUNNING || !t->adopted ||
			    monitor_awaited(s, j, t))
				continue;
			dir = srv_task_dir(j, t);
			done = dir && (run_read_status(dir, &st) & STATUS_EXIT);
			free(dir);
			if (done || !run_monitor_alive(t))
				run_task_ended(
				    s, j, t,
				    done ? NULL
				    : t->monitor
					? "the task's monitor vanished "
					  "while the local cluster was "
					  "down; its outcome is unknown"
					: "the local cluster stopped "
					  "while starting the task");
		}
	}
}

/* Takes back the running tasks of j, started by an earlier server. */
static void recover_job(struct srv *s, struct srv_job *j)
{
	size_t k, n;

	for (k = 0; k < j->ntasks; k++) {
		struct srv_task *t = &j->tasks[k];

		if (t->state == ST_RUNNING) {
			t->adopted = true;
			if (!t->monitor)
				read_pid_file(j, t);
			for (n = 0; n < j->roles[t->role].nports; n++)
				run_port_mark(s, t->ports[n], true);
		}
	}
	run_rehold(s, j);
	srv_log(s, "'%s': re-adopting %zu running task%s", j->key,
		run_live_tasks(j), run_live_tasks(j) == 1 ? "" : "s");
	if (j->stop || j->deciding) {
		run_signal_tasks(j, SIGTERM);
		j->kill_at = srv_now_ms() + s->opt.grace_ms;
	}
	srv_poll_adopted(s);
	if (j->state == ST_RUNNING && !run_live_tasks(j))
		run_attempt_over(s, j);
}

void srv_resume_jobs(struct srv *s)
{
	size_t i;

	s->adopt_until = srv_now_ms() + START_WAIT_MS;
	for (i = 0; i < s->njobs; i++) {
		struct srv_job *j = s->jobs[i];

		if (j->state == ST_WAITING || j->state == ST_RUNNING)
			srv_job_reparse(s, j);
		if (j->state == ST_RUNNING)
			recover_job(s, j);
	}
	/* what ran for tasks that no longer run (a container) goes */
	if (s->rt && s->rt->sweep)
		s->rt->sweep(s);
}
