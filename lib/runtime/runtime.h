/* runtime.h - what a task sees: the table of runtimes (runtimes.c) with
 * one file per runtime (openpai_v0x.c, openpai_v1x.c), the Kubernetes
 * pods built on them (k8s_names.c, k8s_pod.c) with what their
 * controllers set besides (k8s_own.c), the environment table (env.c)
 * and bash scanner (bash.c) they share, the v0.x server's directories
 * (dirs.c), and pai_job_parse() (job_parse.c), which ends with a
 * runtime's check. Runtimes read the job model (job/), never its
 * parsers. */
#ifndef PAI_RUNTIME_H
#define PAI_RUNTIME_H

#include "job/job.h"

/* ---- the runtimes (runtimes.c) --------------------------------------- */

/* What a cluster makes of a job's tasks. runtimes.c picks the row by the
 * job's format and checks the arguments first: role and index are in
 * range, and the job is small enough to expand. */
struct pai__runtime {
	/* The whole environment of task (role, index), and its command. */
	int (*expand_task)(pai_env **out, const pai_job *job, size_t role,
			   size_t index, const pai_expand_options *opts);
	/* Only the variables that differ between the tasks of the job:
	 * those of the task itself. No command. */
	int (*expand_current)(pai_env **out, const pai_job *job, size_t role,
			      size_t index, const pai_expand_options *opts);
	/* The command the role's tasks hand to bash (pai.h). */
	int (*entrypoint)(char **out, const pai_job *job, size_t role);
	/* The command expand_task() substitutes the environment into (a v2
	 * job's secrets masked). */
	int (*shown_command)(char **out, const pai_job *job, size_t role);
	/* Warnings about references in a valid job's commands that its
	 * tasks will not have, each at its place in src; given (a set of
	 * names, may be NULL): what the tasks get besides, from where they
	 * run (a Kubernetes controller's own variables). */
	int (*check_references)(pai_diags *diags, pai__src *src,
				const pai__pos *pos, const pai_job *job,
				const pai_env *given);
};

extern const struct pai__runtime pai__runtime_v0x; /* openpai_v0x.c */
extern const struct pai__runtime pai__runtime_v1x; /* openpai_v1x.c */

/* The runtime of job's cluster: OpenPAI v0.x for a v1 config, v1.x for a
 * protocol-v2 one. */
const struct pai__runtime *pai__runtime_of(const pai_job *job);

/* The job's runtime's expand_current. */
int pai__expand_current(pai_env **out, const pai_job *job, size_t role,
			size_t index, const pai_expand_options *opts);
/* The job's runtime's shown_command. */
int pai__shown_command(char **out, const pai_job *job, size_t role);

/* A caller's pai_job_options (NULL: the defaults) in this version's
 * struct (job_parse.c): PAI_EINVAL for a version this library does not
 * know, or a k8s_kind that is none. */
int pai__job_options(pai_job_options *o, const pai_job_options *opts);

/* ---- what every runtime reads of pai_expand_options ------------------ */

/* The user, or a placeholder for the one the cluster will know. */
static inline const char *pai__opt_user(const pai_expand_options *o)
{
	return o && o->user && *o->user ? o->user : "<user>";
}

/* The cluster's HDFS URI, or a placeholder. */
static inline const char *pai__opt_fs_uri(const pai_expand_options *o)
{
	return o && o->fs_uri && *o->fs_uri ? o->fs_uri : "<default-fs>";
}

/* ---- a task's environment (env.c) ------------------------------------ */

/* One variable. In a names-only set, value is NULL or what the name
 * stands for, and count a number that goes with it. (The tags var and
 * slot, unprefixed, are part of lib/libpai.abi: the record describes
 * the members of pai_env from the library's debugging information.) */
struct var {
	char *name;
	char *value;	 /* names only: NULL, or a task family's role */
	long long count; /* a task family's task count, or a role index */
	bool dead;	 /* replaced by a later definition */
	bool controller; /* set by a Kubernetes controller in the pod */
};

struct slot {
	size_t i;    /* index into v plus 1; 0: empty */
	size_t hash; /* compared first: probing then rarely touches v */
};

/* An ordered table with a hash index of its live entries. */
struct pai_env {
	struct var *v;
	size_t n, cap;
	struct slot *slot; /* open addressing, linear probing */
	size_t nslot;	   /* a power of two, at least twice n */
	char *command;
};

/* An empty table (free with pai_env_free()), or NULL. */
pai_env *pai__env_new(void);
/* Defines name, taking ownership of name and value (freed on failure):
 * a later definition replaces an earlier one and takes its own place.
 * PAI_OK or PAI_ENOMEM. */
