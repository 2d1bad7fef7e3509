/* k8s_api.h - the Kubernetes module (api_k8s.c, its table) and its parts,
 * one idea each:
 *
 *   k8s_client.c  the client: its kubeconfig and credential, what each
 *                 exchange gets of them and how a failed answer reads
 *                 (http.h's struct pai__wire: a Status into the
 *                 client's detail)
 *   k8s_rest.c    requests to the API server: paths, JSON, a failure's
 *                 Status kept for the caller (422's causes)
 *   k8s_submit.c  a submission: ConfigMap, Job, owner; lost answers
 *   k8s_status.c  a Job, its pods and events as paictl's status JSON
 *                 (the shape OpenPAI's APIs send, status.h), and lists
 *   k8s_informer.c  the one list-and-watch loop (k8s_informer.h)
 *   k8s_watch.c   waiting for a change: the Job kept in view
 *   k8s_follow.c  logs followed: a follow stream per pod, resumed
 *   k8s_exec.c    a command in a pod: exec over WebSocket
 *   k8s_kinds.c   the kinds of job object (engines), found once by the
 *                 profile's kind: a job's phase and state, its pods
 *   engine_*.c    one kind each: engine_volcano.c, engine_paddlejob.c,
 *                 engine_jobset.c, engine_pytorchjob.c,
 *                 engine_trainjob.c, engine_mpijob.c
 *
 * Over kube/kube.h (kubeconfig, credentials, Status, the watch and log
 * splitters, exec's frames) and the client's seam (rest.h, stream.h,
 * upgrade.h): every request, stream and upgrade goes through it. The references: shared/reference/kubernetes-api.md (the
 * wire, cited as §N) and kubernetes.md (the objects). Not installed, not
 * for cli/. */
#ifndef PAI_K8S_API_H
#define PAI_K8S_API_H

#include "client/kube/kube.h"
#include "client/api/module.h"
#include "client/api/status.h"
#include "runtime/runtime.h"

/* ---- the client (k8s_client.c) ---------------------------------------- */

/* A Kubernetes client's state: pai_client.wire_data. The lanes of a
 * batch share it: the credential is the wire's (one lane at a time),
 * the rest is read only. */
struct pai__k8s_client {
	pai__kube_config *cfg;
	pai__kube_cred *cred;
	/* what a job becomes here: kind, namespace (the config's, resolved),
	 * queue, scheduler, fs_uri; user set per submission */
	pai_k8s_options o;
	char *queue, *fs_uri, *runtime; /* o's, owned */
	/* the engine of o.kind, found once (pai__k8s_engine()) */
	const struct pai__k8s_engine *engine;
	/* the backoff of the watches the waits of this client open one
	 * after the other (k8s_watch.c): a wait asked again goes on from
	 * the last one's */
	pai__backoff wait_backoff;
	/* the last stop deleted its job (pai_job_stop_deleted()) */
	int stop_deleted;
};

/* The state of client c (made by pai_client_new_k8s()). */
struct pai__k8s_client *pai__k8s_of(pai_client *c);
/* The client's detail from an answer that is not a 2xx (whatever
 * carried it: REST, a stream, an upgrade), as §2.3 says to show it: the
 * Status's message and reason; a group the server does not serve named
 * as such (where is the request's path or URL). *st filled (release
 * it); the error is pai__kube_status_error()'s. The module's wire
 * judge (struct pai__wire). */
int pai__k8s_judge(pai_client *c, const char *method, const char *where,
		   const pai__response *rs, pai__kube_status *st);


/* ---- the kinds of job object (k8s_kinds.c, engine_*.c) ---------------- */

/* One role of a job's object, as its spec says it. */
struct pai__k8s_spec_role {
	const char *task; /* the name its pods carry (borrowed, or own) */
	long count;	  /* its pods */
	json_t *tmpl;	  /* their template (borrowed; may be NULL) */
	char own[96];	  /* task, when made of more than one name */
};

/* What paictl reads of a kind of job object, and how it stops one. */
/* The most roles, and tasks of all roles together, that paictl reads of
 * one job: counts come from the server, and a larger one is said as
 * what it is rather than allocated for. */
