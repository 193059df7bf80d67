/*
 * record.c - the tasks capturing streams record instead of running.
 *
 * While a stream captures (graph.c starts and ends it), every task a
 * program enqueues on it (copies, fills, 2-D copies, 32-bit fills,
 * migrations, waits until a time, event and notify records and waits,
 * value writes and waits, device tasks, operators) is kept here, in one
 * list per capture in the order the tasks were enqueued on all of its
 * streams, each tagged with its stream's lane. That order is one in which
 * the capture's cross-stream waits come after the records they wait for,
 * so a replay can submit the list as it stands.
 *
 * A recorded task owns the descriptions of device tasks and operators,
 * but not host sources: a replay reads the host memory of its moment, as
 * a captured copy from pinned memory does on the device. Events and
 * notifies, labels and label lists destroyed while a capture lives turn
 * their tasks into no-ops.
 * A capturing stream inside a task group records into the group instead
 * (a list of its own, one SIM_T_GROUP task in the record standing for it).
 * When a stream reaches a group or a conditional task, the tasks it stands
 * for at that moment are copied here for queue.c (sim_record_expand).
 * Called by stream.c and queue.c (recording, expanding) and graph.c
 * (ownership); calls only task.c and the device memory (copy.c).
 */
#include "base/mem.h"
#include "internal.h"
#include "queue.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_record *live;

void sim_record_init(struct sim_record *r)
{
    pthread_mutex_init(&r->lock, NULL);
    r->head = NULL;
    r->tail = &r->head;
    r->n = 0;
    pthread_mutex_lock(&list_lock);
    r->next = live;
    live = r;
    pthread_mutex_unlock(&list_lock);
}

void sim_record_fini(struct sim_record *r)
{
    pthread_mutex_lock(&list_lock);
    for (struct sim_record **p = &live; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&list_lock);
    sim_task_free_list(r->head);
    pthread_mutex_destroy(&r->lock);
}

/* The pinned or registered block the host side of copy or fill t lies in,
 * as the simulator numbers them (it can tell when that one is freed, even
 * when another block takes its place), or 0. */
static uint64_t host_block(const struct sim_task *t)
{
    struct sim_host_block b;
    const void *h = NULL;
    if (t->kind == SIM_T_COPY || t->kind == SIM_T_COPY2D)
        h = !t->src_dev ? t->src : !t->dst_dev ? t->dst : NULL;
    else if (t->kind == SIM_T_FILL || t->kind == SIM_T_FILL32)
        h = !t->dst_dev ? t->dst : NULL;
    return h && sim_host_find(h, &b) ? b.gen : 0;
}

enum sim_rc sim_record_task(struct sim_stream *s, const struct sim_task *t)
{
    struct sim_record *r = atomic_load_explicit(&s->rec, memory_order_acquire);
    struct sim_group *g = atomic_load_explicit(&s->grp, memory_order_acquire);
    struct sim_task *q = sim_task_keep(t, false);
    if (!q)
        return SIM_EHOSTMEM;
    q->from = r;
    q->hgen = host_block(t);
    atomic_store_explicit(&s->last_rec, q, memory_order_relaxed);
    if (g) {
        pthread_mutex_lock(&g->lock);
        q->lane = s->lane;
        *g->tail = q;
        g->tail = &q->next;
        g->n++;
        pthread_mutex_unlock(&g->lock);
        return SIM_OK;
    }
    pthread_mutex_lock(&r->lock);
    q->lane = s->lane;
    *r->tail = q;
    r->tail = &q->next;
    r->n++;
    pthread_mutex_unlock(&r->lock);
    return SIM_OK;
}

