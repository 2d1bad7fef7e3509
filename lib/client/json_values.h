/* json_values.h - JSON values as servers and files send them, and JSON text
 * that reads back as it was meant: the floor of lib/client, shared by
 * every file above. Not installed, not for cli/. */
#ifndef PAI_CLIENT_JSON_H
#define PAI_CLIENT_JSON_H

#include "sys/sys.h"

/* A string member, or NULL. */
const char *pai__json_str(json_t *o, const char *key);
/* The string member key of o (a password, a token) wiped in place, so
 * that json_decref frees no copy of the secret; none: nothing. */
void pai__json_wipe_str(json_t *o, const char *key);
/* json_dumps of o, which holds a secret: written into a buffer that is
 * wiped as it grows (jansson's own would be freed as it is). A new
 * string (free with pai__free_secret), or NULL when out of memory. */
char *pai__json_dumps_secret(const json_t *o, size_t flags);
/* An integer given as a number or a numeric string; 0 when neither. */
int pai__json_integer(json_t *v, long long *out);

/* Member key of o (a file's object) as a string into *v (borrowed):
 * absent or null is NULL; 0, or -1 for another type. */
int pai__json_str_member(const char **v, json_t *o, const char *key);
/* Sets member key of o to v when v is set (NULL: left out): 0, or -1
 * when out of memory. */
int pai__json_put_str(json_t *o, const char *key, const char *v);

/* json_loadb() that tells a lack of memory from bad text: PAI_OK with
 * *out new, PAI_ENOMEM, or PAI_ESYNTAX with *e saying where. */
int pai__json_loadb(json_t **out, json_error_t *e, const char *text, size_t len,
		    size_t flags);

/* json_dumps, checked: NULL when out of memory, never a text that does
 * not read back as json (jansson can lose bytes silently when an
 * allocation fails). Caller frees. */
char *pai__json_dumps(const json_t *json, size_t flags);

#endif /* PAI_CLIENT_JSON_H */
