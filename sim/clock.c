/*
 * clock.c - the simulator's timing model (see clock.h for the rules).
 *
 * One static model behind one mutex: the host clock, the host-side costs and
 * per device its converted parameters and resource free times. Parameters are
 * converted once, at open, to integers (picoseconds, and bandwidths in MB/s),
 * so every operation is integer arithmetic: equal call sequences give equal
 * times on every machine. Times saturate at UINT64_MAX instead of wrapping.
 * Streams live in the caller's memory; a per-device generation, bumped by
 * sim_clock_reset and by opening the device, lets a stream notice that its
 * tail is stale and restart from 0 without the model knowing its streams.
 * Trace hooks run after the mutex is released, behind one branch.
 */
#include "clock.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include "trace.h"

#define PS_PER_US 1e6
#define MBPS_PER_GBPS 1e3
/* Bounds that keep the integer conversions exact and overflow-free. */
#define MAX_US 1e9   /* 1000 s */
#define MAX_GBPS 1e6 /* 1 PB/s */

struct device {
    bool open;
    unsigned engines;
    uint64_t host_mbps; /* host link bandwidth per direction, 1e6 B/s */
    uint64_t hbm_mbps;
    sim_ps latency;
    sim_ps link_free[3]; /* indexed by enum sim_link H2D, D2H, HBM */
    sim_ps engine_free[SIM_CLOCK_MAX_ENGINES];
    uint64_t stage_bytes; /* pageable copies' bounce-buffer chunk (0: not staged) */
    uint64_t peer_mbps;   /* each fabric link, per direction (0: no fabric) */
    sim_ps peer_latency;
    sim_ps peer_free[SIM_MAX_DEVICES]; /* the link to each peer, this device sending */
    sim_ps last_end;  /* the latest end of any operation */
    uint64_t gen;     /* bumped by reset and open: older stream tails are stale */
    uint32_t next_id; /* the next stream id */
};

#define US_TO_PS(us) ((sim_ps)((us) * PS_PER_US + 0.5))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sim_ps host;
static sim_ps host_call = US_TO_PS(SIM_CLOCK_DEFAULT_HOST_CALL_US);
static sim_ps host_query = US_TO_PS(SIM_CLOCK_DEFAULT_HOST_QUERY_US);
static uint64_t memcpy_mbps = (uint64_t)(SIM_CLOCK_DEFAULT_MEMCPY_GBPS * MBPS_PER_GBPS + 0.5);
static struct device devs[SIM_MAX_DEVICES];

static const char *const default_names[] = {"memcpy H2D", "memcpy D2H", "memcpy D2D",
                                             "memcpy H2H", "memcpy peer"};

/* ---- arithmetic ---- */

