/* SPDX-License-Identifier: MIT */
/* analyze-stab.c - counts per distinct key of 64-bit words (see analyze-stab.h). */
#include "analyze/stab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on what one table holds before its owner drains it: about 24 MB of keys. */
#define STAB_MAX_WORDS (3u << 20)
#define STAB_MAX_ENTS (256u << 10)

void stab_init(struct stab *t)
{
	memset(t, 0, sizeof(*t));
}

void stab_release(struct stab *t)
{
	free(t->ents);
	free(t->words);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
	}
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 32);
}

static int rehash(struct stab *t, size_t cap)
{
	uint32_t *s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nents; i++) {
		size_t k = (size_t)t->ents[i].hash & (cap - 1);
		while (s[k])
			k = (k + 1) & (cap - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->capslots = cap;
	return 0;
}

static int reserve(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : first;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, nc * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static int same_key(const struct stab *t, const struct stab_entry *e, uint64_t h,
		    const uint64_t *key, size_t nkey)
{
	return e->hash == h && e->nkey == nkey &&
	       !memcmp(t->words + e->key, key, nkey * sizeof(*key));
}

int stab_add(struct stab *t, const uint64_t *key, size_t nkey, uint64_t v)
{
	uint64_t h = hash_words(key, nkey);
	if ((t->nents + 1) * 2 > t->capslots && rehash(t, t->capslots ? t->capslots * 2 : 1024))
		return -ENOMEM;
	size_t k = (size_t)h & (t->capslots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->capslots - 1)) {
		struct stab_entry *e = &t->ents[t->slots[k] - 1];
		if (same_key(t, e, h, key, nkey)) {
			e->n++;
			e->sum += v;
			return 0;
		}
	}
	if (reserve((void **)&t->ents, &t->capents, t->nents + 1, sizeof(*t->ents), 1024) ||
	    reserve((void **)&t->words, &t->capwords, t->nwords + nkey, sizeof(*t->words), 16384))
		return -ENOMEM;
	memcpy(t->words + t->nwords, key, nkey * sizeof(*key));
	t->ents[t->nents] = (struct stab_entry){ h, t->nwords, (uint32_t)nkey, 1, v };
	t->nwords += nkey;
	t->slots[k] = (uint32_t)++t->nents;
	return 0;
}

int stab_full(const struct stab *t)
{
	return t->nwords >= STAB_MAX_WORDS || t->nents >= STAB_MAX_ENTS;
}

void stab_clear(struct stab *t)
{
	if (t->nents)
		memset(t->slots, 0, t->capslots * sizeof(*t->slots));
	t->nents = 0;
	t->nwords = 0;
}
