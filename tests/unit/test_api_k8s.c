/* test_api_k8s.c - the Kubernetes module (lib/client/api/k8s/api_k8s.c and
 * its k8s_*.c) against scripted answers of an API server: profiles of a
 * Kubernetes cluster in the profiles file, the phase-to-state table, a
 * status read from a Job and its pods (role names, ports, reasons, exit
 * codes), and a submission's requests: their order, a lost answer, a
 * conflict that deletes the ConfigMap made, a 422's causes as
 * diagnostics. tests/kube/test_cli.py runs the same against a real
 * kube-apiserver. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_openpai.h"
#include "pai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS   "/namespaces/team-a/"
#define JOBS "/apis/batch.volcano.sh/v1alpha1" NS "jobs"

/* The fake API server: a Job, its pods, and how to answer a create. */
struct api {
	const char *jobs;  /* the jobs' collection; NULL: Volcano's */
	int prune_suspend; /* a PATCH's answer drops runPolicy.suspend, as
			    * an older PyTorchJob CRD makes the server do */
	const char *job;   /* GET jobs/NAME; NULL: 404 */
	const char *pods;  /* GET pods?... */
	int create_status; /* the answer to POST jobs */
	const char *create_body;
	int drop_create;   /* lose the answer to POST jobs (once) */
	char log[32][176]; /* "METHOD path" of each request */
	int n;
	char job_body[16384]; /* the Job as POSTed, for a GET after */
	char cm_delete[256];  /* the body of the ConfigMap's DELETE */
};

static void answer_job(struct api *a, fake_reply *rp)
{
	if (a->job_body[0]) /* what was created, as the server stores it */
		fake_reply_set(rp, 200, "application/json", "%s", a->job_body);
	else if (a->job)
		fake_reply_set(rp, 200, "application/json", "%s", a->job);
	else
		fake_reply_set(rp, 404, "application/json",
			       "{\"kind\":\"Status\",\"status\":\"Failure\","
			       "\"reason\":\"NotFound\",\"code\":404,"
			       "\"message\":\"jobs \\\"x\\\" not found\"}");
}

static void create_job(struct api *a, const fake_request *rq, fake_reply *rp)
{
	if (a->job_body[0]) { /* made already: as an API server answers */
		fake_reply_set(rp, 409, "application/json",
			       "{\"kind\":\"Status\",\"reason\":"
			       "\"AlreadyExists\",\"code\":409}");
		return;
	}
	if (a->drop_create) {
		a->drop_create = 0;
		snprintf(a->job_body, sizeof(a->job_body), "%s", rq->body);
		rp->drop = 1;
		return;
	}
	if (a->create_status == 201)
		snprintf(a->job_body, sizeof(a->job_body), "%s", rq->body);
	fake_reply_set(rp, a->create_status, "application/json", "%s",
		       a->create_body ? a->create_body : rq->body);
}

static void handler(void *data, const fake_request *rq, fake_reply *rp)
{
	struct api *a = data;
	const char *p = rq->path, *jobs = a->jobs ? a->jobs : JOBS;
	size_t n = strlen(jobs);

	if (a->n < 32)
		snprintf(a->log[a->n++], sizeof(a->log[0]), "%s %.150s",
			 rq->method, p);
	if (strcmp(rq->method, "POST") == 0 && strncmp(p, jobs, n) == 0 &&
	    p[n] == '?')
		create_job(a, rq, rp);
	else if (strcmp(rq->method, "PATCH") == 0 && a->prune_suspend)
		fake_reply_set(rp, 200, "application/json", "%s",
			       "{\"spec\":{\"runPolicy\":{}}}");
	else if (strcmp(rq->method, "GET") == 0 && strncmp(p, jobs, n) == 0 &&
		 p[n] == '/')
		answer_job(a, rp);
	else if (strstr(p, "/pods"))
		fake_reply_set(rp, 200, "application/json", "%s",
			       a->pods ? a->pods : "{\"items\":[]}");
	else if (strstr(p, "/events"))
		fake_reply_set(rp, 200, "application/json", "{\"items\":[]}");
	else if (strcmp(rq->method, "POST") == 0) /* the ConfigMap */
		fake_reply_set(rp, 201, "application/json",
			       "{\"metadata\":{\"name\":\"sub-pai-env\","
			       "\"resourceVersion\":\"7\"}}");
	else if (strcmp(rq->method, "DELETE") == 0) {
		snprintf(a->cm_delete, sizeof(a->cm_delete), "%s",
			 rq->body ? rq->body : "");
		fake_reply_set(rp, 200, "application/json", "{}");
	} else /* patched */
		fake_reply_set(rp, 200, "application/json", "%s",
			       rq->body && *rq->body ? rq->body : "{}");
}

static char dir[64];

