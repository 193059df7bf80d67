/*
 * aclnnop/aclnn_hardsigmoid.h - the aclnn Hardsigmoid and InplaceHardsigmoid
 * operators. Declarations as CANN's (hicann/ops-nn
 * activation/hard_sigmoid/op_api/aclnn_hardsigmoid.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_HARDSIGMOID_H_
#define OP_API_INC_HARDSIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnHardsigmoid(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(const aclTensor *self,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceHardsigmoid(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_HARDSIGMOID_H_ */
