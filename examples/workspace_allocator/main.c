/*
 * workspace_allocator - the aclnn workspace pattern of torch_npu's
 * NPUWorkspaceAllocator and vllm-ascend: one workspace per stream, grown on
 * demand, reused op after op.
 *
 * Each aclnn call is two phases: aclnnXxxGetWorkspaceSize plans the
 * operator and says how many bytes of device workspace it needs; the
 * caller hands that much to aclnnXxx(workspace, size, executor, stream).
 * A workspace is in use until the operator has run on its stream, not
 * until the launch returns, so:
 *  - each stream gets its own workspace (two streams sharing one would run
 *    over each other's accumulators);
 *  - growing a stream's workspace frees the old one only after that
 *    stream has finished with it (aclrtSynchronizeStream here; torch's
 *    caching allocator records an event instead);
 *  - the same stream may reuse its workspace for the next operator at once:
 *    the stream runs them in order.
 * Two streams run a small layer (Matmul, then Add with alpha, then Relu)
 * over a few sizes, and the results are checked against a host reference.
 * Clean under ACLSIM_ALLOC_CHECK=error and memcheck.
 *
 * WORKSPACE_MISTAKE=shared hands both streams one workspace: the allocator
 * sanitizer reports the overlap (cross-stream-reuse) and, with
 * ACLSIM_ALLOC_CHECK=error, the program exits 25 (a must-fail run of the
 * suite).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_relu.h"

#define CHECK(x)                                                                             \
    do {                                                                                     \
        int rc_ = (int)(x);                                                                  \
        if (rc_ != 0) {                                                                      \
            fprintf(stderr, "%s:%d: %s = %d: %s\n", __FILE__, __LINE__, #x, rc_,             \
                    aclGetRecentErrMsg());                                                   \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* One stream's workspace: grown on demand, reused op after op. */
struct workspace {
    aclrtStream stream;
    void *ptr;
    uint64_t size;
    int grows;
};

static struct workspace *shared_with; /* WORKSPACE_MISTAKE=shared: the one they share */

/* At least `need` bytes of workspace for ws->stream. */
static void *workspace_get(struct workspace *ws, uint64_t need)
{
    if (shared_with && shared_with != ws)
        return workspace_get(shared_with, need); /* the mistake: not per stream */
    if (need <= ws->size)
        return ws->ptr;
    if (ws->ptr) {
        /* The stream may still be using the old one: wait before freeing. */
        CHECK(aclrtSynchronizeStream(ws->stream));
        CHECK(aclrtFree(ws->ptr));
    }
    CHECK(aclrtMalloc(&ws->ptr, need, ACL_MEM_MALLOC_HUGE_FIRST));
    ws->size = need;
    ws->grows++;
    return ws->ptr;
}

static void workspace_release(struct workspace *ws)
{
    if (ws->ptr) {
        CHECK(aclrtSynchronizeStream(ws->stream));
        CHECK(aclrtFree(ws->ptr));
    }
    ws->ptr = NULL;
    ws->size = 0;
}

static aclTensor *matrix(void *dev, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols}, strides[2] = {cols, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, dev);
}

/* One layer on ws's stream: y = relu(x @ w + 0.5 * b), all n x n floats. */
struct layer {
    int64_t n;
    void *x, *w, *b, *mm, *y;
    float *hx, *hw, *hb;
};

