/*
 * device.c - simulated devices: configuration from the environment, and
 * device memory as an address space (vaspace.c) plus a heap (heap.c).
 *
 * Options (base/options.def), applied by sim_configure while no device is
 * open: ACLSIM_SOC (profile), ACLSIM_HBM_BYTES (capacity override, checked
 * here against the profile and the heap's granule), ACLSIM_DEVICE_COUNT;
 * ACLSIM_TRACK=1 (read when a device opens) remembers each live block's
 * allocation stack for the leak report.
 * Each device has its own lock (lock.h); lookups by address scan the open devices'
 * ranges (at most 64, usually one).
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include <stdio.h>
#include "base/options.h"
#include "fault/fault.h"
#include "heap.h"
#include "lock.h"
#include "clock.h"
#include "trace.h"
#include "track.h"
#include "sim.h"
#include "vaspace.h"

/* Allocation stacks of live blocks, kept only with ACLSIM_TRACK=1: an
 * open-addressing table keyed by offset + 1 (0 = empty), no tombstones. */
#define STACK_DEPTH 16
struct stack {
    uint64_t key;
    int n;
    void *frames[STACK_DEPTH];
};
struct stacks {
    size_t cap, count;
    struct stack *v;
};

struct device {
    struct sim_lock lock; /* the heap and address space of this device */
    struct stacks *stacks;
    uint64_t *abandoned; /* offsets of blocks to free at close */
    size_t n_abandoned, cap_abandoned;
    bool open;
    struct sim_vaspace *vs;
    struct sim_heap *heap;
    uint64_t base, capacity;
};

static struct {
    pthread_mutex_t lock; /* configuration and open/close */
    _Atomic bool configured; /* read without the lock on hot paths */
    const struct sim_profile *profile;
    uint64_t hbm_override;
    uint32_t count;
    unsigned open_count;
    struct device dev[SIM_MAX_DEVICES];
} sim = {.lock = PTHREAD_MUTEX_INITIALIZER};

static enum sim_rc configure_locked(const char **why)
{
    const struct sim_profile *p = sim_profile_find(opt_str(OPT_SOC));
    if (!p) {
        *why = opt_invalid(OPT_SOC, "expected the name of a SoC profile (README: SoC profiles)");
        return SIM_EINVAL;
    }
    uint64_t hbm = opt_uint(OPT_HBM_BYTES);
    if (opt_is_set(OPT_HBM_BYTES) && (hbm > p->hbm_bytes || hbm % SIM_HEAP_GRANULE)) {
        char want[128];
        snprintf(want, sizeof want, "expected a multiple of %u bytes from 1 MiB to %s's %llu",
                 SIM_HEAP_GRANULE, p->name, (unsigned long long)p->hbm_bytes);
        *why = opt_invalid(OPT_HBM_BYTES, want);
        return SIM_EINVAL;
    }
    sim.profile = p;
    sim.hbm_override = opt_is_set(OPT_HBM_BYTES) ? hbm : 0;
    sim.count = (uint32_t)opt_uint(OPT_DEVICE_COUNT);
    sim.configured = true;
    return SIM_OK;
}

enum sim_rc sim_configure(const char **why)
{
    enum sim_rc rc = SIM_OK;
    pthread_mutex_lock(&sim.lock);
    if (sim.open_count == 0)
        rc = configure_locked(why);
    pthread_mutex_unlock(&sim.lock);
    return rc;
}

/* Lazily configure for callers that come before aclInit; a bad environment
 * then falls back to the defaults (aclInit reports it). */
static void ensure_configured(void)
{
    if (atomic_load_explicit(&sim.configured, memory_order_acquire))
        return;
    pthread_mutex_lock(&sim.lock);
    if (!sim.configured) {
        const char *why;
        if (configure_locked(&why) != SIM_OK) {
            sim.profile = sim_profile_find("Ascend910B1");
            sim.hbm_override = 0;
            sim.count = 1;
            sim.configured = true;
        }
    }
    pthread_mutex_unlock(&sim.lock);
}

uint32_t sim_device_count(void)
{
    ensure_configured();
    return sim.count;
}

const struct sim_profile *sim_device_profile(int32_t dev)
{
    (void)dev; /* every device of a process has the same profile */
    ensure_configured();
    return sim.profile;
}

uint64_t sim_device_capacity(int32_t dev)
{
    const struct sim_profile *p = sim_device_profile(dev);
    return sim.hbm_override ? sim.hbm_override : p->hbm_bytes;
}

