/* run_end.c - how tasks and attempts end: a monitor reaped and its
 * task's exit status read, the roles' completion policy applied
 * (minFailedTaskCount, minSucceededTaskCount), the other tasks then
 * stopped through their monitors (SIGTERM, and SIGKILL after the
 * grace), and the attempt over: the job ends, or retries. A STOP ends
 * a job the same way. */
#include "run_int.h"
#include "runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

size_t run_live_tasks(const struct srv_job *j)
{
	size_t i, n = 0;

	for (i = 0; i < j->ntasks; i++)
		n += j->tasks[i].state == ST_RUNNING;
	return n;
}

/* SIGTERM or SIGKILL to every running task, through its monitor. A
 * monitor of an earlier server is signalled only if it is still the
 * same process (its pid could have been reused). */
void run_signal_tasks(struct srv_job *j, int sig)
{
	size_t i;

	for (i = 0; i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];

		if (t->state != ST_RUNNING || t->monitor <= 0 ||
		    (t->adopted && !run_monitor_alive(t)))
			continue;
		kill(t->monitor, sig == SIGKILL ? SIGINT : SIGTERM);
	}
}

static void reset_attempt(struct srv *s, struct srv_job *j)
{
	size_t i;

	for (i = 0; i < j->ntasks; i++) {
		struct srv_task *t = &j->tasks[i];

		run_task_ports_release(s, j, t);
		memset(t->ports, 0,
		       j->roles[t->role].nports * sizeof(*t->ports));
		t->state = ST_WAITING;
		t->exit_code = -1;
		t->monitor = 0;
		t->mon_start = 0;
		t->adopted = false;
		t->started = t->completed = 0;
		t->gpus = 0;
		srv_task_set_diag(t, NULL);
	}
}

/* Every task of the attempt has ended: the job ends, or retries. */
void run_attempt_over(struct srv *s, struct srv_job *j)
{
	int outcome = j->stop	    ? ST_STOPPED
		      : j->deciding ? j->outcome
				    : ST_SUCCEEDED;

	j->deciding = false;
	j->kill_at = 0;
	run_release(s, j);
	srv_wake(s); /* what it held may start a waiting job */
	if (outcome == ST_SUCCEEDED && j->exit_code < 0)
		j->exit_code = 0;
	if (outcome == ST_FAILED && j->retries < j->retry_count) {
		srv_log(s, "'%s': attempt %d failed; retrying (%d of %d)",
			j->key, j->attempt, j->retries + 1, j->retry_count);
		j->retries++;
		j->attempt++;
		j->state = ST_WAITING;
		j->exit_code = -1;
		j->trigger_index = -1;
		free(j->trigger_role);
		j->trigger_role = NULL;
		free(j->diag);
		j->diag = NULL;
		reset_attempt(s, j);
		j->dirty = true;
		srv_wake(s);
		return;
	}
	j->state = outcome;
	j->completed = srv_now_ms();
	pai_job_free(j->pj);
	j->pj = NULL;
	j->dirty = true;
	srv_log(s, "'%s': %s", j->key, srv_state_name(outcome));
}

static void decide(struct srv *s, struct srv_job *j, int outcome,
		   const struct srv_task *t, const char *why)
{
	j->deciding = true;
	j->outcome = outcome;
	j->exit_code = t ? t->exit_code : 0;
	free(j->trigger_role);
	j->trigger_role = t ? strdup(j->roles[t->role].name) : NULL;
	j->trigger_index = t ? (long)t->index : -1;
	free(j->diag);
	j->diag = why ? strdup(why) : NULL;
	if (run_live_tasks(j)) {
		run_signal_tasks(j, SIGTERM);
		j->kill_at = srv_now_ms() + s->opt.grace_ms;
	}
}

