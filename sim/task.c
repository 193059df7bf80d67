/*
 * task.c - run one task of a stream now: copies, fills, 2-D copies, 32-bit
 * fills, managed-memory migrations, device tasks, operators and host
 * tasks, each moving its bytes at once and taking its simulated time on
 * the device's links, copy engines or cores (clock.c); and what running a
 * task means for its stream besides: its task id, the device faults it
 * raises, and, for a blocking host task, that the stream's later work
 * waits for the host.
 *
 * stream.c runs a task here when its stream is not held; queue.c replays
 * queued tasks here when the wait that held them is released
 * (sim_task_run), and a graph's replay its recorded ones (through
 * stream.c; sim_task_run_live when graph.c found their memory live). The
 * copies a queue and a capture's record keep are made by sim_task_keep.
 * A queued task runs on the device memory of that moment:
 * memory freed since it was enqueued is left alone (a device task or an
 * operator that would touch it raises a memory fault instead, as the
 * device would). Synchronous copies and fills (no stream) take their
 * device's hidden stream and make the host wait.
 *
 * Device faults go to one handler (sim_fault_handler). A thread inside the
 * queue lock (queue.c) defers the faults its replayed tasks raise until it
 * has released the lock, so the handler never runs under a simulator lock.
 *
 * Blocking host tasks. A host task is a callback the host runs when its
 * stream reaches it: in simulated time it is a record (ready when the
 * stream's work so far is done). A blocking one also blocks the stream in
 * real time, because the simulator moves bytes when work runs: the
 * stream's later copies, fills, records, device tasks and operators wait
 * at enqueue until the host has run the callback, so a callback never sees
 * bytes of work queued behind it, and a synchronisation of the stream
 * waits for it as the device would. The thread that runs the tasks
 * (runner) is never made to wait for itself. They are counted under
 * blocking_lock, a leaf lock; the fast path is one atomic load per enqueue.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "base/mem.h"
#include "clock.h"
#include "dtype.h"
#include "internal.h"
#include "queue.h"
#include "trace.h"

/* ---- Task ids and device faults ---- */

static sim_fault_fn _Atomic fault_fn;

/* Faults raised inside the queue lock, raised when it is released. */
#define DEFERRED_MAX 16
static _Thread_local struct {
    unsigned depth, n;
    struct sim_fault f[DEFERRED_MAX];
} deferred;

static uint64_t self_id(void)
{
    return (uint64_t)pthread_self();
}

/* The last task id the calling thread counted (aclrtGetThreadLastTaskId). */
static _Thread_local uint32_t thread_last;

uint32_t sim_task_begin(struct sim_stream *s)
{
    atomic_store_explicit(&s->last_thread, (uint32_t)self_id(), memory_order_relaxed);
    uint32_t id = atomic_fetch_add_explicit(&s->tasks, 1, memory_order_relaxed);
    thread_last = id;
    return id;
}

uint32_t sim_thread_last_task(void)
{
    return thread_last;
}

/* ---- Cache maintenance barriers ----
 *
 * When the last cache operation under each barrier id was done, per
 * device: a few ids live at once (CANN's barrier wait names at most
 * ACL_RT_CMO_MAX_BARRIER_NUM), so a small table, its oldest entry reused. */
#define BARRIERS 32
static pthread_mutex_t barrier_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint32_t id;
    sim_ps at;
} barriers[SIM_MAX_DEVICES][BARRIERS];
static unsigned barrier_next[SIM_MAX_DEVICES];

static void barrier_note(int32_t dev, uint32_t id, sim_ps at)
{
    pthread_mutex_lock(&barrier_lock);
    unsigned i = 0;
    while (i < BARRIERS && barriers[dev][i].id != id)
        i++;
    if (i == BARRIERS)
        i = barrier_next[dev]++ % BARRIERS;
    barriers[dev][i].id = id;
    if (barriers[dev][i].at < at)
        barriers[dev][i].at = at;
    pthread_mutex_unlock(&barrier_lock);
}

sim_ps sim_task_barrier_time(int32_t dev, const uint32_t *ids, unsigned n)
{
    sim_ps t = 0;
    pthread_mutex_lock(&barrier_lock);
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < BARRIERS; i++)
            if (ids[k] != 0 && barriers[dev][i].id == ids[k] && barriers[dev][i].at > t)
                t = barriers[dev][i].at;
    pthread_mutex_unlock(&barrier_lock);
    return t;
}

