/*
 * aclnnop/aclnn_constant_pad_nd.h - the aclnn ConstantPadNd operator.
 * Declarations as CANN's (hicann/ops-math
 * conversion/pad_v3/op_api/aclnn_constant_pad_nd.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_CONSTANT_PAD_ND_H_
#define OP_API_INC_CONSTANT_PAD_ND_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *pad, const aclScalar *value, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnConstantPadNd(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CONSTANT_PAD_ND_H_ */
