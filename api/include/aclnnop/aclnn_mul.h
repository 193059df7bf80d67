/*
 * aclnnop/aclnn_mul.h - the aclnn Mul operators: out = self * other (broadcast); InplaceMul writes selfRef.
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-math, aclnn_mul.h).
 */
#ifndef OP_API_INC_MUL_H_
#define OP_API_INC_MUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MUL_H_ */
