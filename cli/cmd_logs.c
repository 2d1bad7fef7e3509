/* cmd_logs.c - paictl logs: a job's task logs, once or followed */
#include "cli.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_STREAM = 256,
	OPT_STDERR,
	OPT_ALL,
	OPT_TAIL,
	OPT_PREVIOUS,
	OPT_STRICT_KEYS,
	OPT_ATTEMPT
};

const cli_opt cli_logs_opts[] = {
    {"stream", OPT_STREAM, "NAME", "all|stdout|stderr",
     "all: standard output and error as the task wrote them (the "
     "default), stdout or stderr"},
    {"tail", OPT_TAIL, "N", NULL, "only the last N lines of each task"},
    {"follow", 'f', NULL, NULL, "keep printing new lines until the tasks end"},
    {"previous", OPT_PREVIOUS, NULL, NULL,
     "Kubernetes: the log of the container's run before its last restart"},
    {"attempt", OPT_ATTEMPT, "K", NULL,
     "the log of the job's attempt K (0 the first; the latest by default), "
     "where a failed attempt was run again (retryCount)"},
    {"strict-host-keys", OPT_STRICT_KEYS, NULL, NULL,
     "Slurm over SFTP: refuse a host whose key known_hosts does not hold "
     "instead of learning it"},
    CLI_OLD("stderr", OPT_STDERR, NULL, "--stream stderr"),
    CLI_OLD("all", OPT_ALL, NULL, "--stream all"),
    CLI_OPT_END};

/* Following, within the budget of pace.c: a round a second while the
 * logs grow, else a pause growing to FOLLOW_MAX_MS. The job's status is
 * read on a round after one without news (when tasks can have ended),
 * and at least every STATUS_EVERY_MS (tasks that start, new attempts):
 * not once per read of a log. */
#define FOLLOW_MAX_MS	5000
#define STATUS_EVERY_MS 10000
/* How long a lost cluster may stay lost before -f gives up. */
#define FOLLOW_GIVE_UP_MS (5 * 60 * 1000)

struct opts {
	const char *stream; /* all, stdout, stderr, previous */
	int given;	    /* --stream (or an old spelling of it) */
	long tail;	    /* -1: everything */
	int follow;
	long attempt; /* --attempt K; -1: the latest */
};

/* --stream NAME, or --previous: one log at a time. */
static int stream_opt(cli_ctx *ctx, struct opts *o, const char *want)
{
	if (strcmp(want, "all") != 0 && strcmp(want, "stdout") != 0 &&
	    strcmp(want, "stderr") != 0 && strcmp(want, "previous") != 0)
		return cli_error(ctx, EXIT_USAGE,
				 "unknown stream '%s' (use all, stdout or "
				 "stderr)",
				 want);
	if (o->given && strcmp(o->stream, want) != 0)
		return cli_error(ctx, EXIT_USAGE,
				 "one log at a time: --stream %s or %s%s, not "
				 "both",
				 o->stream,
				 strcmp(want, "previous") == 0 ? "--"
							       : "--stream ",
				 want);
	o->stream = want;
	o->given = 1;
	return 0;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	char *end;

	switch (key) {
	case OPT_STREAM: return stream_opt(ctx, o, arg);
	case OPT_STDERR: return stream_opt(ctx, o, "stderr");
	case OPT_ALL: return stream_opt(ctx, o, "all");
	case OPT_TAIL:
		errno = 0;
		o->tail = strtol(arg, &end, 10);
		if (!*arg || *end || o->tail < 0 || errno)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --tail '%s' (a number of "
					 "lines, 0 or more)",
					 arg);
		return 0;
	case 'f': o->follow = 1; return 0;
	case OPT_PREVIOUS: return stream_opt(ctx, o, "previous");
	case OPT_STRICT_KEYS: ctx->strict_host_keys = 1; return 0;
	case OPT_ATTEMPT:
		errno = 0;
		o->attempt = strtol(arg, &end, 10);
		if (!*arg || *end || o->attempt < 0 || errno)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --attempt '%s' (a number, 0 "
					 "or more)",
					 arg);
		return 0;
	}
	return EXIT_USAGE;
}

