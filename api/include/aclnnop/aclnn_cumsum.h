/*
 * aclnnop/aclnn_cumsum.h - the aclnn Cumsum and CumsumV2 operators.
 * Declarations as CANN's (hicann/ops-math math/cumsum/op_api/aclnn_cumsum.h):
 * each operator is two calls, GetWorkspaceSize plans it and says how much
 * device workspace it needs, the launch runs it on a stream. api/abi/calls.def
 * says which ones aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_CUMSUM_H_
#define OP_API_INC_LEVEL2_ACLNN_CUMSUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim,
        aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnCumsum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnCumsumV2GetWorkspaceSize(const aclTensor *self, int64_t dim,
        bool exclusive, bool reverse, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnCumsumV2(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_CUMSUM_H_ */
