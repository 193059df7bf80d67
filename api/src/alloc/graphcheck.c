/*
 * graphcheck.c - the allocator sanitizer's checks for memory a captured
 * graph still uses.
 *
 * Every byte range a task of a captured graph reads or writes (rt/capture.c
 * notes them as the tasks are captured: copies, fills, operators with
 * their tensors and the executor's blocks) is the graph's until
 * aclmdlRIDestroy: each replay touches it again. CANN's runtime checks
 * none of this (aclrtFree and the pool calls have no capture check), and
 * on the device such a mistake is silent corruption. Two reports, in the
 * sanitizer's format and modes:
 *  graph-memory-freed  aclrtFree (or a pool's FreeAsync, an unmap, a free
 *                      of physical memory) of bytes a live graph uses
 *  graph-block-reuse   an allocator hands an operator a block whose bytes a
 *                      live graph other than the one being captured uses:
 *                      the executor freed the captured operator's blocks
 *                      right after its launch, as CANN's does, and the
 *                      allocator gave them out again; a graph needs them
 *                      for its whole life (torch_npu's graph-private pools)
 * With ACLSIM_TRACK=1 each report shows the stack that captured the task.
 */
#include <stdio.h>
#include <string.h>
#include "backends/be.h"
#include "internal.h"

static const char *graph_name(const struct api_graph_use *u, char *buf, size_t len)
{
    if (u->name[0])
        snprintf(buf, len, "graph %u \"%s\" (aclmdlRI %p)", u->id, u->name, (void *)u->graph);
    else
        snprintf(buf, len, "graph %u (aclmdlRI %p)", u->id, (void *)u->graph);
    return buf;
}

/* The lines and facts every graph report has (pre: api_rep_begin made). */
static void task_lines(const struct api_graph_use *u, const char *name)
{
    const struct api_cap_task *t = &u->task;
    char st[API_NAME_LEN];
    api_rep_line(false, "%s (model runtime instance) uses [%p, %p) in its captured task #%u (%s) "
                 "on %s, at every replay", name, u->range.p,
                 (const void *)((const char *)u->range.p + u->range.n), t->seq, t->what,
                 api_stream_name(t->stream, st));
    api_rep_fact("graph", "%s", name);
    api_rep_fact("task", "#%u %s", t->seq, t->what);
    api_rep_stream(t->stream);
    if (t->nframes > 1)
        api_rep_stack("the task was captured at", (void *const *)t->frames, t->nframes);
    else
        api_rep_line(false, "set ACLSIM_TRACK=1 for the stack that captured it");
}

void api_check_graph_free(const char *call, const void *p, size_t n)
{
    struct api_graph_use u;
    if (api_check_mode() == API_CHECK_OFF || !api_graph_uses(p, n, NULL, &u))
        return;
    char name[96];
    graph_name(&u, name, sizeof name);
    api_rep_begin(API_REP_GRAPH_FREED);
    api_rep_line(true, "allocator check (graph-memory-freed): %s(%p) frees [%p, %p), but %s still "
                 "uses those bytes", call, p, p, (const void *)((const char *)p + n), name);
    api_rep_range(p, n);
    task_lines(&u, name);
    api_rep_line(false, "fix: memory a captured graph uses must stay allocated until "
                 "aclmdlRIDestroy (CANN: resources used by captured tasks must live until the "
                 "graph is destroyed); destroy the graph first, or keep the buffer");
    san_here("the free was called at");
    san_count(API_REP_GRAPH_FREED);
}

/* What the owned bytes are to the graph's task: "its workspace (passed to
 * aclnnMatmul)", "the executor's block", "its output". */
static const char *owned_as(const struct api_cap_range *r, char *buf, size_t len)
{
    if (r->as && r->call)
        snprintf(buf, len, "as its %s, passed to %s", r->as, r->call);
    else if (r->as && strcmp(r->as, "output") == 0)
        snprintf(buf, len, "as its output");
    else if (r->as)
        snprintf(buf, len, "as %s", r->as);
    else
        snprintf(buf, len, "as data it writes");
    return buf;
}

