/*
 * stream.c - simulated streams, copies and fills on them, and events.
 *
 * A stream is an in-order queue on its device's timeline (clock.c): every
 * operation moves its bytes at once (so data is right for any correctly
 * synchronised program) and takes simulated time on the device's links
 * and copy engines. Synchronous copies and fills run on a hidden per-device
 * stream and make the host wait; asynchronous ones from pageable host
 * memory do too, as on the real runtime. An event is the simulated time at
 * which the work it captured completes. The profile caps streams and
 * events per device as the device does. Host tasks (callbacks) are ready
 * when their stream reaches them; a blocking one holds its stream until
 * the host has run it. Work that fails on the device (a copy engine error,
 * a hang, a refused task) is reported to one fault handler, as the device
 * raises an exception (the section at the end).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "queue.h"
#include "internal.h"
#include "sim.h"

static bool recorded(const struct sim_event *e, sim_ps *at)
{
    sim_ps m = sim_ev_mark(e);
    *at = m ? m - 1 : 0; /* pending: a time the host never reaches */
    return m != 0;
}

/* Host tasks and device faults (the section at the end). */
static uint32_t task_begin(struct sim_stream *s);
static bool blocking_wait(struct sim_stream *s);
static bool blocking_wait_device(int32_t dev);
static void raise_fault(enum sim_fault_kind kind, int32_t dev, uint32_t stream_id,
                        uint32_t task_id, uint32_t thread);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned live_streams[SIM_MAX_DEVICES], live_events[SIM_MAX_DEVICES];
static uint32_t next_event_id[SIM_MAX_DEVICES];
static struct sim_clock_stream sync_clk[SIM_MAX_DEVICES]; /* synchronous work */

enum sim_rc sim_timeline_open(int32_t dev)
{
    const struct sim_profile *p = sim_device_profile(dev);
    const struct sim_server *srv = sim_device_server();
    struct sim_clock_params cp = {
        .host_gbps = p->host_gbps,
        .hbm_gbps = p->hbm_gbps,
        .latency_us = p->host_latency_us,
        .host_call_us = SIM_CLOCK_DEFAULT_HOST_CALL_US,
        .host_query_us = SIM_CLOCK_DEFAULT_HOST_QUERY_US,
        .copy_engines = p->copy_engines,
        .memcpy_gbps = p->stage_gbps,
        .stage_bytes = p->stage_bytes,
        .peer_gbps = srv ? srv->link_gbps : 0,
        .peer_latency_us = srv ? srv->link_latency_us : 0,
    };
    enum sim_rc rc = sim_clock_device_open(dev, &cp);
    if (rc == SIM_OK)
        rc = sim_clock_stream_init(dev, &sync_clk[dev]);
    return rc;
}

void sim_timeline_close(int32_t dev)
{
    sim_clock_device_close(dev);
}

/* Give back a stream slot taken by sim_stream_create. */
static void stream_release(int32_t dev)
{
    pthread_mutex_lock(&lock);
    live_streams[dev]--;
    pthread_mutex_unlock(&lock);
}

enum sim_rc sim_stream_create(int32_t dev, struct sim_stream **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    if (FLT_HIT(SIM_STREAM_RESOURCE))
        return SIM_ENOMEM;
    struct sim_stream *s = base_calloc(1, sizeof *s);
    if (!s)
        return SIM_EHOSTMEM;
    pthread_mutex_lock(&lock);
    /* The profile's count includes the default stream, as CANN's does. */
    bool full = live_streams[dev] >= p->max_streams;
    if (!full)
        live_streams[dev]++;
    pthread_mutex_unlock(&lock);
    if (full || sim_clock_stream_init(dev, &s->clk) != SIM_OK) {
        if (!full)
            stream_release(dev);
        base_free(s);
        return SIM_ENOMEM;
    }
    s->dev = dev;
    for (int i = 0; i < SIM_SP_COUNT; i++)
        atomic_init(&s->prop[i], 0);
    *out = s;
    return SIM_OK;
}


void sim_stream_destroy(struct sim_stream *s)
{
    sim_hold_drop(s); /* what a wait still held is dropped */
    sim_clock_sync_stream(&s->clk); /* outstanding work first */
    stream_release(s->dev);
    base_free(s);
}

