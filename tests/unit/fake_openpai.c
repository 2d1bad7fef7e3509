/* fake_openpai.c - see fake_openpai.h. One thread accepts, one thread
 * per connection answers; a pipe tells them all to stop. Every wait is
 * bounded so that a broken test cannot hang. */
#include "fake_openpai.h"
#include "pai.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define WAIT_MS	  10000 /* longest any wait of the fake */

struct fake_conn {
	fake_server *f;
	int fd;
	pthread_t thread;
	int used;
};

struct fake_server {
	int lfd;
	int stop[2]; /* readable once stopping */
	unsigned port;
	char ip[32];
	pthread_t accept_thread;
	pthread_mutex_t lock;
	pthread_mutex_t conns_lock;
	struct fake_conn conns[MAX_CONNS];
	unsigned accepted;
	fake_handler *fn;
	void *data;
};

void fake_lock(fake_server *f)
{
	pthread_mutex_lock(&f->lock);
}

void fake_unlock(fake_server *f)
{
	pthread_mutex_unlock(&f->lock);
}

unsigned fake_connections(fake_server *f)
{
	unsigned n;

	pthread_mutex_lock(&f->conns_lock);
	n = f->accepted;
	pthread_mutex_unlock(&f->conns_lock);
	return n;
}

unsigned fake_port(const fake_server *f)
{
	return f->port;
}

void fake_reply_set(fake_reply *rp, int status, const char *content_type,
		    const char *fmt, ...)
{
	va_list ap;
	int n;

	rp->status = status;
	rp->content_type = content_type;
	free(rp->body);
	rp->body = NULL;
	rp->body_len = 0;
	if (!fmt)
		return;
	va_start(ap, fmt);
	n = vasprintf(&rp->body, fmt, ap);
	va_end(ap);
	if (n < 0)
		rp->body = NULL;
	else
		rp->body_len = (size_t)n;
}

const char *fake_header(const fake_request *rq, const char *name, char *buf,
			size_t len)
{
	size_t n = strlen(name);
	const char *p = rq->headers;

	while (p && *p) {
		const char *eol = strstr(p, "\r\n");
		size_t linelen = eol ? (size_t)(eol - p) : strlen(p);

		if (linelen > n && strncasecmp(p, name, n) == 0 &&
		    p[n] == ':') {
			const char *v = p + n + 1;
			size_t vlen;

			while (*v == ' ')
				v++;
			vlen = linelen - (size_t)(v - p);
			if (vlen >= len)
				vlen = len - 1;
			memcpy(buf, v, vlen);
			buf[vlen] = '\0';
			return buf;
		}
		p = eol ? eol + 2 : NULL;
	}
	return NULL;
}

/* Waits until fd is readable (1), stopping (0) or WAIT_MS passed (-1). */
static int wait_readable(fake_server *f, int fd, int ms)
{
	struct pollfd p[2] = {{fd, POLLIN, 0}, {f->stop[0], POLLIN, 0}};
	int r;

	do
		r = poll(p, 2, ms);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	if (p[1].revents)
		return 0;
	return 1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads one request; 1 ok, 0 closed or stopping, -1 malformed. */
static int read_request(struct fake_conn *c, char **buf, size_t *have,
			fake_request *rq)
{
	char *end = NULL, *p;
	size_t hlen, need = 0;

	for (;;) {
		char chunk[8192], *nb;
		ssize_t r;

		if (*have) {
			(*buf)[*have] = '\0';
			end = strstr(*buf, "\r\n\r\n");
		}
		if (end) {
			const char *cl;

			hlen = (size_t)(end - *buf) + 4;
			cl = NULL;
			for (p = *buf; p && p < end; p = strstr(p, "\r\n")) {
				if (p != *buf)
					p += 2;
				if (strncasecmp(p, "Content-Length:", 15) ==
				    0) {
					cl = p + 15;
					break;
				}
			}
			need = hlen + (cl ? strtoul(cl, NULL, 10) : 0);
			if (*have >= need)
				break;
		}
		if (wait_readable(c->f, c->fd, WAIT_MS) <= 0)
			return 0;
		r = recv(c->fd, chunk, sizeof(chunk), 0);
		if (r <= 0)
			return 0;
		nb = realloc(*buf, *have + (size_t)r + 1);
		if (!nb)
			return -1;
		*buf = nb;
		memcpy(*buf + *have, chunk, (size_t)r);
		*have += (size_t)r;
		end = NULL;
	}
	memset(rq, 0, sizeof(*rq));
	if (sscanf(*buf, "%15s %2047s", rq->method, rq->path) != 2)
		return -1;
	p = strstr(*buf, "\r\n");
	rq->headers = strndup(p + 2, hlen - (size_t)(p + 2 - *buf));
	rq->body_len = need - hlen;
	rq->body = malloc(rq->body_len + 1);
	if (!rq->headers || !rq->body)
		return -1;
	memcpy(rq->body, *buf + hlen, rq->body_len);
	rq->body[rq->body_len] = '\0';
	/* keep what follows (a pipelined request) */
	memmove(*buf, *buf + need, *have - need);
	*have -= need;
	rq->local_ip = c->f->ip;
	return 1;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 206: return "Partial Content";
	case 302: return "Found";
	case 307: return "Temporary Redirect";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 409: return "Conflict";
	case 416: return "Range Not Satisfiable";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	}
	return "Whatever";
}

