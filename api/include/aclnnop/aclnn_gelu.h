/*
 * aclnnop/aclnn_gelu.h - the aclnn Gelu operator: out = Gelu(self), the tanh approximation.
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-nn, aclnn_gelu.h).
 */
#ifndef OP_API_INC_GELU_H_
#define OP_API_INC_GELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GELU_H_ */
