/* test_k8s.c - pai_job_to_k8s() and pai_k8s_expand_task(): names
 * Kubernetes can take, the pods' environment, refusals with their rules,
 * every allocation failure, bad arguments. tests/k8s/check.py checks the
 * manifests against the CRDs and every pod against expand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"
#include "alloc_fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ps_job[] =
    "{\"jobName\": \"Wide_And_Deep\", \"image\": \"paddle:2\",\n"
    " \"retryCount\": 0,\n"
    " \"jobEnvs\": {\"LR\": \"$(x) $$\"},\n"
    " \"taskRoles\": [\n"
    "  {\"name\": \"ps\", \"taskNumber\": 2, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0, \"command\": \"echo $$\"},\n"
    "  {\"name\": \"worker\", \"taskNumber\": 3, \"cpuNumber\": 2,\n"
    "   \"memoryMB\": 1024, \"gpuNumber\": 1, \"command\": \"train\"}]}\n";

static char *convert(const char *text, pai_k8s_kind kind, pai_diags **d,
		     int *err)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	char *out = NULL;

	o.kind = kind;
	assert_int_equal(pai_diags_new(d), PAI_OK);
	*err = pai_job_to_k8s(&out, NULL, *d, "job.json", text, strlen(text),
			      NULL, &o);
	return out;
}

static int has_rule(const pai_diags *d, const char *rule, pai_severity sev)
{
	size_t i;

	for (i = 0; i < pai_diags_count(d); i++) {
		const pai_diag *g = pai_diags_get(d, i);

		if (strcmp(g->rule, rule) == 0 && g->severity == sev &&
		    g->line > 0)
			return 1;
	}
	return 0;
}

static void test_paddlejob(void **state)
{
	pai_diags *d;
	int err;
	char *y = convert(ps_job, PAI_K8S_PADDLEJOB, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(y, "kind: PaddleJob\n"));
	assert_non_null(strstr(y, "  name: wide-and-deep\n"));
	assert_non_null(strstr(y, "paictl/job-name: Wide_And_Deep"));
	assert_non_null(strstr(y, "intranet: Service"));
	/* the ConfigMap holds the jobEnv as written: no kubelet expansion */
	assert_non_null(strstr(y, "LR: \"$(x) $$\""));
	/* the host lists by the per-pod Services' names */
	assert_non_null(strstr(y, "wide-and-deep-ps-0:10000,"
				  "wide-and-deep-ps-1:10000"));
	/* the index from PADDLE_TRAINER_ID, the command's $ doubled */
	assert_non_null(strstr(y, "PAI_TASK_INDEX=\"$$PADDLE_TRAINER_ID\""));
	assert_non_null(strstr(y, "echo $$$$"));
	assert_non_null(strstr(y, "nvidia.com/gpu: \"1\""));
	assert_true(has_rule(d, "k8s-name", PAI_SEVERITY_WARNING));
	assert_int_equal(pai_diags_errors(d), 0);
	free(y);
	pai_diags_free(d);
}

static void test_refusals(void **state)
{
	static const char neg[] =
	    "{\"jobName\": \"j\", \"image\": \"x\", \"retryCount\": -1,\n"
	    " \"taskRoles\": [{\"name\": \"a\", \"taskNumber\": 1,\n"
	    "  \"cpuNumber\": 1, \"memoryMB\": 512, \"gpuNumber\": 0,\n"
	    "  \"minFailedTaskCount\": null,\n"
	    "  \"command\": \"ls $PAI_DEFAULT_FS_URI\"}]}\n";
	pai_diags *d;
	int err;
	char *y = convert(neg, PAI_K8S_VOLCANO, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_EINVALID);
	assert_null(y);
	assert_true(has_rule(d, "k8s-retry-count", PAI_SEVERITY_ERROR));
	assert_true(has_rule(d, "k8s-min-failed", PAI_SEVERITY_ERROR));
	assert_true(has_rule(d, "k8s-variable", PAI_SEVERITY_ERROR));
	pai_diags_free(d);
	/* retries are Volcano's only */
	y = convert(ps_job, PAI_K8S_VOLCANO, &d, &err);
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(y, "maxRetry: 1\n"));
	free(y);
	pai_diags_free(d);
}

