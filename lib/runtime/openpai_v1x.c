/* openpai_v1x.c - the OpenPAI v1.x runtime: what a v1.x cluster (v1.8.0)
 * makes of a protocol-v2 job: each task's environment and the command
 * its bash runs, and warnings about references in commands that nothing
 * will define.
 *
 * Where each variable comes from (microsoft/pai v1.8.0 unless said):
 *   FC_*           frameworkcontroller v0.9.0, NewPod() in
 *                  pkg/apis/frameworkcontroller/v1/funcs.go: prepended
 *                  to the container's env;
 *   PAI_FRAMEWORK_NAME ... PAI_JOB_TASK_ROLE_LIST
 *                  rest-server models/v2/job/runtime-env.js,
 *                  generateFrameworkEnv (PAI_JOB_NAME is user~job there);
 *   PAI_CURRENT_TASK_ROLE_NAME, ..._CURRENT_TASK_INDEX, PAI_TASK_INDEX,
 *   NVIDIA_VISIBLE_DEVICES (HIVED_VISIBLE_DEVICES)
 *                  models/v2/job/k8s.js, generateTaskRole;
 *   PAI_WORK_DIR   openpai-runtime v0.1.11 src/runtime: "$(pwd)";
 *   PAI_PORT_LIST_*, PAI_<role>_<i>_<label>_PORT, PAI_HOST_IP_*,
 *   PAI_CURRENT_CONTAINER_*, PAI_CONTAINER_*, PAI_TASK_ROLE_*_HOST_LIST,
 *   PAI_TASK_ROLE_INSTANCES
 *                  openpai-runtime src/init.d/framework_parser.py,
 *                  generate_runtime_env, sourced by runtime_entry.sh.
 * The runtime's variables name roles as the framework does, by
 * convertName(): lower case, [a-z0-9] only; the rest-server's keep the
 * role's own name. The order is the container's: FC_*, the rest-server's
 * list, then the runtime's exports.
 *
 * The command is the rest-server's entrypoint (middlewares/v2/protocol.js,
 * protocolRender: the default deployment's preCommands, the commands and
 * its postCommands, each trimmed, joined by newlines, rendered with
 * mustache and trimmed), rendered once more by the runtime with the
 * job's secrets (src/common/utils.py, render_string_with_secrets, only
 * when there are secrets; a tag it cannot resolve becomes ""). A secret
 * is never shown: it reads <secret:$secrets.name>. user.sh runs it with
 * bash under errexit, nounset and pipefail. */
#include "runtime.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Warnings per role: more would drown the rest. */
#define MAX_REF_WARNINGS 16

/* Longest name worth suggesting a spelling for. */
#define MAX_SUGGEST_NAME 64

/* ---- JavaScript's view of values ---------------------------------------- */

static bool js_truthy(json_t *v)
{
	if (!v)
		return false; /* undefined */
	switch (json_typeof(v)) {
	case JSON_STRING: return json_string_length(v) > 0;
	case JSON_INTEGER: return json_integer_value(v) != 0;
	case JSON_REAL:
		return json_real_value(v) == json_real_value(v) &&
		       json_real_value(v) != 0;
	case JSON_TRUE:
	case JSON_OBJECT:
	case JSON_ARRAY: return true;
	default: return false;
	}
}

/* Python's truth, for the runtime's `if not secrets`. */
static bool py_truthy(json_t *v)
{
	if (json_is_object(v))
		return json_object_size(v) > 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	return js_truthy(v);
}

/* String(v) as JavaScript writes it; an array joins its elements with
 * commas, null ones as "". jansson bounds the nesting. */
