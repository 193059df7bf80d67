/*
 * executor.c - the single-operator executor's memory behaviour, as CANN's
 * (hicann/ge at ffdcbc9f: api/acl/acl_model/model/
 * acl_resource_manager.cpp GetAllocators L170-201, UpdateExternalAllocators
 * L260-309; runtime/v2/kernel/memory/external_allocator.cc; memory_kernel.cc
 * L375-383):
 *  - every execute looks the stream's registration up (aclrtAllocatorGetBy
 *    Stream's registry) and uses that allocator, through a wrapper kept per
 *    stream whose mutex serialises the callbacks, which run on the calling
 *    thread;
 *  - a stream that runs an operator while nothing is registered gets the
 *    executor's fallback allocator for its whole life: a later registration on it is
 *    ignored (CANN silently; aclsim warns on stderr, once per desc);
 *  - per execute, each block the operator needs (library.c's rule) comes from
 *    allocFunc and getAddrFromBlockFunc, the operator is launched, and every
 *    block goes back through freeFunc right after the launch, on the host,
 *    before the device has run it: reuse is safe only in stream order;
 *  - a NULL block or address fails the execute (ACL_ERROR_GE_FAILURE,
 *    "malloc failed"); there is no fallback; allocAdviseFunc is never called.
 * The fallback allocator is a per-stream cache of device blocks reused in
 * stream order and released with the stream (or its device). Each step is
 * shown to the allocator sanitizer (alloc/sanitizer.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "base/mem.h"
#include "op.h"

#define BUCKETS 256u

struct cached {
    void *ptr;
    size_t size;
};

/* The executor's state of one stream (CANN: the cached allocator wrapper). */
struct exec_stream {
    struct exec_stream *next;
    void *stream; /* backend handle */
    int32_t dev;
    bool fallback;           /* the stream keeps the executor's fallback allocator */
    const void *warned_desc; /* the last desc a late registration was reported for */
    pthread_mutex_t cb;      /* serialises the wrapper's callbacks */
    struct cached *cache;    /* fallback allocator: free blocks */
    size_t n_cache, cap_cache;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct exec_stream *table[BUCKETS];

static struct exec_stream **bucket(const void *s)
{
    return &table[((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 56];
}

/* The state of stream s on device dev, made on first use; NULL when host
 * memory runs out. */
static struct exec_stream *state_of(void *s, int32_t dev)
{
    pthread_mutex_lock(&lock);
    struct exec_stream *e = *bucket(s);
    while (e && e->stream != s)
        e = e->next;
    if (!e && (e = base_calloc(1, sizeof *e)) != NULL) {
        e->stream = s;
        e->dev = dev;
        pthread_mutex_init(&e->cb, NULL);
        e->next = *bucket(s);
        *bucket(s) = e;
    }
    pthread_mutex_unlock(&lock);
    return e;
}

static void release_cache(struct exec_stream *e)
{
    for (size_t i = 0; i < e->n_cache; i++)
        be_get()->mem_free(e->cache[i].ptr);
    base_free(e->cache);
    e->cache = NULL;
    e->n_cache = e->cap_cache = 0;
}

static void destroy(struct exec_stream *e)
{
    release_cache(e);
    pthread_mutex_destroy(&e->cb);
    base_free(e);
}

void api_op_stream_released(void *stream)
{
    pthread_mutex_lock(&lock);
    struct exec_stream *e = NULL;
    for (struct exec_stream **p = bucket(stream); *p; p = &(*p)->next)
        if ((*p)->stream == stream) {
            e = *p;
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (e)
        destroy(e);
}

void api_op_device_closing(int32_t dev, const char *where)
{
    (void)where;
    struct exec_stream *gone = NULL;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < BUCKETS; i++)
        for (struct exec_stream **p = &table[i]; *p;) {
            struct exec_stream *e = *p;
            if (e->dev == dev) {
                *p = e->next;
                e->next = gone;
                gone = e;
            } else {
                p = &e->next;
            }
        }
    pthread_mutex_unlock(&lock);
    while (gone) {
        struct exec_stream *e = gone;
        gone = e->next;
        destroy(e);
    }
}

/* Unload: whatever states are left (streams never destroyed). */
__attribute__((destructor)) static void opexec_unload(void)
{
    for (unsigned i = 0; i < BUCKETS; i++)
        while (table[i]) {
            struct exec_stream *e = table[i];
            table[i] = e->next;
            pthread_mutex_destroy(&e->cb);
            base_free(e->cache); /* the device memory went with the device */
            base_free(e);
        }
}

/* ---- The fallback allocator: a per-stream cache of device blocks ---- */

static aclError fallback_get(struct exec_stream *e, size_t size, void **out)
{
    pthread_mutex_lock(&e->cb);
    for (size_t i = e->n_cache; i-- > 0;)
        if (e->cache[i].size == size) {
            *out = e->cache[i].ptr;
            e->cache[i] = e->cache[--e->n_cache];
            pthread_mutex_unlock(&e->cb);
            return ACL_SUCCESS;
        }
    pthread_mutex_unlock(&e->cb);
    return be_get()->mem_alloc(e->dev, size, ACL_MEM_MALLOC_HUGE_FIRST, 0, out);
}

static void fallback_put(struct exec_stream *e, void *ptr, size_t size)
{
    pthread_mutex_lock(&e->cb);
    if (e->n_cache == e->cap_cache) {
        size_t cap = e->cap_cache ? 2 * e->cap_cache : 8;
        struct cached *c = base_realloc(e->cache, cap * sizeof *c);
        if (c) {
            e->cache = c;
            e->cap_cache = cap;
        }
    }
    bool kept = e->n_cache < e->cap_cache;
    if (kept)
        e->cache[e->n_cache++] = (struct cached){ptr, size};
    pthread_mutex_unlock(&e->cb);
    if (!kept) {
        /* No host memory to cache it: wait for the stream, then free. */
        be_get()->stream_sync(e->stream, -1);
        be_get()->mem_free(ptr);
    }
}

/* ---- Registrations ---- */

/* A registration the stream ignores: CANN is silent, aclsim says it once
 * per desc. */
static void warn_late(struct exec_stream *e, aclrtStream stream, const void *desc)
{
    pthread_mutex_lock(&lock);
    bool fresh = e->warned_desc != desc;
    e->warned_desc = desc;
    pthread_mutex_unlock(&lock);
    if (fresh && api_check_mode() != API_CHECK_OFF)
        fprintf(stderr, "aclsim: warning: the allocator registered on stream %p (desc %p) is "
                "ignored: the stream ran an operator before any allocator was registered on it, "
                "so the single-op executor keeps its fallback allocator for the stream's whole "
                "life (CANN ignores such a registration silently). Register before the first "
                "operator on the stream.\n", (void *)stream, desc);
}

/* ---- Execution ---- */

/* The execute fails for want of a block: CANN's wrapper logs the first
 * line, its memory kernel the second, the executor the third. */
static aclError alloc_failed(const char *first, const char *type, const void *stream,
                             size_t size, int index)
{
    if (first)
        api_report(API_MSG_EH9999, "%s", first);
    api_report(API_MSG_EH9999, "malloc failed, stream %p, tensor size=%zu, index=%d", stream,
               size, index);
    api_report(API_MSG_EH9999, "[Exec][Op]Execute op failed. op type = %s, ge result = %u", type,
               0xFFFFFFFFu);
    return ACL_ERROR_GE_FAILURE;
}

/* Buffers the operator reads and writes must lie in live device memory. */
static aclError check_buffer(const char *type, const char *role, int i, const void *p,
                             size_t bytes)
{
    if (bytes == 0)
        return ACL_SUCCESS;
    struct be_ptr_info in;
    be_get()->lookup(p, &in);
    const char *why = NULL;
    char text[160];
    if (in.kind != BE_PTR_DEVICE) {
        why = in.kind == BE_PTR_DEVICE_FREE ? "it is not inside a live device allocation (freed?)"
              : in.kind == BE_PTR_HOST_PINNED
                  ? "it is host memory (aclrtMallocHost); set the desc's placement to host for a "
                    "host input"
                  : "it is not device memory";
    } else if (in.size && bytes > in.size - (size_t)((const char *)p - (const char *)in.start)) {
        snprintf(text, sizeof text, "the tensor needs %zu bytes, only %zu are left in its "
                 "allocation", bytes, in.size - (size_t)((const char *)p - (const char *)in.start));
        why = text;
    }
    if (!why)
        return ACL_SUCCESS;
    char v[32], param[48], reason[256];
    snprintf(v, sizeof v, "%p", p);
    snprintf(param, sizeof param, "%s[%d] of %s", role, i, type);
    snprintf(reason, sizeof reason, "%s", why);
    return api_err_arg_value(param, v, reason);
}

/* The device buffers an operator reads and writes (the bytes each view
 * spans), in the order its inputs and outputs come. */
static aclError check_buffers(const struct api_op_plan *plan)
{
    const struct be_op *op = &plan->op;
    for (int i = 0; i < op->n_in; i++)
        if (op->in[i].dev) {
            const void *lo;
            size_t bytes;
            api_view_span(&op->in[i], &lo, &bytes);
            aclError rc = check_buffer(op->type, "inputs", plan->in_index[i], lo, bytes);
            if (rc != ACL_SUCCESS)
                return rc;
        }
    for (int i = 0; i < op->n_out; i++) {
        const void *lo;
        size_t bytes;
        api_view_span(&op->out[i], &lo, &bytes);
        aclError rc = check_buffer(op->type, "outputs", i, lo, bytes);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

/* The allocator an execute draws from: the stream's registered one, or the
 * executor's fallback allocator, which a stream keeps for its whole life
 * once it ran an operator with nothing registered (as CANN's does). */
struct exec_alloc {
    bool fallback;
    struct api_alloc_snapshot s; /* the registration (fallback: none) */
};

/* Looked up on every execute, as CANN does. */
static void choose_allocator(struct exec_stream *e, aclrtStream stream, struct exec_alloc *a)
{
    static const struct api_alloc_snapshot none;
    const struct api_alloc_snapshot *found = stream ? api_registry_get(stream) : NULL;
    a->s = found ? *found : none;
    pthread_mutex_lock(&lock);
    if (!e->fallback && !found)
        e->fallback = true; /* for the stream's whole life */
    a->fallback = e->fallback;
    pthread_mutex_unlock(&lock);
    if (a->fallback && found)
        warn_late(e, stream, a->s.desc);
}

/* The blocks of one execute: what the allocator handed out (blocks), the
 * addresses the kernel uses (addrs; NULL for one the sanitizer refused),
 * their sizes, and how many were got. */
struct exec_blocks {
    void *blocks[2], *addrs[2];
    size_t sizes[2];
    int got;
    const char *ws_call; /* aclnn: the call the caller's workspace was passed to */
};

/* One block of `size` from the registered allocator, as CANN's wrapper
 * gets it (runtime/v2/kernel/memory/external_allocator.cc): allocFunc,
 * then getAddrFromBlockFunc, under the stream's callback mutex. */
static aclError external_get(struct exec_stream *e, const struct exec_alloc *a,
                             const char *type, size_t size, int index, void **block, void **addr)
{
    void *b = NULL, *p = NULL;
    if (!FLT_HIT(ACL_OP_ALLOC)) {
        pthread_mutex_lock(&e->cb);
        b = a->s.alloc(a->s.obj, size);
        pthread_mutex_unlock(&e->cb);
    }
    if (b && !FLT_HIT(ACL_OP_GET_ADDR)) {
        pthread_mutex_lock(&e->cb);
        p = a->s.get_addr(b);
        pthread_mutex_unlock(&e->cb);
    }
    if (b && !p) {
        pthread_mutex_lock(&e->cb);
        a->s.free(a->s.obj, b); /* CANN's block goes back as it is destroyed */
        pthread_mutex_unlock(&e->cb);
    }
    if (!p)
        return alloc_failed(b ? "Failed to get the address of a block from external allocator"
                              : "Failed to malloc memory by external allocator",
                            type, e->stream, size, index);
    *block = b;
    *addr = p;
    return ACL_SUCCESS;
}

/* Every block the plan asks for, each shown to the sanitizer; the
 * workspace and the tiling record go into the operator. Stops at the
 * first failure (x->got says how many were got). */
static aclError get_blocks(struct exec_stream *e, const struct exec_alloc *a,
                           struct api_op_plan *plan, const struct api_check_op *chk,
                           struct exec_blocks *x)
{
    struct be_op *op = &plan->op;
    for (x->got = 0; x->got < plan->n_req; x->got++) {
        int i = x->got;
        size_t size = x->sizes[i] = plan->req[i].bytes;
        if (a->fallback) {
            if (fallback_get(e, size, &x->addrs[i]) != ACL_SUCCESS) {
                api_report(API_MSG_EL0004, "Failed to allocate memory.");
                return alloc_failed(NULL, op->type, e->stream, size, i);
            }
            x->blocks[i] = x->addrs[i];
        } else {
            aclError rc = external_get(e, a, op->type, size, i, &x->blocks[i], &x->addrs[i]);
            if (rc != ACL_SUCCESS)
                return rc;
            if (!api_check_block(chk, x->blocks[i], x->addrs[i], size, plan->req[i].workspace))
                x->addrs[i] = NULL; /* reported; the kernel leaves it alone */
        }
        if (plan->req[i].workspace) {
            op->ws = x->addrs[i];
            op->ws_bytes = size;
        } else {
            op->tiling = x->addrs[i];
            op->tiling_bytes = size;
        }
    }
    return ACL_SUCCESS;
}

/* Launch the operator, then tell the sanitizer which bytes it uses (its
 * blocks and buffers) from when until when in simulated time. */
static aclError launch(void *stream, const struct api_op_plan *plan, struct api_check_op *chk,
                       const struct exec_blocks *x)
{
    /* What the backend's happens-before check names the uses by: the
     * operator's number, the bytes each tensor spans, its allocator. */
    struct be_op run = plan->op;
    run.tag = chk->seq;
    run.alloc_obj = chk->obj;
    run.alloc_stream = chk->obj ? stream : NULL;
    run.alloc_desc = chk->desc;
    const struct be_op *op = &run;
    uint64_t start = 0, end = 0;
    /* a kernel task: what a task group or its update admits */
    aclError rc = api_cap_admit(stream, ACL_MODEL_RI_TASK_KERNEL, "KERNEL_AICORE", 0);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = be_get()->op_run(stream, op, &start, &end);
    if (rc != ACL_SUCCESS) {
        api_report(API_MSG_EH9999, "[Exec][Op]Execute op failed. op type = %s, ge result = %d",
                   op->type, rc);
        return rc;
    }
    chk->start = start;
    chk->end = end;
    /* the bytes the operator reads and writes: each view's span, inputs
     * first (the sanitizer's hooks receive them in this order) */
    const void *bufs[BE_OP_MAX_IN + BE_OP_MAX_OUT];
    size_t buf_bytes[BE_OP_MAX_IN + BE_OP_MAX_OUT];
    int nb = 0;
    for (int i = 0; i < op->n_in; i++)
        if (op->in[i].dev) {
            api_view_span(&op->in[i], &bufs[nb], &buf_bytes[nb]);
            nb++;
        }
    for (int i = 0; i < op->n_out; i++) {
        api_view_span(&op->out[i], &bufs[nb], &buf_bytes[nb]);
        nb++;
    }
    const void *used[2];
    size_t used_bytes[2];
    int nu = 0;
    for (int i = 0; i < x->got; i++)
        if (x->addrs[i]) {
            used[nu] = x->addrs[i];
            used_bytes[nu++] = x->sizes[i];
        }
    /* Blocks a live graph still uses must not serve other work; a captured
     * operator keeps its bytes for its graph's life (rt/capture.c), and so
     * does one that updates a task group of a graph. */
    struct api_graph *g = api_cap_graph_of(stream);
    if (!g)
        g = api_cap_update_graph(stream);
    if (g)
        api_check_graph_op(chk, g, used, used_bytes, nu, NULL, 0, NULL);
    if (g) {
        struct api_cap_range r[API_CAP_RANGES];
        int n = 0;
        for (int i = 0; i < nb && n < API_CAP_RANGES; i++) /* the output comes last */
            r[n++] = (struct api_cap_range){bufs[i], buf_bytes[i], i == nb - 1,
                                            i == nb - 1 ? "output" : NULL, NULL};
        for (int i = 0; i < nu && n < API_CAP_RANGES; i++)
            r[n++] = (struct api_cap_range){used[i], used_bytes[i], true,
                                            x->ws_call ? "workspace" : "the executor's block",
                                            x->ws_call};
        api_cap_note(stream, ACL_MODEL_RI_TASK_KERNEL, op->type, r, n);
        return ACL_SUCCESS;
    }
    api_check_launched(chk);
    /* What it stores in bytes a live graph owns, the graph's next replay
     * overwrites. */
    api_check_graph_op(chk, NULL, used, used_bytes, nu, bufs[nb - 1], buf_bytes[nb - 1],
                       x->ws_call ? "its workspace" : "the executor's block");
    return ACL_SUCCESS;
}

/* Every block goes back right after the launch (or the failure), on the
 * host, before the device ran the operator: CANN's Launch-to-Free order. */
static void put_blocks(struct exec_stream *e, const struct exec_alloc *a,
                       const struct exec_blocks *x)
{
    for (int i = 0; i < x->got; i++) {
        if (a->fallback) {
            fallback_put(e, x->blocks[i], x->sizes[i]);
            continue;
        }
        api_check_free_begin(e->stream);
        pthread_mutex_lock(&e->cb);
        a->s.free(a->s.obj, x->blocks[i]);
        pthread_mutex_unlock(&e->cb);
        api_check_free_end();
    }
}

aclError api_op_execute(const char *fn, struct api_op_plan *plan, aclrtStream stream)
{
    aclError rc = check_buffers(plan);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_stream_ref ref;
    rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    struct exec_stream *e = state_of(ref.stream, ref.ctx->device);
    if (!e) {
        api_stream_put(&ref);
        return api_err_host_alloc(sizeof *e);
    }
    struct exec_alloc a;
    choose_allocator(e, stream, &a);
    struct api_check_op chk;
    api_check_op_begin(&chk, plan->op.type, ref.stream, a.fallback ? NULL : (const void *)a.s.obj,
                       a.fallback ? NULL : a.s.desc);
    if (!a.fallback)
        api_check_op_allocator(&chk, (uintptr_t)a.s.alloc, (uintptr_t)a.s.free);
    struct exec_blocks x = {{NULL, NULL}, {NULL, NULL}, {0, 0}, 0, NULL};
    rc = get_blocks(e, &a, plan, &chk, &x);
    if (rc == ACL_SUCCESS && !a.fallback) {
        bool ws[2] = {plan->req[0].workspace, x.got > 1 && plan->req[1].workspace};
        api_check_disjoint(&chk, (const void *const *)x.addrs, x.sizes, ws, x.got);
        api_check_live_at_launch(&chk, x.blocks, x.addrs, x.sizes, ws, x.got);
        for (int i = 0; i < x.got; i++) /* a block reported there is left unused */
            if (!x.addrs[i])
                *(plan->req[i].workspace ? &plan->op.ws : &plan->op.tiling) = NULL;
    }
    if (rc == ACL_SUCCESS)
        rc = launch(ref.stream, plan, &chk, &x);
    put_blocks(e, &a, &x);
    api_stream_put(&ref);
    return rc;
}

/* ---- aclnn: a workspace the caller allocated ---- */

aclError api_op_execute_ws(const char *fn, struct api_op_plan *plan, aclrtStream stream,
                           void *ws, size_t ws_bytes)
{
    aclError rc = check_buffers(plan);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_stream_ref ref;
    rc = api_stream_get(fn, stream, &ref);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The workspace is the caller's block: the sanitizer sees it as it sees
     * an allocator's (no allocator object: the caller's own memory). */
    struct api_check_op chk;
    api_check_op_begin(&chk, plan->op.type, ref.stream, NULL, NULL);
    api_check_op_workspace(&chk, fn);
    struct exec_blocks x = {{NULL, NULL}, {NULL, NULL}, {0, 0}, 0, NULL};
    plan->op.tiling = NULL;
    plan->op.tiling_bytes = 0;
    plan->op.ws = NULL;
    plan->op.ws_bytes = 0;
    if (ws && ws_bytes) {
        x.ws_call = fn;
        x.blocks[0] = ws;
        x.addrs[0] = api_check_block(&chk, ws, ws, ws_bytes, true) ? ws : NULL;
        x.sizes[0] = ws_bytes;
        x.got = 1;
        plan->op.ws = x.addrs[0];
        plan->op.ws_bytes = x.addrs[0] ? ws_bytes : 0;
    }
    rc = launch(ref.stream, plan, &chk, &x);
    api_stream_put(&ref);
    return rc;
}
