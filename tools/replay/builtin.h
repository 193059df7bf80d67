/*
 * builtin.h - the allocators aclsim-replay's driver carries (each in its own
 * file, each an aclsim_replay_allocator table, aclsim/replay.h) and the
 * small pointer map they share.
 *
 *   plain       aclrtMalloc / aclrtFree for every request (alloc_plain.c)
 *   caching     torch_npu's NPUCachingAllocator: small and large pools,
 *               2 MiB and 20 MiB segments, best fit, splitting and merging,
 *               PYTORCH_NPU_ALLOC_CONF (alloc_torch.c)
 *   expandable  the same with expandable_segments:True: segments grown over
 *               VMM in 2 MiB / 20 MiB pages (alloc_torch.c)
 *   pool        the examples' per-stream pool: blocks reused only for the
 *               same size, never given back (alloc_pool.c)
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

/* What the built-in allocators tell the driver for --snapshot: the
 * segments they take from the device and give back (torch's trace actions
 * segment_alloc, segment_free, segment_map, segment_unmap). */
enum { REPLAY_SEGMENT_ALLOC, REPLAY_SEGMENT_FREE, REPLAY_SEGMENT_MAP, REPLAY_SEGMENT_UNMAP };
void replay_note(int what, const void *addr, size_t size, aclrtStream stream, uint32_t pool);

/* One segment (is_segment: its address, total size, stream, pool) or one
 * of its blocks (address, size, requested, allocated), in address order. */
typedef void (*replay_walk_fn)(void *ctx, int is_segment, const void *addr, size_t size,
                               size_t req, int allocated, aclrtStream stream, uint32_t pool,
                               int small, int expandable);
/* The caching and expandable allocators' segments and blocks now. */
void replay_torch_walk(void *state, replay_walk_fn fn, void *ctx);
/* 1 when PYTORCH_NPU_ALLOC_CONF is one the caching allocator reads. */
int replay_torch_conf_ok(void);

/* Device bytes in use on the current device (aclrtGetMemInfo: total - free). */
size_t replay_used(void);

#endif /* ACLSIM_REPLAY_BUILTIN_H_ */