static inline sim_ps add_ps(sim_ps a, sim_ps b)
{
    sim_ps r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline sim_ps max_ps(sim_ps a, sim_ps b)
{
    return a > b ? a : b;
}

/* bytes / (mbps * 1e6 B/s) in ps = bytes * 1e6 / mbps, rounded to nearest,
 * split so that no product overflows (mbps <= 1e9, so rem * 1e6 < 1e15). */
static sim_ps transfer_ps(uint64_t bytes, uint64_t mbps)
{
    uint64_t whole = bytes / mbps, rem = bytes % mbps;
    if (whole > UINT64_MAX / 1000000 - 1)
        return UINT64_MAX;
    return whole * 1000000 + (rem * 1000000 + mbps / 2) / mbps;
}

static bool in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

/* ---- state helpers (lock held) ---- */

static struct device *open_device(int32_t dev)
{
    if (dev < 0 || dev >= SIM_MAX_DEVICES || !devs[dev].open)
        return NULL;
    return &devs[dev];
}

static struct device *stream_device(const struct sim_clock_stream *s)
{
    return s ? open_device(s->device) : NULL;
}

/* s's tail, reset to 0 first when it predates the device's generation. */
static sim_ps tail_of(const struct device *d, struct sim_clock_stream *s)
{
    if (s->gen != d->gen) {
        s->gen = d->gen;
        s->tail = 0;
    }
    return s->tail;
}

/* ---- devices and streams ---- */

enum sim_rc sim_clock_device_open(int32_t dev, const struct sim_clock_params *p)
{
    if (dev < 0 || dev >= SIM_MAX_DEVICES || !p || !in_range(p->host_gbps, 1e-3, MAX_GBPS) ||
        !in_range(p->hbm_gbps, 1e-3, MAX_GBPS) || !in_range(p->latency_us, 0, MAX_US) ||
        !in_range(p->host_call_us, 0, MAX_US) || !in_range(p->host_query_us, 1e-6, MAX_US) ||
        !in_range(p->memcpy_gbps, 0, MAX_GBPS) ||
        (p->memcpy_gbps != 0 && p->memcpy_gbps < 1e-3) || p->copy_engines < 1 ||
        p->copy_engines > SIM_CLOCK_MAX_ENGINES || !in_range(p->peer_gbps, 0, MAX_GBPS) ||
        (p->peer_gbps != 0 && p->peer_gbps < 1e-3) || !in_range(p->peer_latency_us, 0, MAX_US))
        return SIM_EINVAL;
    pthread_mutex_lock(&lock);
    struct device *d = &devs[dev];
    if (d->open) {
        pthread_mutex_unlock(&lock);
        return SIM_EINVAL;
    }
    uint64_t gen = d->gen + 1;
    uint32_t next_id = d->next_id;
    *d = (struct device){
        .open = true,
        .engines = p->copy_engines,
        .host_mbps = (uint64_t)(p->host_gbps * MBPS_PER_GBPS + 0.5),
        .hbm_mbps = (uint64_t)(p->hbm_gbps * MBPS_PER_GBPS + 0.5),
        .latency = US_TO_PS(p->latency_us),
        .stage_bytes = p->stage_bytes,
        .peer_mbps = (uint64_t)(p->peer_gbps * MBPS_PER_GBPS + 0.5),
        .peer_latency = US_TO_PS(p->peer_latency_us),
        .gen = gen,
        .next_id = next_id,
    };
    host_call = US_TO_PS(p->host_call_us);
    host_query = US_TO_PS(p->host_query_us);
    if (host_query == 0)
        host_query = 1;
    memcpy_mbps = p->memcpy_gbps > 0
        ? (uint64_t)(p->memcpy_gbps * MBPS_PER_GBPS + 0.5)
        : (uint64_t)(SIM_CLOCK_DEFAULT_MEMCPY_GBPS * MBPS_PER_GBPS + 0.5);
    pthread_mutex_unlock(&lock);
    return SIM_OK;
}

void sim_clock_device_close(int32_t dev)
{
    if (dev < 0 || dev >= SIM_MAX_DEVICES)
        return;
    pthread_mutex_lock(&lock);
    devs[dev].open = false;
    pthread_mutex_unlock(&lock);
}

enum sim_rc sim_clock_stream_init(int32_t dev, struct sim_clock_stream *s)
{
    if (!s)
        return SIM_EINVAL;
    pthread_mutex_lock(&lock);
    struct device *d = open_device(dev);
    if (d) {
        *s = (struct sim_clock_stream){
            .device = dev, .id = d->next_id++, .tail = 0, .gen = d->gen};
    }
    pthread_mutex_unlock(&lock);
    return d ? SIM_OK : SIM_EINVAL;
}

/* ---- operations ---- */

/* The earliest free copy engine of d (lock held). */
static unsigned free_engine(const struct device *d)
{
    unsigned e = 0;
    for (unsigned i = 1; i < d->engines; i++)
        if (d->engine_free[i] < d->engine_free[e])
            e = i;
    return e;
}

/* One transfer on a device link (lock held): it starts no earlier than
 * `after`, s's tail, the link (*link_free) and a copy engine of d, and
 * lasts lat + dur; the link, the engine and s are busy until it ends. */
static sim_ps transfer(struct device *d, struct sim_clock_stream *s, sim_ps *link_free,
                       sim_ps after, sim_ps lat, sim_ps dur, sim_ps *start_out,
                       unsigned *engine_out)
{
    sim_ps start = max_ps(max_ps(tail_of(d, s), after), *link_free);
    unsigned e = free_engine(d);
    start = max_ps(start, d->engine_free[e]);
    sim_ps end = add_ps(start, add_ps(lat, dur));
    *link_free = end;
    d->engine_free[e] = end;
    d->last_end = max_ps(d->last_end, end);
    s->tail = end;
    *start_out = start;
    *engine_out = e;
    return end;
}

/* A copy or fill on one of the device's own links (lock held): a copy
 * inside HBM reads and writes its bytes (`traffic` 2), a fill only writes
 * them (1); host links carry the bytes once. */
static sim_ps device_op(struct device *d, struct sim_clock_stream *s, enum sim_link link,
                        uint64_t bytes, unsigned traffic, sim_ps *start_out, unsigned *engine_out)
{
    host = add_ps(host, host_call);
    uint64_t mbps = link == SIM_LINK_HBM ? d->hbm_mbps : d->host_mbps;
    sim_ps dur = transfer_ps(bytes, mbps);
    if (traffic == 2)
        dur = add_ps(dur, dur);
    return transfer(d, s, &d->link_free[link], host, d->latency, dur, start_out, engine_out);
}

/* After a device operation (lock held, released here): the host waits for
 * it when asked, and the trace records it. */
static sim_ps finish_op(struct sim_clock_stream *s, enum sim_link link, uint64_t bytes,
                        bool host_waits, const char *name, sim_ps begin, sim_ps end,
                        unsigned engine, sim_ps *start)
{
    sim_ps waited_from = host;
    if (host_waits)
        host = max_ps(host, end);
    int32_t dev = s ? s->device : -1;
    uint32_t id = s ? s->id : SIM_TRACE_NO_STREAM;
    pthread_mutex_unlock(&lock);

    if (start)
        *start = begin;
    if (sim_trace_enabled()) {
        if (!name)
            name = default_names[link];
        sim_trace_op(dev, id, link, engine, name, begin, end, bytes);
        if (host_waits && end > waited_from)
            sim_trace_host(name, waited_from, end);
    }
    return end;
}

/* A precondition failed (lock held, released here): no effect. */
static sim_ps no_op(sim_ps *start)
{
    sim_ps now = host;
    pthread_mutex_unlock(&lock);
    if (start)
        *start = now;
    return now;
}

sim_ps sim_clock_copy(struct sim_clock_stream *s, enum sim_link link, uint64_t bytes,
                      bool host_waits, const char *name, sim_ps *start)
{
    sim_ps begin, end;
    unsigned engine = 0;

    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    if (d && link <= SIM_LINK_HBM) {
        end = device_op(d, s, link, bytes, link == SIM_LINK_HBM ? 2 : 1, &begin, &engine);
    } else if (link == SIM_LINK_HOST && (d || !s)) {
        host = add_ps(host, host_call);
        begin = d ? max_ps(host, tail_of(d, s)) : host;
        end = add_ps(begin, transfer_ps(bytes, memcpy_mbps));
        if (d) {
            s->tail = end;
            d->last_end = max_ps(d->last_end, end);
        }
        host_waits = false; /* the host did the work itself: it is at end already */
        host = end;
    } else {
        return no_op(start);
    }
    return finish_op(s, link, bytes, host_waits, name, begin, end, engine, start);
}

sim_ps sim_clock_copy_staged(struct sim_clock_stream *s, enum sim_link link, uint64_t bytes,
                             const char *name, sim_ps *start)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    if (!d || (link != SIM_LINK_H2D && link != SIM_LINK_D2H))
        return no_op(start);
    if (d->stage_bytes == 0) {
        sim_ps begin;
        unsigned engine;
        sim_ps end = device_op(d, s, link, bytes, 1, &begin, &engine);
        return finish_op(s, link, bytes, true, name, begin, end, engine, start);
    }
    /* The implicit synchronisation: the host waits for s first. */
    host = max_ps(add_ps(host, host_call), tail_of(d, s));
    sim_ps issued = host, begin = 0, end = host;
    sim_ps buf_free[2] = {host, host}; /* when each bounce buffer may be refilled */
    unsigned engine = 0;
    uint64_t left = bytes, i = 0;
    do {
        uint64_t c = left < d->stage_bytes ? left : d->stage_bytes;
        sim_ps *buf = &buf_free[i & 1], first;
        if (link == SIM_LINK_H2D) {
            /* the host fills a free buffer, then the engine sends it */
            host = add_ps(max_ps(host, *buf), transfer_ps(c, memcpy_mbps));
            end = transfer(d, s, &d->link_free[link], host, d->latency,
                           transfer_ps(c, d->host_mbps), &first, &engine);
            *buf = end;
        } else {
            /* the engine fills a buffer the host emptied, then the host copies it out */
            end = transfer(d, s, &d->link_free[link], max_ps(issued, *buf), d->latency,
                           transfer_ps(c, d->host_mbps), &first, &engine);
            host = add_ps(max_ps(host, end), transfer_ps(c, memcpy_mbps));
            *buf = host;
            end = host;
        }
        if (i++ == 0)
            begin = first;
        left -= c;
    } while (left);
    return finish_op(s, link, bytes, true, name, begin, end, engine, start);
}

