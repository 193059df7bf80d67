/*
 * queue.c - the queue of a held stream: the waits that hold a stream
 * (notify waits, counting notify waits, value waits, waits on events whose
 * record is itself queued), the tasks queued behind them and their replay;
 * notifies, counting notifies and value writes (sim.h describes the model,
 * queue.h the files around it).
 *
 * A stream is held from a wait the device cannot satisfy yet until its
 * queue is empty again; every task enqueued meanwhile, of any kind, joins
 * the queue. Whatever satisfies a wait (a notify record, a value write, an
 * event record reached by another stream) releases the stream at the
 * simulated time it happens, and its queue is replayed task by task
 * through task.c, as the device reaches each one, until it is empty or
 * another wait holds the stream again: copies, fills, device tasks and
 * operators work on the bytes device memory holds then. A host task the
 * replay reaches becomes ready then, and its callback (sim_ready_fn) is
 * told; a blocking one makes the rest of the queue wait until the host has
 * run it (sim_queue_host_done), as a blocking host task makes later work
 * wait on a stream that is not held (task.c).
 *
 * Everything here runs under one mutex, the queue lock; the clock's, the
 * devices', the pending table's and the blocking-task lock are taken inside
 * it, never the other way round, and so are the host tasks' ready
 * callbacks. Device faults of replayed tasks are raised once it is
 * released. The fast path of a task on a stream without a queue reads one
 * flag of the stream (sim_stream_queueing), and a write to device memory
 * one counter (sim_queue_written).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/mem.h"
#include "internal.h"
#include "queue.h"
#include "trace.h"

struct sim_notify {
    int32_t dev;
    uint32_t id;
    bool set;  /* recorded and not yet consumed by a wait */
    sim_ps at; /* when the record completed */
    struct sim_hb_vc hb; /* the recording stream's clock then (hb.c) */
    struct sim_ntf_ipc *ipc; /* exported or imported: the state is shared there */
};

struct sim_cnt {
    int32_t dev;
    uint32_t id;
    uint32_t count; /* under the queue lock */
    sim_ps at;      /* when a record or reset last changed it */
    struct sim_hb_vc hb; /* every record's stream's clock (hb.c) */
};

/* A host task queued behind a wait, from sim_queue_host_task until the
 * host says it ran or dropped it (sim_queue_host_done), which may be after
 * its queue went. */
enum host_state {
    HOST_QUEUED,   /* in its stream's queue (task) */
    HOST_BLOCKING, /* reached, blocking: counts in its stream's blocking tasks */
    HOST_READY,    /* reached, not blocking */
    HOST_DROPPED   /* its queue was dropped before reaching it */
};
struct host_task {
    enum host_state state;
    struct sim_task *task; /* while HOST_QUEUED */
    bool blocking;
    uint64_t runner;
    sim_ready_fn fn;
    void *arg;
};

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER; /* a stream was released */
static struct sim_stream *queues;    /* the streams with a queue */
static _Atomic unsigned nqueues;     /* how many queues: the fast path of device-wide calls */
static unsigned value_waits;         /* queues behind a value wait */

bool sim_queue_any(void)
{
    return atomic_load_explicit(&nqueues, memory_order_acquire) != 0;
}
static _Atomic unsigned any_values;  /* value_waits, for the fast path */
static unsigned ipc_waits;           /* queues behind a wait on an IPC notify */
static _Atomic unsigned any_ipc;     /* ipc_waits, for the fast path */
static _Atomic uint32_t grace_ms = 60000;
static const void *running_from; /* the tag of the task run() runs (lock held) */
/* The record whose replay this thread submits now (sim_queue_tag): what
 * it queues, and a wait of it that holds a stream, carry it for aborts. */
static _Thread_local const void *launch_tag;
static uint32_t next_notify_id[SIM_MAX_DEVICES];
static unsigned live_notifies[SIM_MAX_DEVICES];
static uint32_t next_cnt_id[SIM_MAX_DEVICES];
static unsigned live_cnts[SIM_MAX_DEVICES];

/* The queue lock; faults raised inside it wait until it is released. */
static void lock(void)
{
    pthread_mutex_lock(&qlock);
    sim_task_faults_defer();
}

static void unlock(void)
{
    pthread_mutex_unlock(&qlock);
    sim_task_faults_raise();
}

void sim_hold_configure(uint32_t ms)
{
    atomic_store(&grace_ms, ms);
}

/* ---- Queues (lock held) ---- */

/* Whether queue q waits behind a notify shared with another process. */
static bool ipc_wait(const struct sim_queue *q)
{
    return q->behind == SIM_BEHIND_NOTIFY && q->obj &&
           ((const struct sim_notify *)q->obj)->ipc != NULL;
}

static void set_behind(struct sim_stream *s, enum sim_queue_behind what)
{
    struct sim_queue *q = &s->q;
    if (ipc_wait(q)) {
        ipc_waits--;
        atomic_store_explicit(&any_ipc, ipc_waits, memory_order_relaxed);
    }
    if (q->behind == SIM_BEHIND_VALUE)
        value_waits--;
    q->behind = what;
    if (what == SIM_BEHIND_VALUE)
        value_waits++;
    atomic_store_explicit(&any_values, value_waits, memory_order_relaxed);
}

/* s gets a queue (empty so far), unless it has one. */
static void start_queue(struct sim_stream *s)
{
    if (s->queueing)
        return;
    struct sim_queue *q = &s->q;
    *q = (struct sim_queue){.behind = SIM_BEHIND_NOTHING, .deadline = SIM_PS_FOREVER,
                            .next = queues};
    q->tail = &q->head;
    queues = s;
    atomic_fetch_add(&nqueues, 1);
    atomic_store_explicit(&s->queueing, true, memory_order_release);
}