static pai_client *client_of(fake_server *f, pai_k8s_kind kind)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_k8s_cluster k = PAI_K8S_CLUSTER_INIT;
	pai_client *c = NULL;
	char path[128], *detail = NULL;
	FILE *cf;

	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	cf = fopen(path, "w");
	assert_non_null(cf);
	fprintf(cf,
		"apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  "
		"cluster: {server: 'http://127.0.0.1:%u'}\nusers:\n- name: u\n"
		"  user: {token: t0k}\ncontexts:\n- name: x\n  context: "
		"{cluster: c, user: u, namespace: team-a}\n"
		"current-context: x\n",
		fake_port(f));
	fclose(cf);
	k.kubeconfig = path;
	k.kind = kind;
	o.max_retries = 0;
	assert_int_equal(pai_client_new_k8s(&c, &detail, &o, &k), PAI_OK);
	assert_null(detail);
	assert_int_equal(pai_client_api(c), PAI_API_K8S);
	return c;
}

static pai_client *client(fake_server *f)
{
	return client_of(f, PAI_K8S_VOLCANO);
}

/* ---- profiles ------------------------------------------------------------ */

static void test_profiles(void **state)
{
	pai_profile p = {"gpu", NULL, NULL,	  PAI_DIALECT_OPENPAI,
			 NULL,	0,    PAI_API_K8S};
	pai_k8s_cluster k = PAI_K8S_CLUSTER_INIT, got;
	pai_config *cfg = NULL, *back = NULL;
	char path[128], *detail = NULL;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/config.json", dir);
	assert_int_equal(pai_config_load(&cfg, NULL, path), PAI_OK);
	assert_int_equal(pai_config_set(cfg, &p), PAI_OK);
	k.ns = "team-a";
	k.kind = PAI_K8S_PADDLEJOB;
	k.fs_uri = "hdfs://nn:9000";
	k.runtime = "Not_A_Name";
	assert_int_equal(pai_config_set_k8s(cfg, "gpu", &k), PAI_EINVAL);
	k.runtime = NULL;
	assert_int_equal(pai_config_set_k8s(cfg, "gpu", &k), PAI_OK);
	k.ns = "Team_A"; /* not a DNS label */
	assert_int_equal(pai_config_set_k8s(cfg, "gpu", &k), PAI_EINVAL);
	assert_int_equal(pai_config_set_k8s(cfg, "nope", &k), PAI_ENOTFOUND);
	assert_int_equal(pai_config_save(cfg, path), PAI_OK);
	assert_int_equal(pai_config_load(&back, NULL, path), PAI_OK);
	assert_int_equal(pai_config_k8s(&got, back, "gpu"), PAI_OK);
	assert_string_equal(got.ns, "team-a");
	assert_int_equal(got.kind, PAI_K8S_PADDLEJOB);
	assert_string_equal(got.fs_uri, "hdfs://nn:9000");
	/* every kind by its name in the file */
	k.ns = "team-a";
	k.kind = PAI_K8S_PYTORCHJOB;
	assert_int_equal(pai_config_set_k8s(back, "gpu", &k), PAI_OK);
	assert_int_equal(pai_config_save(back, path), PAI_OK);
	pai_config_free(back);
	assert_int_equal(pai_config_load(&back, NULL, path), PAI_OK);
	assert_int_equal(pai_config_k8s(&got, back, "gpu"), PAI_OK);
	assert_int_equal(got.kind, PAI_K8S_PYTORCHJOB);
	assert_null(pai_config_find(back, "gpu")->uri);
	/* a TrainJob's runtime, kept, read apart: pai_config_k8s() fills
	 * version 1's fields alone, which a caller built before version 2
	 * has room for */
	k.kind = PAI_K8S_TRAINJOB;
	k.runtime = "my-rt";
	k.runtime_namespaced = 1;
	assert_int_equal(pai_config_set_k8s(back, "gpu", &k), PAI_OK);
	assert_int_equal(pai_config_save(back, path), PAI_OK);
	pai_config_free(back);
	assert_int_equal(pai_config_load(&back, NULL, path), PAI_OK);
	{
		pai_k8s_cluster v;
		const char *rt = NULL;
		int rns = 0;

		memset(&v, 0xab, sizeof(v));
		assert_int_equal(pai_config_k8s(&v, back, "gpu"), PAI_OK);
		assert_int_equal(v.version, 1);
		assert_int_equal(v.kind, PAI_K8S_TRAINJOB);
		/* past the version 1 struct: untouched */
		assert_int_equal(((unsigned char *)&v.runtime)[0], 0xab);
		assert_int_equal(pai_config_k8s_runtime(&rt, &rns, back, "gpu"),
				 PAI_OK);
		assert_string_equal(rt, "my-rt");
		assert_int_equal(rns, 1);
		assert_int_equal(pai_config_k8s_runtime(&rt, &rns, back, "no"),
				 PAI_ENOTFOUND);
		assert_int_equal(pai_config_k8s_runtime(NULL, &rns, back, "gpu"),
				 PAI_EINVAL);
		/* a version 1 struct given: its fields, no runtime read */
		v.kind = PAI_K8S_MPIJOB;
		v.ns = "team-b";
		assert_int_equal(pai_config_set_k8s(back, "gpu", &v), PAI_OK);
		assert_int_equal(pai_config_k8s_runtime(&rt, &rns, back, "gpu"),
				 PAI_OK);
		assert_null(rt);
		assert_int_equal(rns, 0);
	}
	/* a Kubernetes profile has no URI, and another one a URI */
	p.uri = "https://x";
	assert_int_equal(pai_config_set(cfg, &p), PAI_EINVAL);
	pai_config_free(cfg);
	pai_config_free(back);
	f = fopen(path, "w");
	fputs("{\"clusters\":{\"g\":{\"api\":\"k8s\",\"kubernetes\":"
	      "{\"engine\":\"mpi\"}}}}",
	      f);
	fclose(f);
	assert_int_equal(pai_config_load(&cfg, &detail, path), PAI_ESYNTAX);
	assert_non_null(strstr(detail, "engine must be"));
	free(detail);
}

