/*
 * aclnnop/aclnn_im2col.h - the aclnn Im2col operator. Declarations as CANN's
 * (hicann/ops-math conversion/im2col/op_api/aclnn_im2col.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_IM2COL_H_
#define OP_API_INC_IM2COL_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self,
        const aclIntArray *kernelSize, const aclIntArray *dilation, const aclIntArray *padding,
        const aclIntArray *stride, const aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIm2col(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_IM2COL_H_ */
