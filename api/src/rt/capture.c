/*
 * capture.c - which streams capture, under which mode and thread, the
 * graphs (model runtime instances) their captures make, and the tasks each
 * capture recorded as the ACL layer saw them.
 *
 * The state lives here, in rt/, because the calls below the capture family
 * consult it: a synchronisation of a capturing stream, its events, its
 * device (107027, 107028), a synchronous copy under a mode that forbids it
 * (107030), a record or wait that pulls another stream into a capture.
 * The calls that enqueue work note each captured task here with the bytes
 * it touches (api_cap_note), which is what the allocator sanitizer checks
 * frees and blocks against, and what aclmdlRIGetTasksByStream and
 * aclmdlRIDebugJsonPrint show. The backend records the work itself
 * (be_ops.graph_*). Codes and texts are CANN's: hicann/runtime
 * src/runtime/feature/aclgraph/context_aclgraph.cc (begin, end, modes),
 * src/runtime/api/impl/api_error.cc and api_impl.cc (the refusals),
 * src/runtime/core/src/common/errcode_manage.cc (the codes' texts).
 *
 * Task groups, their updates and what a capture admits are capgroup.c's;
 * it shares this file's lock (internal.h).
 *
 * One lock guards everything here; the fast path of every check is one
 * atomic load (no capture anywhere). Unlike the rest of the ACL layer
 * (backends/be.h, the lock contract), it calls the backend's graph_begin,
 * graph_join, graph_end and event_info under that lock, so that the
 * capture state here and the backend's change together; they are short on
 * both backends (the real runtime takes its own capture lock for them).
 */
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "backends/be.h"
#include "base/mem.h"
#include "base/options.h"
#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t unused = PTHREAD_COND_INITIALIZER; /* a graph's users went */
static _Atomic unsigned capturing; /* graphs whose capture is under way */
static struct api_graph *graphs;   /* every live graph */
/* The list's links and the graphs' names are also changed under this one,
 * a leaf lock, so that a report can name a graph (api_graph_name_be) from
 * inside a replay, which holds backend locks that `lock` is taken before. */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned n_graphs;
static uint32_t next_id;

/* The calling thread's exchanged mode (aclmdlRICaptureThreadExchangeMode):
 * CANN's InnerThreadLocalContainer::exchangeCaptureMode_, GLOBAL at start. */
static _Thread_local int exchange_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

/* Events recorded in a capture under way: which graph, which lane. */
struct cap_event {
    const void *event;
    struct api_graph *g;
    unsigned lane;
};
static struct cap_event *events;
static size_t n_events, cap_events;

static uint64_t self(void)
{
    return (uint64_t)pthread_self();
}

uint32_t api_cap_stream_id(const void *stream)
{
    int32_t dev = 0;
    uint32_t id = 0;
    if (API_TOOL(stream_id))
        API_TOOL(stream_id)((void *)stream, &dev, &id);
    return id;
}

bool api_graphs_live(void)
{
    return atomic_load_explicit(&n_graphs, memory_order_relaxed) != 0;
}

bool api_cap_any(void)
{
    return atomic_load_explicit(&capturing, memory_order_acquire) != 0;
}

/* ---- Lookups (lock held) ---- */

static bool under_way(const struct api_graph *g)
{
    return g->status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE ||
           g->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED ||
           g->status == API_GRAPH_BUILDING;
}

void api_cap_lock(void)
{
    pthread_mutex_lock(&lock);
}

void api_cap_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

/* The graph whose capture stream s belongs to (*lane its lane), or NULL. */
static struct api_graph *capture_of(const void *s, unsigned *lane)
{
    for (struct api_graph *g = graphs; g; g = g->next) {
        if (!under_way(g))
            continue;
        for (unsigned i = 0; i < g->n_lanes; i++)
            if (g->lane[i] == s) {
                if (lane)
                    *lane = i;
                return g;
            }
    }
    return NULL;
}

struct api_graph *api_cap_find(const void *stream, unsigned *lane)
{
    return capture_of(stream, lane);
}

struct api_graph *api_graph_first(void)
{
    return graphs;
}

/* The built model stream is bound to, or NULL. pre: lock held. */
static struct api_graph *binder(const void *stream)
{
    for (struct api_graph *g = graphs; g; g = g->next)
        for (unsigned i = 0; g->built && !g->dying && i < g->n_lanes; i++)
            if (g->lane[i] == stream && !g->unbound[i])
                return g;
    return NULL;
}

bool api_graph_bound(const void *stream, uint32_t *id)
{
    pthread_mutex_lock(&lock);
    struct api_graph *g = binder(stream);
    if (g && id)
        *id = g->id;
    pthread_mutex_unlock(&lock);
    return g != NULL;
}

bool api_graph_bound_locked(const void *stream)
{
    return binder(stream) != NULL;
}

static struct cap_event *event_of(const void *e)
{
    for (size_t i = 0; i < n_events; i++)
        if (events[i].event == e)
            return &events[i];
    return NULL;
}

