/* module.h - what an API module provides (api.h has the map of the
 * folder): struct pai__api, the table of its operations that api.c
 * chooses once per client and client.c, logs.c and submit.c call
 * through. A module includes this, not api.h, and knows nothing of the
 * layers above. Not installed, not for cli/. */
#ifndef PAI_MODULE_H
#define PAI_MODULE_H

#include "client/model.h"
#include "client/rest.h"

struct pai__openpai;

/*
 * The operations one API carries, as client.c, logs.c and submit.c call
 * them. Each gets its own table (api) first after its outputs, so that
 * an operation written once for several modules finds the module's
 * routes there. Every operation sets the client's detail when it fails.
 */
struct pai__api {
	pai_api id;
	pai_format format; /* of the configs it takes */
	/* 1: its submissions may go several at once, each on a lane of
	 * the client in a thread of its own (batch.c, pai_submit_batch):
	 * what it keeps in the client's state (wire_data) and changes, it
	 * changes only in its wire's hooks (conn.c calls them under the
	 * client's lock) or under a lock of its own; 0: a batch goes one
	 * by one. */
	int lanes;
	/* The routes and shapes of an OpenPAI REST API, which the shared
	 * operations of api/openpai.c follow; NULL in a module that
	 * carries every operation itself. */
	const struct pai__openpai *openpai;

	int (*cluster_info)(json_t **out, const struct pai__api *api,
			    pai_client *c);
	int (*login)(char **token, const struct pai__api *api, pai_client *c,
		     const char *user, const char *password, long expiration_s);

	/* The request that submits config, which is in this API's format
	 * (submit.c has converted it). */
	int (*submit_request)(pai__submit_rq *rq, const struct pai__api *api,
			      pai_client *c, const char *user, json_t *config);
	/*
	 * Sends one submission. PAI_OK for any 2xx. On failure
	 * *maybe_created is 1 when the job may exist nonetheless: the
	 * request went out and no answer came, the server answered 5xx
	 * (for v2: one that is not a YAML or template error, which the
	 * server also answers 500), or libcurl re-sent the request by
	 * itself and met 409 (perhaps our own first copy).
	 */
	int (*post_job)(const struct pai__api *api, pai_client *c,
			const pai__submit_rq *rq, int *maybe_created);
	/* The job's stored config as JSON, to compare with what was sent;
	 * PAI_ENOTFOUND with the error code as the server gave it. */
	int (*stored_config)(json_t **out, const struct pai__api *api,
			     pai_client *c, const char *user, const char *name);

	int (*job_get)(pai_job_info **out, const struct pai__api *api,
		       pai_client *c, const char *user, const char *name);
	int (*jobs_list)(pai_job_list **out, const struct pai__api *api,
			 pai_client *c, const char *user);
	int (*job_config)(char **text, size_t *len, const struct pai__api *api,
			  pai_client *c, const char *user, const char *name);
	int (*job_stop)(const struct pai__api *api, pai_client *c,
			const char *user, const char *name);
	int (*job_ssh)(pai_ssh_info **out, const struct pai__api *api,
		       pai_client *c, const char *user, const char *name);
	/* See pai_task_log_url(); job and task come from this API's
	 * job_get. */
	int (*task_log_url)(char **url, const struct pai__api *api,
			    pai_client *c, const pai_job_info *job,
			    const pai_task_info *task, const char *stream,
			    int tail);

	/* ---- what only some clusters do: NULL where the cluster cannot,
	 * and the call says PAI_ENOTSUP (client.c, submit.c) */

	/*
	 * "Tell me when it changes": pai_job_get_changed(). The status of
	 * the job once it differs from last's (the job's state, or a
	 * task's: what a follower shows), as job_get gives it (*out new);
	 * at most timeout_ms (< 0: no limit), then the status as it is.
	 * last is a status this module gave (job_get or job_changed), for
	 * whatever it keeps there (pai_job_info.version: an ETag, a
	 * resourceVersion); NULL: answer at once. A job that has ended
	 * answers at once. The cluster must push: the engine's own
	 * notice (the local cluster's long-poll, api/local.c; a
	 * Kubernetes watch), never a poll loop here: the callers poll
	 * job_get within their own budget where this is NULL, and their
	 * pace is theirs (cli/pace.c). Interruptible (the client's
	 * interrupt: PAI_EINTR); the client's Retry-After holds apply.
	 * A module that cannot tell at run time (a server without the
	 * extension) says PAI_ENOTSUP with the detail set, and must say so
	 * before sending anything that costs more than one request per
	 * client.
	 */
	int (*job_changed)(pai_job_info **out, const struct pai__api *api,
			   pai_client *c, const char *user, const char *name,
			   const pai_job_info *last, long timeout_ms);

