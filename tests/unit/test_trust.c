/* test_trust.c - a CA the user names is the only one trusted, as kubectl
 * trusts a kubeconfig's: an OpenPAI profile's --cacert (pai_client's
 * ca_file) and a kubeconfig's certificate-authority and -data. The
 * server's certificate is signed by a CA that the machine trusts (a
 * mount namespace puts it in /etc/ssl/certs, libcurl's CA file and
 * directory) but the user did not name: refused; trusted without a CA
 * named, and with its own. Against openssl s_server on 127.0.0.1.
 * Skipped, saying so, without the openssl program or a mount namespace
 * (not root, and no user namespaces). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/http.h"
#include "client/kube/kube.h"
#include "sys/dl_curl.h"
#include "fake_openpai.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];
static int port;
static pid_t server;
static const char *skip_why;

/* CA "named" (the user's), CA "system" (the machine's), a server
 * certificate for 127.0.0.1 signed by the system CA, and sys/: a
 * /etc/ssl/certs that trusts the system CA alone. */
static int make_certs(void)
{
	return test_sh(
	    "cd '%s' && for n in named system; do openssl req -x509 "
	    "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
	    "-days 2 -keyout $n.key -out $n.pem -subj /CN=$n-ca "
	    "2>/dev/null || exit 1; done && openssl req -newkey ec "
	    "-pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "
	    "srv.key -out srv.csr -subj /CN=srv 2>/dev/null && echo "
	    "subjectAltName=IP:127.0.0.1 >srv.ext && openssl x509 -req "
	    "-in srv.csr -CA system.pem -CAkey system.key "
	    "-CAcreateserial -out srv.pem -days 2 -extfile srv.ext "
	    "2>/dev/null && mkdir sys && cp system.pem "
	    "sys/ca-certificates.crt && cp system.pem sys/system.pem && "
	    "openssl rehash sys >/dev/null 2>&1",
	    dir);
}

static int write_map(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* This process in a mount namespace of its own (a user namespace too
 * when not root), /etc/ssl/certs being sys/: 0, or -1. */
static int own_system_store(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNS) != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return -1;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		write_map("/proc/self/setgroups", "deny");
		if (write_map("/proc/self/uid_map", map))
			return -1;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (write_map("/proc/self/gid_map", map))
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount(test_at(dir, "sys"), "/etc/ssl/certs", NULL, MS_BIND, NULL) !=
		0)
		return -1;
	return 0;
}

/* Runs fn in a child with its own system store: fn's result, 100 when
 * the namespace cannot be had. */
