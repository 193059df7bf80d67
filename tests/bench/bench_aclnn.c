/*
 * bench_aclnn.c - the two-phase aclnn API against the aclop call it
 * replaces, in one process, on the same device buffers:
 *   aclnn_vs_aclop   host wall time per aclnnAdd (aclnnAddGetWorkspaceSize
 *                    + aclnnAdd) / per aclopExecuteV2 Add (goal <= 1: the
 *                    two-phase API must not cost more than the old one)
 * Add of 64 floats (small, so that the calls' own cost shows rather than
 * the kernel's arithmetic, which both share) on one stream with nothing
 * registered (the aclop side uses the executor's fallback allocator for its
 * tiling block; aclnn's Add needs no workspace). Tensors and descs are made
 * once, as a framework caches them; the best of ROUNDS short rounds (a
 * round a neighbour preempted is dropped), the two
 * taking turns and swapping which goes first each round (on a loaded
 * machine the second of a pair runs measurably slower).
 */
#include <stdio.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "bench.h"

#define OPS 2000
#define N 64
#define ROUNDS 31

static aclrtStream stream;
static aclTensorDesc *td;
static aclDataBuffer *buf[3];
static aclTensor *t[3];
static aclScalar *alpha;

static double per_aclop(void)
{
    aclTensorDesc *in[2] = {td, td};
    aclDataBuffer *ib[2] = {buf[0], buf[1]};
    double t0 = now();
    for (int k = 0; k < OPS; k++)
        check(aclopExecuteV2("Add", 2, in, ib, 1, &td, &buf[2], NULL, stream), "aclopExecuteV2");
    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    return (now() - t0) / OPS;
}

static double per_aclnn(void)
{
    double t0 = now();
    for (int k = 0; k < OPS; k++) {
        uint64_t ws = 0;
        aclOpExecutor *e = NULL;
        check(aclnnAddGetWorkspaceSize(t[0], t[1], alpha, t[2], &ws, &e),
              "aclnnAddGetWorkspaceSize");
        check(aclnnAdd(NULL, ws, e, stream), "aclnnAdd");
    }
    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    return (now() - t0) / OPS;
}

int main(void)
{
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    check(aclrtCreateStream(&stream), "aclrtCreateStream");
    int64_t dims[1] = {N}, strides[1] = {1};
    void *mem[3];
    td = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    for (int i = 0; i < 3; i++) {
        check(aclrtMalloc(&mem[i], N * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        check(aclrtMemset(mem[i], N * 4, 0, N * 4), "aclrtMemset");
        buf[i] = aclCreateDataBuffer(mem[i], N * 4);
        t[i] = aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, mem[i]);
    }
    float one = 1.0f;
    alpha = aclCreateScalar(&one, ACL_FLOAT);
    double (*const f[2])(void) = {per_aclop, per_aclnn};
    double b[2] = {1e30, 1e30};
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 2; k++) {
            int i = (r + k) & 1;
            double v = f[i]();
            b[i] = v < b[i] ? v : b[i];
        }
    printf("aclnn_add_ns %.1f\n", b[1] * 1e9);
    printf("aclop_add_ns %.1f\n", b[0] * 1e9);
    printf("aclnn_vs_aclop %.3f\n", b[1] / b[0]);
    for (int i = 0; i < 3; i++) {
        aclDestroyTensor(t[i]);
        aclDestroyDataBuffer(buf[i]);
        check(aclrtFree(mem[i]), "aclrtFree");
    }
    aclDestroyScalar(alpha);
    aclDestroyTensorDesc(td);
    check(aclrtDestroyStream(stream), "aclrtDestroyStream");
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
    return 0;
}
