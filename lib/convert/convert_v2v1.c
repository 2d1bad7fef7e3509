/* convert_v2v1.c - a protocol-v2 job as a v1 JSON config: the inverse of
 * OpenPAI's converter where v1 can say the same, and a refusal, with its
 * place, for each construct it cannot. */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

struct v2v1 {
	pai__src *src;
	const pai__pos *pos;
	json_t *root, *v1;
	pai_diags *diags;
	json_t *deployment; /* the default deployment's taskRoles, or NULL */
	int refused;
	int ssh_plugin; /* extras' runtime plugins are SSH only: left out */
};

static size_t off_of(const pai__pos *at)
{
	return at ? at->off : PAI__NO_OFFSET;
}

static const pai__pos *member(const pai__pos *p, const char *k)
{
	return p ? pai__pos_member(p, k) : NULL;
}

#define REFUSE(c, at, path, ...)                                               \
	((c)->refused = 1,                                                     \
	 pai__diag_add((c)->diags, (c)->src, off_of(at), PAI_SEVERITY_ERROR,   \
		       path, PAI__RULE_NO_V1, __VA_ARGS__))

#define WARN(c, at, path, rule, ...)                                           \
	pai__diag_add((c)->diags, (c)->src, off_of(at), PAI_SEVERITY_WARNING, \
		      path, rule, __VA_ARGS__)

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v) ? PAI_ENOMEM : PAI_OK;
}

/* ---- templates ---------------------------------------------------------- */

/* A value as JavaScript's `result += value` writes it. */
static void put_js(pai__buf *b, json_t *v)
{
	size_t i;
	json_t *e;
	char *s;

	switch (json_typeof(v)) {
	case JSON_STRING: pai__buf_puts(b, json_string_value(v)); break;
	case JSON_OBJECT: pai__buf_puts(b, "[object Object]"); break;
	case JSON_NULL: break;
	case JSON_ARRAY:
		json_array_foreach(v, i, e)
		{
			if (i)
				pai__buf_putc(b, ',');
			put_js(b, e);
		}
		break;
	default:
		s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		pai__buf_puts(b, s ? s : "");
		free(s);
	}
}

/* mustache's Context.lookup of a dotted name in the rest-server's view. */
static json_t *lookup(json_t *view, const char *name)
{
	char *dup = strdup(name), *part, *save = NULL;
	json_t *v = view;

	if (!dup)
		return NULL;
	for (part = strtok_r(dup, ".", &save); part && v;
	     part = strtok_r(NULL, ".", &save)) {
		char *end;
		unsigned long i = strtoul(part, &end, 10);

		v = json_is_object(v)  ? json_object_get(v, part)
		    : json_is_array(v) && !*end ? json_array_get(v, i)
						: NULL;
	}
	free(dup);
	return v;
}

/* Renders text as the rest-server's render() does: name tags by lookup,
 * unknown ones left as "<% name %>". Other tags (sections, partials...)
 * the server drops silently: v1 cannot say that, so they are refused. */
static int render(struct v2v1 *c, pai__buf *b, const char *t, json_t *view,
		  const pai__pos *at, const char *path)
{
	const char *p = t, *o, *e;

	while ((o = strstr(p, "<%")) != NULL) {
		pai__buf n = PAI__BUF_INIT;
		const char *s = o + 2;
		json_t *v;
		size_t i;

		pai__buf_put(b, p, (size_t)(o - p));
		e = strstr(s, "%>");
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!e || strchr("#^/>{&=!", *s))
			return REFUSE(c, at, path,
				      "a template tag other than <%% name %%> "
				      "has no v1 equivalent")
			    ? PAI_ENOMEM
			    : PAI_OK;
		for (i = 0; s + i < e; i++) {
			if (s[i] == '[')
				pai__buf_putc(&n, '.');
			else if (s[i] != ']')
				pai__buf_putc(&n, s[i]);
		}
		while (n.len && strchr(" \t\n", n.data[n.len - 1]))
			n.data[--n.len] = '\0';
		v = n.data ? lookup(view, n.data) : NULL;
		if (v && !json_is_null(v))
			put_js(b, v);
		else
			pai__buf_printf(b, "<%% %s %%>", n.data ? n.data : "");
		pai__buf_release(&n);
		p = e + 2;
	}
	pai__buf_puts(b, p);
	return PAI_OK;
}