void sim_fault_handler(sim_fault_fn fn)
{
    atomic_store(&fault_fn, fn);
}

void sim_task_fault(enum sim_fault_kind kind, int32_t dev, uint32_t stream_id, uint32_t task_id,
                    uint32_t thread)
{
    sim_fault_fn fn = atomic_load(&fault_fn);
    if (!fn)
        return;
    struct sim_fault f = {kind, dev, stream_id, task_id, thread};
    if (deferred.depth == 0)
        fn(&f);
    else if (deferred.n < DEFERRED_MAX)
        deferred.f[deferred.n++] = f; /* past the most: the device reports the first ones */
}

void sim_task_faults_defer(void)
{
    deferred.depth++;
}

void sim_task_faults_raise(void)
{
    if (--deferred.depth != 0)
        return;
    sim_fault_fn fn = atomic_load(&fault_fn);
    unsigned n = deferred.n;
    deferred.n = 0;
    for (unsigned i = 0; fn && i < n; i++)
        fn(&deferred.f[i]);
}

/* A fault of the task of s being run now (its id: the last one counted). */
static void fault_now(struct sim_stream *s, enum sim_fault_kind kind, uint32_t task)
{
    sim_task_fault(kind, s->dev, s->clk.id, task, atomic_load(&s->last_thread));
}

/* ---- Copies and fills ---- */

static struct sim_clock_stream *clock_of(int32_t dev, struct sim_stream *s)
{
    return s ? &s->clk : &sim_dev_get(dev)->sync_clk;
}

static enum sim_link link_of(bool dst_dev, bool src_dev)
{
    if (dst_dev)
        return src_dev ? SIM_LINK_HBM : SIM_LINK_H2D;
    return src_dev ? SIM_LINK_D2H : SIM_LINK_HOST;
}

/* The device whose memory holds addr, or -1. */
static int32_t owner(const void *addr)
{
    struct sim_dev *d = sim_dev_of((uintptr_t)addr);
    return d ? sim_dev_id(d) : -1;
}

/* Take the time of a copy whose bytes already moved: its link, staged when
 * a host side is pageable, over the fabric between two devices. */
static void time_copy(struct sim_clock_stream *clk, void *dst, bool dst_dev, const void *src,
                      bool src_dev, uint64_t n, unsigned flags)
{
    bool wait = (flags & SIM_COPY_WAIT) != 0;
    enum sim_link link = link_of(dst_dev, src_dev);
    if (link == SIM_LINK_HBM) {
        int32_t from = owner(src), to = owner(dst);
        if (from >= 0 && to >= 0 && from != to) {
            sim_clock_copy_peer(clk, from, to, n, wait, NULL, NULL);
            return;
        }
    }
    if ((link == SIM_LINK_H2D || link == SIM_LINK_D2H) && (flags & SIM_COPY_PAGEABLE))
        sim_clock_copy_staged(clk, link, n, NULL, NULL);
    else
        sim_clock_copy(clk, link, n, wait, NULL, NULL);
}

/* The uses of a copy or fill of [dst, dst+n) (from [src, src+n) when src):
 * its device sides; the host's own when s is NULL (a synchronous one). */
static void data_uses(struct sim_stream *s, const void *dst, bool dst_dev, const void *src,
                      bool src_dev, size_t n, bool fill)
{
    if (!sim_hb_on())
        return;
    struct sim_use u[2];
    int k = 0;
    if (dst_dev)
        u[k++] = (struct sim_use){.space = SIM_SPACE_DEVICE, .write = true, .p = dst, .n = n,
                                  .role = s ? (fill ? SIM_USE_FILL : SIM_USE_COPY_DST)
                                            : SIM_USE_HOST_WRITE};
    if (src && src_dev)
        u[k++] = (struct sim_use){.space = SIM_SPACE_DEVICE, .p = src, .n = n,
                                  .role = s ? SIM_USE_COPY_SRC : SIM_USE_HOST_READ};
    sim_task_uses(s, u, k);
}

enum sim_rc sim_copy_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                         const void *src, bool src_dev, size_t n, unsigned flags)
{
    data_uses(s, dst, dst_dev, src, src_dev, n, false);
    uint32_t task = s ? sim_task_begin(s) : 0;
    enum sim_rc rc = sim_mem_copy(dst, dst_dev, src, src_dev, n);
    if (rc == SIM_EIO && s)
        fault_now(s, SIM_FAULT_COPY, task);
    if (rc != SIM_OK)
        return rc;
    time_copy(clock_of(dev, s), dst, dst_dev, src, src_dev, n, s ? flags : flags | SIM_COPY_WAIT);
    return SIM_OK;
}

