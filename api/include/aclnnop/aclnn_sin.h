/*
 * aclnnop/aclnn_sin.h - the aclnn Sin and InplaceSin operators. Declarations
 * as CANN's (hicann/ops-math math/sin/op_api/aclnn_sin.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_SIN_H_
#define OP_API_INC_SIN_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSinGetWorkspaceSize(const aclTensor *self, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceSinGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceSin(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SIN_H_ */
