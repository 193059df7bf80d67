/*
 * matmul.c - the aclnn matrix products (the NN_MATMUL calls of
 * api/abi/calls.def): Matmul, BatchMatMul, Mm, Mv and Gemm, over the
 * simulator's matmul family (sim/ops/matmul.c: OpenBLAS, fp32
 * accumulation), which reads its operands through their views: a
 * transposed or strided operand is taken as it is.
 *
 * Checks: hicann/ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.cpp
 * (CheckInputParams L212-232: the float types of DTYPE_SUPPORT_LIST L53-54,
 * at most 6 dims, the k axes agree, the batch dims broadcast: "The k-axis
 * of the two inputs are different [2, 3], [4, 5]"); mixed float inputs
 * compute in their promoted type. aclsim takes operands of at least 2 dims
 * (CANN's 1-D vector forms are refused with a message saying so; Mv's
 * vector is its own operator). Mm: hicann/ops-nn matmul/mat_mul_v3/op_host/
 * op_api/aclnn_mm.cpp (CheckMmInputParams L70-89: types, then
 * OP_CHECK_WRONG_DIMENSION of mat2 and self, the k axes L46-51, out's shape
 * L55-68). Mv: matmul/mv/op_host/op_api/aclnn_mv.cpp (CheckInputParams
 * L80-94: out and vec of one type, then self's, L50-60; self 2-D, vec and
 * out 1-D, L63-77).
 * Workspace (the aclnn table of docs/operators.md): RoundUp(batch * m * n * 4, 512) bytes,
 * where the kernel keeps its fp32 accumulators.
 */
#include "nn.h"

#define T(x) API_T(ACL_##x)
#define T_MM (T(FLOAT) | T(FLOAT16) | T(BF16))
#define MAX_MATMUL_DIMS 6 /* aclnn_matmul.cpp MAX_SUPPORT_MATMUL_DIMS_NUMS */

static uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

/* OP_CHECK_WRONG_DIMENSION (op_error_check.h L213-218): "Expected 2
 * dimension input, but got mat2 with sizes [3]." */
static aclnnStatus wrong_dims(struct nn_call *c, const aclTensor *t, const char *name, int want)
{
    char s[200];
    api_dims_text(t->dims, (int)t->ndims, s, sizeof s);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected %d dimension input, but got %s with "
                   "sizes %s.", want, name, s);
}

/* The products of two operands of at least 2 dims: any batch (Matmul),
 * exactly 3 dims (BatchMatMul), exactly 2 (Mm). */
enum mm_form { MM_ANY, MM_BATCH, MM_2D };

static aclnnStatus matmul(const char *launch, const aclTensor *self, const aclTensor *mat2,
                          const aclTensor *out, enum mm_form form, uint64_t *ws,
                          aclOpExecutor **executor)
{
    bool batch_only = form == MM_BATCH;
    struct nn_call c;
    bool two = self->ndims == 2 && mat2->ndims == 2;
    aclnnStatus rc = nn_begin(&c, launch, two ? "MatMul" : "BatchMatMul", BE_OP_MATMUL, ws,
                              executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_MM);
    if (rc == OK)
        rc = nn_check_type(&c, mat2, "mat2", T_MM);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_MM);
    if (rc != OK)
        return rc;
    if (form == MM_2D && mat2->ndims != 2)
        return wrong_dims(&c, mat2, "mat2", 2);
    if (form == MM_2D && self->ndims != 2)
        return wrong_dims(&c, self, "self", 2);
    char s1[200], s2[200];
    api_dims_text(self->dims, (int)self->ndims, s1, sizeof s1);
    api_dims_text(mat2->dims, (int)mat2->ndims, s2, sizeof s2);
    if (self->ndims > MAX_MATMUL_DIMS || mat2->ndims > MAX_MATMUL_DIMS)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The %s tensor cannot be larger than %d "
                       "dimensions.", self->ndims > MAX_MATMUL_DIMS ? "self" : "mat2",
                       MAX_MATMUL_DIMS);
    bool ok = batch_only ? self->ndims == 3 && mat2->ndims == 3
                         : self->ndims >= 2 && mat2->ndims >= 2;
    if (!ok)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "self %s and mat2 %s: aclsim takes %s", s1,
                       s2, batch_only ? "3-D tensors (batch, m, k) and (batch, k, n)"
                                      : "2-D matrices or batches of them (1-D operands are not "
                                        "simulated)");
    int64_t m = self->dims[self->ndims - 2], k = self->dims[self->ndims - 1];
    int64_t k2 = mat2->dims[mat2->ndims - 2], n = mat2->dims[mat2->ndims - 1];
    if (k != k2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The k-axis of the two inputs are different "
                       "%s, %s", s1, s2);
    int64_t dims[BE_OP_MAX_DIMS];
    int nb = api_broadcast(self->dims, (int)self->ndims - 2, mat2->dims, (int)mat2->ndims - 2,
                           dims);
    if (nb < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Broadcast %s and %s failed.", s1, s2);
    dims[nb] = m;
    dims[nb + 1] = n;
    aclDataType calc = api_promote(self->dtype, mat2->dtype);
    if ((rc = nn_check_shape(&c, out, "out", dims, nb + 2)) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in_matrix(&c, self, "self")) != OK ||
        (rc = nn_in_matrix(&c, mat2, "mat2")) != OK)
        return rc;
    c.op->calc = calc;
    uint64_t cells = (uint64_t)api_dims_elements(dims, nb + 2);
    return nn_end(&c, round_up(cells * 4, 512), ws, executor);
}

