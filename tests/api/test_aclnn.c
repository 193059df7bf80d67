/*
 * test_aclnn.c - the aclnn API: the nnopbase objects (aclCreateTensor and
 * friends, executors), every aclnn operator against a host reference, the
 * codes for bad input, workspaces (planned sizes, written by the kernel,
 * checked at launch), time on the stream, and a repeatable executor
 * captured and replayed.
 *
 * Codes: hicann/opbase include/nnopbase/opdev/op_errno.h L14-24; the checks
 * of the objects: src/nnopbase/common/api/acl_op_api.cpp (create L34-56,
 * destroy L92-97, getters L186-300, executor L476-505); the launch's
 * checks: src/nnopbase/composite_op/aclnn_engine/op_executor.cpp L958-994.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "testutil.h"
#include "acl/acl_op.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_sub.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_gemm.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_zero.h"
#include "aclsim/aclsim.h"

static aclrtStream S;

/* A device tensor with its host copy. */
struct dt {
    void *dev;
    size_t bytes;
    aclTensor *t;
};

static struct dt make(aclDataType type, const int64_t *dims, uint64_t n, const void *host)
{
    struct dt d = {NULL, aclDataTypeSize(type), NULL};
    for (uint64_t i = 0; i < n; i++)
        d.bytes *= (size_t)dims[i];
    assert_int_equal(aclrtMalloc(&d.dev, d.bytes ? d.bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    if (host)
        assert_int_equal(aclrtMemcpy(d.dev, d.bytes, host, d.bytes, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    else
        assert_int_equal(aclrtMemset(d.dev, d.bytes, 0, d.bytes), 0);
    d.t = aclCreateTensor(dims, n, type, NULL, 0, ACL_FORMAT_ND, dims, n, d.dev);
    assert_non_null(d.t);
    return d;
}

static void get(const struct dt *d, void *host)
{
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    assert_int_equal(aclrtMemcpy(host, d->bytes, d->dev, d->bytes, ACL_MEMCPY_DEVICE_TO_HOST), 0);
}

static void drop(struct dt *d)
{
    assert_int_equal(aclDestroyTensor(d->t), OK);
    assert_int_equal(aclrtFree(d->dev), 0);
}

/* ---- The objects ---- */

static void test_tensor_getters_and_their_codes(void **state)
{
    (void)state;
    int64_t dims[3] = {2, 3, 4}, storage[1] = {24};
    int dummy;
    aclTensor *t = aclCreateTensor(dims, 3, ACL_FLOAT16, NULL, 5, ACL_FORMAT_NCHW, storage, 1, &dummy);
    assert_non_null(t);
    int64_t *v = NULL;
    uint64_t n = 0;
    assert_int_equal(aclGetViewShape(t, &v, &n), OK);
    assert_int_equal(n, 3);
    assert_true(v[0] == 2 && v[1] == 3 && v[2] == 4);
    free(v);
    assert_int_equal(aclGetViewStrides(t, &v, &n), OK); /* none given: contiguous */
    assert_int_equal(n, 3);
    assert_true(v[0] == 12 && v[1] == 4 && v[2] == 1);
    free(v);
    assert_int_equal(aclGetStorageShape(t, &v, &n), OK);
    assert_true(n == 1 && v[0] == 24);
    free(v);
    int64_t off = 0;
    aclFormat f;
    aclDataType dt;
    void *addr = NULL;
    assert_int_equal(aclGetViewOffset(t, &off), OK);
    assert_int_equal(off, 5);
    assert_int_equal(aclGetFormat(t, &f), OK);
    assert_int_equal(f, ACL_FORMAT_NCHW);
    assert_int_equal(aclGetDataType(t, &dt), OK);
    assert_int_equal(dt, ACL_FLOAT16);
    assert_int_equal(aclGetRawTensorAddr(t, &addr), OK);
    assert_ptr_equal(addr, &dummy);
    /* NULL arguments: ACLNN_ERR_PARAM_NULLPTR (acl_op_api.cpp L186-300) */
    assert_int_equal(aclGetViewShape(NULL, &v, &n), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclGetViewShape(t, NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclGetViewStrides(t, &v, NULL), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclGetViewOffset(NULL, &off), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclGetFormat(t, NULL), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclGetDataType(NULL, &dt), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclInitTensor(NULL, dims, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 3, NULL),
                     ACLNN_ERR_PARAM_NULLPTR);
    /* aclInitTensor changes it in place */
    int64_t d2[2] = {6, 4}, st2[2] = {1, 6};
    assert_int_equal(aclInitTensor(t, d2, 2, ACL_INT32, st2, 0, ACL_FORMAT_ND, d2, 2, NULL), OK);
    assert_int_equal(aclGetViewStrides(t, &v, &n), OK);
    assert_true(n == 2 && v[0] == 1 && v[1] == 6);
    free(v);
    /* NULL dims with a count: no tensor (acl_op_api.cpp L38) */
    assert_null(aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, &dummy));
    assert_null(aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 1, &dummy));
    assert_int_equal(aclDestroyTensor(NULL), OK);
    assert_int_equal(aclDestroyTensor(t), OK);
}

static void test_scalars_arrays_and_lists(void **state)
{
    (void)state;
    assert_null(aclCreateScalar(NULL, ACL_FLOAT)); /* acl_op_api.cpp L49 */
    double d = 2.5;
    aclScalar *s = aclCreateScalar(&d, ACL_DOUBLE);
    assert_non_null(s);
    int64_t iv[3] = {1, 2, 3};
    float fv[2] = {0.5f, 1.5f};
    bool bv[4] = {true, false, true, true};
    aclIntArray *ia = aclCreateIntArray(iv, 3);
    aclFloatArray *fa = aclCreateFloatArray(fv, 2);
    aclBoolArray *ba = aclCreateBoolArray(bv, 4);
    uint64_t n = 0;
    assert_int_equal(aclGetIntArraySize(ia, &n), OK);
    assert_int_equal(n, 3);
    assert_int_equal(aclGetFloatArraySize(fa, &n), OK);
    assert_int_equal(n, 2);
    assert_int_equal(aclGetBoolArraySize(ba, &n), OK);
    assert_int_equal(n, 4);
    assert_int_equal(aclGetIntArraySize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclGetBoolArraySize(ba, NULL), ACLNN_ERR_PARAM_NULLPTR);
    /* A list owns its elements: destroying it destroys them (L160-185;
     * memcheck would see them leak otherwise). */
    int64_t dims[1] = {4};
    const aclTensor *ts[2] = {aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, NULL),
                              aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, NULL)};
    aclTensorList *tl = aclCreateTensorList(ts, 2);
    float one = 1;
    const aclScalar *ss[1] = {aclCreateScalar(&one, ACL_FLOAT)};
    aclScalarList *sl = aclCreateScalarList(ss, 1);
    assert_int_equal(aclGetTensorListSize(tl, &n), OK);
    assert_int_equal(n, 2);
    assert_int_equal(aclGetScalarListSize(sl, &n), OK);
    assert_int_equal(n, 1);
    assert_int_equal(aclDestroyTensorList(tl), OK);
    assert_int_equal(aclDestroyScalarList(sl), OK);
    assert_int_equal(aclDestroyIntArray(ia), OK);
    assert_int_equal(aclDestroyFloatArray(fa), OK);
    assert_int_equal(aclDestroyBoolArray(ba), OK);
    assert_int_equal(aclDestroyScalar(s), OK);
    assert_int_equal(aclDestroyScalar(NULL), OK);
    assert_int_equal(aclnnInit(NULL), OK);
    assert_int_equal(aclnnFinalize(), OK);
}

/* ---- Operators against a host reference ---- */

static void test_add_sub_with_alpha_broadcast(void **state)
{
    (void)state;
    int64_t d43[2] = {4, 3}, d3[1] = {3};
    float a[12], b[3] = {1.5f, -2.0f, 0.25f}, out[12];
    for (int i = 0; i < 12; i++)
        a[i] = (float)i - 5.0f;
    struct dt ta = make(ACL_FLOAT, d43, 2, a), tb = make(ACL_FLOAT, d3, 1, b),
              to = make(ACL_FLOAT, d43, 2, NULL);
    float alpha = -1.5f;
    aclScalar *al = aclCreateScalar(&alpha, ACL_FLOAT);
    uint64_t ws = 99;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(ta.t, tb.t, al, to.t, &ws, &e), OK);
    assert_int_equal(ws, 0); /* an elementwise operator needs none */
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 12; i++)
        assert_float_equal(out[i], a[i] + alpha * b[i % 3], 1e-6);
    assert_int_equal(aclnnSubGetWorkspaceSize(ta.t, tb.t, al, to.t, &ws, &e), OK);
    assert_int_equal(aclnnSub(NULL, 0, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 12; i++)
        assert_float_equal(out[i], a[i] - alpha * b[i % 3], 1e-6);
    /* in place: self += alpha * other */
    assert_int_equal(aclnnInplaceAddGetWorkspaceSize(ta.t, tb.t, al, &ws, &e), OK);
    assert_int_equal(aclnnInplaceAdd(NULL, 0, e, S), OK);
    get(&ta, out);
    for (int i = 0; i < 12; i++)
        assert_float_equal(out[i], a[i] + alpha * b[i % 3], 1e-6);
    /* integers: alpha 3 */
    int32_t x[3] = {7, -4, 100}, y[3] = {2, 5, -9}, z[3];
    int32_t three = 3;
    aclScalar *a3 = aclCreateScalar(&three, ACL_INT32);
    struct dt tx = make(ACL_INT32, d3, 1, x), ty = make(ACL_INT32, d3, 1, y),
              tz = make(ACL_INT32, d3, 1, NULL);
    assert_int_equal(aclnnAddGetWorkspaceSize(tx.t, ty.t, a3, tz.t, &ws, &e), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK);
    get(&tz, z);
    for (int i = 0; i < 3; i++)
        assert_int_equal(z[i], x[i] + 3 * y[i]);
    aclDestroyScalar(a3);
    aclDestroyScalar(al);
    struct dt *all[] = {&ta, &tb, &to, &tx, &ty, &tz};
    for (size_t i = 0; i < 6; i++)
        drop(all[i]);
}

