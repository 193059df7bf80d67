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
 *
 * A device may be closed while other threads' calls still name it (a memory
 * call racing with aclrtResetDevice: the ACL layer holds no reference on the
 * device for those). Such calls fail cleanly instead of reaching a heap or
 * an address space being torn down: `open` is read without locks only to
 * find a device, and checked again under the device's lock by every heap
 * operation; copies and fills, which touch the address space outside that
 * lock, count themselves in `users`, and closing waits until none is left.
 * A closed device keeps its address range reserved (its host pages given
 * back) until it opens again: a pointer into it stays a device address
 * nobody owns, rejected as such, never mistaken for host memory that a
 * copy would read through.
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
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
    _Atomic bool open;       /* set last at open, cleared first at close */
    _Atomic bool retired;    /* closing or closed, vs still reserved (until it opens) */
    _Atomic unsigned users;  /* copies and fills inside the address space */
    struct sim_vaspace *vs;
    struct sim_heap *heap;
    _Atomic uint64_t base, capacity; /* read without the lock by device_of */
};

static struct {
    pthread_mutex_t lock; /* configuration and open/close */
    _Atomic bool configured; /* read without the lock on hot paths */
    /* Written by configure (no device open), read without the lock. */
    _Atomic(const struct sim_profile *) profile;
    _Atomic uint64_t hbm_override;
    _Atomic uint32_t count;
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
    if (d->vs) { /* the range kept since the last close (still "retired" until open) */
        sim_vaspace_destroy(d->vs);
        d->vs = NULL;
    }
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
    /* (d->lock is not re-initialised: a late call from before the last
     * close may still hold it for a moment; it finds the device closed.) */
    d->stacks = stacks;
    d->vs = vs;
    d->heap = h;
    d->base = base;
    d->capacity = cap;
    atomic_store_explicit(&d->open, true, memory_order_release);
    atomic_store(&d->retired, false);
    sim.open_count++;
    pthread_mutex_unlock(&sim.lock);
    return SIM_OK;
}

