/* kube.h - the lower layer of libpai's Kubernetes client: the kubeconfig,
 * credentials, libcurl's TLS setup, Status bodies, the watch and log
 * streams, and exec over WebSocket. What the API module (api_k8s.c) and
 * the CLI build on; it knows no paths of the API but exec's, and no
 * objects but Status. The reference is shared/reference/kubernetes-api.md
 * (cited as §N).
 *
 * Conventions, as in the rest of lib/: nothing here prints or exits; a
 * call returns PAI_OK (or a documented positive value) or a negative
 * PAI_E* code and then, when `err` is not NULL, a one-line English
 * detail in err->msg. No detail, and no trace line, ever holds a token,
 * a password, a key or the base64 of one. Outputs are NULL on entry;
 * "new" means the caller frees, with the function named; "borrowed"
 * says until when it stays valid. Nothing here is thread-safe beyond
 * "one object, one thread at a time".
 *
 * The files (each kube_*.c: ar keeps objects by their base name, and
 * lib/client/ has its own status.c):
 *   kube_err.c     error details
 *   kube_time.c    RFC 3339 times
 *   kube_server.c  the server's URL, split once (§1.3)
 *   kube_path.c    paths in kubeconfig files (§1.2)
 *   kube_yaml.c    a small YAML tree for kubeconfig files (libyaml)
 *   kube_config.c  which files, merging, the context (§1.1, 1.2, 1.6)
 *   kube_fields.c  a cluster's and a user's fields (§1.3, 1.4)
 *   kube_cred.c    token, tokenFile, in-cluster token (§1.4, 1.6)
 *   kube_plugin.c  exec credential plugins (§1.5)
 *   kube_curl.c    libcurl's TLS, proxy and headers (§1.3)
 *   kube_status.c  Status and other error bodies (§2.3)
 *   kube_watch.c   the watch stream (§3) and the log stream (§6)
 *   kube_ws.c      RFC 6455 framing, the handshake, exec's channels (§7)
 *   kube_exec.c    exec's session over the upgraded connection: the pump
 */
#ifndef PAI_KUBE_H
#define PAI_KUBE_H

#include "sys/sys.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- errors (kube_err.c) -------------------------------------------- */

#define PAI__KUBE_ERR_MAX 512

/* A fixed buffer: an error path never needs memory. */
typedef struct pai__kube_err {
	char msg[PAI__KUBE_ERR_MAX];
} pai__kube_err;

/* Sets err->msg (when err is not NULL; control characters as '?') and
 * returns code. */
int pai__kube_fail(pai__kube_err *err, int code, const char *fmt, ...)
    PAI__PRINTF(3, 4);

/* ---- times (kube_time.c) ------------------------------------------- */

/* An instant: seconds since the epoch and nanoseconds. */
typedef struct pai__kube_time {
	int64_t sec;
	long nsec;
} pai__kube_time;

/* Parses RFC 3339 (Go's time.RFC3339Nano accepts: "T", fraction of
 * 1-9 digits optional, "Z" or +hh:mm). Returns the bytes parsed, or 0
 * when s does not start with such a time. */
size_t pai__kube_time_parse(pai__kube_time *t, const char *s, size_t n);
/* <0, 0, >0 as a is before, equal to, after b. */
int pai__kube_time_cmp(const pai__kube_time *a, const pai__kube_time *b);



/* ---- YAML (kube_yaml.c) ---------------------------------------------- */

/* A kubeconfig is read by go-yaml (through sigs.k8s.io/yaml) into Go
 * types, not by js-yaml into JavaScript values as protocol-v2 jobs are
 * (lib/text/yaml.c): so the tree keeps each scalar's text and whether
 * it was plain, and the reader resolves it by the field's type
 * (pai__kube_ybool for booleans; strings take any scalar's text). */
enum pai__kube_ytype { PAI__KY_SCALAR, PAI__KY_MAP, PAI__KY_SEQ };

typedef struct pai__kube_ynode {
	int type;      /* enum pai__kube_ytype */
	unsigned line; /* 1-based, where the node starts */
	int plain;     /* a scalar written without quotes */
	char *text;    /* a scalar's text, NUL-terminated (may hold NULs) */
	size_t len;    /* its length */
	size_t n;      /* a map's pairs, a sequence's items */
	size_t refs;   /* aliases share nodes: freed at 0 */
	struct pai__kube_ynode **kids; /* map: key0, value0, key1, ...;
					* sequence: the items */
} pai__kube_ynode;

