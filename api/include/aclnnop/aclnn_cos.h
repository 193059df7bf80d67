/*
 * aclnnop/aclnn_cos.h - the aclnn Cos and InplaceCos operators. Declarations
 * as CANN's (hicann/ops-math math/cos/op_api/aclnn_cos.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_COS_H_
#define OP_API_INC_COS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCosGetWorkspaceSize(const aclTensor *input, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnCos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceCosGetWorkspaceSize(aclTensor *inputRef, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceCos(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_COS_H_ */
