/* SPDX-License-Identifier: MIT */
/* csv.c - RFC 4180 CSV fields and rows.  See csv.h. */
#include <string.h>

#include "ui/csv.h"

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void csv_row(FILE *f, int n, const char *const *fields)
{
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		csv_field(f, fields[i]);
	}
	fputc('\n', f);
}

int csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		char *out = p;
		f[n++] = p;
		if (*p == '"') {
			char *r = p + 1;
			for (;;) {
				if (!*r)
					break;
				if (*r == '"' && r[1] == '"') {
					*out++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*out++ = *r++;
				}
			}
			p = r;
		} else {
			while (*p && *p != ',')
				out++, p++;
		}
		int more = *p == ',';
		*out = 0;
		if (!more)
			break;
		p++;
	}
	return n;
}