static void test_long_names(void **state)
{
	char text[1024];
	pai_diags *d;
	int err;
	char *y, *p;

	(void)state;
	snprintf(text, sizeof(text),
		 "{\"jobName\": \"%s\", \"image\": \"x\", \"taskRoles\": ["
		 "{\"name\": \"%s\", \"taskNumber\": 100, \"cpuNumber\": 1,"
		 " \"memoryMB\": 512, \"gpuNumber\": 0, \"command\": \"true\"},"
		 "{\"name\": \"%sB\", \"taskNumber\": 1, \"cpuNumber\": 1,"
		 " \"memoryMB\": 512, \"gpuNumber\": 0, \"command\": \"true\"}"
		 "]}",
		 "J123456789_123456789_123456789_123456789_123456789_1234567",
		 "Role_With_A_Name_Longer_Than_Thirty_Characters_A",
		 "Role_With_A_Name_Longer_Than_Thirty_Characters_");
	y = convert(text, PAI_K8S_VOLCANO, &d, &err);
	assert_int_equal(err, PAI_OK);
	/* every pod name a DNS label of at most 63 characters */
	for (p = y; (p = strstr(p, "PAI_HOST_IP_")); p++) {
		char *v = strchr(p, ':') + 2, *dot = strchr(v, '.');

		assert_true(dot - v <= 63);
	}
	assert_non_null(strstr(y, "\n  name: j123456789"));
	/* the two long role names, cut, stay apart by their hashes */
	assert_int_equal(pai_diags_errors(d), 0);
	free(y);
	pai_diags_free(d);
}

static const char ddp_job[] =
    "{\"jobName\": \"ddp\", \"image\": \"torch:2\", \"retryCount\": 2,\n"
    " \"jobEnvs\": {\"RANK\": \"9\", \"LR\": \"0.1\"},\n"
    " \"taskRoles\": [\n"
    "  {\"name\": \"master\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0, \"command\": \"train\"},\n"
    "  {\"name\": \"worker\", \"taskNumber\": 3, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0, \"minSucceededTaskCount\": 3,\n"
    "   \"command\": \"train\"}]}\n";

/* A JobSet: a replicated Job per role, Indexed, failing at its first
 * failed pod; the retries its maxRestarts; a role whose tasks must all
 * succeed a target of its successPolicy; the index from the Job
 * controller's annotation; pods under the JobSet's subdomain. */
static void test_jobset(void **state)
{
	pai_diags *d;
	int err;
	char *y = convert(ddp_job, PAI_K8S_JOBSET, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(y, "apiVersion: jobset.x-k8s.io/v1alpha2\n"
				  "kind: JobSet\n"));
	assert_non_null(strstr(y, "  failurePolicy:\n    maxRestarts: 2\n"
				  "  successPolicy:\n    operator: Any\n"
				  "    targetReplicatedJobs:\n    - worker\n"));
	assert_non_null(
	    strstr(y, "  - name: worker\n    replicas: 1\n"
		      "    template:\n      spec:\n"
		      "        parallelism: 3\n        completions: 3\n"
		      "        completionMode: Indexed\n"
		      "        backoffLimit: 0\n"));
	assert_non_null(strstr(y, "batch.kubernetes.io/job-completion-index"));
	assert_non_null(
	    strstr(y, "PAI_TASK_ROLE_worker_HOST_LIST: \"ddp-worker-0-0.ddp:"
		      "10000,ddp-worker-0-1.ddp:10000,ddp-worker-0-2.ddp:"
		      "10000\""));
	/* RANK is the job's own here: nothing sets it */
	assert_non_null(strstr(y, "  RANK: \"9\"\n"));
	assert_int_equal(pai_diags_count(d), 0);
	free(y);
	pai_diags_free(d);
}

/* A PyTorchJob: Master and Worker, their container "pytorch", no
 * retries; a jobEnv the operator sets is not the pods'. */
static void test_pytorchjob(void **state)
{
	pai_diags *d;
	int err;
	char *y = convert(ddp_job, PAI_K8S_PYTORCHJOB, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_EINVALID);
	assert_null(y);
	assert_true(has_rule(d, "k8s-retry-count", PAI_SEVERITY_ERROR));
	assert_true(has_rule(d, "k8s-dropped", PAI_SEVERITY_WARNING));
	assert_true(has_rule(d, "k8s-min-succeeded", PAI_SEVERITY_WARNING));
	pai_diags_free(d);
	{
		char text[sizeof(ddp_job)];

		memcpy(text, ddp_job, sizeof(ddp_job));
		memcpy(strstr(text, "\"retryCount\": 2"), "\"retryCount\": 0",
		       15);
		y = convert(text, PAI_K8S_PYTORCHJOB, &d, &err);
	}
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(y, "kind: PyTorchJob\n"));
	assert_non_null(strstr(y, "    Master:\n      replicas: 1\n"
				  "      restartPolicy: Never\n"));
	assert_non_null(strstr(y, "    Worker:\n      replicas: 3\n"));
	assert_non_null(strstr(y, "          - name: pytorch\n"));
	assert_non_null(strstr(y, "training.kubeflow.org/replica-index"));
	assert_null(strstr(y, "RANK: \"9\""));
	assert_non_null(strstr(y, "  LR: \"0.1\"\n"));
	free(y);
	pai_diags_free(d);
}