int pai__env_set(pai_env *env, char *name, char *value, long long count);
/* pai__env_set() of copies of name and value; controller: marked as
 * what a Kubernetes controller sets in the pod (pai_env_by_controller()). */
int pai__env_put(pai_env *env, const char *name, const char *value,
		 bool controller);
/* The live entry of name[0..n), or NULL. */
const struct var *pai__env_find(const pai_env *env, const char *name, size_t n);
bool pai__env_has(const pai_env *env, const char *name, size_t n);
/* Adds name[0..n) to a names-only set: 1 when new, 0 when already
 * there, PAI_ENOMEM. */
int pai__env_add_once(pai_env *env, const char *name, size_t n);
/* Drops replaced entries, so that the table lists each name once. */
int pai__env_compact(pai_env *env);
/* Compacts env and sets its command to `command` as it is (taking
 * ownership; freed on failure). */
int pai__env_set_command(pai_env *env, char *command);

/* ---- commands as bash reads them (bash.c) ----------------------------- */

/* Compacts env and sets its command to `command` with every $NAME and
 * ${NAME} that env defines substituted, as bash reads it. */
int pai__env_finish(pai_env *env, const char *command);
/* The shell's own and the usual login and image variables, sorted, which
 * a task may rely on without the job defining them. */
extern const char *const pai__shell_vars[];
extern const size_t pai__nshell_vars;
bool pai__is_shell_var(const char *name, size_t n);
/* One distinct checkable $reference of a command (first use), borrowed
 * from the command text. */
struct pai__cmd_ref {
	size_t at, len; /* the '$' and the name's length */
	const char *name;
};
/* The references of cmd[0..len) bash would expand without a default, in
 * order (caller frees *refs), adding the names the command assigns to
 * `assigned`. */
int pai__command_refs(struct pai__cmd_ref **refs, size_t *nrefs,
		      pai_env *assigned, const char *cmd, size_t len);

/* ---- the kinds of Kubernetes object (k8s_kinds.c) -------------------- */

/* What a kind of object is and what its controller calls its pods. */
struct pai__k8s_kind {
	pai_k8s_kind id;
	const char *name;	 /* "volcano": --to, --engine, --target */
	const char *api_version; /* the object's apiVersion, and kind */
	const char *kind;
	const char *plural; /* its collection under /apis/<api_version> */
	/* The task names a role may become (its name derived must be one
	 * of them), NULL-terminated; NULL: its name derived, whatever it
	 * is. lone: what a job's only role becomes, whatever its name. */
	const char *const *tasks;
	const char *lone;
	/* Pod i of task T is <job>-<T><infix>-<i>, reached by that name,
	 * with ".<job>" after it when subdomain (a headless Service named
	 * after the job); suffix: the length of what the controller adds
	 * to the pod's name itself (a generated "-xxxxx"). */
	const char *infix;
	int subdomain;
	size_t suffix;
	/* A task whose one pod is made by a Job named <job>-<task>: its
	 * host <job>-<task> (no index), its name that and a generated
	 * "-xxxxx" (PAI__K8S_JOB_SUFFIX; an MPIJob's launcher); NULL:
	 * none. */
	const char *single;
	/* Where a pod finds its index: a fieldRef path, else a variable
	 * the controller gives the container (read by a line of bash). */
	const char *index_ref, *index_var;
	/* The variables the controller sets in every pod itself, in its
	 * order, up to one without a name (or NULL: none): what a command
	 * may use as if the job set them (k8s_own.c). */
	const struct pai__k8s_own *own_env;
};

/* What the Job controller adds to the name of a pod it makes: "-" and
 * five letters. */
#define PAI__K8S_JOB_SUFFIX 6

/* How the controller gives a variable of its own its value; "about" is
 * the role the variable speaks of (its `of`, or each role with
 * per_task). */
