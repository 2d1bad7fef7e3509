/* test_kube_cred.c - credentials (kube_cred.c, kube_plugin.c): static
 * tokens, token files read again after a minute and after a 401 (the
 * file wins whenever readable), HTTP Basic, and real exec plugins (shell
 * scripts the test writes: the plugin may be anything; paictl runs it
 * without a shell): KUBERNETES_EXEC_INFO, caching until expiry, one
 * re-run per stale credential, client-go's checks of the output, a
 * missing command with its installHint, a hung plugin killed, stdin per
 * interactiveMode, and every allocation failure. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/kube/kube.h"
#include "alloc_fail.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static time_t clock_now = 1000000;

static time_t fake_now(void)
{
	return clock_now;
}

static const char *at(const char *name)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void put(const char *name, const char *text, mode_t mode)
{
	FILE *f = fopen(at(name), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(at(name), mode);
}

static char *slurp(const char *name)
{
	char *text = NULL;
	size_t len;

	assert_int_equal(pai_file_read(&text, &len, NULL, at(name)), PAI_OK);
	return text;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kubecred-XXXXXX");
	assert_non_null(mkdtemp(dir));
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

/* A kubeconfig whose user is `user`, loaded. */
static pai__kube_config *config(const char *user)
{
	pai__kube_load_opts o = {0};
	pai__kube_config *c = NULL;
	pai__kube_err e;
	char text[4096];

	snprintf(text, sizeof(text),
		 "clusters:\n- name: c\n  cluster:\n"
		 "    server: https://k8s:6443\n"
		 "    certificate-authority: ca.pem\n"
		 "    extensions:\n"
		 "    - name: client.authentication.k8s.io/exec\n"
		 "      extension: {audience: paictl}\n"
		 "users:\n- name: u\n  user:\n%s"
		 "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		 "current-context: x\n",
		 user);
	put("kubeconfig", text, 0600);
	o.kubeconfig = at("kubeconfig");
	if (pai__kube_config_load(&c, &o, &e) != PAI_OK)
		fail_msg("%s", e.msg);
	return c;
}

static pai__kube_cred *cred(const pai__kube_config *c, long timeout_ms)
{
	pai__kube_cred_opts o = PAI__KUBE_CRED_OPTS_INIT;
	pai__kube_cred *cr = NULL;

	o.now = fake_now;
	o.stdin_fd = -1;
	o.plugin_timeout_ms = timeout_ms;
	assert_int_equal(pai__kube_cred_new(&cr, c, &o), PAI_OK);
	return cr;
}

static void test_static_and_basic(void **state)
{
	pai__kube_config *c = config("    token: abc\n");
	pai__kube_cred *cr = cred(c, 0);
	pai__kube_auth a;
	pai__kube_err e;
	unsigned long g;

	(void)state;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer abc");
	assert_null(a.cert);
	g = a.generation;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(a.generation, g);
	assert_int_equal(pai__kube_cred_unauthorized(cr, g), 0);
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
	c = config("    username: u\n    password: p\n");
	cr = cred(c, 0);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Basic dTpw");
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
	c = config("    client-certificate: c.pem\n    client-key: k.pem\n");
	cr = cred(c, 0);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_null(a.authorization);
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
}

/* [T, kubectl 1.32] of §1.4: the file wins whenever it is readable. */
static void test_token_file(void **state)
{
	pai__kube_config *c;
	pai__kube_cred *cr;
	pai__kube_auth a;
	pai__kube_err e;
	unsigned long g;

	(void)state;
	put("tok", "  file-1\n", 0600);
	c = config("    token: static\n    tokenFile: tok\n");
	cr = cred(c, 0);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer file-1");
	g = a.generation;
	/* rotated: not read again within the minute... */
	put("tok", "file-2\n", 0600);
	clock_now += 59;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer file-1");
	/* ...but at once after a 401 */
	assert_int_equal(pai__kube_cred_unauthorized(cr, g), 1);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer file-2");
	assert_true(a.generation != g);
	put("tok", "file-3", 0600);
	clock_now += 60;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer file-3");
	/* gone: the last token read stays */
	unlink(at("tok"));
	clock_now += 61;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer file-3");
	pai__kube_cred_free(cr);
	/* never readable: the static token */
	cr = cred(c, 0);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer static");
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
	/* no fallback: the error names the file, not its contents */
	c = config("    tokenFile: tok\n");
	cr = cred(c, 0);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_ENOTFOUND);
	assert_non_null(strstr(e.msg, "cannot read token file"));
	put("tok", "a\r\nX-Injected: 1\n", 0600);
	assert_int_equal(pai__kube_cred_unauthorized(cr, 0), 1);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_EAUTH);
	assert_null(strstr(e.msg, "Injected"));
	put("tok", " \n", 0600);
	assert_int_equal(pai__kube_cred_unauthorized(cr, 0), 1);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_EAUTH);
	assert_non_null(strstr(e.msg, "holds no token"));
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
}