static void own_vars(char *out, size_t size, const pai_env *env);
static pai_env *pod_env(const pai_job *job, pai_k8s_kind kind, size_t r,
			size_t i);

/* A TrainJob: the one role as spec.trainer on the runtime the options
 * name (torch-distributed by default), every variable in its env (no
 * envFrom, no ConfigMap); two roles refused in words; no retries. */
static const char train_job[] =
    "{\"jobName\": \"Train\", \"image\": \"torch:2\",\n"
    " \"jobEnvs\": {\"LR\": \"0.1\", \"PET_NNODES\": \"9\"},\n"
    " \"taskRoles\": [\n"
    "  {\"name\": \"trainer\", \"taskNumber\": 3, \"cpuNumber\": 4,\n"
    "   \"memoryMB\": 1024, \"gpuNumber\": 0,\n"
    "   \"command\": \"echo $PET_NODE_RANK $PET_MASTER_ADDR $LR\"}]}\n";

static void test_trainjob(void **state)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	pai_diags *d;
	int err;
	char *y = convert(train_job, PAI_K8S_TRAINJOB, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_null(strstr(y, "kind: ConfigMap"));
	assert_null(strstr(y, "envFrom"));
	assert_non_null(strstr(y, "apiVersion: trainer.kubeflow.org/v1alpha1\n"
				  "kind: TrainJob\n"));
	assert_non_null(strstr(y, "  runtimeRef:\n"
				  "    apiGroup: trainer.kubeflow.org\n"
				  "    kind: ClusterTrainingRuntime\n"
				  "    name: torch-distributed\n"));
	assert_non_null(strstr(y, "    numNodes: 3\n"));
	assert_non_null(strstr(y, "    resourcesPerNode:\n      requests:\n"
				  "        cpu: \"4\"\n"));
	assert_non_null(strstr(y, "    - name: LR\n      value: \"0.1\"\n"));
	assert_non_null(strstr(y, "    paictl/task-role: trainer\n"));
	assert_non_null(strstr(y, "PAI_TASK_ROLE_trainer_HOST_LIST\n"
				  "      value: \"train-node-0-0.train:"));
	/* the plugin's own: not the job's */
	assert_null(strstr(y, "PET_NNODES"));
	assert_true(has_rule(d, "k8s-dropped", PAI_SEVERITY_WARNING));
	free(y);
	pai_diags_free(d);

	o.kind = PAI_K8S_TRAINJOB;
	o.runtime = "my-rt";
	o.runtime_namespaced = 1;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_to_k8s(&y, NULL, d, "job.json", train_job,
					strlen(train_job), NULL, &o),
			 PAI_OK);
	assert_non_null(strstr(y, "    kind: TrainingRuntime\n"
				  "    name: my-rt\n"));
	free(y);
	/* a version 2 caller's struct ends before the runtime: ignored */
	o.version = 2;
	assert_int_equal(pai_job_to_k8s(&y, NULL, d, "job.json", train_job,
					strlen(train_job), NULL, &o),
			 PAI_OK);
	assert_non_null(strstr(y, "    name: torch-distributed\n"));
	free(y);
	pai_diags_free(d);

	/* more variables than the trainer takes (the CRD's maxItems 128):
	 * refused here rather than by the API server (each task's host and
	 * ports are 5 of them); 10 tasks fit */
	{
		char text[sizeof(train_job)];

		memcpy(text, train_job, sizeof(train_job));
		memcpy(strstr(text, "\"taskNumber\": 3"), "\"taskNumber\":60",
		       15);
		y = convert(text, PAI_K8S_TRAINJOB, &d, &err);
		assert_int_equal(err, PAI_EINVALID);
		assert_true(has_rule(d, "k8s-too-large", PAI_SEVERITY_ERROR));
		pai_diags_free(d);
		memcpy(strstr(text, "\"taskNumber\":60"), "\"taskNumber\":10",
		       15);
		y = convert(text, PAI_K8S_TRAINJOB, &d, &err);
		assert_int_equal(err, PAI_OK);
		free(y);
		pai_diags_free(d);
	}
	y = convert(ddp_job, PAI_K8S_TRAINJOB, &d, &err);
	assert_int_equal(err, PAI_EINVALID);
	assert_null(y);
	assert_true(has_rule(d, "k8s-trainjob-role", PAI_SEVERITY_ERROR));
	assert_non_null(strstr(pai_diags_get(d, 0)->message,
			       "a TrainJob runs one role"));
	pai_diags_free(d);
}

