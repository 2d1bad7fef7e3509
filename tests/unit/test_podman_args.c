/* test_podman_args.c - the `podman run` argv the podman runtime builds
 * for a task (server/runtime_podman.c's run_args), tested as argv, not
 * by running podman: above all the GPUs through CDI (--device
 * nvidia.com/gpu=...), which no GPU on a test machine can exercise:
 * none without a CDI spec or a GPU request, all of them without
 * --capacity, exactly the ones a task holds under it (bits 0 and 63,
 * the bounds of the mask, included) with CUDA_VISIBLE_DEVICES passed
 * on; and around them the options this machine's probe chose (--init,
 * --ulimit, --cpus, --memory), conmon kept in the task's cgroup, the
 * output passed through, the environment by name only, and the command
 * last, after the image. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* The runtime's files, internal to server/, and server/util.c for its
 * srv_printf: compiled in here. */
#include "../../server/runtime.c"
#include "../../server/runtime_podman.c"
#include "../../server/runtime_process.c"
#include "../../server/podman_image.c"
#include "../../server/podman_probe.c"
#include "../../server/podman_orphans.c"
#include "../../server/util.c"

/* What the files above call from jobs.c and ssh.c, never on the paths
 * these tests take: each fails the test if it is reached. */
char *srv_task_dir(const struct srv_job *j, const struct srv_task *t)
{
	(void)j, (void)t;
	fail_msg("srv_task_dir reached");
	return NULL;
}

void srv_task_set_diag(struct srv_task *t, const char *msg)
{
	(void)t, (void)msg;
	fail_msg("srv_task_set_diag reached");
}

void srv_ssh_put_quoted(FILE *f, const char *v)
{
	(void)f, (void)v;
	fail_msg("srv_ssh_put_quoted reached");
}

static const char JOB[] =
    "{\"jobName\":\"g\",\"image\":\"localhost/img:1\",\"jobEnvs\":{\"SECRET\":"
    "\"value-not-in-argv\"},\"taskRoles\":[{\"name\":\"main\",\"taskNumber\":"
    "2,\"cpuNumber\":3,\"memoryMB\":2048,\"gpuNumber\":2,\"command\":"
    "\"nvidia-smi\"}]}";

/* One task of JOB, and a server whose podman the probe found so. */
struct fixture {
	struct srv s;
	struct podman p;
	struct srv_role role;
	struct srv_task t;
	struct srv_job j;
	pai_job *pj;
	pai_env *env;
	struct rt_task rt;
	struct rt_task_in in;
	struct args a;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	pai_diags *d = NULL;

	assert_non_null(f);
	assert_int_equal(pai_diags_new(&d), PAI_OK);
	assert_int_equal(pai_job_parse(&f->pj, d, "g.json", JOB, strlen(JOB),
				       NULL),
			 PAI_OK);
	pai_diags_free(d);
	assert_int_equal(pai_expand_task(&f->env, f->pj, 0, 1, NULL), PAI_OK);
	f->p.exe = "/usr/bin/podman";
	f->p.cdi_gpus = true;
	f->p.passthrough = true;
	snprintf(f->p.id, sizeof(f->p.id), "0123abcd");
	f->s.rt_data = &f->p;
	f->role = (struct srv_role){.name = "main", .task_number = 2, .cpu = 3,
				    .memory_mb = 2048, .gpu = 2};
	f->t = (struct srv_task){.role = 0, .index = 1};
	f->j = (struct srv_job){.key = "u~g", .nroles = 1, .roles = &f->role,
				.ntasks = 1, .tasks = &f->t, .pj = f->pj};
	f->rt.keep_fd = -1;
	f->rt.started = "/state/u~g/attempt-0/main-1/container.id";
	f->in = (struct rt_task_in){.j = &f->j, .t = &f->t, .cmd = "nvidia-smi",
				    .env = f->env, .work = "/w"};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	args_free(&f->a);
	pai_env_free(f->env);
	pai_job_free(f->pj);
	free(f);
	return 0;
}

/* The argv as one string, its arguments between spaces. */
static char *built(struct fixture *f)
{
	size_t len = 1, i;
	char *s;

	run_args(&f->a, &f->s, &f->in, "paictl-x", "localhost/img:1", &f->rt);
	assert_false(f->a.oom);
	for (i = 0; i < f->a.n; i++)
		len += strlen(f->a.v[i]) + 1;
	assert_non_null(s = calloc(1, len));
	for (i = 0; i < f->a.n; i++) {
		strcat(s, f->a.v[i]);
		if (i + 1 < f->a.n)
			strcat(s, " ");
	}
	return s;
}

