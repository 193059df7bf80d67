/*
 * blocks.c - device blocks: allocate, free, look up and walk the blocks of
 * a device's heap (heap.c) in its address space (vaspace.c), account for
 * them, and keep the list of blocks whose free failed.
 *
 * The heap works in offsets from the device's base address (track.h says
 * why) and keeps one 32-bit tag per block: the page kind in the low two
 * bits, the slack (heap bytes the program may not touch: CANN's padding
 * and the rounding to pages) above them. DVPP memory has a heap of its own
 * over the device's DVPP window, whose blocks take their pages from the
 * main heap's limit (below). Each call takes the device's lock
 * (lock.h) for the few heap operations it makes; memcheck learns of every
 * block (track.h) and a trace, when one is open, of the bytes in use.
 */
#include <stdio.h>
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "heap.h"
#include "internal.h"
#include "snapshot.h"
#include "trace.h"
#include "track.h"
#include "vaspace.h"

/* The trace's "device memory" counter, at the host's current time, and
 * the block made or released ("malloc"/"free", with "<address> <bytes>":
 * the same bytes the program may use in both). */
static __attribute__((cold)) void trace_usage(struct sim_dev *d, const char *what,
                                              const void *p, uint64_t size)
{
    int32_t id = sim_dev_id(d);
    uint64_t used;
    char arg[64];
    sim_mem_usage(id, &used, NULL, NULL);
    snprintf(arg, sizeof arg, "%p %llu", p, (unsigned long long)size);
    sim_trace_instant(id, what, sim_clock_host(), arg);
    sim_trace_counter(id, "device memory", used, sim_clock_host());
}

#define BIG_BLOCK (UINT64_C(512) << 20)
#define BIG_ALIGN (UINT64_C(1) << 30)

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

/* Tell memcheck, the trace and the snapshot of a new block of `size` heap
 * bytes (its stack, if one was recorded, goes to the snapshot). */
static __attribute__((noinline)) void announce(struct sim_dev *d, void *p, uint64_t usable,
                                               uint64_t size)
{
    if (d->tracked)
        sim_track_alloc(p, usable);
    if (sim_trace_enabled())
        trace_usage(d, "malloc", p, usable);
    if (sim_snapshot_enabled()) {
        void *const *frames = NULL;
        int n = sim_stacks_find(d->stacks, (uint64_t)(uintptr_t)p - sim_dev_base(d), &frames);
        sim_snapshot_alloc(sim_dev_id(d), (uint64_t)(uintptr_t)p, usable, size, frames, n);
    }
}

static enum sim_heap_rc heap_free_at(struct sim_dev *d, uint64_t off, uint64_t *size);

/* The rest of an allocation the heap answered with hrc when it failed, or
 * when its device view must be reserved or its stack recorded; gives the
 * lock back. Out of line: the common path has none of it. */
static __attribute__((noinline)) enum sim_rc
alloc_rest(struct sim_dev *d, enum sim_heap_rc hrc, uint64_t off, uint64_t size)
{
    enum sim_rc rc = rc_of(hrc);
    if (rc == SIM_OK && !d->view_whole && sim_vaspace_reserve(d->vs, sim_dev_base(d) + off, size) != 0) {
        uint64_t size_ = 0;
        heap_free_at(d, off, &size_);
        rc = SIM_EHOSTMEM; /* the device view could not be mapped */
    }
    if (rc == SIM_OK && d->stacks)
        sim_stacks_remember(d->stacks, off);
    sim_lock_give(&d->lock);
    return rc;
}

/* The end of an allocation the heap answered with hrc at device offset
 * off: the lock given back (through alloc_rest unless all went well on a
 * plain view), *ptr, and whoever watches told. */