static void js_string(pai__buf *b, json_t *v)
{
	json_t *e;
	size_t i;

	if (!v) {
		pai__buf_puts(b, "undefined");
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING:
		pai__buf_put(b, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		if (json_integer_value(v) > (1LL << 53) ||
		    json_integer_value(v) < -(1LL << 53))
			pai__put_js_number(b, (double)json_integer_value(v));
		else
			pai__buf_printf(b, "%" JSON_INTEGER_FORMAT,
					json_integer_value(v));
		break;
	case JSON_REAL: pai__put_js_number(b, json_real_value(v)); break;
	case JSON_TRUE: pai__buf_puts(b, "true"); break;
	case JSON_FALSE: pai__buf_puts(b, "false"); break;
	case JSON_NULL: pai__buf_puts(b, "null"); break;
	case JSON_OBJECT: pai__buf_puts(b, "[object Object]"); break;
	case JSON_ARRAY:
		json_array_foreach(v, i, e)
		{
			if (i)
				pai__buf_putc(b, ',');
			if (!json_is_null(e))
				js_string(b, e);
		}
		break;
	}
}

/* An element of Array.prototype.join: null and undefined are "". */
static void js_join_elem(pai__buf *b, json_t *v)
{
	if (v && !json_is_null(v))
		js_string(b, v);
}

/* JavaScript's \s at s, for String.prototype.trim(): ASCII and the
 * Unicode spaces (the loader guarantees valid UTF-8). */
static size_t js_space(const unsigned char *u, size_t n)
{
	if (!n)
		return 0;
	if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
		return 1;
	if (n >= 2 && u[0] == 0xC2 && u[1] == 0xA0)
		return 2;
	if (n < 3)
		return 0;
	if ((u[0] == 0xE1 && u[1] == 0x9A && u[2] == 0x80) ||
	    (u[0] == 0xE2 && u[1] == 0x80 &&
	     (u[2] <= 0x8A || u[2] == 0xA8 || u[2] == 0xA9 || u[2] == 0xAF)) ||
	    (u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F) ||
	    (u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80) ||
	    (u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF))
		return 3;
	return 0;
}

static void put_js_trimmed(pai__buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t a = 0, w, k;
	bool cut = true;

	while (a < n && (w = js_space(u + a, n - a)))
		a += w;
	while (cut) {
		cut = false;
		for (k = 1; k <= 3 && k <= n - a; k++)
			if (js_space(u + n - k, k) == k) {
				n -= k;
				cut = true;
				break;
			}
	}
	pai__buf_put(b, s + a, n - a);
}

/* ---- the job ------------------------------------------------------------ */

static const char *role_name(const pai_job *job, size_t r)
{
	return job->roles[r].r.name ? job->roles[r].r.name : "";
}

static size_t tasks_of(const pai_job *job, size_t r)
{
	long long t = job->roles[r].r.task_number;

	return t > 0 ? (size_t)t : 0;
}

static size_t nports(const pai_job *job, size_t r)
{
	return job->roles[r].nports;
}

static const char *label_of(const pai_job *job, size_t r, size_t k)
{
	const char *l = job->roles[r].ports[k].label;

	return l ? l : "";
}

static long long count_of(const pai_job *job, size_t r, size_t k)
{
	long long n = job->roles[r].ports[k].port_number;

	return n > 0 ? n : 0;
}

static long label_index(const pai_job *job, size_t r, const char *label)
{
	size_t k;

	for (k = 0; k < nports(job, r); k++)
		if (strcmp(label_of(job, r, k), label) == 0)
			return (long)k;
	return -1;
}

/* The prerequisite the rest-server's dict `prerequisites[type][key]`
 * holds, or NULL. A role without the field looks up "undefined". */
static json_t *prereq(json_t *cfg, const char *type, json_t *field)
{
	json_t *item;
	pai__buf key = PAI__BUF_INIT;
	json_t *found = NULL;
	size_t i;

	if (field)
		js_string(&key, field);
	else
		pai__buf_puts(&key, "undefined");
	if (key.oom)
		return NULL;
	json_array_foreach(json_object_get(cfg, "prerequisites"), i, item)
	{
		const char *t =
		    json_string_value(json_object_get(item, "type"));
		json_t *n = json_object_get(item, "name");
		pai__buf nb = PAI__BUF_INIT;

		if (!t || strcmp(t, type) != 0)
			continue;
		js_string(&nb, n);
		if (!nb.oom && nb.len == key.len &&
		    memcmp(nb.data ? nb.data : "", key.data ? key.data : "",
			   key.len) == 0)
			found = item; /* the last one wins, as in a dict */
		pai__buf_release(&nb);
	}
	pai__buf_release(&key);
	return found;
}

/* The default deployment's entry for role r, or NULL. */
static json_t *deployment_of(json_t *cfg, const char *role, size_t *index)
{
	const char *dflt = json_string_value(
	    json_object_get(json_object_get(cfg, "defaults"), "deployment"));
	json_t *d, *found = NULL;
	size_t i;

	if (!dflt)
		return NULL;
	json_array_foreach(json_object_get(cfg, "deployments"), i, d)
	{
		const char *n = json_string_value(json_object_get(d, "name"));

		if (n && strcmp(n, dflt) == 0) {
			found = json_object_get(json_object_get(d, "taskRoles"),
						role);
			*index = i;
		}
	}
	return found;
}

static const char *vc_of(json_t *cfg, pai__buf *b)
{
	json_t *vc =
	    json_object_get(json_object_get(cfg, "defaults"), "virtualCluster");

	if (!vc || json_is_null(vc))
		return "default";
	js_string(b, vc);
	return b->oom || !b->data ? "" : b->data;
}

/* ---- the template views ------------------------------------------------- */

/* What protocolRender gives mustache for role r: {$parameters, $script,
 * $output, $data} (NULL: undefined), and, for the runtime's pass, the
 * job's secrets. */
struct view {
	json_t *top[4];
	json_t *secrets;
	json_t *tmp; /* a value made up by a lookup (a length) */
	bool reveal; /* the runtime's pass shows secrets: to run the task */
};

static const char *const view_keys[4] = {"$parameters", "$script", "$output",
					 "$data"};

static void view_init(struct view *v, const pai_job *job, size_t r)
{
	json_t *cfg = job->config, *spec = job->roles[r].spec;

	memset(v, 0, sizeof(*v));
	v->top[0] = json_object_get(cfg, "parameters");
	v->top[1] = prereq(cfg, "script", json_object_get(spec, "script"));
	v->top[2] = prereq(cfg, "output", json_object_get(spec, "output"));
	v->top[3] = prereq(cfg, "data", json_object_get(spec, "data"));
	v->secrets = json_object_get(cfg, "secrets");
}

static bool canonical_index(const char *k, size_t n, size_t *idx)
{
	size_t i, x = 0;

	if (!n || n > 9 || (k[0] == '0' && n > 1))
		return false;
	for (i = 0; i < n; i++) {
		if (k[i] < '0' || k[i] > '9')
			return false;
		x = x * 10 + (size_t)(k[i] - '0');
	}
	*idx = x;
	return true;
}

/* value[key] in JavaScript for the values YAML gives; NULL: undefined. */
static json_t *js_prop(struct view *v, json_t *val, const char *k, size_t n)
{
	size_t idx, len = 0, i;

	if (json_is_object(val)) {
		char *key = strndup(k, n);
		json_t *r = key ? json_object_get(val, key) : NULL;

		free(key);
		return r;
	}
	if (n == 6 && memcmp(k, "length", 6) == 0) {
		if (json_is_array(val)) {
			len = json_array_size(val);
		} else if (json_is_string(val)) {
			const unsigned char *s =
			    (const unsigned char *)json_string_value(val);
			/* UTF-16 code units */
			for (i = 0; i < json_string_length(val); i++)
				if ((s[i] & 0xC0) != 0x80)
					len += (s[i] >= 0xF0) ? 2 : 1;
		} else {
			return NULL;
		}
		json_decref(v->tmp);
		v->tmp = json_integer((json_int_t)len);
		return v->tmp;
	}
	if (json_is_array(val) && canonical_index(k, n, &idx))
		return json_array_get(val, idx);
	return NULL;
}

/* mustache 2.3.2's Context.lookup over the server's view, the value or
 * NULL (undefined). "." is the view itself. */
static json_t *server_value(struct view *v, const char *name, size_t n,
			    bool *is_view)
{
	const char *dot = memchr(name, '.', n), *seg = name, *end = name + n;
	json_t *val = NULL;
	size_t k;

	*is_view = n == 1 && name[0] == '.';
	if (*is_view)
		return NULL;
	/* only a dot after the first character makes a path */
	if (!dot || dot == name)
		dot = end;
	for (k = 0; k < 4; k++)
		if ((size_t)(dot - seg) == strlen(view_keys[k]) &&
		    memcmp(seg, view_keys[k], (size_t)(dot - seg)) == 0)
			break;
	if (k == 4)
		return NULL;
	val = v->top[k];
	for (seg = dot; seg < end && val && !json_is_null(val);) {
		const char *e;

		seg++;
		e = memchr(seg, '.', (size_t)(end - seg));
		if (!e)
			e = end;
		val = js_prop(v, val, seg, (size_t)(e - seg));
		seg = e;
	}
	return val && !json_is_null(val) ? val : NULL;
}

static int server_lookup(void *data, const char *name, size_t n, pai__buf *out)
{
	struct view *v = data;
	bool is_view;
	json_t *val = server_value(v, name, n, &is_view);

	if (is_view) {
		pai__buf_puts(out, "[object Object]");
		return 1;
	}
	if (!val)
		return 0;
	js_string(out, val);
	return 1;
}

/* What `$secrets.a.b` names in the secrets, as the runtime's pystache
 * context ({"$secrets": secrets}, lists made dicts) finds it, or NULL. */
static json_t *secret_value(struct view *v, const char *name, size_t n)
{
	const char *end = name + n, *seg, *e;
	json_t *val = v->secrets;

	if (n < 8 || memcmp(name, "$secrets", 8) != 0 ||
	    (n > 8 && name[8] != '.'))
		return NULL;
	for (seg = name + 8; seg < end && val;) {
		seg++;
		e = memchr(seg, '.', (size_t)(end - seg));
		if (!e)
			e = end;
		if (json_is_object(val) || json_is_array(val))
			val = js_prop(v, val, seg, (size_t)(e - seg));
		else
			val = NULL;
		seg = e;
	}
	return val;
}

static bool secret_exists(struct view *v, const char *name, size_t n)
{
	return secret_value(v, name, n) != NULL;
}

/* The runtime's pass: secrets masked, anything else it cannot resolve
 * rendered as "" (pystache's missing tags). */
static int runtime_lookup(void *data, const char *name, size_t n, pai__buf *out)
{
	struct view *v = data;
	json_t *val = v->reveal ? secret_value(v, name, n) : NULL;

	if (json_is_string(val)) {
		pai__buf_puts(out, json_string_value(val));
		return 1;
	}
	if (val) {
		char *text = json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);

		pai__buf_puts(out, text ? text : "");
		free(text);
		return 1;
	}
	if (secret_exists(v, name, n) || (n == 1 && name[0] == '.')) {
		pai__buf_puts(out, "<secret:");
		pai__buf_put(out, name, n);
		pai__buf_putc(out, '>');
	}
	return 1;
}

/* The command sources of role r in the server's order: the default
 * deployment's preCommands, the commands, its postCommands. */