aclnnStatus api_impl_aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                 aclTensor *out, int8_t cubeMathType,
                                                 uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnMatmulGetWorkspaceSize, (self, mat2, out, cubeMathType, workspaceSize, executor));
    (void)cubeMathType; /* the kernel accumulates in double whatever it says */
    NN_CHECK_NULL("aclnnMatmul", self);
    NN_CHECK_NULL("aclnnMatmul", mat2);
    NN_CHECK_NULL("aclnnMatmul", out);
    return matmul("aclnnMatmul", self, mat2, out, MM_ANY, workspaceSize, executor);
}
NN_LAUNCH(aclnnMatmul)

aclnnStatus api_impl_aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self,
                                                      const aclTensor *mat2, aclTensor *out,
                                                      int8_t cubeMathType,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnBatchMatMulGetWorkspaceSize, (self, mat2, out, cubeMathType, workspaceSize, executor));
    (void)cubeMathType;
    NN_CHECK_NULL("aclnnBatchMatMul", self);
    NN_CHECK_NULL("aclnnBatchMatMul", mat2);
    NN_CHECK_NULL("aclnnBatchMatMul", out);
    return matmul("aclnnBatchMatMul", self, mat2, out, MM_BATCH, workspaceSize, executor);
}
NN_LAUNCH(aclnnBatchMatMul)

aclnnStatus api_impl_aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                             aclTensor *out, int8_t cubeMathType,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnMmGetWorkspaceSize, (self, mat2, out, cubeMathType, workspaceSize, executor));
    (void)cubeMathType; /* fp32 accumulation whatever it says */
    NN_CHECK_NULL("aclnnMm", out); /* aclnn_mm.cpp L31-37: out first */
    NN_CHECK_NULL("aclnnMm", self);
    NN_CHECK_NULL("aclnnMm", mat2);
    return matmul("aclnnMm", self, mat2, out, MM_2D, workspaceSize, executor);
}
NN_LAUNCH(aclnnMm)

/* out[n] = self[n, m] @ vec[m]: the kernel's product with vec as an m x 1
 * column and out as an n x 1 one (their views' strides kept). */
aclnnStatus api_impl_aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec,
                                             aclTensor *out, int8_t cubeMathType,
                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnMvGetWorkspaceSize, (self, vec, out, cubeMathType, workspaceSize, executor));
    (void)cubeMathType;
    NN_CHECK_NULL("aclnnMv", self);
    NN_CHECK_NULL("aclnnMv", vec);
    NN_CHECK_NULL("aclnnMv", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnMv", "MatMul", BE_OP_MATMUL, workspaceSize, executor);
    if (rc != OK)
        return rc;
    /* OP_CHECK_DTYPE_NOT_SAME (op_error_check.h L157-163) of out and vec,
     * then of self and vec */
    const aclTensor *other = out->dtype != vec->dtype ? out : self->dtype != vec->dtype ? self : NULL;
    if (other)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, "
                       "but found %s %s and vec %s.", other == out ? "out" : "self",
                       api_dtype_name(other->dtype), api_dtype_name(vec->dtype));
    if ((rc = nn_check_type(&c, self, "self", T_MM)) != OK)
        return rc;
    if (self->ndims != 2)
        return wrong_dims(&c, self, "self", 2);
    if (vec->ndims != 1)
        return wrong_dims(&c, vec, "vec", 1);
    if (out->ndims != 1)
        return wrong_dims(&c, out, "out", 1);
    if ((rc = nn_check_shape(&c, vec, "vec", &self->dims[1], 1)) != OK ||
        (rc = nn_check_shape(&c, out, "out", &self->dims[0], 1)) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK ||
        (rc = nn_in(&c, vec, "vec")) != OK)
        return rc;
    /* 1-D views as columns: [len] stride s -> [len, 1] strides (s, 1) */
    struct be_view *col[2] = {&c.op->out[0], &c.op->in[1]};
    for (int i = 0; i < 2; i++) {
        col[i]->ndims = 2;
        col[i]->dims[1] = 1;
        col[i]->strides[1] = 1;
    }
    c.op->calc = self->dtype;
    return nn_end(&c, round_up((uint64_t)self->dims[0] * 4, 512), workspaceSize, executor);
}
NN_LAUNCH(aclnnMv)