enum pai__k8s_own_value {
	PAI__K8S_OWN_TEXT,   /* text */
	PAI__K8S_OWN_INDEX,  /* the pod's index */
	PAI__K8S_OWN_RANK,   /* the pod's index, plus 1 outside `about`
			      * (a PyTorchJob's master 0, worker i: i+1) */
	PAI__K8S_OWN_PODS,   /* the job's pod count */
	PAI__K8S_OWN_HOST,   /* the pod's own DNS name */
	PAI__K8S_OWN_FIRST,  /* the DNS name of pod 0 of `about` */
	PAI__K8S_OWN_HOSTS,  /* the DNS names of the pods of `about`, by
			      * index, each followed by text, joined by
			      * commas */
	PAI__K8S_OWN_COUNT,  /* the pod count of `about` */
	PAI__K8S_OWN_NPROC,  /* torchrun's processes per node, as Trainer's
			      * torch plugin defaults them: "auto" for a pod
			      * with GPUs, else its CPUs (at least 1) */
	PAI__K8S_OWN_SLOTS,  /* the GPUs of a pod of `about`, else 1 (an
			      * MPIJob's slotsPerWorker, as paictl writes
			      * it) */
	PAI__K8S_OWN_BY_TASK /* by_task[t] in a pod of the kind's task t */
};

struct pai__k8s_own {
	/* the name; with per_task its start, then the role's task name in
	 * upper case, '-' as '_', then after (Volcano's VC_<TASK>_HOSTS) */
	const char *name, *after;
	enum pai__k8s_own_value value;
	const char *text;
	const char *const *by_task; /* parallel to the kind's tasks */
	/* set only when the job has a role of this task, its `about` */
	const char *of;
	/* set only in the pods of this task (NULL: in every pod) */
	const char *only;
	/* one variable for each role of the job, about that role */
	int per_task;
	/* a job's own variable of the name is the one the pod sees: the
	 * controller fills in what the container lacks (envFrom, or "unless
	 * it has one") rather than appending after it */
	int job_wins;
};

/* The row of kind id, or NULL; the i-th row, or NULL past the last. */
const struct pai__k8s_kind *pai__k8s_kind_of(pai_k8s_kind id);
const struct pai__k8s_kind *pai__k8s_kind_at(size_t i);

/* ---- Kubernetes pods: their names and ports (k8s_names.c) ------------ */

/* The pods of a job converted for Kubernetes: the job's own runtime with
 * a placement of DNS names and fixed ports (k8s_names.c), less what
 * Kubernetes cannot give (k8s_pod.c). */

/* Where each role's pods are and what they are called. */
struct pai__k8s_role {
	char *task;	/* the Volcano task name, or ps|worker|heter */
	char *prefix;	/* pod i is prefix-i: <job>-<task><infix> */
	unsigned *port; /* the first port of each of the role's labels */
	size_t nports;
};

struct pai__k8s {
	const pai_job *job;
	pai_k8s_options o;
	const struct pai__k8s_kind *kind; /* o.kind's row */
	char *name; /* metadata.name of the job */
	struct pai__k8s_role *roles;
	size_t nroles;
	pai__buf scratch; /* the placement's last answer */
	pai_placement pl;
	/* what pai__k8s_init() found wrong: two roles under one name */
	long clash_a, clash_b;
};

/* Derives the names and ports for job. PAI_EINVALID when two roles
 * derive the same name (clash_a, clash_b), or a role is none of the
 * kind's tasks (clash_a that role, clash_b -1); PAI_EINVAL for a kind
 * that is none. */
/* The bytes of a pai_k8s_options of version v that its caller has
 * (1: up to fs_uri, 2: up to runtime), or 0 for a version that is
 * none. */
size_t pai__k8s_options_size(unsigned v);

int pai__k8s_init(struct pai__k8s *k, const pai_job *job,
		  const pai_k8s_options *o);
void pai__k8s_release(struct pai__k8s *k);

/* 1 when role r is its kind's single task (its one pod a Job's). */
int pai__k8s_single(const struct pai__k8s *k, size_t r);

/* The DNS name of pod i of role r, into k->scratch. */
const char *pai__k8s_host(struct pai__k8s *k, size_t r, size_t i);

/* ---- what a kind's controller sets in its pods (k8s_own.c) ---------- */

/* The entry of k's controller that sets the variable name in the job's
 * pods, or NULL. */
const struct pai__k8s_own *pai__k8s_own_env(const struct pai__k8s *k,
					    const char *name);
/* The names the controller of kind (0: none) sets in the pods of job,
 * as a names-only set (*out NULL for none). When the job's roles are
 * not the kind's tasks (which the conversion refuses), the row's names
 * that are not per task, as if they were. */
int pai__k8s_own_names(pai_env **out, const pai_job *job, pai_k8s_kind kind);
/* What the controller sets in pod i of role r, in its order: appended to
 * env, marked as its (but where the job's own wins), and to all, the
 * runtime's whole environment. */
int pai__k8s_own_vars(pai_env *env, pai_env *all, struct pai__k8s *k,
		      size_t r, size_t i);

