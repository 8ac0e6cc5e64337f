/* SPDX-License-Identifier: MIT */
/*
 * sigsafe.c - the runtime's string helpers for handlers (declared in sigsafe.h): building
 * a path or a message for write(2) without stdio.  In a file of their own so that code
 * built without the rest of the runtime links them too: t050's harness builds the inst
 * source (whose SONDE_DEBUG line uses them) with this file and not finish.c.
 */
#include <stdint.h>

#include "rt/sigsafe.h"

SIGSAFE char *rt_stpcpy(char *dst, const char *src)
{
	while ((*dst = *src++))
		dst++;
	return dst;
}

SIGSAFE char *rt_u64toa(char *dst, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*dst++ = tmp[--n];
	*dst = 0;
	return dst;
}
