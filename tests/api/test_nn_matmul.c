/*
 * test_nn_matmul.c - the aclnn matrix products (the NN_MATMUL family,
 * computed through OpenBLAS) against host references worked out here in
 * double precision: Mm, Mv, Matmul and BatchMatMul on views (transposed,
 * strided both ways, broadcast batch dims, strided outputs whose gaps stay
 * untouched) in float32, float16 and bfloat16 and mixed; the
 * weight-quantised product WeightQuantBatchMatmulV2 with int8 and int4
 * weights (ggml's Q8_0 and Q4_0 layouts: a transposed weight, a per-group
 * scale), antiquant offset and bias; the refusals with CANN's codes and
 * texts.
 *
 * Sources (hicann mirrors): ops-nn matmul/mat_mul_v3/op_host/op_api/
 * aclnn_mm.cpp (CheckShapeValid L39-52, CheckOutputShapeValid L55-68),
 * matmul/mv/op_host/op_api/aclnn_mv.cpp (CheckDtypeSame L50-60, CheckShape
 * L63-77), matmul/weight_quant_batch_matmul_v2/op_host/op_api/
 * aclnn_weight_quant_batch_matmul_v2.cpp (CheckAntiquantGroupSize L251-281,
 * CheckAntiquantParamShape L344-399, CheckXWeight L510-530), its
 * docs/aclnnWeightQuantBatchMatmulV2.md L35-38 (the formula
 * (weight + antiquantOffset) * antiquantScale), ops-math common/stub
 * op_error_check.h (OP_CHECK_WRONG_DIMENSION L213-218,
 * OP_CHECK_DTYPE_NOT_SAME L157-163).
 */
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mv.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "aclnnop/aclnn_triangular_solve.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"

#include "nnmat.h"

/* The product a @ b into o (o's shape: batch dims, m, n), checked: each
 * element of o's view equals the double-precision reference rounded to o's
 * type within fp32 accumulation's error, every other element of o's
 * storage is as it was. */
static void expect_product(const struct ht *a, const struct ht *b, const struct ht *o)
{
    int nd = o->nd;
    int64_t m = o->dims[nd - 2], n = o->dims[nd - 1], k = a->dims[a->nd - 1], total = 1;
    for (int i = 0; i < nd; i++)
        total *= o->dims[i];
    double *got = malloc(o->n * sizeof *got);
    char *mine = calloc(o->n, 1);
    fetch(o, got);
    for (int64_t e = 0; e < total; e++) {
        int64_t idx[4], r = e;
        for (int j = nd - 1; j >= 0; j--)
            idx[j] = r % o->dims[j], r /= o->dims[j];
        double sum = 0, mag = 0;
        for (int64_t p = 0; p < k; p++) {
            int64_t ia[4], ib[4];
            memcpy(ia, idx, sizeof ia);
            memcpy(ib, idx, sizeof ib);
            ia[nd - 1] = p;          /* a: (..., i, p) */
            ib[nd - 2] = p;          /* b: (..., p, j) */
            double x = a->v[at_idx(a, nd, ia)] * b->v[at_idx(b, nd, ib)];
            sum += x, mag += fabs(x);
        }
        int64_t s = at_idx(o, nd, idx);
        mine[s] = 1;
        double want = as(o->dt, sum), tol = mag * 1e-6 + fabs(want) * (o->dt == ACL_FLOAT ? 0 : 1.0 / 256);
        if (fabs(got[s] - want) > tol)
            fail_msg("element %lld (storage %lld): got %.9g, want %.9g (m %lld n %lld)",
                     (long long)e, (long long)s, got[s], want, (long long)m, (long long)n);
    }
    for (size_t s = 0; s < o->n; s++)
        if (!mine[s] && got[s] != o->v[s])
            fail_msg("storage element %zu outside the view changed: %.9g, was %.9g", s, got[s],
                     o->v[s]);
    free(got);
    free(mine);
}

