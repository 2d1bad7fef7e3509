/* config_k8s.h - a profile's Kubernetes part (config_k8s.c): what
 * pai_k8s_cluster says, kept and read and written by config.c. Not
 * installed, not for cli/. */
#ifndef PAI_CONFIG_K8S_H
#define PAI_CONFIG_K8S_H

#include "sys/sys.h"

/* Every string owned, NULL when not set. */
struct pai__k8s_prof {
	char *kubeconfig, *context, *ns, *queue, *fs_uri, *runtime;
	int runtime_namespaced;
	pai_k8s_kind kind;
	pai_k8s_scheduler scheduler;
};

void pai__k8s_prof_release(struct pai__k8s_prof *k);
/* *dst as src says (copied; dst released first on success only).
 * PAI_EINVAL for a version, name or value Kubernetes would not take,
 * PAI_ENOMEM. */
int pai__k8s_prof_set(struct pai__k8s_prof *dst, const pai_k8s_cluster *src);
/* out (the whole struct, this version's) as k says, strings borrowed
 * from k. */
void pai__k8s_prof_get(pai_k8s_cluster *out, const struct pai__k8s_prof *k);
/* The profile file's "kubernetes" member o (absent: defaults) into *k;
 * PAI_ESYNTAX with *why (new) for a wrong member. */
int pai__k8s_prof_read(struct pai__k8s_prof *k, json_t *o, const char *name,
		       char **why);
/* The "kubernetes" member as the file writes it; NULL out of memory. */
json_t *pai__k8s_prof_json(const struct pai__k8s_prof *k);

#endif /* PAI_CONFIG_K8S_H */