static size_t stack_home(const struct stacks *t, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (t->cap - 1);
}

static void stack_put(struct stacks *t, const struct stack *e)
{
    size_t i = stack_home(t, e->key);
    while (t->v[i].key)
        i = (i + 1) & (t->cap - 1);
    t->v[i] = *e;
    t->count++;
}

/* Record the caller's stack for the block at off. pre: d->lock held. A
 * table that cannot grow just stops recording (tracking is best effort). */
static void remember_stack(struct device *d, uint64_t off)
{
    struct stacks *t = d->stacks;
    if (2 * (t->count + 1) > t->cap) {
        struct stacks bigger = {t->cap ? 2 * t->cap : 256, 0, NULL};
        bigger.v = base_calloc(bigger.cap, sizeof *bigger.v);
        if (!bigger.v)
            return;
        for (size_t i = 0; i < t->cap; i++)
            if (t->v[i].key)
                stack_put(&bigger, &t->v[i]);
        base_free(t->v);
        *t = bigger;
    }
    struct stack e = {off + 1, 0, {0}};
    e.n = backtrace(e.frames, STACK_DEPTH);
    stack_put(t, &e);
}

static struct stack *find_stack(const struct device *d, uint64_t off)
{
    const struct stacks *t = d->stacks;
    if (!t || !t->cap)
        return NULL;
    for (size_t i = stack_home(t, off + 1); t->v[i].key; i = (i + 1) & (t->cap - 1))
        if (t->v[i].key == off + 1)
            return &t->v[i];
    return NULL;
}

/* pre: d->lock held. Backward-shift deletion keeps probes short. */
static void forget_stack(struct device *d, uint64_t off)
{
    struct stacks *t = d->stacks;
    struct stack *e = find_stack(d, off);
    if (!e)
        return;
    size_t hole = (size_t)(e - t->v), mask = t->cap - 1;
    for (size_t i = (hole + 1) & mask; t->v[i].key; i = (i + 1) & mask) {
        size_t h = stack_home(t, t->v[i].key);
        if (((i - h) & mask) >= ((i - hole) & mask)) {
            t->v[hole] = t->v[i];
            hole = i;
        }
    }
    t->v[hole].key = 0;
    t->count--;
}

static void free_stacks(struct device *d)
{
    if (d->stacks) {
        base_free(d->stacks->v);
        base_free(d->stacks);
        d->stacks = NULL;
    }
}