static void layer_up(struct layer *l, int64_t n, unsigned seed)
{
    size_t bytes = (size_t)(n * n) * sizeof(float);
    l->n = n;
    l->hx = malloc(bytes);
    l->hw = malloc(bytes);
    l->hb = malloc(bytes);
    if (!l->hx || !l->hw || !l->hb)
        exit(1);
    for (int64_t i = 0; i < n * n; i++) {
        l->hx[i] = (float)((i * 7 + seed) % 13) / 8.0f - 0.75f;
        l->hw[i] = (float)((i * 5 + seed) % 11) / 8.0f - 0.6f;
        l->hb[i] = (float)((i + seed) % 5) - 2.0f;
    }
    void **bufs[5] = {&l->x, &l->w, &l->b, &l->mm, &l->y};
    for (int i = 0; i < 5; i++)
        CHECK(aclrtMalloc(bufs[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(l->x, bytes, l->hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(l->w, bytes, l->hw, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(l->b, bytes, l->hb, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* Step `step` of the layer on ws's stream (0: mm = x @ w, 1: y = mm + 0.5 * b,
 * 2: y = relu(y)): plan, take workspace, launch. */
static void layer_step(struct layer *l, struct workspace *ws, int step)
{
    int64_t n = l->n;
    aclTensor *x = matrix(l->x, n, n), *w = matrix(l->w, n, n), *b = matrix(l->b, n, n);
    aclTensor *mm = matrix(l->mm, n, n), *y = matrix(l->y, n, n);
    float half = 0.5f;
    aclScalar *alpha = aclCreateScalar(&half, ACL_FLOAT);
    uint64_t need = 0;
    aclOpExecutor *e = NULL;
    if (step == 0) {
        CHECK(aclnnMatmulGetWorkspaceSize(x, w, mm, 1, &need, &e));
        CHECK(aclnnMatmul(workspace_get(ws, need), need, e, ws->stream));
    } else if (step == 1) {
        CHECK(aclnnAddGetWorkspaceSize(mm, b, alpha, y, &need, &e));
        CHECK(aclnnAdd(need ? workspace_get(ws, need) : NULL, need, e, ws->stream));
    } else {
        CHECK(aclnnReluGetWorkspaceSize(y, y, &need, &e));
        CHECK(aclnnRelu(need ? workspace_get(ws, need) : NULL, need, e, ws->stream));
    }
    aclDestroyTensor(x);
    aclDestroyTensor(w);
    aclDestroyTensor(b);
    aclDestroyTensor(mm);
    aclDestroyTensor(y);
    aclDestroyScalar(alpha);
}

/* The layer's result against a host reference; frees everything. */
static int layer_check(struct layer *l)
{
    int64_t n = l->n;
    size_t bytes = (size_t)(n * n) * sizeof(float);
    float *got = malloc(bytes);
    if (!got)
        exit(1);
    CHECK(aclrtMemcpy(got, bytes, l->y, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int64_t i = 0; i < n && !bad; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t k = 0; k < n; k++)
                s += (double)l->hx[i * n + k] * l->hw[k * n + j];
            double want = (float)s + 0.5 * l->hb[i * n + j];
            want = want > 0 ? want : 0;
            if (fabs(got[i * n + j] - want) > 1e-4 * (1 + fabs(want))) {
                fprintf(stderr, "y[%lld][%lld] = %g, want %g\n", (long long)i, (long long)j,
                        got[i * n + j], want);
                bad = 1;
                break;
            }
        }
    void *bufs[5] = {l->x, l->w, l->b, l->mm, l->y};
    for (int i = 0; i < 5; i++)
        CHECK(aclrtFree(bufs[i]));
    free(got);
    free(l->hx);
    free(l->hw);
    free(l->hb);
    return bad;
}

int main(void)
{
    const char *mistake = getenv("WORKSPACE_MISTAKE");
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    struct workspace ws[2] = {{0}};
    for (int s = 0; s < 2; s++)
        CHECK(aclrtCreateStream(&ws[s].stream));
    if (mistake && strcmp(mistake, "shared") == 0)
        shared_with = &ws[0];
    static const int64_t sizes[] = {32, 64, 128, 64};
    int bad = 0;
    for (size_t r = 0; r < sizeof sizes / sizeof sizes[0]; r++) {
        struct layer l[2];
        for (int s = 0; s < 2; s++)
            layer_up(&l[s], sizes[r], (unsigned)(r * 2 + s));
        for (int step = 0; step < 3; step++) /* both streams at work at once */
            for (int s = 0; s < 2; s++)
                layer_step(&l[s], &ws[s], step);
        for (int s = 0; s < 2; s++) {
            CHECK(aclrtSynchronizeStream(ws[s].stream));
            bad |= layer_check(&l[s]);
        }
    }
    for (int s = 0; s < 2; s++)
        printf("stream %d: workspace %llu bytes, grown %d times\n", s,
               (unsigned long long)ws[s].size, ws[s].grows);
    for (int s = 0; s < 2; s++) {
        workspace_release(&ws[s]);
        CHECK(aclrtDestroyStream(ws[s].stream));
    }
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    if (bad)
        return 1;
    printf("workspace_allocator: 2 streams x 4 layers right, one workspace per stream\n");
    return 0;
}
