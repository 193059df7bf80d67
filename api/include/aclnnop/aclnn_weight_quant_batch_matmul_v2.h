/*
 * aclnnop/aclnn_weight_quant_batch_matmul_v2.h - the aclnn
 * WeightQuantBatchMatmulV2 operator. Declarations as CANN's (hicann/ops-nn mat
 * mul/weight_quant_batch_matmul_v2/op_host/op_api/aclnn_weight_quant_batch_mat
 * mul_v2.h): each operator is two calls, GetWorkspaceSize plans it and says
 * how much device workspace it needs, the launch runs it on a stream.
 * api/abi/calls.def says which ones aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H_
#define OP_API_INC_LEVEL2_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(const aclTensor *x,
        const aclTensor *weight, const aclTensor *antiquantScale,
        const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional,
        const aclTensor *quantOffsetOptional, const aclTensor *biasOptional,
        int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV2(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H_ */