/* Applies the roles' completion policy after task t ended. */
void run_evaluate(struct srv *s, struct srv_job *j, struct srv_task *t)
{
	const struct srv_role *r = &j->roles[t->role];
	long long failed = 0, succeeded = 0;
	size_t i;
	char why[1536];

	j->dirty = true;
	if (!j->stop && !j->deciding) {
		for (i = 0; i < j->ntasks; i++) {
			if (j->tasks[i].role != t->role)
				continue;
			failed += j->tasks[i].state == ST_FAILED;
			succeeded += j->tasks[i].state == ST_SUCCEEDED;
		}
		if (r->min_failed >= 0 && failed >= r->min_failed) {
			/* the task's own words (podman's, say) after */
			snprintf(
			    why, sizeof(why),
			    "%lld task%s of role '%s' failed "
			    "(minFailedTaskCount %lld); last: %s-%zu exited "
			    "with %d%s%s",
			    failed, failed == 1 ? "" : "s", r->name,
			    r->min_failed, r->name, t->index, t->exit_code,
			    t->diag ? ": " : "", t->diag ? t->diag : "");
			decide(s, j, ST_FAILED, t, why);
		} else if (r->min_succeeded >= 0 &&
			   succeeded >= r->min_succeeded) {
			snprintf(why, sizeof(why),
				 "%lld task%s of role '%s' succeeded "
				 "(minSucceededTaskCount %lld)",
				 succeeded, succeeded == 1 ? "" : "s", r->name,
				 r->min_succeeded);
			decide(s, j, ST_SUCCEEDED, t, why);
		}
	}
	if (!run_live_tasks(j))
		run_attempt_over(s, j);
}

/* Task t's monitor is gone; its status says how the task ended. */
void run_task_ended(struct srv *s, struct srv_job *j, struct srv_task *t,
		    const char *lost)
{
	char *dir = srv_task_dir(j, t);
	struct run_status st;
	int code = -1, got = dir ? run_read_status(dir, &st) : 0;

	/* a monitor that ended well removed its own cgroup, or left the
	 * server's empty for the next task; a killed one could not */
	if (t->cg_slot)
		srv_pool_give_back(s, t->cg_slot);
	else if (t->monitor > 0)
		srv_tree_forget(s->tree_base, t->monitor, t->mon_start,
				got & STATUS_PID ? st.cgroup : NULL);
	t->cg_slot = 0;
	t->completed = srv_now_ms();
	t->monitor = 0;
	if (got & STATUS_EXIT)
		code = st.code;
	if (code >= 0) {
		t->exit_code = code;
		if (code == 0)
			t->state = ST_SUCCEEDED;
		else if (j->stop || j->deciding)
			t->state = ST_STOPPED;
		else
			t->state = ST_FAILED;
	} else {
		t->exit_code = code;
		t->state = j->stop || j->deciding ? ST_STOPPED : ST_FAILED;
		srv_task_set_diag(t, code == -1 && !lost
					 ? "the task could not be started"
				     : lost ? lost
					    : "the task's monitor died");
	}
	free(dir);
	if (s->rt && s->rt->ended)
		s->rt->ended(s, j, t, code);
	run_task_ports_release(s, j, t);
	run_evaluate(s, j, t);
}

void srv_reap(struct srv *s)
{
	pid_t pid;
	int st;
	size_t i, k;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (run_forker_reaped(s, pid))
			continue; /* and said so */
		for (i = 0; i < s->njobs; i++) {
			struct srv_job *j = s->jobs[i];

			if (j->state != ST_RUNNING)
				continue;
			for (k = 0; k < j->ntasks; k++)
				if (j->tasks[k].monitor == pid &&
				    !j->tasks[k].adopted &&
				    j->tasks[k].state == ST_RUNNING)
					break;
			if (k < j->ntasks) {
				run_task_ended(s, j, &j->tasks[k],
					       WIFEXITED(st) &&
						       WEXITSTATUS(st) ==
							   MONITOR_NO_DIR
						   ? "cannot create the task's "
						     "directory"
						   : NULL);
				break;
			}
		}
	}
}

int srv_stop_job(struct srv *s, struct srv_job *j, const char *why)
{
	if (j->state != ST_WAITING && j->state != ST_RUNNING)
		return 0;
	if (j->stop)
		return 0;
	j->stop = true;
	j->dirty = true;
	free(j->diag);
	j->diag = strdup(why);
	srv_log(s, "'%s': stopping", j->key);
	if (j->state == ST_WAITING || !run_live_tasks(j)) {
		run_release(s, j);
		j->state = ST_STOPPED;
		j->completed = srv_now_ms();
		pai_job_free(j->pj);
		j->pj = NULL;
		return 0;
	}
	run_signal_tasks(j, SIGTERM);
	j->kill_at = srv_now_ms() + s->opt.grace_ms;
	return 0;
}

void srv_check_deadlines(struct srv *s)
{
	long long now = srv_now_ms();
	size_t i;

	for (i = 0; i < s->njobs; i++) {
		struct srv_job *j = s->jobs[i];

		if (j->state == ST_RUNNING && j->kill_at && now >= j->kill_at) {
			run_signal_tasks(j, SIGKILL);
			j->kill_at = 0;
		}
	}
}