/* Where role `name`, number i, stands: taskRoles may be a list. */
static const pai__pos *role_pos(struct v2v1 *c, const char *name, size_t i)
{
	const pai__pos *tp = member(c->pos, "taskRoles");

	if (json_is_array(json_object_get(c->root, "taskRoles")))
		return tp ? pai__pos_index(tp, i) : NULL;
	return member(tp, name);
}

/* ---- prerequisites ------------------------------------------------------ */

/* The prerequisite of `type` named `name`, and its index. */
static json_t *prereq(struct v2v1 *c, const char *type, const char *name,
		      size_t *idx)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(c->root, "prerequisites"), i, p)
	{
		const char *t = json_string_value(json_object_get(p, "type"));
		const char *n = json_string_value(json_object_get(p, "name"));

		if (t && n && name && !strcmp(t, type) && !strcmp(n, name)) {
			*idx = i;
			return p;
		}
	}
	return NULL;
}

static const pai__pos *prereq_pos(struct v2v1 *c, size_t i)
{
	const pai__pos *ps = member(c->pos, "prerequisites");

	return ps ? pai__pos_index(ps, i) : NULL;
}

/* The v1 value one prerequisite of a role gives (an image or a dir). */
static int prereq_value(struct v2v1 *c, const char *type, json_t *p,
			size_t i, json_t **val)
{
	const pai__pos *pp = prereq_pos(c, i);
	json_t *uri = json_object_get(p, "uri");
	const char *key;
	json_t *v;

	*val = NULL;
	json_object_foreach(p, key, v)
	{
		if (!strcmp(key, "name") || !strcmp(key, "type") ||
		    !strcmp(key, "uri") || !strcmp(key, "description") ||
		    !strcmp(key, "contributor") || !strcmp(key, "version") ||
		    !strcmp(key, "protocolVersion"))
			continue;
		if (REFUSE(c, member(pp, key), "prerequisites",
			   "the %s prerequisite's '%s' (credentials, plugins) "
			   "has no v1 equivalent",
			   type, key))
			return PAI_ENOMEM;
		return PAI_OK;
	}
	if (json_is_array(uri)) {
		if (json_array_size(uri) != 1)
			return REFUSE(c, member(pp, "uri"), "prerequisites",
				      "a data prerequisite with %zu URIs: v1 "
				      "has one dataDir",
				      json_array_size(uri))
			    ? PAI_ENOMEM
			    : PAI_OK;
		uri = json_array_get(uri, 0);
	}
	*val = uri;
	return PAI_OK;
}

/* One of image, dataDir, outputDir, codeDir: the same for every role
 * that names one, as v1 has one per job. */
static int job_level(struct v2v1 *c, json_t *roles, const char *field,
		     const char *type, const char *v1key)
{
	const char *rname, *first = NULL;
	json_t *r, *val = NULL;
	size_t i, k = 0;
	int err = PAI_OK;

	json_object_foreach(roles, rname, r)
	{
		const char *pn = json_string_value(json_object_get(r, field));
		const pai__pos *rp = role_pos(c, rname, k++);
		json_t *p, *v;

		if (!pn)
			continue;
		p = prereq(c, type, pn, &i);
		if (!p || (err = prereq_value(c, type, p, i, &v)) || !v)
			continue;
		if (val && !json_equal(val, v)) {
			if (REFUSE(c, member(rp, field), "taskRoles",
				   "roles '%s' and '%s' use different %s "
				   "prerequisites: v1 has one %s per job",
				   first, rname, type, v1key))
				return PAI_ENOMEM;
			continue;
		}
		val = v;
		first = rname;
	}
	if (!err && val)
		err = set(c->v1, v1key, json_incref(val));
	return err;
}

