/*
 * bench_fault.c - what one disarmed fault point adds to a call.
 *
 * Two identical non-inlined functions, one with a fault point (the real
 * FLT_HIT from fault/fault.h over the real flag in fault/fault.c), are each
 * called N times; the difference per call, best of several runs, is the
 * point's cost while nothing is enabled (no fiu-run, no ACLSIM_FAULT, no
 * aclsim_fault_* call). Prints "fault_point_disarmed_ns <ns>".
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "fault/fault.h"

#define N 200000000u
#define RUNS 7

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static uint64_t plain(uint64_t x)
{
    return x * 6364136223846793005ull + 1442695040888963407ull;
}

__attribute__((noinline)) static uint64_t with_point(uint64_t x)
{
    if (FLT_HIT(ACL_RT_MALLOC))
        return 0;
    return x * 6364136223846793005ull + 1442695040888963407ull;
}

static double per_call(uint64_t (*f)(uint64_t))
{
    uint64_t x = 1;
    double t = now();
    for (uint32_t i = 0; i < N; i++)
        x = f(x);
    t = now() - t;
    if (x == 42) /* keeps the chain alive */
        puts("");
    return t / N;
}

int main(void)
{
    if (atomic_load_explicit(&flt_armed, memory_order_relaxed)) {
        fprintf(stderr, "bench_fault: fault injection is armed (FIU_* or ACLSIM_FAULT* set)\n");
        return 1;
    }
    double base = 1e30, point = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double b = per_call(plain), p = per_call(with_point);
        base = b < base ? b : base;
        point = p < point ? p : point;
    }
    double added = (point - base) * 1e9;
    printf("fault_call_ns %.3f\n", base * 1e9);
    printf("fault_point_disarmed_ns %.3f\n", added > 0 ? added : 0.0);
    return 0;
}
