/* bash.c - a command as bash in the task reads it: the variable
 * references it would expand (not in single quotes, not after a
 * backslash, not in a comment or a quoted here-document), the names it
 * assigns, and the command with the references an environment defines
 * substituted. Every runtime runs its commands through bash; this is
 * what they share of it, with the variables a task may rely on without
 * the job defining them. */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

#define NO_WORD ((size_t)-1)

static bool is_name_start(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* strchr() finds the terminating NUL too; this does not. */
static bool is_one_of(int c, const char *set)
{
	return c && strchr(set, c);
}

static bool is_name(const char *s, size_t n)
{
	size_t i;

	if (!n || !is_name_start((unsigned char)s[0]))
		return false;
	for (i = 1; i < n; i++)
		if (!pai__is_name_char((unsigned char)s[i]))
			return false;
	return true;
}

/* ---- the scanner -------------------------------------------------------- */

/* A $NAME or ${NAME...} that bash would expand. */
struct ref {
	size_t at, end;	  /* the '$', and one past the reference */
	const char *name; /* not NUL-terminated */
	size_t len;
	bool expand; /* $NAME or ${NAME}, not inside any ${...} operator form */
	bool check;  /* used as is: not ${NAME:-default} and the like */
};

enum word_kind {
	W_PLAIN,  /* an unquoted literal word */
	W_OTHER,  /* a word with quotes or expansions */
	W_ASSIGN, /* NAME= (or NAME+=, NAME[) starting a word: w is NAME */
	W_SEP	  /* ; & | ( ) or a newline: a new command may start */
};

struct scan_ops {
	void *data;
	int (*ref)(void *data, const struct ref *r);
	int (*word)(void *data, enum word_kind kind, const char *w, size_t n);
};

/* Where the scanner stands: shell text (the top level, $(...) or
 * `...`), double quotes, or the rest of a ${...} operator form. */
enum ctx_kind { CTX_SHELL, CTX_DQ, CTX_BRACE };

struct ctx {
	enum ctx_kind kind;
	char close;   /* CTX_SHELL: 0 at the top, ')' in $(...), '`' */
	bool in_dq;   /* CTX_BRACE: the ${ stands inside double quotes */
	size_t depth; /* CTX_SHELL in $(...): '(' still open inside */
	size_t word;  /* CTX_SHELL: start of the current word, or NO_WORD */
	bool plain;   /* CTX_SHELL: the word is unquoted literal text */
	bool arith;   /* CTX_SHELL in $((...)): "<<" shifts, "#" is a base */
};

struct heredoc {
	char *delim;
	bool strip;  /* <<- : leading tabs do not count */
	bool quoted; /* a quoted delimiter: the body is literal */
};

struct scan {
	const char *s;
	size_t len;
	const struct scan_ops *ops;
	struct ctx *stack;
	size_t depth, cap;
	size_t braces; /* CTX_BRACE entries on the stack */
	struct heredoc *hd;
	size_t nhd, hdcap;
	int err;
};

static struct ctx *top(struct scan *sc)
{
	return &sc->stack[sc->depth - 1];
}

static void push(struct scan *sc, enum ctx_kind kind, char close, size_t depth)
{
	struct ctx *c;

	if (sc->depth == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 16;
		struct ctx *v = realloc(sc->stack, cap * sizeof(*v));

		if (!v) {
			sc->err = PAI_ENOMEM;
			return;
		}
		sc->stack = v;
		sc->cap = cap;
	}
	c = &sc->stack[sc->depth];
	c->kind = kind;
	c->close = close;
	c->in_dq = false;
	c->depth = depth;
	c->word = NO_WORD;
	c->plain = false;
	c->arith = false;
	if (kind == CTX_BRACE) {
		/* bash does not honour single quotes in the word of a
		 * "${x:-...}": keep track of the quotes it stands in */
		c->in_dq =
		    sc->depth > 0 && (sc->stack[sc->depth - 1].kind == CTX_DQ ||
				      sc->stack[sc->depth - 1].in_dq);
		sc->braces++;
	}
	sc->depth++;
}

static void pop(struct scan *sc)
{
	if (sc->depth <= 1)
		return; /* a stray closer at the top level is text */
	if (top(sc)->kind == CTX_BRACE)
		sc->braces--;
	sc->depth--;
}

static void report_ref(struct scan *sc, size_t at, size_t end, size_t name,
		       size_t len, bool expand, bool check)
{
	struct ref r;

	if (sc->err || !sc->ops->ref)
		return;
	r.at = at;
	r.end = end;
	r.name = sc->s + name;
	r.len = len;
	r.expand = expand && sc->braces == 0;
	r.check = check;
	sc->err = sc->ops->ref(sc->ops->data, &r);
}

static void report_word(struct scan *sc, enum word_kind kind, size_t at,
			size_t n)
{
	if (!sc->err && sc->ops->word)
		sc->err = sc->ops->word(sc->ops->data, kind, sc->s + at, n);
}

static void end_word(struct scan *sc, size_t i)
{
	struct ctx *c = top(sc);

	if (c->kind != CTX_SHELL || c->word == NO_WORD)
		return;
	report_word(sc, c->plain ? W_PLAIN : W_OTHER, c->word, i - c->word);
	c->word = NO_WORD;
}

static size_t name_end(const char *s, size_t len, size_t i)
{
	while (i < len && pai__is_name_char((unsigned char)s[i]))
		i++;
	return i;
}

/* After the opening quote at i: one past the closing one. */
static size_t squote_end(const char *s, size_t len, size_t i)
{
	const char *q = memchr(s + i + 1, '\'', len - i - 1);

	return q ? (size_t)(q - s) + 1 : len;
}

/* $'...' (ANSI-C quoting), from its quote at i: \' does not close it. */
static size_t ansi_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '\'')
			return i + 1;
	}
	return len;
}

