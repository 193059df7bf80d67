/*
 * aclnnop/aclnn_gt_scalar.h - the aclnn GtScalar and InplaceGtScalar
 * operators. Declarations as CANN's (hicann/ops-math
 * math/greater/op_api/aclnn_gt_scalar.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_GTSCALAR_H_
#define OP_API_INC_GTSCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGtScalar(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceGtScalarGetWorkspaceSize(aclTensor *selfRef,
        const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceGtScalar(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GTSCALAR_H_ */