sim_ps sim_clock_copy_peer(struct sim_clock_stream *s, int32_t src_dev, int32_t dst_dev,
                           uint64_t bytes, bool host_waits, const char *name, sim_ps *start)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s), *from = open_device(src_dev);
    if (!d || !from || !open_device(dst_dev) || src_dev == dst_dev)
        return no_op(start);
    sim_ps begin, end;
    unsigned engine;
    enum sim_link link = SIM_LINK_PEER;
    if (from->peer_mbps == 0) {
        /* No fabric: the issuing device's HBM, the bytes once. */
        end = device_op(d, s, SIM_LINK_HBM, bytes, 1, &begin, &engine);
        link = SIM_LINK_HBM;
    } else {
        host = add_ps(host, host_call);
        end = transfer(d, s, &from->peer_free[dst_dev], host, from->peer_latency,
                       transfer_ps(bytes, from->peer_mbps), &begin, &engine);
        from->last_end = max_ps(from->last_end, end);
    }
    return finish_op(s, link, bytes, host_waits, name, begin, end, engine, start);
}

sim_ps sim_clock_fill(struct sim_clock_stream *s, uint64_t bytes, bool host_waits,
                      const char *name, sim_ps *start)
{
    sim_ps begin, end;
    unsigned engine = 0;
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    if (!d)
        return no_op(start);
    end = device_op(d, s, SIM_LINK_HBM, bytes, 1, &begin, &engine);
    return finish_op(s, SIM_LINK_HBM, bytes, host_waits, name ? name : "memset", begin, end,
                     engine, start);
}

