/* fuzz_profiles.c - libFuzzer target for paictl's own files, which a
 * user may edit by hand: the cluster profiles (config.json) and a stored
 * token. Built and run by `make fuzz`.
 *
 * Input: the file's bytes, written to a private temporary directory.
 * Checks: a result that is one of pai.h's codes, a one-line printable
 * reason on failure, and for a file that loads, a save and load that
 * give back the same profiles; a token that loads is one line. */
#include "check.h"
#include "pai.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

/* The temporary directory goes when the fuzzer ends. */
static void remove_dir(void)
{
	static const char *files[] = {"config.json", "again.json",
				      "tokens/c@u", "tokens"};
	char path[96];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		remove(path);
	}
	rmdir(dir);
}

static void put_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	close(fd);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_line(const char *s)
{
	for (; s && *s; s++)
		CHECK((unsigned char)*s >= 0x20 && *s != 0x7f);
}

/* Saved and loaded again, cfg is the same. */
static void round_trip(const pai_config *cfg)
{
	char path[96];
	pai_config *again = NULL;
	size_t i;

	snprintf(path, sizeof(path), "%s/again.json", dir);
	CHECK(pai_config_save(cfg, path) == PAI_OK);
	CHECK(pai_config_load(&again, NULL, path) == PAI_OK);
	CHECK(pai_config_count(again) == pai_config_count(cfg));
	CHECK(same(pai_config_current(again), pai_config_current(cfg)));
	for (i = 0; i < pai_config_count(cfg); i++) {
		const pai_profile *p = pai_config_get(cfg, i);
		const pai_profile *q = pai_config_find(again, p->name);

		CHECK(q && same(p->uri, q->uri) && same(p->user, q->user) &&
		      same(p->ca_file, q->ca_file) &&
		      p->dialect == q->dialect && p->api == q->api &&
		      p->insecure == q->insecure);
	}
	pai_config_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[96], *detail = NULL, *token = NULL;
	pai_config *cfg = NULL;
	int err;

	if (!dir[0]) {
		/* tmpfs where there is one: the saves fsync */
		strcpy(dir, access("/dev/shm", W_OK) == 0
				 ? "/dev/shm/fuzz_profiles.XXXXXX"
				 : "/tmp/fuzz_profiles.XXXXXX");
		CHECK(mkdtemp(dir) != NULL);
		snprintf(path, sizeof(path), "%s/tokens", dir);
		CHECK(mkdir(path, 0700) == 0);
		atexit(remove_dir);
	}
	snprintf(path, sizeof(path), "%s/config.json", dir);
	put_file(path, data, size);
	err = pai_config_load(&cfg, &detail, path);
	CHECK(err == PAI_OK || err == PAI_ESYNTAX || err == PAI_ENOMEM);
	CHECK(!err == !!cfg);
	check_line(detail);
	if (cfg)
		round_trip(cfg);
	pai_config_free(cfg);
	free(detail);

	snprintf(path, sizeof(path), "%s/tokens/c@u", dir);
	put_file(path, data, size);
	err = pai_token_load(&token, dir, "c", "u");
	CHECK(err == PAI_OK || err == PAI_ENOTFOUND);
	CHECK(!token || (*token && !strchr(token, '\n')));
	free(token);
	return 0;
}
