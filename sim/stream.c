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
 * events per device as the device does.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "sim.h"

struct sim_stream {
    int32_t dev;
    struct sim_clock_stream clk;
};

/* An event's state is one atomic word, so a record on one thread and
 * queries, waits and syncs on others see it whole: 0 when never recorded
 * (or reset), else the completion time of the captured work plus one. */
struct sim_event {
    int32_t dev;
    uint32_t flags;
    _Atomic sim_ps mark;
};

static bool recorded(const struct sim_event *e, sim_ps *at)
{
    sim_ps m = atomic_load_explicit(&((struct sim_event *)e)->mark, memory_order_acquire);
    *at = m ? m - 1 : 0;
    return m != 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned live_streams[SIM_MAX_DEVICES], live_events[SIM_MAX_DEVICES];
static struct sim_clock_stream sync_clk[SIM_MAX_DEVICES]; /* synchronous work */

enum sim_rc sim_timeline_open(int32_t dev)
{
    const struct sim_profile *p = sim_device_profile(dev);
    struct sim_clock_params cp = {
        .host_gbps = p->host_gbps,
        .hbm_gbps = p->hbm_gbps,
        .latency_us = p->host_latency_us,
        .host_call_us = SIM_CLOCK_DEFAULT_HOST_CALL_US,
        .host_query_us = SIM_CLOCK_DEFAULT_HOST_QUERY_US,
        .copy_engines = p->copy_engines,
        .memcpy_gbps = 0,
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
    struct sim_stream *s = base_malloc(sizeof *s);
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
    *out = s;
    return SIM_OK;
}


void sim_stream_destroy(struct sim_stream *s)
{
    sim_clock_sync_stream(&s->clk); /* outstanding work first */
    stream_release(s->dev);
    base_free(s);
}

enum sim_rc sim_stream_sync(struct sim_stream *s, int32_t timeout_ms)
{
    if (FLT_HIT(SIM_STREAM_HANG))
        return SIM_ETIMEOUT;
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
    return sim_clock_done(sim_clock_stream_now(&s->clk));
}

enum sim_rc sim_device_sync(int32_t dev)
{
    if (FLT_HIT(SIM_STREAM_HANG))
        return SIM_ETIMEOUT;
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
                     const void *src, bool src_dev, size_t n, bool host_waits)
{
    enum sim_rc rc = sim_mem_copy(dst, dst_dev, src, src_dev, n);
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = s ? &s->clk : &sync_clk[dev];
    sim_clock_copy(clk, link_of(dst_dev, src_dev), n, host_waits || !s, NULL, NULL);
    return SIM_OK;
}

enum sim_rc sim_fill(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                     size_t n, bool host_waits)
{
    enum sim_rc rc = sim_mem_fill(dst, dst_dev, value, n);
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = s ? &s->clk : &sync_clk[dev];
    if (dst_dev)
        sim_clock_fill(clk, n, host_waits || !s, NULL, NULL);
    else
        sim_clock_copy(clk, SIM_LINK_HOST, n, true, "memset host", NULL);
    return SIM_OK;
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
    *out = e;
    return SIM_OK;
}

void sim_event_destroy(struct sim_event *e)
{
    pthread_mutex_lock(&lock);
    live_events[e->dev]--;
    pthread_mutex_unlock(&lock);
    base_free(e);
}

void sim_event_record(struct sim_event *e, struct sim_stream *s)
{
    atomic_store_explicit(&e->mark, sim_clock_record(&s->clk) + 1, memory_order_release);
}

void sim_event_reset(struct sim_event *e)
{
    atomic_store_explicit(&e->mark, 0, memory_order_release);
}

void sim_event_wait(struct sim_stream *s, const struct sim_event *e)
{
    /* Waiting on an event never recorded waits for nothing, as in CANN. */
    sim_ps at;
    if (recorded(e, &at))
        sim_clock_wait(&s->clk, at);
}

enum sim_rc sim_event_sync(struct sim_event *e, int32_t timeout_ms)
{
    if (FLT_HIT(SIM_EVENT_HANG))
        return SIM_ETIMEOUT;
    sim_ps at;
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


/* ---- Kernels ---- */

void sim_stream_kernel(struct sim_stream *s, uint64_t ps, const char *name, uint64_t *start,
                       uint64_t *end)
{
    sim_ps b = 0;
    *end = sim_clock_kernel(&s->clk, ps, name, &b);
    *start = b;
}