struct source {
	const char *text;
	const pai__pos *pos;
	pai__buf path;
};

struct sources {
	struct source *v;
	size_t n;
};

static void sources_release(struct sources *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		pai__buf_release(&s->v[i].path);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static const pai__pos *member_or_index(const pai__pos *p, json_t *parent,
				       const char *key, size_t i)
{
	return json_is_array(parent) ? pai__pos_index(p, i)
				     : pai__pos_member(p, key);
}

static int add_list(struct sources *s, json_t *list, const pai__pos *lpos,
		    const char *parent, const char *field)
{
	json_t *c;
	size_t i;

	json_array_foreach(list, i, c)
	{
		struct source *x;

		if (!json_is_string(c))
			continue;
		x = &s->v[s->n++];
		memset(x, 0, sizeof(*x));
		x->text = json_string_value(c);
		x->pos = pai__pos_index(lpos, i);
		pai__path_member(&x->path, parent, field);
		pai__buf_printf(&x->path, "[%zu]", i);
		if (x->path.oom)
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

static int role_sources(struct sources *s, const pai_job *job, size_t r,
			const pai__pos *pos)
{
	json_t *cfg = job->config, *roles = json_object_get(cfg, "taskRoles");
	json_t *spec = job->roles[r].spec, *dep;
	json_t *pre = NULL, *post = NULL,
	       *cmds = json_object_get(spec, "commands");
	const pai__pos *rp, *dp = NULL;
	pai__buf rpath = PAI__BUF_INIT, dpath = PAI__BUF_INIT;
	size_t di = 0, n;
	int err = PAI_ENOMEM;

	memset(s, 0, sizeof(*s));
	dep = deployment_of(cfg, role_name(job, r), &di);
	if (dep) {
		pre = json_object_get(dep, "preCommands");
		post = json_object_get(dep, "postCommands");
		dp = pai__pos_member(
		    pai__pos_member(
			pai__pos_index(pai__pos_member(pos, "deployments"), di),
			"taskRoles"),
		    role_name(job, r));
		pai__buf_printf(&rpath, "deployments[%zu].taskRoles", di);
		pai__path_member(&dpath, rpath.data ? rpath.data : "",
				 role_name(job, r));
		pai__buf_release(&rpath);
	}
	n = json_array_size(pre) + json_array_size(cmds) +
	    json_array_size(post);
	s->v = calloc(n ? n : 1, sizeof(*s->v));
	if (!s->v)
		goto out;
	rp = member_or_index(pai__pos_member(pos, "taskRoles"), roles,
			     role_name(job, r), r);
	pai__path_member(&rpath, "taskRoles", role_name(job, r));
	if (rpath.oom || dpath.oom)
		goto out;
	err = add_list(s, pre, pai__pos_member(dp, "preCommands"), dpath.data,
		       "preCommands");
	if (!err)
		err = add_list(s, cmds, pai__pos_member(rp, "commands"),
			       rpath.data, "commands");
	if (!err)
		err = add_list(s, post, pai__pos_member(dp, "postCommands"),
			       dpath.data, "postCommands");
out:
	pai__buf_release(&rpath);
	pai__buf_release(&dpath);
	if (err)
		sources_release(s);
	return err;
}

/* The command role r's tasks run: the server's entrypoint, then the
 * runtime's rendering with secrets. Caller frees. */
static int entrypoint(char **out, const pai_job *job, size_t r, bool reveal)
{
	pai__buf joined = PAI__BUF_INIT, one = PAI__BUF_INIT,
		 two = PAI__BUF_INIT;
	struct sources s;
	struct view v;
	size_t i;
	int err;

	*out = NULL;
	view_init(&v, job, r);
	v.reveal = reveal;
	err = role_sources(&s, job, r, NULL);
	if (err)
		return err;
	for (i = 0; i < s.n; i++) {
		if (i)
			pai__buf_putc(&joined, '\n');
		put_js_trimmed(&joined, s.v[i].text, strlen(s.v[i].text));
	}
	err = PAI_ENOMEM;
	if (joined.oom)
		goto out;
	/* a valid job parses: the validator refuses what mustache throws on */
	err = PAI_ERROR;
	if (pai__tmpl_render(&one, joined.data ? joined.data : "", joined.len,
			     server_lookup, &v) < 0)
		goto out;
	err = PAI_ENOMEM;
	if (one.oom)
		goto out;
	/* pystache failing here fails the task; the text shows as it was */
	if (py_truthy(v.secrets) &&
	    pai__tmpl_render(&two, one.data ? one.data : "", one.len,
			     runtime_lookup, &v) == 0 &&
	    !two.oom) {
		*out = pai__buf_detach(&two);
	} else {
		*out = pai__buf_detach(&one);
	}
	err = *out ? PAI_OK : PAI_ENOMEM;
out:
	json_decref(v.tmp);
	sources_release(&s);
	pai__buf_release(&joined);
	pai__buf_release(&one);
	pai__buf_release(&two);
	return err;
}

/* ---- the generator ------------------------------------------------------ */

struct gen {
	const pai_job *job;
	json_t *cfg;
	const char *user;
	char *framework;	 /* its name, when the user is known */
	const pai_placement *pl; /* may be NULL */
	char **conv;		 /* convertName() of each role */
	bool full;		 /* false: the reference check's names only,
				  * without the other tasks' variables */
	pai_env *env;
	pai__buf name, val;
	int err;
};

static void emit(struct gen *g)
{
	char *name = pai__buf_detach(&g->name),
	     *value = pai__buf_detach(&g->val);

	if (g->err || !name || !value) {
		free(name);
		free(value);
		if (!g->err)
			g->err = PAI_ENOMEM;
		return;
	}
	if (pai__env_set(g->env, name, value, 0))
		g->err = PAI_ENOMEM;
}

static void var(struct gen *g, const char *name, const char *value)
{
	pai__buf_puts(&g->name, name);
	pai__buf_puts(&g->val, value);
	emit(g);
}

enum placed { PLACED_IP, PLACED_CONTAINER_ID, PLACED_WORK_DIR };

static void put_placed(struct gen *g, enum placed what, size_t r, size_t i)
{
	static const char *const kind[] = {"ip", "container-id", "work-dir"};
	const char *(*fn)(void *, size_t, size_t) = NULL;
	const char *v = NULL;

	if (g->pl)
		fn = what == PLACED_IP		   ? g->pl->ip
		     : what == PLACED_CONTAINER_ID ? g->pl->container_id
						   : g->pl->work_dir;
	if (fn)
		v = fn(g->pl->data, r, i);
	if (v && *v)
		pai__buf_puts(&g->val, v);
	else
		pai__buf_printf(&g->val, "<%s:%s-%zu>", kind[what],
				role_name(g->job, r), i);
}

/* v1.x hashes each port from the pod's uid (generate_hashed_ports_num):
 * the placement's, else a placeholder. */
static void put_port(struct gen *g, size_t r, size_t i, size_t k, long long n)
{
	unsigned v = 0;

	if (g->pl && g->pl->port)
		v = g->pl->port(g->pl->data, r, i, k, (size_t)n);
	if (v)
		pai__buf_printf(&g->val, "%u", v);
	else if (count_of(g->job, r, k) > 1)
		pai__buf_printf(&g->val, "<port:%s-%zu:%s#%lld>",
				role_name(g->job, r), i, label_of(g->job, r, k),
				n);
	else
		pai__buf_printf(&g->val, "<port:%s-%zu:%s>",
				role_name(g->job, r), i,
				label_of(g->job, r, k));
}

static void put_ports(struct gen *g, size_t r, size_t i, size_t k)
{
	long long n;

	for (n = 0; n < count_of(g->job, r, k); n++) {
		if (n)
			pai__buf_putc(&g->val, ',');
		put_port(g, r, i, k, n);
	}
}

/* task_ports[label][0] */
static void put_first(struct gen *g, size_t r, size_t i, const char *label)
{
	long k = label_index(g->job, r, label);

	if (k >= 0 && count_of(g->job, r, (size_t)k) > 0)
		put_port(g, r, i, (size_t)k, 0);
}

/* The framework's name (encodeName): computed when the user is known,
 * else a placeholder saying what it hashes. */
static void put_framework(struct gen *g)
{
	if (g->framework)
		pai__buf_puts(&g->val, g->framework);
	else
		pai__buf_printf(&g->val, "<md5:%s~%s>", g->user,
				g->job->name ? g->job->name : "");
}

static void gen_fc(struct gen *g, size_t r, size_t i)
{
	const char *role = role_name(g->job, r);

	var(g, "FC_FRAMEWORK_NAMESPACE", "default");
	put_framework(g);
	pai__buf_puts(&g->name, "FC_FRAMEWORK_NAME");
	emit(g);
	var(g, "FC_TASKROLE_NAME", g->conv[r]);
	pai__buf_printf(&g->val, "%zu", i);
	pai__buf_puts(&g->name, "FC_TASK_INDEX");
	emit(g);
	put_framework(g);
	pai__buf_puts(&g->val, "-attempt");
	pai__buf_puts(&g->name, "FC_CONFIGMAP_NAME");
	emit(g);
	put_framework(g);
	pai__buf_printf(&g->val, "-%s-%zu", g->conv[r], i);
	pai__buf_puts(&g->name, "FC_POD_NAME");
	emit(g);
	var(g, "FC_FRAMEWORK_UID", "<framework-uid>");
	var(g, "FC_FRAMEWORK_ATTEMPT_ID", "<framework-attempt-id>");
	var(g, "FC_FRAMEWORK_ATTEMPT_INSTANCE_UID",
	    "<framework-attempt-id>_<configmap-uid>");
	var(g, "FC_CONFIGMAP_UID", "<configmap-uid>");
	pai__buf_printf(&g->val, "<task-role-uid:%s>", role);
	pai__buf_puts(&g->name, "FC_TASKROLE_UID");
	emit(g);
	pai__buf_printf(&g->val, "<task-uid:%s-%zu>", role, i);
	pai__buf_puts(&g->name, "FC_TASK_UID");
	emit(g);
	pai__buf_printf(&g->val, "<task-attempt-id:%s-%zu>", role, i);
	pai__buf_puts(&g->name, "FC_TASK_ATTEMPT_ID");
	emit(g);
	/* v1.x reports the pod's uid as the task's containerId */
	put_placed(g, PLACED_CONTAINER_ID, r, i);
	pai__buf_puts(&g->name, "FC_POD_UID");
	emit(g);
	pai__buf_printf(&g->val, "<task-attempt-id:%s-%zu>_", role, i);
	put_placed(g, PLACED_CONTAINER_ID, r, i);
	pai__buf_puts(&g->name, "FC_TASK_ATTEMPT_INSTANCE_UID");
	emit(g);
}

/* One role's part of generateFrameworkEnv. */
static void gen_framework_role(struct gen *g, size_t r)
{
	json_t *spec = g->job->roles[r].spec;
	json_t *inst = json_object_get(spec, "instances");
	json_t *res = json_object_get(spec, "resourcePerInstance");
	json_t *eco = json_object_get(spec, "extraContainerOptions");
	json_t *comp = json_object_get(spec, "completion");
	json_t *v;
	const char *role = role_name(g->job, r);

	pai__buf_printf(&g->name, "PAI_TASK_ROLE_TASK_COUNT_%s", role);
	if (js_truthy(inst))
		js_string(&g->val, inst);
	else
		pai__buf_putc(&g->val, '1');
	emit(g);
	pai__buf_printf(&g->name, "PAI_RESOURCE_%s", role);
	js_join_elem(&g->val, json_object_get(res, "gpu"));
	pai__buf_putc(&g->val, ',');
	js_join_elem(&g->val, json_object_get(res, "cpu"));
	pai__buf_putc(&g->val, ',');
	js_join_elem(&g->val, json_object_get(res, "memoryMB"));
	pai__buf_putc(&g->val, ',');
	/* not the 512 MB the task gets without shmMB: the server's 0 */
	if (js_truthy(eco) && json_is_object(eco) &&
	    (v = json_object_get(eco, "shmMB")))
		js_join_elem(&g->val, v);
	else
		pai__buf_putc(&g->val, '0');
	emit(g);
	pai__buf_printf(&g->name, "PAI_MIN_FAILED_TASK_COUNT_%s", role);
	v = json_object_get(comp, "minFailedInstances");
	if (js_truthy(v))
		js_string(&g->val, v);
	else
		pai__buf_putc(&g->val, '1');
	emit(g);
	pai__buf_printf(&g->name, "PAI_MIN_SUCCEEDED_TASK_COUNT_%s", role);
	v = json_object_get(comp, "minSucceededInstances");
	if (js_truthy(v))
		js_string(&g->val, v);
	else if (js_truthy(inst))
		js_string(&g->val, inst);
	else
		pai__buf_putc(&g->val, '1');
	emit(g);
}

static void gen_framework(struct gen *g)
{
	size_t r, n = g->job->nroles;
	long long tasks = 0;
	pai__buf vc = PAI__BUF_INIT;
	char count[32];

	put_framework(g);
	pai__buf_puts(&g->name, "PAI_FRAMEWORK_NAME");
	emit(g);
	/* the rest-server's PAI_JOB_NAME is the framework's name, user~job */
	pai__buf_puts(&g->name, "PAI_JOB_NAME");
	pai__buf_printf(&g->val, "%s~%s", g->user,
			g->job->name ? g->job->name : "");
	emit(g);
	var(g, "PAI_USER_NAME", g->user);
	var(g, "PAI_DEFAULT_FS_URI", "");
	snprintf(count, sizeof(count), "%zu", n);
	var(g, "PAI_TASK_ROLE_COUNT", count);
	for (r = 0; r < n; r++)
		pai__buf_printf(&g->val, "%s%s", r ? "," : "",
				role_name(g->job, r));
	pai__buf_puts(&g->name, "PAI_TASK_ROLE_LIST");
	emit(g);
	var(g, "PAI_VIRTUAL_CLUSTER", vc_of(g->cfg, &vc));
	pai__buf_release(&vc);
	for (r = 0; r < n; r++) {
		gen_framework_role(g, r);
		tasks += g->job->roles[r].r.task_number;
	}
	var(g, "PAI_USERNAME", g->user);
	snprintf(count, sizeof(count), "%lld", tasks);
	var(g, "PAI_TASKS_NUM", count);
	var(g, "PAI_JOB_TASK_COUNT", count);
	snprintf(count, sizeof(count), "%zu", n);
	var(g, "PAI_TASK_ROLES_NUM", count);
	var(g, "PAI_JOB_TASK_ROLE_COUNT", count);
	for (r = 0; r < n; r++)
		pai__buf_printf(&g->val, "%s%s", r ? "," : "",
				role_name(g->job, r));
	pai__buf_puts(&g->name, "PAI_JOB_TASK_ROLE_LIST");
	emit(g);
}

/* A role that asks for no GPU: its tasks see no device. */
static bool cpu_only(const pai_job *job, size_t r)
{
	json_t *gpu = json_object_get(
	    json_object_get(job->roles[r].spec, "resourcePerInstance"), "gpu");

	return json_is_number(gpu) && json_number_value(gpu) == 0;
}

/* generateTaskRole's env of the app container. */
static void gen_task_role(struct gen *g, size_t r, size_t i)
{
	bool no_gpu = cpu_only(g->job, r);
	char idx[32];

	snprintf(idx, sizeof(idx), "%zu", i);
	var(g, "PAI_CURRENT_TASK_ROLE_NAME", role_name(g->job, r));
	var(g, "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", idx);
	var(g, "PAI_TASK_INDEX", idx);
	if (g->job->scheduler != PAI_SCHEDULER_HIVED) {
		if (no_gpu)
			var(g, "NVIDIA_VISIBLE_DEVICES", "none");
		return;
	}
	/* hived-computing-device-envs as deployed by default */
	if (no_gpu) {
		var(g, "NVIDIA_VISIBLE_DEVICES", "none");
		var(g, "HIVED_VISIBLE_DEVICES", "none");
		return;
	}
	pai__buf_printf(&g->val, "<gpus:%s-%zu>", role_name(g->job, r), i);
	pai__buf_puts(&g->name, "NVIDIA_VISIBLE_DEVICES");
	emit(g);
	pai__buf_printf(&g->val, "<gpus:%s-%zu>", role_name(g->job, r), i);
	pai__buf_puts(&g->name, "HIVED_VISIBLE_DEVICES");
	emit(g);
}

/* framework_parser.py's exports for the current task r, i. */
static void gen_current(struct gen *g, size_t r, size_t i)
{
	size_t k;

	put_placed(g, PLACED_IP, r, i);
	pai__buf_puts(&g->name, "PAI_CURRENT_CONTAINER_IP");
	emit(g);
	put_first(g, r, i, "http");
	pai__buf_puts(&g->name, "PAI_CURRENT_CONTAINER_PORT");
	emit(g);
	put_placed(g, PLACED_IP, r, i);
	pai__buf_puts(&g->name, "PAI_CONTAINER_HOST_IP");
	emit(g);
	put_first(g, r, i, "http");
	pai__buf_puts(&g->name, "PAI_CONTAINER_HOST_PORT");
	emit(g);
	put_first(g, r, i, "ssh");
	pai__buf_puts(&g->name, "PAI_CONTAINER_SSH_PORT");
	emit(g);
	for (k = 0; k < nports(g->job, r); k++) {
		pai__buf_printf(&g->name, "PAI_CONTAINER_HOST_%s_PORT_LIST",
				label_of(g->job, r, k));
		put_ports(g, r, i, k);
		emit(g);
	}
	/* each label followed by ';', the last one too */
	for (k = 0; k < nports(g->job, r); k++) {
		pai__buf_printf(&g->val, "%s:", label_of(g->job, r, k));
		put_ports(g, r, i, k);
		pai__buf_putc(&g->val, ';');
	}
	pai__buf_puts(&g->name, "PAI_CONTAINER_HOST_PORT_LIST");
	emit(g);
}

static void gen_runtime(struct gen *g, size_t r, size_t i)
{
	size_t q, t, k;

	put_placed(g, PLACED_WORK_DIR, r, i);
	pai__buf_puts(&g->name, "PAI_WORK_DIR");
	emit(g);
	for (q = 0; q < g->job->nroles && !g->err; q++) {
		const char *c = g->conv[q];
		pai__buf hosts = PAI__BUF_INIT;

		for (t = 0; t < tasks_of(g->job, q); t++) {
			bool cur = q == r && t == i;

			if (!g->full && !cur)
				continue;
			for (k = 0; k < nports(g->job, q); k++) {
				const char *l = label_of(g->job, q, k);

				pai__buf_printf(&g->name,
						"PAI_PORT_LIST_%s_%zu_%s", c, t,
						l);
				put_ports(g, q, t, k);
				emit(g);
				pai__buf_printf(&g->name, "PAI_%s_%zu_%s_PORT",
						c, t, l);
				put_ports(g, q, t, k);
				emit(g);
			}
			pai__buf_printf(&g->name, "PAI_HOST_IP_%s_%zu", c, t);
			put_placed(g, PLACED_IP, q, t);
			emit(g);
			if (t)
				pai__buf_putc(&hosts, ',');
			put_placed(g, PLACED_IP, q, t);
			pai__buf_putc(&g->val, ':');
			put_first(g, q, t, "http");
			pai__buf_put(&hosts, g->val.data ? g->val.data : "",
				     g->val.len);
			pai__buf_release(&g->val);
			if (cur)
				gen_current(g, r, i);
		}
		pai__buf_printf(&g->name, "PAI_TASK_ROLE_%s_HOST_LIST", c);
		pai__buf_put(&g->val, hosts.data ? hosts.data : "", hosts.len);
		if (hosts.oom)
			g->err = PAI_ENOMEM;
		pai__buf_release(&hosts);
		emit(g);
	}
	for (q = 0; g->full && q < g->job->nroles; q++)
		for (t = 0; t < tasks_of(g->job, q); t++)
			pai__buf_printf(&g->val, "%s%s:%zu", q || t ? "," : "",
					g->conv[q], t);
	pai__buf_puts(&g->name, "PAI_TASK_ROLE_INSTANCES");
	emit(g);
}

static void gen_release(struct gen *g)
{
	size_t r;

	for (r = 0; g->conv && r < g->job->nroles; r++)
		free(g->conv[r]);
	free(g->conv);
	free(g->framework);
	pai__buf_release(&g->name);
	pai__buf_release(&g->val);
	pai_env_free(g->env);
}

static int gen_init(struct gen *g, const pai_job *job,
		    const pai_expand_options *opts, bool full)
{
	size_t r;

	memset(g, 0, sizeof(*g));
	g->job = job;
	g->cfg = job->config;
	g->user = pai__opt_user(opts);
	if (opts && opts->user && *opts->user &&
	    !(g->framework = pai__v2_framework_name(
		  opts->user, job->name ? job->name : "")))
		return PAI_ENOMEM;
	g->pl = opts ? opts->placement : NULL;
	g->full = full;
	g->conv = calloc(job->nroles ? job->nroles : 1, sizeof(*g->conv));
	g->env = pai__env_new();
	if (!g->conv || !g->env)
		return PAI_ENOMEM;
	for (r = 0; r < job->nroles; r++)
		if (!(g->conv[r] = pai__v2_role_name(role_name(job, r))))
			return PAI_ENOMEM;
	return PAI_OK;
}

/* The whole environment of task (r, i), into g->env. */
static int gen_task(struct gen *g, size_t r, size_t i)
{
	gen_fc(g, r, i);
	gen_framework(g);
	gen_task_role(g, r, i);
	gen_runtime(g, r, i);
	return g->err;
}

/* The whole environment of task (role, index) and its command. */
static int expand_task(pai_env **out, const pai_job *job, size_t role,
		       size_t index, const pai_expand_options *opts)
{
	struct gen g;
	char *cmd = NULL;
	int err;

	*out = NULL;
	err = gen_init(&g, job, opts, true);
	if (!err)
		err = gen_task(&g, role, index);
	if (!err)
		err = entrypoint(&cmd, job, role, false);
	if (!err)
		err = pai__env_finish(g.env, cmd);
	if (err)
		goto out;
	*out = g.env;
	g.env = NULL;
out:
	free(cmd);
	gen_release(&g);
	return err;
}

/* The variables that differ between tasks: the role's own, the working
 * directory and the container's (gen_task_role, gen_current). */
static int expand_current(pai_env **out, const pai_job *job, size_t role,
			  size_t index, const pai_expand_options *opts)
{
	struct gen g;
	int err;

	*out = NULL;
	err = gen_init(&g, job, opts, true);
	if (!err) {
		gen_task_role(&g, role, index);
		put_placed(&g, PLACED_WORK_DIR, role, index);
		pai__buf_puts(&g.name, "PAI_WORK_DIR");
		emit(&g);
		gen_current(&g, role, index);
		err = g.err;
	}
	if (!err)
		err = pai__env_finish(g.env, "");
	if (!err) {
		*out = g.env;
		g.env = NULL;
	}
	gen_release(&g);
	return err;
}

/* ---- references nothing will define ------------------------------------- */

/* Where the text at index idx of a command string stands in the source:
 * exact for plain scalars and for quoted ones without escapes before it;
 * otherwise (escapes, block scalars) the next occurrence of the needle
 * after the previous one found; failing that, the value's start. */
static size_t locate(pai__src *src, const pai__pos *p, size_t idx,
		     const char *needle, size_t nlen, size_t *cursor)
{
	const char *t = src->text, *hit;
	size_t off, from;

	if (!p || p->off >= src->len)
		return PAI__NO_OFFSET;
	off = p->off;
	if (t[off] != '"' && t[off] != '\'' && t[off] != '|' && t[off] != '>' &&
	    off + idx + nlen <= src->len &&
	    memcmp(t + off + idx, needle, nlen) == 0)
		return off + idx;
	if ((t[off] == '"' || t[off] == '\'') &&
	    off + 1 + idx + nlen <= src->len &&
	    memcmp(t + off + 1 + idx, needle, nlen) == 0)
		return off + 1 + idx;
	from = *cursor > off ? *cursor : off;
	hit = from < src->len ? memmem(t + from, src->len - from, needle, nlen)
			      : NULL;
	if (!hit)
		return off;
	*cursor = (size_t)(hit - t) + nlen;
	return (size_t)(hit - t);
}

/* v0.x names a v1.x task does not have, and what it has instead. */
static const char *const v0_names[][2] = {
    {"PAI_DATA_DIR", NULL},
    {"PAI_OUTPUT_DIR", NULL},
    {"PAI_CODE_DIR", NULL},
    {"PAI_JOB_VC_NAME", "PAI_VIRTUAL_CLUSTER"},
    {"PAI_CONTAINER_ID", "FC_POD_UID"},
    {"PAI_TASK_ROLE_NAME", "PAI_CURRENT_TASK_ROLE_NAME"},
    {"PAI_TASK_ROLE_INDEX", "PAI_TASK_INDEX"},
    {"PAI_CURRENT_TASK_ROLE_TASK_COUNT", "PAI_TASK_ROLE_TASK_COUNT_<role>"},
    {"PAI_TASK_ROLE_NUM", "PAI_TASK_ROLE_TASK_COUNT_<role>"},
    {"PAI_CURRENT_TASK_ROLE_CPU_COUNT", "PAI_RESOURCE_<role>"},
    {"PAI_TASK_CPU_NUM", "PAI_RESOURCE_<role>"},
    {"PAI_CURRENT_TASK_ROLE_MEM_MB", "PAI_RESOURCE_<role>"},
    {"PAI_TASK_MEM_MB", "PAI_RESOURCE_<role>"},
    {"PAI_CURRENT_TASK_ROLE_SHM_MB", "PAI_RESOURCE_<role>"},
    {"PAI_CURRENT_TASK_ROLE_GPU_COUNT", "PAI_RESOURCE_<role>"},
    {"PAI_TASK_GPU_NUM", "PAI_RESOURCE_<role>"},
    {"PAI_RESOURCE", "PAI_RESOURCE_<role>"},
    {"PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT",
     "PAI_MIN_FAILED_TASK_COUNT_<role>"},
    {"PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT",
     "PAI_MIN_SUCCEEDED_TASK_COUNT_<role>"},
};

/* A decimal index at s[0..n) up to `stop` (a '_' or the end). */
static const char *index_at(const char *s, const char *end, size_t *idx)
{
	const char *p = s;
	size_t x = 0;

	while (p < end && *p >= '0' && *p <= '9' && p - s < 10)
		x = x * 10 + (size_t)(*p++ - '0');
	if (p == s || (*s == '0' && p - s > 1))
		return NULL;
	*idx = x;
	return p;
}

static bool starts(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || memcmp(*p, w, n) != 0)
		return false;
	*p += n;
	return true;
}

static bool label_is(const pai_job *job, size_t q, const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < nports(job, q); k++)
		if (strlen(label_of(job, q, k)) == n &&
		    memcmp(label_of(job, q, k), s, n) == 0)
			return true;
	return false;
}

/* Whether name is a per-task variable of role q spelt with `rn` as the
 * role's name: PAI_HOST_IP_<rn>_<i>, PAI_PORT_LIST_<rn>_<i>_<label>,
 * PAI_<rn>_<i>_<label>_PORT; sets *idx. */
static bool per_task(const pai_job *job, size_t q, const char *rn,
		     const char *name, size_t n, size_t *idx)
{
	const char *end = name + n, *p;
	size_t ln = strlen(rn);

	p = name;
	if (starts(&p, end, "PAI_HOST_IP_") && starts(&p, end, rn) &&
	    starts(&p, end, "_") && (p = index_at(p, end, idx)) && p == end)
		return true;
	p = name;
	if (starts(&p, end, "PAI_PORT_LIST_") && starts(&p, end, rn) &&
	    starts(&p, end, "_") && (p = index_at(p, end, idx)) &&
	    starts(&p, end, "_") && label_is(job, q, p, (size_t)(end - p)))
		return true;
	p = name;
	if (n > ln + 10 && starts(&p, end, "PAI_") && starts(&p, end, rn) &&
	    starts(&p, end, "_") && (p = index_at(p, end, idx)) &&
	    starts(&p, end, "_") && end - p > 5 &&
	    memcmp(end - 5, "_PORT", 5) == 0 &&
	    label_is(job, q, p, (size_t)(end - 5 - p)))
		return true;
	return false;
}

struct check {
	const pai_job *job;
	/* g->env: the names of task 0 of the first role with tasks, built
	 * once; those that differ from role to role are role_known()'s */
	struct gen *g;
	size_t r;
	pai_diags *diags;
	pai__src *src;
	size_t warned;
	const pai_env *given; /* names the tasks get from where they run */
};

/* The names whose presence depends on the role (gen_task_role's device
 * variable, gen_current's per-label port lists): 1 when role c->r's
 * tasks have name, 0 when not, -1 for any other name. */
static int role_known(const struct check *c, const char *name, size_t n)
{
	static const char dev[] = "NVIDIA_VISIBLE_DEVICES",
			  pre[] = "PAI_CONTAINER_HOST_", suf[] = "_PORT_LIST";
	size_t np = sizeof(pre) - 1, ns = sizeof(suf) - 1, k;

	if (n == sizeof(dev) - 1 && memcmp(name, dev, n) == 0)
		return c->job->scheduler == PAI_SCHEDULER_HIVED ||
		       cpu_only(c->job, c->r);
	if (n <= np + ns || memcmp(name, pre, np) != 0 ||
	    memcmp(name + n - ns, suf, ns) != 0)
		return -1;
	for (k = 0; k < nports(c->job, c->r); k++) {
		const char *l = label_of(c->job, c->r, k);

		if (strlen(l) == n - np - ns &&
		    memcmp(l, name + np, n - np - ns) == 0)
			return 1;
	}
	return 0;
}

/* A task of role c->r has name: in its environment, or a per-task name
 * of an existing task. */
static bool known(struct check *c, const char *name, size_t n)
{
	int own = role_known(c, name, n);
	size_t q, idx;

	if (own >= 0)
		return own;
	if (pai__env_has(c->g->env, name, n))
		return true;
	for (q = 0; q < c->job->nroles; q++)
		if (per_task(c->job, q, c->g->conv[q], name, n, &idx) &&
		    idx < tasks_of(c->job, q))
			return true;
	return false;
}

static void nearer(const char *name, size_t n, const char *k, size_t *best,
		   const char **found)
{
	size_t d = pai__edit_distance(name, n, k, strlen(k), *best - 1);

	if (d < *best) {
		*best = d;
		*found = k;
	}
}

static void hint_suggest(struct check *c, pai__buf *b, const char *name,
			 size_t n)
{
	size_t i, best = n < 4 ? 1 : n < 8 ? 2 : n < 16 ? 3 : 4;
	const char *found = NULL;

	if (n > MAX_SUGGEST_NAME)
		return;
	for (i = 0; i < pai_env_count(c->g->env); i++)
		nearer(name, n, pai_env_name(c->g->env, i), &best, &found);
	for (i = 0; i < pai_env_count(c->given); i++)
		nearer(name, n, pai_env_name(c->given, i), &best, &found);
	if (found)
		pai__buf_printf(b, " (did you mean $%s?)", found);
}

/* A v0.x variable's hint: what v1.x has instead. */
static bool hint_v0(pai__buf *b, const char *name, size_t n)
{
	size_t k;

	for (k = 0; k < sizeof(v0_names) / sizeof(v0_names[0]); k++) {
		if (strlen(v0_names[k][0]) != n ||
		    memcmp(v0_names[k][0], name, n) != 0)
			continue;
		if (v0_names[k][1])
			pai__buf_printf(b, " (a v0.x variable; v1.x has $%s)",
					v0_names[k][1]);
		else
			pai__buf_puts(b, " (a v0.x variable; v1.x has none)");
		return true;
	}
	return false;
}

/* Whether name is PAI_TASK_ROLE_<role>_HOST_LIST with role as written. */
static bool host_list_of(const char *name, size_t n, const char *role)
{
	size_t rn = strlen(role);

	return n == rn + 24 && memcmp(name, "PAI_TASK_ROLE_", 14) == 0 &&
	       memcmp(name + 14, role, rn) == 0 &&
	       memcmp(name + n - 10, "_HOST_LIST", 10) == 0;
}

/* A hint about role q: name is one of its tasks' past its last index,
 * spells the role as written rather than by its framework name, or is
 * a port list of a label only q's tasks have. */
static bool hint_role(struct check *c, pai__buf *b, size_t q, const char *name,
		      size_t n)
{
	const pai_job *job = c->job;
	const char *orig = role_name(job, q), *conv = c->g->conv[q];
	size_t k, idx, t = tasks_of(job, q);

	if (per_task(job, q, conv, name, n, &idx)) {
		if (t == 1)
			pai__buf_printf(b, " (role '%s' has 1 task, index 0)",
					orig);
		else
			pai__buf_printf(b,
					" (role '%s' has %zu tasks, indexes 0 "
					"to %zu)",
					orig, t, t ? t - 1 : 0);
		return true;
	}
	if (strcmp(orig, conv) != 0 && (per_task(job, q, orig, name, n, &idx) ||
					host_list_of(name, n, orig))) {
		pai__buf_printf(b,
				" (v1.x's runtime names role '%s' '%s' here, "
				"lower case and alphanumerics only)",
				orig, conv);
		return true;
	}
	for (k = 0; q != c->r && k < nports(job, q); k++) {
		const char *l = label_of(job, q, k);

		if (n == strlen(l) + 29 &&
		    memcmp(name, "PAI_CONTAINER_HOST_", 19) == 0 &&
		    memcmp(name + 19, l, strlen(l)) == 0 &&
		    memcmp(name + n - 10, "_PORT_LIST", 10) == 0 &&
		    label_index(job, c->r, l) < 0) {
			pai__buf_printf(
			    b, " (only the tasks of role '%s' have it)", orig);
			return true;
		}
	}
	return false;
}

/* Why the tasks lack name, as a parenthesis for the message. */
static void hint(struct check *c, pai__buf *b, const char *name, size_t n)
{
	size_t q;

	if (hint_v0(b, name, n))
		return;
	for (q = 0; q < c->job->nroles; q++)
		if (hint_role(c, b, q, name, n))
			return;
	hint_suggest(c, b, name, n);
}

/* ref's name points into blank, a copy of s->text with the same
 * offsets: the reference's own text, "$X" or "${X", is in s->text. */
static int warn_ref(struct check *c, const struct source *s, const char *blank,
		    const struct pai__cmd_ref *ref, size_t *cursor)
{
	pai__buf h = PAI__BUF_INIT;
	size_t nlen = (size_t)(ref->name - blank) - ref->at + ref->len;
	size_t off =
	    locate(c->src, s->pos, ref->at, s->text + ref->at, nlen, cursor);
	bool pai = ref->len > 4 && strncmp(ref->name, "PAI_", 4) == 0;
	int err;

	hint(c, &h, ref->name, ref->len);
	if (h.oom)
		return PAI_ENOMEM;
	if (pai)
		err = pai__diag_add(c->diags, c->src, off, PAI_SEVERITY_WARNING,
				    s->path.data, "unknown-pai-variable",
				    "$%.*s is not in the environment of the "
				    "tasks of role '%s' on OpenPAI v1.x%s",
				    (int)ref->len, ref->name,
				    role_name(c->job, c->r),
				    h.data ? h.data : "");
	else
		err = pai__diag_add(c->diags, c->src, off, PAI_SEVERITY_WARNING,
				    s->path.data, "unknown-variable",
				    "$%.*s is set by neither the cluster nor "
				    "the commands: only the image could "
				    "provide it%s",
				    (int)ref->len, ref->name,
				    h.data ? h.data : "");
	pai__buf_release(&h);
	return err;
}

/* The template tags of one command that nothing resolves. */
struct tmpl_check {
	struct view *v;
	char **miss;
	size_t n, cap;
	int err;
};

static int check_lookup(void *data, const char *name, size_t n, pai__buf *out)
{
	struct tmpl_check *t = data;
	char *m;

	if (server_lookup(t->v, name, n, out))
		return 1;
	if (secret_exists(t->v, name, n) && py_truthy(t->v->secrets))
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		char **v = realloc(t->miss, cap * sizeof(*v));

		if (!v) {
			t->err = PAI_ENOMEM;
			return 0;
		}
		t->miss = v;
		t->cap = cap;
	}
	m = strndup(name, n);
	if (!m)
		t->err = PAI_ENOMEM;
	else
		t->miss[t->n++] = m;
	return 0;
}