static inline enum sim_rc alloc_done(struct sim_dev *d, enum sim_heap_rc hrc, uint64_t off,
                                     uint64_t size, uint64_t usable, void **ptr)
{
    if (hrc == SIM_HEAP_OK && d->view_whole && !d->stacks) {
        sim_lock_give(&d->lock);
    } else {
        enum sim_rc rc = alloc_rest(d, hrc, off, size);
        if (rc != SIM_OK)
            return rc;
    }
    *ptr = (void *)(uintptr_t)(sim_dev_base(d) + off);
    if (d->tracked || sim_trace_enabled() || sim_snapshot_enabled())
        announce(d, *ptr, usable, size);
    return SIM_OK;
}

/* A normal-page block of a plain device from the heap's quick lists, with
 * no fault point armed and no trace open: true; false, having changed
 * nothing, when any of that does not hold (or another thread holds the
 * lock): block_alloc answers then. */
static inline bool alloc_quick(struct sim_dev *d, uint64_t size, uint32_t tag, void **ptr)
{
    uint64_t off;
    if (atomic_load_explicit(&flt_armed, memory_order_relaxed) || sim_trace_enabled() ||
        sim_snapshot_enabled() || !sim_lock_try(&d->lock))
        return false;
    bool ok = atomic_load_explicit(&d->plain, memory_order_relaxed) &&
              sim_heap_pop(d->heap, size, tag, &off);
    sim_lock_give(&d->lock);
    if (ok)
        *ptr = (void *)(uintptr_t)(sim_dev_base(d) + off);
    return ok;
}

/* sim_block_alloc past its quick path. */
static __attribute__((noinline)) enum sim_rc block_alloc(struct sim_dev *d, uint64_t size,
                                                        uint64_t usable, enum sim_page page,
                                                        uint32_t tag, void **ptr)
{
    uint64_t align = page == SIM_PAGE_NORMAL ? d->granule : sim_page_bytes(page);
    /* A block of more than 512 MiB takes heaps of its own from the driver's
     * base heap: its address is the start of a 1 GiB heap (hicann/driver
     * src/ascend_hal/svm/v2/devmm/devmm_svm.c:354-368 and 408-409, the
     * threshold DEVMM_LARGE_MEM_THRESHOLD_SIZE at v2/common/devmm_svm.h:46;
     * whole heaps: devmm_virt_base_heap.c:176). Its pages are still only
     * its size rounded to its page (devmm_virt_base_heap.c:195). */
    if (size > BIG_BLOCK && align < BIG_ALIGN)
        align = BIG_ALIGN;
    uint64_t off;
    if (FLT_HIT(SIM_HBM_ALLOC) || FLT_HIT(SIM_HBM_MAP))
        return SIM_ENOMEM;
    sim_lock_take(&d->lock);
    if (__builtin_expect(!atomic_load_explicit(&d->open, memory_order_relaxed), 0)) {
        sim_lock_give(&d->lock);
        return SIM_ENOMEM; /* closed under the caller: nothing to allocate from */
    }
    enum sim_heap_rc hrc = sim_heap_alloc(d->heap, size, align, tag, &off);
    return alloc_done(d, hrc, off, size, usable, ptr);
}

/* Inlined into its callers in another file (link-time optimisation): a
 * small aclrtMalloc is most often a quick pop (scons bench:
 * malloc_free_vs_glibc). */
__attribute__((always_inline)) inline enum sim_rc
sim_block_alloc(struct sim_dev *d, uint64_t size, uint64_t usable, enum sim_page page, void **ptr)
{
    uint32_t tag = (uint32_t)((size - usable) << 2) | (uint32_t)page;
    if (__builtin_expect(page == SIM_PAGE_NORMAL && alloc_quick(d, size, tag, ptr), 1))
        return SIM_OK;
    return block_alloc(d, size, usable, page, tag, ptr);
}

/* sim_mem_free's common case alone: the free of a block of a plain device
 * made live lately (see sim_heap_push), with no trace open; false, having
 * changed nothing, when mem_free must answer. Such a block is below 2 MB
 * (the quick bound), has no stack recorded and nobody to tell. */
