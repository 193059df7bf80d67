/*
 * graph.c - graphs: the work streams captured, launched again and again.
 *
 * A graph starts with the stream that begins the capture (lane 0); a
 * stream that waits on an event recorded in the capture joins it (the ACL
 * layer decides, sim_graph_join) as the next lane. While they capture,
 * their tasks go to the graph's record (record.c) in enqueue order. A
 * launch submits the record again through stream.c: lane 0's tasks on the
 * launch stream, each other lane's on a stream of the graph's own, created
 * on the first launch (as CANN's runtime runs a model on streams of its
 * own), so the captured cross-stream records and waits order them as they
 * did the originals. Launches of one graph are serialised, so two replays
 * never interleave on the graph's streams; each is ordered on its launch
 * stream like any other work.
 *
 * Labels: a switch reads its index when the launch reaches it (the work
 * before it on its stream has run then, unless a wait holds that stream)
 * and the launch goes on from the label's place in the record; a launch
 * that passes more than a bound of tasks (a loop that never ends) stops.
 *
 * Task groups and conditional tasks are one task each in the record,
 * which a launch submits like any other; the stream that reaches it runs
 * what it stands for then (record.c, queue.c). The graph owns its groups,
 * its conditional tasks and their sub-graphs; a sub-graph captures like a
 * graph (sim_graph_begin_into) and is only ever run through its
 * condition, all its lanes' tasks on the stream that reached it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/mem.h"
#include "hb.h"
#include "internal.h"
#include "queue.h"
#include "trace.h"

#define LANES 32

struct sim_graph {
    int32_t dev;
    struct sim_record rec;
    pthread_mutex_t launch; /* one launch at a time; guards own[] */
    unsigned n_lanes;
    struct sim_stream *lane[LANES]; /* the capturing streams, until the end */
    struct sim_stream *own[LANES];  /* lanes > 0: the graph's streams */
    /* Every device range of the record was live when sim_mem_frees said
     * `frees` (checked: a launch looked), so it still is while it says so:
     * replays then skip the per-task lookups. Under the launch lock. */
    bool checked;
    uint64_t frees;
    /* Lanes whose tasks were cleared (aclrtPersistentTaskClean): bit i set,
     * launches skip lane i's tasks. */
    _Atomic uint32_t cleaned;
    char label[96]; /* for the trace; under the launch lock */
    /* What the record's SIM_T_GROUP and SIM_T_COND tasks point at (under
     * rec.lock). */
    struct sim_group *groups;
    struct sim_cond *conds;
};

/* ---- Labels ---- */

struct sim_label {
    int unused;
};
struct sim_label_list {
    size_t n;
    struct sim_label *l[];
};

enum sim_rc sim_label_create(struct sim_label **out)
{
    *out = base_calloc(1, sizeof **out);
    return *out ? SIM_OK : SIM_EHOSTMEM;
}

void sim_label_destroy(struct sim_label *l)
{
    sim_record_forget(l);
    base_free(l);
}

enum sim_rc sim_label_list_create(struct sim_label *const *labels, size_t n,
                                  struct sim_label_list **out)
{
    struct sim_label_list *l = base_malloc(sizeof *l + n * sizeof l->l[0]);
    if (!l)
        return SIM_EHOSTMEM;
    l->n = n;
    for (size_t i = 0; i < n; i++)
        l->l[i] = labels[i];
    *out = l;
    return SIM_OK;
}

void sim_label_list_destroy(struct sim_label_list *l)
{
    sim_record_forget(l);
    base_free(l);
}

enum sim_rc sim_label_set(struct sim_label *l, struct sim_stream *s)
{
    if (!sim_stream_recording(s))
        return SIM_EUNSUPPORTED;
    struct sim_task t = {.kind = SIM_T_LABEL, .obj = l};
    return sim_record_task(s, &t);
}

