/* validate_v2_refs.c - steps 4, 5, 7 and 8 of protocol-v2 validation:
 * the references between prerequisites, deployments and roles (which
 * build the model the later steps use), the mustache render, the job
 * model's crashes and the write-merger. See validate_v2.c. */
#include "validate_v2_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- step 4: references ------------------------------------------------- */

static const char *const kind_names[] = {"script", "output", "data",
					 "dockerimage", NULL};

static void index_prereqs(struct v2_ctx *c, struct v2_model *md, json_t *list,
			  const pai__pos *at)
{
	struct v2_path lp = {NULL, "prerequisites", 0}, ip = {&lp, NULL, 0};
	struct v2_path np = {&ip, "name", 0};
	const pai__pos *iat, *nat;
	struct v2_nent *dup;
	json_t *item, *name;
	int k;

	json_array_foreach(list, ip.idx, item)
	{
		iat = v2_item(at, ip.idx);
		name = pai__v2_get(item, iat, "name", &nat);
		k = pai__v2_key_index(
		    json_string_value(json_object_get(item, "type")),
		    kind_names);
		if (pai__v2_nset_add(&md->kind[k], json_string_value(name),
				     item, iat, &dup) < 0) {
			c->err = PAI_ENOMEM;
			return;
		}
		if (dup)
			pai__v2_report(c, v2_off(nat), &np,
				       "v2-duplicate-prerequisite",
				       "a second %s prerequisite named \"%s\"",
				       kind_names[k], json_string_value(name));
	}
}

static void index_deployments(struct v2_ctx *c, struct v2_model *md,
			      json_t *list, const pai__pos *at)
{
	struct v2_path lp = {NULL, "deployments", 0}, ip = {&lp, NULL, 0};
	struct v2_path np = {&ip, "name", 0};
	const pai__pos *iat, *nat;
	struct v2_nent *dup;
	json_t *item, *name;

	json_array_foreach(list, ip.idx, item)
	{
		iat = v2_item(at, ip.idx);
		name = pai__v2_get(item, iat, "name", &nat);
		if (pai__v2_nset_add(&md->deploy, json_string_value(name), item,
				     iat, &dup) < 0) {
			c->err = PAI_ENOMEM;
			return;
		}
		if (dup)
			pai__v2_report(c, v2_off(nat), &np,
				       "v2-duplicate-deployment",
				       "a second deployment named \"%s\"",
				       json_string_value(name));
	}
}

static int add_role(struct v2_model *md, const char *name, json_t *spec,
		    const pai__pos *at)
{
	struct v2_role *r = &md->roles[md->nroles];

	r->name = strdup(name);
	if (!r->name)
		return -1;
	r->spec = spec;
	r->at = at;
	md->nroles++;
	return 0;
}

/* The roles as the server's Object.keys(taskRoles) sees them. A list is
 * taken as roles "0", "1"...; the schema never looks into it, and most
 * of what it would refuse in a role crashes the server later, so its
 * items are held to the role schema here (an approximation: the server
 * takes unknown keys in them). null or a non-empty string crash the
 * server at once; a number, a boolean, "" or [] give no roles. */
static void collect_roles(struct v2_ctx *c, struct v2_model *md, json_t *tr,
			  const pai__pos *at)
{
	struct v2_path p = {NULL, "taskRoles", 0}, ip = {&p, NULL, 0};
	struct v2_iter it = V2_ITER(tr, at);
	enum v2_type t = pai__v2_type(tr, at);
	size_t n = t == V2_OBJECT  ? json_object_size(tr)
		   : t == V2_ARRAY ? json_array_size(tr)
				   : 0;
	const pai__pos *m;
	const char *key;
	char num[32];
	json_t *v;

	md->troles = tr;
	md->troles_at = at;
	if (t == V2_NULL || (t == V2_STRING && json_string_length(tr))) {
		pai__v2_report(
		    c, v2_off(at), &p, "v2-no-roles",
		    "must be a mapping of task role names to roles, got "
		    "%s (the server fails with an internal error here)",
		    pai__v2_type_name(tr, at));
		return;
	}
	md->roles = calloc(n ? n : 1, sizeof(*md->roles));
	if (!md->roles)
		goto oom;
	if (t == V2_OBJECT) {
		while (pai__v2_next(&it, &key, &v, &m))
			if (add_role(md, key, v, m) < 0)
				goto oom;
		return;
	}
	for (ip.idx = 0; ip.idx < n; ip.idx++) {
		v = json_array_get(tr, ip.idx);
		m = v2_item(at, ip.idx);
		snprintf(num, sizeof(num), "%zu", ip.idx);
		pai__v2_check_role(c, v, m, &ip);
		if (add_role(md, num, v, m) < 0)
			goto oom;
	}
	return;
oom:
	c->err = PAI_ENOMEM;
}

