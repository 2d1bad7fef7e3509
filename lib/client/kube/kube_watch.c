/* kube_watch.c - the two streams the apiserver sends line by line: a
 * watch, one JSON event per line with chunks cut anywhere (§3), and a
 * container's log, whose timestamps let a dropped `follow` resume
 * without printing a line twice (§6). Pure: bytes in, lines out; the
 * caller does the I/O. */
#include "kube.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines: a buffer split at '\n' --------------------------------------- */

struct lines {
	pai__buf buf;
	size_t off;  /* the next line starts here */
	size_t scan; /* no '\n' in [off, scan) */
	size_t max;  /* longest line held */
	int eof;
};

static void lines_reset(struct lines *l)
{
	l->buf.len = 0;
	l->off = l->scan = 0;
	l->eof = 0;
}

/* Appends; PAI_ETOOBIG when a line without its end passes max (when
 * pieces is 0: the watch holds whole events only). */
static int lines_feed(struct lines *l, const void *data, size_t len, int pieces)
{
	const char *nl;

	if (l->off > 0 && l->off >= l->buf.len / 2) {
		memmove(l->buf.data, l->buf.data + l->off, l->buf.len - l->off);
		l->buf.len -= l->off;
		l->scan -= l->off;
		l->off = 0;
	}
	if (!pieces && len > 0) {
		nl = memrchr(data, '\n', len);
		if (nl ? (size_t)((const char *)data + len - nl - 1) > l->max
		       : l->buf.len - l->off + len > l->max)
			return PAI_ETOOBIG;
	}
	pai__buf_put(&l->buf, data, len);
	return l->buf.oom ? PAI_ENOMEM : PAI_OK;
}

/* The next line, or piece of one: 1 with *line and *n (the '\n' left
 * out; *nl says it was there), 0 when more bytes are needed. With
 * pieces, a line longer than max comes max bytes at a time. */
static int lines_next(struct lines *l, const char **line, size_t *n, int *nl,
		      int pieces)
{
	size_t avail = l->buf.len - l->off;
	const char *p, *e;

	if (avail == 0)
		return 0;
	p = l->buf.data + l->off;
	e = memchr(l->buf.data + l->scan, '\n', l->buf.len - l->scan);
	if (e) {
		*line = p;
		*n = (size_t)(e - p);
		*nl = 1;
		l->off = l->scan = (size_t)(e - l->buf.data) + 1;
		return 1;
	}
	l->scan = l->buf.len;
	if (!l->eof && !(pieces && avail >= l->max))
		return 0;
	*line = p;
	*n = pieces && avail > l->max ? l->max : avail;
	*nl = 0;
	l->off += *n;
	l->scan = l->off;
	return 1;
}

/* ---- watch (§3) ---------------------------------------------------------- */

struct pai__kube_watch {
	struct lines l;
	int failed; /* a bad event: the stream is over */
};

int pai__kube_watch_new(pai__kube_watch **out, size_t max_line)
{
	pai__kube_watch *w = calloc(1, sizeof(*w));

	*out = w;
	if (!w)
		return PAI_ENOMEM;
	w->l.max = max_line ? max_line : PAI__KUBE_MAX_EVENT;
	return PAI_OK;
}

void pai__kube_watch_free(pai__kube_watch *w)
{
	if (!w)
		return;
	pai__buf_release(&w->l.buf);
	free(w);
}

int pai__kube_watch_feed(pai__kube_watch *w, const void *data, size_t len,
			 pai__kube_err *err)
{
	int ret = lines_feed(&w->l, data, len, 0);

	if (ret == PAI_ETOOBIG)
		return pai__kube_fail(err, ret,
				      "watch: an event longer than %zu bytes",
				      w->l.max);
	return ret;
}

void pai__kube_watch_eof(pai__kube_watch *w)
{
	w->l.eof = 1;
}

void pai__kube_event_release(pai__kube_event *ev)
{
	if (!ev)
		return;
	json_decref(ev->object);
	pai__kube_status_release(&ev->status);
	memset(ev, 0, sizeof(*ev));
}

static int event_type(const char *t)
{
	static const char *const names[] = {"ADDED", "MODIFIED", "DELETED",
					    "BOOKMARK", "ERROR"};
	int i;

	for (i = 0; t && i < 5; i++)
		if (strcmp(t, names[i]) == 0)
			return PAI__KW_ADDED + i;
	return 0;
}

