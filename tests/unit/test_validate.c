/* test_validate.c - the job-config validator, against the rules document
 *
 * Every expectation here comes from ../shared/reference/job-config-rules.md
 * (the tables, bounds, dialects and the "every problem in one run" and
 * "line:column of the value, or of the enclosing object for a missing
 * field" promises), not from lib/job/validate.c. Positions are computed
 * from the test's own text, independently of the library's position
 * index.
 *
 * lib/runtime/openpai_v0x.c adds warnings about $references in commands;
 * they are not the validator's, so every exact check below ignores their
 * rule ids. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pai.h"
#include "sys/sys.h"
#include "testutil.h"

#define ERR	  PAI_SEVERITY_ERROR
#define WARN	  PAI_SEVERITY_WARNING
#define OPENPAI	  PAI_DIALECT_OPENPAI
#define SCM	  PAI_DIALECT_SCM
#define FILE_NAME "job.json"

/* ---- the config under test -------------------------------------------- */

static struct {
	char *text; /* NUL-terminated copy, for the position helpers */
	pai_dialect dialect;
	int rc;
	pai_diags *diags;
	pai_job *job;
} T;

static void reset(void)
{
	free(T.text);
	pai_diags_free(T.diags);
	pai_job_free(T.job);
	memset(&T, 0, sizeof(T));
}

static int teardown(void **state)
{
	(void)state;
	reset();
	return 0;
}

/* Rules that lib/runtime/openpai_v0x.c owns: ignored by the exact checks. */
static bool is_expand_rule(const char *rule)
{
	return strcmp(rule, "unknown-pai-variable") == 0 ||
	       strcmp(rule, "unknown-variable") == 0;
}

static const char *sev_name(pai_severity s)
{
	return s == ERR ? "error" : "warning";
}

static void dump(const pai_diags *diags)
{
	size_t i;

	print_error("  diagnostics (%zu):\n", pai_diags_count(diags));
	for (i = 0; i < pai_diags_count(diags); i++) {
		const pai_diag *d = pai_diags_get(diags, i);

		print_error("    %u:%u %s [%s] %s: %s\n", d->line, d->column,
			    sev_name(d->severity), d->rule, d->path,
			    d->message);
	}
}

/* Whether s is well-formed UTF-8 (jansson's json_pack() refuses
 * anything else, so pai_diags_to_json() would fail). */
static bool is_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t k = *p < 0x80	? 1
			   : *p >= 0xF0 ? 4
			   : *p >= 0xE0 ? 3
					: 2,
		       i;

		if (*p >= 0x80 && (*p < 0xC2 || *p > 0xF4))
			return false;
		for (i = 1; i < k; i++)
			if ((p[i] & 0xC0) != 0x80)
				return false;
		p += k;
	}
	return true;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			return true;
	return false;
}

/* What must hold after every parse, whatever the config. */
static void check_invariants(const char *name)
{
	json_t *json;

	size_t i, n = pai_diags_count(T.diags), errors = 0, warnings = 0;
	const pai_diag *prev = NULL;

	assert_true(T.rc == PAI_OK || T.rc == PAI_ESYNTAX ||
		    T.rc == PAI_EINVALID);
	assert_int_equal(T.rc == PAI_OK, T.job != NULL);
	for (i = 0; i < n; i++) {
		const pai_diag *d = pai_diags_get(T.diags, i);

		assert_non_null(d);
		if (d->severity == ERR)
			errors++;
		else
			warnings++;
		assert_string_equal(d->file, name);
		assert_non_null(d->path);
		assert_true(d->rule && *d->rule);
		assert_true(d->message && *d->message);
		if (!is_utf8(d->message))
			fail_msg("message of [%s] is not UTF-8", d->rule);
		if (has_control(d->message) || has_control(d->path))
			fail_msg("[%s] would write a control character to a "
				 "terminal",
				 d->rule);
		/* every problem in a config has a place */
		if (d->line < 1 || d->column < 1) {
			dump(T.diags);
			fail_msg("diagnostic [%s] has no line:column", d->rule);
		}
		assert_non_null(d->excerpt);
		assert_true(d->excerpt_column >= 1);
		/* in source order */
		if (prev &&
		    (prev->line > d->line ||
		     (prev->line == d->line && prev->column > d->column))) {
			dump(T.diags);
			fail_msg("diagnostics are not sorted by line:column");
		}
		prev = d;
	}
	assert_null(pai_diags_get(T.diags, n));
	json = pai_diags_to_json(T.diags);
	assert_non_null(json);
	assert_int_equal(json_array_size(json), n);
	json_decref(json);
	assert_int_equal(pai_diags_errors(T.diags), errors);
	assert_int_equal(pai_diags_warnings(T.diags), warnings);
	if (T.rc == PAI_OK) {
		assert_int_equal(errors, 0);
		assert_int_equal(pai_job_dialect(T.job), T.dialect);
		assert_non_null(pai_job_config(T.job));
		assert_string_equal(pai_job_name(T.job),
				    json_string_value(json_object_get(
					pai_job_config(T.job), "jobName")));
		assert_true(pai_job_role_count(T.job) >= 1);
	} else {
		assert_true(errors >= 1);
	}
}

/* pai_job_check() says of the text what pai_job_parse() said: the same
 * result and the same diagnostics, reading a role at a time. */
static void same_verdict(const char *name, const char *raw, size_t len,
			 const pai_job_options *o)
{
	pai_diags *diags = NULL;
	json_t *a, *b;

	assert_int_equal(pai_diags_new(&diags), PAI_OK);
	assert_int_equal(pai_job_check(diags, name, raw, len, o), T.rc);
	a = pai_diags_to_json(T.diags);
	b = pai_diags_to_json(diags);
	assert_non_null(a);
	assert_non_null(b);
	if (!json_equal(a, b)) {
		dump(T.diags);
		dump(diags);
		fail_msg("pai_job_check() and pai_job_parse() disagree");
	}
	json_decref(a);
	json_decref(b);
	pai_diags_free(diags);
}

static int parse_named(pai_dialect dialect, const char *name, const char *text,
		       size_t len)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	char *raw;

	reset();
	T.text = malloc(len + 1);
	assert_non_null(T.text);
	memcpy(T.text, text, len);
	T.text[len] = '\0';
	T.dialect = dialect;
	assert_int_equal(pai_diags_new(&T.diags), PAI_OK);
	o.dialect = dialect;
	/* the library takes text that is not NUL-terminated: give it none,
	 * so that valgrind sees any read past the end */
	raw = malloc(len ? len : 1);
	assert_non_null(raw);
	memcpy(raw, text, len);
	T.rc = pai_job_parse(&T.job, T.diags, name, raw, len, &o);
	same_verdict(name, raw, len, &o);
	free(raw);
	check_invariants(name);
	return T.rc;
}

static int parse_in(pai_dialect dialect, const char *text)
{
	return parse_named(dialect, FILE_NAME, text, strlen(text));
}

/* ---- positions, computed from the text -------------------------------- */

struct lc {
	unsigned line, column;
};

/* Expands to the two arguments line, column. */
#define AT(p) (p).line, (p).column
/* line 0, column 0: any place */
#define ANYWHERE 0, 0

/* 1-based line and column (in code points) of byte offset off. */
static struct lc lc_of(const char *text, size_t off)
{
	struct lc p = {1, 1};
	size_t i;

	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			p.line++;
			p.column = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			p.column++;
		}
	}
	return p;
}

/* Byte offset of the nth (1-based) occurrence of needle in T.text. */
static size_t off_text(const char *needle, int nth)
{
	const char *p = T.text;
	int k = 0;

	while ((p = strstr(p, needle))) {
		if (++k == nth)
			return (size_t)(p - T.text);
		p++;
	}
	fail_msg("'%s' (#%d) is not in the config", needle, nth);
	return 0;
}

static struct lc at_text(const char *needle, int nth)
{
	return lc_of(T.text, off_text(needle, nth));
}

static size_t skip_ws(const char *t, size_t i)
{
	while (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')
		i++;
	return i;
}

/* Offset of the nth member key "key" (its opening quote): an occurrence
 * of the quoted text followed by a colon. */
static size_t off_key(const char *key, int nth)
{
	char q[256];
	const char *p = T.text;
	int k = 0;

	snprintf(q, sizeof(q), "\"%s\"", key);
	while ((p = strstr(p, q))) {
		size_t end = skip_ws(T.text, (size_t)(p - T.text) + strlen(q));

		if (T.text[end] == ':' && ++k == nth)
			return (size_t)(p - T.text);
		p++;
	}
	fail_msg("no member \"%s\" (#%d) in the config", key, nth);
	return 0;
}

static struct lc at_key(const char *key, int nth)
{
	return lc_of(T.text, off_key(key, nth));
}

/* Where the value of the nth member "key" starts. */
static struct lc at_value(const char *key, int nth)
{
	size_t i = off_key(key, nth) + strlen(key) + 2;

	i = skip_ws(T.text, i);
	assert_int_equal(T.text[i], ':');
	return lc_of(T.text, skip_ws(T.text, i + 1));
}

/* ---- expectations ------------------------------------------------------ */

struct want {
	pai_severity sev;
	const char *rule;
	const char *path;
	unsigned line, column; /* 0, 0: anywhere */
};

static bool matches(const pai_diag *d, pai_severity sev, const char *rule,
		    const char *path, unsigned line, unsigned column)
{
	return d->severity == sev && strcmp(d->rule, rule) == 0 &&
	       strcmp(d->path, path) == 0 &&
	       (line == 0 || (d->line == line && d->column == column));
}

/* The diagnostic that matches, or a failure that lists them all. */
static const pai_diag *expect_diag_(const char *file, int fline,
				    const pai_diags *diags, pai_severity sev,
				    const char *rule, const char *path,
				    unsigned line, unsigned column)
{
	size_t i;

	for (i = 0; i < pai_diags_count(diags); i++) {
		const pai_diag *d = pai_diags_get(diags, i);

		if (matches(d, sev, rule, path, line, column))
			return d;
	}
	print_error("%s:%d: expected %s [%s] %s at %u:%u\n", file, fline,
		    sev_name(sev), rule, path, line, column);
	dump(diags);
	fail();
	return NULL;
}

#define expect_diag(...) expect_diag_(__FILE__, __LINE__, __VA_ARGS__)

/* The validator's diagnostics are exactly these (in any order; sorting is
 * checked for every parse). Diagnostics of lib/runtime/openpai_v0x.c are
 * ignored. */
static void expect_only_(const char *file, int fline, const pai_diags *diags,
			 const struct want *w, size_t nw)
{
	size_t i, j, n = pai_diags_count(diags);
	bool used[64] = {false};
	bool ok = nw <= 64;

	for (i = 0; ok && i < n; i++) {
		const pai_diag *d = pai_diags_get(diags, i);
		bool found = false;

		if (is_expand_rule(d->rule))
			continue;
		for (j = 0; j < nw && !found; j++) {
			if (!used[j] &&
			    matches(d, w[j].sev, w[j].rule, w[j].path,
				    w[j].line, w[j].column)) {
				used[j] = found = true;
			}
		}
		ok = found;
	}
	for (j = 0; ok && j < nw; j++)
		ok = used[j];
	if (ok)
		return;
	print_error("%s:%d: expected exactly:\n", file, fline);
	for (j = 0; j < nw; j++)
		print_error("    %u:%u %s [%s] %s\n", w[j].line, w[j].column,
			    sev_name(w[j].sev), w[j].rule, w[j].path);
	dump(diags);
	fail();
}

#define WANTS(...) ((const struct want[]){__VA_ARGS__})
#define expect_only(diags, ...)                                                \
	expect_only_(__FILE__, __LINE__, (diags), WANTS(__VA_ARGS__),          \
		     sizeof(WANTS(__VA_ARGS__)) / sizeof(struct want))

/* No diagnostics but lib/runtime/openpai_v0x.c's. */
static void expect_clean_(const char *file, int fline, const pai_diags *diags)
{
	expect_only_(file, fline, diags, NULL, 0);
}

#define expect_clean(diags) expect_clean_(__FILE__, __LINE__, (diags))

/* No diagnostic of this rule. */
static void expect_no_rule(const pai_diags *diags, const char *rule)
{
	size_t i;

	for (i = 0; i < pai_diags_count(diags); i++) {
		if (strcmp(pai_diags_get(diags, i)->rule, rule) == 0) {
			dump(diags);
			fail_msg("unexpected [%s]", rule);
		}
	}
}

static size_t count_rule(const pai_diags *diags, const char *rule)
{
	size_t i, k = 0;

	for (i = 0; i < pai_diags_count(diags); i++)
		k += strcmp(pai_diags_get(diags, i)->rule, rule) == 0;
	return k;
}

static void expect_in_message(const pai_diag *d, const char *part)
{
	if (!strstr(d->message, part))
		fail_msg("message of [%s] \"%s\" does not mention '%s'",
			 d->rule, d->message, part);
}

/* ---- building configs -------------------------------------------------- */

/* A member of a generated config: value is raw JSON text; NULL leaves
 * the member out. */
struct kv {
	const char *key;
	const char *value;
};

#define KV(...) ((const struct kv[]){__VA_ARGS__, {NULL, NULL}})

/* A valid job: every required field, one role. */
static const struct kv top_defaults[] = {
    {"jobName", "\"job_1\""}, {"image", "\"ubuntu:18.04\""}, {NULL, NULL}};

static const struct kv role_defaults[] = {{"name", "\"worker\""},
					  {"taskNumber", "1"},
					  {"cpuNumber", "1"},
					  {"memoryMB", "1024"},
					  {"gpuNumber", "0"},
					  {"command", "\"echo hello\""},
					  {NULL, NULL}};

static const struct kv port_defaults[] = {
    {"label", "\"web\""}, {"beginAt", "0"}, {"portNumber", "1"}, {NULL, NULL}};

static const struct kv *lookup(const struct kv *kv, const char *key)
{
	for (; kv && kv->key; kv++)
		if (strcmp(kv->key, key) == 0)
			return kv;
	return NULL;
}

static void emit(FILE *f, bool *first, const char *indent, const char *key,
		 const char *value)
{
	if (!value)
		return;
	fprintf(f, "%s\n%s\"%s\": %s", *first ? "" : ",", indent, key, value);
	*first = false;
}

/* An object, one member a line: the defaults (overridden or left out by
 * `over`), then the other members of `over`, then tail_key. */
static char *object_text(const char *indent, const struct kv *defaults,
			 const struct kv *over, const char *tail_key,
			 const char *tail_value)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	bool first = true;
	const struct kv *d, *o;

	assert_non_null(f);
	fputc('{', f);
	for (d = defaults; d->key; d++) {
		o = lookup(over, d->key);
		emit(f, &first, indent, d->key, o ? o->value : d->value);
	}
	for (o = over; o && o->key; o++)
		if (!lookup(defaults, o->key) &&
		    !(tail_key && strcmp(o->key, tail_key) == 0))
			emit(f, &first, indent, o->key, o->value);
	if (tail_key) {
		o = lookup(over, tail_key);
		emit(f, &first, indent, tail_key, o ? o->value : tail_value);
	}
	fprintf(f, "\n%.*s}", (int)strlen(indent) - 2, indent);
	assert_int_equal(fclose(f), 0);
	return s;
}

/* The default job with top-level, role and port members changed; the
 * role has a portList of one port only when `port` is not NULL. */
static char *job_text(const struct kv *top, const struct kv *role,
		      const struct kv *port)
{
	char *p = NULL, *plist = NULL, *r, *rlist, *t, *out;

	if (port) {
		p = object_text("          ", port_defaults, port, NULL, NULL);
		assert_true(asprintf(&plist, "[\n        %s\n      ]", p) > 0);
	}
	r = object_text("      ", role_defaults, role, "portList", plist);
	assert_true(asprintf(&rlist, "[\n    %s\n  ]", r) > 0);
	t = object_text("  ", top_defaults, top, "taskRoles", rlist);
	assert_true(asprintf(&out, "%s\n", t) > 0);
	free(p);
	free(plist);
	free(r);
	free(rlist);
	free(t);
	return out;
}

static int parse_job(pai_dialect dialect, const struct kv *top,
		     const struct kv *role, const struct kv *port)
{
	char *text = job_text(top, role, port);

	parse_in(dialect, text);
	free(text);
	return T.rc;
}

enum level { TOP, ROLE, PORT };

/* The default job with one member of one level set (value NULL: left
 * out). */
