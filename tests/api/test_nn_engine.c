/*
 * test_nn_engine.c - the aclnn operators over the one engine: every
 * computed operator against a host reference worked out here, on views
 * (transposed, permuted and broadcast inputs, strided outputs whose gaps
 * must stay untouched, in place on a view), with CANN's type promotion,
 * scalar operands and alphas, its Cast rounding and saturation, 0-d
 * tensors and the 8-dimension limit; the refusals with CANN's codes and
 * texts; the not-yet-computed operators answering 561003 with a message
 * that names them.
 *
 * Sources the expectations come from (hicann mirrors): opbase
 * include/nnopbase/opdev/data_type_utils.h (PromoteType's table L178-260,
 * CanCast L267-283); ops-math math/add/op_api/aclnn_add.cpp (CheckPromoteType
 * L192-240: the alpha's cast), math/mul/op_api/aclnn_mul.cpp
 * (InferTensorScalarDtype L203-232), math/div/op_api/aclnn_div.cpp
 * (CompatibleInferDivDtype L173-186), math/cast/op_kernel/arch35/
 * cast_struct.h (the CAST_POLICY_DEFINE lines: RINT to narrower floats,
 * TRUNC to integers, the MIRCRO_INOUT pack between integers, DST_BOOL),
 * cast_impl.h (SatMode::SAT), common/inc/external/aclnn_kernels/common/
 * op_error_check.h (texts and codes of OP_CHECK_*), opbase
 * src/nnopbase/composite_op/utils/tensor_view_utils.cpp (Validate).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_sub.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "aclnnop/aclnn_zero.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_elu.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_hardsigmoid.h"
#include "aclnnop/aclnn_hardswish.h"
#include "aclnnop/aclnn_leaky_relu.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_softplus.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "aclnnop/aclnn_threshold.h"
#include "nnhost.h"

/* ---- Two tensors ---- */

typedef aclnnStatus (*bin_plan)(const aclTensor *, const aclTensor *, aclTensor *, uint64_t *,
                                aclOpExecutor **);