static void test_mul_div_and_in_place_mul(void **state)
{
    (void)state;
    int64_t d[1] = {5};
    float a[5] = {1, -2, 3.5f, 8, -0.5f}, b[5] = {2, 4, -1, 0.5f, 8}, out[5];
    struct dt ta = make(ACL_FLOAT, d, 1, a), tb = make(ACL_FLOAT, d, 1, b),
              to = make(ACL_FLOAT, d, 1, NULL);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnMulGetWorkspaceSize(ta.t, tb.t, to.t, &ws, &e), OK);
    assert_int_equal(aclnnMul(NULL, ws, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 5; i++)
        assert_float_equal(out[i], a[i] * b[i], 0);
    assert_int_equal(aclnnDivGetWorkspaceSize(ta.t, tb.t, to.t, &ws, &e), OK);
    assert_int_equal(aclnnDiv(NULL, ws, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 5; i++)
        assert_float_equal(out[i], a[i] / b[i], 0);
    assert_int_equal(aclnnInplaceMulGetWorkspaceSize(ta.t, tb.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceMul(NULL, ws, e, S), OK);
    get(&ta, out);
    for (int i = 0; i < 5; i++)
        assert_float_equal(out[i], a[i] * b[i], 0);
    drop(&ta);
    drop(&tb);
    drop(&to);
}

static double gelu(double x)
{
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static void test_activations_and_cast(void **state)
{
    (void)state;
    int64_t d[1] = {6};
    float x[6] = {-2.5f, -0.5f, 0, 0.25f, 1, 3}, out[6];
    struct dt tx = make(ACL_FLOAT, d, 1, x), to = make(ACL_FLOAT, d, 1, NULL);
    typedef aclnnStatus (*plan_fn)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
    typedef aclnnStatus (*run_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);
    static const struct {
        plan_fn plan;
        run_fn run;
        double (*ref)(double);
    } ops[] = {
        {aclnnExpGetWorkspaceSize, aclnnExp, exp},   {aclnnTanhGetWorkspaceSize, aclnnTanh, tanh},
        {aclnnAbsGetWorkspaceSize, aclnnAbs, fabs},  {aclnnGeluGetWorkspaceSize, aclnnGelu, gelu},
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        uint64_t ws;
        aclOpExecutor *e;
        assert_int_equal(ops[k].plan(tx.t, to.t, &ws, &e), OK);
        assert_int_equal(ws, 0);
        assert_int_equal(ops[k].run(NULL, ws, e, S), OK);
        get(&to, out);
        for (int i = 0; i < 6; i++)
            assert_float_equal(out[i], (float)ops[k].ref(x[i]), 0);
    }
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnReluGetWorkspaceSize(tx.t, to.t, &ws, &e), OK);
    assert_int_equal(aclnnRelu(NULL, ws, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], x[i] > 0 ? x[i] : 0, 0);
    assert_int_equal(aclnnSigmoidGetWorkspaceSize(tx.t, to.t, &ws, &e), OK);
    assert_int_equal(aclnnSigmoid(NULL, ws, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], (float)(1 / (1 + exp(-x[i]))), 0);
    assert_int_equal(aclnnNegGetWorkspaceSize(tx.t, to.t, &ws, &e), OK);
    assert_int_equal(aclnnNeg(NULL, ws, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], -x[i], 0);
    assert_int_equal(aclnnSqrtGetWorkspaceSize(to.t, to.t, &ws, &e), OK); /* sqrt(-x) in place */
    assert_int_equal(aclnnSqrt(NULL, ws, e, S), OK);
    get(&to, out);
    for (int i = 0; i < 6; i++)
        if (-x[i] >= 0)
            assert_float_equal(out[i], sqrtf(-x[i]), 0);
        else
            assert_true(isnan(out[i]));
    /* Cast: to int32 truncates toward zero */
    struct dt ti = make(ACL_INT32, d, 1, NULL);
    int32_t iv[6];
    assert_int_equal(aclnnCastGetWorkspaceSize(tx.t, ACL_INT32, ti.t, &ws, &e), OK);
    assert_int_equal(aclnnCast(NULL, ws, e, S), OK);
    get(&ti, iv);
    for (int i = 0; i < 6; i++)
        assert_int_equal(iv[i], (int32_t)x[i]);
    /* the dtype argument must be out's: CANN's ViewCopy refuses the cast's
     * result (ops-math conversion/contiguous/op_host/op_api/contiguous.cpp
     * CheckViewCopyParams L640-646, nullptr: ACLNN_ERR_INNER_NULLPTR) */
    assert_int_equal(aclnnCastGetWorkspaceSize(tx.t, ACL_FLOAT16, ti.t, &ws, &e),
                     ACLNN_ERR_INNER_NULLPTR);
    expect_msg("AclNN_Inner_Error(EZ9999)", "aclnnCastGetWorkspaceSize: Input tensor's dtype[DT_FLOAT16] should be "
               "same with output's dtype[DT_INT32].");
    drop(&tx);
    drop(&to);
    drop(&ti);
}

/* Matmul plans RoundUp(batch * m * n * 4, 512) bytes, refuses less, and the
 * kernel writes its fp32 accumulators there. */
static void test_matmul_workspace_planned_checked_and_written(void **state)
{
    (void)state;
    int64_t da[2] = {2, 3}, db[2] = {3, 4}, dc[2] = {2, 4};
    float a[6] = {1, 2, 3, -1, 0.5f, 2}, b[12], c[8], acc[8];
    for (int i = 0; i < 12; i++)
        b[i] = (float)(i % 5) - 1.5f;
    struct dt ta = make(ACL_FLOAT, da, 2, a), tb = make(ACL_FLOAT, db, 2, b),
              tc = make(ACL_FLOAT, dc, 2, NULL);
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnMatmulGetWorkspaceSize(ta.t, tb.t, tc.t, 1, &ws, &e), OK);
    assert_int_equal(ws, 512); /* RoundUp(2*4*4, 512) */
    void *w;
    assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclrtMemset(w, ws, 0xff, ws), 0);
    /* one byte short: refused, and the single-use executor is consumed */
    assert_int_equal(aclnnMatmul(w, ws - 1, e, S), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnMatmul: workspaceSize 511 is smaller than "
               "the 512 bytes aclnnMatmulGetWorkspaceSize planned");
    assert_int_equal(aclnnMatmul(w, ws, e, S), ACLNN_ERR_PARAM_INVALID); /* reused */
    (void)aclGetRecentErrMsg();
    /* a NULL workspace with a size: "workspace is nullptr." (op_executor.cpp L965) */
    assert_int_equal(aclnnMatmulGetWorkspaceSize(ta.t, tb.t, tc.t, 1, &ws, &e), OK);
    assert_int_equal(aclnnMatmul(NULL, ws, e, S), ACLNN_ERR_PARAM_NULLPTR);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "workspace is nullptr.");
    /* host memory as workspace: refused */
    static char host[512];
    assert_int_equal(aclnnMatmulGetWorkspaceSize(ta.t, tb.t, tc.t, 1, &ws, &e), OK);
    assert_int_equal(aclnnMatmul(host, ws, e, S), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnMatmulGetWorkspaceSize(ta.t, tb.t, tc.t, 1, &ws, &e), OK);
    assert_int_equal(aclnnMatmul(w, ws, e, S), OK);
    get(&tc, c);
    assert_int_equal(aclrtMemcpy(acc, sizeof acc, w, sizeof acc, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += (double)a[i * 3 + k] * b[k * 4 + j];
            assert_float_equal(c[i * 4 + j], (float)s, 1e-6);
            assert_float_equal(acc[i * 4 + j], (float)s, 1e-6); /* the workspace was written */
        }
    /* BatchMatMul: 2 batches of 2x3 @ 3x2 */
    int64_t ba[3] = {2, 2, 3}, bb[3] = {2, 3, 2}, bc[3] = {2, 2, 2};
    float x[12], y[12], z[8];
    for (int i = 0; i < 12; i++) {
        x[i] = (float)i / 4 - 1;
        y[i] = (float)((i * 7) % 5) - 2;
    }
    struct dt tx = make(ACL_FLOAT, ba, 3, x), ty = make(ACL_FLOAT, bb, 3, y),
              tz = make(ACL_FLOAT, bc, 3, NULL);
    assert_int_equal(aclnnBatchMatMulGetWorkspaceSize(tx.t, ty.t, tz.t, 0, &ws, &e), OK);
    assert_int_equal(ws, 512); /* RoundUp(2*2*2*4, 512) */
    assert_int_equal(aclnnBatchMatMul(w, ws, e, S), OK);
    get(&tz, z);
    for (int bt = 0; bt < 2; bt++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                double s = 0;
                for (int k = 0; k < 3; k++)
                    s += (double)x[bt * 6 + i * 3 + k] * y[bt * 6 + k * 2 + j];
                assert_float_equal(z[bt * 4 + i * 2 + j], (float)s, 1e-6);
            }
    /* 2-D operands are Matmul's, not BatchMatMul's */
    assert_int_equal(aclnnBatchMatMulGetWorkspaceSize(ta.t, tb.t, tc.t, 0, &ws, &e),
                     ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(w), 0);
    struct dt *all[] = {&ta, &tb, &tc, &tx, &ty, &tz};
    for (size_t i = 0; i < 6; i++)
        drop(all[i]);
}

