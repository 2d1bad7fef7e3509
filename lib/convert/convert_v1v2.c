/* convert_v1v2.c - a v1 JSON config as protocol-v2 YAML, with the mapping
 * of OpenPAI's own converter (src/rest-server/src/utils/converter.js,
 * protocolConvert(), last changed in da2161854, removed with the YARN code
 * before v1.8.0), its comments kept, and what v2 cannot say refused. */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

/* One comment of the v1 text, and the member key it stands before. */
struct cmt {
	size_t off;
	char *text;
	const pai__pos *key; /* NULL: after the last key */
	int used;
};

struct v1v2 {
	pai__src src;
	pai__pos pos;
	json_t *orig; /* the parsed text, for positions only */
	json_t *cfg;  /* the normalized config (borrowed from the job) */
	pai_diags *diags;
	json_t *doc, *comments;
	struct cmt *cmts;
	size_t ncmts;
	int refused;
};

/* ---- comments --------------------------------------------------------- */

/* A comment's text without its markers, one line per line. */
static char *comment_text(const char *s, size_t n, int block)
{
	pai__buf b = PAI__BUF_INIT;
	size_t i = 0;

	s += 2, n -= block ? 4 : 2;
	while (i <= n) {
		size_t st = i, e;

		while (i < n && s[i] != '\n')
			i++;
		e = i;
		while (st < e && (s[st] == ' ' || s[st] == '\t' ||
				  (block && s[st] == '*')))
			st++;
		while (e > st && (s[e - 1] == ' ' || s[e - 1] == '\t' ||
				  s[e - 1] == '\r'))
			e--;
		if (b.len || e > st) {
			if (b.len)
				pai__buf_putc(&b, '\n');
			for (; st < e; st++)
				pai__buf_putc(&b, (unsigned char)s[st] < 0x20
						      ? ' '
						      : s[st]);
		}
		i++;
	}
	return pai__buf_detach(&b);
}

static int add_cmt(struct v1v2 *c, size_t off, char *text)
{
	struct cmt *n;

	if (!text)
		return PAI_ENOMEM;
	n = realloc(c->cmts, (c->ncmts + 1) * sizeof(*n));
	if (!n) {
		free(text);
		return PAI_ENOMEM;
	}
	c->cmts = n;
	c->cmts[c->ncmts++] = (struct cmt){off, text, NULL, 0};
	return PAI_OK;
}

/* The text is valid JSON with comments: strings and comments are all a
 * scan needs to tell apart. */
static int collect_comments(struct v1v2 *c)
{
	const char *t = c->src.orig;
	size_t n = c->src.len, i = 0, e;
	int err = PAI_OK;

	while (i < n && !err) {
		if (t[i] == '"') {
			for (i++; i < n && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			i++;
		} else if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
			for (e = i; e < n && t[e] != '\n'; e++)
				;
			err = add_cmt(c, i, comment_text(t + i, e - i, 0));
			i = e;
		} else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
			const char *end = strstr(t + i + 2, "*/");

			e = end ? (size_t)(end - t) + 2 : n;
			err = add_cmt(c, i, comment_text(t + i, e - i, 1));
			i = e;
		} else {
			i++;
		}
	}
	return err;
}

/* Gives each comment the first member key after it, walking the keys in
 * source order (the position tree's depth-first order). */
static void attach(struct v1v2 *c, const pai__pos *p, size_t *k)
{
	size_t i;

	for (i = 0; i < p->nchild; i++) {
		const pai__pos *ch = &p->child[i];

		if (ch->key)
			while (*k < c->ncmts && c->cmts[*k].off < ch->key_off)
				c->cmts[(*k)++].key = ch;
		attach(c, ch, k);
	}
}

/* Writes the comments that stood before v1 key `key` before output path
 * `path`. */
