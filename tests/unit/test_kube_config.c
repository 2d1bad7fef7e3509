/* test_kube_config.c - kubeconfig loading (kube_config.c, kube_fields.c,
 * kube_yaml.c): which files, the merge rules of §1.2 as kubectl showed
 * them, the fields of §1.3-1.5, in-cluster (§1.6), refusals with their
 * file and line, bounds, and every allocation failure. Real files in a
 * temporary folder. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/kube/kube.h"
#include "alloc_fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *at(const char *name)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kubecfg-XXXXXX");
	assert_non_null(mkdtemp(dir));
	mkdir(at("sub"), 0700);
	mkdir(at("sa"), 0700);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int load(pai__kube_config **c, const char *explicit, const char *env,
		const char *context, pai__kube_err *e)
{
	pai__kube_load_opts o = {0};

	o.kubeconfig = explicit;
	o.env_kubeconfig = env;
	o.context = context;
	o.home = "/nonexistent";
	o.sa_dir = at("sa");
	e->msg[0] = '\0';
	return pai__kube_config_load(c, &o, e);
}

static const char full[] =
    "apiVersion: v1\n"
    "kind: Config\n"
    "preferences: {}\n"
    "clusters:\n"
    "- name: c1\n"
    "  cluster:\n"
    "    server: https://k8s.example.com:6443/prefix/\n"
    "    certificate-authority: ca.crt\n"
    "    tls-server-name: kubernetes\n"
    "    proxy-url: socks5://proxy:1080\n"
    "users:\n"
    "- name: u1\n"
    "  user:\n"
    "    client-certificate: sub/cert.crt\n"
    "    client-key-data: a2V5LWJ5dGVz\n"
    "    token: static-token\n"
    "    tokenFile: /abs/token\n"
    "    as: alice\n"
    "    as-groups: [dev, ops]\n"
    "contexts:\n"
    "- name: main\n"
    "  context: {cluster: c1, user: u1, namespace: team-a}\n"
    "current-context: main\n";

static void test_full(void **state)
{
	pai__kube_config *c = NULL;
	pai__kube_err e;
	char *url = NULL;

	(void)state;
	put("config", full);
	assert_int_equal(load(&c, at("config"), NULL, NULL, &e), PAI_OK);
	assert_string_equal(c->context, "main");
	assert_string_equal(c->server, "https://k8s.example.com:6443/prefix");
	assert_string_equal(c->namespace, "team-a");
	assert_string_equal(c->ca_file, at("ca.crt"));
	assert_string_equal(c->cert_file, at("sub/cert.crt"));
	assert_null(c->key_file);
	assert_int_equal(c->key_len, 9);
	assert_memory_equal(c->key_data, "key-bytes", 9);
	assert_string_equal(c->token, "static-token");
	assert_string_equal(c->token_file, "/abs/token");
	assert_string_equal(c->tls_server_name, "kubernetes");
	assert_string_equal(c->proxy_url, "socks5://proxy:1080");
	assert_string_equal(c->impersonate, "alice");
	assert_int_equal(c->nimpersonate_groups, 2);
	assert_string_equal(c->impersonate_groups[1], "ops");
	assert_string_equal(c->origin, at("config"));
	assert_int_equal(c->in_cluster, 0);
	/* the URL names the TLS name; curl connects to the server's host */
	assert_int_equal(pai__kube_url(&url, c, "/api/v1/pods?x=1"), PAI_OK);
	assert_string_equal(url,
			    "https://kubernetes:6443/prefix/api/v1/pods?x=1");
	free(url);
	pai__kube_config_free(c);
}