/* One task's log, as far as it was read. */
struct tlog {
	char *role;
	long index;
	const char *stream; /* which of the task's logs */
	char *key; /* the attempt's log as the status names it */
	char *url; /* where it is read; NULL: no log yet (the task waits) */
	long long off;
	char *part; /* a line without its newline yet */
	size_t plen, pcap;
	int tailed; /* --tail applied to the first read */
	int done;
};

struct out {
	const cli_ctx *ctx;
	const struct opts *o;
	int prefix; /* several tasks: "role-index | " */
	const char *stream;
	/* the cluster keeps no log of both streams (Slurm): each task's
	 * stdout and stderr, the latter's lines marked */
	int split;
	int failed; /* writing stdout failed */
};

/* JSON strings are UTF-8: a byte that is not becomes U+FFFD. */
static char *valid_utf8(const char *s, size_t len, size_t *outlen)
{
	char *d = malloc(len * 3 + 1), *q = d;
	size_t i = 0;

	if (!d)
		return NULL;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80			     ? 1
			   : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2
			   : (c & 0xF0) == 0xE0		     ? 3
			   : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4
							     : 0,
		       k;

		for (k = 1; n && k < n; k++)
			if (i + k >= len ||
			    ((unsigned char)s[i + k] & 0xC0) != 0x80)
				n = 0;
		/* no overlong forms, surrogates or code points past U+10FFFF */
		if (n == 3 && ((c == 0xE0 && (unsigned char)s[i + 1] < 0xA0) ||
			       (c == 0xED && (unsigned char)s[i + 1] >= 0xA0)))
			n = 0;
		if (n == 4 && ((c == 0xF0 && (unsigned char)s[i + 1] < 0x90) ||
			       (c == 0xF4 && (unsigned char)s[i + 1] >= 0x90)))
			n = 0;
		if (!n || (c == 0 && n == 1)) {
			memcpy(q, "\xEF\xBF\xBD", 3);
			q += 3;
			i++;
			continue;
		}
		memcpy(q, s + i, n);
		q += n;
		i += n;
	}
	*outlen = (size_t)(q - d);
	*q = '\0';
	return d;
}

static void put_line(struct out *w, const struct tlog *t, const char *a,
		     size_t alen, const char *b, size_t blen, int nl)
{
	if (w->ctx->output == CLI_OUT_JSON) {
		char *line = malloc(alen + blen + 1), *u = NULL;
		size_t ulen = 0;
		json_t *o = NULL;

		if (line) {
			if (alen) /* a is NULL before the first partial line */
				memcpy(line, a, alen);
			if (blen)
				memcpy(line + alen, b, blen);
			u = valid_utf8(line, alen + blen, &ulen);
		}
		if (u)
			o = json_pack("{s:s,s:i,s:s,s:s%}", "role", t->role,
				      "index", (int)t->index, "stream",
				      t->stream, "line", u, ulen);
		free(line);
		free(u);
		if (!o || json_dumpf(o, stdout, JSON_COMPACT) < 0 ||
		    putchar('\n') == EOF)
			w->failed = 1;
		json_decref(o);
		return;
	}
	if (w->prefix && printf("%s-%ld ", t->role, t->index) < 0)
		w->failed = 1;
	if (w->split && strcmp(t->stream, "stderr") == 0 &&
	    fputs("stderr ", stdout) == EOF)
		w->failed = 1;
	if ((w->prefix || (w->split && strcmp(t->stream, "stderr") == 0)) &&
	    fputs("| ", stdout) == EOF)
		w->failed = 1;
	if ((alen && fwrite(a, 1, alen, stdout) != alen) ||
	    (blen && fwrite(b, 1, blen, stdout) != blen) ||
	    (nl && putchar('\n') == EOF))
		w->failed = 1;
}