/* The head of a ${...} at i ('$'): the name it uses and whether it is a
 * plain ${NAME}. Returns where the rest of the form starts (after the
 * '}' of a plain one). *nlen is 0 when the form names no variable, as
 * in ${1}, ${@} or ${!prefix*}. */
static size_t brace_head(const char *s, size_t len, size_t i, size_t *name,
			 size_t *nlen, bool *plain, bool *check)
{
	size_t j = i + 2, k;
	bool length = false;
	char op;

	*nlen = 0;
	*plain = *check = false;
	if (j + 1 < len && s[j] == '#' &&
	    is_name_start((unsigned char)s[j + 1])) {
		length = true; /* ${#NAME} */
		j++;
	}
	if (j >= len || !is_name_start((unsigned char)s[j]))
		return j;
	k = name_end(s, len, j);
	*name = j;
	*nlen = k - j;
	if (!length && k < len && s[k] == '}') {
		*plain = *check = true;
		return k + 1;
	}
	/* The default-value forms, ${NAME:-x} ${NAME=x} ${NAME:?x} ${NAME+x},
	 * exist to cope with an unset NAME: no warning for those. */
	op = k < len ? s[k] : 0;
	if (op == ':')
		op = k + 1 < len ? s[k + 1] : 0;
	*check = length || !is_one_of(op, "-=?+");
	return k;
}

static size_t dollar(struct scan *sc, size_t i, bool quoting)
{
	const char *s = sc->s;
	size_t len = sc->len, j, name = 0, nlen;
	char n = i + 1 < len ? s[i + 1] : 0;
	bool plain, check;

	if (is_name_start((unsigned char)n)) {
		j = name_end(s, len, i + 1);
		report_ref(sc, i, j, i + 1, j - i - 1, true, true);
		return j;
	}
	switch (n) {
	case '{':
		j = brace_head(s, len, i, &name, &nlen, &plain, &check);
		if (nlen)
			report_ref(sc, i, j, name, nlen, plain, check);
		if (!plain)
			push(sc, CTX_BRACE, '}', 0);
		return j;
	case '(':
		/* $(( arithmetic )) ends with "))": count its first '(' */
		if (i + 2 < len && s[i + 2] == '(') {
			push(sc, CTX_SHELL, ')', 1);
			if (!sc->err)
				top(sc)->arith = true;
			return i + 3;
		}
		push(sc, CTX_SHELL, ')', 0);
		return i + 2;
	case '\'': return quoting ? ansi_end(s, len, i + 1) : i + 1;
	case '"':
		if (!quoting)
			return i + 1;
		push(sc, CTX_DQ, '"', 0);
		return i + 2;
	}
	if (is_one_of(n, "$?#@*!-0123456789"))
		return i + 2; /* special and positional parameters */
	return i + 1;
}

