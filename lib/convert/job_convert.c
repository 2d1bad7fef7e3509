/* job_convert.c - pai_job_convert(): a v1 JSON config to protocol-v2 YAML
 * and back. The input is parsed and validated as pai_job_parse() does;
 * the two directions live in convert_v1v2.c and convert_v2v1.c; what
 * they write is parsed again here, so that a conversion never hands over
 * a config its own format refuses. */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

/* What a conversion wrote must validate in its format; anything else is
 * a bug here, reported as PAI_ERROR, never handed over. */
static int check_output(const char *name, const char *text, size_t len,
			const pai_job_options *opts, pai_format to)
{
	pai_job_options o = *opts;
	pai_diags *scratch = NULL;
	pai_job *job = NULL;
	int err;

	o.format = to;
	err = pai_diags_new(&scratch);
	if (err)
		return err;
	err = pai_job_parse(&job, scratch, name, text, len, &o);
	if (err && err != PAI_ENOMEM)
		err = PAI_ERROR;
	pai_job_free(job);
	pai_diags_free(scratch);
	return err;
}

int pai_job_convert(char **out, size_t *len, pai_diags *diags, const char *name,
		    const char *text, size_t text_len,
		    const pai_job_options *opts, pai_format to)
{
	pai__buf b = PAI__BUF_INIT;
	pai_job_options o;
	pai_job *job = NULL;
	size_t n;
	int err;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (!out || !diags || !name || !text ||
	    (to != PAI_FORMAT_V1 && to != PAI_FORMAT_V2))
		return PAI_EINVAL;
	err = pai__job_options(&o, opts);
	if (err)
		return err;
	err = pai_job_parse(&job, diags, name, text, text_len, &o);
	if (err)
		goto out;
	if (pai_job_format(job) == to)
		pai__buf_put(&b, text, text_len); /* nothing to convert */
	else if (to == PAI_FORMAT_V2)
		err =
		    pai__convert_v1_to_v2(&b, diags, name, text, text_len, job);
	else
		err =
		    pai__convert_v2_to_v1(&b, diags, name, text, text_len, job);
	if (err)
		goto out;
	if (b.oom) {
		err = PAI_ENOMEM;
		goto out;
	}
	n = b.len;
	err = check_output(name, b.data ? b.data : "", n, &o, to);
	if (err)
		goto out;
	*out = pai__buf_detach(&b);
	if (!*out) {
		err = PAI_ENOMEM;
		goto out;
	}
	if (len)
		*len = n;
out:
	pai__buf_release(&b);
	pai_job_free(job);
	return err;
}