/* ---- status
 * ------------------------------------------------------------------ */

/* The state of the job of kind kind the server has (at jobs, NULL:
 * Volcano's) as job. */
static pai_state state_of(pai_k8s_kind kind, const char *jobs, const char *job)
{
	struct api a;
	fake_server *f = NULL;
	pai_client *c;
	pai_job_info *info = NULL;
	pai_state s;

	memset(&a, 0, sizeof(a));
	a.jobs = jobs;
	a.job = job;
	assert_int_equal(fake_start(&f, "127.0.0.1", handler, &a), 0);
	c = client_of(f, kind);
	assert_int_equal(pai_job_get(&info, c, "alice", "j"), PAI_OK);
	s = pai_job_info_state(info);
	pai_job_info_free(info);
	pai_client_free(c);
	fake_stop(f);
	return s;
}

static pai_state state_of_phase(const char *phase)
{
	char job[512];

	snprintf(job, sizeof(job),
		 "{\"metadata\":{\"name\":\"j\",\"uid\":\"u1\"},\"spec\":"
		 "{\"tasks\":[{\"name\":\"main\",\"replicas\":1}]},"
		 "\"status\":{\"state\":{\"phase\":\"%s\"}}}",
		 phase);
	return state_of(PAI_K8S_VOLCANO, NULL, job);
}

static void test_phases(void **state)
{
	(void)state;
	assert_int_equal(state_of_phase(""), PAI_STATE_WAITING);
	assert_int_equal(state_of_phase("Pending"), PAI_STATE_WAITING);
	assert_int_equal(state_of_phase("Running"), PAI_STATE_RUNNING);
	assert_int_equal(state_of_phase("Restarting"), PAI_STATE_RUNNING);
	assert_int_equal(state_of_phase("Completing"), PAI_STATE_RUNNING);
	assert_int_equal(state_of_phase("Completed"), PAI_STATE_SUCCEEDED);
	assert_int_equal(state_of_phase("Failed"), PAI_STATE_FAILED);
	assert_int_equal(state_of_phase("Terminated"), PAI_STATE_FAILED);
	assert_int_equal(state_of_phase("Aborting"), PAI_STATE_STOPPING);
	assert_int_equal(state_of_phase("Aborted"), PAI_STATE_STOPPED);
}

static const char tasks_job[] =
    "{\"metadata\":{\"name\":\"tf\",\"namespace\":\"team-a\",\"uid\":\"u1\","
    "\"resourceVersion\":\"7\",\"annotations\":{\"paictl/job-name\":\"TF\"}},"
    "\"spec\":{\"tasks\":[{\"name\":\"ps-server\",\"replicas\":2,"
    "\"template\":{\"metadata\":{\"annotations\":{\"paictl/task-role\":"
    "\"ps_server\",\"paictl/ports\":\"http:10000;grpc:7000,7001\"}}}},"
    "{\"name\":\"worker\",\"replicas\":1}]},"
    "\"status\":{\"state\":{\"phase\":\"Running\"}}}";

/* A pod as Volcano makes it: named <job>-<task>-<index>, labelled with
 * its task and index, owned by its Job. */
#define POD(name, task, index, phase, extra)                                   \
	"{\"metadata\":{\"name\":\"" name "\",\"uid\":\"p-" name "\","         \
	"\"labels\":{\"volcano.sh/task-spec\":\"" task "\","                   \
	"\"volcano.sh/task-index\":\"" index "\"},"                            \
	"\"ownerReferences\":[{\"uid\":\"u1\"}]},\"spec\":{\"nodeName\":"      \
	"\"n1\",\"containers\":[{\"name\":\"c\"}]},\"status\":{\"phase\":"     \
	"\"" phase "\",\"podIP\":\"10.0.0.1\"" extra "}}"

#define RUNNING_2                                                              \
	",\"containerStatuses\":[{\"restartCount\":2,\"state\":{\"running\":{" \
	"}}}]"
