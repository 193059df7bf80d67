/*
 * aclnnop/aclnn_grouped_matmul_v3.h - the aclnn GroupedMatmulV3 operator.
 * Declarations as CANN's (hicann/ops-transformer
 * gmm/grouped_matmul/op_host/op_api/aclnn_grouped_matmul_v3.h): each operator
 * is two calls, GetWorkspaceSize plans it and says how much device workspace
 * it needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_GROUPED_MATMUL_V3_H
#define OP_API_INC_GROUPED_MATMUL_V3_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatmulV3GetWorkspaceSize(const aclTensorList *x,
        const aclTensorList *weight, const aclTensorList *biasOptional,
        const aclTensorList *scaleOptional, const aclTensorList *offsetOptional,
        const aclTensorList *antiquantScaleOptional, const aclTensorList *antiquantOffsetOptional,
        const aclTensor *groupListOptional, int64_t splitItem, int64_t groupType,
        const aclTensorList *y, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGroupedMatmulV3(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GROUPED_MATMUL_V3_H */