enum sim_rc sim_stream_sync(struct sim_stream *s, int32_t timeout_ms)
{
    if (FLT_HIT(SIM_STREAM_HANG)) {
        uint32_t n = atomic_load(&s->tasks);
        raise_fault(SIM_FAULT_HANG, s->dev, s->clk.id, n ? n - 1 : 0, atomic_load(&s->last_thread));
        return SIM_ETIMEOUT;
    }
    if (!blocking_wait(s))
        return SIM_ETIMEOUT;
    bool held = false;
    enum sim_rc rc = sim_hold_sync(s, timeout_ms, &held);
    if (held)
        return rc;
    bool late = false;
    sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
    sim_clock_host_wait(sim_clock_stream_now(&s->clk), limit, &late);
    return late ? SIM_ETIMEOUT : SIM_OK;
}

uint64_t sim_stream_now(struct sim_stream *s)
{
    return sim_clock_stream_now(&s->clk);
}

bool sim_stream_done(struct sim_stream *s)
{
    if (sim_stream_held(s) || atomic_load(&s->blocking) != 0) {
        sim_clock_done(SIM_PS_FOREVER); /* the host still pays the query */
        return false;
    }
    return sim_clock_done(sim_clock_stream_now(&s->clk));
}

enum sim_rc sim_device_sync(int32_t dev)
{
    if (FLT_HIT(SIM_STREAM_HANG))
        return SIM_ETIMEOUT;
    if (!blocking_wait_device(dev))
        return SIM_ETIMEOUT;
    enum sim_rc rc = sim_hold_sync_device(dev);
    if (rc != SIM_OK)
        return rc;
    sim_clock_sync_device(dev);
    return SIM_OK;
}

/* ---- Copies and fills ---- */

static enum sim_link link_of(bool dst_dev, bool src_dev)
{
    if (dst_dev)
        return src_dev ? SIM_LINK_HBM : SIM_LINK_H2D;
    return src_dev ? SIM_LINK_D2H : SIM_LINK_HOST;
}

enum sim_rc sim_copy(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                     const void *src, bool src_dev, size_t n, unsigned flags)
{
    if (s)
        blocking_wait(s); /* a blocking host task ahead of it runs first */
    if (s) {
        struct sim_task t = {.kind = SIM_T_COPY, .dst = dst, .src = src, .dst_dev = dst_dev,
                             .src_dev = src_dev, .n = n};
        bool queued = false;
        enum sim_rc rc = sim_hold_queue(s, &t, &queued);
        if (rc != SIM_OK || queued)
            return rc;
    }
    enum sim_rc rc = sim_copy_run(dev, s, dst, dst_dev, src, src_dev, n, flags);
    if (rc == SIM_OK && s && dst_dev)
        sim_hold_poke(s);
    return rc;
}

/* The device whose memory holds addr, or -1. */
static int32_t owner(const void *addr)
{
    struct sim_dev *d = sim_dev_of((uintptr_t)addr);
    return d ? sim_dev_id(d) : -1;
}

/* Take the time of a copy whose bytes already moved: its link, staged when
 * a host side is pageable, over the fabric between two devices. */
static void time_copy(struct sim_clock_stream *clk, void *dst, bool dst_dev, const void *src,
                      bool src_dev, uint64_t n, unsigned flags)
{
    bool wait = (flags & SIM_COPY_WAIT) != 0;
    enum sim_link link = link_of(dst_dev, src_dev);
    if (link == SIM_LINK_HBM) {
        int32_t from = owner(src), to = owner(dst);
        if (from >= 0 && to >= 0 && from != to) {
            sim_clock_copy_peer(clk, from, to, n, wait, NULL, NULL);
            return;
        }
    }
    if ((link == SIM_LINK_H2D || link == SIM_LINK_D2H) && (flags & SIM_COPY_PAGEABLE))
        sim_clock_copy_staged(clk, link, n, NULL, NULL);
    else
        sim_clock_copy(clk, link, n, wait, NULL, NULL);
}

enum sim_rc sim_copy_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                         const void *src, bool src_dev, size_t n, unsigned flags)
{
    uint32_t task = s ? task_begin(s) : 0;
    enum sim_rc rc = sim_mem_copy(dst, dst_dev, src, src_dev, n);
    if (rc == SIM_EIO && s)
        raise_fault(SIM_FAULT_COPY, s->dev, s->clk.id, task, atomic_load(&s->last_thread));
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = s ? &s->clk : &sync_clk[dev];
    time_copy(clk, dst, dst_dev, src, src_dev, n, s ? flags : flags | SIM_COPY_WAIT);
    return SIM_OK;
}

