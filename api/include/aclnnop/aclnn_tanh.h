/*
 * aclnnop/aclnn_tanh.h - the aclnn Tanh operator: out = tanh(self).
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-math, aclnn_tanh.h).
 */
#ifndef OP_API_INC_TANH_H_
#define OP_API_INC_TANH_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnTanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TANH_H_ */
