/* http_int.h - the local cluster's REST server: the routes of its two
 * APIs, the v1 API of OpenPAI v0.x (http.c) and the v2 API of OpenPAI
 * v1.x (api_v2.c, api_v2_vc.c), and what they share (auth.c, reply.c).
 * Internal to server/. */
#ifndef HTTP_INT_H
#define HTTP_INT_H

#include "srv_int.h"

#include "dl_mhd.h"

struct listener {
	struct srv *s;
	bool tcp;
	/* paictl web's listener: every request but the pages' files needs
	 * a session or a token (web_gate.c) */
	bool web;
	/* a TCP listener's address: what a Host header may name when it is
	 * a loopback one (web_gate.c), and its session cookie's name */
	char addr[64];
	unsigned port;
	bool loopback;
	char cookie[32];
};

/* The most of a body a caller with no token nor session sends: a
 * login's (http.c). */
#define STRANGER_MAX_BODY (16u * 1024)

/* One request's body, as it arrived. */
struct req {
	char *body;
	size_t len, limit;
	bool too_big;
	bool held;  /* its connection suspended by wait.c */
	bool woken; /* ...and resumed: answer now */
};

/* ---- answers (reply.c) --------------------------------------------- */

/* Takes body (malloc'd). */
enum MHD_Result h_reply_raw(struct MHD_Connection *c, unsigned status,
			    const char *type, char *body, size_t len);
/* Steals o. */
enum MHD_Result h_reply_json(struct MHD_Connection *c, unsigned status,
			     json_t *o);
/* 200 with j's status o (stolen) and j's ETag (wait.c). */
enum MHD_Result h_reply_job(struct MHD_Connection *c, const struct srv_job *j,
			    json_t *o);
/* status with o (stolen) and the header name: value. */
enum MHD_Result h_reply_header(struct MHD_Connection *c, unsigned status,
			       json_t *o, const char *name, const char *value);
/* 200 with o (stolen) and the ETag etag. */
enum MHD_Result h_reply_etag(struct MHD_Connection *c, json_t *o,
			     const char *etag);
