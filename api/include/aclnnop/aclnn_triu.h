/*
 * aclnnop/aclnn_triu.h - the aclnn Triu and InplaceTriu operators.
 * Declarations as CANN's (hicann/ops-math
 * conversion/triu/op_api/aclnn_triu.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_TRIU_H_
#define OP_API_INC_LEVEL2_ACLNN_TRIU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnTriu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceTriu(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_TRIU_H_ */
