/*
 * aclnnop/aclnn_reflection_pad1d.h - the aclnn ReflectionPad1d operator.
 * Declarations as CANN's (hicann/ops-math
 * conversion/mirror_pad/op_api/aclnn_reflection_pad1d.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_REFLECTION_PAD1D_H_
#define OP_API_INC_REFLECTION_PAD1D_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *padding, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnReflectionPad1d(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REFLECTION_PAD1D_H_ */