static int parse_field(pai_dialect dialect, enum level level, const char *key,
		       const char *value)
{
	const struct kv one[] = {{key, value}, {NULL, NULL}};

	switch (level) {
	case TOP: return parse_job(dialect, one, NULL, NULL);
	case ROLE: return parse_job(dialect, NULL, one, NULL);
	case PORT: break;
	}
	return parse_job(dialect, NULL, NULL, one);
}

static const char *path_of(enum level level, const char *key, char *buf,
			   size_t size)
{
	static const char *const prefix[] = {"", "taskRoles[0].",
					     "taskRoles[0].portList[0]."};

	snprintf(buf, size, "%s%s", prefix[level], key);
	return buf;
}

/* The member of the submitted config at that level (borrowed). */
static json_t *config_field(enum level level, const char *key)
{
	json_t *o = pai_job_config(T.job);

	assert_non_null(o);
	if (level >= ROLE)
		o = json_array_get(json_object_get(o, "taskRoles"), 0);
	if (level == PORT)
		o = json_array_get(json_object_get(o, "portList"), 0);
	return json_object_get(o, key);
}

/* A role on one line, for configs with several roles. */
#define ROLE_JSON(name)                                                        \
	"{\"name\": \"" name "\", \"taskNumber\": 1, \"cpuNumber\": 1, "       \
	"\"memoryMB\": 1024, \"gpuNumber\": 0, \"command\": \"echo\"}"

/* ---- the minimal job --------------------------------------------------- */

static void test_minimal_job_is_valid(void **state)
{
	json_t *want;
	pai_role r;
	pai_port p;

	(void)state;
	assert_int_equal(parse_job(OPENPAI, NULL, NULL, NULL), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(pai_diags_count(T.diags), 0);
	assert_string_equal(pai_job_name(T.job), "job_1");
	want = json_loads(T.text, 0, NULL);
	assert_non_null(want);
	assert_true(json_equal(pai_job_config(T.job), want));
	json_decref(want);

	/* the defaults of the optional fields */
	assert_int_equal(pai_job_role_count(T.job), 1);
	assert_int_equal(pai_job_role(&r, T.job, 0), PAI_OK);
	assert_string_equal(r.name, "worker");
	assert_int_equal(r.task_number, 1);
	assert_int_equal(r.memory_mb, 1024);
	assert_int_equal(r.shm_mb, 64);
	assert_int_equal(r.min_failed, 1);
	assert_int_equal(r.min_succeeded, -1);
	assert_string_equal(r.command, "echo hello");
	assert_int_equal(pai_job_role(&r, T.job, 1), PAI_EINVAL);
	assert_int_equal(pai_job_role_index(T.job, "worker"), 0);
	assert_int_equal(pai_job_role_index(T.job, "ps"), -1);
	/* the cluster's http and ssh ports */
	assert_int_equal(r.port_count, 2);
	assert_int_equal(pai_job_port(&p, T.job, 0, 0), PAI_OK);
	assert_string_equal(p.label, "http");
	assert_int_equal(p.implicit, 1);
	assert_int_equal(pai_job_port(&p, T.job, 0, 1), PAI_OK);
	assert_string_equal(p.label, "ssh");
	assert_int_equal(pai_job_port(&p, T.job, 0, 2), PAI_EINVAL);
}

static void test_bad_arguments(void **state)
{
	pai_job_options o = PAI_JOB_OPTIONS_INIT;
	pai_job *job = (pai_job *)&o; /* must be reset to NULL */
	pai_diags *diags = NULL;
	const char *text = "{}";

	(void)state;
	assert_int_equal(pai_diags_new(&diags), PAI_OK);
	assert_int_equal(pai_job_parse(NULL, diags, "x", text, 2, NULL),
			 PAI_EINVAL);
	o.version = PAI_JOB_OPTIONS_VERSION + 1;
	assert_int_equal(pai_job_parse(&job, diags, "x", text, 2, &o),
			 PAI_EINVAL);
	assert_null(job);
	assert_int_equal(pai_job_check(diags, "x", text, 2, &o), PAI_EINVAL);
	assert_int_equal(pai_job_check(diags, "x", NULL, 2, NULL), PAI_EINVAL);
	assert_int_equal(pai_diags_count(diags), 0);
	/* no text at all is an empty file, as for pai_job_parse() */
	assert_int_equal(pai_job_check(diags, "x", NULL, 0, NULL),
			 PAI_ESYNTAX);
	assert_int_equal(pai_diags_count(diags), 1);
	pai_diags_free(diags);
}

/* What pai_job_check() reads a role at a time, and what makes it read
 * the config whole instead (parse_in() compares the two on each). */
static void test_roles_one_at_a_time(void **state)
{
	static const char *const invalid[] = {
	    /* a key twice in a role, in a small and in a large object */
	    "{\"name\": \"a\", \"name\": \"b\"}",
	    "{\"a1\": 1, \"a2\": 1, \"a3\": 1, \"a4\": 1, \"a5\": 1, "
	    "\"a6\": 1, \"a7\": 1, \"a8\": 1, \"a9\": 1, \"b1\": 1, "
	    "\"b2\": 1, \"b3\": 1, \"b4\": 1, \"b5\": 1, \"b6\": 1, "
	    "\"b7\": 1, \"a1\": 2}",
	    /* a key twice once its escape is decoded */
	    "{\"n\\u0061me\": \"a\", \"name\": \"b\"}",
	    /* a role that is no object, and one with unknown keys */
	    "3", "{\"z\\u00e9\": 1, \"/* x */\": [{\"q\": {}}]}", NULL};
	char *text;
	size_t i;

	(void)state;
	for (i = 0; invalid[i]; i++) {
		assert_true(asprintf(&text,
				     "{\"jobName\": \"j\", \"image\": \"i\", "
				     "\"taskRoles\": [%s, /* c */ %s]}\n",
				     ROLE_JSON("r0"), invalid[i]) > 0);
		print_message("%s\n", invalid[i]);
		assert_int_not_equal(parse_in(OPENPAI, text), PAI_OK);
		free(text);
	}
	/* taskRoles in another object is not the roles' list */
	assert_int_equal(
	    parse_in(OPENPAI, "{\"jobName\": \"j\", \"image\": \"i\", "
			      "\"extras\": {\"taskRoles\": [1, 2]}, "
			      "\"taskRoles\": [" ROLE_JSON("r0") ", "
			      "{\"n\\u0061me\": \"r1\", \"taskNumber\": 1, "
			      "\"cpuNumber\": 1, \"memoryMB\": 1024, "
			      "\"gpuNumber\": 0, \"command\": \"$PAI_X\"}]}"),
	    PAI_OK);
	assert_int_equal(pai_diags_warnings(T.diags), 1);
	/* a list of roles that is no array, and an empty one */
	assert_int_equal(parse_in(OPENPAI, "{\"jobName\": \"j\", \"image\": "
					   "\"i\", \"taskRoles\": {\"a\": 1}}"),
			 PAI_EINVALID);
	assert_int_equal(parse_in(OPENPAI, "{\"jobName\": \"j\", \"image\": "
					   "\"i\", \"taskRoles\": []}"),
			 PAI_EINVALID);
}

/* ---- syntax ------------------------------------------------------------ */

static void test_comments_are_accepted(void **state)
{
	static const char text[] =
	    "// a job\n"
	    "{\n"
	    "  /* the name */ \"jobName\": \"c\", // trailing\n"
	    "  \"image\": \"i\",\n"
	    "  \"dataDir\": \"hdfs://nn:9000/a//b\", /* // inside */\n"
	    "  \"taskRoles\": [ /* roles\n"
	    "     over lines */ {\n"
	    "    \"name\": \"r\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
	    "    \"memoryMB\": /* MB */ 99, \"gpuNumber\": 0,\n"
	    "    \"command\": \"echo '/* not a comment */' // nor this\"\n"
	    "  } ]\n"
	    "}\n"
	    "/* end */\n";

	(void)state;
	/* the comments neither hide nor shift anything: the one error
	 * is where the value stands */
	assert_int_equal(parse_in(OPENPAI, text), PAI_EINVALID);
	expect_only(T.diags, {ERR, "min-memory", "taskRoles[0].memoryMB",
			      AT(at_text("99,", 1))});
	assert_int_equal(at_text("99,", 1).line, 9);
	assert_int_equal(at_text("99,", 1).column, 26);

	/* and in a valid job, strings that look like comments stay */
	{
		char *ok = strdup(text), *p = strstr(ok, " 99,");

		assert_non_null(p);
		memcpy(p, "100", 3);
		parse_in(OPENPAI, ok);
		free(ok);
	}
	assert_int_equal(T.rc, PAI_OK);
	expect_clean(T.diags);
	assert_string_equal(json_string_value(json_object_get(
				pai_job_config(T.job), "dataDir")),
			    "hdfs://nn:9000/a//b");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(
		    json_object_get(pai_job_config(T.job), "taskRoles"), 0),
		"command")),
	    "echo '/* not a comment */' // nor this");
}

static void test_trailing_comma(void **state)
{
	(void)state;
	/* in an object */
	assert_int_equal(
	    parse_job(OPENPAI, NULL, KV({"command", "\"x\",\n"}), NULL),
	    PAI_ESYNTAX);
	assert_null(T.job);
	/* at the comma itself */
	expect_only(T.diags,
		    {ERR, "trailing-comma", "", at_text("\"x\",", 1).line,
		     at_text("\"x\",", 1).column + 3});

	/* in an array */
	assert_int_equal(
	    parse_job(OPENPAI, NULL,
		      KV({"portList", "[{\"label\": \"a\", \"beginAt\": 0, "
				      "\"portNumber\": 1}, ]"}),
		      NULL),
	    PAI_ESYNTAX);
	expect_only(T.diags,
		    {ERR, "trailing-comma", "", at_text("}, ]", 1).line,
		     at_text("}, ]", 1).column + 1});

	/* at the top level */
	assert_int_equal(
	    parse_job(OPENPAI, KV({"gpuType", "\"\""}), NULL, NULL), PAI_OK);
	{
		char *t = strdup(T.text), *end = strrchr(t, '}');

		assert_non_null(end);
		end[-1] = ',';
		parse_in(OPENPAI, t);
		free(t);
	}
	assert_int_equal(T.rc, PAI_ESYNTAX);
	expect_only(T.diags, {ERR, "trailing-comma", "",
			      lc_of(T.text, strlen(T.text) - 3).line,
			      lc_of(T.text, strlen(T.text) - 3).column});
}

static void test_duplicate_key(void **state)
{
	(void)state;
	/* the second occurrence is the problem */
	assert_int_equal(parse_job(OPENPAI,
				   KV({"image", "\"a\",\n  \"image\": \"b\""}),
				   NULL, NULL),
			 PAI_ESYNTAX);
	assert_null(T.job);
	expect_only(T.diags,
		    {ERR, "duplicate-key", "", AT(at_key("image", 2))});
	expect_in_message(pai_diags_get(T.diags, 0), "image");

	/* in a role */
	assert_int_equal(parse_job(OPENPAI, NULL,
				   KV({"gpuNumber", "0, \"gpuNumber\": 1"}),
				   NULL),
			 PAI_ESYNTAX);
	expect_only(T.diags,
		    {ERR, "duplicate-key", "", AT(at_key("gpuNumber", 2))});
	expect_in_message(pai_diags_get(T.diags, 0), "gpuNumber");

	/* the same key in two different objects is fine */
	assert_int_equal(
	    parse_job(OPENPAI, KV({"extras", "{\"name\": 1}"}), NULL, NULL),
	    PAI_OK);
}

static void test_top_level_array(void **state)
{
	(void)state;
	assert_int_equal(parse_in(OPENPAI, "[]"), PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "", 1, 1});
	expect_in_message(pai_diags_get(T.diags, 0), "object");
	expect_in_message(pai_diags_get(T.diags, 0), "array");
	/* even one that holds a job */
	assert_int_equal(parse_in(OPENPAI, "[" ROLE_JSON("w") "]"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "", 1, 1});
	/* after a comment and blanks, the value is where the problem is */
	assert_int_equal(parse_in(OPENPAI, "// x\n  [1]\n"), PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "", 2, 3});
}

/* A string, a number, true or null is well-formed JSON (RFC 8259): the
 * problem is its type, as for an array, not the syntax. */
