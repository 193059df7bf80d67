/*
 * aclnnop/aclnn_add.h - the aclnn Add operators: out = self + alpha * other (broadcast); InplaceAdd writes selfRef.
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-math math/add/op_host/op_api/aclnn_add.h).
 */
#ifndef OP_API_INC_ADD_H_
#define OP_API_INC_ADD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ADD_H_ */
