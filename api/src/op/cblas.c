/*
 * cblas.c - the cblas operators (the CBLAS family of api/abi/calls.def,
 * ops/acl_cblas.h): matrix-matrix and matrix-vector products, as CANN's GE
 * ACL layer builds them (hicann/ge api/acl/acl_cblas/single_op/blas/
 * gemm_ops.cpp, gemv_ops.cpp): checks in its order with its EH0001/EH0002
 * texts, then the "GEMM" operator (inputs a, b, c, alpha, beta; output c;
 * attributes transpose_a/transpose_b) through aclopExecuteV2 or
 * aclopCreateHandle; a GEMV is a GEMM with n = 1. alpha and beta are device
 * pointers to scalars of C's type. The built-in GEMM takes ND matrices:
 * ACL_TRANS_NZ layouts find no operator (ACL_ERROR_OP_NOT_FOUND).
 */
#include <stdio.h>
#include "op.h"

/* CANN's MatMulTemplate: descs of A, B, C and the alpha/beta scalars. */
struct gemm {
    int64_t da[4], db[4], dc[4];
    aclTensorDesc a, b, c, s;
    aclTensorDesc *in[5], *out[1];
    int64_t ta, tb;
    struct api_attr attrs[2];
    aclopAttr attr;
};

static int64_t ceil_div(int64_t n, int64_t d)
{
    return n == 0 ? 0 : (n - 1) / d + 1;
}

static aclTensorDesc desc2(aclDataType t, int64_t *dims, int nd)
{
    return (aclTensorDesc){.dtype = t, .format = ACL_FORMAT_ND,
                           .storage_format = ACL_FORMAT_UNDEFINED, .ndims = (size_t)nd,
                           .n_storage = (size_t)nd, .dims = dims, .storage_dims = dims,
                           .memtype = ACL_MEMTYPE_DEVICE};
}

static void gemm_init(struct gemm *g, int64_t m, int64_t n, int64_t k, aclDataType ta,
                      aclDataType tb, aclDataType tc, aclTransType transA, aclTransType transB,
                      aclTransType transC)
{
    g->da[0] = m, g->da[1] = k;
    g->db[0] = k, g->db[1] = n;
    g->dc[0] = m, g->dc[1] = n;
    g->a = desc2(ta, g->da, 2);
    g->b = desc2(tb, g->db, 2);
    g->c = desc2(tc, g->dc, 2);
    g->s = desc2(tc, NULL, 0);
    if (transA == ACL_TRANS_T) {
        g->da[0] = k, g->da[1] = m;
    } else if (transA == ACL_TRANS_NZ) {
        int64_t r = ta == ACL_INT8 ? 32 : 16;
        g->a.format = ACL_FORMAT_FRACTAL_NZ;
        g->da[0] = ceil_div(k, r), g->da[1] = ceil_div(m, 16), g->da[2] = 16, g->da[3] = r;
        g->a.ndims = g->a.n_storage = 4;
    }
    if (transB == ACL_TRANS_T) {
        g->db[0] = n, g->db[1] = k;
    } else if (transB == ACL_TRANS_NZ) {
        g->b.format = tb == ACL_INT8 ? ACL_FORMAT_FRACTAL_Z : ACL_FORMAT_FRACTAL_NZ;
        if (tb == ACL_INT8)
            g->db[0] = ceil_div(k, 32), g->db[1] = ceil_div(n, 16), g->db[2] = 16, g->db[3] = 32;
        else
            g->db[0] = ceil_div(n, 16), g->db[1] = ceil_div(k, 16), g->db[2] = 16, g->db[3] = 16;
        g->b.ndims = g->b.n_storage = 4;
    }
    if (transC == ACL_TRANS_NZ) {
        g->c.format = ACL_FORMAT_FRACTAL_NZ;
        g->dc[0] = ceil_div(n, 16), g->dc[1] = ceil_div(m, 16), g->dc[2] = 16, g->dc[3] = 16;
        g->c.ndims = g->c.n_storage = 4;
    }
    g->in[0] = &g->a, g->in[1] = &g->b, g->in[2] = &g->c, g->in[3] = &g->s, g->in[4] = &g->s;
    g->out[0] = &g->c;
    g->ta = transA == ACL_TRANS_T;
    g->tb = transB == ACL_TRANS_T;
    g->attrs[0] = (struct api_attr){.name = (char *)"transpose_a", .kind = API_ATTR_BOOL, .n = 1,
                                    .ints = &g->ta};
    g->attrs[1] = (struct api_attr){.name = (char *)"transpose_b", .kind = API_ATTR_BOOL, .n = 1,
                                    .ints = &g->tb};
    g->attr = (aclopAttr){g->attrs, 2, 2};
}

