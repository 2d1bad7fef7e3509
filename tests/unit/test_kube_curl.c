/* test_kube_curl.c - pai__kube_curl_setup() against a real TLS server
 * (openssl s_server on 127.0.0.1, certificates made by the test): a CA
 * from -data and from a file, client certificates from -data, files
 * and a plugin, tls-server-name through CONNECT_TO, a name mismatch, no
 * CA, insecure-skip-tls-verify; and the headers every request carries.
 * Skipped, saying so, where there is no openssl program. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "client/kube/kube.h"
#include "sys/dl_curl.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];
static int port;
static pid_t server;

/* A CA, a server certificate for "kubernetes" only, a client's. */
static int make_certs(void)
{
	return test_sh(
	    "cd '%s' && for n in ca srv cli; do openssl req -newkey ec "
	    "-pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $n.key "
	    "-out $n.csr -subj /CN=$n 2>/dev/null || exit 1; done && "
	    "openssl x509 -req -in ca.csr -signkey ca.key -out ca.pem "
	    "-days 2 -extfile /dev/stdin 2>/dev/null <<EOF &&\n"
	    "basicConstraints=critical,CA:true\nkeyUsage=keyCertSign\n"
	    "EOF\n"
	    "echo subjectAltName=DNS:kubernetes > srv.ext && "
	    "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key "
	    "-CAcreateserial -out srv.pem -days 2 -extfile srv.ext "
	    "2>/dev/null && openssl x509 -req -in cli.csr -CA ca.pem "
	    "-CAkey ca.key -CAcreateserial -out cli.pem -days 2 "
	    "2>/dev/null",
	    dir);
}

/* s_server -www answers any GET with a page; -Verify 1 wants the
 * client's certificate. */
static int setup(void **state)
{
	static const char *const verify[] = {"-CAfile", "ca.pem", "-Verify",
					     "1", NULL};

	(void)state;
	server = test_s_server(dir, &port, verify);
	return pai__curl_load() == PAI_OK && server > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	return test_sh("rm -rf '%s'", dir) == 0 ? 0 : -1;
}

static pai__kube_config *config(const char *cluster, const char *user)
{
	pai__kube_load_opts o = {0};
	pai__kube_config *c = NULL;
	pai__kube_err e;
	FILE *f = fopen(test_at(dir, "kubeconfig"), "w");

	fprintf(f,
		"clusters:\n- name: c\n  cluster:\n    server: "
		"https://127.0.0.1:%d\n%s"
		"users:\n- name: u\n  user:\n%s"
		"contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		"current-context: x\n",
		port, cluster, user);
	fclose(f);
	o.kubeconfig = test_at(dir, "kubeconfig");
	if (pai__kube_config_load(&c, &o, &e))
		fail_msg("%s", e.msg);
	return c;
}

/* "key: <base64 of file>\n" as a kubeconfig line. */
static char *data_line(const char *key, const char *file)
{
	static char line[2][8192];
	static int k;
	char *text = NULL, *b64;
	size_t len;

	assert_int_equal(pai_file_read(&text, &len, NULL, test_at(dir, file)),
			 PAI_OK);
	b64 = malloc(len * 2 + 4);
	pai__base64_encode(b64, text, len);
	k = !k;
	snprintf(line[k], sizeof(line[k]), "    %s: %s\n", key, b64);
	free(text);
	free(b64);
	return line[k];
}

static size_t discard(char *p, size_t size, size_t n, void *data)
{
	(void)p;
	(void)data;
	return size * n;
}

/* A GET of / with cfg: curl's result, and the status into *status. */
static CURLcode get(const pai__kube_config *cfg, const pai__kube_auth *auth,
		    long *status)
{
	CURL *h = curl_easy_init();
	struct curl_slist *to = NULL;
	char *url = NULL;
	pai__kube_err e;
	CURLcode rc;

	*status = 0;
	assert_int_equal(pai__kube_curl_setup(h, &to, cfg, auth, &e), PAI_OK);
	assert_int_equal(pai__kube_url(&url, cfg, "/"), PAI_OK);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(h);
	curl_slist_free_all(to);
	free(url);
	return rc;
}

