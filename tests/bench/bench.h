/*
 * bench.h - what the C benchmarks share: a monotonic clock, a check that
 * ends the run on any failure, and the best of several runs of functions
 * that take turns run by run (a noisy neighbour then slows every side of a
 * ratio alike, not one). Header-only: each benchmark is its own program.
 */
#ifndef ACLSIM_TESTS_BENCH_BENCH_H_
#define ACLSIM_TESTS_BENCH_BENCH_H_

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"

#define RUNS 5

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline void check(aclError rc, const char *what)
{
    if (rc != ACL_SUCCESS) {
        const char *m = aclGetRecentErrMsg();
        fprintf(stderr, "%s failed: %d %s\n", what, rc, m ? m : "");
        exit(1);
    }
}

/* Where a measured loop puts each pointer, so that it is not optimised away. */
static void *volatile sink;

/* Seconds per glibc malloc+free pair and per aclrtMalloc+aclrtFree pair,
 * over `pairs` pairs whose sizes cycle through sizes[0 .. nsizes) (nsizes a
 * power of two). */
static inline double glibc_pairs_of(const size_t *sizes, size_t nsizes, int pairs)
{
    double t = now();
    for (int i = 0; i < pairs; i++) {
        void *p = malloc(sizes[(size_t)i & (nsizes - 1)]);
        sink = p;
        free(p);
    }
    return (now() - t) / pairs;
}

static inline double acl_pairs_of(const size_t *sizes, size_t nsizes, int pairs)
{
    double t = now();
    for (int i = 0; i < pairs; i++) {
        void *p;
        check(aclrtMalloc(&p, sizes[(size_t)i & (nsizes - 1)], ACL_MEM_MALLOC_HUGE_FIRST),
              "aclrtMalloc");
        sink = p;
        check(aclrtFree(p), "aclrtFree");
    }
    return (now() - t) / pairs;
}

/* b[i]: the best of RUNS runs of f[i]() (seconds), the n taking turns. */
static inline void best_of(double (*const f[])(void), double *b, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = 1e30;
    for (int r = 0; r < RUNS; r++)
        for (int i = 0; i < n; i++) {
            double v = f[i]();
            b[i] = v < b[i] ? v : b[i];
        }
}

#endif /* ACLSIM_TESTS_BENCH_BENCH_H_ */