/* Whether the tag text t[0..n) names `name` once "[N]" reads ".N", as
 * the server reads it. */
static bool tag_names(const char *t, size_t n, const char *name)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (t[i] == '[') {
			for (j = i + 1; j < n && t[j] >= '0' && t[j] <= '9';
			     j++)
				;
			if (j > i + 1 && j < n && t[j] == ']') {
				if (*name++ != '.' ||
				    strncmp(name, t + i + 1, j - i - 1) != 0)
					return false;
				name += j - i - 1;
				i = j;
				continue;
			}
		}
		if (*name++ != t[i])
			return false;
	}
	return *name == '\0';
}

/* The offset of the tag of a missed name, from *cursor on (0 when not
 * found): "<%", spaces, the name, spaces, "%>". */
static size_t tag_at(const char *s, const char *name, size_t *cursor)
{
	const char *p, *q, *e;

	for (p = s + *cursor; (p = strstr(p, "<%")); p += 2) {
		q = p + 2;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!(e = strstr(q, "%>")))
			break;
		while (e > q && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (tag_names(q, (size_t)(e - q), name)) {
			*cursor = (size_t)(p - s) + 2;
			return (size_t)(p - s);
		}
	}
	return 0;
}

static int check_templates(struct check *c, struct view *v,
			   const struct source *s)
{
	struct tmpl_check t = {v, NULL, 0, 0, 0};
	pai__buf out = PAI__BUF_INIT;
	size_t i, cur = 0, scur = 0, at, off;
	bool secrets = py_truthy(v->secrets);
	int err = PAI_OK;

	if (pai__tmpl_render(&out, s->text, strlen(s->text), check_lookup, &t) <
	    0)
		goto out; /* the validator reports what does not parse */
	err = out.oom ? PAI_ENOMEM : t.err;
	for (i = 0; !err && i < t.n; i++) {
		bool is_secret = strncmp(t.miss[i], "$secrets", 8) == 0;

		at = tag_at(s->text, t.miss[i], &cur);
		off = locate(c->src, s->pos, at, s->text + at, 2, &scur);
		if (is_secret && secrets)
			err = pai__diag_add(
			    c->diags, c->src, off, PAI_SEVERITY_WARNING,
			    s->path.data, "unknown-template-reference",
			    "'<%% %s %%>': the job's secrets have no such "
			    "entry; the runtime renders it as an empty string",
			    t.miss[i]);
		else if (is_secret)
			err = pai__diag_add(
			    c->diags, c->src, off, PAI_SEVERITY_WARNING,
			    s->path.data, "unknown-template-reference",
			    "'<%% %s %%>': the job has no secrets; the tag "
			    "stays in the command as written",
			    t.miss[i]);
		else
			err = pai__diag_add(
			    c->diags, c->src, off, PAI_SEVERITY_WARNING,
			    s->path.data, "unknown-template-reference",
			    "'<%% %s %%>' names nothing the server defines; %s",
			    t.miss[i],
			    secrets
				? "the runtime renders it as an empty "
				  "string"
				: "the tag stays in the command as written");
	}
out:
	for (i = 0; i < t.n; i++)
		free(t.miss[i]);
	free(t.miss);
	pai__buf_release(&out);
	return err;
}

