/* fuzz_known_hosts.c - libFuzzer target for reading a known_hosts file
 * (lib/known_hosts.c, through libssh2's parser): any bytes, as a file
 * the user or another program wrote. Built and run by `make fuzz`.
 *
 * Input: byte 0 picks the name looked up, the rest is the file. Checks:
 * the file loads and a key checks against it without crashing; a new
 * key is recorded as a line that names it; the line found for a name
 * records it; the file without the name's lines has
 * none left and loses no other line. */
#include "check.h"
#include "ssh/known_hosts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t lines(const char *t, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += t[i] == '\n';
	return n + (len && t[len - 1] != '\n');
}

/* An ssh-ed25519 public key blob, as a server sends it. */
static size_t ed25519_blob(char *b)
{
	static const char type[] = "ssh-ed25519";
	size_t n = 0, i;

	memcpy(b, "\0\0\0\x0b", 4);
	memcpy(b + 4, type, 11);
	memcpy(b + 15, "\0\0\0\x20", 4);
	n = 19;
	for (i = 0; i < 32; i++)
		b[n++] = (char)(i * 7 + 1);
	return n;
}

/* As ssh.c records a new key: added under name and written as a line. */
static void record(LIBSSH2_KNOWNHOSTS *hosts, const char *name,
		   const char *key, size_t klen)
{
	struct libssh2_knownhost *node = NULL;
	char line[4096];
	size_t out = 0;
	int r = libssh2_knownhost_addc(hosts, name, NULL, key, klen, "paictl",
				       6,
				       LIBSSH2_KNOWNHOST_TYPE_PLAIN |
					   LIBSSH2_KNOWNHOST_KEYENC_RAW |
					   LIBSSH2_KNOWNHOST_KEY_ED25519,
				       &node);

	if (r == 0)
		r = libssh2_knownhost_writeline(hosts, node, line,
						sizeof(line) - 1, &out,
						LIBSSH2_KNOWNHOST_FILE_OPENSSH);
	CHECK(r == 0 && out < sizeof(line));
	line[out] = '\0';
	CHECK(pai__kh_line_of(line, out, name) == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = {"[127.0.0.1]:2222", "127.0.0.1",
				      "container_e01_000001", "pai.test"};
	static LIBSSH2_SESSION *session;
	const char *text = (const char *)data + 1, *name;
	LIBSSH2_KNOWNHOSTS *hosts;
	struct libssh2_knownhost *found = NULL;
	pai__buf b = PAI__BUF_INIT;
	char key[64];
	size_t len, klen = ed25519_blob(key);
	unsigned ln;

	if (size < 1)
		return 0;
	/* libpai opens libssh2 when first needed (lib/dl.h) */
	CHECK(pai__ssh2_load() == PAI_OK);
	if (!session && !(session = libssh2_session_init()))
		return 0;
	name = names[data[0] % 4];
	len = size - 1;
	hosts = libssh2_knownhost_init(session);
	if (!hosts)
		return 0;
	pai__kh_load(hosts, text, len);
	(void)libssh2_knownhost_checkp(hosts, name, -1, key, klen,
				       LIBSSH2_KNOWNHOST_TYPE_PLAIN |
					   LIBSSH2_KNOWNHOST_KEYENC_RAW |
					   LIBSSH2_KNOWNHOST_KEY_ED25519,
				       &found);
	record(hosts, name, key, klen);
	libssh2_knownhost_free(hosts);

	ln = pai__kh_line_of(text, len, name);
	CHECK(ln <= lines(text, len));
	pai__kh_without(&b, text, len, name);
	if (!b.oom) {
		CHECK(pai__kh_line_of(b.data ? b.data : "", b.len, name) == 0);
		CHECK(lines(b.data ? b.data : "", b.len) + (ln > 0) <=
		      lines(text, len));
		if (!ln)
			CHECK(lines(b.data ? b.data : "", b.len) ==
			      lines(text, len));
	}
	pai__buf_release(&b);
	return 0;
}
