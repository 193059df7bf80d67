/*
 * aclnnop/aclnn_softmax.h - the aclnn Softmax operator. Declarations as CANN's
 * (hicann/ops-nn activation/softmax_v2/op_api/aclnn_softmax.h): each operator
 * is two calls, GetWorkspaceSize plans it and says how much device workspace
 * it needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_OP_API_INC_LEVEL2_OP_ACLNN_SOFTMAX_H_
#define OP_API_OP_API_INC_LEVEL2_OP_ACLNN_SOFTMAX_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_OP_API_INC_LEVEL2_OP_ACLNN_SOFTMAX_H_ */
