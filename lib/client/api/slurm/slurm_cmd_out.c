/* slurm_cmd_out.c - what Slurm's commands print on a login node, read
 * as paictl reads slurmrestd's answers (reference/slurm-next/README.md,
 * "The CLI over ssh"): `sbatch --parsable` (the id, or "id;cluster"),
 * `squeue --json` and `sacct --json` (the same data_parser as
 * slurmrestd's: read by slurm_shapes.c), and, for a Slurm without
 * --json (before 21.08), `squeue --format` / `sacct --parsable2` lines
 * of columns split by a delimiter, read strictly: a line with another
 * count of columns, a number that is not one, a field past its bound is
 * refused, never guessed at. Knows no transport: the bytes come from
 * slurm_ssh.c (or a fuzzer). */
#include "slurm_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sbatch --parsable ------------------------------------------------ */

/* s[0..n) all digits, 1 to 18 of them, as a number; -1: not so. */
static long long digits(const char *s, size_t n)
{
	long long v = 0;
	size_t i;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int cluster_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
}

int pai__slurm_parsable_read(long long *id, char *cluster, size_t size,
			     const char *out, size_t len)
{
	size_t n, i;

	*id = 0;
	if (size)
		cluster[0] = '\0';
	if (len && out[len - 1] == '\n')
		len--;
	n = 0;
	while (n < len && out[n] != ';')
		n++;
	if ((*id = digits(out, n)) <= 0) {
		*id = 0;
		return PAI_EPROTOCOL;
	}
	if (n == len)
		return PAI_OK;
	/* ";cluster": a name of one or more plain characters */
	if (len - n - 1 == 0 || len - n - 1 >= size) {
		*id = 0;
		return PAI_EPROTOCOL;
	}
	for (i = n + 1; i < len; i++)
		if (!cluster_char(out[i])) {
			*id = 0;
			return PAI_EPROTOCOL;
		}
	memcpy(cluster, out + n + 1, len - n - 1);
	cluster[len - n - 1] = '\0';
	return PAI_OK;
}

/* ---- squeue --json, sacct --json ----------------------------------------- */

int pai__slurm_cmd_json(json_t **jobs, const char *out, size_t len, int acct)
{
	json_t *o, *list = NULL;
	int err;

	*jobs = NULL;
	if (len > PAI__SLURM_OUT_MAX)
		return PAI_EPROTOCOL;
	if (!(o = json_loadb(out, len, JSON_REJECT_DUPLICATES, NULL)))
		return PAI_EPROTOCOL;
	if (acct)
		err = pai__slurm_acct_jobs_read(o, &list);
	else if (!(err = pai__slurm_jobs_read(o, &list)))
		json_incref(list);
	json_decref(o);
	*jobs = err ? NULL : list;
	return err;
}

/* ---- --format columns ------------------------------------------------------
 */

/* One column: what asks for it (squeue's --format letter, sacct's
 * field), the member of the job it becomes, and its kind. */
struct column {
	const char *spec, *key;
	char kind; /* 'n' a number, 's' a string, 'S' a state, 'e' an exit code
		    */
};

/* The same count of columns in both; the comment last. */
#define NCOLUMNS 8
static const struct column squeue_columns[NCOLUMNS] = {
    {"%A", "job_id", 'n'},	 {"%j", "name", 's'},
    {"%u", "user_name", 's'},	 {"%T", "job_state", 'S'},
    {"%r", "state_reason", 's'}, {"%P", "partition", 's'},
    {"%N", "nodes", 's'},	 {"%k", "comment", 's'},
};
static const struct column sacct_columns[NCOLUMNS] = {
    {"JobIDRaw", "job_id", 'n'},    {"JobName", "name", 's'},
    {"User", "user_name", 's'},	    {"State", "job_state", 'S'},
    {"ExitCode", "exit_code", 'e'}, {"Partition", "partition", 's'},
    {"NodeList", "nodes", 's'},	    {"Comment", "comment", 's'},
};