/* The first document of file `name`. An alias shares its anchor's node
 * (a billion-laughs file costs nothing until walked: pai__kube_yjson
 * counts). Bounded: at most pai__kube_yaml_max_depth levels and
 * pai__kube_yaml_max_nodes nodes. *out new (pai__kube_ynode_free), NULL
 * for an empty document. PAI_ESYNTAX (PAI_ETOOBIG past a bound) with
 * the detail "NAME:LINE: what"; PAI_ENOMEM. */
int pai__kube_yaml_parse(pai__kube_ynode **out, const char *name,
			 const char *text, size_t len, pai__kube_err *err);
void pai__kube_ynode_free(pai__kube_ynode *node);
extern const unsigned pai__kube_yaml_max_depth;
extern const size_t pai__kube_yaml_max_nodes;

/* The value of key in map (the last such key, as go-yaml's decoder
 * leaves it), or NULL; NULL too when map is not a map. Borrowed. */
const pai__kube_ynode *pai__kube_yget(const pai__kube_ynode *map,
				      const char *key);
/* 1 for null: no node, or a plain "", "~", "null", "Null", "NULL". */
int pai__kube_ynull(const pai__kube_ynode *node);
/* YAML 1.1's booleans as go-yaml v2 reads them (true, yes, on, y, ...
 * and their capitalised forms; plain scalars only): 1 or 0 into *out
 * and PAI_OK, else PAI_EINVAL. */
int pai__kube_ybool(const pai__kube_ynode *node, int *out);
/* The node as JSON, plain scalars resolved as go-yaml resolves them
 * (null, bool, int, float): an exec plugin's spec.cluster.config. New
 * reference, or NULL when out of memory or past
 * pai__kube_yaml_max_nodes nodes with aliases expanded. */
json_t *pai__kube_yjson(const pai__kube_ynode *node);

/* Field key of map as a string: *out new, NULL when absent, null or ""
 * (Go's zero value: "not set"). PAI_ESYNTAX "FILE:LINE: KEY must be a
 * string" for a map or sequence, or one holding a NUL; PAI_ENOMEM. */
int pai__kube_ystr(char **out, const pai__kube_ynode *map, const char *key,
		   const char *file, pai__kube_err *err);

/* ---- kubeconfig (kube_config.c, kube_fields.c) ----------------------- */

enum pai__kube_interactive {
	PAI__KUBE_INTERACTIVE_NEVER,
	PAI__KUBE_INTERACTIVE_IF_AVAILABLE,
	PAI__KUBE_INTERACTIVE_ALWAYS
};

/* users[].user.exec (§1.5). */
typedef struct pai__kube_plugin {
	char *command; /* a path (relative ones resolved against the
			* defining file's folder), or a bare name
			* looked up in $PATH when run */
	char **args;   /* nargs strings */
	size_t nargs;
	char **env; /* "NAME=value", nenv of them, added to ours */
	size_t nenv;
	char *api_version;  /* client.authentication.k8s.io/v1beta1 or /v1 */
	char *install_hint; /* or NULL */
	int provide_cluster_info;
	int interactive_mode;	/* enum pai__kube_interactive */
	json_t *cluster_config; /* the cluster's extension
				 * client.authentication.k8s.io/exec, or
				 * NULL (new reference, the config's) */
} pai__kube_plugin;

/* The server's parts: scheme ("http"/"https"), host (IPv6 without
 * brackets), port (explicit or the scheme's), "host:port" as the URL
 * wrote it, and the path prefix ("" or "/x"). All new. PAI_EINVAL,
 * PAI_ENOMEM. */
typedef struct pai__kube_server {
	char *scheme, *host, *authority, *prefix;
	long port;
} pai__kube_server;
/* The chosen context, resolved: everything a request needs (§1.3, 1.4,
 * 1.6). Strings are NULL when not set; data fields hold decoded bytes,
 * NUL-terminated, which win over the files. */
typedef struct pai__kube_config {
	char *context;	 /* the context's name; NULL in-cluster */
	char *cluster;	 /* its cluster's name; NULL in-cluster */
	char *user;	 /* its user's name; NULL for none */
	char *origin;	 /* the file that defined the context, or
			  * "in-cluster", for messages */
	char *server;	 /* scheme://host[:port][/prefix], no final '/' */
	pai__kube_server srv; /* its parts, split once at load */
	char *namespace; /* the profile's, the context's, or "default" */
	char *ca_file;
	unsigned char *ca_data;
	size_t ca_len;
	int insecure; /* never together with a CA: refused at load */
	char *tls_server_name;
	char *proxy_url;
	char *cert_file, *key_file;
	unsigned char *cert_data, *key_data;
	size_t cert_len, key_len;
	char *token;	  /* static, or an oidc id-token */
	char *token_file; /* wins over token whenever readable (§1.4) */
	char *username, *password; /* HTTP Basic, for front proxies */
	pai__kube_plugin *exec;
	char *impersonate;	   /* as */
	char **impersonate_groups; /* as-groups */
	size_t nimpersonate_groups;
	int in_cluster;
} pai__kube_config;

