/*
 * aclnnop/aclnn_reduce_sum.h - the aclnn ReduceSum operator. Declarations as
 * CANN's (hicann/ops-math math/reduce_sum/op_api/aclnn_reduce_sum.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_REDUCE_SUM_H_
#define OP_API_INC_REDUCE_SUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *dims, bool keepDims, aclDataType dtype, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REDUCE_SUM_H_ */