static void test_top_level_scalar(void **state)
{
	static const struct {
		const char *text, *value, *shows;
	} scalars[] = {
	    {"\"job\"", "\"job\"", "job"}, {"42", "42", "42"},
	    {"null", "null", "null"},	   {"true", "true", "true"},
	    {"\n  \"x\"\n", "\"x\"", "x"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(scalars) / sizeof(*scalars); i++) {
		print_message("top level: %s\n", scalars[i].text);
		assert_int_equal(parse_in(OPENPAI, scalars[i].text),
				 PAI_EINVALID);
		expect_only(T.diags, {ERR, "type", "",
				      AT(at_text(scalars[i].value, 1))});
		expect_in_message(pai_diags_get(T.diags, 0), "object");
		expect_in_message(pai_diags_get(T.diags, 0), scalars[i].shows);
	}
}

/* ---- every field: its type --------------------------------------------- */

enum kind { STR, INT, INT_NULL, ARR, OBJ };

struct field_desc {
	enum level level;
	const char *key;
	enum kind kind;
	bool required;
	const char *number; /* integer fields: a valid value */
};

static const struct field_desc all_fields[] = {
    {TOP, "jobName", STR, true, NULL},
    {TOP, "image", STR, true, NULL},
    {TOP, "authFile", STR, false, NULL},
    {TOP, "dataDir", STR, false, NULL},
    {TOP, "outputDir", STR, false, NULL},
    {TOP, "codeDir", STR, false, NULL},
    {TOP, "virtualCluster", STR, false, NULL},
    {TOP, "gpuType", STR, false, NULL},
    {TOP, "retryCount", INT, false, "2"},
    {TOP, "taskRoles", ARR, true, NULL},
    {TOP, "jobEnvs", OBJ, false, NULL},
    {TOP, "extras", OBJ, false, NULL},
    {TOP, "killAllOnCompletedTaskNumber", INT, false, "1"},
    {ROLE, "name", STR, true, NULL},
    {ROLE, "taskNumber", INT, true, "3"},
    {ROLE, "cpuNumber", INT, true, "4"},
    {ROLE, "memoryMB", INT, true, "2048"},
    {ROLE, "shmMB", INT, false, "128"},
    {ROLE, "gpuNumber", INT, true, "2"},
    {ROLE, "portList", ARR, false, NULL},
    {ROLE, "command", STR, true, NULL},
    {ROLE, "minFailedTaskCount", INT_NULL, false, "1"},
    {ROLE, "minSucceededTaskCount", INT_NULL, false, "1"},
    {PORT, "label", STR, true, NULL},
    {PORT, "beginAt", INT, true, "8080"},
    {PORT, "portNumber", INT, true, "2"},
};

#define NFIELDS (sizeof(all_fields) / sizeof(*all_fields))

/* A JSON value and a word its description in a message must contain. */
static const struct {
	const char *json;
	const char *shows;
} any_values[] = {
    {"\"abc\"", "abc"}, {"1", "1"},	    {"1.5", "1.5"},
    {"true", "true"},	{"false", "false"}, {"null", "null"},
    {"[]", "array"},	{"[1]", "array"},   {"{}", "object"},
};

static bool accepts(enum kind kind, const char *json)
{
	switch (kind) {
	case STR: return json[0] == '"';
	case INT: return strcmp(json, "1") == 0;
	case INT_NULL:
		return strcmp(json, "1") == 0 || strcmp(json, "null") == 0;
	case ARR: return json[0] == '[';
	case OBJ: return json[0] == '{';
	}
	return false;
}

static const char *kind_word(enum kind kind)
{
	switch (kind) {
	case STR: return "string";
	case INT:
	case INT_NULL: return "integer";
	case ARR: return "array";
	case OBJ: return "object";
	}
	return "";
}

static void test_wrong_types(void **state)
{
	size_t i, j;
	char path[128];

	(void)state;
	for (i = 0; i < NFIELDS; i++) {
		const struct field_desc *f = &all_fields[i];

		path_of(f->level, f->key, path, sizeof(path));
		for (j = 0; j < sizeof(any_values) / sizeof(*any_values); j++) {
			const pai_diag *d;

			if (accepts(f->kind, any_values[j].json))
				continue;
			print_message("%s = %s\n", path, any_values[j].json);
			assert_int_equal(parse_field(OPENPAI, f->level, f->key,
						     any_values[j].json),
					 PAI_EINVALID);
			d = expect_diag(T.diags, ERR, "type", path,
					AT(at_value(f->key, 1)));
			/* one problem, one error (not also "required") */
			assert_int_equal(pai_diags_errors(T.diags), 1);
			expect_in_message(d, kind_word(f->kind));
			expect_in_message(d, any_values[j].shows);
		}
	}
}

static void test_null_allowed_only_for_task_counts(void **state)
{
	size_t i;
	char path[128];

	(void)state;
	for (i = 0; i < NFIELDS; i++) {
		const struct field_desc *f = &all_fields[i];

		path_of(f->level, f->key, path, sizeof(path));
		parse_field(OPENPAI, f->level, f->key, "null");
		if (f->kind == INT_NULL) {
			assert_int_equal(T.rc, PAI_OK);
			expect_clean(T.diags);
			assert_true(
			    json_is_null(config_field(f->level, f->key)));
		} else {
			assert_int_equal(T.rc, PAI_EINVALID);
			expect_diag(T.diags, ERR, "type", path,
				    AT(at_value(f->key, 1)));
		}
	}
}

/* ---- every field: required or not -------------------------------------- */

static void test_required_fields(void **state)
{
	size_t i;
	char path[128];

	(void)state;
	for (i = 0; i < NFIELDS; i++) {
		const struct field_desc *f = &all_fields[i];
		const pai_diag *d;
		/* the enclosing object: the 1st, 2nd or 3rd '{' */
		int open = f->level == TOP ? 1 : f->level == ROLE ? 2 : 3;

		path_of(f->level, f->key, path, sizeof(path));
		print_message("without %s\n", path);
		parse_field(OPENPAI, f->level, f->key, NULL);
		if (!f->required) {
			assert_int_equal(T.rc, PAI_OK);
			expect_clean(T.diags);
			continue;
		}
		assert_int_equal(T.rc, PAI_EINVALID);
		expect_only(T.diags,
			    {ERR, "required", path, AT(at_text("{", open))});
		d = pai_diags_get(T.diags, 0);
		expect_in_message(d, f->key);
	}
	/* the root's position is 1:1 in the default layout */
	parse_field(OPENPAI, TOP, "image", NULL);
	expect_only(T.diags, {ERR, "required", "image", 1, 1});

	/* nothing at all: every required top-level field, each once */
	assert_int_equal(parse_in(OPENPAI, "{}"), PAI_EINVALID);
	expect_only(T.diags, {ERR, "required", "jobName", 1, 1},
		    {ERR, "required", "image", 1, 1},
		    {ERR, "required", "taskRoles", 1, 1});
	/* an empty role: every required role field */
	parse_field(OPENPAI, TOP, "taskRoles", "[ {} ]");
	expect_only(
	    T.diags,
	    {ERR, "required", "taskRoles[0].name", AT(at_text("{}", 1))},
	    {ERR, "required", "taskRoles[0].taskNumber", AT(at_text("{}", 1))},
	    {ERR, "required", "taskRoles[0].cpuNumber", AT(at_text("{}", 1))},
	    {ERR, "required", "taskRoles[0].memoryMB", AT(at_text("{}", 1))},
	    {ERR, "required", "taskRoles[0].gpuNumber", AT(at_text("{}", 1))},
	    {ERR, "required", "taskRoles[0].command", AT(at_text("{}", 1))});
	/* an empty port */
	parse_field(
	    OPENPAI, ROLE, "portList",
	    "[{\"label\": \"a\", \"beginAt\": 0, \"portNumber\": 1}, {}]");
	expect_only(T.diags,
		    {ERR, "required", "taskRoles[0].portList[1].label",
		     AT(at_text("{}", 1))},
		    {ERR, "required", "taskRoles[0].portList[1].beginAt",
		     AT(at_text("{}", 1))},
		    {ERR, "required", "taskRoles[0].portList[1].portNumber",
		     AT(at_text("{}", 1))});
}

static void test_optional_fields_valid_values(void **state)
{
	static const struct {
		enum level level;
		const char *key, *value;
	} ok[] = {
	    {TOP, "authFile", "\"\""},
	    {TOP, "dataDir", "\"\""},
	    {TOP, "outputDir", "\"\""},
	    {TOP, "codeDir", "\"\""},
	    {TOP, "virtualCluster", "\"\""},
	    {TOP, "virtualCluster", "\"default\""},
	    {TOP, "gpuType", "\"\""},
	    {TOP, "gpuType", "\"TITANX\""},
	    {TOP, "retryCount", "0"},
	    {TOP, "retryCount", "100"},
	    {TOP, "jobEnvs", "{}"},
	    {TOP, "extras", "{}"},
	    {ROLE, "shmMB", "64"},
	    {ROLE, "portList", "[]"},
	    {ROLE, "minFailedTaskCount", "null"},
	    {ROLE, "minSucceededTaskCount", "null"},
	    {ROLE, "minFailedTaskCount", "1"},
	    {ROLE, "minSucceededTaskCount", "1"},
	    {ROLE, "gpuNumber", "8"},
	    {PORT, "beginAt", "0"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		print_message("%s = %s\n", ok[i].key, ok[i].value);
		assert_int_equal(
		    parse_field(OPENPAI, ok[i].level, ok[i].key, ok[i].value),
		    PAI_OK);
		expect_clean(T.diags);
	}
}

/* ---- integers: numeric strings and integral reals ------------------------ */

static void test_numeric_string_every_integer_field(void **state)
{
	size_t i;
	char path[128], quoted[64];

	(void)state;
	for (i = 0; i < NFIELDS; i++) {
		const struct field_desc *f = &all_fields[i];
		const pai_diag *d;
		json_t *v;

		if (!f->number)
			continue;
		path_of(f->level, f->key, path, sizeof(path));
		snprintf(quoted, sizeof(quoted), "\"%s\"", f->number);
		print_message("%s = %s\n", path, quoted);
		assert_int_equal(parse_field(OPENPAI, f->level, f->key, quoted),
				 PAI_OK);
		d = expect_diag(T.diags, WARN, "numeric-string", path,
				AT(at_value(f->key, 1)));
		expect_in_message(d, f->number);
		assert_int_equal(count_rule(T.diags, "numeric-string"), 1);
		/* the integer is what is sent */
		v = config_field(f->level, f->key);
		assert_true(json_is_integer(v));
		assert_int_equal(json_integer_value(v), atoll(f->number));
	}
}

static void test_integral_real_every_integer_field(void **state)
{
	size_t i;
	char path[128], real[64];

	(void)state;
	for (i = 0; i < NFIELDS; i++) {
		const struct field_desc *f = &all_fields[i];
		json_t *v;

		if (!f->number)
			continue;
		path_of(f->level, f->key, path, sizeof(path));
		snprintf(real, sizeof(real), "%s.0", f->number);
		print_message("%s = %s\n", path, real);
		assert_int_equal(parse_field(OPENPAI, f->level, f->key, real),
				 PAI_OK);
		/* 4.0 is 4: no warning at all */
		expect_no_rule(T.diags, "numeric-string");
		expect_no_rule(T.diags, "type");
		v = config_field(f->level, f->key);
		assert_true(json_is_integer(v));
		assert_int_equal(json_integer_value(v), atoll(f->number));
	}
	/* exponent notation with an integral value */
	assert_int_equal(parse_field(OPENPAI, ROLE, "memoryMB", "1e3"), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(json_integer_value(config_field(ROLE, "memoryMB")),
			 1000);
	/* ... and at the bound */
	assert_int_equal(parse_field(OPENPAI, ROLE, "memoryMB", "99.0"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "min-memory", "taskRoles[0].memoryMB",
			      AT(at_value("memoryMB", 1))});
}

static void test_numeric_string_edge_cases(void **state)
{
	static const char *const not_integers[] = {
	    "\"4.5\"", "\"abc\"", "\"\"",     "\" 4\"", "\"4 \"",
	    "\"+4\"",  "\"1e3\"", "\"0x10\"", "\"4a\"", "1.5",
	    "0.5",     "true",	  "false",
	};
	const pai_diag *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(not_integers) / sizeof(*not_integers); i++) {
		print_message("cpuNumber = %s\n", not_integers[i]);
		assert_int_equal(
		    parse_field(OPENPAI, ROLE, "cpuNumber", not_integers[i]),
		    PAI_EINVALID);
		expect_only(T.diags, {ERR, "type", "taskRoles[0].cpuNumber",
				      AT(at_value("cpuNumber", 1))});
	}

	/* "4": a warning, and 4 is sent */
	assert_int_equal(parse_field(OPENPAI, ROLE, "cpuNumber", "\"4\""),
			 PAI_OK);
	expect_only(T.diags, {WARN, "numeric-string", "taskRoles[0].cpuNumber",
			      AT(at_value("cpuNumber", 1))});
	assert_int_equal(json_integer_value(config_field(ROLE, "cpuNumber")),
			 4);
	/* leading zeros are still decimal digits */
	assert_int_equal(parse_field(OPENPAI, ROLE, "cpuNumber", "\"007\""),
			 PAI_OK);
	assert_int_equal(json_integer_value(config_field(ROLE, "cpuNumber")),
			 7);
	/* 4.0 is 4, silently */
	assert_int_equal(parse_field(OPENPAI, ROLE, "cpuNumber", "4.0"),
			 PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(json_integer_value(config_field(ROLE, "cpuNumber")),
			 4);

	/* a converted string is still checked against the bounds */
	assert_int_equal(parse_field(OPENPAI, ROLE, "memoryMB", "\"99\""),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {WARN, "numeric-string", "taskRoles[0].memoryMB",
		     AT(at_value("memoryMB", 1))},
		    {ERR, "min-memory", "taskRoles[0].memoryMB",
		     AT(at_value("memoryMB", 1))});

	/* the largest integer that fits, and one more */
	assert_int_equal(
	    parse_field(OPENPAI, ROLE, "memoryMB", "\"9223372036854775807\""),
	    PAI_OK);
	assert_int_equal(json_integer_value(config_field(ROLE, "memoryMB")),
			 INT64_MAX);
	assert_int_equal(
	    parse_field(OPENPAI, ROLE, "memoryMB", "\"9223372036854775808\""),
	    PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "number-range", "taskRoles[0].memoryMB",
			AT(at_value("memoryMB", 1)));
	expect_in_message(d, "9223372036854775808");
	/* one problem, reported once */
	expect_only(T.diags, {ERR, "number-range", "taskRoles[0].memoryMB",
			      AT(at_value("memoryMB", 1))});

	assert_int_equal(parse_field(OPENPAI, ROLE, "memoryMB",
				     "\"99999999999999999999999\""),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "number-range", "taskRoles[0].memoryMB",
			      AT(at_value("memoryMB", 1))});

	/* a literal that no integer holds */
	assert_int_not_equal(
	    parse_field(OPENPAI, ROLE, "memoryMB", "99999999999999999999999"),
	    PAI_OK);
	expect_only(T.diags,
		    {ERR, "number-range", "", AT(at_value("memoryMB", 1))});

	/* in jobEnvs, any value goes and nothing is converted */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs", "{\"n\": \"4\"}"),
			 PAI_OK);
	expect_clean(T.diags);
	assert_string_equal(json_string_value(json_object_get(
				config_field(TOP, "jobEnvs"), "n")),
			    "4");
}

/* ---- bounds: both sides of each ----------------------------------------- */

struct bound_case {
	enum level level;
	const char *key, *value;
	const char *rule; /* NULL: clean */
	pai_severity sev;
};

static const struct bound_case bound_cases[] = {
    {ROLE, "taskNumber", "0", "min-task-number", ERR},
    {ROLE, "taskNumber", "-1", "min-task-number", ERR},
    {ROLE, "taskNumber", "1", NULL, ERR},
    {ROLE, "cpuNumber", "0", "min-cpu-number", ERR},
    {ROLE, "cpuNumber", "-5", "min-cpu-number", ERR},
    {ROLE, "cpuNumber", "1", NULL, ERR},
    {ROLE, "memoryMB", "99", "min-memory", ERR},
    {ROLE, "memoryMB", "0", "min-memory", ERR},
    {ROLE, "memoryMB", "100", NULL, ERR},
    {ROLE, "gpuNumber", "-1", "min-gpu-number", ERR},
    {ROLE, "gpuNumber", "0", NULL, ERR},
    /* memoryMB is 1024 */
    {ROLE, "shmMB", "1024", NULL, ERR},
    {ROLE, "shmMB", "1025", "max-shm", ERR},
    {ROLE, "shmMB", "0", NULL, ERR},
    {TOP, "retryCount", "-3", "min-retry-count", ERR},
    {TOP, "retryCount", "-100", "min-retry-count", ERR},
    {TOP, "retryCount", "-2", "negative-retry-count", WARN},
    {TOP, "retryCount", "-1", "negative-retry-count", WARN},
    {TOP, "retryCount", "0", NULL, ERR},
    /* taskNumber is 1 */
    {ROLE, "minFailedTaskCount", "null", NULL, ERR},
    {ROLE, "minFailedTaskCount", "0", "min-failed-task-count", ERR},
    {ROLE, "minFailedTaskCount", "-1", "min-failed-task-count", ERR},
    {ROLE, "minFailedTaskCount", "1", NULL, ERR},
    {ROLE, "minFailedTaskCount", "2", "max-failed-task-count", ERR},
    {ROLE, "minSucceededTaskCount", "null", NULL, ERR},
    {ROLE, "minSucceededTaskCount", "0", "min-succeeded-task-count", ERR},
    {ROLE, "minSucceededTaskCount", "-1", "min-succeeded-task-count", ERR},
    {ROLE, "minSucceededTaskCount", "1", NULL, ERR},
    {ROLE, "minSucceededTaskCount", "2", "max-succeeded-task-count", ERR},
};

static void test_bounds(void **state)
{
	size_t i;
	char path[128];

	(void)state;
	for (i = 0; i < sizeof(bound_cases) / sizeof(*bound_cases); i++) {
		const struct bound_case *b = &bound_cases[i];
		const pai_diag *d;

		path_of(b->level, b->key, path, sizeof(path));
		print_message("%s = %s\n", path, b->value);
		parse_field(OPENPAI, b->level, b->key, b->value);
		if (!b->rule) {
			assert_int_equal(T.rc, PAI_OK);
			expect_clean(T.diags);
			continue;
		}
		assert_int_equal(T.rc, b->sev == ERR ? PAI_EINVALID : PAI_OK);
		expect_only(T.diags,
			    {b->sev, b->rule, path, AT(at_value(b->key, 1))});
		/* what was found */
		d = pai_diags_get(T.diags, 0);
		expect_in_message(d, b->value);
	}
}

static void test_bounds_relative_to_other_fields(void **state)
{
	static const char *const counts[] = {"minFailedTaskCount",
					     "minSucceededTaskCount"};
	static const char *const max_rule[] = {"max-failed-task-count",
					       "max-succeeded-task-count"};
	char path[128];
	size_t i;
	pai_role r;

	(void)state;
	/* shmMB = memoryMB at the smallest memoryMB */
	assert_int_equal(parse_job(OPENPAI, NULL,
				   KV({"memoryMB", "100"}, {"shmMB", "100"}),
				   NULL),
			 PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(parse_job(OPENPAI, NULL,
				   KV({"memoryMB", "100"}, {"shmMB", "101"}),
				   NULL),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "max-shm", "taskRoles[0].shmMB",
			      AT(at_value("shmMB", 1))});
	expect_in_message(pai_diags_get(T.diags, 0), "100");

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "taskRoles[0].%s", counts[i]);
		/* = taskNumber */
		assert_int_equal(
		    parse_job(OPENPAI, NULL,
			      KV({"taskNumber", "3"}, {counts[i], "3"}), NULL),
		    PAI_OK);
		expect_clean(T.diags);
		assert_int_equal(pai_job_role(&r, T.job, 0), PAI_OK);
		assert_int_equal(i ? r.min_succeeded : r.min_failed, 3);
		/* taskNumber + 1 */
		assert_int_equal(
		    parse_job(OPENPAI, NULL,
			      KV({"taskNumber", "3"}, {counts[i], "4"}), NULL),
		    PAI_EINVALID);
		expect_only(T.diags, {ERR, max_rule[i], path,
				      AT(at_value(counts[i], 1))});
		expect_in_message(pai_diags_get(T.diags, 0), "4");
		/* null: no minimum */
		assert_int_equal(
		    parse_job(OPENPAI, NULL,
			      KV({"taskNumber", "3"}, {counts[i], "null"}),
			      NULL),
		    PAI_OK);
		assert_int_equal(pai_job_role(&r, T.job, 0), PAI_OK);
		assert_int_equal(i ? r.min_succeeded : r.min_failed, -1);
	}
}