/* ---- The weight-quantised product ---- */

/* y = x @ ((weight + antiquantOffset) * antiquantScale) + bias, hicann/ops-nn
 * matmul/weight_quant_batch_matmul_v2/op_host/op_api/
 * aclnn_weight_quant_batch_matmul_v2.cpp (docs/aclnnWeightQuantBatchMatmulV2.md
 * L35-38 the formula): x (m, k) of float16 or bfloat16, weight (k, n) of int8
 * or int4 (either may be a transposed view), scale and offset per tensor
 * ([1], [1, 1]), per channel ([n], [1, n]) or per group of
 * antiquantGroupSize rows of k ([ceil(k / g), n]), y of x's type. The
 * checks in its order (aclnnWeightQuantBatchMatmulV2GetWorkspaceSize
 * L1733-1735, CheckParams L1625-1665): the NULLs, the types (CheckDtypeValid
 * L1039-1060, the 910B lists L72-85), the dims (CheckDimValid L1101-1113:
 * 2-D), the group size (CheckAntiquantGroupSize L251-281), k and m, n >= 1
 * (CheckXWeight L510-530), the scale's and offset's shapes
 * (CheckAntiquantParamShape L344-399), bias [n] or [1, n] (CheckBiasShape
 * L439-458). aclsim computes the float16 and bfloat16 scales (the UINT64 and
 * INT64 ones of the fixpipe path and the int8 output of quantScale are
 * refused as not simulated), ND weights, and an int4 weight whose k or n
 * axis has element stride 1 with even strides and offset (two per byte, the
 * first in the low nibble, as CANN packs int4). The kernel dequantises in
 * x's type and multiplies through the BLAS with fp32 accumulation. */
#define T_WQ_X (T(FLOAT16) | T(BF16))
#define T_WQ_W (T(INT8) | T(INT4))
#define T_WQ_SCALE (T(FLOAT16) | T(BF16) | T(UINT64) | T(INT64))
#define T_WQ_Y (T(FLOAT16) | T(BF16) | T(INT8))

/* IsDimSupport (L236-247): "x's dim should be in range [2, 2]. actual is [3]." */
static aclnnStatus dim_range(struct nn_call *c, const aclTensor *t, const char *name, uint64_t lo,
                             uint64_t hi)
{
    if (!t || (t->ndims >= lo && t->ndims <= hi))
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "%s's dim should be in range [%llu, %llu]. actual "
                   "is [%llu].", name, (unsigned long long)lo, (unsigned long long)hi,
                   (unsigned long long)t->ndims);
}

/* The int4 weight view (elements) as bytes: its axis of stride 1 halved. */
static aclnnStatus int4_as_bytes(struct nn_call *c, struct be_view *w)
{
    int p = w->strides[1] == 1 ? 1 : w->strides[0] == 1 ? 0 : -1;
    bool even = p >= 0 && w->dims[p] % 2 == 0 && w->offset % 2 == 0 &&
                (w->dims[1 - p] <= 1 || w->strides[1 - p] % 2 == 0);
    if (!even)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim takes an int4 weight whose k or n "
                       "axis has stride 1 with an even length, the other stride and the offset "
                       "even (two elements a byte), not dims [%lld, %lld] strides [%lld, %lld] "
                       "offset %lld", (long long)w->dims[0], (long long)w->dims[1],
                       (long long)w->strides[0], (long long)w->strides[1], (long long)w->offset);
    w->dtype = ACL_INT8;
    w->dims[p] /= 2;
    w->strides[1 - p] /= 2;
    w->offset /= 2;
    c->op->iparam[0] = p;
    return OK;
}

