/*
 * aclnnop/aclnn_layer_norm.h - the aclnn LayerNorm, LayerNormWithImplMode and
 * FastLayerNorm operators. Declarations as CANN's (hicann/ops-nn
 * norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_LAYER_NORM_H_
#define OP_API_INC_LEVEL2_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input,
        const aclIntArray *normalizedShape, const aclTensor *weightOptional,
        const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
        aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(const aclTensor *input,
        const aclIntArray *normalizedShape, const aclTensor *weightOptional,
        const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
        aclTensor *rstdOutOptional, int32_t implMode, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnFastLayerNormGetWorkspaceSize(const aclTensor *input,
        const aclIntArray *normalizedShape, const aclTensor *weightOptional,
        const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
        aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnFastLayerNorm(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_LAYER_NORM_H_ */
