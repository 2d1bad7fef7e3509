/* k8s_exec.c - `paictl ssh JOB ROLE INDEX [-- COMMAND]` on Kubernetes: the
 * command (or a login shell) in the task's pod through the API server's
 * exec (§7), over kube_exec.c's WebSocket, with the same credential as
 * every request. A terminal gets the window's size and its changes; the
 * remote exit status is the result. The command line goes to the
 * container's sh as given, as ssh hands a command line to the remote
 * shell. */
#include "k8s_api.h"

#include <stdlib.h>
#include <string.h>

/* How long pump waits before looking at the window and Ctrl-C. */
#define PUMP_MS 200

/* Without a command: the login shell the image has. */
static const char shell[] = "if command -v bash >/dev/null 2>&1; then exec "
			    "bash -l; fi; exec sh -l";

/* The exec's failure (a refusal's Status, or the connection's) as the
 * client's detail. */
static int exec_failed(pai_client *c, int err, const pai__kube_status *st,
		       const pai__kube_err *e)
{
	if (st->message && *st->message)
		return pai__client_fail(c, err, st->http, st->reason, "%s",
					st->message);
	return pai__client_fail(c, err, st->http, NULL, "%s",
				e->msg[0] ? e->msg : pai_strerror(err));
}

/* The session opened on task's pod. */
static int open_exec(pai__kube_exec **x, pai_client *c, const pai_job_info *job,
		     const pai_task_info *task, const pai_exec_options *o)
{
	long i = task - pai_job_info_task(job, 0);
	json_t *t = pai_job_info_task_json(job, i < 0 ? (size_t)-1 : (size_t)i);
	const char *argv[3] = {"sh", "-c", o->command ? o->command : shell};
	pai__kube_exec_opts eo;
	pai__kube_status st;
	pai__kube_err e;
	int err;

	memset(&eo, 0, sizeof(eo));
	e.msg[0] = '\0';
	eo.pod = pai__json_str(t, "containerId"); /* set once the pod is */
	if (!eo.pod)
		return pai__client_fail(c, PAI_ENOTFOUND, 0, NULL,
					"task %s-%ld has no pod", task->role,
					task->index);
	eo.container = pai__json_str(t, "containerName");
	eo.command = argv;
	eo.ncommand = 3;
	eo.use_stdin = o->in_fd >= 0;
	eo.use_stdout = 1;
	eo.use_stderr = !o->tty; /* a terminal merges it */
	eo.tty = o->tty;
	eo.connect_timeout_ms = c->connect_timeout_ms;
	eo.trace = c->trace;
	eo.trace_data = c->trace_data;
	err = pai__kube_exec_open(x, pai__k8s_of(c)->cfg, pai__k8s_of(c)->cred,
				  &eo, &st, &e);
	if (err)
		err = err == PAI_ENOMEM ? pai__client_oom(c)
					: exec_failed(c, err, &st, &e);
	pai__kube_status_release(&st);
	return err;
}

/* The window's size, sent now (a terminal's first, and after SIGWINCH). */
static int resize(pai_client *c, pai__kube_exec *x, const pai_exec_options *o)
{
	unsigned cols = o->cols, rows = o->rows;
	pai__kube_err e;

	if (o->window_size)
		o->window_size(o->data, &cols, &rows);
	if (pai__kube_exec_resize(x, cols, rows, &e))
		return pai__client_fail(c, PAI_EUNREACHABLE, 0, NULL, "%s",
					e.msg);
	return PAI_OK;
}

/* Moves the session's data until it ends: 1 over, 2 closed by
 * on_input, or an error. */
static int pump(pai_client *c, pai__kube_exec *x, const pai_exec_options *o)
{
	pai__kube_exec_io io = {o->in_fd, o->out_fd, o->err_fd, o->on_input,
				o->data};
	pai__kube_err e;
	int ret;

	for (;;) {
		e.msg[0] = '\0';
		ret = pai__kube_exec_pump(x, &io, PUMP_MS, &e);
		if (ret == 1 || ret == 2)
			return ret;
		if (ret != 0 && ret != PAI_EINTR)
			return ret == PAI_ENOMEM
				   ? pai__client_oom(c)
				   : pai__client_fail(c, ret, 0, NULL, "%s",
						      e.msg);
		if (c->interrupt && *c->interrupt)
			return pai__client_fail(c, PAI_EINTR, 0, NULL,
						"interrupted");
		if (o->tty && o->resized && *o->resized) {
			*o->resized = 0;
			if ((ret = resize(c, x, o)))
				return ret;
		}
	}
}

int pai__k8s_task_exec(int *exit_status, const struct pai__api *api,
		       pai_client *c, const pai_job_info *job,
		       const pai_task_info *task, const pai_exec_options *o)
{
	pai__kube_exec *x = NULL;
	pai__kube_err e;
	int err;

	(void)api;
	if ((err = open_exec(&x, c, job, task, o)))
		return err;
	if (o->tty && (err = resize(c, x, o)))
		goto out;
	err = pump(c, x, o);
	if (err == 2) { /* "~." */
		err = PAI_OK;
		goto out;
	}
	if (err != 1)
		goto out;
	e.msg[0] = '\0';
	err = pai__kube_exec_result(x, exit_status, &e);
	if (err)
		err = pai__client_fail(c, err, 0, NULL, "%s", e.msg);
out:
	pai__kube_exec_free(x);
	return err;
}
