/* wait.c - waiting for a job to end, for wait, submit --wait and stop
 * --wait: ask the cluster, decide on its answer, sleep until the next
 * poll; the progress on stderr meanwhile */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Polling: about 1 s at first, growing to 15 s, with some jitter so that
 * scripts started together do not poll together. */
#define POLL_FIRST_MS 1000
#define POLL_MAX_MS   15000

/* "3 tasks: 1 running, 2 succeeded" */
static void task_summary(char *buf, size_t len, const pai_job_info *info)
{
	static const pai_state order[] = {
	    PAI_STATE_WAITING,	 PAI_STATE_RUNNING, PAI_STATE_STOPPING,
	    PAI_STATE_SUCCEEDED, PAI_STATE_FAILED,  PAI_STATE_STOPPED,
	    PAI_STATE_UNKNOWN};
	size_t counts[7] = {0}, i, k, off, n = pai_job_info_task_count(info);
	const char *sep = ": ";

	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);

		for (k = 0; k < 7; k++)
			if (t && t->state == order[k])
				counts[k]++;
	}
	off = (size_t)snprintf(buf, len, "%zu task%s", n, n == 1 ? "" : "s");
	for (k = 0; k < 7 && off < len; k++) {
		const char *s = pai_state_name(order[k]);
		char name[16];
		size_t j;

		if (!counts[k])
			continue;
		for (j = 0; s[j] && j + 1 < sizeof(name); j++)
			name[j] =
			    (char)(s[j] >= 'A' && s[j] <= 'Z' ? s[j] - 'A' + 'a'
							      : s[j]);
		name[j] = '\0';
		off += (size_t)snprintf(buf + off, len - off, "%s%zu %s", sep,
					counts[k], name);
		sep = ", ";
	}
}

struct progress {
	int tty;
	char last[512];
	long long start;
	const char *label;
};

static void show(const cli_ctx *ctx, struct progress *p, const char *state,
		 const char *tasks, int final)
{
	char line[512];
	long long secs = (cli_now_ms() - p->start) / 1000;

	if (ctx->quiet)
		return;
	/* what stdout holds goes first: when both reach one terminal or
	 * file, a result never runs into a progress line */
	fflush(stdout);
	snprintf(line, sizeof(line), "%s %s%s%s", p->label, state,
		 *tasks ? ", " : "", tasks);
	if (p->tty) {
		/* one line, rewritten: state, tasks, time so far */
		fprintf(stderr, "\r\033[K%s (%lld:%02lld)%s", line, secs / 60,
			secs % 60, final ? "\n" : "");
		fflush(stderr);
	} else if (strcmp(line, p->last) != 0) {
		char ts[32];
		time_t now = time(NULL);
		struct tm tm;

		if (localtime_r(&now, &tm))
			strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
		else
			snprintf(ts, sizeof(ts), "-");
		fprintf(stderr, "%s %s\n", ts, line);
	}
	snprintf(p->last, sizeof(p->last), "%s", line);
}

/* One wait for a job's end: its progress line and its pace. */
struct waiting {
	struct progress p;
	char label[300]; /* "name", or "user~name" for another's job */
	char tasks[256]; /* the last status's task_summary */
	double timeout_s;
	long long deadline; /* -1: none */
	long long now;	    /* when the last status came */
	long delay;	    /* until the next poll, before the jitter */
	int polling;	    /* the cluster cannot say when the job changes */
};

static void start_waiting(struct waiting *w, const cli_conn *conn,
			  const char *user, const char *name, double timeout_s)
{
	memset(w, 0, sizeof(*w));
	w->p.tty = isatty(STDERR_FILENO);
	w->p.start = cli_now_ms();
	if (strcmp(user, conn->user) == 0)
		snprintf(w->label, sizeof(w->label), "%s", name);
	else
		snprintf(w->label, sizeof(w->label), "%s~%s", user, name);
	w->p.label = w->label;
	w->timeout_s = timeout_s;
	w->deadline = -1;
	if (timeout_s >= 0)
		w->deadline = w->p.start + (long long)(timeout_s * 1000);
	w->delay = POLL_FIRST_MS;
	srand((unsigned)(getpid() ^ w->p.start));
}

/* Asks the cluster for the job's status (again after logging in anew,
 * when that is worth it); a libpai error code. */
