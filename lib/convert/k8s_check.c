/* k8s_check.c - what a job config says that Kubernetes cannot (errors:
 * nothing is converted) or says a little differently (warnings), each at
 * its place in the file with a "k8s-*" rule, as reference/kubernetes.md
 * lists them; and the names the conversion derived. */
#include "convert.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

long long pai__k8s_tasks(const pai_job *job, size_t r)
{
	pai_role ro;

	return pai_job_role(&ro, job, r) ? 0 : ro.task_number;
}

/* v1: the job's image; v2: the uri of the role's dockerimage. */
const char *pai__k8s_role_image(const pai_job *job, size_t r)
{
	json_t *cfg = pai_job_config(job), *pre;
	const char *want;
	size_t i;

	if (pai_job_format(job) == PAI_FORMAT_V1)
		return json_string_value(json_object_get(cfg, "image"));
	want = json_string_value(
	    json_object_get(job->roles[r].spec, "dockerImage"));
	json_array_foreach(json_object_get(cfg, "prerequisites"), i, pre)
	{
		const char *n = json_string_value(json_object_get(pre, "name"));

		if (n && want && strcmp(n, want) == 0)
			return json_string_value(json_object_get(pre, "uri"));
	}
	return NULL;
}

static int v2(const struct pai__k8s_conv *c)
{
	return pai_job_format(c->k.job) == PAI_FORMAT_V2;
}

static size_t key_off(const pai__pos *p)
{
	return p ? p->key_off : PAI__NO_OFFSET;
}

static const pai__pos *top(const struct pai__k8s_conv *c, const char *key)
{
	return pai__pos_member(&c->pos, key);
}

static const pai__pos *role_pos(const struct pai__k8s_conv *c, size_t r)
{
	const pai__pos *roles = top(c, "taskRoles");

	if (!roles)
		return NULL;
	if (v2(c) && roles->nchild && roles->child[0].key)
		return pai__pos_member(roles, c->k.job->roles[r].r.name);
	return pai__pos_index(roles, r);
}

static const pai__pos *role_member(const struct pai__k8s_conv *c, size_t r,
				   const char *key)
{
	const pai__pos *p = role_pos(c, r);

	return p ? pai__pos_member(p, key) : NULL;
}

/* "taskRoles[1].field" (v1) or "taskRoles.name.field" (v2). */
static char *role_path(const struct pai__k8s_conv *c, size_t r,
		       const char *field)
{
	pai__buf b = PAI__BUF_INIT;

	if (v2(c))
		pai__path_member(&b, "taskRoles", c->k.job->roles[r].r.name);
	else
		pai__buf_printf(&b, "taskRoles[%zu]", r);
	if (field && *field)
		pai__buf_printf(&b, ".%s", field);
	return pai__buf_detach(&b);
}

void pai__k8s_say(struct pai__k8s_conv *c, size_t off, pai_severity sev,
		  const char *path, const char *rule, const char *msg)
{
	if (sev == PAI_SEVERITY_ERROR)
		c->refused = 1;
	if (pai__diag_add(c->diags, &c->src, off, sev, path ? path : "", rule,
			  "%s", msg))
		c->err = PAI_ENOMEM;
}

void pai__k8s_say_role(struct pai__k8s_conv *c, size_t r, const char *field,
		       pai_severity sev, const char *rule, const char *msg)
{
	const pai__pos *at = role_member(c, r, field);
	char *path = role_path(c, r, at ? field : "");

	pai__k8s_say(c, at ? at->key_off : key_off(role_pos(c, r)), sev, path,
		     rule, msg);
	free(path);
}

void pai__k8s_sayf_role(struct pai__k8s_conv *c, size_t r, const char *field,
			pai_severity sev, const char *rule, const char *fmt,
			...)
{
	pai__buf b = PAI__BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	pai__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	pai__k8s_say_role(c, r, field, sev, rule,
			  b.oom ? "out of memory" : b.data);
	pai__buf_release(&b);
}

#define ERROR PAI_SEVERITY_ERROR
#define WARN  PAI_SEVERITY_WARNING

const char *pai__k8s_completion_key(const struct pai__k8s_conv *c, int failed)
{
	if (v2(c))
		return "completion";
	return failed ? "minFailedTaskCount" : "minSucceededTaskCount";
}