static void test_storage_gb_scm(void **state)
{
	(void)state;
	/* an scm field */
	assert_int_equal(parse_field(SCM, ROLE, "storageGB", "0"), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(json_integer_value(config_field(ROLE, "storageGB")),
			 0);
	assert_int_equal(parse_field(SCM, ROLE, "storageGB", "5"), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(parse_field(SCM, ROLE, "storageGB", "-1"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "min-storage", "taskRoles[0].storageGB",
			      AT(at_value("storageGB", 1))});
	/* an integer like the others */
	assert_int_equal(parse_field(SCM, ROLE, "storageGB", "\"5\""), PAI_OK);
	expect_only(T.diags, {WARN, "numeric-string", "taskRoles[0].storageGB",
			      AT(at_value("storageGB", 1))});
	assert_int_equal(json_integer_value(config_field(ROLE, "storageGB")),
			 5);
	assert_int_equal(parse_field(SCM, ROLE, "storageGB", "1.5"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "taskRoles[0].storageGB",
			      AT(at_value("storageGB", 1))});
	assert_int_equal(parse_field(SCM, ROLE, "storageGB", "null"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "taskRoles[0].storageGB",
			      AT(at_value("storageGB", 1))});
	/* optional */
	assert_int_equal(parse_job(SCM, NULL, NULL, NULL), PAI_OK);
	expect_clean(T.diags);
	/* unknown in openpai */
	assert_int_equal(parse_field(OPENPAI, ROLE, "storageGB", "0"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "unknown-field", "taskRoles[0].storageGB",
			      AT(at_key("storageGB", 1))});
}

static void test_port_numbers(void **state)
{
	const pai_diag *d;

	(void)state;
	/* the table sets no bounds on ports: never an error */
	assert_int_equal(
	    parse_job(OPENPAI, NULL, NULL,
		      KV({"beginAt", "65535"}, {"portNumber", "1"})),
	    PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(
	    parse_job(OPENPAI, NULL, NULL,
		      KV({"beginAt", "65534"}, {"portNumber", "3"})),
	    PAI_OK);
	expect_only(T.diags,
		    {WARN, "port-range", "taskRoles[0].portList[0].beginAt",
		     AT(at_value("beginAt", 1))});
	assert_int_equal(parse_job(OPENPAI, NULL, NULL, KV({"beginAt", "-1"})),
			 PAI_OK);
	expect_only(T.diags,
		    {WARN, "port-range", "taskRoles[0].portList[0].beginAt",
		     AT(at_value("beginAt", 1))});
	assert_int_equal(
	    parse_job(OPENPAI, NULL, NULL, KV({"portNumber", "-1"})), PAI_OK);
	expect_only(T.diags,
		    {WARN, "port-range", "taskRoles[0].portList[0].portNumber",
		     AT(at_value("portNumber", 1))});
	assert_int_equal(
	    parse_job(OPENPAI, NULL, NULL,
		      KV({"beginAt", "30000"}, {"portNumber", "4"})),
	    PAI_OK);
	expect_clean(T.diags);
	/* the extremes of a long long: a warning, and no overflow working
	 * out the last port (UBSan in make check-asan would fail here) */
	assert_int_equal(parse_job(OPENPAI, NULL, NULL,
				   KV({"beginAt", "9223372036854775807"},
				      {"portNumber", "9223372036854775807"})),
			 PAI_OK);
	d = expect_diag(T.diags, WARN, "port-range",
			"taskRoles[0].portList[0].beginAt",
			AT(at_value("beginAt", 1)));
	expect_in_message(d, "9223372036854775807 ports from "
			     "9223372036854775807");
	assert_int_equal(parse_job(OPENPAI, NULL, NULL,
				   KV({"beginAt", "-9223372036854775808"},
				      {"portNumber", "0"})),
			 PAI_OK);
	expect_only(T.diags,
		    {WARN, "port-range", "taskRoles[0].portList[0].beginAt",
		     AT(at_value("beginAt", 1))});
	assert_int_equal(parse_job(OPENPAI, NULL, NULL,
				   KV({"beginAt", "65535"},
				      {"portNumber", "-9223372036854775808"})),
			 PAI_OK);
	d = expect_diag(T.diags, WARN, "port-range",
			"taskRoles[0].portList[0].portNumber",
			AT(at_value("portNumber", 1)));
	expect_in_message(d, "at least 0");
	/* 65535 - 65000 + 1 ports fit exactly; one more does not */
	assert_int_equal(
	    parse_job(OPENPAI, NULL, NULL,
		      KV({"beginAt", "65000"}, {"portNumber", "536"})),
	    PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(
	    parse_job(OPENPAI, NULL, NULL,
		      KV({"beginAt", "65000"}, {"portNumber", "537"})),
	    PAI_OK);
	expect_only(T.diags,
		    {WARN, "port-range", "taskRoles[0].portList[0].beginAt",
		     AT(at_value("beginAt", 1))});
}

/* ---- names ----------------------------------------------------------- */

static void test_job_name(void **state)
{
	static const char *const valid[] = {
	    "a",
	    "Z",
	    "0",
	    "job_1",
	    "tensorflow-cifar10",
	    "a.b",
	    "-",
	    ".",
	    "_",
	    "A-Za-z0-9.-_",
	    "..",
	    "1234",
	    ("a123456789b123456789c123456789d123456789e123456789"
	     "f123456789g123456789h123456789i123456789j123456789"),
	};
	static const char *const invalid[] = {
	    "a b", " a",  "a ",	  "a/b",    "a:b",   "a+b",
	    "a@b", "a,b", "作业", "é",	    "a\\tb", "a\\nb",
	    "a*b", "a$b", "a'b",  "a\\\"b", "h😀",    "a\\u00e9",
	};
	char value[256];
	const pai_diag *d;
	char *tilde_message;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(valid) / sizeof(*valid); i++) {
		snprintf(value, sizeof(value), "\"%s\"", valid[i]);
		print_message("jobName = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobName", value),
				 PAI_OK);
		expect_clean(T.diags);
		assert_string_equal(pai_job_name(T.job), valid[i]);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(*invalid); i++) {
		snprintf(value, sizeof(value), "\"%s\"", invalid[i]);
		print_message("jobName = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobName", value),
				 PAI_EINVALID);
		expect_only(T.diags, {ERR, "job-name", "jobName",
				      AT(at_value("jobName", 1))});
	}
	/* the message quotes the character whole, however many bytes it
	 * takes (a cut one is no UTF-8, and the JSON output fails) */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", "\"h😀x\""),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "job-name", "jobName",
			AT(at_value("jobName", 1)));
	expect_in_message(d, "'😀'");
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", "\"作业\""),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "job-name", "jobName",
			AT(at_value("jobName", 1)));
	expect_in_message(d, "'作'");

	/* empty */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", "\"\""),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "job-name", "jobName", AT(at_value("jobName", 1))});

	/* '~': the table allows it, the server does not (it joins user and
	 * job with '~'): a message of its own, that says why */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", "\"a~b\""),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "job-name", "jobName",
			AT(at_value("jobName", 1)));
	expect_in_message(d, "~");
	expect_in_message(d, "user");
	assert_int_equal(pai_diags_errors(T.diags), 1);
	tilde_message = strdup(d->message);
	assert_non_null(tilde_message);
	/* not merely the message of any other character */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", "\"a@b\""),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "job-name", "jobName",
			AT(at_value("jobName", 1)));
	{
		char *other = strdup(d->message), *q;

		assert_non_null(other);
		for (q = other; *q; q++)
			if (*q == '@')
				*q = '~';
		assert_string_not_equal(other, tilde_message);
		free(other);
	}
	free(tilde_message);
	/* also in scm */
	assert_int_equal(parse_field(SCM, TOP, "jobName", "\"a~b\""),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "job-name", "jobName", AT(at_value("jobName", 1))});
}

static void test_role_name(void **state)
{
	static const char *const valid[] = {
	    "worker", "ps_server", "a.b",   "a~b", "~",
	    ".",      "_",	   "Task1", "0",   "a.~_9",
	};
	static const char *const invalid[] = {
	    "", "a b", "a/b", "a:b", "作业", "a+b", "a$b",
	};
	char value[128];
	const pai_diag *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(valid) / sizeof(*valid); i++) {
		snprintf(value, sizeof(value), "\"%s\"", valid[i]);
		print_message("name = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, ROLE, "name", value),
				 PAI_OK);
		expect_clean(T.diags);
		assert_int_equal(pai_job_role_index(T.job, valid[i]), 0);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(*invalid); i++) {
		snprintf(value, sizeof(value), "\"%s\"", invalid[i]);
		print_message("name = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, ROLE, "name", value),
				 PAI_EINVALID);
		expect_only(T.diags, {ERR, "role-name", "taskRoles[0].name",
				      AT(at_value("name", 1))});
	}
	/* '-': old examples used it; the server rejects it */
	assert_int_equal(parse_field(OPENPAI, ROLE, "name", "\"g2p-train\""),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "role-name", "taskRoles[0].name",
			AT(at_value("name", 1)));
	expect_in_message(d, "-");
	assert_int_equal(pai_diags_errors(T.diags), 1);
	assert_int_equal(parse_field(SCM, ROLE, "name", "\"a-b\""),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "role-name", "taskRoles[0].name",
			      AT(at_value("name", 1))});
}

static void test_port_label(void **state)
{
	static const char *const valid[] = {
	    "web", "a.b", "a~b", "x_1", "~", "SSH",
	};
	static const char *const invalid[] = {
	    "a-b", "", "a b", "a/b", "é",
	};
	char value[128];
	pai_port p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(valid) / sizeof(*valid); i++) {
		snprintf(value, sizeof(value), "\"%s\"", valid[i]);
		print_message("label = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, PORT, "label", value),
				 PAI_OK);
		expect_clean(T.diags);
		assert_int_equal(pai_job_port(&p, T.job, 0, 0), PAI_OK);
		assert_string_equal(p.label, valid[i]);
		assert_int_equal(p.implicit, 0);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(*invalid); i++) {
		snprintf(value, sizeof(value), "\"%s\"", invalid[i]);
		print_message("label = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, PORT, "label", value),
				 PAI_EINVALID);
		expect_only(T.diags, {ERR, "port-label",
				      "taskRoles[0].portList[0].label",
				      AT(at_value("label", 1))});
	}
}

static void test_duplicate_role_names(void **state)
{
	const pai_diag *d;

	(void)state;
	assert_int_equal(
	    parse_field(OPENPAI, TOP, "taskRoles",
			"[\n    " ROLE_JSON("a") ",\n    " ROLE_JSON(
			    "b") ",\n    " ROLE_JSON("a") "\n  ]"),
	    PAI_EINVALID);
	/* at the second occurrence, naming the first */
	expect_only(T.diags, {ERR, "duplicate-role-name", "taskRoles[2].name",
			      AT(at_value("name", 3))});
	d = pai_diags_get(T.diags, 0);
	expect_in_message(d, "taskRoles[0]");
	expect_in_message(d, "\"a\"");

	/* three times: the 2nd and 3rd, each naming the first */
	assert_int_equal(parse_field(OPENPAI, TOP, "taskRoles",
				     "[" ROLE_JSON("a") ", " ROLE_JSON(
					 "a") ", " ROLE_JSON("a") "]"),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "duplicate-role-name", "taskRoles[1].name",
		     AT(at_value("name", 2))},
		    {ERR, "duplicate-role-name", "taskRoles[2].name",
		     AT(at_value("name", 3))});
	expect_in_message(pai_diags_get(T.diags, 0), "taskRoles[0]");
	expect_in_message(pai_diags_get(T.diags, 1), "taskRoles[0]");

	/* names are compared exactly */
	assert_int_equal(parse_field(OPENPAI, TOP, "taskRoles",
				     "[" ROLE_JSON("a") ", " ROLE_JSON(
					 "A") ", " ROLE_JSON("a.") "]"),
			 PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(pai_job_role_count(T.job), 3);
	assert_int_equal(pai_job_role_index(T.job, "a."), 2);
}

static void test_duplicate_port_labels(void **state)
{
	const pai_diag *d;

	(void)state;
	assert_int_equal(
	    parse_field(
		OPENPAI, ROLE, "portList",
		"[{\"label\": \"x\", \"beginAt\": 0, \"portNumber\": 1},\n"
		"        {\"label\": \"y\", \"beginAt\": 0, \"portNumber\": "
		"1},\n"
		"        {\"label\": \"x\", \"beginAt\": 0, \"portNumber\": "
		"2}]"),
	    PAI_EINVALID);
	expect_only(T.diags, {ERR, "duplicate-port-label",
			      "taskRoles[0].portList[2].label",
			      AT(at_value("label", 3))});
	d = pai_diags_get(T.diags, 0);
	expect_in_message(d, "taskRoles[0].portList[0]");
	expect_in_message(d, "\"x\"");

	/* unique within a role, not across roles */
	assert_int_equal(
	    parse_field(
		OPENPAI, TOP, "taskRoles",
		"[{\"name\": \"a\", \"taskNumber\": 1, \"cpuNumber\": 1, "
		"\"memoryMB\": 1024, \"gpuNumber\": 0, \"command\": \"c\", "
		"\"portList\": [{\"label\": \"x\", \"beginAt\": 0, "
		"\"portNumber\": 1}]},\n"
		"   {\"name\": \"b\", \"taskNumber\": 1, \"cpuNumber\": 1, "
		"\"memoryMB\": 1024, \"gpuNumber\": 0, \"command\": \"c\", "
		"\"portList\": [{\"label\": \"x\", \"beginAt\": 0, "
		"\"portNumber\": 1}]}]"),
	    PAI_OK);
	expect_clean(T.diags);

	/* in the second role, the path says so */
	assert_int_equal(
	    parse_field(
		OPENPAI, TOP, "taskRoles",
		"[" ROLE_JSON("a") ",\n   {\"name\": \"b\", \"taskNumber\": 1, "
				   "\"cpuNumber\": 1, \"memoryMB\": 1024, "
				   "\"gpuNumber\": 0, "
				   "\"command\": \"c\", \"portList\": "
				   "[{\"label\": \"x\", "
				   "\"beginAt\": 0, \"portNumber\": 1}, "
				   "{\"label\": \"x\", "
				   "\"beginAt\": 0, \"portNumber\": 1}]}]"),
	    PAI_EINVALID);
	expect_only(T.diags, {ERR, "duplicate-port-label",
			      "taskRoles[1].portList[1].label",
			      AT(at_value("label", 2))});
	expect_in_message(pai_diags_get(T.diags, 0),
			  "taskRoles[1].portList[0]");
}

/* Many roles and long port lists: the first of each name is kept as
 * the table that holds them grows, and each port list starts afresh
 * (the labels of one role are not the next one's). */
static void test_duplicates_many(void **state)
{
	pai__buf b = PAI__BUF_INIT;
	const pai_diag *d;
	size_t r, k;

	(void)state;
	pai__buf_puts(&b, "{\"jobName\": \"j\", \"image\": \"i\", "
			  "\"taskRoles\": [\n");
	for (r = 0; r < 300; r++) {
		/* role 250 is named as role 17 is */
		pai__buf_printf(&b,
				"%s{\"name\": \"r%zu\", \"taskNumber\": 1, "
				"\"cpuNumber\": 1, \"memoryMB\": 1024, "
				"\"gpuNumber\": 0, \"command\": \"c\", "
				"\"portList\": [",
				r ? ",\n" : "", r == 250 ? (size_t)17 : r);
		/* 60 labels; role 5's 50th repeats its 40th */
		for (k = 0; k < 60; k++)
			pai__buf_printf(&b,
					"%s{\"label\": \"p%zu\", \"beginAt\": "
					"0, \"portNumber\": 1}",
					k ? ", " : "",
					r == 5 && k == 50 ? (size_t)40 : k);
		pai__buf_puts(&b, "]}");
	}
	pai__buf_puts(&b, "]}\n");
	assert_false(b.oom);
	assert_int_equal(parse_in(OPENPAI, b.data), PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "duplicate-port-label",
		     "taskRoles[5].portList[50].label", ANYWHERE},
		    {ERR, "duplicate-role-name", "taskRoles[250].name",
		     ANYWHERE});
	d = pai_diags_get(T.diags, 0);
	expect_in_message(d, "\"p40\" is already used by "
			     "taskRoles[5].portList[40]");
	d = pai_diags_get(T.diags, 1);
	expect_in_message(d, "\"r17\" is already defined by taskRoles[17]");
	pai__buf_release(&b);
}