#define PAI__K8S_ROLES_MAX 4096
#define PAI__K8S_TASKS_MAX 65536

struct pai__k8s_engine {
	pai_k8s_kind id;
	/* The object's phase, as paictl shows it (subState; borrowed or
	 * static), and since when (*since, may be NULL); NULL: none yet. */
	const char *(*phase)(json_t *job, const char **since);
	/* Its roles: a new array of *n (free it). NULL when out of
	 * memory (*n 0), or when the object names more than
	 * PAI__K8S_ROLES_MAX (*n then that maximum plus one). */
	struct pai__k8s_spec_role *(*roles)(json_t *job, size_t *n);
	/* The label selector of the pods of the job named name (escaped,
	 * appended to q). */
	void (*selector)(pai__buf *q, const char *name);
	/* A pod's task (appended to task) and index: 1, or 0 when it
	 * says none. */
	int (*pod_task)(json_t *pod, pai__buf *task, long *index);
	/* 1 when pod (one the selector found) is job's own, now: not of
	 * an older job of that name, nor of a run before a restart. */
	int (*owns)(json_t *job, json_t *pod);
	/* Stops job (named name as the user gave it), not ended yet. */
	int (*stop)(pai_client *c, json_t *job, const char *name);
	/* Its queue (borrowed; NULL: none), and its retries so far. */
	const char *(*queue)(json_t *job);
	long long (*retries)(json_t *job);
	/* What a submission needs there besides its objects (a TrainJob's
	 * runtime): PAI_OK, or the client's error saying what is missing;
	 * NULL: nothing. */
	int (*ready)(pai_client *c);
};

extern const struct pai__k8s_engine pai__k8s_volcano_engine;
extern const struct pai__k8s_engine pai__k8s_paddlejob_engine;
extern const struct pai__k8s_engine pai__k8s_jobset_engine;
extern const struct pai__k8s_engine pai__k8s_pytorchjob_engine;
extern const struct pai__k8s_engine pai__k8s_trainjob_engine;
extern const struct pai__k8s_engine pai__k8s_mpijob_engine;

/* r, a role of task whose spec (replicas, template) is spec; dflt its
 * pods when the spec says no positive number. */
void pai__k8s_spec_role(struct pai__k8s_spec_role *r, const char *task,
			json_t *spec, long dflt);

/* The engine of c's profile (never NULL: the profile's kind is one;
 * k8s_kinds.c), and of kind (NULL: none; k8s_engines.c). */
const struct pai__k8s_engine *pai__k8s_engine(pai_client *c);
const struct pai__k8s_engine *pai__k8s_engine_of(pai_k8s_kind kind);

/* The key of pod among its job's pods, into b: its task and index (as
 * its engine reads them) with PAI__K8S_KEY_SEP between; 0 when it has
 * none. pai__k8s_task_key(): the key of a task. */
#define PAI__K8S_KEY_SEP '\x1f'
int pai__k8s_pod_key(pai__buf *b, pai_client *c, json_t *pod);
void pai__k8s_task_key(pai__buf *b, const char *task, long index);
/* Of two pods of one key, the one that counts: the newer. */
json_t *pai__k8s_newer_pod(json_t *a, json_t *b);
/* The roles of a training operator's replica specs (PyTorchJob's,
 * MPIJob's: {"Master": {replicas, template}, ...}), each task the type
 * in lower case as the operators label the pods; new array of *n. */
struct pai__k8s_spec_role *pai__k8s_replica_roles(json_t *specs, size_t *n);
/* 1 when pod was made no earlier than job (not of an older job of that
 * name, whose pods the garbage collector has not yet deleted). */
int pai__k8s_made_after(json_t *job, json_t *pod);
/* The phase of a training operator's job (PyTorchJob's, MPIJob's): the
 * condition it holds true last of Failed, Succeeded, Suspended,
 * Restarting, Running, Created; "Suspending" while runPolicy.suspend
 * waits for the operator; NULL: none yet. */