/* An MPIJob: Launcher and Worker, slots the worker's GPUs, the
 * launcher's pod its Job's (no index: task 0 is static); other roles
 * refused; the operator's variables its own. */
static const char mpi_job[] =
    "{\"jobName\": \"hvd\", \"image\": \"horovod\",\n"
    " \"jobEnvs\": {\"K_MPI_JOB_ROLE\": \"x\"},\n"
    " \"taskRoles\": [\n"
    "  {\"name\": \"launcher\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0,\n"
    "   \"command\": \"mpirun -n 4 python train.py\"},\n"
    "  {\"name\": \"worker\", \"taskNumber\": 2, \"cpuNumber\": 4,\n"
    "   \"memoryMB\": 4096, \"gpuNumber\": 2,\n"
    "   \"command\": \"sleep infinity\"}]}\n";

static void test_mpijob(void **state)
{
	pai_diags *d;
	pai_job *job = NULL;
	pai_env *env;
	char got[1024];
	int err;
	char *y = convert(mpi_job, PAI_K8S_MPIJOB, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_non_null(strstr(y, "apiVersion: kubeflow.org/v2beta1\n"
				  "kind: MPIJob\n"));
	assert_non_null(strstr(y, "  slotsPerWorker: 2\n  runPolicy:\n"
				  "    cleanPodPolicy: Running\n"
				  "    backoffLimit: 0\n"));
	assert_non_null(strstr(y, "    Launcher:\n      replicas: 1\n"));
	assert_non_null(strstr(y, "    Worker:\n      replicas: 2\n"));
	assert_non_null(strstr(y, "PAI_HOST_IP_launcher_0: hvd-launcher.hvd\n"));
	assert_non_null(strstr(y, "PAI_HOST_IP_worker_1: hvd-worker-1.hvd\n"));
	/* the launcher's index is no label of its pod: written as it is */
	assert_non_null(strstr(y, "            - name: PAI_TASK_INDEX\n"
				  "              value: \"0\"\n"));
	assert_non_null(strstr(y, "training.kubeflow.org/replica-index"));
	assert_null(strstr(y, "K_MPI_JOB_ROLE"));
	assert_true(has_rule(d, "k8s-dropped", PAI_SEVERITY_WARNING));
	free(y);
	pai_diags_free(d);

	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "job.json", mpi_job,
				       strlen(mpi_job), NULL),
			 PAI_OK);
	env = pod_env(job, PAI_K8S_MPIJOB, 0, 0);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got, "K_MPI_JOB_ROLE=launcher;"
				 "OMPI_MCA_orte_keep_fqdn_hostnames=true;"
				 "OMPI_MCA_orte_default_hostfile=/etc/mpi/"
				 "hostfile;OMPI_MCA_plm_rsh_args=-o "
				 "ConnectionAttempts=10;"
				 "OMPI_MCA_orte_set_default_slots=2;"
				 "NVIDIA_VISIBLE_DEVICES=;"
				 "NVIDIA_DRIVER_CAPABILITIES=;");
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_ID"),
			    "hvd-launcher-?????");
	pai_env_free(env);
	env = pod_env(job, PAI_K8S_MPIJOB, 1, 1);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got, "K_MPI_JOB_ROLE=worker;");
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_ID"),
			    "hvd-worker-1");
	pai_env_free(env);
	pai_job_free(job);
	assert_int_equal(pai_job_parse(&job, d, "job.json", train_job,
				       strlen(train_job), NULL),
			 PAI_OK);
	env = pod_env(job, PAI_K8S_TRAINJOB, 0, 2);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got, "PET_NNODES=3;PET_NPROC_PER_NODE=4;"
				 "PET_NODE_RANK=2;PET_MASTER_ADDR=train-node-"
				 "0-0.train;PET_MASTER_PORT=29500;"
				 "JOB_COMPLETION_INDEX=2;");
	assert_string_equal(pai_env_command(env),
			    "echo 2 train-node-0-0.train 0.1");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(d);

	y = convert(ps_job, PAI_K8S_MPIJOB, &d, &err);
	assert_int_equal(err, PAI_EINVALID);
	assert_true(has_rule(d, "k8s-mpijob-role", PAI_SEVERITY_ERROR));
	pai_diags_free(d);
}