enum sim_rc sim_fill(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                     size_t n, bool host_waits)
{
    if (s)
        blocking_wait(s); /* a blocking host task ahead of it runs first */
    if (s) {
        struct sim_task t = {.kind = SIM_T_FILL, .dst = dst, .dst_dev = dst_dev, .n = n,
                             .fill = value};
        bool queued = false;
        enum sim_rc rc = sim_hold_queue(s, &t, &queued);
        if (rc != SIM_OK || queued)
            return rc;
    }
    enum sim_rc rc = sim_fill_run(dev, s, dst, dst_dev, value, n, host_waits);
    if (rc == SIM_OK && s && dst_dev)
        sim_hold_poke(s);
    return rc;
}

enum sim_rc sim_fill_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                         size_t n, bool host_waits)
{
    uint32_t task = s ? task_begin(s) : 0;
    enum sim_rc rc = sim_mem_fill(dst, dst_dev, value, n);
    if (rc == SIM_EIO && s)
        raise_fault(SIM_FAULT_COPY, s->dev, s->clk.id, task, atomic_load(&s->last_thread));
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = s ? &s->clk : &sync_clk[dev];
    if (dst_dev)
        sim_clock_fill(clk, n, host_waits || !s, NULL, NULL);
    else
        sim_clock_copy(clk, SIM_LINK_HOST, n, true, "memset host", NULL);
    return SIM_OK;
}

/* ---- copies, fills and host memory (fam-memcopy) ---- */

enum sim_rc sim_copy2d(int32_t dev, struct sim_stream *s, void *dst, size_t dpitch, bool dst_dev,
                       const void *src, size_t spitch, bool src_dev, size_t width,
                       size_t height, unsigned flags)
{
    if (s && sim_stream_held(s)) {
        /* Held: each row is queued as a copy of its own. */
        for (size_t r = 0; r < height; r++) {
            enum sim_rc rc = sim_copy(dev, s, (char *)dst + r * dpitch, dst_dev,
                                      (const char *)src + r * spitch, src_dev, width, flags);
            if (rc != SIM_OK)
                return rc;
        }
        return SIM_OK;
    }
    for (size_t r = 0; r < height; r++) {
        enum sim_rc rc = sim_mem_copy((char *)dst + r * dpitch, dst_dev,
                                      (const char *)src + r * spitch, src_dev, width);
        if (rc != SIM_OK)
            return rc;
    }
    struct sim_clock_stream *clk = s ? &s->clk : &sync_clk[dev];
    time_copy(clk, dst, dst_dev, src, src_dev, (uint64_t)width * height,
              s ? flags : flags | SIM_COPY_WAIT);
    if (s && dst_dev)
        sim_hold_poke(s);
    return SIM_OK;
}

enum sim_rc sim_fill32(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                       uint32_t value, size_t words, bool host_waits)
{
    if (s && dst_dev) {
        struct sim_task t = {.kind = SIM_T_FILL32, .dst = dst, .dst_dev = dst_dev,
                             .n = words * 4, .value = value};
        bool queued = false;
        enum sim_rc rc = sim_hold_queue(s, &t, &queued);
        if (rc != SIM_OK || queued)
            return rc;
    }
    enum sim_rc rc = sim_fill32_run(dev, s, dst, dst_dev, value, words, host_waits);
    if (rc == SIM_OK && s && dst_dev)
        sim_hold_poke(s);
    return rc;
}

enum sim_rc sim_fill32_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                           uint32_t value, size_t words, bool host_waits)
{
    enum sim_rc rc = sim_mem_fill32(dst, dst_dev, value, words);
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = s ? &s->clk : &sync_clk[dev];
    if (dst_dev)
        sim_clock_fill(clk, (uint64_t)words * 4, host_waits || !s, "memset D32", NULL);
    else /* the runtime fills host memory itself, at once */
        sim_clock_copy(clk, SIM_LINK_HOST, (uint64_t)words * 4, true, "memset D32 host", NULL);
    return SIM_OK;
}

void sim_stream_migrate(struct sim_stream *s, uint64_t bytes, bool to_device)
{
    sim_clock_copy(&s->clk, to_device ? SIM_LINK_H2D : SIM_LINK_D2H, bytes, false,
                   "managed prefetch", NULL);
}

/* ---- Events ---- */

