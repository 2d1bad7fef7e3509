/* conn.c - one connection of the client set up, whatever goes over it
 * (a REST exchange, a stream, exec's upgrade): as curl's connection
 * filters are one chain for every transfer, TLS, the credential,
 * timeouts and keepalive are set here and nowhere else (http.h). */
#include "http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pai__headers_free(struct curl_slist *hdrs)
{
	struct curl_slist *l;

	for (l = hdrs; l; l = l->next)
		if (l->data)
			pai__wipe(l->data, strlen(l->data));
	curl_slist_free_all(hdrs);
}

int pai__same_origin(const pai_client *c, const char *url)
{
	char *scheme = NULL, *host = NULL;
	long port = 0;
	int same;

	if (!c->scheme || pai__url_split(url, &scheme, &host, &port))
		return 0;
	same = strcmp(scheme, c->scheme) == 0 && strcmp(host, c->host) == 0 &&
	       port == c->port;
	free(scheme);
	free(host);
	return same;
}

int pai__conn_header(pai_client *c, pai__conn *conn, const char *line)
{
	struct curl_slist *t = curl_slist_append(conn->hdrs, line);

	if (!t)
		return pai__client_oom(c);
	conn->hdrs = t;
	return PAI_OK;
}

/* The token's line (the shared token, read under the lock: a lane's
 * client may renew it meanwhile). */
static int token_header(pai_client *c, pai__conn *conn)
{
	pai__buf line = PAI__SECRET_BUF_INIT;
	int err = PAI_OK;

	pai__lock(c);
	if (c->sh->token)
		pai__buf_printf(&line, "Authorization: Bearer %s",
				c->sh->token);
	pai__unlock(c);
	if (line.oom)
		err = pai__client_oom(c);
	else if (line.len)
		err = pai__conn_header(c, conn, line.data);
	pai__buf_wipe(&line);
	return err;
}

/* The credential: the module's (one lane at a time: its state is
 * shared), or the token; to the client's own origin only. */
static int credential(pai_client *c, CURL *h, pai__conn *conn)
{
	int err;

	if (!conn->same)
		return PAI_OK;
	if (!c->wire)
		return token_header(c, conn);
	pai__lock(c);
	err = c->wire->prepare(c->wire_data, c, h, conn);
	pai__unlock(c);
	return err;
}

/* The CA the user named cannot be the only one trusted: nothing is
 * sent, rather than trust libcurl's default bundle instead. */
static int trust_refused(pai_client *c, int err, int sys_errno)
{
	if (err == PAI_ENOMEM)
		return pai__client_oom(c);
	if (err == PAI_EACCES)
		return pai__client_fail(c, PAI_EACCES, 0, NULL,
					"cannot read the CA file '%s': %s",
					c->ca_file, strerror(sys_errno));
	return pai__client_fail(c, PAI_EACCES, 0, NULL,
				"libcurl refused to trust the CA file '%s' "
				"alone: nothing sent",
				c->ca_file);
}

int pai__conn_setup(pai_client *c, CURL *h, const char *url, pai__conn *conn)
{
	int err;

	pai__conn_release(conn);
	conn->same = pai__same_origin(c, url);
	conn->via_socket = c->unix_socket && conn->same;
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	pai__curl_defaults(h);
	if (conn->via_socket) {
		curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
		/* no $http_proxy between us and a local socket */
		curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	}
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	pai__curl_keepalive(h);
	/* redirects are the caller's: the credential must not follow */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	/* --cacert: that CA, not that CA too (a module's wire sets its
	 * own after this) */
	if ((err = pai__curl_trust(h, c->ca_file, NULL, 0, c->insecure)))
		err = trust_refused(c, err, errno);
	/* no 100-continue round trip before a body */
	if (err || (err = pai__conn_header(c, conn, "Expect:")) ||
	    (err = credential(c, h, conn)))
		pai__conn_release(conn);
	return err;
}

void pai__conn_release(pai__conn *conn)
{
	unsigned long generation = conn->generation;
	int renewed = conn->renewed;

	pai__headers_free(conn->hdrs);
	curl_slist_free_all(conn->connect_to);
	memset(conn, 0, sizeof(*conn));
	/* what a 401 to it asks about */
	conn->generation = generation;
	conn->renewed = renewed;
}

int pai__conn_renew(pai_client *c, pai__conn *conn)
{
	int fresh;

	if (!c->wire || conn->renewed)
		return 0;
	pai__lock(c);
	fresh = c->wire->unauthorized(c->wire_data, conn->generation);
	pai__unlock(c);
	if (!fresh)
		return 0;
	conn->renewed = 1;
	pai__trace(c, "* 401: the credential renewed, sending again");
	return 1;
}
