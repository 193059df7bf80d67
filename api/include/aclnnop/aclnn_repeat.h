/*
 * aclnnop/aclnn_repeat.h - the aclnn Repeat operator. Declarations as CANN's
 * (hicann/ops-math math/tile/op_api/aclnn_repeat.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_REPEAT_H_
#define OP_API_INC_LEVEL2_ACLNN_REPEAT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *repeats, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRepeat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_REPEAT_H_ */
