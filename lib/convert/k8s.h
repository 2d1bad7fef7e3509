/* k8s.h - shared by k8s.c (the manifests), k8s_check.c (what Kubernetes
 * cannot express) and k8s_yaml.c (the writer); the pods themselves are
 * the runtime's (runtime/k8s_pod.c); private to libpai */
#ifndef PAI_K8S_H
#define PAI_K8S_H

#include "runtime/runtime.h"

/* Rule ids of the Kubernetes conversion's diagnostics. */
#define PAI__RULE_K8S_NAME "k8s-name"
#define PAI__RULE_K8S_MIN_FAILED "k8s-min-failed"
#define PAI__RULE_K8S_MIN_SUCCEEDED "k8s-min-succeeded"
#define PAI__RULE_K8S_RETRY "k8s-retry-count"
#define PAI__RULE_K8S_PADDLE_ROLE "k8s-paddle-role"
#define PAI__RULE_K8S_ENV_NAME "k8s-env-name"
#define PAI__RULE_K8S_VARIABLE "k8s-variable"
#define PAI__RULE_K8S_AUTH_FILE "k8s-auth-file"
#define PAI__RULE_K8S_PORT "k8s-port"
#define PAI__RULE_K8S_DROPPED "k8s-dropped"
#define PAI__RULE_K8S_QUEUE "k8s-queue"
#define PAI__RULE_K8S_HDFS "k8s-hdfs-dir"
#define PAI__RULE_K8S_SSH "k8s-ssh"
#define PAI__RULE_K8S_SECRETS "k8s-secrets"
#define PAI__RULE_K8S_TOO_LARGE "k8s-too-large"

/* Writes docs (an array of objects) as one YAML stream with libyaml's
 * emitter, "---" between documents. */
int pai__k8s_yaml(pai__buf *out, json_t *docs);

/* Role r's task count, and the image its containers run. */
long long pai__k8s_tasks(const pai_job *job, size_t r);
const char *pai__k8s_role_image(const pai_job *job, size_t r);

/* One conversion (k8s.c), with the config's places for diagnostics. */
struct pai__k8s_conv {
	struct pai__k8s k;
	pai_diags *diags;
	pai__src src;
	pai__pos pos;
	json_t *root; /* the config as loaded again, for pos */
	int refused;  /* an error was reported */
	int err;
	json_t *shared;	 /* the ConfigMap's data */
	json_t *dropped; /* what the pods do not get of the job's variables */
	char *cm_name;
	long long total; /* tasks of all roles */
	long long retry; /* retryCount, jobRetryCount */
};

/* Loads the places of text and derives names and ports for job
 * (k8s_check.c). Errors in the config itself were reported by
 * pai_job_parse() already. */
int pai__k8s_conv_init(struct pai__k8s_conv *c, pai_diags *diags,
		       const pai_job *job, const char *name, const char *text,
		       size_t len, const pai_k8s_options *opts);
void pai__k8s_conv_release(struct pai__k8s_conv *c);

/* Refuses (rule k8s-too-large) objects the API server cannot store: a
 * ConfigMap over 1 MiB of data, any object over etcd's 1.5 MiB. */
int pai__k8s_check_size(struct pai__k8s_conv *c, json_t *docs);

/* Computes c->shared and c->dropped (k8s.c). */
int pai__k8s_shared(struct pai__k8s_conv *c);

/* Reports what Kubernetes cannot express (errors: c->refused) or
 * expresses with a difference (warnings), and the names derived. */
int pai__k8s_check(struct pai__k8s_conv *c);

#endif
