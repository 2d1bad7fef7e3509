/* test_engine.c - the table of engines a profile names (engine.c): the
 * one call that opens any profile's client picks the engine from the
 * profile (a kubeconfig, a Slurm's login node or slurmrestd, an OpenPAI
 * URI, a URI with no profile), refuses what an engine takes not (a URI
 * for a kubeconfig's, a token file for a bearer token's), says whose
 * credentials are the engine's own, shows each one's settings; a
 * Slurm profile's login-node key (version 2) read only as far as its
 * caller's version. Nothing here sends: tests/slurm and tests/kube run
 * the engines against real clusters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A kubeconfig the Kubernetes engine reads (nothing is sent). */
static const char kubeconfig[] =
    "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
    "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:6443\n"
    "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n"
    "users:\n- name: u\n  user:\n    token: abc\n";

struct fixture {
	char dir[64], kube[128];
	pai_config *cfg;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	pai_profile pai = {"pai", "https://pai.test", "bob",
			   PAI_DIALECT_OPENPAI, NULL, 0, PAI_API_V2};
	pai_profile rest = {"rest", "https://slurm.test:6820", NULL,
			    PAI_DIALECT_OPENPAI, NULL, 0, PAI_API_SLURM};
	pai_profile login = {"login", "ssh://alice@127.0.0.1:2222", NULL,
			     PAI_DIALECT_OPENPAI, NULL, 0, PAI_API_SLURM};
	pai_profile kube = {"kube", NULL, NULL, PAI_DIALECT_OPENPAI, NULL, 0,
			    PAI_API_K8S};
	pai_slurm_cluster s = PAI_SLURM_CLUSTER_INIT;
	pai_k8s_cluster k = PAI_K8S_CLUSTER_INIT;
	FILE *fp;

