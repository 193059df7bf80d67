/*
 * alloc_torch.c - the replay's "caching" and "expandable" allocators: the
 * rules of torch_npu's NPUCachingAllocator, so that "will it fit?" is
 * answered for the allocator a torch_npu workload really runs on.
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
#include "builtin.h"

#define MIB ((size_t)1 << 20)
#define MIN_BLOCK ((size_t)512)        /* kMinBlockSize CA:97 */
#define SMALL_SIZE MIB                 /* kSmallSize CA:98 */
#define SMALL_BUFFER (2 * MIB)         /* kSmallBuffer CFG:16 */
#define LARGE_BUFFER (20 * MIB)        /* kLargeBuffer CFG:17 */
#define MIN_LARGE_ALLOC (10 * MIB)     /* kMinLargeAlloc CFG:18 */
#define ROUND_LARGE (2 * MIB)          /* kRoundLarge CA:100 */
#define ALIGN_ROUND_LARGE ((size_t)16384) /* kAlignRoundLarge CA:101 */

struct tpool;
struct tseg;

struct tblock {
    char *ptr;
    size_t size, req;
    aclrtStream stream;
    struct tpool *pool;
    struct tblock *prev, *next; /* neighbours in the segment */
    struct tseg *seg;
    uint64_t gc_count;
    unsigned allocated : 1, mapped : 1;
    struct tblock *l, *r; /* treap links (free or unmapped set) */
    uint32_t prio;
};

/* A segment: an aclrtMalloc'd range, or an expandable segment's reserved range. */
struct tseg {
    struct tblock *any;  /* some block of it, kept valid through merges */
    struct tseg *prev, *next;
    /* expandable only */
    char *base;
    size_t page, max_pages, nh;
    aclrtDrvMemHandle *h; /* per page, NULL when unmapped */
};

struct tpool {
    int small;
    uint32_t id;                        /* the trace's pool number */
    struct tblock *free_root;           /* mapped free blocks: stream, size, address */
    struct tblock *unmapped_root;       /* unmapped ranges: stream, address */
    aclrtDrvMemHandle *spare;           /* free_physical_handles_ */
    size_t nspare, capspare;
};

struct conf {
    size_t max_split, max_non_split_rounding, divisions, align, large_segment;
    double gc_threshold, fraction;
    int expandable;
};

struct torch {
    struct conf cf;
    size_t pad, device_total, allowed_max, total_allocated;
    struct tpool **pools;
    size_t npools;
    struct tseg *segs;
    struct replay_map live; /* ptr -> struct tblock * */
    size_t cached;          /* free mapped bytes and spare pages */
    double gap_sq;
    uint32_t seed;
    int32_t device;
};

/* ---- ordered sets of blocks: treaps ---- */

typedef int (*cmp_fn)(const struct tblock *, const struct tblock *);

static int cmp_u(uintptr_t a, uintptr_t b)
{
    return a < b ? -1 : a > b;
}

/* BlockComparatorSize CA:668: stream, size, address. */
static int by_size(const struct tblock *a, const struct tblock *b)
{
    int c = cmp_u((uintptr_t)a->stream, (uintptr_t)b->stream);
    if (!c)
        c = cmp_u(a->size, b->size);
    return c ? c : cmp_u((uintptr_t)a->ptr, (uintptr_t)b->ptr);
}

/* BlockComparatorAddress CA:678: stream, address. */
static int by_addr(const struct tblock *a, const struct tblock *b)
{
    int c = cmp_u((uintptr_t)a->stream, (uintptr_t)b->stream);
    return c ? c : cmp_u((uintptr_t)a->ptr, (uintptr_t)b->ptr);
}

static struct tblock *t_insert(struct tblock *t, struct tblock *b, cmp_fn cmp)
{
    if (!t) {
        b->l = b->r = NULL;
        return b;
    }
    if (cmp(b, t) < 0) {
        t->l = t_insert(t->l, b, cmp);
        if (t->l->prio < t->prio) {
            struct tblock *x = t->l;
            t->l = x->r;
            x->r = t;
            return x;
        }
    } else {
        t->r = t_insert(t->r, b, cmp);
        if (t->r->prio < t->prio) {
            struct tblock *x = t->r;
            t->r = x->l;
            x->l = t;
            return x;
        }
    }
    return t;
}