static inline bool free_quick(void *ptr)
{
    struct sim_dev *d =
        sim_trace_enabled() || sim_snapshot_enabled() ? NULL : sim_dev_of((uintptr_t)ptr);
    if (!d || !sim_lock_try(&d->lock))
        return false;
    uint64_t off = (uint64_t)(uintptr_t)ptr - sim_dev_base(d);
    bool ok = atomic_load_explicit(&d->plain, memory_order_relaxed) && off < d->span &&
              d->n_abandoned == 0 && sim_heap_push(d->heap, off, NULL);
    if (ok)
        sim_dev_freed(d);
    sim_lock_give(&d->lock);
    return ok;
}

/* The rarer parts of a free, out of the common path: a big block's host
 * pages go back (so a long run stays sparse), its stack is forgotten, and
 * it is no longer abandoned (the list is empty unless an injected fault
 * made a free fail). pre: d->lock held. */
static void __attribute__((noinline)) after_free(struct sim_dev *d, uint64_t off, uint64_t size)
{
    if (size >= (2u << 20))
        sim_vaspace_discard(d->vs, sim_dev_base(d) + off, size);
    if (d->stacks)
        sim_stacks_forget(d->stacks, off);
    for (size_t i = 0; i < d->n_abandoned; i++)
        if (d->abandoned[i] == off)
            d->abandoned[i--] = d->abandoned[--d->n_abandoned];
}

/* ---- DVPP memory ----
 *
 * The driver keeps DVPP memory in one heap per device, a fixed range that
 * never grows (hicann/driver src/ascend_hal/svm/v2/devmm/
 * devmm_virt_dvpp_heap.c:20-39: its size dvpp_mem_size, at most
 * DEVMM_DVPP_HEAP_MAX_SIZE, 16 GiB: src/sdk_driver/svm/v2/command/ioctl/
 * svm_define.h:144-146; no new heap for DVPP: devmm_virt_interface.c:
 * 1288-1296, 1479-1482), in 4 KiB units (devmm_virt_dvpp_heap.c:25): the
 * one place where a fragmented range refuses what the device's pages
 * would allow. Its pages are the device's: a DVPP block lowers the main
 * heap's limit by its size, and its free raises it again. */

/* Free the DVPP block at device offset off: its size in *size, or
 * SIM_HEAP_NOBLOCK. pre: d->lock held. */
static enum sim_heap_rc dvpp_free(struct sim_dev *d, uint64_t off, uint64_t *size)
{
    if (!d->dvpp || off - d->dvpp_off >= SIM_DVPP_SPAN)
        return SIM_HEAP_NOBLOCK;
    enum sim_heap_rc rc = sim_heap_free(d->dvpp, off - d->dvpp_off, size);
    if (rc == SIM_HEAP_OK) {
        d->dvpp_used -= *size;
        sim_heap_set_limit(d->heap, d->pages - d->dvpp_used);
    }
    return rc;
}

/* The block at device offset off, main heap or DVPP's: free it. pre:
 * d->lock held. */
static enum sim_heap_rc heap_free_at(struct sim_dev *d, uint64_t off, uint64_t *size)
{
    enum sim_heap_rc rc = sim_heap_free(d->heap, off, size);
    return rc == SIM_HEAP_NOBLOCK ? dvpp_free(d, off, size) : rc;
}

enum sim_rc sim_dvpp_block(struct sim_dev *d, uint64_t size, uint64_t usable, void **ptr)
{
    uint64_t off;
    if (FLT_HIT(SIM_HBM_ALLOC))
        return SIM_ENOMEM;
    sim_lock_take(&d->lock);
    if (!atomic_load_explicit(&d->open, memory_order_relaxed)) {
        sim_lock_give(&d->lock);
        return SIM_ENOMEM;
    }
    struct sim_heap_stats st;
    sim_heap_stats(d->heap, &st);
    if (size > st.free_bytes - st.quick_bytes) { /* parked blocks give their pages back */
        sim_heap_trim(d->heap);
        sim_heap_stats(d->heap, &st);
    }
    uint32_t tag = (uint32_t)((size - usable) << 2) | (uint32_t)SIM_PAGE_HUGE;
    enum sim_heap_rc hrc = size > st.free_bytes
                               ? SIM_HEAP_NOSPACE /* the device lacks the pages */
                               : sim_heap_alloc(d->dvpp, size, sim_dvpp_granule(d->granule), tag, &off);
    if (hrc == SIM_HEAP_OK) {
        d->dvpp_used += size;
        sim_heap_set_limit(d->heap, d->pages - d->dvpp_used);
        off += d->dvpp_off;
    }
    return alloc_done(d, hrc, off, size, usable, ptr);
}

