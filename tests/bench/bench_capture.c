/*
 * bench_capture.c - what a replay of a captured graph costs.
 *
 *   replay_vs_direct    wall time to replay a captured graph of 1000 small
 *                       async copies and fills (aclmdlRIExecuteAsync, then a
 *                       synchronisation) / to enqueue the same 1000 directly
 *                       and synchronise (goal <= 0.5: a replay is one call,
 *                       it must not cost more than issuing the work)
 *   replay_check_cost   replay wall time with the allocator sanitizer on
 *                       (ACLSIM_ALLOC_CHECK=warn, which checks every range of
 *                       the graph at a replay after anything was freed) / with
 *                       it off (goal <= 2)
 *
 * Each figure is a ratio of runs in this process, the best of several
 * taking turns (bench.h).
 */
#include <stdlib.h>
#include "bench.h"

enum { TASKS = 1000, BYTES = 256, SLOTS = 64 };

static aclrtStream s;
static void *src, *dst, *dst_direct;
static aclmdlRI ri;

/* The 1000 tasks: copies and fills, alternating, over 64 slots of dst. */
static void issue(void *dst)
{
    for (int i = 0; i < TASKS; i++) {
        char *d = (char *)dst + (size_t)(i % SLOTS) * BYTES;
        if (i & 1)
            check(aclrtMemsetAsync(d, BYTES, i & 0xff, BYTES, s), "aclrtMemsetAsync");
        else
            check(aclrtMemcpyAsync(d, BYTES, (char *)src + (size_t)(i % SLOTS) * BYTES, BYTES,
                                   ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                  "aclrtMemcpyAsync");
    }
}

static double direct(void)
{
    double t = now();
    issue(dst_direct); /* bytes of its own: the graph's are the graph's while it lives */
    check(aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    return now() - t;
}

static double replay(void)
{
    double t = now();
    check(aclmdlRIExecuteAsync(ri, s), "aclmdlRIExecuteAsync");
    check(aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    return now() - t;
}

/* Set up under ACLSIM_ALLOC_CHECK=mode; b[0] direct, b[1] replay. */
static void round_of(const char *mode, double b[2])
{
    setenv("ACLSIM_ALLOC_CHECK", mode, 1);
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    check(aclrtCreateStream(&s), "aclrtCreateStream");
    check(aclrtMalloc(&src, SLOTS * BYTES, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&dst, SLOTS * BYTES, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMalloc(&dst_direct, SLOTS * BYTES, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclrtMemset(src, SLOTS * BYTES, 1, SLOTS * BYTES), "aclrtMemset");
    check(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), "aclmdlRICaptureBegin");
    issue(dst);
    check(aclmdlRICaptureEnd(s, &ri), "aclmdlRICaptureEnd");
    double (*const f[2])(void) = {direct, replay};
    best_of(f, b, 2);
    check(aclmdlRIDestroy(ri), "aclmdlRIDestroy");
    check(aclrtFree(src), "aclrtFree");
    check(aclrtFree(dst), "aclrtFree");
    check(aclrtFree(dst_direct), "aclrtFree");
    check(aclrtDestroyStream(s), "aclrtDestroyStream");
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
}

int main(void)
{
    double off[2], on[2];
    round_of("off", off);
    round_of("warn", on);
    printf("replay_vs_direct %.3f\n", off[1] / off[0]);
    printf("replay_check_cost %.3f\n", on[1] / off[1]);
    return 0;
}
