/* cmd_list.c - paictl list: the user's jobs, newest first */
#include "cli.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_STATE = 256, OPT_ALL, OPT_SINCE };

const cli_opt cli_list_opts[] = {
    {"state", OPT_STATE, "STATE",
     "waiting|running|stopping|succeeded|failed|stopped",
     "only jobs in STATE (several: a comma-separated list)"},
    {"limit", 'n', "N", NULL, "at most N jobs, the newest"},
    {"since", OPT_SINCE, "TIME", NULL,
     "only jobs created at TIME or later: 2h, 3d (ago; s, m, h, d, w), "
     "2026-12-01, 2026-12-01T10:00[:00][Z] (local time, Z UTC) or "
     "@SECONDS"},
    {"all", OPT_ALL, NULL, NULL,
     "everyone's jobs (Kubernetes: every Volcano Job of the namespace, "
     "not only paictl's)"},
    CLI_OPT_END};

struct opts {
	unsigned states; /* bit per pai_state; 0: any */
	long limit;	 /* 0: none */
	int all;
	long long since_ms; /* 0: none */
};

/* "2h" (s, m, h, d, w ago) or "@SECONDS" as seconds since 1970; 0 when
 * s is neither. */
static long long since_relative(const char *s, time_t now)
{
	static const struct {
		char unit;
		long long seconds;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400},
		     {'w', 7 * 86400}};
	char *end;
	long long n;
	size_t i;

	if (*s < '0' || *s > '9')
		return *s == '@' && s[1] >= '0' && s[1] <= '9' &&
			       (n = strtoll(s + 1, &end, 10)) > 0 && !*end &&
			       n < 100000LL * 366 * 86400
			   ? n
			   : 0;
	n = strtoll(s, &end, 10);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit && !end[1] && n >= 0 &&
		    n <= (long long)now / units[i].seconds)
			return (long long)now - n * units[i].seconds;
	return 0;
}

/* "YYYY-MM-DD[(T| )HH:MM[:SS]][Z]" (local time; Z: UTC) as seconds
 * since 1970; 0 when s is not one. */
static long long since_date(const char *s)
{
	struct tm tm;
	int n = 0, m = 0, k = 0, z = 0;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &n) != 3 || n != 10)
		return 0;
	if ((s[n] == 'T' || s[n] == ' ') &&
	    sscanf(s + n + 1, "%2d:%2d%n:%2d%n", &tm.tm_hour, &tm.tm_min, &m,
		   &tm.tm_sec, &k) >= 2)
		n += 1 + (k ? k : m);
	z = s[n] == 'Z';
	if (s[n + z] || tm.tm_year < 1970 || tm.tm_mon < 1 || tm.tm_mon > 12 ||
	    tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || tm.tm_sec > 59 || tm.tm_hour < 0 ||
	    tm.tm_min < 0 || tm.tm_sec < 0)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	t = z ? timegm(&tm) : mktime(&tm);
	return t > 0 ? (long long)t : 0;
}

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	struct opts *o = data;
	char *copy, *tok, *save = NULL, *end;
	pai_state s;

	switch (key) {
	case OPT_STATE:
		copy = strdup(arg);
		if (!copy)
			return cli_error(ctx, EXIT_FAILURE_, "out of memory");
		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (pai_state_from_name(&s, tok)) {
				free(copy);
				return cli_error(
				    ctx, EXIT_USAGE,
				    "unknown state '%s' (use waiting, "
				    "running, stopping, succeeded, failed "
				    "or stopped)",
				    arg);
			}
			o->states |= 1u << s;
		}
		free(copy);
		if (!o->states)
			return cli_error(ctx, EXIT_USAGE,
					 "--state needs a state");
		return 0;
	case OPT_ALL: o->all = 1; return 0;
	case OPT_SINCE:
		if (!(o->since_ms = since_relative(arg, time(NULL))) &&
		    !(o->since_ms = since_date(arg)))
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --since '%s' (a time: 2h, "
					 "3d, 2026-12-01, 2026-12-01T10:00Z or "
					 "@SECONDS)",
					 arg);
		o->since_ms *= 1000;
		return 0;
	case 'n':
		o->limit = strtol(arg, &end, 10);
		if (!*arg || *end || o->limit < 1)
			return cli_error(ctx, EXIT_USAGE,
					 "invalid --limit '%s' (a number, 1 "
					 "or more)",
					 arg);
		return 0;
	}
	return EXIT_USAGE;
}

