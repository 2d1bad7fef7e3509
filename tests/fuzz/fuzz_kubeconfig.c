/* fuzz_kubeconfig.c - libFuzzer target for the kubeconfig reader
 * (lib/client/kube: kube_yaml.c, kube_config.c, kube_fields.c), which
 * reads whatever files $KUBECONFIG names. Built and run by `make fuzz`.
 *
 * Input: one file, or two separated by "\x1e" (the second in a
 * subfolder); each is loaded alone as --kubeconfig, and both as a
 * $KUBECONFIG merge in either order. Checks: a result among the codes
 * kube.h names, a one-line printable detail on failure, and for a
 * config that loads, what every caller relies on: a server that
 * pai__kube_server_split() takes, a valid namespace, absolute paths, a
 * plugin with a command and an apiVersion, never a CA together with
 * insecure-skip-tls-verify. */
#include "check.h"
#include "client/kube/kube.h"
#include "text/text.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void remove_dir(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/a", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/sub/b", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

static void put_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	close(fd);
}

static void check_line(const char *s)
{
	CHECK(*s);
	for (; *s; s++)
		CHECK((unsigned char)*s >= 0x20 && *s != 0x7f);
}

static void check_path(const char *p)
{
	CHECK(!p || p[0] == '/');
}

static void check_config(const pai__kube_config *c)
{
	pai__kube_server s;
	char *url = NULL;

	CHECK(c->server && c->namespace);
	CHECK(pai__dns_name(c->namespace, 63, 0));
	CHECK(pai__kube_server_split(&s, c->server) == PAI_OK);
	pai__kube_server_release(&s);
	CHECK(pai__kube_url(&url, c, "/api") == PAI_OK);
	free(url);
	CHECK(!(c->insecure && (c->ca_file || c->ca_data)));
	check_path(c->ca_file);
	check_path(c->cert_file);
	check_path(c->key_file);
	check_path(c->token_file);
	if (c->exec) {
		CHECK(c->exec->command && *c->exec->command);
		CHECK(c->exec->api_version);
		CHECK(!strchr(c->exec->command, '/') ||
		      c->exec->command[0] == '/');
	}
	CHECK(!c->nimpersonate_groups || c->impersonate);
}

static void load(const char *explicit, const char *env)
{
	static const int codes[] = {PAI_OK,	 PAI_ENOTFOUND, PAI_ESYNTAX,
				    PAI_EINVAL,	 PAI_EACCES,	PAI_EIO,
				    PAI_ETOOBIG, PAI_ENOMEM,	PAI_EISDIR};
	pai__kube_load_opts o = {0};
	pai__kube_config *c = (pai__kube_config *)&o;
	pai__kube_err e;
	size_t i;
	int err;

	o.kubeconfig = explicit;
	o.env_kubeconfig = env;
	o.home = "/nonexistent";
	e.msg[0] = '\0';
	err = pai__kube_config_load(&c, &o, &e);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (err == codes[i])
			break;
	CHECK(i < sizeof(codes) / sizeof(codes[0]));
	CHECK(!err == !!c);
	if (err && err != PAI_ENOMEM)
		check_line(e.msg);
	if (c)
		check_config(c);
	pai__kube_config_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, 0x1e, size);
	char a[96], b[96], env[256];

	if (!dir[0]) {
		strcpy(dir, access("/dev/shm", W_OK) == 0
				? "/dev/shm/fuzz_kubeconfig.XXXXXX"
				: "/tmp/fuzz_kubeconfig.XXXXXX");
		CHECK(mkdtemp(dir) != NULL);
		snprintf(a, sizeof(a), "%s/sub", dir);
		CHECK(mkdir(a, 0700) == 0);
		atexit(remove_dir);
	}
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/sub/b", dir);
	put_file(a, data, sep ? (size_t)(sep - data) : size);
	load(a, NULL);
	if (!sep)
		return 0;
	put_file(b, sep + 1, size - (size_t)(sep + 1 - data));
	load(b, NULL);
	snprintf(env, sizeof(env), "%s::%s:%s/missing", a, b, dir);
	load(NULL, env);
	snprintf(env, sizeof(env), "%s:%s:%s", b, a, b);
	load(NULL, env);
	return 0;
}
