/* k8s_exec.c - `paictl ssh JOB ROLE INDEX [-- COMMAND]` on Kubernetes: the
 * command (or a login shell) in the task's pod through the API server's
 * exec (§7), over kube_exec.c's WebSocket, with the same credential as
 * every request. A terminal gets the window's size and its changes; the
 * remote exit status is the result. The command line goes to the
 * container's sh as given, as ssh hands a command line to the remote
 * shell. */
#include "k8s_api.h"
#include "client/upgrade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long pump waits before looking at the window and Ctrl-C. */
#define PUMP_MS 200

/* Without a command: the login shell the image has. */
static const char shell[] = "if command -v bash >/dev/null 2>&1; then exec "
			    "bash -l; fi; exec sh -l";

/* The exec's request (§7): one command= per word, in order; stdin,
 * stdout, stderr and tty as asked. */
static void exec_path(pai__buf *b, pai_client *c, const pai__k8s_exec_rq *rq)
{
	size_t i;

	pai__k8s_path(b, c, PAI__K8S_PODS, rq->pod, "/exec?");
	for (i = 0; i < rq->argc; i++) {
		pai__buf_puts(b, "command=");
		pai__buf_put_escaped(b, rq->argv[i]);
		pai__buf_putc(b, '&');
	}
	if (rq->container) {
		pai__buf_puts(b, "container=");
		pai__buf_put_escaped(b, rq->container);
		pai__buf_putc(b, '&');
	}
	pai__buf_printf(b, "stdin=%s&stdout=true&stderr=%s&tty=%s",
			rq->in ? "true" : "false", rq->err ? "true" : "false",
			rq->tty ? "true" : "false");
}

/* The upgrade (the client's seam: its connection, credential and
 * judge of a refusal) and its 101 checked: the channel protocol. */
static int upgrade(pai__upgraded *up, pai_client *c, const char *url)
{
	char key[25], line[64];
	const char *hdrs[5] = {"Connection: Upgrade", "Upgrade: websocket",
			       "Sec-WebSocket-Version: 13", line,
			       "Sec-WebSocket-Protocol: " PAI__KUBE_WS_PROTOCOLS};
	pai__kube_err e;
	long timeout = c->connect_timeout_ms > 0 ? c->connect_timeout_ms : 30000;
	int err;

	if (pai__kube_ws_key(key))
		return pai__client_fail(c, PAI_ERROR, 0, NULL,
					"exec: no random bytes");
	snprintf(line, sizeof(line), "Sec-WebSocket-Key: %s", key);
	if ((err = pai__upgrade(c, url, hdrs, 5, timeout, up)))
		return err;
	e.msg[0] = '\0';
	err = pai__kube_ws_check_101(up->head.upgrade_ok, up->head.accept,
				     up->head.protocol, key, &e);
	return err < 0 ? pai__client_fail(c, err, 101, NULL, "exec: %s", e.msg)
		       : err;
}

int pai__k8s_exec_open(pai__kube_exec **out, pai_client *c,
		       const pai__k8s_exec_rq *rq)
{
	pai__upgraded up;
	pai__buf path = PAI__BUF_INIT;
	char *url = NULL;
	int proto;

	*out = NULL;
	memset(&up, 0, sizeof(up));
	exec_path(&path, c, rq);
	if (path.oom || !(url = pai__url(c, path.data)))
		proto = pai__client_oom(c);
	else
		proto = upgrade(&up, c, url);
	pai__buf_release(&path);
	free(url);
	if (proto > 0 && pai__kube_exec_attach(out, &up, proto, rq->in))
		proto = pai__client_oom(c);
	pai__upgraded_release(&up);
	return proto < 0 ? proto : PAI_OK;
}

/* The session opened on task's pod. */
static int open_exec(pai__kube_exec **x, pai_client *c, const pai_job_info *job,
		     const pai_task_info *task, const pai_exec_options *o)
{
	long i = task - pai_job_info_task(job, 0);
	json_t *t = pai_job_info_task_json(job, i < 0 ? (size_t)-1 : (size_t)i);
	const char *argv[3] = {"sh", "-c", o->command ? o->command : shell};
	pai__k8s_exec_rq rq;

	memset(&rq, 0, sizeof(rq));
	rq.pod = pai__json_str(t, "containerId"); /* once there is one */
	if (!rq.pod)
		return pai__client_fail(c, PAI_ENOTFOUND, 0, NULL,
					"task %s-%ld has no pod", task->role,
					task->index);
	rq.container = pai__json_str(t, "containerName");
	rq.argv = argv;
	rq.argc = 3;
	rq.in = o->in_fd >= 0;
	rq.err = !o->tty; /* a terminal merges stderr into stdout */
	rq.tty = o->tty;
	return pai__k8s_exec_open(x, c, &rq);
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
