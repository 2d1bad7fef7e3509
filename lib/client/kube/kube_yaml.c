/* kube_yaml.c - kubeconfig files as a small tree of libyaml's events.
 *
 * Not lib/text/yaml.c: that one loads protocol-v2 jobs as the OpenPAI
 * rest-server's js-yaml does (`yes` a string, dates become objects,
 * JSON values out), while client-go reads a kubeconfig with go-yaml v2
 * into typed Go fields: `insecure-skip-tls-verify: yes` is true there,
 * and a string field takes its scalar's text. So this tree keeps each
 * scalar's text and plainness, and the reader resolves by field type. */
#include "kube.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

const unsigned pai__kube_yaml_max_depth = 100;
const size_t pai__kube_yaml_max_nodes = 200000;

#define STR_TAG "tag:yaml.org,2002:str"

struct anchor {
	char *name;
	pai__kube_ynode *node; /* one reference held */
};

struct yp {
	yaml_parser_t p;
	const char *name;
	size_t nodes;
	struct anchor *anchors;
	size_t nanchors, capanchors;
	pai__kube_err *err;
};

void pai__kube_ynode_free(pai__kube_ynode *node)
{
	size_t i, n;

	if (!node || --node->refs > 0)
		return;
	n = node->type == PAI__KY_MAP ? 2 * node->n : node->n;
	for (i = 0; i < n; i++)
		pai__kube_ynode_free(node->kids[i]);
	free(node->kids);
	free(node->text);
	free(node);
}

static int fail_at(struct yp *y, int code, size_t line, const char *what)
{
	return pai__kube_fail(y->err, code, "%s:%zu: %s", y->name, line + 1,
			      what);
}

static int next_event(struct yp *y, yaml_event_t *ev)
{
	if (yaml_parser_parse(&y->p, ev))
		return PAI_OK;
	if (y->p.error == YAML_MEMORY_ERROR)
		return PAI_ENOMEM;
	return pai__kube_fail(y->err, PAI_ESYNTAX, "%s:%zu: %s%s%s", y->name,
			      y->p.problem_mark.line + 1,
			      y->p.problem ? y->p.problem : "not valid YAML",
			      y->p.context ? " " : "",
			      y->p.context ? y->p.context : "");
}

static pai__kube_ynode *new_node(struct yp *y, int type, const yaml_event_t *ev)
{
	pai__kube_ynode *n;

	if (++y->nodes > pai__kube_yaml_max_nodes)
		return NULL;
	if (!(n = calloc(1, sizeof(*n))))
		return NULL;
	n->type = type;
	n->refs = 1;
	n->line = (unsigned)ev->start_mark.line + 1;
	return n;
}

/* NULL with the error code in *code (node budget or memory). */
static pai__kube_ynode *scalar(struct yp *y, const yaml_event_t *ev, int *code)
{
	pai__kube_ynode *n = new_node(y, PAI__KY_SCALAR, ev);
	const char *tag = (const char *)ev->data.scalar.tag;

	*code = y->nodes > pai__kube_yaml_max_nodes ? PAI_ETOOBIG : PAI_ENOMEM;
	if (!n)
		return NULL;
	n->len = ev->data.scalar.length;
	n->text = malloc(n->len + 1);
	if (!n->text) {
		free(n);
		return NULL;
	}
	memcpy(n->text, ev->data.scalar.value, n->len);
	n->text[n->len] = '\0';
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		   !(tag && strcmp(tag, STR_TAG) == 0);
	return n;
}

/* Appends kid to n's kids; a map's count is of whole pairs. */
static int add_kid(pai__kube_ynode *n, pai__kube_ynode *kid, size_t *filled,
		   size_t *cap)
{
	pai__kube_ynode **k;

	if (*filled == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		if (!(k = realloc(n->kids, *cap * sizeof(*k))))
			return PAI_ENOMEM;
		n->kids = k;
	}
	n->kids[(*filled)++] = kid;
	n->n = n->type == PAI__KY_MAP ? *filled / 2 : *filled;
	return PAI_OK;
}

