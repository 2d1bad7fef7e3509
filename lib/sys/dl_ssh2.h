/* dl_ssh2.h - libssh2, opened when first needed (dl.h): include this
 * instead of <libssh2.h>, and call pai__ssh2_load() (which also runs
 * libssh2_init) before any libssh2_ function. */
#ifndef PAI_DL_SSH2_H
#define PAI_DL_SSH2_H

#include "dl.h"
#include "sys.h"

#include <libssh2.h>
#include <libssh2_sftp.h>

#ifndef PAI_SSH2_SONAME
#define PAI_SSH2_SONAME "libssh2.so.1"
#endif

#define PAI__SSH2_FUNCS(X)                                                     \
	X(libssh2_agent_connect)                                               \
	X(libssh2_agent_disconnect)                                            \
	X(libssh2_agent_free)                                                  \
	X(libssh2_agent_get_identity)                                          \
	X(libssh2_agent_init)                                                  \
	X(libssh2_agent_list_identities)                                       \
	X(libssh2_agent_userauth)                                              \
	X(libssh2_channel_close)                                               \
	X(libssh2_channel_direct_tcpip_ex)                                     \
	X(libssh2_channel_eof)                                                 \
	X(libssh2_channel_free)                                                \
	X(libssh2_channel_get_exit_signal)                                     \
	X(libssh2_channel_get_exit_status)                                     \
	X(libssh2_channel_open_ex)                                             \
	X(libssh2_channel_process_startup)                                     \
	X(libssh2_channel_read_ex)                                             \
	X(libssh2_channel_request_pty_ex)                                      \
	X(libssh2_channel_request_pty_size_ex)                                 \
	X(libssh2_channel_send_eof)                                            \
	X(libssh2_channel_wait_closed)                                         \
	X(libssh2_channel_write_ex)                                            \
	X(libssh2_free)                                                        \
	X(libssh2_hostkey_hash)                                                \
	X(libssh2_init)                                                        \
	X(libssh2_knownhost_addc)                                              \
	X(libssh2_knownhost_checkp)                                            \
	X(libssh2_knownhost_free)                                              \
	X(libssh2_knownhost_init)                                              \
	X(libssh2_knownhost_readline)                                          \
	X(libssh2_knownhost_writeline)                                         \
	X(libssh2_session_block_directions)                                    \
	X(libssh2_session_disconnect_ex)                                       \
	X(libssh2_session_free)                                                \
	X(libssh2_session_handshake)                                           \
	X(libssh2_session_hostkey)                                             \
	X(libssh2_session_init_ex)                                             \
	X(libssh2_session_last_error)                                          \
	X(libssh2_session_set_blocking)                                        \
	X(libssh2_session_set_timeout)                                         \
	X(libssh2_sftp_close_handle)                                           \
	X(libssh2_sftp_fstat_ex)                                               \
	X(libssh2_sftp_init)                                                   \
	X(libssh2_sftp_last_error)                                             \
	X(libssh2_sftp_mkdir_ex)                                               \
	X(libssh2_sftp_open_ex)                                                \
	X(libssh2_sftp_read)                                                   \
	X(libssh2_sftp_rename_ex)                                              \
	X(libssh2_sftp_seek64)                                                 \
	X(libssh2_sftp_shutdown)                                               \
	X(libssh2_sftp_write)                                                  \
	X(libssh2_userauth_publickey_fromfile_ex)

struct pai__ssh2_fns {
	PAI__SSH2_FUNCS(PAI__DL_MEMBER)
};
extern struct pai__ssh2_fns pai__ssh2_fns;

/* Opens libssh2 and initialises it, once: PAI_OK, or PAI_ERROR. */
int pai__ssh2_load(void);

