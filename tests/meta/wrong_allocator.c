/*
 * wrong_allocator.c - deliberately wrong custom allocators, one per check
 * of the allocator sanitizer: run with ACLSIM_ALLOC_CHECK=error each must
 * make the process exit 25 (scons test runs them as expected failures).
 * WRONG_ALLOCATOR names the mistake:
 *   seed          CANN's 0_custom_allocator sample as it is: host memory
 *   pinned        blocks from aclrtMallocHost
 *   freed         a pool that frees its chunk and keeps handing it out
 *   bounds        a pool that ignores the size asked for
 *   cross-stream  two allocators over one free list, on two streams
 *   shared        one allocator registered on two streams that overlap
 *   host-reuse    the host copies into a pool block an operator still uses
 *   free-pending  an empty-cache that aclrtFrees without synchronising
 *   unregister    aclrtAllocatorUnregister before the stream synchronises
 *   destroy-desc  aclrtAllocatorDestroyDesc before the stream synchronises
 *   overlap       a pool of 32-byte slots that hands one out whatever is
 *                 asked: a MatMul's tiling record and workspace share bytes
 *   free-earlier  an allocator whose allocFunc frees (aclrtFree) the block it
 *                 gave just before, the same execute's: MatMul's first block
 *                 is no longer live memory when the operator is launched
 * Each scenario checks that its own kind was reported and exits 3 at once
 * when it was not, so the gate bites only when the right check does; with
 * ACLSIM_ALLOC_CHECK=off every scenario runs to the end and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

#define OK(x)                                                                            \
    do {                                                                                 \
        aclError r_ = (x);                                                               \
        if (r_ != ACL_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s = %d: %s\n", __FILE__, __LINE__, #x, r_,         \
                    aclGetRecentErrMsg());                                               \
            _exit(2);                                                                    \
        }                                                                                \
    } while (0)

static const char *wrong;

/* ---- A pool of device blocks: block = address (MindSpore's style) ---- */

struct pool {
    void *chunk;       /* one device chunk, carved in fixed slots */
    size_t slot, n;    /* slot size and count */
    int free_list[256], n_free;
    int ignore_size;   /* bounds: hands out 32-byte slots whatever is asked */
};
static struct pool P;

static void pool_init(size_t slot, size_t n)
{
    if (n > sizeof P.free_list / sizeof P.free_list[0])
        _exit(2);
    P.slot = slot;
    P.n = n;
    OK(aclrtMalloc(&P.chunk, slot * n, ACL_MEM_MALLOC_HUGE_FIRST));
    for (size_t i = 0; i < n; i++)
        P.free_list[P.n_free++] = (int)(n - 1 - i);
}

static void *pool_alloc(aclrtAllocator a, size_t size)
{
    (void)a;
    if ((size > P.slot && !P.ignore_size) || P.n_free == 0)
        return NULL;
    return (char *)P.chunk + (size_t)P.free_list[--P.n_free] * P.slot;
}

static void pool_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a;
    P.free_list[P.n_free++] = (int)(((char *)b - (char *)P.chunk) / (ptrdiff_t)P.slot);
}

static void *same(aclrtAllocatorBlock b)
{
    return b;
}

/* ---- The seed's sample allocator, as CANN ships it (host memory) ---- */

struct custom_block {
    void *addr;
    size_t size;
};

static void *seed_alloc(aclrtAllocator a, size_t size)
{
    (void)a;
    struct custom_block *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    b->addr = malloc(size);
    b->size = size;
    return b;
}

static void seed_free(aclrtAllocator a, aclrtAllocatorBlock block)
{
    (void)a;
    struct custom_block *b = block;
    free(b->addr);
    free(b);
}

static void *seed_addr(aclrtAllocatorBlock block)
{
    return ((struct custom_block *)block)->addr;
}

/* ---- Blocks from aclrtMallocHost / fresh device memory ---- */

static void *pinned_alloc(aclrtAllocator a, size_t size)
{
    (void)a;
    void *p = NULL;
    return aclrtMallocHost(&p, size) == ACL_SUCCESS ? p : NULL;
}

static void pinned_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a;
    aclrtFreeHost(b);
}