enum sim_rc sim_fill_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                         size_t n, bool host_waits)
{
    data_uses(s, dst, dst_dev, NULL, false, n, true);
    uint32_t task = s ? sim_task_begin(s) : 0;
    enum sim_rc rc = sim_mem_fill(dst, dst_dev, value, n);
    if (rc == SIM_EIO && s)
        fault_now(s, SIM_FAULT_COPY, task);
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = clock_of(dev, s);
    if (dst_dev)
        sim_clock_fill(clk, n, host_waits || !s, NULL, NULL);
    else
        sim_clock_copy(clk, SIM_LINK_HOST, n, true, "memset host", NULL);
    return SIM_OK;
}

enum sim_rc sim_copy2d_run(int32_t dev, struct sim_stream *s, void *dst, size_t dpitch,
                           bool dst_dev, const void *src, size_t spitch, bool src_dev,
                           size_t width, size_t height, unsigned flags)
{
    if (height > 0)
        data_uses(s, dst, dst_dev, src, src_dev, (height - 1) * dpitch + width, false);
    for (size_t r = 0; r < height; r++) {
        enum sim_rc rc = sim_mem_copy((char *)dst + r * dpitch, dst_dev,
                                      (const char *)src + r * spitch, src_dev, width);
        if (rc != SIM_OK)
            return rc;
    }
    time_copy(clock_of(dev, s), dst, dst_dev, src, src_dev, (uint64_t)width * height,
              s ? flags : flags | SIM_COPY_WAIT);
    return SIM_OK;
}

enum sim_rc sim_fill32_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                           uint32_t value, size_t words, bool host_waits)
{
    data_uses(s, dst, dst_dev, NULL, false, words * 4, true);
    enum sim_rc rc = sim_mem_fill32(dst, dst_dev, value, words);
    if (rc != SIM_OK)
        return rc;
    struct sim_clock_stream *clk = clock_of(dev, s);
    if (dst_dev)
        sim_clock_fill(clk, (uint64_t)words * 4, host_waits || !s, "memset D32", NULL);
    else /* the runtime fills host memory itself, at once */
        sim_clock_copy(clk, SIM_LINK_HOST, (uint64_t)words * 4, true, "memset D32 host", NULL);
    return SIM_OK;
}

/* ---- Device tasks ----
 *
 * Reductions and the status copies are SDMA work: timed as a copy of their
 * bytes through HBM. A reset of the status words is a fill of the
 * context's 512-byte overflow area (OVERFLOW_ADDR_MAX_SIZE in CANN's
 * runtime). The DSA's random numbers are timed as a fill of the results
 * (an assumption: no figure for the DSA is published). */

enum sim_rc sim_devtask_run(struct sim_stream *s, const struct sim_devtask *b)
{
    if (sim_hb_on()) {
        struct sim_use u[3];
        int k = 0;
        size_t n = b->kind == SIM_DEVTASK_STATUS_RESET ? 512 : (size_t)b->n;
        if (b->dst)
            u[k++] = (struct sim_use){.space = SIM_SPACE_DEVICE, .role = SIM_USE_DEVTASK,
                                      .write = true, .p = b->dst, .n = n};
        if (b->src && b->kind == SIM_DEVTASK_REDUCE)
            u[k++] = (struct sim_use){.space = SIM_SPACE_DEVICE, .role = SIM_USE_DEVTASK,
                                      .p = b->src, .n = n};
        sim_task_uses(s, u, k);
    }
    uint32_t task = sim_task_begin(s);
    uint64_t bytes = 0;
    enum sim_rc rc = sim_devtask_compute(b, &bytes);
    if (rc == SIM_EIO || rc == SIM_EINVAL)
        fault_now(s, rc == SIM_EIO ? SIM_FAULT_COPY : SIM_FAULT_MEMORY, task);
    if (rc != SIM_OK)
        return rc;
    switch (b->kind) {
    case SIM_DEVTASK_REDUCE:
        sim_clock_copy(&s->clk, SIM_LINK_HBM, bytes, false, "reduce", NULL);
        break;
    case SIM_DEVTASK_STATUS:
        sim_clock_copy(&s->clk, SIM_LINK_HBM, bytes, false, "overflow status", NULL);
        break;
    case SIM_DEVTASK_STATUS_RESET:
        sim_clock_fill(&s->clk, 512, false, "overflow reset", NULL);
        break;
    default:
        sim_clock_fill(&s->clk, bytes, false, "random numbers", NULL);
        break;
    }
    return SIM_OK;
}