/* s's queue waits behind `what` (a wait that holds s, until it is
 * satisfied, or a blocking host task, until the host has run it). */
static void queue_behind(struct sim_stream *s, enum sim_queue_behind what, const void *obj,
                         sim_ps deadline)
{
    start_queue(s);
    set_behind(s, what);
    s->q.obj = obj;
    s->q.deadline = deadline;
    s->q.from = running_from;
    if (ipc_wait(&s->q)) {
        ipc_waits++;
        atomic_store_explicit(&any_ipc, ipc_waits, memory_order_relaxed);
    }
}

/* Free a task, queued or run. A record that never ran leaves its event
 * never recorded; an operator that never ran lets its blocks go; a host
 * task that was never reached is dropped (its record stays for the host). */
static void free_task(struct sim_stream *s, struct sim_task *t)
{
    if (t->kind == SIM_T_RECORD) {
        sim_ps pending = SIM_MARK_PENDING;
        atomic_compare_exchange_strong(((struct sim_event *)t->obj)->mark, &pending, 0);
    } else if (t->kind == SIM_T_OP) {
        sim_task_drop_op(s, t->obj);
    } else if (t->kind == SIM_T_HOST) {
        struct host_task *h = t->obj;
        h->state = HOST_DROPPED;
        h->task = NULL;
    }
    sim_hb_vc_free(&t->enq);
    base_free(t->staging);
    base_free(t);
}

/* s's queue (what is left of it) goes: tasks enqueued on s run at once
 * again. */
static void end_queue(struct sim_stream *s)
{
    for (struct sim_stream **p = &queues; *p; p = &(*p)->q.next)
        if (*p == s) {
            *p = s->q.next;
            break;
        }
    set_behind(s, SIM_BEHIND_NOTHING);
    while (s->q.head) {
        struct sim_task *t = s->q.head;
        s->q.head = t->next;
        free_task(s, t);
    }
    s->q.tail = &s->q.head;
    atomic_store_explicit(&s->queueing, false, memory_order_release);
    atomic_fetch_sub(&nqueues, 1);
    pthread_cond_broadcast(&changed);
}

static bool value_met(const void *addr, uint64_t want, uint32_t flag)
{
    uint64_t v;
    if (!sim_mem_holds(addr, 8) || sim_mem_copy(&v, false, addr, true, 8) != SIM_OK)
        return false;
    switch (flag) {
    case SIM_WAIT_GEQ:
        return (int64_t)(v - want) >= 0;
    case SIM_WAIT_EQ:
        return v == want;
    case SIM_WAIT_AND:
        return (v & want) != 0;
    default:
        return ~(v | want) != 0;
    }
}

static void release(struct sim_stream *s, sim_ps t, struct sim_stream *by);

/* ---- The trace's flows (trace.h): a record linked to the waits it
 * releases, the pair named by the object's state and the record's time ---- */

static uint64_t flow_id(const void *obj, sim_ps stamp)
{
    uint64_t h = (uint64_t)(uintptr_t)obj * UINT64_C(0x9e3779b97f4a7c15) ^ stamp;
    h = (h ^ h >> 31) * UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 29;
    return h ? h : 1;
}

/* A record (out) or a wait that lets s go on at `at`, of the record that
 * gave obj the time `stamp`. */
static void trace_sync(struct sim_stream *s, const char *name, sim_ps at, const void *obj,
                       sim_ps stamp, bool out)
{
    if (sim_trace_enabled())
        sim_trace_sync(s->clk.device, s->clk.id, name, at, flow_id(obj, stamp), out, NULL);
}

/* s, held behind a wait, is released by a record at t: where it goes on. */
static void trace_release(struct sim_stream *s, const char *name, sim_ps t, const void *obj,
                          sim_ps stamp)
{
    if (sim_trace_enabled()) {
        sim_ps now = sim_clock_stream_now(&s->clk);
        trace_sync(s, name, now > t ? now : t, obj, stamp, false);
    }
}

static void wake_event(const struct sim_event *e, sim_ps at, struct sim_stream *by)
{
    for (bool again = true; again;) {
        again = false;
        for (struct sim_stream *s = queues; s; s = s->q.next)
            if (s->q.behind == SIM_BEHIND_EVENT && sim_ev_same(s->q.obj, e)) {
                trace_release(s, "event wait", at, (const void *)e->mark, at + 1);
                release(s, at, by);
                again = true; /* the list may have changed */
                break;
            }
    }
}

static void wake_values(sim_ps at, struct sim_stream *by)
{
    for (bool again = true; again && value_waits;) {
        again = false;
        for (struct sim_stream *s = queues; s; s = s->q.next)
            if (s->q.behind == SIM_BEHIND_VALUE && value_met(s->q.addr, s->q.value, s->q.flag)) {
                release(s, at, by);
                again = true;
                break;
            }
    }
}

/* ---- Running one task (lock held) ----
 *
 * `device`: the device reaches the task in a replayed queue, so the host
 * pays nothing for it; otherwise it is being enqueued on a stream nothing
 * holds, and the host pays its call. Each returns whether a wait (or a
 * blocking host task) holds s again. */

/* When the task completes on s: where s is, or, when enqueued, after the
 * host's call. */
static sim_ps reach(struct sim_stream *s, bool device)
{
    return device ? sim_clock_release(&s->clk, 0) : sim_clock_record(&s->clk);
}

static bool run_record(struct sim_stream *s, struct sim_event *e, bool device)
{
    sim_ps at = reach(s, device);
    sim_hb_mark(&e->hb, s, false);
    sim_ev_set(e, at + 1);
    trace_sync(s, "event record", at, (const void *)e->mark, at + 1, true);
    wake_event(e, at, s);
    return false;
}