static int keep_comments(struct v1v2 *c, const pai__pos *key, const char *path)
{
	size_t i;

	for (i = 0; key && i < c->ncmts; i++) {
		if (c->cmts[i].key != key || c->cmts[i].used ||
		    !*c->cmts[i].text)
			continue;
		c->cmts[i].used = 1;
		if (pai__ycomment_add(c->comments, path, c->cmts[i].text))
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* Comments of keys that have no place in v2 go to the end. */
static int leftover_comments(struct v1v2 *c)
{
	size_t i;

	for (i = 0; i < c->ncmts; i++)
		if (!c->cmts[i].used && *c->cmts[i].text &&
		    pai__ycomment_add(c->comments, "", c->cmts[i].text))
			return PAI_ENOMEM;
	return PAI_OK;
}

/* ---- helpers ---------------------------------------------------------- */

static char *ypath(const char *a, const char *b, const char *d)
{
	pai__buf p = PAI__BUF_INIT;

	pai__buf_puts(&p, a);
	if (b) {
		pai__buf_putc(&p, PAI__YPATH_SEP);
		pai__buf_puts(&p, b);
	}
	if (d) {
		pai__buf_putc(&p, PAI__YPATH_SEP);
		pai__buf_puts(&p, d);
	}
	return pai__buf_detach(&p);
}

/* keep_comments() at a path of up to three keys. */
static int keep3(struct v1v2 *c, const pai__pos *key, const char *a,
		 const char *b, const char *d)
{
	char *p = ypath(a, b, d);
	int err;

	if (!p)
		return PAI_ENOMEM;
	err = keep_comments(c, key, p);
	free(p);
	return err;
}

static size_t off_of(const pai__pos *at)
{
	return at ? at->off : PAI__NO_OFFSET;
}

static int v2_identifier(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
	      (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (; *s; s++)
		if (!pai__is_name_char((unsigned char)*s))
			return 0;
	return 1;
}

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v) ? PAI_ENOMEM : PAI_OK;
}

static const pai__pos *member(const pai__pos *p, const char *k)
{
	return p ? pai__pos_member(p, k) : NULL;
}

/* An error: something the v2 config cannot say. */
#define REFUSE(c, at, path, ...)                                               \
	((c)->refused = 1,                                                     \
	 pai__diag_add((c)->diags, &(c)->src, off_of(at), PAI_SEVERITY_ERROR,  \
		       path, PAI__RULE_NO_V2, __VA_ARGS__))
/* A warning: converted, but something is lost. */
#define LOSE(c, at, path, rule, ...)                                           \
	pai__diag_add((c)->diags, &(c)->src, off_of(at), PAI_SEVERITY_WARNING, \
		      path, rule, __VA_ARGS__)

/* The rest-server renders "<%" in a v2 command as a template tag; a v1
 * command meant it literally, and no quoting can hide it from mustache
 * in every shell context (heredocs, comments). */
static int check_command(struct v1v2 *c, const char *cmd, const pai__pos *at,
			 const char *path)
{
	const char *t = strstr(cmd, "<%");
	size_t off;

	if (!t)
		return PAI_OK;
	c->refused = 1;
	off = at ? pai__src_string_offset(&c->src, at->off, (size_t)(t - cmd))
		 : PAI__NO_OFFSET;
	return pai__diag_add(c->diags, &c->src, off, PAI_SEVERITY_ERROR, path,
			     PAI__RULE_TEMPLATE,
			     "the command holds \"<%%\", which OpenPAI v1.x "
			     "reads as the start of a template tag; write it "
			     "differently (e.g. \"<\"\"%%\" in bash)");
}

/* v1's minFailedTaskCount null means "failed tasks never fail the job";
 * v1.x's k8s.js turns a falsy minFailedInstances into 1, so null becomes
 * FrameworkController's own "never", -1. */
static int completion(struct v1v2 *c, json_t *role, json_t *r,
		      const pai__pos *rp, const char *rname)
{
	json_t *mf = json_object_get(role, "minFailedTaskCount");
	json_t *ms = json_object_get(role, "minSucceededTaskCount");
	json_t *comp = json_object();
	int err;

	if (!comp || set(r, "completion", comp))
		return PAI_ENOMEM;
	err = set(comp, "minFailedInstances",
		  !mf		     ? json_integer(1)
		  : json_is_null(mf) ? json_integer(-1)
				     : json_incref(mf));
	if (!err && mf && json_is_null(mf)) {
		char *p = ypath("taskRoles", rname, "completion");

		err = p ? pai__ycomment_add(c->comments, p,
					    "minFailedTaskCount null: failed "
					    "tasks never fail the job (-1)")
			: PAI_ENOMEM;
		free(p);
	}
	if (!err)
		err = set(comp, "minSucceededInstances",
			  ms ? json_incref(ms) : json_null());
	if (!err)
		err = keep3(c, member(rp, "minFailedTaskCount"), "taskRoles",
			    rname, "completion");
	if (!err)
		err = keep3(c, member(rp, "minSucceededTaskCount"), "taskRoles",
			    rname, "completion");
	return err;
}

/* portList: label -> portNumber. v2 asks for a count per label and
 * cannot pin a host port: beginAt is lost, with a warning only, since
 * the task still gets its ports under the same $PAI_* names. */
static int ports(struct v1v2 *c, json_t *role, json_t *res, const pai__pos *rp,
		 const char *path, const char *rname)
{
	json_t *list = json_object_get(role, "portList"), *p, *out;
	const pai__pos *lp = member(rp, "portList");
	size_t i;
	int err = PAI_OK;

	if (!json_array_size(list))
		return PAI_OK;
	out = json_object();
	if (!out || set(res, "ports", out))
		return PAI_ENOMEM;
	err = keep3(c, lp, "taskRoles", rname, "resourcePerInstance");
	json_array_foreach(list, i, p)
	{
		const char *label =
		    json_string_value(json_object_get(p, "label"));
		const pai__pos *pp = lp ? pai__pos_index(lp, i) : NULL;
		json_int_t at =
		    json_integer_value(json_object_get(p, "beginAt"));

		if (err)
			break;
		if (!v2_identifier(label))
			err = REFUSE(c, member(pp, "label"), path,
				     "port label '%s' is not a protocol-v2 "
				     "port name (letters, digits and _, not "
				     "starting with a digit)",
				     label);
		else if (at)
			err = LOSE(c, member(pp, "beginAt"), path,
				   PAI__RULE_BEGIN_AT,
				   "protocol v2 cannot pin port '%s' to "
				   "%" JSON_INTEGER_FORMAT
				   "; the task gets free ports instead, in "
				   "$PAI_CONTAINER_HOST_%s_PORT_LIST",
				   label, at, label);
		if (!err)
			err =
			    set(out, label,
				json_incref(json_object_get(p, "portNumber")));
	}
	return err;
}

static int resources(struct v1v2 *c, json_t *role, json_t *r,
		     const pai__pos *rp, const char *path, const char *rname)
{
	static const char *const map[][2] = {{"cpuNumber", "cpu"},
					     {"memoryMB", "memoryMB"},
					     {"gpuNumber", "gpu"}};
	json_t *shm = json_object_get(role, "shmMB");
	json_t *res = json_object(), *eco = json_object();
	size_t i;
	int err = PAI_OK;

	if (!res || !eco) {
		json_decref(res);
		json_decref(eco);
		return PAI_ENOMEM;
	}
	if (set(r, "extraContainerOptions", eco) ||
	    set(r, "resourcePerInstance", res))
		return PAI_ENOMEM;
	/* v1's default is 64, v2's 512: always say which */
	err =
	    set(eco, "shmMB",
		json_integer_value(shm) ? json_incref(shm) : json_integer(64));
	if (!err)
		err = keep3(c, member(rp, "shmMB"), "taskRoles", rname,
			    "extraContainerOptions");
	for (i = 0; i < 3 && !err; i++) {
		err = set(res, map[i][1],
			  json_incref(json_object_get(role, map[i][0])));
		if (!err)
			err = keep3(c, member(rp, map[i][0]), "taskRoles",
				    rname, "resourcePerInstance");
	}
	if (!err && json_integer_value(json_object_get(role, "storageGB")))
		err = LOSE(
		    c, member(rp, "storageGB"), path, PAI__RULE_DROPPED,
		    "protocol v2 has no storage request; storageGB "
		    "%" JSON_INTEGER_FORMAT " is dropped",
		    json_integer_value(json_object_get(role, "storageGB")));
	return err ? err : ports(c, role, res, rp, path, rname);
}

static const char *const dir_keys[][2] = {
    {"dataDir", "data"}, {"outputDir", "output"}, {"codeDir", "script"}};

static int has_dir(struct v1v2 *c, size_t i)
{
	const char *d =
	    json_string_value(json_object_get(c->cfg, dir_keys[i][0]));

	return d && *d;
}

static int role(struct v1v2 *c, json_t *roles, json_t *role, size_t idx)
{
	const pai__pos *rp = pai__pos_index(member(&c->pos, "taskRoles"), idx);
	const char *name = json_string_value(json_object_get(role, "name"));
	const char *cmd = json_string_value(json_object_get(role, "command"));
	json_t *r = json_object(), *cmds;
	char path[48];
	size_t i;
	int err;

	snprintf(path, sizeof(path), "taskRoles[%zu]", idx);
	if (!r || set(roles, name, r))
		return PAI_ENOMEM;
	if (!v2_identifier(name) &&
	    REFUSE(c, member(rp, "name"), path,
		   "task role name '%s' is not a protocol-v2 role name "
		   "(letters, digits and _, not starting with a digit); "
		   "rename it, and every $PAI_* name and host name built "
		   "from it",
		   name))
		return PAI_ENOMEM;
	err = check_command(c, cmd, member(rp, "command"), path);
	if (!err)
		err = keep3(c, member(rp, "name"), "taskRoles", name, NULL);
	if (!err)
		err = set(r, "instances",
			  json_incref(json_object_get(role, "taskNumber")));
	if (!err)
		err = keep3(c, member(rp, "taskNumber"), "taskRoles", name,
			    "instances");
	if (!err)
		err = completion(c, role, r, rp, name);
	if (!err)
		err = set(r, "dockerImage", json_string("default"));
	for (i = 0; i < 3 && !err; i++)
		if (has_dir(c, i))
			err = set(r, dir_keys[i][1], json_string("default"));
	if (!err)
		err = resources(c, role, r, rp, path, name);
	cmds = json_array();
	if (!err && (!cmds || json_array_append_new(cmds, json_string(cmd))))
		err = PAI_ENOMEM;
	if (!err)
		err = set(r, "commands", cmds);
	else
		json_decref(cmds);
	if (!err)
		err = keep3(c, member(rp, "command"), "taskRoles", name,
			    "commands");
	return err;
}

/* Two roles that v1.x would make one framework task role ("ps_server"
 * and "psserver"): their variables would mix and the cluster's routes
 * could not tell them apart. Refused at each later one. */
static int name_clashes(struct v1v2 *c)
{
	json_t *roles = json_object_get(c->cfg, "taskRoles");
	size_t n = json_array_size(roles), i, *first = NULL;
	const char **names = calloc(n ? n : 1, sizeof(*names));
	int err = names ? PAI_OK : PAI_ENOMEM;
	char path[48];

	for (i = 0; !err && i < n; i++)
		names[i] = json_string_value(
		    json_object_get(json_array_get(roles, i), "name"));
	if (!err && !(first = calloc(n ? n : 1, sizeof(*first))))
		err = PAI_ENOMEM;
	if (!err)
		err = pai__v2_role_clashes(first, names, n);
	for (i = 0; !err && i < n; i++) {
		if (first[i] == i)
			continue;
		snprintf(path, sizeof(path), "taskRoles[%zu]", i);
		err = REFUSE(c,
			     member(pai__pos_index(member(&c->pos, "taskRoles"),
						   i),
				    "name"),
			     path,
			     "roles '%s' and '%s' would both be the task role "
			     "of an OpenPAI v1.x cluster that protocol v2 "
			     "runs on: rename one",
			     names[first[i]], names[i]);
	}
	free(names);
	free(first);
	return err;
}

/* image, authFile and the three directories: prerequisites named
 * "default", as the converter names them. */
static int prerequisites(struct v1v2 *c, json_t *pre)
{
	static const char *const keys[] = {"image", "authFile", "dataDir",
					   "outputDir", "codeDir"};
	const char *auth =
	    json_string_value(json_object_get(c->cfg, "authFile"));
	json_t *img =
	    json_pack("{s:s, s:s, s:O}", "name", "default", "type",
		      "dockerimage", "uri", json_object_get(c->cfg, "image"));
	size_t i;
	int err;

	if (!img || json_array_append_new(pre, img))
		return PAI_ENOMEM;
	for (i = 0, err = PAI_OK; i < 3 && !err; i++) {
		json_t *uri = json_object_get(c->cfg, dir_keys[i][0]), *p;

		if (!has_dir(c, i))
			continue;
		p = json_pack(i == 0 ? "{s:s, s:s, s:[O]}" : "{s:s, s:s, s:O}",
			      "name", "default", "type", dir_keys[i][1], "uri",
			      uri);
		if (!p || json_array_append_new(pre, p))
			err = PAI_ENOMEM;
	}
	for (i = 0; i < 5 && !err; i++)
		err =
		    keep_comments(c, member(&c->pos, keys[i]), "prerequisites");
	/* The converter read authFile from HDFS at submission; offline the
	 * file cannot be read, and a placeholder would not validate. */
	if (!err && auth && *auth)
		err =
		    LOSE(c, member(&c->pos, "authFile"), "authFile",
			 PAI__RULE_AUTH_FILE,
			 "authFile '%s' is read on the cluster and cannot be "
			 "converted: the image is pulled without credentials; "
			 "add `auth` to prerequisite 'default' and the "
			 "password to `secrets`",
			 auth);
	return err;
}

/* jobEnvs become parameters, and the default deployment's preCommands
 * export them, as the converter does, with each value quoted for bash
 * (the converter wrote it bare). */
static int job_envs(struct v1v2 *c, json_t *precmds)
{
	json_t *envs = json_object_get(c->cfg, "jobEnvs"), *v, *params;
	const pai__pos *ep = member(&c->pos, "jobEnvs");
	const char *key;
	int err = PAI_OK;

	if (!json_is_object(envs))
		return PAI_OK;
	params = json_object();
	if (!params || set(c->doc, "parameters", params))
		return PAI_ENOMEM;
	err = keep_comments(c, ep, "parameters");
	json_object_foreach(envs, key, v)
	{
		pai__buf b = PAI__BUF_INIT;
		char *s;

		if (err || (err = set(params, key, json_incref(v))) ||
		    (err = keep3(c, member(ep, key), "parameters", key, NULL)))
			break;
		if (!v2_identifier(key)) {
			err = LOSE(c, member(ep, key), "jobEnvs",
				   PAI__RULE_ENV_NAME,
				   "'%s' is kept as a parameter but cannot be "
				   "exported: it is not a shell variable name",
				   key);
			continue;
		}
		s = pai__env_string(v);
		pai__buf_printf(&b, "export %s=", key);
		if (s)
			pai__shell_quote(&b, s);
		free(s);
		s = pai__buf_detach(&b);
		if (!s || json_array_append_new(precmds, json_string(s)))
			err = PAI_ENOMEM;
		free(s);
	}
	return err;
}

static int dir_exports(struct v1v2 *c, json_t *precmds)
{
	static const char *const cmds[] = {
	    "export PAI_DATA_DIR=<% $data.uri[0] %>",
	    "export PAI_OUTPUT_DIR=<% $output.uri %>",
	    "export PAI_CODE_DIR=<% $script.uri %>"};
	size_t i;

	for (i = 0; i < 3; i++)
		if (has_dir(c, i) &&
		    json_array_append_new(precmds, json_string(cmds[i])))
			return PAI_ENOMEM;
	return PAI_OK;
}

/* One deployment, "default", giving every role the same preCommands;
 * none when there is nothing to run (v2 wants preCommands non-empty). */
static int deployments(struct v1v2 *c, json_t *precmds, json_t *defaults)
{
	json_t *dep, *roles, *r;
	const char *key;

	if (!json_array_size(precmds))
		return PAI_OK;
	roles = json_object();
	dep = json_pack("[{s:s, s:o}]", "name", "default", "taskRoles", roles);
	if (!dep || set(c->doc, "deployments", dep))
		return PAI_ENOMEM;
	json_object_foreach(json_object_get(c->doc, "taskRoles"), key, r)
	{
		if (set(roles, key, json_pack("{s:O}", "preCommands", precmds)))
			return PAI_ENOMEM;
	}
	return set(defaults, "deployment", json_string("default"));
}

/* Top-level fields v2 has no place for. */
static int dropped(struct v1v2 *c)
{
	const char *gpu = json_string_value(json_object_get(c->cfg, "gpuType"));
	json_t *kill = json_object_get(c->cfg, "killAllOnCompletedTaskNumber");
	json_t *retry = json_object_get(c->cfg, "retryCount");
	int err = PAI_OK;

	if (gpu && *gpu)
		err = LOSE(c, member(&c->pos, "gpuType"), "gpuType",
			   PAI__RULE_DROPPED,
			   "protocol v2 has no gpuType; name the SKU in "
			   "extras.hivedScheduler.taskRoles.<role>.skuType "
			   "instead ('%s' is dropped)",
			   gpu);
	if (!err && kill)
		err = LOSE(c, member(&c->pos, "killAllOnCompletedTaskNumber"),
			   "killAllOnCompletedTaskNumber", PAI__RULE_DROPPED,
			   "killAllOnCompletedTaskNumber is obsolete and "
			   "dropped; the roles' completion says when the job "
			   "ends");
	if (!err && json_integer_value(retry) < 0)
		err = LOSE(c, member(&c->pos, "retryCount"), "retryCount",
			   PAI__RULE_RETRY,
			   "jobRetryCount cannot be negative in protocol v2; "
			   "retryCount %" JSON_INTEGER_FORMAT " becomes 0",
			   json_integer_value(retry));
	return err;
}

/* The document's members in the v2 order, filled in afterwards; the
 * placeholders left null go at the end. */
static int skeleton(struct v1v2 *c, json_t *pre, json_t *roles,
		    json_t *defaults)
{
	json_t *doc = c->doc;
	const char *jn = json_string_value(json_object_get(c->cfg, "jobName"));
	json_int_t rc =
	    json_integer_value(json_object_get(c->cfg, "retryCount"));

	if (json_object_set_new(doc, "protocolVersion", json_string("2")) ||
	    json_object_set_new(doc, "name", json_string(jn)) ||
	    json_object_set_new(doc, "type", json_string("job")) ||
	    json_object_set_new(doc, "jobRetryCount",
				json_integer(rc > 0 ? rc : 0)) ||
	    json_object_set(doc, "prerequisites", pre) ||
	    json_object_set_new(doc, "parameters", json_null()) ||
	    json_object_set(doc, "taskRoles", roles) ||
	    json_object_set_new(doc, "deployments", json_null()) ||
	    json_object_set(doc, "defaults", defaults))
		return PAI_ENOMEM;
	return PAI_OK;
}

/* The job's name, which v2 takes only of letters, digits, _ and -, and
 * the comments around it and around retryCount. */
static int job_name(struct v1v2 *c)
{
	const char *jn = json_string_value(json_object_get(c->cfg, "jobName"));
	int err = PAI_OK;

	if (strspn(jn, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		       "0123456789_-") != strlen(jn))
		err =
		    REFUSE(c, member(&c->pos, "jobName"), "jobName",
			   "job name '%s' is not a protocol-v2 name (letters, "
			   "digits, _ and -)",
			   jn);
	if (!err)
		err = keep_comments(c, member(&c->pos, "jobName"), "name");
	if (!err)
		err = keep_comments(c, member(&c->pos, "retryCount"),
				    "jobRetryCount");
	return err;
}

static int top(struct v1v2 *c)
{
	const char *vc =
	    json_string_value(json_object_get(c->cfg, "virtualCluster"));
	json_t *pre = json_array(), *roles = json_object(), *r;
	json_t *defaults = json_object(), *precmds = json_array();
	size_t i;
	int err;

	err = skeleton(c, pre, roles, defaults);
	if (!err && !precmds)
		err = PAI_ENOMEM;
	if (!err)
		err = job_name(c);
	if (!err)
		err = dropped(c);
	if (!err)
		err = prerequisites(c, pre);
	if (!err)
		err = dir_exports(c, precmds);
	if (!err)
		err = job_envs(c, precmds);
	if (!err)
		err = name_clashes(c);
	if (!err)
		err =
		    keep_comments(c, member(&c->pos, "taskRoles"), "taskRoles");
	json_array_foreach(json_object_get(c->cfg, "taskRoles"), i, r)
	{
		if (!err)
			err = role(c, roles, r, i);
	}
	if (!err)
		err = set(defaults, "virtualCluster",
			  json_string(vc && *vc ? vc : "default"));
	if (!err)
		err = keep_comments(c, member(&c->pos, "virtualCluster"),
				    "defaults");
	if (!err)
		err = deployments(c, precmds, defaults);
	json_decref(pre);
	json_decref(roles);
	json_decref(defaults);
	json_decref(precmds);
	return err;
}

/* extras pass through as they are, and so do their comments. */
static int extras(struct v1v2 *c)
{
	json_t *ex = json_object_get(c->cfg, "extras");
	const pai__pos *xp = member(&c->pos, "extras");
	const char *key;
	json_t *v;
	int err;

	if (!ex)
		return PAI_OK;
	err = set(c->doc, "extras", json_incref(ex));
	if (!err)
		err = keep_comments(c, xp, "extras");
	json_object_foreach(ex, key, v)
	{
		if (!err)
			err = keep3(c, member(xp, key), "extras", key, NULL);
	}
	return err;
}

static void drop_nulls(json_t *doc)
{
	static const char *const keys[] = {"parameters", "deployments"};
	size_t i;

	for (i = 0; i < 2; i++)
		if (json_is_null(json_object_get(doc, keys[i])))
			json_object_del(doc, keys[i]);
}

static int load_source(struct v1v2 *c, const char *name, const char *text,
		       size_t len)
{
	pai_diags *scratch = NULL;
	size_t k = 0;
	int err = pai_diags_new(&scratch);

	if (!err)
		err = pai__src_init(&c->src, scratch, name, text, len);
	if (!err)
		err = pai__src_parse(&c->orig, &c->pos, &c->src, scratch);
	if (!err)
		err = collect_comments(c);
	if (!err)
		attach(c, &c->pos, &k);
	pai_diags_free(scratch);
	return err;
}

int pai__convert_v1_to_v2(pai__buf *out, pai_diags *diags, const char *name,
			  const char *text, size_t len, const pai_job *job)
{
	struct v1v2 c;
	size_t i;
	int err;

	memset(&c, 0, sizeof(c));
	c.diags = diags;
	c.cfg = pai_job_config(job);
	c.doc = json_object();
	c.comments = json_object();
	err =
	    c.doc && c.comments ? load_source(&c, name, text, len) : PAI_ENOMEM;
	if (!err)
		err = top(&c);
	if (!err)
		err = extras(&c);
	if (!err)
		err = leftover_comments(&c);
	if (!err && c.refused)
		err = PAI_EINVALID;
	if (!err) {
		drop_nulls(c.doc);
		err = pai__yaml_emit(out, c.doc, c.comments);
	}
	for (i = 0; i < c.ncmts; i++)
		free(c.cmts[i].text);
	free(c.cmts);
	json_decref(c.doc);
	json_decref(c.comments);
	json_decref(c.orig);
	pai__pos_release(&c.pos);
	pai__src_release(&c.src);
	return err;
}