void api_check_graph_write(const char *what, const void *stream, uint64_t seq, const void *p,
                           size_t n)
{
    struct api_graph_use u;
    if (!p || !n || api_check_mode() == API_CHECK_OFF || !api_graph_owns(p, n, &u))
        return;
    char name[96], st[API_NAME_LEN], who[200], as[96];
    graph_name(&u, name, sizeof name);
    api_stream_name(stream, st);
    if (seq)
        snprintf(who, sizeof who, "operator %s (#%llu) on %s stores %s", san_op_type(seq),
                 (unsigned long long)seq, st, what);
    else
        snprintf(who, sizeof who, "%s on %s stores its data", what, st);
    api_rep_begin(API_REP_GRAPH_REUSE);
    api_rep_line(true, "allocator check (graph-block-reuse): %s in [%p, %p), but %s owns those "
                 "bytes: its captured task #%u (%s) writes them %s at every replay before "
                 "reading them, so the next replay overwrites this data", who, u.range.p,
                 (const void *)((const char *)u.range.p + u.range.n), name, u.task.seq,
                 u.task.what, owned_as(&u.range, as, sizeof as));
    api_rep_range(u.range.p, u.range.n);
    api_rep_stream(stream);
    task_lines(&u, name);
    api_rep_line(false, "fix: bytes a live graph writes (its workspaces, intermediates and "
                 "outputs) are the graph's until aclmdlRIDestroy: store this data in a buffer "
                 "of its own, or destroy the graph first");
    if (seq)
        san_op_stack("this operator was issued at", seq);
    else
        san_here("the call was made at");
    san_count(API_REP_GRAPH_REUSE);
}

/* One conflict of an operator with a live graph: the allocator gave it a
 * block the graph uses (gave), or it stores data (what) in bytes the
 * graph owns. */
struct hit {
    bool gave;
    const char *what;
    const void *p;
    size_t n;
    struct api_graph_use u;
};

static void first_line(const struct api_check_op *op, const struct hit *h, const char *name)
{
    char st[API_NAME_LEN], as[96];
    api_stream_name(op->stream, st);
    if (h->gave) {
        api_rep_line(true, "allocator check (graph-block-reuse): operator %s (#%llu) on %s: "
                     "the allocator (obj %p) gave it [%p, %p), but %s still uses those bytes",
                     op->type, (unsigned long long)op->seq, st, op->obj, h->p,
                     (const void *)((const char *)h->p + h->n), name);
        api_rep_range(h->p, h->n);
        return;
    }
    api_rep_line(true, "allocator check (graph-block-reuse): operator %s (#%llu) on %s stores %s "
                 "in [%p, %p), but %s owns those bytes: its captured task #%u (%s) writes them %s "
                 "at every replay before reading them, so the next replay overwrites this data",
                 op->type, (unsigned long long)op->seq, st, h->what, h->u.range.p,
                 (const void *)((const char *)h->u.range.p + h->u.range.n), name,
                 h->u.task.seq, h->u.task.what, owned_as(&h->u.range, as, sizeof as));
    api_rep_range(h->u.range.p, h->u.range.n);
}

static void more_line(const struct hit *h)
{
    char as[96];
    if (h->gave)
        api_rep_line(false, "the allocator also gave it [%p, %p), which the same graph uses",
                     h->p, (const void *)((const char *)h->p + h->n));
    else
        api_rep_line(false, "it also stores %s in [%p, %p), which the same graph's captured "
                     "task #%u (%s) writes %s at every replay", h->what, h->u.range.p,
                     (const void *)((const char *)h->u.range.p + h->u.range.n), h->u.task.seq,
                     h->u.task.what, owned_as(&h->u.range, as, sizeof as));
}

