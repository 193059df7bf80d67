/*
 * queue.c - waits that hold a stream: notifies, value waits, and events
 * whose record is itself held (sim.h describes the model).
 *
 * A held stream has one record here: what it waits for and the work queued
 * behind it, in order. Whatever satisfies a wait (a notify record, a value
 * write, an event record reached by another stream) releases the stream at
 * the simulated time it happens and replays its queue until the queue is
 * empty or another wait holds the stream again. Everything here runs under
 * one mutex (the hold lock); the clock's and the devices' locks are taken
 * inside it, never the other way round. The fast path of a copy on a stream
 * that is not held only looks the stream up.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/mem.h"
#include "queue.h"

enum hold_on { H_NONE, H_NOTIFY, H_EVENT, H_VALUE, H_ORPHAN };

struct held {
    struct sim_stream *s;
    enum hold_on on; /* what holds the stream (H_NONE: its queue is replaying) */
    const void *obj;   /* the notify or event waited for */
    const void *addr;  /* a value wait's address, value and condition */
    uint64_t value;
    uint32_t flag;
    sim_ps deadline;   /* when the wait times out (SIM_PS_FOREVER: never) */
    struct sim_task *head, **tail;
    struct held *next;
};

struct sim_notify {
    int32_t dev;
    uint32_t id;
    bool set;  /* recorded and not yet consumed by a wait */
    sim_ps at; /* when the record completed */
};

static pthread_mutex_t glock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER; /* a stream was released */
static struct held *helds;
static unsigned value_waits; /* held streams waiting for a value */
static _Atomic unsigned nheld; /* fast path: nothing is held */
static _Atomic uint32_t grace_ms = 60000;
static uint32_t next_notify_id[SIM_MAX_DEVICES];
static unsigned live_notifies[SIM_MAX_DEVICES];

void sim_hold_configure(uint32_t ms)
{
    atomic_store(&grace_ms, ms);
}

/* ---- held streams (glock held) ---- */

static struct held *find(const struct sim_stream *s)
{
    for (struct held *h = helds; h; h = h->next)
        if (h->s == s)
            return h;
    return NULL;
}

static struct held *hold(struct sim_stream *s)
{
    struct held *h = find(s);
    if (h)
        return h;
    h = base_calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->s = s;
    h->tail = &h->head;
    h->deadline = SIM_PS_FOREVER;
    h->next = helds;
    helds = h;
    atomic_fetch_add(&nheld, 1);
    return h;
}

static void set_hold(struct held *h, enum hold_on g)
{
    if (h->on == H_VALUE)
        value_waits--;
    h->on = g;
    if (g == H_VALUE)
        value_waits++;
}

static void free_task(struct sim_task *t)
{
    /* A record that never ran leaves its event never recorded. */
    if (t->kind == SIM_T_RECORD) {
        sim_ps pending = SIM_MARK_PENDING;
        atomic_compare_exchange_strong(((struct sim_event *)t->obj)->mark, &pending, 0);
    }
    base_free(t->staging);
    base_free(t);
}