enum sim_rc sim_label_switch(const void *index, struct sim_label_list *list,
                             struct sim_stream *s)
{
    if (!sim_stream_recording(s))
        return SIM_EUNSUPPORTED;
    struct sim_task t = {.kind = SIM_T_SWITCH, .src = index, .src_dev = true, .obj = list};
    return sim_record_task(s, &t);
}

/* Where a launch that reached switch t goes on: the task after the label
 * its index names, or NULL (no such label in the record: the end). */
static const struct sim_task *jump(const struct sim_graph *g, const struct sim_task *t)
{
    const struct sim_label_list *list = t->obj;
    uint32_t i = 0;
    if (!list || list->n == 0 || sim_mem_copy(&i, false, t->src, true, sizeof i) != SIM_OK)
        return t->next;
    const void *label = list->l[i < list->n ? i : list->n - 1];
    for (const struct sim_task *u = g->rec.head; u; u = u->next)
        if (u->kind == SIM_T_LABEL && u->obj == label)
            return u->next;
    return NULL;
}

#define JUMP_BOUND (1u << 24) /* tasks one launch may pass through jumps */

/* A new, empty graph of device dev. */
static struct sim_graph *graph_new(int32_t dev)
{
    struct sim_graph *g = base_calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->dev = dev;
    sim_record_init(&g->rec);
    pthread_mutex_init(&g->launch, NULL);
    return g;
}

enum sim_rc sim_graph_begin_into(struct sim_stream *s, struct sim_graph *g)
{
    g->n_lanes = 1;
    g->lane[0] = s;
    s->lane = 0;
    atomic_store_explicit(&s->rec, &g->rec, memory_order_release);
    return SIM_OK;
}

enum sim_rc sim_graph_begin(struct sim_stream *s, struct sim_graph **out)
{
    struct sim_graph *g = graph_new(s->dev);
    if (!g)
        return SIM_EHOSTMEM;
    sim_graph_begin_into(s, g);
    *out = g;
    return SIM_OK;
}

enum sim_rc sim_graph_join(struct sim_graph *g, struct sim_stream *s)
{
    pthread_mutex_lock(&g->rec.lock);
    enum sim_rc rc = SIM_OK;
    if (g->n_lanes == LANES) {
        rc = SIM_ENOMEM;
    } else {
        s->lane = g->n_lanes;
        g->lane[g->n_lanes++] = s;
        atomic_store_explicit(&s->rec, &g->rec, memory_order_release);
    }
    pthread_mutex_unlock(&g->rec.lock);
    return rc;
}

struct sim_graph *sim_stream_graph(struct sim_stream *s)
{
    struct sim_record *r = atomic_load_explicit(&s->rec, memory_order_acquire);
    return r ? (struct sim_graph *)((char *)r - offsetof(struct sim_graph, rec)) : NULL;
}

void sim_graph_end(struct sim_graph *g)
{
    pthread_mutex_lock(&g->rec.lock);
    for (unsigned i = 0; i < g->n_lanes; i++)
        if (g->lane[i]) {
            atomic_store_explicit(&g->lane[i]->grp, NULL, memory_order_release);
            atomic_store_explicit(&g->lane[i]->rec, NULL, memory_order_release);
            g->lane[i] = NULL;
        }
    pthread_mutex_unlock(&g->rec.lock);
}

unsigned sim_graph_tasks(struct sim_graph *g)
{
    pthread_mutex_lock(&g->rec.lock);
    unsigned n = g->rec.n;
    pthread_mutex_unlock(&g->rec.lock);
    return n;
}

/* The graph's own streams for lanes 1.. (launch lock held). */
static enum sim_rc own_streams(struct sim_graph *g)
{
    for (unsigned i = 1; i < g->n_lanes; i++)
        if (!g->own[i] && sim_stream_create(g->dev, &g->own[i]) != SIM_OK)
            return SIM_ENOMEM;
    return SIM_OK;
}

/* Note the host views of a live copy or fill (none when a range is not
 * contiguous in them). */