static void test_expand_target(void **state)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	pai_diags *d;
	pai_job *job = NULL;
	pai_env *env = NULL;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(
	    pai_job_parse(&job, d, "job.json", ps_job, strlen(ps_job), NULL),
	    PAI_OK);
	o.kind = PAI_K8S_VOLCANO;
	assert_int_equal(pai_k8s_expand_task(&env, job, 1, 2, &o), PAI_OK);
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_ID"),
			    "wide-and-deep-worker-2");
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_HOST_IP"),
			    "wide-and-deep-worker-2.wide-and-deep");
	assert_string_equal(pai_env_get(env, "PAI_TASK_INDEX"), "2");
	assert_string_equal(pai_env_get(env, "PAI_JOB_NAME"), "Wide_And_Deep");
	assert_null(pai_env_get(env, "PAI_DEFAULT_FS_URI"));
	assert_null(pai_env_get(env, "PAI_USER_NAME"));
	pai_env_free(env);
	o.kind = PAI_K8S_JOBSET;
	assert_int_equal(pai_k8s_expand_task(&env, job, 1, 2, &o), PAI_OK);
	/* the Job controller's generated name, what it adds unknown */
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_ID"),
			    "wide-and-deep-worker-0-2-?????");
	assert_string_equal(pai_env_get(env, "PAI_CONTAINER_HOST_IP"),
			    "wide-and-deep-worker-0-2.wide-and-deep");
	pai_env_free(env);
	o.kind = PAI_K8S_VOLCANO;
	assert_int_equal(pai_k8s_expand_task(&env, job, 2, 0, &o), PAI_EINVAL);
	o.version = 99;
	assert_int_equal(pai_k8s_expand_task(&env, job, 0, 0, &o), PAI_EINVAL);
	assert_null(env);
	pai_job_free(job);
	pai_diags_free(d);
}

/* A job of a PyTorchJob's shape whose commands use the operator's
 * variables and Volcano's. */
static const char torch_job[] =
    "{\"jobName\": \"ddp\", \"image\": \"pytorch\",\n"
    " \"jobEnvs\": {\"RANK\": \"99\", \"PADDLE_PORT\": \"7\"},\n"
    " \"taskRoles\": [\n"
    "  {\"name\": \"master\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0,\n"
    "   \"command\": \"echo $RANK/$WORLD_SIZE $MASTER_ADDR:$MASTER_PORT\"},\n"
    "  {\"name\": \"worker\", \"taskNumber\": 2, \"cpuNumber\": 1,\n"
    "   \"memoryMB\": 512, \"gpuNumber\": 0,\n"
    "   \"command\": \"echo $PET_NNODES $VC_TASK_INDEX $VC_WORKER_HOSTS "
    "$VC_PS_HOSTS $JOB_COMPLETION_INDEX $PADDLE_TRAINERS\"}]}\n";

/* The names of the unknown-variable warnings of torch_job parsed for
 * pods of kind, in order, space-separated. */
static void unknown_refs(char *out, size_t size, int kind)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	pai_diags *d;
	pai_job *job = NULL;
	size_t i;

	jo.k8s_kind = kind;
	out[0] = '\0';
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "job.json", torch_job,
				       strlen(torch_job), &jo),
			 PAI_OK);
	for (i = 0; i < pai_diags_count(d); i++) {
		const pai_diag *g = pai_diags_get(d, i);
		const char *v = strchr(g->message, '$');

		assert_string_equal(g->rule, "unknown-variable");
		assert_non_null(v);
		snprintf(out + strlen(out), size - strlen(out), "%s%.*s",
			 i ? " " : "", (int)strcspn(v + 1, " "), v + 1);
	}
	pai_job_free(job);
	pai_diags_free(d);
}

/* A reference to what the pods' controller sets is no unknown variable
 * for that kind's pods, and is one for another kind's. */
static void test_own_env_known(void **state)
{
	char got[512];

	(void)state;
	unknown_refs(got, sizeof(got), PAI_K8S_PYTORCHJOB);
	assert_string_equal(got, "VC_TASK_INDEX VC_WORKER_HOSTS VC_PS_HOSTS "
				 "JOB_COMPLETION_INDEX PADDLE_TRAINERS");
	unknown_refs(got, sizeof(got), PAI_K8S_VOLCANO);
	/* (a jobEnv RANK is the job's own there) */
	assert_string_equal(got, "WORLD_SIZE MASTER_ADDR MASTER_PORT "
				 "PET_NNODES VC_PS_HOSTS JOB_COMPLETION_INDEX "
				 "PADDLE_TRAINERS");
	unknown_refs(got, sizeof(got), PAI_K8S_JOBSET);
	assert_string_equal(got, "WORLD_SIZE MASTER_ADDR MASTER_PORT "
				 "PET_NNODES VC_TASK_INDEX VC_WORKER_HOSTS "
				 "VC_PS_HOSTS PADDLE_TRAINERS");
	unknown_refs(got, sizeof(got), PAI_K8S_PADDLEJOB);
	/* roles that are no PaddleJob's: what its operator sets whatever
	 * the roles (the conversion refuses them) */
	assert_string_equal(got, "WORLD_SIZE MASTER_ADDR MASTER_PORT "
				 "PET_NNODES VC_TASK_INDEX VC_WORKER_HOSTS "
				 "VC_PS_HOSTS JOB_COMPLETION_INDEX");
	unknown_refs(got, sizeof(got), 0);
	assert_string_equal(got, "WORLD_SIZE MASTER_ADDR MASTER_PORT "
				 "PET_NNODES VC_TASK_INDEX VC_WORKER_HOSTS "
				 "VC_PS_HOSTS JOB_COMPLETION_INDEX "
				 "PADDLE_TRAINERS");
}

