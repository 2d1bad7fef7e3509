/* v2_full.c - bench only: load and validate a protocol-v2 file with
 * every step paictl runs, less the 100 KiB body limit, so that a config
 * far larger than any server takes can still be timed (bench/v2.sh).
 * Exit 0 when the server would accept it, 3 when not, 1 on failure. */
#include "job/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	pai__src src;
	pai__pos pos;
	pai_diags *diags = NULL;
	json_t *root = NULL, *checked = NULL;
	char *text = NULL;
	size_t len = 0;
	int err, st = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: v2_full FILE\n");
		return 2;
	}
	memset(&pos, 0, sizeof(pos));
	memset(&src, 0, sizeof(src));
	if (pai_file_read(&text, &len, NULL, argv[1]) || pai_diags_new(&diags))
		goto out;
	err = pai__src_init_yaml(&src, diags, argv[1], text, len);
	if (!err)
		err = pai__yaml_parse(&root, &pos, &src, diags);
	if (!err)
		err = pai__validate_v2(&checked, diags, &src, &pos, root,
				       PAI_SCHEDULER_HIVED);
	if (err == PAI_OK)
		st = 0;
	else if (err == PAI_ESYNTAX || err == PAI_EINVALID)
		st = 3;
out:
	json_decref(checked);
	json_decref(root);
	pai__pos_release(&pos);
	pai__src_release(&src);
	pai_diags_free(diags);
	free(text);
	return st;
}