/* ---- strings ---------------------------------------------------------- */

static void test_directories(void **state)
{
	static const char *const dirs[] = {"authFile", "dataDir", "outputDir",
					   "codeDir"};
	static const char *const fine[] = {
	    "\"\"",
	    "\"hdfs://10.0.0.1:9000/user/a/data\"",
	    "\"hdfs:///x\"",
	    "\"$PAI_DEFAULT_FS_URI/path/x\"",
	    "\"$PAI_DEFAULT_FS_URI\"",
	};
	static const char *const not_hdfs[] = {
	    "\"/tmp/x\"",    "\"data\"",       "\"http://host/x\"",
	    "\"file:///x\"", "\"./hdfs://x\"", "\"$HOME/x\"",
	};
	char path[64];
	size_t i, j;

	(void)state;
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s", dirs[i]);
		for (j = 0; j < sizeof(fine) / sizeof(*fine); j++) {
			print_message("%s = %s\n", dirs[i], fine[j]);
			assert_int_equal(
			    parse_field(OPENPAI, TOP, dirs[i], fine[j]),
			    PAI_OK);
			expect_clean(T.diags);
		}
		for (j = 0; j < sizeof(not_hdfs) / sizeof(*not_hdfs); j++) {
			print_message("%s = %s\n", dirs[i], not_hdfs[j]);
			assert_int_equal(
			    parse_field(OPENPAI, TOP, dirs[i], not_hdfs[j]),
			    PAI_OK);
			expect_only(T.diags, {WARN, "dir-uri", path,
					      AT(at_value(dirs[i], 1))});
		}
		/* may be "", not null */
		assert_int_equal(parse_field(OPENPAI, TOP, dirs[i], "null"),
				 PAI_EINVALID);
		expect_only(T.diags,
			    {ERR, "type", path, AT(at_value(dirs[i], 1))});
		assert_int_equal(parse_field(OPENPAI, TOP, dirs[i], "0"),
				 PAI_EINVALID);
		expect_only(T.diags,
			    {ERR, "type", path, AT(at_value(dirs[i], 1))});
	}
	/* the directories are sent as written */
	assert_int_equal(parse_field(OPENPAI, TOP, "outputDir", "\"/tmp/x\""),
			 PAI_OK);
	assert_string_equal(json_string_value(config_field(TOP, "outputDir")),
			    "/tmp/x");
}

static void test_image_and_command(void **state)
{
	(void)state;
	assert_int_equal(parse_field(OPENPAI, TOP, "image", "\"\""),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "empty", "image", AT(at_value("image", 1))});
	assert_int_equal(parse_field(OPENPAI, ROLE, "command", "\"\""),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "empty", "taskRoles[0].command",
			      AT(at_value("command", 1))});
	/* anything else goes */
	assert_int_equal(parse_field(OPENPAI, TOP, "image",
				     "\"registry:5000/a/b:c@sha256:00\""),
			 PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(parse_field(OPENPAI, ROLE, "command", "\" \""),
			 PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(parse_field(OPENPAI, ROLE, "command",
				     "\"sleep 1 && echo \\\"é\\\" | cat\""),
			 PAI_OK);
	expect_clean(T.diags);
}

static void test_virtual_cluster_and_gpu_type(void **state)
{
	static const char *const keys[] = {"virtualCluster", "gpuType"};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(parse_field(OPENPAI, TOP, keys[i], "\"\""),
				 PAI_OK);
		expect_clean(T.diags);
		assert_int_equal(parse_field(OPENPAI, TOP, keys[i], "\"vc_1\""),
				 PAI_OK);
		expect_clean(T.diags);
		assert_int_equal(parse_field(OPENPAI, TOP, keys[i], "null"),
				 PAI_EINVALID);
		expect_only(T.diags,
			    {ERR, "type", keys[i], AT(at_value(keys[i], 1))});
	}
}

/* ---- arrays ----------------------------------------------------------- */

static void test_task_roles_shape(void **state)
{
	(void)state;
	assert_int_equal(parse_field(OPENPAI, TOP, "taskRoles", "[]"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "min-task-roles", "taskRoles",
			      AT(at_value("taskRoles", 1))});

	/* an element that is no object */
	assert_int_equal(parse_field(OPENPAI, TOP, "taskRoles", "[ 1 ]"),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "type", "taskRoles[0]", AT(at_text("1 ]", 1))});
	expect_in_message(pai_diags_get(T.diags, 0), "object");
	assert_int_equal(parse_field(OPENPAI, TOP, "taskRoles", "[null]"),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "type", "taskRoles[0]", AT(at_text("null]", 1))});
	assert_int_equal(
	    parse_field(OPENPAI, TOP, "taskRoles",
			"[" ROLE_JSON("a") ", \"b\", [" ROLE_JSON("c") "]]"),
	    PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "type", "taskRoles[1]", AT(at_text("\"b\"", 1))},
		    {ERR, "type", "taskRoles[2]", AT(at_text("[{", 2))});

	/* an error in the second role has the second role's path */
	assert_int_equal(
	    parse_field(
		OPENPAI, TOP, "taskRoles",
		"[" ROLE_JSON("a") ",\n    {\"name\": \"b\", "
				   "\"taskNumber\": 1, \"cpuNumber\": 1, "
				   "\"memoryMB\": 50, \"gpuNumber\": 0, "
				   "\"command\": \"c\"}]"),
	    PAI_EINVALID);
	expect_only(T.diags, {ERR, "min-memory", "taskRoles[1].memoryMB",
			      AT(at_value("memoryMB", 2))});
	assert_int_equal(at_value("memoryMB", 2).line, 5);
}

static void test_port_list_shape(void **state)
{
	(void)state;
	assert_int_equal(parse_field(OPENPAI, ROLE, "portList", "[]"), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(parse_field(OPENPAI, ROLE, "portList", "[ 80 ]"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "taskRoles[0].portList[0]",
			      AT(at_text("80 ]", 1))});
	assert_int_equal(parse_field(OPENPAI, ROLE, "portList", "[\"web\"]"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "type", "taskRoles[0].portList[0]",
			      AT(at_text("\"web\"", 1))});
	/* unknown fields in a port, with a hint */
	assert_int_equal(parse_job(OPENPAI, NULL, NULL,
				   KV({"label", NULL}, {"lable", "\"x\""})),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "unknown-field", "taskRoles[0].portList[0].lable",
		     AT(at_key("lable", 1))},
		    {ERR, "required", "taskRoles[0].portList[0].label",
		     AT(at_text("{", 3))});
	expect_in_message(expect_diag(T.diags, ERR, "unknown-field",
				      "taskRoles[0].portList[0].lable",
				      ANYWHERE),
			  "\"label\"");
}

/* ---- jobEnvs and extras ------------------------------------------------- */

static void test_job_env_keys(void **state)
{
	static const char *const fine[] = {"_x",	 "x", "X_1",
					   "batch_size", "_", "a1"};
	static const struct {
		const char *key, *path;
	} not_shell[] = {
	    {"batch-size", "jobEnvs[\"batch-size\"]"},
	    {"1abc", "jobEnvs[\"1abc\"]"},
	    {"a b", "jobEnvs[\"a b\"]"},
	    {"-a-", "jobEnvs[\"-a-\"]"},
	    {"a.b", "jobEnvs[\"a.b\"]"},
	    {"9", "jobEnvs[\"9\"]"},
	};
	static const struct {
		const char *key, *path;
	} no_word[] = {
	    {"---", "jobEnvs[\"---\"]"},
	    {"", "jobEnvs[\"\"]"},
	    {".", "jobEnvs[\".\"]"},
	    {"~ ~", "jobEnvs[\"~ ~\"]"},
	};
	char value[128], path[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fine) / sizeof(*fine); i++) {
		snprintf(value, sizeof(value), "{\"%s\": 1}", fine[i]);
		print_message("jobEnvs = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs", value),
				 PAI_OK);
		expect_clean(T.diags);
	}
	for (i = 0; i < sizeof(not_shell) / sizeof(*not_shell); i++) {
		snprintf(value, sizeof(value), "{\"%s\": 1}", not_shell[i].key);
		print_message("jobEnvs = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs", value),
				 PAI_OK);
		expect_only(T.diags, {WARN, "job-env-name", not_shell[i].path,
				      AT(at_key(not_shell[i].key, 1))});
	}
	for (i = 0; i < sizeof(no_word) / sizeof(*no_word); i++) {
		snprintf(value, sizeof(value), "{\"%s\": 1}", no_word[i].key);
		print_message("jobEnvs = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs", value),
				 PAI_EINVALID);
		expect_only(T.diags, {ERR, "job-env-key", no_word[i].path,
				      AT(at_key(no_word[i].key, 1))});
	}
	/* all of them at once */
	assert_int_equal(
	    parse_field(OPENPAI, TOP, "jobEnvs",
			"{\n    \"ok\": 1,\n    \"batch-size\": 2,\n"
			"    \"---\": 3\n  }"),
	    PAI_EINVALID);
	snprintf(path, sizeof(path), "jobEnvs[\"---\"]");
	expect_only(T.diags,
		    {WARN, "job-env-name", "jobEnvs[\"batch-size\"]",
		     AT(at_key("batch-size", 1))},
		    {ERR, "job-env-key", path, AT(at_key("---", 1))});
}

static void test_job_env_values(void **state)
{
	json_t *envs;

	(void)state;
	/* any JSON value */
	assert_int_equal(
	    parse_field(OPENPAI, TOP, "jobEnvs",
			"{\"s\": \"x\", \"e\": \"\", \"i\": 32, "
			"\"neg\": -1, \"r\": 0.5, \"t\": true, "
			"\"f\": false, \"n\": null, \"big\": 1e300}"),
	    PAI_OK);
	expect_clean(T.diags);
	envs = config_field(TOP, "jobEnvs");
	assert_int_equal(json_object_size(envs), 9);
	assert_true(json_is_null(json_object_get(envs, "n")));
	assert_int_equal(json_integer_value(json_object_get(envs, "i")), 32);

	/* objects and arrays are accepted, with a warning */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs",
				     "{\"obj\": {\"k\": 1}, \"arr\": [1, 2], "
				     "\"eo\": {}, \"ea\": []}"),
			 PAI_OK);
	expect_only(
	    T.diags,
	    {WARN, "job-env-value", "jobEnvs.obj", AT(at_value("obj", 1))},
	    {WARN, "job-env-value", "jobEnvs.arr", AT(at_value("arr", 1))},
	    {WARN, "job-env-value", "jobEnvs.eo", AT(at_value("eo", 1))},
	    {WARN, "job-env-value", "jobEnvs.ea", AT(at_value("ea", 1))});
	envs = config_field(TOP, "jobEnvs");
	assert_true(json_is_object(json_object_get(envs, "obj")));
	assert_true(json_is_array(json_object_get(envs, "arr")));
}

static void test_job_env_booleans(void **state)
{
	static const char *const keys[] = {"paiAzRDMA", "isDebug"};
	static const char *const not_booleans[] = {
	    "\"true\"", "1", "0", "null", "\"\"", "{}", "[]"};
	char value[128], path[64];
	size_t i, j;

	(void)state;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "jobEnvs.%s", keys[i]);
		snprintf(value, sizeof(value), "{\"%s\": true}", keys[i]);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs", value),
				 PAI_OK);
		expect_clean(T.diags);
		snprintf(value, sizeof(value), "{\"%s\": false}", keys[i]);
		assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs", value),
				 PAI_OK);
		expect_clean(T.diags);
		for (j = 0; j < sizeof(not_booleans) / sizeof(*not_booleans);
		     j++) {
			snprintf(value, sizeof(value), "{\"%s\": %s}", keys[i],
				 not_booleans[j]);
			print_message("jobEnvs = %s\n", value);
			assert_int_equal(
			    parse_field(OPENPAI, TOP, "jobEnvs", value),
			    PAI_OK);
			expect_diag(T.diags, WARN, "job-env-boolean", path,
				    AT(at_value(keys[i], 1)));
			assert_int_equal(pai_diags_errors(T.diags), 0);
		}
	}
	/* only those two names */
	assert_int_equal(parse_field(OPENPAI, TOP, "jobEnvs",
				     "{\"paiazrdma\": \"yes\", \"debug\": 1}"),
			 PAI_OK);
	expect_clean(T.diags);
}

static void test_extras_keys(void **state)
{
	static const char *const fine[] = {"a", "a.b", ".",   "_",
					   "9", "a-b", "a b", "~x"};
	static const struct {
		const char *key, *path;
	} bad[] = {
	    {"-", "extras[\"-\"]"},
	    {"", "extras[\"\"]"},
	    {"~", "extras[\"~\"]"},
	    {"- -", "extras[\"- -\"]"},
	};
	char value[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fine) / sizeof(*fine); i++) {
		snprintf(value, sizeof(value), "{\"%s\": 1}", fine[i]);
		print_message("extras = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "extras", value),
				 PAI_OK);
		expect_clean(T.diags);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(value, sizeof(value), "{\"%s\": 1}", bad[i].key);
		print_message("extras = %s\n", value);
		assert_int_equal(parse_field(OPENPAI, TOP, "extras", value),
				 PAI_EINVALID);
		expect_only(T.diags, {ERR, "extras-key", bad[i].path,
				      AT(at_key(bad[i].key, 1))});
	}
	/* values of any type */
	assert_int_equal(parse_field(OPENPAI, TOP, "extras",
				     "{\"a\": {\"b\": [1, null]}, \"c\": null, "
				     "\"d\": \"s\", \"e\": 1.5, \"f\": []}"),
			 PAI_OK);
	expect_clean(T.diags);
}

static void test_kill_all_obsolete(void **state)
{
	const pai_diag *d;

	(void)state;
	assert_int_equal(
	    parse_field(OPENPAI, TOP, "killAllOnCompletedTaskNumber", "1"),
	    PAI_OK);
	expect_only(T.diags, {WARN, "obsolete", "killAllOnCompletedTaskNumber",
			      AT(at_value("killAllOnCompletedTaskNumber", 1))});
	d = pai_diags_get(T.diags, 0);
	expect_in_message(d, "minFailedTaskCount");
	expect_in_message(d, "minSucceededTaskCount");
	/* accepted: it is sent */
	assert_int_equal(json_integer_value(
			     config_field(TOP, "killAllOnCompletedTaskNumber")),
			 1);
	/* still an integer field */
	assert_int_equal(
	    parse_field(OPENPAI, TOP, "killAllOnCompletedTaskNumber", "\"x\""),
	    PAI_EINVALID);
	expect_diag(T.diags, ERR, "type", "killAllOnCompletedTaskNumber",
		    AT(at_value("killAllOnCompletedTaskNumber", 1)));
}

/* ---- unknown fields and dialects ---------------------------------------- */

