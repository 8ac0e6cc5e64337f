/* SPDX-License-Identifier: MIT */
/*
 * resident-end.c - the end of libsonde.so's resident code.  The Makefile links this object
 * right after the RT_RESIDENT objects, the code that a handler or an interposed call can
 * run while `sonde variance` measures an instance, and before the rest: so the text
 * segment's start up to rt_resident_end holds all of it, and that range alone is kept
 * mapped for a tool that counts page faults (libtrim.c, rt_trim_keep_resident).
 */
#include "rt/libtrim.h"

__attribute__((noinline, used)) void rt_resident_end(void)
{
	__asm__ volatile("");
}