/* ---- Operators ---- */

/* "float32[2,3] float32[3] -> float16[2,3]; workspace 1024" for the
 * trace's operator slice (strides only where a view is not contiguous). */
static void describe_tensors(const struct sim_op *op, char *buf, size_t len)
{
    size_t at = 0;
    for (int io = 0; io < 2; io++) {
        const struct sim_view *v = io ? op->out : op->in;
        int n = io ? op->n_out : op->n_in;
        if (io && at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s->", op->n_in ? " " : "");
        for (int i = 0; i < n && at < len; i++) {
            at += (size_t)snprintf(buf + at, len - at, "%s%s[", i || io ? " " : "",
                                   sim_dt_name(v[i].dt));
            int64_t want = 1;
            bool dense = true;
            for (int d = v[i].ndims; d-- > 0;) {
                dense &= v[i].dims[d] == 1 || v[i].strides[d] == want;
                want *= v[i].dims[d];
            }
            for (int d = 0; d < v[i].ndims && at < len; d++)
                at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? "," : "",
                                       (long long)v[i].dims[d]);
            for (int d = 0; !dense && d < v[i].ndims && at < len; d++)
                at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? "," : "] strides [",
                                       (long long)v[i].strides[d]);
            if (at < len)
                at += (size_t)snprintf(buf + at, len - at, "]");
        }
    }
    if (at < len)
        snprintf(buf + at, len - at, "; workspace %zu", op->ws_bytes);
}

enum sim_rc sim_op_exec(int32_t dev, struct sim_stream *s, const struct sim_op *op,
                        uint64_t *start, uint64_t *end)
{
    uint64_t ps = 0;
    if (sim_hb_on()) {
        struct sim_use u[SIM_OP_USES];
        sim_task_uses(s, u, sim_op_uses(s, op, u));
    }
    enum sim_rc rc = sim_op_compute(dev, op, &ps);
    if (rc != SIM_OK)
        return rc;
    sim_ps b = 0;
    const void *blocks[2] = {op->ws, op->tiling};
    size_t bytes[2] = {op->ws_bytes, op->tiling_bytes};
    int n = op->ws ? 1 : 0;
    if (op->tiling) {
        blocks[n] = op->tiling;
        bytes[n++] = op->tiling_bytes;
    }
    char tensors[512] = "";
    if (sim_trace_enabled())
        describe_tensors(op, tensors, sizeof tensors);
    *end = sim_clock_kernel(&s->clk, ps, op->name, blocks, bytes, n, tensors[0] ? tensors : NULL,
                            &b);
    *start = b;
    return SIM_OK;
}

/* An operator was queued on s: the uses it will make are held (hb.c)
 * until it runs or is dropped. */
void sim_task_queued_op(struct sim_stream *s, const struct sim_op *op)
{
    if (!sim_hb_on())
        return;
    struct sim_use u[SIM_OP_USES];
    sim_hb_hold(op, s, u, sim_op_uses(s, op, u));
}

void sim_task_drop_op(struct sim_stream *s, const struct sim_op *op)
{
    (void)s;
    sim_hb_unhold(op);
}

/* Run a queued operator: on the device bytes of now, unless some of the
 * memory it touches was freed since it was enqueued. */
static void run_op(struct sim_stream *s, const struct sim_task *t)
{
    const struct sim_op *op = t->obj;
    uint32_t task = atomic_load_explicit(&s->tasks, memory_order_relaxed);
    uint64_t start = 0, end = 0;
    sim_hb_unhold(op);
    enum sim_rc rc = sim_op_live(op) ? sim_op_exec(t->dev, s, op, &start, &end) : SIM_EINVAL;
    if (rc == SIM_OK)
        return;
    if (rc == SIM_EIO || rc == SIM_EINVAL)
        fault_now(s, rc == SIM_EIO ? SIM_FAULT_COPY : SIM_FAULT_MEMORY, task);
}

/* ---- Queued tasks ---- */

