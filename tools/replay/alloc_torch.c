/*
 * alloc_torch.c - the replay's "caching" and "expandable" allocators: the
 * rules of torch_npu's NPUCachingAllocator, so that "will it fit?" is
 * answered for the allocator a torch_npu workload really runs on. This
 * file: sizes, pools, finding and splitting cached blocks, giving memory
 * back, the allocator's calls; torch_vmm.c the expandable segments,
 * torch_blocks.c merging and PYTORCH_NPU_ALLOC_CONF, torch_set.c the
 * ordered sets of blocks (torch.h).
 * "expandable" is the same allocator with PYTORCH_NPU_ALLOC_CONF's
 * expandable_segments:True; "caching" reads PYTORCH_NPU_ALLOC_CONF too.
 *
 * Every rule below cites Ascend/pytorch @9e73e708
 * torch_npu/csrc/core/npu/NPUCachingAllocator.cpp (CA:line) and
 * NPUAllocatorConfig.h (CFG:line):
 *  - sizes: the request plus AddPadSize (32 bytes, none on Ascend950 parts,
 *    CA:161-174) rounded up to 512 (kMinBlockSize, round_size CA:2202-2213;
 *    roundup_power2_divisions when configured);
 *  - pools: a request of at most 1 MiB (kSmallSize, CA:98) is served by the
 *    small pool, larger ones by the large pool, one pair per private pool
 *    (a graph's or use_mem_pool's, get_pool CA:2685-2710);
 *  - a segment is 2 MiB for the small pool (kSmallBuffer CFG:16), 20 MiB
 *    for a request under 10 MiB (kLargeBuffer, kMinLargeAlloc CFG:17-18),
 *    else the request rounded up to 2 MiB (get_allocation_size CA:2771),
 *    taken with aclrtMallocAlign32, HUGE_FIRST (alloc_block CA:2931-3055);
 *  - a free block is found best fit among the free blocks of the pool on
 *    the request's stream, ordered by stream, size, address
 *    (BlockComparatorSize CA:668, get_free_block CA:2781-2845); no block of
 *    max_split_size or more serves a smaller request, and an oversize one
 *    only within max_non_split_rounding_size;
 *  - a block is split when the rest is at least 512 bytes (small pool,
 *    expandable segments) or more than 1 MiB and the request is under
 *    max_split_size (should_split CA:2718); a freed block merges with its
 *    free neighbours (free_block, try_merge_blocks CA:2581-2680);
 *  - when the device has no room: garbage collection first when configured
 *    (garbage_collection_threshold and per_process_memory_fraction,
 *    CA:2859-2929), then the oversize cached blocks (CA:3060), then every
 *    unsplit cached block of the default pools (release_cached_blocks
 *    CA:3122; a private pool is taken as still in use), then the request
 *    fails (malloc CA:1236-1300);
 *  - expandable segments (CA:355-520, 2437-2580): per pool and stream one
 *    reserved range of 1 1/8 the device's memory, mapped in pages of 2 MiB
 *    (small pool) or 20 MiB (large), pages of free blocks kept mapped until
 *    memory runs out; a block of 2 MiB or more starts on a 16 KiB boundary
 *    (base_addr_aligned_kb, CA:1397-1421).
 * Not modelled: events of cross-stream use (the trace's free_completed is
 * when the block is free), 1 GB pages, HCCL memory, the workspace allocator.
 */
#include <stdlib.h>
#include <string.h>
#include "torch.h"

/* ---- sizes and pools ---- */

/* round_size CA:2202 (roundup_power2_next_division CA:2186 when divisions
 * are configured). */
