/*
 * aclnnop/aclnn_geglu.h - the aclnn GeGlu and GeGluV3 operators. Declarations
 * as CANN's (hicann/ops-nn activation/ge_glu_v2/op_host/op_api/aclnn_geglu.h):
 * each operator is two calls, GetWorkspaceSize plans it and says how much
 * device workspace it needs, the launch runs it on a stream. api/abi/calls.def
 * says which ones aclsim computes.
 */
#ifndef OP_API_INC_LEVEL2_ACLNN_GEGLU_H_
#define OP_API_INC_LEVEL2_ACLNN_GEGLU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeGluGetWorkspaceSize(const aclTensor *self, int64_t dim,
        int64_t approximate, aclTensor *out, aclTensor *outGelu, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim,
        int64_t approximate, bool activateLeft, aclTensor *out, aclTensor *outGelu,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGeGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnGeGluV3(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LEVEL2_ACLNN_GEGLU_H_ */