/* The memory a kept copy q of t owns (q->staging). */
static enum sim_rc own(struct sim_task *q, const struct sim_task *t, bool host_sources)
{
    q->staging = NULL;
    if ((t->kind == SIM_T_COPY || t->kind == SIM_T_COPY2D) && !t->src_dev && t->n > 0 &&
        host_sources && (!t->hgen || sim_task_memory_live(t))) {
        /* The runtime stages host sources when the copy is enqueued; 2-D
         * rows are staged packed (spitch = width). */
        size_t rows = t->kind == SIM_T_COPY2D ? t->rows : 1;
        if (!(q->staging = base_malloc(t->n * rows)))
            return SIM_EHOSTMEM;
        for (size_t r = 0; r < rows; r++)
            memcpy((char *)q->staging + r * t->n, (const char *)t->src + r * t->spitch, t->n);
        q->spitch = t->n;
    } else if (t->kind == SIM_T_DEVTASK) {
        if (!(q->staging = base_malloc(sizeof(struct sim_devtask))))
            return SIM_EHOSTMEM;
        memcpy(q->staging, t->obj, sizeof(struct sim_devtask));
        q->obj = q->staging;
    } else if (t->kind == SIM_T_OP) {
        if (!(q->staging = sim_op_copy(t->obj)))
            return SIM_EHOSTMEM;
        q->obj = q->staging;
    } else if (t->kind == SIM_T_GROUP_SET) {
        /* its operator: the caller's (src) at first, then its own copy */
        if (!(q->staging = sim_op_copy(t->staging ? t->staging : t->src)))
            return SIM_EHOSTMEM;
        q->src = NULL;
    }
    return SIM_OK;
}

struct sim_task *sim_task_keep(const struct sim_task *t, bool host_sources)
{
    struct sim_task *q = base_malloc(sizeof *q);
    if (!q)
        return NULL;
    *q = *t;
    q->next = NULL;
    q->enq = (struct sim_hb_vc){0, 0, NULL}; /* queue.c takes the host's clock */
    if (own(q, t, host_sources) != SIM_OK) {
        base_free(q);
        return NULL;
    }
    return q;
}

void sim_task_free_list(struct sim_task *t)
{
    while (t) {
        struct sim_task *next = t->next;
        base_free(t->staging);
        base_free(t);
        t = next;
    }
}

/* Whether [p, p+n) of one side of a queued task is still there: host
 * memory is the program's (or the task's own staging), unless it was in
 * pinned or registered block gen when recorded: then it must still be in
 * that block (not one made since at its place); device memory must still
 * be live. */
static bool side_live(const void *p, bool dev, size_t n, uint64_t gen)
{
    if (!dev) {
        struct sim_host_block b;
        return !gen || (sim_host_find(p, &b) && b.gen == gen &&
                        (size_t)((const char *)p - (const char *)b.start) + n <= b.size);
    }
    return sim_mem_holds(p, n);
}

/* Bytes from the first row's start to the last row's end. */
static size_t span2d(size_t pitch, size_t width, size_t rows)
{
    return rows ? (rows - 1) * pitch + width : 0;
}

/* A replayed copy or fill through the host views graph.c found, timed as
 * sim_copy_run and sim_fill_run time theirs. */
static void run_viewed(struct sim_stream *s, const struct sim_task *t)
{
    data_uses(s, t->dst, t->dst_dev, t->kind == SIM_T_COPY ? t->src : NULL, t->src_dev, t->n,
              t->kind == SIM_T_FILL);
    uint32_t task = sim_task_begin(s);
    enum sim_rc rc = t->kind == SIM_T_COPY ? sim_mem_copy_view(t->hdst, t->hsrc, t->n)
                                           : sim_mem_fill_view(t->hdst, t->fill, t->n);
    if (rc != SIM_OK) {
        fault_now(s, SIM_FAULT_COPY, task);
        return;
    }
    if (t->kind == SIM_T_COPY)
        time_copy(&s->clk, t->dst, t->dst_dev, t->src, t->src_dev, t->n, t->flag);
    else if (t->dst_dev)
        sim_clock_fill(&s->clk, t->n, t->flag != 0, NULL, NULL);
    else
        sim_clock_copy(&s->clk, SIM_LINK_HOST, t->n, true, "memset host", NULL);
}

