/*
 * aclnnop/aclnn_slice.h - the aclnn Slice operator. Declarations as CANN's
 * (hicann/ops-math conversion/slice/op_api/aclnn_slice.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_SLICE_H_
#define OP_API_INC_LEVEL2_ACLNN_SLICE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start,
        int64_t end, int64_t step, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_SLICE_H_ */
