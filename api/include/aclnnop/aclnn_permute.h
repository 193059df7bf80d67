/*
 * aclnnop/aclnn_permute.h - the aclnn Permute operator. Declarations as CANN's
 * (hicann/ops-math conversion/transpose/op_api/aclnn_permute.h): each operator
 * is two calls, GetWorkspaceSize plans it and says how much device workspace
 * it needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_PERMUTE_H_
#define OP_API_INC_PERMUTE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPermute(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_PERMUTE_H_ */