/* A copy of text with each "<% ... %>" tag turned into x's, so that the
 * shell scan sees a word where the template stands, at the same offsets. */
static char *blank_tags(const char *text)
{
	char *s = strdup(text), *p, *q;

	if (!s)
		return NULL;
	for (p = s; (p = strstr(p, "<%"));) {
		q = strstr(p + 2, "%>");
		q = q ? q + 2 : p + strlen(p);
		memset(p, 'x', (size_t)(q - p));
		p = q;
	}
	return s;
}

/* What the scan of one command source found. */
struct scanned {
	char *blank; /* the source's text with its tags blanked */
	struct pai__cmd_ref *refs;
	size_t nrefs;
	size_t cursor; /* where locate() looks on from */
};

/* Scans each source of the role (the names any command assigns count
 * for all: a preCommand's export is there for the commands), and checks
 * its templates. */
static int scan_sources(struct check *c, struct view *v,
			const struct sources *s, struct scanned *sc,
			pai_env *assigned)
{
	size_t i;
	int err;

	for (i = 0; i < s->n; i++) {
		if (!(sc[i].blank = blank_tags(s->v[i].text)))
			return PAI_ENOMEM;
		err = pai__command_refs(&sc[i].refs, &sc[i].nrefs, assigned,
					sc[i].blank, strlen(sc[i].blank));
		if (!err)
			err = check_templates(c, v, &s->v[i]);
		if (err)
			return err;
	}
	return PAI_OK;
}