/* How many times needle is in s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void test_no_cdi_spec_no_device(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->p.cdi_gpus = false;
	s = built(f);
	assert_int_equal(count(s, "--device"), 0);
	assert_int_equal(count(s, "CUDA_VISIBLE_DEVICES"), 0);
	free(s);
}

static void test_no_gpu_asked_no_device(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->role.gpu = 0;
	s = built(f);
	assert_int_equal(count(s, "--device"), 0);
	free(s);
}

static void test_uncapped_all_gpus(void **state)
{
	struct fixture *f = *state;
	char *s = built(f);

	assert_int_equal(count(s, "--device nvidia.com/gpu=all "), 1);
	assert_int_equal(count(s, "--device"), 1);
	assert_int_equal(count(s, "CUDA_VISIBLE_DEVICES"), 0);
	free(s);
}

static void test_capped_the_task_s_gpus(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->s.capped = true;
	f->t.gpus = (1ULL << 0) | (1ULL << 3) | (1ULL << 63);
	s = built(f);
	assert_int_equal(count(s, "--device"), 3);
	assert_non_null(strstr(s, " --device nvidia.com/gpu=0 --device "
				  "nvidia.com/gpu=3 --device nvidia.com/gpu=63 "));
	assert_int_equal(count(s, "=all"), 0);
	assert_int_equal(count(s, " --env CUDA_VISIBLE_DEVICES "), 1);
	free(s);
}

static void test_capped_none_held(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->s.capped = true;
	f->t.gpus = 0;
	s = built(f);
	assert_int_equal(count(s, "--device"), 0);
	free(s);
}

/* 64 GPUs, every bit: 64 --device, each an argument of its own. */
static void test_capped_every_bit(void **state)
{
	struct fixture *f = *state;
	char *s, want[32];
	int g;

	f->s.capped = true;
	f->t.gpus = ~0ULL;
	s = built(f);
	assert_int_equal(count(s, "--device"), 64);
	for (g = 0; g < 64; g++) {
		snprintf(want, sizeof(want), "nvidia.com/gpu=%d ", g);
		assert_int_equal(count(s, want), 1);
	}
	free(s);
}

static void test_machine_options_and_order(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->p.init = "/usr/libexec/podman/catatonit";
	f->p.cpus = f->p.memory = true;
	snprintf(f->p.ulimit[0], sizeof(f->p.ulimit[0]), "nofile=1024:20000");
	s = built(f);
	assert_true(strncmp(s, "run --rm --name paictl-x --label "
			       "io.paictl.local=0123abcd --network=host ",
			    73) == 0);
	assert_non_null(strstr(s, " --init --init-path "
				  "/usr/libexec/podman/catatonit --ulimit "
				  "nofile=1024:20000 --cpus 3 --memory 2048m "));
	assert_int_equal(count(s, "--ulimit"), 1);
	/* conmon left in the task's cgroup; output straight to the pipes */
	assert_non_null(strstr(s, " --pull=missing --cgroups=no-conmon "
				  "--log-driver=passthrough "));
	assert_non_null(strstr(s, " --cidfile /state/u~g/attempt-0/main-1/"
				  "container.id "));
	assert_non_null(strstr(s, " --volume /w:/w --workdir /w "));
	/* names only: values come from podman's environment */
	assert_non_null(strstr(s, " --env SECRET "));
	assert_non_null(strstr(s, " --env PAI_TASK_INDEX "));
	assert_int_equal(count(s, "value-not-in-argv"), 0);
	/* the image, then sh -c with the wrapper, then the command last */
	assert_non_null(strstr(s, " --entrypoint=/bin/sh localhost/img:1 -c "));
	assert_true(strcmp(s + strlen(s) - strlen(" sh nvidia-smi"),
			   " sh nvidia-smi") == 0);
	free(s);
}

static void test_no_limits_where_cgroups_refuse(void **state)
{
	struct fixture *f = *state;
	char *s = built(f);

	assert_int_equal(count(s, "--cpus"), 0);
	assert_int_equal(count(s, "--memory"), 0);
	assert_int_equal(count(s, "--init"), 0);
	assert_int_equal(count(s, "--ulimit"), 0);
	free(s);
}

/* podman before 4 has no passthrough: its default log driver then */
static void test_no_passthrough_before_podman_4(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->p.passthrough = false;
	s = built(f);
	assert_int_equal(count(s, "--log-driver"), 0);
	assert_int_equal(count(s, " --cgroups=no-conmon "), 1);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_no_cdi_spec_no_device, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_no_gpu_asked_no_device, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_uncapped_all_gpus, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_capped_the_task_s_gpus, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_capped_none_held, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_capped_every_bit, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_machine_options_and_order,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_no_limits_where_cgroups_refuse, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_no_passthrough_before_podman_4, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
