/*
 * aclnnop/aclnn_neg.h - the aclnn Neg and InplaceNeg operators. Declarations
 * as CANN's (hicann/ops-math math/neg/op_api/aclnn_neg.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_NEG_H_
#define OP_API_INC_NEG_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor *self, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceNegGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnNeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceNeg(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NEG_H_ */
