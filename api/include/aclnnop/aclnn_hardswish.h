/*
 * aclnnop/aclnn_hardswish.h - the aclnn Hardswish and InplaceHardswish
 * operators. Declarations as CANN's (hicann/ops-nn
 * activation/hard_swish/op_host/op_api/aclnn_hardswish.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_HARDSWISH_H_
#define OP_API_INC_HARDSWISH_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnHardswishGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnHardswish(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceHardswishGetWorkspaceSize(const aclTensor *self,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceHardswish(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_HARDSWISH_H_ */
