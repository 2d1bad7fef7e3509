/* sys.h - libpai's floor, which every other folder stands on: byte
 * buffers, memory in blocks, files and errors, digests and base64,
 * random bytes and the clock, secrets wiped; dl.h, dl_curl.h and
 * dl_ssh2.h add the libraries opened at run time. Not installed, not
 * for cli/. */
#ifndef PAI_SYS_H
#define PAI_SYS_H

#include "pai.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PAI__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PAI__PRINTF(f, a)
#endif

/* ---- digests (md5.c, sha1.c) ----------------------------------------- */

/* MD5 of data[0..len) as 32 lower-case hex digits and a NUL. */
void pai__md5_hex(char out[33], const void *data, size_t len);
/* SHA-1 of in[0..n) into out[20] (a WebSocket handshake's accept). */
void pai__sha1(unsigned char out[20], const void *in, size_t n);

/* ---- base64 (base64.c) ---------------------------------------------- */

/* Standard base64 with padding; out has room for 4 * ((n + 2) / 3) + 1
 * bytes, NUL-terminated. */
void pai__base64_encode(char *out, const void *in, size_t n);
/* Decodes standard base64 as Go's encoding/json decodes a []byte:
 * padding required, '\r' and '\n' skipped. *out new (NUL-terminated
 * for convenience), *len its length. PAI_EINVAL (no detail: the text
 * may be a secret), PAI_ENOMEM. */
int pai__base64_decode(unsigned char **out, size_t *len, const char *in,
		       size_t n);
/* Decodes base64url without padding (RFC 4648 §5, RFC 7515's, as a
 * JWT's parts are): only the url alphabet, no '='. *out new and
 * NUL-terminated, *len its length; PAI_EINVAL, PAI_ENOMEM. */
int pai__base64url_decode(unsigned char **out, size_t *len, const char *in,
			  size_t n);

/* ---- random bytes, the clock (random.c, clock.c) -------------------- */

/* n random bytes from getrandom(2): PAI_OK or PAI_ERROR. */
int pai__random(void *out, size_t n);
/* CLOCK_MONOTONIC in ms: what every timeout and backoff counts on. */
long long pai__now_ms(void);

/* ---- TCP keepalive (keepalive.c) ------------------------------------- */

/* Probes after this much silence, this far apart, this many before the
 * connection counts as dead: a peer gone without a word is noticed
 * within a minute. */
#define PAI__KEEPIDLE_S	 30
#define PAI__KEEPINTVL_S 10
#define PAI__KEEPCNT	 3

/* TCP keepalive on socket fd, with the limits above (a socket that is
 * not TCP's is left as it is). */
void pai__tcp_keepalive(int fd);

/* ---- secrets (secret.c) ---------------------------------------------- */

/* explicit_bzero: a wipe the compiler keeps, where memset before free()
 * may be removed. NULL or 0 bytes: nothing. */
void pai__wipe(void *p, size_t n);
/* A NUL-terminated secret (a token, a password) wiped, then freed;
 * NULL: nothing. */
void pai__free_secret(char *s);
/* The secret p (len bytes of it used, in a block of cap) copied into a
 * new block of new_cap bytes, then p wiped and freed: realloc would
 * leave the old copy behind in freed memory. NULL when out of memory
 * (p left as it was). */
void *pai__secret_grow(void *p, size_t len, size_t cap, size_t new_cap);

/* ---- growable byte buffer (buf.c) ----------------------------------- */

/* A failed allocation sets oom and turns later writes into no-ops, so a
 * caller checks once, at the end. data is always NUL-terminated when
 * len > 0 and oom is 0. */
typedef struct pai__buf {
	char *data;
	size_t len;
	size_t cap;
	int oom;
	/* it holds a secret (PAI__SECRET_BUF_INIT): wiped as it grows and
	 * when it is released */
	int secret;
} pai__buf;

#define PAI__BUF_INIT                                                          \
	{                                                                      \
		NULL, 0, 0, 0, 0                                               \
	}
#define PAI__SECRET_BUF_INIT                                                   \
	{                                                                      \
		NULL, 0, 0, 0, 1                                               \
	}

void pai__buf_put(pai__buf *b, const char *s, size_t n);
void pai__buf_puts(pai__buf *b, const char *s);
void pai__buf_putc(pai__buf *b, char c);
void pai__buf_printf(pai__buf *b, const char *fmt, ...) PAI__PRINTF(2, 3);
void pai__buf_vprintf(pai__buf *b, const char *fmt, va_list ap);
/* The contents as a new NUL-terminated string ("" when empty), or NULL
 * when an allocation failed; the buffer is left empty either way. */
char *pai__buf_detach(pai__buf *b);
/* Frees the contents (wiped first when b->secret); b stays usable. */
void pai__buf_release(pai__buf *b);
/* pai__buf_release() of a buffer that held a secret: all of it wiped
 * first (secret.c), whether or not it was made secret. */
void pai__buf_wipe(pai__buf *b);

/* s with every control character written as a JSON escape (\n, \u001b):
 * messages quote what a file holds, and a string such as
 * "\u001b]0;x\u0007" must not reach a terminal as it is. A new string,
 * or NULL when out of memory. */
char *pai__escape_controls(const char *s);

/* *out a copy of s, or NULL for a NULL s (an option left unset): 0, or
 * -1 when out of memory. */
int pai__strdup_opt(char **out, const char *s);

/* ---- memory in blocks (arena.c) ------------------------------------- */

/* Memory handed out in blocks and freed all at once: a position tree of
 * 50,000 nodes costs a few allocations, not 50,000. */
struct pai__arena;
void *pai__arena_alloc(struct pai__arena **arena, size_t n);
void pai__arena_free(struct pai__arena *arena);

/* ---- errors (error.c) ----------------------------------------------- */

/* The libpai error code for a system errno. */
int pai__from_errno(int e);

#endif /* PAI_SYS_H */