/* Warns about the references the role's tasks will not have, at most
 * MAX_REF_WARNINGS of them. */
static int warn_unknown(struct check *c, const struct sources *s,
			struct scanned *sc, const pai_env *assigned)
{
	size_t i, j;
	int err;

	for (i = 0; i < s->n; i++) {
		for (j = 0; j < sc[i].nrefs && c->warned < MAX_REF_WARNINGS;
		     j++) {
			const struct pai__cmd_ref *r = &sc[i].refs[j];
			bool pai =
			    r->len > 4 && strncmp(r->name, "PAI_", 4) == 0;

			if (known(c, r->name, r->len) ||
			    pai__env_has(c->given, r->name, r->len) ||
			    pai__env_has(assigned, r->name, r->len) ||
			    (!pai && pai__is_shell_var(r->name, r->len)))
				continue;
			c->warned++;
			err = warn_ref(c, &s->v[i], sc[i].blank, r,
				       &sc[i].cursor);
			if (err)
				return err;
		}
	}
	return PAI_OK;
}

static int check_role(struct check *c, const pai__pos *pos)
{
	pai_env *assigned = pai__env_new();
	struct scanned *sc = NULL;
	struct sources s;
	struct view v;
	size_t i;
	int err;

	view_init(&v, c->job, c->r);
	err = role_sources(&s, c->job, c->r, pos);
	if (err) {
		pai_env_free(assigned);
		return err;
	}
	sc = calloc(s.n + 1, sizeof(*sc));
	err = !assigned || !sc ? PAI_ENOMEM
			       : scan_sources(c, &v, &s, sc, assigned);
	if (!err)
		err = warn_unknown(c, &s, sc, assigned);
	for (i = 0; sc && i < s.n; i++) {
		free(sc[i].refs);
		free(sc[i].blank);
	}
	free(sc);
	json_decref(v.tmp);
	pai_env_free(assigned);
	sources_release(&s);
	return err;
}

