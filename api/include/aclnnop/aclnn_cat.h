/*
 * aclnnop/aclnn_cat.h - the aclnn Cat operator. Declarations as CANN's
 * (hicann/ops-math conversion/concat_d/op_api/aclnn_cat.h): each operator is
 * two calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_CAT_H_
#define OP_API_INC_CAT_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnCat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CAT_H_ */