/* The plugin: counts its runs, keeps its input, answers with $REPLY's
 * file (a name relative to the test folder). */
static const char plugin[] =
    "#!/bin/sh\n"
    "cd \"$(dirname \"$0\")\"\n"
    "echo run >> runs\n"
    "printf '%s' \"$KUBERNETES_EXEC_INFO\" > info.json\n"
    "printf '%s|%s|%s' \"$1\" \"$2\" \"$FROM_KUBECONFIG\" > args\n"
    "cat > stdin.txt\n"
    "[ -f leakfd ] && [ -e /proc/$$/fd/$(cat leakfd) ] && echo > leaked\n"
    "cat \"$REPLY\"\n";

static const char v1beta1_user[] =
    "    exec:\n"
    "      command: ./plugin.sh\n"
    "      args: [get-token, 'two words']\n"
    "      env: [{name: FROM_KUBECONFIG, value: 'x y'}, "
    "{name: REPLY, value: reply.json}]\n"
    "      apiVersion: client.authentication.k8s.io/v1beta1\n"
    "      provideClusterInfo: true\n";

static int runs(void)
{
	char *t = slurp("runs");
	int n = 0;
	const char *p;

	for (p = t; (p = strstr(p, "run")); p++)
		n++;
	free(t);
	return n;
}

static void test_plugin(void **state)
{
	pai__kube_config *c;
	pai__kube_cred *cr;
	pai__kube_auth a;
	pai__kube_err e;
	unsigned long g;
	char *t;

	(void)state;
	put("plugin.sh", plugin, 0700);
	put("ca.pem", "CA", 0600);
	put("runs", "", 0600);
	put("reply.json",
	    "{\"kind\":\"ExecCredential\",\"apiVersion\":"
	    "\"client.authentication.k8s.io/v1beta1\",\"status\":{\"token\":"
	    "\"plug-tok\",\"expirationTimestamp\":\"1970-01-12T13:50:00Z\"}}",
	    0600);
	c = config(v1beta1_user);
	cr = cred(c, 0);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_string_equal(a.authorization, "Bearer plug-tok");
	g = a.generation;
	t = slurp("info.json");
	assert_string_equal(t, "{\"kind\":\"ExecCredential\",\"apiVersion\":"
			       "\"client.authentication.k8s.io/v1beta1\","
			       "\"spec\":{\"interactive\":false,\"cluster\":{"
			       "\"server\":\"https://k8s:6443\","
			       "\"certificate-authority-data\":\"Q0E=\","
			       "\"config\":{\"audience\":\"paictl\"}}}}");
	free(t);
	t = slurp("args");
	assert_string_equal(t, "get-token|two words|x y");
	free(t);
	/* cached until expiry (1000000 s = 11 days 13:46:40) */
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(runs(), 1);
	clock_now = 1000000 + 199;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(runs(), 1);
	clock_now = 1000000 + 200;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(runs(), 2);
	clock_now = 1000000; /* as if the new one expired later */
	/* one re-run per stale credential */
	g = a.generation;
	assert_int_equal(pai__kube_cred_unauthorized(cr, g), 1);
	assert_int_equal(pai__kube_cred_unauthorized(cr, g), 1);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(runs(), 3);
	assert_int_equal(pai__kube_cred_unauthorized(cr, g), 1);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(runs(), 3);
	clock_now = 1000000;
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
}

/* client.authentication.k8s.io/v1: a certificate and key, no expiry. */
static void test_plugin_v1_cert(void **state)
{
	pai__kube_config *c;
	pai__kube_cred *cr;
	pai__kube_auth a;
	pai__kube_err e;
	char *t, num[16];
	int fd;

	(void)state;
	put("plugin.sh", plugin, 0700);
	put("runs", "", 0600);
	put("reply.json",
	    "{\"kind\":\"ExecCredential\",\"apiVersion\":"
	    "\"client.authentication.k8s.io/v1\",\"status\":{"
	    "\"clientCertificateData\":\"CERT\",\"clientKeyData\":\"KEY\"}}",
	    0600);
	c = config("    exec:\n      command: ./plugin.sh\n"
		   "      env: [{name: REPLY, value: reply.json}]\n"
		   "      interactiveMode: Never\n"
		   "      apiVersion: client.authentication.k8s.io/v1\n");
	cr = cred(c, 0);
	/* a descriptor of ours, not close-on-exec: the plugin has none */
	fd = open("/dev/null", O_RDONLY);
	snprintf(num, sizeof(num), "%d", fd);
	put("leakfd", num, 0600);
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	close(fd);
	unlink(at("leakfd"));
	assert_int_not_equal(access(at("leaked"), F_OK), 0);
	assert_null(a.authorization);
	assert_int_equal(a.cert_len, 4);
	assert_memory_equal(a.cert, "CERT", 4);
	assert_memory_equal(a.key, "KEY", 3);
	t = slurp("info.json");
	assert_string_equal(t, "{\"kind\":\"ExecCredential\",\"apiVersion\":"
			       "\"client.authentication.k8s.io/v1\",\"spec\":"
			       "{\"interactive\":false}}");
	free(t);
	t = slurp("stdin.txt"); /* Never: /dev/null */
	assert_string_equal(t, "");
	free(t);
	clock_now += 1000000; /* no expiry: kept */
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_int_equal(runs(), 1);
	clock_now = 1000000;
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
}