/* ---- Kubernetes pods: their environment (k8s_pod.c) ------------------ */

/* How a variable of a pod's environment gets its value. */
enum pai__k8s_var {
	PAI__K8S_STATIC,   /* the same in every pod of the role */
	PAI__K8S_INDEX,	   /* the pod's index */
	PAI__K8S_POD_NAME, /* the pod's name */
	PAI__K8S_POD_IP,   /* the pod's IP (its DNS name stands in) */
	PAI__K8S_WORK_DIR  /* the container's working directory */
};
enum pai__k8s_var pai__k8s_var_kind(const struct pai__k8s *k, size_t r,
				    size_t i, const char *name,
				    const char *value);

/* The environment of pod i of role r (see pai_k8s_expand_task()), or
 * with `current` only its variables that differ between tasks
 * (pai__expand_current()); with *dropped (may be NULL) the names the
 * expansion had that a pod on Kubernetes does not get (a new object:
 * name -> value). */
int pai__k8s_pod_env(pai_env **out, json_t **dropped, struct pai__k8s *k,
		     size_t r, size_t i, int current);

/* The variables every pod shares (*shared, a new object: name -> value)
 * and, as pai__k8s_pod_env() says them, those the pods do not get; both
 * left for the caller to release, even on failure. */
int pai__k8s_shared_env(json_t **shared, json_t **dropped, struct pai__k8s *k);

/* Whether name is one of the job's jobEnvs (v1 configs only): a pod gets
 * those as they are. */
int pai__k8s_is_job_env(const pai_job *job, const char *name);

/* What the tasks of a job share (Kubernetes pods, Slurm tasks): the
 * variables of one task's environment all, less those about the task
 * itself (own: pai__expand_current()'s), which every task of the job
 * has alike; a jobEnv keeps its place there even when it redefines one
 * of the task's own. *shared new (released by the caller, even on
 * failure). */
int pai__env_shared(json_t **shared, const pai_job *job, const pai_env *all,
		    const pai_env *own);

/* ---- Slurm tasks (slurm_task.c) --------------------------------------- */

/* The tasks of a job submitted to Slurm: the job's own runtime with a
 * placement of the nodes' addresses (known when the batch script runs:
 * marks it replaces), the ports chosen at submission, and each task's
 * directory as its working directory; less what Slurm cannot give. */
struct pai__slurm_tasks {
	const pai_job *job;
	const char *user;   /* NULL: "<user>" */
	const char *jobdir; /* the job's directory; NULL: placeholders */
	/* the first port of the job's range; 0: placeholders */
	unsigned port_base;
	/* "\x01<nonce>": the IPs and the Slurm job id as marks that the
	 * batch script replaces (pai__slurm_mark()); NULL: placeholders */
	const char *mark;
	const char *source; /* the file diagnostics name (convert/slurm.c) */
	size_t nroles;
	size_t *first;		    /* each role's first task, by rank */
	unsigned long long *ports0; /* each role's first port slot */
	unsigned *per_task;	    /* each role's port slots per task */
	unsigned long long nports;  /* the slots of the whole job */
	pai__buf scratch;
	pai_placement pl;
};

/* Numbers the tasks and their port slots (ranks: role by role, index
 * by index, as srun numbers a heterogeneous job's tasks). */
int pai__slurm_tasks_init(struct pai__slurm_tasks *t, const pai_job *job);
void pai__slurm_tasks_release(struct pai__slurm_tasks *t);
/* The task count of the whole job. */
size_t pai__slurm_task_count(const struct pai__slurm_tasks *t);

/* What a mark in a value stands for. */
enum pai__slurm_mark {
	PAI__SLURM_MARK_HOST = 'H', /* the address of task <rank>'s node */
	PAI__SLURM_MARK_JOB = 'J'   /* the Slurm job's id */
};
/* At s, a mark of t (t->mark, a kind, digits, '\x01'): its length, its
 * kind and rank; 0 when s starts none. */
size_t pai__slurm_mark(const struct pai__slurm_tasks *t, const char *s,
		       enum pai__slurm_mark *kind, size_t *rank);

/* The environment of task i of role r (see pai_slurm_expand_task()),
 * or with `current` only its variables that differ between tasks. */
int pai__slurm_task_env(pai_env **out, struct pai__slurm_tasks *t, size_t r,
			size_t i, int current);
/* The variables every task shares: *shared a new object, name -> value
 * (released by the caller, even on failure). */
int pai__slurm_shared_env(json_t **shared, struct pai__slurm_tasks *t);

#endif /* PAI_RUNTIME_H */
