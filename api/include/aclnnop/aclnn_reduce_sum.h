/*
 * aclnnop/aclnn_reduce_sum.h - the aclnn ReduceSum operator: out = the sum of self over the axes dim (all axes when dim is empty), keeping them as 1 with keepDim; plans a workspace for the fp32 partial sums.
 * Two phases, as every aclnn operator: GetWorkspaceSize plans the call
 * and says how much device workspace it needs; the launch runs it on a
 * stream. Signatures as CANN's (hicann/ops-math math/reduce_sum_op/op_host/op_api/aclnn_reduce_sum.h).
 */
#ifndef OP_API_INC_REDUCE_SUM_H_
#define OP_API_INC_REDUCE_SUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REDUCE_SUM_H_ */