/* [T] of §1.2: a.yaml's c1 wins whole; b's paths are against sub/. */
static void test_merge(void **state)
{
	pai__kube_config *c = NULL;
	pai__kube_err e;
	char env[1024];

	(void)state;
	put("a.yaml", "clusters:\n"
		      "- name: c1\n"
		      "  cluster: {server: 'https://a:1', "
		      "certificate-authority: ca-a.crt}\n");
	put("sub/b.yaml",
	    "clusters:\n"
	    "- name: c1\n"
	    "  cluster: {server: 'https://b:2', tls-server-name: bee}\n"
	    "users:\n"
	    "- name: u\n"
	    "  user: {client-certificate: cert-b.crt, client-key: k.pem}\n"
	    "contexts:\n"
	    "- {name: x, context: {cluster: c1, user: u}}\n"
	    "current-context: x\n");
	put("c.yaml", "contexts:\n"
		      "- {name: other, context: {cluster: c1}}\n"
		      "- {name: x, context: {cluster: nope}}\n"
		      "current-context: other\n");
	/* empties, a repeat and a missing file are dropped silently */
	snprintf(env, sizeof(env), "::%s:%s:%s/missing:%s:%s", at("a.yaml"),
		 at("sub/b.yaml"), dir, at("a.yaml"), at("c.yaml"));
	assert_int_equal(load(&c, NULL, env, NULL, &e), PAI_OK);
	assert_string_equal(c->context, "x");
	assert_string_equal(c->server, "https://a:1");
	assert_string_equal(c->ca_file, at("ca-a.crt"));
	assert_null(c->tls_server_name);
	assert_string_equal(c->cert_file, at("sub/cert-b.crt"));
	assert_string_equal(c->key_file, at("sub/k.pem"));
	assert_string_equal(c->namespace, "default");
	pai__kube_config_free(c);
	/* c:b: c's current-context comes first */
	snprintf(env, sizeof(env), "%s:%s:%s", at("c.yaml"), at("sub/b.yaml"),
		 at("a.yaml"));
	assert_int_equal(load(&c, NULL, env, NULL, &e), PAI_OK);
	assert_string_equal(c->context, "other");
	assert_null(c->user);
	assert_string_equal(c->server, "https://b:2");
	pai__kube_config_free(c);
	/* c's own x names a cluster no file has */
	assert_int_equal(load(&c, NULL, env, "x", &e), PAI_EINVAL);
	assert_string_equal(e.msg,
			    "cluster \"nope\" was not found for context \"x\"");
	assert_null(c);
}

static void test_errors(void **state)
{
	pai__kube_config *c = NULL;
	pai__kube_err e;
	char want[512];

	(void)state;
	assert_int_equal(load(&c, at("none"), NULL, NULL, &e), PAI_ENOTFOUND);
	assert_non_null(strstr(e.msg, "No such file"));
	put("bad.yaml", "clusters:\n- name: c\n  cluster: {server: [\n");
	assert_int_equal(load(&c, NULL, at("bad.yaml"), NULL, &e), PAI_ESYNTAX);
	snprintf(want, sizeof(want), "%s:4: ", at("bad.yaml"));
	assert_memory_equal(e.msg, want, strlen(want));
	put("config", full);
	assert_int_equal(load(&c, at("config"), NULL, "prod", &e),
			 PAI_ENOTFOUND);
	assert_string_equal(e.msg, "context \"prod\" does not exist");
	put("types.yaml", "clusters: {c: 1}\n");
	assert_int_equal(load(&c, at("types.yaml"), NULL, NULL, &e),
			 PAI_ESYNTAX);
	snprintf(want, sizeof(want), "%s:1: clusters must be a list",
		 at("types.yaml"));
	assert_string_equal(e.msg, want);
	put("twice.yaml", "users:\n- name: u\n- name: u\n");
	assert_int_equal(load(&c, at("twice.yaml"), NULL, NULL, &e),
			 PAI_ESYNTAX);
	assert_non_null(strstr(e.msg, ":3: user \"u\" defined twice"));
	put("list.yaml", "- a\n");
	assert_int_equal(load(&c, at("list.yaml"), NULL, NULL, &e),
			 PAI_ESYNTAX);
	put("nocur.yaml", "clusters:\n- name: c\n  cluster: {server: x}\n");
	assert_int_equal(load(&c, at("nocur.yaml"), NULL, NULL, &e),
			 PAI_ENOTFOUND);
	assert_null(c);
}