static struct tblock *t_join(struct tblock *a, struct tblock *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio < b->prio) {
        a->r = t_join(a->r, b);
        return a;
    }
    b->l = t_join(a, b->l);
    return b;
}

static struct tblock *t_erase(struct tblock *t, struct tblock *b, cmp_fn cmp)
{
    if (!t)
        return NULL;
    if (t == b)
        return t_join(t->l, t->r);
    if (cmp(b, t) < 0)
        t->l = t_erase(t->l, b, cmp);
    else
        t->r = t_erase(t->r, b, cmp);
    return t;
}

/* The first block not less than key (std::set::lower_bound). */
static struct tblock *t_lower(struct tblock *t, const struct tblock *key, cmp_fn cmp)
{
    struct tblock *best = NULL;
    while (t) {
        if (cmp(t, key) >= 0) {
            best = t;
            t = t->l;
        } else {
            t = t->r;
        }
    }
    return best;
}

/* The block after b / before b in the set. */
static struct tblock *t_next(struct tblock *t, const struct tblock *b, cmp_fn cmp)
{
    struct tblock *best = NULL;
    while (t) {
        if (cmp(t, b) > 0) {
            best = t;
            t = t->l;
        } else {
            t = t->r;
        }
    }
    return best;
}

static struct tblock *t_prev(struct tblock *t, const struct tblock *b, cmp_fn cmp)
{
    struct tblock *best = NULL;
    while (t) {
        if (cmp(t, b) < 0) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    return best;
}

static size_t t_collect(struct tblock *t, struct tblock **out, size_t n)
{
    if (!t)
        return n;
    n = t_collect(t->l, out, n);
    if (out)
        out[n] = t;
    n++;
    return t_collect(t->r, out, n);
}

/* ---- blocks ---- */

static double sq(size_t n)
{
    return (double)n * (double)n;
}

static struct tblock *new_block(struct torch *T, struct tpool *p, aclrtStream s, char *ptr,
                                size_t size, struct tseg *seg)
{
    struct tblock *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    T->seed = T->seed * 1103515245u + 12345u;
    b->prio = T->seed ^ (T->seed >> 16);
    b->pool = p;
    b->stream = s;
    b->ptr = ptr;
    b->size = size;
    b->seg = seg;
    b->mapped = 1;
    return b;
}

static void cache_in(struct torch *T, struct tblock *b)
{
    b->pool->free_root = t_insert(b->pool->free_root, b, by_size);
    T->cached += b->size;
    T->gap_sq += sq(b->size);
}

static void cache_out(struct torch *T, struct tblock *b)
{
    b->pool->free_root = t_erase(b->pool->free_root, b, by_size);
    T->cached -= b->size;
    T->gap_sq -= sq(b->size);
}

static void drop_block(struct tblock *gone, struct tblock *heir)
{
    if (gone->seg && gone->seg->any == gone)
        gone->seg->any = heir;
    free(gone);
}

/* try_merge_blocks CA:2656: src into dst when src is free and alike. */
static size_t merge(struct torch *T, struct tblock *dst, struct tblock *src)
{
    if (!src || src->allocated || dst->mapped != src->mapped)
        return 0;
    if (src->mapped)
        cache_out(T, src);
    else
        src->pool->unmapped_root = t_erase(src->pool->unmapped_root, src, by_addr);
    if (dst->prev == src) {
        dst->ptr = src->ptr;
        dst->prev = src->prev;
        if (dst->prev)
            dst->prev->next = dst;
    } else {
        dst->next = src->next;
        if (dst->next)
            dst->next->prev = dst;
    }
    size_t n = src->size;
    dst->size += n;
    drop_block(src, dst);
    return n;
}

static void link_seg(struct torch *T, struct tseg *s)
{
    s->next = T->segs;
    if (T->segs)
        T->segs->prev = s;
    T->segs = s;
}

static void unlink_seg(struct torch *T, struct tseg *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        T->segs = s->next;
    if (s->next)
        s->next->prev = s->prev;
    free(s->h);
    free(s);
}

/* ---- configuration: PYTORCH_NPU_ALLOC_CONF ---- */

/* c10's AllocatorConfig defaults (max_split_size: no limit,
 * max_non_split_rounding_size: kLargeBuffer, no GC) and torch_npu's own
 * (base_addr_aligned_kb 16, CFG:167-171). "key:value,key:value". */
static int parse_conf(struct conf *c, const char *s)
{
    *c = (struct conf){SIZE_MAX, LARGE_BUFFER, 0, ALIGN_ROUND_LARGE, LARGE_BUFFER, 0, 1.0, 0};
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[128];
        if (len >= sizeof item)
            return -1;
        memcpy(item, s, len);
        item[len] = 0;
        s = end ? end + 1 : NULL;
        char *colon = strchr(item, ':');
        if (!len)
            continue;
        if (!colon)
            return -1;
        *colon = 0;
        const char *k = item, *v = colon + 1;
        char *rest = NULL;
        double d = strtod(v, &rest);
        int num = rest != v && !*rest;
        if (!strcmp(k, "expandable_segments") && (!strcmp(v, "True") || !strcmp(v, "False")))
            c->expandable = !strcmp(v, "True");
        else if (!strcmp(k, "max_split_size_mb") && num && d > 20) /* > kLargeBuffer in MB */
            c->max_split = (size_t)d * MIB;
        else if (!strcmp(k, "max_non_split_rounding_mb") && num && d >= 0)
            c->max_non_split_rounding = (size_t)d * MIB;
        else if (!strcmp(k, "garbage_collection_threshold") && num && d > 0 && d < 1)
            c->gc_threshold = d;
        else if (!strcmp(k, "per_process_memory_fraction") && num && d >= 0 && d <= 1)
            c->fraction = d;
        else if (!strcmp(k, "roundup_power2_divisions") && num && d >= 0 &&
                 ((size_t)d & ((size_t)d - 1)) == 0)
            c->divisions = (size_t)d;
        else if (!strcmp(k, "base_addr_aligned_kb") && num && d >= 0 && d <= 16)
            c->align = (size_t)d * 1024;
        else if (!strcmp(k, "segment_size_mb") && num && d >= 1)
            c->large_segment = (size_t)d * MIB;
        else
            return -1;
    }
    return 0;
}

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
        size_t n = t_collect(p->free_root, NULL, 0);
        struct tblock **all = n ? malloc(n * sizeof *all) : NULL;
        if (all) {
            t_collect(p->free_root, all, 0);
            for (size_t i = 0; i < n; i++)
                all[i]->gc_count++;
            free(all);
        }
    }
    struct tblock key = {.stream = s, .size = size};
    struct tblock *it = t_lower(p->free_root, &key, by_size);
    if (!it || it->stream != s)
        return NULL;
    if (it->seg && it->seg->h) { /* best fit counts what an expandable block can grow to */
        struct tblock *nx = t_next(p->free_root, it, by_size);
        while (it->seg->h && nx && nx->stream == s && expandable_size(nx) < expandable_size(it)) {
            it = nx;
            nx = t_next(p->free_root, nx, by_size);
        }
    }
    if (size < T->cf.max_split && it->size >= T->cf.max_split)
        return NULL;
    if (size >= T->cf.max_split && it->size >= size + T->cf.max_non_split_rounding)
        return NULL;
    it->gc_count = 0;
    cache_out(T, it);
    return it;
}