static int fill_event(pai__kube_event *ev, json_t *j, pai__kube_err *err)
{
	const char *t = json_string_value(json_object_get(j, "type"));
	json_t *obj = json_object_get(j, "object");
	int ret;

	if (!(ev->type = event_type(t)))
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "watch: an event of unknown type");
	if (!json_is_object(obj))
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "watch: an event without its object");
	ev->object = json_incref(obj);
	if (ev->type != PAI__KW_ERROR) {
		ev->resource_version = json_string_value(json_object_get(
		    json_object_get(obj, "metadata"), "resourceVersion"));
		return PAI_OK;
	}
	/* an ERROR's object is a Status: 410 Expired (or Gone) = relist */
	if ((ret = pai__kube_status_from_json(&ev->status, obj, 500)))
		return ret;
	ev->expired =
	    ev->status.code == 410 ||
	    (ev->status.reason && (strcmp(ev->status.reason, "Expired") == 0 ||
				   strcmp(ev->status.reason, "Gone") == 0));
	return PAI_OK;
}

static int parse_event(pai__kube_event *ev, const char *line, size_t n,
		       int last, pai__kube_err *err)
{
	json_error_t jerr;
	json_t *j = json_loadb(line, n, 0, &jerr);
	int ret;

	if (!j && json_error_code(&jerr) == json_error_out_of_memory)
		return PAI_ENOMEM;
	if (!json_is_object(j))
		ret = pai__kube_fail(err, PAI_EPROTOCOL,
				     last ? "watch: the stream ended inside an "
					    "event"
					  : "watch: a line that is not a JSON "
					    "event");
	else
		ret = fill_event(ev, j, err);
	json_decref(j);
	if (ret)
		pai__kube_event_release(ev);
	return ret;
}

int pai__kube_watch_next(pai__kube_watch *w, pai__kube_event *ev,
			 pai__kube_err *err)
{
	const char *line;
	size_t n;
	int nl, ret;

	memset(ev, 0, sizeof(*ev));
	if (w->failed)
		return pai__kube_fail(err, PAI_EPROTOCOL,
				      "watch: the stream broke off");
	while (lines_next(&w->l, &line, &n, &nl, 0)) {
		if (n > w->l.max) {
			w->failed = 1;
			return pai__kube_fail(err, PAI_ETOOBIG,
					      "watch: an event longer than %zu "
					      "bytes",
					      w->l.max);
		}
		while (n > 0 && strchr(" \t\r", line[n - 1]))
			n--;
		if (n == 0)
			continue;
		if ((ret = parse_event(ev, line, n, !nl, err)) == PAI_OK)
			return 1;
		if (ret == PAI_EPROTOCOL)
			w->failed = 1;
		return ret;
	}
	return 0;
}

/* ---- the log stream (§6) ---------------------------------------------------
 */

struct pai__kube_log {
	struct lines l;
	int timestamps;
	/* the line being handed out */
	int in_line;	 /* a piece went out, its end has not come */
	int cur_drop;	 /* a resume dropped it */
	size_t cur_skip; /* bytes of its text a resume still skips */
	size_t cur_done; /* bytes of its text printed, now or before */
	int cur_counted; /* it counts among the lines at `last` */
	/* what was printed: the last timestamp, k lines with it, the last
	 * line's text bytes when it is unfinished */
	int have_last, last_open;
	pai__kube_time last;
	unsigned long k;
	size_t last_done;
	/* after a resume: skipping what came before */
	int skipping;
	pai__kube_time t;
	unsigned long skip_k, seen;
	int skip_partial;
	size_t skip_bytes;
};

int pai__kube_log_new(pai__kube_log **out, int timestamps, size_t max_line)
{
	pai__kube_log *l = calloc(1, sizeof(*l));

	*out = l;
	if (!l)
		return PAI_ENOMEM;
	l->timestamps = timestamps;
	l->l.max = max_line ? max_line : PAI__KUBE_MAX_LOG_LINE;
	if (l->l.max < 64)
		l->l.max = 64;
	return PAI_OK;
}

void pai__kube_log_free(pai__kube_log *l)
{
	if (!l)
		return;
	pai__buf_release(&l->l.buf);
	free(l);
}

