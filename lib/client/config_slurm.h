/* config_slurm.h - a profile's Slurm part (config_slurm.c): what
 * pai_slurm_cluster says, kept and read and written by config.c. Not
 * installed, not for cli/. */
#ifndef PAI_CONFIG_SLURM_H
#define PAI_CONFIG_SLURM_H

#include "sys/sys.h"

/* Every string owned, NULL when not set. */
struct pai__slurm_prof {
	char *token_file, *partition, *account, *qos, *workdir, *ssh_host;
	char *identity_file; /* the login node's key (version 2) */
	long ssh_port;
	int pyxis, vc_partition;
};

void pai__slurm_prof_release(struct pai__slurm_prof *s);
/* *dst as src says, unchecked, src read as far as its version
 * (copied; dst released first on success only). PAI_ENOMEM. */
int pai__slurm_prof_copy(struct pai__slurm_prof *dst,
			 const pai_slurm_cluster *src);
/* *dst as src says (copied; dst released first on success only).
 * PAI_EINVAL for a version or value that cannot be, PAI_ENOMEM. */
int pai__slurm_prof_set(struct pai__slurm_prof *dst,
			const pai_slurm_cluster *src);
/* out as s says, strings borrowed from s. */
void pai__slurm_prof_get(pai_slurm_cluster *out,
			 const struct pai__slurm_prof *s);
/* The profile file's "slurm" member o (absent: defaults) into *s;
 * PAI_ESYNTAX with *why (new) for a wrong member. */
int pai__slurm_prof_read(struct pai__slurm_prof *s, json_t *o,
			 const char *name, char **why);
/* The "slurm" member as the file writes it; NULL out of memory. */
json_t *pai__slurm_prof_json(const struct pai__slurm_prof *s);

#endif /* PAI_CONFIG_SLURM_H */
