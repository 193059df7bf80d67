/*
 * aclnnop/aclnn_group_norm.h - the aclnn GroupNorm operator. Declarations as
 * CANN's (hicann/ops-nn norm/group_norm/op_host/op_api/aclnn_group_norm.h):
 * each operator is two calls, GetWorkspaceSize plans it and says how much
 * device workspace it needs, the launch runs it on a stream. api/abi/calls.def
 * says which ones aclsim computes.
 */
#ifndef OP_API_INC_GROUP_NORM_H_
#define OP_API_INC_GROUP_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
        const aclTensor *beta, int64_t N, int64_t C, int64_t HxW, int64_t group, double eps,
        aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GROUP_NORM_H_ */