enum sim_rc sim_event_create(int32_t dev, uint32_t flags, struct sim_event **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    struct sim_event *e = base_calloc(1, sizeof *e);
    if (!e)
        return SIM_EHOSTMEM;
    pthread_mutex_lock(&lock);
    bool full = live_events[dev] >= p->max_events;
    if (!full)
        live_events[dev]++;
    pthread_mutex_unlock(&lock);
    if (full) {
        base_free(e);
        return SIM_ENOMEM;
    }
    e->dev = dev;
    e->flags = flags;
    e->mark = &e->own;
    if ((flags & SIM_EVENT_IPC) && sim_ipc_attach_new(e) != SIM_OK) {
        pthread_mutex_lock(&lock);
        live_events[dev]--;
        pthread_mutex_unlock(&lock);
        base_free(e);
        return SIM_EHOSTMEM;
    }
    pthread_mutex_lock(&lock);
    e->id = next_event_id[dev]++;
    pthread_mutex_unlock(&lock);
    *out = e;
    return SIM_OK;
}

void sim_event_destroy(struct sim_event *e)
{
    sim_hold_forget(e);
    sim_ipc_detach(e);
    pthread_mutex_lock(&lock);
    live_events[e->dev]--;
    pthread_mutex_unlock(&lock);
    base_free(e);
}

void sim_event_record(struct sim_event *e, struct sim_stream *s)
{
    blocking_wait(s);
    uint32_t task = task_begin(s);
    atomic_store_explicit(&e->rec_stream, s->clk.id, memory_order_relaxed);
    atomic_store_explicit(&e->rec_task, task, memory_order_relaxed);
    atomic_store_explicit(&e->rec_thread, atomic_load(&s->last_thread), memory_order_relaxed);
    sim_hold_record(e, s);
}

void sim_event_reset(struct sim_event *e)
{
    sim_ev_set(e, 0);
}

void sim_event_wait(struct sim_stream *s, const struct sim_event *e)
{
    /* Waiting on an event never recorded waits for nothing, as in CANN. */
    task_begin(s);
    sim_hold_wait_event(s, e);
}

enum sim_rc sim_event_sync(struct sim_event *e, int32_t timeout_ms)
{
    sim_ps at;
    if (FLT_HIT(SIM_EVENT_HANG)) {
        if (recorded(e, &at))
            raise_fault(SIM_FAULT_HANG, e->dev, atomic_load(&e->rec_stream),
                        atomic_load(&e->rec_task), atomic_load(&e->rec_thread));
        return SIM_ETIMEOUT;
    }
    if (sim_ev_mark(e) == SIM_MARK_PENDING)
        return sim_hold_event_sync(e, timeout_ms);
    if (!recorded(e, &at))
        return SIM_OK;
    bool late = false;
    sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
    sim_clock_host_wait(at, limit, &late);
    return late ? SIM_ETIMEOUT : SIM_OK;
}

bool sim_event_done(const struct sim_event *e)
{
    sim_ps at;
    return !recorded(e, &at) || sim_clock_done(at);
}

enum sim_rc sim_event_elapsed(const struct sim_event *a, const struct sim_event *b, float *ms)
{
    sim_ps ta, tb;
    if (!recorded(a, &ta) || !recorded(b, &tb) || !(a->flags & SIM_EVENT_TIMELINE) ||
        !(b->flags & SIM_EVENT_TIMELINE))
        return SIM_EINVAL;
    if (!sim_clock_done(ta) || !sim_clock_done(tb))
        return SIM_ENOTREADY;
    if (tb < ta)
        return SIM_EORDER;
    *ms = (float)((double)(tb - ta) / 1e9);
    return SIM_OK;
}


/* ---- Properties, ids, counts ---- */

uint64_t sim_stream_prop(struct sim_stream *s, enum sim_stream_prop p)
{
    return atomic_load_explicit(&s->prop[p], memory_order_relaxed);
}

void sim_stream_set_prop(struct sim_stream *s, enum sim_stream_prop p, uint64_t v)
{
    atomic_store_explicit(&s->prop[p], v, memory_order_relaxed);
}

uint32_t sim_stream_id(struct sim_stream *s)
{
    return s->clk.id;
}

/* ---- for stream-ordered pools (pool.c) ---- */

int32_t sim_stream_device(struct sim_stream *s)
{
    return s->clk.device;
}

void sim_stream_wait_until(struct sim_stream *s, uint64_t t)
{
    sim_clock_wait(&s->clk, t);
}

void sim_stream_abort(struct sim_stream *s)
{
    sim_hold_drop(s);
    sim_clock_abort(&s->clk);
}

uint32_t sim_stream_avail(int32_t dev)
{
    const struct sim_profile *p = sim_device_profile(dev);
    pthread_mutex_lock(&lock);
    uint32_t n = live_streams[dev] < p->max_streams ? p->max_streams - live_streams[dev] : 0;
    pthread_mutex_unlock(&lock);
    return n;
}