/* Where pai__kube_config_load looks. Every string is borrowed for the
 * call only. The environment is read only through these fields:
 * pai__kube_load_opts_env() fills them from getenv(), a test sets them. */
typedef struct pai__kube_load_opts {
	const char *kubeconfig;	    /* an explicit file: only it; missing is an
				     * error (§1.1) */
	const char *context;	    /* NULL: the current-context */
	const char *namespace;	    /* a profile's namespace: wins over all */
	const char *env_kubeconfig; /* $KUBECONFIG */
	const char *home;	    /* $HOME */
	const char *service_host;   /* $KUBERNETES_SERVICE_HOST */
	const char *service_port;   /* $KUBERNETES_SERVICE_PORT */
	const char *pod_namespace;  /* $POD_NAMESPACE */
	const char *sa_dir;	    /* NULL: /var/run/secrets/kubernetes.io/
				     * serviceaccount */
} pai__kube_load_opts;

#define PAI__KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
/* Largest kubeconfig file read. */
#define PAI__KUBE_MAX_FILE ((size_t)16 << 20)

void pai__kube_load_opts_env(pai__kube_load_opts *o);

/*
 * Loads the kubeconfig as §1.1 says (the explicit file; else $KUBECONFIG,
 * ':'-separated, empties and duplicates dropped, missing files skipped;
 * else $HOME/.kube/config; else in-cluster when KUBERNETES_SERVICE_HOST,
 * _PORT and the token file are there), merges the files (§1.2: the
 * first file to name a cluster, user or context wins it whole; the first
 * non-empty current-context wins; relative paths against the folder of
 * the file that defined the entry), picks the context and resolves it.
 * *out new (pai__kube_config_free). Errors: PAI_ENOTFOUND (the explicit
 * file is missing; `context "X" does not exist`; no configuration at
 * all), PAI_ESYNTAX ("FILE:LINE: ..." for a file that does not parse or
 * holds the wrong types), PAI_EINVAL (a config client-go refuses too:
 * a CA with insecure-skip-tls-verify, two authentication methods, an
 * unsupported auth-provider, ...), PAI_EACCES/PAI_EIO/PAI_ETOOBIG
 * reading a file, PAI_ENOMEM.
 */
int pai__kube_config_load(pai__kube_config **out, const pai__kube_load_opts *o,
			  pai__kube_err *err);
void pai__kube_config_free(pai__kube_config *cfg);

/* kube_fields.c, for kube_config.c: the fields of a `cluster` and a
 * `user` map (either may be NULL) into cfg, relative paths against dir,
 * `file` for messages; the cluster's exec extension into *ext (new, or
 * NULL). */
int pai__kube_read_cluster(pai__kube_config *cfg, json_t **ext,
			   const pai__kube_ynode *cluster, const char *file,
			   const char *dir, pai__kube_err *err);
int pai__kube_read_user(pai__kube_config *cfg, const pai__kube_ynode *user,
			const char *file, const char *dir, pai__kube_err *err);
/* path as it is when absolute, else dir/path, cleaned (kube_path.c);
 * *out new. PAI_ENOMEM. */
int pai__kube_resolve(char **out, const char *dir, const char *path);

/* ---- the server's URL (kube_server.c) -------------------------------- */

/* The request URL of path_query ("/api/v1/..." with its query) on the
 * cluster: the server with its path prefix, its host replaced by
 * tls-server-name when one is set (pai__kube_curl_setup connects to the
 * real host); the client's base URI, the path appended to it for every
 * request. *out new (free). PAI_ENOMEM. */
int pai__kube_url(char **out, const pai__kube_config *cfg,
		  const char *path_query);

/* server split into *s (pai__kube_server above); PAI_EINVAL for what
 * is not an http or https URL with a host, PAI_ENOMEM. */
int pai__kube_server_split(pai__kube_server *s, const char *server);
void pai__kube_server_release(pai__kube_server *s);

/* ---- credentials (kube_cred.c, kube_plugin.c) ------------------------ */

