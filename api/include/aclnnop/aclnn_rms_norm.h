/*
 * aclnnop/aclnn_rms_norm.h - the aclnn RmsNorm operator. Declarations as
 * CANN's (hicann/ops-nn norm/rms_norm/docs/aclnnRmsNorm.md (the header is
 * generated from the op definition)): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_RMS_NORM_H_
#define OP_API_INC_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma,
        double epsilon, const aclTensor *yOut, const aclTensor *rstdOut, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRmsNorm(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_RMS_NORM_H_ */
