/*
 * torch_blocks.c - blocks and segments of the replay's torch_npu caching
 * allocator (torch.h): making a block, keeping it in its pool's free set,
 * merging it with its free neighbours, the list of segments, and reading
 * PYTORCH_NPU_ALLOC_CONF.
 */
#include <stdlib.h>
#include <string.h>
#include "torch.h"

double torch_sq(size_t n)
{
    return (double)n * (double)n;
}

struct tblock *torch_new_block(struct torch *T, struct tpool *p, aclrtStream s, char *ptr,
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

void torch_splice(struct tblock *b, struct tblock *before, struct tblock *after)
{
    b->prev = before;
    b->next = after;
    if (before)
        before->next = b;
    if (after)
        after->prev = b;
}

void torch_cache_in(struct torch *T, struct tblock *b)
{
    b->pool->free_root = tset_insert(b->pool->free_root, b, tset_by_size);
    T->cached += b->size;
    T->gap_sq += torch_sq(b->size);
}

void torch_cache_out(struct torch *T, struct tblock *b)
{
    b->pool->free_root = tset_erase(b->pool->free_root, b, tset_by_size);
    T->cached -= b->size;
    T->gap_sq -= torch_sq(b->size);
}

static void drop_block(struct tblock *gone, struct tblock *heir)
{
    if (gone->seg && gone->seg->any == gone)
        gone->seg->any = heir;
    free(gone);
}

/* try_merge_blocks CA:2656: src into dst when src is free and alike. */
size_t torch_merge(struct torch *T, struct tblock *dst, struct tblock *src)
{
    if (!src || src->allocated || dst->mapped != src->mapped)
        return 0;
    if (src->mapped)
        torch_cache_out(T, src);
    else
        src->pool->unmapped_root = tset_erase(src->pool->unmapped_root, src, tset_by_addr);
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

void torch_link_seg(struct torch *T, struct tseg *s)
{
    s->next = T->segs;
    if (T->segs)
        T->segs->prev = s;
    T->segs = s;
}

void torch_unlink_seg(struct torch *T, struct tseg *s)
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
int torch_parse_conf(struct conf *c, const char *s)
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
