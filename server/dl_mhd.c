/* dl_mhd.c - libmicrohttpd, opened when the local cluster starts: see
 * dl_mhd.h. */
#define MHD_DL_LOADER 1 /* the table by its members' names */
#include "dl_mhd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct mhd_fns mhd_fns;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];

static void mhd_open(void)
{
	void *h = dlopen(PAI_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, sizeof(why), "%s", dlerror());
		return;
	}
	/* POSIX's way to set a function pointer from dlsym's void * */
#define MHD_LOAD(f)                                                            \
	if (!why[0] && !(*(void **)&mhd_fns.p_##f = dlsym(h, #f)))             \
		snprintf(why, sizeof(why), "%s: no %s", PAI_MHD_SONAME, #f);
	MHD_FUNCS(MHD_LOAD)
#undef MHD_LOAD
}

int srv_mhd_load(char *err, size_t errlen)
{
	pthread_once(&once, mhd_open);
	if (!why[0])
		return 0;
	snprintf(err, errlen, "cannot load libmicrohttpd: %s", why);
	return -1;
}
