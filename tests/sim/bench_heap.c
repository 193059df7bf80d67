/*
 * tests/sim/bench_heap.c - micro-benchmark of sim/heap against glibc malloc.
 *
 * Prints the cost in ns of one alloc+free pair (sizes log-uniform in 32 B..64 KiB,
 * 64-byte alignment) with 1,000 and 1,000,000 live blocks, and of a glibc
 * malloc+free pair with the same size mix.  Before timing, 2*N blocks are
 * allocated and every other one freed, so N blocks are live and the free lists
 * hold N holes.  "pair" = alloc then free the same block (the pattern the
 * acceptance benchmark uses); "churn" = free a random live block and allocate a
 * replacement (cache-miss bound: reported for information).  Best of 5 runs,
 * CLOCK_MONOTONIC.  glibc is measured at 1k live only (1M live glibc blocks of
 * this mix would need ~10 GiB of host RSS).
 * All these sizes are <= 64 KiB, so after warm-up the heap serves them from its
 * quick lists (exact-size reuse, no coalescing); the "big pair" line repeats the
 * pair with sizes 128 KiB..2 MiB, which never use the quick lists (the plain
 * TLSF path), and the last line shows how much memory the quick lists hold.
 * Build with -DBENCH_NO_QUICK_STATS against a heap without quick lists.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/heap.h"

#define DEV_BASE UINT64_C(0x124000000000)
#define HEAP_SIZE (UINT64_C(64) << 30)
#define NSIZES (1u << 16)
#define PAIRS 2000000u
#define RUNS 5

static uint64_t sizes[NSIZES];
static uint64_t big_sizes[NSIZES];

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* log-uniform sizes in [32, 65536]; big_sizes in [128 KiB, 2 MiB] */
static void make_sizes(void)
{
    uint64_t rng = UINT64_C(0x2545F4914F6CDD1D);
    unsigned i;

    for (i = 0; i < NSIZES; i++) {
        unsigned e = 5 + (unsigned)(xorshift(&rng) % 11); /* 2^5 .. 2^15 */
        uint64_t lo = (uint64_t)1 << e;
        sizes[i] = lo + xorshift(&rng) % (lo + 1);
        e = 17 + (unsigned)(xorshift(&rng) % 4); /* 2^17 .. 2^20 */
        lo = (uint64_t)1 << e;
        big_sizes[i] = lo + xorshift(&rng) % (lo + 1);
    }
}

