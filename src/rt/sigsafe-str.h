/* SPDX-License-Identifier: MIT */
/*
 * sigsafe-str.h - the string helpers of sigsafe.c, to build a path or a write(2) message
 * without stdio.  Apart from sigsafe.h so that a file that is not handler-reachable (and so
 * does not take sigsafe.h's poison) can use them too (thread.c's stream names).
 */
#ifndef SONDE_RT_SIGSAFE_STR_H
#define SONDE_RT_SIGSAFE_STR_H

#include <stdint.h>

/* rt_stpcpy copies src with its terminating 0 to dst; rt_u64toa writes v in decimal and a
 * 0 (at most 21 bytes).  Both return the end of what they wrote (its 0), where the next
 * part goes.  Handler-safe. */
char *rt_stpcpy(char *dst, const char *src);
char *rt_u64toa(char *dst, uint64_t v);

#endif