/* The most of a line held back until its newline comes: a task that
 * writes none (a progress bar redrawn after \r) cannot grow it past
 * this; what would is shown then as the line so far. */
#define LINE_HELD_MAX ((size_t)1 << 20)

/* Prints the complete lines of data (after what was kept of t's last
 * line); keeps the rest until its newline comes, LINE_HELD_MAX of it:
 * beyond, it is printed as it is alone (the line goes on), as a line
 * of its own among others or in JSON. */
static int emit(struct out *w, struct tlog *t, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		put_line(w, t, t->part, t->plen, p, (size_t)(nl - p), 1);
		t->plen = 0;
		p = nl + 1;
	}
	if (p < end && t->plen + (size_t)(end - p) > LINE_HELD_MAX) {
		put_line(w, t, t->part, t->plen, p, (size_t)(end - p),
			 w->prefix || w->split ||
			     w->ctx->output == CLI_OUT_JSON);
		t->plen = 0;
		return 0;
	}
	if (p < end) {
		size_t n = (size_t)(end - p);

		if (t->plen + n > t->pcap) {
			size_t cap = (t->plen + n) * 2;
			char *q = realloc(t->part, cap);

			if (!q)
				return -1;
			t->part = q;
			t->pcap = cap;
		}
		memcpy(t->part + t->plen, p, n);
		t->plen += n;
	}
	return 0;
}

/* The task ended: its last line, newline or not. */
static void finish(struct out *w, struct tlog *t)
{
	if (t->plen)
		/* alone, the text as it is; among others, a line of its own */
		put_line(w, t, t->part, t->plen, "", 0,
			 w->prefix || w->split ||
			     w->ctx->output == CLI_OUT_JSON);
	t->plen = 0;
	t->done = 1;
}

/* Where the last n lines of data start (a last line without its newline
 * counts as a line). */