/* CANN's checks of m, n, k, the layouts and the precision. */
static aclError check_shape(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                            int n, int k, aclComputeType type)
{
    if (m <= 0 || n <= 0 || k <= 0) {
        char v[96];
        snprintf(v, sizeof v, "m = %d, n = %d, k = %d", m, n, k);
        return api_err_arg_value("m, n, k", v, "mnk must > 0");
    }
    if ((int)transA < ACL_TRANS_N || (int)transA >= ACL_TRANS_NZ_T || (int)transB < ACL_TRANS_N ||
        (int)transB >= ACL_TRANS_NZ_T)
        return api_err_arg_value("transA or transB", "",
                                 "only support ACL_TRANS_N, ACL_TRANS_T and ACL_TRANS_NZ");
    if (transC != ACL_TRANS_N && transC != ACL_TRANS_NZ)
        return api_err_arg_value("transC", "", "only support ACL_TRANS_N and ACL_TRANS_NZ");
    if (type != ACL_COMPUTE_HIGH_PRECISION)
        return api_err_arg_value("type", "", "only support ACL_COMPUTE_HIGH_PRECISION");
    return ACL_SUCCESS;
}

static aclError gemm_ex(const char *fn, aclTransType transA, aclTransType transB,
                        aclTransType transC, int m, int n, int k, const void *alpha,
                        const void *matrixA, int lda, aclDataType dataTypeA,
                        const void *matrixB, int ldb, aclDataType dataTypeB,
                        const void *beta, void *matrixC, int ldc, aclDataType dataTypeC, aclComputeType type, aclrtStream stream)
{
    if (!alpha)
        return api_err_arg_null("alpha");
    if (!beta)
        return api_err_arg_null("beta");
    if (!matrixA)
        return api_err_arg_null("matrixA");
    if (!matrixB)
        return api_err_arg_null("matrixB");
    if (!matrixC)
        return api_err_arg_null("matrixC");
    if (m <= 0 || n <= 0 || k <= 0 || (int)transA < 0 || (int)transA >= ACL_TRANS_NZ_T ||
        (int)transB < 0 || (int)transB >= ACL_TRANS_NZ_T ||
        (transC != ACL_TRANS_N && transC != ACL_TRANS_NZ))
        return check_shape(transA, transB, transC, m, n, k, type);
    if (lda != -1 || ldb != -1 || ldc != -1) {
        char v[96];
        snprintf(v, sizeof v, "lda = %d, ldb = %d, ldc = %d", lda, ldb, ldc);
        return api_err_arg_value("lda, ldb, ldc", v, "only support -1");
    }
    aclError rc = check_shape(transA, transB, transC, m, n, k, type);
    if (rc != ACL_SUCCESS)
        return rc;
    struct gemm g;
    gemm_init(&g, m, n, k, dataTypeA, dataTypeB, dataTypeC, transA, transB, transC);
    aclDataBuffer ba = {(void *)matrixA, api_impl_aclGetTensorDescSize(&g.a)};
    aclDataBuffer bb = {(void *)matrixB, api_impl_aclGetTensorDescSize(&g.b)};
    aclDataBuffer bc = {matrixC, api_impl_aclGetTensorDescSize(&g.c)};
    aclDataBuffer bal = {(void *)alpha, 4}, bbe = {(void *)beta, 4};
    aclDataBuffer *in[5] = {&ba, &bb, &bc, &bal, &bbe}, *out[1] = {&bc};
    api_op_caller = fn; /* the trace names the operator by its cblas call */
    rc = api_impl_aclopExecuteV2("GEMM", 5, g.in, in, 1, g.out, out, &g.attr, stream);
    api_op_caller = NULL;
    return rc;
}