/* The block containing device offset off, main heap or DVPP's: its start
 * (from the device's base), heap bytes and tag. pre: d->lock held. */
static enum sim_heap_rc block_at(struct sim_dev *d, uint64_t off, uint64_t *start,
                                 uint64_t *size, uint32_t *tag)
{
    enum sim_heap_rc rc = sim_heap_lookup(d->heap, off, start, size, tag);
    if (rc == SIM_HEAP_NOBLOCK && d->dvpp && off - d->dvpp_off < SIM_DVPP_SPAN &&
        (rc = sim_heap_lookup(d->dvpp, off - d->dvpp_off, start, size, tag)) == SIM_HEAP_OK)
        *start += d->dvpp_off;
    return rc;
}

/* sim_mem_free past its quick path. */
static __attribute__((noinline)) enum sim_rc mem_free(void *ptr)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    if (!d)
        return SIM_EINVAL;
    uint64_t size = 0, off = (uint64_t)(uintptr_t)ptr - sim_dev_base(d);
    /* the trace's "free" gives the block the size its "malloc" gave: the
     * bytes the program may use, not the heap's (with CANN's padding) */
    uint64_t usable = 0, start, heap_bytes;
    uint32_t tag;
    if (sim_trace_enabled() && block_at(d, off, &start, &heap_bytes, &tag) == SIM_HEAP_OK)
        usable = heap_bytes - (tag >> 2);
    enum sim_heap_rc rc = heap_free_at(d, off, &size);
    if (rc == SIM_HEAP_OK)
        sim_dev_freed(d);
    if (rc == SIM_HEAP_OK && (size >= (2u << 20) || d->stacks || d->n_abandoned))
        after_free(d, off, size);
    sim_lock_give(&d->lock);
    if (rc != SIM_HEAP_OK)
        return SIM_EINVAL;
    if (d->tracked)
        sim_track_free(ptr);
    if (sim_trace_enabled())
        trace_usage(d, "free", ptr, usable);
    if (sim_snapshot_enabled())
        sim_snapshot_free(sim_dev_id(d), (uint64_t)(uintptr_t)ptr);
    return SIM_OK;
}

/* Inlined into its caller in another file (link-time optimisation): the
 * aclrtMalloc/aclrtFree pair's path (scons bench). */
__attribute__((always_inline)) inline enum sim_rc sim_mem_free(void *ptr)
{
    return __builtin_expect(free_quick(ptr), 1) ? SIM_OK : mem_free(ptr);
}

bool sim_mem_lookup(const void *ptr, struct sim_block *b)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    if (!d)
        return false;
    uint64_t start, size, base = sim_dev_base(d), off = (uint64_t)(uintptr_t)ptr - base;
    uint32_t tag;
    enum sim_heap_rc rc = block_at(d, off, &start, &size, &tag);
    sim_lock_give(&d->lock);
    if (rc != SIM_HEAP_OK || (tag & 3) == 3) /* 3: a physical handle's block (vmm.c) */
        return false;
    b->dev = sim_dev_id(d);
    b->start = (void *)(uintptr_t)(base + start);
    b->usable = size - (tag >> 2);
    b->page_size = sim_page_bytes((enum sim_page)(tag & 3));
    return true;
}