static const char *const ref_fields[] = {"script", "output", "data",
					 "dockerImage", NULL};

/* A role's prerequisites (any kind, by name) and its four references
 * (by kind; JavaScript's `in`, so "toString" is found too). */
static void check_role_refs(struct v2_ctx *c, const struct v2_model *md,
			    const struct v2_role *r)
{
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, r->name, 0};
	struct v2_path fp = {&p, NULL, 0}, ip = {&fp, NULL, 0};
	const pai__pos *at, *iat;
	const char *s;
	json_t *v, *item;
	int k, j;

	v = pai__v2_get(r->spec, r->at, "prerequisites", &at);
	fp.key = "prerequisites";
	json_array_foreach(v, ip.idx, item)
	{
		s = json_string_value(item);
		for (j = 0; j < NKINDS && !pai__v2_nset_find(&md->kind[j], s);
		     j++)
			;
		iat = v2_item(at, ip.idx);
		if (j == NKINDS)
			pai__v2_report(c, v2_off(iat), &ip,
				       "v2-prerequisite-missing",
				       "no prerequisite is named \"%s\"", s);
	}
	for (k = 0; k < NKINDS; k++) {
		v = pai__v2_get(r->spec, r->at, ref_fields[k], &at);
		s = json_string_value(v);
		fp.key = ref_fields[k];
		if (v && !(s && (pai__v2_nset_find(&md->kind[k], s) ||
				 pai__v2_proto_name(s))))
			pai__v2_report(c, v2_off(at), &fp,
				       "v2-prerequisite-missing",
				       "no %s prerequisite is named \"%s\"",
				       kind_names[k], s ? s : "(not a string)");
	}
}

void pai__v2_check_refs(struct v2_ctx *c, struct v2_model *md, json_t *root,
			const pai__pos *pos)
{
	struct v2_path dp = {NULL, "defaults", 0}, p = {&dp, "deployment", 0};
	const pai__pos *at;
	json_t *v;
	size_t i;

	v = pai__v2_get(root, pos, "prerequisites", &at);
	if (v)
		index_prereqs(c, md, v, at);
	v = pai__v2_get(root, pos, "deployments", &at);
	if (v)
		index_deployments(c, md, v, at);
	v = pai__v2_get(root, pos, "taskRoles", &at);
	collect_roles(c, md, v, at);
	for (i = 0; i < md->nroles && !c->err; i++)
		if (pai__v2_type(md->roles[i].spec, md->roles[i].at) ==
		    V2_OBJECT)
			check_role_refs(c, md, &md->roles[i]);
	v = pai__v2_get(json_object_get(root, "defaults"),
			pai__pos_member(pos, "defaults"), "deployment", &at);
	/* a built-in name such as "toString" passes the server's `in` check
	 * and then crashes its render: refused here all the same */
	if (v && !pai__v2_nset_find(&md->deploy, json_string_value(v)))
		pai__v2_report(c, v2_off(at), &p, "v2-deployment-missing",
			       "no deployment is named \"%s\"",
			       json_string_value(v));
}

/* ---- step 5: the render ---------------------------------------------------
 */

static void template_error(struct v2_ctx *c, const pai__pos *at,
			   const struct v2_path *p, const char *text,
			   size_t len, const pai__tmpl_error *e)
{
	size_t n = len - e->off < 24 ? len - e->off : 24;
	const char *rule = "v2-template-section";

	if (strcmp(e->why, "out of memory") == 0) {
		c->err = PAI_ENOMEM;
		return;
	}
	while (n > 0 && ((unsigned char)text[e->off + n] & 0xC0) == 0x80 &&
	       e->off + n < len)
		n--;
	if (strcmp(e->why, "unclosed tag") == 0)
		rule = "v2-template-unclosed";
	else if (strcmp(e->why, "invalid delimiters") == 0)
		rule = "v2-template-delimiters";
	pai__v2_report(
	    c, v2_off(at), p, rule,
	    "the server's mustache template (<%% %%>) does not parse: "
	    "%s at \"%.*s%s\"",
	    e->why, (int)n, text + e->off, n < len - e->off ? "..." : "");
}

