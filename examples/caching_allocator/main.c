/*
 * main.c - a caching allocator in the style of torch_npu's
 * (NPUCachingAllocator: MallocBlock/FreeBlock/GetBlockPtr): one cache for
 * the whole program, blocks tagged with the stream they were allocated
 * for, a block handle distinct from its address, and events recorded for
 * cross-stream use (record_stream): a block freed while other streams may
 * still read it waits for those events before it is handed out again.
 *
 * The cache serves both the program's own tensors and CANN's single-op
 * executor: each stream registers a small view of it (obj = {cache,
 * stream}), so the executor's workspace blocks come back to the right
 * stream's free list the moment the executor frees them, right after the
 * launch (stream order keeps that safe).
 *
 * The workload: a producer stream computes h = x @ w into a fresh tensor
 * every step; a consumer stream waits for it (event), computes
 * y += gelu(h), records the use (record_stream) and the program frees h
 * at once, as a framework drops a temporary. Thirty steps, then the result
 * is checked against the host.
 * Clean under ACLSIM_ALLOC_CHECK=error, memcheck and ThreadSanitizer.
 *
 * Build as a user would: gcc main.c -I$CANN/include -L$CANN/lib64 -lascendcl -lpthread -lm
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_rt_allocator.h"

#define CHECK(call)                                                                      \
    do {                                                                                 \
        aclError e_ = (call);                                                            \
        if (e_ != ACL_SUCCESS) {                                                         \
            const char *m_ = aclGetRecentErrMsg();                                       \
            fprintf(stderr, "%s:%d: %s failed: %d\n%s\n", __FILE__, __LINE__, #call, e_, \
                    m_ ? m_ : "");                                                       \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* ---- The caching allocator ---- */

#define MAX_USES 4

struct block {
    struct block *next;
    void *addr;
    size_t size;
    aclrtStream stream;            /* the stream it belongs to */
    int in_use;
    aclrtStream uses[MAX_USES];    /* other streams that used it (record_stream) */
    int n_uses;
    aclrtEvent events[MAX_USES];   /* recorded at free, on those streams */
    int n_events;
};

struct cache {
    pthread_mutex_t lock;
    struct block *blocks;
    unsigned long mallocs, hits, waited;
};

static struct cache C = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

/* A block whose cross-stream events have all completed is free again.
 * pre: lock held. */
static int ready(struct block *b)
{
    while (b->n_events > 0) {
        aclrtEventRecordedStatus st;
        CHECK(aclrtQueryEventStatus(b->events[b->n_events - 1], &st));
        if (st != ACL_EVENT_RECORDED_STATUS_COMPLETE)
            return 0;
        CHECK(aclrtDestroyEvent(b->events[--b->n_events]));
    }
    return 1;
}