/* {"code": code, "message": ...} */
enum MHD_Result h_reply_error(struct MHD_Connection *c, unsigned status,
			      const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
enum MHD_Result h_reply_message(struct MHD_Connection *c, unsigned status,
				const char *msg);
/* 404 NoJobError for the job called name. */
enum MHD_Result h_no_job(struct MHD_Connection *c, const char *name);

/* ---- who asks (auth.c) ---------------------------------------------- */

/* A web page's session (web_int.h): how long it lasts at most (its
 * cookie's Max-Age too), and idle; the header with its key. */
#define WEB_SESSION_S (7 * 24 * 3600)
#define WEB_IDLE_MS (12LL * 3600 * 1000)
#define WEB_KEY_HEADER "X-Paictl-Session"

/* Whether secrets a and b are the same (not empty), in a time that
 * depends on b's length alone, not on where they differ. */
bool h_same_secret(const char *a, const char *b);
/* Whether t is good at now (ms): not expired, and a session not idle. */
bool h_token_alive(const struct srv_token *t, long long now);
/* The token of the request's Authorization header, else the session of
 * its cookie with that session's key in WEB_KEY_HEADER (a session is
 * no bearer token, nor a token a session), or NULL; a session's use is
 * noted. Under the server's lock. */
const struct srv_token *h_find_token(const struct listener *l,
				     struct MHD_Connection *c);
/* A new token for user, good for secs, in tok (tok->user is the
 * table's); 0 or -1. Takes the lock. */
int h_add_token(struct srv *s, const char *user, bool admin, long long secs,
		struct srv_token *tok);
/* A new session for user in tok (its key in tok->key); 0 or -1. Takes
 * the lock. */
int h_add_session(struct srv *s, const char *user, bool admin,
		  struct srv_token *tok);
/* The session of the request's cookie, its key not asked: only for
 * telling the pages' 401 from their 200. Under the lock. */
const struct srv_token *h_find_cookie(const struct listener *l,
				      struct MHD_Connection *c);
/* Forgets t, one of s's tokens; under the lock. */
void h_drop_token(struct srv *s, const struct srv_token *t);
/* The account a login's body (JSON or a form: username, password,
 * expiration) names with its password, and in *secs the life it asks
 * for a token; NULL after replying why not, as the login routes do. */
const struct srv_user *h_login(struct listener *l, struct MHD_Connection *c,
			       const struct req *rq, long long *secs,
			       enum MHD_Result *res);
/* ---- wrong passwords slowed down (auth_throttle.c) ------------------ */

/* ms until account user may try a password from c's address; 0: now.
 * Takes the lock. */
long long h_throttle_wait(struct srv *s, struct MHD_Connection *c,
			  const char *user);
/* A try of user's password from c's address: right clears the count,
 * a wrong one adds to it. Takes the lock. */
void h_throttle_note(struct srv *s, struct MHD_Connection *c,
		     const char *user, bool right);
/* 429 TooManyRequestsError with Retry-After: wait (ms) in seconds. */
enum MHD_Result h_reply_throttled(struct MHD_Connection *c, long long wait);

/* 0 when the caller may act as user (NULL: anyone); else replies. */
int h_authorize(struct listener *l, struct MHD_Connection *c,
		const char *user, enum MHD_Result *res);
/* The value of key in a form body; new, or NULL. */
char *h_form_value(const char *body, size_t len, const char *key);
/* s[0..n) of such a body percent-decoded, '+' a space; new (form.c). */
char *h_form_decode(const char *s, size_t n);
/* An application/x-www-form-urlencoded body as JSON text, nested as the
 * v0.17 rest-server's body parser nests it (form.c); new. NULL with
 * *status 413 for more parameters than it takes, else 500 (memory). */
char *h_form_to_json(const char *body, size_t len, unsigned *status);
/* The login routes, v1 and v2: the checks and codes of the real v0.17
 * and v1.x servers, which agree. */
enum MHD_Result h_post_token(struct listener *l, struct MHD_Connection *c,
			     struct req *rq);
/* The caller of a v2 route: the token's user (over TCP a token is a
 * must, GETs too, as on v1.x); on the Unix socket, without a token, the
 * server's owner. New string; NULL after replying. */
char *h_v2_caller(struct listener *l, struct MHD_Connection *c,
		  enum MHD_Result *res);

/* ---- jobs (reply.c) --------------------------------------------------- */

json_t *h_job_summary(const struct srv_job *j);
/* The v1 status of j; its log URLs on host. */
json_t *h_job_detail(const struct srv_job *j, const char *host);
const char *h_conn_host(struct MHD_Connection *c);
/* Task t's container id as a JSON string (NULL when out of memory). */
json_t *h_container_id(const struct srv_job *j, const struct srv_task *t);

/* ---- logs (reply.c) --------------------------------------------------- */

/* The log file of role index in attempt of j (user.pai.stdout, ...);
 * new string. *starting: the attempt runs, a missing file is empty. */
char *h_log_path(const struct srv_job *j, long attempt, size_t role,
		 long index, const char *file, bool *starting);
/* Serves the log at path with the Range of range (may be NULL), as
 * content type type; 404 (JSON, or empty with empty_errors) when there
 * is no such log. */
enum MHD_Result h_serve_log(struct MHD_Connection *c, const char *path,
			    bool starting, const char *range,
			    const char *type, bool empty_errors);
/* 404 for a log there is not: empty with empty, else JSON. */
enum MHD_Result h_log_missing(struct MHD_Connection *c, bool empty);

/* ---- the long-poll on a job (wait.c) ---------------------------------- */

/* j's ETag, W/"<16 hex digits>", in out (32 bytes do): it changes when
 * the job's or a task's state does. */
void h_job_etag(const struct srv_job *j, char *out, size_t len);
/* The same for the list of jobs: it changes when a job comes, goes or
 * changes; under the lock. */
void h_list_etag(struct srv *s, char *out, size_t len);
/* For a GET of j's status, under the lock: 1 when the request asked to
 * wait (?wait=MS&since=ETAG) and is held now (its connection suspended:
 * return MHD_YES), 0 to answer at once (no wait asked, or over: rq was
 * woken, the job differs or has ended, too many held). */
int h_wait_hold(struct srv *s, struct MHD_Connection *c, struct req *rq,
		const struct srv_job *j);
/* The same for a GET of the list (?wait=MS&since=ETAG): held until the
 * list's ETag differs. */
int h_wait_hold_list(struct srv *s, struct MHD_Connection *c, struct req *rq);
/* The same for a GET of a task's log at path with ?wait=MS and a Range
 * "bytes=N-": held while the log has no byte past N and task (j's
 * tasks[task]) runs in the job's attempt. */
int h_wait_hold_log(struct srv *s, struct MHD_Connection *c, struct req *rq,
		    const struct srv_job *j, size_t task, long attempt,
		    const char *path);

/* ---- the v2 API (api_v2.c) -------------------------------------------- */

/* GET /api/v2/virtual-clusters[/{vc}] (vc NULL: all), GET
 * /api/v2/users/{name} (api_v2_vc.c). */
enum MHD_Result h_v2_vcs(struct listener *l, struct MHD_Connection *c,
			 const char *vc);
enum MHD_Result h_v2_user(struct listener *l, struct MHD_Connection *c,
			  const char *name);
/* /api/v2/...: seg[0] "api", seg[1] "v2". */
enum MHD_Result h_v2_route(struct listener *l, struct MHD_Connection *c,
			   char **seg, size_t n, const char *method,
			   const char *url, struct req *rq);
/* /log-manager/HOST/api/v1/logs/FILE?...: the locations v2 gives. */
enum MHD_Result h_log_manager(struct listener *l, struct MHD_Connection *c,
			      char **seg, size_t n);

#endif /* HTTP_INT_H */
