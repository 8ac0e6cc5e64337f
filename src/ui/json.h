/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small streaming JSON writer: objects and arrays nest, commas and indentation
 * are handled here, strings are escaped (control characters as \u00XX; bytes >= 0x80 are
 * passed through, so UTF-8 input stays UTF-8).  Members take a key; array elements and
 * the top-level value take key NULL.  Nesting deeper than JSON_MAX_DEPTH is flattened
 * into the deepest level (never happens in sonde's views).
 *
 * Two styles: indented (json_init: two spaces a level, "key": value), or compact
 * (JSON_COMPACT: no spaces, a new line only where json_newline asks for one, for large
 * machine-read documents such as analyze's summary.json).  JSON_SCRIPT_SAFE writes '<' as
 * \u003c, so the document can sit inside an HTML <script> element ("</script>" and "<!--"
 * cannot occur in it).  The writer never fails on its own: errors are the stream's
 * (check ferror(f)).
 */
#ifndef SONDE_UI_JSON_H
#define SONDE_UI_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

#define JSON_COMPACT 1u		/* no indentation, no space after ':' */
#define JSON_SCRIPT_SAFE 2u	/* '<' as \u003c in strings */

struct json {
	FILE *f;
	unsigned flags;
	int depth;
	int newline;			/* compact: the next value starts a line */
	int count[JSON_MAX_DEPTH];	/* values written at each level */
};

/* Indented style on f (the caller keeps f open until json_finish). */
void json_init(struct json *j, FILE *f);
/* Style and escaping from flags (JSON_COMPACT, JSON_SCRIPT_SAFE). */
void json_init_flags(struct json *j, FILE *f, unsigned flags);
/* Compact style: the next value starts on a new line (after its comma, if any). */
void json_newline(struct json *j);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_str(struct json *j, const char *key, const char *v);	/* NULL -> null */
/* A string from printf-style fmt (escaped like json_str). */
void json_strf(struct json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void json_int(struct json *j, const char *key, int64_t v);
void json_uint(struct json *j, const char *key, uint64_t v);
/* A number with `decimals` digits after the point; NaN and infinities become null. */
void json_double(struct json *j, const char *key, double v, int decimals);
/* A number with 15 significant digits (as SQLite prints a REAL), for values of any size. */
void json_real(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, int v);
/* Ends the document with a newline (call after the top-level value). */
void json_finish(struct json *j);

#endif
