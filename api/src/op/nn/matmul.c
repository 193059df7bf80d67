/*
 * matmul.c - the aclnn matrix products (the NN_MATMUL calls of
 * api/abi/calls.def): Matmul, BatchMatMul and Gemm, over the simulator's
 * matmul family (sim/ops/matmul.c), which reads its operands through their
 * views: a transposed or strided operand is taken as it is.
 *
 * Checks: hicann/ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.cpp
 * (CheckInputParams L212-232: the float types of DTYPE_SUPPORT_LIST L53-54,
 * at most 6 dims, the k axes agree, the batch dims broadcast: "The k-axis
 * of the two inputs are different [2, 3], [4, 5]"); mixed float inputs
 * compute in their promoted type. aclsim takes operands of at least 2 dims
 * (CANN's 1-D vector forms are refused with a message saying so).
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

static aclnnStatus matmul(const char *launch, const aclTensor *self, const aclTensor *mat2,
                          const aclTensor *out, bool batch_only, uint64_t *ws,
                          aclOpExecutor **executor)
{
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
        (rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK ||
        (rc = nn_in(&c, mat2, "mat2")) != OK)
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
    return matmul("aclnnMatmul", self, mat2, out, false, workspaceSize, executor);
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
    return matmul("aclnnBatchMatMul", self, mat2, out, true, workspaceSize, executor);
}
NN_LAUNCH(aclnnBatchMatMul)

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