/* ---- deployments -------------------------------------------------------- */

/* preCommands the v1 cluster does itself: what the converter (and
 * convert_v1v2.c) writes. */
static int known_pre(json_t *params, const char *cmd)
{
	static const char warning[] =
	    "echo \"[WARNING] Compatibility mode for v1 job, please use "
	    "protocol config instead.\"";
	static const char *const fixed[] = {
	    warning,
	    "export PAI_DATA_DIR=<% $data.uri[0] %>",
	    "export PAI_OUTPUT_DIR=<% $output.uri %>",
	    "export PAI_CODE_DIR=<% $script.uri %>"};
	const char *key;
	json_t *v;
	size_t i;
	int hit = 0;

	for (i = 0; i < 4; i++)
		if (!strcmp(cmd, fixed[i]))
			return 1;
	json_object_foreach(params, key, v)
	{
		pai__buf q = PAI__BUF_INIT, raw = PAI__BUF_INIT;
		char *s = pai__env_string(v);

		if (!s)
			return 0;
		pai__buf tag = PAI__BUF_INIT;

		pai__buf_printf(&raw, "export %s=%s", key, s);
		pai__buf_printf(&q, "export %s=", key);
		pai__shell_quote(&q, s);
		/* the parameter itself, rendered by the server */
		pai__buf_printf(&tag, "export %s=<%% $parameters.%s %%>", key,
				key);
		hit = (q.data && !strcmp(cmd, q.data)) ||
		      (raw.data && !strcmp(cmd, raw.data)) ||
		      (tag.data && !strcmp(cmd, tag.data));
		pai__buf_release(&tag);
		free(s);
		pai__buf_release(&q);
		pai__buf_release(&raw);
		if (hit)
			return 1;
	}
	return 0;
}

/* ---- task roles --------------------------------------------------------- */

static json_int_t ival(json_t *o, const char *k, json_int_t dflt)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) && json_integer_value(v)
		   ? json_integer_value(v)
		   : dflt;
}

/* v2's falsy minFailedInstances is 1 and -1 FrameworkController's
 * "never" (v1 null); a falsy or -1 minSucceededInstances means all tasks
 * (v1 null). */
static int role_completion(struct v2v1 *c, json_t *spec, json_t *r,
			   const pai__pos *rp, json_int_t n, const char *path)
{
	json_t *comp = json_object_get(spec, "completion");
	const pai__pos *cp = member(rp, "completion");
	json_int_t mf = ival(comp, "minFailedInstances", 1);
	json_int_t ms = ival(comp, "minSucceededInstances", -1);
	int err;

	if (mf > n || mf < -1)
		return REFUSE(c, member(cp, "minFailedInstances"), path,
			      "minFailedInstances %" JSON_INTEGER_FORMAT
			      " is not between 1 and the instances (%" JSON_INTEGER_FORMAT
			      "), or -1, as v1 needs",
			      mf, n);
	if (ms > n || ms < -1)
		return REFUSE(c, member(cp, "minSucceededInstances"), path,
			      "minSucceededInstances %" JSON_INTEGER_FORMAT
			      " is not between 1 and the instances (%" JSON_INTEGER_FORMAT
			      "), as v1 needs",
			      ms, n);
	err = set(r, "minFailedTaskCount",
		  mf == -1 ? json_null() : json_integer(mf));
	if (!err)
		err = set(r, "minSucceededTaskCount",
			  ms == -1 ? json_null() : json_integer(ms));
	return err;
}