/* <<[-]WORD at i (just past "<<"): remembers the here-document, whose
 * body starts on the next line. */
static size_t heredoc_op(struct scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t len = sc->len;
	pai__buf d = PAI__BUF_INIT;
	struct heredoc h = {NULL, false, false};

	if (i < len && s[i] == '-') {
		h.strip = true;
		i++;
	}
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (i < len && !is_one_of(s[i], " \t\n;&|()<>")) {
		if (s[i] == '\'' || s[i] == '"') {
			const char *q = memchr(s + i + 1, s[i], len - i - 1);
			size_t e = q ? (size_t)(q - s) : len;

			pai__buf_put(&d, s + i + 1, e - i - 1);
			h.quoted = true;
			i = e < len ? e + 1 : len;
		} else if (s[i] == '\\' && i + 1 < len) {
			pai__buf_putc(&d, s[i + 1]);
			h.quoted = true;
			i += 2;
		} else {
			pai__buf_putc(&d, s[i++]);
		}
	}
	if (!d.len && !h.quoted) {
		pai__buf_release(&d);
		return i;
	}
	h.delim = pai__buf_detach(&d);
	if (!h.delim)
		goto oom;
	if (sc->nhd == sc->hdcap) {
		size_t cap = sc->hdcap ? sc->hdcap * 2 : 4;
		struct heredoc *v = realloc(sc->hd, cap * sizeof(*v));

		if (!v)
			goto oom;
		sc->hd = v;
		sc->hdcap = cap;
	}
	sc->hd[sc->nhd++] = h;
	return i;
oom:
	free(h.delim);
	sc->err = PAI_ENOMEM;
	return len;
}

/* One line of an unquoted here-document: like double quotes, but a '"'
 * is an ordinary character. $(...) in a body is left alone. */
static void heredoc_line(struct scan *sc, size_t p, size_t to)
{
	const char *s = sc->s;
	size_t e, name = 0, nlen;
	bool plain, check;

	while (p < to && !sc->err) {
		if (s[p] == '\\') {
			p += 2;
			continue;
		}
		if (s[p] != '$' || p + 1 >= to) {
			p++;
			continue;
		}
		if (is_name_start((unsigned char)s[p + 1])) {
			e = name_end(s, to, p + 1);
			report_ref(sc, p, e, p + 1, e - p - 1, true, true);
			p = e;
		} else if (s[p + 1] == '{') {
			e = brace_head(s, to, p, &name, &nlen, &plain, &check);
			if (nlen)
				report_ref(sc, p, e, name, nlen, plain, check);
			if (!plain) {
				const char *c = memchr(s + e, '}', to - e);

				e = c ? (size_t)(c - s) + 1 : to;
			}
			p = e;
		} else {
			p += 2;
		}
	}
}

/* The bodies of the pending here-documents, from i (the start of the
 * line after their operators); returns where the command goes on. */
static size_t heredoc_bodies(struct scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t len = sc->len, h;

	for (h = 0; h < sc->nhd; h++) {
		const struct heredoc *hd = &sc->hd[h];
		size_t dl = strlen(hd->delim);

		while (i < len) {
			const char *nl = memchr(s + i, '\n', len - i);
			size_t eol = nl ? (size_t)(nl - s) : len, ls = i;

			if (hd->strip)
				while (ls < eol && s[ls] == '\t')
					ls++;
			if (eol - ls == dl &&
			    memcmp(s + ls, hd->delim, dl) == 0) {
				i = nl ? eol + 1 : len;
				break;
			}
			if (!hd->quoted)
				heredoc_line(sc, i, eol);
			i = nl ? eol + 1 : len;
		}
	}
	for (h = 0; h < sc->nhd; h++)
		free(sc->hd[h].delim);
	sc->nhd = 0;
	return i;
}

/* Characters that end a run of plain text: in a word of the shell
 * (blanks, operators, quotes, escapes, expansions, the closers of
 * $( and `), and inside double quotes (DQ_STOP). A comment's '#' is
 * plain inside a word. */
