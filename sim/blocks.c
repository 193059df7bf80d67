/*
 * blocks.c - device blocks: allocate, free, look up and walk the blocks of
 * a device's heap (heap.c) in its address space (vaspace.c), account for
 * them, and keep the list of blocks whose free failed.
 *
 * The heap works in offsets from the device's base address (track.h says
 * why) and keeps one 32-bit tag per block: the page kind in the low two
 * bits, the slack (heap bytes the program may not touch: CANN's padding
 * and the rounding to pages) above them. Each call takes the device's lock
 * (lock.h) for the few heap operations it makes; memcheck learns of every
 * block (track.h) and a trace, when one is open, of the bytes in use.
 */
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "heap.h"
#include "internal.h"
#include "trace.h"
#include "track.h"
#include "vaspace.h"

/* The trace's "device memory" counter, at the host's current time. */
static void trace_usage(struct sim_dev *d)
{
    int32_t id = sim_dev_id(d);
    uint64_t used;
    sim_mem_usage(id, &used, NULL, NULL);
    sim_trace_counter(id, "device memory", used, sim_clock_host());
}

/* The simulator's answer for a failed heap call. */
static enum sim_rc rc_of(enum sim_heap_rc rc)
{
    switch (rc) {
    case SIM_HEAP_OK:
        return SIM_OK;
    case SIM_HEAP_NOSPACE:
        return SIM_ENOMEM;
    case SIM_HEAP_HOSTMEM:
        return SIM_EHOSTMEM;
    case SIM_HEAP_EINVAL:
    case SIM_HEAP_NOBLOCK:
    default:
        return SIM_EINVAL;
    }
}

/* The device view of a new block could not be reserved: give it back. */
static enum sim_rc __attribute__((noinline)) unreserved(struct sim_dev *d, uint64_t off)
{
    sim_heap_free(d->heap, off, NULL);
    return SIM_EHOSTMEM;
}

enum sim_rc sim_block_alloc(struct sim_dev *d, uint64_t size, uint64_t usable,
                            enum sim_page page, void **ptr)
{
    uint64_t align = page == SIM_PAGE_NORMAL ? SIM_HEAP_GRANULE : sim_page_bytes(page);
    uint32_t tag = (uint32_t)((size - usable) << 2) | (uint32_t)page;
    uint64_t off;
    if (FLT_HIT(SIM_HBM_ALLOC) || FLT_HIT(SIM_HBM_MAP))
        return SIM_ENOMEM;
    sim_lock_take(&d->lock);
    enum sim_heap_rc hrc = sim_heap_alloc(d->heap, size, align, tag, &off);
    enum sim_rc rc = hrc == SIM_HEAP_OK ? SIM_OK : rc_of(hrc);
    if (rc == SIM_OK && !d->view_whole && sim_vaspace_reserve(d->vs, d->base + off, size) != 0)
        rc = unreserved(d, off);
    if (rc == SIM_OK && d->stacks)
        sim_stacks_remember(d->stacks, off);
    sim_lock_give(&d->lock);
    if (rc != SIM_OK)
        return rc;
    *ptr = (void *)(uintptr_t)(d->base + off);
    if (d->tracked)
        sim_track_alloc(*ptr, usable);
    if (sim_trace_enabled())
        trace_usage(d);
    return SIM_OK;
}

enum sim_rc sim_mem_free(void *ptr)
{
    struct sim_dev *d = sim_dev_of((uintptr_t)ptr);
    if (!d)
        return SIM_EINVAL;
    uint64_t size = 0, off = (uint64_t)(uintptr_t)ptr - d->base;
    sim_lock_take(&d->lock);
    enum sim_heap_rc rc = sim_heap_free(d->heap, off, &size);
    /* Give the host pages of big blocks back, so a long run stays sparse. */
    if (rc == SIM_HEAP_OK && size >= (2u << 20))
        sim_vaspace_discard(d->vs, (uint64_t)(uintptr_t)ptr, size);
    if (rc == SIM_HEAP_OK && d->stacks)
        sim_stacks_forget(d->stacks, off);
    /* A block freed after all is no longer abandoned (the list is empty
     * unless an injected fault made a free fail). */
    for (size_t i = 0; rc == SIM_HEAP_OK && i < d->n_abandoned; i++)
        if (d->abandoned[i] == off)
            d->abandoned[i--] = d->abandoned[--d->n_abandoned];
    sim_lock_give(&d->lock);
    if (rc != SIM_HEAP_OK)
        return SIM_EINVAL;
    if (d->tracked)
        sim_track_free(ptr);
    if (sim_trace_enabled())
        trace_usage(d);
    return SIM_OK;
}

