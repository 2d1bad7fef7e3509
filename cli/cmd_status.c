/* cmd_status.c - paictl status: a job's state, times and tasks */
#include "cli.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

const cli_opt cli_status_opts[] = {CLI_OPT_END};

/* "http:4000 ssh:4001,4002" */
static char *ports_text(json_t *ports)
{
	const char *label;
	json_t *v;
	char *s = NULL;
	size_t len = 0;
	int sep = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	json_object_foreach(ports, label, v)
	{
		if (sep++)
			fputc(' ', f);
		if (json_is_string(v))
			fprintf(f, "%s:%s", label, json_string_value(v));
		else if (json_is_integer(v))
			fprintf(f, "%s:%lld", label,
				(long long)json_integer_value(v));
		else
			fprintf(f, "%s:?", label);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void field(const char *key, const char *value)
{
	printf("%-11s %s\n", key, value && *value ? value : "-");
}

/* name:, user:, state: ... one line each */
static void print_fields(const pai_job_info *info)
{
	json_t *st = json_object_get(pai_job_info_json(info), "jobStatus");
	const char *diag =
	    json_string_value(json_object_get(st, "appExitDiagnostics"));
	const char *warn =
	    json_string_value(json_object_get(st, "localWarnings"));
	const char *state = pai_state_name(pai_job_info_state(info));
	char buf[64];
	int has_exit = 0, code;

	field("name:", pai_job_info_name(info));
	field("user:", pai_job_info_user(info));
	if (cli_color(stdout) && *cli_sgr(state))
		printf("%-11s %s%s" CLI_SGR_OFF "\n", "state:", cli_sgr(state),
		       state);
	else
		field("state:", state);
	field("vc:", pai_job_info_vc(info));
	cli_format_time(buf, sizeof(buf), pai_job_info_created_ms(info));
	field("created:", buf);
	cli_format_time(buf, sizeof(buf), pai_job_info_completed_ms(info));
	field("completed:", buf);
	snprintf(buf, sizeof(buf), "%ld", pai_job_info_retries(info));
	field("retries:", buf);
	code = pai_job_info_exit_code(info, &has_exit);
	snprintf(buf, sizeof(buf), "%d", code);
	field("exit code:", has_exit ? buf : NULL);
	if (diag && *diag)
		field("reason:", diag);
	/* a note a line */
	for (; warn && *warn; warn += strcspn(warn, "\n") + (warn[strcspn(warn, "\n")] != 0))
		printf("%-11s %.*s\n", "warnings:", (int)strcspn(warn, "\n"),
		       warn);
}

/* The columns of the tasks' table: paictl's, and what Kubernetes tells
 * of a task's pod besides (its status JSON has podName). */
enum { COL_BASE = 6, COL_K8S = 10 };

static int has_pods(const pai_job_info *info, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (json_object_get(pai_job_info_task_json(info, i), "podName"))
			return 1;
	return 0;
}

static const char *str_or(json_t *t, const char *key)
{
	const char *s = json_string_value(json_object_get(t, key));

	return s && *s ? s : "-";
}

/* Row i of a Kubernetes job's table: pod, node, restarts and why the
 * pod is not running as it should (a waiting or terminated reason). */
static void k8s_cells(const pai_job_info *info, size_t i, const char **row,
		      char **restarts)
{
	json_t *t = pai_job_info_task_json(info, i);
	json_int_t n = json_integer_value(json_object_get(t, "retries"));

	if (asprintf(restarts, "%lld", (long long)n) < 0)
		*restarts = NULL;
	/* podName is the pod's whether it exists or not; containerId only
	 * when it does */
	row[6] = json_string_value(json_object_get(t, "containerId"))
		     ? str_or(t, "podName")
		     : "-";
	row[7] = str_or(t, "containerNodeName");
	row[8] = *restarts ? *restarts : "-";
	row[9] = str_or(t, "containerExitDiagnostics");
}

/* The table of the n tasks, in cells (n + 1 rows of ncol) with the
 * strings made for it in owned (4 per task, freed by the caller). */
static void print_tasks(const pai_job_info *info, size_t n, size_t ncol,
			const char **cells, char **owned)
{
	static const char *const head[] = {"ROLE",     "INDEX", "STATE", "IP",
					   "PORTS",    "EXIT",	"POD",	 "NODE",
					   "RESTARTS", "REASON"};
	size_t i;

	for (i = 0; i < ncol; i++)
		cells[i] = head[i];
	for (i = 0; i < n; i++) {
		const pai_task_info *t = pai_job_info_task(info, i);
		const char **row = cells + (i + 1) * ncol;
		char *ports = t ? ports_text(t->ports) : NULL;

		owned[i * 4] = ports;
		if (t && asprintf(&owned[i * 4 + 1], "%ld", t->index) < 0)
			owned[i * 4 + 1] = NULL;
		if (t && t->has_exit_code &&
		    asprintf(&owned[i * 4 + 2], "%d", t->exit_code) < 0)
			owned[i * 4 + 2] = NULL;
		row[0] = t && t->role ? t->role : "-";
		row[1] = owned[i * 4 + 1] ? owned[i * 4 + 1] : "-";
		row[2] = t ? pai_state_name(t->state) : "-";
		row[3] = t && t->ip ? t->ip : "-";
		row[4] = ports && *ports ? ports : "-";
		row[5] = owned[i * 4 + 2] ? owned[i * 4 + 2] : "-";
		if (ncol == COL_K8S)
			k8s_cells(info, i, row, &owned[i * 4 + 3]);
	}
	putchar('\n');
	cli_table_print(stdout, ncol, n + 1, cells);
}

static int print_text(const pai_job_info *info)
{
	size_t n = pai_job_info_task_count(info), i;
	size_t ncol = has_pods(info, n) ? COL_K8S : COL_BASE;
	const char **cells = calloc((n + 1) * ncol, sizeof(*cells));
	char **owned = calloc(n * 4 + 1, sizeof(*owned));

	if (!cells || !owned) {
		free(cells);
		free(owned);
		return -1;
	}
	print_fields(info);
	if (n)
		print_tasks(info, n, ncol, cells, owned);
	for (i = 0; i < n * 4; i++)
		free(owned[i]);
	free(owned);
	free(cells);
	return 0;
}

int cmd_status(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	pai_job_info *info = NULL;
	char *user = NULL, *name = NULL;
	int first, st, err;

	st = cli_parse(ctx, argc, argv, NULL, NULL, &first);
	if (st >= 0)
		return st;
	st = cli_open_job(ctx, argc, argv, first, &conn, &user, &name);
	if (st)
		goto out;
	do
		err = pai_job_get(&info, conn->client, user, name);
	while (err && cli_relogin(ctx, conn, err));
	if (err) {
		st = cli_fail(ctx, conn, err, "cannot get job '%s'",
			      argv[first]);
		goto out;
	}
	if (ctx->output == CLI_OUT_JSON) {
		/* the server's detail, as it sent it */
		if (json_dumpf(pai_job_info_json(info), stdout,
			       JSON_INDENT(2)) < 0)
			st = EXIT_FAILURE_;
		else
			putchar('\n');
	} else if (print_text(info) < 0)
		st = cli_error(ctx, EXIT_FAILURE_, "out of memory");
out:
	pai_job_info_free(info);
	free(user);
	free(name);
	cli_conn_free(conn);
	return cli_finish(ctx, st);
}
