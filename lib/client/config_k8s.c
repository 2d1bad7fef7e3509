/* config_k8s.c - a Kubernetes profile's settings in the profiles file:
 * the kubeconfig and context to use and what a job becomes there
 * (namespace, engine, queue, scheduler, default file system, a
 * TrainJob's runtime), checked
 * as Kubernetes checks names. See config_k8s.h. */
#include "config_k8s.h"
#include "json_values.h"
#include "text/text.h"

#include "runtime/runtime.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pai__k8s_prof_release(struct pai__k8s_prof *k)
{
	free(k->kubeconfig);
	free(k->context);
	free(k->ns);
	free(k->queue);
	free(k->fs_uri);
	free(k->runtime);
	memset(k, 0, sizeof(*k));
}

/* A version 1 caller's struct, as this version's (*buf the copy). */
static const pai_k8s_cluster *current(pai_k8s_cluster *buf,
				      const pai_k8s_cluster *k)
{
	if (!k || k->version != 1)
		return k;
	memset(buf, 0, sizeof(*buf));
	memcpy(buf, k, offsetof(pai_k8s_cluster, runtime));
	buf->version = PAI_K8S_CLUSTER_VERSION;
	return buf;
}

static int valid(const pai_k8s_cluster *k)
{
	if (k->version != PAI_K8S_CLUSTER_VERSION ||
	    !pai__k8s_kind_of(k->kind) ||
	    (k->scheduler != PAI_K8S_SCHED_VOLCANO &&
	     k->scheduler != PAI_K8S_SCHED_DEFAULT))
		return 0;
	if ((k->ns && !pai__dns_name(k->ns, 63, 0)) ||
	    (k->queue && !pai__dns_name(k->queue, 253, 1)) ||
	    (k->runtime && !pai__dns_name(k->runtime, 253, 1)))
		return 0;
	/* a URI with a scheme: hdfs://host:port */
	if (k->fs_uri && !strstr(k->fs_uri, "://"))
		return 0;
	return (!k->kubeconfig || *k->kubeconfig) &&
	       (!k->context || *k->context);
}

int pai__k8s_prof_set(struct pai__k8s_prof *dst, const pai_k8s_cluster *src)
{
	struct pai__k8s_prof k;
	pai_k8s_cluster buf;

	src = current(&buf, src);
	if (!src || !valid(src))
		return PAI_EINVAL;
	memset(&k, 0, sizeof(k));
	k.kind = src->kind;
	k.scheduler = src->scheduler;
	k.runtime_namespaced = src->runtime_namespaced ? 1 : 0;
	if (pai__strdup_opt(&k.kubeconfig, src->kubeconfig) ||
	    pai__strdup_opt(&k.context, src->context) ||
	    pai__strdup_opt(&k.ns, src->ns) ||
	    pai__strdup_opt(&k.queue, src->queue) ||
	    pai__strdup_opt(&k.fs_uri, src->fs_uri) ||
	    pai__strdup_opt(&k.runtime, src->runtime)) {
		pai__k8s_prof_release(&k);
		return PAI_ENOMEM;
	}
	pai__k8s_prof_release(dst);
	*dst = k;
	return PAI_OK;
}

void pai__k8s_prof_get(pai_k8s_cluster *out, const struct pai__k8s_prof *k)
{
	static const pai_k8s_cluster init = PAI_K8S_CLUSTER_INIT;

	*out = init;
	out->kubeconfig = k->kubeconfig;
	out->context = k->context;
	out->ns = k->ns;
	out->kind = k->kind ? k->kind : PAI_K8S_VOLCANO;
	out->queue = k->queue;
	out->scheduler = k->scheduler;
	out->fs_uri = k->fs_uri;
	out->runtime = k->runtime;
	out->runtime_namespaced = k->runtime_namespaced;
}

