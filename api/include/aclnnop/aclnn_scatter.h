/*
 * aclnnop/aclnn_scatter.h - the aclnn Scatter, ScatterValue, InplaceScatter
 * and InplaceScatterValue operators. Declarations as CANN's (hicann/ops-nn
 * index/scatter_elements_v2/op_api/aclnn_scatter.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_SCATTER_H_
#define OP_API_INC_SCATTER_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim,
        const aclTensor *index, const aclTensor *src, int64_t reduce, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnScatter(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim,
        const aclTensor *index, const aclScalar *value, int64_t reduce, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnScatterValue(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
        const aclTensor *index, const aclTensor *src, int64_t reduce, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceScatter(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
        const aclTensor *index, const aclScalar *value, int64_t reduce, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceScatterValue(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SCATTER_H_ */