static size_t tail_start(const char *data, size_t len, long n)
{
	size_t i = len;

	if (n <= 0)
		return len;
	if (i && data[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (data[i - 1] == '\n' && --n == 0)
			return i;
		i--;
	}
	return 0;
}

/* Fetches what is new in t's log and prints it. 1: there was news; 0:
 * none; <0: -pai_error */
static int pull(struct out *w, cli_conn *conn, struct tlog *t)
{
	char *data = NULL;
	size_t len = 0, from = 0;
	long long next = t->off;
	int err;

	err = pai_log_read(&data, &len, &next, conn->client, t->url, t->off);
	if (err) {
		free(data);
		return err;
	}
	if (!t->tailed) {
		t->tailed = 1;
		if (w->o->tail >= 0)
			from = tail_start(data, len, w->o->tail);
	}
	if (emit(w, t, data + from, len - from) < 0) {
		free(data);
		return PAI_ENOMEM;
	}
	free(data);
	t->off = next;
	return len > 0;
}

/* t's log URL from the status; a new attempt's log starts over, once
 * the last of the old one is read. On a v1.x cluster the URL is a
 * log-manager location asked for here, whose token expires: see
 * pull_fresh(). */
static int set_url(struct out *w, cli_conn *conn, struct tlog *t,
		   const pai_job_info *info, const pai_task_info *ti)
{
	char *url = NULL, *key;
	int err;

	if (!ti->log_url || (t->key && strcmp(t->key, ti->log_url) == 0))
		return PAI_OK;
	err = pai_task_log_url(&url, conn->client, info, ti, t->stream, 0);
	if (err == PAI_ENOTFOUND)
		return PAI_OK; /* not there yet: next time */
	if (err)
		return err;
	if (!(key = strdup(ti->log_url))) {
		free(url);
		return PAI_ENOMEM;
	}
	if (t->url) {
		if (!t->done)
			pull(w, conn, t);
		finish(w, t);
	}
	free(t->key);
	free(t->url);
	t->key = key;
	t->url = url;
	t->off = 0;
	t->done = 0;
	t->tailed = 0;
	return PAI_OK;
}

/* pull(), asking for a new location once when the old one is refused
 * (a v1.x log-manager's token lives two minutes): the read goes on from
 * the same offset, so nothing is printed twice. */
static int pull_fresh(struct out *w, cli_conn *conn, struct tlog *t,
		      const pai_job_info *info, const pai_task_info *ti)
{
	char *url = NULL;
	int r = pull(w, conn, t);

	if (r != PAI_EFORBIDDEN || !info || !ti ||
	    pai_task_log_url(&url, conn->client, info, ti, t->stream, 0))
		return r;
	free(t->url);
	t->url = url;
	return pull(w, conn, t);
}

static const pai_task_info *find_task(const pai_job_info *info,
				      const struct tlog *t)
{
	size_t i;

	for (i = 0; i < pai_job_info_task_count(info); i++) {
		const pai_task_info *ti = pai_job_info_task(info, i);

		if (ti && ti->role && strcmp(ti->role, t->role) == 0 &&
		    ti->index == t->index)
			return ti;
	}
	return NULL;
}

static int get_status(cli_ctx *ctx, cli_conn *conn, const char *user,
		      const char *name, pai_job_info **info)
{
	int err;

	pai_job_info_free(*info);
	*info = NULL;
	do
		err = pai_job_get(info, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	return err;
}

/* Transient: worth trying again while following. A 429 is not: libpai
 * waited as long as the cluster asked, or it asked for longer than
 * paictl waits (its detail says so). */
static int transient(const cli_conn *conn, int err)
{
	if (err == PAI_EHTTP && pai_client_http_status(conn->client) == 429)
		return 0;
	return err == PAI_EUNREACHABLE || err == PAI_EHTTP || err == PAI_EIO ||
	       err == PAI_EPROTOCOL;
}

/* What one round of following found. */
struct round {
	int news, trouble, all_done;
	int job_final; /* the round's status says the job ended */
};

/* Reads what is new of t in one round: 0, or the exit status to stop
 * with (said already). */
static int follow_task(cli_ctx *ctx, cli_conn *conn, struct out *w,
		       struct tlog *t, const pai_job_info *info,
		       const pai_task_info *ti, int job_final, struct round *rd)
{
	int u = ti ? set_url(w, conn, t, info, ti) : 0, r, ended;

	if (u == PAI_ENOMEM)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	if (u == PAI_EINTR)
		return cli_error(ctx, 130, "interrupted");
	if (u)
		rd->trouble = 1;
	/* read after the status: a task that had ended then has all its
	 * log written now */
	ended = ti ? pai_state_is_final(ti->state) || job_final : 0;
	if (t->url && !t->done) {
		r = pull_fresh(w, conn, t, info, ti);
		if (r == PAI_ENOTFOUND)
			r = 0; /* not written yet */
		else if (r == PAI_EAUTH && cli_relogin(ctx, conn, r))
			r = 0; /* again, next round */
		if (r == PAI_EINTR)
			return cli_error(ctx, 130, "interrupted");
		if (r < 0 && !transient(conn, r))
			return cli_fail(ctx, conn, r,
					"cannot read the log of %s-%ld",
					t->role, t->index);
		if (r < 0)
			rd->trouble = 1;
		else if (r > 0)
			rd->news = 1;
		else if (ended)
			finish(w, t);
	} else if (!t->url && ended)
		t->done = 1; /* never ran: no log */
	if (!t->done)
		rd->all_done = 0;
	return EXIT_OK;
}

/* After a round in trouble: says so once, gives up after a while (the
 * exit status), else 0. *lost: since when; 0 when all is well. */
static int lost_cluster(cli_ctx *ctx, cli_conn *conn, long long *lost,
			int trouble, int err)
{
	const char *why = pai_client_error(conn->client);

	if (!trouble) {
		*lost = 0;
		return EXIT_OK;
	}
	if (!*lost) {
		*lost = cli_now_ms();
		if (!ctx->quiet)
			cli_warn(ctx, "lost the cluster (%s); trying again",
				 why ? why : pai_strerror(err));
	} else if (cli_now_ms() - *lost > FOLLOW_GIVE_UP_MS)
		return cli_error(ctx, EXIT_UNREACHABLE,
				 "the cluster has not answered for %d "
				 "minutes; giving up",
				 FOLLOW_GIVE_UP_MS / 60000);
	return EXIT_OK;
}

/* What following keeps from round to round. */
struct follow {
	pai_job_info *info; /* the last status, NULL before the first */
	long long read_at;  /* when it was read (cli_now_ms) */
	int fresh; /* it came while pausing: the round needs no other */
	int push;  /* the cluster tells of changes (till it says no) */
	int news;  /* the last round had news */
	cli_pace pace;
	long long lost; /* since when the cluster is lost; 0: it is not */
};

/* The job's status for this round, when it is due: the first round, one
 * after a round without news, and every STATUS_EVERY_MS. 0 or the exit
 * status; *err the libpai code of a failure worth trying again. */
static int round_status(cli_ctx *ctx, cli_conn *conn, struct follow *fw,
			const char *user, const char *name, const char *ref,
			int *err)
{
	*err = PAI_OK;
	if (fw->fresh || (fw->info && fw->news &&
			  cli_now_ms() - fw->read_at < STATUS_EVERY_MS))
		return EXIT_OK;
	*err = get_status(ctx, conn, user, name, &fw->info);
	if (*err == PAI_EINTR || cli_interrupt)
		return cli_error(ctx, 130, "interrupted");
	if (*err && !transient(conn, *err))
		return cli_fail(ctx, conn, *err, "cannot get job '%s'", ref);
	if (!*err)
		fw->read_at = cli_now_ms();
	return EXIT_OK;
}

/* One round: the job's status when due, then what is new in every
 * task's log (without the status when asking for it failed for a
 * while: *err). 0, or the exit status to stop with (said already). */
static int read_round(cli_ctx *ctx, cli_conn *conn, struct out *w,
		      struct tlog *tl, size_t nt, const char *user,
		      const char *name, const char *ref, struct follow *fw,
		      struct round *rd, int *err)
{
	const pai_job_info *info;
	int st;
	size_t i;

	if ((st = round_status(ctx, conn, fw, user, name, ref, err)))
		return st;
	fw->fresh = 0;
	info = *err ? NULL : fw->info;
	rd->trouble = *err != 0;
	rd->job_final = info && pai_state_is_final(pai_job_info_state(info));
	for (i = 0; i < nt && !st; i++)
		st = follow_task(ctx, conn, w, &tl[i], info,
				 info ? find_task(info, &tl[i]) : NULL,
				 rd->job_final, rd);
	return st;
}

/* 1 when a and b give the job and every task the same state. */
static int same_states(const pai_job_info *a, const pai_job_info *b)
{
	size_t i, n = pai_job_info_task_count(a);

	if (pai_job_info_state(a) != pai_job_info_state(b) ||
	    n != pai_job_info_task_count(b))
		return 0;
	for (i = 0; i < n; i++)
		if (pai_job_info_task(a, i)->state !=
		    pai_job_info_task(b, i)->state)
			return 0;
	return 1;
}

/* Spends a pause of ms waiting for the job to change, where the cluster
 * tells of that: then the status comes with the pause (fw->fresh). 1
 * when the pause is over, 0 when it is still to be slept. */
static int pause_for_change(cli_conn *conn, struct follow *fw, const char *user,
			    const char *name, long ms)
{
	long long t0 = cli_now_ms();
	pai_job_info *next = NULL;
	int err, changed;

	err =
	    pai_job_get_changed(&next, conn->client, user, name, fw->info, ms);
	if (err == PAI_ENOTSUP)
		fw->push = 0;
	if (err)
		return 0; /* the next round's status says what is wrong */
	changed = !same_states(next, fw->info);
	pai_job_info_free(fw->info);
	fw->info = next;
	fw->read_at = cli_now_ms();
	fw->fresh = 1;
	/* unchanged before its time: the cluster did not hold it */
	return changed || cli_now_ms() - t0 >= ms / 2;
}

/* Until the next round (pace.c): a second after news, else a pause
 * that grows, spent waiting for the job to change where the cluster
 * tells of that. 0, or 130 after Ctrl-C. */
static int pace(const cli_ctx *ctx, cli_conn *conn, struct follow *fw,
		const struct round *rd, const char *user, const char *name)
{
	long long until;
	long ms;

	fw->news = rd->news && !rd->trouble;
	ms = cli_pace_next(&fw->pace, fw->news);
	until = cli_now_ms() + ms;
	if (!fw->news && !rd->trouble && fw->push && fw->info &&
	    pause_for_change(conn, fw, user, name, ms))
		until = 0;
	ms = (long)(until - cli_now_ms());
	if (cli_interrupt || (ms > 0 && cli_sleep_ms(ms)))
		return cli_error(ctx, 130, "interrupted");
	cli_pace_begin(&fw->pace);
	return 0;
}

static int follow(cli_ctx *ctx, cli_conn *conn, struct out *w, struct tlog *tl,
		  size_t nt, const char *user, const char *name,
		  const char *ref, int whole_job)
{
	struct follow fw;
	int st, err;

	memset(&fw, 0, sizeof(fw));
	fw.push = 1;
	cli_pace_start(&fw.pace, FOLLOW_MAX_MS);
	cli_pace_begin(&fw.pace);
	for (;;) {
		struct round rd = {0, 0, 1, 0};

		st = read_round(ctx, conn, w, tl, nt, user, name, ref, &fw, &rd,
				&err);
		if (st || fflush(stdout) != 0 || w->failed)
			break; /* w->failed: cli_finish says why */
		if (rd.all_done && (rd.job_final || !whole_job))
			break;
		if ((st = lost_cluster(ctx, conn, &fw.lost, rd.trouble, err)))
			break;
		if ((st = pace(ctx, conn, &fw, &rd, user, name)))
			break;
	}
	pai_job_info_free(fw.info);
	return st;
}

/* ---- logs the cluster streams (Kubernetes) ---------------------------- */

struct streamed {
	struct out *w;
	struct tlog *tl;
};

static int on_stream_line(void *data, size_t i, const char *line, size_t len,
			  int newline)
{
	struct streamed *sd = data;
	struct out *w = sd->w;

	/* a last line without its newline: alone, as it is; among others
	 * or in JSON, a line of its own (as finish() does) */
	put_line(w, &sd->tl[i], line, len, "", 0,
		 newline || w->prefix || w->ctx->output == CLI_OUT_JSON);
	if (fflush(stdout) != 0)
		w->failed = 1;
	return w->failed;
}

/* Where the cluster streams each task's log (Kubernetes' follow
 * requests), the logs as they come, with no polling: -1 where it cannot
 * (then follow() reads and rereads), else the exit status. */
static int follow_streams(cli_ctx *ctx, cli_conn *conn, struct out *w,
			  struct tlog *tl, size_t nt, const pai_job_info *info)
{
	pai_follow_options fo = PAI_FOLLOW_OPTIONS_INIT;
	const pai_task_info **tasks = calloc(nt ? nt : 1, sizeof(*tasks));
	struct streamed sd = {w, tl};
	size_t i;
	int err;

	if (!tasks)
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	for (i = 0; i < nt; i++)
		tasks[i] = find_task(info, &tl[i]);
	fo.tail = w->o->tail;
	fo.on_line = on_stream_line;
	fo.data = &sd;
	err = pai_logs_follow(conn->client, info, tasks, nt, &fo);
	free(tasks);
	if (err == PAI_ENOTSUP)
		return -1;
	if (err == PAI_EINTR && w->failed)
		return EXIT_OK; /* cli_finish says why */
	if (err)
		return cli_fail(ctx, conn, err,
				"cannot follow the logs of '%s'",
				pai_job_info_name(info));
	return EXIT_OK;
}

/* The operands: JOB [ROLE [INDEX]]. */
struct target {
	const char *ref, *role;
	long index; /* -1: every index */
};

static int parse_target(cli_ctx *ctx, int argc, char **argv, int first,
			struct target *tg)
{
	char *end;

	if (first >= argc)
		return cli_error(ctx, EXIT_USAGE,
				 "no job given; try 'paictl logs JOB [ROLE "
				 "[INDEX]]'");
	if (argc - first > 3)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; see 'paictl logs "
				 "--help'",
				 argv[first + 3]);
	tg->ref = argv[first];
	tg->role = argc - first > 1 ? argv[first + 1] : NULL;
	tg->index = -1;
	if (argc - first > 2) {
		errno = 0;
		tg->index = strtol(argv[first + 2], &end, 10);
		if (!*argv[first + 2] || *end || tg->index < 0 || errno)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid task index '%s' (0, 1, ...)",
					 argv[first + 2]);
	}
	return EXIT_OK;
}