/* A new entry of events[] (NULL when host memory ran out). */
static struct cap_event *new_event(void)
{
    if (n_events == cap_events) {
        size_t c = cap_events ? cap_events * 2 : 16;
        struct cap_event *v = base_realloc(events, c * sizeof *v);
        if (!v)
            return NULL;
        events = v;
        cap_events = c;
    }
    return &events[n_events++];
}

static void forget_events(const struct api_graph *g)
{
    size_t k = 0;
    for (size_t i = 0; i < n_events; i++)
        if (events[i].g != g)
            events[k++] = events[i];
    n_events = k;
}

struct api_graph *api_graph_lookup(const void *handle)
{
    pthread_mutex_lock(&lock);
    struct api_graph *g = graphs;
    while (g && (g != handle || g->dying))
        g = g->next;
    pthread_mutex_unlock(&lock);
    return g;
}

struct api_graph *api_graph_get(const void *handle)
{
    pthread_mutex_lock(&lock);
    struct api_graph *g = graphs;
    while (g && (g != handle || g->dying))
        g = g->next;
    if (g)
        g->users++;
    pthread_mutex_unlock(&lock);
    return g;
}

void api_graph_put(struct api_graph *g)
{
    pthread_mutex_lock(&lock);
    if (--g->users == 0 && g->dying)
        pthread_cond_broadcast(&unused);
    pthread_mutex_unlock(&lock);
}

bool api_graph_retire(struct api_graph *g)
{
    pthread_mutex_lock(&lock);
    bool mine = !g->dying;
    g->dying = true; /* no lookup finds it from now on */
    while (mine && g->users > 0)
        pthread_cond_wait(&unused, &lock);
    pthread_mutex_unlock(&lock);
    return mine;
}

bool api_cap_status(const void *stream, int *status, struct api_graph **g)
{
    if (!api_cap_any())
        return false;
    pthread_mutex_lock(&lock);
    struct api_graph *c = capture_of(stream, NULL);
    if (c) {
        *status = c->status;
        *g = c;
    }
    pthread_mutex_unlock(&lock);
    return c != NULL;
}

/* ---- Refusals ---- */

static const char *mode_name(int m)
{
    static const char *const names[] = {"GLOBAL", "THREAD_LOCAL", "RELAXED", "MAX"};
    return m >= 0 && m <= 3 ? names[m] : "MAX";
}

aclError api_cap_check_stream(const char *desc, const void *stream)
{
    if (!api_cap_any())
        return ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    bool captures = capture_of(stream, NULL) != NULL;
    pthread_mutex_unlock(&lock);
    if (!captures)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1016, "%s failed. Reason: Stream (stream_id=%u) during the capture stage "
               "is not supported.", desc, api_cap_stream_id(stream));
    return ACL_ERROR_RT_STREAM_CAPTURED;
}

aclError api_cap_check_event(const char *desc, const void *event, uint32_t event_id)
{
    if (!api_cap_any())
        return ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    bool captured = event_of(event) != NULL;
    pthread_mutex_unlock(&lock);
    if (!captured)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1016, "%s failed. Reason: Event (event_id=%u) during the capture stage "
               "is not supported.", desc, event_id);
    return ACL_ERROR_RT_EVENT_CAPTURED;
}

aclError api_cap_check_ctx(const char *desc, const struct api_ctx *ctx)
{
    if (!api_cap_any())
        return ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    const void *s = NULL;
    for (struct api_graph *g = graphs; g && !s; g = g->next)
        if (under_way(g) && g->ctx == ctx)
            s = g->lane[0];
    pthread_mutex_unlock(&lock);
    if (!s)
        return ACL_SUCCESS;
    return api_cap_check_stream(desc, s);
}

/* CANN's Context::IsCaptureModeSupport: the context's mode is the
 * strictest of its captures under way, the thread's the strictest of those
 * it began; the thread's exchanged mode decides (lock held). */
