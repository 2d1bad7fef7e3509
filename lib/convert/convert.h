/* convert.h - a job in another format: protocol-v2 YAML and back
 * (job_convert.c over convert_v1v2.c and convert_v2v1.c, with convert.c
 * and yaml_emit.c below them), and Kubernetes objects (k8s.c over
 * k8s_check.c and k8s_yaml.c, each kind's object in a file of its own:
 * k8s_volcano.c, k8s_paddlejob.c, k8s_jobset.c, k8s_pytorchjob.c,
 * k8s_trainjob.c, k8s_mpijob.c; the
 * pods themselves are the runtime's, runtime/k8s_pod.c). Stands on
 * runtime/ and what it stands on; private to libpai (lib/client reads
 * the v2 -> v1 converter). */
#ifndef PAI_CONVERT_H
#define PAI_CONVERT_H

#include "runtime/runtime.h"

/* Rule ids of the conversion's own diagnostics. */
#define PAI__RULE_NO_V2	    "convert-no-v2-equivalent"
#define PAI__RULE_NO_V1	    "convert-no-v1-equivalent"
#define PAI__RULE_DROPPED   "convert-dropped"
#define PAI__RULE_AUTH_FILE "convert-auth-file"
#define PAI__RULE_BEGIN_AT  "convert-port-begin-at"
#define PAI__RULE_RETRY	    "convert-retry-count"
#define PAI__RULE_ENV_NAME  "convert-env-name"
#define PAI__RULE_TEMPLATE  "convert-template"

/* The separator of the output paths that key yaml comments: a byte that
 * no key of a valid config holds. */
#define PAI__YPATH_SEP '\x1f'

/* Writes doc (an object) as block-style YAML, 2-space indent, keys in the
 * object's order, every string quoted where js-yaml 3 would read it as
 * something else. comments (may be NULL) maps output paths (keys joined
 * with PAI__YPATH_SEP) to comment text, written as "# " lines before the
 * key; the path "" holds comments for the end of the document. */
int pai__yaml_emit(pai__buf *out, json_t *doc, json_t *comments);

/* Appends a comment (one or more lines) to comments[path]. */
int pai__ycomment_add(json_t *comments, const char *path, const char *text);

/* A jobEnvs value as the string a task sees (v1): strings verbatim,
 * null as "", anything else as compact JSON. New string; NULL on OOM. */
char *pai__env_string(json_t *v);

/* `s` quoted for bash so that it reads back as itself, and never holding
 * "<%" (the rest-server would take it for a template tag). */
void pai__shell_quote(pai__buf *b, const char *s);

/* v1 -> v2 (convert_v1v2.c): job is the parsed v1 job of text. */
int pai__convert_v1_to_v2(pai__buf *out, pai_diags *diags, const char *name,
			  const char *text, size_t len, const pai_job *job);

/* v2 -> v1 (convert_v2v1.c): job is the parsed v2 job of text. */
int pai__convert_v2_to_v1(pai__buf *out, pai_diags *diags, const char *name,
			  const char *text, size_t len, const pai_job *job);

/* The v1 JSON config of a loaded v2 document (convert_v2v1.c), with
 * diagnostics at the places of pos in src (pos and src may be NULL: no
 * places). *v1 is a new reference, NULL on refusal (PAI_EINVALID). */
int pai__v2_to_v1_json(json_t **v1, pai_diags *diags, pai__src *src,
		       const pai__pos *pos, json_t *root);

/* ---- Kubernetes objects (k8s.c, k8s_check.c, k8s_yaml.c) ------------- */