aclnnStatus api_impl_aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale,
    const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional,
    const aclTensor *quantOffsetOptional, const aclTensor *biasOptional, int antiquantGroupSize,
    const aclTensor *y, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize,
                (x, weight, antiquantScale, antiquantOffsetOptional, quantScaleOptional,
                 quantOffsetOptional, biasOptional, antiquantGroupSize, y, workspaceSize,
                 executor));
    const char *fn = "aclnnWeightQuantBatchMatmulV2";
    NN_CHECK_NULL(fn, x);
    NN_CHECK_NULL(fn, weight);
    NN_CHECK_NULL(fn, antiquantScale);
    NN_CHECK_NULL(fn, y);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, "WeightQuantBatchMatmulV2", BE_OP_WQBMM, workspaceSize,
                              executor);
    if (rc != OK)
        return rc;
    if (weight->format == ACL_FORMAT_FRACTAL_NZ)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes ND weights only, not "
                       "FRACTAL_NZ ones");
    if (weight->format != ACL_FORMAT_ND)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "weight's format should be ND or FRACTAL_NZ. "
                       "actual is [%d].", (int)weight->format);
    if ((rc = nn_check_type(&c, x, "x", T_WQ_X)) != OK ||
        (rc = nn_check_type(&c, weight, "weight", T_WQ_W)) != OK ||
        (rc = nn_check_type(&c, antiquantScale, "antiquantScale", T_WQ_SCALE)) != OK ||
        (rc = nn_check_type(&c, y, "y", T_WQ_Y)) != OK)
        return rc;
    if (quantScaleOptional && y->dtype != ACL_INT8)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "when quantScaleOptional is not null, y's "
                       "dtype should be [DT_INT8], actual is [%s].", api_dtype_name(y->dtype));
    if (!quantScaleOptional && y->dtype != x->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "when quantScaleOptional is null, y's dtype "
                       "should be same as x [%s], actual is [%s].", api_dtype_name(x->dtype),
                       api_dtype_name(y->dtype));
    if (quantScaleOptional || quantOffsetOptional ||
        (antiquantScale->dtype != ACL_FLOAT16 && antiquantScale->dtype != ACL_BF16))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim computes float16 and bfloat16 "
                       "antiquantScale without quantScaleOptional or quantOffsetOptional (the "
                       "fixpipe and int8-output forms are not simulated)");
    if ((rc = dim_range(&c, x, "x", 2, 2)) != OK ||
        (rc = dim_range(&c, weight, "weight", 2, 2)) != OK ||
        (rc = dim_range(&c, y, "y", 2, 2)) != OK ||
        (rc = dim_range(&c, biasOptional, "biasOptional", 1, 2)) != OK ||
        (rc = dim_range(&c, antiquantScale, "antiquantScale", 1, 2)) != OK ||
        (rc = dim_range(&c, antiquantOffsetOptional, "antiquantOffsetOptional", 1, 2)) != OK)
        return rc;
    int64_t m = x->dims[0], k = x->dims[1], kw = weight->dims[0], n = weight->dims[1];
    int g = antiquantGroupSize;
    if (g < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "cannot support group_size[%d] less than 0.", g);
    if (g && g % 32)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "antiquantGroupSize should be an integer "
                       "multiple of 32, actual is %d.", g);
    if (g && (int64_t)g + 1 > k)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "antiquantGroupSize should not be greater "
                       "than k-1, which is %lld.actual antiquantGroupSize is %d.",
                       (long long)(k - 1), g);
    if (k != kw)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "x's k and weight's k should be equal, actual "
                       "x'k is %lld, weight's k is %lld.", (long long)k, (long long)kw);
    if (k < 1 || m < 1 || n < 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "m,k,n shouldn't be smaller than 1, actual m "
                       "is %lld, k is %lld, n is %lld.", (long long)m, (long long)k, (long long)n);
    if (y->dims[0] != m || y->dims[1] != n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "y's m and x's m should be equal, actual y's m "
                       "is %lld, x's m is %lld.", (long long)y->dims[0], (long long)m);
    char ss[200];
    api_dims_text(antiquantScale->dims, (int)antiquantScale->ndims, ss, sizeof ss);
    int64_t sn = antiquantScale->dims[antiquantScale->ndims - 1];
    if (antiquantScale->ndims == 1 && (g > 0 || (sn != 1 && sn != n)))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "antiquantScale shape must be [1] or [%lld] "
                       "and group size is 0 when the size is 1, but it is %s and group size is "
                       "[%d]", (long long)n, ss, g);
    int64_t sk = antiquantScale->ndims == 2 ? antiquantScale->dims[0] : 1;
    if (antiquantScale->ndims == 2 && !g && (sk != 1 || (sn != n && sn != 1)))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "antiquantScale shape must be [1, %lld] or "
                       "[1, 1]when the size is 2 and without group size, but it is %s",
                       (long long)n, ss);
    if (antiquantScale->ndims == 2 && g && (sk != (k + g - 1) / g || sn != n))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "antiquantScale shape must be [%lld, %lld] "
                       "when the size is 2 and with group size, but it is %s",
                       (long long)((k + g - 1) / g), (long long)n, ss);
    if (antiquantOffsetOptional) {
        bool same = antiquantOffsetOptional->ndims == antiquantScale->ndims;
        for (uint64_t i = 0; same && i < antiquantScale->ndims; i++)
            same = antiquantOffsetOptional->dims[i] == antiquantScale->dims[i];
        char so[200];
        api_dims_text(antiquantOffsetOptional->dims, (int)antiquantOffsetOptional->ndims, so,
                      sizeof so);
        if (!same)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The ViewShape of antiquant offset must "
                           "same with scale when it is not null, but they are %s and %s", so, ss);
    }
    if (biasOptional) {
        int64_t bn = biasOptional->dims[biasOptional->ndims - 1];
        bool ok = bn == n && (biasOptional->ndims == 1 || biasOptional->dims[0] == 1);
        char sb[200];
        api_dims_text(biasOptional->dims, (int)biasOptional->ndims, sb, sizeof sb);
        if (!ok)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "biasOptional's shape should be [%lld] "
                           "or [1, %lld], actual is %s.", (long long)n, (long long)n, sb);
    }
    /* the antiquant scale and offset follow the weight: transposed, they
     * go through CreateTransposedView, not Contiguous
     * (aclnn_weight_quant_batch_matmul_v2.cpp TensorContiguousProcess
     * L1331-1339), as ggml's MUL_MAT_ID passes them */
    if ((rc = nn_out(&c, y, "y")) != OK || (rc = nn_in_matrix(&c, x, "x")) != OK ||
        (rc = nn_in_matrix(&c, weight, "weight")) != OK ||
        (rc = nn_in_matrix(&c, antiquantScale, "antiquantScale")) != OK)
        return rc;
    c.op->iparam[0] = -1; /* no int4 packing */
    c.op->iparam[1] = g;
    c.op->iparam[2] = c.op->iparam[3] = -1;
    if (weight->dtype == ACL_INT4 && (rc = int4_as_bytes(&c, &c.op->in[1])) != OK)
        return rc;
    if (antiquantOffsetOptional) {
        c.op->iparam[2] = c.op->n_in;
        if ((rc = nn_in_matrix(&c, antiquantOffsetOptional, "antiquantOffsetOptional")) != OK)
            return rc;
    }
    if (biasOptional) {
        c.op->iparam[3] = c.op->n_in;
        if ((rc = nn_in(&c, biasOptional, "biasOptional")) != OK)
            return rc;
    }
    c.op->calc = x->dtype;
    return nn_end(&c, round_up((uint64_t)(m * n) * 4 + (uint64_t)(k * n) * 4, 512),
                  workspaceSize, executor);
}
NN_LAUNCH(aclnnWeightQuantBatchMatmulV2)