static void view(struct sim_task *t)
{
    t->hdst = NULL;
    t->hsrc = NULL;
    if (t->kind != SIM_T_COPY && t->kind != SIM_T_FILL)
        return;
    void *d = sim_mem_view(t->dst, t->dst_dev, t->n);
    const void *src = t->kind == SIM_T_COPY ? sim_mem_view(t->src, t->src_dev, t->n) : NULL;
    if (d && (src || t->kind == SIM_T_FILL)) {
        t->hdst = d;
        t->hsrc = src;
    }
}

/* Whether the record's memory is known live now (launch lock held); when
 * it was checked again, each copy and fill notes its host views. */
static bool record_live(struct sim_graph *g)
{
    uint64_t f = sim_mem_frees();
    if (g->checked && g->frees == f)
        return true;
    for (struct sim_task *t = g->rec.head; t; t = t->next) {
        t->hdst = NULL;
        if (!sim_task_memory_live(t))
            return false;
    }
    for (struct sim_task *t = g->rec.head; t; t = t->next)
        view(t);
    g->checked = true;
    g->frees = f;
    return true;
}

/* The edges of records and waits whose handles were destroyed after the
 * capture (SIM_NOP_MARK / SIM_NOP_WAIT): the clock of each key's last
 * mark in this replay, so a wait later in the record joins it. */
struct edges {
    size_t n, cap;
    struct {
        const void *key;
        struct sim_hb_vc vc;
    } *e;
};

static void kept_edge(struct edges *ed, struct sim_stream *s, const struct sim_task *t)
{
    size_t i = 0;
    while (i < ed->n && ed->e[i].key != t->obj)
        i++;
    if (t->flag == SIM_NOP_WAIT) {
        if (i < ed->n)
            sim_hb_wait(s, &ed->e[i].vc);
        return;
    }
    if (i == ed->n) {
        if (ed->n == ed->cap) {
            /* Bookkeeping fault injection must not fail: without room the
             * edge is lost, which can only add reports, never hide one. */
            size_t cap = ed->cap ? 2 * ed->cap : 8;
            void *e = base_realloc_plain(ed->e, cap * sizeof *ed->e);
            if (!e)
                return;
            ed->e = e;
            ed->cap = cap;
        }
        ed->e[ed->n].key = t->obj;
        ed->e[ed->n].vc = (struct sim_hb_vc){0};
        ed->n++;
    }
    sim_hb_mark(&ed->e[i].vc, s, false);
}

static void edges_free(struct edges *ed)
{
    for (size_t i = 0; i < ed->n; i++)
        sim_hb_vc_free(&ed->e[i].vc);
    base_free(ed->e);
}

void sim_graph_label(struct sim_graph *g, const char *label)
{
    pthread_mutex_lock(&g->launch);
    snprintf(g->label, sizeof g->label, "%s", label);
    pthread_mutex_unlock(&g->launch);
}

