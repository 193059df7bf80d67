/*
 * alloc_pool.c - the replay's "pool" allocator, the design of
 * examples/pool_allocator (MindSpore's style): a pool per stream and trace
 * pool whose blocks (sizes rounded to 512 bytes, each taken with one
 * aclrtMalloc) are reused for requests of the same rounded size only and
 * never given back to the device.
 *
 * The example keeps its blocks in a short list because its workload is
 * short; a trace may hold millions of blocks, so here each stream's and
 * pool's free blocks are an array sorted by size (binary search) and the
 * live ones a pointer map.
 */
#include <stdlib.h>
#include <string.h>
#include "builtin.h"

struct cblock {
    void *ptr;
    size_t size; /* rounded to 512 */
    size_t req;  /* requested, while handed out */
    size_t list; /* the free list of its stream and pool */
};

struct freelist {
    aclrtStream stream;
    uint32_t pool;
    struct cblock **v; /* sorted by size */
    size_t n, cap;
};

struct cache {
    struct freelist *lists;
    size_t nlists;
    struct replay_map live; /* ptr -> struct cblock * */
    size_t cached;
    double gap_sq;
};

static void *pool_open(int32_t device)
{
    (void)device;
    return calloc(1, sizeof(struct cache));
}

static struct freelist *list_of(struct cache *c, aclrtStream stream, uint32_t pool)
{
    for (size_t i = 0; i < c->nlists; i++)
        if (c->lists[i].stream == stream && c->lists[i].pool == pool)
            return &c->lists[i];
    struct freelist *v = realloc(c->lists, (c->nlists + 1) * sizeof *v);
    if (!v)
        return NULL;
    c->lists = v;
    v[c->nlists] = (struct freelist){stream, pool, NULL, 0, 0};
    return &v[c->nlists++];
}

/* First index whose block is at least `size`. */
static size_t lower_bound(const struct freelist *l, size_t size)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid]->size < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double sq(size_t n)
{
    return (double)n * (double)n;
}

/* A cached block for `need` bytes, taken off its list, or NULL. */
static struct cblock *reuse(struct cache *c, struct freelist *l, size_t need)
{
    size_t i = lower_bound(l, need);
    if (i == l->n || l->v[i]->size != need)
        return NULL;
    struct cblock *b = l->v[i];
    memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof *l->v);
    l->n--;
    c->cached -= b->size;
    c->gap_sq -= sq(b->size);
    return b;
}

static struct cblock *fresh(size_t need)
{
    struct cblock *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    b->size = need;
    if (aclrtMalloc(&b->ptr, need, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS)
        return b;
    free(b);
    return NULL;
}

static void *cache_alloc(void *state, size_t size, aclrtStream stream, uint32_t pool)
{
    struct cache *c = state;
    size_t need = (size + 511) / 512 * 512;
    struct freelist *l = list_of(c, stream, pool);
    if (!l)
        return NULL;
    struct cblock *b = reuse(c, l, need);
    if (!b && !(b = fresh(need)))
        return NULL;
    if (replay_map_put(&c->live, (uintptr_t)b->ptr, (uint64_t)(uintptr_t)b) != 0) {
        aclrtFree(b->ptr);
        free(b);
        return NULL;
    }
    b->req = size;
    b->list = (size_t)(l - c->lists);
    c->gap_sq += sq(b->size - size);
    return b->ptr;
}

static void cache_free(void *state, void *ptr, size_t size, aclrtStream stream)
{
    struct cache *c = state;
    uint64_t v;
    (void)size;
    if (!replay_map_take(&c->live, (uintptr_t)ptr, &v))
        return;
    struct cblock *b = (struct cblock *)(uintptr_t)v;
    (void)stream;
    /* Back to the list it was taken for: its stream's and pool's. */
    struct freelist *l = &c->lists[b->list];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct cblock **nv = realloc(l->v, cap * sizeof *nv);
        if (nv) {
            l->v = nv;
            l->cap = cap;
        }
    }
    c->gap_sq -= sq(b->size - b->req);
    if (l->n == l->cap) { /* nowhere to keep it: back to the device */
        aclrtFree(b->ptr);
        free(b);
        return;
    }
    size_t i = lower_bound(l, b->size);
    memmove(&l->v[i + 1], &l->v[i], (l->n - i) * sizeof *l->v);
    l->v[i] = b;
    l->n++;
    c->cached += b->size;
    c->gap_sq += sq(b->size);
}

static void cache_close(void *state)
{
    struct cache *c = state;
    for (size_t i = 0; i < c->nlists; i++) {
        for (size_t j = 0; j < c->lists[i].n; j++) {
            aclrtFree(c->lists[i].v[j]->ptr);
            free(c->lists[i].v[j]);
        }
        free(c->lists[i].v);
    }
    free(c->lists);
    replay_map_free(&c->live);
    free(c);
}

static void cache_stats(void *state, aclsim_replay_stats *out)
{
    struct cache *c = state;
    out->cached = c->cached;
    out->gap_sq = c->gap_sq > 0 ? c->gap_sq : 0;
}

const aclsim_replay_allocator replay_pool = {
    ACLSIM_REPLAY_ABI, "pool", pool_open, cache_alloc, cache_free, NULL, cache_close, cache_stats};
