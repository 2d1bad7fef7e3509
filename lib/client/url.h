/* url.h - URLs as the wire sees them (url.c): an escaped path segment,
 * a URL's scheme, host and port. Knows no handle. Not installed, not
 * for cli/. */
#ifndef PAI_URL_H
#define PAI_URL_H

#include "sys/sys.h"

/* "host" or "host:port" of url, new; NULL when it does not parse. */
char *pai__url_host(const char *url);

/* Scheme and host of url lowercased (both new), the port explicit.
 * PAI_EINVAL when url does not parse, PAI_ENOMEM. */
int pai__url_split(const char *url, char **scheme, char **host, long *port);

/* "scheme://host:port" of url (lowercased, port explicit), new.
 * PAI_EINVAL when url does not parse, PAI_ENOMEM. */
int pai__url_origin(char **out, const char *url);

/* Appends s to b percent-encoded as one path segment or query value. */
void pai__buf_put_escaped(pai__buf *b, const char *s);

#endif /* PAI_URL_H */