static int load_user(pai__kube_config **c, const char *user, pai__kube_err *e)
{
	char text[2048];

	snprintf(
	    text, sizeof(text),
	    "clusters:\n- name: c\n  cluster:\n"
	    "    server: https://h\n"
	    "    extensions:\n"
	    "    - name: client.authentication.k8s.io/exec\n"
	    "      extension: {audience: a, n: 0x10, f: 1.5, b: on, z: ~}\n"
	    "users:\n- name: u\n  user:\n%s"
	    "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
	    "current-context: x\n",
	    user);
	put("u.yaml", text);
	*c = NULL;
	return load(c, at("u.yaml"), NULL, NULL, e);
}

static void test_users(void **state)
{
	pai__kube_config *c;
	pai__kube_err e;

	(void)state;
	assert_int_equal(load_user(&c, "    auth-provider: {name: gcp}\n", &e),
			 PAI_EINVAL);
	assert_string_equal(e.msg, "auth-provider gcp is not supported; use "
				   "an exec credential plugin");
	assert_int_equal(load_user(&c,
				   "    auth-provider:\n      name: oidc\n"
				   "      config: {id-token: idtok}\n",
				   &e),
			 PAI_OK);
	assert_string_equal(c->token, "idtok");
	pai__kube_config_free(c);
	assert_int_equal(load_user(&c, "    token: t\n    username: x\n", &e),
			 PAI_EINVAL);
	assert_non_null(strstr(e.msg, "more than one authentication method"));
	assert_int_equal(load_user(&c, "    client-certificate: c\n", &e),
			 PAI_EINVAL);
	assert_int_equal(load_user(&c, "    as-groups: [g]\n", &e), PAI_EINVAL);
	/* data must be base64, and the message does not quote it */
	assert_int_equal(load_user(&c,
				   "    client-key-data: sekrit!\n    client-"
				   "certificate-data: eA==\n",
				   &e),
			 PAI_ESYNTAX);
	assert_non_null(strstr(e.msg, ":11: client-key-data is not valid "
				      "base64"));
	assert_null(strstr(e.msg, "sekrit"));
}