/* mustache.parse() keeps a cache in a plain {}: a text equal to one of
 * Object.prototype's names finds a function there, which the server then
 * iterates, and crashes. */
static void render_check(struct v2_ctx *c, const pai__pos *at,
			 const struct v2_path *p, const char *text, size_t len)
{
	pai__tmpl_error e;

	if (pai__v2_proto_name(text) && strlen(text) == len) {
		pai__v2_report(c, v2_off(at), p, "v2-template-prototype",
			       "a template text of just \"%s\" (a JavaScript "
			       "built-in name) makes the server fail with an "
			       "internal error",
			       text);
		return;
	}
	if (pai__tmpl_check(text, len, &e) < 0)
		template_error(c, at, p, text, len, &e);
}

/* Each truthy value of a dockerimage's auth is rendered; a truthy value
 * that is not a string crashes mustache. */
static void render_auth(struct v2_ctx *c, const struct v2_nent *img, size_t i)
{
	struct v2_path lp = {NULL, "prerequisites", 0}, ip = {&lp, NULL, i};
	struct v2_path ap = {&ip, "auth", 0}, mp = {&ap, NULL, 0};
	const pai__pos *at, *m;
	struct v2_iter it;
	const char *key;
	json_t *auth, *v;

	auth = pai__v2_get(img->v, img->at, "auth", &at);
	if (!auth)
		return;
	it = (struct v2_iter)V2_ITER(auth, at);
	while (pai__v2_next(&it, &key, &v, &m)) {
		mp.key = key;
		if (!pai__v2_truthy(c, v, m))
			continue;
		if (!json_is_string(v))
			pai__v2_report(
			    c, v2_off(m), &mp, "v2-auth-value",
			    "must be a string, got %s (the server fails "
			    "with an internal error here)",
			    pai__v2_type_name(v, m));
		else
			render_check(c, m, &mp, json_string_value(v),
				     json_string_length(v));
	}
}

/* Length of the JavaScript whitespace character (String.prototype.trim's
 * set) ending at s + n, or 0. */
static size_t ws_before(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s + n;

	if (n >= 1 && (u[-1] == ' ' || (u[-1] >= '\t' && u[-1] <= '\r')))
		return 1;
	if (n >= 2 && u[-2] == 0xC2 && u[-1] == 0xA0)
		return 2;
	if (n < 3)
		return 0;
	if ((u[-3] == 0xE1 && u[-2] == 0x9A && u[-1] == 0x80) ||
	    (u[-3] == 0xE2 && u[-2] == 0x80 &&
	     (u[-1] <= 0x8A || u[-1] == 0xA8 || u[-1] == 0xA9 ||
	      u[-1] == 0xAF)) ||
	    (u[-3] == 0xE2 && u[-2] == 0x81 && u[-1] == 0x9F) ||
	    (u[-3] == 0xE3 && u[-2] == 0x80 && u[-1] == 0x80) ||
	    (u[-3] == 0xEF && u[-2] == 0xBB && u[-1] == 0xBF))
		return 3;
	return 0;
}

/* Appends a command line as the server joins them: trimmed, one a line.
 * (Leading whitespace is found by trying each prefix length, as only
 * ws_before() exists; lines are short and this runs once per line.) */
static void put_line(pai__buf *b, json_t *line, bool first)
{
	const char *s = json_string_value(line);
	size_t a = 0, n = json_string_length(line), k;

	if (!first)
		pai__buf_putc(b, '\n');
	for (;;) {
		for (k = 1; k <= 3 && a + k <= n; k++)
			if (ws_before(s + a, k) == k)
				break;
		if (k > 3 || a + k > n)
			break;
		a += k;
	}
	while (n > a && (k = ws_before(s, n)))
		n -= k;
	pai__buf_put(b, s + a, n - a);
}

/* The default deployment's entry for a role: NULL when none. Its
 * taskRoles is looked into with `in`, which throws on a non-object. */
static json_t *deploy_entry(json_t *dep, const char *role, bool *crash)
{
	const pai__pos *at = NULL;
	json_t *tr = json_object_get(dep, "taskRoles");
	char *end;
	size_t i;

	*crash = false;
	switch (pai__v2_type(tr, at)) {
	case V2_OBJECT: return json_object_get(tr, role);
	case V2_ARRAY:
		i = strtoul(role, &end, 10);
		return *role && !*end ? json_array_get(tr, i) : NULL;
	default: break;
	}
	*crash = true;
	return NULL;
}

