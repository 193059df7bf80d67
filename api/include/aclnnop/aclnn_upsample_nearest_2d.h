/*
 * aclnnop/aclnn_upsample_nearest_2d.h - the aclnn UpsampleNearest2d operator.
 * Declarations as CANN's (hicann/ops-cv
 * image/resize_nearest_neighbor_v2/op_api/aclnn_upsample_nearest_2d.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_UPSAMPLE_NEAREST_2D_H_
#define OP_API_INC_UPSAMPLE_NEAREST_2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *outputSize, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnUpsampleNearest2d(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_UPSAMPLE_NEAREST_2D_H_ */