/* minFailed 1: the job fails at its first failed pod (the kind's own
 * completion rules, minSucceeded, are its writer's check). */
static void completion(struct pai__k8s_conv *c, size_t r)
{
	pai_role ro;

	if (pai_job_role(&ro, c->k.job, r))
		return;
	if (ro.min_failed != 1)
		pai__k8s_sayf_role(
		    c, r, pai__k8s_completion_key(c, 1), ERROR,
		    PAI__RULE_K8S_MIN_FAILED,
		    "minimum failed tasks %s: %s fails at its first failed "
		    "pod, or fails at the end when any pod failed; it cannot "
		    "count failures",
		    ro.min_failed < 0 ? "null" : "above 1", c->w->title);
}

/* The retry count, at least 0, into c->retry; what the kind makes of
 * it is its writer's check (pai__k8s_say_retry()). */
static void retry(struct pai__k8s_conv *c)
{
	const char *key = v2(c) ? "jobRetryCount" : "retryCount";

	c->retry =
	    json_integer_value(json_object_get(pai_job_config(c->k.job), key));
	c->unlimited = c->retry < 0;
	if (c->retry < 0)
		c->retry = 0;
}

void pai__k8s_say_retry(struct pai__k8s_conv *c, const char *msg)
{
	const char *key = v2(c) ? "jobRetryCount" : "retryCount";

	pai__k8s_say(c, key_off(top(c, key)), ERROR, key, PAI__RULE_K8S_RETRY,
		     msg);
}

void pai__k8s_say_top(struct pai__k8s_conv *c, const char *key,
		      pai_severity sev, const char *rule, const char *msg)
{
	pai__k8s_say(c, key_off(top(c, key)), sev, key, rule, msg);
}

static void names(struct pai__k8s_conv *c)
{
	const char *orig = c->k.job->name ? c->k.job->name : "";
	const char *key = v2(c) ? "name" : "jobName";
	size_t r;

	if (strcmp(orig, c->k.name)) {
		pai__buf b = PAI__BUF_INIT;

		pai__buf_printf(&b,
				"the job is named '%s' on Kubernetes ('%s' is "
				"not a DNS label of at most %d characters with "
				"its pods' names); PAI_JOB_NAME and the "
				"annotation paictl/job-name keep '%s'",
				c->k.name, orig, 63, orig);
		pai__k8s_say(c, key_off(top(c, key)), WARN, key,
			     PAI__RULE_K8S_NAME,
			     b.oom ? "out of memory" : b.data);
		pai__buf_release(&b);
	}
	for (r = 0; r < c->k.nroles; r++) {
		const char *n = c->k.job->roles[r].r.name;

		if (strcmp(n, c->k.roles[r].task))
			pai__k8s_sayf_role(
			    c, r, "name", WARN, PAI__RULE_K8S_NAME,
			    "role '%s' is the %s '%s' on Kubernetes "
			    "(the annotation paictl/task-role keeps "
			    "its name)",
			    n, c->w->task_word, c->k.roles[r].task);
	}
}

/* The kind's tasks as words: "ps, worker and heter". */
static void task_list(pai__buf *b, const char *const *t)
{
	size_t i;

	for (i = 0; t[i]; i++)
		pai__buf_printf(b, "%s%s",
				!i	   ? ""
				: t[i + 1] ? ", "
					   : " and ",
				t[i]);
}

/* pai__k8s_init()'s refusals. */
static void clash(struct pai__k8s_conv *c)
{
	size_t a = (size_t)c->k.clash_a;
	pai__buf b = PAI__BUF_INIT;

	if (c->k.clash_b >= 0) {
		pai__k8s_sayf_role(
		    c, (size_t)c->k.clash_b, "name", ERROR, PAI__RULE_K8S_NAME,
		    "roles '%s' and '%s' both become the task "
		    "'%s' on Kubernetes: rename one",
		    c->k.job->roles[a].r.name,
		    c->k.job->roles[c->k.clash_b].r.name,
		    c->k.roles[a].task ? c->k.roles[a].task : "?");
		return;
	}
	/* a kind of one task: any role beside the first is one too many */
	if (c->k.kind->lone && c->k.kind->tasks && !c->k.kind->tasks[1]) {
		pai__k8s_sayf_role(
		    c, a, "name", ERROR, c->w->role_rule,
		    "%s runs one role, its %s '%s', every task the same "
		    "command and variables: this config has %zu (convert --to "
		    "jobset runs several)",
		    c->w->title, c->w->task_word, c->k.kind->lone, c->k.nroles);
		return;
	}
	task_list(&b, c->k.kind->tasks);
	pai__k8s_sayf_role(c, a, "name", ERROR, c->w->role_rule,
			   "%s has the %ss %s: role '%s' is none of them",
			   c->w->title, c->w->task_word, b.oom ? "?" : b.data,
			   c->k.job->roles[a].r.name);
	pai__buf_release(&b);
}

