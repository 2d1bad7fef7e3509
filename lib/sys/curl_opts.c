/* curl_opts.c - what every connection of paictl's asks of libcurl,
 * whichever layer makes it (REST, a stream, exec's upgrade): the
 * defaults, the CAs it trusts, and TCP keepalive (keepalive.c's, as
 * every connection's), no connection reused once idle past its first
 * probe. One rule each, so that no transfer trusts more, or notices
 * less, than another. */
#include "dl_curl.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void pai__curl_defaults(CURL *h)
{
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "paictl/" PAI_VERSION);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

/* 1 when path opens for reading as a regular file; else 0, errno set. */
static int readable(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), e = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	close(fd);
	errno = e;
	return !e;
}

int pai__curl_trust(CURL *h, const char *ca_file, const void *ca_blob,
		    size_t ca_len, int insecure)
{
	struct curl_blob blob;

	if (insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
		return PAI_OK;
	}
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (!ca_file && !ca_blob)
		return PAI_OK; /* the system's roots: libcurl's defaults */
	/* a file that cannot be read is said now, whatever the scheme (and
	 * libcurl would only find out in the handshake) */
	if (!ca_blob && !readable(ca_file))
		return PAI_EACCES;
	/* that CA only: libcurl keeps its built-in CA directory
	 * (/etc/ssl/certs) beside a CAINFO, and would trust every CA the
	 * machine does too */
	if (curl_easy_setopt(h, CURLOPT_CAPATH, NULL) != CURLE_OK)
		return PAI_EINVAL;
	if (!ca_blob)
		return curl_easy_setopt(h, CURLOPT_CAINFO, ca_file) == CURLE_OK
			   ? PAI_OK
			   : PAI_EINVAL;
	curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
	blob.data = (void *)ca_blob;
	blob.len = ca_len;
	blob.flags = CURL_BLOB_COPY;
	switch (curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob)) {
	case CURLE_OK: return PAI_OK;
	case CURLE_OUT_OF_MEMORY: return PAI_ENOMEM;
	default: return PAI_EINVAL;
	}
}

/* The sockets libcurl makes: keepalive's limits, all of them (libcurl
 * has no option for the count). */
static int on_socket(void *data, curl_socket_t fd, curlsocktype purpose)
{
	(void)data;
	if (purpose == CURLSOCKTYPE_IPCXN)
		pai__tcp_keepalive((int)fd);
	return CURL_SOCKOPT_OK;
}

void pai__curl_keepalive(CURL *h)
{
	curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, on_socket);
	/* a connection idle for as long as keepalive waits before its
	 * first probe is not used again: it may have died without a word
	 * meanwhile, and a request on it would wait out the stall timeout
	 * before it is sent again on a new one */
	curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, (long)PAI__KEEPIDLE_S);
}
