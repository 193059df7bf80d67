/*
 * conformance.c - a program that uses the runtime the way applications do,
 * and checks what it gets back: devices, contexts, streams, an allocator
 * registered per stream, device and page-locked memory, copies, fills,
 * 2-D and batch copies, registered and managed memory, virtual memory
 * (reserve, physical memory, map), a stream-ordered pool, and a graph
 * captured on a stream and replayed.
 *
 * It is written to the standard a failure-path campaign demands: every
 * call is checked, and on any failure it prints an error line with the
 * runtime's message, releases everything it built, and exits 1. scons
 * faultcheck runs it with each fault point failing in turn; it must never
 * crash, hang or leak. Exit 0 means every check held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_rt_memory_soma.h"
#include "campaign_checks.h"

#define N (1u << 20)

/* A trivial host-side allocator handed to the runtime per stream. */
struct pool {
    unsigned live;
};

static void *pool_alloc(aclrtAllocator a, size_t n)
{
    void *b = malloc(n);
    if (b)
        ((struct pool *)a)->live++;
    return b;
}

static void pool_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    free(b);
    ((struct pool *)a)->live--;
}

static void *pool_addr(aclrtAllocatorBlock b)
{
    return b;
}

int main(void)
{
    int status = 0, inited = 0, device_set = 0, registered = 0;
    aclrtContext ctx = NULL;
    aclrtStream s1 = NULL, s2 = NULL;
    aclrtAllocatorDesc desc = NULL;
    struct pool pool = {0};
    unsigned char *h = NULL, *back = NULL, *pinned = NULL;
    void *d1 = NULL, *d2 = NULL, *managed = NULL, *cfgd = NULL;
    static _Alignas(4096) unsigned char regbuf[8192];
    int host_registered = 0;
    void *va = NULL, *pblk = NULL;
    aclrtDrvMemHandle phys = NULL;
    int mapped = 0;
    aclrtMemPool mpool = NULL;
    int capturing = 0;
    aclmdlRI graph = NULL;

    CHECK(aclInit(NULL));
    inited = 1;
    uint32_t count = 0;
    CHECK(aclrtGetDeviceCount(&count));
    EXPECT(count >= 1);
    CHECK(aclrtSetDevice(0));
    device_set = 1;
    CHECK(aclrtCreateContext(&ctx, 0));
    CHECK(aclrtCreateStream(&s1));
    CHECK(aclrtCreateStream(&s2));

    /* An allocator on s1, looked up and driven through its callbacks. */
    desc = aclrtAllocatorCreateDesc();
    if (!desc) {
        status = failed("aclrtAllocatorCreateDesc", ACL_ERROR_BAD_ALLOC);
        goto out;
    }
    CHECK(aclrtAllocatorSetObjToDesc(desc, &pool));
    CHECK(aclrtAllocatorSetAllocFuncToDesc(desc, pool_alloc));
    CHECK(aclrtAllocatorSetFreeFuncToDesc(desc, pool_free));
    CHECK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, pool_addr));
    CHECK(aclrtAllocatorRegister(s1, desc));
    registered = 1;
    aclrtAllocatorDesc out_desc = NULL;
    aclrtAllocator obj = NULL;
    aclrtAllocatorAllocFunc af = NULL;
    aclrtAllocatorFreeFunc ff = NULL;
    CHECK(aclrtAllocatorGetByStream(s1, &out_desc, &obj, &af, &ff, NULL, NULL));
    EXPECT(out_desc == desc && obj == &pool && af == pool_alloc && ff == pool_free);
    void *blk = af(obj, 64);
    EXPECT(blk != NULL);
    ff(obj, blk);
    EXPECT(pool.live == 0);

    /* Device memory round trip through both streams' copies. */
    h = malloc(N);
    back = malloc(N);
    EXPECT(h != NULL && back != NULL);
    for (unsigned i = 0; i < N; i++)
        h[i] = (unsigned char)(i * 31 + 5);
    CHECK(aclrtMallocHost((void **)&pinned, N));
    memcpy(pinned, h, N);
    CHECK(aclrtMalloc(&d1, N, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&d2, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemcpy(d1, N, pinned, N, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(d2, N, d1, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(aclrtMemset(d2, N, 0x7f, 64));
    CHECK(aclrtSynchronizeStream(s1));
    CHECK(aclrtSynchronizeStream(s2));
    CHECK(aclrtMemcpy(back, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (unsigned i = 0; i < N; i++)
        EXPECT(back[i] == (i < 64 ? 0x7f : h[i]));
    size_t fr = 0, total = 0;
    CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total));
    EXPECT(fr < total);
    aclrtPtrAttributes attr;
    CHECK(aclrtPointerGetAttributes(d1, &attr));
    EXPECT(attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE);
    CHECK(aclrtSynchronizeDevice());

    /* 2-D and batch copies, a 32-bit fill, registered, managed and
     * flushed memory. */
    CHECK(aclrtMemcpy2d(d2, 64, pinned, 32, 32, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy2dAsync(d1, 64, d2, 64, 32, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    CHECK(aclrtMemsetD32Async((unsigned char *)d1 + 4096, 64, 0x01020304u, 16, s1));
    void *dsts[1] = {(unsigned char *)d2 + 8192}, *srcs[1] = {h};
    size_t maxs[1] = {4096}, sizes[1] = {4096}, idx[1] = {0}, fail = 0;
    aclrtMemcpyBatchAttr battr;
    memset(&battr, 0, sizeof battr);
    battr.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    battr.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    CHECK(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, &battr, idx, 1, &fail));
    CHECK(aclrtHostRegisterV2(regbuf, sizeof regbuf, ACL_HOST_REG_PINNED));
    host_registered = 1;
    CHECK(aclrtMemcpyAsync(regbuf, sizeof regbuf, d1, sizeof regbuf, ACL_MEMCPY_DEVICE_TO_HOST,
                           s1));
    CHECK(aclrtSynchronizeStream(s1));
    CHECK(aclrtHostUnregister(regbuf));
    host_registered = 0;
    EXPECT(memcmp(regbuf, pinned, 32) == 0 && regbuf[64] == pinned[32]);
    EXPECT(regbuf[4096] == 0x04 && regbuf[4099] == 0x01);
    CHECK(aclrtMemAllocManaged(&managed, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK(aclrtMemcpy(managed, 4096, (unsigned char *)d2 + 8192, 4096,
                      ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(managed, h, 4096) == 0);
    CHECK(aclrtFree(managed));
    managed = NULL;
    CHECK(aclrtMemFlush(d1, N));
    CHECK(aclrtMallocWithCfg(&cfgd, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    CHECK(aclrtMemsetAsync(cfgd, 4096, 0, 4096, s2));
    CHECK(aclrtFreeWithDevSync(cfgd)); /* after s2's fill */
    cfgd = NULL;

    /* Virtual memory: a reserved range backed by 2 MB of physical memory. */
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t gran = 0;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran));
    CHECK(aclrtReserveMemAddress(&va, 2 * gran, 0, NULL, 0));
    CHECK(aclrtMallocPhysical(&phys, gran, &prop, 0));
    CHECK(aclrtMapMem(va, gran, 0, phys, 0));
    mapped = 1;
    CHECK(aclrtMemcpy(va, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(back, 64, va, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(back, h, 64) == 0);
    CHECK(aclrtUnmapMem(va));
    mapped = 0;
    CHECK(aclrtFreePhysical(phys));
    phys = NULL;
    CHECK(aclrtReleaseMemAddress(va));
    va = NULL;

    /* A stream-ordered pool. */
    aclrtMemPoolProps pprops;
    memset(&pprops, 0, sizeof pprops);
    pprops.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    CHECK(aclrtMemPoolCreate(&mpool, &pprops));
    CHECK(aclrtMemPoolMallocAsync(&pblk, 4096, mpool, s1));
    CHECK(aclrtMemsetAsync(pblk, 4096, 1, 4096, s1));
    CHECK(aclrtMemPoolFreeAsync(pblk, s1));
    pblk = NULL;
    CHECK(aclrtSynchronizeStream(s1));
    CHECK(aclrtMemPoolDestroy(mpool));
    mpool = NULL;

    /* A graph: a copy and a fill captured on s2, not run then, replayed
     * twice; each replay copies the bytes d1 holds at its moment. */
    CHECK(aclrtMemset(d2, 4096, 0, 4096));
    CHECK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    capturing = 1;
    CHECK(aclrtMemcpyAsync(d2, 4096, d1, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
    CHECK(aclrtMemsetAsync(d2, 4096, 0x5a, 16, s2));
    CHECK(aclmdlRICaptureEnd(s2, &graph));
    capturing = 0;
    CHECK(aclrtMemcpy(back, 4096, d2, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(back[0] == 0 && back[4095] == 0);
    for (int round = 0; round < 2; round++) {
        CHECK(aclrtMemset(d1, 4096, round + 1, 4096));
        CHECK(aclmdlRIExecuteAsync(graph, s2));
        CHECK(aclrtSynchronizeStream(s2));
        CHECK(aclrtMemcpy(back, 4096, d2, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
        EXPECT(back[0] == 0x5a && back[16] == round + 1 && back[4095] == round + 1);
    }
    CHECK(aclmdlRIDestroy(graph));
    graph = NULL;

    /* Orderly teardown; each step forgets what it released. */
    CHECK(aclrtFree(d2));
    d2 = NULL;
    CHECK(aclrtFree(d1));
    d1 = NULL;
    CHECK(aclrtFreeHost(pinned));
    pinned = NULL;
    CHECK(aclrtAllocatorUnregister(s1));
    registered = 0;
    CHECK(aclrtAllocatorDestroyDesc(desc));
    desc = NULL;
    CHECK(aclrtDestroyStream(s2));
    s2 = NULL;
    CHECK(aclrtDestroyStream(s1));
    s1 = NULL;
    CHECK(aclrtDestroyContext(ctx));
    ctx = NULL;
    CHECK(aclrtResetDevice(0));
    device_set = 0;
    CHECK(aclFinalize());
    inited = 0;

out:
    /* Best-effort release of whatever a failure left behind. */
    if (capturing)
        aclmdlRICaptureEnd(s2, &graph);
    if (graph)
        aclmdlRIDestroy(graph);
    if (managed)
        aclrtFree(managed);
    if (cfgd)
        aclrtFree(cfgd);
    if (host_registered)
        aclrtHostUnregister(regbuf);
    if (mapped)
        aclrtUnmapMem(va);
    if (phys)
        aclrtFreePhysical(phys);
    if (va)
        aclrtReleaseMemAddress(va);
    if (pblk)
        aclrtMemPoolFreeAsync(pblk, s1);
    if (mpool) {
        aclrtSynchronizeStream(s1);
        aclrtMemPoolDestroy(mpool);
    }
    if (d2)
        aclrtFree(d2);
    if (d1)
        aclrtFree(d1);
    if (pinned)
        aclrtFreeHost(pinned);
    if (registered)
        aclrtAllocatorUnregister(s1);
    if (desc)
        aclrtAllocatorDestroyDesc(desc);
    if (s2)
        aclrtDestroyStream(s2);
    if (s1)
        aclrtDestroyStream(s1);
    if (ctx)
        aclrtDestroyContext(ctx);
    if (device_set)
        aclrtResetDeviceForce(0);
    if (inited)
        aclFinalize();
    (void)aclGetRecentErrMsg();
    free(h);
    free(back);
    if (status == 0)
        puts("conformance: all checks hold");
    return status;
}
