/*
 * builtin.h - the allocators aclsim-replay's driver carries (each in its own
 * file, each an aclsim_replay_allocator table, aclsim/replay.h) and the
 * small pointer map they share.
 *
 *   plain       aclrtMalloc / aclrtFree for every request (alloc_plain.c)
 *   caching     the examples' caching allocator: 512-byte rounding, blocks
 *               cached per stream and pool, reused for a request up to half
 *               their size, the cache emptied and the request retried when
 *               the device is full (alloc_caching.c)
 *   pool        the examples' per-stream pool: blocks reused only for the
 *               same size, never given back (alloc_caching.c)
 *   expandable  the examples' expandable segment: one reserved range of
 *               addresses per device, 2 MB physical pieces mapped where
 *               blocks lie and unmapped when none does (alloc_expandable.c)
 */
#ifndef ACLSIM_REPLAY_BUILTIN_H_
#define ACLSIM_REPLAY_BUILTIN_H_

#include <stdint.h>
#include "aclsim/replay.h"

extern const aclsim_replay_allocator replay_plain, replay_caching, replay_pool,
    replay_expandable;

/* An open-addressing map from a device address to a number (no removal
 * tombstones: backward-shift deletion). */
struct replay_map {
    uintptr_t *keys; /* 0: empty */
    uint64_t *vals;
    size_t cap, n;   /* cap: a power of two */
};

/* Put key -> val (key != 0). Returns 0, or -1 when host memory runs out. */
int replay_map_put(struct replay_map *m, uintptr_t key, uint64_t val);
/* Remove key; its value in *val. Returns 1 if it was there, else 0. */
int replay_map_take(struct replay_map *m, uintptr_t key, uint64_t *val);
void replay_map_free(struct replay_map *m);

/* Device bytes in use on the current device (aclrtGetMemInfo: total - free). */
size_t replay_used(void);

#endif /* ACLSIM_REPLAY_BUILTIN_H_ */
