/*
 * aclnnop/aclnn_max_pool.h - the aclnn MaxPool operator. Declarations as
 * CANN's (hicann/ops-nn pooling/max_pool_v3/op_api/aclnn_max_pool.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_MAX_POOL_H_
#define OP_API_INC_LEVEL2_ACLNN_MAX_POOL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *kernelShape, const aclIntArray *strides, const int64_t autoPad,
        const aclIntArray *pads, const aclIntArray *dilations, const int64_t ceilMode,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_MAX_POOL_H_ */
