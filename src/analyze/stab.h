/* SPDX-License-Identifier: MIT */
/*
 * analyze-stab.h - a sample table: counts and value sums per distinct key, a key being a
 * short array of 64-bit words (a sample's process, event, IP and callchain).  A recording of
 * a million samples holds far fewer distinct callchains; `sonde analyze` adds every sample
 * here and symbolizes each distinct key once, weighted by its count.
 *
 * Ownership: the table owns copies of its keys; entries and keys live until stab_clear() or
 * stab_release().  Errors: -ENOMEM.  Not thread-safe; never for a signal handler.
 */
#ifndef SONDE_LIB_ANALYZE_STAB_H
#define SONDE_LIB_ANALYZE_STAB_H

#include <stddef.h>
#include <stdint.h>

struct stab_entry {
	uint64_t hash;
	size_t key;			/* offset of the key's first word in stab.words */
	uint32_t nkey;
	uint64_t n, sum;		/* occurrences and sum of their values */
};

struct stab {
	struct stab_entry *ents;
	size_t nents, capents;
	uint64_t *words;		/* the keys, back to back */
	size_t nwords, capwords;
	uint32_t *slots;		/* entry index + 1, 0 = empty; open addressing */
	size_t capslots;
};

void stab_init(struct stab *t);
void stab_release(struct stab *t);

/* Count key (nkey words) once more, adding v to its sum.  0 or -ENOMEM. */
int stab_add(struct stab *t, const uint64_t *key, size_t nkey, uint64_t v);

/* The words of entry e's key. */
static inline const uint64_t *stab_key(const struct stab *t, const struct stab_entry *e)
{
	return t->words + e->key;
}

/* True when the table holds enough that its owner should use it and clear it. */
int stab_full(const struct stab *t);

/* Forget every entry; the memory is kept for the next ones. */
void stab_clear(struct stab *t);

#endif