#define PULL_BACKOFF                                                           \
	",\"containerStatuses\":[{\"state\":{\"waiting\":{\"reason\":"         \
	"\"ImagePullBackOff\",\"message\":\"Back-off pulling\"}}}]"
#define OOM_KILLED                                                             \
	",\"containerStatuses\":[{\"state\":{\"terminated\":{\"reason\":"      \
	"\"OOMKilled\",\"exitCode\":137}}}]"

/* clang-format off */
static const char tasks_pods[] = "{\"items\":["
    POD("tf-ps-server-0", "ps-server", "0", "Running", RUNNING_2) ","
    POD("tf-ps-server-1", "ps-server", "1", "Pending", PULL_BACKOFF) ","
    POD("tf-worker-0", "worker", "0", "Failed", OOM_KILLED) ","
    /* another job's pod of the same task: not this one's */
    "{\"metadata\":{\"name\":\"tf-ps-server-0\",\"labels\":{"
    "\"volcano.sh/task-spec\":\"ps-server\",\"volcano.sh/task-index\":"
    "\"0\"},\"ownerReferences\":[{\"uid\":\"other\"}]},\"status\":"
    "{\"phase\":\"Failed\"}}]}";
/* clang-format on */

static void test_status(void **state)
{
	struct api a;
	fake_server *f = NULL;
	pai_client *c;
	pai_job_info *info = NULL;
	const pai_task_info *t;
	json_t *tj;
	long i;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.job = tasks_job;
	a.pods = tasks_pods;
	assert_int_equal(fake_start(&f, "127.0.0.1", handler, &a), 0);
	c = client(f);
	assert_int_equal(pai_job_get(&info, c, "alice", "tf"), PAI_OK);
	assert_string_equal(pai_job_info_name(info), "TF");
	assert_int_equal(pai_job_info_task_count(info), 3);
	/* the role as written, whatever Kubernetes calls its task */
	i = pai_job_info_find_task(info, "ps_server", 1);
	assert_true(i >= 0);
	t = pai_job_info_task(info, (size_t)i);
	assert_int_equal(t->state, PAI_STATE_WAITING);
	tj = pai_job_info_task_json(info, (size_t)i);
	assert_string_equal(
	    json_string_value(json_object_get(tj, "containerExitDiagnostics")),
	    "ImagePullBackOff: Back-off pulling");
	assert_string_equal(
	    json_string_value(json_object_get(t->ports, "grpc")), "7000,7001");
	t = pai_job_info_task(
	    info, (size_t)pai_job_info_find_task(info, "ps_server", 0));
	assert_int_equal(t->state, PAI_STATE_RUNNING);
	assert_string_equal(t->container_id, "tf-ps-server-0");
	t = pai_job_info_task(
	    info, (size_t)pai_job_info_find_task(info, "worker", 0));
	assert_int_equal(t->state, PAI_STATE_FAILED);
	assert_true(t->has_exit_code && t->exit_code == 137);
	pai_job_info_free(info);
	pai_client_free(c);
	fake_stop(f);
}

/* ---- JobSet and PyTorchJob ---------------------------------------------- */

#define JOBSETS "/apis/jobset.x-k8s.io/v1alpha2" NS "jobsets"
static int seen(const struct api *a, const char *prefix);
#define PYTORCHJOBS "/apis/kubeflow.org/v1" NS "pytorchjobs"
#define TRAINJOBS   "/apis/trainer.kubeflow.org/v1alpha1" NS "trainjobs"
#define MPIJOBS	    "/apis/kubeflow.org/v2beta1" NS "mpijobs"

/* A JobSet in its second run (restarts 1), its server's Job ready. */
static const char jobset[] =
    "{\"metadata\":{\"name\":\"js\",\"uid\":\"u2\","
    "\"creationTimestamp\":\"2026-11-27T10:00:00Z\"},"
    "\"spec\":{\"replicatedJobs\":[{\"name\":\"server\",\"replicas\":1,"
    "\"template\":{\"spec\":{\"completions\":2,\"template\":{\"metadata\":"
    "{\"annotations\":{\"paictl/task-role\":\"ser_ver\"}}}}}},"
    "{\"name\":\"client\",\"replicas\":1,\"template\":{\"spec\":"
    "{\"completions\":1}}}]},"
    "\"status\":{\"restarts\":1,\"replicatedJobsStatus\":[{\"name\":"
    "\"server\",\"ready\":1,\"active\":1},{\"name\":\"client\","
    "\"active\":1}]}}";

