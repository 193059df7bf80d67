/*
 * aclnnop/aclnn_leaky_relu.h - the aclnn LeakyRelu and InplaceLeakyRelu
 * operators. Declarations as CANN's (hicann/ops-nn
 * activation/leaky_relu/op_api/aclnn_leaky_relu.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEAKY_RELU_H_
#define OP_API_INC_LEAKY_RELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLeakyReluGetWorkspaceSize(const aclTensor *self,
        const aclScalar *negativeSlope, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLeakyRelu(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceLeakyReluGetWorkspaceSize(aclTensor *selfRef,
        const aclScalar *negativeSlope, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceLeakyRelu(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEAKY_RELU_H_ */