void api_check_graph_op(const struct api_check_op *op, const struct api_graph *g,
                        const void *const *addr, const size_t *bytes, int n, const void *out,
                        size_t out_bytes, const char *block_what)
{
    if (api_check_mode() == API_CHECK_OFF || n > API_CHECK_BLOCKS)
        return;
    struct hit hits[2 * API_CHECK_BLOCKS + 1];
    int k = 0;
    bool gave[API_CHECK_BLOCKS] = {false};
    for (int i = 0; op->obj && i < n; i++)
        if (api_graph_uses(addr[i], bytes[i], g, &hits[k].u)) {
            hits[k] = (struct hit){true, NULL, addr[i], bytes[i], hits[k].u};
            gave[i] = true;
            k++;
        }
    if (!g && out && out_bytes && api_graph_owns(out, out_bytes, &hits[k].u)) {
        hits[k] = (struct hit){false, "its output", out, out_bytes, hits[k].u};
        k++;
    }
    for (int i = 0; !g && i < n; i++) /* a block already told of is the same finding */
        if (!gave[i] && api_graph_owns(addr[i], bytes[i], &hits[k].u)) {
            hits[k] = (struct hit){false, block_what, addr[i], bytes[i], hits[k].u};
            k++;
        }
    /* One report per graph the operator conflicts with: one pair of tasks
     * (the operator, the graph's replay), its first conflict named and the
     * others as more lines. */
    bool done[2 * API_CHECK_BLOCKS + 1] = {false};
    for (int i = 0; i < k; i++) {
        if (done[i])
            continue;
        char name[96];
        graph_name(&hits[i].u, name, sizeof name);
        api_rep_begin(API_REP_GRAPH_REUSE);
        first_line(op, &hits[i], name);
        api_rep_op("operator", op->type, op->seq, op->stream);
        api_rep_stream(op->stream);
        for (int j = i + 1; j < k; j++)
            if (!done[j] && hits[j].u.graph == hits[i].u.graph) {
                done[j] = true;
                more_line(&hits[j]);
            }
        task_lines(&hits[i].u, name);
        if (hits[i].gave)
            api_rep_line(false, "the executor hands a captured operator's blocks back right after "
                         "its launch, as CANN's does, but the graph uses them at every replay: "
                         "allocate them from a pool private to the graph (torch_npu's graph "
                         "pools), and release that pool only after aclmdlRIDestroy");
        else
            api_rep_line(false, "fix: bytes a live graph writes (its workspaces, intermediates "
                         "and outputs) are the graph's until aclmdlRIDestroy: store this data "
                         "in a buffer of its own, or destroy the graph first");
        san_op_stack("this operator was issued at", op->seq);
        san_count(API_REP_GRAPH_REUSE);
    }
}

/* The first device range of t that is no longer allocated (*r), if any. */
static bool freed_range(const struct api_cap_task *t, struct api_cap_range *r)
{
    for (int i = 0; i < t->n_r; i++) {
        struct be_ptr_info in;
        be_get()->lookup(t->r[i].p, &in);
        /* pinned or registered host memory when captured, not any more */
        bool host_gone = ((t->host >> i) & 1u) && in.kind != BE_PTR_HOST_PINNED &&
                         in.kind != BE_PTR_HOST_REGISTERED;
        if (in.kind == BE_PTR_DEVICE_FREE || in.kind == BE_PTR_VA_UNMAPPED || host_gone) {
            *r = t->r[i];
            return true;
        }
    }
    return false;
}

struct replay_walk {
    struct api_graph *g;
    bool reported;
};

static void replay_task(const struct api_cap_task *t, void *u)
{
    struct replay_walk *w = u;
    struct api_graph_use use;
    if (w->reported || !freed_range(t, &use.range))
        return;
    w->reported = true;
    use.graph = w->g;
    use.id = w->g->id;
    snprintf(use.name, sizeof use.name, "%s", w->g->name ? w->g->name : "");
    use.task = *t;
    char name[96];
    graph_name(&use, name, sizeof name);
    api_rep_begin(API_REP_GRAPH_FREED);
    api_rep_line(true, "allocator check (graph-memory-freed): a replay of %s touches [%p, %p), "
                 "which was freed after the graph was captured (the device would read or write "
                 "memory someone else may own now; aclsim leaves it alone)", name, use.range.p,
                 (const void *)((const char *)use.range.p + use.range.n));
    api_rep_range(use.range.p, use.range.n);
    task_lines(&use, name);
    api_rep_line(false, "fix: keep every buffer a captured graph uses allocated until "
                 "aclmdlRIDestroy");
    san_here("the replay was launched at");
    san_count(API_REP_GRAPH_FREED);
}

void api_check_graph_replay(struct api_graph *g)
{
    if (api_check_mode() == API_CHECK_OFF)
        return;
    /* Nothing freed since the last replay found every range allocated:
     * nothing to look at (launches of one graph are the caller's, in turn). */
    uint64_t frees = API_TOOL(mem_frees) ? API_TOOL(mem_frees)() : 0;
    if (API_TOOL(mem_frees) && g->checked && g->checked_frees == frees)
        return;
    struct replay_walk w = {g, false};
    api_graph_each_task(g, replay_task, &w);
    g->checked = !w.reported;
    g->checked_frees = frees;
}