static int in_namespace(int (*fn)(const void *), const void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(own_system_store() ? 100 : fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/trust-XXXXXX");
	if (!mkdtemp(dir) || pai__curl_load())
		return -1;
	if (test_sh("openssl version >/dev/null 2>&1") != 0 ||
	    make_certs() != 0) {
		skip_why = "no openssl program to make certificates with";
		return 0;
	}
	server = test_s_server(dir, &port, NULL);
	return server > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	test_sh("rm -rf '%s'", dir);
	return 0;
}

static void need(void)
{
	if (skip_why) {
		fprintf(stderr, "test_trust: skipped: %s\n", skip_why);
		skip();
	}
}

/* ---- an OpenPAI profile: pai_client's ca_file ------------------------- */

/* A GET through pai__http with ca_file (NULL: none): 0 for an answer,
 * 1 for PAI_ETLS, 2 for another failure. */
static int openpai_get(const void *arg)
{
	const char *ca = arg;
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	pai__request rq = {"GET", NULL, NULL, 0, NULL, NULL, 1, 0, 0};
	pai__response rs = PAI__RESPONSE_INIT;
	char uri[64];
	int err;

	snprintf(uri, sizeof(uri), "https://127.0.0.1:%d", port);
	o.uri = uri;
	o.ca_file = ca;
	o.max_retries = 0;
	if (pai_client_new(&c, &o))
		return 2;
	rq.url = uri;
	err = pai__http(c, &rq, &rs);
	pai__response_release(&rs);
	pai_client_free(c);
	return err == PAI_OK ? 0 : err == PAI_ETLS ? 1 : 2;
}

static void test_openpai_cacert(void **state)
{
	(void)state;
	need();
	if (in_namespace(openpai_get, NULL) == 100) {
		fprintf(stderr, "test_trust: skipped: no mount namespace to "
				"give the machine a CA in\n");
		skip();
	}
	/* the machine trusts the server's CA: so does a client naming none */
	assert_int_equal(in_namespace(openpai_get, NULL), 0);
	/* --cacert names another: that one only */
	assert_int_equal(in_namespace(openpai_get, test_at(dir, "named.pem")),
			 1);
	assert_int_equal(in_namespace(openpai_get, test_at(dir, "system.pem")),
			 0);
}

/* ---- a kubeconfig's certificate-authority and -data ------------------ */

struct kube_ca {
	const char *file; /* certificate-authority */
	const char *data; /* certificate-authority-data's PEM, a file */
};

static size_t discard(char *p, size_t size, size_t n, void *data)
{
	(void)p;
	(void)data;
	return size * n;
}

/* A GET with pai__kube_curl_setup()'s TLS: 0, 1 (a TLS refusal), 2. */
static int kube_get(const void *arg)
{
	const struct kube_ca *k = arg;
	pai__kube_config cfg;
	struct curl_slist *to = NULL;
	pai__kube_err e;
	char url[64], *pem = NULL;
	size_t len = 0;
	CURL *h = curl_easy_init();
	CURLcode rc;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	snprintf(url, sizeof(url), "https://127.0.0.1:%d/", port);
	cfg.server = url;
	cfg.ca_file = (char *)k->file;
	if (k->data && pai_file_read(&pem, &len, NULL, k->data) == 0) {
		cfg.ca_data = (unsigned char *)pem;
		cfg.ca_len = len;
	}
	if (!h || pai__kube_curl_setup(h, &to, &cfg, NULL, &e))
		return 2;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
	rc = curl_easy_perform(h);
	ret = rc == CURLE_OK ? 0 : rc == CURLE_PEER_FAILED_VERIFICATION ? 1 : 2;
	curl_easy_cleanup(h);
	curl_slist_free_all(to);
	free(pem);
	return ret;
}

static void test_kubeconfig_ca(void **state)
{
	struct kube_ca none = {NULL, NULL}, file = {NULL, NULL},
		       data = {NULL, NULL}, own = {NULL, NULL};

	(void)state;
	need();
	if (in_namespace(kube_get, &none) == 100) {
		fprintf(stderr, "test_trust: skipped: no mount namespace to "
				"give the machine a CA in\n");
		skip();
	}
	file.file = test_at(dir, "named.pem");
	data.data = test_at(dir, "named.pem");
	own.data = test_at(dir, "system.pem");
	assert_int_equal(in_namespace(kube_get, &none), 0);
	assert_int_equal(in_namespace(kube_get, &file), 1);
	assert_int_equal(in_namespace(kube_get, &data), 1);
	assert_int_equal(in_namespace(kube_get, &own), 0);
}

/* ---- a CA that cannot be the only one trusted: nothing sent ----------- */

static void on_any(void *data, const fake_request *rq, fake_reply *rp)
{
	(void)rq;
	(*(int *)data)++;
	fake_reply_set(rp, 200, "application/json", "{}");
}

static CURLcode (*real_setopt)(CURL *, CURLoption, ...);

/* libcurl as some builds are (a TLS backend without a CA directory):
 * CURLOPT_CAPATH refused, every other option passed on as its type is */
static CURLcode setopt_no_capath(CURL *h, CURLoption opt, ...)
{
	va_list ap;
	CURLcode rc;

	if (opt == CURLOPT_CAPATH)
		return CURLE_NOT_BUILT_IN;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = real_setopt(h, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
		rc = real_setopt(h, opt, va_arg(ap, void *));
	else if (opt < CURLOPTTYPE_OFF_T)
		rc = real_setopt(h, opt, va_arg(ap, void (*)(void)));
	else if (opt < CURLOPTTYPE_BLOB)
		rc = real_setopt(h, opt, va_arg(ap, curl_off_t));
	else
		rc = real_setopt(h, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

/* A GET of a client naming ca (http: the CA would not even be used):
 * its result, the client's detail in why. */
static int get_naming(fake_server *f, const char *ca, char *why, size_t len)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	pai_job_info *ji = NULL;
	char uri[64];
	int err;

	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u", fake_port(f));
	o.uri = uri;
	o.ca_file = ca;
	o.max_retries = 0;
	assert_int_equal(pai_client_new(&c, &o), PAI_OK);
	assert_int_equal(pai_client_set_api(c, PAI_API_V1), PAI_OK);
	err = pai_job_get(&ji, c, "alice", "j");
	snprintf(why, len, "%s", pai_client_error(c) ? pai_client_error(c) : "");
	pai_job_info_free(ji);
	pai_client_free(c);
	return err;
}

/* The CA file named cannot be read, or libcurl will not trust it alone:
 * the request fails, saying why (PAI_EACCES: paictl's exit 5), and
 * nothing reaches the server: libcurl's default bundle is never the
 * fallback. */
static void test_ca_refused(void **state)
{
	fake_server *f = NULL;
	char why[512], ca[128], want[256];
	int hits = 0;
	FILE *fp;

	(void)state;
	assert_int_equal(fake_start(&f, "127.0.0.1", on_any, &hits), 0);
	assert_int_equal(get_naming(f, "/nonexistent/ca.pem", why, sizeof(why)),
			 PAI_EACCES);
	assert_string_equal(why, "cannot read the CA file "
				 "'/nonexistent/ca.pem': No such file or "
				 "directory");
	assert_int_equal(get_naming(f, dir, why, sizeof(why)), PAI_EACCES);
	snprintf(want, sizeof(want),
		 "cannot read the CA file '%s': Is a directory", dir);
	assert_string_equal(why, want);

	snprintf(ca, sizeof(ca), "%s/any-ca.pem", dir);
	assert_non_null(fp = fopen(ca, "w"));
	fputs("-----BEGIN CERTIFICATE-----\n", fp);
	fclose(fp);
	real_setopt = pai__curl_fns.p_curl_easy_setopt;
	pai__curl_fns.p_curl_easy_setopt = setopt_no_capath;
	assert_int_equal(get_naming(f, ca, why, sizeof(why)), PAI_EACCES);
	pai__curl_fns.p_curl_easy_setopt = real_setopt;
	snprintf(want, sizeof(want),
		 "libcurl refused to trust the CA file '%s' alone: nothing "
		 "sent",
		 ca);
	assert_string_equal(why, want);
	/* and the file is fine where libcurl takes it: that GET is sent */
	assert_int_equal(get_naming(f, ca, why, sizeof(why)), PAI_EPROTOCOL);
	fake_lock(f);
	assert_int_equal(hits, 1);
	fake_unlock(f);
	fake_stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_openpai_cacert),
	    cmocka_unit_test(test_kubeconfig_ca),
	    cmocka_unit_test(test_ca_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