enum sim_rc sim_graph_launch(struct sim_graph *g, struct sim_stream *s)
{
    pthread_mutex_lock(&g->launch);
    enum sim_rc rc = own_streams(g);
    /* The replay's slice: from where s and the host are to s's new tail. */
    sim_ps from = 0;
    if (sim_trace_enabled()) {
        sim_ps tail = sim_clock_stream_now(&s->clk), host = sim_clock_host();
        from = tail > host ? tail : host;
    }
    if (rc == SIM_OK) {
        /* The record is complete: only sim_record_forget changes it now,
         * turning tasks into no-ops under its lock. */
        /* Faults the replayed tasks raise wait until the record's lock is
         * given back: the handler may destroy an event, which takes it. */
        sim_task_faults_defer();
        pthread_mutex_lock(&g->rec.lock);
        sim_queue_tag(&g->rec); /* what it queues, for aclmdlRIAbort */
        bool live = record_live(g);
        /* Happens-before: the lanes start after the launch stream's work so
         * far, and its later work follows all of theirs. */
        for (unsigned i = 1; i < g->n_lanes; i++)
            if (g->own[i])
                sim_hb_fork(g->own[i], s);
        sim_hb_graph(g);
        struct edges kept = {0};
        unsigned long passed = 0;
        for (const struct sim_task *t = g->rec.head; t;) {
            if (t->kind == SIM_T_SWITCH) {
                t = ++passed < JUMP_BOUND ? jump(g, t) : NULL;
                continue;
            }
            if ((atomic_load_explicit(&g->cleaned, memory_order_relaxed) >> t->lane) & 1u) {
                t = t->next; /* its stream's tasks were cleared */
                continue;
            }
            if (t->kind == SIM_T_NOP && t->flag != SIM_NOP_PLAIN && sim_hb_on()) {
                kept_edge(&kept, t->lane ? g->own[t->lane] : s, t);
                t = t->next;
                continue;
            }
            bool data = t->kind >= SIM_T_COPY && t->kind <= SIM_T_FILL32;
            /* not live: every view is dropped, each task checks its own */
            enum sim_rc r = sim_stream_replay(t->lane ? g->own[t->lane] : s, t, live && data);
            if (r != SIM_OK && rc == SIM_OK)
                rc = r;
            t = t->next;
        }
        sim_hb_graph(NULL);
        edges_free(&kept);
        for (unsigned i = 1; i < g->n_lanes; i++)
            if (g->own[i])
                sim_hb_join(s, g->own[i]);
        sim_queue_tag(NULL);
        pthread_mutex_unlock(&g->rec.lock);
        sim_task_faults_raise();
        if (sim_trace_enabled())
            sim_trace_replay(s->clk.device, s->clk.id, from, sim_clock_stream_now(&s->clk),
                             g->label[0] ? g->label : NULL);
    }
    pthread_mutex_unlock(&g->launch);
    return rc;
}

void sim_graph_clean_lane(struct sim_graph *g, unsigned lane)
{
    if (lane < LANES)
        atomic_fetch_or(&g->cleaned, 1u << lane);
}

/* ---- Task groups ---- */

enum sim_rc sim_group_begin(struct sim_stream *s, struct sim_group **out)
{
    struct sim_graph *g = sim_stream_graph(s);
    struct sim_group *grp = base_calloc(1, sizeof *grp);
    if (!grp)
        return SIM_EHOSTMEM;
    pthread_mutex_init(&grp->lock, NULL);
    grp->tail = &grp->head;
    struct sim_task t = {.kind = SIM_T_GROUP, .obj = grp};
    enum sim_rc rc = sim_record_task(s, &t);
    if (rc != SIM_OK) {
        pthread_mutex_destroy(&grp->lock);
        base_free(grp);
        return rc;
    }
    pthread_mutex_lock(&g->rec.lock);
    grp->next = g->groups;
    g->groups = grp;
    pthread_mutex_unlock(&g->rec.lock);
    atomic_store_explicit(&s->grp, grp, memory_order_release);
    *out = grp;
    return SIM_OK;
}

struct sim_group *sim_stream_group(struct sim_stream *s)
{
    return atomic_load_explicit(&s->grp, memory_order_acquire);
}

void sim_group_end(struct sim_stream *s)
{
    atomic_store_explicit(&s->grp, NULL, memory_order_release);
}

unsigned sim_group_tasks(struct sim_group *grp)
{
    pthread_mutex_lock(&grp->lock);
    unsigned n = grp->n;
    pthread_mutex_unlock(&grp->lock);
    return n;
}

void sim_group_update(struct sim_stream *s, struct sim_group *grp)
{
    s->upd_next = 0;
    atomic_store_explicit(&s->upd, grp, memory_order_release);
}

/* ---- Conditional tasks ---- */