/* ---- The triangular solve ---- */

/* xOut = A \ self, mOut = A broadcast, hicann/ops-math math/triangular_solve/
 * op_host/op_api/aclnn_triangular_solve.cpp: CheckParams (L112-123; a NULL
 * self, A or xOut is ACLNN_ERR_INNER_NULLPTR there), the float and double
 * types of DTYPE_SUPPORT_LIST (L24-25; the complex ones are not simulated),
 * one type for all (CheckDtypeValid L37-55), CheckShape (L57-110: 2 to 8
 * dims, square A, A's rows = self's rows, the batch dims broadcast, xOut
 * (*, m, n), mOut (*, m, m)); unitriangular only for float (L162-166).
 * The solve reads A's triangle only (trsm). */
#define T_TRSM (T(FLOAT) | T(DOUBLE))

static aclnnStatus min_dims(struct nn_call *c, const aclTensor *t, const char *name, uint64_t n)
{
    if (t->ndims >= n)
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "The %s tensor must have at least %llu "
                   "dimensions.", name, (unsigned long long)n);
}

static aclnnStatus same_type(struct nn_call *c, const aclTensor *a, const char *na,
                             const aclTensor *b, const char *nb)
{
    if (a->dtype == b->dtype)
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, but "
                   "found %s %s and %s %s.", na, api_dtype_name(a->dtype), nb,
                   api_dtype_name(b->dtype));
}