/* A JobSet's pod: its Job's generated name, its run, its index. */
#define JSPOD(name, rjob, attempt, index, phase)                               \
	"{\"metadata\":{\"name\":\"" name "\",\"uid\":\"p-" name "\","         \
	"\"creationTimestamp\":\"2026-11-27T10:01:00Z\",\"labels\":{"          \
	"\"jobset.sigs.k8s.io/replicatedjob-name\":\"" rjob "\","              \
	"\"jobset.sigs.k8s.io/replicatedjob-replicas\":\"1\","                 \
	"\"jobset.sigs.k8s.io/job-index\":\"0\","                              \
	"\"jobset.sigs.k8s.io/restart-attempt\":\"" attempt "\"},"             \
	"\"annotations\":{\"batch.kubernetes.io/job-completion-index\":"       \
	"\"" index "\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]},"        \
	"\"status\":{\"phase\":\"" phase "\"}}"

/* clang-format off */
static const char jobset_pods[] = "{\"items\":["
    JSPOD("js-server-0-1-x7k2q", "server", "1", "1", "Running") ","
    /* the same task's pod of the run before the restart */
    JSPOD("js-server-0-1-abcde", "server", "0", "1", "Failed") "]}";
/* clang-format on */

static void test_jobset(void **state)
{
	struct api a;
	fake_server *f = NULL;
	pai_client *c;
	pai_job_info *info = NULL;
	const pai_task_info *t;
	long i;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.jobs = JOBSETS;
	a.job = jobset;
	a.pods = jobset_pods;
	assert_int_equal(fake_start(&f, "127.0.0.1", handler, &a), 0);
	c = client_of(f, PAI_K8S_JOBSET);
	assert_int_equal(pai_job_get(&info, c, "alice", "js"), PAI_OK);
	assert_int_equal(pai_job_info_state(info), PAI_STATE_RUNNING);
	assert_int_equal(pai_job_info_task_count(info), 3);
	/* the run now, not the pod of the run before the restart */
	i = pai_job_info_find_task(info, "ser_ver", 1);
	assert_true(i >= 0);
	t = pai_job_info_task(info, (size_t)i);
	assert_int_equal(t->state, PAI_STATE_RUNNING);
	assert_string_equal(t->container_id, "js-server-0-1-x7k2q");
	/* no pod yet: the name it will have, less the Job's letters */
	t = pai_job_info_task(
	    info, (size_t)pai_job_info_find_task(info, "client", 0));
	assert_int_equal(t->state, PAI_STATE_WAITING);
	assert_string_equal(
	    json_string_value(json_object_get(
		pai_job_info_task_json(
		    info, (size_t)pai_job_info_find_task(info, "client", 0)),
		"podName")),
	    "js-client-0-0");
	/* each role's task, for logs -f */
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(
		    json_object_get(pai_job_info_json(info), "kubernetes"),
		    "tasks"),
		"ser_ver")),
	    "server");
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_object_get(pai_job_info_json(info), "jobStatus"),
		"retries")),
	    1);
	pai_job_info_free(info);
	pai_client_free(c);
	fake_stop(f);
}

static pai_state jobset_state(const char *status, const char *extra)
{
	char job[768];

	snprintf(job, sizeof(job),
		 "{\"metadata\":{\"name\":\"js\",\"uid\":\"u2\"%s},"
		 "\"spec\":{%s\"replicatedJobs\":[]},\"status\":%s}",
		 strstr(extra, "stopped")
		     ? ",\"annotations\":{\"paictl/stopped\":\"true\"}"
		     : "",
		 strstr(extra, "suspend") ? "\"suspend\":true," : "", status);
	return state_of(PAI_K8S_JOBSET, JOBSETS, job);
}

#define COND(type)                                                             \
	"{\"conditions\":[{\"type\":\"" type "\",\"status\":\"True\"}]"

static void test_jobset_phases(void **state)
{
	(void)state;
	assert_int_equal(jobset_state("{}", ""), PAI_STATE_WAITING);
	assert_int_equal(jobset_state(COND("Completed") "}", ""),
			 PAI_STATE_SUCCEEDED);
	assert_int_equal(jobset_state(COND("Failed") "}", ""),
			 PAI_STATE_FAILED);
	/* stopped: suspended, its pods going, then gone */
	assert_int_equal(jobset_state("{}", "suspend stopped"),
			 PAI_STATE_STOPPING);
	assert_int_equal(
	    jobset_state(COND("Suspended") ",\"replicatedJobsStatus\":[{"
					   "\"name\":\"a\",\"active\":1}]}",
			 "suspend stopped"),
	    PAI_STATE_STOPPING);
	assert_int_equal(jobset_state(COND("Suspended") "}", "suspend stopped"),
			 PAI_STATE_STOPPED);
	/* suspended by another (Kueue, until it admits the job): waiting */
	assert_int_equal(jobset_state(COND("Suspended") "}", "suspend"),
			 PAI_STATE_WAITING);
}

/* A JobSet's status with replicated Jobs of these replicas and
 * completions (as the server says them): pai_job_get's result, its
 * task count in *tasks, its detail in why. */
