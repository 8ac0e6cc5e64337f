/* SPDX-License-Identifier: MIT */
/*
 * u-reuse-stack-inline - u-reuse-stack's checks (the engine against the naive one) on the
 * engine as libsonde.so ships it: compiled with REUSE_STACK_INLINE, static and inlined,
 * as rt-reuse.c includes it, not the stand-alone rt-stack.o u-reuse-stack links.
 */
#define SONDE_SIGSAFE_NO_POISON
#define REUSE_STACK_INLINE
#include "tools/reuse/rt-stack.c"
#include "u-reuse-stack.c"