char *pai__slurm_fmt_spec(int acct)
{
	const struct column *cols = acct ? sacct_columns : squeue_columns;
	pai__buf b = PAI__BUF_INIT;
	size_t i;

	for (i = 0; i < NCOLUMNS; i++) {
		if (i)
			pai__buf_puts(&b, acct ? "," : PAI__SLURM_DELIM_S);
		pai__buf_puts(&b, cols[i].spec);
	}
	if (b.oom) {
		pai__buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* "a:b" (sacct's ExitCode: the code, the signal) as a wait status; -1
 * when it is not one. */
static long long exit_field(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	long long code, sig;

	if (!colon)
		return -1;
	code = digits(s, (size_t)(colon - s));
	sig = digits(colon + 1, n - (size_t)(colon - s) - 1);
	if (code < 0 || code > 255 || sig < 0 || sig > 127)
		return -1;
	return sig ? sig : code << 8;
}

/* Field s[0..n) of column c into job j: PAI_OK, PAI_EPROTOCOL when it is
 * not of its kind, PAI_ENOMEM. */
static int field(json_t *j, const struct column *c, const char *s, size_t n)
{
	char buf[PAI__SLURM_FIELD_MAX + 1];
	long long v;
	json_t *val;

	if (n > PAI__SLURM_FIELD_MAX || memchr(s, '\0', n))
		return PAI_EPROTOCOL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	switch (c->kind) {
	case 'n':
		if ((v = digits(s, n)) <= 0)
			return PAI_EPROTOCOL;
		val = json_integer((json_int_t)v);
		break;
	case 'e':
		if ((v = exit_field(s, n)) < 0)
			return PAI_EPROTOCOL;
		val = json_integer((json_int_t)v);
		break;
	case 'S': /* "CANCELLED by 1000": its first word */
		buf[strcspn(buf, " ")] = '\0';
		if (!buf[0])
			return PAI_EPROTOCOL;
		val = json_string(buf);
		break;
	default:
		/* squeue's word for none */
		if (n == 0 || strcmp(buf, "(null)") == 0)
			return PAI_OK;
		val = json_string(buf); /* NULL for bytes not UTF-8 */
		if (!val)
			return PAI_EPROTOCOL;
	}
	if (!val || json_object_set_new(j, c->key, val))
		return PAI_ENOMEM;
	return PAI_OK;
}

/* One line's columns into a new job *out; *out NULL for a line of a
 * job's step (sacct's "12.batch"), which is no job. */
static int line(json_t **out, const char *s, size_t n, int acct)
{
	const struct column *cols = acct ? sacct_columns : squeue_columns;
	json_t *j;
	size_t i, w;
	int err = PAI_OK;

	*out = NULL;
	if (acct) {
		const char *d = memchr(s, PAI__SLURM_DELIM, n);

		w = d ? (size_t)(d - s) : n;
		if (memchr(s, '.', w))
			return PAI_OK;
	}
	if (!(j = json_object()))
		return PAI_ENOMEM;
	for (i = 0; i < NCOLUMNS && !err; i++) {
		const char *d = memchr(s, PAI__SLURM_DELIM, n);

		/* exactly NCOLUMNS - 1 delimiters */
		if ((i + 1 < NCOLUMNS) != (d != NULL)) {
			err = PAI_EPROTOCOL;
			break;
		}
		w = d ? (size_t)(d - s) : n;
		err = field(j, &cols[i], s, w);
		s += w + (d != NULL);
		n -= w + (d != NULL);
	}
	if (!err && acct && json_object_set_new(j, "accounting", json_true()))
		err = PAI_ENOMEM;
	if (err) {
		json_decref(j);
		return err;
	}
	*out = j;
	return PAI_OK;
}

int pai__slurm_fmt_read(json_t **jobs, size_t *bad_line, const char *out,
			size_t len, int acct)
{
	json_t *list, *j;
	size_t no = 0;
	int err = PAI_OK;

	*jobs = NULL;
	*bad_line = 0;
	if (len > PAI__SLURM_OUT_MAX)
		return PAI_EPROTOCOL;
	if (!(list = json_array()))
		return PAI_ENOMEM;
	while (len && !err) {
		const char *nl = memchr(out, '\n', len);
		size_t n = nl ? (size_t)(nl - out) : len;

		no++;
		if ((err = line(&j, out, n, acct)))
			break;
		if (j && json_array_append_new(list, j))
			err = PAI_ENOMEM;
		out += n + (nl != NULL);
		len -= n + (nl != NULL);
	}
	if (err) {
		*bad_line = err == PAI_EPROTOCOL ? no : 0;
		json_decref(list);
		return err;
	}
	*jobs = list;
	return PAI_OK;
}

/* ---- --format as --json's answer ------------------------------------------
 */

/* Job j (read so) as sacct --json gives it: accounting's shape, which
 * pai__slurm_acct_job_read() reads back to j. NULL out of memory. */
static json_t *acct_shape(json_t *j)
{
	json_t *a = json_object(), *v;
	static const char *const same[] = {"job_id", "name", "partition",
					   "nodes", "exit_code"};
	size_t i;
	int err = !a;

	for (i = 0; !err && i < sizeof(same) / sizeof(same[0]); i++)
		if ((v = json_object_get(j, same[i])))
			err = json_object_set(a, same[i], v);
	if (!err && (v = json_object_get(j, "user_name")))
		err = json_object_set(a, "user", v);
	if (!err && (v = json_object_get(j, "job_state")))
		err = json_object_set_new(a, "state",
					  json_pack("{s:[O]}", "current", v));
	if (!err && (v = json_object_get(j, "comment")))
		err = json_object_set_new(a, "comment",
					  json_pack("{s:O}", "job", v));
	if (err) {
		json_decref(a);
		return NULL;
	}
	return a;
}

int pai__slurm_fmt_answer(json_t **answer, size_t *bad_line, const char *out,
			  size_t len, int acct)
{
	json_t *jobs = NULL, *list, *j, *a;
	size_t i;
	int err;

	*answer = NULL;
	if ((err = pai__slurm_fmt_read(&jobs, bad_line, out, len, acct)))
		return err;
	list = acct ? json_array() : json_incref(jobs);
	for (i = 0; acct && list && i < json_array_size(jobs); i++) {
		j = json_array_get(jobs, i);
		if (!(a = acct_shape(j)) || json_array_append_new(list, a)) {
			json_decref(list);
			list = NULL;
		}
	}
	json_decref(jobs);
	if (!list || !(*answer = json_pack("{s:o}", "jobs", list)))
		return PAI_ENOMEM;
	return PAI_OK;
}
