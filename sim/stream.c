/*
 * stream.c - simulated streams, the tasks a program puts on them, and
 * events.
 *
 * A stream is an in-order queue on its device's timeline (clock.c). Every
 * task enqueued on it (copies, fills, 2-D copies, 32-bit fills, managed
 * migrations, cache operations and their barrier waits, event records and
 * waits, device tasks, operators, host tasks; notify, counting notify and
 * value waits and writes go straight to queue.c) waits
 * its turn: on a stream nothing holds its turn is now, and it runs through
 * task.c at once, its bytes moved and its simulated time taken (so data is
 * right for any correctly synchronised program); on a stream a wait holds
 * it joins the stream's queue (queue.c) and runs when the wait is released.
 * Either way a blocking host task ahead of it on the stream runs first
 * (task.c). Synchronous copies and fills run on a hidden per-device stream
 * and make the host wait; asynchronous ones from pageable host memory do
 * too, as on the real runtime. An event is the simulated time at which the
 * work it captured completes; an IPC event's state is shared through
 * ipc.c. The profile caps streams and events per device as the device does.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "internal.h"
#include "queue.h"
#include "trace.h"
#include "sim.h"

static bool recorded(const struct sim_event *e, sim_ps *at)
{
    sim_ps m = sim_ev_mark(e);
    *at = m ? m - 1 : 0; /* pending: a time the host never reaches */
    return m != 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned live_streams[SIM_MAX_DEVICES], live_events[SIM_MAX_DEVICES];
static uint32_t next_event_id[SIM_MAX_DEVICES];

static uint32_t self_thread(void)
{
    return (uint32_t)(uint64_t)pthread_self();
}

/* ---- Streams ---- */

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
    sim_hb_stream_init(&s->hb, dev);
    if (sim_trace_enabled())
        sim_trace_stream(dev, s->clk.id, s);
    *out = s;
    return SIM_OK;
}

void sim_stream_destroy(struct sim_stream *s)
{
    sim_queue_drop(s); /* what a wait still held is dropped */
    sim_clock_sync_stream(&s->clk); /* outstanding work first */
    sim_hb_stream_fini(&s->hb);
    stream_release(s->dev);
    base_free(s);
}

enum sim_rc sim_stream_sync(struct sim_stream *s, int32_t timeout_ms)
{
    if (FLT_HIT(SIM_STREAM_HANG)) {
        uint32_t n = atomic_load(&s->tasks);
        sim_task_fault(SIM_FAULT_HANG, s->dev, s->clk.id, n ? n - 1 : 0,
                       atomic_load(&s->last_thread));
        return SIM_ETIMEOUT;
    }
    if (sim_blocking_runner(s))
        return SIM_ETIMEOUT;
    bool held = false;
    enum sim_rc rc = sim_queue_sync(s, timeout_ms, &held);
    if (held)
        return rc;
    bool late = false;
    sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
    sim_clock_host_wait(sim_clock_stream_now(&s->clk), limit, &late);
    if (late)
        return SIM_ETIMEOUT;
    sim_hb_host_learns_stream(s); /* the host waited for all of s's work */
    return SIM_OK;
}

uint64_t sim_stream_now(struct sim_stream *s)
{
    return sim_clock_stream_now(&s->clk);
}

bool sim_stream_done(struct sim_stream *s)
{
    sim_queue_poll(); /* a record another process made since */
    if (sim_stream_queueing(s) || atomic_load(&s->blocking) != 0) {
        sim_clock_done(SIM_PS_FOREVER); /* the host still pays the query */
        return false;
    }
    bool done = sim_clock_done(sim_clock_stream_now(&s->clk));
    if (done)
        sim_hb_host_learns_stream(s); /* a query that found it complete */
    return done;
}