static aclError gemm_handle(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                            int n, int k, aclDataType dataTypeA, aclDataType dataTypeB,
                            aclDataType dataTypeC, aclComputeType type, aclopHandle **handle)
{
    if (!handle)
        return api_err_arg_null("handle");
    aclError rc = check_shape(transA, transB, transC, m, n, k, type);
    if (rc != ACL_SUCCESS)
        return rc;
    struct gemm g;
    gemm_init(&g, m, n, k, dataTypeA, dataTypeB, dataTypeC, transA, transB, transC);
    return api_impl_aclopCreateHandle("GEMM", 5, (const aclTensorDesc *const *)g.in, 1,
                                      (const aclTensorDesc *const *)g.out, &g.attr, handle);
}

aclError api_impl_aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC,
                                int m, int n, int k, const void *alpha, const void *matrixA,
                                int lda, aclDataType dataTypeA, const void *matrixB, int ldb,
                                aclDataType dataTypeB, const void *beta, void *matrixC, int ldc,
                                aclDataType dataTypeC, aclComputeType type, aclrtStream stream)
{
    API_FORWARD(aclblasGemmEx, (transA, transB, transC, m, n, k, alpha, matrixA, lda, dataTypeA,
                                matrixB, ldb, dataTypeB, beta, matrixC, ldc, dataTypeC, type,
                                stream));
    return gemm_ex("aclblasGemmEx",
                   transA, transB, transC, m, n, k, alpha, matrixA, lda, dataTypeA, matrixB, ldb,
                   dataTypeB, beta, matrixC, ldc, dataTypeC, type, stream);
}

aclError api_impl_aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB,
                                               aclTransType transC, int m, int n, int k,
                                               aclDataType dataTypeA, aclDataType dataTypeB,
                                               aclDataType dataTypeC, aclComputeType type,
                                               aclopHandle **handle)
{
    API_FORWARD(aclblasCreateHandleForGemmEx, (transA, transB, transC, m, n, k, dataTypeA,
                                               dataTypeB, dataTypeC, type, handle));
    return gemm_handle(transA, transB, transC, m, n, k, dataTypeA, dataTypeB, dataTypeC, type,
                       handle);
}

aclError api_impl_aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC,
                               int m, int n, int k, const aclFloat16 *alpha,
                               const aclFloat16 *matrixA, int lda, const aclFloat16 *matrixB,
                               int ldb, const aclFloat16 *beta, aclFloat16 *matrixC, int ldc,
                               aclComputeType type, aclrtStream stream)
{
    API_FORWARD(aclblasHgemm, (transA, transB, transC, m, n, k, alpha, matrixA, lda, matrixB, ldb,
                               beta, matrixC, ldc, type, stream));
    return gemm_ex("aclblasHgemm",
                   transA, transB, transC, m, n, k, alpha, matrixA, lda, ACL_FLOAT16, matrixB,
                   ldb, ACL_FLOAT16, beta, matrixC, ldc, ACL_FLOAT16, type, stream);
}

aclError api_impl_aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB,
                                              aclTransType transC, int m, int n, int k,
                                              aclComputeType type, aclopHandle **handle)
{
    API_FORWARD(aclblasCreateHandleForHgemm, (transA, transB, transC, m, n, k, type, handle));
    return gemm_handle(transA, transB, transC, m, n, k, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16,
                       type, handle);
}

aclError api_impl_aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC,
                                int m, int n, int k, const int32_t *alpha, const int8_t *matrixA,
                                int lda, const int8_t *matrixB, int ldb, const int32_t *beta,
                                int32_t *matrixC, int ldc, aclComputeType type,
                                aclrtStream stream)
{
    API_FORWARD(aclblasS8gemm, (transA, transB, transC, m, n, k, alpha, matrixA, lda, matrixB, ldb,
                                beta, matrixC, ldc, type, stream));
    return gemm_ex("aclblasS8gemm",
                   transA, transB, transC, m, n, k, alpha, matrixA, lda, ACL_INT8, matrixB, ldb,
                   ACL_INT8, beta, matrixC, ldc, ACL_INT32, type, stream);
}

