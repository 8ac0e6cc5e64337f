/* SPDX-License-Identifier: MIT */
/* rt-sampler.c - GlobalWP's slot logic (sampler.h); handler-safe, no locks. */
#include <string.h>

#include "tools/reuse/sampler.h"
#include "rt/sigsafe.h"

SIGSAFE void reuse_gwp_init(struct reuse_gwp *g, int nslots)
{
	memset(g, 0, sizeof(*g));
	g->nslots = nslots < 1 ? 1 : nslots > REUSE_SLOTS ? REUSE_SLOTS : nslots;
}

/* Take the slot with probability 1/offers (after counting this offer). */
static SIGSAFE int take(struct reuse_slot *s, uint64_t *rnd)
{
	uint64_t n = ++s->offers;
	uint64_t r = *rnd;
	*rnd = r * 6364136223846793005ull + 1442695040888963407ull;	/* next draw */
	return r % n == 0;
}

/* A free slot takes any offer; each active one refuses it with chance offers / (offers +
 * 1), taken as independent of the others' draws.  (They are successive steps of take's
 * generator, whose low bits are not: drawn from its high bits instead, badpair's sample
 * stream through these slots 200 times read the same long share within 0.003.) */
SIGSAFE uint64_t reuse_gwp_arm_chance(const struct reuse_gwp *g)
{
	uint64_t refuse = REUSE_ARM_ONE;
	for (int i = 0; i < g->nslots; i++) {
		const struct reuse_slot *s = &g->s[i];
		if (!s->active)
			return REUSE_ARM_ONE;
		refuse -= refuse / (s->offers + 1);	/* x offers / (offers + 1) */
	}
	return refuse < REUSE_ARM_ONE ? REUSE_ARM_ONE - refuse : 1;
}

SIGSAFE int reuse_gwp_sample(struct reuse_gwp *g, uint32_t owner, uint64_t addr, uint64_t p0,
			     uint64_t t0, uint64_t ip, uint64_t rnd)
{
	uint64_t arm_q = reuse_gwp_arm_chance(g);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < g->nslots; i++) {
			struct reuse_slot *s = &g->s[i];
			if (s->active != pass || !take(s, &rnd))
				continue;
			s->active = 1;
			s->owner = owner;
			s->gen++;
			s->addr = addr;
			s->p0 = p0;
			s->t0 = t0;
			s->ip = ip;
			s->offers_armed = s->offers;
			s->arm_q = arm_q;
			return i;
		}
	return -1;
}

SIGSAFE int reuse_gwp_trap(struct reuse_gwp *g, int slot, uint32_t gen, uint32_t thread, uint64_t p,
			   uint64_t t, struct reuse_seen *out)
{
	if (slot < 0 || slot >= g->nslots)
		return 0;
	return reuse_gwp_trap_group(g, slot, gen, thread == g->s[slot].owner, p, t, out);
}

SIGSAFE int reuse_gwp_trap_group(struct reuse_gwp *g, int slot, uint32_t gen, int same_group,
				 uint64_t p, uint64_t t, struct reuse_seen *out)
{
	if (slot < 0 || slot >= g->nslots)
		return 0;
	struct reuse_slot *s = &g->s[slot];
	if (!s->active || s->gen != gen)
		return 0;
	out->invalidation = !same_group;
	out->owner = s->owner;
	out->trd = UINT64_MAX;
	/* an invalidation's: the owner's accesses from the use to the remote store (p is
	 * then the owner's count), counted as a reuse's are, the store taking the place of
	 * the owner's next access (its element is gone before that access, whose window end
	 * the model compares with); a store before the owner's next access: 0 */
	if (p != UINT64_MAX && s->p0 != UINT64_MAX && p > s->p0)
		out->trd = p - s->p0 - 1;
	else if (out->invalidation && p != UINT64_MAX && s->p0 != UINT64_MAX && p == s->p0)
		out->trd = 0;
	out->dt = t > s->t0 ? t - s->t0 : 0;
	out->use_ip = s->ip;
	out->addr = s->addr;
	out->n0 = s->offers_armed;
	out->n1 = s->offers;
	out->p0 = s->p0;
	out->arm_q = s->arm_q;
	s->active = 0;
	s->offers = 0;
	return 1;
}