/* Keys of a role that v1 has no room for. */
static int role_extras(struct v2v1 *c, json_t *spec, const pai__pos *rp,
		       const char *path)
{
	json_t *eco = json_object_get(spec, "extraContainerOptions"), *v;
	const char *key;

	json_object_foreach(eco, key, v)
	{
		if (strcmp(key, "shmMB") &&
		    REFUSE(c, member(member(rp, "extraContainerOptions"), key),
			   path, "extraContainerOptions.%s has no v1 "
				 "equivalent", key))
			return PAI_ENOMEM;
	}
	if (ival(spec, "taskRetryCount", 0) &&
	    REFUSE(c, member(rp, "taskRetryCount"), path,
		   "taskRetryCount has no v1 equivalent (v1 retries whole "
		   "jobs: retryCount)"))
		return PAI_ENOMEM;
	if (json_array_size(json_object_get(spec, "prerequisites")) &&
	    REFUSE(c, member(rp, "prerequisites"), path,
		   "a role's prerequisites list (plugins) has no v1 "
		   "equivalent"))
		return PAI_ENOMEM;
	return PAI_OK;
}

/* resourcePerInstance, with v1's lower bounds checked here: what the
 * conversion writes must validate. */
static int role_resources(struct v2v1 *c, json_t *spec, json_t *r,
			  const pai__pos *rp, const char *path)
{
	static const char *const map[][3] = {{"cpu", "cpuNumber", "1"},
					     {"memoryMB", "memoryMB", "100"},
					     {"gpu", "gpuNumber", "0"}};
	json_t *res = json_object_get(spec, "resourcePerInstance");
	json_t *eco = json_object_get(spec, "extraContainerOptions");
	const pai__pos *resp = member(rp, "resourcePerInstance");
	json_int_t mem = ival(res, "memoryMB", 0), shm = ival(eco, "shmMB", 512);
	size_t i;
	int err = PAI_OK;

	for (i = 0; i < 3 && !err; i++) {
		json_int_t v = json_integer_value(json_object_get(res, map[i][0]));

		if (v < atoi(map[i][2]))
			err = REFUSE(c, member(resp, map[i][0]), path,
				     "%s %" JSON_INTEGER_FORMAT
				     ": v1's %s must be at least %s",
				     map[i][0], v, map[i][1], map[i][2])
				  ? PAI_ENOMEM
				  : PAI_OK;
		else
			err = set(r, map[i][1], json_integer(v));
	}
	if (!err && shm > mem && !ival(eco, "shmMB", 0)) {
		/* v2's default, not the user's choice: the most v1 allows */
		err = WARN(c, member(rp, "resourcePerInstance"), path,
			   PAI__RULE_DROPPED,
			   "v2's default shared memory of 512 MB is more than "
			   "memoryMB; the v1 role gets shmMB %" JSON_INTEGER_FORMAT,
			   mem)
			  ? PAI_ENOMEM
			  : PAI_OK;
		shm = mem;
	} else if (!err && shm > mem)
		err = REFUSE(c, member(member(rp, "extraContainerOptions"), "shmMB"),
			     path, "shmMB %" JSON_INTEGER_FORMAT " is more than "
			     "memoryMB: v1 refuses it",
			     shm)
			  ? PAI_ENOMEM
			  : PAI_OK;
	if (!err)
		err = set(r, "shmMB", json_integer(shm));
	return err;
}