static int run_with(const char *user, pai__kube_err *e, long timeout_ms)
{
	pai__kube_config *c = config(user);
	pai__kube_cred *cr = cred(c, timeout_ms);
	pai__kube_auth a;
	int ret = pai__kube_cred_get(cr, &a, e);

	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
	return ret;
}

static void test_plugin_failures(void **state)
{
	pai__kube_err e;
	double t0;

	(void)state;
	put("plugin.sh", plugin, 0700);
	put("reply.json",
	    "{\"kind\":\"ExecCredential\",\"apiVersion\":"
	    "\"client.authentication.k8s.io/v1\",\"status\":{"
	    "\"token\":\"t\"}}",
	    0600);
	assert_int_equal(run_with(v1beta1_user, &e, 0), PAI_EAUTH);
	assert_string_equal(e.msg, "exec plugin is configured to use API "
				   "version client.authentication.k8s.io/"
				   "v1beta1, plugin returned version "
				   "client.authentication.k8s.io/v1");
	assert_int_equal(
	    run_with("    exec:\n      command: no-such-plugin-here\n"
		     "      installHint: |\n        apt install it\n"
		     "        or ask\n"
		     "      apiVersion: client.authentication.k8s.io/v1beta1\n",
		     &e, 0),
	    PAI_EAUTH);
	assert_string_equal(e.msg, "exec plugin: executable "
				   "no-such-plugin-here not found: apt "
				   "install it or ask ");
	put("fail.sh",
	    "#!/bin/sh\n"
	    "echo 'test_kube_cred: (expected) the plugin stderr shows' >&2\n"
	    "exit 3\n",
	    0700);
	assert_int_equal(
	    run_with("    exec:\n      command: ./fail.sh\n"
		     "      apiVersion: client.authentication.k8s.io/v1beta1\n",
		     &e, 0),
	    PAI_EAUTH);
	assert_non_null(strstr(e.msg, "failed with exit code 3"));
	put("hang.sh", "#!/bin/sh\nexec sleep 30\n", 0700);
	t0 = (double)time(NULL);
	assert_int_equal(
	    run_with("    exec:\n      command: ./hang.sh\n"
		     "      apiVersion: client.authentication.k8s.io/v1beta1\n",
		     &e, 300),
	    PAI_ETIMEOUT);
	assert_true((double)time(NULL) - t0 < 5);
	assert_non_null(strstr(e.msg, "did not finish within"));
	/* Always needs a terminal, and the test has none */
	assert_int_equal(
	    run_with("    exec:\n      command: ./plugin.sh\n"
		     "      interactiveMode: Always\n"
		     "      apiVersion: client.authentication.k8s.io/v1\n",
		     &e, 0),
	    PAI_EAUTH);
	assert_non_null(strstr(e.msg, "needs a terminal"));
}

static void test_parse(void **state)
{
	static const struct {
		const char *out, *msg;
	} bad[] = {
	    {"secret-token-not-json", "is not an ExecCredential"},
	    {"{\"kind\":\"ExecCredential\",\"apiVersion\":\"v\"}",
	     "didn't return a status field"},
	    {"{\"kind\":\"ExecCredential\",\"apiVersion\":\"v\",\"status\":"
	     "{}}",
	     "didn't return a token or cert/key pair"},
	    {"{\"kind\":\"ExecCredential\",\"apiVersion\":\"v\",\"status\":"
	     "{\"clientKeyData\":\"k\"}}",
	     "only certificate or key, not both"},
	    {"{\"kind\":\"ExecCredential\",\"apiVersion\":\"v\",\"status\":"
	     "{\"token\":\"t\",\"expirationTimestamp\":\"tomorrow\"}}",
	     "invalid expirationTimestamp"},
	    {"{\"kind\":\"Other\",\"apiVersion\":\"v\",\"status\":{\"token\":"
	     "\"t\"}}",
	     "plugin returned version v"},
	};
	static const char good[] =
	    "{\"kind\":\"ExecCredential\",\"apiVersion\":\"v\",\"status\":"
	    "{\"token\":\"t\",\"expirationTimestamp\":"
	    "\"2026-11-25T23:00:00.5+01:00\"}}";
	pai__kube_plugin_out o;
	pai__kube_err e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pai__kube_plugin_parse(&o, "v", bad[i].out,
							strlen(bad[i].out), &e),
				 PAI_EAUTH);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%zu: %s", i, e.msg);
		assert_null(strstr(e.msg, "secret"));
	}
	assert_int_equal(
	    pai__kube_plugin_parse(&o, "v", good, strlen(good), &e), PAI_OK);
	assert_int_equal(o.has_expiry, 1);
	assert_int_equal(o.expiry.sec, 1795644000); /* 22:00Z */
	assert_int_equal(o.expiry.nsec, 500000000);
	pai__kube_plugin_out_release(&o);
}