bool sim_task_memory_live(const struct sim_task *t)
{
    const void *src = t->staging ? t->staging : t->src;
    uint64_t known = t->staging ? 0 : t->hgen; /* a staged source is the task's own */
    switch (t->kind) {
    case SIM_T_COPY:
        return side_live(t->dst, t->dst_dev, t->n, t->hgen) &&
               side_live(src, t->src_dev, t->n, known);
    case SIM_T_COPY2D:
        return side_live(t->dst, t->dst_dev, span2d(t->dpitch, t->n, t->rows), t->hgen) &&
               side_live(src, t->src_dev, span2d(t->spitch, t->n, t->rows), known);
    case SIM_T_FILL:
    case SIM_T_FILL32:
        return side_live(t->dst, t->dst_dev, t->n, t->hgen);
    case SIM_T_CMO:
        return side_live(t->dst, true, t->n, 0);
    default:
        return true;
    }
}

/* sim_task_run; `check` false: its device memory is known live. */
static bool run_task(struct sim_stream *s, const struct sim_task *t, bool device, bool check)
{
    if (!check && t->hdst && (t->kind == SIM_T_COPY || t->kind == SIM_T_FILL)) {
        run_viewed(s, t);
        return t->dst_dev;
    }
    const void *src = t->staging ? t->staging : t->src;
    bool live = !check || sim_task_memory_live(t);
    switch (t->kind) {
    case SIM_T_COPY:
        if (live)
            sim_copy_run(s->dev, s, t->dst, t->dst_dev, src, t->src_dev, t->n, t->flag);
        return t->dst_dev;
    case SIM_T_COPY2D:
        if (live)
            sim_copy2d_run(s->dev, s, t->dst, t->dpitch, t->dst_dev, src, t->spitch,
                           t->src_dev, t->n, t->rows, t->flag);
        return t->dst_dev;
    case SIM_T_FILL:
        if (live)
            sim_fill_run(s->dev, s, t->dst, t->dst_dev, t->fill, t->n, t->flag != 0);
        return t->dst_dev;
    case SIM_T_FILL32:
        if (live)
            sim_fill32_run(s->dev, s, t->dst, t->dst_dev, (uint32_t)t->value, t->n / 4,
                           t->flag != 0);
        return t->dst_dev;
    case SIM_T_MIGRATE:
        sim_clock_copy(&s->clk, t->flag ? SIM_LINK_H2D : SIM_LINK_D2H, t->n, false,
                       "managed prefetch", NULL);
        return false;
    case SIM_T_WAIT_UNTIL:
        device ? sim_clock_release(&s->clk, t->value) : sim_clock_wait(&s->clk, t->value);
        return false;
    case SIM_T_CMO:
        /* One pass of the range through HBM; no byte changes. Memory freed
         * since it was enqueued is left alone. */
        if (live) {
            sim_task_begin(s);
            sim_ps end = sim_clock_fill(&s->clk, t->n, false, "cache maintenance", NULL);
            if (t->value)
                barrier_note(s->dev, (uint32_t)t->value, end);
        }
        return false;
    case SIM_T_DEVTASK:
        sim_devtask_run(s, t->obj);
        return true;
    case SIM_T_OP:
        run_op(s, t);
        return true;
    default:
        return false;
    }
}

bool sim_task_run(struct sim_stream *s, const struct sim_task *t, bool device)
{
    return run_task(s, t, device, true);
}

bool sim_task_run_live(struct sim_stream *s, const struct sim_task *t)
{
    return run_task(s, t, false, false);
}

/* ---- Blocking host tasks ---- */

static pthread_mutex_t blocking_lock = PTHREAD_MUTEX_INITIALIZER;

bool sim_blocking_runner(struct sim_stream *s)
{
    if (atomic_load_explicit(&s->blocking, memory_order_acquire) == 0)
        return false;
    pthread_mutex_lock(&blocking_lock);
    bool me = atomic_load(&s->blocking) > 0 && atomic_load(&s->runner) == self_id();
    pthread_mutex_unlock(&blocking_lock);
    return me;
}

sim_ps sim_host_run(struct sim_stream *s, bool blocking, uint64_t runner, bool device)
{
    if (blocking) {
        pthread_mutex_lock(&blocking_lock);
        atomic_store(&s->runner, runner);
        atomic_fetch_add(&s->blocking, 1);
        pthread_mutex_unlock(&blocking_lock);
    }
    return device ? sim_clock_release(&s->clk, 0) : sim_clock_record(&s->clk);
}

void sim_blocking_done(struct sim_stream *s)
{
    pthread_mutex_lock(&blocking_lock);
    atomic_fetch_sub(&s->blocking, 1);
    pthread_mutex_unlock(&blocking_lock);
}
