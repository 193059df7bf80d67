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
 *  - a stream that runs an operator while nothing is registered gets a
 *    built-in allocator for its whole life: a later registration on it is
 *    ignored (CANN silently; aclsim warns on stderr, once per desc);
 *  - per execute, each block the operator needs (library.c's rule) comes from
 *    allocFunc and getAddrFromBlockFunc, the operator is launched, and every
 *    block goes back through freeFunc right after the launch, on the host,
 *    before the device has run it: reuse is safe only in stream order;
 *  - a NULL block or address fails the execute (ACL_ERROR_GE_FAILURE,
 *    "malloc failed"); there is no fallback; allocAdviseFunc is never called.
 * The built-in allocator is a per-stream cache of device blocks reused in
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
    bool builtin;            /* the stream keeps the built-in allocator */
    const void *warned_desc; /* the last desc a late registration was reported for */
    pthread_mutex_t cb;      /* serialises the wrapper's callbacks */
    struct cached *cache;    /* built-in allocator: free blocks */
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

/* ---- The built-in allocator ---- */

static aclError builtin_get(struct exec_stream *e, size_t size, void **out)
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

static void builtin_put(struct exec_stream *e, void *ptr, size_t size)
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
                "so the single-op executor keeps its built-in allocator for the stream's whole "
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

aclError api_op_execute(const char *fn, struct api_op_plan *plan, aclrtStream stream)
{
    struct be_op *op = &plan->op;
    for (int i = 0; i < op->n_in; i++)
        if (op->in[i].dev) {
            aclError rc = check_buffer(op->type, "inputs", plan->in_index[i], op->in[i].data,
                                       plan->in_bytes[i]);
            if (rc != ACL_SUCCESS)
                return rc;
        }
    aclError rc = check_buffer(op->type, "outputs", 0, op->out.data, plan->out_bytes);
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

    /* Which allocator: looked up on every execute, as CANN does. */
    static const struct api_alloc_snapshot none;
    const struct api_alloc_snapshot *found = stream ? api_registry_get(stream) : NULL;
    bool registered = found != NULL;
    const struct api_alloc_snapshot s = registered ? *found : none;
    pthread_mutex_lock(&lock);
    if (!e->builtin && !registered)
        e->builtin = true; /* for the stream's whole life */
    bool builtin = e->builtin;
    pthread_mutex_unlock(&lock);
    if (builtin && registered)
        warn_late(e, stream, s.desc);

    struct api_check_op chk;
    api_check_op_begin(&chk, op->type, ref.stream, builtin ? NULL : (const void *)s.obj,
                       builtin ? NULL : s.desc);
    void *blocks[2] = {NULL, NULL}, *addrs[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    int got = 0;
    for (; got < plan->n_req; got++) {
        size_t size = plan->req[got].bytes;
        sizes[got] = size;
        if (builtin) {
            rc = builtin_get(e, size, &addrs[got]);
            if (rc != ACL_SUCCESS) {
                api_report(API_MSG_EL0004, "Failed to allocate memory.");
                rc = alloc_failed(NULL, op->type, ref.stream, size, got);
                break;
            }
            blocks[got] = addrs[got];
        } else {
            void *b = NULL, *a = NULL;
            if (!FLT_HIT(ACL_OP_ALLOC)) {
                pthread_mutex_lock(&e->cb);
                b = s.alloc(s.obj, size);
                pthread_mutex_unlock(&e->cb);
            }
            if (b && !FLT_HIT(ACL_OP_GET_ADDR)) {
                pthread_mutex_lock(&e->cb);
                a = s.get_addr(b);
                pthread_mutex_unlock(&e->cb);
            }
            if (b && !a) {
                pthread_mutex_lock(&e->cb);
                s.free(s.obj, b); /* CANN's block goes back as it is destroyed */
                pthread_mutex_unlock(&e->cb);
            }
            if (!a) {
                rc = alloc_failed(b ? "Failed to get the address of a block from external allocator"
                                    : "Failed to malloc memory by external allocator",
                                  op->type, ref.stream, size, got);
                break;
            }
            blocks[got] = b;
            addrs[got] = a;
            if (!api_check_block(&chk, b, a, size, plan->req[got].workspace))
                addrs[got] = NULL; /* reported; the kernel leaves it alone */
        }
        if (plan->req[got].workspace) {
            op->ws = addrs[got];
            op->ws_bytes = size;
        } else {
            op->tiling = addrs[got];
            op->tiling_bytes = size;
        }
    }
    uint64_t start = 0, end = 0;
    if (rc == ACL_SUCCESS) {
        rc = be_get()->op_run(ref.stream, op, &start, &end);
        if (rc != ACL_SUCCESS)
            api_report(API_MSG_EH9999, "[Exec][Op]Execute op failed. op type = %s, ge result = %d",
                       op->type, rc);
    }
    if (rc == ACL_SUCCESS) {
        chk.start = start;
        chk.end = end;
        const void *bufs[BE_OP_MAX_IN + 1];
        size_t buf_bytes[BE_OP_MAX_IN + 1];
        int nb = 0;
        for (int i = 0; i < op->n_in; i++)
            if (op->in[i].dev) {
                bufs[nb] = op->in[i].data;
                buf_bytes[nb++] = plan->in_bytes[i];
            }
        bufs[nb] = op->out.data;
        buf_bytes[nb++] = plan->out_bytes;
        const void *used[2];
        size_t used_bytes[2];
        int nu = 0;
        for (int i = 0; i < got; i++)
            if (addrs[i]) {
                used[nu] = addrs[i];
                used_bytes[nu++] = sizes[i];
            }
        api_check_launched(&chk, used, used_bytes, nu, bufs, buf_bytes, nb);
    }
    /* Every block goes back right after the launch (or the failure). */
    for (int i = 0; i < got; i++) {
        if (builtin) {
            builtin_put(e, blocks[i], sizes[i]);
            continue;
        }
        api_check_free_begin(ref.stream);
        pthread_mutex_lock(&e->cb);
        s.free(s.obj, blocks[i]);
        pthread_mutex_unlock(&e->cb);
        api_check_free_end();
    }
    api_stream_put(&ref);
    return rc;
}
