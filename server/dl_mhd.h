/* dl_mhd.h - libmicrohttpd, opened by the local cluster when it starts
 * (dl_mhd.c), as libpai opens libcurl and libssh2 (lib/dl.h): every
 * paictl process would otherwise load GnuTLS and its kin before main().
 * Include this instead of <microhttpd.h>; srv_mhd_load() must succeed
 * before any MHD_ function is called. */
#ifndef DL_MHD_H
#define DL_MHD_H

#include <stddef.h>

#include <microhttpd.h>

#ifndef PAI_MHD_SONAME
#define PAI_MHD_SONAME "libmicrohttpd.so.12"
#endif

#define MHD_FUNCS(X)                                                           \
	X(MHD_add_response_header)                                             \
	X(MHD_create_response_from_buffer)                                     \
	X(MHD_create_response_from_fd_at_offset64)                             \
	X(MHD_destroy_response)                                                \
	X(MHD_get_connection_info)                                             \
	X(MHD_lookup_connection_value)                                         \
	X(MHD_queue_response)                                                  \
	X(MHD_resume_connection)                                               \
	X(MHD_start_daemon)                                                    \
	X(MHD_stop_daemon)                                                     \
	X(MHD_suspend_connection)

#define MHD_MEMBER(f) __typeof__(f) *p_##f;
struct mhd_fns {
	MHD_FUNCS(MHD_MEMBER)
};
#undef MHD_MEMBER
extern struct mhd_fns mhd_fns;

/* Opens libmicrohttpd, once: 0, or -1 with why in err. */
int srv_mhd_load(char *err, size_t errlen);

/* the names, for every file but the one that fills the table */
#ifndef MHD_DL_LOADER
#define MHD_add_response_header (mhd_fns.p_MHD_add_response_header)
#define MHD_create_response_from_buffer                                        \
	(mhd_fns.p_MHD_create_response_from_buffer)
#define MHD_create_response_from_fd_at_offset64                                \
	(mhd_fns.p_MHD_create_response_from_fd_at_offset64)
#define MHD_destroy_response (mhd_fns.p_MHD_destroy_response)
#define MHD_get_connection_info (mhd_fns.p_MHD_get_connection_info)
#define MHD_lookup_connection_value (mhd_fns.p_MHD_lookup_connection_value)
#define MHD_queue_response (mhd_fns.p_MHD_queue_response)
#define MHD_resume_connection	    (mhd_fns.p_MHD_resume_connection)
#define MHD_suspend_connection	    (mhd_fns.p_MHD_suspend_connection)
#define MHD_start_daemon (mhd_fns.p_MHD_start_daemon)
#define MHD_stop_daemon (mhd_fns.p_MHD_stop_daemon)
#endif

#endif /* DL_MHD_H */
