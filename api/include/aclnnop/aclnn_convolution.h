/*
 * aclnnop/aclnn_convolution.h - the aclnn Convolution, ConvTbc and
 * ConvDepthwise2d operators. Declarations as CANN's (hicann/ops-nn
 * conv/convolution_forward/op_host/op_api/aclnn_convolution.h): each operator
 * is two calls, GetWorkspaceSize plans it and says how much device workspace
 * it needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_CONVOLUTION_H
#define OP_API_INC_CONVOLUTION_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input,
        const aclTensor *weight, const aclTensor *bias, const aclIntArray *stride,
        const aclIntArray *padding, const aclIntArray *dilation, bool transposed,
        const aclIntArray *outputPadding, const int64_t groups, aclTensor *output,
        int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnConvTbcGetWorkspaceSize(const aclTensor *self, const aclTensor *weight,
        const aclTensor *bias, const int64_t pad, aclTensor *output, int8_t cubeMathType,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnConvDepthwise2dGetWorkspaceSize(const aclTensor *self,
        const aclTensor *weight, const aclIntArray *kernelSize, const aclTensor *bias,
        const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
        aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnConvolution(void *workspace, const uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnConvTbc(void *workspace, const uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnConvDepthwise2d(void *workspace, const uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CONVOLUTION_H */
