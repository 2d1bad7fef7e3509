/* dl_curl.h - libcurl, opened when first needed (dl.h): include this
 * instead of <curl/curl.h>, and call pai__curl_load() before any curl_
 * function. */
#ifndef PAI_DL_CURL_H
#define PAI_DL_CURL_H

#include "dl.h"
#include "sys.h"

/* curl_easy_setopt's type-checking macro would hide the function */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#ifndef PAI_CURL_SONAME
#define PAI_CURL_SONAME "libcurl.so.4"
#endif

#define PAI__CURL_FUNCS(X)                                                     \
	X(curl_easy_cleanup)                                                   \
	X(curl_easy_getinfo)                                                   \
	X(curl_easy_init)                                                      \
	X(curl_easy_perform)                                                   \
	X(curl_easy_recv)                                                      \
	X(curl_easy_reset)                                                     \
	X(curl_easy_send)                                                      \
	X(curl_easy_setopt)                                                    \
	X(curl_easy_strerror)                                                  \
	X(curl_free)                                                           \
	X(curl_multi_add_handle)                                               \
	X(curl_multi_cleanup)                                                  \
	X(curl_multi_info_read)                                                \
	X(curl_multi_init)                                                     \
	X(curl_multi_perform)                                                  \
	X(curl_multi_poll)                                                     \
	X(curl_multi_remove_handle)                                            \
	X(curl_slist_append)                                                   \
	X(curl_slist_free_all)                                                 \
	X(curl_url)                                                            \
	X(curl_url_cleanup)                                                    \
	X(curl_url_get)                                                        \
	X(curl_url_set)

struct pai__curl_fns {
	PAI__CURL_FUNCS(PAI__DL_MEMBER)
};
extern struct pai__curl_fns pai__curl_fns;

/* Opens libcurl, once: PAI_OK, or PAI_ERROR. */
int pai__curl_load(void);

/* the names, for every file but the one that fills the table */
#ifndef PAI__DL_LOADER
/* curl.h makes these two function-like macros of themselves */
#undef curl_easy_getinfo
#undef curl_easy_setopt
#define curl_easy_cleanup (pai__curl_fns.p_curl_easy_cleanup)
#define curl_easy_getinfo (pai__curl_fns.p_curl_easy_getinfo)
#define curl_easy_init (pai__curl_fns.p_curl_easy_init)
#define curl_easy_perform (pai__curl_fns.p_curl_easy_perform)
#define curl_easy_recv (pai__curl_fns.p_curl_easy_recv)
#define curl_easy_reset (pai__curl_fns.p_curl_easy_reset)
#define curl_easy_send (pai__curl_fns.p_curl_easy_send)
#define curl_easy_setopt (pai__curl_fns.p_curl_easy_setopt)
#define curl_easy_strerror (pai__curl_fns.p_curl_easy_strerror)
#define curl_free (pai__curl_fns.p_curl_free)
#define curl_multi_add_handle (pai__curl_fns.p_curl_multi_add_handle)
#define curl_multi_cleanup (pai__curl_fns.p_curl_multi_cleanup)
#define curl_multi_info_read (pai__curl_fns.p_curl_multi_info_read)
#define curl_multi_init (pai__curl_fns.p_curl_multi_init)
#define curl_multi_perform (pai__curl_fns.p_curl_multi_perform)
#define curl_multi_poll (pai__curl_fns.p_curl_multi_poll)
#define curl_multi_remove_handle (pai__curl_fns.p_curl_multi_remove_handle)
#define curl_slist_append (pai__curl_fns.p_curl_slist_append)
#define curl_slist_free_all (pai__curl_fns.p_curl_slist_free_all)
#define curl_url (pai__curl_fns.p_curl_url)
#define curl_url_cleanup (pai__curl_fns.p_curl_url_cleanup)
#define curl_url_get (pai__curl_fns.p_curl_url_get)
#define curl_url_set (pai__curl_fns.p_curl_url_set)
#endif

/* What every connection asks of curl (curl_opts.c): no signals (libpai
 * runs in its callers' threads), paictl's user agent, HTTP and HTTPS
 * only. */
void pai__curl_defaults(CURL *h);
/* Verification on, trusting the system's CAs; with a CA named (a file,
 * or PEM bytes, copied), that CA only, as kubectl trusts a kubeconfig's
 * CA; insecure: no verification. PAI_OK, PAI_EACCES (the file cannot
 * be read: errno says why), PAI_EINVAL (libcurl refused), PAI_ENOMEM.
 * Any of those leaves the handle trusting more than it was asked to:
 * fail the transfer. */
int pai__curl_trust(CURL *h, const char *ca_file, const void *ca_blob,
		    size_t ca_len, int insecure);
/* TCP keepalive (pai__tcp_keepalive): a connection whose peer went away
 * silently is noticed within about a minute; one idle for
 * PAI__KEEPIDLE_S is not used again. */
void pai__curl_keepalive(CURL *h);

#endif /* PAI_DL_CURL_H */
