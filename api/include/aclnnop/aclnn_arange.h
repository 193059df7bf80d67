/*
 * aclnnop/aclnn_arange.h - the aclnn Arange operator. Declarations as CANN's
 * (hicann/ops-math math/range/op_api/aclnn_arange.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_ARANGE_H_
#define OP_API_INC_ARANGE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end,
        const aclScalar *step, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnArange(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ARANGE_H_ */
