/* model.h - what the client hands out: jobs, tasks, SSH access. Filled
 * by the API modules (api/), read through pai.h's accessors (model.c).
 * Not installed, not for cli/. */
#ifndef PAI_MODEL_H
#define PAI_MODEL_H

#include "sys/sys.h"

/* Every string points into json (or a member of it), so the whole info
 * lives as long as its one reference. */
struct pai_job_info {
	json_t *json; /* the server's JSON as received */
	json_t *own;  /* what the parser made: normalized port maps */
	const char *name, *user, *vc, *substate;
	pai_state state;
	long long created_ms, completed_ms;
	/* when the server took the submission (v1.x's submissionTime,
	 * else createdTime), epoch ms; 0: not said */
	long long submitted_ms;
	long retries;
	int has_exit_code, exit_code;
	pai_task_info *tasks;
	json_t **task_json; /* each task's object in json (borrowed), by
			     * the same index as tasks */
	size_t ntasks;
	/* roles reported by their framework names (OpenPAI v1.x) */
	int framework_names;
	/* what the server names this status by (its ETag), for
	 * job_changed (module.h); new, or NULL */
	char *version;
};

struct pai_job_list {
	json_t *json;
	pai_job_info *items; /* each borrows its json and strings from json */
	size_t count;
};

struct pai_ssh_info {
	json_t *json;
	pai_ssh_container *containers;
	size_t count;
	const char *key_url, *key_name;
	/* the user the nodes take (Slurm: the job's); NULL: the cluster's
	 * default. Borrowed from json. */
	const char *login_user;
	/* each container's shell line that sets its task up (cd, the
	 * environment) before the command, by the same index; NULL (or a
	 * NULL entry): none. Borrowed from json. */
	const char **setup;
};

/* Releases what an info holds without freeing the struct itself. */
void pai__job_info_release(pai_job_info *info);

#endif /* PAI_MODEL_H */
