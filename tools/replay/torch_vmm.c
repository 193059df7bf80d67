/*
 * torch_vmm.c - the expandable segments of the replay's torch_npu caching
 * allocator (torch.h; NPUCachingAllocator.cpp CA:355-520 the segment,
 * CA:2437-2580 finding, mapping and growing a block in one, CA:3170-3300
 * unmapping and releasing): per pool and stream one reserved range of
 * addresses, mapped page by page (aclrtMallocPhysical, aclrtMapMem) as
 * blocks need them; the pages of free blocks stay mapped until the
 * allocator gives cached memory back.
 */
#include <stdlib.h>
#include "torch.h"

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
    for (struct tblock *c = tset_lower(p->unmapped_root, &key, tset_by_addr); c && c->stream == s;
         c = tset_next(p->unmapped_root, c, tset_by_addr)) {
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
    struct tblock *b = torch_new_block(T, p, s, seg->base, seg->page * seg->max_pages, seg);
    if (!b) {
        aclrtReleaseMemAddress(va);
        free(seg->h);
        free(seg);
        return NULL;
    }
    b->mapped = 0;
    seg->any = b;
    torch_link_seg(T, seg);
    p->unmapped_root = tset_insert(p->unmapped_root, b, tset_by_addr);
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
    p->unmapped_root = tset_erase(p->unmapped_root, b, tset_by_addr);
    b->mapped = 1;
    if (got < b->size) {
        struct tblock *rest = torch_new_block(T, p, b->stream, b->ptr + got, b->size - got, s);
        if (rest) { /* (no host memory: the tail is lost to this segment) */
            rest->mapped = 0;
            torch_splice(rest, b, b->next);
            p->unmapped_root = tset_insert(p->unmapped_root, rest, tset_by_addr);
        }
        b->size = got;
    }
    torch_merge(T, b, b->prev);
    torch_merge(T, b, b->next);
    torch_cache_in(T, b);
    T->total_allocated += got;
    replay_note(REPLAY_SEGMENT_MAP, s->base + begin * s->page, got, b->stream, p->id);
    return 0;
}

/* try_allocate_expandable_block CA:2545. */
struct tblock *torch_alloc_expandable(struct torch *T, struct tpool *p, aclrtStream s, size_t size)
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
    torch_cache_out(T, c);
    return c;
}

/* torch_unmap_block CA:3241: the whole pages of a free expandable block unmapped;
 * its ends, if any, stay free blocks. */
void torch_unmap_block(struct torch *T, struct tblock *b, int free_physical)
{
    struct tseg *s = b->seg;
    struct tpool *p = b->pool;
    size_t off = (size_t)(b->ptr - s->base);
    size_t begin = (off + s->page - 1) / s->page, end = (off + b->size) / s->page;
    if (begin >= end)
        return;
    torch_cache_out(T, b);
    for (size_t i = begin; i < end; i++)
        unmap_page(T, s, free_physical ? NULL : p, i);
    char *at = s->base + begin * s->page;
    size_t len = (end - begin) * s->page;
    size_t before = (size_t)(at - b->ptr), after = b->size - before - len;
    if (before) {
        struct tblock *f = torch_new_block(T, p, b->stream, b->ptr, before, s);
        if (f) {
            torch_splice(f, b->prev, b);
            torch_cache_in(T, f);
        }
    }
    if (after) {
        struct tblock *f = torch_new_block(T, p, b->stream, at + len, after, s);
        if (f) {
            torch_splice(f, b, b->next);
            torch_cache_in(T, f);
        }
    }
    b->ptr = at;
    b->size = len;
    b->mapped = 0;
    torch_merge(T, b, b->prev);
    torch_merge(T, b, b->next);
    p->unmapped_root = tset_insert(p->unmapped_root, b, tset_by_addr);
    T->total_allocated -= len;
    replay_note(REPLAY_SEGMENT_UNMAP, at, len, b->stream, p->id);
}

/* release_expandable_segment CA:3170. */
void torch_release_segment(struct torch *T, struct tblock *b)
{
    struct tseg *s = b->seg;
    for (size_t i = 0; i < s->nh; i++)
        if (s->h[i])
            unmap_page(T, s, NULL, i);
    b->pool->unmapped_root = tset_erase(b->pool->unmapped_root, b, tset_by_addr);
    aclrtReleaseMemAddress(s->base);
    torch_unlink_seg(T, s);
    free(b);
}