enum sim_rc sim_device_open(int32_t id)
{
    ensure_configured();
    struct device *d = &sim.dev[id];
    uint64_t cap = sim_device_capacity(id);
    if (FLT_HIT(SIM_HBM_MAP))
        return SIM_ENOMEM;
    struct sim_vaspace *vs = sim_vaspace_create(cap);
    if (!vs)
        return SIM_EHOSTMEM;
    if (sim_timeline_open(id) != SIM_OK) {
        sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    uint64_t base = sim_vaspace_base(vs);
    /* The heap works in offsets from base: see track.h for why. */
    struct sim_heap *h = sim_heap_create(0, cap);
    if (!h) {
        sim_timeline_close(id);
        sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    struct stacks *stacks = NULL;
    if (opt_bool(OPT_TRACK))
        stacks = base_calloc(1, sizeof *stacks); /* NULL: track nothing */
    pthread_mutex_lock(&sim.lock);
    d->lock = (struct sim_lock)SIM_LOCK_INIT;
    d->stacks = stacks;
    d->vs = vs;
    d->heap = h;
    d->base = base;
    d->capacity = cap;
    d->open = true;
    sim.open_count++;
    pthread_mutex_unlock(&sim.lock);
    return SIM_OK;
}

void sim_device_close(int32_t id)
{
    struct device *d = &sim.dev[id];
    pthread_mutex_lock(&sim.lock);
    if (d->open) {
        d->open = false;
        /* Blocks whose free failed go now, as the real device releases all
         * of a device's memory at reset (see sim_mem_abandon). */
        for (size_t i = 0; i < d->n_abandoned; i++)
            if (sim_heap_free(d->heap, d->abandoned[i], NULL) == 0)
                sim_track_free((void *)(uintptr_t)(d->base + d->abandoned[i]));
        base_free(d->abandoned);
        d->abandoned = NULL;
        d->n_abandoned = d->cap_abandoned = 0;
        sim_heap_destroy(d->heap);
        sim_vaspace_destroy(d->vs);
        sim_timeline_close(id);
        free_stacks(d);
        d->heap = NULL;
        d->vs = NULL;
        sim.open_count--;
    }
    pthread_mutex_unlock(&sim.lock);
}

static uint32_t page_bytes(enum sim_page page)
{
    return page == SIM_PAGE_HUGE1G ? 1u << 30 : page == SIM_PAGE_HUGE ? 2u << 20 : 4096u;
}

/* The trace's "device memory" counter, at the host's current time. */
static void trace_usage(struct device *d)
{
    int32_t id = (int32_t)(d - sim.dev);
    uint64_t used;
    sim_mem_usage(id, &used, NULL, NULL);
    sim_trace_counter(id, "device memory", used, sim_clock_host());
}

/* One heap allocation of `size` bytes with `usable` of them for the
 * program. pre: d open. */
static enum sim_rc alloc_pages(struct device *d, uint64_t size, uint64_t usable,
                               enum sim_page page, void **ptr)
{
    uint64_t align = page == SIM_PAGE_NORMAL ? 64 : page_bytes(page);
    size = (size + align - 1) & ~(align - 1);
    /* The heap keeps one 32-bit tag per block: the page kind in the low two
     * bits, the slack (size - usable, < 1 GiB) above them. */
    uint32_t tag = (uint32_t)((size - usable) << 2) | (uint32_t)page;
    uint64_t off;
    if (FLT_HIT(SIM_HBM_ALLOC) || FLT_HIT(SIM_HBM_MAP))
        return SIM_ENOMEM;
    sim_lock_take(&d->lock);
    int rc = sim_heap_alloc(d->heap, size, align, tag, &off);
    if (rc == 0 && sim_vaspace_reserve(d->vs, d->base + off, size) != 0) {
        sim_heap_free(d->heap, off, NULL);
        rc = -2;
    }
    if (rc == 0 && d->stacks)
        remember_stack(d, off);
    sim_lock_give(&d->lock);
    if (rc == -2)
        return SIM_EHOSTMEM;
    if (rc != 0)
        return SIM_ENOMEM;
    *ptr = (void *)(uintptr_t)(d->base + off);
    sim_track_alloc(*ptr, usable);
    if (sim_trace_enabled())
        trace_usage(d);
    return SIM_OK;
}

enum sim_rc sim_mem_alloc(int32_t id, uint64_t size, enum sim_policy policy, bool no_pad,
                          void **ptr)
{
    struct device *d = &sim.dev[id];
    const struct sim_profile *p = sim_device_profile(id);
    uint64_t usable = (size + 31) & ~(uint64_t)31;
    if (policy == SIM_POLICY_HUGE1G_ONLY) {
        if (!p->huge1g)
            return SIM_EUNSUPPORTED;
        return alloc_pages(d, usable, usable, SIM_PAGE_HUGE1G, ptr);
    }
    uint64_t padded = usable + (no_pad ? 0 : p->malloc_padding);
    switch (policy) {
    case SIM_POLICY_HUGE_ONLY:
        return alloc_pages(d, padded, usable, SIM_PAGE_HUGE, ptr);
    case SIM_POLICY_NORMAL_ONLY:
        return alloc_pages(d, padded, usable, SIM_PAGE_NORMAL, ptr);
    case SIM_POLICY_HUGE_FIRST:
    case SIM_POLICY_DEFAULT:
    default: {
        /* HUGE_FIRST: normal pages up to 1 MB; an out-of-range policy: huge
         * pages from 2 MB. Either falls back to normal pages. */
        uint64_t threshold = policy == SIM_POLICY_HUGE_FIRST ? (1u << 20) : (2u << 20) - 1;
        if (padded > threshold) {
            enum sim_rc rc = alloc_pages(d, padded, usable, SIM_PAGE_HUGE, ptr);
            if (rc != SIM_ENOMEM)
                return rc;
        }
        return alloc_pages(d, padded, usable, SIM_PAGE_NORMAL, ptr);
    }
    }
}

/* The open device whose address range holds addr, or NULL. */
static struct device *device_of(uintptr_t addr)
{
    for (uint32_t i = 0; i < sim.count && i < SIM_MAX_DEVICES; i++) {
        struct device *d = &sim.dev[i];
        if (d->open && addr >= d->base && addr - d->base < d->capacity)
            return d;
    }
    return NULL;
}

enum sim_rc sim_mem_free(void *ptr)
{
    struct device *d = device_of((uintptr_t)ptr);
    if (!d)
        return SIM_EINVAL;
    uint64_t size = 0, off = (uint64_t)(uintptr_t)ptr - d->base;
    sim_lock_take(&d->lock);
    int rc = sim_heap_free(d->heap, off, &size);
    /* Give the host pages of big blocks back, so a long run stays sparse. */
    if (rc == 0 && size >= (2u << 20))
        sim_vaspace_discard(d->vs, (uint64_t)(uintptr_t)ptr, size);
    if (rc == 0 && d->stacks)
        forget_stack(d, off);
    /* A block freed after all is no longer abandoned (the list is empty
     * unless an injected fault made a free fail). */
    for (size_t i = 0; rc == 0 && i < d->n_abandoned; i++)
        if (d->abandoned[i] == off)
            d->abandoned[i--] = d->abandoned[--d->n_abandoned];
    sim_lock_give(&d->lock);
    if (rc != 0)
        return SIM_EINVAL;
    sim_track_free(ptr);
    if (sim_trace_enabled())
        trace_usage(d);
    return SIM_OK;
}

bool sim_mem_lookup(const void *ptr, struct sim_block *b)
{
    struct device *d = device_of((uintptr_t)ptr);
    if (!d)
        return false;
    uint64_t start, size;
    uint32_t tag;
    sim_lock_take(&d->lock);
    int rc = sim_heap_lookup(d->heap, (uint64_t)(uintptr_t)ptr - d->base, &start, &size, &tag);
    sim_lock_give(&d->lock);
    if (rc != 0)
        return false;
    b->dev = (int32_t)(d - sim.dev);
    b->start = (void *)(uintptr_t)(d->base + start);
    b->usable = size - (tag >> 2);
    b->page_size = page_bytes((enum sim_page)(tag & 3));
    return true;
}

struct live_walk {
    struct device *d;
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
                          page_bytes((enum sim_page)(tag & 3))};
    const struct stack *st = find_stack(w->d, start);
    w->fn(&b, st ? st->frames : NULL, st ? st->n : 0, w->user);
    w->n++;
}

size_t sim_mem_live(int32_t id, sim_live_fn fn, void *user)
{
    struct device *d = &sim.dev[id];
    struct live_walk w = {d, id, fn, user, 0};
    sim_lock_take(&d->lock);
    sim_heap_walk(d->heap, visit_live, &w);
    sim_lock_give(&d->lock);
    return w.n;
}

void sim_mem_abandon(void *ptr)
{
    struct device *d = device_of((uintptr_t)ptr);
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

void sim_mem_audit(const void *ptr, size_t n)
{
    sim_track_check(ptr, n);
}

bool sim_mem_in_range(const void *ptr)
{
    return device_of((uintptr_t)ptr) != NULL;
}

void sim_mem_usage(int32_t id, uint64_t *used, uint64_t *peak, uint64_t *total)
{
    struct device *d = &sim.dev[id];
    struct sim_heap_stats st;
    sim_lock_take(&d->lock);
    sim_heap_stats(d->heap, &st);
    sim_lock_give(&d->lock);
    *used = st.used_bytes;
    if (peak)
        *peak = st.peak_used_bytes;
    if (total)
        *total = d->capacity;
}

/* Host pointer for n bytes at p, and how many are contiguous there. */
static void *host_view(void *p, bool dev, uint64_t n, uint64_t *avail)
{
    if (!dev) {
        *avail = n;
        return p;
    }
    struct device *d = device_of((uintptr_t)p);
    return d ? sim_vaspace_span(d->vs, (uint64_t)(uintptr_t)p, n, avail) : NULL;
}

enum sim_rc sim_mem_copy(void *dst, bool dst_dev, const void *src, bool src_dev, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    char *to = dst;
    const char *from = src;
    while (n) {
        uint64_t a, b;
        char *h_to = host_view(to, dst_dev, n, &a);
        const char *h_from = host_view((void *)(uintptr_t)from, src_dev, n, &b);
        if (!h_to || !h_from)
            return SIM_EHOSTMEM;
        size_t k = (size_t)(a < b ? a : b);
        memmove(h_to, h_from, k);
        to += k;
        from += k;
        n -= k;
    }
    return SIM_OK;
}

enum sim_rc sim_mem_fill(void *dst, bool dst_dev, int value, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    char *to = dst;
    while (n) {
        uint64_t a;
        char *h = host_view(to, dst_dev, n, &a);
        if (!h)
            return SIM_EHOSTMEM;
        memset(h, value, (size_t)a);
        to += a;
        n -= (size_t)a;
    }
    return SIM_OK;
}