/* ---- segments from the device ---- */

/* release_block CA:3188: an unsplit cached block back with aclrtFree. */
static void release_block(struct torch *T, struct tblock *b)
{
    replay_note(REPLAY_SEGMENT_FREE, b->ptr, b->size, b->stream, b->pool->id);
    cache_out(T, b);
    aclrtFree(b->ptr);
    T->total_allocated -= b->size;
    unlink_seg(T, b->seg);
    free(b);
}

/* One page of an expandable segment: a spare handle of the pool or a new one. */
static int map_page(struct torch *T, struct tseg *s, struct tpool *p, size_t i)
{
    aclrtDrvMemHandle h = NULL;
    if (p->nspare) {
        h = p->spare[--p->nspare];
        T->cached -= s->page;
    } else {
        aclrtPhysicalMemProp prop = {0};
        prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
        prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
        prop.memAttr = ACL_HBM_MEM_HUGE;
        prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = (uint32_t)T->device;
        if (aclrtMallocPhysical(&h, s->page, &prop, 0) != ACL_SUCCESS)
            return -1;
    }
    if (aclrtMapMem(s->base + i * s->page, s->page, 0, h, 0) != ACL_SUCCESS) {
        aclrtFreePhysical(h);
        return -1;
    }
    s->h[i] = h;
    if (i + 1 > s->nh)
        s->nh = i + 1;
    return 0;
}

