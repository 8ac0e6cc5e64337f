/* SPDX-License-Identifier: MIT */
/* json.c - the streaming JSON writer.  See json.h. */
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

#include "ui/json.h"

void json_init_flags(struct json *j, FILE *f, unsigned flags)
{
	j->f = f;
	j->flags = flags;
	j->depth = 0;
	j->newline = 0;
	j->count[0] = 0;
}

void json_init(struct json *j, FILE *f)
{
	json_init_flags(j, f, 0);
}

void json_newline(struct json *j)
{
	j->newline = 1;
}

static void put_string(const struct json *j, const char *s)
{
	FILE *f = j->f;
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '<':
			if (j->flags & JSON_SCRIPT_SAFE)
				fputs("\\u003c", f);
			else
				fputc('<', f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Separator, newline and indentation before a value, then its key if any. */
static void lead(struct json *j, const char *key)
{
	if (j->depth > 0 && j->count[j->depth]++)
		fputc(',', j->f);
	if (j->flags & JSON_COMPACT) {
		if (j->newline)
			fputc('\n', j->f);
	} else if (j->depth > 0) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	j->newline = 0;
	if (key) {
		put_string(j, key);
		fputs(j->flags & JSON_COMPACT ? ":" : ": ", j->f);
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->count[++j->depth] = 0;
}

static void close_level(struct json *j, char c)
{
	int had = j->count[j->depth] > 0 && !(j->flags & JSON_COMPACT);
	if (j->depth > 0)
		j->depth--;
	if (had) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
}

void json_begin_object(struct json *j, const char *key)
{
	open_level(j, key, '{');
}

void json_end_object(struct json *j)
{
	close_level(j, '}');
}

void json_begin_array(struct json *j, const char *key)
{
	open_level(j, key, '[');
}

void json_end_array(struct json *j)
{
	close_level(j, ']');
}

void json_str(struct json *j, const char *key, const char *v)
{
	lead(j, key);
	if (v)
		put_string(j, v);
	else
		fputs("null", j->f);
}

void json_strf(struct json *j, const char *key, const char *fmt, ...)
{
	char small[256] = "", *s = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(small) && (s = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	json_str(j, key, s ? s : "");
	if (s != small)
		free(s);
}

void json_int(struct json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_double(struct json *j, const char *key, double v, int decimals)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

void json_real(struct json *j, const char *key, double v)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.15g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, int v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
}