/* A '~' in a role or port label makes variable names bash cannot read
 * and older clusters refuse. */
static void env_names(struct pai__k8s_conv *c, size_t r)
{
	pai_role ro;
	pai_port p;
	size_t j;

	if (pai_job_role(&ro, c->k.job, r))
		return;
	if (strchr(ro.name, '~'))
		pai__k8s_say_role(
		    c, r, "name", ERROR, PAI__RULE_K8S_ENV_NAME,
		    "a role name with '~' gives $PAI_* variable names "
		    "that a pod's environment cannot hold");
	for (j = 0; j < ro.port_count; j++)
		if (!pai_job_port(&p, c->k.job, r, j) && strchr(p.label, '~'))
			pai__k8s_sayf_role(
			    c, r, v2(c) ? "resourcePerInstance" : "portList",
			    ERROR, PAI__RULE_K8S_ENV_NAME,
			    "port label '%s' has '~', which a variable "
			    "name in a pod's environment cannot hold",
			    p.label);
		else if (!pai_job_port(&p, c->k.job, r, j) &&
			 !c->k.roles[r].port[j])
			pai__k8s_sayf_role(
			    c, r, v2(c) ? "resourcePerInstance" : "portList",
			    ERROR, PAI__RULE_K8S_PORT,
			    "no room for the %lld port(s) of label '%s' "
			    "below 65536",
			    p.port_number, p.label);
}

/* A command that reads a variable a pod on Kubernetes does not get. */
static void refs(struct pai__k8s_conv *c, size_t r)
{
	struct pai__cmd_ref *ref = NULL;
	json_t *dropped = NULL;
	pai_env *env = NULL, *assigned = pai__env_new();
	const char *cmd = c->k.job->roles[r].r.command;
	size_t j, n = 0;
	int err = assigned ? pai__k8s_pod_env(&env, &dropped, &c->k, r, 0, 1)
			   : PAI_ENOMEM;

	if (!err && json_object_update_missing(dropped, c->dropped))
		err = PAI_ENOMEM;

	if (!err && cmd)
		err = pai__command_refs(&ref, &n, assigned, cmd, strlen(cmd));
	for (j = 0; !err && j < n; j++) {
		const char *key = v2(c) ? "commands" : "command";
		const pai__pos *at = role_member(c, r, key);
		size_t off = at ? at->key_off : key_off(role_pos(c, r));
		char *name = strndup(ref[j].name, ref[j].len);
		char *path = role_path(c, r, key);
		pai__buf b = PAI__BUF_INIT;

		if (name && path && json_object_get(dropped, name)) {
			const char *v =
			    json_string_value(json_object_get(dropped, name));

			if (at && !v2(c))
				off = pai__src_string_offset(&c->src, at->off,
							     ref[j].at);
			if (v && strstr(v, "<default-fs>"))
				pai__buf_printf(&b,
						"$%s has no value on "
						"Kubernetes without a default "
						"file system: give its URI "
						"(--default-fs, or 'cluster "
						"add --default-fs')",
						name);
			else
				pai__buf_printf(&b,
						"$%s has no value on "
						"Kubernetes (no default file "
						"system, user or OpenPAI "
						"framework there)",
						name);
			pai__k8s_say(c, off, ERROR, path,
				     PAI__RULE_K8S_VARIABLE,
				     b.oom ? "out of memory" : b.data);
		} else if (!name || !path) {
			err = PAI_ENOMEM;
		}
		pai__buf_release(&b);
		free(path);
		free(name);
	}
	if (err)
		c->err = err;
	free(ref);
	pai_env_free(env);
	pai_env_free(assigned);
	json_decref(dropped);
}