enum { WORD_STOP = 1, DQ_STOP = 2 };
static const unsigned char stops[256] = {
    [' '] = WORD_STOP,	 ['\t'] = WORD_STOP, ['\n'] = WORD_STOP,
    ['<'] = WORD_STOP,	 ['>'] = WORD_STOP,  [';'] = WORD_STOP,
    ['&'] = WORD_STOP,	 ['|'] = WORD_STOP,  ['('] = WORD_STOP,
    [')'] = WORD_STOP,	 ['\''] = WORD_STOP, ['"'] = WORD_STOP | DQ_STOP,
    ['\\'] = WORD_STOP | DQ_STOP, ['`'] = WORD_STOP | DQ_STOP,
    ['$'] = WORD_STOP | DQ_STOP,
};

/* Past the run of characters at i that none of `stop` ends: most of a
 * command is such text, stepped over without a step each. */
static size_t plain_run(const struct scan *sc, size_t i, unsigned char stop)
{
	while (i < sc->len && !(stops[(unsigned char)sc->s[i]] & stop))
		i++;
	return i;
}

static size_t step_dq(struct scan *sc, size_t i)
{
	const char *s = sc->s;
	char ch = s[i];

	if (!(stops[(unsigned char)ch] & DQ_STOP))
		return plain_run(sc, i + 1, DQ_STOP);

	if (ch == '"') {
		pop(sc);
		return i + 1;
	}
	if (ch == '\\') /* only these are escaped inside double quotes */
		return i + 1 < sc->len && is_one_of(s[i + 1], "$`\"\\\n")
			   ? i + 2
			   : i + 1;
	if (ch == '`') {
		push(sc, CTX_SHELL, '`', 0);
		return i + 1;
	}
	if (ch == '$')
		return dollar(sc, i, false);
	return i + 1;
}

static size_t step_brace(struct scan *sc, size_t i)
{
	const char *s = sc->s;
	bool in_dq = top(sc)->in_dq;
	char ch = s[i];

	switch (ch) {
	case '}': pop(sc); return i + 1;
	case '\\': return i + 2 < sc->len ? i + 2 : sc->len;
	case '"': push(sc, CTX_DQ, '"', 0); return i + 1;
	case '\'': return in_dq ? i + 1 : squote_end(s, sc->len, i);
	case '`': push(sc, CTX_SHELL, '`', 0); return i + 1;
	case '$': return dollar(sc, i, !in_dq);
	}
	return i + 1;
}

/* One of ; & | ( ) < > at i: ends the word, and separates commands
 * unless it is a redirection. */
static size_t shell_operator(struct scan *sc, struct ctx *c, size_t i)
{
	const char *s = sc->s;
	char ch = s[i];

	end_word(sc, i);
	if (c->close == ')' && ch == '(')
		c->depth++;
	else if (c->close == ')' && ch == ')')
		c->depth--;
	/* 2>&1 is a redirection, not a separator */
	if (ch != '<' && ch != '>' &&
	    !(ch == '&' && i > 0 && (s[i - 1] == '>' || s[i - 1] == '<')))
		report_word(sc, W_SEP, i, 1);
	return i + 1;
}

/* A word starts at i: NAME=, NAME+= or NAME[ there assigns NAME. */
static void word_start(struct scan *sc, struct ctx *c, size_t i)
{
	const char *s = sc->s;
	size_t len = sc->len, k;

	c->word = i;
	c->plain = true;
	if (!is_name_start((unsigned char)s[i]))
		return;
	k = name_end(s, len, i);
	if (k < len && (s[k] == '=' || s[k] == '[' ||
			(s[k] == '+' && k + 1 < len && s[k + 1] == '=')))
		report_word(sc, W_ASSIGN, i, k - i);
}

/* A character of a word: quotes and expansions make it no plain word. */
static size_t word_char(struct scan *sc, struct ctx *c, size_t i)
{
	const char *s = sc->s;
	size_t len = sc->len;

	switch (s[i]) {
	case '\\': c->plain = false; return i + 2 < len ? i + 2 : len;
	case '\'': c->plain = false; return squote_end(s, len, i);
	case '"':
		c->plain = false;
		push(sc, CTX_DQ, '"', 0);
		return i + 1;
	case '`':
		c->plain = false;
		push(sc, CTX_SHELL, '`', 0);
		return i + 1;
	case '$': c->plain = false; return dollar(sc, i, true);
	}
	return i + 1;
}

