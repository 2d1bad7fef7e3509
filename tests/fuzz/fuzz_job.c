/* fuzz_job.c - libFuzzer target for the job-config layer: parsing (both
 * dialects), validation, the reference check, expansion and the JSON form
 * of the diagnostics. Built and run by `make fuzz`, not by `make test`.
 *
 * Input: the first byte picks the dialect ('s': scm, anything else:
 * openpai); the rest is the config text.
 *
 * Beyond "no crash, no leak, no undefined behaviour", it checks:
 *   - the long-string fast path of json.c against the ordinary one:
 *     the text is parsed with every string taking the fast path and with
 *     none, and unless both fail as syntax errors, both must give the
 *     same result, the same diagnostics and the same config;
 *   - the fast JSON parser (lib/text/json_fast.c) against jansson and the
 *     position walk: the same result code, values in the same order with
 *     the same types, and the same position tree;
 *   - the promises of pai.h: a result code from the documented set, a
 *     job exactly on PAI_OK, an error diagnostic behind every failure,
 *     an excerpt for every diagnostic with a place, diagnostics in
 *     source order, messages in UTF-8 without control characters, and
 *     pai_diags_to_json() never NULL (it may be only when out of
 *     memory, which the fuzzer does not simulate). */
#include "check.h"
#include "../json_same.h"
#include "text/text.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Roles, and tasks of each role, that one input may expand: enough to
 * reach the per-role and per-task code, few enough to stay fast. */
#define MAX_ROLES 3
#define MAX_TASKS 2

/* Every task's environment names every task's IP and ports, so one task
 * of a job of 100,000 tasks takes a second and 350 MB to expand (up to
 * the library's own limit, PAI_ETOOBIG): work the caller asked for, not
 * a bug, but it would drown the fuzzer in timeouts. Jobs with more of
 * those items than this are parsed and checked, not expanded. */
#define MAX_ITEMS 20000

static int valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t k, i;

		if (*p < 0x80) {
			p++;
			continue;
		}
		k = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 ? 2 : 0;
		if (!k || *p > 0xF4)
			return 0;
		for (i = 1; i < k; i++)
			if ((p[i] & 0xC0) != 0x80)
				return 0;
		p += k;
	}
	return 1;
}

/* Messages and paths go to terminals: no control character, not even
 * one the config spelled as an escape. */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			return 1;
	return 0;
}

static void check_diags(const pai_diags *d, size_t from)
{
	size_t i, n = pai_diags_count(d);
	unsigned pl = 0, pc = 0;
	json_t *j;

	for (i = from; i < n; i++) {
		const pai_diag *x = pai_diags_get(d, i);

		CHECK(x);
		CHECK(x->severity == PAI_SEVERITY_ERROR ||
		      x->severity == PAI_SEVERITY_WARNING);
		CHECK(x->file && x->path && x->rule && x->message);
		CHECK(*x->rule && *x->message);
		CHECK(valid_utf8(x->message) && valid_utf8(x->path));
		CHECK(!has_control(x->message) && !has_control(x->path));
		if (x->line) {
			CHECK(x->column >= 1);
			CHECK(x->excerpt);
			CHECK(valid_utf8(x->excerpt));
			CHECK(x->excerpt_column >= 1);
			/* sorted by place; those without one keep theirs */
			CHECK(x->line > pl ||
			      (x->line == pl && x->column >= pc));
			pl = x->line;
			pc = x->column;
		}
	}
	CHECK(pai_diags_get(d, n) == NULL);
	j = pai_diags_to_json(d);
	CHECK(j);
	CHECK(json_array_size(j) == n);
	json_decref(j);
}

static int same_diags(const pai_diags *a, const pai_diags *b)
{
	size_t i;

	if (pai_diags_count(a) != pai_diags_count(b))
		return 0;
	for (i = 0; i < pai_diags_count(a); i++) {
		const pai_diag *x = pai_diags_get(a, i),
			       *y = pai_diags_get(b, i);

		if (x->severity != y->severity || x->line != y->line ||
		    x->column != y->column || strcmp(x->path, y->path) ||
		    strcmp(x->rule, y->rule) ||
		    strcmp(x->message, y->message) ||
		    x->excerpt_column != y->excerpt_column ||
		    !x->excerpt != !y->excerpt ||
		    (x->excerpt && strcmp(x->excerpt, y->excerpt)))
			return 0;
	}
	return 1;
}

