/*
 * aclnnop/aclnn_ger.h - the aclnn Ger operator. Declarations as CANN's
 * (hicann/ops-math math/ger/op_api/aclnn_ger.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_GER_H_
#define OP_API_INC_LEVEL2_ACLNN_GER_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGer(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_GER_H_ */