static bool run_wait_event(struct sim_stream *s, const struct sim_event *e, bool device)
{
    sim_ps m = sim_ev_mark(e);
    /* An event created with ACL_EVENT_EXTERNAL is waited for by the device
     * whatever its history: its wait holds until a record (event.cc
     * WaitSendCheck: isWaitSend for RT_EVENT_EXTERNAL). */
    if (m == SIM_MARK_PENDING || (m == 0 && (e->flags & SIM_EVENT_EXTERNAL))) {
        queue_behind(s, SIM_BEHIND_EVENT, e, SIM_PS_FOREVER);
        return true;
    }
    if (m) {
        sim_ps go = device ? sim_clock_release(&s->clk, m - 1) : sim_clock_wait(&s->clk, m - 1);
        if (e->ipc && !sim_ipc_mine(e->ipc)) {
            sim_hb_wait_foreign(s); /* recorded by another process */
        } else {
            sim_hb_wait(s, &e->hb);
            trace_sync(s, "event wait", go, (const void *)e->mark, m, false);
        }
    }
    return false;
}

/* Whether a and b are one notify's state (an IPC notify and its imports). */
static bool same_notify(const struct sim_notify *a, const struct sim_notify *b)
{
    return a == b || sim_ntf_ipc_same(a->ipc, b->ipc);
}

/* Consume n's record: whether it was set. */
static bool take_notify(struct sim_notify *n)
{
    if (n->ipc)
        return sim_ntf_ipc_take(n->ipc);
    bool was = n->set;
    n->set = false;
    return was;
}

/* A record of notify n, shared between processes: the record and its
 * release of a wait are the edge (in this process, or, through the page,
 * in the one whose poll finds it: ipc_poll). */
static bool run_notify_record(struct sim_stream *s, struct sim_notify *n, bool device)
{
    sim_ps at = reach(s, device);
    if (n->ipc)
        sim_ntf_ipc_give(n->ipc);
    else
        n->set = true;
    n->at = at;
    sim_hb_mark(&n->hb, s, false);
    trace_sync(s, "notify record", at, n, at, true);
    for (struct sim_stream *w = queues; w; w = w->q.next)
        if (w->q.behind == SIM_BEHIND_NOTIFY && same_notify(w->q.obj, n)) {
            if (take_notify(n)) {
                trace_release(w, "notify wait", at, n, at);
                release(w, at, s);
            }
            break;
        }
    return false;
}

/* Streams held by a wait on an IPC notify another process recorded since:
 * released now (that process's time is not this one's: at the host's
 * now). pre: lock held. */
static void ipc_poll(void)
{
    for (bool again = ipc_waits > 0; again;) {
        again = false;
        for (struct sim_stream *w = queues; w; w = w->q.next)
            if (ipc_wait(&w->q) && take_notify((struct sim_notify *)w->q.obj)) {
                sim_hb_wait_foreign(w); /* recorded by another process */
                release(w, sim_clock_host(), NULL);
                again = ipc_waits > 0; /* the list may have changed */
                break;
            }
    }
}

void sim_queue_poll(void)
{
    if (atomic_load_explicit(&any_ipc, memory_order_relaxed) == 0)
        return;
    lock();
    ipc_poll();
    unlock();
}

static bool run_notify_wait(struct sim_stream *s, struct sim_notify *n, uint64_t timeout_s,
                            bool device)
{
    if (take_notify(n)) {
        sim_ps at = n->ipc ? sim_clock_host() : n->at;
        sim_ps go = device ? sim_clock_release(&s->clk, at) : sim_clock_wait(&s->clk, at);
        if (n->ipc)
            sim_hb_wait_foreign(s); /* recorded through the shared page: maybe elsewhere */
        else
            sim_hb_wait(s, &n->hb);
        trace_sync(s, "notify wait", go, n, at, false);
        return false;
    }
    sim_ps from = reach(s, device);
    sim_ps deadline = timeout_s ? from + timeout_s * 1000000000000ull : SIM_PS_FOREVER;
    queue_behind(s, SIM_BEHIND_NOTIFY, n, deadline);
    return true;
}

static bool run_value_write(struct sim_stream *s, void *addr, uint64_t value, bool device)
{
    sim_ps at = reach(s, device);
    if (sim_hb_on()) {
        struct sim_use u = {.space = SIM_SPACE_DEVICE, .role = SIM_USE_VALUE, .write = true,
                            .p = addr, .n = 8};
        sim_task_uses(s, &u, 1);
    }
    sim_hb_value_write(s, addr);
    if (sim_mem_holds(addr, 8))
        sim_mem_copy(addr, true, &value, false, 8);
    if (value_waits)
        wake_values(at, s);
    return false;
}

static bool run_value_wait(struct sim_stream *s, const struct sim_task *t, bool device)
{
    if (!device)
        sim_clock_record(&s->clk); /* the host enqueues it */
    if (value_met(t->src, t->value, t->flag)) {
        sim_hb_value_wait(s, t->src);
        return false;
    }
    queue_behind(s, SIM_BEHIND_VALUE, NULL, SIM_PS_FOREVER);
    s->q.addr = t->src;
    s->q.value = t->value;
    s->q.flag = t->flag;
    return true;
}

/* Whether count c meets a counting notify wait's condition. */
static bool cnt_met(const struct sim_cnt *c, uint32_t mode, uint32_t want)
{
    switch (mode) {
    case SIM_CNT_LESS:
        return c->count < want;
    case SIM_CNT_EQ:
        return c->count == want;
    case SIM_CNT_GREATER:
        return c->count > want;
    case SIM_CNT_GEQ:
        return c->count >= want;
    default: /* SIM_CNT_MASK */
        return (c->count & want) == want;
    }
}