enum sim_rc sim_streams_sync(struct sim_stream *const *ss, size_t n, int32_t timeout_ms)
{
    if (FLT_HIT(SIM_STREAM_HANG))
        return SIM_ETIMEOUT;
    for (size_t i = 0; i < n; i++)
        if (sim_blocking_runner(ss[i]))
            return SIM_ETIMEOUT;
    enum sim_rc rc = sim_queue_sync_set(ss, n, timeout_ms);
    if (rc != SIM_OK)
        return rc;
    sim_ps end = 0;
    for (size_t i = 0; i < n; i++) {
        sim_ps t = sim_clock_stream_now(&ss[i]->clk);
        end = t > end ? t : end;
    }
    bool late = false;
    sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
    sim_clock_sync_until(end, limit, &late);
    if (late)
        return SIM_ETIMEOUT;
    for (size_t i = 0; i < n; i++)
        sim_hb_host_learns_stream(ss[i]); /* the host waited for all their work */
    return SIM_OK;
}

void sim_stream_abort(struct sim_stream *s)
{
    sim_queue_drop(s);
    sim_clock_abort(&s->clk);
}

/* ---- Tasks: each waits its turn ----
 *
 * The turn of a task on stream s: now when nothing holds s, else in s's
 * queue (a blocking host task ahead of it holds s until the host has run
 * it: no enqueue ever waits). The fast path is two atomic loads of s, then
 * the task itself. */

/* Whether t must join s's queue, or s captures and records it (then it
 * is submitted there: *rc). */
static bool queued(struct sim_stream *s, const struct sim_task *t, enum sim_rc *rc)
{
    if (sim_stream_recording(s)) {
        *rc = sim_record_task(s, t);
        return true;
    }
    if (!sim_stream_queueing(s))
        return false;
    *rc = sim_queue_submit(s, t);
    return true;
}

enum sim_rc sim_copy(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                     const void *src, bool src_dev, size_t n, unsigned flags)
{
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_COPY, .dst = dst, .src = src, .dst_dev = dst_dev,
                         .src_dev = src_dev, .n = n, .flag = flags};
    if (s && queued(s, &t, &rc))
        return rc;
    rc = sim_copy_run(dev, s, dst, dst_dev, src, src_dev, n, flags);
    if (rc == SIM_OK && s && dst_dev)
        sim_queue_written(s);
    return rc;
}

enum sim_rc sim_fill(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                     size_t n, bool host_waits)
{
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_FILL, .dst = dst, .dst_dev = dst_dev, .n = n,
                         .fill = value, .flag = host_waits};
    if (s && queued(s, &t, &rc))
        return rc;
    rc = sim_fill_run(dev, s, dst, dst_dev, value, n, host_waits);
    if (rc == SIM_OK && s && dst_dev)
        sim_queue_written(s);
    return rc;
}

enum sim_rc sim_copy2d(int32_t dev, struct sim_stream *s, void *dst, size_t dpitch, bool dst_dev,
                       const void *src, size_t spitch, bool src_dev, size_t width,
                       size_t height, unsigned flags)
{
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_COPY2D, .dst = dst, .dpitch = dpitch, .src = src,
                         .spitch = spitch, .dst_dev = dst_dev, .src_dev = src_dev, .n = width,
                         .rows = height, .flag = flags};
    if (s && queued(s, &t, &rc))
        return rc;
    rc = sim_copy2d_run(dev, s, dst, dpitch, dst_dev, src, spitch, src_dev, width, height, flags);
    if (rc == SIM_OK && s && dst_dev)
        sim_queue_written(s);
    return rc;
}

enum sim_rc sim_fill32(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                       uint32_t value, size_t words, bool host_waits)
{
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_FILL32, .dst = dst, .dst_dev = dst_dev, .n = words * 4,
                         .value = value, .flag = host_waits};
    /* The host fills acl host memory itself, at once (unless captured). */
    if (s && (dst_dev || sim_stream_recording(s)) && queued(s, &t, &rc))
        return rc;
    rc = sim_fill32_run(dev, s, dst, dst_dev, value, words, host_waits);
    if (rc == SIM_OK && s && dst_dev)
        sim_queue_written(s);
    return rc;
}

void sim_stream_migrate(struct sim_stream *s, uint64_t bytes, bool to_device)
{
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_MIGRATE, .n = bytes, .flag = to_device};
    if (!queued(s, &t, &rc))
        sim_clock_copy(&s->clk, to_device ? SIM_LINK_H2D : SIM_LINK_D2H, bytes, false,
                       "managed prefetch", NULL);
}

