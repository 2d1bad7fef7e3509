/* validate.c - every rule of ../shared/reference/job-config-rules.md
 *
 * The principle: a config that passes is accepted by the OpenPAI REST
 * server and does what the documented table promises. Every problem is
 * reported, in source order, each with a stable rule id.
 *
 * The checks run over the parsed config, which is normalized in place as
 * they go (numeric strings and integral reals become
 * integers, the SCM web form's "tmp" is dropped): that copy is what gets
 * submitted. Members are visited in source order through the position
 * tree and looked up by key in the JSON, so that diagnostics come out in
 * file order. */
#include "job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_STRING, K_INT, K_INT_OR_NULL, K_ARRAY, K_OBJECT, K_ANY };

enum {
	F_REQUIRED = 1, /* the field must be present */
	F_SCM = 2	/* known only in the scm dialect */
};

struct field {
	const char *name;
	enum kind kind;
	unsigned flags;
};

/* What the check of one object found for each of its known fields. */
struct found {
	json_t *v;	    /* NULL: absent, or of the wrong type */
	const pai__pos *at; /* where it stands (NULL: absent) */
	long long i;	    /* K_INT / K_INT_OR_NULL: the value */
	bool null;	    /* K_INT_OR_NULL: the value is null */
};

#define MAX_FIELDS 16

struct ctx {
	pai_diags *diags;
	pai__src *src;
	pai_dialect dialect;
	size_t errors;
	int err; /* PAI_ENOMEM once an allocation failed */
	/* the first role with each name; the first port with each label,
	 * for the port list being checked */
	struct pai__firsts names, labels;
	/* where the roles come from when root's taskRoles holds none (NULL:
	 * it holds them), and the copies of their names that names
	 * borrows then (each role is dropped once checked) */
	const struct pai__v1_roles *roles;
	struct pai__arena *arena;
};

static const struct field top_fields[] = {
    {"jobName", K_STRING, F_REQUIRED},
    {"image", K_STRING, F_REQUIRED},
    {"authFile", K_STRING, 0},
    {"dataDir", K_STRING, 0},
    {"outputDir", K_STRING, 0},
    {"codeDir", K_STRING, 0},
    {"virtualCluster", K_STRING, 0},
    {"gpuType", K_STRING, 0},
    {"retryCount", K_INT, 0},
    {"taskRoles", K_ARRAY, F_REQUIRED},
    {"jobEnvs", K_OBJECT, 0},
    {"extras", K_OBJECT, 0},
    {"killAllOnCompletedTaskNumber", K_INT, 0},
    {"tmp", K_ANY, F_SCM},
    {NULL, K_ANY, 0}};

enum {
	T_JOBNAME,
	T_IMAGE,
	T_AUTHFILE,
	T_DATADIR,
	T_OUTPUTDIR,
	T_CODEDIR,
	T_VC,
	T_GPUTYPE,
	T_RETRY,
	T_ROLES,
	T_ENVS,
	T_EXTRAS,
	T_KILLALL,
	T_TMP
};

static const struct field role_fields[] = {
    {"name", K_STRING, F_REQUIRED},
    {"taskNumber", K_INT, F_REQUIRED},
    {"cpuNumber", K_INT, F_REQUIRED},
    {"memoryMB", K_INT, F_REQUIRED},
    {"shmMB", K_INT, 0},
    {"gpuNumber", K_INT, F_REQUIRED},
    {"portList", K_ARRAY, 0},
    {"command", K_STRING, F_REQUIRED},
    {"minFailedTaskCount", K_INT_OR_NULL, 0},
    {"minSucceededTaskCount", K_INT_OR_NULL, 0},
    {"storageGB", K_INT, F_SCM},
    {NULL, K_ANY, 0}};

enum {
	R_NAME,
	R_TASKS,
	R_CPU,
	R_MEM,
	R_SHM,
	R_GPU,
	R_PORTS,
	R_COMMAND,
	R_MINFAILED,
	R_MINSUCCEEDED,
	R_STORAGE
};

static const struct field port_fields[] = {{"label", K_STRING, F_REQUIRED},
					   {"beginAt", K_INT, F_REQUIRED},
					   {"portNumber", K_INT, F_REQUIRED},
					   {NULL, K_ANY, 0}};

enum { P_LABEL, P_BEGIN, P_NUMBER };

/* ---- reporting -------------------------------------------------------- */

