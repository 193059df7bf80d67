/*
 * aclnnop/aclnn_batch_matmul.h - the aclnn BatchMatMul operator: out = self @ mat2 over batches (3-D); plans a workspace for the fp32 accumulators.
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-nn, aclnn_batch_matmul.h).
 */
#ifndef OP_API_INC_BATCH_MATMUL_H_
#define OP_API_INC_BATCH_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnBatchMatMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BATCH_MATMUL_H_ */