void sim_cmo(struct sim_stream *s, void *ptr, size_t size, uint32_t barrier)
{
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_CMO, .dst = ptr, .dst_dev = true, .n = size,
                         .value = barrier};
    if (!queued(s, &t, &rc) || rc != SIM_OK)
        sim_task_run(s, &t, false); /* now (a queue without host memory: out of order) */
}

void sim_cmo_barrier_wait(struct sim_stream *s, const uint32_t *ids, unsigned n)
{
    /* The operations done under the ids so far: their last end. */
    sim_ps t = sim_task_barrier_time(s->dev, ids, n);
    struct sim_task task = {.kind = SIM_T_WAIT_UNTIL, .value = t};
    enum sim_rc rc = SIM_OK;
    if (!queued(s, &task, &rc) || rc != SIM_OK)
        sim_clock_wait(&s->clk, t);
}

enum sim_rc sim_devtask(int32_t dev, struct sim_stream *s, const struct sim_devtask *b)
{
    (void)dev;
    enum sim_rc rc = SIM_OK;
    struct sim_task t = {.kind = SIM_T_DEVTASK, .obj = (void *)b};
    if (queued(s, &t, &rc))
        return rc;
    rc = sim_devtask_run(s, b);
    if (rc == SIM_OK)
        sim_queue_written(s);
    return rc;
}

/* An operator on a stream that updates a task group: it replaces the
 * group's next task when s reaches it (the replays ordered after that run
 * it); it runs nowhere itself. */
static enum sim_rc group_update(struct sim_stream *s, struct sim_group *g,
                                const struct sim_op *op)
{
    struct sim_task t = {.kind = SIM_T_GROUP_SET, .obj = g, .value = s->upd_next++,
                         .src = op};
    enum sim_rc rc = SIM_OK;
    if (queued(s, &t, &rc))
        return rc;
    struct sim_task *q = sim_task_keep(&t, false);
    if (!q)
        return SIM_EHOSTMEM;
    sim_group_set(g, q);
    sim_task_free_list(q);
    return SIM_OK;
}

enum sim_rc sim_op_run(int32_t dev, struct sim_stream *s, const struct sim_op *op,
                       uint64_t *start, uint64_t *end)
{
    struct sim_group *upd = atomic_load_explicit(&s->upd, memory_order_acquire);
    if (upd) {
        *start = *end = 0;
        return group_update(s, upd, op);
    }
    if (sim_stream_recording(s)) {
        *start = *end = SIM_PS_PENDING; /* it runs when the graph is launched */
        struct sim_task t = {.kind = SIM_T_OP, .dev = dev, .obj = (void *)op};
        return sim_record_task(s, &t);
    }
    if (sim_stream_queueing(s))
        return sim_queue_op(dev, s, op, start, end);
    enum sim_rc rc = sim_op_exec(dev, s, op, start, end);
    if (rc == SIM_OK)
        sim_queue_written(s);
    return rc;
}

/* ---- Host tasks (callbacks) and device faults ---- */

enum sim_rc sim_host_task(struct sim_stream *s, bool blocking, uint64_t runner, sim_ready_fn fn,
                          void *arg, uint64_t *ready, uint64_t *ticket)
{
    if (sim_stream_recording(s))
        return SIM_EUNSUPPORTED; /* the ACL layer runs no callbacks in a capture */
    sim_task_begin(s);
    *ticket = 0;
    if (blocking || sim_stream_queueing(s))
        return sim_queue_host_task(s, blocking, runner, fn, arg, ready, ticket);
    *ready = sim_host_run(s, false, runner, false);
    return SIM_OK;
}

void sim_host_task_done(struct sim_stream *s, uint64_t ticket, bool blocking)
{
    if (ticket ? sim_queue_host_done(s, ticket) : blocking)
        sim_blocking_done(s);
}

void sim_stream_ids(struct sim_stream *s, int32_t *dev, uint32_t *id)
{
    *dev = s->dev;
    *id = s->clk.id;
}

