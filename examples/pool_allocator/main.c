/*
 * main.c - a per-stream pool allocator for CANN's single-op executor, in
 * the style MindSpore registers one (mindspore acl_allocator.cc): one
 * allocator per stream, registered before the stream's first operator;
 * the block is the device address; free returns the block to the stream's
 * pool at once, which is safe because whatever reuses it runs later on the
 * same stream (stream order). Memory goes back to the device only after
 * the stream has synchronised.
 *
 * The workload: two threads, each driving its own stream through a small
 * MLP layer, y = relu(x @ w + b), twenty times; then stream 0 waits on an
 * event recorded by stream 1 and adds stream 1's result to its own. The
 * result is checked against the same arithmetic on the host.
 * Clean under ACLSIM_ALLOC_CHECK=error, memcheck and ThreadSanitizer.
 *
 * Build as a user would: gcc main.c -I$CANN/include -L$CANN/lib64 -lascendcl -lpthread
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

/* ---- The pool: device blocks of exact sizes, one pool per stream ----
 * The executor calls it on the thread that runs the operator and one
 * thread drives each stream here; the lock only guards against a program
 * that shares a stream between threads. */

#define MAX_BLOCKS 64

struct block {
    void *addr;
    size_t size;
    int in_use;
};

struct pool {
    pthread_mutex_t lock;
    aclrtStream stream;
    struct block b[MAX_BLOCKS];
    int n;
    unsigned long allocs, reuses;
};

static void *pool_alloc(aclrtAllocator allocator, size_t size)
{
    struct pool *p = allocator;
    void *addr = NULL;
    pthread_mutex_lock(&p->lock);
    p->allocs++;
    for (int i = 0; i < p->n && !addr; i++)
        if (!p->b[i].in_use && p->b[i].size == size) { /* safe in stream order */
            p->b[i].in_use = 1;
            addr = p->b[i].addr;
            p->reuses++;
        }
    if (!addr && p->n < MAX_BLOCKS &&
        aclrtMalloc(&addr, size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS)
        p->b[p->n++] = (struct block){addr, size, 1};
    pthread_mutex_unlock(&p->lock);
    return addr; /* NULL fails the operator: the executor has no fallback */
}

static void pool_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    struct pool *p = allocator;
    /* Called right after the launch, before the device ran the operator:
     * the block goes back to this stream's pool, never to the device. */
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n; i++)
        if (p->b[i].addr == block)
            p->b[i].in_use = 0;
    pthread_mutex_unlock(&p->lock);
}

static void *block_addr(aclrtAllocatorBlock block)
{
    return block; /* the block is the device address */
}

static void pool_release(struct pool *p)
{
    /* CANN: synchronise before returning allocator memory to the device. */
    CHECK(aclrtSynchronizeStream(p->stream));
    for (int i = 0; i < p->n; i++)
        CHECK(aclrtFree(p->b[i].addr));
    p->n = 0;
}

/* ---- Tensors ---- */

enum { M = 16, K = 32, LAYERS = 20 };

struct tensor {
    aclTensorDesc *desc;
    aclDataBuffer *buf;
    void *dev;
};