static int jobset_sized(const char *rjobs_json, size_t *tasks, char *why,
			size_t len)
{
	struct api a;
	fake_server *f = NULL;
	pai_client *c;
	pai_job_info *info = NULL;
	char job[1024];
	int err;

	snprintf(job, sizeof(job),
		 "{\"metadata\":{\"name\":\"js\",\"uid\":\"u2\"},"
		 "\"spec\":{\"replicatedJobs\":[%s]},\"status\":{}}",
		 rjobs_json);
	memset(&a, 0, sizeof(a));
	a.jobs = JOBSETS;
	a.job = job;
	assert_int_equal(fake_start(&f, "127.0.0.1", handler, &a), 0);
	c = client_of(f, PAI_K8S_JOBSET);
	err = pai_job_get(&info, c, "alice", "js");
	*tasks = info ? pai_job_info_task_count(info) : 0;
	snprintf(why, len, "%s", pai_client_error(c) ? pai_client_error(c) : "");
	pai_job_info_free(info);
	pai_client_free(c);
	fake_stop(f);
	return err;
}

#define RJOB(name, replicas, completions)                                      \
	"{\"name\":\"" name "\",\"replicas\":" replicas ",\"template\":"    \
	"{\"spec\":{\"completions\":" completions "}}}"

/* Replicas and completions are the server's: each one and their sums
 * checked against the maxima (4096 roles, 65536 tasks) before they are
 * added or allocated for. Three replicas that wrap a 64-bit sum to 2
 * made a buffer of 3 roles, then wrote 2^63 of them. */
#define MAX_INT "9223372036854775807"

static void test_jobset_counts(void **state)
{
	static const struct {
		const char *rjobs;
		int err;
		size_t tasks;	 /* when PAI_OK */
		const char *why; /* when not */
	} cases[] = {
	    {RJOB("a", "4096", "1"), PAI_OK, 4096, NULL},
	    {RJOB("a", "4096", "1") "," RJOB("b", "1", "1"), PAI_EPROTOCOL, 0,
	     "the job names more than 4096 roles"},
	    {RJOB("a", MAX_INT, "1") "," RJOB("b", MAX_INT, "1") "," RJOB(
		 "c", "4", "1"),
	     PAI_EPROTOCOL, 0, "the job names more than 4096 roles"},
	    /* tasks: a role's pods, and all roles' together */
	    {RJOB("a", "2", "32768"), PAI_OK, 65536, NULL},
	    {RJOB("a", "2", "32768") "," RJOB("b", "1", "1"), PAI_EPROTOCOL, 0,
	     "the job names more than 65536 tasks"},
	    {RJOB("a", "1", MAX_INT), PAI_EPROTOCOL, 0,
	     "the job names more than 65536 tasks"},
	};
	char why[256];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(
		    jobset_sized(cases[i].rjobs, &n, why, sizeof(why)),
		    cases[i].err);
		if (cases[i].err == PAI_OK)
			assert_int_equal(n, cases[i].tasks);
		else
			assert_string_equal(why, cases[i].why);
	}
}

static pai_state trainjob_state(const char *status, const char *extra)
{
	char job[768];

	snprintf(job, sizeof(job),
		 "{\"metadata\":{\"name\":\"tj\",\"uid\":\"u4\"%s},"
		 "\"spec\":{%s\"trainer\":{\"numNodes\":2}},\"status\":%s}",
		 strstr(extra, "stopped")
		     ? ",\"annotations\":{\"paictl/stopped\":\"true\"}"
		     : "",
		 strstr(extra, "suspend") ? "\"suspend\":true," : "", status);
	return state_of(PAI_K8S_TRAINJOB, TRAINJOBS, job);
}

/* A TrainJob has no condition while it runs: its jobsStatus (Jobs, not
 * pods) says; Complete and Failed end it; suspended as a JobSet. */
static void test_trainjob_phases(void **state)
{
	(void)state;
	assert_int_equal(trainjob_state("null", ""), PAI_STATE_WAITING);
	assert_int_equal(
	    trainjob_state("{\"jobsStatus\":[{\"name\":\"node\",\"ready\":0,"
			   "\"active\":1}]}",
			   ""),
	    PAI_STATE_WAITING);
	assert_int_equal(
	    trainjob_state("{\"jobsStatus\":[{\"name\":\"node\",\"ready\":1,"
			   "\"active\":1}]}",
			   ""),
	    PAI_STATE_RUNNING);
	/* a count that no int holds is none */
	assert_int_equal(
	    trainjob_state("{\"jobsStatus\":[{\"name\":\"node\",\"ready\":"
			   "99999999999999}]}",
			   ""),
	    PAI_STATE_WAITING);
	assert_int_equal(trainjob_state(COND("Complete") "}", ""),
			 PAI_STATE_SUCCEEDED);
	assert_int_equal(trainjob_state(COND("Failed") "}", ""),
			 PAI_STATE_FAILED);
	assert_int_equal(trainjob_state("{}", "suspend stopped"),
			 PAI_STATE_STOPPING);
	assert_int_equal(
	    trainjob_state(COND("Suspended") "}", "suspend stopped"),
	    PAI_STATE_STOPPED);
	assert_int_equal(trainjob_state(COND("Suspended") "}", "suspend"),
			 PAI_STATE_WAITING);
}