enum sim_rc sim_graph_cond(struct sim_stream *s, const void *word, int type, unsigned n,
                           struct sim_graph **subs)
{
    struct sim_graph *g = sim_stream_graph(s);
    struct sim_cond *c = base_calloc(1, sizeof *c + n * sizeof c->sub[0]);
    if (!c)
        return SIM_EHOSTMEM;
    c->word = word;
    c->type = type;
    c->n = n;
    for (unsigned i = 0; i < n; i++) {
        subs[i] = graph_new(g->dev);
        if (!subs[i]) {
            while (i-- > 0)
                sim_graph_destroy(subs[i]);
            base_free(c);
            return SIM_EHOSTMEM;
        }
        c->sub[i] = &subs[i]->rec;
    }
    struct sim_task t = {.kind = SIM_T_COND, .obj = c};
    enum sim_rc rc = sim_record_task(s, &t);
    if (rc != SIM_OK) {
        for (unsigned i = 0; i < n; i++)
            sim_graph_destroy(subs[i]);
        base_free(c);
        return rc;
    }
    pthread_mutex_lock(&g->rec.lock);
    c->next = g->conds;
    g->conds = c;
    pthread_mutex_unlock(&g->rec.lock);
    return SIM_OK;
}

/* ---- Edits and aborts ---- */

void *sim_stream_last_recorded(struct sim_stream *s)
{
    return atomic_load_explicit(&s->last_rec, memory_order_relaxed);
}

/* Change t as `how` says. pre: the lock of t's list held. */
static void edit(struct sim_task *t, int how, void *addr, uint64_t value, uint32_t flag)
{
    base_free(t->staging); /* an operator's description, a staged source */
    t->staging = NULL;
    t->obj = NULL;
    if (how == SIM_EDIT_DISABLE) {
        t->kind = SIM_T_NOP;
        t->flag = SIM_NOP_PLAIN; /* a disabled task orders nothing (launch's edges) */
    } else if (how == SIM_EDIT_VALUE_WRITE) {
        t->kind = SIM_T_VALUE_WRITE;
        t->dst = addr;
        t->value = value;
    } else {
        t->kind = SIM_T_VALUE_WAIT;
        t->src = addr;
        t->value = value;
        t->flag = flag;
    }
}

enum sim_rc sim_graph_edit(struct sim_graph *g, void *task, int how, void *addr, uint64_t value,
                           uint32_t flag)
{
    bool found = false;
    pthread_mutex_lock(&g->rec.lock);
    for (struct sim_task *t = g->rec.head; t && !found; t = t->next)
        if (t == task) {
            edit(t, how, addr, value, flag);
            found = true;
        }
    g->checked = false; /* the views of its copies and fills are looked up again */
    for (struct sim_group *grp = g->groups; grp && !found; grp = grp->next) {
        pthread_mutex_lock(&grp->lock);
        for (struct sim_task *t = grp->head; t && !found; t = t->next)
            if (t == task) {
                edit(t, how, addr, value, flag);
                found = true;
            }
        pthread_mutex_unlock(&grp->lock);
    }
    pthread_mutex_unlock(&g->rec.lock);
    return found ? SIM_OK : SIM_EINVAL;
}

void sim_graph_abort(struct sim_graph *g)
{
    sim_queue_abort(&g->rec);
}

static struct sim_graph *graph_of_record(struct sim_record *r)
{
    return (struct sim_graph *)((char *)r - offsetof(struct sim_graph, rec));
}

void sim_graph_destroy(struct sim_graph *g)
{
    /* Queued copies of its groups and conditions (and updates of its
     * groups) become no-ops first: nothing points at them after. */
    while (g->conds) {
        struct sim_cond *c = g->conds;
        g->conds = c->next;
        sim_queue_forget(c);
        for (unsigned i = 0; i < c->n; i++)
            sim_graph_destroy(graph_of_record(c->sub[i]));
        base_free(c);
    }
    while (g->groups) {
        struct sim_group *grp = g->groups;
        g->groups = grp->next;
        sim_queue_forget(grp);
        sim_task_free_list(grp->head);
        pthread_mutex_destroy(&grp->lock);
        base_free(grp);
    }
    for (unsigned i = 1; i < LANES; i++)
        if (g->own[i])
            sim_stream_destroy(g->own[i]);
    sim_record_fini(&g->rec);
    pthread_mutex_destroy(&g->launch);
    base_free(g);
}