typedef aclnnStatus (*alpha_plan)(const aclTensor *, const aclTensor *, const aclScalar *,
                                  aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*run_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct bin_ref {
    const struct ht *a, *b, *o;
    double alpha;
    aclDataType calc; /* the promoted type: each step's result is one of its values */
    char op;          /* + - * / */
};

static double bin_want(void *ctx, int64_t k)
{
    const struct bin_ref *r = ctx;
    double a = as(r->calc, r->a->v[at(r->a, r->o, k)]), b = as(r->calc, r->b->v[at(r->b, r->o, k)]);
    if (r->op == '+' || r->op == '-')
        b = as(r->calc, r->alpha * b);
    double v = r->op == '+' ? a + b : r->op == '-' ? a - b : r->op == '*' ? a * b : a / b;
    return as(r->o->dt, as(r->calc, v));
}

/* Run plan/run on (a, b, alpha, o) and check o against the reference. */
static void check_alpha_op(alpha_plan plan, run_fn run, char op, struct ht *a, struct ht *b,
                           double alpha, aclDataType alpha_type, struct ht *o, aclDataType calc)
{
    char raw[8];
    enc(alpha_type, raw, alpha);
    aclScalar *al = aclCreateScalar(raw, alpha_type);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(plan(a->t, b->t, al, o->t, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(run(NULL, 0, e, S), OK);
    struct bin_ref r = {a, b, o, alpha, calc, op};
    expect_out(o, bin_want, &r, 0);
    aclDestroyScalar(al);
}

static void check_bin_op(bin_plan plan, run_fn run, char op, struct ht *a, struct ht *b,
                         struct ht *o, aclDataType calc)
{
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(plan(a->t, b->t, o->t, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(run(NULL, 0, e, S), OK);
    struct bin_ref r = {a, b, o, 1, calc, op};
    expect_out(o, bin_want, &r, 0);
}

/* A transposed self, an other broadcast along dim 0, an output with gaps
 * (every other element of a strided storage, starting at 1). */
static void test_binary_ops_on_views(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, tr[2] = {1, 3}, d4[1] = {4}, gap[2] = {8, 2};
    struct ht a = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp);     /* a [4,3] storage, transposed */
    struct ht b = mk(ACL_FLOAT, 1, d4, NULL, 0, 4, positive);  /* broadcast to [3,4] */
    struct ht o = mk(ACL_FLOAT, 2, d34, gap, 1, 24, sevens);   /* strided, gaps of 7 */
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &a, &b, 1.5, ACL_FLOAT, &o, ACL_FLOAT);
    check_alpha_op(aclnnSubGetWorkspaceSize, aclnnSub, '-', &a, &b, 2, ACL_FLOAT, &o, ACL_FLOAT);
    check_bin_op(aclnnMulGetWorkspaceSize, aclnnMul, '*', &a, &b, &o, ACL_FLOAT);
    check_bin_op(aclnnDivGetWorkspaceSize, aclnnDiv, '/', &a, &b, &o, ACL_FLOAT);
    /* a 3-D permuted self ([2,3,4] over a [4,2,3] storage) and an other
     * broadcast along its middle dim */
    int64_t d234[3] = {2, 3, 4}, perm[3] = {3, 1, 6}, d214[3] = {2, 1, 4};
    struct ht p = mk(ACL_FLOAT16, 3, d234, perm, 0, 24, ramp);
    struct ht q = mk(ACL_FLOAT16, 3, d214, NULL, 0, 8, positive);
    struct ht po = mk(ACL_FLOAT16, 3, d234, NULL, 0, 24, sevens);
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &p, &q, 1, ACL_FLOAT, &po,
                   ACL_FLOAT16);
    check_bin_op(aclnnMulGetWorkspaceSize, aclnnMul, '*', &p, &q, &po, ACL_FLOAT16);
    struct ht *all[] = {&a, &b, &o, &p, &q, &po};
    for (size_t i = 0; i < 6; i++)
        drop(all[i]);
}

/* In place on a view: InplaceAdd into every other column of a matrix, the
 * other columns untouched; InplaceMul and InplaceDiv of a view by a
 * broadcast row; an Add whose output is its input (ggml's inplace ops). */
static void test_in_place_on_views(void **state)
{
    (void)state;
    int64_t d32[2] = {3, 2}, cols[2] = {4, 2}, d2[1] = {2};
    struct ht s = mk(ACL_FLOAT, 2, d32, cols, 1, 12, ramp); /* columns 1 and 3 of a 3x4 */
    struct ht b = mk(ACL_FLOAT, 1, d2, NULL, 0, 2, positive);
    float two = 2;
    aclScalar *al = aclCreateScalar(&two, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    double before[12];
    memcpy(before, s.v, sizeof before);
    assert_int_equal(aclnnInplaceAddGetWorkspaceSize(s.t, b.t, al, &ws, &e), OK);
    assert_int_equal(aclnnInplaceAdd(NULL, ws, e, S), OK);
    struct bin_ref r = {&s, &b, &s, 2, ACL_FLOAT, '+'};
    expect_out(&s, bin_want, &r, 0); /* s.v still holds the values before */
    double now[12];
    fetch(&s, now);
    memcpy(s.v, now, sizeof now);
    assert_int_equal(aclnnInplaceMulGetWorkspaceSize(s.t, b.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceMul(NULL, ws, e, S), OK);
    r.op = '*';
    expect_out(&s, bin_want, &r, 0);
    fetch(&s, now);
    memcpy(s.v, now, sizeof now);
    assert_int_equal(aclnnInplaceDivGetWorkspaceSize(s.t, b.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceDiv(NULL, ws, e, S), OK);
    r.op = '/';
    expect_out(&s, bin_want, &r, 0);
    fetch(&s, now);
    memcpy(s.v, now, sizeof now);
    assert_int_equal(aclnnInplaceSubGetWorkspaceSize(s.t, b.t, al, &ws, &e), OK);
    assert_int_equal(aclnnInplaceSub(NULL, ws, e, S), OK);
    r.op = '-';
    expect_out(&s, bin_want, &r, 0);
    for (int i = 0; i < 12; i++) /* the columns not in the view: as made */
        if (i % 4 == 0 || i % 4 == 2)
            assert_true(now[i] == before[i]);
    /* an input that is also the output, broadcast against itself: b + b[0]
     * read before anything is written */
    int64_t d1[1] = {1}, z[1] = {0};
    aclTensor *first = aclCreateTensor(d1, 1, ACL_FLOAT, z, 0, ACL_FORMAT_ND, d2, 1, b.dev);
    assert_int_equal(aclnnAddGetWorkspaceSize(b.t, first, al, b.t, &ws, &e), OK);
    assert_int_equal(aclnnAdd(NULL, ws, e, S), OK);
    double bv[2];
    fetch(&b, bv);
    assert_true(bv[0] == b.v[0] + 2 * b.v[0] && bv[1] == b.v[1] + 2 * b.v[0]);
    aclDestroyTensor(first);
    aclDestroyScalar(al);
    drop(&s);
    drop(&b);
}

/* CANN's promotion: float16 + float32 in float32; int32 * float32 in
 * float32; int32 + int32 with an int alpha in int32; bool + bool in bool;
 * int8 + uint8 in int16; int32 / int32 true division; bfloat16 + float16
 * in float32 (data_type_utils.h's table). An alpha that does not cast to
 * the promoted type and a result that does not cast to out are 161002
 * (aclnn_add.cpp CheckPromoteType L200-246, aclnn_sub.cpp L194-230). */
static void test_promotion(void **state)
{
    (void)state;
    int64_t d6[1] = {6};
    struct ht h = mk(ACL_FLOAT16, 1, d6, NULL, 0, 6, ramp), f = mk(ACL_FLOAT, 1, d6, NULL, 0, 6, positive);
    struct ht i = mk(ACL_INT32, 1, d6, NULL, 0, 6, ints), j = mk(ACL_INT32, 1, d6, NULL, 0, 6, positive);
    struct ht of = mk(ACL_FLOAT, 1, d6, NULL, 0, 6, sevens), oi = mk(ACL_INT32, 1, d6, NULL, 0, 6, sevens);
    struct ht bo = mk(ACL_BOOL, 1, d6, NULL, 0, 6, positive), ob = mk(ACL_BOOL, 1, d6, NULL, 0, 6, sevens);
    struct ht s8 = mk(ACL_INT8, 1, d6, NULL, 0, 6, ints), u8 = mk(ACL_UINT8, 1, d6, NULL, 0, 6, positive);
    struct ht o16 = mk(ACL_INT16, 1, d6, NULL, 0, 6, sevens), bf = mk(ACL_BF16, 1, d6, NULL, 0, 6, ramp);
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &h, &f, 1, ACL_FLOAT, &of, ACL_FLOAT);
    check_bin_op(aclnnMulGetWorkspaceSize, aclnnMul, '*', &i, &f, &of, ACL_FLOAT);
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &i, &j, 3, ACL_INT32, &oi, ACL_INT32);
    check_alpha_op(aclnnSubGetWorkspaceSize, aclnnSub, '-', &i, &j, 3, ACL_INT64, &of, ACL_INT32);
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &bo, &bo, 1, ACL_BOOL, &ob, ACL_BOOL);
    check_bin_op(aclnnMulGetWorkspaceSize, aclnnMul, '*', &s8, &u8, &o16, ACL_INT16);
    check_bin_op(aclnnDivGetWorkspaceSize, aclnnDiv, '/', &i, &j, &of, ACL_FLOAT);
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &bf, &h, 1, ACL_FLOAT, &of, ACL_FLOAT);
    /* refusals: a float alpha for an int32 sum; a float result into int32 */
    float half = 0.5f;
    aclScalar *al = aclCreateScalar(&half, ACL_FLOAT);
    uint64_t ws = 9;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(i.t, j.t, al, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnAddGetWorkspaceSize: Alpha dtype DT_FLOAT "
               "can't be cast to the promote dtype DT_INT32.");
    assert_int_equal(aclnnAddGetWorkspaceSize(h.t, f.t, al, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnAddGetWorkspaceSize: Promote dtype DT_FLOAT "
               "can't be cast to the desired output type DT_INT32.");
    /* Sub says both in OP_CHECK_RESULT_DTYPE_CAST_FAILED's words (aclnn_sub.cpp L213, L228) */
    assert_int_equal(aclnnSubGetWorkspaceSize(i.t, j.t, al, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnSubGetWorkspaceSize: Result type DT_FLOAT "
               "can't be cast to the desired output type DT_INT32.");
    assert_int_equal(aclnnSubGetWorkspaceSize(h.t, f.t, al, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnSubGetWorkspaceSize: Result type DT_FLOAT "
               "can't be cast to the desired output type DT_INT32.");
    /* a bool sum takes an integral alpha only */
    assert_int_equal(aclnnAddGetWorkspaceSize(bo.t, bo.t, al, ob.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnAddGetWorkspaceSize: Alpha dtype DT_FLOAT "
               "can't be cast to the promote dtype DT_BOOL.");
    assert_int_equal(ws, 9);
    assert_null(e);
    aclDestroyScalar(al);
    struct ht *all[] = {&h, &f, &i, &j, &of, &oi, &bo, &ob, &s8, &u8, &o16, &bf};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        drop(all[k]);
}

/* ---- A tensor and a scalar ---- */

struct scal_ref {
    const struct ht *a, *o;
    double s, alpha;
    aclDataType calc;
    char op;
};

static double scal_want(void *ctx, int64_t k)
{
    const struct scal_ref *r = ctx;
    double a = as(r->calc, r->a->v[at(r->a, r->o, k)]), b = as(r->calc, r->s);
    if (r->op == '+' || r->op == '-')
        b = as(r->calc, r->alpha * b);
    double v = r->op == '+' ? a + b : r->op == '-' ? a - b : r->op == '*' ? a * b : a / b;
    return as(r->o->dt, as(r->calc, v));
}

/* A scalar follows the tensor's category: a float16 tensor with a float32
 * scalar computes in float16 (aclnn_add.cpp PromoteTypeScalar), an int32
 * tensor with a float scalar in float32, an int32 Divs in float32. */
static void test_scalar_operands(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, tr[2] = {1, 2};
    struct ht h = mk(ACL_FLOAT16, 2, d23, tr, 0, 6, ramp), oh = mk(ACL_FLOAT16, 2, d23, NULL, 0, 6, sevens);
    struct ht i = mk(ACL_INT32, 2, d23, NULL, 0, 6, ints), of = mk(ACL_FLOAT, 2, d23, NULL, 0, 6, sevens);
    float third = 1.0f / 3, two = 2;
    aclScalar *s = aclCreateScalar(&third, ACL_FLOAT), *al = aclCreateScalar(&two, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnAddsGetWorkspaceSize(h.t, s, al, oh.t, &ws, &e), OK);
    assert_int_equal(aclnnAdds(NULL, ws, e, S), OK);
    struct scal_ref r = {&h, &oh, third, 2, ACL_FLOAT16, '+'};
    expect_out(&oh, scal_want, &r, 0);
    assert_int_equal(aclnnSubsGetWorkspaceSize(h.t, s, al, oh.t, &ws, &e), OK);
    assert_int_equal(aclnnSubs(NULL, ws, e, S), OK);
    r.op = '-';
    expect_out(&oh, scal_want, &r, 0);
    assert_int_equal(aclnnMulsGetWorkspaceSize(i.t, s, of.t, &ws, &e), OK);
    assert_int_equal(aclnnMuls(NULL, ws, e, S), OK);
    r = (struct scal_ref){&i, &of, third, 1, ACL_FLOAT, '*'};
    expect_out(&of, scal_want, &r, 0);
    int32_t four = 4;
    aclScalar *s4 = aclCreateScalar(&four, ACL_INT32);
    assert_int_equal(aclnnDivsGetWorkspaceSize(i.t, s4, of.t, &ws, &e), OK);
    assert_int_equal(aclnnDivs(NULL, ws, e, S), OK);
    r = (struct scal_ref){&i, &of, 4, 1, ACL_FLOAT, '/'};
    expect_out(&of, scal_want, &r, 0);
    /* in place, on the transposed view */
    assert_int_equal(aclnnInplaceMulsGetWorkspaceSize(h.t, s, &ws, &e), OK);
    assert_int_equal(aclnnInplaceMuls(NULL, ws, e, S), OK);
    r = (struct scal_ref){&h, &h, third, 1, ACL_FLOAT16, '*'};
    expect_out(&h, scal_want, &r, 0);
    aclDestroyScalar(s);
    aclDestroyScalar(s4);
    aclDestroyScalar(al);
    struct ht *all[] = {&h, &oh, &i, &of};
    for (size_t k = 0; k < 4; k++)
        drop(all[k]);
}

/* ---- One tensor ---- */

typedef aclnnStatus (*un_plan)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);

struct un_ref {
    const struct ht *a, *o;
    double (*f)(double);
    aclDataType calc;
};

static double un_want(void *ctx, int64_t k)
{
    const struct un_ref *r = ctx;
    return as(r->o->dt, as(r->calc, r->f(as(r->calc, r->a->v[at(r->a, r->o, k)]))));
}

static double relu(double x)
{
    return x > 0 ? x : 0;
}

static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

static double neg(double x)
{
    return -x;
}

/* CANN's Gelu, the tanh approximation (ops-nn activation/gelu/docs/aclnnGelu.md) */
static double gelu(double x)
{
    return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

static void check_unary(un_plan plan, run_fn run, double (*f)(double), struct ht *a, struct ht *o,
                        aclDataType calc, double tol)
{
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(plan(a->t, o->t, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(run(NULL, 0, e, S), OK);
    struct un_ref r = {a, o, f, calc};
    expect_out(o, un_want, &r, tol);
}

/* Each activation over a transposed input into a strided output; integer
 * inputs of a floating function compute in float32 (aclnn_sqrt.cpp L72-74,
 * aclnn_exp.cpp L62-64). */
static void test_unary_ops_on_views(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, tr[2] = {1, 3}, gap[2] = {8, 2};
    struct ht a = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp), o = mk(ACL_FLOAT, 2, d34, gap, 1, 24, sevens);
    struct ht p = mk(ACL_FLOAT, 2, d34, tr, 0, 12, positive);
    check_unary(aclnnAbsGetWorkspaceSize, aclnnAbs, fabs, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnNegGetWorkspaceSize, aclnnNeg, neg, &a, &o, ACL_FLOAT, 0);
    check_unary((un_plan)aclnnReluGetWorkspaceSize, aclnnRelu, relu, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnSigmoidGetWorkspaceSize, aclnnSigmoid, sigmoid, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnTanhGetWorkspaceSize, aclnnTanh, tanh, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnGeluGetWorkspaceSize, aclnnGelu, gelu, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnExpGetWorkspaceSize, aclnnExp, exp, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnSqrtGetWorkspaceSize, aclnnSqrt, sqrt, &p, &o, ACL_FLOAT, 0);
    /* integer inputs of floating functions: float32 */
    struct ht i = mk(ACL_INT32, 2, d34, tr, 0, 12, positive), l = mk(ACL_INT64, 2, d34, NULL, 0, 12, ints);
    check_unary(aclnnSqrtGetWorkspaceSize, aclnnSqrt, sqrt, &i, &o, ACL_FLOAT, 0);
    check_unary(aclnnExpGetWorkspaceSize, aclnnExp, exp, &l, &o, ACL_FLOAT, 0);
    check_unary(aclnnTanhGetWorkspaceSize, aclnnTanh, tanh, &i, &o, ACL_FLOAT, 0);
    /* integers: Abs and Neg and Relu keep the type */
    struct ht oi = mk(ACL_INT64, 2, d34, NULL, 0, 12, sevens);
    check_unary(aclnnAbsGetWorkspaceSize, aclnnAbs, fabs, &l, &oi, ACL_INT64, 0);
    check_unary(aclnnNegGetWorkspaceSize, aclnnNeg, neg, &l, &oi, ACL_INT64, 0);
    check_unary((un_plan)aclnnReluGetWorkspaceSize, aclnnRelu, relu, &l, &oi, ACL_INT64, 0);
    /* float16 through float16: each result one of its values */
    struct ht h = mk(ACL_FLOAT16, 2, d34, tr, 0, 12, ramp), oh = mk(ACL_FLOAT16, 2, d34, gap, 1, 24, sevens);
    check_unary(aclnnGeluGetWorkspaceSize, aclnnGelu, gelu, &h, &oh, ACL_FLOAT16, 0);
    check_unary(aclnnExpGetWorkspaceSize, aclnnExp, exp, &h, &oh, ACL_FLOAT16, 0);
    /* in place on a strided view */
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnInplaceExpGetWorkspaceSize(o.t, &ws, &e), OK);
    double before[24];
    fetch(&o, before);
    memcpy(o.v, before, sizeof before);
    assert_int_equal(aclnnInplaceExp(NULL, ws, e, S), OK);
    struct un_ref r = {&o, &o, exp, ACL_FLOAT};
    expect_out(&o, un_want, &r, 0);
    /* out of another type than Relu's self: "Tensor out expected dtype is ..." */
    assert_int_equal(aclnnReluGetWorkspaceSize(a.t, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnReluGetWorkspaceSize: Tensor out expected "
               "dtype is DT_FLOAT but found DT_INT64.");
    struct ht *all[] = {&a, &o, &p, &i, &l, &oi, &h, &oh};
    for (size_t k = 0; k < 8; k++)
        drop(all[k]);
}

/* ---- Casts ---- */

struct cast_case {
    aclDataType from, to;
    double in, want;
};

/* CANN's Cast (cast_struct.h): to a narrower float round to nearest even;
 * float to integer truncates toward zero and saturates, NaN is 0; integer
 * to narrower integer keeps the low bits; anything to bool is != 0. */
static void test_cast_rounding_and_saturation(void **state)
{
    (void)state;
    const struct cast_case c[] = {
        {ACL_FLOAT, ACL_INT8, 300.7, 127},       {ACL_FLOAT, ACL_INT8, -300, -128},
        {ACL_FLOAT, ACL_INT8, -2.9, -2},         {ACL_FLOAT, ACL_UINT8, -5.5, 0},
        {ACL_FLOAT, ACL_UINT8, 255.9, 255},      {ACL_FLOAT, ACL_INT16, 40000, 32767},
        {ACL_FLOAT, ACL_INT32, 3e9, 2147483647}, {ACL_FLOAT, ACL_INT32, NAN, 0},
        {ACL_FLOAT, ACL_INT64, -2.5, -2},        {ACL_DOUBLE, ACL_INT32, -7.99, -7},
        {ACL_FLOAT16, ACL_INT8, 1000, 127},      {ACL_BF16, ACL_INT16, -40960, -32768},
        {ACL_FLOAT, ACL_FLOAT16, 1 + 1.0 / 2048, 1},          /* a tie: to even */
        {ACL_FLOAT, ACL_FLOAT16, 1 + 3.0 / 2048, 1 + 4.0 / 2048}, /* a tie: to even */
        {ACL_FLOAT, ACL_FLOAT16, 70000, INFINITY},
        {ACL_FLOAT, ACL_BF16, 1 + 1.0 / 256, 1}, {ACL_FLOAT, ACL_BF16, 1 + 3.0 / 256, 1 + 4.0 / 256},
        {ACL_DOUBLE, ACL_FLOAT, 0.1, (float)0.1},
        {ACL_INT32, ACL_INT8, 300, 44},          {ACL_INT32, ACL_UINT8, -1, 255},
        {ACL_INT64, ACL_INT32, 4294967298.0, 2}, {ACL_INT16, ACL_INT8, -129, 127},
        {ACL_INT32, ACL_FLOAT16, 2049, 2048},    {ACL_INT64, ACL_FLOAT, 16777217, 16777216},
        {ACL_INT16, ACL_FLOAT, -32768, -32768},  {ACL_UINT8, ACL_INT8, 200, -56},
        {ACL_FLOAT, ACL_BOOL, 0.25, 1},          {ACL_INT32, ACL_BOOL, 0, 0},
        {ACL_BOOL, ACL_FLOAT, 1, 1},             {ACL_BOOL, ACL_INT64, 1, 1},
        {ACL_FLOAT16, ACL_BF16, 3.140625, 3.140625}, {ACL_BF16, ACL_FLOAT16, 3.140625, 3.140625},
    };
    int64_t d1[1] = {1};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        /* the input written as its own bytes: the test's values, not a cast */
        char raw[8] = {0};
        if (c[k].from == ACL_INT32)
            *(int32_t *)raw = (int32_t)(int64_t)c[k].in;
        else if (c[k].from == ACL_INT64)
            *(int64_t *)raw = (int64_t)c[k].in;
        else if (c[k].from == ACL_INT16)
            *(int16_t *)raw = (int16_t)(int32_t)c[k].in;
        else if (c[k].from == ACL_UINT8)
            *(uint8_t *)raw = (uint8_t)(int32_t)c[k].in;
        else
            enc(c[k].from, raw, c[k].in);
        void *din, *dout;
        size_t ei = aclDataTypeSize(c[k].from), eo = aclDataTypeSize(c[k].to);
        assert_int_equal(aclrtMalloc(&din, 8, ACL_MEM_MALLOC_HUGE_FIRST), 0);
        assert_int_equal(aclrtMalloc(&dout, 8, ACL_MEM_MALLOC_HUGE_FIRST), 0);
        assert_int_equal(aclrtMemcpy(din, ei, raw, ei, ACL_MEMCPY_HOST_TO_DEVICE), 0);
        aclTensor *ti = aclCreateTensor(d1, 1, c[k].from, NULL, 0, ACL_FORMAT_ND, d1, 1, din);
        aclTensor *to = aclCreateTensor(d1, 1, c[k].to, NULL, 0, ACL_FORMAT_ND, d1, 1, dout);
        uint64_t ws;
        aclOpExecutor *e;
        assert_int_equal(aclnnCastGetWorkspaceSize(ti, c[k].to, to, &ws, &e), OK);
        assert_int_equal(aclnnCast(NULL, ws, e, S), OK);
        assert_int_equal(aclrtSynchronizeStream(S), 0);
        char got[8];
        assert_int_equal(aclrtMemcpy(got, eo, dout, eo, ACL_MEMCPY_DEVICE_TO_HOST), 0);
        double g = dec(c[k].to, got);
        if (!(g == c[k].want || (isinf(g) && isinf(c[k].want))))
            fail_msg("Cast %s %.9g from type %d to %d: got %.9g, want %.9g", "of", c[k].in,
                     (int)c[k].from, (int)c[k].to, g, c[k].want);
        aclDestroyTensor(ti);
        aclDestroyTensor(to);
        assert_int_equal(aclrtFree(din), 0);
        assert_int_equal(aclrtFree(dout), 0);
    }
}

struct copy_ref {
    const struct ht *src, *dst;
};

static double copy_want(void *ctx, int64_t k)
{
    const struct copy_ref *r = ctx;
    return as(r->dst->dt, r->src->v[at(r->src, r->dst, k)]);
}

/* InplaceCopy: int16 through a permuted view (ggml's DUP of int16), float32
 * into float16 with rounding, a row broadcast into a strided matrix; Cast
 * of every pair of the ten types on values each can hold. */
static void test_copies_and_every_type_pair(void **state)
{
    (void)state;
    int64_t d834[3] = {8, 3, 4}, perm[3] = {1, 32, 8};
    struct ht s = mk(ACL_INT16, 3, d834, perm, 0, 96, ints), d = mk(ACL_INT16, 3, d834, NULL, 0, 96, sevens);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnInplaceCopyGetWorkspaceSize(d.t, s.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceCopy(NULL, ws, e, S), OK);
    struct copy_ref r = {&s, &d};
    expect_out(&d, copy_want, &r, 0);
    int64_t d34[2] = {3, 4}, gap[2] = {8, 2}, d4[1] = {4};
    struct ht row = mk(ACL_FLOAT, 1, d4, NULL, 0, 4, ramp), m = mk(ACL_FLOAT16, 2, d34, gap, 1, 24, sevens);
    assert_int_equal(aclnnInplaceCopyGetWorkspaceSize(m.t, row.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceCopy(NULL, ws, e, S), OK);
    r = (struct copy_ref){&row, &m};
    expect_out(&m, copy_want, &r, 0);
    static const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                                        ACL_UINT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_BOOL};
    int64_t d6[1] = {6};
    for (size_t a = 0; a < 10; a++)
        for (size_t b = 0; b < 10; b++) {
            struct ht x = mk(types[a], 1, d6, NULL, 0, 6, types[a] == ACL_BOOL ? positive : sevens);
            struct ht y = mk(types[b], 1, d6, NULL, 0, 6, ramp);
            assert_int_equal(aclnnCastGetWorkspaceSize(x.t, types[b], y.t, &ws, &e), OK);
            assert_int_equal(aclnnCast(NULL, ws, e, S), OK);
            r = (struct copy_ref){&x, &y};
            expect_out(&y, copy_want, &r, 0); /* 7 and 1 are every type's */
            drop(&x);
            drop(&y);
        }
    struct ht *all[] = {&s, &d, &row, &m};
    for (size_t k = 0; k < 4; k++)
        drop(all[k]);
}

/* ---- Reductions, fills, permutes, products ---- */

/* ReduceSum over a permuted view, keepDim or not, int32 summed into int64;
 * a 0-d input is its own sum; no dims: every dim. */
static void test_reduce_sum_on_views(void **state)
{
    (void)state;
    int64_t d234[3] = {2, 3, 4}, perm[3] = {1, 8, 2}, axes[2] = {0, -1};
    struct ht x = mk(ACL_INT32, 3, d234, perm, 0, 24, ints);
    int64_t d3[1] = {3}, d131[3] = {1, 3, 1};
    struct ht o = mk(ACL_INT64, 1, d3, NULL, 0, 3, sevens), ok = mk(ACL_INT64, 3, d131, NULL, 0, 3, sevens);
    aclIntArray *dims = aclCreateIntArray(axes, 2);
    uint64_t ws;
    aclOpExecutor *e;
    for (int keep = 0; keep < 2; keep++) {
        struct ht *out = keep ? &ok : &o;
        assert_int_equal(aclnnReduceSumGetWorkspaceSize(x.t, dims, keep, ACL_INT64, out->t, &ws, &e), OK);
        assert_int_equal(ws, 512); /* RoundUp(3 * 4, 512): the fp32 partial sums */
        void *w;
        assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
        assert_int_equal(aclnnReduceSum(w, ws, e, S), OK);
        double got[3];
        fetch(out, got);
        for (int j = 0; j < 3; j++) {
            double sum = 0;
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 4; k++)
                    sum += x.v[i * 1 + j * 8 + k * 2];
            assert_true(got[j] == sum);
        }
        assert_int_equal(aclrtFree(w), 0);
    }
    /* a 0-d input, dims {} or {0}: itself */
    struct ht z = mk(ACL_FLOAT, 0, NULL, NULL, 0, 1, ramp), zo = mk(ACL_FLOAT, 0, NULL, NULL, 0, 1, sevens);
    int64_t zero[1] = {0};
    aclIntArray *d0 = aclCreateIntArray(zero, 1);
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(z.t, d0, false, ACL_FLOAT, zo.t, &ws, &e), OK);
    void *w;
    assert_int_equal(aclrtMalloc(&w, ws ? ws : 1, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclnnReduceSum(w, ws, e, S), OK);
    double g;
    fetch(&zo, &g);
    assert_true(g == z.v[0]);
    assert_int_equal(aclrtFree(w), 0);
    /* an axis out of range (aclnn_reduce_sum.cpp CheckDimValid) */
    int64_t bad[1] = {3};
    aclIntArray *db = aclCreateIntArray(bad, 1);
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(x.t, db, false, ACL_INT64, o.t, &ws, &e),
                     ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnReduceSumGetWorkspaceSize: Provided dim 3 "
               "must be in the range of [-3, 2].");
    aclDestroyIntArray(dims);
    aclDestroyIntArray(d0);
    aclDestroyIntArray(db);
    struct ht *all[] = {&x, &o, &ok, &z, &zo};
    for (size_t k = 0; k < 5; k++)
        drop(all[k]);
}

static double fill_want(void *ctx, int64_t k)
{
    (void)k;
    return *(const double *)ctx;
}

/* Fills of strided views leave the gaps; Permute with negative dims. */
static void test_fill_zero_permute(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, gap[2] = {8, 2};
    struct ht o = mk(ACL_BF16, 2, d34, gap, 1, 24, sevens);
    float v = 2.5f;
    aclScalar *s = aclCreateScalar(&v, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnInplaceFillScalarGetWorkspaceSize(o.t, s, &ws, &e), OK);
    assert_int_equal(aclnnInplaceFillScalar(NULL, ws, e, S), OK);
    double want = 2.5;
    expect_out(&o, fill_want, &want, 0);
    assert_int_equal(aclnnInplaceZeroGetWorkspaceSize(o.t, &ws, &e), OK);
    assert_int_equal(aclnnInplaceZero(NULL, ws, e, S), OK);
    want = 0;
    expect_out(&o, fill_want, &want, 0);
    int64_t d234[3] = {2, 3, 4}, p[3] = {-1, 0, 1}, d423[3] = {4, 2, 3};
    struct ht x = mk(ACL_INT8, 3, d234, NULL, 0, 24, ints), y = mk(ACL_INT8, 3, d423, NULL, 0, 24, sevens);
    aclIntArray *dims = aclCreateIntArray(p, 3);
    assert_int_equal(aclnnPermuteGetWorkspaceSize(x.t, dims, y.t, &ws, &e), OK);
    assert_int_equal(aclnnPermute(NULL, ws, e, S), OK);
    double got[24];
    fetch(&y, got);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 3; c++)
                assert_true(got[a * 6 + b * 3 + c] == x.v[b * 12 + c * 4 + a]);
    aclDestroyIntArray(dims);
    aclDestroyScalar(s);
    drop(&o);
    drop(&x);
    drop(&y);
}

/* Matmul of a transposed float32 view by float16 (ggml's OUT_PROD: mixed
 * inputs compute in their promoted type), into a strided output. */
static void test_matmul_of_views(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, tr[2] = {1, 2}, d34[2] = {3, 4}, d24[2] = {2, 4}, og[2] = {5, 1};
    struct ht a = mk(ACL_FLOAT, 2, d23, tr, 0, 6, ramp), b = mk(ACL_FLOAT16, 2, d34, NULL, 0, 12, positive);
    struct ht o = mk(ACL_FLOAT, 2, d24, og, 0, 10, sevens);
    uint64_t ws;
    aclOpExecutor *e;
    assert_int_equal(aclnnMatmulGetWorkspaceSize(a.t, b.t, o.t, 1, &ws, &e), OK);
    assert_int_equal(ws, 512); /* RoundUp(2 * 4 * 4, 512) */
    void *w;
    assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    assert_int_equal(aclnnMatmul(w, ws, e, S), OK);
    double got[10];
    fetch(&o, got);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            double sum = 0;
            for (int k = 0; k < 3; k++)
                sum += a.v[i * 1 + k * 2] * b.v[k * 4 + j];
            assert_true(got[i * 5 + j] == (float)sum);
        }
    assert_true(got[4] == 7 && got[9] == 7); /* the gap column */
    assert_int_equal(aclrtFree(w), 0);
    drop(&a);
    drop(&b);
    drop(&o);
}

/* ---- Shapes CANN refuses, 0-d and 9-d tensors ---- */

static void test_zero_d_and_nine_d(void **state)
{
    (void)state;
    /* a 0-d self broadcast against [3] */
    int64_t d3[1] = {3};
    struct ht z = mk(ACL_FLOAT, 0, NULL, NULL, 0, 1, ramp), v = mk(ACL_FLOAT, 1, d3, NULL, 0, 3, positive);
    struct ht o = mk(ACL_FLOAT, 1, d3, NULL, 0, 3, sevens);
    check_alpha_op(aclnnAddGetWorkspaceSize, aclnnAdd, '+', &z, &v, 1, ACL_FLOAT, &o, ACL_FLOAT);
    /* 9 dims: created (CANN's shapes hold 25), refused by the operator */
    int64_t d9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 3};
    aclTensor *t9 = aclCreateTensor(d9, 9, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d3, 1, v.dev);
    assert_non_null(t9);
    int64_t *dims = NULL;
    uint64_t n = 0;
    assert_int_equal(aclGetViewShape(t9, &dims, &n), OK);
    assert_int_equal(n, 9);
    free(dims);
    uint64_t ws;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAbsGetWorkspaceSize(t9, t9, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    expect_msg("AclNN_Parameter_Error(EZ1001)", "aclnnAbsGetWorkspaceSize: The self tensor cannot "
               "be larger than 8 dimensions.");
    assert_null(e);
    aclDestroyTensor(t9);
    int64_t d26[26];
    for (int i = 0; i < 26; i++)
        d26[i] = 1;
    assert_null(aclCreateTensor(d26, 26, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d3, 1, v.dev));
    (void)aclGetRecentErrMsg();
    drop(&z);
    drop(&v);
    drop(&o);
}

/* An operator aclsim does not compute yet exports both its calls and says
 * so: ACLNN_ERR_INNER_FIND_KERNEL_ERROR and a message naming it. */
static void test_not_simulated_operator_says_so(void **state)
{
    (void)state;
    int64_t d3[1] = {3};
    struct ht v = mk(ACL_FLOAT, 1, d3, NULL, 0, 3, ramp);
    uint64_t ws = 5;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(v.t, v.t, v.t, &ws, &e),
                     ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "aclnnEmbeddingGetWorkspaceSize is not simulated by aclsim"));
    assert_int_equal(aclnnEmbedding(NULL, 0, NULL, S), ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "aclnnEmbedding is not simulated by aclsim"));
    assert_int_equal(ws, 5);
    drop(&v);
}