/* Unlink h and free it with its queue. */
static void unhold(struct held *h)
{
    for (struct held **p = &helds; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    set_hold(h, H_NONE);
    while (h->head) {
        struct sim_task *t = h->head;
        h->head = t->next;
        free_task(t);
    }
    base_free(h);
    atomic_fetch_sub(&nheld, 1);
    pthread_cond_broadcast(&changed);
}

static bool value_met(const void *addr, uint64_t want, uint32_t flag)
{
    struct sim_block b;
    uint64_t v;
    if (!sim_mem_lookup(addr, &b) || (const char *)addr + 8 > (const char *)b.start + b.usable ||
        sim_mem_copy(&v, false, addr, true, 8) != SIM_OK)
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

/* Whether [p, p+n) is still inside one live device block. */
static bool live(const void *p, size_t n)
{
    struct sim_block b;
    return sim_mem_lookup(p, &b) && (const char *)p + n <= (const char *)b.start + b.usable;
}

static void release(struct held *h, sim_ps t);
static void wake_event(const struct sim_event *e, sim_ps at);
static void wake_values(sim_ps at);

/* Run one task on s now. Returns true when a wait holds s again (h, made
 * if needed, says for what). pre: glock held. */
static bool run(struct sim_stream *s, struct sim_task *t, bool replay)
{
    struct held *h;
    switch (t->kind) {
    case SIM_T_COPY:
        if ((!t->dst_dev || live(t->dst, t->n)) && (!t->src_dev || live(t->src, t->n)))
            sim_copy_run(s->dev, s, t->dst, t->dst_dev, t->staging ? t->staging : t->src,
                         t->src_dev, t->n, false);
        if (value_waits && t->dst_dev)
            wake_values(sim_clock_stream_now(&s->clk));
        return false;
    case SIM_T_FILL:
        if (!t->dst_dev || live(t->dst, t->n))
            sim_fill_run(s->dev, s, t->dst, t->dst_dev, t->fill, t->n, false);
        if (value_waits && t->dst_dev)
            wake_values(sim_clock_stream_now(&s->clk));
        return false;
    case SIM_T_FILL32:
        if (!t->dst_dev || live(t->dst, t->n))
            sim_fill32_run(s->dev, s, t->dst, t->dst_dev, (uint32_t)t->value, t->n / 4, false);
        if (value_waits && t->dst_dev)
            wake_values(sim_clock_stream_now(&s->clk));
        return false;
    case SIM_T_RECORD: {
        struct sim_event *e = t->obj;
        /* A replayed record completes where the stream is; an enqueued one
         * also pays the host's call. */
        sim_ps at = replay ? sim_clock_release(&s->clk, 0) : sim_clock_record(&s->clk);
        sim_ev_set(e, at + 1);
        wake_event(e, at);
        return false;
    }
    case SIM_T_WAIT_EVENT: {
        const struct sim_event *e = t->obj;
        sim_ps m = sim_ev_mark(e);
        if (m == SIM_MARK_PENDING) {
            if (!(h = hold(s)))
                return false; /* no memory to hold: do not wait */
            set_hold(h, H_EVENT);
            h->obj = e;
            h->deadline = SIM_PS_FOREVER;
            return true;
        }
        if (m)
            replay ? sim_clock_release(&s->clk, m - 1) : sim_clock_wait(&s->clk, m - 1);
        return false;
    }
    case SIM_T_NOTIFY_RECORD: {
        struct sim_notify *n = t->obj;
        sim_ps at = replay ? sim_clock_release(&s->clk, 0) : sim_clock_record(&s->clk);
        n->set = true;
        n->at = at;
        for (h = helds; h; h = h->next)
            if (h->on == H_NOTIFY && h->obj == n) {
                n->set = false;
                release(h, at);
                break;
            }
        return false;
    }
    case SIM_T_NOTIFY_WAIT: {
        struct sim_notify *n = t->obj;
        if (n->set) {
            n->set = false;
            replay ? sim_clock_release(&s->clk, n->at) : sim_clock_wait(&s->clk, n->at);
            return false;
        }
        sim_ps from = replay ? sim_clock_release(&s->clk, 0) : sim_clock_record(&s->clk);
        if (!(h = hold(s)))
            return false;
        set_hold(h, H_NOTIFY);
        h->obj = n;
        h->deadline = t->value ? from + t->value * 1000000000000ull : SIM_PS_FOREVER;
        return true;
    }
    case SIM_T_VALUE_WRITE: {
        sim_ps at = replay ? sim_clock_release(&s->clk, 0) : sim_clock_record(&s->clk);
        if (live(t->dst, 8))
            sim_mem_copy(t->dst, true, &t->value, false, 8);
        if (value_waits)
            wake_values(at);
        return false;
    }
    case SIM_T_VALUE_WAIT: {
        if (!replay)
            sim_clock_record(&s->clk); /* the host enqueues it */
        if (value_met(t->src, t->value, t->flag))
            return false;
        if (!(h = hold(s)))
            return false;
        set_hold(h, H_VALUE);
        h->addr = t->src;
        h->value = t->value;
        h->flag = t->flag;
        h->deadline = SIM_PS_FOREVER;
        return true;
    }
    case SIM_T_BUILTIN:
        sim_builtin_run(s, t->obj);
        if (value_waits)
            wake_values(sim_clock_stream_now(&s->clk));
        return false;
    default:
        return false;
    }
}

/* The wait holding h is satisfied at t: replay its queue. */
static void release(struct held *h, sim_ps t)
{
    struct sim_stream *s = h->s;
    set_hold(h, H_NONE);
    sim_clock_release(&s->clk, t);
    while (h->head) {
        struct sim_task *task = h->head;
        h->head = task->next;
        if (!h->head)
            h->tail = &h->head;
        bool again = run(s, task, true);
        task->kind = SIM_T_NOP; /* its event, if any, is no longer pending */
        free_task(task);
        if (again)
            return; /* h holds s again; the rest stays queued */
    }
    unhold(h);
}

static void wake_event(const struct sim_event *e, sim_ps at)
{
    for (bool again = true; again;) {
        again = false;
        for (struct held *h = helds; h; h = h->next)
            if (h->on == H_EVENT && sim_ev_same(h->obj, e)) {
                release(h, at);
                again = true; /* the list may have changed */
                break;
            }
    }
}

static void wake_values(sim_ps at)
{
    for (bool again = true; again && value_waits;) {
        again = false;
        for (struct held *h = helds; h; h = h->next)
            if (h->on == H_VALUE && value_met(h->addr, h->value, h->flag)) {
                release(h, at);
                again = true;
                break;
            }
    }
}

/* Queue a copy of t behind h's wait. */
static enum sim_rc enqueue(struct held *h, const struct sim_task *t)
{
    struct sim_task *q = base_malloc(sizeof *q);
    if (!q)
        return SIM_EHOSTMEM;
    *q = *t;
    q->next = NULL;
    q->staging = NULL;
    if (t->kind == SIM_T_COPY && !t->src_dev && t->n > 0) {
        /* The runtime stages host sources when the copy is enqueued. */
        q->staging = base_malloc(t->n);
        if (!q->staging) {
            base_free(q);
            return SIM_EHOSTMEM;
        }
        memcpy(q->staging, t->src, t->n);
    }
    if (t->kind == SIM_T_BUILTIN) {
        /* The task's description is the caller's: keep a copy. */
        q->staging = base_malloc(sizeof(struct sim_builtin));
        if (!q->staging) {
            base_free(q);
            return SIM_EHOSTMEM;
        }
        memcpy(q->staging, t->obj, sizeof(struct sim_builtin));
        q->obj = q->staging;
    }
    if (t->kind == SIM_T_RECORD)
        sim_ev_set(t->obj, SIM_MARK_PENDING);
    *h->tail = q;
    h->tail = &q->next;
    return SIM_OK;
}

/* Enqueue t on s: behind a wait that holds s, or now. pre: glock held. */
static void submit(struct sim_stream *s, struct sim_task *t)
{
    struct held *h = find(s);
    if (h && enqueue(h, t) == SIM_OK)
        return;
    /* Not held (or no host memory to queue: then it runs now, out of
     * order, rather than not at all). */
    run(s, t, false);
}

/* ---- holds, for stream.c ---- */

enum sim_rc sim_hold_queue(struct sim_stream *s, const struct sim_task *t, bool *queued)
{
    *queued = false;
    if (atomic_load(&nheld) == 0)
        return SIM_OK;
    pthread_mutex_lock(&glock);
    struct held *h = find(s);
    enum sim_rc rc = SIM_OK;
    if (h) {
        rc = enqueue(h, t);
        *queued = rc == SIM_OK;
    }
    pthread_mutex_unlock(&glock);
    return rc;
}

void sim_hold_poke(struct sim_stream *s)
{
    if (atomic_load(&nheld) == 0)
        return;
    pthread_mutex_lock(&glock);
    if (value_waits)
        wake_values(sim_clock_stream_now(&s->clk));
    pthread_mutex_unlock(&glock);
}

bool sim_stream_held(struct sim_stream *s)
{
    if (atomic_load(&nheld) == 0)
        return false;
    pthread_mutex_lock(&glock);
    bool held = find(s) != NULL;
    pthread_mutex_unlock(&glock);
    return held;
}

void sim_hold_record(struct sim_event *e, struct sim_stream *s)
{
    struct sim_task t = {.kind = SIM_T_RECORD, .obj = e};
    pthread_mutex_lock(&glock);
    submit(s, &t);
    pthread_mutex_unlock(&glock);
}

void sim_hold_wait_event(struct sim_stream *s, const struct sim_event *e)
{
    struct sim_task t = {.kind = SIM_T_WAIT_EVENT, .obj = (void *)e};
    pthread_mutex_lock(&glock);
    submit(s, &t);
    pthread_mutex_unlock(&glock);
}

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
 * at all in a process of one thread. pre: glock held. */
static void grace_wait(bool (*done)(const void *arg), const void *arg)
{
    if (!done(arg) && only_thread())
        return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint32_t ms = atomic_load(&grace_ms);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!done(arg))
        if (pthread_cond_timedwait(&changed, &glock, &until) == ETIMEDOUT)
            break;
}

static bool not_held(const void *s)
{
    return find(s) == NULL;
}

/* Settle h, which nothing satisfied within the grace: its wait times out
 * (the stream fails at the deadline, its queue dropped), or the host's
 * limit runs out, or, with neither, SIM_EWAIT and h stays. pre: glock. */
static enum sim_rc settle(struct held *h, int32_t timeout_ms)
{
    sim_ps limit = timeout_ms < 0 ? SIM_PS_FOREVER : (sim_ps)timeout_ms * 1000000000u;
    sim_ps now = sim_clock_host();
    bool in_time = limit == SIM_PS_FOREVER || (now + limit > now && h->deadline <= now + limit);
    if (h->deadline != SIM_PS_FOREVER && in_time) {
        sim_clock_host_wait(h->deadline, SIM_PS_FOREVER, NULL);
        sim_clock_release(&h->s->clk, h->deadline);
        unhold(h);
        return SIM_EWAIT;
    }
    if (limit != SIM_PS_FOREVER) {
        bool late = false;
        sim_clock_host_wait(SIM_PS_FOREVER, limit, &late);
        return SIM_ETIMEOUT;
    }
    return SIM_EWAIT;
}

enum sim_rc sim_hold_sync(struct sim_stream *s, int32_t timeout_ms, bool *held)
{
    *held = false;
    if (atomic_load(&nheld) == 0)
        return SIM_OK;
    pthread_mutex_lock(&glock);
    enum sim_rc rc = SIM_OK;
    if (find(s)) {
        grace_wait(not_held, s);
        struct held *h = find(s);
        if (h) {
            *held = true;
            rc = settle(h, timeout_ms);
        }
    }
    pthread_mutex_unlock(&glock);
    return rc;
}

static bool device_free(const void *arg)
{
    int32_t dev = *(const int32_t *)arg;
    for (struct held *h = helds; h; h = h->next)
        if (h->s->dev == dev)
            return false;
    return true;
}

enum sim_rc sim_hold_sync_device(int32_t dev)
{
    if (atomic_load(&nheld) == 0)
        return SIM_OK;
    pthread_mutex_lock(&glock);
    enum sim_rc rc = SIM_OK;
    if (!device_free(&dev)) {
        grace_wait(device_free, &dev);
        /* A held stream whose wait times out fails (and goes); the first
         * that cannot be settled fails the synchronisation. */
        for (;;) {
            struct held *h = helds;
            while (h && h->s->dev != dev)
                h = h->next;
            if (!h)
                break;
            rc = SIM_EWAIT;
            if (h->deadline == SIM_PS_FOREVER)
                break;
            settle(h, -1);
        }
    }
    pthread_mutex_unlock(&glock);
    return rc;
}

static bool event_settled(const void *e)
{
    return sim_ev_mark(e) != SIM_MARK_PENDING;
}

enum sim_rc sim_hold_event_sync(struct sim_event *e, int32_t timeout_ms)
{
    pthread_mutex_lock(&glock);
    grace_wait(event_settled, e);
    enum sim_rc rc = SIM_OK;
    if (!event_settled(e)) {
        /* The stream whose queue holds the record settles for it. */
        struct held *h = helds;
        for (; h; h = h->next) {
            struct sim_task *t = h->head;
            while (t && !(t->kind == SIM_T_RECORD && sim_ev_same(t->obj, e)))
                t = t->next;
            if (t)
                break;
        }
        rc = h ? settle(h, timeout_ms) : SIM_EWAIT;
        if (rc == SIM_EWAIT && timeout_ms >= 0 && !event_settled(e))
            rc = SIM_ETIMEOUT;
    }
    pthread_mutex_unlock(&glock);
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

void sim_hold_drop(struct sim_stream *s)
{
    if (atomic_load(&nheld) == 0)
        return;
    pthread_mutex_lock(&glock);
    struct held *h = find(s);
    if (h)
        unhold(h);
    pthread_mutex_unlock(&glock);
}

void sim_hold_forget(const void *obj)
{
    if (atomic_load(&nheld) == 0)
        return;
    pthread_mutex_lock(&glock);
    for (struct held *h = helds; h; h = h->next) {
        if ((h->on == H_NOTIFY || h->on == H_EVENT) && h->obj == obj) {
            set_hold(h, H_ORPHAN); /* nothing can satisfy it any more */
            h->obj = NULL;
        }
        for (struct sim_task *t = h->head; t; t = t->next)
            if (t->obj == obj)
                t->kind = SIM_T_NOP;
    }
    pthread_mutex_unlock(&glock);
}

/* ---- notifies ---- */

enum sim_rc sim_notify_create(int32_t dev, struct sim_notify **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    struct sim_notify *n = base_calloc(1, sizeof *n);
    if (!n)
        return SIM_EHOSTMEM;
    pthread_mutex_lock(&glock);
    bool full = live_notifies[dev] >= p->max_events;
    if (!full) {
        live_notifies[dev]++;
        n->id = next_notify_id[dev]++;
    }
    pthread_mutex_unlock(&glock);
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
    sim_hold_forget(n);
    pthread_mutex_lock(&glock);
    live_notifies[n->dev]--;
    pthread_mutex_unlock(&glock);
    base_free(n);
}

void sim_notify_record(struct sim_notify *n, struct sim_stream *s)
{
    struct sim_task t = {.kind = SIM_T_NOTIFY_RECORD, .obj = n};
    pthread_mutex_lock(&glock);
    submit(s, &t);
    pthread_mutex_unlock(&glock);
}

void sim_notify_wait(struct sim_notify *n, struct sim_stream *s, uint32_t timeout_s)
{
    struct sim_task t = {.kind = SIM_T_NOTIFY_WAIT, .obj = n, .value = timeout_s};
    pthread_mutex_lock(&glock);
    submit(s, &t);
    pthread_mutex_unlock(&glock);
}

void sim_notify_reset(struct sim_notify *n)
{
    pthread_mutex_lock(&glock);
    n->set = false;
    pthread_mutex_unlock(&glock);
}

uint32_t sim_notify_id(const struct sim_notify *n)
{
    return n->id;
}

/* ---- value writes and waits ---- */

void sim_value_write(struct sim_stream *s, void *addr, uint64_t value)
{
    struct sim_task t = {.kind = SIM_T_VALUE_WRITE, .dst = addr, .value = value};
    pthread_mutex_lock(&glock);
    submit(s, &t);
    pthread_mutex_unlock(&glock);
}

void sim_value_wait(struct sim_stream *s, const void *addr, uint64_t value, uint32_t flag)
{
    struct sim_task t = {.kind = SIM_T_VALUE_WAIT, .src = addr, .value = value, .flag = flag};
    pthread_mutex_lock(&glock);
    submit(s, &t);
    pthread_mutex_unlock(&glock);
}