	snprintf(f->dir, sizeof(f->dir), "/tmp/paictl-test-engine-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->kube, sizeof(f->kube), "%s/kubeconfig", f->dir);
	assert_non_null(fp = fopen(f->kube, "w"));
	fputs(kubeconfig, fp);
	fclose(fp);
	assert_int_equal(pai_config_load(&f->cfg, NULL, "/nonexistent/c"),
			 PAI_OK);
	assert_int_equal(pai_config_set(f->cfg, &pai), PAI_OK);
	assert_int_equal(pai_config_set(f->cfg, &rest), PAI_OK);
	assert_int_equal(pai_config_set(f->cfg, &login), PAI_OK);
	assert_int_equal(pai_config_set(f->cfg, &kube), PAI_OK);
	s.workdir = "/scratch";
	assert_int_equal(pai_config_set_slurm(f->cfg, "rest", &s), PAI_OK);
	s.identity_file = "/home/alice/.ssh/hpc_key";
	assert_int_equal(pai_config_set_slurm(f->cfg, "login", &s), PAI_OK);
	k.kubeconfig = f->kube;
	assert_int_equal(pai_config_set_k8s(f->cfg, "kube", &k), PAI_OK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pai_config_free(f->cfg);
	unlink(f->kube);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Each profile's client made by its engine, whose API it speaks. */
static void test_open_picks_engine(void **state)
{
	struct fixture *f = *state;
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_open_options oo = PAI_OPEN_OPTIONS_INIT;
	static const struct {
		const char *name;
		pai_api api;
	} want[] = {{"pai", PAI_API_V2},
		    {"rest", PAI_API_SLURM},
		    {"login", PAI_API_SLURM},
		    {"kube", PAI_API_K8S}};
	pai_client *c = NULL;
	size_t i;

	oo.user = "alice";
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(pai_client_open(&c, NULL, f->cfg,
						 want[i].name, &o, &oo),
				 PAI_OK);
		assert_int_equal(pai_client_api(c), want[i].api);
		pai_client_free(c);
	}
	/* no profile: the URI's OpenPAI server, with the API given */
	o.uri = "http://localhost";
	oo.api = PAI_API_DUAL;
	assert_int_equal(pai_client_open(&c, NULL, NULL, NULL, &o, &oo),
			 PAI_OK);
	assert_int_equal(pai_client_api(c), PAI_API_DUAL);
	pai_client_free(c);
	assert_int_equal(pai_client_open(&c, NULL, f->cfg, "none", &o, &oo),
			 PAI_OK);
	pai_client_free(c);
}

/* What an engine takes not: refused, said, no client. */
static void test_open_refuses(void **state)
{
	struct fixture *f = *state;
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_open_options oo = PAI_OPEN_OPTIONS_INIT;
	pai_client *c = NULL;
	char *detail = NULL;

	o.uri = "https://elsewhere.test";
	assert_int_equal(pai_client_open(&c, &detail, f->cfg, "kube", &o, &oo),
			 PAI_EINVAL);
	assert_null(c);
	assert_non_null(strstr(detail, "kubeconfig says where"));
	free(detail);
	o.uri = NULL;
	oo.token_file = "/tmp/token";
	assert_int_equal(pai_client_open(&c, &detail, f->cfg, "kube", &o, &oo),
			 PAI_EINVAL);
	assert_non_null(strstr(detail, "not a token file"));
	free(detail);
	assert_int_equal(pai_client_open(&c, &detail, f->cfg, "pai", &o, &oo),
			 PAI_EINVAL);
	assert_null(c);
	free(detail);
	/* a Slurm's JWT file is the engine's to read: taken */
	oo.user = "alice";
	assert_int_equal(pai_client_open(&c, &detail, f->cfg, "rest", &o, &oo),
			 PAI_OK);
	assert_null(detail);
	pai_client_free(c);
	/* a Slurm client needs its user */
	oo.user = NULL;
	assert_int_equal(pai_client_open(&c, &detail, f->cfg, "rest", &o, &oo),
			 PAI_EINVAL);
	assert_non_null(detail);
	free(detail);
	oo.version = 99;
	assert_int_equal(pai_client_open(&c, NULL, f->cfg, "pai", &o, &oo),
			 PAI_EINVAL);
}

static void test_credentials_and_settings(void **state)
{
	struct fixture *f = *state;
	const char *key = "x";
	json_t *j;
	char *said = (char *)"x";
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	const char *how = "x";

	assert_int_equal(pai_config_own_credentials(&how, f->cfg, "pai"), 0);
	assert_null(how);
	assert_int_equal(pai_config_own_credentials(NULL, f->cfg, "none"), 0);
	assert_int_equal(pai_config_own_credentials(&how, f->cfg, "rest"), 1);
	assert_non_null(strstr(how, "JWT"));
	assert_int_equal(pai_config_own_credentials(&how, f->cfg, "login"),
			 1);
	assert_non_null(strstr(how, "SSH keys"));
	assert_int_equal(pai_config_own_credentials(&how, f->cfg, "kube"), 1);
	assert_non_null(strstr(how, "from the kubeconfig"));
	assert_null(pai_config_settings(&key, f->cfg, "pai"));
	assert_null(key);
	j = pai_config_settings(&key, f->cfg, "login");
	assert_string_equal(key, "slurm");
	assert_string_equal(
	    json_string_value(json_object_get(j, "identityFile")),
	    "/home/alice/.ssh/hpc_key");
	assert_int_equal(json_integer_value(json_object_get(j, "sshPort")),
			 22);
	json_decref(j);
	j = pai_config_settings(&key, f->cfg, "kube");
	assert_string_equal(key, "kubernetes");
	assert_string_equal(json_string_value(json_object_get(j, "engine")),
			    "volcano");
	json_decref(j);
	/* an engine with nothing to ask when added: nothing sent, said */
	o.uri = "https://pai.test";
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_client_probe(&said, c), PAI_OK);
	assert_null(said);
	pai_client_free(c);
}

/* The login node's key: version 2's, kept, read back; a version 1
 * caller's struct read and written no further than its own end. */
static void test_identity_versions(void **state)
{
	struct fixture *f = *state;
	struct {
		pai_slurm_cluster s;
		unsigned char guard[32];
	} v1;
	const char *id = NULL;
	size_t end = offsetof(pai_slurm_cluster, identity_file), i;

	assert_int_equal(pai_config_slurm_identity(&id, f->cfg, "login"),
			 PAI_OK);
	assert_string_equal(id, "/home/alice/.ssh/hpc_key");
	assert_int_equal(pai_config_slurm_identity(&id, f->cfg, "rest"),
			 PAI_OK);
	assert_null(id);
	assert_int_equal(pai_config_slurm_identity(&id, f->cfg, "kube"),
			 PAI_EINVAL);
	/* read: out->version 1, nothing past version 1's end touched */
	memset(&v1, 0xa5, sizeof(v1));
	assert_int_equal(pai_config_slurm(&v1.s, f->cfg, "login"), PAI_OK);
	assert_int_equal(v1.s.version, 1);
	assert_string_equal(v1.s.workdir, "/scratch");
	for (i = end; i < sizeof(v1); i++)
		assert_int_equal(((unsigned char *)&v1)[i], 0xa5);
	/* written by a version 1 caller: what lies past its end unread */
	v1.s.identity_file = "relative/key"; /* invalid if it were read */
	assert_int_equal(pai_config_set_slurm(f->cfg, "rest", &v1.s), PAI_OK);
	assert_int_equal(pai_config_slurm_identity(&id, f->cfg, "rest"),
			 PAI_OK);
	assert_null(id);
	/* version 2: a relative key refused (the profile is used from
	 * anywhere) */
	v1.s.version = 2;
	assert_int_equal(pai_config_set_slurm(f->cfg, "rest", &v1.s),
			 PAI_EINVAL);
	v1.s.version = 3;
	v1.s.identity_file = NULL;
	assert_int_equal(pai_config_set_slurm(f->cfg, "rest", &v1.s),
			 PAI_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open_picks_engine, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_open_refuses, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_credentials_and_settings,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_identity_versions, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
