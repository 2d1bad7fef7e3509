/* dl.c - libraries loaded when first needed: see dl.h. */
#define PAI__DL_LOADER 1 /* the tables by their members' names */
#include "dl.h"
#include "dl_curl.h"
#include "dl_ssh2.h"

#include <dlfcn.h>
#include <pthread.h>

/* Each table is filled through an array of its slots' addresses, in the
 * order of its names: the members are function pointers, which dlsym()
 * returns as void * (POSIX guarantees the conversion). */
#define NAME(f) #f,
#define SLOT(f) (void **)&table->p_##f,

static int fill(const char *soname, const char *const *names,
		void **const *slots, unsigned n)
{
	/* RTLD_LOCAL: the library's symbols stay out of the process's
	 * namespace, as a program that links libpai expects */
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	unsigned i;

	if (!h)
		return PAI_ERROR;
	for (i = 0; i < n; i++)
		if (!(*slots[i] = dlsym(h, names[i])))
			return PAI_ERROR; /* left open: nothing is called */
	return PAI_OK;
}

struct pai__curl_fns pai__curl_fns;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_err;

static void curl_open(void)
{
	static const char *const names[] = {PAI__CURL_FUNCS(NAME)};
	struct pai__curl_fns *table = &pai__curl_fns;
	void **const slots[] = {PAI__CURL_FUNCS(SLOT)};

	curl_err = fill(PAI_CURL_SONAME, names, slots,
			sizeof(names) / sizeof(names[0]));
}

int pai__curl_load(void)
{
	pthread_once(&curl_once, curl_open);
	return curl_err;
}

struct pai__ssh2_fns pai__ssh2_fns;
static pthread_once_t ssh2_once = PTHREAD_ONCE_INIT;
static int ssh2_err;

static void ssh2_open(void)
{
	static const char *const names[] = {PAI__SSH2_FUNCS(NAME)};
	struct pai__ssh2_fns *table = &pai__ssh2_fns;
	void **const slots[] = {PAI__SSH2_FUNCS(SLOT)};

	ssh2_err = fill(PAI_SSH2_SONAME, names, slots,
			sizeof(names) / sizeof(names[0]));
	/* libssh2_init is not thread-safe: here, once per process */
	if (!ssh2_err && pai__ssh2_fns.p_libssh2_init(0) != 0)
		ssh2_err = PAI_ERROR;
}

int pai__ssh2_load(void)
{
	pthread_once(&ssh2_once, ssh2_open);
	return ssh2_err;
}