struct live_walk {
    struct sim_dev *d;
    uint64_t off; /* of the heap walked, from the device's base */
    int32_t dev;
    sim_live_fn fn;
    void *user;
    size_t n;
};

static void visit_live(uint64_t start, uint64_t size, int used, uint32_t tag, void *user)
{
    struct live_walk *w = user;
    if (!used || (tag & 3) == 3) /* physical handles: sim_vmm_live reports them */
        return;
    start += w->off;
    struct sim_block b = {w->dev, (void *)(uintptr_t)(sim_dev_base(w->d) + start), size - (tag >> 2),
                          sim_page_bytes((enum sim_page)(tag & 3))};
    void *const *frames = NULL;
    int n = sim_stacks_find(w->d->stacks, start, &frames);
    w->fn(&b, frames, n, w->user);
    w->n++;
}

size_t sim_mem_live(int32_t id, sim_live_fn fn, void *user)
{
    struct sim_dev *d = sim_dev_get(id);
    struct live_walk w = {d, 0, id, fn, user, 0};
    sim_lock_take(&d->lock);
    if (atomic_load_explicit(&d->open, memory_order_relaxed)) { /* else: closed meanwhile */
        sim_heap_walk(d->heap, visit_live, &w);
        w.off = d->dvpp_off;
        sim_heap_walk(d->dvpp, visit_live, &w);
    }
    sim_lock_give(&d->lock);
    return w.n;
}

void sim_mem_usage(int32_t id, uint64_t *used, uint64_t *peak, uint64_t *total)
{
    struct sim_dev *d = sim_dev_get(id);
    struct sim_heap_stats st = {0};
    uint64_t dvpp = 0, pages = 0;
    sim_lock_take(&d->lock);
    if (atomic_load_explicit(&d->open, memory_order_relaxed)) { /* else: closed meanwhile */
        sim_heap_stats(d->heap, &st);
        dvpp = d->dvpp_used;
        pages = d->pages;
    }
    sim_lock_give(&d->lock);
    /* DVPP blocks take the device's pages too (their peak is not kept
     * apart: the peak is at least what is in use now). */
    *used = st.used_bytes + dvpp;
    if (peak)
        *peak = st.peak_used_bytes > *used ? st.peak_used_bytes : *used;
    if (total)
        *total = pages;
}

void sim_mem_audit(const void *ptr, size_t n)
{
    sim_track_check(ptr, n);
}

/* ---- Abandoned blocks ---- */

void sim_mem_abandon(void *ptr)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    if (!d)
        return;
    if (d->n_abandoned == d->cap_abandoned) {
        size_t cap = d->cap_abandoned ? 2 * d->cap_abandoned : 8;
        uint64_t *v = base_realloc(d->abandoned, cap * sizeof *v);
        if (v) {
            d->abandoned = v;
            d->cap_abandoned = cap;
        }
    }
    if (d->n_abandoned < d->cap_abandoned)
        d->abandoned[d->n_abandoned++] = (uint64_t)(uintptr_t)ptr - sim_dev_base(d);
    sim_lock_give(&d->lock);
}

void sim_block_release_abandoned(struct sim_dev *d)
{
    /* As the real device releases all of a device's memory at reset. */
    sim_dev_freed(d);
    for (size_t i = 0; i < d->n_abandoned; i++) {
        uint64_t size = 0;
        if (heap_free_at(d, d->abandoned[i], &size) == SIM_HEAP_OK && d->tracked)
            sim_track_free((void *)(uintptr_t)(sim_dev_base(d) + d->abandoned[i]));
    }
    base_free(d->abandoned);
    d->abandoned = NULL;
    d->n_abandoned = d->cap_abandoned = 0;
}

uint64_t sim_mem_frees(void)
{
    uint64_t n = sim_host_frees();
    for (int32_t i = 0; i < SIM_MAX_DEVICES; i++)
        n += atomic_load_explicit(&sim_dev_get(i)->frees, memory_order_relaxed);
    return n;
}