static void test_unknown_fields_openpai(void **state)
{
	static const struct {
		enum level level;
		const char *key, *suggest;
	} typos[] = {
	    {TOP, "jobname", "jobName"},
	    {TOP, "JOBNAME", "jobName"},
	    {TOP, "imgae", "image"},
	    {TOP, "retrycount", "retryCount"},
	    {TOP, "jobEnv", "jobEnvs"},
	    {TOP, "dataDirs", "dataDir"},
	    {ROLE, "memoryMb", "memoryMB"},
	    {ROLE, "gpuNumbers", "gpuNumber"},
	    {ROLE, "minFailedTaskcount", "minFailedTaskCount"},
	    {PORT, "portnumber", "portNumber"},
	};
	char path[128], hint[128];
	const pai_diag *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(typos) / sizeof(*typos); i++) {
		path_of(typos[i].level, typos[i].key, path, sizeof(path));
		print_message("%s\n", path);
		/* beside the real field, so that nothing is missing */
		assert_int_equal(
		    parse_field(OPENPAI, typos[i].level, typos[i].key, "1"),
		    PAI_EINVALID);
		expect_only(T.diags, {ERR, "unknown-field", path,
				      AT(at_key(typos[i].key, 1))});
		d = pai_diags_get(T.diags, 0);
		snprintf(hint, sizeof(hint), "\"%s\"", typos[i].suggest);
		expect_in_message(d, "did you mean");
		expect_in_message(d, hint);
	}

	/* a misspelt required field: two problems */
	assert_int_equal(parse_job(OPENPAI,
				   KV({"taskRoles", NULL},
				      {"taskrole", "[" ROLE_JSON("a") "]"}),
				   NULL, NULL),
			 PAI_EINVALID);
	expect_only(
	    T.diags,
	    {ERR, "unknown-field", "taskrole", AT(at_key("taskrole", 1))},
	    {ERR, "required", "taskRoles", 1, 1});
	d = expect_diag(T.diags, ERR, "unknown-field", "taskrole", ANYWHERE);
	expect_in_message(d, "\"taskRoles\"");

	/* nothing close: no hint */
	assert_int_equal(parse_field(OPENPAI, TOP, "description", "\"x\""),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "unknown-field", "description",
			      AT(at_key("description", 1))});
	assert_null(strstr(pai_diags_get(T.diags, 0)->message, "did you mean"));
	expect_in_message(pai_diags_get(T.diags, 0), "description");

	/* a field of another table */
	assert_int_equal(parse_field(OPENPAI, TOP, "memoryMB", "1024"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "unknown-field", "memoryMB",
			      AT(at_key("memoryMB", 1))});
	assert_int_equal(parse_field(OPENPAI, ROLE, "jobName", "\"x\""),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "unknown-field", "taskRoles[0].jobName",
			      AT(at_key("jobName", 2))});
	/* an odd key has an odd path */
	assert_int_equal(parse_field(OPENPAI, TOP, "a b", "1"), PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "unknown-field", "[\"a b\"]", AT(at_key("a b", 1))});
}

static void test_scm_fields_in_openpai(void **state)
{
	(void)state;
	assert_int_equal(parse_field(OPENPAI, TOP, "tmp", "{\"vgInfo\": {}}"),
			 PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "unknown-field", "tmp", AT(at_key("tmp", 1))});
	assert_int_equal(parse_field(OPENPAI, ROLE, "storageGB", "5"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "unknown-field", "taskRoles[0].storageGB",
			      AT(at_key("storageGB", 1))});
}

static void test_scm_dialect(void **state)
{
	json_t *c;

	(void)state;
	/* the default job is valid in both */
	assert_int_equal(parse_job(SCM, NULL, NULL, NULL), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(pai_job_dialect(T.job), SCM);

	/* tmp is tolerated and not submitted */
	assert_int_equal(
	    parse_job(SCM,
		      KV({"tmp", "{\"vgInfo\": {\"名称\": \"test\"}}"},
			 {"gpuType", "\"TITANX\""}),
		      KV({"storageGB", "5"}), NULL),
	    PAI_OK);
	expect_clean(T.diags);
	c = pai_job_config(T.job);
	assert_null(json_object_get(c, "tmp"));
	assert_string_equal(json_string_value(json_object_get(c, "gpuType")),
			    "TITANX");
	assert_int_equal(json_integer_value(config_field(ROLE, "storageGB")),
			 5);

	/* unknown fields are warnings there, still with a hint */
	assert_int_equal(parse_field(SCM, TOP, "description", "\"x\""), PAI_OK);
	expect_only(T.diags, {WARN, "unknown-field", "description",
			      AT(at_key("description", 1))});
	assert_int_equal(parse_field(SCM, ROLE, "memoryMb", "1"), PAI_OK);
	expect_only(T.diags, {WARN, "unknown-field", "taskRoles[0].memoryMb",
			      AT(at_key("memoryMb", 1))});
	expect_in_message(pai_diags_get(T.diags, 0), "\"memoryMB\"");
	assert_int_equal(parse_field(SCM, PORT, "protocol", "\"tcp\""), PAI_OK);
	expect_only(T.diags,
		    {WARN, "unknown-field", "taskRoles[0].portList[0].protocol",
		     AT(at_key("protocol", 1))});
	/* the rest of the rules hold */
	assert_int_equal(parse_field(SCM, ROLE, "memoryMB", "99"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "min-memory", "taskRoles[0].memoryMB",
			      AT(at_value("memoryMB", 1))});
	assert_int_equal(parse_field(SCM, ROLE, "command", NULL), PAI_EINVALID);
	expect_only(T.diags, {ERR, "required", "taskRoles[0].command",
			      AT(at_text("{", 2))});
}

/* ---- every problem, in one run ---------------------------------------- */

static void test_all_problems_in_one_run(void **state)
{
	/* One line of the config a line, numbered. */
	/* clang-format off */
	static const char text[] =
		/*  1 */ "{\n"
		/*  2 */ "  \"jobName\": \"bad name\",\n"
		/*  3 */ "  \"image\": \"\",\n"
		/*  4 */ "  \"dataDir\": null,\n"
		/*  5 */ "  \"retryCount\": -3,\n"
		/*  6 */ "  \"memoryMb\": 1,\n"
		/*  7 */ "  \"taskRoles\": [\n"
		/*  8 */ "    {\n"
		/*  9 */ "      \"name\": \"g2p-train\",\n"
		/* 10 */ "      \"taskNumber\": 0,\n"
		/* 11 */ "      \"cpuNumber\": 1.5,\n"
		/* 12 */ "      \"memoryMB\": 99,\n"
		/* 13 */ "      \"gpuNumber\": -1,\n"
		/* 14 */ "      \"shmMB\": true,\n"
		/* 15 */ "      \"command\": \"\"\n"
		/* 16 */ "    },\n"
		/* 17 */ "    {\n"
		/* 18 */ "      \"name\": \"ps\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
		/* 19 */ "      \"memoryMB\": 100, \"gpuNumber\": 0,\n"
		/* 20 */ "      \"portList\": [ { \"label\": \"a-b\", \"beginAt\": 0 } ]\n"
		/* 21 */ "    }\n"
		/* 22 */ "  ],\n"
		/* 23 */ "  \"jobEnvs\": { \"\": 1 },\n"
		/* 24 */ "  \"extras\": { \"-\": 1 }\n"
		/* 25 */ "}\n";
	/* clang-format on */
	static const struct want want[] = {
	    {ERR, "job-name", "jobName", 2, 14},
	    {ERR, "empty", "image", 3, 12},
	    {ERR, "type", "dataDir", 4, 14},
	    {ERR, "min-retry-count", "retryCount", 5, 17},
	    {ERR, "unknown-field", "memoryMb", 6, 3},
	    {ERR, "role-name", "taskRoles[0].name", 9, 15},
	    {ERR, "min-task-number", "taskRoles[0].taskNumber", 10, 21},
	    {ERR, "type", "taskRoles[0].cpuNumber", 11, 20},
	    {ERR, "min-memory", "taskRoles[0].memoryMB", 12, 19},
	    {ERR, "min-gpu-number", "taskRoles[0].gpuNumber", 13, 20},
	    {ERR, "type", "taskRoles[0].shmMB", 14, 16},
	    {ERR, "empty", "taskRoles[0].command", 15, 18},
	    {ERR, "required", "taskRoles[1].command", 17, 5},
	    {ERR, "required", "taskRoles[1].portList[0].portNumber", 20, 21},
	    {ERR, "port-label", "taskRoles[1].portList[0].label", 20, 32},
	    {ERR, "job-env-key", "jobEnvs[\"\"]", 23, 16},
	    {ERR, "extras-key", "extras[\"-\"]", 24, 15},
	};
	size_t i, n = sizeof(want) / sizeof(*want);

	(void)state;
	assert_int_equal(parse_in(OPENPAI, text), PAI_EINVALID);
	if (pai_diags_count(T.diags) != n)
		dump(T.diags);
	assert_int_equal(pai_diags_count(T.diags), n);
	assert_int_equal(pai_diags_errors(T.diags), n);
	/* all of them, in source order */
	for (i = 0; i < n; i++) {
		const pai_diag *d = pai_diags_get(T.diags, i);

		if (!matches(d, want[i].sev, want[i].rule, want[i].path,
			     want[i].line, want[i].column)) {
			dump(T.diags);
			fail_msg("#%zu: expected [%s] %s at %u:%u", i,
				 want[i].rule, want[i].path, want[i].line,
				 want[i].column);
		}
		assert_string_equal(d->file, FILE_NAME);
	}
	/* the excerpt is the source line, the caret column the column */
	assert_string_equal(pai_diags_get(T.diags, 8)->excerpt,
			    "      \"memoryMB\": 99,");
	assert_int_equal(pai_diags_get(T.diags, 8)->excerpt_column, 19);
}

/* Messages quote what the config holds: escaped, so that no control
 * character reaches a terminal (every parse checks that), and clipped,
 * so that a long value does not make a message as long. */
static void test_quoted_values(void **state)
{
	static const char esc[] = "\"\\u001b]0;owned\\u0007x\\ny\"";
	char *big = malloc(20000);
	const pai_diag *d;
	size_t i;

	(void)state;
	assert_non_null(big);
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", esc),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "job-name", "jobName",
			AT(at_value("jobName", 1)));
	expect_in_message(d, "got \"\\u001b]0;owned\\u0007x\\ny\"");
	assert_int_equal(parse_field(OPENPAI, ROLE, "name", esc), PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "role-name", "taskRoles[0].name",
			AT(at_value("name", 1)));
	expect_in_message(d, "\\u001b");
	/* in a key, the path escapes it too */
	assert_int_equal(parse_field(OPENPAI, TOP, "a\\u001bb", "1"),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "unknown-field", "[\"a\\u001bb\"]",
			ANYWHERE);
	expect_in_message(d, "\"a\\u001bb\"");

	/* a long value: its first 60 characters and "..." */
	big[0] = '"';
	for (i = 1; i < 10001; i++)
		big[i] = 'x';
	strcpy(big + i, "\"");
	assert_int_equal(parse_field(OPENPAI, TOP, "dataDir", big), PAI_OK);
	d = expect_diag(T.diags, WARN, "dir-uri", "dataDir",
			AT(at_value("dataDir", 1)));
	assert_true(strlen(d->message) < 200);
	expect_in_message(d, "\"xxxxxxxxxx");
	expect_in_message(d, "xxx...\"");
	big[5] = ' ';
	assert_int_equal(parse_field(OPENPAI, TOP, "jobName", big),
			 PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "job-name", "jobName",
			AT(at_value("jobName", 1)));
	assert_true(strlen(d->message) < 200);
	/* cut between characters, not inside one */
	big[0] = '"';
	for (i = 1; i + 3 < 12000; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	strcpy(big + i, "\"");
	assert_int_equal(parse_field(OPENPAI, ROLE, "name", big), PAI_EINVALID);
	d = expect_diag(T.diags, ERR, "role-name", "taskRoles[0].name",
			AT(at_value("name", 1)));
	assert_true(strlen(d->message) < 300);
	expect_in_message(d, "\xc3\xa9...\"");
	free(big);
}

static void test_columns_count_characters(void **state)
{
	static const char text[] =
	    "{\"image\": \"é图\", \"jobName\": \"a b\", \"taskRoles\": "
	    "[" ROLE_JSON("w") "]}";

	(void)state;
	assert_int_equal(parse_in(OPENPAI, text), PAI_EINVALID);
	expect_only(T.diags, {ERR, "job-name", "jobName", 1, 28});
	assert_int_equal(at_value("jobName", 1).column, 28);
	/* a tab is one character */
	assert_int_equal(parse_in(OPENPAI,
				  "{\n\t\"jobName\": \"j\", \"image\": \"i\",\n"
				  "\t\"taskRoles\": [\t{\"name\": \"w\", "
				  "\"taskNumber\": 1, \"cpuNumber\": 1, "
				  "\"memoryMB\": 1024, \"gpuNumber\": 0}]}"),
			 PAI_EINVALID);
	expect_only(T.diags, {ERR, "required", "taskRoles[0].command", 3, 17});
}

/* Diagnostics of several files gather in one list, each file's sorted. */
static void test_diagnostics_of_several_files(void **state)
{
	static const char a[] = "{\"jobName\": \"a~\", \"image\": \"\",\n"
				"\"taskRoles\": []}";
	static const char b[] = "{\"image\": 1}";
	pai_diags *diags;
	pai_job *job;
	const pai_diag *d;
	json_t *j;

	(void)state;
	assert_int_equal(pai_diags_new(&diags), PAI_OK);
	assert_int_equal(
	    pai_job_parse(&job, diags, "a.json", a, strlen(a), NULL),
	    PAI_EINVALID);
	assert_null(job);
	assert_int_equal(
	    pai_job_parse(&job, diags, "b.json", b, strlen(b), NULL),
	    PAI_EINVALID);
	assert_null(job);
	assert_int_equal(pai_diags_count(diags), 3 + 3);
	d = pai_diags_get(diags, 0);
	assert_string_equal(d->file, "a.json");
	assert_string_equal(d->rule, "job-name");
	d = pai_diags_get(diags, 2);
	assert_string_equal(d->file, "a.json");
	assert_string_equal(d->rule, "min-task-roles");
	assert_int_equal(d->line, 2);
	d = pai_diags_get(diags, 3);
	assert_string_equal(d->file, "b.json");
	j = pai_diags_to_json(diags);
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 6);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(j, 2), "rule")),
	    "min-task-roles");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(j, 2), "path")),
	    "taskRoles");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(j, 0), "severity")),
			    "error");
	json_decref(j);
	pai_diags_free(diags);
}

/* ---- what is submitted ------------------------------------------------ */

static void test_submitted_config(void **state)
{
	static const char text[] =
	    "{ // comment\n"
	    "  \"taskRoles\": [{\"command\": \"c\", \"name\": \"r\",\n"
	    "    \"taskNumber\": \"2\", \"cpuNumber\": 2.0, \"memoryMB\": "
	    "1e3,\n"
	    "    \"gpuNumber\": 0, \"minFailedTaskCount\": null,\n"
	    "    \"portList\": [{\"portNumber\": \"3\", \"label\": \"p\", "
	    "\"beginAt\": 40.0}]}],\n"
	    "  \"retryCount\": \"1\",\n"
	    "  \"jobEnvs\": {\"x\": \"1\", \"y\": 2.0},\n"
	    "  \"image\": \"i\", \"jobName\": \"j\"\n"
	    "}\n";
	char *dumped;
	pai_role r;
	pai_port p;

	(void)state;
	assert_int_equal(parse_in(OPENPAI, text), PAI_OK);
	expect_only(T.diags,
		    {WARN, "numeric-string", "taskRoles[0].taskNumber",
		     AT(at_value("taskNumber", 1))},
		    {WARN, "numeric-string",
		     "taskRoles[0].portList[0].portNumber",
		     AT(at_value("portNumber", 1))},
		    {WARN, "numeric-string", "retryCount",
		     AT(at_value("retryCount", 1))});
	/* key order is the file's; integers where the fields want them;
	 * jobEnvs as written */
	dumped = json_dumps(pai_job_config(T.job), JSON_COMPACT);
	assert_non_null(dumped);
	assert_string_equal(
	    dumped, "{\"taskRoles\":[{\"command\":\"c\",\"name\":\"r\","
		    "\"taskNumber\":2,\"cpuNumber\":2,\"memoryMB\":1000,"
		    "\"gpuNumber\":0,\"minFailedTaskCount\":null,"
		    "\"portList\":[{\"portNumber\":3,\"label\":\"p\","
		    "\"beginAt\":40}]}],\"retryCount\":1,"
		    "\"jobEnvs\":{\"x\":\"1\",\"y\":2.0},"
		    "\"image\":\"i\",\"jobName\":\"j\"}");
	free(dumped);
	/* and the job model reads the integers */
	assert_int_equal(pai_job_role(&r, T.job, 0), PAI_OK);
	assert_int_equal(r.task_number, 2);
	assert_int_equal(r.cpu_number, 2);
	assert_int_equal(r.memory_mb, 1000);
	assert_int_equal(r.min_failed, -1);
	assert_int_equal(r.port_count, 3);
	assert_int_equal(pai_job_port(&p, T.job, 0, 0), PAI_OK);
	assert_string_equal(p.label, "p");
	assert_int_equal(p.begin_at, 40);
	assert_int_equal(p.port_number, 3);
	assert_int_equal(p.implicit, 0);
	assert_int_equal(pai_job_port(&p, T.job, 0, 1), PAI_OK);
	assert_string_equal(p.label, "http");
	assert_int_equal(p.implicit, 1);
	assert_int_equal(pai_job_port(&p, T.job, 0, 2), PAI_OK);
	assert_string_equal(p.label, "ssh");
	assert_int_equal(p.implicit, 1);
	assert_int_equal(pai_job_port(&p, T.job, 1, 0), PAI_EINVAL);
}