static void unmap_page(struct torch *T, struct tseg *s, struct tpool *keep, size_t i)
{
    aclrtUnmapMem(s->base + i * s->page);
    aclrtDrvMemHandle h = s->h[i];
    s->h[i] = NULL;
    if (keep && keep->nspare < keep->capspare) {
        keep->spare[keep->nspare++] = h;
        T->cached += s->page;
    } else if (keep) {
        size_t cap = keep->capspare ? 2 * keep->capspare : 16;
        aclrtDrvMemHandle *v = realloc(keep->spare, cap * sizeof *v);
        if (v) {
            keep->spare = v;
            keep->capspare = cap;
            keep->spare[keep->nspare++] = h;
            T->cached += s->page;
        } else {
            aclrtFreePhysical(h);
        }
    } else {
        aclrtFreePhysical(h);
    }
    while (s->nh && !s->h[s->nh - 1])
        s->nh--;
}

/* find_expandable_block CA:2437: the lowest address, in an expandable
 * segment of this pool and stream, with `size` bytes free or unmapped from
 * it; else a new segment. */
static struct tblock *find_expandable(struct torch *T, struct tpool *p, aclrtStream s, size_t size)
{
    struct tblock key = {.stream = s};
    for (struct tblock *c = t_lower(p->unmapped_root, &key, by_addr); c && c->stream == s;
         c = t_next(p->unmapped_root, c, by_addr)) {
        struct tblock *from = c->prev && !c->prev->allocated ? c->prev : c;
        size_t bytes = 0;
        for (struct tblock *b = from; b && bytes < size && !b->allocated; b = b->next)
            bytes += b->size;
        if (bytes >= size)
            return from;
    }
    struct tseg *seg = calloc(1, sizeof *seg);
    if (!seg)
        return NULL;
    seg->page = p->small ? SMALL_BUFFER : T->cf.large_segment;
    /* room for 1 1/8 of the device's memory (CA:369-371); the simulator's
     * window of addresses holds two such ranges, not one per pool and
     * stream as a real device's does, so a range that does not fit is
     * asked for again at half the size, down to what the request needs
     * (a segment then fills sooner and the next one is made) */
    size_t need = (size + seg->page - 1) / seg->page;
    void *va = NULL;
    for (seg->max_pages = (T->device_total + T->device_total / 8 + seg->page - 1) / seg->page;
         seg->max_pages >= need && seg->max_pages > 0; seg->max_pages /= 2)
        if (aclrtReserveMemAddress(&va, seg->page * seg->max_pages, 0, NULL, 0) == ACL_SUCCESS)
            break;
    seg->h = va ? calloc(seg->max_pages, sizeof *seg->h) : NULL;
    if (!seg->h) {
        if (va)
            aclrtReleaseMemAddress(va);
        free(seg);
        return NULL;
    }
    seg->base = va;
    struct tblock *b = new_block(T, p, s, seg->base, seg->page * seg->max_pages, seg);
    if (!b) {
        aclrtReleaseMemAddress(va);
        free(seg->h);
        free(seg);
        return NULL;
    }
    b->mapped = 0;
    seg->any = b;
    link_seg(T, seg);
    p->unmapped_root = t_insert(p->unmapped_root, b, by_addr);
    return b;
}

/* map_block CA:2488: the pages under the first `size` bytes of an unmapped
 * range; the rest stays unmapped; merged with free neighbours. */