void sim_stream_fault(struct sim_stream *s, enum sim_fault_kind kind)
{
    uint32_t task = sim_task_begin(s);
    sim_task_fault(kind, s->dev, s->clk.id, task, self_thread());
}

/* ---- Events ---- */

/* A new event of dev: a slot of the device's, and its IPC state (a new one
 * for SIM_EVENT_IPC, the one named `name` for an import). The name is
 * checked before the slot, as CANN's runtime opens the handle first. */
static enum sim_rc event_new(int32_t dev, uint32_t flags, const char *name,
                             struct sim_event **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    struct sim_event *e = base_calloc(1, sizeof *e);
    if (!e)
        return SIM_EHOSTMEM;
    e->dev = dev;
    e->flags = flags;
    e->mark = &e->own;
    enum sim_rc rc = name ? sim_ipc_attach_name(e, name) : SIM_OK;
    if (rc != SIM_OK) {
        base_free(e);
        return rc;
    }
    pthread_mutex_lock(&lock);
    bool full = live_events[dev] >= p->max_events;
    if (!full)
        live_events[dev]++;
    pthread_mutex_unlock(&lock);
    if (full || (!name && (flags & SIM_EVENT_IPC) && sim_ipc_attach_new(e) != SIM_OK)) {
        if (!full) {
            pthread_mutex_lock(&lock);
            live_events[dev]--;
            pthread_mutex_unlock(&lock);
        }
        sim_ipc_detach(e);
        base_free(e);
        return full ? SIM_ENOMEM : SIM_EHOSTMEM;
    }
    pthread_mutex_lock(&lock);
    e->id = next_event_id[dev]++;
    pthread_mutex_unlock(&lock);
    *out = e;
    return SIM_OK;
}

enum sim_rc sim_event_create(int32_t dev, uint32_t flags, struct sim_event **out)
{
    return event_new(dev, flags, NULL, out);
}

enum sim_rc sim_event_import(int32_t dev, const char *name, struct sim_event **out)
{
    return event_new(dev, SIM_EVENT_IPC, name, out);
}

void sim_event_destroy(struct sim_event *e)
{
    sim_queue_forget(e);
    sim_record_forget(e);
    sim_ipc_detach(e);
    pthread_mutex_lock(&lock);
    live_events[e->dev]--;
    pthread_mutex_unlock(&lock);
    sim_hb_vc_free(&e->hb);
    base_free(e);
}

void sim_event_record(struct sim_event *e, struct sim_stream *s)
{
    if (sim_stream_recording(s)) {
        struct sim_task t = {.kind = SIM_T_RECORD, .obj = e};
        sim_record_task(s, &t);
        return;
    }
    uint32_t task = sim_task_begin(s);
    atomic_store_explicit(&e->rec_stream, s->clk.id, memory_order_relaxed);
    atomic_store_explicit(&e->rec_task, task, memory_order_relaxed);
    atomic_store_explicit(&e->rec_thread, atomic_load(&s->last_thread), memory_order_relaxed);
    sim_queue_record(e, s);
}

void sim_event_reset(struct sim_event *e, struct sim_stream *s)
{
    /* A task of s, as CANN's event reset task: in its turn. */
    struct sim_task t = {.kind = SIM_T_EVENT_RESET, .obj = e};
    enum sim_rc rc = SIM_OK;
    if (s && queued(s, &t, &rc) && rc == SIM_OK)
        return;
    sim_ev_set(e, 0);
}

void sim_event_wait(struct sim_stream *s, const struct sim_event *e)
{
    /* Waiting on an event never recorded waits for nothing, as in CANN. */
    if (sim_stream_recording(s)) {
        struct sim_task t = {.kind = SIM_T_WAIT_EVENT, .obj = (void *)e};
        sim_record_task(s, &t);
        return;
    }
    sim_task_begin(s);
    sim_queue_wait_event(s, e);
}

/* The host saw e's recorded work complete: it is ordered after it (a
 * record by another process: after everything this one knows of). */
