/* fuzz_yaml.c - libFuzzer target for the protocol-v2 YAML loader
 * (lib/text/yaml.c): the input is the YAML text. Built and run by `make
 * fuzz`, not by `make test`.
 *
 * Beyond "no crash, no leak, no undefined behaviour, no timeout" (the
 * loader bounds nesting and alias expansion), it checks the promises of
 * text/text.h: PAI_OK with a document and a position tree that mirrors
 * it (same keys in the same order, same lengths, offsets inside the
 * text), or PAI_ESYNTAX with an error diagnostic whose rule and message
 * are printable. */
#include "check.h"
#include "text/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The loader bounds the depth, so this recursion is bounded too. */
static void check_pos(const json_t *v, const pai__pos *p, size_t len)
{
	size_t i;
	const char *k;
	json_t *m;

	CHECK(p->off <= len && p->key_off <= len);
	CHECK(p->ykind <= PAI__YK_NONFINITE);
	if (p->ykind == PAI__YK_DATE || p->ykind == PAI__YK_BINARY)
		CHECK(json_is_object(v) && json_object_size(v) == 0);
	if (p->ykind == PAI__YK_NONFINITE)
		CHECK(json_is_real(v));
	if (json_is_array(v)) {
		CHECK(p->nchild == json_array_size(v));
		for (i = 0; i < p->nchild; i++)
			check_pos(json_array_get(v, i), &p->child[i], len);
		return;
	}
	if (!json_is_object(v) || p->ykind != PAI__YK_PLAIN) {
		CHECK(p->nchild == 0);
		return;
	}
	CHECK(p->nchild == json_object_size(v));
	i = 0;
	json_object_foreach((json_t *)v, k, m) {
		CHECK(p->child[i].key != NULL);
		/* a key with a NUL in it is cut short in the tree */
		CHECK(strncmp(p->child[i].key, k, strlen(p->child[i].key)) ==
		      0);
		check_pos(m, &p->child[i], len);
		i++;
	}
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pai_diags *d = NULL;
	pai__src src;
	pai__pos pos;
	json_t *root = NULL, *dj;
	const pai_diag *e;
	int err;

	memset(&pos, 0, sizeof(pos));
	CHECK(pai_diags_new(&d) == PAI_OK);
	err = pai__src_init_yaml(&src, d, "f.yaml", (const char *)data, size);
	if (!err)
		err = pai__yaml_parse(&root, &pos, &src, d);
	CHECK(err == PAI_OK || err == PAI_ESYNTAX);
	if (err == PAI_OK) {
		CHECK(root != NULL);
		CHECK(pai_diags_count(d) == 0);
		check_pos(root, &pos, size);
	} else {
		CHECK(root == NULL);
		CHECK(pai_diags_errors(d) == 1);
		e = pai_diags_get(d, 0);
		CHECK(e->rule && e->rule[0]);
		CHECK(printable(e->message));
		dj = pai_diags_to_json(d);
		CHECK(dj != NULL);
		json_decref(dj);
	}
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	pai_diags_free(d);
	return 0;
}