static void test_bad_input_codes(void **state)
{
    (void)state;
    int64_t d4[1] = {4}, d5[1] = {5}, d22[2] = {2, 2}, st[2] = {1, 2};
    struct dt a = make(ACL_FLOAT, d4, 1, NULL), b5 = make(ACL_FLOAT, d5, 1, NULL),
              h = make(ACL_FLOAT16, d4, 1, NULL), o = make(ACL_FLOAT, d4, 1, NULL);
    float one = 1;
    aclScalar *al = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 77;
    aclOpExecutor *e = NULL;
    /* NULL tensors, scalar, out-pointers: ACLNN_ERR_PARAM_NULLPTR */
    /* (ops-math op_error_check.h IsNullptr L27-44) */
    assert_int_equal(aclnnAddGetWorkspaceSize(NULL, a.t, al, o.t, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnAddGetWorkspaceSize: Expected a value of "
               "type [aclTensor] for argument [self] but instead found nullptr.");
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, a.t, NULL, o.t, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, a.t, al, NULL, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, a.t, al, o.t, NULL, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnReluGetWorkspaceSize(a.t, o.t, &ws, NULL), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    /* shapes that do not broadcast (OP_CHECK_BROADCAST_AND_INFER_SHAPE,
     * op_error_check.h L178-188), a result that does not cast to out
     * (OP_CHECK_RESULT_DTYPE_CAST_FAILED L145-154): ACLNN_ERR_PARAM_INVALID */
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, b5.t, al, o.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnAddGetWorkspaceSize: The size of tensor self "
               "[4] must match the size of tensor other [5].");
    struct dt i4 = make(ACL_INT32, d4, 1, NULL);
    assert_int_equal(aclnnMulGetWorkspaceSize(a.t, h.t, i4.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnMulGetWorkspaceSize: Result type DT_FLOAT "
               "can't be cast to the desired output type DT_INT32.");
    assert_int_equal(aclnnReluGetWorkspaceSize(a.t, b5.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(ws, 77); /* nothing handed out */
    assert_null(e);
    /* a strided view reaching past its storage: opbase's Validate
     * (src/nnopbase/composite_op/utils/tensor_view_utils.cpp L50-70), which
     * CANN's Contiguous turns into ACLNN_ERR_INNER_NULLPTR */
    int64_t past[2] = {1, 3};
    aclTensor *tr = aclCreateTensor(d22, 2, ACL_FLOAT, past, 0, ACL_FORMAT_ND, d4, 1, a.dev);
    aclTensor *o22 = aclCreateTensor(d22, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d4, 1, o.dev);
    assert_int_equal(aclnnReluGetWorkspaceSize(tr, o22, &ws, &e), ACLNN_ERR_INNER_NULLPTR);
    expect_msg("AclNN_Inner_Error(EZ9999)", "aclnnReluGetWorkspaceSize: ViewShape overlap. The self tensor reaches "
               "elements 0 to 4 of a storage of 4 elements.");
    aclDestroyTensor(tr);
    /* a transposed view is read as such (views are the engine's) */
    tr = aclCreateTensor(d22, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d4, 1, a.dev);
    assert_int_equal(aclnnReluGetWorkspaceSize(tr, o22, &ws, &e), OK);
    assert_int_equal(aclnnRelu(NULL, ws, e, S), OK);
    /* an output that writes one element twice (stride 0) is refused */
    int64_t zero[2] = {0, 1};
    aclTensor *ob = aclCreateTensor(d22, 2, ACL_FLOAT, zero, 0, ACL_FORMAT_ND, d4, 1, o.dev);
    assert_int_equal(aclnnReluGetWorkspaceSize(tr, ob, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnReluGetWorkspaceSize: out writes each of its "
               "elements along dim 0 (2 of them, stride 0) to one place: the output of an operator "
               "must not overlap itself (CANN requires that data should not overlap).");
    aclDestroyTensor(ob);
    /* an empty output writes nothing twice: ggml's SET_ROWS casts a view of
     * zero rows into a buffer whose outer strides are 0 (hicann/ops-math
     * experimental/math/cast/op_api/aclnn_cast.cpp L143: an empty self
     * plans nothing) */
    int64_t d302[3] = {3, 0, 2}, s302[3] = {0, 0, 1}, none = 0;
    aclTensor *ein = aclCreateTensor(d302, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &none, 1, a.dev);
    ob = aclCreateTensor(d302, 3, ACL_FLOAT16, s302, 0, ACL_FORMAT_ND, &none, 1, o.dev);
    assert_int_equal(aclnnCastGetWorkspaceSize(ein, ACL_FLOAT16, ob, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnCast(NULL, ws, e, S), OK);
    aclDestroyTensor(ob);
    aclDestroyTensor(ein);
    /* an output reaching past its storage: the same Validate as an input's */
    ob = aclCreateTensor(d22, 2, ACL_FLOAT, past, 0, ACL_FORMAT_ND, d4, 1, o.dev);
    assert_int_equal(aclnnReluGetWorkspaceSize(tr, ob, &ws, &e), ACLNN_ERR_INNER_NULLPTR);
    expect_msg("AclNN_Inner_Error(EZ9999)", "aclnnReluGetWorkspaceSize: ViewShape overlap. The out tensor reaches "
               "elements 0 to 4 of a storage of 4 elements.");
    aclDestroyTensor(ob);
    aclDestroyTensor(tr);
    aclDestroyTensor(o22);
    drop(&i4);
    /* launches: a NULL executor; a single-use one run twice; the wrong launch call */
    assert_int_equal(aclnnAdd(NULL, 0, NULL, S), ACLNN_ERR_PARAM_NULLPTR);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "executor is nullptr.");
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, a.t, al, o.t, &ws, &e), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclDestroyAclOpExecutor(e), ACLNN_ERR_INNER); /* consumed already */
    (void)aclGetRecentErrMsg();
    /* still recognised after another plan was made in between */
    aclOpExecutor *stale = e, *e2 = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, a.t, al, o.t, &ws, &e2), OK);
    assert_ptr_not_equal(e2, stale);
    assert_int_equal(aclnnAdd(NULL, 0, stale, S), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnAdd(NULL, 0, e2, S), OK);
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, a.t, al, o.t, &ws, &e), OK);
    assert_int_equal(aclnnMul(NULL, 0, e, S), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    /* executor calls: NULL and unknown (acl_op_api.cpp L476-505) */
    assert_int_equal(aclSetAclOpExecutorRepeatable(NULL), ACLNN_ERR_INNER_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclDestroyAclOpExecutor(NULL), ACLNN_ERR_INNER_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclSetAclOpExecutorRepeatable((aclOpExecutor *)&one), ACLNN_ERR_INNER);
    (void)aclGetRecentErrMsg();
    /* a freed input is refused at launch */
    struct dt gone = make(ACL_FLOAT, d4, 1, NULL);
    assert_int_equal(aclnnAddGetWorkspaceSize(gone.t, a.t, al, o.t, &ws, &e), OK);
    assert_int_equal(aclrtFree(gone.dev), 0);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    aclDestroyTensor(gone.t);
    aclDestroyScalar(al);
    /* the Adds launched above may still run: aclrtFree does not wait for
     * them (the sanitizer's free-while-pending) */
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    drop(&a);
    drop(&b5);
    drop(&h);
    drop(&o);
}

