/*
 * aclnnop/aclnn_logical_not.h - the aclnn LogicalNot and InplaceLogicalNot
 * operators. Declarations as CANN's (hicann/ops-math
 * math/logical_not/op_api/aclnn_logical_not.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_LogicalNot_H_
#define OP_API_INC_LogicalNot_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogicalNotGetWorkspaceSize(const aclTensor *self, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLogicalNot(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceLogicalNotGetWorkspaceSize(aclTensor *selfRef,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceLogicalNot(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LogicalNot_H_ */
