/*
 * main.c - a caching allocator with graph-private pools, in the style of
 * torch_npu's NPUCachingAllocator under NPUGraph (beginAllocateToPool /
 * endAllocateToPool / releasePool), driving a captured two-stream
 * workload that is replayed many times.
 *
 * What a graph needs from an allocator: every block its captured work
 * touches - the program's tensors and the workspaces CANN's executor asks
 * for, which it frees right after each launch, during the capture too -
 * stays the graph's until the graph is destroyed, because each replay
 * uses the same addresses again. So while a capture runs, allocations go
 * to a pool of the graph's own; blocks freed then go back to that pool
 * only; and the pool is released (its memory freed) only after
 * aclmdlRIDestroy. Everything else the program allocates comes from the
 * general pool and can never land on the graph's bytes.
 *
 * The workload: stream s computes h = x @ w (MatMul, a workspace from the
 * allocator), forks to stream s2 through an event, s2 computes y = h + b
 * (Add), and s waits for s2 before the capture ends. The graph is replayed
 * REPLAYS times with new x each time, and every result is checked against
 * the host; between replays the program runs direct work of its own
 * through the same allocator.
 *
 * Run it plain: clean under ACLSIM_ALLOC_CHECK=error and memcheck. Three
 * arguments (or GRAPH_POOL_MISTAKE=<argument>) make it wrong on purpose
 * (scons test checks aclsim catches each): `nopool` captures into the
 * general pool (the graph's workspace is handed to direct work between
 * replays: graph-block-reuse), `freeinput`
 * frees x before destroying the graph (graph-memory-freed), `failcapture`
 * lets a capture fail and never releases its pool, as torch_npu's reset
 * does when capture_end failed (the leak report at aclFinalize).
 *
 * Build as a user would: gcc main.c -I$CANN/include -L$CANN/lib64 -lascendcl -lpthread
 */
#include <pthread.h>
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

enum { M = 32, REPLAYS = 50 };
static const size_t BYTES = (size_t)M * M * sizeof(float);

/* ---- The allocator: blocks in pools, pool 0 the general one ---- */

struct block {
    struct block *next;
    void *addr;
    size_t size;
    int pool;
    int in_use;
};

static struct {
    pthread_mutex_t lock;
    struct block *blocks;
    int capture_pool; /* while a capture runs: the pool it allocates to */
    int next_pool;
} A = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 1};

static struct block *pool_malloc(size_t size)
{
    size = (size + 511) / 512 * 512;
    pthread_mutex_lock(&A.lock);
    int pool = A.capture_pool;
    struct block *hit = NULL;
    for (struct block *b = A.blocks; b && !hit; b = b->next)
        if (!b->in_use && b->pool == pool && b->size >= size && b->size <= 2 * size)
            hit = b;
    if (!hit) {
        void *addr = NULL;
        if (aclrtMalloc(&addr, size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
            (hit = calloc(1, sizeof *hit)) != NULL) {
            *hit = (struct block){A.blocks, addr, size, pool, 0};
            A.blocks = hit;
        } else if (addr) {
            aclrtFree(addr);
        }
    }
    if (hit)
        hit->in_use = 1;
    pthread_mutex_unlock(&A.lock);
    return hit;
}

/* A freed block goes back to its own pool: a graph's blocks stay the
 * graph's. */
static void pool_free(struct block *b)
{
    pthread_mutex_lock(&A.lock);
    b->in_use = 0;
    pthread_mutex_unlock(&A.lock);
}

/* torch's beginAllocateToPool / endAllocateToPool. */
static int begin_allocate_to_pool(int private_pool)
{
    pthread_mutex_lock(&A.lock);
    int pool = private_pool ? A.next_pool++ : 0;
    A.capture_pool = pool;
    pthread_mutex_unlock(&A.lock);
    return pool;
}

static void end_allocate_to_pool(void)
{
    pthread_mutex_lock(&A.lock);
    A.capture_pool = 0;
    pthread_mutex_unlock(&A.lock);
}

/* torch's releasePool, after the graph is destroyed: its memory goes. */
static void release_pool(int pool)
{
    pthread_mutex_lock(&A.lock);
    for (struct block **p = &A.blocks; *p;) {
        struct block *b = *p;
        if (b->pool == pool && pool != 0 && !b->in_use) {
            *p = b->next;
            CHECK(aclrtFree(b->addr));
            free(b);
        } else {
            p = &b->next;
        }
    }
    pthread_mutex_unlock(&A.lock);
}

static void release_all(void)
{
    while (A.blocks) {
        struct block *b = A.blocks;
        A.blocks = b->next;
        CHECK(aclrtFree(b->addr));
        free(b);
    }
}

/* What the executor calls, through the desc registered on each stream. */
static void *cb_alloc(aclrtAllocator obj, size_t size)
{
    (void)obj;
    return pool_malloc(size);
}
static void cb_free(aclrtAllocator obj, aclrtAllocatorBlock block)
{
    (void)obj;
    pool_free(block);
}
static void *cb_addr(aclrtAllocatorBlock block)
{
    return ((struct block *)block)->addr;
}

static aclrtAllocatorDesc register_on(aclrtStream s)
{
    static int obj;
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    CHECK(aclrtAllocatorSetObjToDesc(d, &obj));
    CHECK(aclrtAllocatorSetAllocFuncToDesc(d, cb_alloc));
    CHECK(aclrtAllocatorSetFreeFuncToDesc(d, cb_free));
    CHECK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, cb_addr));
    CHECK(aclrtAllocatorRegister(s, d));
    return d;
}