static int anchor_add(struct yp *y, const unsigned char *name,
		      pai__kube_ynode *node)
{
	struct anchor *a;

	if (y->nanchors == y->capanchors) {
		size_t cap = y->capanchors ? 2 * y->capanchors : 8;

		if (!(a = realloc(y->anchors, cap * sizeof(*a))))
			return PAI_ENOMEM;
		y->anchors = a;
		y->capanchors = cap;
	}
	a = &y->anchors[y->nanchors];
	if (!(a->name = strdup((const char *)name)))
		return PAI_ENOMEM;
	a->node = node;
	node->refs++;
	y->nanchors++;
	return PAI_OK;
}

/* A later anchor of the same name hides an earlier one (YAML 1.2 §7.1). */
static pai__kube_ynode *anchor_find(struct yp *y, const unsigned char *name)
{
	size_t i;

	for (i = y->nanchors; i-- > 0;)
		if (strcmp(y->anchors[i].name, (const char *)name) == 0)
			return y->anchors[i].node;
	return NULL;
}

static int parse_node(struct yp *y, yaml_event_t *ev, unsigned depth,
		      pai__kube_ynode **out);

/* The items of a sequence or mapping, up to its end event. */
static int parse_kids(struct yp *y, pai__kube_ynode *n, unsigned depth)
{
	yaml_event_t ev;
	pai__kube_ynode *kid;
	size_t cap = 0, filled = 0;
	int err;

	for (;;) {
		if ((err = next_event(y, &ev)))
			break;
		if (ev.type == YAML_SEQUENCE_END_EVENT ||
		    ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		kid = NULL;
		err = parse_node(y, &ev, depth + 1, &kid);
		yaml_event_delete(&ev);
		if (!err && (err = add_kid(n, kid, &filled, &cap)))
			pai__kube_ynode_free(kid);
		if (err)
			break;
	}
	/* a key whose value never came is not counted in n->n */
	if (err && n->type == PAI__KY_MAP && filled % 2)
		pai__kube_ynode_free(n->kids[filled - 1]);
	return err;
}

static int parse_collection(struct yp *y, yaml_event_t *ev, unsigned depth,
			    pai__kube_ynode **out)
{
	int map = ev->type == YAML_MAPPING_START_EVENT;
	pai__kube_ynode *n = new_node(y, map ? PAI__KY_MAP : PAI__KY_SEQ, ev);
	int err;

	if (!n)
		return y->nodes > pai__kube_yaml_max_nodes
			   ? fail_at(y, PAI_ETOOBIG, ev->start_mark.line,
				     "too many nodes")
			   : PAI_ENOMEM;
	if (depth >= pai__kube_yaml_max_depth) {
		pai__kube_ynode_free(n);
		return fail_at(y, PAI_ETOOBIG, ev->start_mark.line,
			       "nested too deeply");
	}
	if ((err = parse_kids(y, n, depth))) {
		pai__kube_ynode_free(n);
		return err;
	}
	*out = n;
	return PAI_OK;
}

static int parse_node(struct yp *y, yaml_event_t *ev, unsigned depth,
		      pai__kube_ynode **out)
{
	const unsigned char *anchor = NULL;
	int err = PAI_OK;

	*out = NULL;
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		if (!(*out = anchor_find(y, ev->data.alias.anchor)))
			return fail_at(y, PAI_ESYNTAX, ev->start_mark.line,
				       "unknown anchor");
		(*out)->refs++;
		return PAI_OK;
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		if (!(*out = scalar(y, ev, &err)))
			return err == PAI_ETOOBIG
				   ? fail_at(y, err, ev->start_mark.line,
					     "too many nodes")
				   : err;
		err = PAI_OK;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		anchor = ev->type == YAML_SEQUENCE_START_EVENT
			     ? ev->data.sequence_start.anchor
			     : ev->data.mapping_start.anchor;
		if ((err = parse_collection(y, ev, depth, out)))
			return err;
		break;
	default:
		return fail_at(y, PAI_ESYNTAX, ev->start_mark.line,
			       "unexpected event");
	}
	if (anchor && (err = anchor_add(y, anchor, *out))) {
		pai__kube_ynode_free(*out);
		*out = NULL;
	}
	return err;
}