/* A repeatable executor runs again and again, with new addresses bound,
 * until destroyed; it is captured into a graph and replayed on the data of
 * each replay's moment. */
static void test_repeatable_executor_rebound_captured_and_replayed(void **state)
{
    (void)state;
    int64_t d[1] = {8};
    float x[8], y[8], out[8];
    for (int i = 0; i < 8; i++) {
        x[i] = (float)i;
        y[i] = 10.0f * (float)i;
    }
    struct dt tx = make(ACL_FLOAT, d, 1, x), ty = make(ACL_FLOAT, d, 1, y),
              to = make(ACL_FLOAT, d, 1, NULL), t2 = make(ACL_FLOAT, d, 1, NULL);
    float two = 2;
    aclScalar *al = aclCreateScalar(&two, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnAddGetWorkspaceSize(tx.t, ty.t, al, to.t, &ws, &e), OK);
    assert_int_equal(aclSetAclOpExecutorRepeatable(e), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK); /* again */
    get(&to, out);
    for (int i = 0; i < 8; i++)
        assert_float_equal(out[i], x[i] + 2 * y[i], 0);
    /* rebind the output */
    assert_int_equal(aclSetOutputTensorAddr(e, 0, to.t, t2.dev), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK);
    get(&t2, out);
    for (int i = 0; i < 8; i++)
        assert_float_equal(out[i], x[i] + 2 * y[i], 0);
    assert_int_equal(aclSetOutputTensorAddr(e, 0, to.t, to.dev), OK);
    /* capture: recorded, not run; each replay reads the inputs of its moment */
    assert_int_equal(aclrtMemset(to.dev, to.bytes, 0, to.bytes), 0);
    assert_int_equal(aclmdlRICaptureBegin(S, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), 0);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), OK);
    aclmdlRI ri = NULL;
    assert_int_equal(aclmdlRICaptureEnd(S, &ri), 0);
    get(&to, out);
    for (int i = 0; i < 8; i++)
        assert_float_equal(out[i], 0, 0);
    for (int r = 1; r <= 2; r++) {
        for (int i = 0; i < 8; i++)
            x[i] = (float)(r * 100 + i);
        assert_int_equal(aclrtMemcpy(tx.dev, tx.bytes, x, tx.bytes, ACL_MEMCPY_HOST_TO_DEVICE), 0);
        assert_int_equal(aclmdlRIExecuteAsync(ri, S), 0);
        get(&to, out);
        for (int i = 0; i < 8; i++)
            assert_float_equal(out[i], x[i] + 2 * y[i], 0);
    }
    assert_int_equal(aclmdlRIDestroy(ri), 0);
    assert_int_equal(aclDestroyAclOpExecutor(e), OK);
    assert_int_equal(aclnnAdd(NULL, 0, e, S), ACLNN_ERR_PARAM_INVALID); /* destroyed */
    (void)aclGetRecentErrMsg();
    aclDestroyScalar(al);
    struct dt *all[] = {&tx, &ty, &to, &t2};
    for (size_t i = 0; i < 4; i++)
        drop(all[i]);
}