static size_t step_shell(struct scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t len = sc->len;
	struct ctx *c = top(sc);
	char ch = s[i];

	if ((c->close == '`' && ch == '`') ||
	    (c->close == ')' && ch == ')' && c->depth == 0)) {
		end_word(sc, i);
		report_word(sc, W_SEP, i, 1);
		pop(sc);
		return i + 1;
	}
	if (ch == ' ' || ch == '\t') {
		end_word(sc, i);
		return i + 1;
	}
	if (ch == '\n') {
		end_word(sc, i);
		report_word(sc, W_SEP, i, 1);
		return sc->nhd ? heredoc_bodies(sc, i + 1) : i + 1;
	}
	if (ch == '#' && c->word == NO_WORD && !c->arith) { /* a comment */
		const char *nl = memchr(s + i, '\n', len - i);

		return nl ? (size_t)(nl - s) : len;
	}
	if (ch == '<' && i + 1 < len && s[i + 1] == '<' && !c->arith) {
		end_word(sc, i);
		if (i + 2 < len && s[i + 2] == '<')
			return i + 3; /* a here-string: its word is text */
		return heredoc_op(sc, i + 2);
	}
	if (is_one_of(ch, ";&|()<>"))
		return shell_operator(sc, c, i);
	if (c->word == NO_WORD)
		word_start(sc, c, i);
	else if (!(stops[(unsigned char)ch] & WORD_STOP))
		return plain_run(sc, i + 1, WORD_STOP);
	return word_char(sc, c, i);
}

/* Walks a command once, as bash would read it, reporting in order each
 * variable reference that bash would expand (not in single quotes, not
 * after a backslash, not in a comment or a quoted here-document) and the
 * words that may assign variables. An approximation of bash's grammar
 * that errs towards leaving text alone: whatever it cannot place is
 * literal. Linear in the length of the command. */
static int scan(const char *s, size_t len, const struct scan_ops *ops)
{
	struct scan sc;
	size_t i = 0, h;

	memset(&sc, 0, sizeof(sc));
	sc.s = s;
	sc.len = len;
	sc.ops = ops;
	push(&sc, CTX_SHELL, 0, 0);
	while (i < len && !sc.err) {
		switch (top(&sc)->kind) {
		case CTX_DQ: i = step_dq(&sc, i); break;
		case CTX_BRACE: i = step_brace(&sc, i); break;
		case CTX_SHELL: i = step_shell(&sc, i); break;
		}
	}
	/* words still open at the end (an unterminated quote included) */
	while (!sc.err && sc.depth > 0) {
		end_word(&sc, len);
		sc.depth--;
	}
	for (h = 0; h < sc.nhd; h++)
		free(sc.hd[h].delim);
	free(sc.hd);
	free(sc.stack);
	return sc.err;
}

/* ---- substitution ------------------------------------------------------- */

struct expander {
	const char *s;
	const pai_env *env;
	pai__buf out;
	size_t last; /* copied up to here */
};

static int expand_ref(void *data, const struct ref *r)
{
	struct expander *x = data;
	const struct var *v;

	if (!r->expand || !(v = pai__env_find(x->env, r->name, r->len)))
		return 0;
	pai__buf_put(&x->out, x->s + x->last, r->at - x->last);
	pai__buf_puts(&x->out, v->value);
	x->last = r->end;
	return x->out.oom ? PAI_ENOMEM : 0;
}

/* The command with every $NAME and ${NAME} that env defines replaced by
 * its value; everything else is left as written. */
static int expand_command(char **out, const char *cmd, const pai_env *env)
{
	struct expander x;
	struct scan_ops ops = {NULL, expand_ref, NULL};
	size_t len = strlen(cmd);
	int err;

	*out = NULL;
	memset(&x, 0, sizeof(x));
	x.s = cmd;
	x.env = env;
	ops.data = &x;
	err = scan(cmd, len, &ops);
	if (err)
		goto out;
	pai__buf_put(&x.out, cmd + x.last, len - x.last);
	*out = pai__buf_detach(&x.out);
	err = *out ? PAI_OK : PAI_ENOMEM;
out:
	pai__buf_release(&x.out);
	return err;
}

int pai__env_finish(pai_env *env, const char *command)
{
	if (pai__env_compact(env))
		return PAI_ENOMEM;
	free(env->command);
	env->command = NULL;
	return expand_command(&env->command, command, env);
}