/* Now as every server's Date header says it (IMF-fixdate, GMT). */
static void http_date(char *out, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static void *conn_main(void *arg)
{
	struct fake_conn *c = arg;
	fake_server *f = c->f;
	char *buf = NULL;
	size_t have = 0;

	for (;;) {
		fake_request rq;
		fake_reply rp;
		char head[1024], date[64];
		size_t send_len;
		int r, n;

		memset(&rq, 0, sizeof(rq));
		r = read_request(c, &buf, &have, &rq);
		if (r <= 0) {
			free(rq.headers);
			free(rq.body);
			break;
		}
		memset(&rp, 0, sizeof(rp));
		rp.status = 500;
		pthread_mutex_lock(&f->lock);
		f->fn(f->data, &rq, &rp);
		pthread_mutex_unlock(&f->lock);
		if (rp.delay_ms > 0) {
			struct timespec ts = {rp.delay_ms / 1000,
					      rp.delay_ms % 1000 * 1000000L};

			nanosleep(&ts, NULL);
		}
		free(rq.headers);
		free(rq.body);
		if (rp.drop) {
			free(rp.body);
			break;
		}
		http_date(date, sizeof(date), time(NULL) + rp.clock_s);
		n = snprintf(head, sizeof(head),
			     "HTTP/1.1 %d %s\r\nDate: %s\r\nContent-Length: "
			     "%zu\r\n%s%s%s%s",
			     rp.status, reason(rp.status), date, rp.body_len,
			     rp.content_type ? "Content-Type: " : "",
			     rp.content_type ? rp.content_type : "",
			     rp.content_type ? "\r\n" : "",
			     rp.headers ? rp.headers : "");
		if (n < 0 || (size_t)n + 2 >= sizeof(head)) {
			free(rp.body);
			break;
		}
		strcat(head, "\r\n");
		send_len = rp.stall ? 0 : rp.body_len;
		r = write_all(c->fd, head, strlen(head));
		if (r == 0 && send_len)
			r = write_all(c->fd, rp.body, send_len);
		free(rp.body);
		if (r < 0)
			break;
		if (rp.stall) {
			/* until the client gives up (or the test ends) */
			char junk[256];

			while (wait_readable(f, c->fd, WAIT_MS) > 0 &&
			       recv(c->fd, junk, sizeof(junk), 0) > 0)
				;
			break;
		}
	}
	free(buf);
	shutdown(c->fd, SHUT_RDWR);
	return NULL;
}

static void *accept_main(void *arg)
{
	fake_server *f = arg;

	for (;;) {
		int fd, i, one = 1;

		if (wait_readable(f, f->lfd, -1) <= 0)
			break;
		fd = accept(f->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		/* a reply goes out in two writes: without this, Nagle's
		 * algorithm and the client's delayed ACK hold the second
		 * for 40 ms, and the fake would pace its clients */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_mutex_lock(&f->conns_lock);
		for (i = 0; i < MAX_CONNS && f->conns[i].used; i++)
			;
		if (i == MAX_CONNS) {
			pthread_mutex_unlock(&f->conns_lock);
			close(fd);
			continue;
		}
		f->accepted++;
		f->conns[i].f = f;
		f->conns[i].fd = fd;
		f->conns[i].used = 1;
		if (pthread_create(&f->conns[i].thread, NULL, conn_main,
				   &f->conns[i]) != 0) {
			f->conns[i].used = 0;
			close(fd);
		}
		pthread_mutex_unlock(&f->conns_lock);
	}
	return NULL;
}

int fake_start(fake_server **out, const char *ip, fake_handler *fn, void *data)
{
	fake_server *f = calloc(1, sizeof(*f));
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int one = 1;

	*out = NULL;
	if (!f)
		return -1;
	f->lfd = -1;
	f->stop[0] = f->stop[1] = -1;
	f->fn = fn;
	f->data = data;
	snprintf(f->ip, sizeof(f->ip), "%s", ip);
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->conns_lock, NULL);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1 || pipe(f->stop) < 0)
		goto fail;
	f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->lfd < 0 ||
	    setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) <
		0 ||
	    bind(f->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(f->lfd, 16) < 0 ||
	    getsockname(f->lfd, (struct sockaddr *)&a, &alen) < 0)
		goto fail;
	f->port = ntohs(a.sin_port);
	if (pthread_create(&f->accept_thread, NULL, accept_main, f) != 0)
		goto fail;
	*out = f;
	return 0;
fail:
	if (f->lfd >= 0)
		close(f->lfd);
	if (f->stop[0] >= 0) {
		close(f->stop[0]);
		close(f->stop[1]);
	}
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->conns_lock);
	free(f);
	return -1;
}

void fake_stop(fake_server *f)
{
	int i;

	if (!f)
		return;
	if (write(f->stop[1], "x", 1) != 1)
		perror("fake_stop");
	pthread_join(f->accept_thread, NULL);
	for (i = 0; i < MAX_CONNS; i++)
		if (f->conns[i].used) {
			pthread_join(f->conns[i].thread, NULL);
			close(f->conns[i].fd);
		}
	close(f->lfd);
	close(f->stop[0]);
	close(f->stop[1]);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->conns_lock);
	free(f);
}

pai_client *fake_client(fake_server *f, const char *token, int retries)
{
	pai_client_options o = PAI_CLIENT_OPTIONS_INIT;
	pai_client *c = NULL;
	char uri[64];

	snprintf(uri, sizeof(uri), "http://127.0.0.1:%u", fake_port(f));
	o.uri = uri;
	o.token = token;
	o.max_retries = retries;
	o.retry_max_ms = 10000;
	o.stall_timeout_s = 1;
	o.connect_timeout_ms = 2000;
	if (pai_client_new(&c, &o) != PAI_OK)
		return NULL;
	/* the fake plays a v0.x server */
	if (pai_client_set_api(c, PAI_API_V1) != PAI_OK) {
		pai_client_free(c);
		return NULL;
	}
	return c;
}
