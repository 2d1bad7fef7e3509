/* kube_path.c - paths in kubeconfig files: relative ones against the
 * folder of the file that named them (§1.2), cleaned as Go's
 * filepath.Join leaves them. */
#include "kube.h"

#include <stdlib.h>
#include <string.h>

/* Go's filepath.Clean on an absolute path, in place: "//", "." and
 * ".." resolved lexically, as client-go's filepath.Join leaves them. */
static void clean(char *p)
{
	char *out = p + 1, *seg = p + 1, *end;
	size_t n;
	int last;

	while (*seg) {
		end = strchrnul(seg, '/');
		n = (size_t)(end - seg);
		last = *end == '\0'; /* the '/' written below may cover it */
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			/* out ends with "segment/": drop that segment */
			if (out > p + 1)
				out--;
			while (out > p + 1 && out[-1] != '/')
				out--;
		} else if (n && !(n == 1 && seg[0] == '.')) {
			memmove(out, seg, n);
			out += n;
			*out++ = '/';
		}
		if (last)
			break;
		seg = end + 1;
	}
	if (out > p + 1)
		out--;
	*out = '\0';
}

int pai__kube_resolve(char **out, const char *dir, const char *path)
{
	pai__buf b = PAI__BUF_INIT;

	*out = NULL;
	if (path[0] != '/')
		pai__buf_printf(&b, "%s/", dir);
	pai__buf_puts(&b, path);
	*out = pai__buf_detach(&b);
	if (*out && (*out)[0] == '/')
		clean(*out);
	return *out ? PAI_OK : PAI_ENOMEM;
}