/* ---- the seed examples ------------------------------------------------- */

/* seeds/000_ac233802e021325c.txt: the CIFAR-10 hello world */
static const char seed_cifar10[] =
    "{\n"
    "\"jobName\": \"tensorflow-cifar10\",\n"
    "\"image\": \"tensorflow/tensorflow:1.12.0-gpu-py3\",\n"
    "\"taskRoles\": [\n"
    "    {\n"
    "    \"name\": \"default\",\n"
    "    \"taskNumber\": 1,\n"
    "    \"cpuNumber\": 4,\n"
    "    \"memoryMB\": 8192,\n"
    "    \"gpuNumber\": 1,\n"
    "    \"command\": \"apt update && apt install -y git && git clone "
    "https://github.com/tensorflow/models && cd models/research/slim && python "
    "download_and_convert_data.py --dataset_name=cifar10 "
    "--dataset_dir=/tmp/data && python train_image_classifier.py "
    "--dataset_name=cifar10 --dataset_dir=/tmp/data "
    "--max_number_of_steps=1000\"\n"
    "    }\n"
    "]\n"
    "}\n";

/* seeds/001_a01590c4e1ad8861.txt lines 190-255: distributed TensorFlow */
static const char seed_tf_distributed[] =
    "{\n"
    "  \"jobName\": \"tensorflow-distributed-jobguid\",\n"
    "  // customized tensorflow docker image with hdfs, cuda and cudnn "
    "support\n"
    "  \"image\": \"your_docker_registry/pai.run.tensorflow\",\n"
    "  // this example uses cifar10 dataset, which is available from\n"
    "  // http://www.cs.toronto.edu/~kriz/cifar.html\n"
    "  \"dataDir\": "
    "\"$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/data\",\n"
    "  \"outputDir\": "
    "\"$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/output\",\n"
    "  // this example uses code from tensorflow benchmark "
    "https://git.io/vF4wT\n"
    "  \"codeDir\": "
    "\"$PAI_DEFAULT_FS_URI/path/tensorflow-distributed-jobguid/code\",\n"
    "  \"virtualCluster\": \"your_virtual_cluster\",\n"
    "  \"taskRoles\": [\n"
    "    {\n"
    "      \"name\": \"ps_server\",\n"
    "      // use 2 ps servers in this job\n"
    "      \"taskNumber\": 2,\n"
    "      \"cpuNumber\": 2,\n"
    "      \"memoryMB\": 8192,\n"
    "      \"gpuNumber\": 0,\n"
    "      \"portList\": [\n"
    "        {\n"
    "          \"label\": \"http\",\n"
    "          \"beginAt\": 0,\n"
    "          \"portNumber\": 1\n"
    "        },\n"
    "        {\n"
    "          \"label\": \"ssh\",\n"
    "          \"beginAt\": 0,\n"
    "          \"portNumber\": 1\n"
    "        }\n"
    "      ],\n"
    "      // run tf_cnn_benchmarks.py in code directory\n"
    "      // please refer to "
    "https://www.tensorflow.org/performance/"
    "performance_models#executing_the_script for arguments' detail\n"
    "      // if there's no `scipy` in the docker image, need to install it "
    "first\n"
    "      \"command\": \"pip --quiet install scipy && python "
    "code/tf_cnn_benchmarks.py --local_parameter_device=cpu "
    "--batch_size=$batch_size --model=$job_model "
    "--variable_update=parameter_server --data_dir=$PAI_DATA_DIR "
    "--data_name=cifar10 --train_dir=$PAI_OUTPUT_DIR "
    "--ps_hosts=$PAI_TASK_ROLE_ps_server_HOST_LIST "
    "--worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=ps "
    "--task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"worker\",\n"
    "      // use 2 workers in this job\n"
    "      \"taskNumber\": 2,\n"
    "      \"cpuNumber\": 2,\n"
    "      \"memoryMB\": 16384,\n"
    "      \"gpuNumber\": 4,\n"
    "      \"portList\": [\n"
    "        {\n"
    "          \"label\": \"http\",\n"
    "          \"beginAt\": 0,\n"
    "          \"portNumber\": 1\n"
    "        },\n"
    "        {\n"
    "          \"label\": \"ssh\",\n"
    "          \"beginAt\": 0,\n"
    "          \"portNumber\": 1\n"
    "        }\n"
    "      ],\n"
    "      \"command\": \"pip --quiet install scipy && python "
    "code/tf_cnn_benchmarks.py --local_parameter_device=cpu "
    "--batch_size=$batch_size --model=$job_model "
    "--variable_update=parameter_server --data_dir=$PAI_DATA_DIR "
    "--data_name=cifar10 --train_dir=$PAI_OUTPUT_DIR "
    "--ps_hosts=$PAI_TASK_ROLE_ps_server_HOST_LIST "
    "--worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=worker "
    "--task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX\",\n"
    "      // kill the entire job when 2 worker tasks completed\n"
    "      \"minSucceededTaskCount\": 2\n"
    "    }\n"
    "  ],\n"
    "  \"retryCount\": 0,\n"
    "  \"jobEnvs\": {\n"
    "    \"batch_size\": 32,\n"
    "    \"job_model\": \"resnet20\"\n"
    "  }\n"
    "}\n";

/* seeds/002_bdccf0d7283761e6.txt lines 74-113: SCM hello world */
static const char seed_scm_hello[] =
    "{\n"
    "  \"jobName\": \"helloworld_16be675e\",\n"
    "  \"image\": \"sitonholy/tensorflow:16.04-9.0-3.5-1.8.0\",\n"
    "  \"authFile\": \"\",\n"
    "  \"dataDir\": \"\",\n"
    "  \"outputDir\": \"\",\n"
    "  \"codeDir\": \"\",\n"
    "  \"retryCount\": 0,\n"
    "  \"taskRoles\": [\n"
    "    {\n"
    "      \"name\": \"task_1\",\n"
    "      \"taskNumber\": 1,\n"
    "      \"cpuNumber\": 1,\n"
    "      \"memoryMB\": 8192,\n"
    "      \"shmMB\": 64,\n"
    "      \"gpuNumber\": 1,\n"
    "      \"storageGB\": 5,\n"
    "      \"minFailedTaskCount\": null,\n"
    "      \"minSucceededTaskCount\": null,\n"
    "      \"command\": \"nvidia-smi\",\n"
    "      \"portList\": []\n"
    "    }\n"
    "  ],\n"
    "  \"jobEnvs\": {},\n"
    "  \"extras\": {},\n"
    "  \"gpuType\": \"TITANX\",\n"
    "  \"tmp\": {\n"
    "    \"vgInfo\": {\n"
    "      \"名称\": \"test\",\n"
    "      \"正在跑工作数目\": \"0\",\n"
    "      \"使用中內存/全部內存\": \"0/100000\",\n"
    "      \"使用中硬盘/全部硬盘\": \"0/100\",\n"
    "      \"使用中中央处理器/全部中中央处理器\": \"0/32\",\n"
    "      \"显示卡(使用中/全部)\": {\n"
    "        \"TITANX\": \"0/2\",\n"
    "        \"P100\": \"0/2\"\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

/* seeds/002_bdccf0d7283761e6.txt lines 119-164: SCM Jupyter */
static const char seed_scm_jupyter[] =
    "{\n"
    "  \"jobName\": \"jupyter_16be8b71\",\n"
    "  \"image\": \"sitonholy/ai:16.04-9.0-3.5-pmt\",\n"
    "  \"authFile\": \"\",\n"
    "  \"dataDir\": \"\",\n"
    "  \"outputDir\": \"\",\n"
    "  \"codeDir\": \"\",\n"
    "  \"retryCount\": 0,\n"
    "  \"taskRoles\": [\n"
    "    {\n"
    "      \"name\": \"task_1\",\n"
    "      \"taskNumber\": 1,\n"
    "      \"cpuNumber\": 1,\n"
    "      \"memoryMB\": 8192,\n"
    "      \"shmMB\": 64,\n"
    "      \"gpuNumber\": 1,\n"
    "      \"storageGB\": 5,\n"
    "      \"minFailedTaskCount\": null,\n"
    "      \"minSucceededTaskCount\": null,\n"
    "      \"command\": \"jupyter notebook --allow-root --no-browser --ip "
    "0.0.0.0 --port=$PAI_CONTAINER_HOST_jupyter_PORT_LIST "
    "--NotebookApp.token=\\\\\\\"\\\\\\\" "
    "--NotebookApp.allow_origin=\\\\\\\"*\\\\\\\" "
    "--NotebookApp.base_url=\\\\\\\"/\\\\\\\"\",\n"
    "      \"portList\": [\n"
    "        {\n"
    "          \"label\": \"jupyter\",\n"
    "          \"beginAt\": 0,\n"
    "          \"portNumber\": 1\n"
    "        }\n"
    "      ]\n"
    "    }\n"
    "  ],\n"
    "  \"jobEnvs\": {},\n"
    "  \"extras\": {},\n"
    "  \"gpuType\": \"TITANX\",\n"
    "  \"tmp\": {\n"
    "    \"vgInfo\": {\n"
    "      \"名称\": \"test\",\n"
    "      \"正在跑工作数目\": \"1\",\n"
    "      \"使用中內存/全部內存\": \"8192/100000\",\n"
    "      \"使用中硬盘/全部硬盘\": \"5/100\",\n"
    "      \"使用中中央处理器/全部中中央处理器\": \"1/32\",\n"
    "      \"显示卡(使用中/全部)\": {\n"
    "        \"TITANX\": \"1/2\",\n"
    "        \"P100\": \"0/2\"\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

static void test_seed_cifar10(void **state)
{
	pai_role r;

	(void)state;
	assert_int_equal(parse_in(OPENPAI, seed_cifar10), PAI_OK);
	expect_clean(T.diags);
	assert_string_equal(pai_job_name(T.job), "tensorflow-cifar10");
	assert_int_equal(pai_job_role(&r, T.job, 0), PAI_OK);
	assert_string_equal(r.name, "default");
	assert_int_equal(r.cpu_number, 4);
	assert_int_equal(r.memory_mb, 8192);
	assert_int_equal(r.gpu_number, 1);
	/* and in scm, which only adds to openpai */
	assert_int_equal(parse_in(SCM, seed_cifar10), PAI_OK);
	expect_clean(T.diags);
}

static void test_seed_tf_distributed(void **state)
{
	json_t *envs;
	pai_role r;
	char *changed, *p;

	(void)state;
	assert_int_equal(parse_in(OPENPAI, seed_tf_distributed), PAI_OK);
	expect_clean(T.diags);
	assert_int_equal(pai_job_role_count(T.job), 2);
	assert_int_equal(pai_job_role(&r, T.job, 0), PAI_OK);
	assert_string_equal(r.name, "ps_server");
	assert_int_equal(r.task_number, 2);
	assert_int_equal(r.gpu_number, 0);
	assert_int_equal(r.port_count, 2); /* http and ssh, both its own */
	assert_int_equal(pai_job_role(&r, T.job, 1), PAI_OK);
	assert_string_equal(r.name, "worker");
	assert_int_equal(r.memory_mb, 16384);
	assert_int_equal(r.min_succeeded, 2);
	assert_int_equal(r.min_failed, 1);
	envs = json_object_get(pai_job_config(T.job), "jobEnvs");
	assert_int_equal(
	    json_integer_value(json_object_get(envs, "batch_size")), 32);
	assert_string_equal(
	    json_string_value(json_object_get(envs, "job_model")), "resnet20");

	/* with the comments in place, positions are still the file's */
	changed = strdup(seed_tf_distributed);
	assert_non_null(changed);
	p = strstr(changed, "16384");
	assert_non_null(p);
	memcpy(p, "   99", 5);
	assert_int_equal(parse_in(OPENPAI, changed), PAI_EINVALID);
	free(changed);
	expect_only(T.diags,
		    {ERR, "min-memory", "taskRoles[1].memoryMB", 42, 22});
	assert_int_equal(at_text("99,", 1).line, 42);
	assert_int_equal(at_text("99,", 1).column, 22);
}

static void test_seed_scm_hello_world(void **state)
{
	json_t *c;

	(void)state;
	assert_int_equal(parse_in(SCM, seed_scm_hello), PAI_OK);
	expect_clean(T.diags);
	c = pai_job_config(T.job);
	assert_null(json_object_get(c, "tmp"));
	assert_int_equal(json_integer_value(config_field(ROLE, "storageGB")),
			 5);
	assert_string_equal(pai_job_name(T.job), "helloworld_16be675e");

	/* openpai has neither storageGB nor tmp */
	assert_int_equal(parse_in(OPENPAI, seed_scm_hello), PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "unknown-field", "taskRoles[0].storageGB", 17, 7},
		    {ERR, "unknown-field", "tmp", 27, 3});
	assert_int_equal(at_key("storageGB", 1).line, 17);
	assert_int_equal(at_key("tmp", 1).line, 27);
}

static void test_seed_scm_jupyter(void **state)
{
	pai_port p;

	(void)state;
	assert_int_equal(parse_in(SCM, seed_scm_jupyter), PAI_OK);
	expect_clean(T.diags);
	assert_null(json_object_get(pai_job_config(T.job), "tmp"));
	assert_int_equal(pai_job_port(&p, T.job, 0, 0), PAI_OK);
	assert_string_equal(p.label, "jupyter");
	assert_true(strstr(json_string_value(config_field(ROLE, "command")),
			   "--NotebookApp.token=\\\"\\\"") != NULL);

	assert_int_equal(parse_in(OPENPAI, seed_scm_jupyter), PAI_EINVALID);
	expect_only(T.diags,
		    {ERR, "unknown-field", "taskRoles[0].storageGB",
		     AT(at_key("storageGB", 1))},
		    {ERR, "unknown-field", "tmp", AT(at_key("tmp", 1))});
}

/* The same seeds as files in examples/, when they are there. */
static void test_examples_directory(void **state)
{
	static const struct {
		const char *file;
		const char *inline_copy;
		bool scm_only;
	} ex[] = {
	    {"tensorflow-cifar10.json", seed_cifar10, false},
	    {"tensorflow-distributed.json", seed_tf_distributed, false},
	    {"scm-hello-world.json", seed_scm_hello, true},
	    {"scm-jupyter.json", seed_scm_jupyter, true},
	};
	const char *src = getenv("PAI_SRCDIR");
	char path[4096];
	size_t i, seen = 0;

	(void)state;
	if (!src)
		skip();
	for (i = 0; i < sizeof(ex) / sizeof(*ex); i++) {
		char *text;
		size_t len;
		json_t *from_file, *from_seed;

		snprintf(path, sizeof(path), "%s/examples/%s", src, ex[i].file);
		if (pai_file_read(&text, &len, NULL, path) != PAI_OK)
			continue;
		seen++;
		print_message("%s\n", path);
		parse_named(ex[i].scm_only ? SCM : OPENPAI, path, text, len);
		free(text);
		assert_int_equal(T.rc, PAI_OK);
		expect_clean(T.diags);
		from_file = json_incref(pai_job_config(T.job));
		parse_in(ex[i].scm_only ? SCM : OPENPAI, ex[i].inline_copy);
		from_seed = pai_job_config(T.job);
		assert_true(json_equal(from_file, from_seed));
		json_decref(from_file);
		if (ex[i].scm_only) {
			parse_named(OPENPAI, path, ex[i].inline_copy,
				    strlen(ex[i].inline_copy));
			assert_int_equal(T.rc, PAI_EINVALID);
			assert_int_equal(count_rule(T.diags, "unknown-field"),
					 2);
			assert_int_equal(pai_diags_errors(T.diags), 2);
		}
	}
	if (!seen)
		skip();
}

/* ---- the corpus ------------------------------------------------------- */

/* An independent reading of the rules, enough for the corpus: where the
 * files may go wrong (syntax, role names) and the warnings they may
 * draw. */

struct finding {
	pai_severity sev;
	char rule[32];
	char path[160];
};