/* c changed at `at`: release the streams whose wait on it is met now, in
 * turn (a wait that clears the count may leave the next one waiting). */
static void wake_cnt(struct sim_cnt *c, sim_ps at, struct sim_stream *by)
{
    for (bool again = true; again;) {
        again = false;
        for (struct sim_stream *s = queues; s; s = s->q.next)
            if (s->q.behind == SIM_BEHIND_CNT && s->q.obj == c &&
                cnt_met(c, s->q.flag & 0xffu, (uint32_t)s->q.value)) {
                if (s->q.flag >> 8)
                    c->count = 0;
                trace_release(s, "count notify wait", at, c, at);
                release(s, at, by);
                again = true; /* the list may have changed */
                break;
            }
    }
}

static bool run_cnt_record(struct sim_stream *s, const struct sim_task *t, bool device)
{
    struct sim_cnt *c = t->obj;
    sim_ps at = reach(s, device);
    uint32_t v = (uint32_t)t->value;
    switch (t->kind == SIM_T_CNT_RESET ? SIM_CNT_SET : t->flag) {
    case SIM_CNT_SET:
        c->count = t->kind == SIM_T_CNT_RESET ? 0 : v;
        break;
    case SIM_CNT_ADD:
        c->count += v;
        break;
    case SIM_CNT_OR:
        c->count |= v;
        break;
    default: /* SIM_CNT_CLEAR */
        c->count &= ~v;
        break;
    }
    c->at = at;
    sim_hb_mark(&c->hb, s, true);
    trace_sync(s, "count notify record", at, c, at, true);
    wake_cnt(c, at, s);
    return false;
}

static bool run_cnt_wait(struct sim_stream *s, const struct sim_task *t, bool device)
{
    struct sim_cnt *c = t->obj;
    uint32_t want = (uint32_t)t->value, timeout_s = (uint32_t)(t->value >> 32);
    if (cnt_met(c, t->flag & 0xffu, want)) {
        if (t->flag >> 8)
            c->count = 0;
        sim_ps go = device ? sim_clock_release(&s->clk, c->at) : sim_clock_wait(&s->clk, c->at);
        sim_hb_wait(s, &c->hb);
        trace_sync(s, "count notify wait", go, c, c->at, false);
        return false;
    }
    sim_ps from = reach(s, device);
    sim_ps deadline = timeout_s ? from + timeout_s * 1000000000000ull : SIM_PS_FOREVER;
    queue_behind(s, SIM_BEHIND_CNT, c, deadline);
    s->q.value = want;
    s->q.flag = t->flag;
    return true;
}

/* A queued host task reached: it is ready now; a blocking one holds the
 * rest of the queue until the host has run it. */
static bool run_host(struct sim_stream *s, struct host_task *h)
{
    sim_ps ready = sim_host_run(s, h->blocking, h->runner, true);
    h->task = NULL;
    h->state = h->blocking ? HOST_BLOCKING : HOST_READY;
    h->fn(h->arg, ready);
    if (!h->blocking)
        return false;
    queue_behind(s, SIM_BEHIND_HOST_TASK, h, SIM_PS_FOREVER);
    return true;
}

static bool run_expand(struct sim_stream *s, const struct sim_task *t, bool device);

static bool run_kind(struct sim_stream *s, struct sim_task *t, bool device);

static bool run(struct sim_stream *s, struct sim_task *t, bool device)
{
    running_from = t->from || device ? t->from : launch_tag;
    bool held = run_kind(s, t, device);
    running_from = NULL;
    return held;
}

static bool run_kind(struct sim_stream *s, struct sim_task *t, bool device)
{
    switch (t->kind) {
    case SIM_T_NOP:
        return false;
    case SIM_T_EVENT_RESET:
        sim_ev_set(t->obj, 0);
        return false;
    case SIM_T_GROUP_SET:
        sim_group_set(t->obj, t);
        return false;
    case SIM_T_GROUP:
    case SIM_T_COND:
        return run_expand(s, t, device);
    case SIM_T_RECORD:
        return run_record(s, t->obj, device);
    case SIM_T_WAIT_EVENT:
        return run_wait_event(s, t->obj, device);
    case SIM_T_NOTIFY_RECORD:
        return run_notify_record(s, t->obj, device);
    case SIM_T_NOTIFY_WAIT:
        return run_notify_wait(s, t->obj, t->value, device);
    case SIM_T_VALUE_WRITE:
        return run_value_write(s, t->dst, t->value, device);
    case SIM_T_VALUE_WAIT:
        return run_value_wait(s, t, device);
    case SIM_T_HOST:
        return run_host(s, t->obj);
    case SIM_T_CNT_RECORD:
    case SIM_T_CNT_RESET:
        return run_cnt_record(s, t, device);
    case SIM_T_CNT_WAIT:
        return run_cnt_wait(s, t, device);
    default:
        if (sim_task_run(s, t, device) && value_waits)
            wake_values(sim_clock_stream_now(&s->clk), s);
        return false;
    }
}

/* What holds s is satisfied at t: replay its queue until it is empty (s is
 * free again) or a wait holds s again. */
static void release(struct sim_stream *s, sim_ps t, struct sim_stream *by)
{
    struct sim_queue *q = &s->q;
    set_behind(s, SIM_BEHIND_NOTHING);
    q->obj = NULL;
    sim_clock_release(&s->clk, t);
    sim_hb_release(s, by); /* what released it is ordered before the rest */
    while (q->head) {
        struct sim_task *task = q->head;
        q->head = task->next;
        if (!q->head)
            q->tail = &q->head;
        sim_hb_enq_begin(&task->enq);
        bool again = run(s, task, true);
        sim_hb_enq_begin(NULL);
        task->kind = SIM_T_NOP; /* it ran: none of free_task's undoing */
        free_task(s, task);
        if (again)
            return; /* the rest stays queued */
    }
    end_queue(s);
}