bool sim_mem_lookup(const void *ptr, struct sim_block *b)
{
    struct sim_dev *d = sim_dev_of((uintptr_t)ptr);
    if (!d)
        return false;
    uint64_t start, size;
    uint32_t tag;
    sim_lock_take(&d->lock);
    enum sim_heap_rc rc =
        sim_heap_lookup(d->heap, (uint64_t)(uintptr_t)ptr - d->base, &start, &size, &tag);
    sim_lock_give(&d->lock);
    if (rc != SIM_HEAP_OK)
        return false;
    b->dev = sim_dev_id(d);
    b->start = (void *)(uintptr_t)(d->base + start);
    b->usable = size - (tag >> 2);
    b->page_size = sim_page_bytes((enum sim_page)(tag & 3));
    return true;
}

struct live_walk {
    struct sim_dev *d;
    int32_t dev;
    sim_live_fn fn;
    void *user;
    size_t n;
};

static void visit_live(uint64_t start, uint64_t size, int used, uint32_t tag, void *user)
{
    struct live_walk *w = user;
    if (!used)
        return;
    struct sim_block b = {w->dev, (void *)(uintptr_t)(w->d->base + start), size - (tag >> 2),
                          sim_page_bytes((enum sim_page)(tag & 3))};
    void *const *frames = NULL;
    int n = sim_stacks_find(w->d->stacks, start, &frames);
    w->fn(&b, frames, n, w->user);
    w->n++;
}

size_t sim_mem_live(int32_t id, sim_live_fn fn, void *user)
{
    struct sim_dev *d = sim_dev_get(id);
    struct live_walk w = {d, id, fn, user, 0};
    sim_lock_take(&d->lock);
    sim_heap_walk(d->heap, visit_live, &w);
    sim_lock_give(&d->lock);
    return w.n;
}

void sim_mem_usage(int32_t id, uint64_t *used, uint64_t *peak, uint64_t *total)
{
    struct sim_dev *d = sim_dev_get(id);
    struct sim_heap_stats st;
    sim_lock_take(&d->lock);
    sim_heap_stats(d->heap, &st);
    sim_lock_give(&d->lock);
    *used = st.used_bytes;
    if (peak)
        *peak = st.peak_used_bytes;
    if (total)
        *total = st.size;
}

void sim_mem_audit(const void *ptr, size_t n)
{
    sim_track_check(ptr, n);
}

/* ---- Abandoned blocks ---- */

void sim_mem_abandon(void *ptr)
{
    struct sim_dev *d = sim_dev_of((uintptr_t)ptr);
    if (!d)
        return;
    sim_lock_take(&d->lock);
    if (d->n_abandoned == d->cap_abandoned) {
        size_t cap = d->cap_abandoned ? 2 * d->cap_abandoned : 8;
        uint64_t *v = base_realloc(d->abandoned, cap * sizeof *v);
        if (v) {
            d->abandoned = v;
            d->cap_abandoned = cap;
        }
    }
    if (d->n_abandoned < d->cap_abandoned)
        d->abandoned[d->n_abandoned++] = (uint64_t)(uintptr_t)ptr - d->base;
    sim_lock_give(&d->lock);
}

void sim_block_release_abandoned(struct sim_dev *d)
{
    /* As the real device releases all of a device's memory at reset. */
    for (size_t i = 0; i < d->n_abandoned; i++)
        if (sim_heap_free(d->heap, d->abandoned[i], NULL) == SIM_HEAP_OK && d->tracked)
            sim_track_free((void *)(uintptr_t)(d->base + d->abandoned[i]));
    base_free(d->abandoned);
    d->abandoned = NULL;
    d->n_abandoned = d->cap_abandoned = 0;
}