typedef struct pai__kube_cred pai__kube_cred;

typedef struct pai__kube_cred_opts {
	long plugin_timeout_ms; /* 0: 60 s; then the plugin is killed */
	int stdin_fd;		/* the input a plugin may use for a prompt (a
				 * terminal), -1 for none */
	/* the clock for expiry and for re-reading token files (tests move
	 * it); NULL: time(NULL) */
	time_t (*now)(void);
} pai__kube_cred_opts;
#define PAI__KUBE_CRED_OPTS_INIT                                               \
	{                                                                      \
		0, 0, NULL                                                     \
	}

/* How often a token file is read again (client-go: every minute). */
#define PAI__KUBE_TOKEN_FILE_TTL 60

/* What to send now. The pointers are the credential source's: valid
 * until its next call. */
typedef struct pai__kube_auth {
	const char *authorization; /* "Bearer ..." or "Basic ...", or NULL */
	/* a client certificate and key from an exec plugin (PEM), which win
	 * over the kubeconfig's; NULL when it gave none */
	const unsigned char *cert, *key;
	size_t cert_len, key_len;
	/* changes whenever the credential does: hand it back with a 401 */
	unsigned long generation;
} pai__kube_auth;

/* A credential source for cfg (borrowed: it must outlive the source).
 * *out new (pai__kube_cred_free). opts may be NULL. PAI_ENOMEM. */
int pai__kube_cred_new(pai__kube_cred **out, const pai__kube_config *cfg,
		       const pai__kube_cred_opts *opts);
void pai__kube_cred_free(pai__kube_cred *cred);

/*
 * The current credential: a token file read again when older than a
 * minute or after a 401 (the static token only when the file cannot be
 * read), an exec plugin's output cached until its expirationTimestamp,
 * or the in-cluster token file. PAI_OK; PAI_EAUTH when the plugin fails
 * or answers what client-go refuses (the detail says which, with the
 * installHint when the command is missing), PAI_ETIMEOUT when it does
 * not finish in time, PAI_EACCES/PAI_ENOTFOUND when a token file that is
 * the only credential cannot be read, PAI_ENOMEM.
 */
int pai__kube_cred_get(pai__kube_cred *cred, pai__kube_auth *out,
		       pai__kube_err *err);

/* After a 401 to a request sent with credential `generation`: 1 when a
 * fresh credential can be had (the plugin will run again, the token file
 * is read again): retry the request once; 0 when nothing can change (a
 * static token; or a plugin that already ran for this 401): report
 * PAI_EAUTH. */
int pai__kube_cred_unauthorized(pai__kube_cred *cred, unsigned long generation);

/* What an exec plugin gave (pai__kube_plugin_parse). */
typedef struct pai__kube_plugin_out {
	char *token;		   /* or NULL */
	unsigned char *cert, *key; /* PEM, NUL-terminated, or NULL */
	size_t cert_len, key_len;
	int has_expiry;
	pai__kube_time expiry;
} pai__kube_plugin_out;

/* Checks a plugin's stdout as client-go does (an ExecCredential of the
 * same apiVersion, a status, a token or both of cert and key, an
 * RFC 3339 expirationTimestamp). *out filled (release with
 * pai__kube_plugin_out_release). PAI_EAUTH with the reason, PAI_ENOMEM. */
int pai__kube_plugin_parse(pai__kube_plugin_out *out, const char *api_version,
			   const char *text, size_t len, pai__kube_err *err);
void pai__kube_plugin_out_release(pai__kube_plugin_out *out);

/* KUBERNETES_EXEC_INFO for cfg's plugin: an ExecCredential of its
 * apiVersion with spec.interactive and (provideClusterInfo) spec.cluster.
 * New string, or NULL when out of memory (or a CA file unreadable:
 * then *err_code says which). */
char *pai__kube_exec_info(const pai__kube_config *cfg, int interactive,
			  int *err_code, pai__kube_err *err);

/* Runs cfg's plugin once: no shell, our environment plus exec.env plus
 * KUBERNETES_EXEC_INFO, stdin per interactiveMode (stdin_fd when it is
 * a terminal), stderr passed through, stdout (at most 1 MiB) parsed by
 * pai__kube_plugin_parse. Killed after timeout_ms. */
int pai__kube_plugin_run(pai__kube_plugin_out *out, const pai__kube_config *cfg,
			 int stdin_fd, long timeout_ms, pai__kube_err *err);

/* ---- libcurl (kube_curl.c) ------------------------------------------- */

