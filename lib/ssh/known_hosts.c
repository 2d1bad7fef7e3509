/* known_hosts.c - reading and filtering known_hosts text (see
 * known_hosts.h). */
#include "known_hosts.h"

#include <string.h>

/* Whether line (len bytes) records a key for name: its first field,
 * split at commas, holds name. */
static int line_names(const char *line, size_t len, const char *name)
{
	size_t nl = strlen(name), i = 0, start;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < len && line[i] == '#')
		return 0;
	start = i;
	for (;; i++) {
		if (i == len || line[i] == ',' || line[i] == ' ' ||
		    line[i] == '\t') {
			if (i - start == nl &&
			    memcmp(line + start, name, nl) == 0)
				return 1;
			if (i == len || line[i] != ',')
				return 0;
			start = i + 1;
		}
	}
}

unsigned pai__kh_line_of(const char *text, size_t len, const char *name)
{
	size_t off = 0;
	unsigned line = 1;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (line_names(text + off, end - off, name))
			return line;
		off = end + 1;
		line++;
	}
	return 0;
}

void pai__kh_without(pai__buf *b, const char *text, size_t len,
		     const char *name)
{
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (!line_names(text + off, end - off, name)) {
			pai__buf_put(b, text + off, end - off);
			pai__buf_putc(b, '\n');
		}
		off = end + 1;
	}
}

#define B64                                                                    \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/* n characters of base64 for SHA-1's 20 bytes: 27 of the alphabet and
 * one '='. */
static int is_b64_20(const char *s, size_t n)
{
	size_t i;

	if (n != 28 || s[27] != '=')
		return 0;
	for (i = 0; i < 27; i++)
		if (!s[i] || !strchr(B64, s[i]))
			return 0;
	return 1;
}

/* A hashed name ("|1|salt|hash", as ssh-keygen -H writes it: both 20
 * bytes) of another shape: such a line never matches, and libssh2 1.10
 * mishandles some (an HMAC context leaked at each check against a short
 * hash; an empty salt read past its end). */
static int bad_hash(const char *line, size_t len)
{
	const char *salt, *salt_end, *hash, *end, *p;

	while (len && (*line == ' ' || *line == '\t')) { /* as libssh2 */
		line++;
		len--;
	}
	if (len < 3 || memcmp(line, "|1|", 3) != 0)
		return 0;
	end = line + len;
	salt = line + 3;
	salt_end = memchr(salt, '|', (size_t)(end - salt));
	if (!salt_end)
		return 1;
	hash = salt_end + 1;
	for (p = hash; p < end && *p != ' ' && *p != '\t'; p++)
		;
	return !is_b64_20(salt, (size_t)(salt_end - salt)) ||
	       !is_b64_20(hash, (size_t)(p - hash));
}

int pai__kh_load(LIBSSH2_KNOWNHOSTS *hosts, const char *text, size_t len)
{
	pai__buf line = PAI__BUF_INIT;
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t end = nl ? (size_t)(nl - text) : len;

		/* libssh2 calls strlen() on parts of the line it is given,
		 * whatever its length says: each gets a copy of its own,
		 * NUL-terminated, so that it cannot read on into the next
		 * line or past the end of the text */
		if (end > off && !bad_hash(text + off, end - off)) {
			line.len = 0;
			pai__buf_put(&line, text + off, end - off);
			if (line.oom)
				break;
			libssh2_knownhost_readline(
			    hosts, line.data, line.len,
			    LIBSSH2_KNOWNHOST_FILE_OPENSSH);
		}
		off = end + 1;
	}
	if (line.oom) {
		pai__buf_release(&line);
		return PAI_ENOMEM;
	}
	pai__buf_release(&line);
	return PAI_OK;
}
