/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small streaming JSON writer: objects and arrays nest, commas and indentation
 * are handled here, strings are escaped (control characters as \u00XX; bytes >= 0x80 are
 * passed through, so UTF-8 input stays UTF-8).  Members take a key; array elements and
 * the top-level value take key NULL.  Nesting deeper than JSON_MAX_DEPTH is flattened
 * into the deepest level (never happens in sonde's views).
 */
#ifndef SONDE_UI_JSON_H
#define SONDE_UI_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	int count[JSON_MAX_DEPTH];	/* values written at each level */
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_str(struct json *j, const char *key, const char *v);	/* NULL -> null */
void json_int(struct json *j, const char *key, int64_t v);
void json_uint(struct json *j, const char *key, uint64_t v);
/* A number with `decimals` digits after the point; NaN and infinities become null. */
void json_double(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, int v);
/* Ends the document with a newline (call after the top-level value). */
void json_finish(struct json *j);

#endif