/* curl.h is reached through sys/dl_curl.h (libcurl is opened when first
 * needed); only kube_curl.c and kube_exec.c include it. */
typedef void CURL;
struct curl_slist;

/*
 * Sets h's TLS (CA file or blob, client certificate and key, from auth
 * when the plugin gave them, else the kubeconfig's, file or blob),
 * verification (always on unless insecure-skip-tls-verify), the
 * tls-server-name (CURLOPT_CONNECT_TO from the name in pai__kube_url()'s
 * URL to the real host), and the proxy (proxy-url, else curl's
 * https_proxy/http_proxy). Not the URL, method or headers. *connect_to
 * new (or NULL): keep it until h is done, then curl_slist_free_all().
 * The blobs are copied into h. PAI_ELIBRARY (no libcurl), PAI_EINVAL
 * (an option libcurl refuses), PAI_ENOMEM.
 */
int pai__kube_curl_setup(CURL *h, struct curl_slist **connect_to,
			 const pai__kube_config *cfg,
			 const pai__kube_auth *auth, pai__kube_err *err);

/* The headers every request carries: Authorization (auth's), the
 * impersonation headers, and Host (the server's) when tls-server-name
 * moved the URL's host. pai__kube_headers appends them to *list (which
 * stays the caller's, valid whatever happens); pai__kube_header_text to
 * b as "Name: value\r\n" lines, Host left out. PAI_EINVAL when a value
 * holds a line break or control character (nothing added), PAI_ENOMEM,
 * PAI_ELIBRARY. A trace must mask the Authorization line. */
int pai__kube_headers(struct curl_slist **list, const pai__kube_config *cfg,
		      const pai__kube_auth *auth);
int pai__kube_header_text(pai__buf *b, const pai__kube_config *cfg,
			  const pai__kube_auth *auth);

/* ---- Status and error bodies (kube_status.c) -------------------------- */

/* What an answer's body was (§2.3). */
enum pai__kube_body {
	PAI__KB_EMPTY,	   /* no body */
	PAI__KB_STATUS,	   /* a JSON Status */
	PAI__KB_JSON,	   /* JSON, but not a Status */
	PAI__KB_NOT_FOUND, /* text/plain "404 page not found": the group or
			    * version is not served (a CRD not installed) */
	PAI__KB_TEXT,	   /* other plain text (429's, a kubelet's) */
	PAI__KB_HTML	   /* a proxy's HTML page */
};

typedef struct pai__kube_cause {
	char *reason, *field, *message; /* each may be NULL */
} pai__kube_cause;

typedef struct pai__kube_status {
	long code;     /* the Status's code, else the HTTP status */
	long http;     /* the HTTP status (0: none, as in a watch event) */
	int body;      /* enum pai__kube_body */
	char *status;  /* "Success", "Failure" or NULL */
	char *reason;  /* "NotFound", ... or NULL */
	char *message; /* never NULL after a parse: one line, control
			* characters escaped, at most ~1000 bytes */
	char *name, *kind, *group; /* details, each may be NULL */
	pai__kube_cause *causes;
	size_t ncauses;
	long retry_after; /* seconds: details.retryAfterSeconds, else the
			   * Retry-After header given, else -1 */
} pai__kube_status;

/* Fills st (zeroed, or released before) from an answer: JSON only when
 * the Content-Type is application/json. retry_after_header: the
 * Retry-After seconds, or -1. PAI_OK, PAI_ENOMEM. */
int pai__kube_status_parse(pai__kube_status *st, long http_status,
			   const char *content_type, const char *body,
			   size_t len, long retry_after_header);
/* Fills st from a Status already parsed (a watch ERROR event, exec's
 * channel 3; it may lack kind): st is overwritten; http_status when it
 * carries no code. PAI_OK, PAI_ENOMEM. */
int pai__kube_status_from_json(pai__kube_status *st, const json_t *obj,
			       long http_status);
void pai__kube_status_release(pai__kube_status *st);
/* The PAI_E* an error Status maps to (a body never turns an HTTP
 * failure into a success): 401 PAI_EAUTH, 403
 * PAI_EFORBIDDEN, 404 PAI_ENOTFOUND, 409 PAI_ECONFLICT, 422
 * PAI_EINVALID, any other PAI_EHTTP (410: relist; 429 and 5xx: retry
 * after retry_after, §2.3); PAI_OK for 2xx. */
int pai__kube_status_error(const pai__kube_status *st);
/* A 422's causes as "field: message" lines, each ending in '\n' (the
 * field left out when it has none), as §2.3 says to show them; new, or
 * NULL when there is no cause or memory ran out. */
