/* validate.c - libpai example: validate job configs as the cluster will
 * and print every diagnostic as JSON.
 *
 *     cc validate.c $(pkg-config --cflags --libs pai) -o validate
 *     ./validate job.json [more.json ...]
 *
 * Prints one JSON array of diagnostics (file, line, column, path, rule,
 * severity, message) for all files; exits 0 when every file is valid,
 * 3 when one is not, 1 when a file cannot be read. */
#include <pai.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	pai_diags *diags = NULL;
	json_t *all;
	int i, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s JOB.json|JOB.yaml...\n", argv[0]);
		return 2;
	}
	if (pai_diags_new(&diags) != PAI_OK)
		return 1;
	for (i = 1; i < argc; i++) {
		pai_job *job = NULL;
		char *text = NULL;
		size_t len = 0;
		int sys_errno = 0, err;

		err = pai_file_read(&text, &len, &sys_errno, argv[i]);
		if (err != PAI_OK) {
			fprintf(stderr, "validate: %s: %s\n", argv[i],
				pai_strerror(err));
			status = 1;
			continue;
		}
		/* NULL options: the format from the name and the text, the
		 * openpai dialect, HiveD for protocol v2 */
		err = pai_job_parse(&job, diags, argv[i], text, len, NULL);
		if (err == PAI_ESYNTAX || err == PAI_EINVALID) {
			if (status == 0)
				status = 3;
		} else if (err != PAI_OK) {
			fprintf(stderr, "validate: %s: %s\n", argv[i],
				pai_strerror(err));
			status = 1;
		}
		pai_job_free(job);
		free(text);
	}
	all = pai_diags_to_json(diags);
	if (!all || json_dumpf(all, stdout, JSON_INDENT(2)) != 0 ||
	    putchar('\n') == EOF || fflush(stdout) != 0)
		status = 1;
	json_decref(all);
	pai_diags_free(diags);
	return status;
}