/* the names, for every file but the one that fills the table */
#ifndef PAI__DL_LOADER
#define libssh2_agent_connect (pai__ssh2_fns.p_libssh2_agent_connect)
#define libssh2_agent_disconnect (pai__ssh2_fns.p_libssh2_agent_disconnect)
#define libssh2_agent_free (pai__ssh2_fns.p_libssh2_agent_free)
#define libssh2_agent_get_identity (pai__ssh2_fns.p_libssh2_agent_get_identity)
#define libssh2_agent_init (pai__ssh2_fns.p_libssh2_agent_init)
#define libssh2_agent_list_identities (pai__ssh2_fns.p_libssh2_agent_list_identities)
#define libssh2_agent_userauth (pai__ssh2_fns.p_libssh2_agent_userauth)
#define libssh2_channel_close (pai__ssh2_fns.p_libssh2_channel_close)
#define libssh2_channel_direct_tcpip_ex (pai__ssh2_fns.p_libssh2_channel_direct_tcpip_ex)
#define libssh2_channel_eof (pai__ssh2_fns.p_libssh2_channel_eof)
#define libssh2_channel_free (pai__ssh2_fns.p_libssh2_channel_free)
#define libssh2_channel_get_exit_signal (pai__ssh2_fns.p_libssh2_channel_get_exit_signal)
#define libssh2_channel_get_exit_status (pai__ssh2_fns.p_libssh2_channel_get_exit_status)
#define libssh2_channel_open_ex (pai__ssh2_fns.p_libssh2_channel_open_ex)
#define libssh2_channel_process_startup (pai__ssh2_fns.p_libssh2_channel_process_startup)
#define libssh2_channel_read_ex (pai__ssh2_fns.p_libssh2_channel_read_ex)
#define libssh2_channel_request_pty_ex (pai__ssh2_fns.p_libssh2_channel_request_pty_ex)
#define libssh2_channel_request_pty_size_ex (pai__ssh2_fns.p_libssh2_channel_request_pty_size_ex)
#define libssh2_channel_send_eof (pai__ssh2_fns.p_libssh2_channel_send_eof)
#define libssh2_channel_wait_closed (pai__ssh2_fns.p_libssh2_channel_wait_closed)
#define libssh2_channel_write_ex (pai__ssh2_fns.p_libssh2_channel_write_ex)
#define libssh2_free (pai__ssh2_fns.p_libssh2_free)
#define libssh2_hostkey_hash (pai__ssh2_fns.p_libssh2_hostkey_hash)
#define libssh2_init (pai__ssh2_fns.p_libssh2_init)
#define libssh2_knownhost_addc (pai__ssh2_fns.p_libssh2_knownhost_addc)
#define libssh2_knownhost_checkp (pai__ssh2_fns.p_libssh2_knownhost_checkp)
#define libssh2_knownhost_free (pai__ssh2_fns.p_libssh2_knownhost_free)
#define libssh2_knownhost_init (pai__ssh2_fns.p_libssh2_knownhost_init)
#define libssh2_knownhost_readline (pai__ssh2_fns.p_libssh2_knownhost_readline)
#define libssh2_knownhost_writeline (pai__ssh2_fns.p_libssh2_knownhost_writeline)
#define libssh2_session_block_directions (pai__ssh2_fns.p_libssh2_session_block_directions)
#define libssh2_session_disconnect_ex (pai__ssh2_fns.p_libssh2_session_disconnect_ex)
#define libssh2_session_free (pai__ssh2_fns.p_libssh2_session_free)
#define libssh2_session_handshake (pai__ssh2_fns.p_libssh2_session_handshake)
#define libssh2_session_hostkey (pai__ssh2_fns.p_libssh2_session_hostkey)
#define libssh2_session_init_ex (pai__ssh2_fns.p_libssh2_session_init_ex)
#define libssh2_session_last_error (pai__ssh2_fns.p_libssh2_session_last_error)
#define libssh2_session_set_blocking (pai__ssh2_fns.p_libssh2_session_set_blocking)
#define libssh2_session_set_timeout (pai__ssh2_fns.p_libssh2_session_set_timeout)
#define libssh2_sftp_close_handle (pai__ssh2_fns.p_libssh2_sftp_close_handle)
#define libssh2_sftp_fstat_ex (pai__ssh2_fns.p_libssh2_sftp_fstat_ex)
#define libssh2_sftp_init (pai__ssh2_fns.p_libssh2_sftp_init)
#define libssh2_sftp_last_error (pai__ssh2_fns.p_libssh2_sftp_last_error)
#define libssh2_sftp_mkdir_ex (pai__ssh2_fns.p_libssh2_sftp_mkdir_ex)
#define libssh2_sftp_open_ex (pai__ssh2_fns.p_libssh2_sftp_open_ex)
#define libssh2_sftp_read (pai__ssh2_fns.p_libssh2_sftp_read)
#define libssh2_sftp_rename_ex (pai__ssh2_fns.p_libssh2_sftp_rename_ex)
#define libssh2_sftp_seek64 (pai__ssh2_fns.p_libssh2_sftp_seek64)
#define libssh2_sftp_shutdown (pai__ssh2_fns.p_libssh2_sftp_shutdown)
#define libssh2_sftp_write (pai__ssh2_fns.p_libssh2_sftp_write)
#define libssh2_userauth_publickey_fromfile_ex (pai__ssh2_fns.p_libssh2_userauth_publickey_fromfile_ex)
#endif

#endif /* PAI_DL_SSH2_H */
