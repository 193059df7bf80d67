/*
 * aclnnop/aclnn_pow.h - the aclnn PowTensorScalar, InplacePowTensorScalar and
 * PowScalarTensor operators. Declarations as CANN's (hicann/ops-math
 * math/pow/op_api/aclnn_pow.h): each operator is two calls, GetWorkspaceSize
 * plans it and says how much device workspace it needs, the launch runs it on
 * a stream. api/abi/calls.def says which ones aclsim computes.
 */
#ifndef OP_API_INC_POW_TENSOR_SCALAR_H_
#define OP_API_INC_POW_TENSOR_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self,
        const aclScalar *exponent, const aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPowTensorScalar(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplacePowTensorScalarGetWorkspaceSize(const aclTensor *self,
        const aclScalar *exponent, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplacePowTensorScalar(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self,
        const aclTensor *exponent, const aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPowScalarTensor(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_POW_TENSOR_SCALAR_H_ */
