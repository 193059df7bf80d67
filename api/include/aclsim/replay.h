/*
 * aclsim/replay.h - the C interface through which aclsim-replay drives an
 * allocator of your own through an allocation trace.
 *
 * aclsim-replay (README.md, "Replaying an allocation trace") reads a
 * torch(_npu) memory snapshot, an RMM log or an aclsim trace and replays
 * its allocations and frees, in order, device by device, through an
 * allocator: a built-in one, or yours, named by the path of a shared library
 * (--allocator ./libmine.so). The library exports one function,
 * aclsim_replay_allocator_get, returning a table of the calls below. The
 * replay runs on aclsim's simulated NPU (any SoC profile): your allocator
 * takes its memory with the usual acl* calls (aclrtMalloc, VMM, pools) and
 * aclsim-replay measures what it took from the device with aclrtGetMemInfo.
 *
 * Nothing here is exported by libascendcl.so: the header only describes
 * what a library you write provides. Build it as any program against the
 * CANN-layout tree: gcc -shared -fPIC mine.c -I$CANN/include -L$CANN/lib64
 * -lascendcl -o libmine.so
 */
#ifndef ACLSIM_REPLAY_H_
#define ACLSIM_REPLAY_H_

#include <stddef.h>
#include <stdint.h>
#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this table; aclsim-replay refuses a table of another. */
#define ACLSIM_REPLAY_ABI 1

/* What an allocator says of itself at the replay's peak (all optional). */
typedef struct aclsim_replay_stats {
    size_t cached;  /* device bytes the allocator holds but has not handed out */
    double gap_sq;  /* sum over its free gaps inside what it holds of gap^2 (bytes^2),
                       rounding slack at the end of a block included: the
                       numerator of memory_viz's fragmentation measure */
} aclsim_replay_stats;

typedef struct aclsim_replay_allocator {
    int abi;          /* ACLSIM_REPLAY_ABI */
    const char *name; /* shown in the report */
    /* Start on `device` (current already: aclrtSetDevice was called).
     * Returns the allocator's state, handed to every call below, or NULL
     * when it cannot start (the replay stops with an error). */
    void *(*open)(int32_t device);
    /* A request of `size` bytes on `stream` (one aclrtStream per stream of
     * the trace, created by aclsim-replay), from pool `pool` (0: the
     * default pool; 1, 2, ...: the trace's private pools, e.g. a graph's).
     * Returns the block's device address, or NULL when there is no memory:
     * the replay's first failure. */
    void *(*alloc)(void *state, size_t size, aclrtStream stream, uint32_t pool);
    /* The trace's free_completed (or plain free) of a block alloc returned:
     * its memory may be reused from now on. `size` is the size requested. */
    void (*free)(void *state, void *ptr, size_t size, aclrtStream stream);
    /* The trace's free_requested: the program let go of the block, but the
     * trace's own allocator held it back (events pending on other streams)
     * until the matching free. May be NULL. */
    void (*free_requested)(void *state, void *ptr, aclrtStream stream);
    /* Give every byte back to the device; the state is not used again. */
    void (*close)(void *state);
    /* Its figures now (called at each new peak); may be NULL: the report
     * then counts every reserved byte not requested as rounding. */
    void (*stats)(void *state, aclsim_replay_stats *out);
} aclsim_replay_allocator;

/* What a library given to --allocator exports. Never NULL. */
typedef const aclsim_replay_allocator *(*aclsim_replay_allocator_get_fn)(void);
#define ACLSIM_REPLAY_ENTRY "aclsim_replay_allocator_get"

#ifdef __cplusplus
}
#endif

#endif /* ACLSIM_REPLAY_H_ */