uint32_t sim_event_avail(int32_t dev)
{
    const struct sim_profile *p = sim_device_profile(dev);
    pthread_mutex_lock(&lock);
    uint32_t n = live_events[dev] < p->max_events ? p->max_events - live_events[dev] : 0;
    pthread_mutex_unlock(&lock);
    return n;
}

uint32_t sim_event_id(const struct sim_event *e)
{
    return e->id;
}

enum sim_rc sim_event_timestamp(const struct sim_event *e, uint64_t *ps)
{
    sim_ps at;
    if (!recorded(e, &at))
        return SIM_EINVAL;
    if (!sim_clock_done(at))
        return SIM_ENOTREADY;
    *ps = at;
    return SIM_OK;
}

bool sim_event_waited(const struct sim_event *e)
{
    sim_ps at;
    return recorded(e, &at) && sim_clock_done(at);
}

/* ---- Host tasks (callbacks) and device faults ----
 *
 * A host task is a callback the host runs when its stream reaches it: in
 * simulated time it is a record (ready when the stream's work so far is
 * done). A blocking one also holds the stream in real time, because the
 * simulator moves bytes when work is enqueued: the stream's later copies,
 * fills and records wait at enqueue until the host has run the callback,
 * so a callback never sees bytes of work queued behind it, and a
 * synchronisation of the stream waits for it as the device would. The
 * thread that runs the tasks (runner) is never made to wait for itself.
 * Blocking tasks are counted under blocking_lock, a leaf lock; the fast path is one atomic
 * load per enqueue. */

static pthread_mutex_t blocking_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t blocking_ran = PTHREAD_COND_INITIALIZER;
static unsigned dev_blocked[SIM_MAX_DEVICES]; /* blocking tasks per device */

/* Runners with blocking tasks pending, per device: a device
 * synchronisation in a runner's own thread would wait for itself. */
#define MAX_RUNNERS 64
static struct {
    uint64_t runner;
    int32_t dev;
    unsigned n;
} runners[MAX_RUNNERS];

static sim_fault_fn _Atomic fault_fn;

static uint64_t self_id(void)
{
    return (uint64_t)pthread_self();
}

/* Count a task of s; returns its id. */
static uint32_t task_begin(struct sim_stream *s)
{
    atomic_store_explicit(&s->last_thread, (uint32_t)self_id(), memory_order_relaxed);
    return atomic_fetch_add_explicit(&s->tasks, 1, memory_order_relaxed);
}

/* Wait until s holds no blocking host task. false (at once) when the
 * caller is the thread that must run one. */
static bool blocking_wait(struct sim_stream *s)
{
    if (atomic_load_explicit(&s->blocking, memory_order_acquire) == 0)
        return true;
    bool ok = true;
    pthread_mutex_lock(&blocking_lock);
    while (atomic_load(&s->blocking) > 0) {
        if (atomic_load(&s->runner) == self_id()) {
            ok = false;
            break;
        }
        pthread_cond_wait(&blocking_ran, &blocking_lock);
    }
    pthread_mutex_unlock(&blocking_lock);
    return ok;
}

static bool runs_on(int32_t dev, uint64_t me)
{
    for (unsigned i = 0; i < MAX_RUNNERS; i++)
        if (runners[i].n > 0 && runners[i].dev == dev && runners[i].runner == me)
            return true;
    return false;
}

static bool blocking_wait_device(int32_t dev)
{
    bool ok = true;
    pthread_mutex_lock(&blocking_lock);
    while (dev_blocked[dev] > 0) {
        if (runs_on(dev, self_id())) {
            ok = false;
            break;
        }
        pthread_cond_wait(&blocking_ran, &blocking_lock);
    }
    pthread_mutex_unlock(&blocking_lock);
    return ok;
}

/* Count one blocking task of runner on dev (+1) or its end (-1).
 * pre: blocking_lock held. A runner that finds no free slot is not counted:
 * its device synchronisation then waits like anyone's. */
static void runner_count(uint64_t runner, int32_t dev, int delta)
{
    for (unsigned i = 0; i < MAX_RUNNERS; i++)
        if (runners[i].n > 0 && runners[i].runner == runner && runners[i].dev == dev) {
            runners[i].n += (unsigned)delta;
            return;
        }
    if (delta < 0)
        return;
    for (unsigned i = 0; i < MAX_RUNNERS; i++)
        if (runners[i].n == 0) {
            runners[i].runner = runner;
            runners[i].dev = dev;
            runners[i].n = 1;
            return;
        }
}

