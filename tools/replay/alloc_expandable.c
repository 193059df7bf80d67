/*
 * alloc_expandable.c - the replay's "expandable" allocator, the design of
 * examples/expandable_segments (torch_npu's expandable segments): one range
 * of device addresses per device, as large as the device's memory, reserved
 * up front (aclrtReserveMemAddress); blocks are placed in it (sizes rounded
 * to 512, first fit among the freed ranges, else at the end) and every 2 MB
 * piece a block lies on is backed by physical memory (aclrtMallocPhysical,
 * aclrtMapMem) while any block lies on it, then unmapped and freed. The
 * example's segment is a stack of at most 64 blocks for its own workload;
 * a trace frees in any order, so here freed ranges are kept (sorted by
 * address, merged with their neighbours) and each piece counts its blocks.
 * What it holds is what is mapped: a block never costs more than the pieces
 * it touches, and no block is padded to a page of its own.
 */
#include <stdlib.h>
#include <string.h>
#include "builtin.h"

struct range {
    size_t off, len;
};

struct expandable {
    char *base;
    size_t span, piece, pages;
    uint32_t *refs;               /* blocks on each piece */
    aclrtDrvMemHandle *handles;   /* each mapped piece's memory */
    size_t mapped;                /* pieces mapped */
    size_t end;                   /* bytes carved from base */
    struct range *free_v;         /* freed ranges below end, by address */
    size_t nfree, capfree;
    struct replay_map live;       /* ptr -> rounded size */
    size_t inuse;                 /* rounded bytes of live blocks */
    double slack_sq;              /* sum of (rounded - requested)^2 */
    aclrtPhysicalMemProp prop;
};

static void *exp_open(int32_t device)
{
    struct expandable *e = calloc(1, sizeof *e);
    size_t fr = 0, total = 0;
    if (!e)
        return NULL;
    e->prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    e->prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    e->prop.memAttr = ACL_HBM_MEM_HUGE;
    e->prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    e->prop.location.id = (uint32_t)device;
    void *va = NULL;
    if (aclrtMemGetAllocationGranularity(&e->prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                                         &e->piece) != ACL_SUCCESS || !e->piece ||
        aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) != ACL_SUCCESS)
        goto fail;
    e->span = (total + e->piece - 1) / e->piece * e->piece;
    e->pages = e->span / e->piece;
    e->refs = calloc(e->pages, sizeof *e->refs);
    e->handles = calloc(e->pages, sizeof *e->handles);
    if (!e->refs || !e->handles || aclrtReserveMemAddress(&va, e->span, 0, NULL, 0) != ACL_SUCCESS)
        goto fail;
    e->base = va;
    return e;
fail:
    free(e->refs);
    free(e->handles);
    free(e);
    return NULL;
}

static void unmap_piece(struct expandable *e, size_t i)
{
    aclrtUnmapMem(e->base + i * e->piece);
    aclrtFreePhysical(e->handles[i]);
    e->handles[i] = NULL;
    e->mapped--;
}

static int map_piece(struct expandable *e, size_t i)
{
    aclrtDrvMemHandle h;
    if (aclrtMallocPhysical(&h, e->piece, &e->prop, 0) != ACL_SUCCESS)
        return -1;
    if (aclrtMapMem(e->base + i * e->piece, e->piece, 0, h, 0) != ACL_SUCCESS) {
        aclrtFreePhysical(h);
        return -1;
    }
    e->handles[i] = h;
    e->mapped++;
    return 0;
}

/* Back [off, off + len) with memory: 0, or -1 with nothing changed. */
static int back(struct expandable *e, size_t off, size_t len)
{
    size_t first = off / e->piece, last = (off + len - 1) / e->piece;
    for (size_t i = first; i <= last; i++)
        if (!e->refs[i] && map_piece(e, i) != 0) {
            while (i-- > first)
                if (!e->refs[i])
                    unmap_piece(e, i);
            return -1;
        }
    for (size_t i = first; i <= last; i++)
        e->refs[i]++;
    return 0;
}

static void unback(struct expandable *e, size_t off, size_t len)
{
    for (size_t i = off / e->piece; i <= (off + len - 1) / e->piece; i++)
        if (--e->refs[i] == 0)
            unmap_piece(e, i);
}