static void dropped_v1(struct pai__k8s_conv *c)
{
	static const char *const dirs[] = {"dataDir", "outputDir", "codeDir"};
	json_t *cfg = pai_job_config(c->k.job);
	const char *s;
	size_t i;

	s = json_string_value(json_object_get(cfg, "authFile"));
	if (s && *s)
		pai__k8s_say(
		    c, key_off(top(c, "authFile")), ERROR, "authFile",
		    PAI__RULE_K8S_AUTH_FILE,
		    "a registry's credentials are an imagePullSecret on "
		    "Kubernetes: create one and add it to the pods; remove "
		    "authFile to convert");
	for (i = 0; i < 3; i++) {
		s = json_string_value(json_object_get(cfg, dirs[i]));
		if (s && *s)
			pai__k8s_say(
			    c, key_off(top(c, dirs[i])), WARN, dirs[i],
			    PAI__RULE_K8S_HDFS,
			    "nothing on Kubernetes copies or mounts this HDFS "
			    "directory; only its variable is set");
	}
	if (json_object_get(cfg, "gpuType"))
		pai__k8s_say(
		    c, key_off(top(c, "gpuType")), WARN, "gpuType",
		    PAI__RULE_K8S_DROPPED,
		    "dropped: Kubernetes has no standard node label for a GPU "
		    "type (add a nodeSelector by hand)");
	if (json_object_get(cfg, "killAllOnCompletedTaskNumber"))
		pai__k8s_say(c, key_off(top(c, "killAllOnCompletedTaskNumber")),
			     WARN, "killAllOnCompletedTaskNumber",
			     PAI__RULE_K8S_DROPPED,
			     "dropped: use minSucceededTaskCount");
}

static const char *virtual_cluster(const struct pai__k8s_conv *c)
{
	json_t *cfg = pai_job_config(c->k.job);

	if (v2(c))
		cfg = json_object_get(cfg, "defaults");
	return json_string_value(json_object_get(cfg, "virtualCluster"));
}

static void dropped_common(struct pai__k8s_conv *c)
{
	json_t *cfg = pai_job_config(c->k.job);
	const char *vc = virtual_cluster(c);

	if (json_object_get(cfg, "extras"))
		pai__k8s_say(
		    c, key_off(top(c, "extras")), WARN, "extras",
		    PAI__RULE_K8S_DROPPED,
		    "dropped: extras (runtime plugins and the like) mean "
		    "nothing to Kubernetes");
	if (v2(c) && json_object_size(json_object_get(cfg, "secrets")))
		pai__k8s_say(
		    c, key_off(top(c, "secrets")), WARN, "secrets",
		    PAI__RULE_K8S_SECRETS,
		    "the secrets are written into the pods' commands in the "
		    "manifest, readable by whoever can read the job");
	const pai__pos *at = v2(c) ? top(c, "defaults") : &c->pos;

	at = at ? pai__pos_member(at, "virtualCluster") : NULL;
	if (!c->k.o.queue && vc && strcmp(vc, "default"))
		pai__k8s_say(c, key_off(at), WARN,
			     v2(c) ? "defaults.virtualCluster"
				   : "virtualCluster",
			     PAI__RULE_K8S_QUEUE, c->w->no_queue);
}

/* A jobEnv the kind's controller sets after the pod's own (a
 * PyTorchJob's MASTER_ADDR...): the pods get the controller's. */
static void own_env(struct pai__k8s_conv *c)
{
	json_t *envs = json_object_get(pai_job_config(c->k.job), "jobEnvs");
	const pai__pos *at = top(c, "jobEnvs");
	const char *name;
	json_t *v;

	if (v2(c))
		return; /* a v2 config's parameters are not variables */
	json_object_foreach(envs, name, v)
	{
		pai__buf b = PAI__BUF_INIT;
		const pai__pos *e = at ? pai__pos_member(at, name) : NULL;
		const struct pai__k8s_own *own = pai__k8s_own_env(&c->k, name);

		if (!own || own->job_wins)
			continue;
		pai__buf_printf(&b, "jobEnvs.%s", name);
		pai__k8s_say(c, key_off(e ? e : at), WARN,
			     b.oom ? "jobEnvs" : b.data, PAI__RULE_K8S_DROPPED,
			     c->w->own_env_msg);
		pai__buf_release(&b);
	}
}