static int map_block(struct torch *T, struct tblock *b, size_t size)
{
    struct tseg *s = b->seg;
    struct tpool *p = b->pool;
    size_t begin = (size_t)(b->ptr - s->base) / s->page;
    size_t end = ((size_t)(b->ptr - s->base) + size + s->page - 1) / s->page;
    if (begin == end)
        return -1;
    for (size_t i = begin; i < end; i++)
        if (map_page(T, s, p, i) != 0) { /* CA:410-418: what this call mapped goes */
            while (i-- > begin) {
                aclrtUnmapMem(s->base + i * s->page);
                aclrtFreePhysical(s->h[i]);
                s->h[i] = NULL;
            }
            while (s->nh && !s->h[s->nh - 1])
                s->nh--;
            return -1;
        }
    size_t got = (end - begin) * s->page;
    p->unmapped_root = t_erase(p->unmapped_root, b, by_addr);
    b->mapped = 1;
    if (got < b->size) {
        struct tblock *rest = new_block(T, p, b->stream, b->ptr + got, b->size - got, s);
        if (rest) { /* (no host memory: the tail is lost to this segment) */
            rest->mapped = 0;
            rest->prev = b;
            rest->next = b->next;
            if (b->next)
                b->next->prev = rest;
            b->next = rest;
            p->unmapped_root = t_insert(p->unmapped_root, rest, by_addr);
        }
        b->size = got;
    }
    merge(T, b, b->prev);
    merge(T, b, b->next);
    cache_in(T, b);
    T->total_allocated += got;
    replay_note(REPLAY_SEGMENT_MAP, s->base + begin * s->page, got, b->stream, p->id);
    return 0;
}

/* try_allocate_expandable_block CA:2545. */
static struct tblock *alloc_expandable(struct torch *T, struct tpool *p, aclrtStream s, size_t size)
{
    struct tblock *c = find_expandable(T, p, s, size);
    if (!c)
        return NULL;
    if (!c->mapped && map_block(T, c, c->size < size ? c->size : size) != 0)
        return NULL;
    while (c->size < size) {
        struct tblock *nx = c->next;
        size_t rest = size - c->size;
        if (!nx || map_block(T, nx, rest < nx->size ? rest : nx->size) != 0)
            return NULL;
        c = nx; /* merged into nx */
    }
    cache_out(T, c);
    return c;
}