static void event_learned(const struct sim_event *e)
{
    if (e->ipc && !sim_ipc_mine(e->ipc))
        sim_hb_host_learns_all();
    else
        sim_hb_host_learns(&e->hb);
}

enum sim_rc sim_event_sync(struct sim_event *e, int32_t timeout_ms)
{
    sim_ps at;
    if (FLT_HIT(SIM_EVENT_HANG)) {
        if (recorded(e, &at))
            sim_task_fault(SIM_FAULT_HANG, e->dev, atomic_load(&e->rec_stream),
                           atomic_load(&e->rec_task), atomic_load(&e->rec_thread));
        return SIM_ETIMEOUT;
    }
    enum sim_rc rc = SIM_OK;
    if (sim_ev_mark(e) == SIM_MARK_PENDING) {
        rc = sim_queue_event_sync(e, timeout_ms);
    } else if (recorded(e, &at)) {
        bool late = false;
        sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
        sim_clock_host_wait(at, limit, &late);
        rc = late ? SIM_ETIMEOUT : SIM_OK;
    }
    if (rc == SIM_OK)
        event_learned(e);
    return rc;
}

bool sim_event_done(const struct sim_event *e)
{
    sim_ps at;
    bool done = !recorded(e, &at) || sim_clock_done(at);
    if (done)
        event_learned(e);
    return done;
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

/* ---- For stream-ordered pools (pool.c) ---- */

int32_t sim_stream_device(struct sim_stream *s)
{
    return s->clk.device;
}

void sim_stream_wait_until(struct sim_stream *s, uint64_t t)
{
    /* No wait for a blocking host task here: pool.c calls this under its
     * lock, which the host task's own pool calls may need. */
    struct sim_task task = {.kind = SIM_T_WAIT_UNTIL, .value = t};
    if (!sim_stream_queueing(s) || sim_queue_submit(s, &task) != SIM_OK)
        sim_clock_wait(&s->clk, t);
}

/* ---- Replays of captured work (graph.c) ---- */

enum sim_rc sim_stream_replay(struct sim_stream *s, const struct sim_task *t, bool live)
{
    enum sim_rc rc = SIM_OK;
    switch (t->kind) {
    case SIM_T_NOP:
    case SIM_T_HOST:
    case SIM_T_LABEL:
        return SIM_OK;
    case SIM_T_RECORD:
        sim_event_record(t->obj, s);
        return SIM_OK;
    case SIM_T_WAIT_EVENT:
        sim_event_wait(s, t->obj);
        return SIM_OK;
    case SIM_T_NOTIFY_RECORD:
        sim_notify_record(t->obj, s);
        return SIM_OK;
    case SIM_T_NOTIFY_WAIT:
        sim_notify_wait(t->obj, s, (uint32_t)t->value);
        return SIM_OK;
    case SIM_T_VALUE_WRITE:
        sim_value_write(s, t->dst, t->value);
        return SIM_OK;
    case SIM_T_VALUE_WAIT:
        sim_value_wait(s, t->src, t->value, t->flag);
        return SIM_OK;
    case SIM_T_CNT_RECORD:
        sim_cnt_record(t->obj, s, t->flag, (uint32_t)t->value);
        return SIM_OK;
    case SIM_T_CNT_WAIT:
        sim_cnt_wait(t->obj, s, t->flag & 0xffu, (uint32_t)t->value, (t->flag >> 8) != 0,
                     (uint32_t)(t->value >> 32));
        return SIM_OK;
    case SIM_T_CNT_RESET:
        sim_cnt_reset(t->obj, s);
        return SIM_OK;
    case SIM_T_EVENT_RESET:
        sim_event_reset(t->obj, s);
        return SIM_OK;
    case SIM_T_GROUP:
    case SIM_T_COND:
        /* expanded when s reaches it (queue.c) */
        return sim_queue_submit(s, t);
    default:
        break;
    }
    /* Data work runs as a queued task does: on the memory of its moment,
     * leaving alone what was freed since it was captured. */
    if (queued(s, t, &rc))
        return rc;
    if (live ? sim_task_run_live(s, t) : sim_task_run(s, t, false))
        sim_queue_written(s);
    return SIM_OK;
}