aclnnStatus api_impl_aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self,
                                                          const aclTensor *A, bool upper,
                                                          bool transpose, bool unitriangular,
                                                          aclTensor *xOut, aclTensor *mOut,
                                                          uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    API_FORWARD(aclnnTriangularSolveGetWorkspaceSize,
                (self, A, upper, transpose, unitriangular, xOut, mOut, workspaceSize, executor));
    const char *fn = "aclnnTriangularSolve";
    const aclTensor *must[3] = {self, A, xOut};
    const char *names[3] = {"self", "A", "xOut"};
    for (int i = 0; i < 3; i++)
        if (!must[i]) {
            nn_null(fn, "aclTensor", names[i]);
            return ACLNN_ERR_INNER_NULLPTR;
        }
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, fn, "MatrixTriangularSolve", BE_OP_TRSM, workspaceSize,
                              executor);
    if (rc != OK || (rc = nn_check_type(&c, self, "self", T_TRSM)) != OK ||
        (rc = nn_check_type(&c, A, "A", T_TRSM)) != OK ||
        (rc = nn_check_type(&c, xOut, "xOut", T_TRSM)) != OK ||
        (rc = same_type(&c, self, "self", A, "A")) != OK ||
        (rc = same_type(&c, self, "self", xOut, "xOut")) != OK)
        return rc;
    if (mOut && ((rc = nn_check_type(&c, mOut, "mOut", T_TRSM)) != OK ||
                 (rc = same_type(&c, self, "self", mOut, "mOut")) != OK))
        return rc;
    if ((rc = min_dims(&c, self, "self", 2)) != OK || (rc = min_dims(&c, A, "A", 2)) != OK ||
        (rc = min_dims(&c, xOut, "xOut", 2)) != OK || (rc = nn_check_dims(&c, self, "self")) != OK ||
        (rc = nn_check_dims(&c, A, "A")) != OK || (rc = nn_check_dims(&c, xOut, "xOut")) != OK)
        return rc;
    int64_t am = A->dims[A->ndims - 2], aw = A->dims[A->ndims - 1];
    int64_t bm = self->dims[self->ndims - 2], bw = self->dims[self->ndims - 1];
    if (am != aw)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "A must be batchs of square matrices, but "
                       "they are %lld by %lld matrices.", (long long)am, (long long)aw);
    if (bm != am)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Incompatible matrix sizes for "
                       "triangular_solve: each A matrix is %lld by %lld but each b matrix is "
                       "%lld by %lld.", (long long)am, (long long)aw, (long long)bm,
                       (long long)bw);
    int64_t dims[BE_OP_MAX_DIMS + 1];
    int nb = api_broadcast(A->dims, (int)A->ndims - 2, self->dims, (int)self->ndims - 2, dims);
    if (nb < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Broadcast fail, the size of tensor a must "
                       "match the size of tensor b at non-singleton diemnsion.");
    dims[nb] = am;
    dims[nb + 1] = bw;
    if ((rc = nn_check_shape(&c, xOut, "xOut", dims, nb + 2)) != OK)
        return rc;
    dims[nb + 1] = am;
    if (mOut && ((rc = min_dims(&c, mOut, "mOut", 2)) != OK ||
                 (rc = nn_check_dims(&c, mOut, "mOut")) != OK ||
                 (rc = nn_check_shape(&c, mOut, "mOut", dims, nb + 2)) != OK))
        return rc;
    if (unitriangular && A->dtype != ACL_FLOAT)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "unitriangular mode only support float.");
    if ((rc = nn_out(&c, xOut, "xOut")) != OK || (mOut && (rc = nn_out(&c, mOut, "mOut")) != OK) ||
        (rc = nn_in(&c, self, "self")) != OK || (rc = nn_in(&c, A, "A")) != OK)
        return rc;
    c.op->iparam[0] = upper;
    c.op->iparam[1] = transpose;
    c.op->iparam[2] = unitriangular;
    c.op->calc = self->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnTriangularSolve)

/* out = alpha * op(A) @ op(B) + beta * C, the GEMM kernel of the aclblas
 * calls: fp16 (or int8) A and B, C of fp16 or fp32 (int8: fp32 or int32),
 * 2-D; out has C's shape and type. alpha and beta reach the kernel as 0-d
 * host tensors. */