/* The logs of the tasks tg names, in tl (*nt of them; two a task when
 * w->split): 0, or the exit status. */
static int select_tasks(cli_ctx *ctx, const pai_job_info *info,
			const struct target *tg, const struct out *w,
			struct tlog *tl, size_t *nt)
{
	size_t i, n = pai_job_info_task_count(info);
	int s;

	for (i = 0; i < n; i++) {
		const pai_task_info *ti = pai_job_info_task(info, i);

		if (!ti || !ti->role ||
		    (tg->role &&
		     !pai_job_info_role_is(info, ti->role, tg->role)) ||
		    (tg->index >= 0 && ti->index != tg->index))
			continue;
		for (s = 0; s <= w->split; s++) {
			tl[*nt].stream = !w->split ? w->stream
					 : s	   ? "stderr"
						   : "stdout";
			tl[*nt].role = strdup(ti->role);
			tl[*nt].index = ti->index;
			if (!tl[(*nt)++].role)
				return cli_error(ctx, EXIT_FAILURE_,
						 "out of memory");
		}
	}
	if (*nt)
		return EXIT_OK;
	if (tg->role)
		return cli_no_task(ctx, EXIT_NOTFOUND, tg->ref, info, tg->role,
				   tg->index);
	return cli_error(ctx, EXIT_NOTFOUND, "job '%s' has no tasks", tg->ref);
}

