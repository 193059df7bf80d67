/*
 * alloc_plain.c - the replay's "plain" allocator: every request is one
 * aclrtMalloc (ACL_MEM_MALLOC_HUGE_FIRST, as torch_npu's caching allocator
 * asks for its segments) and every free one aclrtFree, so the device's own
 * rules decide what each block costs: CANN's rounding to 32 bytes, the
 * SoC's padding and the 2 MB huge pages above 1 MB (sim/policy.c cites
 * them). Each block's cost is read from aclrtGetMemInfo around its
 * aclrtMalloc, so the report can say what the rounding took.
 */
#include <stdlib.h>
#include "builtin.h"

struct plain {
    struct replay_map cost; /* block -> device bytes it took */
    double gap_sq;          /* sum of (cost - requested)^2 over live blocks */
};

static void *plain_open(int32_t device)
{
    (void)device;
    return calloc(1, sizeof(struct plain));
}

/* The slack of a block: what the device took beyond the request. */
static double slack_sq(uint64_t cost, size_t size)
{
    double g = cost > size ? (double)(cost - size) : 0.0;
    return g * g;
}

static void *plain_alloc(void *state, size_t size, aclrtStream stream, uint32_t pool)
{
    struct plain *p = state;
    (void)stream;
    (void)pool;
    void *ptr = NULL;
    size_t before = replay_used();
    if (aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    uint64_t cost = replay_used() - before;
    if (replay_map_put(&p->cost, (uintptr_t)ptr, cost) != 0) {
        aclrtFree(ptr);
        return NULL;
    }
    p->gap_sq += slack_sq(cost, size);
    return ptr;
}

static void plain_free(void *state, void *ptr, size_t size, aclrtStream stream)
{
    struct plain *p = state;
    uint64_t cost = 0;
    (void)stream;
    if (replay_map_take(&p->cost, (uintptr_t)ptr, &cost))
        p->gap_sq -= slack_sq(cost, size);
    aclrtFree(ptr);
}

static void plain_close(void *state)
{
    struct plain *p = state;
    replay_map_free(&p->cost);
    free(p);
}

static void plain_stats(void *state, aclsim_replay_stats *out)
{
    struct plain *p = state;
    out->cached = 0;
    out->gap_sq = p->gap_sq > 0 ? p->gap_sq : 0;
}

const aclsim_replay_allocator replay_plain = {
    ACLSIM_REPLAY_ABI, "plain", plain_open, plain_alloc, plain_free, NULL, plain_close,
    plain_stats};
