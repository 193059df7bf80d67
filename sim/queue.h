/*
 * queue.h - what stream.c and queue.c share: the stream and event objects,
 * and the queue of work held behind a wait (sim.h explains the model).
 */
#ifndef ACLSIM_SIM_QUEUE_H_
#define ACLSIM_SIM_QUEUE_H_

#include <stdatomic.h>
#include "clock.h"
#include "sim.h"

struct sim_stream {
    int32_t dev;
    struct sim_clock_stream clk;
    _Atomic uint64_t prop[SIM_SP_COUNT];
    /* Host tasks (callbacks, stream.c) and device faults. */
    _Atomic uint32_t tasks;       /* tasks enqueued so far: the next task's id */
    _Atomic uint32_t last_thread; /* who enqueued the last one (low 32 bits) */
    _Atomic unsigned blocking;    /* blocking host tasks not yet run */
    _Atomic uint64_t runner;      /* the thread that runs them */
};

/* An event's state is one atomic word, so a record on one thread and
 * queries, waits and syncs on others see it whole: 0 when never recorded
 * (or reset), SIM_MARK_PENDING while its record is held behind a wait,
 * else the completion time of the captured work plus one. */
#define SIM_MARK_PENDING UINT64_MAX
struct sim_ipc;
struct sim_event {
    int32_t dev;
    uint32_t flags;
    uint32_t id;
    _Atomic sim_ps own;    /* the state of an event of this process only */
    _Atomic sim_ps *mark;  /* &own, or the state an IPC event shares (ipc.c) */
    struct sim_ipc *ipc;   /* NULL unless ACL_EVENT_IPC */
    /* The record that set mark: its stream, task and thread (device faults). */
    _Atomic uint32_t rec_stream, rec_task, rec_thread;
};

/* ipc.c: whether the state of an IPC event was last set by this process
 * (then it is a time of this process's timeline); note that it is. */
bool sim_ipc_mine(const struct sim_ipc *ipc);
void sim_ipc_note_writer(struct sim_ipc *ipc);

/* The event's state as this process sees it. Another process's record of
 * an IPC event is a time of that process's own timeline, which this one
 * cannot compare: it counts as complete from the start (time 0), even a
 * record still held behind a wait there. */
static inline sim_ps sim_ev_mark(const struct sim_event *e)
{
    sim_ps m = atomic_load_explicit(e->mark, memory_order_acquire);
    if (e->ipc && m != 0 && !sim_ipc_mine(e->ipc))
        return 1;
    return m;
}

static inline void sim_ev_set(struct sim_event *e, sim_ps v)
{
    if (e->ipc)
        sim_ipc_note_writer(e->ipc);
    atomic_store_explicit(e->mark, v, memory_order_release);
}

/* Whether a and b are one event's state (an IPC event and its imports). */
static inline bool sim_ev_same(const struct sim_event *a, const struct sim_event *b)
{
    return a->mark == b->mark;
}

/* ipc.c: the IPC part of an event being created (SIM_EVENT_IPC: a new
 * shared state) or destroyed. */
enum sim_rc sim_ipc_attach_new(struct sim_event *e);
void sim_ipc_detach(struct sim_event *e);

/* One operation enqueued on a stream. */
enum sim_task_kind {
    SIM_T_NOP,
    SIM_T_COPY,
    SIM_T_FILL,
    SIM_T_RECORD,      /* obj: event */
    SIM_T_WAIT_EVENT,  /* obj: event */
    SIM_T_NOTIFY_RECORD,
    SIM_T_NOTIFY_WAIT, /* value: timeout in s */
    SIM_T_VALUE_WRITE, /* dst, value */
    SIM_T_VALUE_WAIT,  /* src, value, flag */
    SIM_T_FILL32,      /* dst, n bytes, value: the 32-bit pattern */
    SIM_T_BUILTIN      /* obj: a struct sim_builtin the task owns (staging) */
};
struct sim_task {
    enum sim_task_kind kind;
    void *dst;
    const void *src;
    bool dst_dev, src_dev;
    size_t n;
    int fill;
    void *obj;
    uint64_t value;
    uint32_t flag;
    void *staging; /* a copy of a host source, owned by the queued task */
    struct sim_task *next;
};

/* A copy or fill on stream s: SIM_OK with *queued when s is held (the task
 * was queued), SIM_OK without it when the caller runs it now, SIM_EHOSTMEM. */
enum sim_rc sim_hold_queue(struct sim_stream *s, const struct sim_task *t, bool *queued);
/* After work ran on s: release the value waits it may satisfy. */
void sim_hold_poke(struct sim_stream *s);
/* Synchronise a held stream: *held false when s is not held (the caller
 * does the ordinary synchronisation). */
enum sim_rc sim_hold_sync(struct sim_stream *s, int32_t timeout_ms, bool *held);
/* Settle every held stream of dev (ordinary synchronisation follows). */
enum sim_rc sim_hold_sync_device(int32_t dev);
/* An event whose record is held: wait for it as for its stream. */
enum sim_rc sim_hold_event_sync(struct sim_event *e, int32_t timeout_ms);
/* Event record and wait, on a stream that may be held. */
void sim_hold_record(struct sim_event *e, struct sim_stream *s);
void sim_hold_wait_event(struct sim_stream *s, const struct sim_event *e);
/* s is being destroyed or aborted: drop what it holds. */
void sim_hold_drop(struct sim_stream *s);
/* An event or notify is being destroyed: forget it in every queue. */
void sim_hold_forget(const void *obj);

/* stream.c: run a copy or fill now (a held stream replays through these). */
enum sim_rc sim_copy_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                         const void *src, bool src_dev, size_t n, unsigned flags);
enum sim_rc sim_fill_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                         size_t n, bool host_waits);
enum sim_rc sim_fill32_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                           uint32_t value, size_t words, bool host_waits);

/* builtin.c: do b's work on the device bytes (no time taken); *bytes is
 * how many bytes the work moved, for its timing. */
enum sim_rc sim_builtin_compute(const struct sim_builtin *b, uint64_t *bytes);
/* stream.c: run a built-in task now (a held stream replays through this). */
enum sim_rc sim_builtin_run(struct sim_stream *s, const struct sim_builtin *b);

#endif /* ACLSIM_SIM_QUEUE_H_ */
