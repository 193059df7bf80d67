/*
 * aclnnop/aclnn_softmax_cross_entropy_with_logits.h - the aclnn
 * SoftmaxCrossEntropyWithLogits operator. Declarations as CANN's (hicann/ops-
 * nn activation/softmax_cross_entropy_with_logits/op_api/aclnn_softmax_cross_e
 * ntropy_with_logits.h): each operator is two calls, GetWorkspaceSize plans it
 * and says how much device workspace it needs, the launch runs it on a stream.
 * api/abi/calls.def says which ones aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_SOFTMAX_CROSS_ENTROPY_WITH_H_
#define OP_API_INC_LEVEL2_ACLNN_SOFTMAX_CROSS_ENTROPY_WITH_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(const aclTensor *features,
        aclTensor *labels, aclTensor *loss, aclTensor *backprop, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSoftmaxCrossEntropyWithLogits(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_SOFTMAX_CROSS_ENTROPY_WITH_H_ */
