/*
 * pool.c - stream-ordered memory pools (aclrtMemPool*, CANN's "SOMA").
 *
 * A pool hands out device blocks (from the device heap, as aclrtMalloc's,
 * without padding) and takes them back in stream order: a block freed on
 * stream A at simulated time t (A's tail when the free was enqueued) is
 * handed out again
 *   - on A itself, at once (A's later work runs after the free);
 *   - on another stream B when B is ordered after t on A by an event
 *     (B waited for an event recorded on A at or after t), with
 *     REUSE_FOLLOW_EVENT_DEPENDENCIES on;
 *   - on any stream when the free has completed as the host sees it
 *     (host clock >= t), with REUSE_ALLOW_OPPORTUNISTIC on;
 *   - on any stream with REUSE_ALLOW_INTERNAL_DEPENDENCIES on, B then
 *     waiting for t (the runtime inserts the dependency);
 * otherwise the pool grows. Among the blocks it may reuse it picks the one
 * whose size is closest (CANN's documentation). Reserved bytes are the
 * blocks the pool holds, used bytes those handed out; at a stream or
 * device synchronisation the pool gives idle blocks back to the heap
 * while more than the release threshold is idle, and aclrtMemPoolTrimTo
 * does so down to its figure; only blocks whose free has completed go.
 *
 * soma's rules (hicann/runtime src/runtime/feature/soma/): a pool is
 * destroyed with blocks still handed out (soma.cc:125-146 refuses only a
 * pool its creator marked undeletable, stream_mem_pool.cc:549-552; pools
 * of aclrtMemPoolCreate are deletable, soma.cc:96); a reuse switch stores 1
 * for any value but 0, a release threshold above the pool's size and a
 * high-water mark other than 0 are refused (stream_mem_pool.cc:473-518);
 * a trim above the pool's size is refused and one at or above what it
 * reserves trims nothing (stream_mem_pool.cc:420-436); an allocation the
 * pool's size cannot hold is refused (stream_mem_pool.cc:150-166).
 *
 * Dependencies are learnt from the backend's event records and waits
 * (sim_pool_note_*): direct ones only (A -> B, not A -> B -> C).
 * One mutex guards every pool and the dependency tables.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "base/hash.h"
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "internal.h"
#include "trace.h"

struct pblock {
    void *ptr;
    uint64_t size;     /* rounded request */
    bool busy;         /* handed out */
    int32_t dev;
    uint32_t stream;   /* id of the stream that freed it */
    sim_ps freed;      /* when that stream reached the free */
    struct sim_pool *pool;
};

struct sim_pool {
    int32_t dev;
    uint64_t max;
    uint32_t reuse[4]; /* indexed by SIM_POOL_REUSE_* (1..3) */
    uint64_t threshold;
    uint64_t reserved, reserved_high, used, used_high;
    struct pblock **blk; /* every block the pool holds */
    size_t n, cap;
    struct sim_pool *next;
};

/* (waiter stream, source stream) of a device -> latest ordered time */
#define DEP_KEY(dev, w, s) (((uint64_t)(uint32_t)(dev) << 48) ^ ((uint64_t)(w) << 24) ^ (uint64_t)(s) ^ 1u << 31)

