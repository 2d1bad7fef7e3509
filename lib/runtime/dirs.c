/* dirs.c - the submit-time substitution OpenPAI v0.x's rest-server makes
 * in a config's directories (models/job.js, putJob): $PAI_DEFAULT_FS_URI,
 * $PAI_JOB_NAME and the user's name in authFile, dataDir, outputDir and
 * codeDir, and an empty outputDir's default. The v0.x runtime's
 * PAI_*_DIR variables are these values. */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

enum { DIR_AUTH, DIR_DATA, DIR_OUTPUT, DIR_CODE, NDIRS };

static const char *const dir_keys[NDIRS] = {"authFile", "dataDir", "outputDir",
					    "codeDir"};

struct pai_dirs {
	char *dir[NDIRS];
};

/* One of the server's String.prototype.replace calls: each (or only the
 * first) occurrence of one of names by `with`; with `boundary`, only
 * where no word character follows, like its regex's (?![\w\d]). */
static void replace(pai__buf *out, const char *s, const char *const *names,
		    size_t nnames, const char *with, bool all, bool boundary)
{
	bool done = false;
	size_t k, n;

	while (*s) {
		if (*s == '$' && !done) {
			for (k = 0; k < nnames; k++) {
				n = strlen(names[k]);
				if (strncmp(s, names[k], n) == 0 &&
				    !(boundary &&
				      pai__is_name_char((unsigned char)s[n])))
					break;
			}
			if (k < nnames) {
				pai__buf_puts(out, with);
				s += n;
				done = !all;
				continue;
			}
		}
		pai__buf_putc(out, *s++);
	}
}

/* The server's three replace calls, in its order (rest-server, models
 * job.js, putJob):
 *   .replace('$PAI_DEFAULT_FS_URI', hdfsUri)   a string pattern: only the
 *                                              first one, and no boundary
 *   .replace(/\$PAI_JOB_NAME(?![\w\d])/g, name)
 *   .replace(/(\$PAI_USER_NAME|\$PAI_USERNAME)(?![\w\d])/g, userName)
 * So "$PAI_USERNAMEX" and "$PAI_USER_NAME_2" stay as they are: the regex
 * needs a non-word character (or the end) after the name, and tries the
 * longer spelling only where the shorter one fails. */
static char *server_subst(const char *s, const char *job, const char *user,
			  const char *fs)
{
	static const char *const fs_names[] = {"$PAI_DEFAULT_FS_URI"};
	static const char *const job_names[] = {"$PAI_JOB_NAME"};
	static const char *const user_names[] = {"$PAI_USER_NAME",
						 "$PAI_USERNAME"};
	pai__buf a = PAI__BUF_INIT, b = PAI__BUF_INIT;
	char *out = NULL;

	replace(&a, s, fs_names, 1, fs, false, false);
	if (a.oom)
		goto out;
	replace(&b, a.data ? a.data : "", job_names, 1, job, true, true);
	pai__buf_release(&a);
	if (b.oom)
		goto out;
	replace(&a, b.data ? b.data : "", user_names, 2, user, true, true);
	out = pai__buf_detach(&a);
out:
	pai__buf_release(&a);
	pai__buf_release(&b);
	return out;
}

int pai_expand_dirs(pai_dirs **out, const pai_job *job,
		    const pai_expand_options *opts)
{
	const char *user = pai__opt_user(opts), *fs = pai__opt_fs_uri(opts);
	const char *name = pai_job_name(job);
	pai_dirs *d = NULL;
	char *dflt = NULL;
	int err = PAI_ENOMEM, k;

	if (out)
		*out = NULL;
	if (!out || !job ||
	    (opts && opts->version != PAI_EXPAND_OPTIONS_VERSION))
		return PAI_EINVAL;
	if (!name)
		name = "";
	d = calloc(1, sizeof(*d));
	if (!d)
		goto out;
	for (k = 0; k < NDIRS; k++) {
		const char *v = json_string_value(
		    json_object_get(pai_job_config(job), dir_keys[k]));

		/* The server tests the config as submitted: "" or absent. It
		 * builds the default from its own URI and the bare job name,
		 * then runs the substitution over it like any other. */
		if (k == DIR_OUTPUT && (!v || !*v)) {
			pai__buf b = PAI__BUF_INIT;

			pai__buf_printf(&b, "%s/Output/%s/%s", fs, user, name);
			dflt = pai__buf_detach(&b);
			if (!dflt)
				goto out;
			v = dflt;
		}
		d->dir[k] = server_subst(v ? v : "", name, user, fs);
		free(dflt);
		dflt = NULL;
		if (!d->dir[k])
			goto out;
	}
	*out = d;
	d = NULL;
	err = PAI_OK;
out:
	free(dflt);
	pai_dirs_free(d);
	return err;
}

void pai_dirs_free(pai_dirs *dirs)
{
	int k;

	if (!dirs)
		return;
	for (k = 0; k < NDIRS; k++)
		free(dirs->dir[k]);
	free(dirs);
}

static const char *dir_of(const pai_dirs *d, int k)
{
	return d && d->dir[k] ? d->dir[k] : "";
}

const char *pai_dirs_auth_file(const pai_dirs *dirs)
{
	return dir_of(dirs, DIR_AUTH);
}

const char *pai_dirs_data_dir(const pai_dirs *dirs)
{
	return dir_of(dirs, DIR_DATA);
}

const char *pai_dirs_output_dir(const pai_dirs *dirs)
{
	return dir_of(dirs, DIR_OUTPUT);
}

const char *pai_dirs_code_dir(const pai_dirs *dirs)
{
	return dir_of(dirs, DIR_CODE);
}
