/*
 * aclnnop/aclnn_softplus.h - the aclnn Softplus operator. Declarations as
 * CANN's (hicann/ops-nn activation/softplus_v2/op_api/aclnn_softplus.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_SOFTPLUS_H_
#define OP_API_INC_SOFTPLUS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta,
        const aclScalar *threshold, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSoftplus(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SOFTPLUS_H_ */
