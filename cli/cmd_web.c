/* cmd_web.c - paictl web: the local cluster's pages in a browser. Starts
 * the local cluster if it does not run, asks it for a login link (it
 * then serves its pages on a loopback address of their own:
 * server/web_api.c), prints the link, and opens it where there is a
 * display: through a file of the user's alone that redirects to it (as
 * Jupyter's *-open.html), so that the link's secret is in no process's
 * argv, which any local user may read in /proc. */
#include "cli.h"
#include "error.h"
#include "../server/server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OPT_NO_OPEN = 256 };

const cli_opt cli_web_opts[] = {
    {"no-open", OPT_NO_OPEN, NULL, NULL,
     "print the link only; never start a browser"},
    CLI_OPT_END};

static int on_opt(cli_ctx *ctx, int key, const char *arg, void *data)
{
	(void)ctx;
	(void)arg;
	if (key != OPT_NO_OPEN)
		return EXIT_USAGE;
	*(int *)data = 1;
	return 0;
}

/* Whether prog is an executable file in a directory of $PATH. */
static int on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *e;
	char file[4096];

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ":");
		snprintf(file, sizeof(file), "%.*s/%s",
			 e > p ? (int)(e - p) : 1, e > p ? p : ".", prog);
		if (access(file, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* a then b, new */
static char *join(const char *a, const char *b)
{
	size_t n = a ? strlen(a) + strlen(b) + 1 : 0;
	char *s = n ? malloc(n) : NULL;

	if (s)
		snprintf(s, n, "%s%s", a, b);
	return s;
}

/* dir/web-open.html, dir made (0700) if need be; new, or NULL. Takes
 * dir. */
static char *open_file_in(char *dir)
{
	char *path = dir && cli_mkdirs(dir) == 0
			 ? join(dir, "/web-open.html")
			 : NULL;

	free(dir);
	return path;
}

/* The file that opens the link: $XDG_RUNTIME_DIR/paictl/web-open.html,
 * else (no such variable, or no such directory to be made) in the
 * state directory; new. */
static char *open_file_path(void)
{
	const char *run = cli_env("XDG_RUNTIME_DIR");
	char *path = run && *run == '/' ? open_file_in(join(run, "/paictl"))
				       : NULL;

	return path ? path : open_file_in(cli_state_dir());
}

/* A page, mode 0600 and written atomically, that sends its browser on
 * to url; its path (new), or NULL after a warning. */
static char *write_open_file(const cli_ctx *ctx, const char *url)
{
	static const char page[] =
	    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	    "<meta http-equiv=\"refresh\" content=\"0;url=%s\">"
	    "<title>paictl web</title></head>\n<body><p>Opening "
	    "<a href=\"%s\">the local cluster's pages</a>.</p>"
	    "</body></html>\n";
	char esc[2048], html[2 * sizeof(esc) + sizeof(page)];
	char *path = open_file_path();
	int n, err;

	if (!path) {
		cli_warn(ctx, "cannot open a browser: no directory for its "
			      "page; open the link above");
		return NULL;
	}
	if (cli_html_escape(esc, sizeof(esc), url) < 0) {
		cli_warn(ctx, "cannot open a browser: the link is too long for "
			      "its page; open the link above");
		free(path);
		return NULL;
	}
	/* html holds the page with esc twice: never cut */
	n = snprintf(html, sizeof(html), page, esc, esc);
	err = pai_file_write_atomic(path, html, (size_t)n, 0600,
				    PAI_WRITE_NO_DIRSYNC);
	explicit_bzero(esc, sizeof(esc));
	explicit_bzero(html, sizeof(html));
	if (err) {
		cli_warn(ctx, "cannot open a browser: cannot write '%s': %s; "
			      "open the link above",
			 path, pai_strerror(err));
		free(path);
		return NULL;
	}
	return path;
}

/* xdg-open url by way of write_open_file's page, no shell, and not
 * waited for: a browser that was not running may stay in its
 * foreground as long as it runs. */
static void open_link(const cli_ctx *ctx, const char *url)
{
	char *file;
	pid_t pid;
	int st, null;

	if (!on_path("xdg-open")) {
		cli_warn(ctx, "cannot open a browser: no xdg-open (package "
			      "xdg-utils); open the link above");
		return;
	}
	if (!(file = write_open_file(ctx, url)))
		return;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("xdg-open", "xdg-open", file, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		cli_warn(ctx, "cannot open a browser: %s", strerror(errno));
	else
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	free(file);
}

/* The page to open: the jobs, or JOB's (which must exist). 0 or the
 * exit status after saying why. */
static int page_of(cli_ctx *ctx, cli_conn *conn, const char *ref, char *out,
		   size_t len)
{
	pai_job_info *info = NULL;
	char *user = NULL, *name = NULL;
	int st, err;

	if (!ref) {
		snprintf(out, len, "/");
		return EXIT_OK;
	}
	if ((st = cli_job_ref(ctx, conn, ref, &user, &name)))
		return st;
	err = pai_job_get(&info, conn->client, user, name);
	if (err == PAI_ENOTFOUND)
		st = cli_error(ctx, EXIT_NOTFOUND, "job '%s' not found", ref);
	else if (err)
		st = cli_fail(ctx, conn, err, "cannot read job '%s'", ref);
	else
		snprintf(out, len, "/job/%s/%s", user, name);
	pai_job_info_free(info);
	free(user);
	free(name);
	return st;
}

static int print_link(const cli_ctx *ctx, const char *link)
{
	if (ctx->output == CLI_OUT_JSON)
		return cli_print_json(json_pack("{s:s}", "url", link)) < 0
			   ? EXIT_FAILURE_
			   : EXIT_OK;
	printf("%s\n", link);
	return EXIT_OK;
}

int cmd_web(cli_ctx *ctx, int argc, char **argv)
{
	cli_conn *conn = NULL;
	char base[256], secret[65], page[600], link[1024], err[512];
	int first, st, no_open = 0;

	st = cli_parse(ctx, argc, argv, on_opt, &no_open, &first);
	if (st >= 0)
		return st;
	if (first + 1 < argc)
		return cli_error(ctx, EXIT_USAGE,
				 "unexpected argument '%s'; see 'paictl web "
				 "--help'",
				 argv[first + 1]);
	if ((st = cli_resolve(ctx, &conn)))
		goto out;
	if (!conn->local && !conn->socket) {
		st = cli_error(ctx, EXIT_USAGE,
			       "'%s' is not the local cluster: the pages are "
			       "the local cluster's (paictl -c local web)",
			       conn->cluster);
		goto out;
	}
	if ((st = cli_connect(ctx, conn)) ||
	    (st = page_of(ctx, conn, first < argc ? argv[first] : NULL, page,
			  sizeof(page))))
		goto out;
	if (srv_web_link(conn->socket, base, sizeof(base), secret, err,
			 sizeof(err)) < 0) {
		st = cli_error(ctx, EXIT_UNREACHABLE, "%s", err);
		goto out;
	}
	snprintf(link, sizeof(link), "%s%s?token=%s", base, page, secret);
	explicit_bzero(secret, sizeof(secret));
	st = print_link(ctx, link);
	if (!st && !no_open &&
	    (cli_env("DISPLAY") || cli_env("WAYLAND_DISPLAY")))
		open_link(ctx, link);
	explicit_bzero(link, sizeof(link));
	st = cli_finish(ctx, st);
out:
	cli_conn_free(conn);
	return st;
}
