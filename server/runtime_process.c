/* runtime_process.c - the process runtime: each task is `bash -c
 * COMMAND` on this machine, as the server's user, not in the job's
 * image (srv_note_job says so once per job); an ssh login is a shell
 * here, in the task's working directory */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

static int process_open(struct srv *s, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	srv_log(s, "tasks run as processes on this machine, not in their "
		   "image");
	return 0;
}

/* rt_data: what would run tasks in their image (podman's open said),
 * when the process runtime was not asked for by name */
static void process_close(struct srv *s)
{
	free(s->rt_data);
	s->rt_data = NULL;
}

static const char *process_not_in_image(const struct srv *s)
{
	return s->rt_data ? (const char *)s->rt_data
			  : "the local cluster's --runtime is process";
}

static const char *process_task(struct srv *s, const struct rt_task_in *in,
				struct rt_task *rt)
{
	const char *argv[] = {"bash", "-c", in->cmd};

	rt->prog = s->bash;
	rt->argv = rt_strv(argv, 3);
	return rt->argv ? NULL : "out of memory";
}

/* The session starts in $PAI_WORK_DIR; only variable references in the
 * command, which the login's shell expands, no value of ours. */
static char *process_ssh_options(struct srv *s, const struct srv_job *j,
				 const struct srv_task *t)
{
	(void)s;
	(void)j;
	(void)t;
	return strdup("command=\"cd \\\"$PAI_WORK_DIR\\\" || exit 1; "
		      "if [ -n \\\"$SSH_ORIGINAL_COMMAND\\\" ]; then "
		      "exec bash -c \\\"$SSH_ORIGINAL_COMMAND\\\"; "
		      "else exec bash -l; fi\" ");
}

const struct srv_runtime rt_process = {
    .name = "process",
    .open = process_open,
    .close = process_close,
    .task = process_task,
    .ended = NULL,
    .sweep = NULL,
    .ssh_options = process_ssh_options,
    .not_in_image = process_not_in_image,
};