/* Rule ids of the Kubernetes conversion's diagnostics. */
#define PAI__RULE_K8S_NAME	    "k8s-name"
#define PAI__RULE_K8S_MIN_FAILED    "k8s-min-failed"
#define PAI__RULE_K8S_MIN_SUCCEEDED "k8s-min-succeeded"
#define PAI__RULE_K8S_RETRY	    "k8s-retry-count"
#define PAI__RULE_K8S_PADDLE_ROLE   "k8s-paddle-role"
#define PAI__RULE_K8S_PYTORCH_ROLE  "k8s-pytorch-role"
#define PAI__RULE_K8S_TRAINJOB_ROLE "k8s-trainjob-role"
#define PAI__RULE_K8S_MPIJOB_ROLE   "k8s-mpijob-role"
#define PAI__RULE_K8S_ENV_NAME	    "k8s-env-name"
#define PAI__RULE_K8S_VARIABLE	    "k8s-variable"
#define PAI__RULE_K8S_AUTH_FILE	    "k8s-auth-file"
#define PAI__RULE_K8S_PORT	    "k8s-port"
#define PAI__RULE_K8S_DROPPED	    "k8s-dropped"
#define PAI__RULE_K8S_QUEUE	    "k8s-queue"
#define PAI__RULE_K8S_HDFS	    "k8s-hdfs-dir"
#define PAI__RULE_K8S_SSH	    "k8s-ssh"
#define PAI__RULE_K8S_SECRETS	    "k8s-secrets"
#define PAI__RULE_K8S_TOO_LARGE	    "k8s-too-large"

/* Writes docs (an array of objects) as one YAML stream with libyaml's
 * emitter, "---" between documents. */
int pai__k8s_yaml(pai__buf *out, json_t *docs);

/* pai_job_to_k8s() before the YAML: the objects as a JSON array (the
 * ConfigMap, if any, then the Job), *out new; what the API module
 * submits (lib/client/api/k8s/k8s_submit.c). */
int pai__k8s_manifests(json_t **out, pai_diags *diags, const char *name,
		       const char *text, size_t text_len,
		       const pai_job_options *jopts,
		       const pai_k8s_options *opts);

/* 1 when s may be a label's value: at most 63 of [A-Za-z0-9_.-],
 * alphanumeric at both ends (a v1 jobName mostly is). The job's
 * paictl/job-name label has it only then; the API module looks it up
 * by it only then. */
int pai__k8s_label_value(const char *s);

/* Role r's task count, and the image its containers run. */
long long pai__k8s_tasks(const pai_job *job, size_t r);
const char *pai__k8s_role_image(const pai_job *job, size_t r);

struct pai__k8s_conv;

/* What a kind's objects are (k8s_volcano.c, k8s_paddlejob.c, ...): its
 * own refusals and warnings, and its object. k8s.c and k8s_check.c do
 * what every kind shares (the ConfigMap, the pod templates, the checks
 * of names, variables and sizes). */
struct pai__k8s_writer {
	pai_k8s_kind id;
	const char *title;     /* "a Volcano Job", as messages say it */
	const char *task_word; /* what a role becomes: "task" */
	const char *role_rule; /* a role none of the kind's tasks */
	const char *container; /* the container's name; NULL: the task's */
	const char *restart;   /* the pod template's restartPolicy; NULL:
				* none (the controller sets the pods') */
	int port_names;	       /* the ports are named ("p10000"): the
				* controller makes a Service of them */
	int env_inline;	       /* the object takes no envFrom: the job's
				* shared variables go into each container's
				* env, and there is no ConfigMap */
	const char *no_queue;  /* a virtual cluster that no queue says */
	/* a jobEnv its controller sets after the pod's own (NULL: it
	 * sets none so, k8s_kinds.c) */
	const char *own_env_msg;
	/* What the kind cannot say of the config, or says differently:
	 * its completion rules, retries, roles (after the common checks,
	 * c->retry and c->unlimited set). */
	void (*check)(struct pai__k8s_conv *c);
	/* The job's object, new; NULL when out of memory (or c->err). */
	json_t *(*object)(struct pai__k8s_conv *c);
};

extern const struct pai__k8s_writer pai__k8s_volcano;
extern const struct pai__k8s_writer pai__k8s_paddlejob;
extern const struct pai__k8s_writer pai__k8s_jobset;
extern const struct pai__k8s_writer pai__k8s_pytorchjob;
extern const struct pai__k8s_writer pai__k8s_trainjob;
extern const struct pai__k8s_writer pai__k8s_mpijob;

/* One conversion (k8s.c), with the config's places for diagnostics. */
struct pai__k8s_conv {
	struct pai__k8s k;
	const struct pai__k8s_writer *w; /* the kind's */
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
	long long retry; /* retryCount, jobRetryCount (0 when negative) */
	int unlimited;	 /* ... it is negative: unlimited retries */
};