static const char *pl_ip(void *data, size_t role, size_t index)
{
	(void)data;
	(void)role;
	return index % 2 ? NULL : "10.0.0.1";
}

static const char *pl_id(void *data, size_t role, size_t index)
{
	(void)data;
	return (role + index) % 2 ? "" : "container_1";
}

static unsigned pl_port(void *data, size_t role, size_t index, size_t k,
			size_t n)
{
	(void)data;
	return (role + index + k + n) % 3 ? 0 : 20000 + (unsigned)(n % 1000);
}

static void check_env(const pai_env *env)
{
	size_t i, n = pai_env_count(env);

	CHECK(pai_env_command(env));
	for (i = 0; i < n; i++) {
		const char *name = pai_env_name(env, i);
		const char *value = pai_env_value(env, i);

		CHECK(name && value);
		/* each name once, found by name */
		CHECK(pai_env_get(env, name) == value);
	}
	CHECK(pai_env_name(env, n) == NULL);
}

/* Roughly how many variables and ports one task's environment holds. */
static unsigned long long items(const pai_job *job)
{
	unsigned long long sum = 0, per;
	size_t r, k;

	for (r = 0; r < pai_job_role_count(job); r++) {
		pai_role ro;
		pai_port p;

		CHECK(pai_job_role(&ro, job, r) == PAI_OK);
		per = 2;
		for (k = 0; k < ro.port_count; k++) {
			CHECK(pai_job_port(&p, job, r, k) == PAI_OK);
			if (p.port_number > MAX_ITEMS)
				return ULLONG_MAX;
			per += 2 + 2 * (unsigned long long)(p.port_number > 0
								? p.port_number
								: 0);
		}
		if (ro.task_number > MAX_ITEMS || per > MAX_ITEMS)
			return ULLONG_MAX;
		sum += per * (unsigned long long)ro.task_number;
		if (sum > MAX_ITEMS)
			return ULLONG_MAX;
	}
	return sum;
}

static void expand(const pai_job *job)
{
	static const pai_placement placement = {NULL, pl_ip, pl_id, NULL,
						pl_port};
	pai_expand_options o1 = PAI_EXPAND_OPTIONS_INIT;
	pai_expand_options o2 = PAI_EXPAND_OPTIONS_INIT;
	const pai_expand_options *opts[] = {NULL, &o2};
	size_t r, i, k, nroles = pai_job_role_count(job);
	pai_dirs *dirs = NULL;
	int err;

	o1.user = "alice";
	o1.fs_uri = "hdfs://nn:9000";
	o2.placement = &placement;
	CHECK(pai_expand_dirs(&dirs, job, &o1) == PAI_OK);
	CHECK(*pai_dirs_output_dir(dirs));
	pai_dirs_free(dirs);
	CHECK(pai_expand_dirs(&dirs, job, NULL) == PAI_OK);
	pai_dirs_free(dirs);
	if (items(job) > MAX_ITEMS)
		return;

	for (r = 0; r < nroles && r < MAX_ROLES; r++) {
		pai_role ro;
		pai_port p;

		CHECK(pai_job_role(&ro, job, r) == PAI_OK);
		CHECK(ro.name && ro.command && ro.task_number >= 1);
		CHECK(pai_job_role_index(job, ro.name) == (long)r);
		for (k = 0; k < ro.port_count; k++)
			CHECK(pai_job_port(&p, job, r, k) == PAI_OK && p.label);
		CHECK(pai_job_port(&p, job, r, ro.port_count) == PAI_EINVAL);
		for (i = 0; i < (size_t)ro.task_number && i < MAX_TASKS; i++) {
			pai_env *env = NULL;

			err = pai_expand_task(&env, job, r, i, opts[i % 2]);
			if (err == PAI_ETOOBIG) {
				CHECK(env == NULL);
				return; /* the same for every task */
			}
			CHECK(err == PAI_OK && env);
			check_env(env);
			pai_env_free(env);
		}
		CHECK(pai_expand_task(NULL, job, r, 0, NULL) == PAI_EINVAL);
	}
}