enum sim_rc sim_host_task(struct sim_stream *s, bool blocking, uint64_t runner, uint64_t *ready)
{
    task_begin(s);
    if (blocking) {
        pthread_mutex_lock(&blocking_lock);
        atomic_store(&s->runner, runner);
        atomic_fetch_add(&s->blocking, 1);
        dev_blocked[s->dev]++;
        runner_count(runner, s->dev, 1);
        pthread_mutex_unlock(&blocking_lock);
    }
    *ready = sim_clock_record(&s->clk);
    return SIM_OK;
}

void sim_host_task_done(struct sim_stream *s, bool blocking)
{
    if (!blocking)
        return;
    pthread_mutex_lock(&blocking_lock);
    atomic_fetch_sub(&s->blocking, 1);
    dev_blocked[s->dev]--;
    runner_count(atomic_load(&s->runner), s->dev, -1);
    pthread_cond_broadcast(&blocking_ran);
    pthread_mutex_unlock(&blocking_lock);
}

void sim_stream_ids(struct sim_stream *s, int32_t *dev, uint32_t *id)
{
    *dev = s->dev;
    *id = s->clk.id;
}

void sim_fault_handler(sim_fault_fn fn)
{
    atomic_store(&fault_fn, fn);
}

static void raise_fault(enum sim_fault_kind kind, int32_t dev, uint32_t stream_id,
                        uint32_t task_id, uint32_t thread)
{
    sim_fault_fn fn = atomic_load(&fault_fn);
    if (!fn)
        return;
    struct sim_fault f = {kind, dev, stream_id, task_id, thread};
    fn(&f);
}

void sim_stream_fault(struct sim_stream *s, enum sim_fault_kind kind)
{
    uint32_t task = task_begin(s);
    raise_fault(kind, s->dev, s->clk.id, task, (uint32_t)self_id());
}

/* ---- Kernels ---- */

void sim_stream_kernel(struct sim_stream *s, uint64_t ps, const char *name, uint64_t *start,
                       uint64_t *end)
{
    sim_ps b = 0;
    *end = sim_clock_kernel(&s->clk, ps, name, &b);
    *start = b;
}

/* ---- Built-in tasks (examples) ----
 *
 * Reductions and the status copies are SDMA work: timed as a copy of their
 * bytes through HBM. A reset of the status words is a fill of the
 * context's 512-byte overflow area (OVERFLOW_ADDR_MAX_SIZE in CANN's
 * runtime). The DSA's random numbers are timed as a fill of the results
 * (an assumption: no figure for the DSA is published). */

enum sim_rc sim_builtin(int32_t dev, struct sim_stream *s, const struct sim_builtin *b)
{
    (void)dev;
    blocking_wait(s); /* a blocking host task ahead of it runs first */
    struct sim_task t = {.kind = SIM_T_BUILTIN, .obj = (void *)b};
    bool queued = false;
    enum sim_rc rc = sim_hold_queue(s, &t, &queued);
    if (rc != SIM_OK || queued)
        return rc;
    rc = sim_builtin_run(s, b);
    if (rc == SIM_OK)
        sim_hold_poke(s);
    return rc;
}

enum sim_rc sim_builtin_run(struct sim_stream *s, const struct sim_builtin *b)
{
    uint32_t task = task_begin(s);
    uint64_t bytes = 0;
    enum sim_rc rc = sim_builtin_compute(b, &bytes);
    if (rc == SIM_EIO || rc == SIM_EINVAL)
        raise_fault(rc == SIM_EIO ? SIM_FAULT_COPY : SIM_FAULT_MEMORY, s->dev, s->clk.id, task,
                    atomic_load(&s->last_thread));
    if (rc != SIM_OK)
        return rc;
    switch (b->kind) {
    case SIM_BI_REDUCE:
        sim_clock_copy(&s->clk, SIM_LINK_HBM, bytes, false, "reduce", NULL);
        break;
    case SIM_BI_STATUS:
        sim_clock_copy(&s->clk, SIM_LINK_HBM, bytes, false, "overflow status", NULL);
        break;
    case SIM_BI_STATUS_RESET:
        sim_clock_fill(&s->clk, 512, false, "overflow reset", NULL);
        break;
    default:
        sim_clock_fill(&s->clk, bytes, false, "random numbers", NULL);
        break;
    }
    return SIM_OK;
}