struct verdict {
	int rc;
	size_t n;
	struct finding f[64];
	json_t *submitted; /* rc PAI_OK: the config as it should be sent */
};

static void add_finding(struct verdict *v, pai_severity sev, const char *rule,
			const char *fmt, ...)
{
	va_list ap;

	assert_true(v->n < sizeof(v->f) / sizeof(*v->f));
	v->f[v->n].sev = sev;
	snprintf(v->f[v->n].rule, sizeof(v->f[v->n].rule), "%s", rule);
	va_start(ap, fmt);
	vsnprintf(v->f[v->n].path, sizeof(v->f[v->n].path), fmt, ap);
	va_end(ap);
	v->n++;
}

/* The text with // and block comments blanked, strings left alone. */
static char *blank_comments(const char *s, size_t n)
{
	char *t = malloc(n + 1);
	size_t i = 0;
	bool in_string = false;

	assert_non_null(t);
	memcpy(t, s, n);
	t[n] = '\0';
	while (i < n) {
		if (in_string) {
			if (t[i] == '\\')
				i++;
			else if (t[i] == '"')
				in_string = false;
			i++;
		} else if (t[i] == '"') {
			in_string = true;
			i++;
		} else if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				t[i++] = ' ';
		} else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
			t[i] = t[i + 1] = ' ';
			i += 2;
			while (i < n &&
			       !(t[i] == '*' && i + 1 < n && t[i + 1] == '/')) {
				if (t[i] != '\n')
					t[i] = ' ';
				i++;
			}
			if (i < n) {
				t[i] = t[i + 1] = ' ';
				i += 2;
			}
		} else {
			i++;
		}
	}
	return t;
}

/* A ',' whose next non-blank character closes an object or array. */
static bool has_trailing_comma(const char *t)
{
	bool in_string = false;
	size_t i, j;

	for (i = 0; t[i]; i++) {
		if (in_string) {
			if (t[i] == '\\' && t[i + 1])
				i++;
			else if (t[i] == '"')
				in_string = false;
		} else if (t[i] == '"') {
			in_string = true;
		} else if (t[i] == ',') {
			j = skip_ws(t, i + 1);
			if (t[j] == '}' || t[j] == ']')
				return true;
		}
	}
	return false;
}

static bool only_chars(const char *s, const char *extra, bool nonempty)
{
	if (nonempty && !*s)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || strchr(extra, c)))
			return false;
	}
	return true;
}

static bool is_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* Integer members of obj: a string of digits draws a warning and is
 * sent as an integer, 4.0 as 4. */
static void integers(struct verdict *v, json_t *obj, const char *parent,
		     const char *const *keys)
{
	for (; *keys; keys++) {
		json_t *x = json_object_get(obj, *keys);

		if (json_is_string(x) && is_digits(json_string_value(x))) {
			add_finding(v, WARN, "numeric-string", "%s%s", parent,
				    *keys);
			json_object_set_new(
			    obj, *keys,
			    json_integer(atoll(json_string_value(x))));
		} else if (json_is_real(x) &&
			   json_real_value(x) ==
			       (double)(long long)json_real_value(x)) {
			json_object_set_new(
			    obj, *keys,
			    json_integer((long long)json_real_value(x)));
		}
	}
}

static void judge(struct verdict *v, const char *text, size_t len)
{
	static const char *const top_ints[] = {
	    "retryCount", "killAllOnCompletedTaskNumber", NULL};
	static const char *const role_ints[] = {"taskNumber",
						"cpuNumber",
						"memoryMB",
						"shmMB",
						"gpuNumber",
						"minFailedTaskCount",
						"minSucceededTaskCount",
						NULL};
	static const char *const port_ints[] = {"beginAt", "portNumber", NULL};
	static const char *const dirs[] = {"authFile", "dataDir", "outputDir",
					   "codeDir"};
	char *blank = blank_comments(text, len);
	json_error_t err;
	json_t *root, *roles, *role, *ports, *port, *x;
	const char *key;
	size_t i, k;
	char parent[128];
	bool bad = false;

	memset(v, 0, sizeof(*v));
	root = json_loadb(blank, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		v->rc = PAI_ESYNTAX;
		add_finding(v, ERR,
			    json_error_code(&err) == json_error_duplicate_key
				? "duplicate-key"
			    : has_trailing_comma(blank) ? "trailing-comma"
							: "syntax",
			    "%s", "");
		free(blank);
		return;
	}
	free(blank);

	for (i = 0; i < 4; i++) {
		x = json_object_get(root, dirs[i]);
		if (json_is_string(x) && *json_string_value(x) &&
		    strncmp(json_string_value(x), "hdfs://", 7) != 0 &&
		    strncmp(json_string_value(x), "$PAI_DEFAULT_FS_URI", 19) !=
			0)
			add_finding(v, WARN, "dir-uri", "%s", dirs[i]);
	}
	integers(v, root, "", top_ints);
	x = json_object_get(root, "retryCount");
	if (json_is_integer(x) && json_integer_value(x) < 0 &&
	    json_integer_value(x) >= -2)
		add_finding(v, WARN, "negative-retry-count", "retryCount");
	if (json_object_get(root, "killAllOnCompletedTaskNumber"))
		add_finding(v, WARN, "obsolete",
			    "killAllOnCompletedTaskNumber");
	json_object_foreach(json_object_get(root, "jobEnvs"), key, x)
	{
		if (!only_chars(key, "", true) ||
		    (key[0] >= '0' && key[0] <= '9'))
			add_finding(v, WARN, "job-env-name", "jobEnvs[\"%s\"]",
				    key);
		if ((!strcmp(key, "paiAzRDMA") || !strcmp(key, "isDebug")) &&
		    !json_is_boolean(x))
			add_finding(v, WARN, "job-env-boolean", "jobEnvs.%s",
				    key);
		else if (json_is_object(x) || json_is_array(x))
			add_finding(v, WARN, "job-env-value", "jobEnvs.%s",
				    key);
	}

	roles = json_object_get(root, "taskRoles");
	json_array_foreach(roles, i, role)
	{
		const char *name =
		    json_string_value(json_object_get(role, "name"));

		snprintf(parent, sizeof(parent), "taskRoles[%zu].", i);
		if (name && !only_chars(name, ".~", true)) {
			add_finding(v, ERR, "role-name", "taskRoles[%zu].name",
				    i);
			bad = true;
		}
		integers(v, role, parent, role_ints);
		ports = json_object_get(role, "portList");
		json_array_foreach(ports, k, port)
		{
			snprintf(parent, sizeof(parent),
				 "taskRoles[%zu].portList[%zu].", i, k);
			integers(v, port, parent, port_ints);
		}
	}
	v->rc = bad ? PAI_EINVALID : PAI_OK;
	if (!bad)
		v->submitted = json_incref(root);
	json_decref(root);
}

/* The validator's diagnostics are the verdict's findings;
 * lib/runtime/openpai_v0x.c's are not counted. Returns the number of
 * mismatches, each printed. */
static int compare(const char *file, const struct verdict *v)
{
	bool used[64] = {false};
	size_t i, j, n = pai_diags_count(T.diags);
	int bad = 0;

	if (T.rc != v->rc) {
		print_error("%s: rc %d (%s), expected %d (%s)\n", file, T.rc,
			    pai_strerror(T.rc), v->rc, pai_strerror(v->rc));
		bad++;
	}
	for (i = 0; i < n; i++) {
		const pai_diag *d = pai_diags_get(T.diags, i);
		bool found = false;

		if (is_expand_rule(d->rule))
			continue;
		for (j = 0; j < v->n && !found; j++) {
			if (!used[j] && d->severity == v->f[j].sev &&
			    !strcmp(d->rule, v->f[j].rule) &&
			    (v->rc == PAI_ESYNTAX ||
			     !strcmp(d->path, v->f[j].path)))
				used[j] = found = true;
		}
		if (!found) {
			print_error("%s:%u:%u: unexpected %s [%s] %s: %s\n",
				    file, d->line, d->column,
				    sev_name(d->severity), d->rule, d->path,
				    d->message);
			bad++;
		}
	}
	for (j = 0; j < v->n; j++) {
		if (!used[j]) {
			print_error("%s: missing %s [%s] %s\n", file,
				    sev_name(v->f[j].sev), v->f[j].rule,
				    v->f[j].path);
			bad++;
		}
	}
	if (T.rc == PAI_OK && v->submitted &&
	    !json_equal(pai_job_config(T.job), v->submitted)) {
		print_error(
		    "%s: the submitted config differs from the file's\n", file);
		bad++;
	}
	return bad;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .json files of the corpus, sorted; NULL when there is none. */
static char **corpus_files(size_t *count)
{
	const char *dir = test_corpus_dir("PAI_CORPUS", "the corpus's "
							"verdicts");
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	*count = 0;
	if (!dir || !(d = opendir(dir)))
		return NULL;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		assert_non_null(names);
		assert_true(asprintf(&names[n], "%s/%s", dir, e->d_name) > 0);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	*count = n;
	return names;
}

static void free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void test_corpus(void **state)
{
	/* What this reading of the rules finds in the corpus today: a
	 * change here is a change in verdicts, to be looked at. */
	enum {
		FILES = 146,
		VALID = 131,
		ROLE_NAME = 13,
		SYNTAX = 2,
		W_DIR_URI = 8,
		W_NEGATIVE_RETRY = 4,
		W_OBSOLETE = 26,
		W_NUMERIC = 1
	};
	size_t n, i, j, valid = 0, invalid = 0, syntax = 0, role_name = 0;
	size_t dir_uri = 0, negative_retry = 0, obsolete = 0, numeric = 0;
	char **files = corpus_files(&n);
	int mismatches = 0;

	(void)state;
	if (!files)
		skip();
	for (i = 0; i < n; i++) {
		struct verdict v;
		char *text;
		size_t len;

		assert_int_equal(pai_file_read(&text, &len, NULL, files[i]),
				 PAI_OK);
		judge(&v, text, len);
		parse_named(OPENPAI, files[i], text, len);
		free(text);
		mismatches += compare(files[i], &v);
		json_decref(v.submitted);

		valid += v.rc == PAI_OK;
		invalid += v.rc == PAI_EINVALID;
		syntax += v.rc == PAI_ESYNTAX;
		for (j = 0; j < v.n; j++) {
			role_name += !strcmp(v.f[j].rule, "role-name");
			dir_uri += !strcmp(v.f[j].rule, "dir-uri");
			negative_retry +=
			    !strcmp(v.f[j].rule, "negative-retry-count");
			obsolete += !strcmp(v.f[j].rule, "obsolete");
			numeric += !strcmp(v.f[j].rule, "numeric-string");
		}
	}
	free_names(files, n);
	print_message(
	    "corpus: %zu files: %zu valid, %zu invalid (%zu role "
	    "names), %zu syntax; warnings: %zu dir-uri, %zu "
	    "negative-retry-count, %zu obsolete, %zu numeric-string\n",
	    n, valid, invalid, role_name, syntax, dir_uri, negative_retry,
	    obsolete, numeric);
	assert_int_equal(mismatches, 0);
	assert_int_equal(n, FILES);
	assert_int_equal(valid, VALID);
	assert_int_equal(invalid, FILES - VALID - SYNTAX);
	assert_int_equal(role_name, ROLE_NAME);
	assert_int_equal(syntax, SYNTAX);
	assert_int_equal(dir_uri, W_DIR_URI);
	assert_int_equal(negative_retry, W_NEGATIVE_RETRY);
	assert_int_equal(obsolete, W_OBSOLETE);
	assert_int_equal(numeric, W_NUMERIC);
}

/* Reads one corpus file into T, or skips. */
static void parse_corpus_file(const char *name)
{
	char path[4096], what[128];
	const char *dir;
	char *text;
	size_t len;

	snprintf(what, sizeof(what), "the corpus's %s", name);
	if (!(dir = test_corpus_dir("PAI_CORPUS", what)))
		skip();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (pai_file_read(&text, &len, NULL, path) != PAI_OK)
		skip();
	parse_named(OPENPAI, name, text, len);
	free(text);
}

static void test_corpus_numeric_begin_at(void **state)
{
	pai_port p;

	(void)state;
	parse_corpus_file("e13e0ef1de62ffe67d56e295ecd24d2b11256c60.json");
	assert_int_equal(T.rc, PAI_OK);
	expect_only(T.diags,
		    {WARN, "numeric-string", "taskRoles[0].portList[0].beginAt",
		     AT(at_value("beginAt", 1))});
	assert_int_equal(at_value("beginAt", 1).line, 14);
	assert_true(json_is_integer(config_field(PORT, "beginAt")));
	assert_int_equal(json_integer_value(config_field(PORT, "beginAt")), 0);
	assert_int_equal(pai_job_port(&p, T.job, 0, 0), PAI_OK);
	assert_int_equal(p.begin_at, 0);
}

static void test_corpus_syntax_errors(void **state)
{
	(void)state;
	parse_corpus_file("eaea9266daa2481d0594d7ea86a24c87f5793895.json");
	assert_int_equal(T.rc, PAI_ESYNTAX);
	/* the comma at the end of line 11 */
	expect_only(T.diags,
		    {ERR, "trailing-comma", "",
		     AT(lc_of(T.text, off_text("pai_tmp\",", 1) + 8))});
	assert_int_equal(pai_diags_get(T.diags, 0)->line, 11);

	parse_corpus_file("f683d2de881d2eea6ea3d92bd852c3ae9777c76c.json");
	assert_int_equal(T.rc, PAI_ESYNTAX);
	/* the second "minSucceededTaskCount" */
	expect_only(T.diags, {ERR, "duplicate-key", "", 19, 7});
	expect_in_message(pai_diags_get(T.diags, 0), "minSucceededTaskCount");
}

static void test_corpus_role_names(void **state)
{
	(void)state;
	parse_corpus_file("43f6a5debc479a9259cf57084bcad25125344108.json");
	assert_int_equal(T.rc, PAI_EINVALID);
	expect_only(T.diags, {ERR, "role-name", "taskRoles[0].name",
			      AT(at_value("name", 1))});
	expect_in_message(pai_diags_get(T.diags, 0), "g2p-train");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define TEST(f) cmocka_unit_test_teardown(f, teardown)
	    TEST(test_minimal_job_is_valid),
	    TEST(test_bad_arguments),
	    TEST(test_roles_one_at_a_time),
	    TEST(test_comments_are_accepted),
	    TEST(test_trailing_comma),
	    TEST(test_duplicate_key),
	    TEST(test_top_level_array),
	    TEST(test_top_level_scalar),
	    TEST(test_wrong_types),
	    TEST(test_null_allowed_only_for_task_counts),
	    TEST(test_required_fields),
	    TEST(test_optional_fields_valid_values),
	    TEST(test_numeric_string_every_integer_field),
	    TEST(test_integral_real_every_integer_field),
	    TEST(test_numeric_string_edge_cases),
	    TEST(test_bounds),
	    TEST(test_bounds_relative_to_other_fields),
	    TEST(test_storage_gb_scm),
	    TEST(test_port_numbers),
	    TEST(test_job_name),
	    TEST(test_role_name),
	    TEST(test_port_label),
	    TEST(test_duplicate_role_names),
	    TEST(test_duplicate_port_labels),
	    TEST(test_duplicates_many),
	    TEST(test_directories),
	    TEST(test_image_and_command),
	    TEST(test_virtual_cluster_and_gpu_type),
	    TEST(test_task_roles_shape),
	    TEST(test_port_list_shape),
	    TEST(test_job_env_keys),
	    TEST(test_job_env_values),
	    TEST(test_job_env_booleans),
	    TEST(test_extras_keys),
	    TEST(test_kill_all_obsolete),
	    TEST(test_unknown_fields_openpai),
	    TEST(test_scm_fields_in_openpai),
	    TEST(test_scm_dialect),
	    TEST(test_all_problems_in_one_run),
	    TEST(test_quoted_values),
	    TEST(test_columns_count_characters),
	    TEST(test_diagnostics_of_several_files),
	    TEST(test_submitted_config),
	    TEST(test_seed_cifar10),
	    TEST(test_seed_tf_distributed),
	    TEST(test_seed_scm_hello_world),
	    TEST(test_seed_scm_jupyter),
	    TEST(test_examples_directory),
	    TEST(test_corpus),
	    TEST(test_corpus_numeric_begin_at),
	    TEST(test_corpus_syntax_errors),
	    TEST(test_corpus_role_names),
#undef TEST
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