/* An aclnn launch takes the same simulated time on its stream as the aclop
 * call of the same kernel (one roofline, host launch cost included). */
static void test_launch_takes_the_aclop_kernels_time(void **state)
{
    (void)state;
    int64_t d[1] = {1 << 14};
    struct dt a = make(ACL_FLOAT, d, 1, NULL), b = make(ACL_FLOAT, d, 1, NULL),
              o = make(ACL_FLOAT, d, 1, NULL);
    aclrtEvent e0, e1, e2;
    assert_int_equal(aclrtCreateEventWithFlag(&e0, ACL_EVENT_TIME_LINE), 0);
    assert_int_equal(aclrtCreateEventWithFlag(&e1, ACL_EVENT_TIME_LINE), 0);
    assert_int_equal(aclrtCreateEventWithFlag(&e2, ACL_EVENT_TIME_LINE), 0);
    aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 1, d, ACL_FORMAT_ND);
    aclDataBuffer *buf[3] = {aclCreateDataBuffer(a.dev, a.bytes), aclCreateDataBuffer(b.dev, b.bytes),
                             aclCreateDataBuffer(o.dev, o.bytes)};
    aclTensorDesc *in[2] = {td, td};
    float one = 1;
    aclScalar *al = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *ex;
    /* warm: the executor's first aclop call makes its fallback allocator */
    assert_int_equal(aclopExecuteV2("Add", 2, in, buf, 1, &td, &buf[2], NULL, S), 0);
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    /* keep the stream busy, so that neither call waits for the host */
    assert_int_equal(aclopExecuteV2("Add", 2, in, buf, 1, &td, &buf[2], NULL, S), 0);
    assert_int_equal(aclrtRecordEvent(e0, S), 0);
    assert_int_equal(aclopExecuteV2("Add", 2, in, buf, 1, &td, &buf[2], NULL, S), 0);
    assert_int_equal(aclrtRecordEvent(e1, S), 0);
    assert_int_equal(aclnnAddGetWorkspaceSize(a.t, b.t, al, o.t, &ws, &ex), OK);
    assert_int_equal(aclnnAdd(NULL, ws, ex, S), OK);
    assert_int_equal(aclrtRecordEvent(e2, S), 0);
    assert_int_equal(aclrtSynchronizeStream(S), 0);
    float op_ms = 0, nn_ms = 0;
    assert_int_equal(aclrtEventElapsedTime(&op_ms, e0, e1), 0);
    assert_int_equal(aclrtEventElapsedTime(&nn_ms, e1, e2), 0);
    assert_true(op_ms > 0);
    assert_float_equal(nn_ms, op_ms, op_ms * 1e-3);
    aclDestroyScalar(al);
    for (int i = 0; i < 3; i++)
        aclDestroyDataBuffer(buf[i]);
    aclDestroyTensorDesc(td);
    assert_int_equal(aclrtDestroyEvent(e0), 0);
    assert_int_equal(aclrtDestroyEvent(e1), 0);
    assert_int_equal(aclrtDestroyEvent(e2), 0);
    drop(&a);
    drop(&b);
    drop(&o);
}