void sim_device_close(int32_t id)
{
    struct device *d = &sim.dev[id];
    pthread_mutex_lock(&sim.lock);
    if (atomic_load_explicit(&d->open, memory_order_relaxed)) {
        /* Calls that found the device open either finished their heap
         * section before this, or will find it closed; copies in flight
         * are waited for. */
        sim_lock_take(&d->lock);
        atomic_store(&d->retired, true); /* its addresses stay device addresses */
        atomic_store(&d->open, false);
        sim_lock_give(&d->lock);
        while (atomic_load(&d->users) != 0)
            sched_yield();
        /* Blocks whose free failed go now, as the real device releases all
         * of a device's memory at reset (see sim_mem_abandon). */
        for (size_t i = 0; i < d->n_abandoned; i++)
            if (sim_heap_free(d->heap, d->abandoned[i], NULL) == 0)
                sim_track_free((void *)(uintptr_t)(d->base + d->abandoned[i]));
        base_free(d->abandoned);
        d->abandoned = NULL;
        d->n_abandoned = d->cap_abandoned = 0;
        sim_heap_destroy(d->heap);
        /* The range stays reserved, its pages given back (see the top). */
        sim_vaspace_discard(d->vs, d->base, d->capacity);
        sim_timeline_close(id);
        free_stacks(d);
        d->heap = NULL;
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
    if (!atomic_load_explicit(&d->open, memory_order_acquire)) {
        sim_lock_give(&d->lock);
        return SIM_ENOMEM; /* closed under the caller: nothing to allocate from */
    }
    uint64_t base = d->base;
    int rc = sim_heap_alloc(d->heap, size, align, tag, &off);
    if (rc == 0 && sim_vaspace_reserve(d->vs, base + off, size) != 0) {
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
    *ptr = (void *)(uintptr_t)(base + off);
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

/* Whether d is open and its address range holds addr. Without d->lock the
 * answer may be stale by the time it is used: heap operations ask again
 * under the lock (lock_device_of). */
static bool holds(struct device *d, uintptr_t addr)
{
    if (!atomic_load_explicit(&d->open, memory_order_acquire))
        return false;
    uint64_t base = atomic_load_explicit(&d->base, memory_order_relaxed);
    return addr >= base && addr - base < atomic_load_explicit(&d->capacity, memory_order_relaxed);
}

/* The open device whose address range holds addr, or NULL. */
static struct device *device_of(uintptr_t addr)
{
    uint32_t n = atomic_load_explicit(&sim.count, memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < SIM_MAX_DEVICES; i++) {
        struct device *d = &sim.dev[i];
        if (holds(d, addr))
            return d;
    }
    return NULL;
}

/* The device holding addr with its lock taken, or NULL: a device closed
 * (or closed and opened again elsewhere) since device_of looked is not it. */
static struct device *lock_device_of(uintptr_t addr)
{
    struct device *d = device_of(addr);
    if (!d)
        return NULL;
    sim_lock_take(&d->lock);
    if (!holds(d, addr)) {
        sim_lock_give(&d->lock);
        return NULL;
    }
    return d;
}

/* The device holding addr, counted as in use (device_leave) so it cannot
 * close meanwhile, or NULL. */
static struct device *device_enter(uintptr_t addr)
{
    struct device *d = device_of(addr);
    if (!d)
        return NULL;
    atomic_fetch_add(&d->users, 1);
    /* Both sequentially consistent (as close's store and load): either
     * close sees this user, or this user sees the device closed. */
    if (!atomic_load(&d->open) || !holds(d, addr)) {
        atomic_fetch_sub_explicit(&d->users, 1, memory_order_release);
        return NULL;
    }
    return d;
}

static void device_leave(struct device *d)
{
    if (d)
        atomic_fetch_sub_explicit(&d->users, 1, memory_order_release);
}

enum sim_rc sim_mem_free(void *ptr)
{
    struct device *d = lock_device_of((uintptr_t)ptr);
    if (!d)
        return SIM_EINVAL;
    uint64_t size = 0, off = (uint64_t)(uintptr_t)ptr - d->base;
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
    struct device *d = lock_device_of((uintptr_t)ptr);
    if (!d)
        return false;
    uint64_t start, size, base = d->base;
    uint32_t tag;
    int rc = sim_heap_lookup(d->heap, (uint64_t)(uintptr_t)ptr - base, &start, &size, &tag);
    sim_lock_give(&d->lock);
    if (rc != 0)
        return false;
    b->dev = (int32_t)(d - sim.dev);
    b->start = (void *)(uintptr_t)(base + start);
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
    if (atomic_load_explicit(&d->open, memory_order_acquire))
        sim_heap_walk(d->heap, visit_live, &w);
    sim_lock_give(&d->lock);
    return w.n;
}

void sim_mem_abandon(void *ptr)
{
    struct device *d = lock_device_of((uintptr_t)ptr);
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
        d->abandoned[d->n_abandoned++] = (uint64_t)(uintptr_t)ptr - d->base;
    sim_lock_give(&d->lock);
}

void sim_mem_audit(const void *ptr, size_t n)
{
    sim_track_check(ptr, n);
}

bool sim_mem_in_range(const void *ptr)
{
    uintptr_t addr = (uintptr_t)ptr;
    uint32_t n = atomic_load_explicit(&sim.count, memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < SIM_MAX_DEVICES; i++) {
        struct device *d = &sim.dev[i];
        uint64_t base = atomic_load_explicit(&d->base, memory_order_relaxed);
        if ((atomic_load_explicit(&d->open, memory_order_acquire) ||
             atomic_load_explicit(&d->retired, memory_order_relaxed)) &&
            addr >= base && addr - base < atomic_load_explicit(&d->capacity, memory_order_relaxed))
            return true;
    }
    return false;
}

/* The ranges closed devices kept go when the library does. */
__attribute__((destructor)) static void devices_unload(void)
{
    for (int i = 0; i < SIM_MAX_DEVICES; i++)
        if (!atomic_load(&sim.dev[i].open) && sim.dev[i].vs) {
            atomic_store(&sim.dev[i].retired, false);
            sim_vaspace_destroy(sim.dev[i].vs);
            sim.dev[i].vs = NULL;
        }
}

void sim_mem_usage(int32_t id, uint64_t *used, uint64_t *peak, uint64_t *total)
{
    struct device *d = &sim.dev[id];
    struct sim_heap_stats st = {0};
    sim_lock_take(&d->lock);
    if (atomic_load_explicit(&d->open, memory_order_acquire)) /* else: closed under the caller */
        sim_heap_stats(d->heap, &st);
    sim_lock_give(&d->lock);
    *used = st.used_bytes;
    if (peak)
        *peak = st.peak_used_bytes;
    if (total)
        *total = d->capacity;
}

/* Host pointer for n bytes at p, and how many are contiguous there; *d is
 * the device entered for it (NULL for host memory), to leave when done.
 * NULL: a device address whose device closed (*rc SIM_EINVAL), or host
 * memory for the alias that cannot be had (SIM_EHOSTMEM). */
static void *host_view(void *p, bool dev, uint64_t n, uint64_t *avail, struct device **d,
                       enum sim_rc *rc)
{
    *d = NULL;
    if (!dev) {
        *avail = n;
        return p;
    }
    *d = device_enter((uintptr_t)p);
    if (!*d) {
        *rc = SIM_EINVAL;
        return NULL;
    }
    void *h = sim_vaspace_span((*d)->vs, (uint64_t)(uintptr_t)p, n, avail);
    if (!h)
        *rc = SIM_EHOSTMEM;
    return h;
}

enum sim_rc sim_mem_copy(void *dst, bool dst_dev, const void *src, bool src_dev, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    char *to = dst;
    const char *from = src;
    enum sim_rc rc = SIM_OK;
    while (n && rc == SIM_OK) {
        uint64_t a, b;
        struct device *dd, *sd = NULL;
        char *h_to = host_view(to, dst_dev, n, &a, &dd, &rc);
        const char *h_from =
            h_to ? host_view((void *)(uintptr_t)from, src_dev, n, &b, &sd, &rc) : NULL;
        if (h_to && h_from) {
            size_t k = (size_t)(a < b ? a : b);
            memmove(h_to, h_from, k);
            to += k;
            from += k;
            n -= k;
        }
        device_leave(sd);
        device_leave(dd);
    }
    return rc;
}

enum sim_rc sim_mem_fill(void *dst, bool dst_dev, int value, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    char *to = dst;
    enum sim_rc rc = SIM_OK;
    while (n && rc == SIM_OK) {
        uint64_t a;
        struct device *d;
        char *h = host_view(to, dst_dev, n, &a, &d, &rc);
        if (h) {
            memset(h, value, (size_t)a);
            to += a;
            n -= (size_t)a;
        }
        device_leave(d);
    }
    return rc;
}
