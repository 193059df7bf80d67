/*
 * bench_ops.c - simulated operators per second through a registered
 * allocator, with the allocator sanitizer off and on, in one process:
 *   ops_per_s_check_off  operators executed per wall-clock second, ACLSIM_ALLOC_CHECK=off
 *   ops_per_s_check_on   the same with ACLSIM_ALLOC_CHECK=warn (every check)
 *   alloc_check_cost     off / on: how much slower the sanitizer makes them (goal <= 2)
 * The workload: two streams, each with a per-stream pool allocator (block =
 * address, freed at once), Add and Relu on 1024 floats, and every 16
 * operators an event from one stream to the other, as a framework's
 * producer/consumer streams do. And:
 *   spread_check_cost    off / on for SPREAD operators each on bytes of its
 *                        own (Relu of slice k of one buffer into slice k of
 *                        another) with no synchronisation until the end, as
 *                        ggml's batched GET_ROWS issues 70,000 GatherV2: the
 *                        sanitizer keeps a record per range until the host
 *                        learns of them (goal <= 2)
 * The best of three rounds is kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "tests/exact_pool.h"
#include "bench.h"

#define OPS 20000

static void die(const char *what)
{
    fprintf(stderr, "bench_ops: %s failed: %s\n", what, aclGetRecentErrMsg());
    exit(1);
}
#define OK(x)                                                                            \
    do {                                                                                 \
        if ((x) != ACL_SUCCESS)                                                          \
            die(#x);                                                                     \
    } while (0)

/* Operators per second with ACLSIM_ALLOC_CHECK=mode. */
static double round_of(const char *mode)
{
    setenv("ACLSIM_ALLOC_CHECK", mode, 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s[2];
    struct pool pool[2] = {{{NULL}, {0}, {0}, 0}, {{NULL}, {0}, {0}, 0}};
    aclrtAllocatorDesc d[2];
    int64_t dims[1] = {1024};
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    void *mem[2][2];
    aclDataBuffer *buf[2][2];
    aclrtEvent ev;
    OK(aclrtCreateEvent(&ev));
    for (int i = 0; i < 2; i++) {
        OK(aclrtCreateStream(&s[i]));
        d[i] = aclrtAllocatorCreateDesc();
        OK(aclrtAllocatorSetObjToDesc(d[i], &pool[i]));
        OK(aclrtAllocatorSetAllocFuncToDesc(d[i], pool_alloc));
        OK(aclrtAllocatorSetFreeFuncToDesc(d[i], pool_free));
        OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d[i], pool_addr));
        OK(aclrtAllocatorRegister(s[i], d[i]));
        for (int j = 0; j < 2; j++) {
            OK(aclrtMalloc(&mem[i][j], 4096, ACL_MEM_MALLOC_HUGE_FIRST));
            OK(aclrtMemset(mem[i][j], 4096, 0, 4096));
            buf[i][j] = aclCreateDataBuffer(mem[i][j], 4096);
        }
    }
    double t0 = now();
    for (int k = 0; k < OPS; k++) {
        int i = k & 1;
        aclTensorDesc *in[2] = {td, td};
        aclDataBuffer *ib[2] = {buf[i][0], buf[i][0]};
        if (k & 2)
            OK(aclopExecuteV2("Add", 2, in, ib, 1, &td, &buf[i][1], NULL, s[i]));
        else
            OK(aclopExecuteV2("Relu", 1, in, ib, 1, &td, &buf[i][1], NULL, s[i]));
        if (k % 16 == 15) {
            OK(aclrtRecordEvent(ev, s[i]));
            OK(aclrtStreamWaitEvent(s[!i], ev));
        }
    }
    OK(aclrtSynchronizeDevice());
    double rate = OPS / (now() - t0);
    for (int i = 0; i < 2; i++) {
        OK(aclrtAllocatorUnregister(s[i]));
        OK(aclrtAllocatorDestroyDesc(d[i]));
        for (int j = 0; j < pool[i].n; j++)
            OK(aclrtFree(pool[i].addr[j]));
        for (int j = 0; j < 2; j++) {
            aclDestroyDataBuffer(buf[i][j]);
            OK(aclrtFree(mem[i][j]));
        }
        OK(aclrtDestroyStream(s[i]));
    }
    OK(aclrtDestroyEvent(ev));
    aclDestroyTensorDesc(td);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return rate;
}

#define SPREAD 20000
#define SLICE 1024 /* bytes: 256 floats */

/* Operators per second, each on slices of its own, with ACLSIM_ALLOC_CHECK=mode. */
static double spread_round(const char *mode)
{
    setenv("ACLSIM_ALLOC_CHECK", mode, 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    int64_t dims[1] = {SLICE / 4};
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    char *a, *b;
    OK(aclrtMalloc((void **)&a, (size_t)SPREAD * SLICE, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc((void **)&b, (size_t)SPREAD * SLICE, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(a, (size_t)SPREAD * SLICE, 0, (size_t)SPREAD * SLICE));
    aclDataBuffer *in = aclCreateDataBuffer(a, SLICE), *out = aclCreateDataBuffer(b, SLICE);
    double t0 = now();
    for (int k = 0; k < SPREAD; k++) {
        OK(aclUpdateDataBuffer(in, a + (size_t)k * SLICE, SLICE));
        OK(aclUpdateDataBuffer(out, b + (size_t)k * SLICE, SLICE));
        OK(aclopExecuteV2("Relu", 1, &td, &in, 1, &td, &out, NULL, s));
    }
    OK(aclrtSynchronizeStream(s));
    double rate = SPREAD / (now() - t0);
    aclDestroyDataBuffer(in);
    aclDestroyDataBuffer(out);
    OK(aclrtFree(a));
    OK(aclrtFree(b));
    OK(aclrtDestroyStream(s));
    aclDestroyTensorDesc(td);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return rate;
}

/* The best of three rounds of `round` with the sanitizer off and on,
 * taking turns; prints both rates (prefix_ops_per_s_check_off, _on) and
 * their ratio (`ratio`). */
static void off_on(double (*round)(const char *), const char *prefix, const char *ratio)
{
    double off = 0, on = 0;
    for (int r = 0; r < 3; r++) {
        double a = round("off"), b = round("warn");
        if (a > off)
            off = a;
        if (b > on)
            on = b;
    }
    printf("%sops_per_s_check_off %.0f\n", prefix, off);
    printf("%sops_per_s_check_on %.0f\n", prefix, on);
    printf("%s %.3f\n", ratio, off / on);
}

int main(void)
{
    off_on(round_of, "", "alloc_check_cost");
    off_on(spread_round, "spread_", "spread_check_cost");
    return 0;
}
