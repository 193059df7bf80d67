/*
 * aclnnop/aclnn_index_fill_tensor.h - the aclnn IndexFillTensor and
 * InplaceIndexFillTensor operators. Declarations as CANN's (hicann/ops-nn
 * index/index_fill_d/op_api/aclnn_index_fill_tensor.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_INDEX_FILL_TENSOR_H_
#define OP_API_INC_LEVEL2_ACLNN_INDEX_FILL_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexFillTensorGetWorkspaceSize(const aclTensor *self, int64_t dim,
        const aclIntArray *index, const aclScalar *value, aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIndexFillTensor(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
        const aclIntArray *index, const aclScalar *value, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceIndexFillTensor(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_INDEX_FILL_TENSOR_H_ */