aclnnStatus api_impl_aclnnGemmGetWorkspaceSize(const aclTensor *A, const aclTensor *B,
                                               const aclTensor *C, float alpha, float beta,
                                               int64_t transA, int64_t transB, aclTensor *out,
                                               int8_t cubeMathType, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnGemmGetWorkspaceSize, (A, B, C, alpha, beta, transA, transB, out,
                                            cubeMathType, workspaceSize, executor));
    (void)cubeMathType;
    NN_CHECK_NULL("aclnnGemm", A);
    NN_CHECK_NULL("aclnnGemm", B);
    NN_CHECK_NULL("aclnnGemm", C);
    NN_CHECK_NULL("aclnnGemm", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnGemm", "GEMM", BE_OP_GEMM, workspaceSize, executor);
    if (rc != OK)
        return rc;
    bool ok = A->dtype == B->dtype &&
              ((A->dtype == ACL_FLOAT16 && (C->dtype == ACL_FLOAT16 || C->dtype == ACL_FLOAT)) ||
               (A->dtype == ACL_INT8 && (C->dtype == ACL_FLOAT || C->dtype == ACL_INT32)));
    if (!ok || out->dtype != C->dtype)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "GEMM does not take A %s, B %s, C %s, out %s "
                       "(supported: fp16 fp16 fp16|fp32, int8 int8 fp32|int32; out of C's type)",
                       api_dtype_name(A->dtype), api_dtype_name(B->dtype),
                       api_dtype_name(C->dtype), api_dtype_name(out->dtype));
    if (A->ndims != 2 || B->ndims != 2 || C->ndims != 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "GEMM takes 2-D matrices");
    int64_t m = transA ? A->dims[1] : A->dims[0], k = transA ? A->dims[0] : A->dims[1];
    int64_t kb = transB ? B->dims[1] : B->dims[0], n = transB ? B->dims[0] : B->dims[1];
    if (k != kb || C->dims[0] != m || C->dims[1] != n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "GEMM shapes do not agree: A gives %lldx%lld, "
                       "B %lldx%lld, C is %lldx%lld", (long long)m, (long long)k, (long long)kb,
                       (long long)n, (long long)C->dims[0], (long long)C->dims[1]);
    aclScalar sa = {.dtype = ACL_FLOAT, .v.f32 = alpha}, sb = {.dtype = ACL_FLOAT, .v.f32 = beta};
    if ((rc = nn_check_same_shape(&c, out, "out", C, "C")) != OK ||
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, A, "A")) != OK ||
        (rc = nn_in(&c, B, "B")) != OK || (rc = nn_in(&c, C, "C")) != OK ||
        (rc = nn_in_scalar(&c, &sa)) != OK || (rc = nn_in_scalar(&c, &sb)) != OK)
        return rc;
    c.op->calc = C->dtype;
    c.op->trans_a = transA != 0;
    c.op->trans_b = transB != 0;
    return nn_end(&c, round_up((uint64_t)(m * n) * 4, 512), workspaceSize, executor);
}
NN_LAUNCH(aclnnGemm)

/* ---- The size of a weight in CANN's FRACTAL_NZ layout ---- */

/* Elements a weight of `shape` takes once TransMatmulWeight has laid it out
 * in FRACTAL_NZ: its last two dims rounded up to 16 (float16, bfloat16), or
 * to 16 and 32 (int8 and the 8-bit types), as CANN's
 * CalculateMatmulWeightSize (hicann/ops-math conversion/trans_data/op_api/
 * aclnn_trans_matmul_weight.cpp L129-153); 2 to 6 dims, none of them 0
 * (L96-127: ACLNN_ERR_PARAM_INVALID). */
static aclnnStatus weight_size(const char *fn, const aclIntArray *tensorShape, aclDataType dtype,
                               uint64_t *weightTensorSize, bool v2)
{
    if (!tensorShape)
        return nn_null(fn, "aclIntArray", "tensorShape");
    if (!weightTensorSize)
        return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: expected a value of type number for "
                           "argument weightTensorSize but instead found type null.", fn);
    uint64_t n = 0;
    api_impl_aclGetIntArraySize(tensorShape, &n);
    if (n < 2 || n > 6)
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: It is expected that tensorShape has 2-6 "
                           "dimensions, but got dimensions %llu.", fn, (unsigned long long)n);
    int64_t d[6];
    api_nn_int_array(tensorShape, d);
    int64_t size = 1;
    for (uint64_t i = 0; i < n; i++) {
        if (v2 && d[i] == 0)
            return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: No zeros are allow in shape", fn);
        int64_t to = i + 2 < n ? 1
                     : dtype == ACL_FLOAT16 || dtype == ACL_BF16 || i == n - 2 ? 16
                                                                              : 32;
        size *= (d[i] + to - 1) / to * to;
    }
    *weightTensorSize = (uint64_t)size;
    return OK;
}

