/* text.h - bytes in: a config's text and where each value stands in it
 * (source.c), JSON with comments (json.c, json_fast.c), YAML as js-yaml
 * loads it (yaml.c), the diagnostics that point into the text (diag.c),
 * telling the formats apart (format.c), and the small helpers they share
 * (utf8.c, js.c, suggest.c, names.c). Stands on sys/ only. */
#ifndef PAI_TEXT_H
#define PAI_TEXT_H

#include "sys/sys.h"

/* A bash variable name character test: [A-Za-z0-9_]. */
static inline bool pai__is_name_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* ---- names (names.c) -------------------------------------------------- */

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? of at most max bytes, with '.' between
 * such labels when dots: a DNS-1123 label (max 63, no dots: a
 * namespace) or subdomain (max 253, dots: an object's name, a queue). */
int pai__dns_name(const char *s, size_t max, int dots);

/* ---- UTF-8 and hex digits (utf8.c) ------------------------------------ */

/* Length of the valid UTF-8 character at s (at most n bytes, n > 0), or
 * 0: overlong forms, surrogates and code points past U+10FFFF are not. */
size_t pai__utf8_len(const unsigned char *s, size_t n);
/* The value of hex digit c, or -1. */
int pai__hexval(int c);
/* Code point cp (at most U+10FFFF) as UTF-8 into out (4 bytes of room):
 * the bytes written. */
size_t pai__utf8_encode(char *out, unsigned long cp);

/* A number as JavaScript's String(x) writes it (js.c). */
void pai__put_js_number(pai__buf *b, double x);

/* ---- a config's text and the places in it (source.c) ----------------- */

/* The text of one config, comments blanked out (every byte keeps its
 * offset, so every line and column stays where it was). */
typedef struct pai__src {
	const char *name; /* file name for diagnostics (borrowed) */
	const char *orig; /* the text as given, for excerpts (borrowed) */
	char *text;	  /* orig itself, until jansson has to parse it
			   * (pai__src_parse): then an owned copy,
			   * NUL-terminated, comments blanked */
	int owned;	  /* text is a copy to free */
	int comments;	  /* a byte order mark or comments, which the copy
			   * for jansson blanks out */
	struct pai__span {
		size_t start, end; /* [start, end): a comment or the BOM */
	} * cmts;
	size_t ncmts, capcmts;
	/* Long string values, cut out of the text jansson parses (jtext) and
	 * decoded from orig after parsing: see pai__big_string in json.c. */
	struct pai__big {
		size_t open;  /* offset of the opening quote in text */
		size_t close; /* offset of the closing quote in text */
		size_t jopen; /* the opening quote's offset in jtext */
	} * bigs;
	size_t nbigs, capbigs;
	char *jtext; /* text with long strings cut to "" (owned), or NULL */
	size_t jlen;
	size_t len;
	size_t *lines; /* offsets of line starts, built on first use */
	size_t nlines;
	size_t *chars; /* code points before each PAI__CHARS_STEP bytes of
			* orig, built when a column is wanted on a long line */
	struct pai__arena *arena; /* the position tree's, when the fast
				   * parser built it */
} pai__src;

#define PAI__CHARS_STEP 4096

#define PAI__NO_OFFSET ((size_t)-1)

/* What a YAML node was before it became JSON (yaml.c). js-yaml gives
 * some values JSON has no word for; they are kept as the nearest JSON
 * value and marked here, so that type checks can judge them as the
 * server's JavaScript does. JSON nodes are always PAI__YK_PLAIN. */
enum pai__ykind {
	PAI__YK_PLAIN = 0,
	PAI__YK_DATE,	  /* a timestamp: a JS Date, kept as {} */
	PAI__YK_BINARY,	  /* !!binary: a Buffer, kept as {} */
	PAI__YK_NONFINITE /* .inf, -.inf, .nan: kept as a JSON real (0.0);
			   * the text at off says which */
};

/* Where one JSON value stands in the source. Objects' children carry the
 * decoded member key and its offset; arrays' children are in order. */
typedef struct pai__pos {
	size_t off;	/* first byte of the value */
	size_t key_off; /* object members: the key's opening quote (YAML: the
			 * key's first byte); else off */
	char *key;	/* object members: decoded key (owned); else NULL */
	struct pai__pos *child;
	/* 32 bits, beside the two below, to keep a node at 40 bytes: a
	 * 2,000-role config has 40,000 of them. The readers refuse more
	 * children (each takes at least two bytes of text). */
	uint32_t nchild;
	unsigned char ykind; /* enum pai__ykind */
	unsigned char arena; /* the root of a tree whose nodes and keys are
			      * in its source's arena (json_fast.c): freed
			      * with it, at once */
} pai__pos;

void pai__pos_release(pai__pos *pos);
/* The member `key` of an object node, or NULL. */
const pai__pos *pai__pos_member(const pai__pos *obj, const char *key);
/* Element i of an array node, or NULL. */
const pai__pos *pai__pos_index(const pai__pos *arr, size_t i);

void pai__src_release(pai__src *src);
/* 1-based line and column (in code points) of byte offset off; line 0
 * when off is past the end or memory ran out. Costs no walk over the
 * line, however long: a minified config is one line, and each of its
 * diagnostics asks. */
void pai__src_linecol(pai__src *src, size_t off, unsigned *line,
		      unsigned *column);
/* Where 1-based line `line` starts, and ends (its '\n', or the end of
 * the text). Only for a line that pai__src_linecol() returned. */
void pai__src_line_span(const pai__src *src, unsigned line, size_t *start,
			size_t *end);
/* The byte offset of a 1-based line and column (clamped to the text). */
size_t pai__src_offset(pai__src *src, unsigned line, unsigned column);
/* ---- JSON with comments (json.c, json_fast.c) ------------------------- */

/* String values longer than this many bytes take the fast path of
 * json.c (65536; tests/fuzz lowers it to compare both paths). */
extern size_t pai__big_string;

/* Checks what jansson would report less precisely (NUL bytes, invalid
 * UTF-8, unterminated comments) and finds the comments and long strings,
 * without copying the text (the caller keeps it until the release).
 * Returns PAI_OK, PAI_ENOMEM, or PAI_ESYNTAX after adding a diagnostic. */
int pai__src_init(pai__src *src, pai_diags *diags, const char *name,
		  const char *text, size_t len);

/* Parses src->text with jansson (rejecting duplicate keys) and builds
 * the position tree. PAI_ESYNTAX after adding a diagnostic, PAI_ENOMEM. */
int pai__src_parse(json_t **root, pai__pos *pos, pai__src *src,
		   pai_diags *diags);

/* pai__src_init() and pai__src_parse() as one: text[0..len) read into
 * *src (released by the caller whatever this returns), its value and
 * the position tree. Valid JSON takes one pass over the text. */
int pai__src_read(json_t **root, pai__pos *pos, pai__src *src,
		  pai_diags *diags, const char *name, const char *text,
		  size_t len);

/* pai__src_read() for a caller that reads the roles one at a time
 * (pai__json_fast_lean()): 1, with nothing read, when the text needs
 * more than the fast parser (then pai__src_read() says what). */
int pai__src_read_lean(json_t **root, pai__pos *pos, pai__src *src,
		       const char *name, const char *text, size_t len);

/* Source offset of the decoded character at index `idx` of the JSON
 * string literal whose opening quote is at `quote_off`. */
size_t pai__src_string_offset(const pai__src *src, size_t quote_off,
			      size_t idx);

/* The fast path of pai__src_parse() (json_fast.c): text[0..len) parsed
 * into *root and *pos in one pass when it is JSON that jansson takes
 * with the same result (with comments: once blanked out); PAI_OK, 1 when
 * it gives up (anything unusual, every error: jansson then parses and
 * says what is wrong), PAI_ENOMEM. pai__json_fast false turns it off
 * (tests compare both ways). */
extern bool pai__json_fast;
int pai__json_fast_parse(json_t **root, pai__pos *pos,
			 struct pai__arena **arena, const char *text,
			 size_t len, bool comments);
/* pai__json_fast_parse(), lean: the elements of the root's taskRoles
 * array get their places but no values (an empty array stands for it in
 * *root), for a caller that reads one role at a time with
 * pai__json_fast_value(): a config's roles are most of it. Their keys
 * are checked for duplicates all the same. */
int pai__json_fast_lean(json_t **root, pai__pos *pos,
			struct pai__arena **arena, const char *text,
			size_t len, bool comments);
/* The value whose places pai__json_fast_lean() recorded at at, read
 * from the same text: PAI_OK, PAI_ENOMEM (or 1, which cannot be: the
 * text was taken). */
int pai__json_fast_value(json_t **out, const char *text, size_t len,
			 const pai__pos *at);

/* ---- YAML as js-yaml loads it (yaml.c) -------------------------------- */

/* pai__src_init() for YAML: no comment blanking (YAML has its own), a
 * leading BOM dropped as the server does, NUL bytes and invalid UTF-8
 * refused with their place. PAI_OK, PAI_ENOMEM, or PAI_ESYNTAX after
 * adding a diagnostic. */
int pai__src_init_yaml(pai__src *src, pai_diags *diags, const char *name,
		       const char *text, size_t len);

/* Loads src->text (from pai__src_init_yaml) as js-yaml 3.13.1's safeLoad
 * does (DEFAULT_SAFE_SCHEMA): scalars resolved as js-yaml resolves them,
 * one document only, duplicate keys refused, anchors, aliases and merge
 * keys followed, with bounds against alias bombs and deep nesting. The
 * result is JSON (see enum pai__ykind for what JSON cannot hold) with
 * keys in JavaScript's property order, and its position tree. An empty
 * or comment-only document gives *root = json_null(). PAI_ESYNTAX after
 * adding a diagnostic, PAI_ENOMEM. */
int pai__yaml_parse(json_t **root, pai__pos *pos, pai__src *src,
		    pai_diags *diags);

/* pai__yaml_parse()'s bounds: nesting levels, and nodes with every alias
 * and merge expanded (a billion-laughs file stops at this many). */
extern const size_t pai__yaml_max_depth;
extern const size_t pai__yaml_max_nodes;

/* ---- diagnostics (diag.c) ------------------------------------------- */

/* Adds a diagnostic at byte offset off (PAI__NO_OFFSET: no place).
 * path is copied. Returns PAI_OK or PAI_ENOMEM. */
int pai__diag_add(pai_diags *diags, pai__src *src, size_t off,
		  pai_severity severity, const char *path, const char *rule,
		  const char *fmt, ...) PAI__PRINTF(7, 8);

/* Moves the diagnostics of src that keep() says to dst, in order: a
 * conversion's own beside the parse's, which the caller has shown. With
 * placeless, without their lines and excerpts: those of a text the
 * caller never saw (a config written out again). */
int pai__diags_move(pai_diags *dst, pai_diags *src,
		    int (*keep)(const pai_diag *d), int placeless);

/* Sorts the diagnostics from index start on by line and column, keeping
 * the order of those at the same place. */
void pai__diags_sort_from(pai_diags *diags, size_t start);

/* Appends to b the path of member `key` of the value at `parent`:
 * parent.key, or parent["odd key"] when key is not an identifier. */
void pai__path_member(pai__buf *b, const char *parent, const char *key);

/* ---- "did you mean" (suggest.c) -------------------------------------- */

/* "Did you mean" for a misspelt field name: offer each known
 * name with pai__closest_add(); pai__closest_name() is then the nearest
 * by case-insensitive Levenshtein distance (the first of equals), or NULL
 * when even that is more than min(3, strlen(key) / 3 + 1) edits away. */
typedef struct pai__closest {
	const char *key; /* borrowed, as are the names offered */
	const char *best;
	size_t dist;
} pai__closest;
#define PAI__CLOSEST_INIT(key)                                                 \
	{                                                                      \
		(key), NULL, (size_t)-1                                        \
	}
void pai__closest_add(pai__closest *cl, const char *name);
const char *pai__closest_name(const pai__closest *cl);
/* Optimal string alignment distance, or max + 1 when over max: how far
 * a misspelt variable name is from a known one. */
size_t pai__edit_distance(const char *a, size_t n, const char *b, size_t m,
			  size_t max);

#endif /* PAI_TEXT_H */