/* ---- the variables no job needs to define ------------------------------- */

/* Variables a task may rely on without the job defining them: the
 * shell's own, the usual login environment, and what CUDA and Python
 * images set. Anything else must come from jobEnvs, the cluster or the
 * command itself, or the image (which paictl cannot see: a warning). */
const char *const pai__shell_vars[] = {
    "BASH",
    "BASHOPTS",
    "BASHPID",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_COMMAND",
    "BASH_LINENO",
    "BASH_REMATCH",
    "BASH_SOURCE",
    "BASH_SUBSHELL",
    "BASH_VERSINFO",
    "BASH_VERSION",
    "COLUMNS",
    "CONDA_DEFAULT_ENV",
    "CONDA_PREFIX",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_VISIBLE_DEVICES",
    "CUDNN_VERSION",
    "DIRSTACK",
    "DISPLAY",
    "EDITOR",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EUID",
    "FUNCNAME",
    "GROUPS",
    "HISTFILE",
    "HOME",
    "HOSTNAME",
    "HOSTTYPE",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "IFS",
    "LANG",
    "LANGUAGE",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "LIBRARY_PATH",
    "LINENO",
    "LINES",
    "LOGNAME",
    "MACHTYPE",
    "MAIL",
    "NO_PROXY",
    "NVIDIA_DRIVER_CAPABILITIES",
    "NVIDIA_VISIBLE_DEVICES",
    "OLDPWD",
    "OPTARG",
    "OPTERR",
    "OPTIND",
    "OSTYPE",
    "PAGER",
    "PATH",
    "PIPESTATUS",
    "PPID",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "PWD",
    "PYTHONHASHSEED",
    "PYTHONHOME",
    "PYTHONPATH",
    "PYTHONUNBUFFERED",
    "RANDOM",
    "REPLY",
    "SECONDS",
    "SHELL",
    "SHELLOPTS",
    "SHLVL",
    "SRANDOM",
    "TERM",
    "TMPDIR",
    "TZ",
    "UID",
    "USER",
    "VIRTUAL_ENV",
    "http_proxy",
    "https_proxy",
    "no_proxy",
};

const size_t pai__nshell_vars =
    sizeof(pai__shell_vars) / sizeof(pai__shell_vars[0]);

/* pai__shell_vars is sorted (as strcmp sorts): a binary search. */
bool pai__is_shell_var(const char *name, size_t n)
{
	size_t lo = 0, hi = pai__nshell_vars;

	if (n > 3 && strncmp(name, "LC_", 3) == 0)
		return true; /* the locale's LC_ALL, LC_CTYPE, ... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(pai__shell_vars[mid], name, n);

		if (c == 0 && pai__shell_vars[mid][n] == '\0')
			return true;
		if (c < 0 || c == 0) /* equal prefix: the entry is longer */
			c = c < 0 ? -1 : 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* ---- references and assignments ---------------------------------------- */

/* The state of one command's check: the distinct names it references
 * (first use of each, in order) and the names it assigns. */
struct refcheck {
	pai_env *seen;	   /* past REFS_LINEAR names, or NULL */
	pai_env *assigned;
	struct pai__cmd_ref *refs;
	size_t nrefs, cap;
	/* which words may name variables the command sets */
	enum { ST_CMD, ST_ARGS, ST_FOR, ST_NAMES, ST_PRINTF, ST_PRINTF_V } st;
	bool prefix_assign; /* the word is an assignment before a command */
};

/* Distinct names a command references that are told apart by a look at
 * each: a command's few; past them, a hash set (rc->seen). */
#define REFS_LINEAR 32

/* Whether the name of r is new to rc (1), seen before (0), or memory
 * ran out (-1). */
static int first_use(struct refcheck *rc, const struct ref *r)
{
	size_t i;

	if (rc->nrefs < REFS_LINEAR) {
		for (i = 0; i < rc->nrefs; i++)
			if (rc->refs[i].len == r->len &&
			    memcmp(rc->refs[i].name, r->name, r->len) == 0)
				return 0;
		return 1;
	}
	if (!rc->seen) {
		if (!(rc->seen = pai__env_new()))
			return -1;
		for (i = 0; i < rc->nrefs; i++)
			if (pai__env_add_once(rc->seen, rc->refs[i].name,
					      rc->refs[i].len) < 0)
				return -1;
	}
	return pai__env_add_once(rc->seen, r->name, r->len);
}

static int check_ref(void *data, const struct ref *r)
{
	struct refcheck *rc = data;
	int added;

	if (!r->check)
		return 0;
	added = first_use(rc, r);
	if (added <= 0)
		return added < 0 ? PAI_ENOMEM : 0;
	if (rc->nrefs == rc->cap) {
		size_t cap = rc->cap ? rc->cap * 2 : 16;
		void *v = realloc(rc->refs, cap * sizeof(*rc->refs));

		if (!v)
			return PAI_ENOMEM;
		rc->refs = v;
		rc->cap = cap;
	}
	rc->refs[rc->nrefs].at = r->at;
	rc->refs[rc->nrefs].len = r->len;
	rc->refs[rc->nrefs].name = r->name;
	rc->nrefs++;
	return 0;
}

static bool word_is(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strncmp(*list, w, n) == 0 && (*list)[n] == '\0')
			return true;
	return false;
}