/* ---- Queueing (lock held) ---- */

/* Queue a copy of t behind what holds s. */
static enum sim_rc enqueue(struct sim_stream *s, const struct sim_task *t, struct sim_task **out)
{
    struct sim_task *q = sim_task_keep(t, true);
    if (!q)
        return SIM_EHOSTMEM;
    if (!q->from)
        q->from = launch_tag;
    if (t->kind == SIM_T_COPY || t->kind == SIM_T_COPY2D)
        q->flag = 0; /* the host went on: it waits for no queued copy */
    if (t->kind == SIM_T_RECORD)
        sim_ev_set(t->obj, SIM_MARK_PENDING);
    if (t->kind == SIM_T_OP)
        sim_task_queued_op(s, q->obj);
    sim_hb_enqueued(&q->enq);
    *s->q.tail = q;
    s->q.tail = &q->next;
    if (out)
        *out = q;
    return SIM_OK;
}

/* ---- Groups and conditional tasks (lock held) ----
 *
 * When s reaches one, the tasks it stands for now (record.c) go to the
 * front of s's queue, each as enqueue() queues a task, and run in turn:
 * a wait among them holds the rest, a condition among them is tested when
 * s reaches it. This is the one place a replay's work forks by what the
 * device holds (the HB hooks of its tasks are those of their kinds). */

/* Put the list at the front of s's queue (s queueing). */
static void splice_front(struct sim_stream *s, struct sim_task *list)
{
    struct sim_task **last = &list;
    for (struct sim_task *q = list; q; q = q->next) {
        if (q->kind == SIM_T_COPY || q->kind == SIM_T_COPY2D)
            q->flag = 0; /* the host went on: it waits for no queued copy */
        if (q->kind == SIM_T_RECORD)
            sim_ev_set(q->obj, SIM_MARK_PENDING);
        if (q->kind == SIM_T_OP)
            sim_task_queued_op(s, q->obj);
        last = &q->next;
    }
    *last = s->q.head;
    if (!s->q.head)
        s->q.tail = last;
    s->q.head = list;
}

/* s reached group or condition t: its tasks run now, in s's turn.
 * `device`: inside the replay of s's queue, which goes on with them;
 * otherwise s was free and runs them now. Returns whether a wait among
 * them holds s. */
static bool run_expand(struct sim_stream *s, const struct sim_task *t, bool device)
{
    if (!device && s->queueing)
        return false; /* only when queueing it failed for want of host memory */
    struct sim_task *list = NULL;
    if (sim_record_expand(t, &list) != SIM_OK || !list)
        return false;
    sim_ps at = device ? 0 : reach(s, false);
    start_queue(s);
    splice_front(s, list);
    if (device) {
        /* the copies know what the host knew when the group or condition
         * was enqueued (they run with no clock of their own) */
        sim_hb_task(s, &t->enq);
        return false;
    }
    release(s, at, NULL); /* the host enqueued it onto a free stream */
    return s->queueing;
}

/* Enqueue t on s: behind what holds s, or now. A record or wait that
 * cannot be queued for want of host memory runs now, out of order, rather
 * than not at all. */
static void submit_control(struct sim_stream *s, struct sim_task *t)
{
    if (s->queueing && enqueue(s, t, NULL) == SIM_OK)
        return;
    run(s, t, false);
}

/* ---- For stream.c ---- */

enum sim_rc sim_queue_submit(struct sim_stream *s, const struct sim_task *t)
{
    lock();
    enum sim_rc rc = SIM_OK;
    if (s->queueing) {
        rc = enqueue(s, t, NULL);
    } else { /* released since the caller looked */
        struct sim_task now = *t;
        now.staging = NULL;
        run(s, &now, false);
    }
    unlock();
    return rc;
}

enum sim_rc sim_queue_op(int32_t dev, struct sim_stream *s, const struct sim_op *op,
                         uint64_t *start, uint64_t *end)
{
    struct sim_task t = {.kind = SIM_T_OP, .dev = dev, .obj = (void *)op};
    lock();
    enum sim_rc rc;
    if (s->queueing) {
        rc = enqueue(s, &t, NULL);
        *start = *end = SIM_PS_PENDING;
    } else {
        rc = sim_op_exec(dev, s, op, start, end);
        if (rc == SIM_OK && value_waits)
            wake_values(sim_clock_stream_now(&s->clk), s);
    }
    unlock();
    return rc;
}

void sim_queue_written(struct sim_stream *s)
{
    if (atomic_load_explicit(&any_values, memory_order_relaxed) == 0)
        return;
    lock();
    if (value_waits)
        wake_values(sim_clock_stream_now(&s->clk), s);
    unlock();
}

void sim_queue_record(struct sim_event *e, struct sim_stream *s)
{
    struct sim_task t = {.kind = SIM_T_RECORD, .obj = e};
    lock();
    submit_control(s, &t);
    unlock();
}

void sim_queue_wait_event(struct sim_stream *s, const struct sim_event *e)
{
    struct sim_task t = {.kind = SIM_T_WAIT_EVENT, .obj = (void *)e};
    lock();
    submit_control(s, &t);
    unlock();
}

/* ---- Host tasks ---- */