	/* The whole submission, where it is more than one request
	 * (Kubernetes: a ConfigMap, the Job, the ConfigMap's owner) and a
	 * lost answer is resolved the cluster's own way; submit.c then
	 * uses neither post_job nor stored_config. config is as given (the
	 * module takes either format). *recovered as pai_submit_ex(). */
	int (*submit)(const struct pai__api *api, pai_client *c,
		      const char *user, json_t *config,
		      const pai_submit_options *o, int *recovered);
	/* See pai_logs_follow(): the cluster's own log streams. */
	int (*logs_follow)(const struct pai__api *api, pai_client *c,
			   const pai_job_info *job,
			   const pai_task_info *const *tasks, size_t n,
			   const pai_follow_options *o);
	/* See pai_task_exec(): the cluster's own exec. */
	int (*task_exec)(int *exit_status, const struct pai__api *api,
			 pai_client *c, const pai_job_info *job,
			 const pai_task_info *task, const pai_exec_options *o);
	/* See pai_jobs_list_since(): jobs_list looking back to since_ms
	 * (> 0) where the cluster keeps ended jobs apart, for longer than
	 * its list (Slurm's accounting). NULL: jobs_list's. */
	int (*jobs_since)(pai_job_list **out, const struct pai__api *api,
			  pai_client *c, const char *user, long long since_ms);
	/* See pai_job_delete(): a job that has ended (client.c has read
	 * its status) deleted, as the cluster's own request does it. */
	int (*job_delete)(const struct pai__api *api, pai_client *c,
			  const char *user, const char *name);
	/* See pai_log_read(), for the URLs this module's task_log_url
	 * gives where they are no HTTP (Slurm: files in the job's
	 * directory, here or over SFTP). NULL: logs.c reads them. */
	int (*log_read)(char **data, size_t *len, long long *next,
			const struct pai__api *api, pai_client *c,
			const char *url, long long offset);
	/* See pai_client_poll_ms(): 0 where the callers' pace serves. */
	long poll_ms;
	/* See pai_client_ssh_connect(): the connection the cluster's nodes
	 * are reached through (*out borrowed, the client's), or *out NULL
	 * where they are reached directly. NULL: directly. */
	int (*ssh_jump)(pai_ssh **out, const struct pai__api *api,
			pai_client *c);
};

/* The modules (api/). */
extern const struct pai__api pai__api_v1;
extern const struct pai__api pai__api_v2;
/* paictl's local cluster: api_v1.c's routes and operations, and its
 * own extensions (api/local.c) */
extern const struct pai__api pai__api_local;
/* Kubernetes (k8s/api_k8s.c): only a client from pai_client_new_k8s(). */
extern const struct pai__api pai__api_k8s;
/* Slurm (slurm/api_slurm.c): only a client from pai_client_new_slurm(). */
extern const struct pai__api pai__api_slurm;

/* GET <base>/api/v2/info: which API the cluster speaks (api_v2.c);
 * what the local cluster says of its extensions, too
 * (pai__local_note_info). */
int pai__v2_detect(pai_api *out, pai_client *c);

/* ---- the local cluster's extensions (api/local.c) -------------------- */

/* Notes what /api/v2/info (info, may be NULL) says of the local
 * cluster's extensions on the client (pai_client.can_wait). */
void pai__local_note_info(pai_client *c, json_t *info);
/* The long-poll on a job: job_changed over api's job_url. */
int pai__local_job_changed(pai_job_info **out, const struct pai__api *api,
			   pai_client *c, const char *user, const char *name,
			   const pai_job_info *last, long timeout_ms);

#endif /* PAI_MODULE_H */