static bool mode_allows(const struct api_ctx *ctx, int *ctx_mode, int *thread_mode)
{
    int cm = 3, tm = 3;
    for (struct api_graph *g = graphs; g; g = g->next) {
        if (!under_way(g) || (ctx && g->ctx != ctx))
            continue;
        if (g->mode < cm)
            cm = g->mode;
        if (g->thread == self() && g->mode < tm)
            tm = g->mode;
    }
    *ctx_mode = cm;
    *thread_mode = tm;
    if (cm == 3 || exchange_mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return true;
    if (exchange_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
        return !(cm == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
                 tm == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
    return !(tm == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
             tm == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
}

aclError api_cap_check_unsafe(const char *desc, const struct api_ctx *ctx, bool converted)
{
    if (!api_cap_any())
        return ACL_SUCCESS;
    int cm, tm;
    pthread_mutex_lock(&lock);
    bool ok = mode_allows(ctx, &cm, &tm);
    pthread_mutex_unlock(&lock);
    if (ok)
        return ACL_SUCCESS;
    /* capture_model_utils.cc ReportCaptureModeError; api_error.cc for a
     * pageable asynchronous copy turned synchronous (107041). */
    if (converted) {
        api_report(API_MSG_EE1016, "%s failed. Reason: the operation has been converted to a "
                   "synchronous operation. operation not permitted when a stream is capturing and "
                   "the specified capture mode is not relaxed.", desc);
        return ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC;
    }
    unsigned long tid = (unsigned long)self();
    if (tm == ACL_MODEL_RI_CAPTURE_MODE_RELAXED || tm == 3)
        api_report(API_MSG_EE1016, "%s failed. Reason: Other threads of the current context are in "
                   "the capture state. As a result, the current operation cannot be performed on "
                   "thread %lu. To perform this operation in the current thread, call "
                   "aclmdlRICaptureThreadExchangeMode to change the capture mode of the current "
                   "thread. The mode set using the aclmdlRICaptureBegin API is %s, and the capture "
                   "mode of the current thread is %s.", desc, tid, mode_name(cm), mode_name(tm));
    else
        api_report(API_MSG_EE1016, "%s failed. Reason: The current thread %lu is in the capture "
                   "state and the current operation cannot be performed. Check whether the mode "
                   "set by the aclmdlRICaptureBegin API supports the current operation. This "
                   "operation is supported only in the RELAXED mode. The mode set using the "
                   "aclmdlRICaptureBegin API is %s, and the capture mode of the current thread is "
                   "%s.", desc, tid, mode_name(cm), mode_name(tm));
    return ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT;
}

int api_cap_exchange_mode(int mode)
{
    int old = exchange_mode;
    exchange_mode = mode;
    return old;
}

/* ---- Begin, join, end ---- */

/* A new graph g of context ctx, begun by this thread, under way in
 * `status`: listed and counted. pre: lock held. */
static void publish(struct api_graph *g, struct api_ctx *ctx, int mode, int status)
{
    g->id = next_id++;
    g->device = ctx->device;
    g->ctx = ctx;
    g->mode = mode;
    g->thread = self();
    g->status = status;
    pthread_mutex_lock(&names_lock);
    g->next = graphs;
    graphs = g;
    pthread_mutex_unlock(&names_lock);
    atomic_fetch_add(&n_graphs, 1);
    atomic_fetch_add(&capturing, 1);
}

aclError api_cap_begin(void *stream, struct api_ctx *ctx, int mode, struct api_graph **out)
{
    struct api_graph *g = base_calloc(1, sizeof *g);
    if (!g)
        return ACL_ERROR_BAD_ALLOC;
    pthread_mutex_lock(&lock);
    if (capture_of(stream, NULL)) {
        pthread_mutex_unlock(&lock);
        base_free(g);
        return ACL_ERROR_RT_STREAM_CAPTURED;
    }
    aclError rc = be_get()->graph_begin(stream, mode);
    if (rc != ACL_SUCCESS) {
        pthread_mutex_unlock(&lock);
        base_free(g);
        return rc;
    }
    publish(g, ctx, mode, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    g->n_lanes = 1;
    g->lane[0] = stream;
    pthread_mutex_unlock(&lock);
    *out = g;
    return ACL_SUCCESS;
}

/* ---- Sub-graphs of conditional tasks, and their condition handles ---- */

static bool descends(const struct api_graph *h, const struct api_graph *g);
static struct api_cap_task *new_task(struct api_graph *g, unsigned lane, aclmdlRITaskType type,
                                     const char *what);
static void describe(struct api_cap_task *t, const struct api_cap_range *r, int n,
                     const struct api_cap_params *p);

aclError api_cap_cond_new(struct api_graph *g, uint64_t *word, uint32_t deflt, int flag,
                          struct api_cond **out)
{
    struct api_cond *c = base_calloc(1, sizeof *c);
    if (!c)
        return ACL_ERROR_BAD_ALLOC;
    c->graph = g;
    c->word = word;
    c->deflt = deflt;
    c->flag = flag;
    pthread_mutex_lock(&lock);
    c->next = g->conds;
    g->conds = c;
    pthread_mutex_unlock(&lock);
    *out = c;
    return ACL_SUCCESS;
}

struct api_cond *api_cap_cond_lookup(const void *handle)
{
    pthread_mutex_lock(&lock);
    struct api_cond *hit = NULL;
    for (struct api_graph *g = graphs; g && !hit; g = g->next)
        for (struct api_cond *c = g->conds; c && !hit && !g->dying; c = c->next)
            if (c == handle)
                hit = c;
    pthread_mutex_unlock(&lock);
    return hit;
}

aclError api_cap_cond_task(void *stream, struct api_cond *c, int type, unsigned n,
                           aclmdlRI *subs)
{
    struct api_graph *sub[API_COND_SUBS] = {0};
    void *be_sub[API_COND_SUBS] = {0};
    for (unsigned i = 0; i < n; i++)
        if (!(sub[i] = base_calloc(1, sizeof *sub[i]))) {
            while (i-- > 0)
                base_free(sub[i]);
            return ACL_ERROR_BAD_ALLOC;
        }
    pthread_mutex_lock(&lock);
    unsigned lane = 0;
    struct api_graph *g = capture_of(stream, &lane);
    aclError rc = be_get()->graph_cond(stream, c->word, type, n, be_sub);
    if (rc == ACL_SUCCESS) {
        struct api_cap_task *t = new_task(g, lane, ACL_MODEL_RI_TASK_DEFAULT,
                                          "aclmdlRIAddCondTask");
        if (t)
            describe(t, NULL, 0, NULL);
        c->type = type;
        c->n = n;
        for (unsigned i = 0; i < n; i++) { /* not begun: CaptureToModelRIBegin begins them */
            sub[i]->id = next_id++;
            sub[i]->device = g->device;
            sub[i]->ctx = g->ctx;
            sub[i]->status = API_GRAPH_SUB_NEW;
            sub[i]->parent = g;
            sub[i]->be_graph = be_sub[i];
            sub[i]->next = graphs;
            graphs = sub[i];
            atomic_fetch_add(&n_graphs, 1);
            subs[i] = sub[i];
        }
    }
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; rc != ACL_SUCCESS && i < n; i++)
        base_free(sub[i]);
    return rc;
}

aclError api_cap_begin_into(void *stream, struct api_ctx *ctx, int mode, struct api_graph *sub)
{
    pthread_mutex_lock(&lock);
    aclError rc = ACL_SUCCESS;
    if (sub->status != API_GRAPH_SUB_NEW)
        rc = ACL_ERROR_RT_MODEL_CAPTURED;
    else if (capture_of(stream, NULL))
        rc = ACL_ERROR_RT_STREAM_CAPTURED;
    else
        rc = be_get()->graph_begin_into(stream, mode, sub->be_graph);
    if (rc == ACL_SUCCESS) {
        sub->ctx = ctx;
        sub->mode = mode;
        sub->thread = self();
        sub->status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
        sub->n_lanes = 1;
        sub->lane[0] = stream;
        atomic_fetch_add(&capturing, 1);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void api_cap_cond_words(struct api_graph *g, void (*fn)(const struct api_cond *c, void *u),
                        void *u)
{
    pthread_mutex_lock(&lock);
    for (struct api_graph *h = graphs; h; h = h->next)
        if (descends(h, g))
            for (const struct api_cond *c = h->conds; c; c = c->next)
                fn(c, u);
    pthread_mutex_unlock(&lock);
}

/* Every joined lane must end with a record the origin stream waited on
 * (CheckCaptureModelValidity). The first lane that does not, or 0. */
static unsigned unjoined(const struct api_graph *g)
{
    for (unsigned i = 1; i < g->n_lanes; i++)
        if (!g->rejoined[i])
            return i;
    return 0;
}

/* Whether h is g or a sub-graph under it. pre: lock held. */
static bool descends(const struct api_graph *h, const struct api_graph *g)
{
    while (h && h != g)
        h = h->parent;
    return h == g;
}

/* A sub-graph under g whose capture has not ended, or NULL. pre: lock held. */
static struct api_graph *sub_open(const struct api_graph *g)
{
    for (struct api_graph *h = graphs; h; h = h->next)
        if (h != g && descends(h, g) && h->status != API_GRAPH_ENDED)
            return h;
    return NULL;
}

/* End g's capture in the backend (every lane stops capturing). pre: lock
 * held, g under way. */
static void end_locked(struct api_graph *g, void *stream, aclError *rc)
{
    void *handle = NULL;
    *rc = be_get()->graph_end(stream, &handle);
    if (!g->parent || !g->be_graph)
        g->be_graph = handle;
    g->status = API_GRAPH_ENDED;
    memset(g->open_grp, 0, sizeof g->open_grp);
    forget_events(g);
    atomic_fetch_sub(&capturing, 1);
}

void api_cap_abandon(struct api_graph *g)
{
    pthread_mutex_lock(&lock);
    aclError rc;
    if (under_way(g) && g->n_lanes > 0)
        end_locked(g, g->lane[0], &rc);
    pthread_mutex_unlock(&lock);
}

void api_cap_stream_gone(void *stream)
{
    if (!api_cap_any())
        return;
    pthread_mutex_lock(&lock);
    struct api_graph *g = capture_of(stream, NULL);
    if (g) {
        aclError rc;
        end_locked(g, g->lane[0], &rc); /* every lane stops: none is freed yet */
        g->ri_status = API_RI_FAULT;
    }
    pthread_mutex_unlock(&lock);
}

aclError api_cap_end(struct api_graph *g, void *stream)
{
    pthread_mutex_lock(&lock);
    unsigned lane = unjoined(g);
    bool invalid = g->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    struct api_graph *sub = sub_open(g);
    bool grp_open = false;
    for (unsigned i = 0; i < g->n_lanes; i++)
        grp_open |= g->open_grp[i] != NULL;
    aclError rc;
    end_locked(g, stream, &rc);
    pthread_mutex_unlock(&lock);
    if (rc != ACL_SUCCESS)
        return rc;
    api_graph_label(g);
    if (invalid) {
        api_report(API_MSG_EE1016, "Stream end capture failed. Reason: The current stream "
                   "(stream_id=%u, model_id=%u) is invalid because an error occurred during model "
                   "capture.", api_cap_stream_id(stream), g->id);
        return ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
    }
    if (sub) { /* context_aclgraph.cc:564-569, CheckSubModelsIsEndCapture */
        api_report(API_MSG_EE1016, "Stream end capture failed. Reason: Sub ACL Graph is "
                   "capturing, stream_id=%u, capture stream_id=%u.", api_cap_stream_id(stream),
                   api_cap_stream_id(stream));
        return ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING;
    }
    if (grp_open) { /* context_aclgraph.cc:357-360, CheckCaptureModelValidity */
        api_report(API_MSG_EH9999, "aclmdlRICaptureEnd failed: A task group is not closed in the "
                   "capture model, model_id=%u, runtime result = %d.", g->id,
                   ACL_ERROR_STREAM_TASK_GROUP_STATUS);
        return ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    }
    if (lane) {
        api_report(API_MSG_EE1017, "Capture model validity check failed. Reason: In the "
                   "cross-stream capture scenario, the last task on the sub stream (stream_id=%u) "
                   "lacks the corresponding event wait task: record an event on it and wait for "
                   "that event on the origin stream (stream_id=%u) before aclmdlRICaptureEnd.",
                   api_cap_stream_id(g->lane[lane]), api_cap_stream_id(stream));
        return ACL_ERROR_RT_STREAM_UNJOINED;
    }
    return ACL_SUCCESS;
}

void api_cap_invalidate(const void *stream)
{
    if (!api_cap_any())
        return;
    pthread_mutex_lock(&lock);
    struct api_graph *g = capture_of(stream, NULL);
    if (g)
        g->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    pthread_mutex_unlock(&lock);
}

/* ---- What a capture recorded ---- */

/* A new task on lane `lane` of g (lock held); NULL when host memory ran
 * out (the capture is invalidated: CANN's SingleStreamTerminateCapture). */
static struct api_cap_task *new_task(struct api_graph *g, unsigned lane, aclmdlRITaskType type,
                                     const char *what)
{
    if (g->n_tasks == g->cap_tasks) {
        size_t c = g->cap_tasks ? g->cap_tasks * 2 : 16;
        struct api_cap_task **v = base_realloc(g->tasks, c * sizeof *v);
        if (!v) {
            g->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            return NULL;
        }
        g->tasks = v;
        g->cap_tasks = c;
    }
    struct api_cap_task *t = base_calloc(1, sizeof *t);
    if (!t) {
        g->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
        return NULL;
    }
    t->graph = g;
    t->type = type;
    snprintf(t->what, sizeof t->what, "%s", what);
    t->stream = g->lane[lane];
    t->lane = lane;
    t->seq = (uint32_t)g->n_tasks;
    t->grp = g->open_grp[lane];
    if (opt_bool(OPT_TRACK))
        t->nframes = backtrace(t->frames, API_CAP_FRAMES);
    g->tasks[g->n_tasks++] = t;
    g->rejoined[lane] = lane == 0 ? g->rejoined[0] : false; /* a task after the join back */
    return t;
}

/* Fill t's ranges and parameters, and name the backend's task (the one
 * its stream recorded last). pre: lock held. */
static void describe(struct api_cap_task *t, const struct api_cap_range *r, int n,
                     const struct api_cap_params *p)
{
    int k = 0;
    t->host = 0;
    for (int i = 0; r && i < n && i < API_CAP_RANGES; i++)
        if (r[i].p && r[i].n) {
            struct be_ptr_info in;
            be_get()->lookup(r[i].p, &in);
            if (in.kind == BE_PTR_HOST_PINNED || in.kind == BE_PTR_HOST_REGISTERED)
                t->host |= (uint16_t)(1u << k);
            t->r[k++] = r[i];
        }
    t->n_r = k;
    if (p) {
        t->obj = p->obj;
        t->obj_flag = p->obj_flag;
        t->flag = p->flag;
        t->addr = p->addr;
        t->value = p->value;
    }
    t->be_task = be_get()->graph_last_task(t->stream);
}

bool api_cap_note_ex(const void *stream, aclmdlRITaskType type, const char *what,
                     const struct api_cap_range *r, int n, const struct api_cap_params *p)
{
    if (!api_cap_busy())
        return false;
    pthread_mutex_lock(&lock);
    unsigned lane;
    struct api_graph *g = capture_of(stream, &lane);
    struct api_cap_task *t = g ? new_task(g, lane, type, what) : NULL;
    if (t)
        describe(t, r, n, p);
    else if (!g)
        g = api_cap_update_note(stream, what, r, n); /* an operator updating a group */
    pthread_mutex_unlock(&lock);
    return g != NULL;
}

bool api_cap_note(const void *stream, aclmdlRITaskType type, const char *what,
                  const struct api_cap_range *r, int n)
{
    return api_cap_note_ex(stream, type, what, r, n, NULL);
}

void api_cap_noted(const void *stream, const struct api_cap_params *p)
{
    if (!api_cap_any())
        return;
    pthread_mutex_lock(&lock);
    unsigned lane;
    struct api_graph *g = capture_of(stream, &lane);
    for (size_t i = g ? g->n_tasks : 0; i-- > 0;)
        if (g->tasks[i]->lane == lane) {
            struct api_cap_task *t = g->tasks[i];
            describe(t, t->r, t->n_r, p);
            break;
        }
    pthread_mutex_unlock(&lock);
}

aclError api_cap_record(const char *desc, void *event, void *stream, bool external)
{
    (void)desc;
    if (!api_cap_any())
        return ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    unsigned lane;
    struct api_graph *g = capture_of(stream, &lane);
    if (g) {
        new_task(g, lane, ACL_MODEL_RI_TASK_EVENT_RECORD, "aclrtRecordEvent");
        struct cap_event *c = event_of(event);
        if (external) {
            if (c)
                *c = events[--n_events];
        } else if (c || (c = new_event()) != NULL) {
            *c = (struct cap_event){event, g, lane};
        }
    }
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* Whether event was recorded (outside any capture under way). */
static bool recorded_before(void *event)
{
    uint64_t v;
    return be_get()->event_info(event, BE_EV_TIMESTAMP, &v) != ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
}

aclError api_cap_wait(const char *desc, void *stream, void *event, bool external,
                      bool default_stream)
{
    if (!api_cap_any())
        return ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    unsigned lane;
    struct api_graph *g = capture_of(stream, &lane);
    struct cap_event *c = event_of(event);
    aclError rc = ACL_SUCCESS;
    if (c && !external) {
        if (default_stream) {
            rc = ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT;
        } else if (!g) { /* the stream joins the event's capture */
            g = c->g;
            if (g->n_lanes == API_CAP_LANES ||
                be_get()->graph_join(g->lane[0], stream) != ACL_SUCCESS) {
                rc = ACL_ERROR_RT_NO_STREAM_RESOURCE;
            } else {
                lane = g->n_lanes++;
                g->lane[lane] = stream;
            }
        } else if (g != c->g) {
            rc = ACL_ERROR_RT_CAPTURE_DEPENDENCY;
        }
        if (rc == ACL_SUCCESS) {
            new_task(g, lane, ACL_MODEL_RI_TASK_EVENT_WAIT, "aclrtStreamWaitEvent");
            if (lane == 0 && c->lane != 0)
                g->rejoined[c->lane] = true;
        }
    } else if (g && !external && recorded_before(event)) {
        /* recorded outside the capture: refused, the capture goes on
         * (api_impl.cc L1654-1666 returns before any TerminateCapture) */
        rc = ACL_ERROR_RT_CAPTURE_DEPENDENCY;
    } else if (g) {
        new_task(g, lane, ACL_MODEL_RI_TASK_EVENT_WAIT, "aclrtStreamWaitEvent");
    }
    pthread_mutex_unlock(&lock);
    if (rc == ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT)
        api_report(API_MSG_EE1017, "%s failed. Reason: The default stream (stream_id=%u) cannot be "
                   "used in the ACL Graph.", desc, api_cap_stream_id(stream));
    else if (rc == ACL_ERROR_RT_CAPTURE_DEPENDENCY)
        api_report(API_MSG_EE1016, "%s failed. Reason: The event wait task is not supported during "
                   "model capture because the corresponding event record task is not in the "
                   "current model. To wait for an event outside the model, see the usage of "
                   "ACL_EVENT_WAIT_EXTERNAL of the aclrtStreamWaitEventWithFlag API in the API "
                   "reference.", desc);
    else if (rc != ACL_SUCCESS)
        api_report(API_MSG_EE1016, "%s failed. Reason: the capture has no stream left for stream "
                   "(stream_id=%u) to join it.", desc, api_cap_stream_id(stream));
    return rc;
}

/* ---- Graphs once captured ---- */

void api_graph_release(struct api_graph *g)
{
    pthread_mutex_lock(&lock);
    pthread_mutex_lock(&names_lock);
    for (struct api_graph **p = &graphs; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            atomic_fetch_sub(&n_graphs, 1);
            break;
        }
    pthread_mutex_unlock(&names_lock);
    if (under_way(g)) {
        forget_events(g);
        atomic_fetch_sub(&capturing, 1);
    }
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < g->n_tasks; i++)
        base_free(g->tasks[i]);
    base_free(g->tasks);
    while (g->grps) {
        struct api_task_grp *grp = g->grps;
        g->grps = grp->next_grp;
        base_free(grp);
    }
    while (g->conds) {
        struct api_cond *c = g->conds;
        g->conds = c->next;
        base_free(c);
    }
    base_free(g->name);
    base_free(g);
}

struct api_graph *api_graph_sub_of(const struct api_graph *g)
{
    pthread_mutex_lock(&lock);
    struct api_graph *h = graphs;
    while (h && h->parent != g)
        h = h->next;
    pthread_mutex_unlock(&lock);
    return h;
}

bool api_graph_uses(const void *p, size_t n, const struct api_graph *except,
                    struct api_graph_use *out)
{
    if (!api_graphs_live())
        return false;
    bool hit = false;
    pthread_mutex_lock(&lock);
    for (struct api_graph *g = graphs; g && !hit; g = g->next) {
        if (g == except)
            continue;
        for (size_t i = 0; i < g->n_tasks && !hit; i++) {
            const struct api_cap_task *t = g->tasks[i];
            for (int k = 0; k < t->n_r && !hit; k++) {
                const char *a = t->r[k].p;
                if ((const char *)p < a + t->r[k].n && a < (const char *)p + n) {
                    hit = true;
                    out->graph = g;
                    out->id = g->id;
                    snprintf(out->name, sizeof out->name, "%s", g->name ? g->name : "");
                    out->task = *t;
                    out->range = t->r[k];
                }
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

/* Whether a task of g up to index last reads bytes of [lo, hi). pre: lock
 * held. */
static bool read_by(const struct api_graph *g, size_t last, const char *lo, const char *hi)
{
    for (size_t i = 0; i <= last; i++) {
        const struct api_cap_task *t = g->tasks[i];
        for (int k = 0; k < t->n_r; k++) {
            const char *a = t->r[k].p;
            if (!t->r[k].w && a < hi && lo < a + t->r[k].n)
                return true;
        }
    }
    return false;
}

/* The owned part of [p, p+n) in g, if any. pre: lock held. */
static bool owned_in(struct api_graph *g, const char *p, size_t n, struct api_graph_use *out)
{
    for (size_t i = 0; i < g->n_tasks; i++) {
        const struct api_cap_task *t = g->tasks[i];
        for (int k = 0; k < t->n_r; k++) {
            const char *a = t->r[k].p, *b = a + t->r[k].n;
            const char *lo = a > p ? a : p, *hi = b < p + n ? b : p + n;
            if (!t->r[k].w || lo >= hi || read_by(g, i, lo, hi))
                continue;
            out->graph = g;
            out->id = g->id;
            snprintf(out->name, sizeof out->name, "%s", g->name ? g->name : "");
            out->task = *t;
            out->range = *&t->r[k];
            out->range.p = lo;
            out->range.n = (size_t)(hi - lo);
            return true;
        }
    }
    return false;
}

bool api_graph_owns(const void *p, size_t n, struct api_graph_use *out)
{
    if (!api_graphs_live())
        return false;
    bool hit = false;
    pthread_mutex_lock(&lock);
    for (struct api_graph *g = graphs; g && !hit; g = g->next)
        hit = !under_way(g) && owned_in(g, p, n, out);
    pthread_mutex_unlock(&lock);
    return hit;
}

const char *api_graph_name(const struct api_graph *g, char *buf, size_t len)
{
    if (g->name && g->name[0])
        snprintf(buf, len, "graph %u \"%s\" (aclmdlRI %p)", g->id, g->name, (const void *)g);
    else
        snprintf(buf, len, "graph %u (aclmdlRI %p)", g->id, (const void *)g);
    return buf;
}

void api_graph_rename(struct api_graph *g, char *name)
{
    pthread_mutex_lock(&names_lock);
    char *old = g->name;
    g->name = name;
    pthread_mutex_unlock(&names_lock);
    base_free(old);
    api_graph_label(g);
}

void api_graph_label(const struct api_graph *g)
{
    void (*label)(void *, const char *) = API_TOOL(graph_label);
    char buf[160];
    if (label && g->be_graph)
        label(g->be_graph, api_graph_name(g, buf, sizeof buf));
}

const char *api_graph_name_be(const void *be_graph, char *buf, size_t len)
{
    snprintf(buf, len, "a graph");
    pthread_mutex_lock(&names_lock);
    for (struct api_graph *g = graphs; g; g = g->next)
        if (g->be_graph == be_graph) {
            api_graph_name(g, buf, len);
            break;
        }
    pthread_mutex_unlock(&names_lock);
    return buf;
}

struct api_graph *api_cap_graph_of(const void *stream)
{
    if (!api_cap_any())
        return NULL;
    pthread_mutex_lock(&lock);
    struct api_graph *g = capture_of(stream, NULL);
    pthread_mutex_unlock(&lock);
    return g;
}

void api_graph_each_task(struct api_graph *g, void (*fn)(const struct api_cap_task *t, void *u),
                         void *u)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < g->n_tasks; i++)
        fn(g->tasks[i], u);
    pthread_mutex_unlock(&lock);
}

void api_graph_each_task_mut(struct api_graph *g, void (*fn)(struct api_cap_task *t, void *u),
                             void *u)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < g->n_tasks; i++)
        fn(g->tasks[i], u);
    g->checked = false; /* the sanitizer looks at the ranges again */
    pthread_mutex_unlock(&lock);
}

bool api_graph_task_live(const void *task)
{
    bool live = false;
    pthread_mutex_lock(&lock);
    for (struct api_graph *g = graphs; g && !live; g = g->next)
        for (size_t i = 0; i < g->n_tasks && !live; i++)
            live = g->tasks[i] == task;
    pthread_mutex_unlock(&lock);
    return live;
}

struct api_graph *api_graph_on_device(int32_t dev)
{
    pthread_mutex_lock(&lock);
    struct api_graph *g = graphs;
    while (g && g->device != dev)
        g = g->next;
    pthread_mutex_unlock(&lock);
    return g;
}

struct api_graph *api_graph_of_stream(const void *stream)
{
    pthread_mutex_lock(&lock);
    struct api_graph *hit = NULL;
    for (struct api_graph *g = graphs; g && !hit; g = g->next)
        for (unsigned i = 0; i < g->n_lanes && !hit; i++)
            if (g->lane[i] == stream)
                hit = g;
    pthread_mutex_unlock(&lock);
    return hit;
}

/* ---- Explicitly built graphs (aclmdlRIBuildBegin ... aclmdlRIBuildEnd) ---- */

aclError api_cap_build_begin(struct api_ctx *ctx, struct api_graph **out)
{
    struct api_graph *g = base_calloc(1, sizeof *g);
    if (!g)
        return ACL_ERROR_BAD_ALLOC;
    pthread_mutex_lock(&lock);
    /* a build forbids no call */
    publish(g, ctx, ACL_MODEL_RI_CAPTURE_MODE_RELAXED, API_GRAPH_BUILDING);
    g->built = true;
    pthread_mutex_unlock(&lock);
    *out = g;
    return ACL_SUCCESS;
}

aclError api_cap_bind(struct api_graph *g, void *stream, uint32_t *other)
{
    pthread_mutex_lock(&lock);
    aclError rc = ACL_SUCCESS;
    struct api_graph *b = binder(stream);
    if (b) {
        *other = b->id;
        rc = ACL_ERROR_RT_STREAM_MODEL;
    } else if (capture_of(stream, NULL)) {
        rc = ACL_ERROR_RT_STREAM_CAPTURED;
    } else if (g->n_lanes == API_CAP_LANES) {
        rc = ACL_ERROR_RT_NO_STREAM_RESOURCE;
    } else if (g->n_lanes == 0) {
        rc = be_get()->graph_begin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    } else {
        rc = be_get()->graph_join(g->lane[0], stream);
    }
    if (rc == ACL_SUCCESS) {
        g->rejoined[g->n_lanes] = true; /* a bound stream needs no join back */
        g->lane[g->n_lanes++] = stream;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* The lane of g stream is bound to, or -1. pre: lock held. */
static int bound_lane(const struct api_graph *g, const void *stream)
{
    for (unsigned i = 0; i < g->n_lanes; i++)
        if (g->lane[i] == stream && !g->unbound[i])
            return (int)i;
    return -1;
}

bool api_cap_bound(const struct api_graph *g, const void *stream)
{
    pthread_mutex_lock(&lock);
    bool bound = bound_lane(g, stream) >= 0;
    pthread_mutex_unlock(&lock);
    return bound;
}

bool api_cap_unbind(struct api_graph *g, const void *stream)
{
    pthread_mutex_lock(&lock);
    int i = bound_lane(g, stream);
    if (i >= 0)
        g->unbound[i] = true; /* its lane stays in the record */
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

bool api_cap_model_of(const void *stream, uint32_t *id, bool *loaded, void **be_graph,
                      unsigned *lane)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (struct api_graph *g = graphs; g && !found; g = g->next)
        for (unsigned i = 0; i < g->n_lanes && !found; i++)
            if (g->lane[i] == stream) {
                found = true;
                *id = g->id;
                *loaded = g->status == API_GRAPH_ENDED;
                *be_graph = g->be_graph;
                *lane = i;
            }
    pthread_mutex_unlock(&lock);
    return found;
}

aclError api_cap_build_end(struct api_graph *g)
{
    pthread_mutex_lock(&lock);
    void *handle = NULL;
    aclError rc = be_get()->graph_end(g->lane[0], &handle);
    if (rc == ACL_SUCCESS) {
        g->be_graph = handle;
        g->status = API_GRAPH_ENDED;
        forget_events(g);
        atomic_fetch_sub(&capturing, 1);
    }
    pthread_mutex_unlock(&lock);
    if (rc == ACL_SUCCESS)
        api_graph_label(g);
    return rc;
}
