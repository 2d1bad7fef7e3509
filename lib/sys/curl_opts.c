/* curl_opts.c - what every connection of paictl's asks of libcurl,
 * whichever layer makes it (REST, a stream, exec's upgrade): the
 * defaults, the CAs it trusts, and TCP keepalive. One rule each, so
 * that no transfer trusts more, or notices less, than another. */
#include "dl_curl.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

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

/* Probes after this much silence, this far apart, this many before the
 * connection counts as dead: a peer gone without a word (a NAT entry
 * or a load balancer that forgot the connection) is noticed within a
 * minute. */
#define KEEPIDLE_S  30
#define KEEPINTVL_S 10
#define KEEPCNT	    3

static int on_socket(void *data, curl_socket_t fd, curlsocktype purpose)
{
	int n = KEEPCNT;

	(void)data;
	if (purpose == CURLSOCKTYPE_IPCXN)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &n, sizeof(n));
	return CURL_SOCKOPT_OK;
}

void pai__curl_keepalive(CURL *h)
{
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, (long)KEEPIDLE_S);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, (long)KEEPINTVL_S);
	curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, on_socket);
}