/* ---- The workload ---- */

static void op(const char *type, void *in0, void *in1, void *out, aclrtStream s)
{
    int64_t dims[2] = {M, M};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    aclTensorDesc *ind[2] = {d, d};
    aclDataBuffer *ib[2] = {aclCreateDataBuffer(in0, BYTES), aclCreateDataBuffer(in1, BYTES)};
    aclDataBuffer *ob = aclCreateDataBuffer(out, BYTES);
    aclopAttr *attr = aclopCreateAttr();
    CHECK(aclopCompileAndExecuteV2(type, 2, ind, ib, 1, &d, &ob, attr, ACL_ENGINE_SYS,
                                   ACL_COMPILE_SYS, NULL, s));
    aclopDestroyAttr(attr);
    aclDestroyDataBuffer(ib[0]);
    aclDestroyDataBuffer(ib[1]);
    aclDestroyDataBuffer(ob);
    aclDestroyTensorDesc(d);
}

static void upload(void *dev, const float *h)
{
    CHECK(aclrtMemcpy(dev, BYTES, h, BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
}

struct tensors {
    struct block *x, *w, *b, *h, *y;
};

/* Capture the two-stream step into a graph; the capture's own blocks (h)
 * come from `pool`. With `unjoined`, s2 is never joined back: End fails. */
static aclError capture(aclrtStream s, aclrtStream s2, struct tensors *t, aclmdlRI *ri,
                        int unjoined)
{
    aclrtEvent fork, join;
    CHECK(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC));
    CHECK(aclrtCreateEventExWithFlag(&join, ACL_EVENT_SYNC));
    CHECK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    t->h = pool_malloc(BYTES); /* a temporary of the graph's */
    op("MatMul", t->x->addr, t->w->addr, t->h->addr, s);
    CHECK(aclrtRecordEvent(fork, s));
    CHECK(aclrtStreamWaitEvent(s2, fork));
    op("Add", t->h->addr, t->b->addr, t->y->addr, s2);
    if (!unjoined) {
        CHECK(aclrtRecordEvent(join, s2));
        CHECK(aclrtStreamWaitEvent(s, join));
    }
    pool_free(t->h); /* freed during capture: it stays in the graph's pool */
    aclError rc = aclmdlRICaptureEnd(s, ri);
    (void)aclGetRecentErrMsg();
    CHECK(aclrtDestroyEvent(fork));
    CHECK(aclrtDestroyEvent(join));
    return rc;
}

/* The host's y = x @ w + b at element (i, j). */
static float expect(const float *x, const float *w, const float *b, int i, int j)
{
    float acc = 0;
    for (int k = 0; k < M; k++)
        acc += x[i * M + k] * w[k * M + j];
    return acc + b[i * M + j];
}

static int check(const void *ydev, const float *x, const float *w, const float *b, int step)
{
    static float y[M * M];
    CHECK(aclrtMemcpy(y, BYTES, ydev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
            float want = expect(x, w, b, i, j), got = y[i * M + j];
            if (got - want > 1e-3f || want - got > 1e-3f) {
                fprintf(stderr, "replay %d: y[%d][%d] = %g, want %g\n", step, i, j, got, want);
                return 1;
            }
        }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : getenv("GRAPH_POOL_MISTAKE");
    if (!mode)
        mode = "";
    int nopool = !strcmp(mode, "nopool"), freeinput = !strcmp(mode, "freeinput"),
        failcapture = !strcmp(mode, "failcapture");
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s, s2;
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtCreateStream(&s2));
    aclrtAllocatorDesc d1 = register_on(s), d2 = register_on(s2);
    static float x[M * M], w[M * M], b[M * M];
    for (int i = 0; i < M * M; i++) {
        w[i] = (float)(i % 7) / 7.0f;
        b[i] = (float)(i % 3);
    }
    struct tensors t = {pool_malloc(BYTES), pool_malloc(BYTES), pool_malloc(BYTES), NULL,
                        pool_malloc(BYTES)};
    upload(t.w->addr, w);
    upload(t.b->addr, b);
    if (failcapture) { /* a failed capture whose pool is never released */
        aclmdlRI bad = NULL;
        begin_allocate_to_pool(1);
        aclError rc = capture(s, s2, &t, &bad, 1);
        end_allocate_to_pool();
        printf("graph_pool_allocator: the capture failed (%d); its pool is never released\n",
               rc);
        CHECK(aclrtSynchronizeStream(s2));
    }
    int pool = begin_allocate_to_pool(!nopool);
    aclmdlRI ri = NULL;
    CHECK(capture(s, s2, &t, &ri, 0));
    end_allocate_to_pool();
    int bad = 0;
    for (int step = 0; step < REPLAYS && !bad; step++) {
        for (int i = 0; i < M * M; i++)
            x[i] = (float)((i + step) % 5) - 2.0f;
        upload(t.x->addr, x);
        CHECK(aclmdlRIExecuteAsync(ri, s));
        CHECK(aclrtSynchronizeStream(s));
        bad = check(t.y->addr, x, w, b, step);
        /* direct work of the program's own, through the same allocator */
        struct block *tmp = pool_malloc(BYTES);
        op("MatMul", t.x->addr, t.w->addr, tmp->addr, s);
        CHECK(aclrtSynchronizeStream(s));
        pool_free(tmp);
    }
    if (freeinput) { /* wrong: the graph still reads x */
        CHECK(aclrtFree(t.x->addr));
        t.x->addr = NULL;
    }
    CHECK(aclmdlRIDestroy(ri));
    release_pool(pool);
    CHECK(aclrtAllocatorUnregister(s));
    CHECK(aclrtAllocatorUnregister(s2));
    CHECK(aclrtAllocatorDestroyDesc(d1));
    CHECK(aclrtAllocatorDestroyDesc(d2));
    for (struct block **p = &A.blocks; *p;)
        if (!(*p)->addr || failcapture) { /* freed already, or the leaked pool */
            struct block *dead = *p;
            *p = dead->next;
            if (dead->pool == 0 && dead->addr)
                CHECK(aclrtFree(dead->addr));
            free(dead);
        } else {
            p = &(*p)->next;
        }
    release_all();
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtDestroyStream(s2));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    if (!bad)
        printf("graph_pool_allocator: %d replays of a two-stream graph, every result right\n",
               REPLAYS);
    return bad;
}
