/* wait.c - waiting for a job to end, for wait, submit --wait and stop
 * --wait: ask the cluster, decide on its answer, then the next status
 * within the budget of pace.c (where the cluster tells of changes, it
 * holds the request until the job changes); the progress on stderr
 * meanwhile */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* "; main-0: preparing: Copying blob ..." after the summary in buf: what
 * the cluster says of the first task that has not ended (the local
 * cluster: its runtime's progress, podman pulling the image), if any */
static void task_note(char *buf, size_t len, const pai_job_info *info)
{
	size_t i, n = pai_job_info_task_count(info), off = strlen(buf);

	for (i = 0; i < n && off < len; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);
		const char *d = json_string_value(json_object_get(
		    pai_job_info_task_json(info, i), "containerDiagnostics"));

		if (!t || !d || !*d || pai_state_is_final(t->state))
			continue;
		snprintf(buf + off, len - off, "; %s-%ld: %s",
			 t->role ? t->role : "?", t->index, d);
		return;
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

/* Polling's longest pause (pace.c), and the longest a request waits
 * where the cluster tells of a job's change (on a terminal, a second:
 * the line's clock moves between answers). */
#define WAIT_MAX_MS  10000
#define PUSH_WAIT_MS 20000

/* One wait for a job's end: its progress line and its pace. */
struct waiting {
	struct progress p;
	char label[300]; /* "name", or "user~name" for another's job */
	char tasks[256]; /* the last status's task_summary */
	double timeout_s;
	long long deadline; /* -1: none */
	cli_pace pace;
	int push;  /* the cluster tells of changes (till it says no) */
	int early; /* ...but answered unchanged before its time */
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
	/* a cluster that pushes nothing but answers cheaply (Slurm) is
	 * asked often enough to see the end within two seconds */
	cli_pace_start(&w->pace, pai_client_poll_ms(conn->client) > 0
				     ? pai_client_poll_ms(conn->client)
				     : WAIT_MAX_MS);
	w->push = 1;
}

/* Shows the status just read and decides: 0 when the job ended (*final
 * set), -1 to ask again (*news: the line changed), or EXIT_TIMEOUT
 * after saying so. */
static int decide(const cli_ctx *ctx, struct waiting *w,
		  const pai_job_info *info, pai_state *final, int *news)
{
	pai_state state = pai_job_info_state(info);
	char before[512];

	snprintf(before, sizeof(before), "%s", w->p.last);
	task_summary(w->tasks, sizeof(w->tasks), info);
	if (pai_state_is_final(state)) {
		show(ctx, &w->p, pai_state_name(state), w->tasks, 1);
		*final = state;
		return 0;
	}
	task_note(w->tasks, sizeof(w->tasks), info);
	show(ctx, &w->p, pai_state_name(state), w->tasks, 0);
	*news = strcmp(before, w->p.last) != 0;
	if (w->deadline >= 0 && cli_now_ms() >= w->deadline) {
		if (w->p.tty && !ctx->quiet)
			fputc('\n', stderr);
		return cli_error(ctx, EXIT_TIMEOUT,
				 "timed out after %gs; job '%s' is %s",
				 w->timeout_s, w->label, pai_state_name(state));
	}
	return -1;
}

/* Sleeps ms, no later than the deadline; a terminal's line shows the
 * time passing. 0, or 130 after Ctrl-C. */
static int sleep_ticking(const cli_ctx *ctx, struct waiting *w, long ms,
			 const char *state)
{
	long step;

	if (w->deadline >= 0 && cli_now_ms() + ms > w->deadline)
		ms = (long)(w->deadline - cli_now_ms());
	for (; ms > 0; ms -= step) {
		step = w->p.tty && ms > 1000 ? 1000 : ms;
		if (cli_sleep_ms(step)) {
			if (w->p.tty && !ctx->quiet)
				fputc('\n', stderr);
			return cli_error(ctx, 130, "interrupted");
		}
		if (w->p.tty && step < ms)
			show(ctx, &w->p, state, w->tasks, 0);
	}
	return 0;
}

/* The job's status again, where the cluster tells of changes: once it
 * differs from *info, or after a while. *err: a libpai code;
 * PAI_ENOTSUP turns w->push off. */
static void ask_changed(cli_ctx *ctx, cli_conn *conn, struct waiting *w,
			const char *user, const char *name, pai_job_info **info,
			int *err)
{
	long long now = cli_now_ms();
	long wait = w->p.tty ? 1000 : PUSH_WAIT_MS;
	pai_job_info *next = NULL;

	if (w->deadline >= 0 && w->deadline - now < wait)
		wait = w->deadline > now ? (long)(w->deadline - now) : 0;
	do
		*err = pai_job_get_changed(&next, conn->client, user, name,
					   *info, wait);
	while (*err && cli_relogin(ctx, conn, *err));
	if (*err == PAI_ENOTSUP) {
		w->push = 0;
		return;
	}
	w->early = cli_now_ms() - now < wait / 2;
	if (!*err) {
		pai_job_info_free(*info);
		*info = next;
	}
}

/* Until the next round, within the budget (pace.c), then the status in
 * *info. 0, or 130 after Ctrl-C; *err a libpai code. */
static int next_status(cli_ctx *ctx, cli_conn *conn, struct waiting *w,
		       const char *user, const char *name, pai_job_info **info,
		       int news, int *err)
{
	const char *state = pai_state_name(pai_job_info_state(*info));
	long ms = cli_pace_next(&w->pace, news);

	*err = PAI_OK;
	if (w->push) {
		/* a cluster that did not hold the request is asked at the
		 * pace of polling, not at once */
		if (sleep_ticking(
			ctx, w,
			w->early && !news ? ms : cli_pace_push_left(&w->pace),
			state))
			return 130;
		cli_pace_begin(&w->pace);
		ask_changed(ctx, conn, w, user, name, info, err);
		if (w->push)
			return 0;
	} else if (sleep_ticking(ctx, w, ms, state))
		return 130;
	cli_pace_begin(&w->pace);
	pai_job_info_free(*info);
	*info = NULL;
	do
		*err = pai_job_get(info, conn->client, user, name);
	while (*err && cli_relogin(ctx, conn, *err));
	return 0;
}

int cli_timeout_opt(cli_ctx *ctx, const char *arg, double *timeout_s)
{
	char *end;

	*timeout_s = strtod(arg, &end);
	if (!*arg || *end || !(*timeout_s >= 0) || *timeout_s > 1e9)
		return cli_error(ctx, EXIT_USAGE,
				 "invalid --timeout '%s' (seconds, 0 or more)",
				 arg);
	return 0;
}

int cli_wait_job(cli_ctx *ctx, cli_conn *conn, const char *user,
		 const char *name, double timeout_s, pai_state *final,
		 pai_job_info **out)
{
	struct waiting w;
	pai_job_info *info = NULL;
	int err, st, news = 0;

	*final = PAI_STATE_UNKNOWN;
	if (out)
		*out = NULL;
	start_waiting(&w, conn, user, name, timeout_s);
	cli_pace_begin(&w.pace);
	do
		err = pai_job_get(&info, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	for (;;) {
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
			/* Ctrl-C in a request the cluster held */
			st = err == PAI_EINTR || cli_interrupt
				 ? cli_error(ctx, 130, "interrupted")
				 : cli_fail(ctx, conn, err,
					    "cannot get job '%s'", w.label);
			break;
		}
		if ((st = decide(ctx, &w, info, final, &news)) >= 0)
			break;
		if ((st = next_status(ctx, conn, &w, user, name, &info, news,
				      &err)))
			break;
	}
	if (out && !st) {
		*out = info;
		info = NULL;
	}
	pai_job_info_free(info);
	return st;
}
