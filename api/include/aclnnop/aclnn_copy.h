/*
 * aclnnop/aclnn_copy.h - the aclnn InplaceCopy operator. Declarations as
 * CANN's (hicann/ops-math conversion/view_copy/op_api/aclnn_copy.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_COPY_H_
#define OP_API_INC_COPY_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceCopy(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_COPY_H_ */
