/* k8s.c - pai_job_to_k8s(): a job config as Kubernetes objects
 * (reference/kubernetes.md): what every kind shares, the kind's own
 * object its writer's (k8s_volcano.c, k8s_paddlejob.c, ...), found once
 * by the kind. The variables every pod shares go
 * into a ConfigMap that each container reads with envFrom, so that a
 * job of many roles does not repeat its host lists in every template;
 * what is the role's own goes into the template's env (every '$'
 * doubled, as the kubelet reads "$$" as '$' and "$(X)" as a reference);
 * the pod's index, name and IP come from the downward API or, where the
 * controller gives the index as a variable, a line of bash before the
 * command. What
 * Kubernetes cannot express is refused here (k8s_check.c), with the
 * config's places. */
#include "convert.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static json_t *str(const char *s)
{
	return json_string(s ? s : "");
}

/* "$" written "$$": what the kubelet turns back into the text. */
static json_t *kubelet_literal(const char *s)
{
	pai__buf b = PAI__BUF_INIT;
	json_t *v;

	for (; *s; s++) {
		if (*s == '$')
			pai__buf_putc(&b, '$');
		pai__buf_putc(&b, *s);
	}
	v = b.oom ? NULL : json_stringn(b.data ? b.data : "", b.len);
	pai__buf_release(&b);
	return v;
}

int pai__k8s_label_value(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > 63 || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return 0;
	return 1;
}

/* What paictl finds its objects by: the label every object it makes
 * has (`paictl list`), and for a job whose name Kubernetes could not
 * take as it is, that name (`paictl status Wide_And_Deep`). */
static json_t *labels(struct pai__k8s_conv *c)
{
	const char *orig = c->k.job->name ? c->k.job->name : "";
	json_t *l =
	    json_pack("{s:s}", "app.kubernetes.io/managed-by", "paictl");

	if (l && strcmp(orig, c->k.name) != 0 && pai__k8s_label_value(orig))
		json_object_set_new(l, "paictl/job-name", str(orig));
	return l;
}

json_t *pai__k8s_meta(struct pai__k8s_conv *c, const char *name)
{
	json_t *m = json_pack("{s:s}", "name", name);

	if (m && c->k.o.ns)
		json_object_set_new(m, "namespace", str(c->k.o.ns));
	if (m) {
		json_object_set_new(m, "labels", labels(c));
		json_object_set_new(
		    m, "annotations",
		    json_pack("{s:s}", "paictl/job-name",
			      c->k.job->name ? c->k.job->name : ""));
	}
	return m;
}

static json_t *field_ref(const char *name, const char *path)
{
	return json_pack("{s:s,s:{s:{s:s}}}", "name", name, "valueFrom",
			 "fieldRef", "fieldPath", path);
}

/* One of the task's own variables (pod 0 of role r) as an env entry, or
 * a line of the preamble. */
static int env_entry(struct pai__k8s_conv *c, size_t r, const char *n,
		     const char *v, json_t *env, pai__buf *pre)
{
	const struct pai__k8s_kind *kind = c->k.kind;
	json_t *e = NULL;

	if (pai__k8s_is_job_env(c->k.job, n))
		return PAI_OK; /* the ConfigMap has it (or, inline, env) */
	switch (pai__k8s_var_kind(&c->k, r, 0, n, v)) {
	case PAI__K8S_STATIC:
		e = json_pack("{s:s,s:o}", "name", n, "value",
			      kubelet_literal(v));
		break;
	case PAI__K8S_INDEX:
		if (kind->index_ref) {
			e = field_ref(n, kind->index_ref);
			break;
		}
		pai__buf_printf(pre, "export %s=\"$%s\"\n", n, kind->index_var);
		return PAI_OK;
	case PAI__K8S_POD_NAME: e = field_ref(n, "metadata.name"); break;
	case PAI__K8S_POD_IP: e = field_ref(n, "status.podIP"); break;
	case PAI__K8S_WORK_DIR:
		pai__buf_printf(pre, "export %s=\"$PWD\"\n", n);
		return PAI_OK;
	}
	return json_array_append_new(env, e) ? PAI_ENOMEM : PAI_OK;
}

