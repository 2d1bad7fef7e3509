/* run_helper.c - the programs a task's monitor runs besides the task,
 * for a runtime that stops and removes a task through its own commands
 * (`podman kill`, `podman rm`: struct run_spawn's stop and end). Under
 * run_monitor.c's rule: after fork, async-signal-safe calls only. */
#include "run_int.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void run_reset_signals(const sigset_t *set)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (!set || sigismember(set, sig) == 1)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

pid_t run_helper_start(const struct run_spawn *sp, char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		dup2(sp->fd_null, 0);
		dup2(sp->fd_null, 1);
		dup2(sp->fd_null, 2);
		run_reset_signals(sp->sig_set);
		execve(argv[0], argv, sp->envp);
		_exit(127);
	}
	return pid;
}

void run_helper_run(const struct run_spawn *sp, char *const argv[], int ms)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	pid_t pid = run_helper_start(sp, argv), w;
	int st;

	if (pid < 0)
		return;
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 ||
	       (w < 0 && errno == EINTR)) {
		if (w == 0 && (ms -= 10) < 0) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return;
		}
		nanosleep(&tick, NULL);
	}
}