static struct {
    pthread_mutex_t lock;
    struct sim_pool *pools;
    struct base_map live;   /* block address -> struct pblock (busy ones) */
    struct base_map events; /* event -> struct evrec */
    struct base_map deps;   /* DEP_KEY -> time + 1, stored in the pointer */
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct evrec {
    int32_t dev;
    uint32_t stream;
    sim_ps at;
};

static void trace_pool(const struct sim_pool *p, const char *what, const void *ptr, uint64_t size)
{
    char arg[96];
    snprintf(arg, sizeof arg, "%p %llu pool=%p", ptr, (unsigned long long)size, (const void *)p);
    sim_trace_instant(p->dev, what, sim_clock_host(), arg);
    char name[48];
    snprintf(name, sizeof name, "pool %p reserved", (const void *)p);
    sim_trace_counter(p->dev, name, p->reserved, sim_clock_host());
    snprintf(name, sizeof name, "pool %p used", (const void *)p);
    sim_trace_counter(p->dev, name, p->used, sim_clock_host());
}

enum sim_rc sim_pool_create(int32_t dev, uint64_t max, struct sim_pool **out)
{
    struct sim_pool *p = base_calloc(1, sizeof *p);
    if (!p)
        return SIM_EHOSTMEM;
    p->dev = dev;
    p->max = max ? max : sim_device_capacity(dev);
    p->reuse[SIM_POOL_REUSE_FOLLOW_EVENTS] = 1;
    p->reuse[SIM_POOL_REUSE_OPPORTUNISTIC] = 1;
    p->reuse[SIM_POOL_REUSE_INTERNAL] = 1;
    pthread_mutex_lock(&P.lock);
    p->next = P.pools;
    P.pools = p;
    if (sim_trace_enabled())
        trace_pool(p, "pool create", p, p->max);
    pthread_mutex_unlock(&P.lock);
    *out = p;
    return SIM_OK;
}

/* Give block i of p back to the heap. pre: P.lock, block idle. */
static void drop(struct sim_pool *p, size_t i)
{
    struct pblock *b = p->blk[i];
    p->blk[i] = p->blk[--p->n];
    p->reserved -= b->size;
    sim_mem_free(b->ptr);
    base_free(b);
}

static void unlink_pool(struct sim_pool *p)
{
    for (struct sim_pool **q = &P.pools; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            return;
        }
}

static bool live_pool(const struct sim_pool *p)
{
    for (struct sim_pool *q = P.pools; q; q = q->next)
        if (q == p)
            return true;
    return false;
}

enum sim_rc sim_pool_destroy(struct sim_pool *p, uint64_t *in_use)
{
    pthread_mutex_lock(&P.lock);
    if (!live_pool(p)) {
        pthread_mutex_unlock(&P.lock);
        *in_use = 0;
        return SIM_EINVAL;
    }
    *in_use = p->used;
    unlink_pool(p);
    while (p->n) {
        struct pblock *b = p->blk[p->n - 1];
        if (b->busy) { /* handed out: it goes with its pool */
            base_map_remove(&P.live, (uint64_t)(uintptr_t)b->ptr, NULL);
            b->busy = false;
            p->used -= b->size;
        }
        drop(p, p->n - 1);
    }
    if (sim_trace_enabled())
        trace_pool(p, "pool destroy", p, 0);
    pthread_mutex_unlock(&P.lock);
    base_free(p->blk);
    base_free(p);
    return SIM_OK;
}

bool sim_pool_valid(const struct sim_pool *p)
{
    pthread_mutex_lock(&P.lock);
    bool ok = live_pool(p);
    pthread_mutex_unlock(&P.lock);
    return ok;
}

enum sim_rc sim_pool_attr(struct sim_pool *p, enum sim_pool_attr a, bool set, uint64_t *v)
{
    enum sim_rc rc = SIM_OK;
    pthread_mutex_lock(&P.lock);
    if (!live_pool(p)) {
        pthread_mutex_unlock(&P.lock);
        return SIM_EINVAL;
    }
    switch (a) {
    case SIM_POOL_REUSE_FOLLOW_EVENTS:
    case SIM_POOL_REUSE_OPPORTUNISTIC:
    case SIM_POOL_REUSE_INTERNAL:
        if (set)
            p->reuse[a] = *v != 0;
        else
            *v = p->reuse[a];
        break;
    case SIM_POOL_RELEASE_THRESHOLD:
        if (set && *v > p->max)
            rc = SIM_EPERM;
        else if (set)
            p->threshold = *v;
        else
            *v = p->threshold;
        break;
    case SIM_POOL_RESERVED:
        rc = set ? SIM_EINVAL : SIM_OK;
        *v = set ? *v : p->reserved;
        break;
    case SIM_POOL_RESERVED_HIGH:
        if (set && *v != 0)
            rc = SIM_EPERM;
        else if (set)
            p->reserved_high = p->reserved;
        else
            *v = p->reserved_high;
        break;
    case SIM_POOL_USED:
        rc = set ? SIM_EINVAL : SIM_OK;
        *v = set ? *v : p->used;
        break;
    case SIM_POOL_USED_HIGH:
        if (set && *v != 0)
            rc = SIM_EPERM;
        else if (set)
            p->used_high = p->used;
        else
            *v = p->used_high;
        break;
    default:
        rc = SIM_EINVAL;
    }
    pthread_mutex_unlock(&P.lock);
    return rc;
}

/* Whether stream `want` of dev is ordered after time t on stream `src`
 * by an event. pre: P.lock. */
static bool ordered(int32_t dev, uint32_t want, uint32_t src, sim_ps t)
{
    void **v = base_map_find(&P.deps, DEP_KEY(dev, want, src));
    return v && (sim_ps)(uintptr_t)*v - 1 >= t;
}

enum sim_rc sim_pool_malloc(struct sim_pool *p, uint64_t size, struct sim_stream *s, void **ptr)
{
    uint32_t sid = sim_stream_id(s);
    /* The runtime aligns every request to its pool block, 2 MiB
     * (src/runtime/api/impl/api_impl_soma.cc:76-81, DEVICE_POOL_MIN_BLOCK_SIZE:
     * src/runtime/feature/soma/stream_mem_pool.hpp:38). */
    uint64_t need = (size + (UINT64_C(2) << 20) - 1) & ~((UINT64_C(2) << 20) - 1);
    pthread_mutex_lock(&P.lock);
    if (!live_pool(p)) {
        pthread_mutex_unlock(&P.lock);
        return SIM_EINVAL;
    }
    struct pblock *best = NULL;
    int how = 0; /* 1: in order, 2: needs an inserted wait */
    sim_ps host = sim_clock_host();
    for (size_t i = 0; i < p->n; i++) {
        struct pblock *b = p->blk[i];
        if (b->busy || b->size < need || (best && b->size >= best->size))
            continue;
        int ok = b->stream == sid ||
                         (p->reuse[SIM_POOL_REUSE_FOLLOW_EVENTS] &&
                          ordered(p->dev, sid, b->stream, b->freed)) ||
                         (p->reuse[SIM_POOL_REUSE_OPPORTUNISTIC] && host >= b->freed)
                     ? 1
                 : p->reuse[SIM_POOL_REUSE_INTERNAL] ? 2
                                                     : 0;
        if (ok) {
            best = b;
            how = ok;
        }
    }
    if (best) {
        if (how == 2)
            sim_stream_wait_until(s, best->freed);
    } else {
        /* grow: idle blocks whose free completed go first when over the limit */
        for (size_t i = p->n; i-- > 0 && p->reserved + need > p->max;)
            if (!p->blk[i]->busy && host >= p->blk[i]->freed)
                drop(p, i);
        struct pblock *b = NULL;
        void *mem = NULL;
        enum sim_rc rc = p->reserved + need > p->max ? SIM_EPERM : SIM_ENOMEM;
        if (rc == SIM_ENOMEM && !FLT_HIT(SIM_POOL_GROW))
            rc = sim_mem_alloc(p->dev, need, SIM_POLICY_HUGE_FIRST, true, &mem);
        if (rc == SIM_OK && p->n == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 16;
            struct pblock **n = base_realloc(p->blk, cap * sizeof *n);
            if (n) {
                p->blk = n;
                p->cap = cap;
            }
        }
        if (rc == SIM_OK && (p->n == p->cap || !(b = base_calloc(1, sizeof *b))))
            rc = SIM_EHOSTMEM;
        if (rc != SIM_OK) {
            if (mem)
                sim_mem_free(mem);
            pthread_mutex_unlock(&P.lock);
            return rc;
        }
        *b = (struct pblock){mem, need, false, p->dev, sid, 0, p};
        p->blk[p->n++] = b;
        p->reserved += need;
        if (p->reserved > p->reserved_high)
            p->reserved_high = p->reserved;
        best = b;
    }
    if (base_map_put(&P.live, (uint64_t)(uintptr_t)best->ptr, best) != 0) {
        pthread_mutex_unlock(&P.lock);
        return SIM_EHOSTMEM;
    }
    best->busy = true;
    p->used += best->size;
    if (p->used > p->used_high)
        p->used_high = p->used;
    *ptr = best->ptr;
    if (sim_trace_enabled())
        trace_pool(p, "pool malloc", best->ptr, best->size);
    pthread_mutex_unlock(&P.lock);
    return SIM_OK;
}

enum sim_rc sim_pool_free(void *ptr, struct sim_stream *s)
{
    pthread_mutex_lock(&P.lock);
    void *v = NULL;
    if (!base_map_remove(&P.live, (uint64_t)(uintptr_t)ptr, &v)) {
        pthread_mutex_unlock(&P.lock);
        return SIM_EINVAL;
    }
    struct pblock *b = v;
    b->busy = false;
    b->stream = sim_stream_id(s);
    b->freed = sim_stream_now(s);
    b->pool->used -= b->size;
    if (sim_trace_enabled())
        trace_pool(b->pool, "pool free", b->ptr, b->size);
    pthread_mutex_unlock(&P.lock);
    return SIM_OK;
}

bool sim_pool_owns(const void *ptr)
{
    pthread_mutex_lock(&P.lock);
    bool yes = base_map_find(&P.live, (uint64_t)(uintptr_t)ptr) != NULL;
    pthread_mutex_unlock(&P.lock);
    return yes;
}

bool sim_pool_region(const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr;
    bool in = false;
    pthread_mutex_lock(&P.lock);
    for (struct sim_pool *p = P.pools; p && !in; p = p->next)
        for (size_t i = 0; i < p->n && !in; i++)
            in = a >= (uintptr_t)p->blk[i]->ptr && a - (uintptr_t)p->blk[i]->ptr < p->blk[i]->size;
    pthread_mutex_unlock(&P.lock);
    return in;
}

/* Release p's idle, completed blocks while it holds more than keep.
 * pre: P.lock. */
static void shrink(struct sim_pool *p, uint64_t keep)
{
    sim_ps host = sim_clock_host();
    for (size_t i = p->n; i-- > 0 && p->reserved > keep;)
        if (!p->blk[i]->busy && host >= p->blk[i]->freed)
            drop(p, i);
}

enum sim_rc sim_pool_trim(struct sim_pool *p, uint64_t keep)
{
    pthread_mutex_lock(&P.lock);
    if (!live_pool(p)) {
        pthread_mutex_unlock(&P.lock);
        return SIM_EINVAL;
    }
    if (keep > p->max) {
        pthread_mutex_unlock(&P.lock);
        return SIM_EPERM;
    }
    shrink(p, keep > p->used ? keep : p->used);
    if (sim_trace_enabled())
        trace_pool(p, "pool trim", p, p->reserved);
    pthread_mutex_unlock(&P.lock);
    return SIM_OK;
}

void sim_pool_on_sync(int32_t dev)
{
    pthread_mutex_lock(&P.lock);
    for (struct sim_pool *p = P.pools; p; p = p->next)
        if (p->dev == dev && p->reserved - p->used > p->threshold)
            shrink(p, p->used + p->threshold);
    pthread_mutex_unlock(&P.lock);
}

void sim_pool_note_record(const void *event, struct sim_stream *s)
{
    /* With no pool alive no free precedes this record: nothing to follow
     * (and event records then cost nothing, nor any host memory). */
    pthread_mutex_lock(&P.lock);
    bool any = P.pools != NULL;
    pthread_mutex_unlock(&P.lock);
    if (!any) {
        sim_pool_note_forget(event); /* an older record of it is stale now */
        return;
    }
    struct evrec *r = base_malloc(sizeof *r);
    if (!r)
        return; /* then no reuse follows this event: never unsafe */
    *r = (struct evrec){sim_stream_device(s), sim_stream_id(s), sim_stream_now(s)};
    pthread_mutex_lock(&P.lock);
    void *old = NULL;
    base_map_remove(&P.events, (uint64_t)(uintptr_t)event, &old);
    if (base_map_put(&P.events, (uint64_t)(uintptr_t)event, r) != 0) {
        base_free(r);
    }
    pthread_mutex_unlock(&P.lock);
    base_free(old);
}

void sim_pool_note_wait(struct sim_stream *s, const void *event)
{
    pthread_mutex_lock(&P.lock);
    void **v = base_map_find(&P.events, (uint64_t)(uintptr_t)event);
    if (v) {
        struct evrec *r = *v;
        uint64_t key = DEP_KEY(r->dev, sim_stream_id(s), r->stream);
        void **d = base_map_find(&P.deps, key);
        if (!d || (sim_ps)(uintptr_t)*d - 1 < r->at)
            base_map_put(&P.deps, key, (void *)(uintptr_t)(r->at + 1));
    }
    pthread_mutex_unlock(&P.lock);
}

void sim_pool_note_forget(const void *event)
{
    void *old = NULL;
    pthread_mutex_lock(&P.lock);
    base_map_remove(&P.events, (uint64_t)(uintptr_t)event, &old);
    pthread_mutex_unlock(&P.lock);
    base_free(old);
}

size_t sim_pool_live(int32_t dev, sim_vmm_live_fn fn, void *user)
{
    size_t n = 0;
    pthread_mutex_lock(&P.lock);
    for (struct sim_pool *p = P.pools; p; p = p->next)
        if (p->dev == dev) {
            fn(SIM_VMM_LIVE_POOL, p, p->reserved, p->used, user);
            n++;
        }
    pthread_mutex_unlock(&P.lock);
    return n;
}

void sim_pool_close(int32_t dev)
{
    pthread_mutex_lock(&P.lock);
    for (struct sim_pool **q = &P.pools; *q;) {
        struct sim_pool *p = *q;
        if (p->dev != dev) {
            q = &p->next;
            continue;
        }
        *q = p->next;
        /* The device's heap goes with it: only the host side is freed here
         * (memcheck reports the blocks of a pool never destroyed). */
        for (size_t i = 0; i < p->n; i++) {
            base_map_remove(&P.live, (uint64_t)(uintptr_t)p->blk[i]->ptr, NULL);
            base_free(p->blk[i]);
        }
        base_free(p->blk);
        base_free(p);
    }
    /* dependencies of the device's streams: their ids restart */
    size_t pos = 0;
    uint64_t key;
    void *val;
    while (base_map_next(&P.events, &pos, &key, &val)) {
        struct evrec *r = val;
        if (r->dev == dev) {
            base_map_remove(&P.events, key, NULL);
            base_free(r);
            pos = 0;
        }
    }
    pos = 0;
    while (base_map_next(&P.deps, &pos, &key, NULL))
        if ((key >> 48) == (uint64_t)(uint32_t)dev) {
            base_map_remove(&P.deps, key, NULL);
            pos = 0;
        }
    if (!P.pools && !P.events.count) {
        base_map_clear(&P.live);
        base_map_clear(&P.events);
        base_map_clear(&P.deps);
    }
    pthread_mutex_unlock(&P.lock);
}