/* alloc_block CA:2931: a new segment of alloc_size bytes. */
static struct tblock *alloc_block(struct torch *T, struct tpool *p, aclrtStream s, size_t size,
                                  size_t alloc_size)
{
    if (T->allowed_max && T->total_allocated + alloc_size > T->allowed_max)
        return NULL;
    if (T->cf.expandable)
        return alloc_expandable(T, p, s, size);
    struct tseg *seg = calloc(1, sizeof *seg);
    void *ptr = NULL;
    if (!seg || aclrtMallocAlign32(&ptr, alloc_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        free(seg);
        return NULL;
    }
    struct tblock *b = new_block(T, p, s, ptr, alloc_size, seg);
    if (!b) {
        aclrtFree(ptr);
        free(seg);
        return NULL;
    }
    seg->any = b;
    link_seg(T, seg);
    T->total_allocated += alloc_size;
    replay_note(REPLAY_SEGMENT_ALLOC, ptr, alloc_size, s, p->id);
    return b;
}

/* unmap_block CA:3241: the whole pages of a free expandable block unmapped;
 * its ends, if any, stay free blocks. */
static void unmap_block(struct torch *T, struct tblock *b, int free_physical)
{
    struct tseg *s = b->seg;
    struct tpool *p = b->pool;
    size_t off = (size_t)(b->ptr - s->base);
    size_t begin = (off + s->page - 1) / s->page, end = (off + b->size) / s->page;
    if (begin >= end)
        return;
    cache_out(T, b);
    for (size_t i = begin; i < end; i++)
        unmap_page(T, s, free_physical ? NULL : p, i);
    char *at = s->base + begin * s->page;
    size_t len = (end - begin) * s->page;
    size_t before = (size_t)(at - b->ptr), after = b->size - before - len;
    if (before) {
        struct tblock *f = new_block(T, p, b->stream, b->ptr, before, s);
        if (f) {
            f->prev = b->prev;
            if (b->prev)
                b->prev->next = f;
            f->next = b;
            b->prev = f;
            cache_in(T, f);
        }
    }
    if (after) {
        struct tblock *f = new_block(T, p, b->stream, at + len, after, s);
        if (f) {
            f->next = b->next;
            if (b->next)
                b->next->prev = f;
            f->prev = b;
            b->next = f;
            cache_in(T, f);
        }
    }
    b->ptr = at;
    b->size = len;
    b->mapped = 0;
    merge(T, b, b->prev);
    merge(T, b, b->next);
    p->unmapped_root = t_insert(p->unmapped_root, b, by_addr);
    T->total_allocated -= len;
    replay_note(REPLAY_SEGMENT_UNMAP, at, len, b->stream, p->id);
}

/* release_expandable_segment CA:3170. */
static void release_segment(struct torch *T, struct tblock *b)
{
    struct tseg *s = b->seg;
    for (size_t i = 0; i < s->nh; i++)
        if (s->h[i])
            unmap_page(T, s, NULL, i);
    b->pool->unmapped_root = t_erase(b->pool->unmapped_root, b, by_addr);
    aclrtReleaseMemAddress(s->base);
    unlink_seg(T, s);
    free(b);
}

static struct tblock **free_blocks(struct tpool *p, size_t *n)
{
    *n = t_collect(p->free_root, NULL, 0);
    struct tblock **all = *n ? malloc(*n * sizeof *all) : NULL;
    if (all)
        t_collect(p->free_root, all, 0);
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
        if (all[i]->seg->h)
            ;
        else if (!all[i]->prev && !all[i]->next)
            release_block(T, all[i]);
    for (size_t i = 0; i < n; i++)
        if (all[i]->seg && all[i]->seg->h) {
            struct tblock *b = all[i];
            unmap_block(T, b, free_physical);
            if (!b->mapped && !b->prev && !b->next)
                release_segment(T, b);
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
    struct tblock *it = t_lower(p->free_root, &key, by_size);
    if (it && it->stream == s) {
        if (it->seg->h)
            return 0;
        release_block(T, it);
        return 1;
    }
    it = it ? t_prev(p->free_root, it, by_size) : NULL;
    if (!it) { /* the largest of all */
        for (struct tblock *t = p->free_root; t; t = t->r)
            it = t;
    }
    size_t released = 0;
    while (it && released < key.size && it->size >= T->cf.max_split && it->stream == s &&
           !it->seg->h) {
        struct tblock *before = t_prev(p->free_root, it, by_size);
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
    if (parse_conf(&T->cf, getenv("PYTORCH_NPU_ALLOC_CONF")) != 0 ||
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
                                ? new_block(T, p, s, b->ptr + skip, b->size - skip, b->seg)
                                : NULL;
        if (nb) {
            nb->next = b->next;
            if (nb->next)
                nb->next->prev = nb;
            nb->prev = b;
            b->next = nb;
            b->size = skip;
            cache_in(T, b);
            b = nb;
        }
    }
    if (should_split(T, b, size)) { /* alloc_found_block CA:1428 */
        struct tblock *nb = new_block(T, p, s, b->ptr, size, b->seg);
        if (nb) {
            nb->prev = b->prev;
            if (nb->prev)
                nb->prev->next = nb;
            nb->next = b;
            b->prev = nb;
            b->ptr += size;
            b->size -= size;
            cache_in(T, b);
            b = nb;
        }
    }
    if (replay_map_put(&T->live, (uintptr_t)b->ptr, (uint64_t)(uintptr_t)b) != 0) {
        cache_in(T, b);
        return NULL;
    }
    b->allocated = 1;
    b->req = orig;
    T->gap_sq += sq(b->size - orig);
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
    T->gap_sq -= sq(b->size - b->req);
    b->allocated = 0;
    b->req = 0;
    merge(T, b, b->prev);
    merge(T, b, b->next);
    cache_in(T, b);
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
        unlink_seg(T, s);
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
    return parse_conf(&c, getenv("PYTORCH_NPU_ALLOC_CONF")) == 0;
}

const aclsim_replay_allocator replay_caching = {
    ACLSIM_REPLAY_ABI, "caching", caching_open, torch_alloc, torch_free, NULL, torch_close,
    torch_stats};
const aclsim_replay_allocator replay_expandable = {
    ACLSIM_REPLAY_ABI, "expandable", expandable_open, torch_alloc, torch_free, NULL, torch_close,
    torch_stats};