/* The FRACTAL_NZ size of a weight (aclnn_trans_matmul_weight.cpp
 * CalculateMatmulWeightSize L129-153): the last two dims rounded up to 16,
 * int8's last to 32; 2 to 6 dims, none 0. */
static void test_matmul_weight_size(void **state)
{
    (void)state;
    int64_t s2[2] = {100, 50}, s3[3] = {3, 100, 50}, s1[1] = {7}, s0[2] = {0, 4};
    aclIntArray *a2 = aclCreateIntArray(s2, 2), *a3 = aclCreateIntArray(s3, 3),
                *a1 = aclCreateIntArray(s1, 1), *a0 = aclCreateIntArray(s0, 2);
    uint64_t n = 0;
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(a2, ACL_FLOAT16, &n), OK);
    assert_int_equal(n, 112 * 64);
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(a3, ACL_INT8, &n), OK);
    assert_int_equal(n, 3 * 112 * 64);
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(a2, ACL_INT8, &n), OK);
    assert_int_equal(n, 112 * 64);
    assert_int_equal(aclnnCalculateMatmulWeightSize(a2, &n), OK);
    assert_int_equal(n, 112 * 64);
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(a1, ACL_FLOAT16, &n), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(a0, ACL_FLOAT16, &n), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnCalculateMatmulWeightSizeV2(a2, ACL_FLOAT16, NULL), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    aclDestroyIntArray(a2);
    aclDestroyIntArray(a3);
    aclDestroyIntArray(a1);
    aclDestroyIntArray(a0);
}

