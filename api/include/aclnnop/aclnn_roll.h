/*
 * aclnnop/aclnn_roll.h - the aclnn Roll operator. Declarations as CANN's
 * (hicann/ops-math conversion/roll/op_api/aclnn_roll.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_ACLNN_ROLL_H
#define OP_API_ACLNN_ROLL_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts,
        const aclIntArray *dims, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRoll(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_ACLNN_ROLL_H */