static pai_state mpijob_state(const char *conds, int suspend)
{
	char job[768];

	snprintf(job, sizeof(job),
		 "{\"metadata\":{\"name\":\"m\",\"uid\":\"u5\","
		 "\"annotations\":{\"paictl/stopped\":\"true\"}},"
		 "\"spec\":{\"runPolicy\":{\"suspend\":%s},\"mpiReplicaSpecs\":"
		 "{\"Launcher\":{\"replicas\":1},\"Worker\":{\"replicas\":2}}},"
		 "\"status\":{\"conditions\":[%s]}}",
		 suspend ? "true" : "false", conds);
	return state_of(PAI_K8S_MPIJOB, MPIJOBS, job);
}

#define C(type, st) "{\"type\":\"" type "\",\"status\":\"" st "\"}"

/* An MPIJob's conditions: the launcher's end decides. */
static void test_mpijob_phases(void **state)
{
	(void)state;
	assert_int_equal(mpijob_state("", 0), PAI_STATE_WAITING);
	assert_int_equal(mpijob_state(C("Created", "True"), 0),
			 PAI_STATE_WAITING);
	assert_int_equal(
	    mpijob_state(C("Created", "True") "," C("Running", "True"), 0),
	    PAI_STATE_RUNNING);
	assert_int_equal(mpijob_state(C("Created", "True") "," C(
					  "Running", "False") "," C("Succeeded",
								    "True"),
				      0),
			 PAI_STATE_SUCCEEDED);
	assert_int_equal(
	    mpijob_state(C("Created", "True") "," C("Failed", "True"), 0),
	    PAI_STATE_FAILED);
	assert_int_equal(
	    mpijob_state(C("Created", "True") "," C("Running", "True"), 1),
	    PAI_STATE_STOPPING);
	assert_int_equal(mpijob_state(C("Created", "True") "," C(
					  "Suspended", "True"),
				      1),
			 PAI_STATE_STOPPED);
}

static const char pytorchjob[] =
    "{\"metadata\":{\"name\":\"ddp\",\"uid\":\"u3\"},\"spec\":"
    "{\"pytorchReplicaSpecs\":{\"Master\":{\"replicas\":1},\"Worker\":"
    "{\"replicas\":2}}},\"status\":{\"conditions\":[{\"type\":\"Created\","
    "\"status\":\"True\"},{\"type\":\"Running\",\"status\":\"True\"}]}}";

/* A PyTorchJob is suspended; where its CRD has no runPolicy.suspend
 * (the server drops it), it is deleted, and the stop says so. */
static void test_pytorchjob_stop(void **state)
{
	struct api a;
	fake_server *f = NULL;
	pai_client *c;
	int drop;

	(void)state;
	for (drop = 0; drop < 2; drop++) {
		memset(&a, 0, sizeof(a));
		a.jobs = PYTORCHJOBS;
		a.job = pytorchjob;
		a.prune_suspend = drop;
		assert_int_equal(fake_start(&f, "127.0.0.1", handler, &a), 0);
		c = client_of(f, PAI_K8S_PYTORCHJOB);
		assert_int_equal(pai_job_stop(c, "alice", "ddp"), PAI_OK);
		assert_true(seen(&a, "PATCH " PYTORCHJOBS "/ddp") > 0);
		assert_int_equal(seen(&a, "DELETE " PYTORCHJOBS "/ddp") > 0,
				 drop);
		assert_int_equal(pai_job_stop_deleted(c), drop);
		pai_client_free(c);
		fake_stop(f);
	}
}

/* ---- submissions
 * ------------------------------------------------------------- */

static json_t *config(void)
{
	return json_pack("{s:s,s:s,s:[{s:s,s:i,s:i,s:i,s:i,s:s}]}", "jobName",
			 "sub", "image", "debian", "taskRoles", "name", "main",
			 "taskNumber", 1, "cpuNumber", 1, "memoryMB", 100,
			 "gpuNumber", 0, "command", "true");
}

static int submit(struct api *a, pai_diags *diags, int *recovered)
{
	pai_submit_options so = PAI_SUBMIT_OPTIONS_INIT;
	fake_server *f = NULL;
	json_t *cfg = config();
	pai_client *c;
	int err;

	assert_int_equal(fake_start(&f, "127.0.0.1", handler, a), 0);
	c = client(f);
	so.diags = diags;
	so.source_name = "job.json";
	err = pai_submit_ex(c, "alice", cfg, &so, recovered);
	pai_client_free(c);
	fake_stop(f);
	json_decref(cfg);
	return err;
}

static int seen(const struct api *a, const char *prefix)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (strncmp(a->log[i], prefix, strlen(prefix)) == 0)
			return i;
	return -1;
}

