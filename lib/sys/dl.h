/* dl.h - libraries loaded when first needed (dl.c).
 *
 * libcurl, libssh2 and libmicrohttpd bring some 30 libraries with them
 * (TLS, Kerberos, LDAP, ...): linked, they cost every paictl process
 * about 7 MB and 4 ms before main(), though validate, expand and convert
 * never use them. So they are opened with dlopen() by the first call
 * that needs one; each is then reached through a table of function
 * pointers, under its own names (dl_curl.h, dl_ssh2.h, and server/
 * dl_mhd.h map them), so the code that uses them reads as before.
 *
 * Each library's load function runs once per process (pthread_once)
 * and says whether the library is there: PAI_OK or PAI_ERROR (the
 * public calls say PAI_ELIBRARY). Nothing may call into a library
 * before its load function has said PAI_OK. */
#ifndef PAI_DL_H
#define PAI_DL_H

/* One member of a table: a pointer of the function's own type. */
#define PAI__DL_MEMBER(f) __typeof__(f) *p_##f;

#endif /* PAI_DL_H */
