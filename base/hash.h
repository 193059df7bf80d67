/*
 * hash.h - hashing for aclsim's tables that are off the hot paths, and one
 * small map from 64-bit keys to pointers that they share.
 *
 * base_hash_home is Fibonacci hashing (Knuth, TAOCP 6.4): the key times
 * 2^64 / phi, whose top bits pick the home slot in a table of 2^bits slots;
 * consecutive keys (offsets, handles) land far apart. The two hot-path
 * tables (the device heap's start-address hash in sim/heap.c and the
 * allocator registry in api/src/registry.c) keep hand-tuned copies.
 *
 * struct base_map maps non-zero 64-bit keys (offsets + 1, handles, track
 * ids, string hashes) to pointers: open addressing with linear probing, at
 * most half full, deletion by backward shift (no tombstones, so probes stay
 * short however many keys come and go). Its memory comes from base_calloc
 * and base_free, so the lib/host/malloc fault point reaches it; an insert
 * that cannot grow the table fails and leaves the map as it was. A map is
 * not thread-safe, and must not change while it is walked with
 * base_map_next. A zeroed struct is an empty map.
 * This layer depends on nothing else in aclsim.
 */
#ifndef ACLSIM_BASE_HASH_H_
#define ACLSIM_BASE_HASH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2^64 / phi, odd: multiplying by it is a bijection that spreads keys. */
#define BASE_HASH_PHI UINT64_C(0x9E3779B97F4A7C15)

/* Home slot of key in a table of 2^bits slots. pre: 1 <= bits <= 63. */
static inline size_t base_hash_home(uint64_t key, unsigned bits)
{
    return (size_t)((key * BASE_HASH_PHI) >> (64 - bits));
}

struct base_map_slot {
    uint64_t key; /* 0: empty */
    void *val;
};

struct base_map {
    struct base_map_slot *slot;
    size_t count;  /* keys held */
    unsigned bits; /* 2^bits slots, 0 before the first insert */
};

/* The value slot of key, or NULL when key is absent. pre: key != 0. */
void **base_map_find(const struct base_map *m, uint64_t key);

/* Map key to val (replacing its old value). Returns 0, or -1 when the table
 * could not grow (host out of memory; the map is unchanged). pre: key != 0. */
int base_map_put(struct base_map *m, uint64_t key, void *val);

/* Remove key: true and its value in *val (val may be NULL), or false when
 * key is absent. pre: key != 0. */
bool base_map_remove(struct base_map *m, uint64_t key, void **val);

/* Walk the map: start with *pos = 0; each call gives the next key and value
 * (either out-pointer may be NULL) and returns false after the last. */
bool base_map_next(const struct base_map *m, size_t *pos, uint64_t *key, void **val);

/* Free the table (not the values) and empty the map. */
void base_map_clear(struct base_map *m);

#endif /* ACLSIM_BASE_HASH_H_ */