static void sink(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static void die(const char *what)
{
    fprintf(stderr, "bench_heap: %s failed\n", what);
    exit(1);
}

/* Fill with 2*live blocks, free the odd ones; returns the live addresses. */
static uint64_t *heap_fill(struct sim_heap *h, size_t live)
{
    uint64_t *a = malloc(2 * live * sizeof(*a));
    size_t i;

    if (a == NULL)
        die("malloc");
    for (i = 0; i < 2 * live; i++) {
        if (sim_heap_alloc(h, sizes[i % NSIZES], 64, 0, &a[i]) != 0)
            die("sim_heap_alloc (fill)");
    }
    for (i = 1; i < 2 * live; i += 2)
        sim_heap_free(h, a[i], NULL);
    for (i = 0; i < live; i++)
        a[i] = a[2 * i];
    return a;
}

static void heap_bench(size_t live, double *pair, double *churn, double *big_pair,
                       uint64_t *quick_bytes)
{
    struct sim_heap *h = sim_heap_create(DEV_BASE, HEAP_SIZE);
    uint64_t *a, addr, rng = 88172645463325252u;
    double best_pair = 1e30, best_churn = 1e30, best_big = 1e30, t;
    unsigned run, i;

    if (h == NULL)
        die("sim_heap_create");
    a = heap_fill(h, live);
    for (run = 0; run < RUNS; run++) {
        t = now_ns();
        for (i = 0; i < PAIRS; i++) {
            if (sim_heap_alloc(h, sizes[i & (NSIZES - 1)], 64, 0, &addr) != 0)
                die("sim_heap_alloc");
            sim_heap_free(h, addr, NULL);
        }
        t = (now_ns() - t) / PAIRS;
        best_pair = t < best_pair ? t : best_pair;

        t = now_ns();
        for (i = 0; i < PAIRS; i++) {
            size_t k = (size_t)(xorshift(&rng) % live);
            sim_heap_free(h, a[k], NULL);
            if (sim_heap_alloc(h, sizes[i & (NSIZES - 1)], 64, 0, &a[k]) != 0)
                die("sim_heap_alloc (churn)");
        }
        t = (now_ns() - t) / PAIRS;
        best_churn = t < best_churn ? t : best_churn;

        t = now_ns();
        for (i = 0; i < PAIRS; i++) {
            if (sim_heap_alloc(h, big_sizes[i & (NSIZES - 1)], 64, 0, &addr) != 0)
                die("sim_heap_alloc (big)");
            sim_heap_free(h, addr, NULL);
        }
        t = (now_ns() - t) / PAIRS;
        best_big = t < best_big ? t : best_big;
    }
    if (sim_heap_check(h, NULL) != SIM_HEAP_SOUND)
        die("sim_heap_check");
#ifndef BENCH_NO_QUICK_STATS
    {
        struct sim_heap_stats st;
        sim_heap_stats(h, &st);
        *quick_bytes = st.quick_bytes;
    }
#else
    *quick_bytes = 0;
#endif
    *pair = best_pair;
    *churn = best_churn;
    *big_pair = best_big;
    free(a);
    sim_heap_destroy(h);
}

static void glibc_bench(size_t live, double *pair, double *churn)
{
    void **a = malloc(2 * live * sizeof(*a)), *p;
    uint64_t rng = 88172645463325252u;
    double best_pair = 1e30, best_churn = 1e30, t;
    unsigned run, i;
    size_t k;

    if (a == NULL)
        die("malloc");
    for (k = 0; k < 2 * live; k++) {
        a[k] = malloc(sizes[k % NSIZES]);
        if (a[k] == NULL)
            die("malloc (fill)");
    }
    for (k = 1; k < 2 * live; k += 2)
        free(a[k]);
    for (k = 0; k < live; k++)
        a[k] = a[2 * k];
    for (run = 0; run < RUNS; run++) {
        t = now_ns();
        for (i = 0; i < PAIRS; i++) {
            p = malloc(sizes[i & (NSIZES - 1)]);
            sink(p);
            free(p);
        }
        t = (now_ns() - t) / PAIRS;
        best_pair = t < best_pair ? t : best_pair;

        t = now_ns();
        for (i = 0; i < PAIRS; i++) {
            k = (size_t)(xorshift(&rng) % live);
            free(a[k]);
            a[k] = malloc(sizes[i & (NSIZES - 1)]);
            sink(a[k]);
        }
        t = (now_ns() - t) / PAIRS;
        best_churn = t < best_churn ? t : best_churn;
    }
    for (k = 0; k < live; k++)
        free(a[k]);
    free(a);
    *pair = best_pair;
    *churn = best_churn;
}

int main(void)
{
    double hp1k, hc1k, hp1m, hc1m, hb1k, hb1m, gp, gc;
    uint64_t q1k, q1m;

    make_sizes();
    heap_bench(1000, &hp1k, &hc1k, &hb1k, &q1k);
    heap_bench(1000000, &hp1m, &hc1m, &hb1m, &q1m);
    glibc_bench(1000, &gp, &gc);
    printf("sizes 32 B..64 KiB log-uniform, align 64, best of %d x %u pairs\n", RUNS, PAIRS);
    printf("pair  (alloc+free same block): heap 1k live %6.1f ns, 1M live %6.1f ns, "
           "ratio 1M/1k %.2f\n", hp1k, hp1m, hp1m / hp1k);
    printf("pair  glibc malloc+free 1k live %6.1f ns, heap/glibc %.2f (1k) %.2f (1M)\n", gp,
           hp1k / gp, hp1m / gp);
    printf("churn (free random live + alloc): heap 1k %6.1f ns, 1M %6.1f ns, glibc 1k %6.1f ns\n",
           hc1k, hc1m, gc);
    printf("big pair (128 KiB..2 MiB, never quick-listed): heap 1k %6.1f ns, 1M %6.1f ns\n",
           hb1k, hb1m);
    printf("quick lists at the end: %.1f MiB (1k), %.1f MiB (1M)\n", (double)q1k / 1048576.0,
           (double)q1m / 1048576.0);
    return 0;
}