static void test_users_exec(void **state)
{
	pai__kube_config *c;
	pai__kube_err e;
	char *j;

	(void)state;
	assert_int_equal(
	    load_user(&c,
		      "    exec:\n      command: ./bin/plug\n"
		      "      apiVersion: "
		      "client.authentication.k8s.io/v1beta1\n"
		      "      args: [get, '--x=1']\n"
		      "      env: [{name: A, value: b=c}, {name: E}]\n"
		      "      provideClusterInfo: yes\n",
		      &e),
	    PAI_OK);
	assert_string_equal(c->exec->command, at("bin/plug"));
	assert_int_equal(c->exec->nargs, 2);
	assert_string_equal(c->exec->args[1], "--x=1");
	assert_int_equal(c->exec->nenv, 2);
	assert_string_equal(c->exec->env[0], "A=b=c");
	assert_string_equal(c->exec->env[1], "E=");
	assert_int_equal(c->exec->interactive_mode,
			 PAI__KUBE_INTERACTIVE_IF_AVAILABLE);
	j = json_dumps(c->exec->cluster_config, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(j, "{\"audience\":\"a\",\"b\":true,\"f\":1.5,"
			       "\"n\":16,\"z\":null}");
	free(j);
	pai__kube_config_free(c);
	assert_int_equal(load_user(&c,
				   "    exec:\n      command: gcloud-plugin\n"
				   "      apiVersion: "
				   "client.authentication.k8s.io/v1\n",
				   &e),
			 PAI_EINVAL);
	assert_non_null(strstr(e.msg, "interactiveMode must be specified"));
	assert_int_equal(load_user(&c,
				   "    exec:\n      command: gcloud-plugin\n"
				   "      interactiveMode: Never\n"
				   "      apiVersion: "
				   "client.authentication.k8s.io/v1\n",
				   &e),
			 PAI_OK);
	assert_string_equal(c->exec->command, "gcloud-plugin");
	assert_null(c->exec->cluster_config); /* no provideClusterInfo */
	pai__kube_config_free(c);
	assert_int_equal(load_user(&c,
				   "    exec: {command: x, apiVersion: "
				   "client.authentication.k8s.io/v1alpha1}\n",
				   &e),
			 PAI_EINVAL);
}

static void test_cluster_fields(void **state)
{
	pai__kube_config *c = NULL;
	pai__kube_err e;

	(void)state;
	put("i.yaml", "clusters:\n- name: c\n  cluster:\n"
		      "    server: https://h\n"
		      "    certificate-authority-data: Q0E=\n"
		      "    insecure-skip-tls-verify: true\n"
		      "contexts: [{name: x, context: {cluster: c}}]\n"
		      "current-context: x\n");
	assert_int_equal(load(&c, at("i.yaml"), NULL, NULL, &e), PAI_EINVAL);
	assert_non_null(strstr(e.msg, "specifying a root certificates file "
				      "with the insecure flag is not allowed"));
	/* go-yaml's booleans; a quoted one is a string */
	put("y.yaml", "clusters:\n- name: c\n  cluster:\n"
		      "    server: 10.0.0.1:6443\n"
		      "    insecure-skip-tls-verify: yes\n"
		      "contexts: [{name: x, context: {cluster: c}}]\n"
		      "current-context: x\n");
	assert_int_equal(load(&c, at("y.yaml"), NULL, NULL, &e), PAI_OK);
	assert_int_equal(c->insecure, 1);
	assert_string_equal(c->server, "https://10.0.0.1:6443");
	pai__kube_config_free(c);
	put("q.yaml", "clusters:\n- name: c\n  cluster:\n"
		      "    server: https://h\n"
		      "    insecure-skip-tls-verify: \"true\"\n"
		      "contexts: [{name: x, context: {cluster: c}}]\n"
		      "current-context: x\n");
	assert_int_equal(load(&c, at("q.yaml"), NULL, NULL, &e), PAI_ESYNTAX);
	assert_non_null(strstr(e.msg, ":5: insecure-skip-tls-verify must be "
				      "true or false"));
	put("s.yaml", "clusters:\n- name: c\n  cluster: {server: "
		      "'https://u:p@h'}\n"
		      "contexts: [{name: x, context: {cluster: c}}]\n"
		      "current-context: x\n");
	assert_int_equal(load(&c, at("s.yaml"), NULL, NULL, &e), PAI_ESYNTAX);
}

/* JSON is YAML: kubectl config view -o json reads back. */
static void test_json(void **state)
{
	pai__kube_config *c = NULL;
	pai__kube_err e;

	(void)state;
	put("k.json",
	    "{\"kind\": \"Config\", \"apiVersion\": \"v1\",\n"
	    "\t\"clusters\": [{\"name\": \"c\", \"cluster\": {\"server\": "
	    "\"http://127.0.0.1:8080\", \"insecure-skip-tls-verify\": "
	    "false}}],\n"
	    "\t\"users\": [{\"name\": \"u\", \"user\": {\"token\": \"t\"}}],\n"
	    "\t\"contexts\": [{\"name\": \"x\", \"context\": {\"cluster\": "
	    "\"c\", \"user\": \"u\", \"namespace\": \"ns\"}}],\n"
	    "\t\"current-context\": \"x\"}\n");
	assert_int_equal(load(&c, at("k.json"), NULL, NULL, &e), PAI_OK);
	assert_string_equal(c->server, "http://127.0.0.1:8080");
	assert_string_equal(c->token, "t");
	assert_string_equal(c->namespace, "ns");
	pai__kube_config_free(c);
}

static void test_in_cluster(void **state)
{
	pai__kube_load_opts o = {0};
	pai__kube_config *c = NULL;
	pai__kube_err e;

	(void)state;
	o.home = dir; /* no .kube/config there */
	o.sa_dir = at("sa");
	o.service_host = "fd00::1";
	o.service_port = "443";
	/* no token file: not in a cluster */
	assert_int_equal(pai__kube_config_load(&c, &o, &e), PAI_ENOTFOUND);
	assert_non_null(strstr(e.msg, "no kubeconfig found"));
	put("sa/token", "tok\n");
	put("sa/namespace", " ns-file \n");
	assert_int_equal(pai__kube_config_load(&c, &o, &e), PAI_OK);
	assert_int_equal(c->in_cluster, 1);
	assert_string_equal(c->server, "https://[fd00::1]:443");
	assert_string_equal(c->token_file, at("sa/token"));
	assert_null(c->ca_file); /* none there: the system's roots */
	assert_string_equal(c->namespace, "ns-file");
	pai__kube_config_free(c);
	put("sa/ca.crt", "pem");
	o.pod_namespace = "pod-ns";
	assert_int_equal(pai__kube_config_load(&c, &o, &e), PAI_OK);
	assert_string_equal(c->ca_file, at("sa/ca.crt"));
	assert_string_equal(c->namespace, "pod-ns");
	pai__kube_config_free(c);
	/* a profile's namespace wins; a bad one is refused */
	o.namespace = "Team_A";
	assert_int_equal(pai__kube_config_load(&c, &o, &e), PAI_EINVAL);
	o.namespace = "team-b";
	assert_int_equal(pai__kube_config_load(&c, &o, &e), PAI_OK);
	assert_string_equal(c->namespace, "team-b");
	pai__kube_config_free(c);
	/* ~/.kube/config when there is one */
	mkdir(at(".kube"), 0700);
	put(".kube/config", full);
	assert_int_equal(pai__kube_config_load(&c, &o, &e), PAI_OK);
	assert_int_equal(c->in_cluster, 0);
	assert_string_equal(c->ca_file, at(".kube/ca.crt"));
	pai__kube_config_free(c);
}

static void test_bounds(void **state)
{
	pai__kube_config *c = NULL;
	pai__kube_ynode *n = NULL;
	pai__kube_err e;
	char *deep = malloc(4096);
	json_t *j;
	int i;

	(void)state;
	for (i = 0; i < 2000; i++)
		deep[i] = '[';
	deep[i] = '\0';
	assert_int_equal(pai__kube_yaml_parse(&n, "d", deep, strlen(deep), &e),
			 PAI_ETOOBIG);
	assert_string_equal(e.msg, "d:1: nested too deeply");
	free(deep);
	/* aliases share: a billion laughs costs nothing until walked */
	put("lol.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
			"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
			"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
			"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
			"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
			"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
			"clusters: *f\n");
	assert_int_equal(load(&c, at("lol.yaml"), NULL, NULL, &e), PAI_ESYNTAX);
	assert_int_equal(
	    pai__kube_yaml_parse(&n, "l", "a: &a [1, 2]\nb: *a\n", 19, &e),
	    PAI_OK);
	j = pai__kube_yjson(n);
	assert_non_null(j);
	json_decref(j);
	pai__kube_ynode_free(n);
	assert_int_equal(pai__kube_yaml_parse(&n, "l", "a: *x\n", 6, &e),
			 PAI_ESYNTAX);
	assert_int_equal(pai__kube_yaml_parse(&n, "l", "", 0, &e), PAI_OK);
	assert_null(n);
}

static void test_alloc_failures(void **state)
{
	pai__kube_config *c;
	pai__kube_err e;
	char env[1024];
	long n;
	int err, failed;

	(void)state;
	put("config", full);
	put("u.yaml", "users:\n- name: u1\n  user:\n    exec:\n"
		      "      command: ./p\n      args: [a]\n"
		      "      env: [{name: A, value: b}]\n"
		      "      apiVersion: client.authentication.k8s.io/v1beta1\n"
		      "      provideClusterInfo: true\n"
		      "clusters:\n- name: c1\n  cluster:\n    server: h\n"
		      "    extensions: [{name: "
		      "client.authentication.k8s.io/exec, extension: "
		      "{a: [1]}}]\n");
	snprintf(env, sizeof(env), "%s:%s", at("u.yaml"), at("config"));
	for (n = 0;; n++) {
		c = NULL;
		alloc_fail_begin(n, 1);
		err = load(&c, NULL, env, NULL, &e);
		failed = alloc_fail_end();
		if (!failed) {
			assert_int_equal(err, PAI_OK);
			assert_non_null(c->exec);
			pai__kube_config_free(c);
			break;
		}
		if (err != PAI_ENOMEM)
			fail_msg("allocation %ld: %d %s", n, err, e.msg);
		assert_null(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_users),
	    cmocka_unit_test(test_users_exec),
	    cmocka_unit_test(test_cluster_fields),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_in_cluster),
	    cmocka_unit_test(test_bounds),
	    cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