/* A role whose pods differ in something other than the index, name, IP
 * or working directory would be given pod 0's value everywhere: a bug
 * here, never written. */
static int same_pods(struct pai__k8s_conv *c, size_t r, const pai_env *e0)
{
	pai_env *e1 = NULL;
	size_t j, n;
	int err;

	if (pai__k8s_tasks(c->k.job, r) < 2)
		return PAI_OK;
	if ((err = pai__k8s_pod_env(&e1, NULL, &c->k, r, 1, 1)))
		return err;
	n = pai_env_count(e1);
	for (j = 0; !err && j < n; j++) {
		const char *k = pai_env_name(e1, j), *v = pai_env_value(e1, j);
		const char *v0 = pai_env_get(e0, k);

		if (!v0 ||
		    (pai__k8s_var_kind(&c->k, r, 1, k, v) == PAI__K8S_STATIC &&
		     strcmp(v, v0) != 0))
			err = c->k.scratch.oom ? PAI_ENOMEM : PAI_ERROR;
	}
	pai_env_free(e1);
	return err;
}

#define COMMAND_MARK "# the job's command, as written:\n"

/* The variables every pod shares, first in env: for a kind that takes
 * no envFrom, what the ConfigMap would have held. */
static int shared_inline(struct pai__k8s_conv *c, json_t *env)
{
	const char *n;
	json_t *v;

	if (!c->w->env_inline)
		return PAI_OK;
	json_object_foreach(c->shared, n, v)
	{
		if (json_array_append_new(
			env, json_pack("{s:s,s:o}", "name", n, "value",
				       kubelet_literal(json_string_value(v)
							   ? json_string_value(v)
							   : ""))))
			return PAI_ENOMEM;
	}
	return PAI_OK;
}

/* env (the template's entries) and args ("bash -c" script) of role r. */
static int role_env(struct pai__k8s_conv *c, size_t r, json_t *env,
		    json_t **args)
{
	pai__buf pre = PAI__BUF_INIT;
	pai_env *e = NULL;
	char *cmd = NULL;
	size_t j, n;
	int err = shared_inline(c, env);

	if (!err)
		err = pai__k8s_pod_env(&e, NULL, &c->k, r, 0, 1);
	if (!err)
		err = same_pods(c, r, e);
	n = pai_env_count(e);
	for (j = 0; !err && j < n; j++)
		err = env_entry(c, r, pai_env_name(e, j), pai_env_value(e, j),
				env, &pre);
	if (!err && c->k.scratch.oom)
		err = PAI_ENOMEM;
	if (!err)
		err = pai_job_role_entrypoint(&cmd, c->k.job, r);
	if (!err) {
		pai__buf_puts(&pre, COMMAND_MARK);
		pai__buf_puts(&pre, cmd);
		err = pre.oom ? PAI_ENOMEM : PAI_OK;
	}
	if (!err && !(*args = json_pack("[o]", kubelet_literal(pre.data))))
		err = PAI_ENOMEM;
	free(cmd);
	pai__buf_release(&pre);
	pai_env_free(e);
	return err;
}

static json_t *resources(const pai_role *ro)
{
	json_t *q = json_object();
	char v[40];

	if (ro->cpu_number > 0) {
		snprintf(v, sizeof(v), "%lld", ro->cpu_number);
		json_object_set_new(q, "cpu", str(v));
	}
	if (ro->memory_mb > 0) {
		snprintf(v, sizeof(v), "%lldMi", ro->memory_mb);
		json_object_set_new(q, "memory", str(v));
	}
	if (ro->gpu_number > 0) {
		snprintf(v, sizeof(v), "%lld", ro->gpu_number);
		json_object_set_new(q, "nvidia.com/gpu", str(v));
	}
	return json_pack("{s:O,s:o}", "requests", q, "limits", q);
}