/* ---- Elementwise, activations, comparisons, gated (issue #32, opsA) ----
 *
 * Sources: hicann/ops-math math/{cos,sin,log,sign,greater,equal,pow}/op_api/
 * and conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp; hicann/ops-nn
 * activation/{swish,gelu_v2,elu,leaky_relu,softplus_v2,hard_sigmoid,
 * hard_swish,threshold,ge_glu_v2}/ and activation/swi_glu/docs/
 * aclnnSwiGlu.md (the lines each test cites). */

#define EZ1001 "AclNN_Parameter_Error(EZ1001)"

static double sign_(double x)
{
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

static double silu_(double x)
{
    return x / (1 + exp(-x));
}

/* GeluV2 approximate 0, "none" (aclnn_gelu_v2.cpp L23-31): the erf form */
static double gelu_erf_(double x)
{
    return 0.5 * x * (1 + erf(x / sqrt(2)));
}

/* HardSigmoid and HardSwish as torch defines them (docs/aclnnHardsigmoid.md,
 * docs/aclnnHardswish.md): relu6(x + 3) / 6, and x times it */
static double hardsigmoid_(double x)
{
    return fmin(fmax(x + 3, 0), 6) / 6;
}

static double hardswish_(double x)
{
    return x * fmin(fmax(x + 3, 0), 6) / 6;
}

/* the parameters of the reference functions below */
static double P0, P1, P2;

/* docs/aclnnElu.md: scale * (x > 0 ? x : alpha * (exp(inputScale * x) - 1)) */
static double elu_(double x)
{
    return P1 * (x > 0 ? x : P0 * (exp(P2 * x) - 1));
}

static double leaky_(double x)
{
    return x > 0 ? x : P0 * x;
}

/* docs/aclnnSoftplus.md: x when beta * x > threshold */
static double softplus_(double x)
{
    return P0 * x > P1 ? x : log(1 + exp(P0 * x)) / P0;
}

static double clamp_(double x)
{
    return fmin(fmax(x, P0), P1);
}

static double threshold_(double x)
{
    return x > P0 ? x : P1;
}

static double gt_(double x)
{
    return x > P0;
}

static double pow_base_(double x)
{
    return pow(P0, x);
}

static aclnnStatus gelu_v2_none(const aclTensor *x, aclTensor *y, uint64_t *ws,
                                aclOpExecutor **e)
{
    return aclnnGeluV2GetWorkspaceSize(x, 0, y, ws, e);
}

static aclnnStatus gelu_v2_tanh(const aclTensor *x, aclTensor *y, uint64_t *ws,
                                aclOpExecutor **e)
{
    return aclnnGeluV2GetWorkspaceSize(x, 1, y, ws, e);
}

/* The refusal: code rc and the text "<launch>GetWorkspaceSize: <text>". */
static void refused(aclnnStatus got, aclnnStatus rc, const char *text)
{
    assert_int_equal(got, rc);
    expect_msg(EZ1001, text);
}

/* A NULL argument of a two-operand operator: ACLNN_ERR_PARAM_NULLPTR
 * naming the first NULL in CANN's CheckNotNull order: self, other, alpha,
 * out (aclnn_add.cpp, aclnn_adds.cpp, aclnn_mul.cpp), but out, other, self
 * for Div (aclnn_div.cpp CheckNotNull); an in-place operator's selfRef. */
static void null_named(aclnnStatus got, const char *launch, const char *type, const char *arg)
{
    char want[200];
    snprintf(want, sizeof want, "%sGetWorkspaceSize: Expected a value of type [%s] for "
             "argument [%s] but instead found nullptr.", launch, type, arg);
    refused(got, ACLNN_ERR_PARAM_NULLPTR, want);
}

static void test_null_arguments_in_canns_order(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3};
    struct ht a = mk(ACL_FLOAT, 2, d23, NULL, 0, 6, ramp);
    float one = 1;
    aclScalar *s = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    null_named(aclnnAddGetWorkspaceSize(NULL, NULL, NULL, NULL, &ws, &e), "aclnnAdd", "aclTensor",
               "self");
    null_named(aclnnAddGetWorkspaceSize(a.t, NULL, NULL, NULL, &ws, &e), "aclnnAdd", "aclTensor",
               "other");
    null_named(aclnnSubGetWorkspaceSize(a.t, a.t, NULL, NULL, &ws, &e), "aclnnSub", "aclScalar",
               "alpha");
    null_named(aclnnAddGetWorkspaceSize(a.t, a.t, s, NULL, &ws, &e), "aclnnAdd", "aclTensor",
               "out");
    null_named(aclnnInplaceAddGetWorkspaceSize(a.t, a.t, NULL, &ws, &e), "aclnnInplaceAdd",
               "aclScalar", "alpha");
    null_named(aclnnMulGetWorkspaceSize(a.t, a.t, NULL, &ws, &e), "aclnnMul", "aclTensor", "out");
    null_named(aclnnDivGetWorkspaceSize(NULL, NULL, NULL, &ws, &e), "aclnnDiv", "aclTensor",
               "out");
    null_named(aclnnDivGetWorkspaceSize(NULL, NULL, a.t, &ws, &e), "aclnnDiv", "aclTensor",
               "other");
    null_named(aclnnDivGetWorkspaceSize(NULL, a.t, a.t, &ws, &e), "aclnnDiv", "aclTensor", "self");
    null_named(aclnnInplaceDivGetWorkspaceSize(NULL, NULL, &ws, &e), "aclnnInplaceDiv",
               "aclTensor", "selfRef");
    null_named(aclnnAddsGetWorkspaceSize(a.t, NULL, s, a.t, &ws, &e), "aclnnAdds", "aclScalar",
               "other");
    null_named(aclnnSubsGetWorkspaceSize(a.t, s, NULL, a.t, &ws, &e), "aclnnSubs", "aclScalar",
               "alpha");
    null_named(aclnnDivsGetWorkspaceSize(NULL, NULL, NULL, &ws, &e), "aclnnDivs", "aclTensor",
               "self");
    null_named(aclnnInplaceMulsGetWorkspaceSize(a.t, NULL, &ws, &e), "aclnnInplaceMuls",
               "aclScalar", "other");
    aclDestroyScalar(s);
    drop(&a);
}

