/*
 * aclnnop/aclnn_elu.h - the aclnn Elu and InplaceElu operators. Declarations
 * as CANN's (hicann/ops-nn activation/elu/op_api/aclnn_elu.h): each operator
 * is two calls, GetWorkspaceSize plans it and says how much device workspace
 * it needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_ELU_H_
#define OP_API_INC_LEVEL2_ACLNN_ELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha,
        const aclScalar *scale, const aclScalar *inputScale, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnElu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceEluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *alpha,
        const aclScalar *scale, const aclScalar *inputScale, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceElu(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_ELU_H_ */
