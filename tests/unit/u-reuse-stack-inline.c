/* SPDX-License-Identifier: MIT */
/*
 * u-reuse-stack-inline - u-reuse-stack's checks (the engine against the naive one) on the
 * engine as libsonde.so ships it: compiled with REUSE_STACK_INLINE, static and inlined,
 * as rt-reuse.c includes it, not the stand-alone rt-stack.o u-reuse-stack links.  Every
 * access tries reuse_stack_fast first, as rt-reuse.c's hook does for a narrow private
 * unit, and goes through reuse_stack_access when it was not made there: so the fast
 * path's reuses are checked against the naive engine too, beside the whole path's.
 */
#define SONDE_SIGSAFE_NO_POISON
#define REUSE_STACK_INLINE
#include "tools/reuse/rt-stack.c"

static uint64_t fast_made, fast_not;	/* (threads: atomic adds) */
static uint64_t hits, codes_wrong;	/* reuses; those whose codes are not their addresses */

/* A reuse's `codes` (the code pair rt-reuse.c counts by) stand for its two addresses. */
static void check_codes(const struct reuse_stack *s, uint64_t ip, const struct reuse_outcome *o)
{
	if (o->kind != REUSE_HIT)
		return;
	__atomic_add_fetch(&hits, 1, __ATOMIC_RELAXED);
	if ((uint32_t)o->codes < REUSE_CODE_LIVE || REUSE_CODE_IP(s, o->codes) != o->prev_ip ||
	    REUSE_CODE_IP(s, o->codes >> 32) != ip)
		__atomic_add_fetch(&codes_wrong, 1, __ATOMIC_RELAXED);
}

static int access_fast_first(struct reuse_stack *s, uint32_t un, uint64_t e, int store,
			     uint64_t ip, struct reuse_outcome *o)
{
	uint32_t v = un % REUSE_UNITS, bit = 1u << v;
	int r;

	/* (the engine and the bit by address, as rt-reuse.c passes its globals) */
	if (v < REUSE_NARROW && reuse_stack_fast(&s, &s->u[v], &bit, e, store, ip, o)) {
		__atomic_add_fetch(&fast_made, 1, __ATOMIC_RELAXED);
		check_codes(s, ip, o);
		return 0;
	}
	__atomic_add_fetch(&fast_not, 1, __ATOMIC_RELAXED);
	r = reuse_stack_access(s, un, e, store, ip, o);
	if (!r)
		check_codes(s, ip, o);
	return r;
}

#define reuse_stack_access access_fast_first
#define main main_checks
#include "u-reuse-stack.c"
#undef main

/* The checks above had accesses made by the fast path (else they checked nothing of it). */
TEST(reuse_fast_path_taken)
{
	printf("  reuse_stack_fast made %llu accesses, the whole path %llu\n",
	       (unsigned long long)fast_made, (unsigned long long)fast_not);
	CHECK(fast_made > 0);
}

/* Every reuse of the checks above gave codes that decode to its two addresses. */
TEST(reuse_codes_are_addresses)
{
	printf("  %llu reuses, %llu with codes not their addresses\n", (unsigned long long)hits,
	       (unsigned long long)codes_wrong);
	CHECK(hits > 0);
	CHECK(codes_wrong == 0);
}

int main(void)
{
	main_checks();
	RUN(reuse_fast_path_taken);
	RUN(reuse_codes_are_addresses);
	return CHECK_DONE();
}
