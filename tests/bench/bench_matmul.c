/*
 * bench_matmul.c - aclsim's matrix product against the BLAS it runs on, in
 * one process:
 *   aclnn_matmul_vs_blas  host wall time of one aclnnMatmul of float32
 *                         1024x1024 by 1024x1024 (aclnnMatmulGetWorkspaceSize,
 *                         aclnnMatmul, aclrtSynchronizeStream) / one
 *                         cblas_sgemm of the same sizes on host arrays
 *                         (goal <= 1.5: planning, the views, the device
 *                         bytes and the workspace must cost little beside
 *                         the product itself)
 * The device tensors and the workspace are made once, as a framework keeps
 * them; the two take turns, best of RUNS (bench.h).
 */
#include <cblas.h>
#include <stdlib.h>
#include "aclnnop/aclnn_matmul.h"
#include "bench.h"

#define N 1024

static aclrtStream stream;
static aclTensor *t[3];
static void *ws_dev;
static uint64_t ws_size;
static float *ha, *hb, *hc;

static double per_aclnn(void)
{
    double t0 = now();
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    check(aclnnMatmulGetWorkspaceSize(t[0], t[1], t[2], 1, &ws, &e),
          "aclnnMatmulGetWorkspaceSize");
    if (ws > ws_size) {
        fprintf(stderr, "aclnnMatmul wants %llu bytes of workspace, planned %llu\n",
                (unsigned long long)ws, (unsigned long long)ws_size);
        exit(1);
    }
    check(aclnnMatmul(ws_dev, ws, e, stream), "aclnnMatmul");
    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    return now() - t0;
}

static double per_blas(void)
{
    double t0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, ha, N, hb, N, 0.0f, hc,
                N);
    sink = hc;
    return now() - t0;
}

int main(void)
{
    check(aclInit(NULL), "aclInit");
    check(aclrtSetDevice(0), "aclrtSetDevice");
    check(aclrtCreateStream(&stream), "aclrtCreateStream");
    size_t bytes = (size_t)N * N * sizeof(float);
    ha = malloc(bytes), hb = malloc(bytes), hc = malloc(bytes);
    if (!ha || !hb || !hc)
        return 1;
    for (size_t i = 0; i < (size_t)N * N; i++) {
        ha[i] = (float)(i % 13) / 8 - 0.75f;
        hb[i] = (float)(i % 7) / 4 - 0.75f;
    }
    int64_t dims[2] = {N, N}, strides[2] = {N, 1};
    void *mem[3];
    for (int i = 0; i < 3; i++) {
        check(aclrtMalloc(&mem[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        check(aclrtMemcpy(mem[i], bytes, i == 1 ? hb : ha, bytes, ACL_MEMCPY_HOST_TO_DEVICE),
              "aclrtMemcpy");
        t[i] = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, mem[i]);
    }
    aclOpExecutor *e = NULL;
    check(aclnnMatmulGetWorkspaceSize(t[0], t[1], t[2], 1, &ws_size, &e),
          "aclnnMatmulGetWorkspaceSize");
    check(aclrtMalloc(&ws_dev, ws_size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check(aclnnMatmul(ws_dev, ws_size, e, stream), "aclnnMatmul"); /* a first run, untimed */
    check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    double (*const f[2])(void) = {per_blas, per_aclnn};
    double b[2];
    best_of(f, b, 2);
    printf("aclnn_matmul_ms %.2f\n", b[1] * 1e3);
    printf("blas_sgemm_ms %.2f\n", b[0] * 1e3);
    printf("aclnn_matmul_vs_blas %.3f\n", b[1] / b[0]);
    for (int i = 0; i < 3; i++) {
        aclDestroyTensor(t[i]);
        check(aclrtFree(mem[i]), "aclrtFree");
    }
    check(aclrtFree(ws_dev), "aclrtFree");
    free(ha), free(hb), free(hc);
    check(aclrtDestroyStream(stream), "aclrtDestroyStream");
    check(aclrtResetDevice(0), "aclrtResetDevice");
    check(aclFinalize(), "aclFinalize");
    return 0;
}