const char *pai__k8s_operator_phase(json_t *job, const char **since);
/* Its queue: runPolicy.schedulingPolicy's (borrowed; NULL: none). */
const char *pai__k8s_operator_queue(json_t *job);
/* Kueue's queue of a job: its queue-name label (borrowed; NULL). */
const char *pai__k8s_kueue_queue(json_t *job);
/* A stop that suspends job: spec.suspend, or (run_policy) its
 * runPolicy.suspend, with the annotation PAI__K8S_STOPPED; *got (may
 * be NULL) the object as stored after. */
int pai__k8s_suspend(json_t **got, pai_client *c, json_t *job,
		     int run_policy);
/* What c's engine checks before a submission (its ready()). */
int pai__k8s_ready(pai_client *c);
/* 1 when an ownerReference of obj names job's uid. */
int pai__k8s_owned_by(json_t *job, json_t *obj);
/* *out the decimal number s (a label's value): 1, or 0 when it is none. */
int pai__k8s_number(const char *s, long *out);
/* Deletes job (Background: the garbage collector takes its pods). */
int pai__k8s_delete_job(pai_client *c, json_t *job);
/* A stop that deletes job (a kind with no stop of its own), as
 * pai_job_stop_deleted() then says. */
int pai__k8s_stop_by_delete(pai_client *c, json_t *job);
/* Merge-patches job with patch (borrowed): *out the object as stored
 * after (new; may be NULL). */
int pai__k8s_patch_job(json_t **out, pai_client *c, json_t *job,
		       json_t *patch);
/* The condition of type among status.conditions whose status is
 * "True", or NULL (JobSet's and the training operator's). */
json_t *pai__k8s_condition(json_t *job, const char *type);
/* What the kinds that run as a JobSet's Jobs share (k8s_jobset.c):
 * pai__k8s_jobs_phase(), the phase of job from its conditions (complete:
 * its kind's type of the condition of success; "Failed"; "Suspended")
 * and the counts of its Jobs (list: the status's array of them);
 * pai__k8s_jobset_selector(), the pods of the JobSet named name;
 * pai__k8s_jobset_pod_task(), a pod's replicated Job and completion
 * index (the engines' phase, selector and pod_task). */
const char *pai__k8s_jobs_phase(json_t *job, const char **since,
				const char *complete, const char *list);
void pai__k8s_jobset_selector(pai__buf *q, const char *name);
int pai__k8s_jobset_pod_task(json_t *pod, pai__buf *task, long *index);
/* A training operator's (the PyTorchJob's, the MPIJob's, k8s_kinds.c):
 * the selector of the pods of the job named name, that operator's; a
 * pod's task (its role_label) and replica index, 0 for that of the role
 * indexless (NULL: none), whose one pod has none. */
void pai__k8s_operator_selector(pai__buf *q, const char *operator_name,
				const char *name);
int pai__k8s_replica_pod(json_t *pod, const char *role_label,
			 const char *indexless, pai__buf *task, long *index);
/* What a stop writes on a job that it suspends (an annotation): a
 * suspended job is STOPPED only with it (another's suspension, such as
 * Kueue's, is a wait). */
#define PAI__K8S_STOPPED "paictl/stopped"

/* ---- requests (k8s_rest.c) -------------------------------------------- */

/* Which collection of the namespace. */
enum pai__k8s_res {
	PAI__K8S_JOBS, /* the engine's: Volcano Jobs or PaddleJobs */
	PAI__K8S_CONFIGMAPS,
	PAI__K8S_PODS,
	PAI__K8S_EVENTS,
	PAI__K8S_COMMANDS /* Volcano's bus.volcano.sh Commands */
};

/* The path of collection res in c's namespace, then "/" name when name
 * is not NULL, then tail (a subresource or a query, may be NULL):
 * appended to b, name escaped. */
void pai__k8s_path(pai__buf *b, pai_client *c, enum pai__k8s_res res,
		   const char *name, const char *tail);
/* The path of the job name of kind, whatever the profile's kind. */
void pai__k8s_job_path(pai__buf *b, pai_client *c, pai_k8s_kind kind,
		       const char *name);

/* apiVersion and kind of the engine's objects. */
const char *pai__k8s_job_api(pai_client *c);
const char *pai__k8s_job_kind(pai_client *c);