/* Task ti of info as it was in attempt k (-1: the latest): the status
 * lists a task's earlier attempts ("attempts": [{attempt, containerLog,
 * containerExitCode}], Slurm's retryCount), the latest being the task
 * itself. *buf holds an earlier one; NULL when there is no attempt k. */
static const pai_task_info *at_attempt(const pai_job_info *info,
				       const pai_task_info *ti, long k,
				       pai_task_info *buf)
{
	json_t *list = NULL, *a;
	size_t i;

	for (i = 0; k >= 0 && i < pai_job_info_task_count(info); i++)
		if (pai_job_info_task(info, i) == ti)
			list = json_object_get(pai_job_info_task_json(info, i),
					       "attempts");
	if (k < 0 || (size_t)k == json_array_size(list))
		return ti;
	json_array_foreach(list, i, a)
	{
		if (json_integer_value(json_object_get(a, "attempt")) == k) {
			*buf = *ti;
			buf->log_url = json_string_value(
			    json_object_get(a, "containerLog"));
			buf->state = PAI_STATE_FAILED;
			return buf;
		}
	}
	return NULL;
}

/* Each task's log as it is now: 0, or the exit status. */
static int read_once(cli_ctx *ctx, cli_conn *conn, struct out *w,
		     struct tlog *tl, size_t nt, const pai_job_info *info,
		     const char *ref)
{
	size_t i, read = 0;
	int st = EXIT_OK, err;

	for (i = 0; i < nt && !w->failed; i++) {
		const pai_task_info *ti = find_task(info, &tl[i]);
		pai_task_info old;

		if (ti && !(ti = at_attempt(info, ti, w->o->attempt, &old))) {
			st = cli_error(ctx, EXIT_NOTFOUND,
				       "%s-%ld of job '%s' has no attempt "
				       "%ld",
				       tl[i].role, tl[i].index, ref,
				       w->o->attempt);
			break;
		}
		if (!ti)
			continue;
		err = set_url(w, conn, &tl[i], info, ti);
		if (err == PAI_OK && !tl[i].url)
			continue; /* not started: no log */
		while (err == PAI_OK &&
		       (err = pull_fresh(w, conn, &tl[i], info, ti)) ==
			   PAI_EAUTH &&
		       cli_relogin(ctx, conn, err))
			;
		if (err == PAI_ENOTFOUND && w->split &&
		    strcmp(tl[i].stream, "stderr") == 0)
			continue; /* nothing written to it */
		if (err < 0) {
			st = cli_fail(ctx, conn, err,
				      "cannot read the log of %s-%ld",
				      tl[i].role, tl[i].index);
			if (err != PAI_ENOTFOUND)
				break;
			continue;
		}
		finish(w, &tl[i]);
		read++;
	}
	if (!read && !st && !ctx->quiet)
		cli_error(ctx, 0,
			  "no logs yet: job '%s' is %s; '-f' waits for "
			  "them",
			  ref, pai_state_name(pai_job_info_state(info)));
	return st;
}