static int newest_first(const void *a, const void *b)
{
	const pai_job_info *x = *(const pai_job_info *const *)a;
	const pai_job_info *y = *(const pai_job_info *const *)b;
	long long cx = pai_job_info_created_ms(x),
		  cy = pai_job_info_created_ms(y);

	return cx < cy ? 1 : cx > cy ? -1 : 0;
}

/* The jobs of list that o lets through, newest first, at most o's
 * limit: into jobs (room for them all); returns how many. */
static size_t select_jobs(const pai_job_info **jobs, const pai_job_list *list,
			  const struct opts *o)
{
	size_t n = pai_job_list_count(list), i, k = 0;

	for (i = 0; i < n; i++) {
		const pai_job_info *j = pai_job_list_get(list, i);

		if (j &&
		    (!o->states ||
		     (o->states & (1u << pai_job_info_state(j)))) &&
		    (!o->since_ms || pai_job_info_created_ms(j) >= o->since_ms))
			jobs[k++] = j;
	}
	/* servers differ in their order; scripts want the newest first */
	qsort(jobs, k, sizeof(*jobs), newest_first);
	if (o->limit && (size_t)o->limit < k)
		k = (size_t)o->limit;
	return k;
}

static int print_json(const pai_job_info **jobs, size_t k)
{
	json_t *arr = json_array();
	size_t i;
	int st = EXIT_OK;

	for (i = 0; arr && i < k; i++)
		json_array_append(arr, pai_job_info_json(jobs[i]));
	if (!arr || json_dumpf(arr, stdout, JSON_INDENT(2)) < 0)
		st = EXIT_FAILURE_;
	else
		putchar('\n');
	json_decref(arr);
	return st;
}

/* NAME STATE CREATED COMPLETED, a row per job (k > 0). */
static int print_table(const cli_ctx *ctx, const pai_job_info **jobs, size_t k)
{
	const char **cells = calloc((k + 1) * 4, sizeof(*cells));
	char(*times)[2][32] = calloc(k, sizeof(*times));
	size_t i;

	if (!cells || !times) {
		free(cells);
		free(times);
		return cli_error(ctx, EXIT_FAILURE_, "out of memory");
	}
	cells[0] = "NAME";
	cells[1] = "STATE";
	cells[2] = "CREATED";
	cells[3] = "COMPLETED";
	for (i = 0; i < k; i++) {
		const char *name = pai_job_info_name(jobs[i]);

		cli_format_time(times[i][0], sizeof(times[i][0]),
				pai_job_info_created_ms(jobs[i]));
		cli_format_time(times[i][1], sizeof(times[i][1]),
				pai_job_info_completed_ms(jobs[i]));
		cells[(i + 1) * 4] = name ? name : "-";
		cells[(i + 1) * 4 + 1] =
		    pai_state_name(pai_job_info_state(jobs[i]));
		cells[(i + 1) * 4 + 2] = times[i][0];
		cells[(i + 1) * 4 + 3] = times[i][1];
	}
	cli_table_print(stdout, 4, k + 1, cells);
	free(cells);
	free(times);
	return EXIT_OK;
}

int cmd_list(cli_ctx *ctx, int argc, char **argv)
{
	struct opts o = {0, 0, 0, 0};
	cli_conn *conn = NULL;
	pai_job_list *list = NULL;
	const pai_job_info **jobs = NULL;
	size_t k;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, on_opt, &o, &first);
	if (st >= 0)
		return st;
	if (first < argc)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; see 'paictl list "
				 "--help'",
				 argv[first]);
	st = cli_open(ctx, &conn);
	if (st)
		return st;
	do
		err = pai_jobs_list_since(&list, conn->client,
					  o.all ? NULL : conn->user,
					  o.since_ms);
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		st = cli_fail(ctx, conn, err, "cannot list the jobs of %s",
			      conn->user);
		goto out;
	}
	k = pai_job_list_count(list);
	jobs = calloc(k ? k : 1, sizeof(*jobs));
	if (!jobs) {
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
		goto out;
	}
	k = select_jobs(jobs, list, &o);
	if (ctx->output == CLI_OUT_JSON)
		st = print_json(jobs, k);
	else if (k)
		st = print_table(ctx, jobs, k);
out:
	free(jobs);
	pai_job_list_free(list);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