/* What every kind's object is built of (k8s.c): the metadata of an
 * object named name (labels, annotations, namespace), and role r's pod
 * template; new, NULL when out of memory. */
json_t *pai__k8s_meta(struct pai__k8s_conv *c, const char *name);
json_t *pai__k8s_pod_template(struct pai__k8s_conv *c, size_t r);
/* An operator's schedulingPolicy for Volcano's gang scheduling (all the
 * job's pods, the queue) into obj, when that is the scheduler; 0, or -1
 * when out of memory. */
int pai__k8s_gang_policy(struct pai__k8s_conv *c, json_t *obj);
/* The kinds of a head role of one task and a worker role, a replica
 * type each (a PyTorchJob's master, an MPIJob's launcher): the role
 * whose task is task, or -1; the refusals of either missing or a head
 * of more tasks (the writer's role_rule), and the warning that the
 * workers' minimum succeeded is not counted; their replica specs
 * {Head: ..., Worker: ...} (restartPolicy Never), new, NULL when out of
 * memory. */
long pai__k8s_role_of(const struct pai__k8s_conv *c, const char *task);
void pai__k8s_head_roles(struct pai__k8s_conv *c, const char *head);
json_t *pai__k8s_replica_specs(struct pai__k8s_conv *c, const char *head,
			       const char *head_type);

/* Diagnostics of a conversion (k8s_check.c), at their places in the
 * file: off a byte offset, or role r's field (the role when the file
 * has not that field), or a top-level key, or the retry count's. */
void pai__k8s_say(struct pai__k8s_conv *c, size_t off, pai_severity sev,
		  const char *path, const char *rule, const char *msg);
void pai__k8s_say_role(struct pai__k8s_conv *c, size_t r, const char *field,
		       pai_severity sev, const char *rule, const char *msg);
void pai__k8s_sayf_role(struct pai__k8s_conv *c, size_t r, const char *field,
			pai_severity sev, const char *rule, const char *fmt,
			...) PAI__PRINTF(6, 7);
void pai__k8s_say_top(struct pai__k8s_conv *c, const char *key,
		      pai_severity sev, const char *rule, const char *msg);
void pai__k8s_say_retry(struct pai__k8s_conv *c, const char *msg);
/* The key of role r's minimum failed (1) or succeeded (0) tasks. */
const char *pai__k8s_completion_key(const struct pai__k8s_conv *c, int failed);

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

/* Reports what Kubernetes cannot express (errors: c->refused) or
 * expresses with a difference (warnings), and the names derived. */
int pai__k8s_check(struct pai__k8s_conv *c);

/* ---- Slurm batch jobs (slurm.c; the tasks: runtime/slurm_task.c) ------ */

/* What a Slurm submission is made with, besides the job. */
struct pai__slurm_submit {
	const char *user;    /* $PAI_USER_NAME */
	const char *name;    /* the Slurm job's name */
	const char *subid;   /* the submission's id */
	const char *workdir; /* the profile's; the job's cwd */
	const char *jobdir;  /* the job's directory under it */
	const char *comment; /* the Slurm job's */
	const char *roles;   /* "name*n,...": every role and its tasks */
	const char *partition, *account, *qos; /* NULL: Slurm's defaults */
	const char *image; /* srun --container-image (Pyxis), or NULL */
	unsigned port_base;
	const char *mark;   /* runtime/slurm_task.c's */
	const char *source; /* the file the diagnostics name */
};

/* The body of POST .../job/submit for job: {"script", "job"} or, when
 * the roles ask for different resources, {"script", "jobs": [one per
 * role]}. *out new; PAI_EINVALID with an error in diags for a variable
 * a shell cannot export (rule "slurm-env-name") or a value of o that is
 * not UTF-8 (rule "slurm-utf8"). */
int pai__slurm_job_body(json_t **out, pai_diags *diags, const pai_job *job,
			const struct pai__slurm_submit *o);
/* The config's image: *image it for a site with Pyxis; else NULL and a
 * warning in diags (rule "slurm-image") that it is not used. */
int pai__slurm_image_warning(pai_diags *diags, const char *source,
			     const pai_job *job, int pyxis, const char **image);

#endif
