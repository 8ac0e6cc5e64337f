/* SPDX-License-Identifier: MIT */
/*
 * period.h - the inst source's sampling period as taken, for the runtime and the CLI
 * alike (reuse --check-sampling passes its own to the runtime).
 */
#ifndef SONDE_PERIOD_H
#define SONDE_PERIOD_H

#include <stdint.h>

/*
 * A period of accesses as the inst source takes it: the next prime from p, for p over 2
 * and under 2^40 (else p: every access or every other, or beyond any loop).  The samples
 * of a fixed period lock onto a loop whose accesses per iteration divide it, and take
 * the same access of the body every time (the usability review of 2026-11-29: a loop of
 * two loads, one reused soon, one late, read 100% late at -p 10000, 4096 or 1000; half
 * and half at 10007); a prime period p and a body of n < p accesses step through all n of
 * them in turn.  Reuse's window estimates need the samples a fixed period apart, so the
 * period is not drawn at random instead (comm draws it: rt_inst_jitter).
 */
static inline uint64_t sonde_inst_period(uint64_t p)
{
	if (p <= 2 || p >= (1ull << 40))
		return p;
	for (;; p++) {
		int prime = 1;
		for (uint64_t d = 2; prime && d <= p / d; d++)
			prime = p % d != 0;
		if (prime)
			return p;
	}
}

#endif