static void vreport(struct ctx *c, const pai__pos *at, bool key,
		    pai_severity sev, const char *path, const char *rule,
		    const char *fmt, va_list ap)
{
	pai__buf msg = PAI__BUF_INIT;
	char *m;

	if (c->err)
		return;
	pai__buf_vprintf(&msg, fmt, ap);
	m = pai__buf_detach(&msg);
	if (!m ||
	    pai__diag_add(c->diags, c->src,
			  at ? (key ? at->key_off : at->off) : PAI__NO_OFFSET,
			  sev, path, rule, "%s", m))
		c->err = PAI_ENOMEM;
	free(m);
	if (sev == PAI_SEVERITY_ERROR)
		c->errors++;
}

static void error(struct ctx *c, const pai__pos *at, const char *path,
		  const char *rule, const char *fmt, ...) PAI__PRINTF(5, 6);
static void error(struct ctx *c, const pai__pos *at, const char *path,
		  const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, at, false, PAI_SEVERITY_ERROR, path, rule, fmt, ap);
	va_end(ap);
}

static void warning(struct ctx *c, const pai__pos *at, const char *path,
		    const char *rule, const char *fmt, ...) PAI__PRINTF(5, 6);
static void warning(struct ctx *c, const pai__pos *at, const char *path,
		    const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, at, false, PAI_SEVERITY_WARNING, path, rule, fmt, ap);
	va_end(ap);
}

/* A problem with a key rather than its value: points at the key. */
static void key_report(struct ctx *c, const pai__pos *at, pai_severity sev,
		       const char *path, const char *rule, const char *fmt, ...)
    PAI__PRINTF(6, 7);
static void key_report(struct ctx *c, const pai__pos *at, pai_severity sev,
		       const char *path, const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, at, true, sev, path, rule, fmt, ap);
	va_end(ap);
}

/* "a string \"abc\"", "an integer 5", "null"...: what was found. */
static void describe(pai__buf *b, json_t *v)
{
	char *s;
	size_t n;

	switch (json_typeof(v)) {
	case JSON_OBJECT: pai__buf_puts(b, "an object"); return;
	case JSON_ARRAY: pai__buf_puts(b, "an array"); return;
	case JSON_TRUE: pai__buf_puts(b, "true"); return;
	case JSON_FALSE: pai__buf_puts(b, "false"); return;
	case JSON_NULL: pai__buf_puts(b, "null"); return;
	case JSON_INTEGER:
		pai__buf_printf(b, "%" JSON_INTEGER_FORMAT,
				json_integer_value(v));
		return;
	case JSON_REAL:
	case JSON_STRING:
		s = json_dumps(v, JSON_ENCODE_ANY);
		if (!s) {
			b->oom = 1;
			return;
		}
		n = strlen(s);
		if (json_is_string(v))
			pai__buf_puts(b, "a string ");
		if (n > 40) {
			/* keep whole UTF-8 characters */
			n = 36;
			while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
				n--;
			pai__buf_put(b, s, n);
			pai__buf_puts(b, "...\"");
		} else {
			pai__buf_puts(b, s);
		}
		free(s);
		return;
	}
}

static const char *kind_name(enum kind k)
{
	switch (k) {
	case K_STRING: return "a string";
	case K_INT: return "an integer";
	case K_INT_OR_NULL: return "an integer or null";
	case K_ARRAY: return "an array";
	case K_OBJECT: return "an object";
	case K_ANY: break;
	}
	return "a value";
}

static void type_error(struct ctx *c, const pai__pos *at, const char *path,
		       enum kind want, json_t *v)
{
	pai__buf got = PAI__BUF_INIT;
	char *g;

	describe(&got, v);
	g = pai__buf_detach(&got);
	if (!g) {
		c->err = PAI_ENOMEM;
		return;
	}
	error(c, at, path, "type", "must be %s, got %s", kind_name(want), g);
	free(g);
}

/* A user's string as a message quotes it: whole when short, else its
 * first QUOTE_CHARS characters and "...", as a 50 MB dataDir would make
 * a 50 MB message. (Control characters are escaped for every message, in
 * pai__diag_add().) */
#define QUOTE_CHARS 60

typedef struct qbuf {
	char s[QUOTE_CHARS * 4 + 4];
} qbuf;

static const char *clip(qbuf *b, const char *s)
{
	size_t i = 0, k, c;

	/* at most 4 bytes a character, whatever the bytes are: the parsers
	 * took UTF-8 only, but the buffer does not rest on it */
	for (k = 0; s[i] && k < QUOTE_CHARS; k++)
		for (i++, c = 1; c < 4 && ((unsigned char)s[i] & 0xC0) == 0x80;
		     i++, c++)
			;
	if (!s[i])
		return s;
	memcpy(b->s, s, i);
	memcpy(b->s + i, "...", 4);
	return b->s;
}

