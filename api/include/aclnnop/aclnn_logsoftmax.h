/*
 * aclnnop/aclnn_logsoftmax.h - the aclnn LogSoftmax operator. Declarations as
 * CANN's (hicann/ops-nn activation/log_softmax_v2/op_api/aclnn_logsoftmax.h):
 * each operator is two calls, GetWorkspaceSize plans it and says how much
 * device workspace it needs, the launch runs it on a stream. api/abi/calls.def
 * says which ones aclsim computes.
 */
#ifndef OP_API_INC_LOGSOFTMAX_H_
#define OP_API_INC_LOGSOFTMAX_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLogSoftmax(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LOGSOFTMAX_H_ */