/* The role's ports by label, "tb:6006,6007;http:10000", the format of
 * OpenPAI's $PAI_CONTAINER_HOST_PORT_LIST, for the template's
 * paictl/ports annotation: what `paictl status` shows of each pod.
 * NULL when out of memory. */
static json_t *port_labels(struct pai__k8s_conv *c, size_t r)
{
	const struct pai__k8s_role *kr = &c->k.roles[r];
	pai__buf b = PAI__BUF_INIT;
	json_t *v;
	size_t j;
	pai_port p;

	for (j = 0; j < kr->nports; j++) {
		long long n;

		if (pai_job_port(&p, c->k.job, r, j))
			continue;
		pai__buf_printf(&b, "%s%s:", b.len ? ";" : "", p.label);
		for (n = 0; n < p.port_number; n++)
			pai__buf_printf(&b, "%s%lld", n ? "," : "",
					kr->port[j] + n);
	}
	v = b.oom ? NULL : json_string(b.data ? b.data : "");
	pai__buf_release(&b);
	return v;
}

/* Every port of every label, once; named when the kind's controller
 * makes a Service of them (a Service of several ports names each). */
static json_t *ports(struct pai__k8s_conv *c, size_t r)
{
	const struct pai__k8s_role *kr = &c->k.roles[r];
	json_t *a = json_array(), *seen = json_object();
	size_t j;
	pai_port p;

	for (j = 0; a && seen && j < kr->nports; j++) {
		long long n;

		if (pai_job_port(&p, c->k.job, r, j))
			continue;
		for (n = 0; n < p.port_number; n++) {
			char key[32];

			snprintf(key, sizeof(key), "%lld", kr->port[j] + n);
			if (json_object_get(seen, key))
				continue;
			json_object_set_new(seen, key, json_true());
			json_array_append_new(
			    a, c->w->port_names
				   ? json_pack("{s:s+,s:I,s:s}", "name", "p",
					       key, "containerPort",
					       (json_int_t)(kr->port[j] + n),
					       "protocol", "TCP")
				   : json_pack("{s:I,s:s}", "containerPort",
					       (json_int_t)(kr->port[j] + n),
					       "protocol", "TCP"));
		}
	}
	json_decref(seen);
	return a;
}

static json_t *container(struct pai__k8s_conv *c, size_t r, const pai_role *ro)
{
	json_t *env = json_array(), *args = NULL, *ct;

	if (!env || role_env(c, r, env, &args)) {
		json_decref(env);
		return NULL;
	}
	ct = json_pack("{s:s,s:s,s:[ss],s:o}", "name",
		       c->w->container ? c->w->container : c->k.roles[r].task,
		       "image", pai__k8s_role_image(c->k.job, r), "command",
		       "bash", "-c", "args", args);
	if (ct && json_object_size(c->shared) && !c->w->env_inline)
		json_object_set_new(ct, "envFrom",
				    json_pack("[{s:{s:s}}]", "configMapRef",
					      "name", c->cm_name));
	if (ct && json_array_size(env))
		json_object_set(ct, "env", env);
	if (ct && ro->port_count)
		json_object_set_new(ct, "ports", ports(c, r));
	if (ct) {
		json_object_set_new(ct, "resources", resources(ro));
		if (ro->shm_mb > 0)
			json_object_set_new(ct, "volumeMounts",
					    json_pack("[{s:s,s:s}]", "name",
						      "dshm", "mountPath",
						      "/dev/shm"));
	}
	json_decref(env);
	return ct;
}

