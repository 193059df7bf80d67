/*
 * aclnnop/aclnn_trans_matmul_weight.h - the aclnn TransMatmulWeight operator,
 * and aclnnCalculateMatmulWeightSizeV2 and aclnnCalculateMatmulWeightSize.
 * Declarations as CANN's (hicann/ops-math
 * conversion/trans_data/op_api/aclnn_trans_matmul_weight.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_TRANS_MATMUL_WEIGHT_H_
#define OP_API_INC_TRANS_MATMUL_WEIGHT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape,
        aclDataType dataType, uint64_t *weightTensorSize);
ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
        uint64_t *weightTensorSize);
ACLNN_API aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnTransMatmulWeight(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TRANS_MATMUL_WEIGHT_H_ */
