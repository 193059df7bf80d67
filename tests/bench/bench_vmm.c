/*
 * bench_vmm.c - virtual memory and stream-ordered pools against aclrtMalloc
 * and glibc, in one process.
 *
 * Prints "name value" lines:
 *   map_unmap_vs_malloc    aclrtMallocPhysical+aclrtMapMem+aclrtUnmapMem+
 *                          aclrtFreePhysical of a 2 MB piece (into a reserved
 *                          range) / aclrtMalloc+aclrtFree of 2 MB
 *   map_unmap_vs_glibc     the same map cycle / glibc malloc+free of 2 MB
 *   pool_malloc_free_vs_malloc  aclrtMemPoolMallocAsync+aclrtMemPoolFreeAsync
 *                          on one stream / aclrtMalloc+aclrtFree pair, same
 *                          sizes (32 B..64 KiB, log-uniform)
 *   pool_malloc_free_vs_glibc   the same pool pair / glibc malloc+free pair
 * Every time is the best of several runs, the sides taking turns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "acl/acl.h"
#include "acl/acl_rt_memory_soma.h"
#include "bench.h"

#define NSIZES 4096
#define PAIRS 200000
#define MAPS 4000
#define PIECE ((size_t)2 << 20)

static size_t sizes[NSIZES];
static void *va;
static aclrtPhysicalMemProp prop;
static aclrtMemPool pool;
static aclrtStream stream;

static double map_cycles(void)
{
    double t = now();
    for (int i = 0; i < MAPS; i++) {
        aclrtDrvMemHandle h;
        check(aclrtMallocPhysical(&h, PIECE, &prop, 0), "aclrtMallocPhysical");
        check(aclrtMapMem(va, PIECE, 0, h, 0), "aclrtMapMem");
        check(aclrtUnmapMem(va), "aclrtUnmapMem");
        check(aclrtFreePhysical(h), "aclrtFreePhysical");
    }
    return (now() - t) / MAPS;
}

static double malloc_2m(void)
{
    double t = now();
    for (int i = 0; i < MAPS; i++) {
        void *p;
        check(aclrtMalloc(&p, PIECE, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        sink = p;
        check(aclrtFree(p), "aclrtFree");
    }
    return (now() - t) / MAPS;
}

static double glibc_2m(void)
{
    double t = now();
    for (int i = 0; i < MAPS; i++) {
        char *p = malloc(PIECE);
        p[0] = 1; /* as a mapped piece's first touch */
        sink = p;
        free(p);
    }
    return (now() - t) / MAPS;
}

static double pool_pairs(void)
{
    double t = now();
    for (int i = 0; i < PAIRS; i++) {
        void *p;
        check(aclrtMemPoolMallocAsync(&p, sizes[i & (NSIZES - 1)], pool, stream), "MallocAsync");
        sink = p;
        check(aclrtMemPoolFreeAsync(p, stream), "FreeAsync");
    }
    return (now() - t) / PAIRS;
}

static double acl_pairs(void)
{
    return acl_pairs_of(sizes, NSIZES, PAIRS);
}

static double glibc_pairs(void)
{
    return glibc_pairs_of(sizes, NSIZES, PAIRS);
}

int main(void)
{
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < NSIZES; i++) { /* log-uniform 32 B .. 64 KiB */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sizes[i] = (size_t)32 << (x % 12);
        sizes[i] += (x >> 12) % sizes[i];
    }
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    check(aclrtCreateStream(&stream), "aclrtCreateStream");
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    check(aclrtReserveMemAddress(&va, PIECE, 0, NULL, 0), "aclrtReserveMemAddress");
    aclrtMemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    check(aclrtMemPoolCreate(&pool, &pp), "aclrtMemPoolCreate");

    double (*const maps[])(void) = {map_cycles, malloc_2m, glibc_2m};
    double m[3];
    best_of(maps, m, 3);
    double (*const pairs[])(void) = {pool_pairs, acl_pairs, glibc_pairs};
    double p[3];
    best_of(pairs, p, 3);
    printf("map_unmap_cycle_ns %.3f\n", m[0] * 1e9);
    printf("map_unmap_vs_malloc %.3f\n", m[0] / m[1]);
    printf("map_unmap_vs_glibc %.3f\n", m[0] / m[2]);
    printf("pool_pair_ns %.3f\n", p[0] * 1e9);
    printf("pool_malloc_free_vs_malloc %.3f\n", p[0] / p[1]);
    printf("pool_malloc_free_vs_glibc %.3f\n", p[0] / p[2]);

    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    check(aclrtMemPoolDestroy(pool), "aclrtMemPoolDestroy");
    check(aclrtReleaseMemAddress(va), "aclrtReleaseMemAddress");
    check(aclrtDestroyStream(stream), "aclrtDestroyStream");
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
    return 0;
}