typedef struct pai__k8s_rq {
	const char *method;
	const char *path;  /* from pai__k8s_path(), query included */
	json_t *body;	   /* or NULL */
	const char *ctype; /* the body's; NULL: application/json */
	int safe;	   /* may be sent again after a failed attempt */
} pai__k8s_rq;

/* What an answer was, beyond its JSON. */
typedef struct pai__k8s_ans {
	long http;	     /* 0: none came */
	int maybe;	     /* no answer, or a 5xx, to a request that went
			      * out: it may have been carried out */
	pai__kube_status st; /* a failure's Status (release it) */
} pai__k8s_ans;

/*
 * Sends rq: a 2xx's JSON in *out (new; NULL when out is NULL or the
 * body is empty); otherwise the client's detail says what the server
 * said (its Status message; a group the server does not serve named as
 * such) and the error is pai__kube_status_error()'s. ans (may be NULL;
 * zeroed first) gets the answer's facts and the Status.
 */
int pai__k8s_call(json_t **out, pai_client *c, const pai__k8s_rq *rq,
		  pai__k8s_ans *ans);
void pai__k8s_ans_release(pai__k8s_ans *ans);

/* GET path: the object (new). */
int pai__k8s_get(json_t **out, pai_client *c, const char *path);

/* The engine's object of job `name` as the user gave it: by that name,
 * else (a name Kubernetes had to derive) by the label paictl/job-name.
 * *out new; PAI_ENOTFOUND with the detail "job 'X' not found". */
int pai__k8s_find_job(json_t **out, pai_client *c, const char *name);

/* paictl's state of the engine's object (its phase), pods unread, and
 * the phase (k8s_kinds.c). */
pai_state pai__k8s_job_state(pai_client *c, json_t *job);
const char *pai__k8s_job_phase(pai_client *c, json_t *job, const char **since);

/* ---- the operations, each in its file ---------------------------------- */

int pai__k8s_submit(const struct pai__api *api, pai_client *c, const char *user,
		    json_t *config, const pai_submit_options *o,
		    int *recovered);
/* --dry-run's request: the Job's POST. */
int pai__k8s_submit_request(pai__submit_rq *rq, const struct pai__api *api,
			    pai_client *c, const char *user, json_t *config);

/* A status from job (the engine's object, borrowed) and its pods and
 * events, read now: *out new. */
int pai__k8s_status(pai_job_info **out, pai_client *c, json_t *job);
int pai__k8s_job_get(pai_job_info **out, const struct pai__api *api,
		     pai_client *c, const char *user, const char *name);
int pai__k8s_jobs_list(pai_job_list **out, const struct pai__api *api,
		       pai_client *c, const char *user);

int pai__k8s_job_changed(pai_job_info **out, const struct pai__api *api,
			 pai_client *c, const char *user, const char *name,
			 const pai_job_info *last, long timeout_ms);
int pai__k8s_logs_follow(const struct pai__api *api, pai_client *c,
			 const pai_job_info *job,
			 const pai_task_info *const *tasks, size_t n,
			 const pai_follow_options *o);
int pai__k8s_task_exec(int *exit_status, const struct pai__api *api,
		       pai_client *c, const pai_job_info *job,
		       const pai_task_info *task, const pai_exec_options *o);

/* An exec in a pod of the namespace (§7): argc words of argv, stdin
 * attached (in), stderr apart (err), a terminal (tty). */
typedef struct pai__k8s_exec_rq {
	const char *pod, *container; /* container NULL: the only one */
	const char *const *argv;
	size_t argc;
	int in, err, tty;
} pai__k8s_exec_rq;

/* The session of rq, upgraded over the client's seam and its 101
 * checked: *out new (pai__kube_exec_free). PAI_OK, or the error with the
 * client's detail set (a refusal in the server's words). */
int pai__k8s_exec_open(pai__kube_exec **out, pai_client *c,
		       const pai__k8s_exec_rq *rq);

/* The status JSON's "kubernetes" member of a job info: namespace, name,
 * uid, resourceVersion, phase, tasks (each role's task, by the role's
 * name)... (borrowed), or NULL. */
json_t *pai__k8s_info_meta(const pai_job_info *info);

#endif /* PAI_K8S_API_H */
