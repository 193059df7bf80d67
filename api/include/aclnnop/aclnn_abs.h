/*
 * aclnnop/aclnn_abs.h - the aclnn Abs operator. Declarations as CANN's
 * (hicann/ops-math math/abs/op_api/aclnn_abs.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_ABS_H_
#define OP_API_INC_LEVEL2_ACLNN_ABS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor *self, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_ABS_H_ */
