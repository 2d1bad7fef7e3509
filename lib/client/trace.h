/* trace.h - what -vv shows of the wire (trace.c): lines handed to the
 * caller's trace callback, secrets masked. Knows no handle. Not
 * installed, not for cli/. */
#ifndef PAI_TRACE_H
#define PAI_TRACE_H

#include "sys/sys.h"

/* The caller's callback (pai_client_options' trace and trace_data). */
typedef void (*pai__trace_fn)(void *data, const char *line);

/* Masks secrets in text for tracing: the values of "password" and
 * "token" members or form fields, and bearer tokens. New string. */
char *pai__mask_secrets(const char *text, size_t len);

/* Each line of s (headers, a body) to trace(data, line), after prefix,
 * its secrets masked; of a body at most 2048 bytes, and a note of the
 * rest; a body that holds a private key, a note of its size alone. */
void pai__trace_lines(pai__trace_fn trace, void *data, const char *prefix,
		      const char *s, size_t n);
void pai__trace_body(pai__trace_fn trace, void *data, const char *prefix,
		     const char *s, size_t n);
/* In place of a body that is a secret: "[N bytes of secret body not
 * shown]". */
void pai__trace_secret(pai__trace_fn trace, void *data, const char *prefix,
		       size_t n);

#endif /* PAI_TRACE_H */