aclError api_impl_aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB,
                                               aclTransType transC, int m, int n, int k,
                                               aclComputeType type, aclopHandle **handle)
{
    API_FORWARD(aclblasCreateHandleForS8gemm, (transA, transB, transC, m, n, k, type, handle));
    return gemm_handle(transA, transB, transC, m, n, k, ACL_INT8, ACL_INT8, ACL_INT32, type,
                       handle);
}

/* ---- Matrix-vector: a GEMM with n = 1 ---- */

aclError api_impl_aclblasGemvEx(aclTransType transA, int m, int n, const void *alpha,
                                const void *a, int lda, aclDataType dataTypeA, const void *x,
                                int incx, aclDataType dataTypeX, const void *beta, void *y,
                                int incy, aclDataType dataTypeY, aclComputeType type,
                                aclrtStream stream)
{
    API_FORWARD(aclblasGemvEx, (transA, m, n, alpha, a, lda, dataTypeA, x, incx, dataTypeX, beta,
                                y, incy, dataTypeY, type, stream));
    return gemm_ex("aclblasGemvEx",
                   transA, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, dataTypeA, x, incx,
                   dataTypeX, beta, y, incy, dataTypeY, type, stream);
}

aclError api_impl_aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n,
                                               aclDataType dataTypeA, aclDataType dataTypeX,
                                               aclDataType dataTypeY, aclComputeType type,
                                               aclopHandle **handle)
{
    API_FORWARD(aclblasCreateHandleForGemvEx, (transA, m, n, dataTypeA, dataTypeX, dataTypeY, type,
                                               handle));
    return gemm_handle(transA, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, dataTypeA, dataTypeX, dataTypeY,
                       type, handle);
}

aclError api_impl_aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16 *alpha,
                               const aclFloat16 *a, int lda, const aclFloat16 *x, int incx,
                               const aclFloat16 *beta, aclFloat16 *y, int incy,
                               aclComputeType type, aclrtStream stream)
{
    API_FORWARD(aclblasHgemv, (transA, m, n, alpha, a, lda, x, incx, beta, y, incy, type, stream));
    return gemm_ex("aclblasHgemv",
                   transA, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, ACL_FLOAT16, x, incx,
                   ACL_FLOAT16, beta, y, incy, ACL_FLOAT16, type, stream);
}

aclError api_impl_aclblasCreateHandleForHgemv(aclTransType transA, int m, int n,
                                              aclComputeType type, aclopHandle **handle)
{
    API_FORWARD(aclblasCreateHandleForHgemv, (transA, m, n, type, handle));
    return gemm_handle(transA, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, ACL_FLOAT16, ACL_FLOAT16,
                       ACL_FLOAT16, type, handle);
}

aclError api_impl_aclblasS8gemv(aclTransType transA, int m, int n, const int32_t *alpha,
                                const int8_t *a, int lda, const int8_t *x, int incx,
                                const int32_t *beta, int32_t *y, int incy, aclComputeType type,
                                aclrtStream stream)
{
    API_FORWARD(aclblasS8gemv, (transA, m, n, alpha, a, lda, x, incx, beta, y, incy, type, stream));
    return gemm_ex("aclblasS8gemv",
                   transA, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, ACL_INT8, x, incx,
                   ACL_INT8, beta, y, incy, ACL_INT32, type, stream);
}

aclError api_impl_aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n,
                                               aclComputeType type, aclopHandle **handle)
{
    API_FORWARD(aclblasCreateHandleForS8gemv, (transA, m, n, type, handle));
    return gemm_handle(transA, ACL_TRANS_N, ACL_TRANS_N, m, 1, n, ACL_INT8, ACL_INT8, ACL_INT32,
                       type, handle);
}
