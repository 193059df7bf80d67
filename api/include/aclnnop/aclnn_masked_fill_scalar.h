/*
 * aclnnop/aclnn_masked_fill_scalar.h - the aclnn InplaceMaskedFillScalar
 * operator. Declarations as CANN's (hicann/ops-math
 * conversion/masked_fill/op_api/aclnn_masked_fill_scalar.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_MASKEF_FILL_SCALAR_H_
#define OP_API_INC_MASKEF_FILL_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef,
        const aclTensor *mask, const aclScalar *value, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceMaskedFillScalar(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MASKEF_FILL_SCALAR_H_ */
