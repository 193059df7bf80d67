/*
 * bench_memory.c - device memory against host baselines, in one process.
 *
 * Prints "name value" lines:
 *   malloc_free_vs_glibc   aclrtMalloc+aclrtFree pair / glibc malloc+free
 *                          pair, same sizes (32 B..64 KiB, log-uniform)
 *   heap_scale_1m_over_1k  aclrtMalloc+aclrtFree pair cost with 1M live
 *                          device blocks / with 1k live blocks
 *   memcpy_h2d_vs_memcpy   aclrtMemcpy of 64 MiB host-to-device / host
 *                          memcpy of 64 MiB (both destinations warm)
 * Every time is the best of several runs; the two sides of a ratio take
 * turns, run by run, so that a noisy neighbour on a shared machine slows
 * both rather than one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "acl/acl.h"
#include "bench.h"

#define NSIZES 4096
#define PAIRS 2000000

static size_t sizes[NSIZES];

static double glibc_pairs(void)
{
    return glibc_pairs_of(sizes, NSIZES, PAIRS);
}

static double acl_pairs(void)
{
    return acl_pairs_of(sizes, NSIZES, PAIRS);
}

/* Pair cost with `live` small blocks allocated around the pairs. */
static double with_live(size_t live)
{
    void **keep = malloc(live * sizeof *keep);
    for (size_t i = 0; i < live; i++)
        check(aclrtMalloc(&keep[i], 64 + 32 * (i % 8), ACL_MEM_MALLOC_NORMAL_ONLY), "fill");
    /* Free every other one, so the free space is fragmented too. */
    for (size_t i = 0; i < live; i += 2)
        check(aclrtFree(keep[i]), "fragment");
    double (*const f[])(void) = {acl_pairs};
    double c;
    best_of(f, &c, 1);
    for (size_t i = 1; i < live; i += 2)
        check(aclrtFree(keep[i]), "drain");
    free(keep);
    return c;
}

static double h2d_ratio(void)
{
    size_t n = 64u << 20;
    char *src = malloc(n), *dst = malloc(n);
    void *dev;
    memset(src, 1, n);
    memset(dst, 2, n);
    check(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc 64 MiB");
    check(aclrtMemcpy(dev, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE), "warm-up copy");
    double host = 1e30, acl = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        memcpy(dst, src, n);
        sink = dst;
        double h = now() - t;
        t = now();
        check(aclrtMemcpy(dev, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
        double a = now() - t;
        host = h < host ? h : host;
        acl = a < acl ? a : acl;
    }
    check(aclrtFree(dev), "aclrtFree");
    free(src);
    free(dst);
    return acl / host;
}

int main(void)
{
    uint32_t x = 88172645u;
    for (int i = 0; i < NSIZES; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        sizes[i] = (size_t)32 << (x % 12); /* 32 B .. 64 KiB */
        sizes[i] += (x >> 8) % sizes[i];
        if (sizes[i] > 65536)
            sizes[i] = 65536;
    }
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    double (*const pairs[])(void) = {glibc_pairs, acl_pairs};
    double p[2];
    best_of(pairs, p, 2);
    double g = p[0], a = p[1];
    double k1 = with_live(1000), m1 = with_live(1000000);
    printf("pair_glibc_ns %.3f\n", g * 1e9);
    printf("pair_aclsim_ns %.3f\n", a * 1e9);
    printf("malloc_free_vs_glibc %.3f\n", a / g);
    printf("pair_1k_live_ns %.3f\n", k1 * 1e9);
    printf("pair_1m_live_ns %.3f\n", m1 * 1e9);
    printf("heap_scale_1m_over_1k %.3f\n", m1 / k1);
    printf("memcpy_h2d_vs_memcpy %.3f\n", h2d_ratio());
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
    return 0;
}
