/*
 * aclnnop/aclnn_addcdiv.h - the aclnn Addcdiv and InplaceAddcdiv operators.
 * Declarations as CANN's (hicann/ops-math
 * math/addcdiv/op_api/aclnn_addcdiv.h): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_ADDCDIV_H_
#define OP_API_INC_ADDCDIV_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1,
        const aclTensor *tensor2, const aclScalar *value, const aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAddcdiv(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceAddcdivGetWorkspaceSize(const aclTensor *selfRef,
        const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceAddcdiv(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ADDCDIV_H_ */