/* Cos, Sin, Log, Sign, Silu, GeluV2, Hardsigmoid, Hardswish over a
 * transposed input into a strided output; integers computed in float32
 * (aclnn_cos.cpp L123-129, aclnn_sin.cpp L122-126); float16 through
 * float16; in place on a strided view. */
static void test_elementwise_math_on_views(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, tr[2] = {1, 3}, gap[2] = {8, 2};
    struct ht a = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp), o = mk(ACL_FLOAT, 2, d34, gap, 1, 24, sevens);
    struct ht p = mk(ACL_FLOAT, 2, d34, tr, 0, 12, positive);
    check_unary(aclnnCosGetWorkspaceSize, aclnnCos, cos, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnSinGetWorkspaceSize, aclnnSin, sin, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnLogGetWorkspaceSize, aclnnLog, log, &p, &o, ACL_FLOAT, 0);
    check_unary(aclnnSignGetWorkspaceSize, aclnnSign, sign_, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnSiluGetWorkspaceSize, aclnnSilu, silu_, &a, &o, ACL_FLOAT, 0);
    check_unary(gelu_v2_none, aclnnGeluV2, gelu_erf_, &a, &o, ACL_FLOAT, 0);
    check_unary(gelu_v2_tanh, aclnnGeluV2, gelu, &a, &o, ACL_FLOAT, 0);
    check_unary(aclnnHardsigmoidGetWorkspaceSize, aclnnHardsigmoid, hardsigmoid_, &a, &o,
                ACL_FLOAT, 1e-7);
    check_unary((un_plan)aclnnHardswishGetWorkspaceSize, aclnnHardswish, hardswish_, &a, &o,
                ACL_FLOAT, 1e-6);
    /* integers of a floating function: float32 */
    struct ht i = mk(ACL_INT32, 2, d34, tr, 0, 12, ints), l = mk(ACL_INT64, 2, d34, NULL, 0, 12, ints);
    check_unary(aclnnCosGetWorkspaceSize, aclnnCos, cos, &i, &o, ACL_FLOAT, 0);
    check_unary(aclnnSinGetWorkspaceSize, aclnnSin, sin, &l, &o, ACL_FLOAT, 0);
    /* Sign keeps an integer type (aclnn_sign.cpp L69-75) */
    struct ht oi = mk(ACL_INT64, 2, d34, NULL, 0, 12, sevens);
    check_unary(aclnnSignGetWorkspaceSize, aclnnSign, sign_, &l, &oi, ACL_INT64, 0);
    /* float16 through float16 */
    struct ht h = mk(ACL_FLOAT16, 2, d34, tr, 0, 12, ramp), oh = mk(ACL_FLOAT16, 2, d34, gap, 1, 24, sevens);
    check_unary(aclnnSiluGetWorkspaceSize, aclnnSilu, silu_, &h, &oh, ACL_FLOAT16, 0);
    check_unary(aclnnCosGetWorkspaceSize, aclnnCos, cos, &h, &oh, ACL_FLOAT16, 0);
    /* in place on the strided view */
    uint64_t ws;
    aclOpExecutor *e;
    double before[24];
    assert_int_equal(aclnnInplaceSinGetWorkspaceSize(o.t, &ws, &e), OK);
    fetch(&o, before);
    memcpy(o.v, before, sizeof before);
    assert_int_equal(aclnnInplaceSin(NULL, ws, e, S), OK);
    struct un_ref r = {&o, &o, sin, ACL_FLOAT};
    expect_out(&o, un_want, &r, 0);
    assert_int_equal(aclnnInplaceCosGetWorkspaceSize(o.t, &ws, &e), OK);
    fetch(&o, before);
    memcpy(o.v, before, sizeof before);
    assert_int_equal(aclnnInplaceCos(NULL, ws, e, S), OK);
    r.f = cos;
    expect_out(&o, un_want, &r, 0);
    /* refusals: Cos's out list (aclnn_cos.cpp L46-48, L68), Silu's out of
     * self's type (level2_base_caculation.h CheckDtypeValidActivation),
     * Sign's result type (aclnn_sign.cpp L70-75), the in-place list of Sin
     * (L62-69), the shape (op_error_check.h OP_CHECK_SHAPE_NOT_EQUAL) */
    refused(aclnnCosGetWorkspaceSize(a.t, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnCosGetWorkspaceSize: Tensor out not implemented for DT_INT64, should be in "
            "dtype support list [DT_FLOAT,DT_FLOAT16,DT_DOUBLE,DT_COMPLEX64,DT_COMPLEX128,"
            "DT_BF16,].");
    refused(aclnnSiluGetWorkspaceSize(a.t, oh.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnSiluGetWorkspaceSize: Tensor out expected dtype is DT_FLOAT but found "
            "DT_FLOAT16.");
    refused(aclnnSignGetWorkspaceSize(l.t, o.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnSignGetWorkspaceSize: Self dtype should be same as result dtype. self "
            "[DT_INT64], result [DT_FLOAT]");
    refused(aclnnInplaceSinGetWorkspaceSize(i.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnInplaceSinGetWorkspaceSize: Tensor selfRef not implemented for DT_INT32, "
            "should be in dtype support list [DT_FLOAT,DT_FLOAT16,DT_DOUBLE,DT_COMPLEX64,"
            "DT_COMPLEX128,DT_BF16,].");
    int64_t d43[2] = {4, 3};
    struct ht w = mk(ACL_FLOAT, 2, d43, NULL, 0, 12, sevens);
    assert_int_equal(aclnnLogGetWorkspaceSize(a.t, w.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnGeluV2GetWorkspaceSize(a.t, 0, NULL, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    struct ht *all[] = {&a, &o, &p, &i, &l, &oi, &h, &oh, &w};
    for (size_t k = 0; k < 9; k++)
        drop(all[k]);
}

/* Elu, LeakyRelu, Softplus, Clamp, ClampMin, InplaceClampMax, Threshold
 * with their scalars, on views. */
static void test_activation_parameters(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, tr[2] = {1, 3}, gap[2] = {8, 2};
    struct ht a = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp), o = mk(ACL_FLOAT, 2, d34, gap, 1, 24, sevens);
    float half = 0.5f, two = 2, one5 = 1.5f, tenth = 0.1f, three = 3, m1 = -1, m3 = -3;
    aclScalar *s_half = aclCreateScalar(&half, ACL_FLOAT), *s_two = aclCreateScalar(&two, ACL_FLOAT),
              *s_15 = aclCreateScalar(&one5, ACL_FLOAT), *s_tenth = aclCreateScalar(&tenth, ACL_FLOAT),
              *s_three = aclCreateScalar(&three, ACL_FLOAT), *s_m1 = aclCreateScalar(&m1, ACL_FLOAT),
              *s_m3 = aclCreateScalar(&m3, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    struct un_ref r = {&a, &o, elu_, ACL_FLOAT};
    /* Elu: alpha 0.5, scale 2, inputScale 1.5 (aclnn_elu.cpp L176-177) */
    P0 = 0.5, P1 = 2, P2 = 1.5;
    assert_int_equal(aclnnEluGetWorkspaceSize(a.t, s_half, s_two, s_15, o.t, &ws, &e), OK);
    assert_int_equal(aclnnElu(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 1e-6);
    /* LeakyRelu: the slope as a float (aclnn_leaky_relu.cpp L111) */
    P0 = (float)0.1;
    r.f = leaky_;
    assert_int_equal(aclnnLeakyReluGetWorkspaceSize(a.t, s_tenth, o.t, &ws, &e), OK);
    assert_int_equal(aclnnLeakyRelu(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 0);
    /* Softplus: beta 2, threshold 3 (aclnn_softplus.cpp L140) */
    P0 = 2, P1 = 3;
    r.f = softplus_;
    assert_int_equal(aclnnSoftplusGetWorkspaceSize(a.t, s_two, s_three, o.t, &ws, &e), OK);
    assert_int_equal(aclnnSoftplus(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 1e-6);
    /* Clamp to [-1, 1.5], ClampMin -1 (aclnn_clamp.cpp L332-385) */
    P0 = -1, P1 = 1.5;
    r.f = clamp_;
    assert_int_equal(aclnnClampGetWorkspaceSize(a.t, s_m1, s_15, o.t, &ws, &e), OK);
    assert_int_equal(aclnnClamp(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 0);
    P1 = INFINITY;
    assert_int_equal(aclnnClampMinGetWorkspaceSize(a.t, s_m1, o.t, &ws, &e), OK);
    assert_int_equal(aclnnClampMin(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 0);
    /* an int32 Clamp computes in out's type: int32 bounds */
    struct ht i = mk(ACL_INT32, 2, d34, tr, 0, 12, ints), oi = mk(ACL_INT32, 2, d34, NULL, 0, 12, sevens);
    P0 = -3, P1 = 2;
    struct un_ref ri = {&i, &oi, clamp_, ACL_INT32};
    assert_int_equal(aclnnClampGetWorkspaceSize(i.t, s_m3, s_two, oi.t, &ws, &e), OK);
    assert_int_equal(aclnnClamp(NULL, ws, e, S), OK);
    expect_out(&oi, un_want, &ri, 0);
    /* Threshold 0.5, value -3; then in place on the strided view */
    P0 = 0.5, P1 = -3;
    r.f = threshold_;
    assert_int_equal(aclnnThresholdGetWorkspaceSize(a.t, s_half, s_m3, o.t, &ws, &e), OK);
    assert_int_equal(aclnnThreshold(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 0);
    double before[24];
    fetch(&o, before);
    memcpy(o.v, before, sizeof before);
    P0 = -INFINITY, P1 = 1.5;
    struct un_ref ro = {&o, &o, clamp_, ACL_FLOAT};
    assert_int_equal(aclnnInplaceClampMaxGetWorkspaceSize(o.t, s_15, &ws, &e), OK);
    assert_int_equal(aclnnInplaceClampMax(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &ro, 0);
    fetch(&o, before);
    memcpy(o.v, before, sizeof before);
    P0 = 0.5, P1 = -1;
    ro.f = threshold_;
    assert_int_equal(aclnnInplaceThresholdGetWorkspaceSize(o.t, s_half, s_m1, &ws, &e), OK);
    assert_int_equal(aclnnInplaceThreshold(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &ro, 0);
    /* refusals */
    assert_int_equal(aclnnClampGetWorkspaceSize(a.t, NULL, NULL, o.t, &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR); /* aclnn_clamp.cpp L132-135 */
    expect_msg(EZ1001, "aclnnClampGetWorkspaceSize: clamp: At least one of 'min' or 'max' must "
               "not be None.");
    refused(aclnnClampGetWorkspaceSize(a.t, s_m1, s_15, oi.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnClampGetWorkspaceSize: self type DT_FLOAT can't be cast to the output type "
            "DT_INT32."); /* L213-223 */
    refused(aclnnLeakyReluGetWorkspaceSize(i.t, s_tenth, o.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnLeakyReluGetWorkspaceSize: Tensor self not implemented for DT_INT32, should be "
            "in dtype support list [DT_FLOAT,DT_FLOAT16,DT_DOUBLE,DT_BF16,].");
    refused(aclnnEluGetWorkspaceSize(a.t, s_half, s_two, s_15, oi.t, &ws, &e),
            ACLNN_ERR_PARAM_INVALID, "aclnnEluGetWorkspaceSize: Result type DT_FLOAT can't be "
            "cast to the desired output type DT_INT32."); /* aclnn_elu.cpp L78 */
    assert_int_equal(aclnnSoftplusGetWorkspaceSize(a.t, s_two, s_three, o.t, NULL, &e),
                     ACLNN_ERR_PARAM_NULLPTR); /* OP_CHECK_COMM_INPUT first, L115 */
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnEluGetWorkspaceSize(a.t, NULL, s_two, s_15, o.t, &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR);
    (void)aclGetRecentErrMsg();
    aclScalar *all_s[] = {s_half, s_two, s_15, s_tenth, s_three, s_m1, s_m3};
    for (size_t k = 0; k < 7; k++)
        aclDestroyScalar(all_s[k]);
    struct ht *all[] = {&a, &o, &i, &oi};
    for (size_t k = 0; k < 4; k++)
        drop(all[k]);
}

/* GtScalar, EqTensor (broadcast), PowScalarTensor. */
static void test_comparisons_and_pow(void **state)
{
    (void)state;
    int64_t d34[2] = {3, 4}, d4[1] = {4}, tr[2] = {1, 3}, gap[2] = {8, 2};
    struct ht a = mk(ACL_FLOAT, 2, d34, tr, 0, 12, ramp), o = mk(ACL_FLOAT, 2, d34, gap, 1, 24, sevens);
    struct ht ob = mk(ACL_BOOL, 2, d34, NULL, 0, 12, sevens);
    float q = 0.25f, two = 2;
    aclScalar *sq = aclCreateScalar(&q, ACL_FLOAT), *s2 = aclCreateScalar(&two, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *e;
    /* GtScalar: 1 or 0 in out's type (aclnn_gt_scalar.cpp L272-280) */
    P0 = 0.25;
    struct un_ref r = {&a, &o, gt_, ACL_FLOAT};
    assert_int_equal(aclnnGtScalarGetWorkspaceSize(a.t, sq, o.t, &ws, &e), OK);
    assert_int_equal(aclnnGtScalar(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 0);
    r.o = &ob;
    assert_int_equal(aclnnGtScalarGetWorkspaceSize(a.t, sq, ob.t, &ws, &e), OK);
    assert_int_equal(aclnnGtScalar(NULL, ws, e, S), OK);
    expect_out(&ob, un_want, &r, 0);
    /* float16 self, float scalar: PromoteType gives float32 (L184) */
    struct ht h = mk(ACL_FLOAT16, 2, d34, tr, 0, 12, ramp), oh = mk(ACL_FLOAT16, 2, d34, NULL, 0, 12, sevens);
    r = (struct un_ref){&h, &oh, gt_, ACL_FLOAT};
    assert_int_equal(aclnnGtScalarGetWorkspaceSize(h.t, sq, oh.t, &ws, &e), OK);
    assert_int_equal(aclnnGtScalar(NULL, ws, e, S), OK);
    expect_out(&oh, un_want, &r, 0);
    /* EqTensor: a (3, 4) transposed == b (4) broadcast, into float and bool */
    struct ht b = mk(ACL_FLOAT, 1, d4, NULL, 0, 4, ramp);
    assert_int_equal(aclnnEqTensorGetWorkspaceSize(a.t, b.t, o.t, &ws, &e), OK);
    assert_int_equal(aclnnEqTensor(NULL, ws, e, S), OK);
    double got[24];
    fetch(&o, got);
    int ones = 0;
    for (int64_t k = 0; k < 12; k++) {
        double want = a.v[at(&a, &o, k)] == b.v[at(&b, &o, k)];
        ones += want == 1;
        assert_true(got[at(&o, &o, k)] == want);
    }
    assert_true(ones > 0 && ones < 12); /* the case tells equal from unequal */
    /* PowScalarTensor: 2 to each exponent (aclnn_pow.cpp L542-570); an
     * int32 base and int64 exponents compute in int64 (L236-240) */
    P0 = 2;
    r = (struct un_ref){&a, &o, pow_base_, ACL_FLOAT};
    assert_int_equal(aclnnPowScalarTensorGetWorkspaceSize(s2, a.t, o.t, &ws, &e), OK);
    assert_int_equal(aclnnPowScalarTensor(NULL, ws, e, S), OK);
    expect_out(&o, un_want, &r, 0);
    int32_t three = 3;
    aclScalar *s3 = aclCreateScalar(&three, ACL_INT32);
    struct ht ex = mk(ACL_INT64, 2, d34, NULL, 0, 12, positive), ol = mk(ACL_INT64, 2, d34, NULL, 0, 12, sevens);
    P0 = 3;
    r = (struct un_ref){&ex, &ol, pow_base_, ACL_INT64};
    assert_int_equal(aclnnPowScalarTensorGetWorkspaceSize(s3, ex.t, ol.t, &ws, &e), OK);
    assert_int_equal(aclnnPowScalarTensor(NULL, ws, e, S), OK);
    expect_out(&ol, un_want, &r, 0);
    /* refusals */
    int64_t d43[2] = {4, 3};
    struct ht w = mk(ACL_FLOAT, 2, d43, NULL, 0, 12, sevens);
    refused(aclnnEqTensorGetWorkspaceSize(a.t, b.t, w.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnEqTensorGetWorkspaceSize: BroadcastShape [3, 4] is not equal out's shape "
            "[4, 3]."); /* aclnn_eq_tensor.cpp L196-201 */
    refused(aclnnGtScalarGetWorkspaceSize(a.t, sq, w.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnGtScalarGetWorkspaceSize: Expected tensor for out to have same size as tensor "
            "for self, but [4, 3] does not equal [3, 4].");
    bool yes = true;
    aclScalar *sb = aclCreateScalar(&yes, ACL_BOOL);
    refused(aclnnPowScalarTensorGetWorkspaceSize(sb, ob.t, ob.t, &ws, &e), ACLNN_ERR_PARAM_INVALID,
            "aclnnPowScalarTensorGetWorkspaceSize: Self and exponent dtype are bool is not "
            "supported."); /* aclnn_pow.cpp L250-253 */
    aclDestroyScalar(sb);
    aclDestroyScalar(sq);
    aclDestroyScalar(s2);
    aclDestroyScalar(s3);
    struct ht *all[] = {&a, &o, &ob, &h, &oh, &b, &ex, &ol, &w};
    for (size_t k = 0; k < 9; k++)
        drop(all[k]);
}

/* The gated activations: the halves of one tensor. */
struct glu_ref {
    const struct ht *x, *o;
    int d;                /* the split dim */
    bool left;            /* the left half is activated */
    double (*f)(double);
    bool gelu_out;        /* want the activation itself */
};

static double glu_want(void *ctx, int64_t k)
{
    const struct glu_ref *r = ctx;
    /* element k of out: its index along each dim, then x's storage index of
     * both halves */
    int64_t idx[MAXD], rem = k, off = r->x->offset;
    for (int j = r->o->nd - 1; j >= 0; j--) {
        idx[j] = rem % r->o->dims[j];
        rem /= r->o->dims[j];
    }
    for (int j = 0; j < r->o->nd; j++)
        off += idx[j] * r->x->strides[j];
    int64_t half = r->x->dims[r->d] / 2 * r->x->strides[r->d];
    double a = as(ACL_FLOAT, r->x->v[off]), b = as(ACL_FLOAT, r->x->v[off + half]);
    double act = as(ACL_FLOAT, r->f(r->left ? a : b)), other = r->left ? b : a;
    return as(r->o->dt, r->gelu_out ? act : as(ACL_FLOAT, act * other));
}

static void test_gated_on_views(void **state)
{
    (void)state;
    /* x (2, 3, 8) with its last dim strided by 2 (every other element of a
     * storage of 96); out (2, 3, 4) into a strided view */
    int64_t dx[3] = {2, 3, 8}, sx[3] = {48, 16, 2}, dout[3] = {2, 3, 4}, so[3] = {24, 8, 2};
    struct ht x = mk(ACL_FLOAT, 3, dx, sx, 1, 96, ramp), o = mk(ACL_FLOAT, 3, dout, so, 0, 48, sevens);
    uint64_t ws;
    aclOpExecutor *e;
    /* SwiGlu: Swish(A) * B (docs/aclnnSwiGlu.md L11-14) */
    assert_int_equal(aclnnSwiGluGetWorkspaceSize(x.t, -1, o.t, &ws, &e), OK);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnSwiGlu(NULL, ws, e, S), OK);
    struct glu_ref r = {&x, &o, 2, true, silu_, false};
    expect_out(&o, glu_want, &r, 0);
    /* GeGluV3 along dim 2, approximate 0 (erf), left activated; outGelu */
    struct ht g = mk(ACL_FLOAT, 3, dout, NULL, 0, 24, sevens);
    assert_int_equal(aclnnGeGluV3GetWorkspaceSize(x.t, 2, 0, true, o.t, g.t, &ws, &e), OK);
    assert_int_equal(aclnnGeGluV3(NULL, ws, e, S), OK);
    r.f = gelu_erf_;
    expect_out(&o, glu_want, &r, 0);
    struct glu_ref rg = {&x, &g, 2, true, gelu_erf_, true};
    expect_out(&g, glu_want, &rg, 0);
    /* approximate 1 (tanh), the right half activated (docs/aclnnGeGluV3.md) */
    assert_int_equal(aclnnGeGluV3GetWorkspaceSize(x.t, -1, 1, false, o.t, g.t, &ws, &e), OK);
    assert_int_equal(aclnnGeGluV3(NULL, ws, e, S), OK);
    r = (struct glu_ref){&x, &o, 2, false, gelu, false};
    expect_out(&o, glu_want, &r, 0);
    /* split along dim 1 of a float16 x (2, 4, 3) */
    int64_t dh[3] = {2, 4, 3}, dho[3] = {2, 2, 3};
    struct ht xh = mk(ACL_FLOAT16, 3, dh, NULL, 0, 24, ramp), oh = mk(ACL_FLOAT16, 3, dho, NULL, 0, 12, sevens);
    assert_int_equal(aclnnSwiGluGetWorkspaceSize(xh.t, 1, oh.t, &ws, &e), OK);
    assert_int_equal(aclnnSwiGlu(NULL, ws, e, S), OK);
    r = (struct glu_ref){&xh, &oh, 1, true, silu_, false};
    expect_out(&oh, glu_want, &r, 0);
    /* refusals (aclnn_geglu.cpp L81-83, L132-137, L157-165) */
    int64_t d5[3] = {2, 3, 5}, d2[3] = {2, 3, 2};
    struct ht odd = mk(ACL_FLOAT, 3, d5, NULL, 0, 30, ramp), o2 = mk(ACL_FLOAT, 3, d2, NULL, 0, 12, sevens);
    refused(aclnnGeGluV3GetWorkspaceSize(odd.t, -1, 0, true, o2.t, o2.t, &ws, &e),
            ACLNN_ERR_PARAM_INVALID, "aclnnGeGluV3GetWorkspaceSize: selfSliceDimSize[5] must be "
            "even number.");
    refused(aclnnGeGluV3GetWorkspaceSize(x.t, 3, 0, true, o.t, g.t, &ws, &e),
            ACLNN_ERR_PARAM_INVALID, "aclnnGeGluV3GetWorkspaceSize: Expected aclnnGeGlu dim "
            "value 3 to be in range [-3, 2] but check failed.");
    refused(aclnnGeGluV3GetWorkspaceSize(x.t, 2, 2, true, o.t, g.t, &ws, &e),
            ACLNN_ERR_PARAM_INVALID, "aclnnGeGluV3GetWorkspaceSize: Approximate should be 0 or 1, "
            "but current is 2");
    assert_int_equal(aclnnSwiGluGetWorkspaceSize(odd.t, -1, o2.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclnnSwiGluGetWorkspaceSize(x.t, -1, oh.t, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    struct ht *all[] = {&x, &o, &g, &xh, &oh, &odd, &o2};
    for (size_t k = 0; k < 7; k++)
        drop(all[k]);
}

int main(void)
{
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") != 0)
        return 0; /* aclsim's kernels and refusals */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_binary_ops_on_views, nn_fresh),
        cmocka_unit_test_setup(test_in_place_on_views, nn_fresh),
        cmocka_unit_test_setup(test_promotion, nn_fresh),
        cmocka_unit_test_setup(test_scalar_operands, nn_fresh),
        cmocka_unit_test_setup(test_null_arguments_in_canns_order, nn_fresh),
        cmocka_unit_test_setup(test_unary_ops_on_views, nn_fresh),
        cmocka_unit_test_setup(test_cast_rounding_and_saturation, nn_fresh),
        cmocka_unit_test_setup(test_copies_and_every_type_pair, nn_fresh),
        cmocka_unit_test_setup(test_reduce_sum_on_views, nn_fresh),
        cmocka_unit_test_setup(test_fill_zero_permute, nn_fresh),
        cmocka_unit_test_setup(test_matmul_of_views, nn_fresh),
        cmocka_unit_test_setup(test_zero_d_and_nine_d, nn_fresh),
        cmocka_unit_test_setup(test_not_simulated_operator_says_so, nn_fresh),
        cmocka_unit_test_setup(test_matmul_weight_size, nn_fresh),
        cmocka_unit_test_setup(test_elementwise_math_on_views, nn_fresh),
        cmocka_unit_test_setup(test_activation_parameters, nn_fresh),
        cmocka_unit_test_setup(test_comparisons_and_pow, nn_fresh),
        cmocka_unit_test_setup(test_gated_on_views, nn_fresh),
    };
    return cmocka_run_group_tests_name("nn_engine", tests, nn_setup, nn_teardown);
}