char *pai__kube_status_causes(const pai__kube_status *st);

/* ---- the watch and the log stream (kube_watch.c) ---------------------- */

enum pai__kube_event_type {
	PAI__KW_ADDED = 1,
	PAI__KW_MODIFIED,
	PAI__KW_DELETED,
	PAI__KW_BOOKMARK,
	PAI__KW_ERROR
};

typedef struct pai__kube_event {
	int type;		      /* enum pai__kube_event_type */
	json_t *object;		      /* new reference */
	const char *resource_version; /* the object's, borrowed from it;
				       * NULL for ERROR */
	pai__kube_status status;      /* ERROR: its Status */
	int expired;		      /* ERROR with code 410: relist (§3) */
} pai__kube_event;

void pai__kube_event_release(pai__kube_event *ev);

typedef struct pai__kube_watch pai__kube_watch;

/* Largest event line held (an object in etcd is at most ~1.5 MB). */
#define PAI__KUBE_MAX_EVENT ((size_t)16 << 20)

/* A splitter for one watch response. max_line 0: PAI__KUBE_MAX_EVENT.
 * *out new (pai__kube_watch_free). PAI_ENOMEM. */
int pai__kube_watch_new(pai__kube_watch **out, size_t max_line);
void pai__kube_watch_free(pai__kube_watch *w);
/* Hands over the next bytes, cut anywhere. PAI_ETOOBIG once an event
 * grows past max_line; PAI_ENOMEM. */
int pai__kube_watch_feed(pai__kube_watch *w, const void *data, size_t len,
			 pai__kube_err *err);
/* The stream ended: a last event without its newline still counts. */
void pai__kube_watch_eof(pai__kube_watch *w);
/* 1 and *ev filled (release it) when an event is complete; 0 when more
 * bytes are needed (after eof: the stream is over); PAI_EPROTOCOL for a
 * line that is not an event (the detail says what; the stream cannot be
 * trusted further: re-watch), or for a stream that ended inside one;
 * PAI_ENOMEM. */
int pai__kube_watch_next(pai__kube_watch *w, pai__kube_event *ev,
			 pai__kube_err *err);

/* The log stream of one container (§6), split into lines; with
 * timestamps, also what a resumed `follow` must not print twice. */
typedef struct pai__kube_log pai__kube_log;

typedef struct pai__kube_log_line {
	const char *ts; /* the timestamp as sent, or NULL (no timestamps,
			 * or a piece after an overlong line's first) */
	size_t ts_len;
	const char *text; /* the line after the timestamp and its space */
	size_t len;	  /* without the newline */
	int newline;	  /* the line ended here ('\n') */
} pai__kube_log_line;

/* Lines longer than this come in pieces (newline 0). */
#define PAI__KUBE_MAX_LOG_LINE ((size_t)1 << 20)

/* timestamps: the request had timestamps=true. max_line 0:
 * PAI__KUBE_MAX_LOG_LINE (at least 64). *out new (pai__kube_log_free). */
int pai__kube_log_new(pai__kube_log **out, int timestamps, size_t max_line);
void pai__kube_log_free(pai__kube_log *l);
int pai__kube_log_feed(pai__kube_log *l, const void *data, size_t len);
/* 1 and *line filled (borrowed until the next call) for the next thing
 * to print; 0 when more bytes are needed. Lines a resume has already
 * printed are skipped here. */
int pai__kube_log_next(pai__kube_log *l, pai__kube_log_line *line);
/* The stream ended for good: next() gives what is left, unterminated. */
void pai__kube_log_end(pai__kube_log *l);
/* The connection dropped: what is left of a line is dropped (it comes
 * again), and the next stream (opened with sinceTime from
 * pai__kube_log_since) is read without what was printed: lines before
 * the last printed timestamp T, and the first k lines at T, k being how
 * many were printed at T (the rest of a line printed in part resumes
 * where it stopped). */
void pai__kube_log_resume(pai__kube_log *l);
/* sinceTime for the request that resumes: T to the second, in UTC
 * ("2026-11-25T23:00:00Z"; the apiserver truncates to seconds anyway).
 * 1 and out filled, or 0 when no timestamped line was printed yet (open
 * from the start again). */
int pai__kube_log_since(const pai__kube_log *l, char out[32]);

/* ---- WebSocket and exec's channels (kube_ws.c) ------------------------ */

enum pai__kube_ws_opcode {
	PAI__WS_CONT = 0,
	PAI__WS_TEXT = 1,
	PAI__WS_BINARY = 2,
	PAI__WS_CLOSE = 8,
	PAI__WS_PING = 9,
	PAI__WS_PONG = 10
};