static void expect(const char *cluster, const char *user,
		   const pai__kube_auth *auth, int ok)
{
	pai__kube_config *c = config(cluster, user);
	long status;
	CURLcode rc = get(c, auth, &status);

	if (ok && (rc != CURLE_OK || status != 200))
		fail_msg("%s: %ld", curl_easy_strerror(rc), status);
	if (!ok && rc == CURLE_OK)
		fail_msg("connected, and should not have");
	pai__kube_config_free(c);
}

static void test_tls(void **state)
{
	char ca[8192], name[64], both[16384], cert_files[8192];
	char *cert = NULL, *key = NULL;
	pai__kube_auth a = {0};
	size_t cl, kl;

	(void)state;
	snprintf(ca, sizeof(ca), "%s",
		 data_line("certificate-authority-data", "ca.pem"));
	snprintf(name, sizeof(name), "    tls-server-name: kubernetes\n");
	snprintf(both, sizeof(both), "%s%s", ca, name);
	snprintf(cert_files, sizeof(cert_files),
		 "    client-certificate: cli.pem\n"
		 "    client-key: %s\n",
		 test_at(dir, "cli.key"));
	/* the name in the certificate is the TLS name, not the address */
	expect(both, cert_files, NULL, 1);
	expect(ca, cert_files, NULL, 0);
	expect(name, cert_files, NULL, 0); /* no CA: the system's roots */
	expect("    certificate-authority: ca.pem\n"
	       "    tls-server-name: kubernetes\n",
	       cert_files, NULL, 1);
	expect("    insecure-skip-tls-verify: true\n", cert_files, NULL, 1);
	/* client certificates as -data, and none at all */
	snprintf(cert_files, sizeof(cert_files), "%s",
		 data_line("client-certificate-data", "cli.pem"));
	snprintf(ca, sizeof(ca), "%s%s", cert_files,
		 data_line("client-key-data", "cli.key"));
	expect(both, ca, NULL, 1);
	expect(both, "    token: t\n", NULL, 0);
	/* a plugin's certificate and key win */
	assert_int_equal(
	    pai_file_read(&cert, &cl, NULL, test_at(dir, "cli.pem")), 0);
	assert_int_equal(
	    pai_file_read(&key, &kl, NULL, test_at(dir, "cli.key")), 0);
	a.cert = (unsigned char *)cert;
	a.cert_len = cl;
	a.key = (unsigned char *)key;
	a.key_len = kl;
	expect(both, "    token: t\n", &a, 1);
	free(cert);
	free(key);
}

static void test_headers(void **state)
{
	pai__kube_config *c = config("    tls-server-name: kubernetes\n",
				     "    as: alice\n    as-groups: [a, b]\n");
	pai__kube_auth a = {0};
	struct curl_slist *l = NULL, *i;
	pai__buf b = PAI__BUF_INIT;
	char want[1024], host[64];

	(void)state;
	a.authorization = "Bearer tok";
	assert_int_equal(pai__kube_headers(&l, c, &a), PAI_OK);
	for (i = l; i; i = i->next)
		pai__buf_printf(&b, "%s\n", i->data);
	snprintf(host, sizeof(host), "127.0.0.1:%d", port);
	snprintf(want, sizeof(want),
		 "Authorization: Bearer tok\nImpersonate-User: alice\n"
		 "Impersonate-Group: a\nImpersonate-Group: b\nHost: %s\n",
		 host);
	assert_string_equal(b.data, want);
	pai__buf_release(&b);
	assert_int_equal(pai__kube_header_text(&b, c, &a), PAI_OK);
	assert_null(strstr(b.data, "Host:"));
	assert_non_null(strstr(b.data, "Impersonate-Group: b\r\n"));
	pai__buf_release(&b);
	/* a value with a line break adds nothing */
	a.authorization = "Bearer x\r\nEvil: 1";
	assert_int_equal(pai__kube_headers(&l, c, &a), PAI_EINVAL);
	assert_int_equal(pai__kube_header_text(&b, c, &a), PAI_EINVAL);
	assert_int_equal(b.len, 0);
	curl_slist_free_all(l);
	pai__kube_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tls),
	    cmocka_unit_test(test_headers),
	};

	snprintf(dir, sizeof(dir), "/tmp/kubecurl-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (system("command -v openssl >/dev/null") != 0 || make_certs()) {
		printf("test_kube_curl: skipped: no openssl program to make "
		       "certificates and serve TLS\n");
		test_sh("rm -rf '%s'", dir);
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