/* ReduceSum plans RoundUp(elements(out) * 4, 512) and writes its fp32 sums
 * there; Permute moves elements; the fills and the copy. */
static void test_reduce_permute_fill_copy(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d3[1] = {3}, d32[2] = {3, 2}, d13[2] = {1, 3};
    float x[6] = {1, 2, 3, 10, 20, 30}, out[6], acc[3];
    struct dt tx = make(ACL_FLOAT, d23, 2, x), ts = make(ACL_FLOAT, d3, 1, NULL),
              tk = make(ACL_FLOAT, d13, 2, NULL), tp = make(ACL_FLOAT, d32, 2, NULL);
    int64_t axis0[1] = {0}, perm[2] = {1, 0};
    aclIntArray *dim = aclCreateIntArray(axis0, 1), *pm = aclCreateIntArray(perm, 2);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx.t, dim, false, ACL_FLOAT, ts.t, &ws, &e), OK);
    assert_int_equal(ws, 512); /* RoundUp(3 * 4, 512) */
    void *w;
    assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclnnReduceSum(w, ws, e, S), OK);
    get(&ts, out);
    assert_int_equal(aclrtMemcpy(acc, sizeof acc, w, sizeof acc, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    for (int j = 0; j < 3; j++) {
        assert_float_equal(out[j], x[j] + x[3 + j], 0);
        assert_float_equal(acc[j], x[j] + x[3 + j], 0); /* the workspace was written */
    }
    /* keepDim: out is [1, 3]; a [3] out is then refused */
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx.t, dim, true, ACL_FLOAT, tk.t, &ws, &e), OK);
    assert_int_equal(aclnnReduceSum(w, ws, e, S), OK);
    get(&tk, out);
    assert_float_equal(out[2], 33, 0);
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx.t, dim, true, ACL_FLOAT, ts.t, &ws, &e),
                     ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx.t, NULL, true, ACL_FLOAT, tk.t, &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    /* Permute [2,3] -> [3,2] */
    assert_int_equal(aclnnPermuteGetWorkspaceSize(tx.t, pm, tp.t, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnPermute(NULL, ws, e, S), OK);
    get(&tp, out);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            assert_float_equal(out[i * 2 + j], x[j * 3 + i], 0);
    /* InplaceCopy: x into an fp16 tensor of its shape */
    struct dt th = make(ACL_FLOAT16, d23, 2, NULL);
    assert_int_equal(aclnnInplaceCopyGetWorkspaceSize(th.t, tx.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceCopy(NULL, ws, e, S), OK);
    uint16_t h[6];
    get(&th, h);
    for (int i = 0; i < 6; i++)
        assert_float_equal(aclFloat16ToFloat(h[i]), x[i], 0);
    assert_int_equal(aclnnInplaceCopyGetWorkspaceSize(tp.t, tx.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg(); /* [2,3] into [3,2] */
    /* fills */
    float v = -2.5f;
    aclScalar *val = aclCreateScalar(&v, ACL_FLOAT);
    assert_int_equal(aclnnInplaceFillScalarGetWorkspaceSize(tx.t, val, &ws, &e), OK);
    assert_int_equal(aclnnInplaceFillScalar(NULL, ws, e, S), OK);
    get(&tx, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], v, 0);
    assert_int_equal(aclnnInplaceZeroGetWorkspaceSize(tx.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceZero(NULL, ws, e, S), OK);
    get(&tx, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], 0, 0);
    assert_int_equal(aclnnInplaceFillScalarGetWorkspaceSize(tx.t, NULL, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnInplaceZeroGetWorkspaceSize(NULL, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    aclDestroyScalar(val);
    aclDestroyIntArray(dim);
    aclDestroyIntArray(pm);
    assert_int_equal(aclrtFree(w), 0);
    struct dt *all[] = {&tx, &ts, &tk, &tp, &th};
    for (size_t i = 0; i < 5; i++)
        drop(all[i]);
}

/* Gemm: out = alpha * A^T @ B + beta * C in fp16, through the aclblas GEMM kernel. */
static void test_gemm(void **state)
{
    (void)state;
    int64_t da[2] = {3, 2}, db[2] = {3, 4}, dc[2] = {2, 4};
    float a[6] = {1, -1, 2, 0.5f, -2, 3}, b[12], c[8];
    for (int i = 0; i < 12; i++)
        b[i] = (float)(i % 4) - 1;
    for (int i = 0; i < 8; i++)
        c[i] = (float)i;
    uint16_t ha[6], hb[12], hc[8], ho[8];
    for (int i = 0; i < 6; i++)
        ha[i] = aclFloatToFloat16(a[i]);
    for (int i = 0; i < 12; i++)
        hb[i] = aclFloatToFloat16(b[i]);
    for (int i = 0; i < 8; i++)
        hc[i] = aclFloatToFloat16(c[i]);
    struct dt ta = make(ACL_FLOAT16, da, 2, ha), tb = make(ACL_FLOAT16, db, 2, hb),
              tc = make(ACL_FLOAT16, dc, 2, hc), to = make(ACL_FLOAT16, dc, 2, NULL);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnGemmGetWorkspaceSize(ta.t, tb.t, tc.t, 0.5f, 2.0f, 1, 0, to.t, 0, &ws, &e), OK);
    assert_int_equal(ws, 512); /* RoundUp(2*4*4, 512) */
    void *w;
    assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclnnGemm(w, ws, e, S), OK);
    get(&to, ho);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += (double)a[k * 2 + i] * b[k * 4 + j];
            float want = aclFloat16ToFloat(aclFloatToFloat16((float)(0.5 * s + 2.0 * c[i * 4 + j])));
            assert_float_equal(aclFloat16ToFloat(ho[i * 4 + j]), want, 0);
        }
    /* fp32 operands are not the GEMM kernel's */
    struct dt f = make(ACL_FLOAT, dc, 2, NULL);
    assert_int_equal(aclnnGemmGetWorkspaceSize(f.t, f.t, f.t, 1, 0, 0, 0, f.t, 0, &ws, &e),
                     ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnGemmGetWorkspaceSize(ta.t, NULL, tc.t, 1, 0, 0, 0, to.t, 0, &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtFree(w), 0);
    struct dt *all[] = {&ta, &tb, &tc, &to, &f};
    for (size_t i = 0; i < 5; i++)
        drop(all[i]);
}

/* Hostile shapes: aclCreateTensor computes no stride that overflows (CANN
 * makes the tensor without checks, acl_op_api.cpp L34-44; its contiguous
 * strides are products of dims, shape_utils.cpp L70-76), and a launch
 * planned on such a tensor is refused, never run over wrapped sizes. */
static void test_hostile_shapes_are_refused_not_wrapped(void **state)
{
    (void)state;
    static int64_t huge[3] = {INT64_MAX, INT64_MAX, 4}, wide[2] = {INT64_C(1) << 31,
                                                                INT64_C(1) << 31};
    static int64_t big_st[2] = {INT64_C(1) << 40, 1}, big[2] = {INT64_C(1) << 40,
                                                              INT64_C(1) << 40};
    float x = 0;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclTensor *t[3] = {aclCreateTensor(huge, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, huge, 3, &x),
                       aclCreateTensor(wide, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, wide, 2, &x),
                       aclCreateTensor(big, 2, ACL_FLOAT, big_st, 0, ACL_FORMAT_ND, big, 2, &x)};
    for (int i = 0; i < 3; i++) {
        assert_non_null(t[i]);
        int64_t *st = NULL;
        uint64_t n = 0;
        assert_int_equal(aclGetViewStrides(t[i], &st, &n), OK);
        assert_int_equal(st[n - 1], 1); /* the innermost */
        free(st);
        assert_int_equal(aclnnReluGetWorkspaceSize(t[i], t[i], &ws, &e), ACLNN_ERR_PARAM_INVALID);
        (void)aclGetRecentErrMsg();
        assert_null(e);
        aclDestroyTensor(t[i]);
    }
}

struct racer {
    aclOpExecutor *e;
    pthread_barrier_t *go;
    aclnnStatus rc;
};

static void *launch_it(void *arg)
{
    struct racer *r = arg;
    pthread_barrier_wait(r->go);
    r->rc = aclnnInplaceAdd(NULL, 0, r->e, S);
    if (r->rc != OK)
        (void)aclGetRecentErrMsg();
    return NULL;
}

/* A single-use executor launched by two threads at once runs once: one
 * launch takes it, the other finds it consumed (CANN's executor is
 * destroyed by its launch, op_executor.cpp L958-994). */
static void test_single_use_executor_races_run_once(void **state)
{
    (void)state;
    SKIP_UNDER_VALGRIND();
    int64_t d[1] = {4};
    float one[4] = {1, 1, 1, 1}, two[4] = {2, 2, 2, 2}, got[4];
    struct dt a = make(ACL_FLOAT, d, 1, one), b = make(ACL_FLOAT, d, 1, two);
    float v = 1;
    aclScalar *al = aclCreateScalar(&v, ACL_FLOAT);
    pthread_barrier_t go;
    assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
    enum { ROUNDS = 200 };
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t ws = 0;
        aclOpExecutor *e = NULL;
        assert_int_equal(aclnnInplaceAddGetWorkspaceSize(a.t, b.t, al, &ws, &e), OK);
        struct racer r1 = {e, &go, -1}, r2 = {e, &go, -1};
        pthread_t t1, t2;
        assert_int_equal(pthread_create(&t1, NULL, launch_it, &r1), 0);
        assert_int_equal(pthread_create(&t2, NULL, launch_it, &r2), 0);
        pthread_join(t1, NULL);
        pthread_join(t2, NULL);
        assert_true((r1.rc == OK) != (r2.rc == OK)); /* exactly one ran */
        assert_int_equal(r1.rc == OK ? r2.rc : r1.rc, ACLNN_ERR_PARAM_INVALID);
    }
    get(&a, got);
    assert_true(got[0] == 1.0f + 2.0f * ROUNDS); /* each round added b once */
    pthread_barrier_destroy(&go);
    aclDestroyScalar(al);
    drop(&a);
    drop(&b);
}

static int setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&S) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(S);
    aclrtResetDevice(0);
    aclFinalize();
    return aclsim_alloc_check_reports(NULL) == 0 ? 0 : -1; /* every test is clean */
}