enum sim_rc sim_queue_host_task(struct sim_stream *s, bool blocking, uint64_t runner,
                                sim_ready_fn fn, void *arg, uint64_t *ready, uint64_t *ticket)
{
    lock();
    enum sim_rc rc = SIM_OK;
    *ticket = 0;
    if (!s->queueing && !blocking) {
        *ready = sim_host_run(s, false, runner, false);
        unlock();
        return SIM_OK;
    }
    struct host_task *h = base_malloc(sizeof *h);
    if (!s->queueing) {
        /* A blocking task on a free stream: it is ready now, and the work
         * enqueued after it waits in the queue until the host has run it
         * (sim_queue_host_done), so that no enqueue ever waits for the host
         * and the task sees the bytes of before that work. */
        if (!h) {
            unlock();
            return SIM_EHOSTMEM;
        }
        *ready = sim_host_run(s, true, runner, false);
        *h = (struct host_task){HOST_BLOCKING, NULL, true, runner, NULL, NULL};
        queue_behind(s, SIM_BEHIND_HOST_TASK, h, SIM_PS_FOREVER);
        *ticket = (uint64_t)(uintptr_t)h;
        unlock();
        return SIM_OK;
    }
    struct sim_task t = {.kind = SIM_T_HOST, .obj = h}, *q = NULL;
    if (!h || (rc = enqueue(s, &t, &q)) != SIM_OK) {
        base_free(h);
        unlock();
        return SIM_EHOSTMEM;
    }
    *h = (struct host_task){HOST_QUEUED, q, blocking, runner, fn, arg};
    *ready = SIM_PS_PENDING;
    *ticket = (uint64_t)(uintptr_t)h;
    unlock();
    return rc;
}

bool sim_queue_host_done(struct sim_stream *s, uint64_t ticket)
{
    struct host_task *h = (struct host_task *)(uintptr_t)ticket;
    lock();
    bool counted = h->state == HOST_BLOCKING;
    if (h->state == HOST_QUEUED) {
        h->task->kind = SIM_T_NOP; /* never reached: it stays in the queue as nothing */
        h->task->obj = NULL;
    } else if (counted && s->queueing && s->q.behind == SIM_BEHIND_HOST_TASK && s->q.obj == h) {
        release(s, sim_clock_host(), NULL); /* the host answered: the device goes on */
    }
    base_free(h);
    unlock();
    return counted;
}

/* ---- Synchronisation with streams that have a queue ---- */

/* Whether the calling thread is the process's only one (Linux's count of
 * its threads): then nobody else can release a held stream. false when the
 * count cannot be read. */
static bool only_thread(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *t = strstr(buf, "\nThreads:");
    return t && strtol(t + 9, NULL, 10) == 1;
}

/* Wait, in real time and at most the grace, until done(arg) is true; not
 * at all in a process of one thread. pre: lock held. */
static void grace_wait(bool (*done)(const void *arg), const void *arg, int32_t limit_ms)
{
    ipc_poll();
    if (!done(arg) && ipc_waits == 0 && only_thread())
        return; /* nobody else can release it (another process can, through an IPC notify) */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint32_t ms = atomic_load(&grace_ms);
    if (limit_ms >= 0 && (uint32_t)limit_ms < ms)
        ms = (uint32_t)limit_ms; /* a call with a timeout waits no longer than it */
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!done(arg)) {
        if (ipc_waits == 0) {
            if (pthread_cond_timedwait(&changed, &qlock, &until) == ETIMEDOUT)
                break;
            continue;
        }
        /* a record in another process: look at its page every millisecond */
        struct timespec slice;
        clock_gettime(CLOCK_REALTIME, &slice);
        slice.tv_nsec += 1000000L;
        if (slice.tv_nsec >= 1000000000L) {
            slice.tv_sec++;
            slice.tv_nsec -= 1000000000L;
        }
        bool last = slice.tv_sec > until.tv_sec ||
                    (slice.tv_sec == until.tv_sec && slice.tv_nsec >= until.tv_nsec);
        pthread_cond_timedwait(&changed, &qlock, last ? &until : &slice);
        ipc_poll();
        if (last)
            break;
    }
}

static bool no_queue(const void *s)
{
    return !((const struct sim_stream *)s)->queueing;
}

/* Settle s, which nothing released within the grace: its wait times out
 * (the stream fails at the deadline, its queue dropped), or the host's
 * limit runs out, or, with neither, SIM_EWAIT and s stays as it is. pre:
 * lock held. */
static enum sim_rc settle(struct sim_stream *s, int32_t timeout_ms)
{
    sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
    sim_ps now = sim_clock_host(), deadline = s->q.deadline;
    bool in_time = limit == SIM_PS_FOREVER || (now + limit > now && deadline <= now + limit);
    if (deadline != SIM_PS_FOREVER && in_time) {
        sim_clock_host_wait(deadline, SIM_PS_FOREVER, NULL);
        sim_clock_release(&s->clk, deadline);
        end_queue(s);
        return SIM_EWAIT;
    }
    if (limit != SIM_PS_FOREVER) {
        bool late = false;
        sim_clock_host_wait(SIM_PS_FOREVER, limit, &late);
        return SIM_ETIMEOUT;
    }
    return SIM_EWAIT;
}

enum sim_rc sim_queue_sync(struct sim_stream *s, int32_t timeout_ms, bool *held)
{
    *held = false;
    if (!sim_stream_queueing(s))
        return SIM_OK;
    lock();
    enum sim_rc rc = SIM_OK;
    if (s->queueing) {
        grace_wait(no_queue, s, timeout_ms);
        if (s->queueing) {
            *held = true;
            rc = settle(s, timeout_ms);
        }
    }
    unlock();
    return rc;
}

/* A context's streams (sim_streams_sync). */
struct set {
    struct sim_stream *const *s;
    size_t n;
};

/* The first stream of the set with a queue, or NULL. pre: lock held. */
static struct sim_stream *first_queued(const struct set *set)
{
    for (struct sim_stream *s = queues; s; s = s->q.next)
        for (size_t i = 0; i < set->n; i++)
            if (set->s[i] == s)
                return s;
    return NULL;
}

