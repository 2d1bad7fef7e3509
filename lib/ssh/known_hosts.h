/* known_hosts.h - the known_hosts file (OpenSSH's format) as ssh.c reads
 * and rewrites it; apart so that tests/fuzz can read untrusted files
 * through it. Not installed, not for cli/. */
#ifndef PAI_KNOWN_HOSTS_H
#define PAI_KNOWN_HOSTS_H

#include "sys/sys.h"

#include "sys/dl_ssh2.h"

/* The 1-based line of text (len bytes, any content) that records name:
 * its first field, split at commas, holds name. 0 when none does. */
unsigned pai__kh_line_of(const char *text, size_t len, const char *name);

/* Appends to b every line of text that does not record name, each
 * ending in '\n'. */
void pai__kh_without(pai__buf *b, const char *text, size_t len,
		     const char *name);

/* Reads into hosts each line of text libssh2 can parse; the others
 * (comments, broken lines, hashed names that cannot match) stay in the
 * file, unused. PAI_ENOMEM when out of memory. */
int pai__kh_load(LIBSSH2_KNOWNHOSTS *hosts, const char *text, size_t len);

#endif /* PAI_KNOWN_HOSTS_H */
