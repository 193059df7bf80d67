/*
 * aclnnop/aclnn_threshold.h - the aclnn Threshold and InplaceThreshold
 * operators. Declarations as CANN's (hicann/ops-nn
 * activation/threshold/op_host/op_api/aclnn_threshold.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_THRESHOLD_H_
#define OP_API_INC_THRESHOLD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnThresholdGetWorkspaceSize(const aclTensor *self,
        const aclScalar *threshold, const aclScalar *value, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnThreshold(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef,
        const aclScalar *threshold, const aclScalar *value, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceThreshold(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_THRESHOLD_H_ */