/* The conversion checks the references against its own kind's pods,
 * and a near miss of the operator's names is hinted at. */
static void test_own_env_convert(void **state)
{
	static const char typo[] =
	    "{\"jobName\": \"ddp\", \"image\": \"pytorch\",\n"
	    " \"taskRoles\": [\n"
	    "  {\"name\": \"master\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
	    "   \"memoryMB\": 512, \"gpuNumber\": 0,\n"
	    "   \"command\": \"echo $RANK $MASTER_ADRR\"},\n"
	    "  {\"name\": \"worker\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
	    "   \"memoryMB\": 512, \"gpuNumber\": 0,\n"
	    "   \"command\": \"true\"}]}\n";
	pai_diags *d;
	int err;
	char *y = convert(typo, PAI_K8S_PYTORCHJOB, &d, &err);

	(void)state;
	assert_int_equal(err, PAI_OK);
	assert_int_equal(pai_diags_count(d), 1);
	assert_string_equal(pai_diags_get(d, 0)->rule, "unknown-variable");
	assert_non_null(strstr(pai_diags_get(d, 0)->message,
			       "$MASTER_ADRR is set by neither"));
	assert_non_null(strstr(pai_diags_get(d, 0)->message,
			       "(did you mean $MASTER_ADDR?)"));
	free(y);
	pai_diags_free(d);
	y = convert(typo, PAI_K8S_VOLCANO, &d, &err);
	assert_int_equal(err, PAI_OK);
	assert_int_equal(pai_diags_count(d), 2); /* $RANK too */
	free(y);
	pai_diags_free(d);
}

/* The controller's variables of a pod, marked, in order, as "N=V;". */
static void own_vars(char *out, size_t size, const pai_env *env)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < pai_env_count(env); i++)
		if (pai_env_by_controller(env, i))
			snprintf(out + strlen(out), size - strlen(out),
				 "%s=%s;", pai_env_name(env, i),
				 pai_env_value(env, i));
}

static pai_env *pod_env(const pai_job *job, pai_k8s_kind kind, size_t r,
			size_t i)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	pai_env *env = NULL;

	o.kind = kind;
	assert_int_equal(pai_k8s_expand_task(&env, job, r, i, &o), PAI_OK);
	return env;
}

/* Each pod as the operator sets it up: its variables after the pod's
 * own, marked as its, the command reading them; a jobEnv it overrides
 * gone, one it leaves (the PaddleJob's ConfigMap's) kept. */