sim_ps sim_clock_record(struct sim_clock_stream *s)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps t = host;
    if (d) {
        host = add_ps(host, host_call);
        t = max_ps(tail_of(d, s), host);
        s->tail = t;
    }
    pthread_mutex_unlock(&lock);
    return t;
}

sim_ps sim_clock_wait(struct sim_clock_stream *s, sim_ps t)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps tail = 0;
    if (d) {
        host = add_ps(host, host_call);
        tail = max_ps(tail_of(d, s), t);
        s->tail = tail;
    }
    pthread_mutex_unlock(&lock);
    return tail;
}

/* host = max(host, t) (lock held, released here); traces the host's wait. */
static sim_ps block_host_until(sim_ps t, const char *what)
{
    sim_ps from = host;
    host = max_ps(host, t);
    sim_ps now = host;
    pthread_mutex_unlock(&lock);
    if (now > from && sim_trace_enabled())
        sim_trace_host(what, from, now);
    return now;
}

sim_ps sim_clock_sync_stream(struct sim_clock_stream *s)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    return block_host_until(d ? tail_of(d, s) : 0, "synchronize stream");
}

/* The host waits until t, at most limit (lock held, released here). */
static sim_ps host_wait(sim_ps t, sim_ps limit, bool *timed_out, const char *what,
                        const char *what_late)
{
    sim_ps until = t;
    bool late = limit != SIM_PS_FOREVER && t > add_ps(host, limit);
    if (late)
        until = add_ps(host, limit);
    if (timed_out)
        *timed_out = late;
    return block_host_until(until, late ? what_late : what);
}

