/*
 * aclnnop/aclnn_index_copy.h - the aclnn IndexCopy and InplaceIndexCopy
 * operators. Declarations as CANN's (hicann/ops-nn
 * index/scatter_update/op_api/aclnn_index_copy.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_INDEX_COPY_H_
#define OP_API_INC_INDEX_COPY_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
        const aclTensor *index, const aclTensor *source, aclTensor *outRef,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIndexCopy(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
        const aclTensor *index, const aclTensor *source, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceIndexCopy(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_INDEX_COPY_H_ */