json_t *pai__k8s_pod_template(struct pai__k8s_conv *c, size_t r)
{
	pai_role ro;
	json_t *spec, *ct;
	char shm[40];

	if (pai_job_role(&ro, c->k.job, r) || !(ct = container(c, r, &ro)))
		return NULL;
	spec = c->w->restart ? json_pack("{s:s,s:[o]}", "restartPolicy",
					 c->w->restart, "containers", ct)
			     : json_pack("{s:[o]}", "containers", ct);
	if (spec && ro.shm_mb > 0) {
		snprintf(shm, sizeof(shm), "%lldMi", ro.shm_mb);
		json_object_set_new(spec, "volumes",
				    json_pack("[{s:s,s:{s:s,s:s}}]", "name",
					      "dshm", "emptyDir", "medium",
					      "Memory", "sizeLimit", shm));
	}
	return json_pack("{s:{s:{s:s},s:{s:s,s:o}},s:o}", "metadata", "labels",
			 "paictl/job", c->k.name, "annotations",
			 "paictl/task-role", ro.name, "paictl/ports",
			 port_labels(c, r), "spec", spec);
}

int pai__k8s_gang_policy(struct pai__k8s_conv *c, json_t *obj)
{
	if (c->k.o.scheduler != PAI_K8S_SCHED_VOLCANO)
		return 0;
	return json_object_set_new(
	    obj, "schedulingPolicy",
	    json_pack("{s:I,s:s}", "minAvailable", (json_int_t)c->total,
		      "queue", c->k.o.queue ? c->k.o.queue : "default"));
}

long pai__k8s_role_of(const struct pai__k8s_conv *c, const char *task)
{
	size_t r;

	for (r = 0; r < c->k.nroles; r++)
		if (strcmp(c->k.roles[r].task, task) == 0)
			return (long)r;
	return -1;
}

void pai__k8s_head_roles(struct pai__k8s_conv *c, const char *head)
{
	long h = pai__k8s_role_of(c, head), w = pai__k8s_role_of(c, "worker");
	const char *rule = c->w->role_rule, *t = c->w->title;
	pai__buf b = PAI__BUF_INIT;
	pai_role ro;

	if (h < 0 || w < 0) {
		pai__buf_printf(&b,
				"%s has a %s role of one task and a worker "
				"role: the %s is missing",
				t, head, h < 0 ? head : "worker");
		pai__k8s_say_top(c, "taskRoles", PAI_SEVERITY_ERROR, rule,
				 b.oom ? "a role is missing" : b.data);
		pai__buf_release(&b);
	}
	if (h >= 0 && !pai_job_role(&ro, c->k.job, (size_t)h) &&
	    ro.task_number != 1)
		pai__k8s_sayf_role(c, (size_t)h, "taskNumber",
				   PAI_SEVERITY_ERROR, rule,
				   "%s's %s is one task, not %lld (more go "
				   "into the worker role)",
				   t, head, ro.task_number);
	if (w >= 0 && !pai_job_role(&ro, c->k.job, (size_t)w) &&
	    ro.min_succeeded >= 0)
		pai__k8s_sayf_role(c, (size_t)w, pai__k8s_completion_key(c, 0),
				   PAI_SEVERITY_WARNING,
				   PAI__RULE_K8S_MIN_SUCCEEDED,
				   "%s succeeds when its %s did, whatever its "
				   "workers: their minimum succeeded tasks is "
				   "not counted",
				   t, head);
}

json_t *pai__k8s_replica_specs(struct pai__k8s_conv *c, const char *head,
			       const char *head_type)
{
	json_t *specs = json_object();
	size_t r;

	for (r = 0; specs && r < c->k.nroles; r++) {
		const char *task = c->k.roles[r].task;
		json_t *t = pai__k8s_pod_template(c, r);

		if (!t ||
		    json_object_set_new(
			specs, strcmp(task, head) == 0 ? head_type : "Worker",
			json_pack("{s:I,s:s,s:o}", "replicas",
				  (json_int_t)pai__k8s_tasks(c->k.job, r),
				  "restartPolicy", "Never", "template", t)))
			json_decref(specs), specs = NULL;
	}
	return specs;
}

