/* util.c - the local cluster's small helpers: time, logs, files, and waking
 * the main loop */
#include "srv_int.h"

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

long long srv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void srv_log(struct srv *s, const char *fmt, ...)
{
	char when[32];
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;

	if (s && s->opt.quiet)
		return;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	flockfile(stderr);
	fprintf(stderr, "%s paictl serve: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

char *srv_printf(const char *fmt, ...)
{
	char *p = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}

int srv_fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

/* A directory only its owner may enter: created 0700, or, when it
 * exists, refused unless it is ours and closed to others (as OpenSSH
 * refuses a key file that others can read). */
int srv_private_dir(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (lstat(path, &st) < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a directory", path);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(err, errlen,
			 "'%s' must belong to you and have mode 0700 "
			 "(it has %04o)",
			 path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int srv_rmtree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes the files of dir whose names start with prefix: temporary
 * files a crash left behind. */
void srv_remove_temps(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = strlen(prefix);

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, prefix, n) == 0) {
			char *p = srv_printf("%s/%s", dir, e->d_name);

			if (p)
				unlink(p);
			free(p);
		}
	if (d)
		closedir(d);
}

/* Names that become file names and URL segments: user, job and role
 * names. The validator is stricter; this keeps the disk safe whatever
 * it accepts. */
bool srv_safe_name(const char *s)
{
	size_t n = 0;

	if (!s || !*s || *s == '.' || *s == '-')
		return false;
	for (; *s; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.'))
			return false;
	}
	return n <= 128;
}

static const char *const state_names[] = {"WAITING", "RUNNING", "SUCCEEDED",
					  "FAILED",  "STOPPED", "UNKNOWN"};

const char *srv_state_name(int st)
{
	if (st < 0 || st > ST_UNKNOWN)
		st = ST_UNKNOWN;
	return state_names[st];
}

int srv_state_from_name(const char *name)
{
	int i;

	for (i = 0; name && i <= ST_UNKNOWN; i++)
		if (strcmp(state_names[i], name) == 0)
			return i;
	return ST_UNKNOWN;
}

int srv_random_hex(char *out, size_t nbytes)
{
	unsigned char b[64];
	size_t i;

	if (nbytes > sizeof(b) || getrandom(b, nbytes, 0) != (ssize_t)nbytes)
		return -1;
	for (i = 0; i < nbytes; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * nbytes] = '\0';
	explicit_bzero(b, sizeof(b)); /* the bytes of a token */
	return 0;
}

void srv_free_secret(char *secret)
{
	if (secret)
		explicit_bzero(secret, strlen(secret));
	free(secret);
}

void srv_wake(struct srv *s)
{
	char c = 1;

	if (write(s->wake[1], &c, 1) < 0) {
		/* full: the main loop is already due to wake */
	}
}

bool srv_env_inherits(const pai_env *env, const char *entry)
{
	size_t len = strcspn(entry, "="), i;
	const char *name;

	if (!entry[len])
		return false; /* no variable */
	for (i = 0; (name = pai_env_name(env, i)); i++)
		if (strncmp(name, entry, len) == 0 && !name[len] &&
		    pai_env_value(env, i))
			return false;
	return true;
}
