/* convert.h - shared by convert.c, convert_v1v2.c, convert_v2v1.c and
 * yaml_emit.c; private to libpai */
#ifndef PAI_CONVERT_H
#define PAI_CONVERT_H

#include "runtime/runtime.h"

/* Rule ids of the conversion's own diagnostics. */
#define PAI__RULE_NO_V2 "convert-no-v2-equivalent"
#define PAI__RULE_NO_V1 "convert-no-v1-equivalent"
#define PAI__RULE_DROPPED "convert-dropped"
#define PAI__RULE_AUTH_FILE "convert-auth-file"
#define PAI__RULE_BEGIN_AT "convert-port-begin-at"
#define PAI__RULE_RETRY "convert-retry-count"
#define PAI__RULE_ENV_NAME "convert-env-name"
#define PAI__RULE_TEMPLATE "convert-template"

/* The separator of the output paths that key yaml comments: a byte that
 * no key of a valid config holds. */
#define PAI__YPATH_SEP '\x1f'

/* Writes doc (an object) as block-style YAML, 2-space indent, keys in the
 * object's order, every string quoted where js-yaml 3 would read it as
 * something else. comments (may be NULL) maps output paths (keys joined
 * with PAI__YPATH_SEP) to comment text, written as "# " lines before the
 * key; the path "" holds comments for the end of the document. */
int pai__yaml_emit(pai__buf *out, json_t *doc, json_t *comments);

/* Appends a comment (one or more lines) to comments[path]. */
int pai__ycomment_add(json_t *comments, const char *path, const char *text);

/* A jobEnvs value as the string a task sees (v1): strings verbatim,
 * null as "", anything else as compact JSON. New string; NULL on OOM. */
char *pai__env_string(json_t *v);

/* `s` quoted for bash so that it reads back as itself, and never holding
 * "<%" (the rest-server would take it for a template tag). */
void pai__shell_quote(pai__buf *b, const char *s);

/* v1 -> v2 (convert_v1v2.c): job is the parsed v1 job of text. */
int pai__convert_v1_to_v2(pai__buf *out, pai_diags *diags, const char *name,
			  const char *text, size_t len, const pai_job *job);

/* v2 -> v1 (convert_v2v1.c): job is the parsed v2 job of text. */
int pai__convert_v2_to_v1(pai__buf *out, pai_diags *diags, const char *name,
			  const char *text, size_t len, const pai_job *job);

/* The v1 JSON config of a loaded v2 document (convert_v2v1.c), with
 * diagnostics at the places of pos in src (pos and src may be NULL: no
 * places). *v1 is a new reference, NULL on refusal (PAI_EINVALID). */
int pai__v2_to_v1_json(json_t **v1, pai_diags *diags, pai__src *src,
		       const pai__pos *pos, json_t *root);

#endif