static bool set_free(const void *arg)
{
    return first_queued(arg) == NULL;
}

enum sim_rc sim_queue_sync_set(struct sim_stream *const *ss, size_t n, int32_t timeout_ms)
{
    if (atomic_load(&nqueues) == 0)
        return SIM_OK;
    const struct set set = {ss, n};
    lock();
    enum sim_rc rc = SIM_OK;
    if (!set_free(&set)) {
        grace_wait(set_free, &set, timeout_ms);
        /* A stream whose wait times out fails (its queue goes); the first
         * that cannot be settled fails the synchronisation. */
        for (struct sim_stream *s; (s = first_queued(&set)) != NULL;) {
            rc = SIM_EWAIT;
            if (timeout_ms >= 0) {
                /* The host's limit: a stream released at its deadline
                 * within it goes on to the next; else the wait ends. */
                rc = settle(s, timeout_ms);
                if (rc == SIM_ETIMEOUT)
                    break;
                rc = SIM_OK;
                continue;
            }
            if (s->q.deadline == SIM_PS_FOREVER)
                break;
            settle(s, -1);
        }
    }
    unlock();
    return rc;
}

static bool event_settled(const void *e)
{
    return sim_ev_mark(e) != SIM_MARK_PENDING;
}

/* The stream whose queue holds a record of e, or NULL. pre: lock held. */
static struct sim_stream *recording(const struct sim_event *e)
{
    for (struct sim_stream *s = queues; s; s = s->q.next)
        for (struct sim_task *t = s->q.head; t; t = t->next)
            if (t->kind == SIM_T_RECORD && sim_ev_same(t->obj, e))
                return s;
    return NULL;
}

enum sim_rc sim_queue_event_sync(struct sim_event *e, int32_t timeout_ms)
{
    lock();
    grace_wait(event_settled, e, timeout_ms);
    enum sim_rc rc = SIM_OK;
    if (!event_settled(e)) {
        /* The stream whose queue holds the record settles for it. */
        struct sim_stream *s = recording(e);
        rc = s ? settle(s, timeout_ms) : SIM_EWAIT;
        if (rc == SIM_EWAIT && timeout_ms >= 0 && !event_settled(e))
            rc = SIM_ETIMEOUT;
    }
    unlock();
    if (rc != SIM_OK)
        return rc;
    sim_ps m = sim_ev_mark(e);
    if (m) {
        bool late = false;
        sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
        sim_clock_host_wait(m - 1, limit, &late);
        return late ? SIM_ETIMEOUT : SIM_OK;
    }
    return SIM_OK;
}

void sim_queue_drop(struct sim_stream *s)
{
    if (!sim_stream_queueing(s))
        return;
    lock();
    if (s->queueing)
        end_queue(s);
    unlock();
}

void sim_queue_tag(const void *from)
{
    launch_tag = from;
}

void sim_queue_abort(const void *from)
{
    if (atomic_load(&nqueues) == 0)
        return;
    lock();
    for (bool again = true; again;) {
        again = false;
        for (struct sim_stream *s = queues; s; s = s->q.next) {
            for (struct sim_task *t = s->q.head; t; t = t->next)
                if (t->from == from && t->kind != SIM_T_NOP && t->kind != SIM_T_HOST) {
                    if (t->kind == SIM_T_RECORD) {
                        sim_ps pending = SIM_MARK_PENDING;
                        atomic_compare_exchange_strong(((struct sim_event *)t->obj)->mark,
                                                       &pending, 0);
                    } else if (t->kind == SIM_T_OP) {
                        sim_task_drop_op(s, t->obj);
                    }
                    t->kind = SIM_T_NOP;
                }
            if (s->q.from == from && s->q.behind != SIM_BEHIND_HOST_TASK &&
                s->q.behind != SIM_BEHIND_NOTHING) {
                release(s, sim_clock_host(), NULL); /* its wait is gone: the host's abort */
                again = true; /* the list may have changed */
                break;
            }
        }
    }
    unlock();
}

void sim_queue_forget(const void *obj)
{
    if (atomic_load(&nqueues) == 0)
        return;
    lock();
    for (struct sim_stream *s = queues; s; s = s->q.next) {
        enum sim_queue_behind b = s->q.behind;
        if ((b == SIM_BEHIND_NOTIFY || b == SIM_BEHIND_EVENT || b == SIM_BEHIND_CNT) &&
            s->q.obj == obj) {
            set_behind(s, SIM_BEHIND_ORPHAN); /* nothing can satisfy it any more */
            s->q.obj = NULL;
        }
        for (struct sim_task *t = s->q.head; t; t = t->next)
            if (t->obj == obj && (t->kind == SIM_T_RECORD || t->kind == SIM_T_WAIT_EVENT ||
                                  t->kind == SIM_T_NOTIFY_RECORD || t->kind == SIM_T_NOTIFY_WAIT ||
                                  t->kind == SIM_T_CNT_RECORD || t->kind == SIM_T_CNT_WAIT ||
                                  t->kind == SIM_T_CNT_RESET || t->kind == SIM_T_EVENT_RESET ||
                                  t->kind == SIM_T_GROUP || t->kind == SIM_T_GROUP_SET ||
                                  t->kind == SIM_T_COND))
                t->kind = SIM_T_NOP;
    }
    unlock();
}

/* ---- Notifies ---- */

enum sim_rc sim_notify_create(int32_t dev, struct sim_notify **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    struct sim_notify *n = base_calloc(1, sizeof *n);
    if (!n)
        return SIM_EHOSTMEM;
    lock();
    bool full = live_notifies[dev] >= p->max_events;
    if (!full) {
        live_notifies[dev]++;
        n->id = next_notify_id[dev]++;
    }
    unlock();
    if (full) {
        base_free(n);
        return SIM_ENOMEM;
    }
    n->dev = dev;
    *out = n;
    return SIM_OK;
}