void sim_record_forget(const void *obj)
{
    pthread_mutex_lock(&list_lock);
    for (struct sim_record *r = live; r; r = r->next) {
        pthread_mutex_lock(&r->lock);
        for (struct sim_task *t = r->head; t; t = t->next)
            if (t->obj == obj && (t->kind == SIM_T_RECORD || t->kind == SIM_T_WAIT_EVENT ||
                                  t->kind == SIM_T_NOTIFY_RECORD || t->kind == SIM_T_NOTIFY_WAIT ||
                                  t->kind == SIM_T_LABEL || t->kind == SIM_T_SWITCH ||
                                  t->kind == SIM_T_CNT_RECORD || t->kind == SIM_T_CNT_WAIT ||
                                  t->kind == SIM_T_CNT_RESET || t->kind == SIM_T_EVENT_RESET))
            {
                bool mark = t->kind == SIM_T_RECORD || t->kind == SIM_T_NOTIFY_RECORD;
                bool wait = t->kind == SIM_T_WAIT_EVENT || t->kind == SIM_T_NOTIFY_WAIT;
                t->kind = SIM_T_NOP;
                t->flag = mark ? SIM_NOP_MARK : wait ? SIM_NOP_WAIT : SIM_NOP_PLAIN;
            }
        pthread_mutex_unlock(&r->lock);
    }
    pthread_mutex_unlock(&list_lock);
}

/* ---- Groups and conditional tasks, as a stream reaches them ---- */

#define WHILE_BOUND (1u << 20) /* iterations one WHILE may run in one replay */

/* Copies of the tasks from head on, linked (*tail: where the last one's
 * next is). false when host memory ran out (nothing kept). */
static bool copy_list(const struct sim_task *head, const void *from, struct sim_task **out,
                      struct sim_task ***tail)
{
    *out = NULL;
    *tail = out;
    for (const struct sim_task *t = head; t; t = t->next) {
        struct sim_task *q = sim_task_keep(t, true);
        if (q)
            q->from = from; /* the replay they belong to */
        if (!q) {
            sim_task_free_list(*out);
            *out = NULL;
            *tail = out;
            return false;
        }
        **tail = q;
        *tail = &q->next;
    }
    return true;
}

/* The sub-graph record a condition chooses now, or NULL (*again: a WHILE
 * runs its body, then tests again). */
static struct sim_record *choose(const struct sim_task *t, bool *again)
{
    const struct sim_cond *c = t->obj;
    uint64_t v = 0;
    *again = false;
    if (sim_mem_copy(&v, false, c->word, true, sizeof v) != SIM_OK)
        v = 0; /* a word no longer there reads as 0 */
    switch (c->type) {
    case SIM_COND_IF:
        return v ? c->sub[0] : (c->n > 1 ? c->sub[1] : NULL);
    case SIM_COND_SWITCH:
        return v < c->n ? c->sub[v] : NULL;
    default: /* SIM_COND_WHILE */
        *again = v != 0 && t->value < WHILE_BOUND;
        return *again ? c->sub[0] : NULL;
    }
}

enum sim_rc sim_record_expand(const struct sim_task *t, struct sim_task **out)
{
    struct sim_task **tail;
    *out = NULL;
    if (t->kind == SIM_T_GROUP) {
        struct sim_group *g = t->obj;
        pthread_mutex_lock(&g->lock);
        bool ok = copy_list(g->head, t->from, out, &tail);
        pthread_mutex_unlock(&g->lock);
        return ok ? SIM_OK : SIM_EHOSTMEM;
    }
    bool again = false;
    struct sim_record *r = choose(t, &again);
    if (!r)
        return SIM_OK;
    pthread_mutex_lock(&r->lock);
    bool ok = copy_list(r->head, t->from, out, &tail);
    pthread_mutex_unlock(&r->lock);
    if (ok && again) { /* the test again, after the body */
        struct sim_task *q = sim_task_keep(t, true);
        ok = q != NULL;
        if (q) {
            q->value++;
            *tail = q;
        }
    }
    if (!ok) {
        sim_task_free_list(*out);
        *out = NULL;
    }
    return ok ? SIM_OK : SIM_EHOSTMEM;
}

void sim_group_set(struct sim_group *g, struct sim_task *t)
{
    pthread_mutex_lock(&g->lock);
    struct sim_task *u = g->head;
    for (uint64_t i = 0; u && i < t->value; i++)
        u = u->next;
    if (u && u->kind == SIM_T_OP && t->staging) {
        void *old = u->staging;
        u->staging = t->staging;
        u->obj = t->staging;
        t->staging = old; /* freed with t */
    }
    pthread_mutex_unlock(&g->lock);
}