static struct tensor tensor_new(int nd, const int64_t *dims, const float *host)
{
    struct tensor t = {aclCreateTensorDesc(ACL_FLOAT, nd, dims, ACL_FORMAT_ND), NULL, NULL};
    size_t bytes = aclGetTensorDescSize(t.desc);
    CHECK(aclrtMalloc(&t.dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    if (host)
        CHECK(aclrtMemcpy(t.dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    t.buf = aclCreateDataBuffer(t.dev, bytes);
    return t;
}

static void tensor_free(struct tensor *t)
{
    aclDestroyTensorDesc(t->desc);
    aclDestroyDataBuffer(t->buf);
    CHECK(aclrtFree(t->dev));
}

static void run(const char *type, struct tensor *a, struct tensor *b, struct tensor *y,
                aclrtStream s)
{
    aclTensorDesc *in[2] = {a->desc, b ? b->desc : NULL};
    aclDataBuffer *ib[2] = {a->buf, b ? b->buf : NULL};
    CHECK(aclopCompileAndExecuteV2(type, b ? 2 : 1, in, ib, 1, &y->desc, &y->buf, NULL,
                                   ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, s));
}

/* ---- One stream's work ---- */

struct worker {
    aclrtContext ctx;
    aclrtStream stream;
    aclrtEvent done;
    struct pool pool;
    float x[M * K], w[K * K], b[K], want[M * K];
    struct tensor tx, tw, tb, tt, ty;
};

/* The host's version of the layers, in the simulator's arithmetic (sums in
 * double, each result rounded to float). */
static void reference(struct worker *wk)
{
    float x[M * K];
    memcpy(x, wk->x, sizeof x);
    for (int l = 0; l < LAYERS; l++) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < K; j++) {
                double s = 0;
                for (int p = 0; p < K; p++)
                    s += (double)x[i * K + p] * wk->w[p * K + j];
                float t = (float)s, u = (float)((double)t + wk->b[j]);
                wk->want[i * K + j] = u > 0 ? u : 0;
            }
        memcpy(x, wk->want, sizeof x);
    }
}

static void *work(void *arg)
{
    struct worker *wk = arg;
    CHECK(aclrtSetCurrentContext(wk->ctx));
    for (int l = 0; l < LAYERS; l++) {
        run("MatMul", &wk->tx, &wk->tw, &wk->tt, wk->stream);
        run("Add", &wk->tt, &wk->tb, &wk->tt, wk->stream);
        run("Relu", &wk->tt, NULL, &wk->ty, wk->stream);
        struct tensor swap = wk->tx; /* the output feeds the next layer */
        wk->tx = wk->ty;
        wk->ty = swap;
    }
    CHECK(aclrtRecordEvent(wk->done, wk->stream));
    return NULL;
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtContext ctx;
    CHECK(aclrtGetCurrentContext(&ctx));
    struct worker wk[2];
    aclrtAllocatorDesc desc[2];
    int64_t dx[2] = {M, K}, dw[2] = {K, K}, db[1] = {K};
    for (int s = 0; s < 2; s++) {
        struct worker *w = &wk[s];
        memset(w, 0, sizeof *w);
        w->ctx = ctx;
        CHECK(aclrtCreateStream(&w->stream));
        CHECK(aclrtCreateEvent(&w->done));
        pthread_mutex_init(&w->pool.lock, NULL);
        w->pool.stream = w->stream;
        /* One allocator per stream, registered before its first operator. */
        desc[s] = aclrtAllocatorCreateDesc();
        CHECK(aclrtAllocatorSetObjToDesc(desc[s], &w->pool));
        CHECK(aclrtAllocatorSetAllocFuncToDesc(desc[s], pool_alloc));
        CHECK(aclrtAllocatorSetFreeFuncToDesc(desc[s], pool_free));
        CHECK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc[s], block_addr));
        CHECK(aclrtAllocatorRegister(w->stream, desc[s]));
        for (int i = 0; i < M * K; i++)
            w->x[i] = (float)((i * 7 + s * 3) % 11 - 5) / 8;
        for (int i = 0; i < K * K; i++)
            w->w[i] = (float)((i * 5 + s) % 9 - 4) / 16;
        for (int i = 0; i < K; i++)
            w->b[i] = (float)(i % 5 - 2) / 4;
        w->tx = tensor_new(2, dx, w->x);
        w->tw = tensor_new(2, dw, w->w);
        w->tb = tensor_new(1, db, w->b);
        w->tt = tensor_new(2, dx, NULL);
        w->ty = tensor_new(2, dx, NULL);
        reference(w);
    }
    pthread_t th[2];
    for (int s = 0; s < 2; s++)
        if (pthread_create(&th[s], NULL, work, &wk[s]) != 0)
            return 1;
    for (int s = 0; s < 2; s++)
        pthread_join(th[s], NULL);
    /* Stream 0 uses stream 1's result only after stream 1's event. */
    CHECK(aclrtStreamWaitEvent(wk[0].stream, wk[1].done));
    run("Add", &wk[0].tx, &wk[1].tx, &wk[0].ty, wk[0].stream);
    CHECK(aclrtSynchronizeStream(wk[0].stream));
    float got[M * K];
    CHECK(aclrtMemcpy(got, sizeof got, wk[0].ty.dev, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int i = 0; i < M * K; i++) {
        float want = wk[0].want[i] + wk[1].want[i];
        if (fabsf(got[i] - want) > 1e-5f * (1 + fabsf(want)))
            bad++;
    }
    unsigned long allocs = wk[0].pool.allocs + wk[1].pool.allocs;
    unsigned long reuses = wk[0].pool.reuses + wk[1].pool.reuses;
    int blocks = wk[0].pool.n + wk[1].pool.n;
    for (int s = 0; s < 2; s++) {
        struct worker *w = &wk[s];
        CHECK(aclrtSynchronizeStream(w->stream)); /* before unregistering */
        CHECK(aclrtAllocatorUnregister(w->stream));
        CHECK(aclrtAllocatorDestroyDesc(desc[s]));
        pool_release(&w->pool);
        pthread_mutex_destroy(&w->pool.lock);
        struct tensor *ts[] = {&w->tx, &w->tw, &w->tb, &w->tt, &w->ty};
        for (int i = 0; i < 5; i++)
            tensor_free(ts[i]);
        CHECK(aclrtDestroyEvent(w->done));
        CHECK(aclrtDestroyStream(w->stream));
    }
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("pool_allocator: 2 streams x %d layers, %lu blocks asked for, %lu reused, %d device "
           "blocks, %s\n", LAYERS, allocs, reuses, blocks, bad ? "WRONG RESULT" : "result ok");
    return bad ? 1 : 0;
}