void sim_notify_destroy(struct sim_notify *n)
{
    sim_queue_forget(n);
    sim_record_forget(n);
    lock();
    live_notifies[n->dev]--;
    unlock();
    sim_hb_vc_free(&n->hb);
    sim_ntf_ipc_close(n->ipc);
    base_free(n);
}

enum sim_rc sim_notify_export(struct sim_notify *n, uint64_t flags, char key[SIM_IPC_KEY_MAX])
{
    lock();
    enum sim_rc rc = SIM_EINVAL;
    if (!n->ipc)
        rc = sim_ntf_ipc_export(n->set, flags, &n->ipc, key);
    unlock();
    return rc;
}

enum sim_rc sim_notify_set_pids(struct sim_notify *n, const int32_t *pids, size_t num,
                                const char **why)
{
    lock();
    enum sim_rc rc = SIM_EINVAL;
    *why = "the notify was not exported (aclrtNotifyGetExportKey)";
    if (n->ipc)
        rc = sim_ntf_ipc_pids(n->ipc, pids, num, why);
    unlock();
    return rc;
}

enum sim_rc sim_notify_import(int32_t dev, const char *key, struct sim_notify **out,
                              const char **why)
{
    struct sim_ntf_ipc *ipc = NULL;
    enum sim_rc rc = sim_ntf_ipc_open(key, &ipc, why);
    if (rc != SIM_OK)
        return rc;
    rc = sim_notify_create(dev, out);
    if (rc != SIM_OK) {
        sim_ntf_ipc_close(ipc);
        return rc;
    }
    (*out)->ipc = ipc;
    return SIM_OK;
}

void sim_notify_record(struct sim_notify *n, struct sim_stream *s)
{
    struct sim_task t = {.kind = SIM_T_NOTIFY_RECORD, .obj = n};
    if (sim_stream_recording(s)) {
        sim_record_task(s, &t);
        return;
    }
    lock();
    submit_control(s, &t);
    unlock();
}

void sim_notify_wait(struct sim_notify *n, struct sim_stream *s, uint32_t timeout_s)
{
    struct sim_task t = {.kind = SIM_T_NOTIFY_WAIT, .obj = n, .value = timeout_s};
    if (sim_stream_recording(s)) {
        sim_record_task(s, &t);
        return;
    }
    lock();
    submit_control(s, &t);
    unlock();
}

void sim_notify_reset(struct sim_notify *n)
{
    lock();
    take_notify(n);
    unlock();
}

uint32_t sim_notify_id(const struct sim_notify *n)
{
    return n->id;
}

/* ---- Counting notifies ---- */

enum sim_rc sim_cnt_create(int32_t dev, struct sim_cnt **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    struct sim_cnt *c = base_calloc(1, sizeof *c);
    if (!c)
        return SIM_EHOSTMEM;
    lock();
    bool full = live_cnts[dev] >= p->max_events;
    if (!full) {
        live_cnts[dev]++;
        c->id = next_cnt_id[dev]++;
    }
    unlock();
    if (full) {
        base_free(c);
        return SIM_ENOMEM;
    }
    c->dev = dev;
    *out = c;
    return SIM_OK;
}

void sim_cnt_destroy(struct sim_cnt *c)
{
    sim_queue_forget(c);
    sim_record_forget(c);
    lock();
    live_cnts[c->dev]--;
    unlock();
    sim_hb_vc_free(&c->hb);
    base_free(c);
}

/* t on s: recorded when s captures, else behind what holds s, or now. */
static void cnt_task(struct sim_stream *s, struct sim_task *t)
{
    if (sim_stream_recording(s)) {
        sim_record_task(s, t);
        return;
    }
    lock();
    submit_control(s, t);
    unlock();
}

void sim_cnt_record(struct sim_cnt *c, struct sim_stream *s, uint32_t mode, uint32_t value)
{
    struct sim_task t = {.kind = SIM_T_CNT_RECORD, .obj = c, .value = value, .flag = mode};
    cnt_task(s, &t);
}

void sim_cnt_wait(struct sim_cnt *c, struct sim_stream *s, uint32_t mode, uint32_t value,
                  bool clear, uint32_t timeout_s)
{
    struct sim_task t = {.kind = SIM_T_CNT_WAIT, .obj = c,
                         .value = (uint64_t)timeout_s << 32 | value,
                         .flag = mode | (clear ? 1u << 8 : 0)};
    cnt_task(s, &t);
}

void sim_cnt_reset(struct sim_cnt *c, struct sim_stream *s)
{
    struct sim_task t = {.kind = SIM_T_CNT_RESET, .obj = c};
    cnt_task(s, &t);
}

uint32_t sim_cnt_id(const struct sim_cnt *c)
{
    return c->id;
}

/* ---- Value writes and waits ---- */

void sim_value_write(struct sim_stream *s, void *addr, uint64_t value)
{
    struct sim_task t = {.kind = SIM_T_VALUE_WRITE, .dst = addr, .value = value};
    if (sim_stream_recording(s)) {
        sim_record_task(s, &t);
        return;
    }
    lock();
    submit_control(s, &t);
    unlock();
}

void sim_value_wait(struct sim_stream *s, const void *addr, uint64_t value, uint32_t flag)
{
    struct sim_task t = {.kind = SIM_T_VALUE_WAIT, .src = addr, .value = value, .flag = flag};
    if (sim_stream_recording(s)) {
        sim_record_task(s, &t);
        return;
    }
    lock();
    submit_control(s, &t);
    unlock();
}