/* The output of the tasks' logs: which stream; split where the stream is
 * not given and the cluster keeps no log of both (Slurm: a task's
 * standard output and error are two files). */
static void start_output(struct out *w, cli_ctx *ctx, const struct opts *o,
			 const cli_conn *conn)
{
	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->o = o;
	w->stream = o->stream;
	w->split = !o->given &&
		   pai_client_api(conn->client) == PAI_API_SLURM;
}

static void free_tlogs(struct tlog *tl, size_t nt)
{
	size_t i;

	for (i = 0; i < nt; i++) {
		free(tl[i].role);
		free(tl[i].key);
		free(tl[i].url);
		free(tl[i].part);
	}
	free(tl);
}

int cmd_logs(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {"all", 0, -1, 0, -1};
	struct target tg = {NULL, NULL, -1};
	struct out w;
	cli_conn *conn = NULL;
	pai_job_info *info = NULL;
	struct tlog *tl = NULL;
	char *user = NULL, *name = NULL;
	size_t nt = 0;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if ((st = parse_target(ctx, argc, argv, first, &tg)))
		return st;
	if (o.follow && o.attempt >= 0)
		return cli_error(ctx, EXIT_USAGE,
				 "--attempt reads an attempt that has ended: "
				 "not with -f");
	if ((st = cli_open(ctx, &conn)))
		return st;
	if ((st = cli_job_ref(ctx, conn, tg.ref, &user, &name)))
		goto out;
	err = get_status(ctx, conn, user, name, &info);
	if (err) {
		st = cli_fail(ctx, conn, err, "cannot get job '%s'", tg.ref);
		goto out;
	}
	start_output(&w, ctx, &o, conn);
	tl = calloc(pai_job_info_task_count(info) * 2 + 1, sizeof(*tl));
	if (!tl) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	if ((st = select_tasks(ctx, info, &tg, &w, tl, &nt)))
		goto out;
	w.prefix = nt > (size_t)(1 + w.split); /* several tasks */
	/* a cluster's own streams carry the whole log */
	st = o.follow && !w.split && strcmp(w.stream, "all") == 0
		 ? follow_streams(ctx, conn, &w, tl, nt, info)
		 : -1;
	if (st < 0)
		st = o.follow ? follow(ctx, conn, &w, tl, nt, user, name,
				       tg.ref, !tg.role)
			      : read_once(ctx, conn, &w, tl, nt, info, tg.ref);
out:
	free_tlogs(tl, nt);
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