/* The bytes of a client frame with n bytes of payload. */
size_t pai__kube_ws_frame_len(size_t n);
/* Writes one final client frame (FIN set), masked with mask, into out
 * (pai__kube_ws_frame_len(n) bytes). Returns the bytes written. */
size_t pai__kube_ws_frame(unsigned char *out, int opcode,
			  const unsigned char mask[4], const void *payload,
			  size_t n);

/* The server's frames decoded into messages: continuations reassembled,
 * control frames handed over one by one. */
typedef struct pai__kube_ws_dec {
	pai__buf in; /* bytes not yet decoded, from in_off */
	size_t in_off;
	pai__buf msg;	/* a fragmented message so far */
	int msg_op;	/* its opcode, 0: none under way */
	size_t max_msg; /* largest message (and frame) taken */
	pai__buf ctl;	/* the last control frame's payload */
} pai__kube_ws_dec;

typedef struct pai__kube_ws_msg {
	int opcode;		   /* TEXT, BINARY, CLOSE, PING, PONG */
	const unsigned char *data; /* borrowed until the next call */
	size_t len;
} pai__kube_ws_msg;

/* Largest message taken from a server by default. */
#define PAI__KUBE_WS_MAX_MSG ((size_t)4 << 20)

void pai__kube_ws_dec_init(pai__kube_ws_dec *d, size_t max_msg);
void pai__kube_ws_dec_release(pai__kube_ws_dec *d);
/* PAI_OK, PAI_ENOMEM. */
int pai__kube_ws_dec_feed(pai__kube_ws_dec *d, const void *data, size_t len);
/* 1 and *m when a message is complete; 0 when more bytes are needed;
 * PAI_EPROTOCOL (masked, reserved bits, unknown opcode, a broken
 * fragment sequence, a control frame over 125 bytes) with *close_code
 * 1002, or PAI_ETOOBIG with 1009: send that close and drop the
 * connection. PAI_ENOMEM. */
int pai__kube_ws_dec_next(pai__kube_ws_dec *d, pai__kube_ws_msg *m,
			  int *close_code, pai__kube_err *err);

/* The GUID of RFC 6455 §1.3. */
#define PAI__WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
/* Sec-WebSocket-Key: 16 random bytes in base64 (24 characters).
 * PAI_OK or PAI_ERROR. */
int pai__kube_ws_key(char out[25]);
/* Sec-WebSocket-Accept for key: base64(SHA-1(key GUID)). */
void pai__kube_ws_accept(char out[29], const char *key);

/* The subprotocols offered (§7): the server picks the first it has. */
#define PAI__KUBE_WS_PROTOCOLS "v5.channel.k8s.io, v4.channel.k8s.io"

/* Checks a 101 for key (client/upgrade.h reads its head): the upgrade
 * headers (upgrade_ok: Upgrade: websocket and Connection: upgrade),
 * the accept value, and a protocol we offered (NULL: none). 5 or 4
 * (the channel protocol's version), or PAI_EPROTOCOL with the
 * detail. */
int pai__kube_ws_check_101(int upgrade_ok, const char *accept,
			   const char *protocol, const char *key,
			   pai__kube_err *err);

/* exec's channels (§7). */
enum pai__kube_channel {
	PAI__KCH_STDIN = 0,
	PAI__KCH_STDOUT = 1,
	PAI__KCH_STDERR = 2,
	PAI__KCH_ERROR = 3,
	PAI__KCH_RESIZE = 4,
	PAI__KCH_CLOSE = 255 /* v5: [255, channel] closes that channel */
};

/* What channel 3's Status says (§7): PAI_OK with *exit_code (0 for
 * Success, the ExitCode cause for NonZeroExitCode); PAI_ERROR with the
 * message for any other failure (InternalError: the command could not
 * run, so there is no exit status to pass on); PAI_EPROTOCOL for what
 * is not such a Status. */
int pai__kube_exec_status(int *exit_code, const void *data, size_t len,
			  pai__kube_err *err);

/* ---- exec's session (kube_exec.c) ------------------------------------ */

/*
 * Why curl's CONNECT_ONLY and framing of our own, not libwebsockets:
 * Debian 12's libcurl (7.88) has no WebSocket (8.11 has), and the
 * connection must carry exactly the TLS every other request has (CA,
 * client certificate and key from the kubeconfig or a plugin,
 * tls-server-name, proxy): with CONNECT_ONLY, curl makes that connection
 * through the client's one seam (client/upgrade.h) and the frames go
 * over curl_easy_send/curl_easy_recv. The framing is some 300 lines,
 * pure functions over buffers (fuzzed), and adds no library to
 * install, dlopen or keep the credentials in step with.
 */