static void render_role(struct v2_ctx *c, const struct v2_role *r, json_t *dep,
			pai__buf *b)
{
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, r->name, 0};
	struct v2_path cp = {&p, "commands", 0};
	json_t *entry = NULL, *pre = NULL, *post = NULL, *l;
	const pai__pos *at;
	bool crash = false;
	size_t i, nl = 0;

	if (dep)
		entry = deploy_entry(dep, r->name, &crash);
	if (crash || (entry && !json_is_object(entry))) {
		pai__v2_report(
		    c, PAI__NO_OFFSET, &p, "v2-deployment-roles",
		    "the default deployment's taskRoles must be a "
		    "mapping of roles to their pre- and postCommands "
		    "(the server fails with an internal error here)");
		return;
	}
	pre = json_object_get(entry, "preCommands");
	post = json_object_get(entry, "postCommands");
	b->len = 0;
	json_array_foreach(pre, i, l)
	{
		put_line(b, l, nl++ == 0);
	}
	json_array_foreach(json_object_get(r->spec, "commands"), i, l)
	{
		put_line(b, l, nl++ == 0);
	}
	json_array_foreach(post, i, l)
	{
		put_line(b, l, nl++ == 0);
	}
	pai__buf_putc(b, '\0');
	if (b->oom) {
		c->err = PAI_ENOMEM;
		return;
	}
	pai__v2_get(r->spec, r->at, "commands", &at);
	render_check(c, at, &cp, b->data, b->len - 1);
}

void pai__v2_render_all(struct v2_ctx *c, const struct v2_model *md,
			json_t *root)
{
	const struct v2_nset *img = &md->kind[K_IMAGE];
	json_t *dep = NULL, *name, *list;
	pai__buf b = PAI__BUF_INIT;
	struct v2_nent *e;
	size_t i;

	list = json_object_get(root, "prerequisites");
	json_array_foreach(list, i, name)
	{
		e = pai__v2_nset_find(
		    img, json_string_value(json_object_get(name, "name")));
		if (e && e->v == name)
			render_auth(c, e, i);
	}
	name = json_object_get(json_object_get(root, "defaults"), "deployment");
	if (name &&
	    (e = pai__v2_nset_find(&md->deploy, json_string_value(name))))
		dep = e->v;
	for (i = 0; i < md->nroles && !c->err; i++)
		render_role(c, &md->roles[i], dep, &b);
	pai__buf_release(&b);
}

/* ---- step 7: the job model ---------------------------------------------- */

/* for (x of v) { x.name } in the server: v must be a list (or a string)
 * without null items. */
static void iterable_entries(struct v2_ctx *c, json_t *v, const pai__pos *at,
			     const struct v2_path *p)
{
	struct v2_path ip = {p, NULL, 0};
	json_t *item;

	if (pai__v2_type(v, at) == V2_STRING)
		return;
	if (pai__v2_type(v, at) != V2_ARRAY) {
		pai__v2_report(
		    c, v2_off(at), p, "v2-storages",
		    "must be a list, got %s (the server fails with an "
		    "internal error here)",
		    pai__v2_type_name(v, at));
		return;
	}
	json_array_foreach(v, ip.idx, item)
	{
		if (json_is_null(item))
			pai__v2_report(
			    c, v2_off(v2_item(at, ip.idx)), &ip, "v2-storages",
			    "must not be null (the server fails with an "
			    "internal error here)");
	}
}

/* The deprecated teamwise_storage plugin, read when extras has no
 * storages. */
static void check_plugins(struct v2_ctx *c, json_t *v, const pai__pos *at,
			  const struct v2_path *p)
{
	struct v2_path ip = {p, NULL, 0}, pp = {&ip, "parameters", 0};
	const pai__pos *m;
	json_t *item, *par, *names;

	iterable_entries(c, v, at, p);
	json_array_foreach(v, ip.idx, item)
	{
		if (!json_is_object(item) ||
		    !json_is_string(json_object_get(item, "plugin")) ||
		    strcmp(json_string_value(json_object_get(item, "plugin")),
			   "teamwise_storage"))
			continue;
		par = pai__v2_get(item, v2_item(at, ip.idx), "parameters", &m);
		names = json_object_get(par, "storageConfigNames");
		if (par && json_is_null(par))
			pai__v2_report(
			    c, v2_off(m), &pp, "v2-storages",
			    "must not be null (the server fails with "
			    "an internal error here)");
		else if (names && pai__v2_truthy(c, names, NULL) &&
			 !json_is_array(names))
			pai__v2_report(
			    c, v2_off(m), &pp, "v2-storages",
			    "storageConfigNames must be a list (the "
			    "server fails with an internal error here)");
	}
}