/* Events up to the first document's root node (or the stream's end). */
static int parse_document(struct yp *y, pai__kube_ynode **out)
{
	yaml_event_t ev;
	int err;

	while (!(err = next_event(y, &ev))) {
		if (ev.type == YAML_STREAM_START_EVENT ||
		    ev.type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (ev.type != YAML_STREAM_END_EVENT)
			err = parse_node(y, &ev, 0, out);
		yaml_event_delete(&ev);
		break;
	}
	/* go-yaml stops after the first document too: later ones are not
	 * read, nor their errors found */
	return err;
}

int pai__kube_yaml_parse(pai__kube_ynode **out, const char *name,
			 const char *text, size_t len, pai__kube_err *err)
{
	struct yp y;
	int ret;
	size_t i;

	*out = NULL;
	memset(&y, 0, sizeof(y));
	y.name = name;
	y.err = err;
	if (!yaml_parser_initialize(&y.p))
		return PAI_ENOMEM;
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	ret = parse_document(&y, out);
	yaml_parser_delete(&y.p);
	for (i = 0; i < y.nanchors; i++) {
		free(y.anchors[i].name);
		pai__kube_ynode_free(y.anchors[i].node);
	}
	free(y.anchors);
	return ret;
}

/* ---- reading the tree --------------------------------------------------- */

const pai__kube_ynode *pai__kube_yget(const pai__kube_ynode *map,
				      const char *key)
{
	size_t i, n = strlen(key);

	if (!map || map->type != PAI__KY_MAP)
		return NULL;
	for (i = map->n; i-- > 0;) {
		const pai__kube_ynode *k = map->kids[2 * i];

		if (k->type == PAI__KY_SCALAR && k->len == n &&
		    memcmp(k->text, key, n) == 0)
			return map->kids[2 * i + 1];
	}
	return NULL;
}

static int is_one_of(const pai__kube_ynode *node, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(node->text, *words) == 0)
			return 1;
	return 0;
}

int pai__kube_ynull(const pai__kube_ynode *node)
{
	static const char *const nulls[] = {"",	    "~",    "null",
					    "Null", "NULL", NULL};

	return !node || (node->type == PAI__KY_SCALAR && node->plain &&
			 is_one_of(node, nulls));
}

int pai__kube_ybool(const pai__kube_ynode *node, int *out)
{
	static const char *const yes[] = {"y",	 "Y",	 "yes",	 "Yes",
					  "YES", "true", "True", "TRUE",
					  "on",	 "On",	 "ON",	 NULL};
	static const char *const no[] = {"n",	"N",	 "no",	  "No",
					 "NO",	"false", "False", "FALSE",
					 "off", "Off",	 "OFF",	  NULL};

	if (!node || node->type != PAI__KY_SCALAR || !node->plain)
		return PAI_EINVAL;
	if (is_one_of(node, yes))
		*out = 1;
	else if (is_one_of(node, no))
		*out = 0;
	else
		return PAI_EINVAL;
	return PAI_OK;
}

int pai__kube_ystr(char **out, const pai__kube_ynode *map, const char *key,
		   const char *file, pai__kube_err *err)
{
	const pai__kube_ynode *v = pai__kube_yget(map, key);

	*out = NULL;
	if (pai__kube_ynull(v))
		return PAI_OK;
	if (v->type != PAI__KY_SCALAR || strlen(v->text) != v->len)
		return pai__kube_fail(err, PAI_ESYNTAX,
				      "%s:%u: %s must be a string", file,
				      v->line, key);
	if (v->len == 0)
		return PAI_OK;
	return (*out = strdup(v->text)) ? PAI_OK : PAI_ENOMEM;
}

