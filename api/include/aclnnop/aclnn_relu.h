/*
 * aclnnop/aclnn_relu.h - the aclnn Relu and InplaceRelu operators.
 * Declarations as CANN's (hicann/ops-nn activation/relu/op_api/aclnn_relu.h):
 * each operator is two calls, GetWorkspaceSize plans it and says how much
 * device workspace it needs, the launch runs it on a stream. api/abi/calls.def
 * says which ones aclsim computes.
 */
#ifndef OP_API_INC_RELU_H_
#define OP_API_INC_RELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceRelu(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_RELU_H_ */
