/* SPDX-License-Identifier: MIT */
/*
 * csv.h - RFC 4180 CSV output: fields separated by commas, rows ended by "\n"; a field
 * holding a comma, a double quote, a CR or a LF is quoted, its quotes doubled.
 */
#ifndef SONDE_UI_CSV_H
#define SONDE_UI_CSV_H

#include <stdio.h>

/* Write one field (NULL is written as empty), quoted when it must be. */
void csv_field(FILE *f, const char *s);

/* Write a whole row of n fields and the line end. */
void csv_row(FILE *f, int n, const char *const *fields);

/* Split one line (as csv_row writes it; no field spanning lines; its line end dropped)
 * into at most max fields, in place, quotes undone.  Returns the number of fields. */
int csv_split(char *line, char **f, int max);

#endif