static void check_extras(struct v2_ctx *c, json_t *root, const pai__pos *pos)
{
	struct v2_path ep = {NULL, "extras", 0}, sp = {&ep, "storages", 0};
	struct v2_path pp = {&ep, "com.microsoft.pai.runtimeplugin", 0};
	const pai__pos *eat, *at;
	json_t *extras, *v;

	extras = pai__v2_get(root, pos, "extras", &eat);
	if (!extras)
		return;
	v = pai__v2_get(extras, eat, "storages", &at);
	if (v && pai__v2_truthy(c, v, at)) {
		iterable_entries(c, v, at, &sp);
		return;
	}
	v = pai__v2_get(extras, eat, "com.microsoft.pai.runtimeplugin", &at);
	if (v)
		check_plugins(c, v, at, &pp);
}

/* `p in ports` for ssh and http: ports must be an object when truthy. */
static void check_role_ports(struct v2_ctx *c, const struct v2_role *r)
{
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, r->name, 0};
	struct v2_path qp = {&p, "resourcePerInstance", 0},
		       pp = {&qp, "ports", 0};
	const pai__pos *at, *pat;
	json_t *res, *ports;

	res = pai__v2_get(r->spec, r->at, "resourcePerInstance", &at);
	ports = pai__v2_get(res, at, "ports", &pat);
	if (ports && pai__v2_truthy(c, ports, pat) &&
	    pai__v2_type(ports, pat) != V2_OBJECT &&
	    pai__v2_type(ports, pat) != V2_ARRAY)
		pai__v2_report(
		    c, v2_off(pat), &pp, "v2-ports",
		    "must be a mapping of port labels to counts, got %s "
		    "(the server fails with an internal error here)",
		    pai__v2_type_name(ports, pat));
}

/* Each role's hived pod spec lists the instances of every member of its
 * affinity group, and js-yaml's dump throws on a member without them. */
static void check_groups(struct v2_ctx *c, const struct v2_model *md,
			 json_t *root, const struct v2_nset *groups)
{
	json_t *extras = json_object_get(root, "extras"), *gang, *hr, *g;
	struct v2_path rp = {NULL, "taskRoles", 0}, p = {&rp, NULL, 0};
	bool all;
	size_t i;

	gang = json_object_get(extras, "gangAllocation");
	all = !groups->n && (!gang || json_is_true(gang));
	hr = json_object_get(json_object_get(extras, "hivedScheduler"),
			     "taskRoles");
	for (i = 0; i < md->nroles; i++) {
		g = json_object_get(json_object_get(hr, md->roles[i].name),
				    "affinityGroupName");
		if (!all && !json_is_string(g))
			continue;
		if (json_object_get(md->roles[i].spec, "instances"))
			continue;
		p.key = md->roles[i].name;
		pai__v2_report(
		    c, v2_off(md->roles[i].at), &p, "hived-instances-missing",
		    "\"instances\" is needed in a role of an affinity "
		    "group under hived (the server fails with an "
		    "internal error here)");
	}
}

void pai__v2_check_model(struct v2_ctx *c, const struct v2_model *md,
			 json_t *root, const pai__pos *pos,
			 const struct v2_nset *groups)
{
	struct v2_path p = {NULL, "taskRoles", 0};
	size_t i;

	check_extras(c, root, pos);
	for (i = 0; i < md->nroles; i++)
		check_role_ports(c, &md->roles[i]);
	if (c->scheduler != PAI_SCHEDULER_HIVED)
		return;
	if (!md->nroles)
		pai__v2_report(
		    c, v2_off(md->troles_at), &p, "hived-no-roles",
		    "gives no task roles, and under hived the server "
		    "reads the first one's (it fails with an internal "
		    "error here)");
	check_groups(c, md, root, groups);
}

/* ---- after the server's steps: names the cluster cannot tell apart -------
 *
 * OpenPAI v1.x names a role's framework task role convertName(role): its
 * letters and digits, lower-cased. The server accepts "ps_server" beside
 * "psserver", and both become "psserver": their tasks' variables mix and
 * the cluster's routes cannot tell them apart. Said at each later role,
 * naming the first. */
