/* slurm_acct.c - finished jobs from Slurm's accounting (slurmdbd, through
 * slurmrestd's /slurmdb/; reference/slurm-next/README.md): the user's
 * jobs of a name, or of every name lately, read as paictl reads
 * slurmctld's (slurm_shapes.c), kept where they are paictl's: a job whose
 * comment is paictl's (accounting keeps comments with
 * AccountingStoreFlags=job_comment), or that ran in the profile's
 * working directory. Where there is no accounting, PAI_ENOTSUP: callers
 * go on as without it. */
#include "slurm_api.h"

#include "client/url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How far back accounting is read unless the caller says. */
#define ACCT_LIST_DAYS 30

/* 1 when accounting's job j (read so) is one of paictl's: its comment
 * says so, or (accounting keeping no comments) it ran in the profile's
 * working directory and, where this machine sees that, a directory of
 * its name is there. */
static int ours(pai_client *c, json_t *j)
{
	struct pai__slurm_note n;
	const char *wd = pai__json_str(j, "current_working_directory");
	const char *w = pai__slurm_of(c)->s.workdir;
	const char *name = pai__json_str(j, "name");
	char *d = NULL;
	int mine;

	if (pai__slurm_note(&n, j))
		return 1;
	if (!wd || !w || !name || strcmp(wd, w) != 0)
		return 0;
	if (!pai__slurm_seen(w))
		return 1;
	mine = asprintf(&d, "%s/%s", w, name) >= 0 && pai__slurm_seen(d);
	free(d);
	return mine;
}

int pai__slurm_acct_jobs(json_t **out, pai_client *c, const char *user,
			 const char *name, long long since_s)
{
	pai__buf q = PAI__BUF_INIT;
	json_t *o = NULL, *all = NULL, *j;
	size_t i;
	int err;

	*out = NULL;
	pai__buf_puts(&q, "jobs?skip_steps=true&users=");
	pai__buf_put_escaped(&q, user);
	if (name) {
		pai__buf_puts(&q, "&job_name=");
		pai__buf_put_escaped(&q, name);
	}
	pai__buf_printf(&q, "&start_time=%lld",
			since_s > 0 ? since_s
				    : (long long)time(NULL) -
					  ACCT_LIST_DAYS * 86400LL);
	if (q.oom) {
		pai__buf_release(&q);
		return pai__client_oom(c);
	}
	err = pai__slurm_db_get(&o, c, q.data);
	pai__buf_release(&q);
	if (err)
		return err;
	if ((err = pai__slurm_acct_jobs_read(o, &all))) {
		json_decref(o);
		return err == PAI_ENOMEM
			   ? pai__client_oom(c)
			   : pai__client_fail(c, err, 200, NULL,
					      "slurmrestd's accounting answer "
					      "has no \"jobs\" list");
	}
	json_decref(o);
	/* not paictl's: left out, from the end so that the indexes hold */
	for (i = json_array_size(all); i-- > 0;) {
		j = json_array_get(all, i);
		if (!ours(c, j))
			json_array_remove(all, i);
	}
	*out = all;
	return PAI_OK;
}