/* Names a command sets: NAME=..., and the names after for, select, read,
 * local, declare, export and the like, and printf -v. Generous on
 * purpose: a missed assignment costs a false warning. */
static int check_word(void *data, enum word_kind kind, const char *w, size_t n)
{
	static const char *const keeps_cmd[] = {
	    "if",    "then", "else",	"elif",	   "do", "while",
	    "until", "time", "!",	"{",	   "}",	 "exec",
	    "nohup", "sudo", "command", "builtin", NULL};
	static const char *const loops[] = {"for", "select", NULL};
	static const char *const setters[] = {
	    "read",	"local",   "declare",	"typeset", "export",
	    "readonly", "mapfile", "readarray", "getopts", NULL};
	struct refcheck *rc = data;
	bool plain = kind == W_PLAIN;

	switch (kind) {
	case W_SEP: rc->st = ST_CMD; return 0;
	case W_ASSIGN:
		rc->prefix_assign = rc->st == ST_CMD;
		return pai__env_add_once(rc->assigned, w, n) < 0 ? PAI_ENOMEM
								 : 0;
	default: break;
	}
	if (rc->prefix_assign) { /* A=1 cmd: cmd is still the command */
		rc->prefix_assign = false;
		return 0;
	}
	switch (rc->st) {
	case ST_CMD:
		if (plain && word_is(w, n, keeps_cmd))
			rc->st = ST_CMD;
		else if (plain && word_is(w, n, loops))
			rc->st = ST_FOR;
		else if (plain && word_is(w, n, setters))
			rc->st = ST_NAMES;
		else if (plain && n == 6 && strncmp(w, "printf", 6) == 0)
			rc->st = ST_PRINTF;
		else
			rc->st = ST_ARGS;
		return 0;
	case ST_FOR:
	case ST_PRINTF_V: rc->st = ST_ARGS; break;
	case ST_NAMES: break;
	case ST_PRINTF:
		if (plain && n == 2 && strncmp(w, "-v", 2) == 0)
			rc->st = ST_PRINTF_V;
		return 0;
	case ST_ARGS: return 0;
	}
	/* a name the command sets: only words after for, read... are
	 * looked at, not every word of every command */
	if (plain && is_name(w, n) &&
	    pai__env_add_once(rc->assigned, w, n) < 0)
		return PAI_ENOMEM;
	return 0;
}

static void refcheck_release(struct refcheck *rc)
{
	pai_env_free(rc->seen);
	pai_env_free(rc->assigned);
	free(rc->refs);
	memset(rc, 0, sizeof(*rc));
}

int pai__command_refs(struct pai__cmd_ref **refs, size_t *nrefs,
		      pai_env *assigned, const char *cmd, size_t len)
{
	struct refcheck rc;
	struct scan_ops ops = {NULL, check_ref, check_word};
	int err;

	*refs = NULL;
	*nrefs = 0;
	memset(&rc, 0, sizeof(rc));
	rc.assigned = assigned;
	ops.data = &rc;
	err = scan(cmd, len, &ops);
	if (err)
		goto out;
	*refs = rc.refs;
	*nrefs = rc.nrefs;
	rc.refs = NULL;
out:
	rc.assigned = NULL; /* the caller's */
	refcheck_release(&rc);
	return err;
}
