/*
 * aclnnop/aclnn_sigmoid.h - the aclnn Sigmoid and InplaceSigmoid operators.
 * Declarations as CANN's (hicann/ops-nn
 * activation/sigmoid/op_api/aclnn_sigmoid.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_SIGMOID_H_
#define OP_API_INC_SIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSigmoid(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceSigmoidGetWorkspaceSize(aclTensor *selfRef,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceSigmoid(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SIGMOID_H_ */