/* A never-reusing allocator: fresh device memory, freed at teardown. */
static void *kept[256];
static int n_kept;
static void *fresh_alloc(aclrtAllocator a, size_t size)
{
    (void)a;
    void *p = NULL;
    if (n_kept == 256 || aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    return kept[n_kept++] = p;
}

/* fresh_alloc, but the previous block goes back to the driver first: the
 * mistake of an allocator that recycles too early. */
static void *recycling_alloc(aclrtAllocator a, size_t size)
{
    if (n_kept > 0 && aclrtFree(kept[--n_kept]) != ACL_SUCCESS)
        return NULL;
    return fresh_alloc(a, size);
}

static void fresh_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    (void)a, (void)b; /* released after a synchronisation, at the end */
}

static aclrtAllocatorDesc desc_of(void *obj, aclrtAllocatorAllocFunc al, aclrtAllocatorFreeFunc fr,
                                  aclrtAllocatorGetAddrFromBlockFunc ga)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    if (!d)
        _exit(2);
    OK(aclrtAllocatorSetObjToDesc(d, obj));
    OK(aclrtAllocatorSetAllocFuncToDesc(d, al));
    OK(aclrtAllocatorSetFreeFuncToDesc(d, fr));
    OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, ga));
    return d;
}

/* ---- An operator workload: y = x + x, 1024 floats ---- */

struct add {
    aclTensorDesc *d;
    aclDataBuffer *x, *y;
    void *dx, *dy;
};