aclnnStatus api_impl_aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape,
                                                      aclDataType dataType,
                                                      uint64_t *weightTensorSize)
{
    API_FORWARD(aclnnCalculateMatmulWeightSizeV2, (tensorShape, dataType, weightTensorSize));
    return weight_size("aclnnCalculateMatmulWeightSizeV2", tensorShape, dataType,
                       weightTensorSize, true);
}

aclnnStatus api_impl_aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
                                                    uint64_t *weightTensorSize)
{
    API_FORWARD(aclnnCalculateMatmulWeightSize, (tensorShape, weightTensorSize));
    return weight_size("aclnnCalculateMatmulWeightSize", tensorShape, ACL_FLOAT16,
                       weightTensorSize, false);
}

/* ---- Laying a weight out in FRACTAL_NZ ---- */

/* aclnn_trans_matmul_weight.cpp ASCEND910B_DTYPE_DTYPE_SUPPORT_LIST L49-54 */
#define T_TRANS_NZ                                                                        \
    (T(FLOAT16) | T(BF16) | T(INT8) | T(FLOAT8_E4M3FN) | T(HIFLOAT8) | T(UINT8))

static const char *format_name(aclFormat f)
{
    switch ((int)f) {
    case ACL_FORMAT_NCHW:
        return "NCHW";
    case ACL_FORMAT_NHWC:
        return "NHWC";
    case ACL_FORMAT_NC1HWC0:
        return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
        return "FRACTAL_Z";
    case ACL_FORMAT_FRACTAL_NZ:
        return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW:
        return "NCDHW";
    default:
        return "UNDEFINED";
    }
}

/* mmWeightRef laid out in FRACTAL_NZ in place, as the matrix products then
 * read it (hicann/ops-math conversion/trans_data/op_api/
 * aclnn_trans_matmul_weight.cpp): the checks of CheckParams L210-221 (type,
 * an ND storage format, at most 8 dims), nothing planned for an empty
 * tensor (L236-240), 2 to 6 dims (L250-255), then the tensor's storage
 * format becomes FRACTAL_NZ and its storage shape the NZ shape, there and
 * then (L262-264). Its storage must hold the elements
 * aclnnCalculateMatmulWeightSizeV2 gives. The float8 types move as bytes. */
aclnnStatus api_impl_aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef,
                                                            uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    API_FORWARD(aclnnTransMatmulWeightGetWorkspaceSize, (mmWeightRef, workspaceSize, executor));
    NN_CHECK_NULL("aclnnTransMatmulWeight", mmWeightRef);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnTransMatmulWeight", "TransData", BE_OP_TRANS_NZ,
                              workspaceSize, executor);
    if (rc != OK || (rc = nn_check_type(&c, mmWeightRef, "input", T_TRANS_NZ)) != OK)
        return rc;
    if (mmWeightRef->format != ACL_FORMAT_ND)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "the format of input should be ND. Actual "
                       "is [%s].", format_name(mmWeightRef->format));
    if ((rc = nn_check_dims(&c, mmWeightRef, "input")) != OK)
        return rc;
    int nd = (int)mmWeightRef->ndims;
    for (int i = 0; i < nd; i++)
        if (mmWeightRef->dims[i] == 0)
            return nn_end(&c, 0, workspaceSize, executor);
    if (nd < 2 || nd > 6)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "It is expected that tensorShape has 2-6 "
                       "dimensions, but got dimensions %d.", nd);
    if ((rc = nn_in(&c, mmWeightRef, "mmWeightRef")) != OK)
        return rc;
    struct be_view *in = &c.op->in[0], *out = &c.op->out[0];
    int c0 = (int)(32 / api_impl_aclDataTypeSize(mmWeightRef->dtype));
    if (c0 == 32)
        in->dtype = ACL_UINT8; /* a byte moves as it is */
    *out = *in;
    out->nz_c0 = c0;
    c.op->n_out = 1;
    c.op->calc = in->dtype;
    /* the NZ shape [..., C / c0, R / 16, 16, c0] */
    int64_t r = mmWeightRef->dims[nd - 2], cols = mmWeightRef->dims[nd - 1];
    aclTensor *t = mmWeightRef;
    t->format = ACL_FORMAT_FRACTAL_NZ;
    t->n_storage = (uint64_t)nd + 2;
    for (int i = 0; i < nd - 2; i++)
        t->storage[i] = t->dims[i];
    t->storage[nd - 2] = (cols + c0 - 1) / c0;
    t->storage[nd - 1] = (r + 15) / 16;
    t->storage[nd] = 16;
    t->storage[nd + 1] = c0;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnTransMatmulWeight)