/* [off, off + len) free again: merged into the ranges, or the end moved back. */
static void give_back(struct expandable *e, size_t off, size_t len)
{
    size_t i = 0;
    while (i < e->nfree && e->free_v[i].off < off)
        i++;
    if (i > 0 && e->free_v[i - 1].off + e->free_v[i - 1].len == off) {
        e->free_v[--i].len += len; /* joins the one before */
    } else {
        if (e->nfree == e->capfree) {
            size_t cap = e->capfree ? 2 * e->capfree : 64;
            struct range *v = realloc(e->free_v, cap * sizeof *v);
            if (!v)
                return; /* the range is lost to reuse; the pieces are freed anyway */
            e->free_v = v;
            e->capfree = cap;
        }
        memmove(&e->free_v[i + 1], &e->free_v[i], (e->nfree - i) * sizeof *e->free_v);
        e->free_v[i] = (struct range){off, len};
        e->nfree++;
    }
    if (i + 1 < e->nfree && e->free_v[i].off + e->free_v[i].len == e->free_v[i + 1].off) {
        e->free_v[i].len += e->free_v[i + 1].len; /* and the one after */
        memmove(&e->free_v[i + 1], &e->free_v[i + 2], (e->nfree - i - 2) * sizeof *e->free_v);
        e->nfree--;
    }
    if (i == e->nfree - 1 && e->free_v[i].off + e->free_v[i].len == e->end) {
        e->end = e->free_v[i].off;
        e->nfree--;
    }
}

static void *exp_alloc(void *state, size_t size, aclrtStream stream, uint32_t pool)
{
    struct expandable *e = state;
    size_t need = (size + 511) / 512 * 512, off = SIZE_MAX;
    (void)stream;
    (void)pool;
    for (size_t i = 0; i < e->nfree; i++)
        if (e->free_v[i].len >= need) {
            off = e->free_v[i].off;
            e->free_v[i].off += need;
            e->free_v[i].len -= need;
            if (!e->free_v[i].len) {
                memmove(&e->free_v[i], &e->free_v[i + 1], (e->nfree - i - 1) * sizeof *e->free_v);
                e->nfree--;
            }
            break;
        }
    if (off == SIZE_MAX) {
        if (need > e->span - e->end)
            return NULL;
        off = e->end;
        e->end += need;
    }
    if (back(e, off, need) != 0 ||
        replay_map_put(&e->live, (uintptr_t)(e->base + off), need) != 0) {
        give_back(e, off, need);
        return NULL;
    }
    e->inuse += need;
    e->slack_sq += (double)(need - size) * (double)(need - size);
    return e->base + off;
}

static void exp_free(void *state, void *ptr, size_t size, aclrtStream stream)
{
    struct expandable *e = state;
    uint64_t need;
    (void)stream;
    if (!replay_map_take(&e->live, (uintptr_t)ptr, &need))
        return;
    size_t off = (size_t)((char *)ptr - e->base);
    unback(e, off, need);
    give_back(e, off, need);
    e->inuse -= need;
    e->slack_sq -= (double)(need - size) * (double)(need - size);
}

static void exp_close(void *state)
{
    struct expandable *e = state;
    for (size_t i = 0; i < e->pages; i++)
        if (e->handles[i])
            unmap_piece(e, i);
    aclrtReleaseMemAddress(e->base);
    free(e->refs);
    free(e->handles);
    free(e->free_v);
    replay_map_free(&e->live);
    free(e);
}

/* The mapped part of [a, b): only its first and last pieces can be mapped
 * (a piece no block lies on is unmapped). */
static double mapped_gap_sq(const struct expandable *e, size_t a, size_t b)
{
    if (a >= b)
        return 0;
    size_t pa = a / e->piece, pb = (b - 1) / e->piece;
    double g1 = 0, g2 = 0;
    if (e->refs[pa])
        g1 = (double)((pa == pb ? b : (pa + 1) * e->piece) - a);
    if (pb != pa && e->refs[pb])
        g2 = (double)(b - pb * e->piece);
    return g1 * g1 + g2 * g2;
}

static void exp_stats(void *state, aclsim_replay_stats *out)
{
    struct expandable *e = state;
    double g = e->slack_sq > 0 ? e->slack_sq : 0;
    for (size_t i = 0; i < e->nfree; i++)
        g += mapped_gap_sq(e, e->free_v[i].off, e->free_v[i].off + e->free_v[i].len);
    if (e->end % e->piece)
        g += mapped_gap_sq(e, e->end, (e->end / e->piece + 1) * e->piece);
    size_t held = e->mapped * e->piece;
    out->cached = held > e->inuse ? held - e->inuse : 0;
    out->gap_sq = g;
}

const aclsim_replay_allocator replay_expandable = {
    ACLSIM_REPLAY_ABI, "expandable", exp_open, exp_alloc, exp_free, NULL, exp_close, exp_stats};