/* ---- as JSON ------------------------------------------------------------ */

/* go-yaml v2's float form: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)
 * ([eE][-+]?[0-9]+)? */
static int float_form(const char *s)
{
	size_t i = s[0] == '-' || s[0] == '+', lead, frac = 0, exp;

	lead = strspn(s + i, "0123456789");
	i += lead;
	if (s[i] == '.') {
		frac = strspn(s + i + 1, "0123456789");
		i += 1 + frac;
	}
	if (lead == 0 && frac == 0)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		i += 1 + (s[i + 1] == '-' || s[i + 1] == '+');
		if (!(exp = strspn(s + i, "0123456789")))
			return 0;
		i += exp;
	}
	return s[i] == '\0';
}

/* A plain scalar that go-yaml v2 reads as a number (Go's ParseInt with
 * base 0: 0x, 0o, 0b, 0-octal, '_' separators; then floats): 1 with *iv,
 * 2 with *dv, or 0. */
static int number(const char *s, long long *iv, double *dv)
{
	char c[64], *end;
	const char *d, *dig;
	size_t i, k = 0;
	int base = 10;

	for (i = 0; s[i] && k + 1 < sizeof(c); i++)
		if (s[i] != '_')
			c[k++] = s[i];
	if (s[i] || k == 0)
		return 0;
	c[k] = '\0';
	d = dig = c + (c[0] == '-' || c[0] == '+');
	if (d[0] == '0' && d[1] && strchr("xXoObB", d[1])) {
		base = strchr("xX", d[1]) ? 16 : strchr("oO", d[1]) ? 8 : 2;
		dig = d + 2;
	} else if (d[0] == '0' && d[1])
		base = 8;
	if (*dig && strspn(dig, "0123456789abcdefABCDEF") == strlen(dig)) {
		errno = 0;
		*iv = strtoll(dig, &end, base);
		if (*end == '\0' && errno == 0) {
			*iv = c[0] == '-' ? -*iv : *iv;
			return 1;
		}
	}
	if (!float_form(c))
		return 0;
	*dv = strtod(c, NULL);
	return 2;
}

static json_t *yjson_scalar(const pai__kube_ynode *node)
{
	long long iv = 0;
	double dv = 0;
	int b, kind;

	if (pai__kube_ynull(node))
		return json_null();
	if (pai__kube_ybool(node, &b) == PAI_OK)
		return json_boolean(b);
	kind = node->plain ? number(node->text, &iv, &dv) : 0;
	if (kind == 1)
		return json_integer(iv);
	if (kind == 2)
		return json_real(dv);
	return json_stringn_nocheck(node->text, node->len);
}

static json_t *yjson(const pai__kube_ynode *node, size_t *budget)
{
	json_t *j, *kid;
	size_t i;

	if (*budget == 0)
		return NULL;
	(*budget)--;
	if (node->type == PAI__KY_SCALAR)
		return yjson_scalar(node);
	j = node->type == PAI__KY_MAP ? json_object() : json_array();
	for (i = 0; j && i < node->n; i++) {
		const pai__kube_ynode *k;

		if (node->type == PAI__KY_SEQ) {
			kid = yjson(node->kids[i], budget);
			if (json_array_append_new(j, kid))
				goto fail;
			continue;
		}
		/* JSON has only string keys, as sigs.k8s.io/yaml's output */
		k = node->kids[2 * i];
		if (k->type != PAI__KY_SCALAR)
			continue;
		kid = yjson(node->kids[2 * i + 1], budget);
		if (!kid ||
		    json_object_setn_new_nocheck(j, k->text, k->len, kid))
			goto fail;
	}
	return j;
fail:
	json_decref(j);
	return NULL;
}

json_t *pai__kube_yjson(const pai__kube_ynode *node)
{
	size_t budget = pai__kube_yaml_max_nodes;

	return node ? yjson(node, &budget) : json_null();
}