static int check_references(pai_diags *diags, pai__src *src,
			    const pai__pos *pos, const pai_job *job,
			    const pai_env *given)
{
	struct check c;
	struct gen g;
	size_t r;
	int err;

	for (r = 0; r < job->nroles; r++)
		if (tasks_of(job, r))
			break;
	if (r == job->nroles)
		return PAI_OK;
	memset(&c, 0, sizeof(c));
	c.job = job;
	c.given = given;
	c.diags = diags;
	c.src = src;
	c.g = &g;
	/* one environment for all roles: building one per role would cost
	 * roles x tasks, seconds for a job of thousands of roles */
	err = gen_init(&g, job, NULL, false);
	if (!err)
		err = gen_task(&g, r, 0);
	for (r = 0; !err && r < job->nroles; r++) {
		if (!tasks_of(job, r))
			continue;
		c.r = r;
		c.warned = 0;
		err = check_role(&c, pos);
	}
	gen_release(&g);
	return err;
}

/* The rest-server's entrypoint with the job's secrets in place. */
static int role_entrypoint(char **out, const pai_job *job, size_t role)
{
	return entrypoint(out, job, role, true);
}

/* The same as expand_task() shows it: the secrets masked. */
static int shown_entrypoint(char **out, const pai_job *job, size_t role)
{
	return entrypoint(out, job, role, false);
}

const struct pai__runtime pai__runtime_v1x = {
    .expand_task = expand_task,
    .expand_current = expand_current,
    .entrypoint = role_entrypoint,
    .shown_command = shown_entrypoint,
    .check_references = check_references,
};
