/*
 * aclnnop/aclnn_gemm.h - the aclnn Gemm operator: out = alpha * op(A) @ op(B) + beta * C; plans a workspace for the fp32 accumulators.
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-nn, aclnn_gemm.h).
 */
#ifndef OP_API_INC_GEMM_H_
#define OP_API_INC_GEMM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGemmGetWorkspaceSize(const aclTensor *A, const aclTensor *B, const aclTensor *C, float alpha, float beta, int64_t transA, int64_t transB, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGemm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GEMM_H_ */
