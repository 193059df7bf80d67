/*
 * aclnnop/aclnn_avgpool2d.h - the aclnn AvgPool2d operator. Declarations as
 * CANN's (hicann/ops-nn pooling/avg_pool3_d/op_api/aclnn_avgpool2d.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_AVGPOOL2D_H_
#define OP_API_INC_AVGPOOL2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *kernelSize, const aclIntArray *strides, const aclIntArray *paddings,
        const bool ceilMode, const bool countIncludePad, const int64_t divisorOverride,
        const int8_t cubeMathType, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAvgPool2d(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_AVGPOOL2D_H_ */