static char *why_of(const char *name, const char *what)
{
	char *s = NULL;

	if (asprintf(&s, "cluster '%s': kubernetes.%s", name, what) < 0)
		s = NULL;
	return s;
}

/* engine and scheduler, by their names. */
static int read_names(pai_k8s_cluster *k, json_t *o, const char *name,
		      char **why)
{
	const char *engine, *sched;

	if (pai__json_str_member(&engine, o, "engine") ||
	    pai__json_str_member(&sched, o, "scheduler")) {
		*why = why_of(name, "engine and scheduler must be strings");
		return PAI_ESYNTAX;
	}
	if (engine && pai_k8s_kind_from_name(&k->kind, engine)) {
		*why = why_of(name, "engine must be \"volcano\", "
				    "\"paddlejob\", \"jobset\", "
				    "\"pytorchjob\", \"trainjob\" or "
				    "\"mpijob\"");
		return PAI_ESYNTAX;
	}
	if (sched && strcmp(sched, "default") == 0)
		k->scheduler = PAI_K8S_SCHED_DEFAULT;
	else if (sched && strcmp(sched, "volcano") != 0) {
		*why = why_of(name, "scheduler must be \"volcano\" or "
				    "\"default\"");
		return PAI_ESYNTAX;
	}
	return PAI_OK;
}

int pai__k8s_prof_read(struct pai__k8s_prof *k, json_t *o, const char *name,
		       char **why)
{
	pai_k8s_cluster c = PAI_K8S_CLUSTER_INIT;
	int err;

	if (o && !json_is_null(o) && !json_is_object(o)) {
		*why = why_of(name, "(the member) must be an object");
		return PAI_ESYNTAX;
	}
	if (pai__json_str_member(&c.kubeconfig, o, "kubeconfig") ||
	    pai__json_str_member(&c.context, o, "context") ||
	    pai__json_str_member(&c.ns, o, "namespace") ||
	    pai__json_str_member(&c.queue, o, "queue") ||
	    pai__json_str_member(&c.fs_uri, o, "defaultFs") ||
	    pai__json_str_member(&c.runtime, o, "runtime")) {
		*why = why_of(name, "kubeconfig, context, namespace, queue, "
				    "defaultFs and runtime must be strings");
		return PAI_ESYNTAX;
	}
	if (json_object_get(o, "runtimeNamespaced") &&
	    !json_is_boolean(json_object_get(o, "runtimeNamespaced"))) {
		*why = why_of(name, "runtimeNamespaced must be true or false");
		return PAI_ESYNTAX;
	}
	c.runtime_namespaced =
	    json_is_true(json_object_get(o, "runtimeNamespaced"));
	if ((err = read_names(&c, o, name, why)))
		return err;
	err = pai__k8s_prof_set(k, &c);
	if (err == PAI_EINVAL) {
		*why = why_of(name, "a namespace, queue, runtime or defaultFs "
				    "that Kubernetes would not take");
		return PAI_ESYNTAX;
	}
	return err;
}

json_t *pai__k8s_prof_json(const struct pai__k8s_prof *k)
{
	json_t *o = json_object();

	if (!o || pai__json_put_str(o, "kubeconfig", k->kubeconfig) ||
	    pai__json_put_str(o, "context", k->context) ||
	    pai__json_put_str(o, "namespace", k->ns) ||
	    pai__json_put_str(o, "engine", pai_k8s_kind_name(k->kind)) ||
	    pai__json_put_str(o, "queue", k->queue) ||
	    pai__json_put_str(o, "scheduler",
			      k->scheduler == PAI_K8S_SCHED_DEFAULT
				  ? "default"
				  : "volcano") ||
	    pai__json_put_str(o, "defaultFs", k->fs_uri) ||
	    pai__json_put_str(o, "runtime", k->runtime) ||
	    (k->runtime_namespaced &&
	     json_object_set_new(o, "runtimeNamespaced", json_true()))) {
		json_decref(o);
		return NULL;
	}
	return o;
}