static struct block *cache_malloc(aclrtStream stream, size_t size)
{
    size = (size + 511) / 512 * 512;
    pthread_mutex_lock(&C.lock);
    struct block *best = NULL;
    for (struct block *b = C.blocks; b; b = b->next) {
        if (b->in_use || b->stream != stream || b->size < size || b->size > 2 * size)
            continue;
        if (!ready(b)) {
            C.waited++; /* still read by another stream: not yet */
            continue;
        }
        if (!best || b->size < best->size)
            best = b;
    }
    if (best) {
        C.hits++;
    } else {
        void *addr = NULL;
        if (aclrtMalloc(&addr, size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
            (best = calloc(1, sizeof *best)) != NULL) {
            *best = (struct block){C.blocks, addr, size, stream, 0, {NULL}, 0, {NULL}, 0};
            C.blocks = best;
            C.mallocs++;
        } else if (addr) {
            aclrtFree(addr);
        }
    }
    if (best) {
        best->in_use = 1;
        best->n_uses = 0;
    }
    pthread_mutex_unlock(&C.lock);
    return best;
}

/* torch's record_stream: the block is also used by `stream`. */
static void cache_record_stream(struct block *b, aclrtStream stream)
{
    pthread_mutex_lock(&C.lock);
    if (stream != b->stream && b->n_uses < MAX_USES)
        b->uses[b->n_uses++] = stream;
    pthread_mutex_unlock(&C.lock);
}

static void cache_free(struct block *b)
{
    pthread_mutex_lock(&C.lock);
    /* Other streams may still read it: an event on each, checked at reuse. */
    for (int i = 0; i < b->n_uses; i++) {
        aclrtEvent e;
        CHECK(aclrtCreateEvent(&e));
        CHECK(aclrtRecordEvent(e, b->uses[i]));
        b->events[b->n_events++] = e;
    }
    b->n_uses = 0;
    b->in_use = 0;
    pthread_mutex_unlock(&C.lock);
}

/* empty_cache: every block back to the device, after the device is idle. */
static void cache_release(void)
{
    CHECK(aclrtSynchronizeDevice());
    while (C.blocks) {
        struct block *b = C.blocks;
        C.blocks = b->next;
        ready(b);
        CHECK(aclrtFree(b->addr));
        free(b);
    }
}

/* ---- The executor's view: one registration per stream ---- */

struct view {
    aclrtStream stream;
};

static void *view_alloc(aclrtAllocator obj, size_t size)
{
    return cache_malloc(((struct view *)obj)->stream, size);
}

static void view_free(aclrtAllocator obj, aclrtAllocatorBlock block)
{
    (void)obj;
    cache_free(block); /* back to its stream at once: stream order */
}

static void *view_addr(aclrtAllocatorBlock block)
{
    return ((struct block *)block)->addr; /* the handle is not the address */
}

/* ---- Tensors from the cache ---- */

enum { M = 8, K = 64, STEPS = 30 };

struct tensor {
    struct block *blk;
    aclTensorDesc *desc;
    aclDataBuffer *buf;
};

static struct tensor tensor_new(aclrtStream s, int nd, const int64_t *dims)
{
    struct tensor t = {NULL, aclCreateTensorDesc(ACL_FLOAT, nd, dims, ACL_FORMAT_ND), NULL};
    size_t bytes = aclGetTensorDescSize(t.desc);
    t.blk = cache_malloc(s, bytes);
    if (!t.blk)
        exit(1);
    t.buf = aclCreateDataBuffer(t.blk->addr, bytes);
    return t;
}

static void tensor_drop(struct tensor *t)
{
    aclDestroyTensorDesc(t->desc);
    aclDestroyDataBuffer(t->buf);
    cache_free(t->blk);
}

static void run(const char *type, struct tensor *a, struct tensor *b, struct tensor *y,
                aclrtStream s)
{
    aclTensorDesc *in[2] = {a->desc, b ? b->desc : NULL};
    aclDataBuffer *ib[2] = {a->buf, b ? b->buf : NULL};
    CHECK(aclopCompileAndExecuteV2(type, b ? 2 : 1, in, ib, 1, &y->desc, &y->buf, NULL,
                                   ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, s));
}

static double gelu(double x)
{
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream prod, cons;
    CHECK(aclrtCreateStream(&prod));
    CHECK(aclrtCreateStream(&cons));
    struct view vp = {prod}, vc = {cons};
    aclrtAllocatorDesc dp = aclrtAllocatorCreateDesc(), dc = aclrtAllocatorCreateDesc();
    struct {
        aclrtAllocatorDesc d;
        struct view *v;
        aclrtStream s;
    } regs[2] = {{dp, &vp, prod}, {dc, &vc, cons}};
    for (int i = 0; i < 2; i++) {
        CHECK(aclrtAllocatorSetObjToDesc(regs[i].d, regs[i].v));
        CHECK(aclrtAllocatorSetAllocFuncToDesc(regs[i].d, view_alloc));
        CHECK(aclrtAllocatorSetFreeFuncToDesc(regs[i].d, view_free));
        CHECK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(regs[i].d, view_addr));
        CHECK(aclrtAllocatorRegister(regs[i].s, regs[i].d));
    }
    int64_t dx[2] = {M, K}, dw[2] = {K, K};
    float x[M * K], w[K * K], y[M * K] = {0};
    for (int i = 0; i < M * K; i++)
        x[i] = (float)(i % 13 - 6) / 8;
    for (int i = 0; i < K * K; i++)
        w[i] = (float)((i * 3) % 7 - 3) / 32;
    struct tensor tx = tensor_new(prod, 2, dx), tw = tensor_new(prod, 2, dw);
    struct tensor ty = tensor_new(cons, 2, dx), tg = tensor_new(cons, 2, dx);
    CHECK(aclrtMemcpy(tx.blk->addr, sizeof x, x, sizeof x, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(tw.blk->addr, sizeof w, w, sizeof w, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemset(ty.blk->addr, sizeof y, 0, sizeof y));
    /* The consumer reads x and w only through h; it owns y and g. */
    aclrtEvent ready_h;
    CHECK(aclrtCreateEvent(&ready_h));
    for (int step = 0; step < STEPS; step++) {
        struct tensor h = tensor_new(prod, 2, dx); /* a fresh temporary, from the cache */
        run("MatMul", &tx, &tw, &h, prod);
        CHECK(aclrtRecordEvent(ready_h, prod));
        CHECK(aclrtStreamWaitEvent(cons, ready_h));
        run("Gelu", &h, NULL, &tg, cons);
        run("Add", &ty, &tg, &ty, cons);
        cache_record_stream(h.blk, cons); /* the consumer used h */
        tensor_drop(&h);                  /* freed now; reusable once cons is past it */
    }
    CHECK(aclrtSynchronizeStream(cons));
    float got[M * K];
    CHECK(aclrtMemcpy(got, sizeof got, ty.blk->addr, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    /* The host's version: h = x @ w (sums in double, rounded to float) is
     * the same every step; y accumulates gelu(h) in float. */
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < K; j++) {
            double s = 0;
            for (int p = 0; p < K; p++)
                s += (double)x[i * K + p] * w[p * K + j];
            float g = (float)gelu((float)s);
            for (int step = 0; step < STEPS; step++)
                y[i * K + j] = (float)((double)y[i * K + j] + g);
            if (fabsf(got[i * K + j] - y[i * K + j]) > 1e-4f * (1 + fabsf(y[i * K + j])))
                bad++;
        }
    CHECK(aclrtDestroyEvent(ready_h));
    struct tensor *ts[] = {&tx, &tw, &ty, &tg};
    for (int i = 0; i < 4; i++)
        tensor_drop(ts[i]);
    CHECK(aclrtSynchronizeDevice()); /* before the allocator goes */
    for (int i = 0; i < 2; i++) {
        CHECK(aclrtAllocatorUnregister(regs[i].s));
        CHECK(aclrtAllocatorDestroyDesc(regs[i].d));
    }
    unsigned long mallocs = C.mallocs, hits = C.hits, waited = C.waited;
    cache_release();
    CHECK(aclrtDestroyStream(prod));
    CHECK(aclrtDestroyStream(cons));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("caching_allocator: %d steps on 2 streams, %lu device mallocs, %lu cache hits, %lu "
           "reuses deferred for a pending event, %s\n", STEPS, mallocs, hits, waited,
           bad ? "WRONG RESULT" : "result ok");
    return bad ? 1 : 0;
}