static int fresh(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    return 0;
}

/* A repeatable executor is the program's to destroy (hicann/opbase
 * docs/en/api/nnopbase/aclnn/aclDestroyAclOpExecutor.md:8: "managed by
 * users ... needs to be explicitly called"; aclSetAclOpExecutorRepeatable.md
 * :38): one never destroyed is in the leak report at aclFinalize; one
 * destroyed, and a single-use one its launch consumed, are not. */
static void test_repeatable_executor_never_destroyed_is_a_leak(void **state)
{
    char path[] = "/tmp/aclsim-aclnn-leak-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(teardown(state), 0);
    setenv("ACLSIM_LEAK_CHECK", "warn", 1);
    setenv("ACLSIM_REPORT", path, 1);
    assert_int_equal(setup(state), 0);
    int64_t d[1] = {8};
    float x[8] = {0};
    struct dt tx = make(ACL_FLOAT, d, 1, x), to = make(ACL_FLOAT, d, 1, NULL);
    float one = 1;
    aclScalar *al = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *kept, *destroyed, *single;
    assert_int_equal(aclnnAddGetWorkspaceSize(tx.t, tx.t, al, to.t, &ws, &kept), OK);
    assert_int_equal(aclSetAclOpExecutorRepeatable(kept), OK);
    assert_int_equal(aclnnAdd(NULL, 0, kept, S), OK);
    assert_int_equal(aclnnAddGetWorkspaceSize(tx.t, tx.t, al, to.t, &ws, &destroyed), OK);
    assert_int_equal(aclSetAclOpExecutorRepeatable(destroyed), OK);
    assert_int_equal(aclnnAdd(NULL, 0, destroyed, S), OK);
    assert_int_equal(aclDestroyAclOpExecutor(destroyed), OK);
    assert_int_equal(aclnnAddGetWorkspaceSize(tx.t, tx.t, al, to.t, &ws, &single), OK);
    assert_int_equal(aclnnAdd(NULL, 0, single, S), OK); /* consumed by its launch */
    assert_int_equal(aclrtSynchronizeStream(S), ACL_SUCCESS);
    aclDestroyScalar(al);
    drop(&tx);
    drop(&to);
    assert_int_equal(teardown(state), 0); /* aclFinalize: the report */
    unsetenv("ACLSIM_LEAK_CHECK");
    unsetenv("ACLSIM_REPORT");
    static char text[1 << 16];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    unlink(path);
    char want[160];
    snprintf(want, sizeof want, "repeatable aclnn executor %p (for aclnnAdd) never destroyed "
             "(aclSetAclOpExecutorRepeatable without aclDestroyAclOpExecutor)", (void *)kept);
    if (!strstr(text, want))
        fail_msg("the report\n%s\nlacks\n%s", text, want);
    const char *at = strstr(text, "aclnn executor\"");
    assert_non_null(at);
    assert_null(strstr(at + 1, "aclnn executor\"")); /* that one alone */
    assert_int_equal(setup(state), 0);
    assert_int_equal(aclDestroyAclOpExecutor(kept), OK);
}