static struct add add_new(void)
{
    struct add a;
    int64_t dims[1] = {1024};
    a.d = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    OK(aclrtMalloc(&a.dx, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&a.dy, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(a.dx, 4096, 0, 4096));
    a.x = aclCreateDataBuffer(a.dx, 4096);
    a.y = aclCreateDataBuffer(a.dy, 4096);
    return a;
}

static void add_run(struct add *a, aclrtStream s)
{
    aclTensorDesc *in[2] = {a->d, a->d};
    aclDataBuffer *ib[2] = {a->x, a->x};
    OK(aclopExecuteV2("Add", 2, in, ib, 1, &a->d, &a->y, NULL, s));
}

/* y = x @ x, the same bytes as 32x32 floats: a workspace and a tiling
 * record from the allocator. */
static void matmul_run(struct add *a, aclrtStream s)
{
    int64_t dims[2] = {32, 32};
    aclTensorDesc *m = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    aclTensorDesc *in[2] = {m, m};
    aclDataBuffer *ib[2] = {a->x, a->x};
    OK(aclopExecuteV2("MatMul", 2, in, ib, 1, &m, &a->y, NULL, s));
    aclDestroyTensorDesc(m);
}

static void add_free(struct add *a)
{
    aclDestroyTensorDesc(a->d);
    aclDestroyDataBuffer(a->x);
    aclDestroyDataBuffer(a->y);
    OK(aclrtFree(a->dx));
    OK(aclrtFree(a->dy));
}

/* The scenario's own check must have bitten. */
static void expect(const char *kind)
{
    if (strcmp(getenv("ACLSIM_ALLOC_CHECK") ? getenv("ACLSIM_ALLOC_CHECK") : "", "off") == 0)
        return;
    if (aclsim_alloc_check_reports(kind) == 0) {
        fprintf(stderr, "wrong_allocator %s: no %s report\n", wrong, kind);
        _exit(3);
    }
}

int main(void)
{
    wrong = getenv("WRONG_ALLOCATOR");
    if (!wrong) {
        fprintf(stderr, "set WRONG_ALLOCATOR\n");
        return 2;
    }
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream a, b;
    OK(aclrtCreateStream(&a));
    OK(aclrtCreateStream(&b));
    struct add w = add_new();
    static int obj1, obj2;
    aclrtAllocatorDesc d1 = NULL, d2 = NULL;
    int unregistered = 0;

    if (strcmp(wrong, "seed") == 0) {
        d1 = desc_of(&obj1, seed_alloc, seed_free, seed_addr);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        expect("host-memory");
    } else if (strcmp(wrong, "pinned") == 0) {
        d1 = desc_of(&obj1, pinned_alloc, pinned_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        expect("host-memory");
    } else if (strcmp(wrong, "freed") == 0) {
        pool_init(4096, 4);
        OK(aclrtFree(P.chunk)); /* the bug: the chunk goes, the slots stay */
        d1 = desc_of(&obj1, pool_alloc, pool_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        expect("freed-memory");
        P.chunk = NULL;
    } else if (strcmp(wrong, "bounds") == 0) {
        pool_init(32, 1); /* a 32-byte slot, handed out for a 64-byte request */
        P.ignore_size = 1;
        d1 = desc_of(&obj1, pool_alloc, pool_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        expect("out-of-bounds");
    } else if (strcmp(wrong, "cross-stream") == 0) {
        pool_init(4096, 4);
        d1 = desc_of(&obj1, pool_alloc, pool_free, same);
        d2 = desc_of(&obj2, pool_alloc, pool_free, same); /* another obj, the same free list */
        OK(aclrtAllocatorRegister(a, d1));
        OK(aclrtAllocatorRegister(b, d2));
        add_run(&w, a);
        add_run(&w, b); /* gets the slot a's Add still uses: no event between */
        expect("cross-stream-reuse");
    } else if (strcmp(wrong, "shared") == 0) {
        d1 = desc_of(&obj1, fresh_alloc, fresh_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        OK(aclrtAllocatorRegister(b, d1)); /* one allocator, two concurrent streams */
        add_run(&w, a);
        add_run(&w, b);
        expect("shared-allocator");
    } else if (strcmp(wrong, "host-reuse") == 0) {
        pool_init(4096, 4);
        d1 = desc_of(&obj1, pool_alloc, pool_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        /* The program takes a slot from the pool for its own staging and
         * fills it from the host before the Add has completed. */
        void *staging = pool_alloc(&obj1, 4096);
        static char host[4096];
        OK(aclrtMemcpy(staging, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
        pool_free(&obj1, staging);
        expect("host-reuse");
    } else if (strcmp(wrong, "free-pending") == 0) {
        d1 = desc_of(&obj1, fresh_alloc, fresh_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        /* "empty_cache" without synchronising: back to the driver at once. */
        for (int i = 0; i < n_kept; i++)
            OK(aclrtFree(kept[i]));
        n_kept = 0;
        expect("free-while-pending");
    } else if (strcmp(wrong, "unregister") == 0) {
        d1 = desc_of(&obj1, fresh_alloc, fresh_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        OK(aclrtAllocatorUnregister(a)); /* before synchronising */
        unregistered = 1;
        expect("unregister-while-pending");
    } else if (strcmp(wrong, "destroy-desc") == 0) {
        d1 = desc_of(&obj1, fresh_alloc, fresh_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        add_run(&w, a);
        OK(aclrtAllocatorDestroyDesc(d1)); /* before synchronising */
        d1 = NULL;
        expect("destroy-desc-while-pending");
    } else if (strcmp(wrong, "overlap") == 0) {
        pool_init(32, 256); /* 32-byte slots, one handed out whatever is asked */
        P.ignore_size = 1;
        d1 = desc_of(&obj1, pool_alloc, pool_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        matmul_run(&w, a);
        expect("overlapping-blocks");
    } else if (strcmp(wrong, "free-earlier") == 0) {
        d1 = desc_of(&obj1, recycling_alloc, fresh_free, same);
        OK(aclrtAllocatorRegister(a, d1));
        matmul_run(&w, a);
        expect("block-freed-before-launch");
    } else {
        fprintf(stderr, "unknown WRONG_ALLOCATOR=%s\n", wrong);
        _exit(2);
    }

    OK(aclrtSynchronizeDevice());
    for (int i = 0; i < n_kept; i++)
        OK(aclrtFree(kept[i]));
    if (!unregistered) {
        OK(aclrtAllocatorUnregister(a));
        OK(aclrtAllocatorUnregister(b));
    }
    if (d1)
        OK(aclrtAllocatorDestroyDesc(d1));
    if (d2)
        OK(aclrtAllocatorDestroyDesc(d2));
    if (P.chunk)
        OK(aclrtFree(P.chunk));
    add_free(&w);
    OK(aclrtDestroyStream(a));
    OK(aclrtDestroyStream(b));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return 0;
}
