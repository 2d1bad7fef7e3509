/* submit.c - libpai example: submit a job config and wait for the job to
 * end, printing each state it passes through.
 *
 *     cc submit.c $(pkg-config --cflags --libs pai) -o submit
 *     ./submit URI USER JOB.json [TOKEN]
 *
 * URI is the cluster's REST server (http://host:9186), or unix:PATH for
 * a local cluster's socket (`paictl serve`), which needs no token.
 * Exits 0 when the job SUCCEEDED, 9 when it ended otherwise, 1 on an
 * error. */
#include <pai.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int open_client(pai_client **c, const char *uri, const char *token)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;

	if (strncmp(uri, "unix:", 5) == 0) {
		o.unix_socket = uri + 5;
		o.uri = "http://localhost";
	} else {
		o.uri = uri;
	}
	o.token = token;
	return pai_client_new(c, &o);
}

/* The job's config, as pai_job_parse() validated it. */
static int read_config(json_t **config, const char *path)
{
	pai_diags *diags = NULL;
	pai_job *job = NULL;
	char *text = NULL;
	size_t len = 0;
	int sys_errno = 0, err;

	*config = NULL;
	if ((err = pai_diags_new(&diags)) != PAI_OK)
		return err;
	err = pai_file_read(&text, &len, &sys_errno, path);
	if (err == PAI_OK)
		err = pai_job_parse(&job, diags, path, text, len, NULL);
	if (err == PAI_OK)
		*config = json_incref(pai_job_config(job));
	else if (pai_diags_count(diags) > 0)
		fprintf(stderr, "submit: %s:%u:%u: %s\n", path,
			pai_diags_get(diags, 0)->line,
			pai_diags_get(diags, 0)->column,
			pai_diags_get(diags, 0)->message);
	pai_job_free(job);
	pai_diags_free(diags);
	free(text);
	return err;
}

/* Polls the job until it ends: its final state, or PAI_STATE_UNKNOWN. */
static pai_state wait_job(pai_client *c, const char *user, const char *name)
{
	const struct timespec second = {1, 0};
	pai_state last = PAI_STATE_UNKNOWN;

	for (;;) {
		pai_job_info *info = NULL;
		pai_state st;
		int err = pai_job_get(&info, c, user, name);

		if (err != PAI_OK) {
			fprintf(stderr, "submit: %s: %s\n", name,
				pai_strerror(err));
			return PAI_STATE_UNKNOWN;
		}
		st = pai_job_info_state(info);
		pai_job_info_free(info);
		if (st != last)
			printf("%s %s\n", name, pai_state_name(st));
		fflush(stdout);
		last = st;
		if (pai_state_is_final(st))
			return st;
		nanosleep(&second, NULL);
	}
}

int main(int argc, char **argv)
{
	pai_client *c = NULL;
	json_t *config = NULL;
	const char *name;
	pai_state end = PAI_STATE_UNKNOWN;
	int recovered = 0, err;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s URI USER JOB.json [TOKEN]\n",
			argv[0]);
		return 2;
	}
	err = read_config(&config, argv[3]);
	if (err == PAI_OK)
		err = open_client(&c, argv[1], argc > 4 ? argv[4] : NULL);
	if (err == PAI_OK)
		err = pai_submit(c, argv[2], config, &recovered);
	if (err != PAI_OK) {
		fprintf(stderr, "submit: %s\n", pai_strerror(err));
	} else {
		name = json_string_value(json_object_get(config, "jobName"));
		if (!name) /* protocol v2 */
			name = json_string_value(json_object_get(config, "name"));
		end = wait_job(c, argv[2], name);
	}
	json_decref(config);
	pai_client_free(c);
	if (err != PAI_OK || end == PAI_STATE_UNKNOWN)
		return 1;
	return end == PAI_STATE_SUCCEEDED ? 0 : 9;
}
