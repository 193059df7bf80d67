/*
 * aclnnop/aclnn_norm.h - the aclnn Norm operator. Declarations as CANN's
 * (hicann/ops-nn norm/lp_norm_v2/op_api/aclnn_norm.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_NORM_H_
#define OP_API_INC_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar,
        const aclIntArray *dim, bool keepdim, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NORM_H_ */