/* The text through pai__src_parse() with the fast JSON parser and
 * without: both must agree exactly. */
static void fast_vs_jansson(const char *text, size_t len)
{
	pai_diags *d1 = NULL, *d2 = NULL;
	pai__src src;
	pai__pos p1, p2;
	json_t *r1 = NULL, *r2 = NULL;
	int e1, e2;

	CHECK(pai_diags_new(&d1) == PAI_OK && pai_diags_new(&d2) == PAI_OK);
	if (pai__src_init(&src, d1, "fuzz.json", text, len) == PAI_OK) {
		/* the fast parser first: it reads the text as given;
		 * jansson reads the copy with the comments blanked out */
		e2 = pai__src_parse(&r2, &p2, &src, d2);
		pai__json_fast = false;
		e1 = pai__src_parse(&r1, &p1, &src, d1);
		pai__json_fast = true;
		CHECK(e1 == e2);
		if (e1 == PAI_OK) {
			CHECK(json_same(r1, r2));
			CHECK(pos_same(&p1, &p2));
			pai__pos_release(&p1);
			pai__pos_release(&p2);
		}
		json_decref(r1);
		json_decref(r2);
	}
	pai__src_release(&src);
	pai_diags_free(d1);
	pai_diags_free(d2);
}

/* Parses with every string on the fast path (fast) or none. */
static int parse(pai_job **job, pai_diags **d, const char *text, size_t len,
		 const pai_job_options *o, int fast)
{
	int err;

	pai__big_string = fast ? 0 : SIZE_MAX;
	CHECK(pai_diags_new(d) == PAI_OK);
	err = pai_job_parse(job, *d, "fuzz.json", text, len, o);
	CHECK(err == PAI_OK || err == PAI_ESYNTAX || err == PAI_EINVALID);
	CHECK((err == PAI_OK) == (*job != NULL));
	if (err)
		CHECK(pai_diags_errors(*d) > 0);
	else
		CHECK(pai_diags_errors(*d) == 0);
	CHECK(pai_diags_errors(*d) + pai_diags_warnings(*d) ==
	      pai_diags_count(*d));
	check_diags(*d, 0);
	return err;
}

/* pai_job_check() (the roles read one at a time) says what
 * pai_job_parse() said: err and the diagnostics d. */
static void check_vs_parse(const char *text, size_t len,
			   const pai_job_options *o, int err, pai_diags *d)
{
	pai_diags *d2 = NULL;

	CHECK(pai_diags_new(&d2) == PAI_OK);
	CHECK(pai_job_check(d2, "fuzz.json", text, len, o) == err);
	CHECK(same_diags(d, d2));
	pai_diags_free(d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_job *job = NULL, *job2 = NULL;
	pai_diags *d = NULL, *d2 = NULL;
	char *text;
	size_t len;
	int err, err2;

	if (size < 1)
		return 0;
	o.dialect = data[0] == 's' ? PAI_DIALECT_SCM : PAI_DIALECT_OPENPAI;
	/* an exact copy: the library must not read past len */
	len = size - 1;
	text = malloc(len ? len : 1);
	CHECK(text);
	memcpy(text, data + 1, len);

	fast_vs_jansson(text, len);
	pai__big_string = 0;
	fast_vs_jansson(text, len);
	pai__big_string = 65536;
	err = parse(&job, &d, text, len, &o, 0);
	err2 = parse(&job2, &d2, text, len, &o, 1);
	pai__big_string = SIZE_MAX; /* as d was made */
	check_vs_parse(text, len, &o, err, d);
	pai__big_string = 65536;
	if (err != PAI_ESYNTAX || err2 != PAI_ESYNTAX) {
		CHECK(err == err2);
		CHECK(same_diags(d, d2));
		if (job) {
			CHECK(json_same(pai_job_config(job),
					pai_job_config(job2)));
			CHECK(strcmp(pai_job_name(job), pai_job_name(job2)) ==
			      0);
			CHECK(pai_job_dialect(job) == o.dialect);
			CHECK(pai_job_role_count(job) >= 1);
			expand(job);
		}
	}
	pai_job_free(job);
	pai_job_free(job2);
	pai_diags_free(d);
	pai_diags_free(d2);
	free(text);
	return 0;
}