static void test_own_env_expand(void **state)
{
	pai_diags *d;
	pai_job *job = NULL;
	pai_env *env;
	char got[1024];

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "job.json", torch_job,
				       strlen(torch_job), NULL),
			 PAI_OK);
	env = pod_env(job, PAI_K8S_PYTORCHJOB, 0, 0);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got,
			    "PYTHONUNBUFFERED=1;MASTER_PORT=23456;"
			    "PET_MASTER_PORT=23456;MASTER_ADDR=ddp-master-0;"
			    "PET_MASTER_ADDR=ddp-master-0;WORLD_SIZE=3;"
			    "RANK=0;PET_NODE_RANK=0;PET_NPROC_PER_NODE=auto;"
			    "PET_NNODES=3;");
	assert_string_equal(pai_env_command(env),
			    "echo 0/3 ddp-master-0:23456");
	assert_false(pai_env_by_controller(env, 0));
	assert_false(pai_env_by_controller(env, pai_env_count(env)));
	assert_false(pai_env_by_controller(NULL, 0));
	pai_env_free(env);
	env = pod_env(job, PAI_K8S_PYTORCHJOB, 1, 1);
	own_vars(got, sizeof(got), env);
	assert_non_null(strstr(got, ";WORLD_SIZE=3;RANK=2;PET_NODE_RANK=2;"));
	assert_string_equal(pai_env_get(env, "RANK"), "2"); /* not 99 */
	assert_string_equal(pai_env_command(env),
			    "echo 3 $VC_TASK_INDEX $VC_WORKER_HOSTS "
			    "$VC_PS_HOSTS $JOB_COMPLETION_INDEX "
			    "$PADDLE_TRAINERS");
	pai_env_free(env);
	env = pod_env(job, PAI_K8S_VOLCANO, 1, 1);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got, "VK_TASK_INDEX=1;VC_TASK_INDEX=1;"
				 "VC_MASTER_HOSTS=ddp-master-0.ddp;"
				 "VC_MASTER_NUM=1;VC_WORKER_HOSTS=ddp-worker-0."
				 "ddp,ddp-worker-1.ddp;VC_WORKER_NUM=2;");
	assert_string_equal(pai_env_get(env, "RANK"), "99");
	pai_env_free(env);
	env = pod_env(job, PAI_K8S_JOBSET, 1, 1);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got, "JOB_COMPLETION_INDEX=1;");
	pai_env_free(env);
	pai_job_free(job);
	assert_int_equal(pai_job_parse(&job, d, "job.json", ps_job,
				       strlen(ps_job), NULL),
			 PAI_OK);
	env = pod_env(job, PAI_K8S_PADDLEJOB, 1, 2);
	own_vars(got, sizeof(got), env);
	assert_string_equal(
	    got, "POD_IP=wide-and-deep-worker-2;PADDLE_TRAINER_ID=2;"
		 "TRAINING_ROLE=TRAINER;PADDLE_TRAINING_ROLE=TRAINER;"
		 "PADDLE_PSERVERS_IP_PORT_LIST=wide-and-deep-ps-0:2379,"
		 "wide-and-deep-ps-1:2379;PADDLE_TRAINER_ENDPOINTS="
		 "wide-and-deep-worker-0:2379,wide-and-deep-worker-1:2379,"
		 "wide-and-deep-worker-2:2379;PADDLE_TRAINERS=wide-and-deep-"
		 "worker-0,wide-and-deep-worker-1,wide-and-deep-worker-2;"
		 "PADDLE_TRAINERS_NUM=3;PADDLE_PORT=2379;"
		 "TRAINER_PORTS_NUM=20;");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(d);
}

/* What the pod's own env says wins over the Paddle operator's ConfigMap
 * and the Job controller's index: the job's, unmarked. */
static void test_own_env_job_wins(void **state)
{
	static const char one[] =
	    "{\"jobName\": \"one\", \"image\": \"paddle\",\n"
	    " \"jobEnvs\": {\"PADDLE_PORT\": \"7\", "
	    "\"JOB_COMPLETION_INDEX\": \"8\"},\n"
	    " \"taskRoles\": [\n"
	    "  {\"name\": \"trainer\", \"taskNumber\": 1, \"cpuNumber\": 1,\n"
	    "   \"memoryMB\": 512, \"gpuNumber\": 0,\n"
	    "   \"command\": \"echo $PADDLE_PORT $JOB_COMPLETION_INDEX\"}]}\n";
	pai_diags *d;
	pai_job *job = NULL;
	pai_env *env;
	char got[1024];

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(
	    pai_job_parse(&job, d, "job.json", one, strlen(one), NULL),
	    PAI_OK);
	env = pod_env(job, PAI_K8S_PADDLEJOB, 0, 0);
	own_vars(got, sizeof(got), env);
	assert_string_equal(
	    got, "POD_IP=one-worker-0;PADDLE_TRAINER_ID=0;"
		 "TRAINING_ROLE=TRAINER;PADDLE_TRAINING_ROLE=TRAINER;"
		 "PADDLE_TRAINER_ENDPOINTS=one-worker-0:2379;"
		 "PADDLE_TRAINERS=one-worker-0;PADDLE_TRAINERS_NUM=1;"
		 "TRAINER_PORTS_NUM=20;");
	assert_string_equal(pai_env_get(env, "PADDLE_PORT"), "7");
	assert_string_equal(pai_env_command(env), "echo 7 8");
	pai_env_free(env);
	env = pod_env(job, PAI_K8S_JOBSET, 0, 0);
	own_vars(got, sizeof(got), env);
	assert_string_equal(got, "");
	assert_string_equal(pai_env_command(env), "echo 7 8");
	pai_env_free(env);
	pai_job_free(job);
	pai_diags_free(d);
}

/* Every allocation of a pod's environment with its operator's, and of a
 * check against them, failed in turn: PAI_ENOMEM and nothing, or the
 * same. */