/* ---- names and suggestions ------------------------------------------ */

static bool all_in(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!pai__is_name_char((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

static bool any_in(const char *s, const char *extra)
{
	for (; *s; s++)
		if (pai__is_name_char((unsigned char)*s) || strchr(extra, *s))
			return true;
	return false;
}

static const char *suggest(const char *key, const struct field *fields,
			   pai_dialect dialect)
{
	pai__closest cl = PAI__CLOSEST_INIT(key);
	const struct field *f;

	for (f = fields; f->name; f++) {
		if ((f->flags & F_SCM) && dialect != PAI_DIALECT_SCM)
			continue;
		pai__closest_add(&cl, f->name);
	}
	return pai__closest_name(&cl);
}

/* ---- integers ------------------------------------------------------- */

/* Turns the value of `key` in obj into a JSON integer when the server
 * would: a string of decimal digits (with a warning) or a real with an
 * integral value. Returns 1 and the integer value through *out; 0 when
 * the value is no integer at all; -1 when it is none and that has been
 * reported already (a numeric string out of range), so that one problem
 * is not also reported as a type error. */
static int as_integer(struct ctx *c, json_t *obj, const char *key, json_t **v,
		      const pai__pos *at, const char *path, long long *out)
{
	const char *s, *p;
	double d;
	long long n;
	char *end;
	qbuf q;

	if (json_is_integer(*v)) {
		*out = json_integer_value(*v);
		return 1;
	}
	if (json_is_real(*v)) {
		d = json_real_value(*v);
		/* beyond 2^53 a double no longer holds every integer; within,
		 * the cast is exact for integral values (and needs no libm,
		 * which the build does not link) */
		if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0)) {
			/* an integral value this large is still a number the
			 * server cannot hold exactly: say so, not "type" */
			if (d == d && d * 0.5 != d) {
				error(c, at, path, "number-range",
				      "%.17g is out of range (more than "
				      "2^53)",
				      d);
				return -1;
			}
			return 0;
		}
		n = (long long)d;
		if ((double)n != d)
			return 0;
	} else if (json_is_string(*v)) {
		s = json_string_value(*v);
		p = s + (*s == '-');
		if (!*p || strspn(p, "0123456789") != strlen(p))
			return 0;
		errno = 0;
		n = strtoll(s, &end, 10);
		if (errno == ERANGE) {
			error(c, at, path, "number-range", "%s is out of range",
			      clip(&q, s));
			return -1;
		}
		warning(c, at, path, "numeric-string",
			"a number written as a string: \"%s\" is sent as %lld",
			clip(&q, s), n);
	} else {
		return 0;
	}
	if (json_object_set_new(obj, key, json_integer(n)) < 0) {
		c->err = PAI_ENOMEM;
		return -1;
	}
	*v = json_object_get(obj, key);
	*out = n;
	return 1;
}

/* ---- objects ---------------------------------------------------------- */

/* The path of member key of path, into p (NULL when out of memory):
 * built only for a message, which most members never get. */
static const char *member_fp(struct ctx *c, pai__buf *p, const char *path,
			     const char *key)
{
	p->len = 0;
	pai__path_member(p, path, key);
	if (p->oom) {
		c->err = PAI_ENOMEM;
		return NULL;
	}
	return p->data;
}

/* The field named key in fields (or the list's end), its index in *k,
 * and in *known whether the dialect has it. */
static const struct field *field_named(const struct field *fields,
				       const char *key, pai_dialect dialect,
				       size_t *k, bool *known)
{
	const struct field *f;

	*known = false;
	for (f = fields, *k = 0; f->name; f++, (*k)++) {
		/* the first byte first: most fields differ there */
		if (f->name[0] == key[0] && strcmp(f->name, key) == 0) {
			*known =
			    !(f->flags & F_SCM) || dialect == PAI_DIALECT_SCM;
			break;
		}
	}
	return f;
}

/* Reports member m, which fields do not know, or know only in the scm
 * dialect (f is then its field). false when out of memory. */
static bool unknown_member(struct ctx *c, const pai__pos *m,
			   const struct field *fields, const struct field *f,
			   pai__buf *p, const char *path, const char *what)
{
	const char *s = suggest(m->key, fields, c->dialect);
	pai_severity sev = c->dialect == PAI_DIALECT_SCM ? PAI_SEVERITY_WARNING
							 : PAI_SEVERITY_ERROR;
	const char *fp = member_fp(c, p, path, m->key);
	qbuf q;

	if (!fp)
		return false;
	if (f->name)
		key_report(c, m, sev, fp, "unknown-field",
			   "unknown field \"%s\" in %s: it belongs to the scm "
			   "dialect (--dialect scm)",
			   clip(&q, m->key), what);
	else if (fields == top_fields && strcmp(m->key, "name") == 0)
		/* protocol v2's word, in a v0.x config */
		key_report(c, m, sev, fp, "unknown-field",
			   "unknown field \"name\" in %s; did you mean "
			   "\"jobName\"? (a v1 config names its job "
			   "\"jobName\", a protocol-v2 one \"name\")",
			   what);
	else if (s)
		key_report(c, m, sev, fp, "unknown-field",
			   "unknown field \"%s\" in %s; did you mean \"%s\"?",
			   clip(&q, m->key), what, s);
	else
		key_report(c, m, sev, fp, "unknown-field",
			   "unknown field \"%s\" in %s", clip(&q, m->key),
			   what);
	return true;
}

/* Whether the value *v of member m has the kind of field f, filling fd:
 * 1 when it has (*v may have been normalized to an integer), 0 when not,
 * 2 when a problem has been reported already, -1 when out of memory. */
static int check_kind(struct ctx *c, json_t *obj, const pai__pos *m,
		      const struct field *f, struct found *fd, json_t **v,
		      pai__buf *p, const char *path)
{
	const char *fp;

	switch (f->kind) {
	case K_STRING: return json_is_string(*v);
	case K_ARRAY: return json_is_array(*v);
	case K_OBJECT: return json_is_object(*v);
	case K_INT_OR_NULL:
		if (json_is_null(*v)) {
			fd->null = true;
			return 1;
		}
		/* fall through */
	case K_INT:
		if (json_is_integer(*v)) { /* the common case */
			fd->i = json_integer_value(*v);
			return 1;
		}
		if (!(fp = member_fp(c, p, path, m->key)))
			return -1;
		switch (as_integer(c, obj, m->key, v, m, fp, &fd->i)) {
		case 1: return 1;
		case 0: return 0;
		default: return 2; /* reported, or out of memory */
		}
	case K_ANY: break;
	}
	return 1;
}

/* Reports the required fields that obj lacks. */
static void check_required(struct ctx *c, const pai__pos *at, const char *path,
			   const struct field *fields,
			   const struct found *found, const char *what,
			   pai__buf *p)
{
	const struct field *f;
	size_t k;

	for (f = fields, k = 0; f->name; f++, k++) {
		if (!(f->flags & F_REQUIRED) || found[k].at)
			continue;
		p->len = 0;
		pai__path_member(p, path, f->name);
		if (p->oom) {
			c->err = PAI_ENOMEM;
			break;
		}
		error(c, at, p->data, "required",
		      "missing required field \"%s\" in %s", f->name, what);
	}
}

/* Checks the members of obj against fields: unknown keys, types, missing
 * required fields. Fills found[] for each field (in fields' order). */
static void check_members(struct ctx *c, json_t *obj, const pai__pos *at,
			  const char *path, const struct field *fields,
			  struct found *found, const char *what)
{
	pai__buf p = PAI__BUF_INIT;
	const char *fp;
	size_t i, k;
	/* jansson keeps members in the order they came, the position tree
	 * too: walked side by side, a member's value is found without a
	 * lookup (one where the orders part; values replaced below keep
	 * their place) */
	void *it = json_object_iter(obj);

	memset(found, 0, MAX_FIELDS * sizeof(*found));
	for (i = 0; at && i < at->nchild; i++) {
		const pai__pos *m = &at->child[i];
		json_t *v = NULL;
		const struct field *f;
		bool known;
		int kind;

		if (it && strcmp(json_object_iter_key(it), m->key) == 0) {
			v = json_object_iter_value(it);
			it = json_object_iter_next(obj, it);
		} else {
			v = json_object_get(obj, m->key);
		}
		if (!v) {
			/* the position tree has a key that jansson's result
			 * lacks: jansson's lexer drops a byte of a string
			 * when its buffer cannot grow, and says nothing */
			c->err = PAI_ENOMEM;
			break;
		}
		f = field_named(fields, m->key, c->dialect, &k, &known);
		if (!known) {
			if (!unknown_member(c, m, fields, f, &p, path, what))
				break;
			continue;
		}
		found[k].at = m;
		kind = check_kind(c, obj, m, f, &found[k], &v, &p, path);
		if (kind < 0)
			goto out;
		if (kind == 1) {
			found[k].v = v;
		} else if (kind == 0) {
			if (!(fp = member_fp(c, &p, path, m->key)))
				break;
			type_error(c, m, fp, f->kind, v);
		}
	}
	check_required(c, at, path, fields, found, what, &p);
out:
	pai__buf_release(&p);
}

/* A path for messages: owned copy of parent + member. */
static char *member_path(struct ctx *c, const char *parent, const char *key)
{
	pai__buf b = PAI__BUF_INIT;
	char *s;

	pai__path_member(&b, parent, key);
	s = pai__buf_detach(&b);
	if (!s)
		c->err = PAI_ENOMEM;
	return s;
}

/* A path that is passed down: a role's, its port list's, a port's. One
 * is made for every role and port, and few ever appear in a message: on
 * the stack, unless the parent is of unusual length. */
struct spath {
	char small[80];
	char *s; /* small, or allocated; NULL when out of memory */
};

static void spath_release(struct spath *sp)
{
	if (sp->s != sp->small)
		free(sp->s);
}

/* parent followed by tail ("[i]", or "." and an identifier). */
static const char *spath_join(struct ctx *c, struct spath *sp,
			      const char *parent, const char *tail)
{
	size_t n = strlen(parent), m = strlen(tail);

	/* m first: sizeof - m must not wrap for a tail longer than small */
	sp->s = m < sizeof(sp->small) && n < sizeof(sp->small) - m
		    ? sp->small
		    : malloc(n + m + 1);
	if (!sp->s) {
		c->err = PAI_ENOMEM;
		return NULL;
	}
	memcpy(sp->s, parent, n);
	memcpy(sp->s + n, tail, m + 1);
	return sp->s;
}

static const char *index_path(struct ctx *c, struct spath *sp,
			      const char *parent, size_t i)
{
	char tail[24], *d = tail + sizeof(tail);

	/* no printf, which costs as much as the rest of a role's checks */
	*--d = '\0';
	*--d = ']';
	do
		*--d = (char)('0' + i % 10);
	while ((i /= 10) > 0);
	*--d = '[';
	return spath_join(c, sp, parent, d);
}

/* A lower bound on an integer field that was found. */
static void at_least(struct ctx *c, const struct found *f, const char *path,
		     const char *field, long long min, const char *rule)
{
	char *p;

	if (!f->v || f->null || f->i >= min)
		return;
	p = member_path(c, path, field);
	if (p)
		error(c, f->at, p, rule, "must be at least %lld, got %lld", min,
		      f->i);
	free(p);
}

static void non_empty(struct ctx *c, const struct found *f, const char *path,
		      const char *field)
{
	char *p;

	if (!f->v || *json_string_value(f->v))
		return;
	p = member_path(c, path, field);
	if (p)
		error(c, f->at, p, "empty", "must not be empty");
	free(p);
}

/* ---- the fields --------------------------------------------------------- */

/* Bytes of the (valid) UTF-8 character that starts with lead byte c: a
 * message quotes whole characters, or it is no UTF-8 text (and jansson
 * refuses it in pai_diags_to_json()). */
static int utf8_char_len(char c)
{
	unsigned char u = (unsigned char)c;

	return u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 1;
}

static void check_job_name(struct ctx *c, const struct found *f)
{
	const char *s, *q;
	qbuf b;

	if (!f->v)
		return;
	s = json_string_value(f->v);
	if (!*s) {
		error(c, f->at, "jobName", "job-name", "must not be empty");
		return;
	}
	if (all_in(s, "-."))
		return;
	for (q = s;
	     *q && (pai__is_name_char((unsigned char)*q) || strchr("-.", *q));
	     q++)
		;
	if (*q == '~')
		error(c, f->at, "jobName", "job-name",
		      "'~' is not allowed in a job name (the server joins "
		      "user and job name with '~'); the name must match "
		      "^[A-Za-z0-9\\-._]+$");
	else
		error(c, f->at, "jobName", "job-name",
		      "must match ^[A-Za-z0-9\\-._]+$, got \"%s\" (character "
		      "'%.*s' is not allowed)",
		      clip(&b, s), utf8_char_len(*q), q);
}

static void check_dir(struct ctx *c, const struct found *f, const char *name)
{
	const char *s;
	qbuf q;

	if (!f->v)
		return;
	s = json_string_value(f->v);
	if (!*s || strncmp(s, "hdfs://", 7) == 0 ||
	    strncmp(s, "$PAI_DEFAULT_FS_URI", 19) == 0)
		return;
	warning(c, f->at, name, "dir-uri",
		"\"%s\" is not an HDFS URI: expected hdfs://... or "
		"$PAI_DEFAULT_FS_URI/...",
		clip(&q, s));
}

static void check_job_envs(struct ctx *c, const struct found *f)
{
	size_t i;
	qbuf q;

	if (!f->v)
		return;
	for (i = 0; i < f->at->nchild && !c->err; i++) {
		const pai__pos *m = &f->at->child[i];
		json_t *v = json_object_get(f->v, m->key);
		char *p;

		if (!v) { /* as in check_members() */
			c->err = PAI_ENOMEM;
			return;
		}
		p = member_path(c, "jobEnvs", m->key);
		if (!p)
			return;
		if (!any_in(m->key, "")) {
			key_report(c, m, PAI_SEVERITY_ERROR, p, "job-env-key",
				   "key \"%s\" must contain at least one "
				   "letter, digit or '_'",
				   clip(&q, m->key));
		} else if (!all_in(m->key, "") ||
			   (m->key[0] >= '0' && m->key[0] <= '9')) {
			key_report(c, m, PAI_SEVERITY_WARNING, p,
				   "job-env-name",
				   "\"%s\" is not a valid shell variable name "
				   "(^[A-Za-z_][A-Za-z0-9_]*$): the task "
				   "cannot see it as $%s",
				   clip(&q, m->key), clip(&q, m->key));
		}
		if ((strcmp(m->key, "paiAzRDMA") == 0 ||
		     strcmp(m->key, "isDebug") == 0) &&
		    !json_is_boolean(v)) {
			pai__buf got = PAI__BUF_INIT;
			char *g;

			describe(&got, v);
			g = pai__buf_detach(&got);
			if (g)
				warning(c, m, p, "job-env-boolean",
					"should be true or false, got %s", g);
			else
				c->err = PAI_ENOMEM;
			free(g);
		} else if (json_is_object(v) || json_is_array(v)) {
			warning(c, m, p, "job-env-value",
				"%s value is exported as its JSON text",
				json_is_object(v) ? "an object" : "an array");
		}
		free(p);
	}
}

static void check_extras(struct ctx *c, const struct found *f)
{
	size_t i;

	if (!f->v)
		return;
	for (i = 0; i < f->at->nchild && !c->err; i++) {
		const pai__pos *m = &f->at->child[i];
		char *p;
		qbuf q;

		if (any_in(m->key, "."))
			continue;
		p = member_path(c, "extras", m->key);
		if (p)
			key_report(c, m, PAI_SEVERITY_ERROR, p, "extras-key",
				   "key \"%s\" must contain at least one "
				   "letter, digit, '.' or '_'",
				   clip(&q, m->key));
		free(p);
	}
}

/* Not in the documented table, but a port outside 0..65535 cannot be
 * bound: say so, without failing the config. Both values may be anything
 * a long long holds, so nothing here adds them. */
static void check_port_range(struct ctx *c, const struct found *begin,
			     const struct found *number, const char *path)
{
	long long b = begin->i, n = number->i;
	char *p;

	if (n < 0) {
		p = member_path(c, path, "portNumber");
		if (p)
			warning(c, number->at, p, "port-range",
				"must be at least 0, got %lld", n);
		free(p);
		return;
	}
	if (b >= 0 && b <= 65535 && (n <= 1 || n - 1 <= 65535 - b))
		return;
	p = member_path(c, path, "beginAt");
	if (!p)
		return;
	if (n <= 1)
		warning(c, begin->at, p, "port-range",
			"port %lld is not within 0..65535", b);
	else
		warning(c, begin->at, p, "port-range",
			"%lld ports from %lld are not all within 0..65535", n,
			b);
	free(p);
}

static void check_ports(struct ctx *c, json_t *list, const pai__pos *at,
			const char *path)
{
	struct found f[MAX_FIELDS];
	json_t *p;
	size_t i;

	pai__firsts_clear(&c->labels);
	json_array_foreach(list, i, p)
	{
		const pai__pos *pp = pai__pos_index(at, i);
		struct spath ips;
		const char *ip = index_path(c, &ips, path, i);
		char *lp;
		const char *label;
		size_t first;
		qbuf q;

		if (!ip)
			break;
		if (!json_is_object(p)) {
			error(c, pp, ip, "type",
			      "a port must be an object {label, beginAt, "
			      "portNumber}");
			spath_release(&ips);
			continue;
		}
		check_members(c, p, pp, ip, port_fields, f, "a port");
		if (f[P_LABEL].v) {
			label = json_string_value(f[P_LABEL].v);
			if (!*label || !all_in(label, ".~")) {
				if ((lp = member_path(c, ip, "label")))
					error(c, f[P_LABEL].at, lp,
					      "port-label",
					      "must match ^[A-Za-z0-9._~]+$, "
					      "got \"%s\"",
					      clip(&q, label));
				free(lp);
			} else if (pai__firsts_get(&c->labels, label, &first)) {
				if ((lp = member_path(c, ip, "label")))
					error(c, f[P_LABEL].at, lp,
					      "duplicate-port-label",
					      "label \"%s\" is already used "
					      "by %s[%zu]",
					      clip(&q, label), path, first);
				free(lp);
			} else if (pai__firsts_add(&c->labels, label, i)) {
				c->err = PAI_ENOMEM;
			}
		}
		if (f[P_BEGIN].v && f[P_NUMBER].v)
			check_port_range(c, &f[P_BEGIN], &f[P_NUMBER], ip);
		spath_release(&ips);
	}
}

static void check_task_count(struct ctx *c, const struct found *f,
			     const struct found *tasks, const char *path,
			     const char *field, const char *rule_min,
			     const char *rule_max)
{
	bool over;
	char *p;

	if (!f->v || f->null)
		return;
	over = tasks->v && tasks->i >= 1 && f->i > tasks->i;
	if (f->i >= 1 && !over)
		return; /* the path only for a message */
	p = member_path(c, path, field);
	if (!p)
		return;
	if (f->i < 1)
		error(c, f->at, p, rule_min,
		      "must be null or at least 1, got %lld", f->i);
	else
		error(c, f->at, p, rule_max,
		      "must be at most taskNumber (%lld), got %lld", tasks->i,
		      f->i);
	free(p);
}

/* name, for as long as the check lasts: itself when its role is part of
 * root, else a copy (NULL: out of memory). */
static const char *lasting(struct ctx *c, const char *name)
{
	size_t n = strlen(name) + 1;
	char *s;

	if (!c->roles)
		return name;
	s = pai__arena_alloc(&c->arena, n);
	if (s)
		memcpy(s, name, n);
	return s;
}

/* A task role's name: not empty, the server's characters, and not one
 * that an earlier role has (names maps each name to its first role).
 * false when out of memory. */
static bool check_role_name(struct ctx *c, const struct found *fn,
			    const char *path, size_t index)
{
	const char *name = json_string_value(fn->v);
	size_t first = 0;
	bool good = *name && all_in(name, ".~"), dup;
	char *p;
	qbuf q;

	dup = good && pai__firsts_get(&c->names, name, &first);
	if (good && !dup) {
		if (!(name = lasting(c, name)) ||
		    pai__firsts_add(&c->names, name, index))
			c->err = PAI_ENOMEM;
		return true;
	}
	/* the path only for a message */
	if (!(p = member_path(c, path, "name")))
		return false;
	if (!*name)
		error(c, fn->at, p, "role-name", "must not be empty");
	else if (!good && strchr(name, '-'))
		error(c, fn->at, p, "role-name",
		      "'-' is not allowed in a task role name (the server "
		      "rejects \"%s\"; use '_')",
		      clip(&q, name));
	else if (!good)
		error(c, fn->at, p, "role-name",
		      "must match ^[A-Za-z0-9._~]+$, got \"%s\"",
		      clip(&q, name));
	else
		error(c, fn->at, p, "duplicate-role-name",
		      "task role \"%s\" is already defined by "
		      "taskRoles[%zu]",
		      clip(&q, name), first);
	free(p);
	return true;
}

static void check_role(struct ctx *c, json_t *role, const pai__pos *at,
		       const char *path, size_t index)
{
	struct found f[MAX_FIELDS];
	char *p;

	check_members(c, role, at, path, role_fields, f, "a task role");
	if (f[R_NAME].v && !check_role_name(c, &f[R_NAME], path, index))
		return;
	at_least(c, &f[R_TASKS], path, "taskNumber", 1, "min-task-number");
	at_least(c, &f[R_CPU], path, "cpuNumber", 1, "min-cpu-number");
	at_least(c, &f[R_MEM], path, "memoryMB", 100, "min-memory");
	at_least(c, &f[R_GPU], path, "gpuNumber", 0, "min-gpu-number");
	if (f[R_SHM].v && f[R_MEM].v && f[R_SHM].i > f[R_MEM].i) {
		p = member_path(c, path, "shmMB");
		if (p)
			error(c, f[R_SHM].at, p, "max-shm",
			      "must be at most memoryMB (%lld), got %lld",
			      f[R_MEM].i, f[R_SHM].i);
		free(p);
	}
	non_empty(c, &f[R_COMMAND], path, "command");
	if (f[R_PORTS].v) {
		struct spath lp;

		if (spath_join(c, &lp, path, ".portList"))
			check_ports(c, f[R_PORTS].v, f[R_PORTS].at, lp.s);
		spath_release(&lp);
	}
	check_task_count(c, &f[R_MINFAILED], &f[R_TASKS], path,
			 "minFailedTaskCount", "min-failed-task-count",
			 "max-failed-task-count");
	check_task_count(c, &f[R_MINSUCCEEDED], &f[R_TASKS], path,
			 "minSucceededTaskCount", "min-succeeded-task-count",
			 "max-succeeded-task-count");
	at_least(c, &f[R_STORAGE], path, "storageGB", 0, "min-storage");
}

/* Role i of the list f (a new reference), from root or from c->roles;
 * NULL when that failed (c->err says why). */
static json_t *role_at(struct ctx *c, const struct found *f, size_t i)
{
	json_t *role = NULL;
	int err;

	if (!c->roles)
		return json_incref(json_array_get(f->v, i));
	err = c->roles->get(c->roles->data, i, pai__pos_index(f->at, i),
			    &role);
	if (err)
		c->err = err;
	return role;
}

static void check_roles(struct ctx *c, const struct found *f)
{
	size_t i, n;

	if (!f->v)
		return;
	n = c->roles ? f->at->nchild : json_array_size(f->v);
	if (n == 0) {
		error(c, f->at, "taskRoles", "min-task-roles",
		      "must list at least one task role");
		return;
	}
	for (i = 0; i < n && !c->err; i++) {
		const pai__pos *at = pai__pos_index(f->at, i);
		json_t *role = role_at(c, f, i);
		struct spath sp;
		const char *p = role ? index_path(c, &sp, "taskRoles", i)
				     : NULL;

		if (!p) {
			json_decref(role);
			break;
		}
		if (!json_is_object(role))
			type_error(c, at, p, K_OBJECT, role);
		else
			check_role(c, role, at, p, i);
		spath_release(&sp);
		/* what the caller keeps of it, now that it is normalized */
		if (!c->err && c->roles)
			c->err = c->roles->put(c->roles->data, i, role);
		json_decref(role);
	}
}

int pai__validate(json_t **normalized, pai_diags *diags, pai__src *src,
		  const pai__pos *pos, json_t *root, pai_dialect dialect,
		  const struct pai__v1_roles *roles)
{
	struct ctx c;
	struct found f[MAX_FIELDS];
	json_t *norm = NULL;
	int err;

	memset(&c, 0, sizeof(c));
	c.diags = diags;
	c.src = src;
	c.dialect = dialect;
	c.roles = roles;
	*normalized = NULL;
	if (!json_is_object(root)) {
		type_error(&c, pos, "", K_OBJECT, root);
		err = c.err ? c.err : PAI_EINVALID;
		goto out;
	}
	/* root is ours (the caller parsed it and drops it after this), so
	 * normalize it in place: a copy would cost as much as the parse. */
	norm = json_incref(root);
	check_members(&c, norm, pos, "", top_fields, f, "the job");
	check_job_name(&c, &f[T_JOBNAME]);
	non_empty(&c, &f[T_IMAGE], "", "image");
	check_dir(&c, &f[T_AUTHFILE], "authFile");
	check_dir(&c, &f[T_DATADIR], "dataDir");
	check_dir(&c, &f[T_OUTPUTDIR], "outputDir");
	check_dir(&c, &f[T_CODEDIR], "codeDir");
	if (f[T_RETRY].v) {
		if (f[T_RETRY].i < -2)
			error(&c, f[T_RETRY].at, "retryCount",
			      "min-retry-count",
			      "must be at least -2, got %lld", f[T_RETRY].i);
		else if (f[T_RETRY].i < 0)
			warning(&c, f[T_RETRY].at, "retryCount",
				"negative-retry-count",
				"%lld is accepted by the server, but the "
				"documented minimum is 0",
				f[T_RETRY].i);
	}
	check_roles(&c, &f[T_ROLES]);
	check_job_envs(&c, &f[T_ENVS]);
	check_extras(&c, &f[T_EXTRAS]);
	if (f[T_KILLALL].at)
		warning(&c, f[T_KILLALL].at, "killAllOnCompletedTaskNumber",
			"obsolete",
			"obsolete: use minFailedTaskCount and "
			"minSucceededTaskCount in the task roles");
	/* the SCM web form's leftovers are not part of the job */
	if (f[T_TMP].at && json_object_del(norm, "tmp") < 0)
		c.err = PAI_ENOMEM;

	err = c.err ? c.err : c.errors ? PAI_EINVALID : PAI_OK;
	if (!c.err) {
		*normalized = norm;
		norm = NULL;
	}
out:
	pai__firsts_release(&c.names);
	pai__firsts_release(&c.labels);
	pai__arena_free(c.arena);
	json_decref(norm);
	return err;
}
