/*
 * aclnnop/aclnn_sign.h - the aclnn Sign operator. Declarations as CANN's
 * (hicann/ops-math math/sign/op_api/aclnn_sign.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_SIGN_H_
#define OP_API_INC_LEVEL2_ACLNN_SIGN_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSignGetWorkspaceSize(const aclTensor *self, aclTensor *result,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSign(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_SIGN_H_ */