static void test_submit(void **state)
{
	struct api a;
	int rec = -1;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.create_status = 201;
	assert_int_equal(submit(&a, NULL, &rec), PAI_OK);
	assert_int_equal(rec, 0);
	/* the ConfigMap, the Job, then the ConfigMap owned */
	assert_int_equal(seen(&a, "POST /api/v1" NS "configmaps"), 0);
	assert_int_equal(seen(&a, "POST " JOBS "?fieldManager=paictl"), 1);
	assert_true(seen(&a, "PATCH /api/v1" NS "configmaps/sub-pai-env") > 1);
	assert_non_null(strstr(a.job_body, "paictl/submission"));
	/* the answer lost: read back, found ours, not sent again */
	memset(&a, 0, sizeof(a));
	a.create_status = 201;
	a.drop_create = 1;
	assert_int_equal(submit(&a, NULL, &rec), PAI_OK);
	assert_int_equal(rec, 1);
	assert_true(seen(&a, "GET " JOBS "/sub") > 0);
}

static void test_submit_refused(void **state)
{
	struct api a;
	pai_diags *d = NULL;
	int rec;

	(void)state;
	/* a same-named Job of another's: conflict, the ConfigMap deleted */
	memset(&a, 0, sizeof(a));
	a.create_status = 409;
	a.create_body = "{\"kind\":\"Status\",\"reason\":\"AlreadyExists\","
			"\"code\":409,\"message\":\"already exists\"}";
	a.job = "{\"metadata\":{\"name\":\"sub\",\"annotations\":"
		"{\"paictl/submission\":\"not-ours\"}}}";
	assert_int_equal(submit(&a, NULL, &rec), PAI_ECONFLICT);
	assert_true(seen(&a, "DELETE /api/v1" NS "configmaps/sub-pai-env") > 0);
	/* only as it was made: not once another made it theirs */
	assert_non_null(strstr(a.cm_delete, "\"preconditions\""));
	assert_non_null(strstr(a.cm_delete, "\"resourceVersion\":\"7\""));
	/* the CRD schema's 422: a diagnostic per cause, naming its field */
	memset(&a, 0, sizeof(a));
	a.create_status = 422;
	a.create_body =
	    "{\"kind\":\"Status\",\"reason\":\"Invalid\",\"code\":422,"
	    "\"message\":\"invalid\",\"details\":{\"causes\":[{\"field\":"
	    "\"spec.minAvailable\",\"message\":\"must be of type "
	    "integer\"}]}}";
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(submit(&a, d, &rec), PAI_EINVALID);
	assert_int_equal(pai_diags_errors(d), 1);
	assert_string_equal(pai_diags_get(d, pai_diags_count(d) - 1)->path,
			    "spec.minAvailable");
	assert_true(seen(&a, "DELETE /api/v1" NS "configmaps/sub-pai-env") > 0);
	pai_diags_free(d);
}

/* A config that converts to no objects for a reason other than a rule
 * (here, too many tasks to write each one's environment) is said as
 * what it is, not as "out of memory"; nothing is sent. */
static void test_submit_too_big(void **state)
{
	pai_submit_options so = PAI_SUBMIT_OPTIONS_INIT;
	fake_server *f = NULL;
	json_t *cfg = config();
	struct api a;
	pai_client *c;

	(void)state;
	memset(&a, 0, sizeof(a));
	json_object_set_new(json_array_get(json_object_get(cfg, "taskRoles"), 0),
			    "taskNumber", json_integer(1000000));
	assert_int_equal(fake_start(&f, "127.0.0.1", handler, &a), 0);
	c = client(f);
	so.source_name = "job.json";
	assert_int_equal(pai_submit_ex(c, "alice", cfg, &so, NULL),
			 PAI_ETOOBIG);
	assert_string_equal(pai_client_error(c),
			    "cannot make the Kubernetes objects of the "
			    "config: too large");
	assert_int_equal(seen(&a, "POST"), -1);
	pai_client_free(c);
	fake_stop(f);
	json_decref(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_phases),
	    cmocka_unit_test(test_status),
	    cmocka_unit_test(test_jobset),
	    cmocka_unit_test(test_jobset_phases),
	    cmocka_unit_test(test_jobset_counts),
	    cmocka_unit_test(test_trainjob_phases),
	    cmocka_unit_test(test_mpijob_phases),
	    cmocka_unit_test(test_pytorchjob_stop),
	    cmocka_unit_test(test_submit),
	    cmocka_unit_test(test_submit_refused),
	    cmocka_unit_test(test_submit_too_big),
	};
	char tmpl[] = "/tmp/paictl-test-k8s-XXXXXX";
	int st;

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(dir, sizeof(dir), "%s", tmpl);
	chmod(dir, 0700);
	st = cmocka_run_group_tests(tests, NULL, NULL);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			st = st ? st : 1;
	}
	return st;
}