static size_t round_size(const struct torch *T, size_t size)
{
    size += T->pad;
    if (size < MIN_BLOCK)
        return MIN_BLOCK;
    size_t div = T->cf.divisions;
    if (div > 1 && size > MIN_BLOCK * div) {
        size_t floor2 = (size_t)1 << (63 - __builtin_clzll((unsigned long long)size));
        size_t step = floor2 / div;
        if (!step)
            return floor2 << 1;
        size_t down = size & ~(step - 1);
        return down == size ? size : down + step;
    }
    return (size + MIN_BLOCK - 1) / MIN_BLOCK * MIN_BLOCK;
}

static size_t allocation_size(const struct torch *T, size_t size)
{
    if (size <= SMALL_SIZE)
        return SMALL_BUFFER;
    if (size < MIN_LARGE_ALLOC)
        return T->cf.large_segment;
    return (size + ROUND_LARGE - 1) / ROUND_LARGE * ROUND_LARGE;
}

static struct tpool *pool_of(struct torch *T, uint32_t id, int small)
{
    for (size_t i = 0; i < T->npools; i++)
        if (T->pools[i]->id == id && T->pools[i]->small == small)
            return T->pools[i];
    struct tpool **v = realloc(T->pools, (T->npools + 1) * sizeof *v);
    struct tpool *p = calloc(1, sizeof *p);
    if (!v || !p) {
        free(p);
        if (v)
            T->pools = v;
        return NULL;
    }
    T->pools = v;
    p->id = id;
    p->small = small;
    v[T->npools++] = p;
    return p;
}

static int should_split(const struct torch *T, const struct tblock *b, size_t size)
{
    size_t rest = b->size - size;
    if (b->pool->small || T->cf.expandable)
        return rest >= MIN_BLOCK;
    return size < T->cf.max_split && rest > SMALL_SIZE;
}

/* ---- getting a cached block ---- */

static size_t expandable_size(const struct tblock *b)
{
    return b->size + (b->next && !b->next->mapped ? b->next->size : 0);
}

static struct tblock *get_free_block(struct torch *T, struct tpool *p, aclrtStream s, size_t size)
{
    if (T->allowed_max && T->cf.gc_threshold > 0) { /* CA:2785: ages for the GC */
        size_t n = tset_collect(p->free_root, NULL, 0);
        struct tblock **all = n ? malloc(n * sizeof *all) : NULL;
        if (all) {
            tset_collect(p->free_root, all, 0);
            for (size_t i = 0; i < n; i++)
                all[i]->gc_count++;
            free(all);
        }
    }
    struct tblock key = {.stream = s, .size = size};
    struct tblock *it = tset_lower(p->free_root, &key, tset_by_size);
    if (!it || it->stream != s)
        return NULL;
    if (it->seg && it->seg->h) { /* best fit counts what an expandable block can grow to */
        struct tblock *nx = tset_next(p->free_root, it, tset_by_size);
        while (it->seg->h && nx && nx->stream == s && expandable_size(nx) < expandable_size(it)) {
            it = nx;
            nx = tset_next(p->free_root, nx, tset_by_size);
        }
    }
    if (size < T->cf.max_split && it->size >= T->cf.max_split)
        return NULL;
    if (size >= T->cf.max_split && it->size >= size + T->cf.max_non_split_rounding)
        return NULL;
    it->gc_count = 0;
    torch_cache_out(T, it);
    return it;
}

/* ---- segments from the device ---- */

/* release_block CA:3188: an unsplit cached block back with aclrtFree. */
static void release_block(struct torch *T, struct tblock *b)
{
    replay_note(REPLAY_SEGMENT_FREE, b->ptr, b->size, b->stream, b->pool->id);
    torch_cache_out(T, b);
    aclrtFree(b->ptr);
    T->total_allocated -= b->size;
    torch_unlink_seg(T, b->seg);
    free(b);
}