static json_t *config_map(struct pai__k8s_conv *c)
{
	return json_pack("{s:s,s:s,s:o,s:O}", "apiVersion", "v1", "kind",
			 "ConfigMap", "metadata", pai__k8s_meta(c, c->cm_name),
			 "data", c->shared);
}

static int manifests(struct pai__k8s_conv *c, json_t **out)
{
	json_t *docs = json_array(), *job;
	int err = PAI_OK;

	*out = NULL;
	if (!(c->cm_name = malloc(strlen(c->k.name) + 9)))
		return json_decref(docs), PAI_ENOMEM;
	sprintf(c->cm_name, "%s-pai-env", c->k.name);
	if (json_object_size(c->shared) && !c->w->env_inline)
		json_array_append_new(docs, config_map(c));
	job = c->w->object(c);
	if (!docs || !job || json_array_append_new(docs, job))
		err = c->err ? c->err : PAI_ENOMEM;
	if (!err)
		err = pai__k8s_check_size(c, docs);
	if (!err && c->refused)
		err = PAI_EINVALID;
	if (!err)
		*out = docs;
	else
		json_decref(docs);
	return err;
}

static const struct pai__k8s_writer *const writers[] = {
    &pai__k8s_volcano, &pai__k8s_paddlejob, &pai__k8s_jobset,
    &pai__k8s_pytorchjob, &pai__k8s_trainjob, &pai__k8s_mpijob};

/* The writer of o's kind, when o is valid; else NULL. */
static const struct pai__k8s_writer *writer_of(const pai_k8s_options *o)
{
	size_t i;

	if (!o || !pai__k8s_options_size(o->version) ||
	    (o->scheduler != PAI_K8S_SCHED_VOLCANO &&
	     o->scheduler != PAI_K8S_SCHED_DEFAULT))
		return NULL;
	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (writers[i]->id == o->kind)
			return writers[i];
	return NULL;
}

int pai__k8s_manifests(json_t **out, pai_diags *diags, const char *name,
		       const char *text, size_t text_len,
		       const pai_job_options *jopts,
		       const pai_k8s_options *opts)
{
	pai_job *job = NULL;
	struct pai__k8s_conv c;
	pai_job_options jo;
	int err;

	*out = NULL;
	if (!diags || !name || !text || !writer_of(opts) ||
	    pai__job_options(&jo, jopts))
		return PAI_EINVAL;
	/* the commands checked against the pods: the controller's own
	 * variables are theirs */
	jo.k8s_kind = (int)opts->kind;
	memset(&c, 0, sizeof(c));
	c.w = writer_of(opts);
	err = pai_job_parse(&job, diags, name, text, text_len, &jo);
	if (!err)
		err = pai__k8s_conv_init(&c, diags, job, name, text, text_len,
					 opts);
	if (!err)
		err = pai__k8s_check(&c);
	if (!err && c.refused)
		err = PAI_EINVALID;
	if (!err)
		err = manifests(&c, out);
	pai__k8s_conv_release(&c);
	pai_job_free(job);
	return err;
}

int pai_job_to_k8s(char **out, size_t *len, pai_diags *diags, const char *name,
		   const char *text, size_t text_len,
		   const pai_job_options *jopts, const pai_k8s_options *opts)
{
	pai__buf b = PAI__BUF_INIT;
	json_t *docs = NULL;
	int err;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (!out)
		return PAI_EINVAL;
	err =
	    pai__k8s_manifests(&docs, diags, name, text, text_len, jopts, opts);
	if (!err)
		err = pai__k8s_yaml(&b, docs);
	if (!err && !(*out = pai__buf_detach(&b)))
		err = PAI_ENOMEM;
	if (!err && len)
		*len = strlen(*out);
	json_decref(docs);
	pai__buf_release(&b);
	return err;
}
