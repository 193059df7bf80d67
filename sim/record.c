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
 * Called by stream.c and queue.c (recording) and graph.c (ownership);
 * calls only task.c.
 */
#include "base/mem.h"
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
    for (struct sim_task *t = r->head, *next; t; t = next) {
        next = t->next;
        base_free(t->staging);
        base_free(t);
    }
    pthread_mutex_destroy(&r->lock);
}

enum sim_rc sim_record_task(struct sim_stream *s, const struct sim_task *t)
{
    struct sim_record *r = atomic_load_explicit(&s->rec, memory_order_acquire);
    struct sim_task *q = sim_task_keep(t, false);
    if (!q)
        return SIM_EHOSTMEM;
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
                                  t->kind == SIM_T_CNT_RESET))
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