int pai__kube_log_feed(pai__kube_log *l, const void *data, size_t len)
{
	return lines_feed(&l->l, data, len, 1);
}

void pai__kube_log_end(pai__kube_log *l)
{
	l->l.eof = 1;
}

void pai__kube_log_resume(pai__kube_log *l)
{
	lines_reset(&l->l);
	l->in_line = 0;
	l->skipping = l->timestamps && l->have_last;
	if (!l->skipping)
		return;
	l->t = l->last;
	l->skip_k = l->k;
	l->seen = 0;
	l->skip_partial = l->last_open;
	l->skip_bytes = l->last_done;
}

int pai__kube_log_since(const pai__kube_log *l, char out[32])
{
	char tmp[96];
	time_t sec;
	struct tm tm;

	if (!l->have_last)
		return 0;
	sec = (time_t)l->last.sec;
	/* RFC 3339 has four digits of year, no more, no fewer */
	if (!gmtime_r(&sec, &tm) || tm.tm_year + 1900 > 9999 ||
	    tm.tm_year + 1900 < 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec);
	memcpy(out, tmp, 21);
	return 1;
}

/* What a resume makes of a line that starts with timestamp ts (or has
 * none): dropped, its first bytes skipped, or printed whole. */
static void resume_decide(pai__kube_log *l, const pai__kube_time *ts)
{
	int cmp;

	if (!l->skipping)
		return;
	if (!ts) { /* nothing to judge by: print from here on */
		l->skipping = 0;
		return;
	}
	cmp = pai__kube_time_cmp(ts, &l->t);
	if (cmp > 0 || (cmp == 0 && l->seen >= l->skip_k)) {
		l->skipping = 0;
		return;
	}
	if (cmp < 0) {
		l->cur_drop = 1;
		return;
	}
	if (++l->seen < l->skip_k || !l->skip_partial) {
		l->cur_drop = 1;
		return;
	}
	/* the line printed in part: on from where it stopped */
	l->cur_skip = l->skip_bytes;
	l->cur_done = 0;
	l->cur_counted = 1;
	l->skipping = 0;
}

/* A new line with timestamp ts (or none) begins. */
static void line_start(pai__kube_log *l, const pai__kube_time *ts)
{
	l->cur_drop = 0;
	l->cur_skip = 0;
	l->cur_done = 0;
	l->cur_counted = 0;
	resume_decide(l, ts);
	if (l->cur_drop || l->cur_counted || !ts)
		return;
	if (l->have_last && pai__kube_time_cmp(ts, &l->last) == 0)
		l->k++;
	else {
		l->last = *ts;
		l->k = 1;
	}
	l->have_last = 1;
	l->cur_counted = 1;
}

/* Splits a first piece into timestamp and text (§6: RFC 3339 with
 * nine fractional digits, then a space). */
static int split_ts(pai__kube_log *l, pai__kube_log_line *line,
		    pai__kube_time *ts)
{
	size_t n = 0;

	if (l->timestamps)
		n = pai__kube_time_parse(ts, line->text, line->len);
	if (!n || n >= line->len || line->text[n] != ' ')
		return 0;
	line->ts = line->text;
	line->ts_len = n;
	line->text += n + 1;
	line->len -= n + 1;
	return 1;
}

int pai__kube_log_next(pai__kube_log *l, pai__kube_log_line *line)
{
	pai__kube_time ts;
	size_t skip;
	int nl, first, has_ts;

	while (lines_next(&l->l, &line->text, &line->len, &nl, 1)) {
		line->ts = NULL;
		line->ts_len = 0;
		line->newline = nl;
		first = !l->in_line;
		l->in_line = !nl;
		has_ts = first && split_ts(l, line, &ts);
		if (first)
			line_start(l, has_ts ? &ts : NULL);
		if (l->cur_drop)
			continue;
		skip = l->cur_skip < line->len ? l->cur_skip : line->len;
		l->cur_skip -= skip;
		line->text += skip;
		line->len -= skip;
		l->cur_done += skip + line->len;
		if (l->cur_counted) {
			l->last_open = !nl;
			l->last_done = l->cur_done;
		}
		if (skip) /* its start, timestamp too, was printed before */
			line->ts = NULL;
		if (line->len == 0 && !nl && !line->ts)
			continue;
		return 1;
	}
	return 0;
}