int main(void)
{
    /* On hw=ascend the calls are the real libnnopbase's and libopapi's: the
     * objects and Add/Sub (up to the device's rounding) are pinned there too;
     * the rest pins aclsim's kernels, workspace model and refusals. */
    const struct CMUnitTest any_backend[] = {
        cmocka_unit_test_setup(test_tensor_getters_and_their_codes, fresh),
        cmocka_unit_test_setup(test_scalars_arrays_and_lists, fresh),
        cmocka_unit_test_setup(test_add_sub_with_alpha_broadcast, fresh),
    };
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") != 0)
        return cmocka_run_group_tests_name("aclnn", any_backend, setup, teardown);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_tensor_getters_and_their_codes, fresh),
        cmocka_unit_test_setup(test_scalars_arrays_and_lists, fresh),
        cmocka_unit_test_setup(test_add_sub_with_alpha_broadcast, fresh),
        cmocka_unit_test_setup(test_mul_div_and_in_place_mul, fresh),
        cmocka_unit_test_setup(test_activations_and_cast, fresh),
        cmocka_unit_test_setup(test_matmul_workspace_planned_checked_and_written, fresh),
        cmocka_unit_test_setup(test_reduce_permute_fill_copy, fresh),
        cmocka_unit_test_setup(test_gemm, fresh),
        cmocka_unit_test_setup(test_bad_input_codes, fresh),
        cmocka_unit_test_setup(test_repeatable_executor_rebound_captured_and_replayed, fresh),
        cmocka_unit_test_setup(test_launch_takes_the_aclop_kernels_time, fresh),
        cmocka_unit_test_setup(test_repeatable_executor_never_destroyed_is_a_leak, fresh),
        cmocka_unit_test_setup(test_hostile_shapes_are_refused_not_wrapped, fresh),
        cmocka_unit_test_setup(test_single_use_executor_races_run_once, fresh),
    };
    return cmocka_run_group_tests_name("aclnn", tests, setup, teardown);
}