static int ask(cli_ctx *ctx, cli_conn *conn, const char *user, const char *name,
	       pai_job_info **info)
{
	int err;

	do
		err = pai_job_get(info, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	return err;
}

/* Shows the status just read and decides: 0 when the job ended (*final
 * set), -1 to ask again, or EXIT_TIMEOUT after saying so. */
static int decide(const cli_ctx *ctx, struct waiting *w,
		  const pai_job_info *info, pai_state *final)
{
	pai_state state = pai_job_info_state(info);

	task_summary(w->tasks, sizeof(w->tasks), info);
	if (pai_state_is_final(state)) {
		show(ctx, &w->p, pai_state_name(state), w->tasks, 1);
		*final = state;
		return 0;
	}
	show(ctx, &w->p, pai_state_name(state), w->tasks, 0);
	w->now = cli_now_ms();
	if (w->deadline >= 0 && w->now >= w->deadline) {
		if (w->p.tty && !ctx->quiet)
			fputc('\n', stderr);
		return cli_error(ctx, EXIT_TIMEOUT,
				 "timed out after %gs; job '%s' is %s",
				 w->timeout_s, w->label, pai_state_name(state));
	}
	return -1;
}

/* Sleeps until the next poll: the delay +-10%, no later than the
 * deadline, then a longer delay for the next time. A terminal's line
 * shows the time passing. 0, or 130 after Ctrl-C. */
static int sleep_until_next(const cli_ctx *ctx, struct waiting *w,
			    const char *state)
{
	long wait, step;

	wait = w->delay +
	       (long)(w->delay / 10.0 * (2.0 * rand() / RAND_MAX - 1.0));
	if (w->deadline >= 0 && w->now + wait > w->deadline)
		wait = (long)(w->deadline - w->now);
	for (; wait > 0; wait -= step) {
		step = w->p.tty && wait > 1000 ? 1000 : wait;
		if (cli_sleep_ms(step)) {
			if (w->p.tty && !ctx->quiet)
				fputc('\n', stderr);
			return cli_error(ctx, 130, "interrupted");
		}
		if (w->p.tty && step < wait)
			show(ctx, &w->p, state, w->tasks, 0);
	}
	w->delay =
	    w->delay * 3 / 2 > POLL_MAX_MS ? POLL_MAX_MS : w->delay * 3 / 2;
	return 0;
}

/* Where the cluster says when a job changes (Kubernetes' watch), the
 * next status, waited for with no polling: *info replaced and 0; 1
 * where it cannot say (then poll); else a libpai error. A terminal's
 * line is redrawn every second meanwhile. */
static int wait_change(cli_ctx *ctx, cli_conn *conn, const char *user,
		       const char *name, struct waiting *w, pai_job_info **info)
{
	long long ms = w->p.tty ? 1000 : -1, left;
	pai_job_info *next = NULL;
	int err;

	if (w->polling)
		return 1;
	left = w->deadline < 0 ? -1 : w->deadline - cli_now_ms();
	if (left >= 0 && (ms < 0 || left < ms))
		ms = left;
	do
		err = pai_job_get_changed(&next, conn->client, user, name,
					  *info, (long)ms);
	while (err && err != PAI_ENOTSUP && cli_relogin(ctx, conn, err));
	if (err == PAI_ENOTSUP)
		w->polling = 1;
	if (err)
		return err == PAI_ENOTSUP ? 1 : err;
	pai_job_info_free(*info);
	*info = next;
	return 0;
}

int cli_wait_job(cli_ctx *ctx, cli_conn *conn, const char *user,
		 const char *name, double timeout_s, pai_state *final,
		 pai_job_info **out)
{
	struct waiting w;
	pai_job_info *info = NULL;
	int err = PAI_OK, st;

	*final = PAI_STATE_UNKNOWN;
	if (out)
		*out = NULL;
	start_waiting(&w, conn, user, name, timeout_s);
	for (;;) {
		if (!info)
			err = ask(ctx, conn, user, name, &info);
		if (err == PAI_ENOTFOUND && conn->deleted) {
			/* a stop that deletes: the job gone is its end */
			show(ctx, &w.p, "STOPPED", "", 1);
			*final = PAI_STATE_STOPPED;
			st = 0;
			break;
		}
		if (err) {
			if (w.p.tty && !ctx->quiet && w.p.last[0])
				fputc('\n', stderr);
			st = err == PAI_EINTR
				 ? cli_error(ctx, 130, "interrupted")
				 : cli_fail(ctx, conn, err,
					    "cannot get job '%s'", w.label);
			break;
		}
		st = decide(ctx, &w, info, final);
		if (st >= 0)
			break;
		if ((err = wait_change(ctx, conn, user, name, &w, &info)) != 1)
			continue;
		err = PAI_OK;
		st = sleep_until_next(ctx, &w,
				      pai_state_name(pai_job_info_state(info)));
		if (st)
			break;
		pai_job_info_free(info);
		info = NULL;
	}
	if (out && !st) {
		*out = info;
		info = NULL;
	}
	pai_job_info_free(info);
	return st;
}