static void test_alloc_failures(void **state)
{
	pai__kube_config *c;
	pai__kube_cred *cr;
	pai__kube_auth a;
	pai__kube_err e;
	long n;
	int err, failed;

	(void)state;
	put("plugin.sh", plugin, 0700);
	put("ca.pem", "CA", 0600);
	put("reply.json",
	    "{\"kind\":\"ExecCredential\",\"apiVersion\":"
	    "\"client.authentication.k8s.io/v1beta1\",\"status\":{\"token\":"
	    "\"plug-tok\",\"clientCertificateData\":\"C\","
	    "\"clientKeyData\":\"K\"}}",
	    0600);
	c = config(v1beta1_user);
	for (n = 0;; n++) {
		cr = NULL;
		/* not jansson's: its lexer writes out of bounds when an
		 * allocation fails (2.14, under valgrind) */
		alloc_fail_begin(n, 0);
		err = pai__kube_cred_new(&cr, c, NULL);
		if (!err)
			err = pai__kube_cred_get(cr, &a, &e);
		failed = alloc_fail_end();
		pai__kube_cred_free(cr);
		if (!failed) {
			assert_int_equal(err, PAI_OK);
			break;
		}
		if (err != PAI_ENOMEM)
			fail_msg("allocation %ld: %d %s", n, err, e.msg);
	}
	pai__kube_config_free(c);
}

/* A buffer that holds a token grows without leaving the old copy behind
 * (realloc would, in freed memory): the plugin's answer, read in
 * pieces, the token first; the header lines, the token's first. */
static void test_token_not_left_behind(void **state)
{
	static const char tok[] = "leak-me-not-0123456789abcdef0123456789";
	char *groups[] = {"group-one-with-a-long-name", "group-two-also-long",
			  "group-three-longer-still", "group-four"};
	pai__kube_config *c, hc;
	pai__kube_cred *cr;
	pai__kube_auth a;
	pai__kube_err e;
	pai__buf b = PAI__SECRET_BUF_INIT, reply = PAI__BUF_INIT;
	size_t i;

	(void)state;
	put("plugin.sh", plugin, 0700);
	put("ca.pem", "CA", 0600);
	put("runs", "", 0600);
	pai__buf_printf(&reply,
			"{\"kind\":\"ExecCredential\",\"apiVersion\":"
			"\"client.authentication.k8s.io/v1beta1\",\"status\":"
			"{\"token\":\"%s\"},\"pad\":\"",
			tok);
	for (i = 0; i < 20000; i++)
		pai__buf_putc(&reply, 'x');
	pai__buf_puts(&reply, "\"}");
	put("reply.json", reply.data, 0600);
	pai__buf_release(&reply);
	c = config(v1beta1_user);
	cr = cred(c, 0);
	alloc_watch = tok;
	alloc_watch_hits = 0;
	assert_int_equal(pai__kube_cred_get(cr, &a, &e), PAI_OK);
	assert_non_null(strstr(a.authorization, tok));

	memset(&hc, 0, sizeof(hc));
	hc.impersonate = "someone";
	hc.impersonate_groups = groups;
	hc.nimpersonate_groups = 4;
	assert_int_equal(pai__kube_header_text(&b, &hc, &a), PAI_OK);
	assert_non_null(strstr(b.data, tok));
	assert_non_null(strstr(b.data, "Impersonate-Group: group-four"));
	pai__buf_release(&b);
	alloc_watch = NULL;
	assert_int_equal(alloc_watch_hits, 0);
	pai__kube_cred_free(cr);
	pai__kube_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_static_and_basic),
	    cmocka_unit_test(test_token_file),
	    cmocka_unit_test(test_plugin),
	    cmocka_unit_test(test_plugin_v1_cert),
	    cmocka_unit_test(test_plugin_failures),
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_alloc_failures),
	    cmocka_unit_test(test_token_not_left_behind),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
