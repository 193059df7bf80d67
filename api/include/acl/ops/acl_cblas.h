/*
 * acl/ops/acl_cblas.h - BLAS-style operators of AscendCL (GEMV, GEMM in half,
 * int8 and mixed types), run directly or through an operator handle.
 *
 * As CANN's graph-engine package declares them.
 */
#ifndef INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_
#define INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_

#include "acl/acl_rt.h"
#include "acl/acl_op.h"
#include "acl/acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Transposition and compute precision */
typedef enum aclTransType {
    ACL_TRANS_N = 0,
    ACL_TRANS_T = 1,
    ACL_TRANS_NZ = 2,
    ACL_TRANS_NZ_T = 3,
} aclTransType;

typedef enum aclComputeType {
    ACL_COMPUTE_HIGH_PRECISION = 0,
    ACL_COMPUTE_LOW_PRECISION = 1,
} aclComputeType;

/* Matrix-vector products */
ACL_FUNC_VISIBILITY aclError aclblasGemvEx(aclTransType transA, int m, int n, const void *alpha,
                                           const void *a, int lda, aclDataType dataTypeA,
                                           const void *x, int incx, aclDataType dataTypeX,
                                           const void *beta, void *y, int incy,
                                           aclDataType dataTypeY, aclComputeType type,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n,
                                                          aclDataType dataTypeA,
                                                          aclDataType dataTypeX,
                                                          aclDataType dataTypeY,
                                                          aclComputeType type,
                                                          aclopHandle **handle);
ACL_FUNC_VISIBILITY aclError aclblasHgemv(aclTransType transA, int m, int n,
                                          const aclFloat16 *alpha, const aclFloat16 *a, int lda,
                                          const aclFloat16 *x, int incx, const aclFloat16 *beta,
                                          aclFloat16 *y, int incy, aclComputeType type,
                                          aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n,
                                                         aclComputeType type, aclopHandle **handle);
ACL_FUNC_VISIBILITY aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t *alpha,
                                           const int8_t *a, int lda, const int8_t *x, int incx,
                                           const int32_t *beta, int32_t *y, int incy,
                                           aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n,
                                                          aclComputeType type,
                                                          aclopHandle **handle);

/* Matrix-matrix products */
ACL_FUNC_VISIBILITY aclError aclblasGemmEx(aclTransType transA, aclTransType transB,
                                           aclTransType transC, int m, int n, int k,
                                           const void *alpha, const void *matrixA, int lda,
                                           aclDataType dataTypeA, const void *matrixB, int ldb,
                                           aclDataType dataTypeB, const void *beta, void *matrixC,
                                           int ldc, aclDataType dataTypeC, aclComputeType type,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclDataType dataTypeA,
                                                          aclDataType dataTypeB,
                                                          aclDataType dataTypeC,
                                                          aclComputeType type,
                                                          aclopHandle **handle);
ACL_FUNC_VISIBILITY aclError aclblasHgemm(aclTransType transA, aclTransType transB,
                                          aclTransType transC, int m, int n, int k,
                                          const aclFloat16 *alpha, const aclFloat16 *matrixA,
                                          int lda, const aclFloat16 *matrixB, int ldb,
                                          const aclFloat16 *beta, aclFloat16 *matrixC, int ldc,
                                          aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB,
                                                         aclTransType transC, int m, int n, int k,
                                                         aclComputeType type, aclopHandle **handle);
ACL_FUNC_VISIBILITY aclError aclblasS8gemm(aclTransType transA, aclTransType transB,
                                           aclTransType transC, int m, int n, int k,
                                           const int32_t *alpha, const int8_t *matrixA, int lda,
                                           const int8_t *matrixB, int ldb, const int32_t *beta,
                                           int32_t *matrixC, int ldc, aclComputeType type,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclComputeType type,
                                                          aclopHandle **handle);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_ */
