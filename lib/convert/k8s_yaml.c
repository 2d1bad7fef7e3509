/* k8s_yaml.c - Kubernetes manifests written with libyaml's emitter: a
 * list of JSON documents as one YAML stream ("---" between objects).
 * Kubernetes reads YAML with go-yaml's 1.1-flavoured resolver, so a
 * string is written plain only when nothing there could take it for a
 * number, a boolean or null; otherwise it is quoted. Multi-line strings
 * (commands) are literal blocks where libyaml can keep them exact. */
#include "convert.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

static int out_write(void *data, unsigned char *buf, size_t size)
{
	pai__buf_put(data, (const char *)buf, size);
	return 1;
}

/* Words YAML 1.1 resolves to booleans or null, in any of their cases. */
static int special_word(const char *s)
{
	static const char *const w[] = {"y", "yes", "n", "no", "true",
					"false", "on", "off", "null", "~"};
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (strcasecmp(s, w[i]) == 0)
			return 1;
	return 0;
}

/* Plain only for a conservative set: a letter or '/' first, then
 * letters, digits and -_./:, no ": " or " #" inside, not a special word. */
static int plain_ok(const char *s)
{
	const char *p;

	if (!*s || special_word(s))
		return 0;
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	      *s == '/'))
		return 0;
	for (p = s; *p; p++)
		if (!pai__is_name_char((unsigned char)*p) &&
		    !strchr("-./", *p))
			return 0;
	return 1;
}

static int emit(yaml_emitter_t *em, yaml_event_t *ev)
{
	return yaml_emitter_emit(em, ev) ? PAI_OK : PAI_ENOMEM;
}

static int scalar(yaml_emitter_t *em, const char *s, int is_string)
{
	yaml_event_t ev;
	yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
	int plain = 1, quoted = 0;

	if (is_string) {
		if (strchr(s, '\n'))
			style = YAML_LITERAL_SCALAR_STYLE;
		else if (!plain_ok(s))
			style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		plain = style == YAML_PLAIN_SCALAR_STYLE;
		quoted = !plain;
	}
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
					  (yaml_char_t *)s, (int)strlen(s),
					  plain, quoted, style))
		return PAI_ENOMEM;
	return emit(em, &ev);
}

static int node(yaml_emitter_t *em, json_t *v);

static int mapping(yaml_emitter_t *em, json_t *v)
{
	yaml_event_t ev;
	const char *k;
	json_t *m;
	int err;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
					    YAML_BLOCK_MAPPING_STYLE);
	if ((err = emit(em, &ev)))
		return err;
	json_object_foreach(v, k, m)
	{
		if ((err = scalar(em, k, 1)) || (err = node(em, m)))
			return err;
	}
	yaml_mapping_end_event_initialize(&ev);
	return emit(em, &ev);
}

static int sequence(yaml_emitter_t *em, json_t *v)
{
	yaml_event_t ev;
	size_t i;
	json_t *m;
	int err;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
					     YAML_BLOCK_SEQUENCE_STYLE);
	if ((err = emit(em, &ev)))
		return err;
	json_array_foreach(v, i, m)
	{
		if ((err = node(em, m)))
			return err;
	}
	yaml_sequence_end_event_initialize(&ev);
	return emit(em, &ev);
}

static int node(yaml_emitter_t *em, json_t *v)
{
	char num[32];

	switch (json_typeof(v)) {
	case JSON_OBJECT: return mapping(em, v);
	case JSON_ARRAY: return sequence(em, v);
	case JSON_STRING: return scalar(em, json_string_value(v), 1);
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		return scalar(em, num, 0);
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		return scalar(em, num, 0);
	case JSON_TRUE: return scalar(em, "true", 0);
	case JSON_FALSE: return scalar(em, "false", 0);
	case JSON_NULL: return scalar(em, "null", 0);
	}
	return PAI_ERROR;
}

static int documents(yaml_emitter_t *em, json_t *docs)
{
	yaml_event_t ev;
	size_t i;
	json_t *d;
	int err;

	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if ((err = emit(em, &ev)))
		return err;
	json_array_foreach(docs, i, d)
	{
		yaml_document_start_event_initialize(&ev, NULL, NULL, NULL,
						     i == 0);
		if ((err = emit(em, &ev)) || (err = node(em, d)))
			return err;
		yaml_document_end_event_initialize(&ev, 1);
		if ((err = emit(em, &ev)))
			return err;
	}
	yaml_stream_end_event_initialize(&ev);
	return emit(em, &ev);
}

int pai__k8s_yaml(pai__buf *out, json_t *docs)
{
	yaml_emitter_t em;
	int err;

	if (!yaml_emitter_initialize(&em))
		return PAI_ENOMEM;
	yaml_emitter_set_output(&em, out_write, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_indent(&em, 2);
	err = documents(&em, docs);
	if (!err && !yaml_emitter_flush(&em))
		err = PAI_ENOMEM;
	if (err && em.error == YAML_EMITTER_ERROR)
		err = PAI_ERROR;
	yaml_emitter_delete(&em);
	return err;
}