static void test_own_env_out_of_memory(void **state)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	pai_diags *d;
	pai_job *job = NULL, *again;
	pai_env *env;
	long n;
	int err, failed;

	(void)state;
	o.kind = PAI_K8S_VOLCANO;
	jo.k8s_kind = PAI_K8S_PYTORCHJOB;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&job, d, "job.json", torch_job,
				       strlen(torch_job), NULL),
			 PAI_OK);
	for (n = 0;; n++) {
		env = NULL;
		again = NULL;
		alloc_fail_begin(n, 0);
		err = pai_k8s_expand_task(&env, job, 1, 1, &o);
		if (!err)
			err = pai_job_parse(&again, d, "job.json", torch_job,
					    strlen(torch_job), &jo);
		failed = alloc_fail_end();
		if (err == PAI_OK)
			assert_string_equal(pai_env_get(env, "VC_WORKER_NUM"),
					    "2");
		else if (err != PAI_ENOMEM)
			fail_msg("allocation %ld: error %d", n, err);
		pai_env_free(env);
		pai_job_free(again);
		if (!failed)
			break;
	}
	pai_job_free(job);
	pai_diags_free(d);
}

/* Options for a kind that is none are refused; a caller of version 2
 * (no k8s_kind) is still served. */
static void test_own_env_options(void **state)
{
	pai_job_options jo = PAI_JOB_OPTIONS_INIT;
	pai_diags *d;
	pai_job *job = NULL;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	jo.k8s_kind = 99;
	assert_int_equal(pai_job_parse(&job, d, "job.json", torch_job,
				       strlen(torch_job), &jo),
			 PAI_EINVAL);
	jo.version = 2; /* its struct ends before k8s_kind */
	assert_int_equal(pai_job_parse(&job, d, "job.json", torch_job,
				       strlen(torch_job), &jo),
			 PAI_OK);
	assert_int_equal(pai_diags_count(d), 9);
	pai_job_free(job);
	pai_diags_free(d);
}

static void test_bad_arguments(void **state)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	pai_diags *d;
	char *out = (char *)&out;

	(void)state;
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	o.kind = 0;
	assert_int_equal(pai_job_to_k8s(&out, NULL, d, "j", ps_job,
					strlen(ps_job), NULL, &o),
			 PAI_EINVAL);
	assert_null(out);
	o.kind = PAI_K8S_VOLCANO;
	assert_int_equal(pai_job_to_k8s(&out, NULL, d, "j", ps_job,
					strlen(ps_job), NULL, NULL),
			 PAI_EINVAL);
	assert_int_equal(pai_job_to_k8s(&out, NULL, NULL, "j", ps_job,
					strlen(ps_job), NULL, &o),
			 PAI_EINVAL);
	pai_diags_free(d);
}

/* Every allocation, failed in turn, gives PAI_ENOMEM and nothing, or the
 * same YAML. */
static void out_of_memory(pai_k8s_kind kind)
{
	pai_k8s_options o = PAI_K8S_OPTIONS_INIT;
	char *want, *out;
	pai_diags *d;
	long n;
	int err, failed;

	o.kind = kind;
	want = convert(ps_job, kind, &d, &err);
	assert_int_equal(err, PAI_OK);
	pai_diags_free(d);
	for (n = 0;; n++) {
		out = NULL;
		if (pai_diags_new(&d))
			fail();
		alloc_fail_begin(
		    n, 0); /* jansson's own failures read as bad JSON */
		err = pai_job_to_k8s(&out, NULL, d, "job.json", ps_job,
				     strlen(ps_job), NULL, &o);
		failed = alloc_fail_end();
		if (err == PAI_OK)
			assert_string_equal(out, want);
		else if (err != PAI_ENOMEM || out != NULL)
			fail_msg("allocation %ld: error %d", n, err);
		free(out);
		pai_diags_free(d);
		if (!failed)
			break;
	}
	free(want);
}

static void test_out_of_memory(void **state)
{
	(void)state;
	out_of_memory(PAI_K8S_PADDLEJOB);
	out_of_memory(PAI_K8S_JOBSET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paddlejob),
	    cmocka_unit_test(test_jobset),
	    cmocka_unit_test(test_pytorchjob),
	    cmocka_unit_test(test_trainjob),
	    cmocka_unit_test(test_mpijob),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_long_names),
	    cmocka_unit_test(test_expand_target),
	    cmocka_unit_test(test_own_env_known),
	    cmocka_unit_test(test_own_env_convert),
	    cmocka_unit_test(test_own_env_expand),
	    cmocka_unit_test(test_own_env_options),
	    cmocka_unit_test(test_own_env_job_wins),
	    cmocka_unit_test(test_own_env_out_of_memory),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
