/*
 * aclnnop/aclnn_add_rms_norm.h - the aclnn AddRmsNorm operator. Declarations
 * as CANN's (hicann/ops-nn
 * norm/add_rms_norm/op_host/op_api/aclnn_add_rms_norm.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ADD_RMS_NORM_H_
#define OP_API_INC_LEVEL2_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
        const aclTensor *gamma, double epsilon, aclTensor *yOut, aclTensor *rstdOut,
        aclTensor *xOut, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ADD_RMS_NORM_H_ */