/* alloc_block CA:2931: a new segment of alloc_size bytes. */
static struct tblock *alloc_block(struct torch *T, struct tpool *p, aclrtStream s, size_t size,
                                  size_t alloc_size)
{
    if (T->allowed_max && T->total_allocated + alloc_size > T->allowed_max)
        return NULL;
    if (T->cf.expandable)
        return torch_alloc_expandable(T, p, s, size);
    struct tseg *seg = calloc(1, sizeof *seg);
    void *ptr = NULL;
    if (!seg || aclrtMallocAlign32(&ptr, alloc_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        free(seg);
        return NULL;
    }
    struct tblock *b = torch_new_block(T, p, s, ptr, alloc_size, seg);
    if (!b) {
        aclrtFree(ptr);
        free(seg);
        return NULL;
    }
    seg->any = b;
    torch_link_seg(T, seg);
    T->total_allocated += alloc_size;
    replay_note(REPLAY_SEGMENT_ALLOC, ptr, alloc_size, s, p->id);
    return b;
}

static struct tblock **free_blocks(struct tpool *p, size_t *n)
{
    *n = tset_collect(p->free_root, NULL, 0);
    struct tblock **all = *n ? malloc(*n * sizeof *all) : NULL;
    if (all)
        tset_collect(p->free_root, all, 0);
    else
        *n = 0;
    return all;
}

/* release_blocks CA:3304: every unsplit cached block; expandable ones unmapped. */
static void release_blocks(struct torch *T, struct tpool *p, int free_physical)
{
    size_t n;
    struct tblock **all = free_blocks(p, &n);
    for (size_t i = 0; i < n; i++)
        if (!all[i]->seg->h && !all[i]->prev && !all[i]->next) {
            release_block(T, all[i]);
            all[i] = NULL;
        }
    for (size_t i = 0; i < n; i++)
        if (all[i] && all[i]->seg->h) {
            struct tblock *b = all[i];
            torch_unmap_block(T, b, free_physical);
            if (!b->mapped && !b->prev && !b->next)
                torch_release_segment(T, b);
        }
    free(all);
    while (free_physical && p->nspare) {
        aclrtFreePhysical(p->spare[--p->nspare]);
        T->cached -= p->small ? SMALL_BUFFER : T->cf.large_segment;
    }
}

/* release_available_cached_blocks CA:3060: with max_split_size set, one
 * oversize cached block as large as the request, else the largest ones. */
static int release_available(struct torch *T, struct tpool *p, aclrtStream s, size_t size)
{
    if (T->cf.max_split == SIZE_MAX)
        return 0;
    struct tblock key = {.stream = s, .size = size < T->cf.max_split ? T->cf.max_split : size};
    struct tblock *it = tset_lower(p->free_root, &key, tset_by_size);
    if (it && it->stream == s) {
        if (it->seg->h)
            return 0;
        release_block(T, it);
        return 1;
    }
    /* none large enough: back up one (CA:3078-3086), to the largest below
     * the key, or the last of the set when the key is past them all */
    if (it) {
        it = tset_prev(p->free_root, it, tset_by_size);
    } else {
        for (struct tblock *t = p->free_root; t; t = t->r)
            it = t;
    }
    size_t released = 0;
    while (it && released < key.size && it->size >= T->cf.max_split && it->stream == s &&
           !it->seg->h) {
        struct tblock *before = tset_prev(p->free_root, it, tset_by_size);
        released += it->size;
        release_block(T, it);
        it = before;
    }
    return released >= key.size;
}

/* garbage_collect_cached_blocks CA:2859: over the threshold, the default
 * large pool's unsplit cached blocks older than the average go first. */
static void garbage_collect(struct torch *T)
{
    size_t threshold = (size_t)(T->cf.gc_threshold * (double)T->allowed_max);
    struct tpool *p = pool_of(T, 0, 0);
    if (!p || T->total_allocated <= threshold)
        return;
    size_t target = T->total_allocated - threshold, reclaimed = 0, n, count = 0;
    struct tblock **all = free_blocks(p, &n);
    double age = 0;
    for (size_t i = 0; i < n; i++)
        if (!all[i]->prev && !all[i]->next && !all[i]->seg->h) {
            age += (double)all[i]->gc_count;
            count++;
        }
    int freed = 1;
    while (reclaimed < target && freed && count > 0) {
        double threshold_age = age / (double)count;
        freed = 0;
        for (size_t i = 0; i < n; i++) {
            struct tblock *b = all[i];
            if (b && !b->prev && !b->next && !b->seg->h && (double)b->gc_count >= threshold_age) {
                freed = 1;
                reclaimed += b->size;
                age -= (double)b->gc_count;
                count--;
                all[i] = NULL;
                release_block(T, b);
            }
        }
    }
    free(all);
}

/* release_cached_blocks CA:3122 for the default pool id: its pools' blocks. */
static void release_cached(struct torch *T)
{
    for (size_t i = 0; i < T->npools; i++)
        if (T->pools[i]->id == 0)
            release_blocks(T, T->pools[i], 1);
}

/* ---- the allocator's calls ---- */

static void *torch_open_as(int32_t device, int expandable)
{
    struct torch *T = calloc(1, sizeof *T);
    size_t fr = 0;
    if (!T)
        return NULL;
    if (torch_parse_conf(&T->cf, getenv("PYTORCH_NPU_ALLOC_CONF")) != 0 ||
        aclrtGetMemInfo(ACL_HBM_MEM, &fr, &T->device_total) != ACL_SUCCESS) {
        free(T);
        return NULL;
    }
    if (expandable)
        T->cf.expandable = 1;
    const char *soc = aclrtGetSocName();
    T->pad = soc && !strncmp(soc, "Ascend950", 9) ? 0 : 32; /* AddPadSize CA:161 */
    if (T->cf.fraction < 1.0) /* setMemoryFraction CA:1712 */
        T->allowed_max = (size_t)(T->cf.fraction * (double)T->device_total);
    T->device = device;
    T->seed = 2463534242u;
    return T;
}

static void *caching_open(int32_t device)
{
    return torch_open_as(device, 0);
}

static void *expandable_open(int32_t device)
{
    return torch_open_as(device, 1);
}

static void *torch_alloc(void *state, size_t orig, aclrtStream s, uint32_t pool)
{
    struct torch *T = state;
    size_t size = round_size(T, orig);
    if (size < orig) /* wrapped: no device has it */
        return NULL;
    struct tpool *p = pool_of(T, pool, size <= SMALL_SIZE);
    if (!p)
        return NULL;
    size_t alloc_size = allocation_size(T, size);
    struct tblock *b = get_free_block(T, p, s, size);
    if (!b) {
        if (T->allowed_max && T->cf.gc_threshold > 0)
            garbage_collect(T);
        b = alloc_block(T, p, s, size, alloc_size);
        if (!b && release_available(T, p, s, size))
            b = alloc_block(T, p, s, size, alloc_size);
        if (!b) {
            release_cached(T);
            b = alloc_block(T, p, s, size, alloc_size);
        }
        if (!b)
            return NULL;
    }
    /* CA:1397-1421: an expandable block of 2 MiB or more starts aligned */
    uintptr_t at = (uintptr_t)b->ptr;
    if (size >= ROUND_LARGE && T->cf.expandable && T->cf.align && at % T->cf.align) {
        size_t skip = T->cf.align - at % T->cf.align;
        struct tblock *nb = skip + size <= b->size
                                ? torch_new_block(T, p, s, b->ptr + skip, b->size - skip, b->seg)
                                : NULL;
        if (nb) {
            torch_splice(nb, b, b->next);
            b->size = skip;
            torch_cache_in(T, b);
            b = nb;
        }
    }
    if (should_split(T, b, size)) { /* alloc_found_block CA:1428 */
        struct tblock *nb = torch_new_block(T, p, s, b->ptr, size, b->seg);
        if (nb) {
            torch_splice(nb, b->prev, b);
            b->ptr += size;
            b->size -= size;
            torch_cache_in(T, b);
            b = nb;
        }
    }
    if (replay_map_put(&T->live, (uintptr_t)b->ptr, (uint64_t)(uintptr_t)b) != 0) {
        torch_cache_in(T, b);
        return NULL;
    }
    b->allocated = 1;
    b->req = orig;
    T->gap_sq += torch_sq(b->size - orig);
    return b->ptr;
}

/* free_block CA:2581. */
static void torch_free(void *state, void *ptr, size_t size, aclrtStream s)
{
    struct torch *T = state;
    uint64_t v;
    (void)size;
    (void)s;
    if (!replay_map_take(&T->live, (uintptr_t)ptr, &v))
        return;
    struct tblock *b = (struct tblock *)(uintptr_t)v;
    T->gap_sq -= torch_sq(b->size - b->req);
    b->allocated = 0;
    b->req = 0;
    torch_merge(T, b, b->prev);
    torch_merge(T, b, b->next);
    torch_cache_in(T, b);
}

static void torch_close(void *state)
{
    struct torch *T = state;
    while (T->segs) {
        struct tseg *s = T->segs;
        struct tblock *b = s->any;
        while (b->prev)
            b = b->prev;
        if (s->h) {
            for (size_t i = 0; i < s->nh; i++)
                if (s->h[i]) {
                    aclrtUnmapMem(s->base + i * s->page);
                    aclrtFreePhysical(s->h[i]);
                }
            aclrtReleaseMemAddress(s->base);
        } else {
            aclrtFree(b->ptr);
        }
        while (b) {
            struct tblock *nx = b->next;
            free(b);
            b = nx;
        }
        s->any = NULL;
        torch_unlink_seg(T, s);
    }
    for (size_t i = 0; i < T->npools; i++) {
        while (T->pools[i]->nspare)
            aclrtFreePhysical(T->pools[i]->spare[--T->pools[i]->nspare]);
        free(T->pools[i]->spare);
        free(T->pools[i]);
    }
    free(T->pools);
    replay_map_free(&T->live);
    free(T);
}

static void torch_stats(void *state, aclsim_replay_stats *out)
{
    struct torch *T = state;
    out->cached = T->cached;
    out->gap_sq = T->gap_sq > 0 ? T->gap_sq : 0;
}

/* The segments and blocks, as torch_npu's snapshot reports them (CA:2096):
 * an expandable segment as one segment per mapped run. */
void replay_torch_walk(void *state, replay_walk_fn fn, void *ctx)
{
    struct torch *T = state;
    for (struct tseg *s = T->segs; s; s = s->next) {
        struct tblock *b = s->any;
        while (b->prev)
            b = b->prev;
        for (; b; b = b->next) {
            if (!b->mapped || (b->prev && b->prev->mapped))
                continue;
            size_t total = 0;
            for (struct tblock *x = b; x && x->mapped; x = x->next)
                total += x->size;
            fn(ctx, 1, b->ptr, total, 0, 0, b->stream, b->pool->id, b->pool->small, s->h != NULL);
            for (struct tblock *x = b; x && x->mapped; x = x->next)
                fn(ctx, 0, x->ptr, x->size, x->req, x->allocated, x->stream, x->pool->id,
                   x->pool->small, s->h != NULL);
        }
    }
}

int replay_torch_conf_ok(void)
{
    struct conf c;
    return torch_parse_conf(&c, getenv("PYTORCH_NPU_ALLOC_CONF")) == 0;
}

const aclsim_replay_allocator replay_caching = {
    ACLSIM_REPLAY_ABI, "caching", caching_open, torch_alloc, torch_free, NULL, torch_close,
    torch_stats};
const aclsim_replay_allocator replay_expandable = {
    ACLSIM_REPLAY_ABI, "expandable", expandable_open, torch_alloc, torch_free, NULL, torch_close,
    torch_stats};