static int role_ports(json_t *spec, json_t *r)
{
	json_t *ports = json_object_get(
	    json_object_get(spec, "resourcePerInstance"), "ports");
	json_t *list, *v;
	const char *label;

	if (!json_is_object(ports) || !json_object_size(ports))
		return PAI_OK;
	list = json_array();
	if (!list || set(r, "portList", list))
		return PAI_ENOMEM;
	json_object_foreach(ports, label, v)
	{
		if (json_array_append_new(
			list, json_pack("{s:s, s:i, s:O}", "label", label,
					"beginAt", 0, "portNumber", v)))
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* Appends the commands of list to j, each trimmed, one a line; with
 * params, not the preCommands the v1 cluster does itself (known_pre). */
static void put_commands(pai__buf *j, size_t *n, json_t *list,
			 json_t *params)
{
	const char *s;
	json_t *cmd;
	size_t i, e;

	json_array_foreach(list, i, cmd)
	{
		s = json_string_value(cmd);
		if (!s || (params && known_pre(params, s)))
			continue;
		s += strspn(s, " \t\n\r\f\v");
		for (e = strlen(s); e && strchr(" \t\n\r\f\v", s[e - 1]); e--)
			;
		if ((*n)++)
			pai__buf_putc(j, '\n');
		pai__buf_put(j, s, e);
	}
}

/* The command: as the rest-server builds the entrypoint, the default
 * deployment's preCommands, the role's commands and its postCommands,
 * each trimmed, joined by newlines and rendered, so that the v1 task
 * runs what the v2 task would. The preCommands that export jobEnvs and
 * dirs are left to the v1 cluster, which sets those itself. */
static int role_command(struct v2v1 *c, const char *rname, json_t *spec,
			json_t *r, const pai__pos *rp, const char *path)
{
	pai__buf j = PAI__BUF_INIT, out = PAI__BUF_INIT;
	json_t *dep = json_object_get(c->deployment, rname), *view, *p;
	json_t *params = json_object_get(c->root, "parameters");
	const char *s;
	size_t i, k, e, n = 0;
	int err;

	put_commands(&j, &n, json_object_get(dep, "preCommands"),
		     params ? params : json_null());
	put_commands(&j, &n, json_object_get(spec, "commands"), NULL);
	put_commands(&j, &n, json_object_get(dep, "postCommands"), NULL);
	view = json_pack("{s:O}", "$parameters",
			 json_object_get(c->root, "parameters")
			     ? json_object_get(c->root, "parameters")
			     : json_null());
	if (view) {
		static const char *const t[] = {"data", "output", "script"};

		for (i = 0; i < 3; i++) {
			char key[16];

			p = prereq(c, t[i], json_string_value(json_object_get(
						spec, t[i])), &k);
			snprintf(key, sizeof(key), "$%s", t[i]);
			if (p)
				json_object_set(view, key, p);
		}
	}
	err = view && !j.oom ? render(c, &out, j.data ? j.data : "", view,
				      member(rp, "commands"), path)
			     : PAI_ENOMEM;
	s = out.data ? out.data : "";
	s += strspn(s, " \t\n\r\f\v");
	for (e = strlen(s); e && strchr(" \t\n\r\f\v", s[e - 1]); e--)
		;
	if (!err && e == 0)
		err = REFUSE(c, member(rp, "commands"), path,
			     "role '%s' has an empty command: v1 needs one",
			     rname)
			  ? PAI_ENOMEM
			  : PAI_OK;
	if (!err)
		err = set(r, "command", json_stringn(s, e));
	json_decref(view);
	pai__buf_release(&j);
	pai__buf_release(&out);
	return err;
}

static int role(struct v2v1 *c, json_t *roles, const char *rname,
		json_t *spec, size_t idx)
{
	const pai__pos *rp = role_pos(c, rname, idx);
	json_t *r = json_object();
	json_int_t n = ival(spec, "instances", 1);
	char path[300];
	int err;

	snprintf(path, sizeof(path), "taskRoles.%s", rname);
	if (!r || json_array_append_new(roles, r))
		return PAI_ENOMEM;
	err = set(r, "name", json_string(rname));
	if (!err)
		err = set(r, "taskNumber", json_integer(n));
	if (!err)
		err = role_resources(c, spec, r, rp, path);
	if (!err)
		err = role_ports(spec, r);
	if (!err)
		err = role_command(c, rname, spec, r, rp, path);
	if (!err)
		err = role_completion(c, spec, r, rp, n, path);
	if (!err)
		err = role_extras(c, spec, rp, path);
	return err;
}

/* ---- the job ------------------------------------------------------------ */

#define RUNTIME_PLUGINS "com.microsoft.pai.runtimeplugin"

/* A runtime plugin list of the ssh plugin only: a v0.x cluster gives
 * every job SSH into its tasks, with a key pair of the job's own. */
static bool ssh_only(json_t *plugins)
{
	json_t *p;
	size_t i;

	if (!json_is_array(plugins) || !json_array_size(plugins))
		return false;
	json_array_foreach(plugins, i, p)
	{
		const char *name = json_string_value(json_object_get(p, "plugin"));

		if (!name || strcmp(name, "ssh") != 0)
			return false;
	}
	return true;
}

/* Top-level fields with no v1 place: metadata goes with a warning, and so
 * does the ssh runtime plugin; secrets and scheduler or other plugin
 * extras are refused. */
static int top_checks(struct v2v1 *c)
{
	static const char *const meta[] = {"version", "contributor",
					   "description"};
	static const char *const ex_refused[] = {"hivedScheduler",
						 RUNTIME_PLUGINS, "storages"};
	json_t *ex = json_object_get(c->root, "extras");
	json_t *sec = json_object_get(c->root, "secrets");
	size_t i;

	for (i = 0; i < 3; i++)
		if (json_object_get(c->root, meta[i]) &&
		    pai__diag_add(c->diags, c->src,
				  off_of(member(c->pos, meta[i])),
				  PAI_SEVERITY_WARNING, meta[i],
				  PAI__RULE_DROPPED,
				  "v1 configs have no %s; it is dropped",
				  meta[i]))
			return PAI_ENOMEM;
	if (json_is_object(sec) && json_object_size(sec) &&
	    REFUSE(c, member(c->pos, "secrets"), "secrets",
		   "secrets have no v1 equivalent"))
		return PAI_ENOMEM;
	c->ssh_plugin = ssh_only(json_object_get(ex, RUNTIME_PLUGINS));
	if (c->ssh_plugin &&
	    WARN(c, member(member(c->pos, "extras"), RUNTIME_PLUGINS), "extras",
		 PAI__RULE_DROPPED,
		 "the ssh runtime plugin is left out: a v0.x cluster gives "
		 "every job SSH with a key pair of its own (keys of "
		 "'userssh' are not carried over)"))
		return PAI_ENOMEM;
	for (i = 0; i < 3; i++)
		if (json_object_get(ex, ex_refused[i]) &&
		    !(i == 1 && c->ssh_plugin) &&
		    REFUSE(c, member(member(c->pos, "extras"), ex_refused[i]),
			   "extras", "extras.%s has no v1 equivalent%s",
			   ex_refused[i],
			   i == 0 ? " (HiveD's SKU, cell and priority "
				    "choices): remove it to convert"
				  : ""))
			return PAI_ENOMEM;
	return PAI_OK;
}

/* The default deployment (defaults.deployment) is the only one the
 * server uses; the others are dropped. */
static int find_deployment(struct v2v1 *c)
{
	const char *dn = json_string_value(
	    json_object_get(json_object_get(c->root, "defaults"), "deployment"));
	const pai__pos *dsp = member(c->pos, "deployments");
	json_t *d;
	size_t i;

	json_array_foreach(json_object_get(c->root, "deployments"), i, d)
	{
		const char *n = json_string_value(json_object_get(d, "name"));
		const pai__pos *dp = dsp ? pai__pos_index(dsp, i) : NULL;

		if (dn && n && !strcmp(n, dn)) {
			c->deployment = json_object_get(d, "taskRoles");
		} else if (pai__diag_add(c->diags, c->src, off_of(dp),
					 PAI_SEVERITY_WARNING, "deployments",
					 PAI__RULE_DROPPED,
					 "deployment '%s' is not the default "
					 "one and is never used; dropped",
					 n ? n : "")) {
			return PAI_ENOMEM;
		}
	}
	return PAI_OK;
}

/* taskRoles as an object, also when the config gives a list. */
static json_t *roles_object(json_t *root)
{
	json_t *tr = json_object_get(root, "taskRoles"), *o, *v;
	char num[32];
	size_t i;

	if (!json_is_array(tr))
		return json_incref(tr);
	o = json_object();
	json_array_foreach(tr, i, v)
	{
		snprintf(num, sizeof(num), "%zu", i);
		if (o && json_object_set(o, num, v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static int fill(struct v2v1 *c, json_t *roles)
{
	json_t *defs = json_object_get(c->root, "defaults"), *spec, *list;
	json_t *params = json_object_get(c->root, "parameters");
	json_t *ex = json_object_get(c->root, "extras");
	const char *vc = json_string_value(json_object_get(defs, "virtualCluster"));
	const char *rname;
	size_t i = 0;
	int err;

	err = set(c->v1, "jobName",
		  json_incref(json_object_get(c->root, "name")));
	if (!err)
		err = job_level(c, roles, "dockerImage", "dockerimage", "image");
	if (!err)
		err = job_level(c, roles, "data", "data", "dataDir");
	if (!err)
		err = job_level(c, roles, "output", "output", "outputDir");
	if (!err)
		err = job_level(c, roles, "script", "script", "codeDir");
	if (!err && vc)
		err = set(c->v1, "virtualCluster", json_string(vc));
	if (!err)
		err = set(c->v1, "retryCount",
			  json_integer(ival(c->root, "jobRetryCount", 0)));
	if (!err && json_is_object(params) && json_object_size(params))
		err = set(c->v1, "jobEnvs", json_incref(params));
	list = json_array();
	if (!err && (!list || set(c->v1, "taskRoles", list)))
		err = PAI_ENOMEM;
	json_object_foreach(roles, rname, spec)
	{
		if (!err)
			err = role(c, list, rname, spec, i++);
	}
	if (!err && json_is_object(ex)) {
		json_t *copy = json_copy(ex);

		if (!copy)
			return PAI_ENOMEM;
		if (c->ssh_plugin)
			json_object_del(copy, RUNTIME_PLUGINS);
		if (json_object_size(copy))
			err = set(c->v1, "extras", copy);
		else
			json_decref(copy);
	}
	return err;
}

int pai__v2_to_v1_json(json_t **v1, pai_diags *diags, pai__src *src,
		       const pai__pos *pos, json_t *root)
{
	struct v2v1 c;
	json_t *roles = roles_object(root);
	int err;

	*v1 = NULL;
	memset(&c, 0, sizeof(c));
	c.src = src;
	c.pos = pos;
	c.root = root;
	c.diags = diags;
	c.v1 = json_object();
	err = c.v1 && roles ? top_checks(&c) : PAI_ENOMEM;
	if (!err)
		err = find_deployment(&c);
	if (!err)
		err = fill(&c, roles);
	if (!err && c.refused)
		err = PAI_EINVALID;
	if (!err) {
		*v1 = c.v1;
		c.v1 = NULL;
	}
	json_decref(c.v1);
	json_decref(roles);
	return err;
}

int pai__convert_v2_to_v1(pai__buf *out, pai_diags *diags, const char *name,
			  const char *text, size_t len, const pai_job *job)
{
	pai_diags *scratch = NULL;
	json_t *root = NULL, *v1 = NULL;
	pai__src src;
	pai__pos pos;
	char *s = NULL;
	int err;

	(void)job;
	memset(&pos, 0, sizeof(pos));
	memset(&src, 0, sizeof(src));
	err = pai_diags_new(&scratch);
	if (!err)
		err = pai__src_init_yaml(&src, scratch, name, text, len);
	if (!err)
		err = pai__yaml_parse(&root, &pos, &src, scratch);
	if (!err)
		err = pai__v2_to_v1_json(&v1, diags, &src, &pos, root);
	if (!err) {
		s = json_dumps(v1, JSON_INDENT(2));
		if (!s)
			err = PAI_ENOMEM;
		pai__buf_puts(out, s);
		pai__buf_putc(out, '\n');
	}
	free(s);
	json_decref(v1);
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	pai_diags_free(scratch);
	return err;
}
