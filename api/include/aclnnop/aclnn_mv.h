/*
 * aclnnop/aclnn_mv.h - the aclnn Mv operator. Declarations as CANN's
 * (hicann/ops-nn matmul/mv/op_host/op_api/aclnn_mv.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_MV_H_
#define OP_API_INC_LEVEL2_ACLNN_MV_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec,
        aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_MV_H_ */