sim_ps sim_clock_host_wait(sim_ps t, sim_ps limit, bool *timed_out)
{
    pthread_mutex_lock(&lock);
    return host_wait(t, limit, timed_out, "wait", "wait (timed out)");
}

sim_ps sim_clock_sync_until(sim_ps t, sim_ps limit, bool *timed_out)
{
    pthread_mutex_lock(&lock);
    return host_wait(t, limit, timed_out, "synchronize device", "synchronize device (timed out)");
}

bool sim_clock_done(sim_ps t)
{
    pthread_mutex_lock(&lock);
    host = add_ps(host, host_query);
    bool done = host >= t;
    pthread_mutex_unlock(&lock);
    return done;
}

/* ---- reading and resetting ---- */

sim_ps sim_clock_host(void)
{
    pthread_mutex_lock(&lock);
    sim_ps t = host;
    pthread_mutex_unlock(&lock);
    return t;
}

sim_ps sim_clock_device_now(int32_t dev)
{
    pthread_mutex_lock(&lock);
    struct device *d = open_device(dev);
    sim_ps t = d ? d->last_end : 0;
    pthread_mutex_unlock(&lock);
    return t;
}

sim_ps sim_clock_stream_now(struct sim_clock_stream *s)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps t = d ? tail_of(d, s) : 0;
    pthread_mutex_unlock(&lock);
    return t;
}

sim_ps sim_clock_next_start(struct sim_clock_stream *s)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps t = max_ps(add_ps(host, host_call), d ? tail_of(d, s) : 0);
    pthread_mutex_unlock(&lock);
    return t;
}

void sim_clock_reset(void)
{
    pthread_mutex_lock(&lock);
    host = 0;
    for (int i = 0; i < SIM_MAX_DEVICES; i++) {
        struct device *d = &devs[i];
        for (size_t l = 0; l < sizeof d->link_free / sizeof d->link_free[0]; l++)
            d->link_free[l] = 0;
        for (unsigned e = 0; e < SIM_CLOCK_MAX_ENGINES; e++)
            d->engine_free[e] = 0;
        for (int p = 0; p < SIM_MAX_DEVICES; p++)
            d->peer_free[p] = 0;
        d->last_end = 0;
        d->gen++;
    }
    pthread_mutex_unlock(&lock);
}

/* ---- streams held by a wait (queue.c), and aborted streams ---- */

sim_ps sim_clock_release(struct sim_clock_stream *s, sim_ps t)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps tail = 0;
    if (d) {
        tail = max_ps(tail_of(d, s), t);
        s->tail = tail;
    }
    pthread_mutex_unlock(&lock);
    return tail;
}

sim_ps sim_clock_abort(struct sim_clock_stream *s)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps tail = 0;
    if (d) {
        tail = tail_of(d, s);
        if (tail > host)
            tail = host;
        s->tail = tail;
    }
    pthread_mutex_unlock(&lock);
    return tail;
}

/* ---- kernels (built-in operators, kernels.c) ---- */

sim_ps sim_clock_kernel(struct sim_clock_stream *s, sim_ps duration, const char *name,
                        const void *const *blocks, const size_t *bytes, int n_blocks,
                        const char *tensors, sim_ps *start)
{
    pthread_mutex_lock(&lock);
    struct device *d = stream_device(s);
    sim_ps begin = host, end = host;
    if (d) {
        host = add_ps(host, host_call);
        begin = max_ps(tail_of(d, s), host);
        end = add_ps(begin, duration);
        s->tail = end;
        d->last_end = max_ps(d->last_end, end);
    }
    int32_t dev = s ? s->device : -1;
    pthread_mutex_unlock(&lock);
    if (start)
        *start = begin;
    if (d && sim_trace_enabled()) {
        char arg[160];
        int at = 0;
        for (int i = 0; i < n_blocks && at >= 0 && (size_t)at < sizeof arg; i++)
            at += snprintf(arg + at, sizeof arg - (size_t)at, "%s[%p, %p)", i ? ", " : "",
                           blocks[i], (const void *)((const char *)blocks[i] + bytes[i]));
        sim_trace_kernel(dev, s->id, name ? name : "kernel", begin, end, n_blocks ? arg : NULL,
                         tensors);
    }
    return end;
}