typedef struct pai__kube_exec pai__kube_exec;
struct pai__upgraded;

/* A peer quiet this long is sent a ping; one that has sent nothing for
 * PAI__KUBE_EXEC_DEAD_MS is gone (a connection frozen without a word:
 * the kubelet answers pings). */
#define PAI__KUBE_EXEC_PING_MS 10000
#define PAI__KUBE_EXEC_DEAD_MS 30000

/* The session over *up, a connection upgraded with a 101 the caller has
 * checked (pai__kube_ws_check_101), which it takes over (*up is left
 * empty); protocol 5 or 4; use_stdin: stdin is attached. *out new
 * (pai__kube_exec_free). PAI_OK, PAI_ENOMEM. */
int pai__kube_exec_attach(pai__kube_exec **out, struct pai__upgraded *up,
			  int protocol, int use_stdin);

/* 5 or 4: the channel protocol the server chose (v5 can close stdin). */
int pai__kube_exec_protocol(const pai__kube_exec *x);
/* What is queued for the server, in bytes: stdin is not read, nor a
 * ping answered, while it is PAI__KUBE_EXEC_OUT_MAX or more. */
#define PAI__KUBE_EXEC_OUT_MAX ((size_t)1 << 20)
size_t pai__kube_exec_queued(const pai__kube_exec *x);

/* Where pai__kube_exec_pump reads and writes; -1 for none. */
typedef struct pai__kube_exec_io {
	int in_fd;  /* read when readable, sent on channel 0; at its end
		     * stdin is closed (v5) or no longer read (v4) */
	int out_fd; /* channel 1 written here */
	int err_fd; /* channel 2 written here */
	/* Called on each block read from in_fd before it is sent (the
	 * "~." escapes of a terminal); may change it and *len, by one byte
	 * at most (buf has room). Non-zero ends the session: pump says 2.
	 * NULL: none. */
	int (*on_input)(void *data, char *buf, size_t *len);
	void *data;
} pai__kube_exec_io;

/*
 * Moves data for up to timeout_ms (-1: until something ends): frames in
 * (stdout/stderr written out, pings answered, a close echoed), stdin
 * out. 1 when the session is over (the exit status came, or the
 * connection ended: see pai__kube_exec_result), 2 when io's on_input
 * ended it, 0 when the time ran
 * out first, PAI_EINTR when poll was interrupted by a signal (SIGWINCH:
 * resize, then pump again), PAI_EPROTOCOL (a frame the protocol does
 * not allow, or a message over 4 MiB as PAI_ETOOBIG: a close is sent
 * and the connection is done), PAI_EUNREACHABLE or PAI_ETLS (sending
 * failed), PAI_EIO (reading in_fd or writing out_fd/err_fd failed),
 * PAI_ENOMEM.
 */
int pai__kube_exec_pump(pai__kube_exec *x, const pai__kube_exec_io *io,
			int timeout_ms, pai__kube_err *err);
/* Sends data on stdin (for a caller that reads its input itself: ~.
 * escapes). PAI_OK, PAI_EUNREACHABLE when the connection is gone. */
int pai__kube_exec_send(pai__kube_exec *x, const void *data, size_t len,
			pai__kube_err *err);
/* Closes stdin: 1 when sent (v5's CLOSE [255, 0]), 0 when the protocol
 * has no way (v4: then pass finite input in the command, §7), <0. */
int pai__kube_exec_close_stdin(pai__kube_exec *x, pai__kube_err *err);
/* The terminal's size, on channel 4 as {"Width":w,"Height":h}; send one
 * after opening a tty session and one per SIGWINCH. */
int pai__kube_exec_resize(pai__kube_exec *x, unsigned width, unsigned height,
			  pai__kube_err *err);
/* Once pump said 1: PAI_OK with *exit_code, PAI_ERROR (the command could
 * not run: InternalError's message), PAI_EUNREACHABLE (the connection
 * ended before any exit status), PAI_EPROTOCOL. */
int pai__kube_exec_result(const pai__kube_exec *x, int *exit_code,
			  pai__kube_err *err);
/* Sends a close (1000) if the session is still open, and frees. */
void pai__kube_exec_free(pai__kube_exec *x);

#endif /* PAI_KUBE_H */