typedef aclnnStatus (*mm_plan)(const aclTensor *, const aclTensor *, aclTensor *, int8_t,
                               uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*run_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static void run(mm_plan plan, run_fn launch, struct ht *a, struct ht *b, struct ht *o)
{
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    assert_int_equal(plan(a->t, b->t, o->t, 1, &ws, &e), OK);
    void *w = NULL;
    if (ws)
        assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(launch(w, ws, e, S), OK);
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    if (w)
        assert_int_equal(aclrtFree(w), 0);
}

/* ---- Mm, Matmul, BatchMatMul ---- */

/* ggml's MUL_MAT: Mm of an input (m, k) by a weight stored (n, k) and
 * passed as its transposed view (k, n), in every float type and mixed. */
static void test_mm_of_a_transposed_weight(void **state)
{
    (void)state;
    const aclDataType in[][3] = {{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
                                 {ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT},
                                 {ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16},
                                 {ACL_BF16, ACL_BF16, ACL_BF16},
                                 {ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT}};
    for (size_t c = 0; c < sizeof in / sizeof in[0]; c++) {
        int64_t m = 5, k = 70, n = 9;
        int64_t da[2] = {m, k}, dw[2] = {k, n}, tw[2] = {1, k}, dout[2] = {m, n};
        struct ht a = mks(in[c][0], 2, da, NULL, 0, (size_t)(m * k), 1);
        struct ht w = mks(in[c][1], 2, dw, tw, 0, (size_t)(k * n), 2);
        struct ht o = mks(in[c][2], 2, dout, NULL, 0, (size_t)(m * n), 3);
        run(aclnnMmGetWorkspaceSize, aclnnMm, &a, &w, &o);
        expect_product(&a, &w, &o);
        drop(&a), drop(&w), drop(&o);
    }
}

/* Operands BLAS cannot take as they are (strided both ways, a row
 * broadcast by stride 0, an offset) and a strided output with gaps. */
static void test_mm_of_strided_views(void **state)
{
    (void)state;
    int64_t da[2] = {4, 6}, sa[2] = {14, 2}, db[2] = {6, 3}, sb[2] = {0, 1}, dout[2] = {4, 3},
            so[2] = {5, 1};
    struct ht a = mks(ACL_FLOAT, 2, da, sa, 1, 60, 4);
    struct ht b = mks(ACL_FLOAT, 2, db, sb, 2, 8, 5); /* every row the same */
    struct ht o = mks(ACL_FLOAT, 2, dout, so, 0, 20, 6);
    run(aclnnMmGetWorkspaceSize, aclnnMm, &a, &b, &o);
    expect_product(&a, &b, &o);
    drop(&a), drop(&b), drop(&o);
}

/* Matmul broadcasts batch dims ([2, 3, m, k] by [3, k, n] and by a
 * transposed [1, k, n] view), BatchMatMul a batch of 1 against 4. */
static void test_batched_and_broadcast(void **state)
{
    (void)state;
    int64_t da[4] = {2, 3, 4, 5}, db[3] = {3, 5, 6}, dout[4] = {2, 3, 4, 6};
    struct ht a = mks(ACL_FLOAT16, 4, da, NULL, 0, 120, 7), b = mks(ACL_FLOAT, 3, db, NULL, 0, 90, 8);
    struct ht o = mks(ACL_FLOAT, 4, dout, NULL, 0, 144, 9);
    run(aclnnMatmulGetWorkspaceSize, aclnnMatmul, &a, &b, &o);
    expect_product(&a, &b, &o);
    int64_t dt[3] = {1, 5, 6}, st[3] = {30, 1, 5};
    struct ht bt = mks(ACL_FLOAT, 3, dt, st, 0, 30, 10);
    run(aclnnMatmulGetWorkspaceSize, aclnnMatmul, &a, &bt, &o);
    expect_product(&a, &bt, &o);
    drop(&b), drop(&bt), drop(&o), drop(&a);
    int64_t d1[3] = {1, 3, 7}, d4[3] = {4, 7, 2}, d42[3] = {4, 3, 2};
    struct ht x = mks(ACL_BF16, 3, d1, NULL, 0, 21, 11), y = mks(ACL_BF16, 3, d4, NULL, 0, 56, 12);
    struct ht z = mks(ACL_BF16, 3, d42, NULL, 0, 24, 13);
    run(aclnnBatchMatMulGetWorkspaceSize, aclnnBatchMatMul, &x, &y, &z);
    expect_product(&x, &y, &z);
    drop(&x), drop(&y), drop(&z);
}

/* Mv: self (n, m) by a strided vec (m) into out (n). */
static void test_mv(void **state)
{
    (void)state;
    int64_t ds[2] = {3, 4}, dv[1] = {4}, sv[1] = {2}, dout[1] = {3};
    struct ht s = mks(ACL_FLOAT, 2, ds, NULL, 0, 12, 14), v = mks(ACL_FLOAT, 1, dv, sv, 1, 9, 15);
    struct ht o = mks(ACL_FLOAT, 1, dout, NULL, 0, 3, 16);
    run(aclnnMvGetWorkspaceSize, aclnnMv, &s, &v, &o);
    double got[3];
    fetch(&o, got);
    for (int i = 0; i < 3; i++) {
        double sum = 0;
        for (int j = 0; j < 4; j++)
            sum += s.v[i * 4 + j] * v.v[1 + 2 * j];
        assert_true(fabs(got[i] - sum) <= 1e-6);
    }
    drop(&s), drop(&v), drop(&o);
}

static void test_refusals(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d34[2] = {3, 4}, d44[2] = {4, 4}, d134[3] = {1, 3, 4}, d3[1] = {3},
            d2[1] = {2};
    struct ht a = mks(ACL_FLOAT, 2, d23, NULL, 0, 6, 1), b = mks(ACL_FLOAT, 2, d34, NULL, 0, 12, 2);
    struct ht c = mks(ACL_FLOAT, 2, d44, NULL, 0, 16, 3), b3 = mks(ACL_FLOAT, 3, d134, NULL, 0, 12, 4);
    struct ht v = mks(ACL_FLOAT16, 1, d3, NULL, 0, 3, 5), o2 = mks(ACL_FLOAT, 1, d2, NULL, 0, 2, 6);
    uint64_t ws;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnMmGetWorkspaceSize(a.t, b3.t, c.t, 1, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnMmGetWorkspaceSize: Expected 2 dimension "
               "input, but got mat2 with sizes [1, 3, 4].");
    assert_int_equal(aclnnMmGetWorkspaceSize(a.t, c.t, c.t, 1, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnMmGetWorkspaceSize(a.t, b.t, NULL, 1, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnMvGetWorkspaceSize(a.t, v.t, o2.t, 1, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnMvGetWorkspaceSize: Expected both tensors "
               "to have same dtype, but found out DT_FLOAT and vec DT_FLOAT16.");
    assert_int_equal(aclnnMvGetWorkspaceSize(a.t, a.t, o2.t, 1, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnMvGetWorkspaceSize: Expected 1 dimension "
               "input, but got vec with sizes [2, 3].");
    assert_null(e);
    drop(&a), drop(&b), drop(&c), drop(&b3), drop(&v), drop(&o2);
}

/* ---- TransMatmulWeight: weights in FRACTAL_NZ ---- */

/* Where (r, c) of a matrix of `rows` rows lies in CANN's FRACTAL_NZ, as the
 * test reads the layout (hicann/ops-math conversion/trans_data: fractals of
 * 16 rows by c0 columns, c0 = 32 bytes of the type; the fractals of one
 * column block follow each other down the rows, then the next block). */
static int64_t nz_index(int64_t r, int64_t c, int64_t rows, int64_t c0)
{
    int64_t r1 = (rows + 15) / 16;
    return (c / c0) * r1 * 16 * c0 + (r / 16) * 16 * c0 + (r % 16) * c0 + c % c0;
}

/* ggml's weights with GGML_CANN_WEIGHT_NZ (on by default): n rows of k,
 * allocated as aclnnCalculateMatmulWeightSizeV2 says, laid out in NZ by
 * TransMatmulWeight on their ND view (n, k), then passed to Mm as the
 * transposed view (k, n) with format FRACTAL_NZ (ggml-cann.cpp
 * weight_format_to_nz, aclnn_ops.cpp ggml_cann_mat_mul_fp). */
static void check_nz(aclDataType dt, int64_t n, int64_t k)
{
    int64_t c0 = dt == ACL_INT8 ? 32 : 16, shape[2] = {n, k};
    uint64_t size = 0;
    aclIntArray *sh = aclCreateIntArray(shape, 2);
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(sh, dt, &size), OK);
    aclDestroyIntArray(sh);
    assert_int_equal(size, (n + 15) / 16 * 16 * ((k + c0 - 1) / c0 * c0));
    struct ht w = mks(dt, 2, shape, NULL, 0, (size_t)size, 7);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnTransMatmulWeightGetWorkspaceSize(w.t, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnTransMatmulWeight(NULL, 0, e, S), OK);
    /* the tensor now says what its storage is (L262-264) */
    aclFormat f;
    assert_int_equal(aclGetFormat(w.t, &f), OK);
    assert_int_equal(f, ACL_FORMAT_FRACTAL_NZ);
    int64_t *sd = NULL;
    uint64_t sn = 0;
    assert_int_equal(aclGetStorageShape(w.t, &sd, &sn), OK);
    assert_int_equal(sn, 4);
    assert_true(sd[0] == (k + c0 - 1) / c0 && sd[1] == (n + 15) / 16 && sd[2] == 16 && sd[3] == c0);
    free(sd);
    double *got = malloc(size * sizeof *got);
    char *mine = calloc(size, 1);
    fetch(&w, got);
    for (int64_t r = 0; r < n; r++)
        for (int64_t c = 0; c < k; c++) {
            int64_t at = nz_index(r, c, n, c0);
            mine[at] = 1;
            if (got[at] != w.v[r * k + c])
                fail_msg("(%lld, %lld) at NZ element %lld: %g, want %g", (long long)r,
                         (long long)c, (long long)at, got[at], w.v[r * k + c]);
        }
    for (uint64_t i = 0; i < size; i++)
        if (!mine[i] && got[i] != 0)
            fail_msg("NZ padding element %llu is %g, not 0", (unsigned long long)i, got[i]);
    free(got), free(mine);
    if (dt != ACL_INT8) {
        int64_t m = 3, da[2] = {m, k}, dv[2] = {k, n}, tv[2] = {1, k}, dout[2] = {m, n};
        int64_t nd_elems = n * k;
        struct ht a = mks(dt, 2, da, NULL, 0, (size_t)(m * k), 8);
        struct ht o = mks(dt, 2, dout, NULL, 0, (size_t)(m * n), 9);
        struct ht wt = w; /* the host picture keeps the ND values */
        memcpy(wt.dims, dv, sizeof dv);
        memcpy(wt.strides, tv, sizeof tv);
        wt.t = aclCreateTensor(dv, 2, dt, tv, 0, ACL_FORMAT_FRACTAL_NZ, &nd_elems, 1, w.dev);
        run(aclnnMmGetWorkspaceSize, aclnnMm, &a, &wt, &o);
        expect_product(&a, &wt, &o);
        aclDestroyTensor(wt.t);
        drop(&a), drop(&o);
    }
    drop(&w);
}

static void test_trans_matmul_weight(void **state)
{
    (void)state;
    check_nz(ACL_FLOAT16, 20, 40); /* padded both ways */
    check_nz(ACL_BF16, 32, 48);
    check_nz(ACL_FLOAT16, 1, 70);
    check_nz(ACL_INT8, 20, 40);
}

/* Its refusals (aclnn_trans_matmul_weight.cpp CheckParams L190-221, the
 * 2-6 dims of L250-255) and an NZ tensor where aclsim reads only ND. */
static void test_trans_matmul_weight_refusals(void **state)
{
    (void)state;
    int64_t d2[2] = {4, 8}, d1[1] = {8}, d0[2] = {0, 8};
    struct ht f32 = mks(ACL_FLOAT, 2, d2, NULL, 0, 32, 1), v1 = mks(ACL_FLOAT16, 1, d1, NULL, 0, 8, 1);
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnTransMatmulWeightGetWorkspaceSize(NULL, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnTransMatmulWeightGetWorkspaceSize(f32.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnTransMatmulWeightGetWorkspaceSize: Tensor "
               "input not implemented for DT_FLOAT, should be in dtype support list [DT_FLOAT16,"
               "DT_INT8,DT_UINT8,DT_BF16,DT_HIFLOAT8,DT_FLOAT8_E4M3FN,].");
    aclTensor *nchw = aclCreateTensor(d2, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_NCHW, d2, 2, v1.dev);
    assert_int_equal(aclnnTransMatmulWeightGetWorkspaceSize(nchw, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnTransMatmulWeightGetWorkspaceSize: the "
               "format of input should be ND. Actual is [NCHW].");
    aclDestroyTensor(nchw);
    assert_int_equal(aclnnTransMatmulWeightGetWorkspaceSize(v1.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnTransMatmulWeightGetWorkspaceSize: It is "
               "expected that tensorShape has 2-6 dimensions, but got dimensions 1.");
    assert_null(e);
    /* an empty weight plans nothing (L236-240) */
    aclTensor *empty = aclCreateTensor(d0, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, d0, 2, v1.dev);
    ws = 9;
    assert_int_equal(aclnnTransMatmulWeightGetWorkspaceSize(empty, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnTransMatmulWeight(NULL, 0, e, S), OK);
    aclDestroyTensor(empty);
    /* an NZ tensor anywhere but a matrix product's operand is refused */
    aclTensor *nz = aclCreateTensor(d2, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_FRACTAL_NZ, d2, 2, v1.dev);
    aclTensor *o = aclCreateTensor(d2, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, d2, 2, v1.dev);
    e = NULL;
    assert_int_equal(aclnnMvGetWorkspaceSize(nz, v1.t, o, 1, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_null(e);
    aclDestroyTensor(nz), aclDestroyTensor(o);
    drop(&f32), drop(&v1);
}

/* ---- WeightQuantBatchMatmulV2 ---- */

/* A weight of k x n int8 or int4 values q(i, j) laid out as ggml lays it
 * (n rows of k, then passed as the transposed (k, n) view); int4 packs two
 * a byte, the first in the low nibble. */
struct qw {
    int8_t *q; /* q[i * n + j] */
    void *dev;
    aclTensor *t;
};

/* The weight of expert `ex` of `experts` stored one after the other, its
 * view's storage shape one expert's (k * n), as ggml's MUL_MAT_ID makes it:
 * the view reaches past that shape, which CANN's matrix products take as a
 * transposed view (no Contiguous, no Validate). */
static struct qw mk_expert_weight(aclDataType dt, int64_t k, int64_t n, int64_t experts,
                                  int64_t ex)
{
    struct qw w = {malloc((size_t)(k * n)), NULL, NULL};
    size_t one = (size_t)(dt == ACL_INT4 ? k * n / 2 : k * n), bytes = one * (size_t)experts;
    uint8_t *host = calloc(bytes, 1);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < k; i++) {
            int8_t q = (int8_t)((i * 5 + j * 3) % (dt == ACL_INT4 ? 16 : 255) -
                                (dt == ACL_INT4 ? 8 : 127));
            w.q[i * n + j] = q;
            int64_t e = ex * k * n + j * k + i;
            if (dt == ACL_INT4)
                host[e / 2] |= (uint8_t)((q & 0xf) << (4 * (e & 1)));
            else
                host[e] = (uint8_t)q;
        }
    assert_int_equal(aclrtMalloc(&w.dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclrtMemcpy(w.dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    free(host);
    int64_t dims[2] = {k, n}, strides[2] = {1, k}, storage = k * n;
    w.t = aclCreateTensor(dims, 2, dt, strides, ex * k * n, ACL_FORMAT_ND, &storage, 1, w.dev);
    assert_non_null(w.t);
    return w;
}

static struct qw mk_weight(aclDataType dt, int64_t k, int64_t n)
{
    return mk_expert_weight(dt, k, n, 1, 0);
}

static void drop_weight(struct qw *w)
{
    aclDestroyTensor(w->t);
    assert_int_equal(aclrtFree(w->dev), 0);
    free(w->q);
}

/* y = x @ ((q + offset) * scale) + bias for a per-group scale (g > 0:
 * [k / g, n]) or per-channel one ([1, n]), checked against the reference
 * that dequantises in float16 as the kernel does. */
static void check_wq_expert(aclDataType wdt, int g, bool offset, bool bias, int64_t experts,
                            int64_t ex)
{
    int64_t m = 3, k = 64, n = 6, groups = g ? k / g : 1;
    int64_t dx[2] = {m, k}, ds[2] = {groups, n}, dy[2] = {m, n}, db[1] = {n};
    struct ht x = mks(ACL_FLOAT16, 2, dx, NULL, 0, (size_t)(m * k), 21);
    struct qw w = mk_expert_weight(wdt, k, n, experts, ex);
    /* Several experts: the scales as ggml's MUL_MAT_ID passes them
     * (aclnn_ops.cpp ggml_cann_mul_mat_id_quant): every expert's stored as
     * n rows of `groups`, this one's the transposed (groups, n) view at its
     * offset, with one expert's storage shape. Like the weight, CANN takes
     * it as a transposed view without Validate (hicann/ops-nn
     * aclnn_weight_quant_batch_matmul_v2.cpp TensorContiguousProcess
     * L1331-1339). */
    int64_t sst[2] = {1, groups}, one = groups * n;
    struct ht s = experts > 1 ? mks(ACL_FLOAT16, 2, ds, sst, ex * one, (size_t)(experts * one), 22)
                              : mks(ACL_FLOAT16, 2, ds, NULL, 0, (size_t)one, 22);
    if (experts > 1) {
        aclDestroyTensor(s.t);
        s.t = aclCreateTensor(ds, 2, ACL_FLOAT16, sst, s.offset, ACL_FORMAT_ND, &one, 1, s.dev);
    }
    struct ht off = mks(ACL_FLOAT16, 2, ds, NULL, 0, (size_t)(groups * n), 23);
    struct ht b = mks(ACL_FLOAT16, 1, db, NULL, 0, (size_t)n, 24);
    struct ht y = mks(ACL_FLOAT16, 2, dy, NULL, 0, (size_t)(m * n), 25);
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.t, w.t, s.t,
                     offset ? off.t : NULL, NULL, NULL, bias ? b.t : NULL, g, y.t, &ws, &e), OK);
    void *wsp = NULL;
    assert_int_equal(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclnnWeightQuantBatchMatmulV2(wsp, ws, e, S), OK);
    double got[18];
    fetch(&y, got);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double sum = bias ? b.v[j] : 0, mag = fabs(sum);
            for (int64_t p = 0; p < k; p++) {
                int64_t gi[2] = {g ? p / g : 0, j};
                double q = w.q[p * n + j];
                if (offset)
                    q = as(ACL_FLOAT16, q + off.v[at_idx(&off, 2, gi)]);
                double t = x.v[i * k + p] * as(ACL_FLOAT16, q * s.v[at_idx(&s, 2, gi)]);
                sum += t, mag += fabs(t);
            }
            double want = as(ACL_FLOAT16, sum);
            if (fabs(got[i * n + j] - want) > mag * 1e-6 + fabs(want) / 512)
                fail_msg("%s g %d offset %d bias %d: y[%lld][%lld] got %.6g want %.6g",
                         wdt == ACL_INT4 ? "int4" : "int8", g, offset, bias, (long long)i,
                         (long long)j, got[i * n + j], want);
        }
    assert_int_equal(aclrtFree(wsp), 0);
    drop(&x), drop(&s), drop(&off), drop(&b), drop(&y);
    drop_weight(&w);
}

static void check_wq(aclDataType wdt, int g, bool offset, bool bias)
{
    check_wq_expert(wdt, g, offset, bias, 1, 0);
}

static void test_weight_quant_int8_and_int4(void **state)
{
    (void)state;
    check_wq(ACL_INT8, 32, false, false); /* ggml's Q8_0 */
    check_wq(ACL_INT4, 32, false, false); /* ggml's Q4_0 */
    check_wq(ACL_INT8, 0, true, true);
    check_wq(ACL_INT4, 0, true, false);
    check_wq(ACL_INT4, 32, true, true);
    check_wq_expert(ACL_INT8, 32, false, false, 3, 2); /* ggml's MUL_MAT_ID: expert 2 of 3 */
    check_wq_expert(ACL_INT4, 32, false, false, 3, 1);
}

static void test_weight_quant_refusals(void **state)
{
    (void)state;
    int64_t dx[2] = {2, 64}, dx2[2] = {2, 32}, ds[2] = {2, 6}, ds3[2] = {3, 6}, dy[2] = {2, 6};
    struct ht x = mks(ACL_FLOAT16, 2, dx, NULL, 0, 128, 1), x2 = mks(ACL_FLOAT16, 2, dx2, NULL, 0, 64, 1);
    struct ht s = mks(ACL_FLOAT16, 2, ds, NULL, 0, 12, 2), s3 = mks(ACL_FLOAT16, 2, ds3, NULL, 0, 18, 2);
    struct ht y = mks(ACL_FLOAT16, 2, dy, NULL, 0, 12, 3), yf = mks(ACL_FLOAT, 2, dy, NULL, 0, 12, 3);
    struct qw w = mk_weight(ACL_INT8, 64, 6);
    uint64_t ws;
    aclOpExecutor *e = NULL;
    const char *t = "AclNN_Parameter_Error(EZ1001)";
    assert_int_equal(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.t, w.t, NULL, NULL, NULL,
                     NULL, NULL, 32, y.t, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.t, w.t, s.t, NULL, NULL,
                     NULL, NULL, 32, yf.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.t, w.t, s.t, NULL, NULL,
                     NULL, NULL, 48, y.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg(t, "aclnnWeightQuantBatchMatmulV2GetWorkspaceSize: antiquantGroupSize should be "
               "an integer multiple of 32, actual is 48.");
    assert_int_equal(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x2.t, w.t, s.t, NULL, NULL,
                     NULL, NULL, 0, y.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg(t, "aclnnWeightQuantBatchMatmulV2GetWorkspaceSize: x's k and weight's k should be "
               "equal, actual x'k is 32, weight's k is 64.");
    assert_int_equal(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.t, w.t, s3.t, NULL, NULL,
                     NULL, NULL, 32, y.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg(t, "aclnnWeightQuantBatchMatmulV2GetWorkspaceSize: antiquantScale shape must be "
               "[2, 6] when the size is 2 and with group size, but it is [3, 6]");
    assert_null(e);
    drop(&x), drop(&x2), drop(&s), drop(&s3), drop(&y), drop(&yf);
    drop_weight(&w);
}

/* ---- TriangularSolve ---- */

/* A x = b for one m x m matrix a (row-major) and one column of b, by
 * substitution over A's lower or upper triangle (maybe transposed, maybe
 * with a unit diagonal): the reference the kernel's result is held to. */
static void substitute(const double *a, int m, bool upper, bool trans, bool unit, double *x)
{
    bool up = upper != trans; /* the triangle the effective matrix has */
    for (int s = 0; s < m; s++) {
        int i = up ? m - 1 - s : s;
        double v = x[i];
        for (int j = 0; j < m; j++)
            if (up ? j > i : j < i)
                v -= (trans ? a[j * m + i] : a[i * m + j]) * x[j];
        x[i] = unit ? v : v / a[i * m + i];
    }
}

static void check_solve(aclDataType dt, bool upper, bool trans, bool unit)
{
    enum { M = 4, N = 3, B = 2 };
    double av[B * M * M];
    for (int i = 0; i < B * M * M; i++) /* a strong diagonal; the other triangle is noise */
        av[i] = i % (M + 1) == 0 ? 3 + (i % 3) : val((size_t)i, 7);
    int64_t da[3] = {B, M, M}, db[2] = {M, N}, dx[3] = {B, M, N}, sx[3] = {M * N + 1, N, 1};
    struct ht a = mk_vals(dt, 3, da, NULL, 0, B * M * M, 0, av);
    struct ht b = mks(dt, 2, db, NULL, 0, M * N, 8); /* broadcast over A's batch */
    struct ht x = mks(dt, 3, dx, sx, 0, 2 * (M * N + 1), 9); /* a gap between batches */
    struct ht mo = mks(dt, 3, da, NULL, 0, B * M * M, 10);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnTriangularSolveGetWorkspaceSize(b.t, a.t, upper, trans, unit, x.t, mo.t,
                                                          &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnTriangularSolve(NULL, 0, e, S), OK);
    double got[2 * (M * N + 1)], gm[B * M * M];
    fetch(&x, got);
    fetch(&mo, gm);
    for (int bi = 0; bi < B; bi++)
        for (int j = 0; j < N; j++) {
            double col[M];
            for (int i = 0; i < M; i++)
                col[i] = b.v[i * N + j];
            substitute(a.v + bi * M * M, M, upper, trans, unit, col);
            for (int i = 0; i < M; i++) {
                double g = got[bi * (M * N + 1) + i * N + j];
                if (fabs(g - col[i]) > (dt == ACL_FLOAT ? 1e-5 : 1e-12) * (1 + fabs(col[i])))
                    fail_msg("upper %d trans %d unit %d: x[%d][%d][%d] got %.9g want %.9g", upper,
                             trans, unit, bi, i, j, g, col[i]);
            }
        }
    assert_true(got[M * N] == x.v[M * N]); /* the gap */
    for (int i = 0; i < B * M * M; i++)
        assert_true(gm[i] == a.v[i]); /* mOut: A as it is, both triangles */
    drop(&a), drop(&b), drop(&x), drop(&mo);
}

static void test_triangular_solve(void **state)
{
    (void)state;
    check_solve(ACL_FLOAT, false, false, false); /* ggml's SOLVE_TRI */
    check_solve(ACL_FLOAT, true, false, false);
    check_solve(ACL_FLOAT, false, true, true);
    check_solve(ACL_DOUBLE, true, true, false);
}

static void test_triangular_solve_refusals(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d33[2] = {3, 3}, d32[2] = {3, 2};
    struct ht a = mks(ACL_FLOAT, 2, d23, NULL, 0, 6, 1), sq = mks(ACL_FLOAT, 2, d33, NULL, 0, 9, 2);
    struct ht b = mks(ACL_FLOAT, 2, d32, NULL, 0, 6, 3), h = mks(ACL_FLOAT16, 2, d32, NULL, 0, 6, 4);
    struct ht d = mks(ACL_DOUBLE, 2, d33, NULL, 0, 9, 5);
    uint64_t ws;
    aclOpExecutor *e = NULL;
    const char *t = "AclNN_Parameter_Error(EZ1001)";
    assert_int_equal(aclnnTriangularSolveGetWorkspaceSize(NULL, sq.t, false, false, false, b.t,
                                                          NULL, &ws, &e), ACLNN_ERR_INNER_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnTriangularSolveGetWorkspaceSize(b.t, a.t, false, false, false, b.t,
                                                          NULL, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg(t, "aclnnTriangularSolveGetWorkspaceSize: A must be batchs of square matrices, "
               "but they are 2 by 3 matrices.");
    assert_int_equal(aclnnTriangularSolveGetWorkspaceSize(h.t, sq.t, false, false, false, h.t,
                                                          NULL, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnTriangularSolveGetWorkspaceSize(b.t, d.t, false, false, false, b.t,
                                                          NULL, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg(t, "aclnnTriangularSolveGetWorkspaceSize: Expected both tensors to have same "
               "dtype, but found self DT_FLOAT and A DT_DOUBLE.");
    assert_null(e);
    drop(&a), drop(&sq), drop(&b), drop(&h), drop(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm_of_a_transposed_weight),
        cmocka_unit_test(test_mm_of_strided_views),
        cmocka_unit_test(test_batched_and_broadcast),
        cmocka_unit_test(test_mv),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_trans_matmul_weight),
        cmocka_unit_test(test_trans_matmul_weight_refusals),
        cmocka_unit_test(test_weight_quant_int8_and_int4),
        cmocka_unit_test(test_weight_quant_refusals),
        cmocka_unit_test(test_triangular_solve),
        cmocka_unit_test(test_triangular_solve_refusals),
    };
    return cmocka_run_group_tests(tests, nn_setup, nn_teardown);
}