void pai__v2_check_role_names(struct v2_ctx *c, const struct v2_model *md)
{
	struct v2_path tp = {NULL, "taskRoles", 0}, p = {&tp, NULL, 0};
	const char **names;
	size_t *first, i;
	char *conv;

	if (md->nroles < 2)
		return;
	names = calloc(md->nroles, sizeof(*names));
	first = calloc(md->nroles, sizeof(*first));
	for (i = 0; names && i < md->nroles; i++)
		names[i] = md->roles[i].name;
	if (!names || !first ||
	    pai__v2_role_clashes(first, names, md->nroles) != PAI_OK)
		c->err = PAI_ENOMEM;
	for (i = 0; !c->err && i < md->nroles; i++) {
		const struct v2_role *a = &md->roles[first[i]], *b;

		if (first[i] == i)
			continue;
		b = &md->roles[i];
		if (!(conv = pai__v2_role_name(b->name))) {
			c->err = PAI_ENOMEM;
			break;
		}
		p.key = b->name;
		pai__v2_report(c, v2_key_off(b->at), &p, "v2-role-name-clash",
			       "roles '%s' and '%s' are both the task role "
			       "'%s' on an OpenPAI v1.x cluster: rename one",
			       a->name, b->name, conv);
		free(conv);
	}
	free(names);
	free(first);
}

/* ---- step 8: the write-merger ---------------------------------------------
 *
 * The database-controller stores the config with its secrets masked:
 * from a line starting "secrets:" lazily up to the next line starting
 * with a word character, replaced by `secrets: "******"`, and re-parses
 * that with js-yaml 3.14.0. When no line starts "secrets:" the text is
 * unchanged and has parsed already. Otherwise the masked text is loaded
 * again (with our js-yaml loader; 3.14.0 loads what 3.13.1 does in all
 * that matters here). It fails only for contrived texts: a "secrets:"
 * line at column 0 inside a multi-line quoted or flow scalar, or lines
 * starting with a non-word character (a quoted key, a flow collection)
 * swallowed up to a point where what is left no longer parses. */
static char *mask_secrets(const char *t, size_t len, size_t *out_len)
{
	pai__buf b = PAI__BUF_INIT;
	size_t i, j;

	for (i = 0; i < len; i = j + 1) {
		for (j = i; j < len && t[j] != '\n'; j++)
			;
		if (len - i >= 8 && memcmp(t + i, "secrets:", 8) == 0)
			break;
		if (j >= len)
			return NULL;
	}
	if (i >= len)
		return NULL;
	pai__buf_put(&b, t, i);
	pai__buf_puts(&b, "secrets: \"******\"\n");
	/* the next line starting with [A-Za-z0-9_] (the text gets "\nZ"
	 * appended first, so there always is one) */
	for (j = i + 8; j < len; j++)
		if (t[j - 1] == '\n' && pai__is_name_char((unsigned char)t[j]))
			break;
	if (j < len)
		pai__buf_put(&b, t + j, len - j);
	else if (b.len)
		b.len--; /* the "\nZ" came back off with the newline */
	*out_len = b.len;
	return pai__buf_detach(&b);
}

void pai__v2_check_masked(struct v2_ctx *c)
{
	pai_diags *scratch = NULL;
	json_t *root = NULL;
	size_t len = 0;
	pai__src src;
	pai__pos pos;
	char *text;
	int r;

	memset(&pos, 0, sizeof(pos));
	text = mask_secrets(c->src->text, c->src->len, &len);
	if (!text)
		return;
	if (pai_diags_new(&scratch)) {
		c->err = PAI_ENOMEM;
		goto out;
	}
	r = pai__src_init_yaml(&src, scratch, c->src->name, text, len);
	if (r == PAI_OK) {
		r = pai__yaml_parse(&root, &pos, &src, scratch);
		pai__pos_release(&pos);
	}
	pai__src_release(&src);
	if (r == PAI_ENOMEM)
		c->err = PAI_ENOMEM;
	else if (r == PAI_ESYNTAX)
		pai__v2_report(
		    c, PAI__NO_OFFSET, NULL, "v2-masked-secrets",
		    "with its secrets masked (from \"secrets:\" to the "
		    "next line starting with a letter, digit or '_'), "
		    "the config no longer parses, and the server fails "
		    "with an internal error when storing it");
out:
	json_decref(root);
	pai_diags_free(scratch);
	free(text);
}
