/*
 * aclnnop/aclnn_matmul.h - the aclnn Matmul and MatmulWeightNz operators.
 * Declarations as CANN's (hicann/ops-nn
 * matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_MATMUL_H_
#define OP_API_INC_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
        aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnMatmulWeightNzGetWorkspaceSize(const aclTensor *self,
        const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMatmulWeightNz(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MATMUL_H_ */