static void ssh_label(struct pai__k8s_conv *c, size_t r)
{
	pai_port p;
	size_t j;

	for (j = 0; j < c->k.roles[r].nports; j++)
		if (!pai_job_port(&p, c->k.job, r, j) && !p.implicit &&
		    strcmp(p.label, "ssh") == 0)
			pai__k8s_say_role(
			    c, r, v2(c) ? "resourcePerInstance" : "portList",
			    WARN, PAI__RULE_K8S_SSH,
			    "no sshd runs for the 'ssh' port on "
			    "Kubernetes: the image must start one");
}

/* The bytes of an object as the API server receives it (compact JSON),
 * and of a ConfigMap's data as it counts them. */
static size_t object_bytes(json_t *d, int data_only)
{
	const char *k;
	size_t n = 0;
	json_t *v;

	if (!data_only)
		return json_dumpb(d, NULL, 0, JSON_COMPACT);
	json_object_foreach(json_object_get(d, "data"), k, v) n +=
	    strlen(k) + json_string_length(v);
	return n;
}

int pai__k8s_check_size(struct pai__k8s_conv *c, json_t *docs)
{
	static const size_t max_object = 1572864, max_data = 1048576;
	const pai__pos *at = top(c, "taskRoles");
	size_t i, n;
	json_t *d;

	json_array_foreach(docs, i, d)
	{
		const char *kind =
		    json_string_value(json_object_get(d, "kind"));
		int cm = kind && strcmp(kind, "ConfigMap") == 0;
		pai__buf b = PAI__BUF_INIT;

		n = object_bytes(d, cm);
		if (n <= (cm ? max_data : max_object))
			continue;
		pai__buf_printf(
		    &b,
		    "the %s would hold %zu bytes%s; Kubernetes "
		    "stores at most %s: split the job, or give "
		    "its roles fewer tasks",
		    kind ? kind : "object", n, cm ? " of variables" : "",
		    cm ? "1 MiB in a ConfigMap" : "1.5 MiB in an object");
		pai__k8s_say(c, key_off(at), ERROR, "taskRoles",
			     PAI__RULE_K8S_TOO_LARGE,
			     b.oom ? "out of memory" : b.data);
		pai__buf_release(&b);
	}
	return c->err;
}

int pai__k8s_check(struct pai__k8s_conv *c)
{
	size_t r;

	if (c->k.clash_a >= 0) {
		clash(c);
		return c->err;
	}
	if ((c->err = pai__k8s_shared_env(&c->shared, &c->dropped, &c->k)))
		return c->err;
	names(c);
	retry(c);
	c->total = 0;
	for (r = 0; r < c->k.nroles; r++) {
		c->total += pai__k8s_tasks(c->k.job, r);
		completion(c, r);
		env_names(c, r);
		ssh_label(c, r);
		refs(c, r);
	}
	c->w->check(c);
	own_env(c);
	if (!v2(c))
		dropped_v1(c);
	dropped_common(c);
	pai__diags_sort_from(c->diags, 0);
	return c->err;
}

int pai__k8s_conv_init(struct pai__k8s_conv *c, pai_diags *diags,
		       const pai_job *job, const char *name, const char *text,
		       size_t len, const pai_k8s_options *opts)
{
	pai_diags *scratch = NULL;
	int err = pai_diags_new(&scratch);

	c->diags = diags;
	if (!err && pai_job_format(job) == PAI_FORMAT_V2)
		err = pai__src_init_yaml(&c->src, scratch, name, text, len);
	else if (!err)
		err = pai__src_init(&c->src, scratch, name, text, len);
	if (!err && pai_job_format(job) == PAI_FORMAT_V2)
		err = pai__yaml_parse(&c->root, &c->pos, &c->src, scratch);
	else if (!err)
		err = pai__src_parse(&c->root, &c->pos, &c->src, scratch);
	pai_diags_free(scratch);
	if (!err)
		err = pai__k8s_init(&c->k, job, opts);
	return err == PAI_EINVALID ? PAI_OK : err;
}

void pai__k8s_conv_release(struct pai__k8s_conv *c)
{
	pai__k8s_release(&c->k);
	json_decref(c->root);
	json_decref(c->shared);
	json_decref(c->dropped);
	free(c->cm_name);
	pai__pos_release(&c->pos);
	pai__src_release(&c->src);
}
